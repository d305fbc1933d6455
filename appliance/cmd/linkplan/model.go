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
	"time"

	"linkplan/appliance"
	"linkplan/appliance/observations"
	"linkplan/engines/ml"
	"linkplan/engines/ml/h3"
)

const modelUsage = `usage:
  linkplan model train --observations FILE [--observations FILE ...] --out MODEL
      train a drive-test model (engines/ml: histogram gradient boosting on
      the DriveTestSchema features, 5-fold cross-validation grouped by H3
      resolution-8 cell with permutation seed 42 (fewer folds when the rows
      cover fewer cells), split-conformal 90 % band on the out-of-fold
      residuals) and write its artifact
  linkplan model eval --model MODEL --observations FILE [--observations FILE ...]
      predict every row and print one line:
      n=… rmse_db=… mae_db=… bias_db=… coverage=… mean_width_db=…
      (bias = mean of observed − predicted; coverage = share of rows inside
      the 90 % band; mean_width_db = its mean width), and on standard error
      the same figures for free-space loss with the EIRP offset fitted on the
      evaluated rows themselves (the physics baseline at its best)
Files are drive-test CSVs, plain or gzip, with the aliases of POST
/coverage/observations/drivetest; each row needs the serving cell's position
(cellLat/cellLon or tx_lat/tx_lon) and frequency, as the Dortmund LTE layout
index,lon,lat,alt,speed,sinr,rsrp,rsrq,cellLon,cellLat,cellFreq has.
`

// dtRows are drive-test rows as features, targets (dBm) and H3 cells.
type dtRows struct {
	X      [][]float64
	Y      []float64
	Groups []h3.Cell
}

// readDriveTests reads drive-test CSV files into features.
func readDriveTests(files []string) (*dtRows, error) {
	out := &dtRows{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("--observations: %w", err)
		}
		ins, _, err := observations.ParseDriveTest(observations.DriveTest{CSV: bytes.NewReader(raw)})
		if err != nil {
			return nil, fmt.Errorf("--observations %s: %w", filepath.Base(f), err)
		}
		for i, in := range ins {
			if in.TxLat == nil || in.TxLon == nil || in.FreqHz == nil || in.RxLat == nil || in.RxLon == nil || in.ObservedDBm == nil {
				return nil, fmt.Errorf("--observations %s: data row %d lacks the serving cell's position or frequency (cellLat/cellLon/cellFreq or tx_lat/tx_lon/freq_hz): %w",
					filepath.Base(f), i+1, appliance.ErrInvalid)
			}
			cell, err := h3.LatLngToCell(*in.RxLat, *in.RxLon, 8)
			if err != nil {
				return nil, fmt.Errorf("--observations %s: data row %d: %w", filepath.Base(f), i+1, err)
			}
			out.X = append(out.X, ml.DriveTestFeatures(*in.RxLat, *in.RxLon, *in.TxLat, *in.TxLon, *in.FreqHz))
			out.Y = append(out.Y, *in.ObservedDBm)
			out.Groups = append(out.Groups, cell)
		}
	}
	if len(out.Y) == 0 {
		return nil, fmt.Errorf("--observations: no row: %w", appliance.ErrInvalid)
	}
	return out, nil
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
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 0 || len(files) == 0 {
		fmt.Fprint(stderr, modelUsage)
		return fmt.Errorf("model %s: --observations is required: %w", args[0], errUsage)
	}
	rows, err := readDriveTests(files)
	if errors.Is(err, appliance.ErrInvalid) {
		return fmt.Errorf("model %s: %v: %w", args[0], err, errUsage)
	}
	if err != nil {
		return fmt.Errorf("model %s: %w", args[0], err)
	}
	if args[0] == "train" {
		if *out == "" {
			return fmt.Errorf("model train: --out is required: %w", errUsage)
		}
		return trainModel(rows, *out, now, stdout, stderr)
	}
	if *model == "" {
		return fmt.Errorf("model eval: --model is required: %w", errUsage)
	}
	return evalModel(rows, *model, stdout, stderr)
}

// modelParams are the GBM settings of the drive-test model.
var modelParams = ml.GBMParams{Iterations: 100, LearningRate: 0.05, MaxLeafNodes: 8, MinSamplesLeaf: 400, L2: 1}

