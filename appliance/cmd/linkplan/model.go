package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/observations"
	"linkplan/engines/ml"
	"linkplan/engines/ml/h3"
)

const modelUsage = `usage:
  linkplan model train --observations FILE [--observations FILE ...] --out MODEL
        [--area-name NAME] [--environments LIST] [--description TEXT]
      train a drive-test model (engines/ml: model drivetest-gbm-v2, an
      additive gradient-boosted model of depth-one trees on the
      DriveTestSchemaV2 features log10_distance_km and fspl_db, schema 101),
      cross-validated in 5 folds grouped by serving cell (cell position and
      carrier) with permutation seed 42 (by H3 resolution-8 cell when the
      rows have one serving cell), with a split-conformal 90 % band on those
      out-of-fold residuals, and write its artifact with its calibrated
      envelope: the box around the rows' receivers and cells with a 0.01°
      margin, named --area-name, and the LTE bands of their carriers
  linkplan model eval --model MODEL --observations FILE [--observations FILE ...]
      predict every row and print one line:
      n=… rmse_db=… mae_db=… bias_db=… coverage=… mean_width_db=…
      (bias = mean of observed − predicted; coverage = share of rows inside
      the 90 % band; mean_width_db = its mean width); on standard error the
      rows outside the model's envelope, and the same figures for free-space
      loss with one EIRP offset fitted on the evaluated rows themselves (an
      oracle physics baseline: it sees the rows' signal, the model does not).
      Models of the drive-test schemas 100 and 101 are accepted.
Files are drive-test CSVs, plain or gzip, with the aliases of POST
/coverage/observations/drivetest; each row needs the serving cell's position
(cellLat/cellLon or tx_lat/tx_lon) and frequency, as the Dortmund LTE layout
index,lon,lat,alt,speed,sinr,rsrp,rsrq,cellLon,cellLat,cellFreq has. Only
the positions and the frequency make features: the signal columns (rsrp,
rsrq, sinr) are the target in training and are never read for a prediction.
`

// dtRow is one drive-test row: receiver and serving cell (WGS84 degrees),
// carrier (Hz), the observed signal (dBm) and the base name of its file.
type dtRow struct {
	RxLat, RxLon, TxLat, TxLon float64
	FreqHz                     float64
	ObservedDBm                float64
	File                       string
}

// servingCell is the row's serving-cell key: the cell's position and
// carrier, as a planner knows them (the layout carries no cell id).
func (r *dtRow) servingCell() string {
	return fmt.Sprintf("%.6f,%.6f,%.1f", r.TxLat, r.TxLon, r.FreqHz/1e6)
}

// readDriveTests reads drive-test CSV files into rows.
func readDriveTests(files []string) ([]dtRow, error) {
	var out []dtRow
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("--observations: %w", err)
		}
		rows, err := parseDriveTestFile(raw, filepath.Base(f))
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--observations: no row: %w", appliance.ErrInvalid)
	}
	return out, nil
}

// parseDriveTestFile parses one drive-test CSV (plain or gzip) named name.
func parseDriveTestFile(raw []byte, name string) ([]dtRow, error) {
	ins, _, err := observations.ParseDriveTest(observations.DriveTest{CSV: bytes.NewReader(raw)})
	if err != nil {
		return nil, fmt.Errorf("--observations %s: %w", name, err)
	}
	out := make([]dtRow, 0, len(ins))
	for i, in := range ins {
		if in.TxLat == nil || in.TxLon == nil || in.FreqHz == nil || in.RxLat == nil || in.RxLon == nil || in.ObservedDBm == nil {
			return nil, fmt.Errorf("--observations %s: data row %d lacks the serving cell's position or frequency (cellLat/cellLon/cellFreq or tx_lat/tx_lon/freq_hz): %w",
				name, i+1, appliance.ErrInvalid)
		}
		out = append(out, dtRow{RxLat: *in.RxLat, RxLon: *in.RxLon, TxLat: *in.TxLat, TxLon: *in.TxLon,
			FreqHz: *in.FreqHz, ObservedDBm: *in.ObservedDBm, File: name})
	}
	return out, nil
}

