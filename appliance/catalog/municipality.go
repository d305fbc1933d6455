package catalog

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"linkplan/appliance"
)

//go:embed data/municipios.csv
var municipiosCSV []byte

//go:embed data/estados.csv
var estadosCSV []byte

// Region is a Brazilian macro-region code as used by SPEC §2.6 Mondrian bands.
type Region string

// Macro-regions (IBGE).
const (
	RegionNorth       Region = "N"  // Norte
	RegionNortheast   Region = "NE" // Nordeste
	RegionCentralWest Region = "CO" // Centro-Oeste
	RegionSoutheast   Region = "SE" // Sudeste
	RegionSouth       Region = "S"  // Sul
)

// regionOf maps estados.csv "regiao" to a Region.
func regionOf(name string) (Region, bool) {
	switch name {
	case "Norte":
		return RegionNorth, true
	case "Nordeste":
		return RegionNortheast, true
	case "Centro-Oeste":
		return RegionCentralWest, true
	case "Sudeste":
		return RegionSoutheast, true
	case "Sul":
		return RegionSouth, true
	}
	return "", false
}

// Municipality is one of Brazil's 5 571 municipalities (IBGE), positioned at
// its seat as given by kelvins/municipios-brasileiros.
type Municipality struct {
	IBGECode string  // 7-digit IBGE code, e.g. "3304557"
	Name     string  // official name with accents, e.g. "Rio de Janeiro"
	UF       string  // two-letter state code, e.g. "RJ"
	Region   Region  // macro-region of the state
	Lat      float64 // degrees WGS84, municipality seat
	Lon      float64 // degrees WGS84, municipality seat
	Capital  bool    // state (or federal) capital
	// SpacingM is the distance in metres from this seat to the nearest other
	// municipality seat: a proxy for the municipality's size, used by the
	// centroid-placement uncertainty and the surveyed-position check.
	SpacingM float64
}

// Pos returns the seat position.
func (m *Municipality) Pos() appliance.LatLon { return appliance.LatLon{Lat: m.Lat, Lon: m.Lon} }

// Gazetteer looks municipalities up by IBGE code and by name and UF. It is
// immutable after construction and safe for concurrent use.
type Gazetteer struct {
	all    []Municipality
	byCode map[string]int
	byName map[string]int // foldKey(name) + "|" + UF
	grid   map[seatCell][]int
}

// NewGazetteer builds a gazetteer over ms. Codes must be unique, and names
// unique within a UF after accent/case folding.
func NewGazetteer(ms []Municipality) (*Gazetteer, error) {
	g := &Gazetteer{
		all:    append([]Municipality(nil), ms...),
		byCode: make(map[string]int, len(ms)),
		byName: make(map[string]int, len(ms)),
	}
	sort.Slice(g.all, func(i, j int) bool { return g.all[i].IBGECode < g.all[j].IBGECode })
	for i := range g.all {
		m := &g.all[i]
		if _, dup := g.byCode[m.IBGECode]; dup {
			return nil, fmt.Errorf("build gazetteer: duplicate IBGE code %s: %w", m.IBGECode, appliance.ErrInvalid)
		}
		g.byCode[m.IBGECode] = i
		k := nameKey(m.Name, m.UF)
		if j, dup := g.byName[k]; dup {
			return nil, fmt.Errorf("build gazetteer: %q and %q fold to the same name in %s: %w",
				g.all[j].Name, m.Name, m.UF, appliance.ErrInvalid)
		}
		g.byName[k] = i
	}
	g.grid = buildSeatGrid(g.all)
	fillSpacing(g.all, g.grid)
	return g, nil
}

func nameKey(name, uf string) string {
	return foldKey(name) + "|" + strings.ToUpper(strings.TrimSpace(uf))
}

// ByCode returns the municipality with the given 7-digit IBGE code.
func (g *Gazetteer) ByCode(code string) (Municipality, bool) {
	i, ok := g.byCode[strings.TrimSpace(code)]
	if !ok {
		return Municipality{}, false
	}
	return g.all[i], true
}

// ByName returns the municipality called name in state uf, comparing names
// without regard to accents, case and punctuation.
func (g *Gazetteer) ByName(name, uf string) (Municipality, bool) {
	i, ok := g.byName[nameKey(name, uf)]
	if !ok {
		return Municipality{}, false
	}
	return g.all[i], true
}

// All returns every municipality ordered by IBGE code (a copy).
func (g *Gazetteer) All() []Municipality { return append([]Municipality(nil), g.all...) }

// Len returns the number of municipalities.
func (g *Gazetteer) Len() int { return len(g.all) }

