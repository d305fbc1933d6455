package ml

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// BandRange is a frequency band a model is calibrated on, MHz inclusive.
type BandRange struct {
	Name   string  `json:"name"` // e.g. "B3", "n78"
	MinMHz float64 `json:"min_mhz"`
	MaxMHz float64 `json:"max_mhz"`
}

// LatLonBox is an area a model is calibrated on: WGS84 degrees,
// inclusive, MinLon <= MaxLon (no box crosses the antimeridian).
type LatLonBox struct {
	Name   string  `json:"name"` // e.g. "Dortmund, Germany"
	MinLat float64 `json:"min_lat"`
	MinLon float64 `json:"min_lon"`
	MaxLat float64 `json:"max_lat"`
	MaxLon float64 `json:"max_lon"`
}

// Envelope is where a model's accuracy figures hold (SPEC §2.5: "outside
// the calibrated envelope the service … refuses to extrapolate"): the
// areas and frequency bands of its calibration data. A query outside any
// of its areas, or outside all of its bands, is outside the envelope.
// Empty Areas or Bands do not restrict that dimension.
type Envelope struct {
	// Description says in words where and on what the model is
	// calibrated, e.g. "LTE drive tests in Dortmund, Germany".
	Description string      `json:"description"`
	Areas       []LatLonBox `json:"areas,omitempty"`
	Bands       []BandRange `json:"bands,omitempty"`
	// Environments lists the kinds of places of the calibration data
	// (urban, suburban, …); informational, not checked.
	Environments []string `json:"environments,omitempty"`
}

// Contains reports whether a query at (lat, lon) on freqMHz is inside e;
// when it is not, reason says which part fails, in words a user can read.
// A nil envelope contains everything.
func (e *Envelope) Contains(lat, lon, freqMHz float64) (ok bool, reason string) {
	if e == nil {
		return true, ""
	}
	if len(e.Areas) > 0 {
		in := false
		for _, a := range e.Areas {
			if lat >= a.MinLat && lat <= a.MaxLat && lon >= a.MinLon && lon <= a.MaxLon {
				in = true
				break
			}
		}
		if !in {
			names := make([]string, len(e.Areas))
			for i, a := range e.Areas {
				names[i] = a.Name
			}
			return false, "outside the calibrated area (" + strings.Join(names, "; ") + ")"
		}
	}
	if len(e.Bands) > 0 {
		for _, b := range e.Bands {
			if freqMHz >= b.MinMHz && freqMHz <= b.MaxMHz {
				return true, ""
			}
		}
		names := make([]string, len(e.Bands))
		for i, b := range e.Bands {
			names[i] = b.Name
		}
		return false, "frequency " + strconv.FormatFloat(freqMHz, 'f', -1, 64) + " MHz is outside the calibrated bands (" + strings.Join(names, ", ") + ")"
	}
	return true, ""
}

// validate checks that every box and band is well formed.
func (e *Envelope) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("envelope: "+format+": %w", append(args, ErrArtifact)...)
	}
	if strings.TrimSpace(e.Description) == "" {
		return bad("description is empty")
	}
	for i, a := range e.Areas {
		for _, v := range []float64{a.MinLat, a.MinLon, a.MaxLat, a.MaxLon} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return bad("area %d has a value that is not a number", i)
			}
		}
		if a.Name == "" || a.MinLat < -90 || a.MaxLat > 90 || a.MinLon < -180 || a.MaxLon > 180 || a.MinLat > a.MaxLat || a.MinLon > a.MaxLon {
			return bad("area %d (%q) needs a name and -90 <= min_lat <= max_lat <= 90, -180 <= min_lon <= max_lon <= 180", i, a.Name)
		}
	}
	for i, b := range e.Bands {
		if b.Name == "" || !(b.MinMHz > 0) || !(b.MaxMHz >= b.MinMHz) || math.IsInf(b.MaxMHz, 0) {
			return bad("band %d (%q) needs a name and 0 < min_mhz <= max_mhz", i, b.Name)
		}
	}
	return nil
}