// dtFeatures returns the features of schema version (100 or 101) of rows:
// positions and frequency only, never the observed signal.
func dtFeatures(rows []dtRow, version int) ([][]float64, error) {
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

// modelCmd runs linkplan model train|eval.
func modelCmd(_ context.Context, args []string, now func() time.Time, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "train" && args[0] != "eval") {
		fmt.Fprint(stderr, modelUsage)
		return fmt.Errorf("model: the subcommands are train and eval: %w", errUsage)
	}
	fs := newFlags("model "+args[0], stderr)
	var files multi
	fs.Var(&files, "observations", "drive-test CSV file, plain or gzip (repeatable)")
	out := fs.String("out", "", "train: the model artifact to write")
	model := fs.String("model", "", "eval: the model artifact to read")
	area := fs.String("area-name", "the drive-test area", "train: the name of the calibrated area in the envelope")
	envs := fs.String("environments", "", "train: comma-separated kinds of places of the rows (urban,suburban,…), informational")
	desc := fs.String("description", "", "train: the envelope's description (default: generated from the rows)")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 0 || len(files) == 0 {
		fmt.Fprint(stderr, modelUsage)
		return fmt.Errorf("model %s: --observations is required: %w", args[0], errUsage)
	}
	if args[0] == "train" && *out == "" {
		return fmt.Errorf("model train: --out is required: %w", errUsage)
	}
	if args[0] == "eval" && *model == "" {
		return fmt.Errorf("model eval: --model is required: %w", errUsage)
	}
	rows, err := readDriveTests(files)
	if errors.Is(err, appliance.ErrInvalid) {
		return fmt.Errorf("model %s: %v: %w", args[0], err, errUsage)
	}
	if err != nil {
		return fmt.Errorf("model %s: %w", args[0], err)
	}
	if args[0] == "train" {
		env := dtEnvelope(rows, strings.TrimSpace(*area), splitList(*envs), strings.TrimSpace(*desc))
		return trainModel(rows, env, *out, now, stdout)
	}
	return evalModel(rows, *model, stdout, stderr)
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// dtTrained is a trained drive-test model and its cross-validation.
type dtTrained struct {
	Artifact *ml.Artifact
	CV       ml.CVResult
	// Groups names the CV grouping: "serving_cell" or "h3_r8".
	Groups string
}

// trainDriveTest cross-validates the v2 model on rows in folds grouped by
// serving cell (H3 resolution-8 cell when the rows have a single serving
// cell), calibrates the conformal band on the out-of-fold residuals and
// trains the final model on every row. It is deterministic: the result
// depends on rows and their order only, not on GOMAXPROCS.
func trainDriveTest(rows []dtRow, now time.Time) (*dtTrained, error) {
	schema := ml.DriveTestSchemaV2()
	X, err := dtFeatures(rows, schema.Version)
	if err != nil {
		return nil, err
	}
	y := make([]float64, len(rows))
	cells := make([]string, len(rows))
	distinct := map[string]bool{}
	for i := range rows {
		y[i] = rows[i].ObservedDBm
		cells[i] = rows[i].servingCell()
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
	p := dtParams(len(rows))
	train := func(X [][]float64, y []float64) (ml.Predictor, error) { return ml.TrainGBM(X, y, p) }
	cv, err := ml.CrossValidate(X, y, fold, train, k)
	if err != nil {
		return nil, err
	}
	res := make([]float64, len(y))
	for i := range res {
		res[i] = y[i] - cv.OOF[i]
	}
	cal, err := ml.FitMondrian(res, nil, ml.DefaultAlpha)
	if err != nil {
		return nil, fmt.Errorf("conformal band: %w", err)
	}
	g, err := ml.TrainGBM(X, y, p)
	if err != nil {
		return nil, err
	}
	a := &ml.Artifact{Format: ml.ArtifactFormat, Version: ml.ArtifactVersion, Kind: ml.KindGBM, ModelVersion: "drivetest-gbm-v2",
		Schema: schema, DataProvenance: "real", TrainedAtUnixS: now.Unix(), NTrain: len(y),
		CVRMSEDB: cv.RMSEDB, CVRMSEStdDB: cv.StdDB, CVFolds: k, GBM: g, Conformal: &cal}
	return &dtTrained{Artifact: a, CV: cv, Groups: groups}, nil
}

// dtParams are ml.DriveTestV2Params with the smallest leaf scaled down for
// small training sets (a twentieth of the rows, at least 20), so that a
// short drive test still gets a distance slope.
func dtParams(n int) ml.GBMParams {
	p := ml.DriveTestV2Params()
	p.MinSamplesLeaf = min(p.MinSamplesLeaf, max(20, n/20))
	return p
}

// trainModel trains, attaches env and writes the artifact to out.
func trainModel(rows []dtRow, env *ml.Envelope, out string, now func() time.Time, stdout io.Writer) error {
	t, err := trainDriveTest(rows, now())
	if errors.Is(err, appliance.ErrInvalid) {
		return fmt.Errorf("model train: %v: %w", err, errUsage)
	}
	if err != nil {
		return fmt.Errorf("model train: %w", err)
	}
	t.Artifact.Envelope = env
	var buf bytes.Buffer
	if err := ml.WriteArtifact(&buf, t.Artifact); err != nil {
		return fmt.Errorf("model train: %w", err)
	}
	if err := installFile(out, buf.Bytes()); err != nil { // atomic: no partial artifact
		return fmt.Errorf("model train: --out: %w", err)
	}
	fmt.Fprintf(stdout, "n=%d cv_rmse_db=%.3f cv_rmse_std_db=%.3f cv_folds=%d cv_groups=%s band_q_abs_db=%.3f out=%s\n",
		len(rows), t.CV.RMSEDB, t.CV.StdDB, t.Artifact.CVFolds, t.Groups, t.Artifact.Conformal.Marginal.QAbsDB, out)
	return nil
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

// dtEnvelope is the calibrated envelope of rows: the box around their
// receivers and serving cells with a 0.01° margin (about 1 km), and the
// LTE downlink bands of their carriers (a carrier in no downlink band,
// such as the "850 MHz" of the Dortmund files, gets a ±5 MHz band of its
// own named after it).
func dtEnvelope(rows []dtRow, area string, envs []string, desc string) *ml.Envelope {
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
	return &ml.Envelope{Description: desc, Areas: []ml.LatLonBox{box}, Bands: bands, Environments: envs}
}

// readModel reads a drive-test model artifact (schema 100 or 101).
func readModel(path string) (*ml.Artifact, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--model: %w", err)
	}
	defer f.Close()
	a, err := ml.ReadArtifact(f)
	if err != nil {
		return nil, fmt.Errorf("--model: %w", err)
	}
	if v := a.Schema.Version; v != ml.DriveTestSchema.Version && v != ml.DriveTestSchemaV2Version {
		return nil, fmt.Errorf("--model: the model's feature schema %d is not a drive-test schema (%d or %d): %w",
			v, ml.DriveTestSchema.Version, ml.DriveTestSchemaV2Version, appliance.ErrInvalid)
	}
	return a, nil
}

// predictRows predicts every row with a: from the rows' positions and
// frequencies only (dtFeatures never reads ObservedDBm).
func predictRows(a *ml.Artifact, rows []dtRow) ([]float64, error) {
	X, err := dtFeatures(rows, a.Schema.Version)
	if err != nil {
		return nil, err
	}
	pred := make([]float64, len(rows))
	for i, x := range X {
		if pred[i], err = a.Predict(x); err != nil {
			return nil, err
		}
	}
	return pred, nil
}

// evalModel prints the evaluation line of a model on rows.
func evalModel(rows []dtRow, path string, stdout, stderr io.Writer) error {
	a, err := readModel(path)
	if errors.Is(err, appliance.ErrInvalid) {
		return fmt.Errorf("model eval: %v: %w", err, errUsage)
	}
	if err != nil {
		return fmt.Errorf("model eval: %w", err)
	}
	pred, err := predictRows(a, rows)
	if err != nil {
		return fmt.Errorf("model eval: %w", err)
	}
	y := make([]float64, len(rows))
	for i := range rows {
		y[i] = rows[i].ObservedDBm
	}
	lo, hi := math.NaN(), math.NaN()
	if a.Conformal != nil {
		lo, hi = a.Conformal.Marginal.QLoDB, a.Conformal.Marginal.QHiDB
	}
	fmt.Fprintln(stdout, evalLine(y, pred, lo, hi))
	if a.Envelope != nil {
		outside, reason := 0, ""
		for _, r := range rows {
			if ok, why := a.Envelope.Contains(r.RxLat, r.RxLon, r.FreqHz/1e6); !ok {
				outside, reason = outside+1, why
			}
		}
		if outside > 0 {
			fmt.Fprintf(stderr, "%d of %d rows are outside the model's calibrated envelope (e.g. %s): its figures do not hold there\n", outside, len(rows), reason)
		}
	}
	// The oracle physics baseline: free-space loss with one EIRP offset,
	// fitted on these rows (least squares: the mean of observed + FSPL).
	fspl := make([]float64, len(rows))
	off := 0.0
	for i := range rows {
		r := &rows[i]
		fspl[i] = ml.DriveTestFeatures(r.RxLat, r.RxLon, r.TxLat, r.TxLon, r.FreqHz)[ml.FSPLFeature]
		off += y[i] + fspl[i]
	}
	off /= float64(len(rows))
	phys := make([]float64, len(rows))
	for i := range rows {
		phys[i] = off - fspl[i]
	}
	fmt.Fprintf(stderr, "physics baseline (free space, EIRP offset %.1f dBm fitted on these rows): %s\n", off, evalLine(y, phys, math.NaN(), math.NaN()))
	return nil
}

// evalLine formats the figures of predictions pred of observations y with
// the band [pred+lo, pred+hi] (NaN: no band).
func evalLine(y, pred []float64, lo, hi float64) string {
	var se, ae, bias float64
	in := 0
	for i := range y {
		r := y[i] - pred[i]
		se += r * r
		ae += math.Abs(r)
		bias += r
		if r >= lo && r <= hi {
			in++
		}
	}
	n := float64(len(y))
	cov, width := "NaN", "NaN"
	if !math.IsNaN(lo) {
		cov, width = fmt.Sprintf("%.4f", float64(in)/n), fmt.Sprintf("%.3f", hi-lo)
	}
	return fmt.Sprintf("n=%d rmse_db=%.3f mae_db=%.3f bias_db=%.3f coverage=%s mean_width_db=%s", len(y), math.Sqrt(se/n), ae/n, bias/n, cov, width)
}
