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
	"strings"
	"time"
	"unicode"

	"linkplan/appliance"
	"linkplan/appliance/cmd/linkplan/assemble"
	"linkplan/appliance/observations"
	"linkplan/appliance/training"
	"linkplan/engines/ml"
)

const modelUsage = `usage:
  linkplan model train --observations [OPERATOR=]FILE [--observations ...] --out MODEL
        [--area-name NAME] [--environments LIST] [--description TEXT] [--attest-basis TEXT [--attested-by NAME]]
      train a drive-test model (engines/ml: model drivetest-gbm-v2, an
      additive gradient-boosted model of depth-one trees on the
      DriveTestSchemaV2 features log10_distance_km and fspl_db, schema 101),
      cross-validated in 5 folds grouped by serving cell (cell position and
      carrier) with permutation seed 42 (by H3 resolution-8 cell when the
      rows have one serving cell), with a split-conformal 90 % band on those
      out-of-fold residuals, and write its artifact with its calibrated
      envelope: the box around the rows' receivers and cells with a 0.01°
      margin, named --area-name, the convex hull of the receivers with a
      1,000 m margin, and the LTE bands of their carriers.
      OPERATOR= names the operator of a file's rows (o2=o2_campus.csv.gz):
      a label of letters, digits, '_', '-' and '.', taken as one only when
      the whole value is not an existing file (run=2.csv that exists is the
      file run=2.csv; ./run=2.csv always is).
      The model also gets a band for transmitters it never saw (a new
      operator, a new cell): calibrated on the residuals of each operator
      left out (a model trained on the other operators; two operators or
      more) and of the cells left out by the grouped cross-validation, as
      the worst group's 95 % cluster-bootstrap upper bound of its 90 %
      conformal quantiles (engines/ml FitUnseenBand). And the fair physics
      baseline: free space with one EIRP offset fitted on the training rows.
      --attest-basis says why the files are field measurements: only then
      is the model's data_provenance real (it may claim field accuracy);
      without it, unknown.
  linkplan model eval --model MODEL --observations [OPERATOR=]FILE [--observations ...]
      predict every row and print one line:
      n=… rmse_db=… mae_db=… bias_db=… coverage=… mean_width_db=…
      unseen_rows=… unseen_coverage=… unseen_mean_width_db=…
      served_coverage=… served_mean_width_db=…
      (bias = mean of observed − predicted; coverage = share of rows inside
      the model's ordinary 90 % band, mean_width_db its width; unseen_rows =
      rows whose serving cell the model never saw; unseen_coverage = share
      of every row inside the band for unseen transmitters; served_coverage
      = share inside the band /coverage/predict serves each row: the unseen
      band where the cell is unseen and wider, else the ordinary one). On
      standard error: the rows outside the model's envelope, the fair
      physics baseline's figures (free space with the EIRP offset fitted on
      the training rows, stored in the model) and an oracle's (the offset
      fitted on the evaluated rows themselves: it sees their signal, the
      model does not). Models of the drive-test schemas 100 and 101 are
      accepted.
Files are drive-test CSVs, plain or gzip, with the aliases of POST
/coverage/observations/drivetest; each row needs the serving cell's position
(cellLat/cellLon or tx_lat/tx_lon) and frequency, as the Dortmund LTE layout
index,lon,lat,alt,speed,sinr,rsrp,rsrq,cellLon,cellLat,cellFreq has. Only
the positions and the frequency make features: the signal columns (rsrp,
rsrq, sinr) are the target in training and are never read for a prediction.
`

// dtRow is one drive-test row read from a file (training.DriveTestRow:
// the training itself is appliance/training's).
type dtRow training.DriveTestRow

// servingCell is the row's serving-cell key (training.DriveTestRow.ServingCell).
func (r *dtRow) servingCell() string { return (*training.DriveTestRow)(r).ServingCell() }

