package catalog

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"linkplan/appliance"
)

// ProvenanceOpenCelliD is the provenance of towers read from an OpenCelliD
// export (data CC BY-SA 4.0, attribute OpenCelliD).
const ProvenanceOpenCelliD = "OpenCelliD cell export, CC BY-SA 4.0 (opencellid)"

// Crowd-sourced position uncertainty bounds, in metres: a cell's OpenCelliD
// "range" clamped to [MinCrowdUncertaintyM, MaxCrowdUncertaintyM].
const (
	MinCrowdUncertaintyM = 100.0  // metres
	MaxCrowdUncertaintyM = 5000.0 // metres
)

// OpenCelliDColumns is the column order of an OpenCelliD export.
var OpenCelliDColumns = [...]string{"radio", "mcc", "net", "area", "cell", "unit", "lon", "lat", "range",
	"samples", "changeable", "created", "updated", "averageSignal"}

// ParseOpenCelliD reads an OpenCelliD cell export (the per-MCC download):
// ',' separated, 14 columns (OpenCelliDColumns; longitude BEFORE latitude),
// no header (a "radio,mcc,..." header line is skipped when present), one
// row per cell. Only MCC 724 (Brazil) is accepted. Each cell becomes a
// tower "ocid:724-<net>-<area>-<cell>" (numbers without leading zeros) of the
// operator OperatorForMNC(net), placement crowd, uncertainty = range clamped
// to [MinCrowdUncertaintyM, MaxCrowdUncertaintyM], ERP NaN, azimuth NaN,
// height DefaultTowerHeightM, UpdatedUnix = updated. A repeated cell is
// rejected; an MNC missing from the table keeps the operator "MNC 724-<net>".
func ParseOpenCelliD(r io.Reader) (*Result, error) {
	res := &Result{Format: FormatOpenCelliD, Stations: make([]Station, 0, capacityHint(r, 60))}
	lr := newLineReader(r)
	seen := map[string]int{}
	err := lr.each(res, "opencellid", func(line string, n int) {
		if n == 1 && strings.HasPrefix(line, "radio,") {
			return
		}
		res.Rows++
		t, reason := openCelliDRow(line)
		if reason != "" {
			res.Rejects = append(res.Rejects, Reject{n, reason})
			return
		}
		if first, dup := seen[t.ID]; dup {
			res.Rejects = append(res.Rejects, Reject{n, fmt.Sprintf("cell %s already read at line %d", t.ID, first)})
			return
		}
		seen[t.ID] = n
		res.Stations = append(res.Stations, Station{Tower: t, Line: n})
	})
	if err != nil {
		return res, err
	}
	return res, nil
}

func openCelliDRow(line string) (appliance.Tower, string) {
	f := strings.Split(line, ",")
	if len(f) != len(OpenCelliDColumns) {
		return appliance.Tower{}, fmt.Sprintf("has %d fields, want %d", len(f), len(OpenCelliDColumns))
	}
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	radio := normTechnology(f[0])
	if radio == "" {
		return appliance.Tower{}, "radio missing"
	}
	ints := make([]int64, 0, 6)
	for _, i := range []int{1, 2, 3, 4, 11, 12} {
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil || v < 0 {
			return appliance.Tower{}, fmt.Sprintf("%s %q is not a non-negative integer", OpenCelliDColumns[i], f[i])
		}
		ints = append(ints, v)
	}
	mcc, net, area, cell, updated := ints[0], ints[1], ints[2], ints[3], ints[5]
	if mcc != 724 {
		return appliance.Tower{}, fmt.Sprintf("MCC %d is not Brazil (724)", mcc)
	}
	lat, lon, ok, err := parseCoords(f[7], f[6], false)
	if err != nil {
		return appliance.Tower{}, err.Error()
	}
	if !ok {
		return appliance.Tower{}, "coordinates missing"
	}
	rng, ok, err := parseNumber(f[8], false)
	if err != nil || !ok || rng < 0 {
		return appliance.Tower{}, fmt.Sprintf("range %q is not a non-negative number", f[8])
	}
	op := fmt.Sprintf("MNC 724-%d", net)
	if m, ok := OperatorForMNC(int(net)); ok {
		op = m.Operator
	}
	key := fmt.Sprintf("724-%d-%d-%d", net, area, cell)
	return appliance.Tower{
		ID:           appliance.TowerID(appliance.SourceOpenCelliD, key),
		Source:       appliance.SourceOpenCelliD,
		Operator:     op,
		Lat:          lat,
		Lon:          lon,
		HeightM:      appliance.DefaultTowerHeightM,
		ERPDBm:       math.NaN(),
		AzimuthDeg:   math.NaN(),
		TiltDeg:      math.NaN(),
		Placement:    appliance.PlacementCrowd,
		UncertaintyM: min(max(rng, MinCrowdUncertaintyM), MaxCrowdUncertaintyM),
		Provenance:   ProvenanceOpenCelliD,
		Technologies: []string{radio},
		UpdatedUnix:  updated,
	}, ""
}
