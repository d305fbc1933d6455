package training

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"linkplan/appliance"
	"linkplan/engines/ml"
	"linkplan/engines/ml/h3"
)

// DriveTestRow is one drive-test row of `linkplan model train`: receiver
// and serving cell (WGS84 degrees), carrier (Hz), the observed signal (dBm)
// and the base name of its file.
type DriveTestRow struct {
	RxLat, RxLon, TxLat, TxLon float64
	FreqHz                     float64
	ObservedDBm                float64
	File                       string
	// Operator is the operator of the row's file ("" none).
	Operator string
}

// ServingCell is the row's serving-cell key: the cell's position and
// carrier, as a planner knows them (the layout carries no cell id).
func (r *DriveTestRow) ServingCell() string {
	return fmt.Sprintf("%.6f,%.6f,%.1f", r.TxLat, r.TxLon, r.FreqHz/1e6)
}

// DriveTestFeatures returns the features of schema version (100 or 101)
// of rows: positions and frequency only, never the observed signal.
func DriveTestFeatures(rows []DriveTestRow, version int) ([][]float64, error) {
	X := make([][]float64, len(rows))
	for i := range rows {
		r := &rows[i]
		x, err := ml.DriveTestFeaturesFor(version, r.RxLat, r.RxLon, r.TxLat, r.TxLon, r.FreqHz)
		if err != nil {
			return nil, err
		}
		X[i] = x
	}
	return X, nil
}

// DriveTestModel is a trained drive-test model and its cross-validation.
type DriveTestModel struct {
	Artifact *ml.Artifact
	CV       ml.CVResult
	// Groups names the CV grouping: "serving_cell" or "h3_r8".
	Groups string
}

// TrainDriveTest cross-validates the drive-test v2 model (drivetest-gbm-v2)
// on rows in folds grouped by serving cell (H3 resolution-8 cell when the
// rows have a single serving cell), calibrates the conformal band on the
// out-of-fold residuals and the band for unseen transmitters, and trains
// the final model on every row. It is deterministic: the result depends
// on rows and their order only, not on GOMAXPROCS. The artifact has no
// envelope (DriveTestEnvelope) and data_provenance unknown
// (AttestDriveTestFiles).
func (lr Learners) TrainDriveTest(rows []DriveTestRow, now time.Time) (*DriveTestModel, error) {
	if err := lr.check(); err != nil {
		return nil, err
	}
	schema := ml.DriveTestSchemaV2()
	X, err := DriveTestFeatures(rows, schema.Version)
	if err != nil {
		return nil, err
	}
	y := make([]float64, len(rows))
	cells := make([]string, len(rows))
	distinct := map[string]bool{}
	for i := range rows {
		y[i] = rows[i].ObservedDBm
		cells[i] = rows[i].ServingCell()
		distinct[cells[i]] = true
	}
	groups := "serving_cell"
	if len(distinct) < 2 {
		groups = "h3_r8"
		distinct = map[string]bool{}
		for i := range rows {
			c, err := h3.LatLngToCell(rows[i].RxLat, rows[i].RxLon, 8)
			if err != nil {
				return nil, fmt.Errorf("data row %d: %w", i+1, err)
			}
			cells[i] = fmt.Sprint(c)
			distinct[cells[i]] = true
		}
	}
	k := min(ml.DefaultFolds, len(distinct))
	if k < 2 {
		return nil, fmt.Errorf("the rows have one serving cell and lie in one H3 resolution-8 cell: grouped cross-validation needs at least 2 groups: %w", appliance.ErrInvalid)
	}
	fold, err := ml.GroupKFold(cells, k, ml.CVSeed)
	if err != nil {
		return nil, err
	}
	p := driveTestParams(len(rows))
	cv, res, cal, err := cvBand(X, y, fold, func(X [][]float64, y []float64) (ml.Predictor, error) { return lr.GBM(X, y, p) }, k, nil)
	if err != nil {
		return nil, err
	}
	u, err := lr.driveTestUnseenBand(rows, X, res, cells, groups)
	if err != nil {
		return nil, fmt.Errorf("band for unseen transmitters: %w", err)
	}
	cal.Unseen = &u
	g, err := lr.GBM(X, y, p)
	if err != nil {
		return nil, err
	}
	off := FSPLOffset(rows)
	a := &ml.Artifact{Format: ml.ArtifactFormat, Version: ml.ArtifactVersion, Kind: ml.KindGBM, ModelVersion: "drivetest-gbm-v2",
		Schema: schema, DataProvenance: "unknown", TrainedAtUnixS: now.Unix(), NTrain: len(y),
		CVRMSEDB: cv.RMSEDB, CVRMSEStdDB: cv.StdDB, CVFolds: k, GBM: g, Conformal: cal,
		Attestation:     &ml.Attestation{Sources: []ml.AttestedSource{}, UnattestedRows: len(y)},
		PhysicsBaseline: &ml.PhysicsBaseline{Engine: "fspl", EIRPOffsetDBm: off, RMSEDB: rmseRows(rows, FSPLLevels(rows, off))}}
	return &DriveTestModel{Artifact: a, CV: cv, Groups: groups}, nil
}