// embeddedGazetteer parses the embedded tables once; the result is never
// modified afterwards (a cache of constant data, not mutable state).
var embeddedGazetteer = sync.OnceValues(func() (*Gazetteer, error) {
	ms, err := parseMunicipalities(bytes.NewReader(municipiosCSV), bytes.NewReader(estadosCSV))
	if err != nil {
		return nil, err
	}
	return NewGazetteer(ms)
})

// LoadMunicipalities returns the 5 571 municipalities embedded in the
// binary, ordered by IBGE code.
func LoadMunicipalities() ([]Municipality, error) {
	g, err := embeddedGazetteer()
	if err != nil {
		return nil, err
	}
	return g.All(), nil
}

// EmbeddedGazetteer returns the gazetteer over the embedded municipalities.
func EmbeddedGazetteer() (*Gazetteer, error) { return embeddedGazetteer() }

func mustGazetteer() *Gazetteer {
	g, err := embeddedGazetteer()
	if err != nil {
		// The embedded tables are part of the binary and covered by tests.
		panic("catalog: embedded municipality tables: " + err.Error())
	}
	return g
}

// ParseMunicipalities reads municipalities from the two kelvins/
// municipios-brasileiros CSV tables: municipios.csv (codigo_ibge, nome,
// latitude, longitude, capital, codigo_uf, ...) and estados.csv (codigo_uf,
// uf, nome, latitude, longitude, regiao; a UTF-8 BOM is allowed).
func ParseMunicipalities(municipios, estados io.Reader) ([]Municipality, error) {
	return parseMunicipalities(municipios, estados)
}

func parseMunicipalities(municipios, estados io.Reader) ([]Municipality, error) {
	type state struct {
		uf     string
		region Region
	}
	states := map[string]state{}
	er := csv.NewReader(estados)
	header, err := er.Read()
	if err != nil {
		return nil, fmt.Errorf("read estados header: %w", err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\uFEFF")
	}
	col, err := columnIndex(header, "codigo_uf", "uf", "regiao")
	if err != nil {
		return nil, fmt.Errorf("read estados header: %w", err)
	}
	for {
		rec, err := er.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read estados: %w", err)
		}
		reg, ok := regionOf(rec[col["regiao"]])
		if !ok {
			return nil, fmt.Errorf("read estados: unknown regiao %q: %w", rec[col["regiao"]], appliance.ErrInvalid)
		}
		states[rec[col["codigo_uf"]]] = state{uf: rec[col["uf"]], region: reg}
	}

	mr := csv.NewReader(municipios)
	header, err = mr.Read()
	if err != nil {
		return nil, fmt.Errorf("read municipios header: %w", err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\uFEFF")
	}
	col, err = columnIndex(header, "codigo_ibge", "nome", "latitude", "longitude", "capital", "codigo_uf")
	if err != nil {
		return nil, fmt.Errorf("read municipios header: %w", err)
	}
	var out []Municipality
	for {
		rec, err := mr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read municipios: %w", err)
		}
		line, _ := mr.FieldPos(0)
		st, ok := states[rec[col["codigo_uf"]]]
		if !ok {
			return nil, fmt.Errorf("read municipios line %d: unknown codigo_uf %q: %w", line, rec[col["codigo_uf"]], appliance.ErrInvalid)
		}
		lat, lon, ok, err := parseCoords(rec[col["latitude"]], rec[col["longitude"]], false)
		if err != nil || !ok {
			return nil, fmt.Errorf("read municipios line %d: bad coordinates: %w", line, appliance.ErrInvalid)
		}
		code := rec[col["codigo_ibge"]]
		if len(code) != 7 {
			return nil, fmt.Errorf("read municipios line %d: IBGE code %q is not 7 digits: %w", line, code, appliance.ErrInvalid)
		}
		capital, err := strconv.ParseBool(rec[col["capital"]])
		if err != nil {
			return nil, fmt.Errorf("read municipios line %d: capital %q: %w", line, rec[col["capital"]], appliance.ErrInvalid)
		}
		out = append(out, Municipality{
			IBGECode: code, Name: rec[col["nome"]], UF: st.uf, Region: st.region,
			Lat: lat, Lon: lon, Capital: capital,
		})
	}
	return out, nil
}

// columnIndex maps each wanted column name to its position in header.
func columnIndex(header []string, want ...string) (map[string]int, error) {
	idx := make(map[string]int, len(want))
	for i, h := range header {
		idx[strings.TrimSpace(h)] = i
	}
	out := make(map[string]int, len(want))
	for _, w := range want {
		i, ok := idx[w]
		if !ok {
			return nil, fmt.Errorf("column %q missing: %w", w, appliance.ErrInvalid)
		}
		out[w] = i
	}
	return out, nil
}

