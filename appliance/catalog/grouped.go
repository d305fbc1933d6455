package catalog

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"linkplan/appliance"
)

// emissionRow is one parsed row of a per-emission format.
type emissionRow struct {
	line         int
	station      string // validated station key
	operator     string // normalised
	lat, lon     float64
	hasPos       bool
	uf           string
	municipality string
	address      string // street address, when the format has one
	ibge         string
	updatedUnix  int64
	sector       Sector
}

// grouper collects emission rows into stations keyed by operator and
// station number, in order of first appearance.
type grouper struct {
	res        *Result
	provenance string
	byStation  map[string]int // station key -> index in res.Stations
}

func newGrouper(res *Result, provenance string) *grouper {
	return &grouper{res: res, provenance: provenance, byStation: map[string]int{}}
}

// add files row under its station, or rejects it when the station number is
// already used by another operator.
func (g *grouper) add(row emissionRow) {
	if i, ok := g.byStation[row.station]; ok {
		st := &g.res.Stations[i]
		if st.Tower.Operator != row.operator {
			g.res.Rejects = append(g.res.Rejects, Reject{row.line, fmt.Sprintf(
				"station %s belongs to %s (line %d), not %s", row.station, st.Tower.Operator, st.Line, row.operator)})
			return
		}
		if row.hasPos && hasPosition(&st.Tower) {
			if d := st.Tower.Pos().DistanceM(appliance.LatLon{Lat: row.lat, Lon: row.lon}); d > 100 {
				g.res.Warnings = append(g.res.Warnings, Reject{row.line, fmt.Sprintf(
					"coordinates %.0f m from the station's first row (line %d); first row kept", d, st.Line)})
			}
		} else if row.hasPos {
			setSurveyed(&st.Tower, row.lat, row.lon)
		}
		if row.updatedUnix > st.Tower.UpdatedUnix {
			st.Tower.UpdatedUnix = row.updatedUnix
		}
		st.Sectors = append(st.Sectors, row.sector)
		return
	}
	t := newRegulatorTower(row.station, g.provenance)
	t.Operator = row.operator
	t.UF = row.uf
	t.Municipality = row.municipality
	t.Address = row.address
	t.IBGECode = row.ibge
	t.UpdatedUnix = row.updatedUnix
	if row.hasPos {
		setSurveyed(&t, row.lat, row.lon)
	}
	g.byStation[row.station] = len(g.res.Stations)
	g.res.Stations = append(g.res.Stations, Station{Tower: t, Line: row.line, Sectors: []Sector{row.sector}})
}

// finish derives each station's tower-level numbers from its sectors.
func (g *grouper) finish() {
	for i := range g.res.Stations {
		st := &g.res.Stations[i]
		summarise(&st.Tower, st.Sectors)
	}
}

func newSector(line int) Sector {
	return Sector{Line: line, FreqMHz: math.NaN(), BandMHz: math.NaN(), AzimuthDeg: math.NaN(),
		TiltDeg: math.NaN(), HeightM: math.NaN(), GainDBi: math.NaN(), BeamwidthDeg: math.NaN(), FrontBackDB: math.NaN(), TxPowerW: math.NaN(), ERPDBm: math.NaN()}
}

// csvRows iterates over the data rows of a comma-separated file with a
// header, giving each row's fields (decoded from Latin-1 when not UTF-8)
// and line. Malformed rows (bad quoting) go to res.Rejects. The header's
// columns are returned folded, mapped to their positions.
type csvRows struct {
	cr     *csv.Reader
	res    *Result
	header []string
	idx    map[string]int
}

func newCSVRows(r io.Reader, res *Result, what string) (*csvRows, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	h, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read %s header: empty input: %w", what, appliance.ErrInvalid)
		}
		return nil, fmt.Errorf("read %s header: %v: %w", what, err, appliance.ErrInvalid)
	}
	c := &csvRows{cr: cr, res: res, idx: map[string]int{}}
	for i, name := range h {
		name = decodeText(trimBOM([]byte(name)))
		c.header = append(c.header, name)
		c.idx[foldKey(name)] = i
	}
	return c, nil
}

func (c *csvRows) require(what string, cols ...string) error {
	for _, k := range cols {
		if _, ok := c.idx[k]; !ok {
			return fmt.Errorf("read %s header: column %q missing: %w", what, k, appliance.ErrInvalid)
		}
	}
	return nil
}

// next returns the next row, its line, or io.EOF. Rows with bad quoting or
// the wrong field count are rejected here and skipped.
func (c *csvRows) next() ([]string, int, error) {
	for {
		rec, err := c.cr.Read()
		if errors.Is(err, io.EOF) {
			return nil, 0, io.EOF
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			c.res.Rows++
			c.res.Rejects = append(c.res.Rejects, Reject{pe.StartLine, "malformed CSV: " + pe.Err.Error()})
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		line, _ := c.cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		c.res.Rows++
		if len(rec) != len(c.header) {
			c.res.Rejects = append(c.res.Rejects, Reject{line, fmt.Sprintf("has %d fields, want %d", len(rec), len(c.header))})
			continue
		}
		for i := range rec {
			rec[i] = strings.TrimSpace(decodeText([]byte(rec[i])))
		}
		return rec, line, nil
	}
}

func (c *csvRows) get(rec []string, col string) string {
	if i, ok := c.idx[col]; ok && i < len(rec) {
		return rec[i]
	}
	return ""
}
