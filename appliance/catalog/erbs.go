package catalog

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"linkplan/appliance"
)

// ProvenanceAnatelERBs is the provenance of towers read from an ERBs list.
const ProvenanceAnatelERBs = "Anatel ERBs station list (anatel-erbs)"

// erbsColumns are the folded ERBs header names this parser uses.
var erbsColumns = struct {
	station, operator, uf, mun, lat, lon, ibge, infra, techs, bands, street, district string
}{"numero estacao", "operadora", "siglauf", "mun", "latitude", "longitude", "ibge", "classinfrafisica", "tecs", "faixa", "logradouro", "bairro"}

// ParseAnatelERBs reads an Anatel "ERBs" station list: UTF-8 (Latin-1
// tolerated), ';'-separated, one header line, one row per station, fields
// with trailing spaces, decimal point. Columns are found by header name
// (accent- and case-insensitive): Número Estação, Operadora, SiglaUf, MUN,
// Latitude, Longitude, IBGE, ClassInfraFisica, Tecs, Faixa. Blank lines are
// ignored. A second row for a station number already read is rejected.
//
// It returns an error only when the input cannot be read or the header lacks
// a required column; every bad row becomes a Reject.
func ParseAnatelERBs(r io.Reader) (*Result, error) {
	// A national ERBs row is ~120 bytes; presizing avoids regrowing the
	// station slice (see capacityHint).
	res := &Result{Format: FormatAnatelERBs, Stations: make([]Station, 0, capacityHint(r, 100))}
	lr := newLineReader(r)
	header, _, err := lr.next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read erbs header: empty input: %w", appliance.ErrInvalid)
		}
		return nil, fmt.Errorf("read erbs header: %w", err)
	}
	cols := strings.Split(header, ";")
	idx := map[string]int{}
	for i, c := range cols {
		idx[foldKey(c)] = i
	}
	c := erbsColumns
	for _, need := range []string{c.station, c.operator, c.lat, c.lon} {
		if _, ok := idx[need]; !ok {
			return nil, fmt.Errorf("read erbs header: column %q missing: %w", need, appliance.ErrInvalid)
		}
	}
	get := func(f []string, name string) string {
		if i, ok := idx[name]; ok && i < len(f) {
			return strings.TrimSpace(f[i])
		}
		return ""
	}
	seen := map[string]int{}
	err = lr.each(res, "erbs", func(line string, n int) {
		res.Rows++
		f := strings.Split(line, ";")
		if len(f) != len(cols) {
			res.Rejects = append(res.Rejects, Reject{n, fmt.Sprintf("has %d fields, want %d", len(f), len(cols))})
			return
		}
		st, err := stationKey(get(f, c.station))
		if err != nil {
			res.Rejects = append(res.Rejects, Reject{n, err.Error()})
			return
		}
		if first, dup := seen[st]; dup {
			res.Rejects = append(res.Rejects, Reject{n, fmt.Sprintf("station %s already read at line %d", st, first)})
			return
		}
		op := NormalizeOperator(get(f, c.operator))
		if op == "" {
			res.Rejects = append(res.Rejects, Reject{n, "operator missing"})
			return
		}
		lat, lon, hasPos, err := parseCoords(get(f, c.lat), get(f, c.lon), false)
		if err != nil {
			res.Rejects = append(res.Rejects, Reject{n, err.Error()})
			return
		}
		t := newRegulatorTower(st, ProvenanceAnatelERBs)
		t.Operator = op
		t.UF = strings.ToUpper(get(f, c.uf))
		t.Municipality = get(f, c.mun)
		t.Address = joinAddress(get(f, c.street), get(f, c.district))
		t.IBGECode = get(f, c.ibge)
		if hasPos {
			setSurveyed(&t, lat, lon)
		}
		techs := map[string]bool{}
		for _, w := range strings.Fields(get(f, c.techs)) {
			techs[normTechnology(w)] = true
		}
		t.Technologies = sortedStrings(techs)
		bands := map[float64]bool{}
		for _, w := range strings.Fields(get(f, c.bands)) {
			v, ok, err := parseNumber(w, false)
			if err != nil || !ok || v <= 0 || v > 100000 {
				res.Warnings = append(res.Warnings, Reject{n, fmt.Sprintf("band %q ignored", w)})
				continue
			}
			bands[v] = true
		}
		t.BandsMHz = sortedFloats(bands)
		seen[st] = n
		res.Stations = append(res.Stations, Station{Tower: t, Line: n})
	})
	if err != nil {
		return res, err
	}
	return res, nil
}

// SurveyedUncertaintyM is the position uncertainty, in metres, given to a
// regulator tower whose coordinates passed validation.
const SurveyedUncertaintyM = 30.0

func setSurveyed(t *appliance.Tower, lat, lon float64) {
	t.Lat, t.Lon = lat, lon
	t.Placement = appliance.PlacementSurveyed
	t.UncertaintyM = SurveyedUncertaintyM
}

// hasPosition reports whether the tower carries coordinates.
func hasPosition(t *appliance.Tower) bool { return !math.IsNaN(t.Lat) && !math.IsNaN(t.Lon) }
