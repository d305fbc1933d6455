package clutter

import (
	"fmt"
	"strconv"
	"strings"
)

// Class is a land-cover clutter class. The zero value Unknown means no data;
// the ten classes of SPEC §2.5 follow in the order of the model's one-hot
// vector (Forest = 1 … Other = 10, one-hot index Class-1).
type Class uint8

// Clutter classes (SPEC §2.5).
const (
	Unknown   Class = iota // no data / not observed
	Forest                 // closed woody vegetation: forest, mangrove, flooded forest, plantations
	Savanna                // open woody vegetation (cerrado, savanna formations)
	Grassland              // natural grassland and non-forest wetland
	Pasture                // planted pasture
	Mosaic                 // agriculture other than soybean, agriculture/pasture mosaic
	Urban                  // built-up (urban infrastructure)
	Bare                   // non-vegetated: beach, dune, rock, mining, salt flat
	Water                  // rivers, lakes, ocean, aquaculture
	Soybean                // soybean fields
	Other                  // other non-forest natural formations
)

// NumClasses is the number of known classes (Forest … Other), the length of
// the one-hot vector.
const NumClasses = 10

// String returns the English label of c as written in SPEC §2.5 ("Forest"),
// "Unknown" for 0 and "Class(n)" for an invalid value.
func (c Class) String() string {
	switch c {
	case Unknown:
		return "Unknown"
	case Forest:
		return "Forest"
	case Savanna:
		return "Savanna"
	case Grassland:
		return "Grassland"
	case Pasture:
		return "Pasture"
	case Mosaic:
		return "Mosaic"
	case Urban:
		return "Urban"
	case Bare:
		return "Bare"
	case Water:
		return "Water"
	case Soybean:
		return "Soybean"
	case Other:
		return "Other"
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// Valid reports whether c is one of the ten known classes (not Unknown).
func (c Class) Valid() bool { return c >= Forest && c <= Other }

// ParseClass returns the class named s (case-insensitive, as String writes
// it, "Unknown" included).
func ParseClass(s string) (Class, error) {
	for c := Unknown; c <= Other; c++ {
		if strings.EqualFold(c.String(), s) {
			return c, nil
		}
	}
	return Unknown, fmt.Errorf("parse clutter class %q: unknown name", s)
}

// Classes returns the ten known classes in one-hot order.
func Classes() []Class {
	out := make([]Class, NumClasses)
	for i := range out {
		out[i] = Class(i + 1)
	}
	return out
}

// OneHotIndex returns the position of c in the model's one-hot vector
// (0 … NumClasses-1), or -1 for Unknown and invalid values.
func (c Class) OneHotIndex() int {
	if !c.Valid() {
		return -1
	}
	return int(c) - 1
}

// OneHot returns the one-hot feature vector of c (all zeros for Unknown).
func (c Class) OneHot() [NumClasses]float64 {
	var v [NumClasses]float64
	if i := c.OneHotIndex(); i >= 0 {
		v[i] = 1
	}
	return v
}

// Zone is an ITU-R P.1812 / P.452 radio-meteorological zone hint.
type Zone uint8

// Radio-meteorological zones (ITU-R P.1812-7 §3.6 / P.452 Table 3).
const (
	ZoneInland  Zone = iota // A2: land that is not coastal
	ZoneCoastal             // A1: coastal land (decided by distance to sea, not by class)
	ZoneSea                 // B: seas, oceans and large bodies of inland water
)

func (z Zone) String() string {
	switch z {
	case ZoneInland:
		return "inland"
	case ZoneCoastal:
		return "coastal"
	case ZoneSea:
		return "sea"
	}
	return "Zone(" + strconv.Itoa(int(z)) + ")"
}

// params holds the per-class propagation parameters.
type params struct {
	heightM     float64 // representative clutter height, metres
	distanceKm  float64 // P.452 nominal distance d_k, kilometres
	zone        Zone
	p452Analogy string // P.452 Table 4 / P.1812 Table 2 category used
}

// params returns the representative clutter height and nominal distance, from ITU-R P.452-17
// Table 4 ("nominal clutter heights and distances") and ITU-R P.1812-7
// Table 2 ("default representative clutter heights": water/sea 0 m,
// open/rural 0 m, suburban 10 m, urban/trees/forest 15 m, dense urban 20 m),
// choosing for each class the category that best describes the Brazilian land
// cover it collects (see MAPPING.md).
func (c Class) params() params {
	switch c {
	case Forest:
		return params{20, 0.03, ZoneInland, "P.452 tropical rain forest: 20 m, 0.03 km"}
	case Savanna:
		return params{4, 0.1, ZoneInland, "P.452 irregularly spaced sparse trees: 4 m, 0.1 km"}
	case Grassland, Pasture, Bare:
		return params{0, 0, ZoneInland, "P.1812 open/rural: 0 m"}
	case Mosaic:
		return params{4, 0.1, ZoneInland, "P.452 high crop fields: 4 m, 0.1 km"}
	case Urban:
		return params{20, 0.02, ZoneInland, "P.452 urban: 20 m, 0.02 km"}
	case Water:
		return params{0, 0, ZoneSea, "P.1812 water/sea: 0 m, zone B"}
	case Soybean:
		return params{0, 0, ZoneInland, "P.1812 open/rural: 0 m (crop about 1 m high)"}
	case Other:
		return params{4, 0.1, ZoneInland, "P.452 irregularly spaced sparse trees: 4 m, 0.1 km"}
	}
	return params{0, 0, ZoneInland, "none: treated as open/rural (P.1812 Table 2, 0 m)"}
}

// HeightM returns the representative clutter height of c in metres
// (ITU-R P.452-17 Table 4 / P.1812-7 Table 2; 0 for Unknown). The mapping
// and its reasoning are in MAPPING.md.
func (c Class) HeightM() float64 {
	return c.params().heightM
}

// NominalDistanceKm returns the ITU-R P.452-17 Table 4 nominal distance d_k
// of c in kilometres (0 for classes without terminal clutter).
func (c Class) NominalDistanceKm() float64 {
	return c.params().distanceKm
}

// Zone returns the P.1812 radio-meteorological zone hint of c: ZoneSea for
// Water, ZoneInland otherwise. P.1812 zone B is sea or an inland water body
// large enough to hold a 100 km circle, so a river pixel is only a hint; the
// coastal zone A1 depends on the distance to the sea and is never returned.
func (c Class) Zone() Zone {
	return c.params().zone
}

// HeightSource returns the ITU-R category behind HeightM and
// NominalDistanceKm, for documentation and reports.
func (c Class) HeightSource() string {
	return c.params().p452Analogy
}
