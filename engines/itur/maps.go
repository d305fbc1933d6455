package itur

import (
	"embed"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"path"

	"linkplan/appliance"
)

// data holds the Brazil windows of the ITU-R digital maps, as staged in
// shared/data/itu/grids. See data/PROVENANCE.md.
//
//go:embed data/*.f32 data/*.json
var data embed.FS

// Coverage of the Brazil windows, WGS84 degrees: every map holds the nodes
// needed for bilinear interpolation anywhere in this box.
const (
	BrazilMinLatDeg = -34.0
	BrazilMaxLatDeg = 6.0
	BrazilMinLonDeg = -75.0
	BrazilMaxLonDeg = -33.0
)

// window is one rectangular block of regularly spaced nodes of a map: node
// (i, j) sits at latitude originLat + i·dLat and longitude originLon + j·dLon
// (degrees), row 0 southernmost, column 0 westernmost.
type window struct {
	originLat, originLon float64
	dLat, dLon           float64
	rows, cols           int
	v                    []float64 // rows·cols, row-major
}

// at interpolates the window bilinearly at (lat, lon) and reports whether the
// four surrounding nodes are in it.
func (w *window) at(lat, lon float64) (float64, bool) {
	fi := (lat - w.originLat) / w.dLat
	fj := (lon - w.originLon) / w.dLon
	if !(fi >= 0 && fj >= 0 && fi <= float64(w.rows-1) && fj <= float64(w.cols-1)) {
		return 0, false
	}
	i, j := int(fi), int(fj)
	if i == w.rows-1 {
		i--
	}
	if j == w.cols-1 {
		j--
	}
	a, b := fi-float64(i), fj-float64(j)
	r0, r1 := i*w.cols, (i+1)*w.cols
	v00, v01 := w.v[r0+j], w.v[r0+j+1]
	v10, v11 := w.v[r1+j], w.v[r1+j+1]
	return (1-a)*((1-b)*v00+b*v01) + a*((1-b)*v10+b*v11), true
}

// Grid is one ITU-R digital map: a quantity on a regular latitude/longitude
// grid, held as its Brazil window of the original nodes (values unchanged,
// float32 as staged), interpolated bilinearly between the four surrounding
// nodes as Recommendation ITU-R P.1144-12 (§1b, bilinear on a rectangular
// grid) prescribes for these maps.
type Grid struct {
	// Name is the map's file stem, e.g. "p837_mt_month01".
	Name string
	// Units of the values, e.g. "mm (per month)", "K", "N-units/km", "m".
	Units string
	// Quantity says what the values are.
	Quantity string
	// Source names the original file (ITU-Rpy itur/data/...).
	Source  string
	windows []window
}

// At returns the map's value at (latDeg, lonDeg), WGS84 degrees, longitudes
// east-positive in −180…180, by bilinear interpolation. A point whose four
// surrounding nodes are not in the map (Covers is false) fails with an error
// matching appliance.ErrOutsideEnvelope.
func (g *Grid) At(latDeg, lonDeg float64) (float64, error) {
	if math.IsNaN(latDeg) || math.IsNaN(lonDeg) || math.IsInf(latDeg, 0) || math.IsInf(lonDeg, 0) {
		return 0, fmt.Errorf("%s at (%v, %v): %w", g.Name, latDeg, lonDeg, appliance.ErrInvalid)
	}
	for i := range g.windows {
		if v, ok := g.windows[i].at(latDeg, lonDeg); ok {
			return v, nil
		}
	}
	return 0, fmt.Errorf("%s at (%.4f, %.4f): the embedded ITU-R maps cover Brazil only (latitude %g…%g, longitude %g…%g): %w",
		g.Name, latDeg, lonDeg, BrazilMinLatDeg, BrazilMaxLatDeg, BrazilMinLonDeg, BrazilMaxLonDeg, appliance.ErrOutsideEnvelope)
}

// Covers reports whether the map holds the four nodes around (latDeg,
// lonDeg), WGS84 degrees: whether At answers there rather than failing with
// appliance.ErrOutsideEnvelope.
func (g *Grid) Covers(latDeg, lonDeg float64) bool {
	for i := range g.windows {
		if _, ok := g.windows[i].at(latDeg, lonDeg); ok {
			return true
		}
	}
	return false
}

// Maps holds every map the ITU-R methods of this package read. Load it once
// (LoadMaps) and share it: it is read-only and safe for concurrent use.
type Maps struct {
	// MT are the P.837-7 monthly mean total rainfall maps MT_ii, mm,
	// months 1…12 at index 0…11.
	MT [12]*Grid
	// T are the P.1510-1 monthly mean surface temperature maps T_ii, K.
	T [12]*Grid
	// TAnnual is the P.1510-1 annual mean surface temperature map, K.
	TAnnual *Grid
	// DN1 is the P.453 map of the point refractivity gradient in the lowest
	// 65 m not exceeded for 1 % of an average year, N-units/km (negative).
	DN1 *Grid
	// DN50 is the P.453 median refractivity gradient in the lowest 1 km,
	// N-units/km (negative; ΔN of P.452/P.1812 is its opposite).
	DN50 *Grid
	// Sa is the P.530 area terrain roughness s_a (standard deviation of
	// terrain heights in a 110 km × 110 km area), metres.
	Sa *Grid
}

