package ml

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// BandRange is a frequency band a model is calibrated on, MHz inclusive.
type BandRange struct {
	Name   string  `json:"name"` // e.g. "B3", "n78", "1800MHz"
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

// LatLonPolygon is the convex hull of a model's receivers (HullOf): a
// point is inside when it lies in the polygon or within MarginM metres of
// its edges. Ring holds [lat, lon] vertices in WGS84 degrees,
// counter-clockwise in the (lon, lat) plane, the first not repeated; one
// vertex is a point and two a segment (receivers all at one place or on
// one line), each widened by the margin.
type LatLonPolygon struct {
	Name    string       `json:"name"`
	Ring    [][2]float64 `json:"ring"`
	MarginM float64      `json:"margin_m"`
}

// EngineValidity is the frequency range of the physics engine a model's
// target is relative to (the residual engine's baseline,
// p1812-p1411-hybrid: P.1812's 30–6000 MHz): outside it the baseline
// itself does not hold, so neither does the model, whatever its rows.
type EngineValidity struct {
	Engine string  `json:"engine"`
	MinMHz float64 `json:"min_mhz"`
	MaxMHz float64 `json:"max_mhz"`
}

// Envelope is where a model's accuracy figures hold (SPEC §2.5: "outside
// the calibrated envelope the service … refuses to extrapolate"): the
// areas and frequency bands of its calibration data and the validity of
// its baseline engine. A query is inside when it lies in one of Areas
// (when there are any), in one of Hulls (when there are any), inside
// Validity (when given) and in one of Bands (when there are any); an
// empty list does not restrict its dimension.
type Envelope struct {
	// Description says in words where and on what the model is
	// calibrated, e.g. "LTE drive tests in Dortmund, Germany".
	Description string      `json:"description"`
	Areas       []LatLonBox `json:"areas,omitempty"`
	// Hulls are the convex hulls of the training receivers with a margin
	// (artifact layout version 3).
	Hulls []LatLonPolygon `json:"hulls,omitempty"`
	Bands []BandRange     `json:"bands,omitempty"`
	// Validity is the baseline engine's frequency range (layout version
	// 3); nil for a model that is not relative to a physics engine.
	Validity *EngineValidity `json:"validity,omitempty"`
	// Environments lists the kinds of places of the calibration data
	// (urban, suburban, …); informational, not checked.
	Environments []string `json:"environments,omitempty"`
}

// Contains reports whether a query at (lat, lon) on freqMHz is inside e;
// when it is not, reason names every part that fails (area, hull, the
// baseline engine's validity, bands, in this order, joined by "; "), in
// words a user can read. A nil envelope contains everything: a server that
// must refuse a model without an envelope checks for nil itself.
func (e *Envelope) Contains(lat, lon, freqMHz float64) (ok bool, reason string) {
	if e == nil {
		return true, ""
	}
	var why []string
	if len(e.Areas) > 0 && !slices.ContainsFunc(e.Areas, func(a LatLonBox) bool {
		return lat >= a.MinLat && lat <= a.MaxLat && lon >= a.MinLon && lon <= a.MaxLon
	}) {
		names := make([]string, len(e.Areas))
		for i, a := range e.Areas {
			names[i] = a.Name
		}
		why = append(why, "outside the calibrated area ("+strings.Join(names, "; ")+")")
	}
	if len(e.Hulls) > 0 && !slices.ContainsFunc(e.Hulls, func(h LatLonPolygon) bool { return h.contains(lat, lon) }) {
		names := make([]string, len(e.Hulls))
		for i, h := range e.Hulls {
			names[i] = fmt.Sprintf("%s, %g m margin", h.Name, h.MarginM)
		}
		why = append(why, "outside the area its training receivers cover ("+strings.Join(names, "; ")+")")
	}
	f := strconv.FormatFloat(freqMHz, 'f', -1, 64)
	if v := e.Validity; v != nil && !(freqMHz >= v.MinMHz && freqMHz <= v.MaxMHz) {
		why = append(why, fmt.Sprintf("frequency %s MHz is outside the validity of its baseline engine %s (%g–%g MHz)", f, v.Engine, v.MinMHz, v.MaxMHz))
	}
	if len(e.Bands) > 0 && !slices.ContainsFunc(e.Bands, func(b BandRange) bool { return freqMHz >= b.MinMHz && freqMHz <= b.MaxMHz }) {
		names := make([]string, len(e.Bands))
		for i, b := range e.Bands {
			names[i] = b.Name
		}
		why = append(why, "frequency "+f+" MHz is outside the calibrated bands ("+strings.Join(names, ", ")+")")
	}
	if len(why) > 0 {
		return false, strings.Join(why, "; ")
	}
	return true, ""
}

// earthRadiusM is the mean earth radius used for the hull margin, metres.
const earthRadiusM = 6_371_000.0

// contains reports whether (lat, lon) is in the polygon or within its
// margin. Distances use a local equirectangular projection around the
// query point (good to a fraction of a percent over a few kilometres).
func (h *LatLonPolygon) contains(lat, lon float64) bool {
	k := math.Pi / 180 * earthRadiusM
	c := math.Cos(lat * math.Pi / 180)
	xy := func(v [2]float64) (float64, float64) { return (v[1] - lon) * c * k, (v[0] - lat) * k }
	n := len(h.Ring)
	if n >= 3 {
		inside := true
		for i := range n {
			x1, y1 := xy(h.Ring[i])
			x2, y2 := xy(h.Ring[(i+1)%n])
			// The query is the origin: it is left of every edge of a
			// counter-clockwise convex ring when inside.
			if x1*y2-x2*y1 < 0 {
				inside = false
				break
			}
		}
		if inside {
			return true
		}
	}
	for i := range n {
		x1, y1 := xy(h.Ring[i])
		x2, y2 := xy(h.Ring[(i+1)%n])
		if segmentDist(x1, y1, x2, y2) <= h.MarginM {
			return true
		}
	}
	return false
}

// segmentDist is the distance from the origin to the segment (x1, y1)–(x2, y2).
func segmentDist(x1, y1, x2, y2 float64) float64 {
	dx, dy := x2-x1, y2-y1
	t := 0.0
	if l := dx*dx + dy*dy; l > 0 {
		t = max(0, min(1, -(x1*dx+y1*dy)/l))
	}
	return math.Hypot(x1+t*dx, y1+t*dy)
}

// HullOf returns the convex hull of points ([lat, lon], WGS84 degrees) in
// the (lon, lat) plane as a counter-clockwise ring, vertices rounded
// outward from the hull's centre to 1e-6° (the margin covers the
// rounding), widened by marginM metres. Duplicate points are merged; one
// distinct point gives a one-vertex ring, collinear points a segment.
func HullOf(name string, points [][2]float64, marginM float64) LatLonPolygon {
	pts := slices.Clone(points)
	slices.SortFunc(pts, func(a, b [2]float64) int {
		if c := cmpF(a[1], b[1]); c != 0 {
			return c
		}
		return cmpF(a[0], b[0])
	})
	pts = slices.Compact(pts)
	cross := func(o, a, b [2]float64) float64 { return (a[1]-o[1])*(b[0]-o[0]) - (a[0]-o[0])*(b[1]-o[1]) }
	var ring [][2]float64
	if len(pts) <= 2 {
		ring = pts
	} else {
		// Andrew's monotone chain: lower then upper hull.
		h := make([][2]float64, 0, 2*len(pts))
		for _, p := range pts {
			for len(h) >= 2 && cross(h[len(h)-2], h[len(h)-1], p) <= 0 {
				h = h[:len(h)-1]
			}
			h = append(h, p)
		}
		lower := len(h) + 1
		for i := len(pts) - 2; i >= 0; i-- {
			p := pts[i]
			for len(h) >= lower && cross(h[len(h)-2], h[len(h)-1], p) <= 0 {
				h = h[:len(h)-1]
			}
			h = append(h, p)
		}
		ring = h[:len(h)-1]
	}
	var cLat, cLon float64
	for _, p := range ring {
		cLat, cLon = cLat+p[0], cLon+p[1]
	}
	if n := float64(len(ring)); n > 0 {
		cLat, cLon = cLat/n, cLon/n
	}
	out := make([][2]float64, len(ring))
	for i, p := range ring {
		out[i] = [2]float64{roundAway(p[0], cLat), roundAway(p[1], cLon)}
	}
	return LatLonPolygon{Name: name, Ring: out, MarginM: marginM}
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// roundAway rounds v to 1e-6 away from centre.
func roundAway(v, centre float64) float64 {
	if v >= centre {
		return math.Ceil(v*1e6) / 1e6
	}
	return math.Floor(v*1e6) / 1e6
}

// Band margins of BandsOf: a band of rows spans their frequencies widened
// by BandMarginFrac of the frequency, at least BandMarginMinMHz.
const (
	BandMarginFrac   = 0.05
	BandMarginMinMHz = 10.0
)

// BandsOf returns the calibrated bands of rows on freqsMHz: the rows are
// grouped by name(f) (e.g. the band a frequency snaps to), and each group's
// band runs from its lowest to its highest frequency, widened on each side
// by max(BandMarginFrac·f, BandMarginMinMHz). Bands are sorted by their
// lower edge.
func BandsOf(freqsMHz []float64, name func(mhz float64) string) []BandRange {
	by := map[string]*BandRange{}
	for _, f := range freqsMHz {
		n := name(f)
		b := by[n]
		if b == nil {
			b = &BandRange{Name: n, MinMHz: f, MaxMHz: f}
			by[n] = b
		}
		b.MinMHz, b.MaxMHz = min(b.MinMHz, f), max(b.MaxMHz, f)
	}
	out := make([]BandRange, 0, len(by))
	for _, b := range by {
		lo := b.MinMHz - max(BandMarginFrac*b.MinMHz, BandMarginMinMHz)
		hi := b.MaxMHz + max(BandMarginFrac*b.MaxMHz, BandMarginMinMHz)
		out = append(out, BandRange{Name: b.Name, MinMHz: math.Max(math.Floor(lo*1e3)/1e3, 0.001), MaxMHz: math.Ceil(hi*1e3) / 1e3})
	}
	slices.SortFunc(out, func(a, b BandRange) int {
		if c := cmpF(a.MinMHz, b.MinMHz); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// validate checks that every box, hull and band is well formed.
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
	for i, h := range e.Hulls {
		if h.Name == "" || len(h.Ring) == 0 || !finite(h.MarginM) || h.MarginM < 0 || h.MarginM > 1e6 {
			return bad("hull %d (%q) needs a name, at least one vertex and a margin of 0 to 1,000,000 m", i, h.Name)
		}
		for _, v := range h.Ring {
			if !finite(v[0]) || !finite(v[1]) || v[0] < -90 || v[0] > 90 || v[1] < -180 || v[1] > 180 {
				return bad("hull %d (%q) has a vertex outside WGS84 degrees", i, h.Name)
			}
		}
	}
	for i, b := range e.Bands {
		if b.Name == "" || !(b.MinMHz > 0) || !(b.MaxMHz >= b.MinMHz) || math.IsInf(b.MaxMHz, 0) {
			return bad("band %d (%q) needs a name and 0 < min_mhz <= max_mhz", i, b.Name)
		}
	}
	if v := e.Validity; v != nil && (v.Engine == "" || !(v.MinMHz > 0) || !(v.MaxMHz >= v.MinMHz) || math.IsInf(v.MaxMHz, 0)) {
		return bad("validity (%q) needs an engine and 0 < min_mhz <= max_mhz", v.Engine)
	}
	return nil
}