// AttestDriveTestFiles marks every row of a attested by the operator's
// basis text (scope build, one source per file): data_provenance real.
func AttestDriveTestFiles(a *ml.Artifact, rows []DriveTestRow, basis, operator string, now time.Time) {
	per := map[string]int{}
	for _, r := range rows {
		per[r.File]++
	}
	files := make([]string, 0, len(per))
	for f := range per {
		files = append(files, f)
	}
	sort.Strings(files)
	at := &ml.Attestation{AttestedRows: len(rows)}
	for _, f := range files {
		at.Sources = append(at.Sources, ml.AttestedSource{Source: f, Basis: basis, AttestedBy: operator, AttestedAtUnix: float64(now.Unix()),
			Scope: ml.ScopeBuild, Rows: per[f]})
	}
	a.Attestation, a.DataProvenance = at, "real"
}

// driveTestUnseenBand calibrates the band for transmitters the model never
// saw (ml.FitUnseenBand): with two operators or more, each operator's rows
// predicted by a model trained on the other operators' rows (basis
// leave_one_operator_out), and every row's out-of-fold residual res of the
// cross-validation grouped by cells (serving cells, or H3 cells when
// groups says so; basis leave_cell_out). Units are the serving cells.
func (lr Learners) driveTestUnseenBand(rows []DriveTestRow, X [][]float64, res []float64, cells []string, groups string) (ml.UnseenBand, error) {
	units := make([]string, len(rows))
	seen := make([]string, len(rows))
	byOp := map[string][]int{}
	for i := range rows {
		units[i] = rows[i].ServingCell()
		seen[i] = ml.TransmitterKey(rows[i].TxLat, rows[i].TxLon, rows[i].FreqHz/1e6)
		byOp[rows[i].Operator] = append(byOp[rows[i].Operator], i)
	}
	if groups != "serving_cell" {
		units = cells
	}
	held := []ml.HeldOut{}
	ops := make([]string, 0, len(byOp))
	for op := range byOp {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	if len(ops) >= 2 && !slices.Contains(ops, "") {
		for _, op := range ops {
			var trX [][]float64
			var trY []float64
			for i := range rows {
				if rows[i].Operator != op {
					trX, trY = append(trX, X[i]), append(trY, rows[i].ObservedDBm)
				}
			}
			m, err := lr.GBM(trX, trY, driveTestParams(len(trY)))
			if err != nil {
				return ml.UnseenBand{}, err
			}
			h := ml.HeldOut{Name: "operator " + op + " left out", Basis: ml.BasisLeaveOneOperatorOut}
			for _, i := range byOp[op] {
				h.Residuals = append(h.Residuals, rows[i].ObservedDBm-m.Predict(X[i]))
				h.Units = append(h.Units, units[i])
			}
			held = append(held, h)
		}
	}
	held = append(held, ml.HeldOut{Name: "cells left out (" + groups + ")", Basis: ml.BasisLeaveCellOut, Residuals: res, Units: units})
	return ml.FitUnseenBand(held, seen, ml.DefaultAlpha)
}

// FSPLLevels is each row's free-space level at EIRP offset off, dBm.
func FSPLLevels(rows []DriveTestRow, off float64) []float64 {
	out := make([]float64, len(rows))
	for i := range rows {
		r := &rows[i]
		out[i] = off - ml.DriveTestFeatures(r.RxLat, r.RxLon, r.TxLat, r.TxLon, r.FreqHz)[ml.FSPLFeature]
	}
	return out
}

// FSPLOffset is the least-squares EIRP offset of free space on rows: the
// mean of observed + free-space loss, dBm.
func FSPLOffset(rows []DriveTestRow) float64 {
	l := FSPLLevels(rows, 0)
	s := 0.0
	for i := range rows {
		s += rows[i].ObservedDBm - l[i]
	}
	return s / float64(len(rows))
}

func rmseRows(rows []DriveTestRow, pred []float64) float64 {
	se := 0.0
	for i := range rows {
		d := rows[i].ObservedDBm - pred[i]
		se += d * d
	}
	return math.Sqrt(se / float64(len(rows)))
}

// driveTestParams are ml.DriveTestV2Params with the smallest leaf scaled
// down for small training sets (a twentieth of the rows, at least 20), so
// that a short drive test still gets a distance slope.
func driveTestParams(n int) ml.GBMParams {
	p := ml.DriveTestV2Params()
	p.MinSamplesLeaf = min(p.MinSamplesLeaf, max(20, n/20))
	return p
}

// lteDownlinkBands are 3GPP E-UTRA downlink bands (TS 36.101), MHz.
func lteDownlinkBands() []ml.BandRange {
	return []ml.BandRange{
		{Name: "B28", MinMHz: 758, MaxMHz: 803}, {Name: "B20", MinMHz: 791, MaxMHz: 821},
		{Name: "B5", MinMHz: 869, MaxMHz: 894}, {Name: "B8", MinMHz: 925, MaxMHz: 960},
		{Name: "B3", MinMHz: 1805, MaxMHz: 1880}, {Name: "B1", MinMHz: 2110, MaxMHz: 2170},
		{Name: "B7", MinMHz: 2620, MaxMHz: 2690}, {Name: "B38", MinMHz: 2570, MaxMHz: 2620},
		{Name: "B42", MinMHz: 3400, MaxMHz: 3600}, {Name: "B43", MinMHz: 3600, MaxMHz: 3800},
	}
}

// DriveTestEnvelope is the calibrated envelope of a drive-test model
// trained on rows: the box around their receivers and serving cells with a
// 0.01° margin (about 1 km) named area, the convex hull of the receivers
// with a DriveTestHullMarginM margin, and the LTE downlink bands of their
// carriers (a carrier in no downlink band, such as the "850 MHz" of the
// Dortmund files, gets a ±5 MHz band of its own named after it). desc ""
// is generated from the rows; envs are informational.
func DriveTestEnvelope(rows []DriveTestRow, area string, envs []string, desc string) *ml.Envelope {
	const margin = 0.01
	box := ml.LatLonBox{Name: area, MinLat: 90, MinLon: 180, MaxLat: -90, MaxLon: -180}
	freqs := map[float64]bool{}
	for _, r := range rows {
		for _, p := range [][2]float64{{r.RxLat, r.RxLon}, {r.TxLat, r.TxLon}} {
			box.MinLat, box.MaxLat = math.Min(box.MinLat, p[0]), math.Max(box.MaxLat, p[0])
			box.MinLon, box.MaxLon = math.Min(box.MinLon, p[1]), math.Max(box.MaxLon, p[1])
		}
		freqs[math.Round(r.FreqHz/1e5)/10] = true
	}
	round := func(v float64, up bool) float64 { // outward, to 1e-4°
		if up {
			return math.Ceil(v*1e4) / 1e4
		}
		return math.Floor(v*1e4) / 1e4
	}
	box.MinLat, box.MinLon = math.Max(-90, round(box.MinLat-margin, false)), math.Max(-180, round(box.MinLon-margin, false))
	box.MaxLat, box.MaxLon = math.Min(90, round(box.MaxLat+margin, true)), math.Min(180, round(box.MaxLon+margin, true))
	fs := make([]float64, 0, len(freqs))
	for f := range freqs {
		fs = append(fs, f)
	}
	sort.Float64s(fs)
	var bands []ml.BandRange
	lte := lteDownlinkBands()
	have := map[string]bool{}
	for _, f := range fs {
		b, ok := ml.BandRange{Name: fmt.Sprintf("%g MHz", f), MinMHz: f - 5, MaxMHz: f + 5}, false
		for _, l := range lte {
			if f >= l.MinMHz && f <= l.MaxMHz {
				b, ok = l, true
				break
			}
		}
		if !ok {
			b.Name += " (no LTE downlink band)"
		}
		if !have[b.Name] {
			have[b.Name] = true
			bands = append(bands, b)
		}
	}
	if desc == "" {
		names := make([]string, len(bands))
		for i, b := range bands {
			names[i] = b.Name
		}
		desc = fmt.Sprintf("drive tests in %s: %d rows, carriers in %s", area, len(rows), strings.Join(names, ", "))
	}
	rx := make([][2]float64, len(rows))
	for i, r := range rows {
		rx[i] = [2]float64{r.RxLat, r.RxLon}
	}
	hull := ml.HullOf(area+": receivers", rx, DriveTestHullMarginM)
	return &ml.Envelope{Description: desc, Areas: []ml.LatLonBox{box}, Hulls: []ml.LatLonPolygon{hull}, Bands: bands, Environments: envs}
}

// DriveTestHullMarginM is the margin around the receivers' convex hull in
// a drive-test model's envelope, metres.
const DriveTestHullMarginM = 1000.0