// trainModel cross-validates, calibrates and writes the artifact.
func trainModel(rows *dtRows, out string, now func() time.Time, stdout, stderr io.Writer) error {
	// Five folds, or one per H3 cell when the rows cover fewer cells.
	const seed = 42
	cells := map[h3.Cell]bool{}
	for _, c := range rows.Groups {
		cells[c] = true
	}
	k := min(5, len(cells))
	if k < 2 {
		return fmt.Errorf("model train: the rows lie in %d H3 resolution-8 cell: grouped cross-validation needs at least 2: %w", len(cells), errUsage)
	}
	fold, err := ml.GroupKFold(rows.Groups, k, seed)
	if err != nil {
		return fmt.Errorf("model train: %w", err)
	}
	train := func(X [][]float64, y []float64) (ml.Predictor, error) { return ml.TrainGBM(X, y, modelParams) }
	cv, err := ml.CrossValidate(rows.X, rows.Y, fold, train, 0)
	if err != nil {
		return fmt.Errorf("model train: %w", err)
	}
	res := make([]float64, len(rows.Y))
	for i := range res {
		res[i] = rows.Y[i] - cv.OOF[i]
	}
	cal, err := ml.FitMondrian(res, make([]string, len(res)), 0.1)
	if err != nil {
		return fmt.Errorf("model train: conformal band: %w", err)
	}
	g, err := ml.TrainGBM(rows.X, rows.Y, modelParams)
	if err != nil {
		return fmt.Errorf("model train: %w", err)
	}
	a := &ml.Artifact{Format: ml.ArtifactFormat, Version: ml.ArtifactVersion, Kind: ml.KindGBM, ModelVersion: "drivetest-gbm-v1",
		Schema: ml.DriveTestSchema, DataProvenance: "real", TrainedAtUnixS: now().Unix(), NTrain: len(rows.Y),
		CVRMSEDB: cv.RMSEDB, CVRMSEStdDB: cv.StdDB, CVFolds: k, GBM: g, Conformal: &cal}
	var buf bytes.Buffer
	if err := ml.WriteArtifact(&buf, a); err != nil {
		return fmt.Errorf("model train: %w", err)
	}
	if err := installFile(out, buf.Bytes()); err != nil { // atomic: no partial artifact
		return fmt.Errorf("model train: --out: %w", err)
	}
	fmt.Fprintf(stdout, "n=%d cv_rmse_db=%.3f cv_rmse_std_db=%.3f cv_folds=%d band_q_abs_db=%.3f out=%s\n",
		len(rows.Y), cv.RMSEDB, cv.StdDB, k, cal.Marginal.QAbsDB, out)
	return nil
}

// evalModel prints the evaluation line of a model on rows.
func evalModel(rows *dtRows, path string, stdout, stderr io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("model eval: --model: %w", err)
	}
	defer f.Close()
	a, err := ml.ReadArtifact(f)
	if err != nil {
		return fmt.Errorf("model eval: --model: %w", err)
	}
	if a.Schema.Version != ml.DriveTestSchema.Version {
		return fmt.Errorf("model eval: the model's feature schema %d is not the drive-test schema %d: %w", a.Schema.Version, ml.DriveTestSchema.Version, errUsage)
	}
	pred := make([]float64, len(rows.Y))
	for i, x := range rows.X {
		if pred[i], err = a.Predict(x); err != nil {
			return fmt.Errorf("model eval: %w", err)
		}
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	if a.Conformal != nil {
		lo, hi = a.Conformal.Marginal.QLoDB, a.Conformal.Marginal.QHiDB
	}
	fmt.Fprintln(stdout, evalLine(rows.Y, pred, lo, hi))
	// The physics baseline: free-space loss with one EIRP offset, fitted on
	// these rows (least squares: the mean of observed + FSPL).
	off := 0.0
	for i, x := range rows.X {
		off += rows.Y[i] + x[ml.FSPLFeature]
	}
	off /= float64(len(rows.Y))
	phys := make([]float64, len(rows.Y))
	for i, x := range rows.X {
		phys[i] = off - x[ml.FSPLFeature]
	}
	fmt.Fprintf(stderr, "physics baseline (free space, EIRP offset %.1f dBm fitted on these rows): %s\n", off, evalLine(rows.Y, phys, math.NaN(), math.NaN()))
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