// gridHeader is the JSON header of one .f32 map.
type gridHeader struct {
	File      string  `json:"file"`
	Rows      int     `json:"rows"`
	Cols      int     `json:"cols"`
	OriginLat float64 `json:"origin_lat"`
	OriginLon float64 `json:"origin_lon"`
	DLat      float64 `json:"dlat"`
	DLon      float64 `json:"dlon"`
	Units     string  `json:"units"`
	Quantity  string  `json:"quantity"`
	Original  string  `json:"original_file"`
}

// LoadMaps decodes the embedded maps (about 1.8 MB). It takes a few
// milliseconds: call it once at start-up.
func LoadMaps() (*Maps, error) {
	m := &Maps{}
	load := func(name string) (*Grid, error) {
		hb, err := data.ReadFile(path.Join("data", name+".json"))
		if err != nil {
			return nil, fmt.Errorf("itur: map %s: %w", name, err)
		}
		var h gridHeader
		if err := json.Unmarshal(hb, &h); err != nil {
			return nil, fmt.Errorf("itur: map %s header: %w", name, err)
		}
		raw, err := data.ReadFile(path.Join("data", name+".f32"))
		if err != nil {
			return nil, fmt.Errorf("itur: map %s: %w", name, err)
		}
		if h.Rows < 2 || h.Cols < 2 || len(raw) != 4*h.Rows*h.Cols || !(h.DLat > 0) || !(h.DLon > 0) {
			return nil, fmt.Errorf("itur: map %s: %d bytes for %d×%d nodes", name, len(raw), h.Rows, h.Cols)
		}
		v := make([]float64, h.Rows*h.Cols)
		for i := range v {
			v[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
		}
		return &Grid{Name: name, Units: h.Units, Quantity: h.Quantity, Source: "ITU-Rpy itur/data/" + h.Original,
			windows: []window{{originLat: h.OriginLat, originLon: h.OriginLon, dLat: h.DLat, dLon: h.DLon, rows: h.Rows, cols: h.Cols, v: v}}}, nil
	}
	var err error
	for i := 0; i < 12; i++ {
		if m.MT[i], err = load(fmt.Sprintf("p837_mt_month%02d", i+1)); err != nil {
			return nil, err
		}
		if m.T[i], err = load(fmt.Sprintf("p1510_t_month%02d", i+1)); err != nil {
			return nil, err
		}
	}
	for _, g := range []struct {
		dst  **Grid
		name string
	}{{&m.TAnnual, "p1510_t_annual"}, {&m.DN1, "p453_dn65m_01d00"}, {&m.DN50, "p453_dn_50d00"}, {&m.Sa, "p530_sa_gtopo30"}} {
		if *g.dst, err = load(g.name); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Climate is what the maps say at one point.
type Climate struct {
	LatDeg, LonDeg float64
	// MTmm are the monthly mean total rainfalls MT_ii, mm (P.837-7).
	MTmm [12]float64
	// TK are the monthly mean surface temperatures T_ii, K (P.1510-1).
	TK [12]float64
	// TAnnualK is the annual mean surface temperature, K (P.1510-1).
	TAnnualK float64
	// DN1 is the P.453 dN1 gradient, N-units/km (1 % of an average year,
	// lowest 65 m). Zero (with HasMultipathMaps false) when the Climate came
	// from RainClimate.
	DN1 float64
	// DN50 is the P.453 median gradient over the lowest 1 km, N-units/km.
	DN50 float64
	// SaM is the P.530 area terrain roughness s_a, metres.
	SaM float64
	// HasMultipathMaps is true where DN1, DN50 and SaM were read (Brazil).
	HasMultipathMaps bool
}

// RainClimate reads the P.837-7 and P.1510-1 maps at a point (everything the
// Annex 1 rain-rate method needs).
func (m *Maps) RainClimate(latDeg, lonDeg float64) (Climate, error) {
	c := Climate{LatDeg: latDeg, LonDeg: lonDeg}
	var err error
	for i := 0; i < 12; i++ {
		if c.MTmm[i], err = m.MT[i].At(latDeg, lonDeg); err != nil {
			return c, err
		}
		if c.TK[i], err = m.T[i].At(latDeg, lonDeg); err != nil {
			return c, err
		}
	}
	if c.TAnnualK, err = m.TAnnual.At(latDeg, lonDeg); err != nil {
		return c, err
	}
	return c, nil
}

// Climate reads every map at a point. Outside Brazil it fails with
// appliance.ErrOutsideEnvelope (the multipath maps exist there only).
func (m *Maps) Climate(latDeg, lonDeg float64) (Climate, error) {
	c, err := m.RainClimate(latDeg, lonDeg)
	if err != nil {
		return c, err
	}
	if c.DN1, err = m.DN1.At(latDeg, lonDeg); err != nil {
		return c, err
	}
	if c.DN50, err = m.DN50.At(latDeg, lonDeg); err != nil {
		return c, err
	}
	if c.SaM, err = m.Sa.At(latDeg, lonDeg); err != nil {
		return c, err
	}
	c.HasMultipathMaps = true
	return c, nil
}
