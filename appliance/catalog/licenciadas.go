package catalog

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// ProvenanceAnatelLicenciadas is the provenance of towers read from the
// open-data "Estações licenciadas SMP" CSV.
const ProvenanceAnatelLicenciadas = "Anatel open data Estações licenciadas SMP (anatel-licenciadas)"

// ParseAnatelLicenciadas reads Anatel's open-data "Estações licenciadas"
// (SMP) CSV: ',' separated, RFC-4180 quoting, a header, one row per
// emission. Rows are grouped by station number into one tower per station
// (ids "anatel:<number>"); each row becomes a Sector with the emission
// centre frequency ((Frequência Inicial + Frequência Final)/2, MHz), its
// nominal band and the azimuth. A station number claimed by two operators
// keeps the first and rejects the other's rows. The format has no antenna
// height or power: towers get DefaultTowerHeightM and ERP NaN.
func ParseAnatelLicenciadas(r io.Reader) (*Result, error) {
	const what = "anatel-licenciadas"
	res := &Result{Format: FormatAnatelLicenciadas}
	rows, err := newCSVRows(r, res, what)
	if err != nil {
		return nil, err
	}
	const (
		cOp, cSt, cUF, cMun, cCode = "prestadora", "numero da estacao", "uf", "municipio", "codigo do municipio"
		cLat, cLon, cF0, cF1       = "latitude", "longitude", "frequencia inicial mhz", "frequencia final mhz"
		cAz, cEm                   = "azimute", "emissao"
	)
	if err := rows.require(what, cOp, cSt, cLat, cLon); err != nil {
		return nil, err
	}
	g := newGrouper(res, ProvenanceAnatelLicenciadas)
	for {
		rec, line, err := rows.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return res, fmt.Errorf("read %s: %w", what, err)
		}
		row, reason := licenciadasRow(rows, rec, line)
		if reason != "" {
			res.Rejects = append(res.Rejects, Reject{line, reason})
			continue
		}
		g.add(row)
	}
	g.finish()
	return res, nil
}

func licenciadasRow(rows *csvRows, rec []string, line int) (emissionRow, string) {
	st, err := stationKey(rows.get(rec, "numero da estacao"))
	if err != nil {
		return emissionRow{}, err.Error()
	}
	op := NormalizeOperator(rows.get(rec, "prestadora"))
	if op == "" {
		return emissionRow{}, "operator missing"
	}
	lat, lon, hasPos, err := parseCoords(rows.get(rec, "latitude"), rows.get(rec, "longitude"), false)
	if err != nil {
		return emissionRow{}, err.Error()
	}
	sec := newSector(line)
	sec.Emission = rows.get(rec, "emissao")
	f0, ok0, err0 := parseNumber(rows.get(rec, "frequencia inicial mhz"), false)
	f1, ok1, err1 := parseNumber(rows.get(rec, "frequencia final mhz"), false)
	switch {
	case err0 != nil:
		return emissionRow{}, "start frequency " + err0.Error()
	case err1 != nil:
		return emissionRow{}, "end frequency " + err1.Error()
	case ok0 && ok1:
		sec.FreqMHz = (f0 + f1) / 2
	case ok0:
		sec.FreqMHz = f0
	case ok1:
		sec.FreqMHz = f1
	}
	if ok0 || ok1 {
		if !(sec.FreqMHz > 0 && sec.FreqMHz < 100000) {
			return emissionRow{}, fmt.Sprintf("frequency %v MHz out of range", sec.FreqMHz)
		}
		sec.BandMHz = NominalBandMHz(sec.FreqMHz)
	}
	az, err := parseAzimuth(rows.get(rec, "azimute"), false)
	if err != nil {
		return emissionRow{}, err.Error()
	}
	sec.AzimuthDeg = az
	return emissionRow{
		line: line, station: st, operator: op, lat: lat, lon: lon, hasPos: hasPos,
		uf:           strings.ToUpper(rows.get(rec, "uf")),
		municipality: rows.get(rec, "municipio"),
		address:      joinAddress(rows.get(rec, "logradouro")),
		ibge:         rows.get(rec, "codigo do municipio"),
		sector:       sec,
	}, ""
}

// parseAzimuth reads an azimuth in degrees; empty is NaN, 360 reads as 0,
// anything outside [0, 360] is an error.
func parseAzimuth(s string, decimalComma bool) (float64, error) {
	v, ok, err := parseNumber(s, decimalComma)
	if err != nil {
		return 0, fmt.Errorf("azimuth %w", err)
	}
	if !ok {
		return v, nil
	}
	if v < 0 || v > 360 {
		return 0, fmt.Errorf("azimuth %v outside 0…360 degrees", v)
	}
	if v == 360 {
		v = 0
	}
	return v, nil
}