// trainingRows converts rows for appliance/training.
func trainingRows(rows []dtRow) []training.DriveTestRow {
	out := make([]training.DriveTestRow, len(rows))
	for i, r := range rows {
		out[i] = training.DriveTestRow(r)
	}
	return out
}

// splitOperator splits an --observations value OPERATOR=FILE. It is
// that form only when the part before the first '=' is a label (letters,
// digits, '_', '-' and '.'; no path separator) and the whole value does
// not name an existing file: a file run=2.csv in the working directory is
// that file, not 2.csv of operator run (./run=2.csv names it either way).
func splitOperator(v string) (op, file string) {
	i := strings.IndexByte(v, '=')
	if i <= 0 || !operatorLabel(v[:i]) {
		return "", v
	}
	if _, err := os.Stat(v); err == nil {
		return "", v
	}
	return v[:i], v[i+1:]
}

// operatorLabel reports whether s may be the OPERATOR of OPERATOR=FILE.
func operatorLabel(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-' && r != '.' {
			return false
		}
	}
	return s != ""
}

// readDriveTests reads drive-test CSV files ([OPERATOR=]FILE) into rows.
func readDriveTests(files []string) ([]dtRow, error) {
	var out []dtRow
	for _, v := range files {
		op, f := splitOperator(v)
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("--observations: %w", err)
		}
		rows, err := parseDriveTestFile(raw, filepath.Base(f))
		if err != nil {
			return nil, err
		}
		for i := range rows {
			rows[i].Operator = op
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
		if in.TxLat == nil || in.TxLon == nil || in.FreqMHz == nil || in.RxLat == nil || in.RxLon == nil || in.ObservedDBm == nil {
			return nil, fmt.Errorf("--observations %s: data row %d lacks the serving cell's position or frequency (cellLat/cellLon/cellFreq or tx_lat/tx_lon/freq_hz): %w",
				name, i+1, appliance.ErrInvalid)
		}
		out = append(out, dtRow{RxLat: *in.RxLat, RxLon: *in.RxLon, TxLat: *in.TxLat, TxLon: *in.TxLon,
			FreqHz: *in.FreqMHz * 1e6, ObservedDBm: *in.ObservedDBm, File: name})
	}
	return out, nil
}

// dtFeatures returns the features of schema version (100 or 101) of rows
// (training.DriveTestFeatures: never the observed signal).
func dtFeatures(rows []dtRow, version int) ([][]float64, error) {
	return training.DriveTestFeatures(trainingRows(rows), version)
}