// seatCell is a 1-degree grid cell of municipality seats.
type seatCell struct{ y, x int }

func seatCellOf(lat, lon float64) seatCell {
	return seatCell{int(math.Floor(lat)), int(math.Floor(lon))}
}

// buildSeatGrid buckets seats by 1-degree cell.
func buildSeatGrid(ms []Municipality) map[seatCell][]int {
	grid := make(map[seatCell][]int)
	for i := range ms {
		k := seatCellOf(ms[i].Lat, ms[i].Lon)
		grid[k] = append(grid[k], i)
	}
	return grid
}

// nearestSeat returns the index of the seat nearest to p other than skip
// (-1 for none) and its distance in metres; -1 when ms is empty. The search
// widens ring by ring over the 1-degree grid until no closer seat can exist:
// seats outside ring r are at least r degrees away in latitude or longitude,
// and a degree of longitude is at least 92 km up to |lat| 34°; beyond that
// the search simply covers all rings up to 180.
func nearestSeat(ms []Municipality, grid map[seatCell][]int, p appliance.LatLon, skip int) (int, float64) {
	return nearestSeatWithin(ms, grid, p, skip, math.Inf(1))
}

// nearestSeatWithin is nearestSeat that stops looking once no seat within
// maxM metres can remain: -1 when none is that close.
func nearestSeatWithin(ms []Municipality, grid map[seatCell][]int, p appliance.LatLon, skip int, maxM float64) (int, float64) {
	c := seatCellOf(p.Lat, p.Lon)
	best, bestD := -1, math.Inf(1)
	kmPerDeg := 111.0 * math.Cos(math.Min(89, math.Abs(p.Lat)+1)*math.Pi/180)
	for ring := 0; ring <= 180; ring++ {
		for dy := -ring; dy <= ring; dy++ {
			for dx := -ring; dx <= ring; dx++ {
				if max(abs(dy), abs(dx)) != ring {
					continue
				}
				for _, j := range grid[seatCell{c.y + dy, c.x + dx}] {
					if j == skip {
						continue
					}
					// The latitude difference alone bounds the haversine distance
					// from below: d >= 2R·sin(|Δφ|/2).
					if dφ := math.Abs(ms[j].Lat-p.Lat) * math.Pi / 180; 2*appliance.EarthRadiusM*math.Sin(dφ/2) > bestD {
						continue
					}
					if d := p.DistanceM(ms[j].Pos()); d < bestD || (d == bestD && j < best) {
						best, bestD = j, d
					}
				}
			}
		}
		if best >= 0 && bestD <= float64(ring)*kmPerDeg*1000 {
			break
		}
		if float64(ring)*kmPerDeg*1000 > maxM {
			break
		}
	}
	if bestD > maxM {
		return -1, bestD
	}
	return best, bestD
}

// fillSpacing sets SpacingM, the distance to the nearest other seat.
func fillSpacing(ms []Municipality, grid map[seatCell][]int) {
	for i := range ms {
		j, d := nearestSeat(ms, grid, ms[i].Pos(), i)
		if j < 0 {
			d = 0
		}
		ms[i].SpacingM = d
	}
}

// Nearest returns the municipality whose seat is nearest to p and the
// distance to it in metres; ok is false when the gazetteer is empty.
func (g *Gazetteer) Nearest(p appliance.LatLon) (m Municipality, distM float64, ok bool) {
	i, d := nearestSeat(g.all, g.grid, p, -1)
	if i < 0 {
		return Municipality{}, 0, false
	}
	return g.all[i], d, true
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// MaxRegionDistanceM is how far from the nearest municipality seat RegionAt
// still answers a macro-region (150 km): farther, the point is taken to be
// outside Brazil (at sea, or abroad).
const MaxRegionDistanceM = 150_000

// RegionAt returns the macro-region (N, NE, CO, SE, S) of the municipality
// whose seat is nearest to p, or "" when no seat lies within
// MaxRegionDistanceM (outside Brazil) or p is not a valid position. The
// seat grid is 1° buckets and the search stops at the buckets that can
// hold a seat within the limit, so a query costs a few microseconds, abroad
// included. Near a border the nearest seat decides: a point in Uruguay a
// few kilometres from a Brazilian seat gets that seat's region.
func (g *Gazetteer) RegionAt(p appliance.LatLon) Region {
	if !(p.Lat >= -90 && p.Lat <= 90 && p.Lon >= -180 && p.Lon <= 180) {
		return ""
	}
	i, _ := nearestSeatWithin(g.all, g.grid, p, -1, MaxRegionDistanceM)
	if i < 0 {
		return ""
	}
	return g.all[i].Region
}