// modelCmd runs linkplan model train|eval.
func modelCmd(_ context.Context, args []string, now func() time.Time, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "train" && args[0] != "eval") {
		fmt.Fprint(stderr, modelUsage, modelTrainingUsage)
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
	attest := fs.String("attest-basis", "", "train: why the files are field measurements; without it the model's data_provenance is unknown")
	attestedBy := fs.String("attested-by", operatorName(), "train: who attests the files (with --attest-basis)")
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
		return trainModel(rows, env, strings.TrimSpace(*attest), strings.TrimSpace(*attestedBy), *out, now, stdout)
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

// trainDriveTest trains the drive-test model on rows
// (training.TrainDriveTest).
func trainDriveTest(rows []dtRow, now time.Time) (*training.DriveTestModel, error) {
	return assemble.Learners().TrainDriveTest(trainingRows(rows), now)
}

// trainModel trains, attaches env (and the attestation when basis is
// given) and writes the artifact to out.
func trainModel(rows []dtRow, env *ml.Envelope, basis, attestedBy, out string, now func() time.Time, stdout io.Writer) error {
	t, err := trainDriveTest(rows, now())
	if errors.Is(err, appliance.ErrInvalid) {
		return fmt.Errorf("model train: %v: %w", err, errUsage)
	}
	if err != nil {
		return fmt.Errorf("model train: %w", err)
	}
	t.Artifact.Envelope = env
	if basis != "" {
		training.AttestDriveTestFiles(t.Artifact, trainingRows(rows), basis, attestedBy, now())
	}
	var buf bytes.Buffer
	if err := ml.WriteArtifact(&buf, t.Artifact); err != nil {
		return fmt.Errorf("model train: %w", err)
	}
	if err := installFile(out, buf.Bytes()); err != nil { // atomic: no partial artifact
		return fmt.Errorf("model train: --out: %w", err)
	}
	u := t.Artifact.Conformal.Unseen
	fmt.Fprintf(stdout, "n=%d cv_rmse_db=%.3f cv_rmse_std_db=%.3f cv_folds=%d cv_groups=%s band_q_abs_db=%.3f unseen_band_q_abs_db=%.3f unseen_groups=%d data_provenance=%s out=%s\n",
		len(rows), t.CV.RMSEDB, t.CV.StdDB, t.Artifact.CVFolds, t.Groups, t.Artifact.Conformal.Marginal.QAbsDB, u.Band.QAbsDB, len(u.Groups),
		t.Artifact.DataProvenance, out)
	return nil
}

// dtEnvelope is the calibrated envelope of rows
// (training.DriveTestEnvelope).
func dtEnvelope(rows []dtRow, area string, envs []string, desc string) *ml.Envelope {
	return training.DriveTestEnvelope(trainingRows(rows), area, envs, desc)
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
	fmt.Fprintln(stdout, evalLine(y, pred, lo, hi)+" "+unseenFigures(a, rows, y, pred))
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
	trows := trainingRows(rows)
	if pb := a.PhysicsBaseline; pb != nil {
		fmt.Fprintf(stderr, "fair physics baseline (free space, EIRP offset %.2f dBm fitted on the model's training rows): %s\n", pb.EIRPOffsetDBm,
			evalLine(y, training.FSPLLevels(trows, pb.EIRPOffsetDBm), math.NaN(), math.NaN()))
	}
	// The oracle physics baseline: free space with one EIRP offset, fitted
	// on these rows (least squares: the mean of observed + FSPL).
	off := training.FSPLOffset(trows)
	fmt.Fprintf(stderr, "oracle physics baseline (free space, EIRP offset %.2f dBm fitted on these rows): %s\n", off, evalLine(y, training.FSPLLevels(trows, off), math.NaN(), math.NaN()))
	return nil
}

// unseenFigures formats the unseen-transmitter figures of predictions
// pred of rows (observed y): how many rows' serving cells a never saw,
// the coverage and width of its band for unseen transmitters on every
// row, and of the band /coverage/predict serves each row (±the larger of
// the ordinary q_abs and, for an unseen transmitter, the unseen one).
// NaN without the bands.
func unseenFigures(a *ml.Artifact, rows []dtRow, y, pred []float64) string {
	if a.Conformal == nil || a.Conformal.Unseen == nil {
		return "unseen_rows=NaN unseen_coverage=NaN unseen_mean_width_db=NaN served_coverage=NaN served_mean_width_db=NaN"
	}
	u := a.Conformal.Unseen
	unseen, inU, inS := 0, 0, 0
	width := 0.0
	for i := range rows {
		r := math.Abs(y[i] - pred[i])
		half := a.Conformal.Marginal.QAbsDB
		if !u.Saw(rows[i].TxLat, rows[i].TxLon, rows[i].FreqHz/1e6) {
			unseen++
			half = max(half, u.Band.QAbsDB)
		}
		if r <= u.Band.QAbsDB {
			inU++
		}
		if r <= half {
			inS++
		}
		width += 2 * half
	}
	n := float64(len(rows))
	return fmt.Sprintf("unseen_rows=%d unseen_coverage=%.4f unseen_mean_width_db=%.3f served_coverage=%.4f served_mean_width_db=%.3f",
		unseen, float64(inU)/n, 2*u.Band.QAbsDB, float64(inS)/n, width/n)
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
