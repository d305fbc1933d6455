package main

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/engines/ml"
	"linkplan/engines/ml/learn"
)

// dortmundHeadFile is the committed 200-row sample of the real Dortmund
// O2 campus drive test (appliance/observations/testdata/README.md).
const dortmundHeadFile = "../../observations/testdata/dortmund_o2_campus_head.csv.gz"

// headRows reads the committed sample.
func headRows(t *testing.T) []dtRow {
	t.Helper()
	rows, err := readDriveTests([]string{dortmundHeadFile})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestModelEvalIgnoresSignal: predictions of a trained model are the same
// when the signal columns (rsrp, rsrq, sinr) of the evaluated file are
// shuffled among its rows: no feature reads them.
func TestModelEvalIgnoresSignal(t *testing.T) {
	rows := headRows(t)
	tr, err := trainDriveTest(rows, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(dortmundHeadFile)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(zr).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 42))
	for c, name := range recs[0] {
		if name != "rsrp" && name != "rsrq" && name != "sinr" {
			continue
		}
		body := recs[1:]
		rng.Shuffle(len(body), func(i, j int) { body[i][c], body[j][c] = body[j][c], body[i][c] })
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.WriteAll(recs); err != nil {
		t.Fatal(err)
	}
	shuffled, err := parseDriveTestFile(buf.Bytes(), "shuffled.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(shuffled) != len(rows) {
		t.Fatalf("%d shuffled rows, %d rows", len(shuffled), len(rows))
	}
	moved := 0
	for i := range rows {
		if rows[i].ObservedDBm != shuffled[i].ObservedDBm {
			moved++
		}
	}
	if moved == 0 {
		t.Fatal("the shuffle moved no rsrp value")
	}
	for _, a := range []*ml.Artifact{tr.Artifact, schema100Artifact(t, rows)} {
		p1, err := predictRows(a, rows)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := predictRows(a, shuffled)
		if err != nil {
			t.Fatal(err)
		}
		for i := range p1 {
			if p1[i] != p2[i] {
				t.Fatalf("schema %d: row %d predicted %v, %v with shuffled signal columns", a.Schema.Version, i, p1[i], p2[i])
			}
		}
	}
}

// schema100Artifact trains a model of the first drive-test family
// (schema 100, drivetest-gbm-v1's settings) as the earlier build did.
func schema100Artifact(t *testing.T, rows []dtRow) *ml.Artifact {
	t.Helper()
	X, err := dtFeatures(rows, ml.DriveTestSchema.Version)
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float64, len(rows))
	for i := range rows {
		y[i] = rows[i].ObservedDBm
	}
	g, err := learn.TrainGBM(X, y, ml.GBMParams{Iterations: 100, LearningRate: 0.05, MaxLeafNodes: 8, MinSamplesLeaf: 20, L2: 1})
	if err != nil {
		t.Fatal(err)
	}
	res := make([]float64, len(y))
	for i := range y {
		res[i] = y[i] - g.Predict(X[i])
	}
	cal, err := ml.FitMondrian(res, nil, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	return &ml.Artifact{Format: ml.ArtifactFormat, Version: 1, Kind: ml.KindGBM, ModelVersion: "drivetest-gbm-v1",
		Schema: ml.DriveTestSchema, DataProvenance: "real", NTrain: len(y), GBM: g, Conformal: &cal}
}

// TestModelTrainDeterministic: the artifact is the same byte for byte
// whatever GOMAXPROCS.
func TestModelTrainDeterministic(t *testing.T) {
	rows := headRows(t)
	env := dtEnvelope(rows, "Dortmund, Germany", nil, "")
	artifact := func(procs int) []byte {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		tr, err := trainDriveTest(rows, time.Unix(1700000000, 0))
		if err != nil {
			t.Fatal(err)
		}
		tr.Artifact.Envelope = env
		var b bytes.Buffer
		if err := ml.WriteArtifact(&b, tr.Artifact); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	one := artifact(1)
	for _, p := range []int{2, 4, 7} {
		if !bytes.Equal(one, artifact(p)) {
			t.Fatalf("GOMAXPROCS %d gives another artifact than GOMAXPROCS 1", p)
		}
	}
}

// TestModelEvalSchemas: eval accepts artifacts of schema 100 (the first
// drive-test family, layout version 1) and 101, and refuses a model of
// another feature schema as a usage error.
func TestModelEvalSchemas(t *testing.T) {
	rows := headRows(t)
	dir := t.TempDir()
	write := func(name string, a *ml.Artifact) string {
		var b bytes.Buffer
		if err := ml.WriteArtifact(&b, a); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tr, err := trainDriveTest(rows, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	ridge := &ml.Artifact{Format: ml.ArtifactFormat, Version: 1, Kind: ml.KindRidge, ModelVersion: "ridge-v1",
		Schema: ml.FeatureSchema{Version: 1, Names: []string{"a", "b"}}, Ridge: &ml.Ridge{Mean: []float64{0, 0}, Scale: []float64{1, 1}, Coef: []float64{1, 1}}}
	cases := []struct {
		name  string
		a     *ml.Artifact
		usage bool
	}{
		{"schema 100 layout 1", schema100Artifact(t, rows), false},
		{"schema 101", tr.Artifact, false},
		{"SPEC schema 1 ridge refused", ridge, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := evalModel(rows, write(strings.ReplaceAll(tc.name, " ", "_")+".json", tc.a), &out, &errb)
			if tc.usage {
				if !errors.Is(err, errUsage) {
					t.Fatalf("err %v, want a usage error", err)
				}
				return
			}
			if err != nil || !strings.HasPrefix(out.String(), "n=200 rmse_db=") || strings.Contains(out.String(), " coverage=NaN") {
				t.Fatalf("err %v, out %q", err, out.String())
			}
		})
	}
}

// TestDTEnvelope: the envelope's box holds every receiver and cell with
// the margin, and each carrier maps to its LTE downlink band or to a band
// of its own.
func TestDTEnvelope(t *testing.T) {
	row := func(rxLat, rxLon, txLat, txLon, fMHz float64) dtRow {
		return dtRow{RxLat: rxLat, RxLon: rxLon, TxLat: txLat, TxLon: txLon, FreqHz: fMHz * 1e6}
	}
	cases := []struct {
		name      string
		rows      []dtRow
		bands     []string
		in, out   [][3]float64 // lat, lon, MHz
		outReason string
	}{
		{"B3 and B7", []dtRow{row(51.49, 7.41, 51.48, 7.40, 1845), row(51.50, 7.42, 51.51, 7.43, 2680)},
			[]string{"B3", "B7"}, [][3]float64{{51.495, 7.415, 1815}, {51.49, 7.41, 2650}}, [][3]float64{{51.49, 7.41, 2140}}, "outside the calibrated bands"},
		{"850 MHz gets its own band", []dtRow{row(51.49, 7.41, 51.48, 7.40, 850), row(51.49, 7.41, 51.48, 7.40, 954.9)},
			[]string{"850 MHz (no LTE downlink band)", "B8"}, [][3]float64{{51.49, 7.41, 852}, {51.49, 7.41, 930}}, [][3]float64{{51.49, 7.41, 870}}, "outside the calibrated bands"},
		{"box margin", []dtRow{row(51.49, 7.41, 51.48, 7.40, 1815)},
			[]string{"B3"}, [][3]float64{{51.4901, 7.4101, 1815}, {51.4979, 7.41, 1815}}, [][3]float64{{51.469, 7.41, 1815}, {51.49, 7.421, 1815}, {-22.9, -43.2, 1815}}, "outside the calibrated area (Dortmund, Germany)"},
		{"in the box, beyond the receivers' hull", []dtRow{row(51.49, 7.41, 51.48, 7.40, 1845), row(51.50, 7.42, 51.51, 7.43, 2680)},
			[]string{"B3", "B7"}, [][3]float64{{51.5, 7.4285, 1815}}, [][3]float64{{51.475, 7.395, 1815}, {51.515, 7.435, 2650}}, "outside the area its training receivers cover (Dortmund, Germany: receivers, 1000 m margin)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := dtEnvelope(tc.rows, "Dortmund, Germany", []string{"urban"}, "")
			var names []string
			for _, b := range e.Bands {
				names = append(names, b.Name)
			}
			if fmt.Sprint(names) != fmt.Sprint(tc.bands) || e.Description == "" {
				t.Fatalf("bands %q, want %q (%q)", names, tc.bands, e.Description)
			}
			for _, q := range tc.in {
				if ok, why := e.Contains(q[0], q[1], q[2]); !ok {
					t.Errorf("%v outside: %s", q, why)
				}
			}
			for _, q := range tc.out {
				if ok, why := e.Contains(q[0], q[1], q[2]); ok || !strings.Contains(why, tc.outReason) {
					t.Errorf("%v: inside %v, reason %q; want outside with %q", q, ok, why, tc.outReason)
				}
			}
		})
	}
}

// TestDortmundFigures prints the issue 11 figures on the Dortmund LTE
// drive tests in $LINKPLAN_DORTMUND_DIR (o2_*.csv.gz and
// tmobile_*.csv.gz; skipped without it): grouped-CV RMSE per operator and
// per scenario, leave-one-operator-out RMSE both ways for the model, the
// schema-100 model and the physics baselines (free space with the EIRP
// offset fitted on the training operator, with and without the 3GPP
// sector pattern around an azimuth estimated from each batch's own rows),
// and the conformal band's coverage and mean width at α = 0.1, marginal
// and per scenario, on the unseen operator. Other operators' files in the
// directory (e.g. vodafone_*) are evaluated too as unseen by both models.
func TestDortmundFigures(t *testing.T) {
	dir := os.Getenv("LINKPLAN_DORTMUND_DIR")
	if dir == "" {
		t.Skip("LINKPLAN_DORTMUND_DIR is not set")
	}
	ops := map[string][]dtRow{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.csv*"))
	sort.Strings(files)
	for _, f := range files {
		rows, err := readDriveTests([]string{f})
		if err != nil {
			t.Fatal(err)
		}
		op := strings.SplitN(filepath.Base(f), "_", 2)[0]
		ops[op] = append(ops[op], rows...)
	}
	if len(ops["o2"]) == 0 || len(ops["tmobile"]) == 0 {
		t.Fatalf("%s holds no o2_* or tmobile_* file", dir)
	}
	var names []string
	for op := range ops {
		names = append(names, op)
	}
	sort.Strings(names)
	now := time.Unix(0, 0)
	t.Log("grouped CV (5 folds by serving cell, seed 42), model drivetest-gbm-v2:")
	for _, op := range names {
		tr, err := trainDriveTest(ops[op], now)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("  %-9s n=%5d cv_rmse_db=%.2f ± %.2f oof_rmse_db=%.2f band ±%.2f dB", op, len(ops[op]), tr.CV.RMSEDB, tr.CV.StdDB, tr.CV.OOFRMSEDB, tr.Artifact.Conformal.Marginal.QAbsDB)
		for _, sc := range scenarios(ops[op]) {
			sub := byScenario(ops[op], sc)
			tr, err := trainDriveTest(sub, now)
			if err != nil {
				t.Logf("    %-22s n=%5d: %v", sc, len(sub), err)
				continue
			}
			t.Logf("    %-22s n=%5d cv_rmse_db=%.2f ± %.2f (%d folds by %s)", sc, len(sub), tr.CV.RMSEDB, tr.CV.StdDB, tr.Artifact.CVFolds, tr.Groups)
		}
	}
	for _, trainOp := range []string{"o2", "tmobile"} {
		train := ops[trainOp]
		tr, err := trainDriveTest(train, now)
		if err != nil {
			t.Fatal(err)
		}
		v1 := schema100CVArtifact(t, train)
		t.Logf("%s: drivetest-gbm-v1 (schema 100) grouped cv_rmse_db=%.2f ± %.2f, v2 %.2f ± %.2f", trainOp, v1.CVRMSEDB, v1.CVRMSEStdDB, tr.CV.RMSEDB, tr.CV.StdDB)
		off, offPat := fsplOffset(train, false), fsplOffset(train, true)
		for _, testOp := range names {
			if testOp == trainOp {
				continue
			}
			test := ops[testOp]
			t.Logf("train %s -> predict %s (n=%d):", trainOp, testOp, len(test))
			pred, err := predictRows(tr.Artifact, test)
			if err != nil {
				t.Fatal(err)
			}
			p1, err := predictRows(v1, test)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("  drivetest-gbm-v2 (schema 101)     %s", figures(test, pred, tr.Artifact.Conformal))
			t.Logf("  drivetest-gbm-v1 (schema 100)     %s", figures(test, p1, v1.Conformal))
			t.Logf("  fspl + EIRP %5.1f dBm (train)     %s", off, figures(test, fsplPredict(test, off, false), nil))
			t.Logf("  fspl + sector pattern + %5.1f dBm %s", offPat, figures(test, fsplPredict(test, offPat, true), nil))
			for _, sc := range scenarios(test) {
				idx := []int{}
				for i := range test {
					if test[i].File == sc {
						idx = append(idx, i)
					}
				}
				sub, sp, sf := make([]dtRow, len(idx)), make([]float64, len(idx)), make([]float64, len(idx))
				phys := fsplPredict(test, off, false)
				for j, i := range idx {
					sub[j], sp[j], sf[j] = test[i], pred[i], phys[i]
				}
				t.Logf("    %-22s model %s | fspl rmse %.2f", sc, figures(sub, sp, tr.Artifact.Conformal), rmseOf(sub, sf))
			}
		}
	}
}

// scenarios lists the files of rows, sorted.
func scenarios(rows []dtRow) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rows {
		if !seen[r.File] {
			seen[r.File] = true
			out = append(out, r.File)
		}
	}
	sort.Strings(out)
	return out
}

func byScenario(rows []dtRow, sc string) []dtRow {
	var out []dtRow
	for _, r := range rows {
		if r.File == sc {
			out = append(out, r)
		}
	}
	return out
}

// schema100CVArtifact trains the earlier model (schema 100, 8 leaves of
// ≥ 400 rows) on rows, with its band and CV figures from the same
// serving-cell-grouped folds as the v2 model.
func schema100CVArtifact(t *testing.T, rows []dtRow) *ml.Artifact {
	t.Helper()
	X, err := dtFeatures(rows, ml.DriveTestSchema.Version)
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float64, len(rows))
	cells := make([]string, len(rows))
	for i := range rows {
		y[i] = rows[i].ObservedDBm
		cells[i] = rows[i].servingCell()
	}
	p := ml.GBMParams{Iterations: 100, LearningRate: 0.05, MaxLeafNodes: 8, MinSamplesLeaf: 400, L2: 1}
	fold, err := ml.GroupKFold(cells, 5, ml.CVSeed)
	if err != nil {
		t.Fatal(err)
	}
	cv, err := ml.CrossValidate(X, y, fold, func(X [][]float64, y []float64) (ml.Predictor, error) { return learn.TrainGBM(X, y, p) }, 5)
	if err != nil {
		t.Fatal(err)
	}
	res := make([]float64, len(y))
	for i := range y {
		res[i] = y[i] - cv.OOF[i]
	}
	cal, err := ml.FitMondrian(res, nil, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	g, err := learn.TrainGBM(X, y, p)
	if err != nil {
		t.Fatal(err)
	}
	return &ml.Artifact{Format: ml.ArtifactFormat, Version: 1, Kind: ml.KindGBM, ModelVersion: "drivetest-gbm-v1",
		Schema: ml.DriveTestSchema, GBM: g, Conformal: &cal, CVRMSEDB: cv.RMSEDB, CVRMSEStdDB: cv.StdDB, CVFolds: 5}
}

// sectorLoss returns each row's 3GPP sector pattern loss around its
// serving cell's azimuth, estimated as the circular mean bearing
// cell → receiver of the rows that cell serves in this batch: label-free.
func sectorLoss(rows []dtRow) []float64 {
	bear := make([]float64, len(rows))
	by := map[string][]float64{}
	for i := range rows {
		r := &rows[i]
		bear[i] = appliance.LatLon{Lat: r.TxLat, Lon: r.TxLon}.BearingDeg(appliance.LatLon{Lat: r.RxLat, Lon: r.RxLon})
		by[r.servingCell()] = append(by[r.servingCell()], bear[i])
	}
	out := make([]float64, len(rows))
	for i := range rows {
		if az, ok := ml.CircularMeanDeg(by[rows[i].servingCell()]); ok {
			out[i] = ml.SectorPatternDB(bear[i] - az)
		}
	}
	return out
}

// fsplLoss is each row's free-space loss, plus the sector pattern loss
// when pattern.
func fsplLoss(rows []dtRow, pattern bool) []float64 {
	out := make([]float64, len(rows))
	var sec []float64
	if pattern {
		sec = sectorLoss(rows)
	}
	for i := range rows {
		r := &rows[i]
		out[i] = ml.DriveTestFeatures(r.RxLat, r.RxLon, r.TxLat, r.TxLon, r.FreqHz)[ml.FSPLFeature]
		if pattern {
			out[i] += sec[i]
		}
	}
	return out
}

// fsplOffset is the least-squares EIRP offset of the physics baseline on
// (training) rows: the mean of observed + loss.
func fsplOffset(rows []dtRow, pattern bool) float64 {
	l := fsplLoss(rows, pattern)
	s := 0.0
	for i := range rows {
		s += rows[i].ObservedDBm + l[i]
	}
	return s / float64(len(rows))
}

func fsplPredict(rows []dtRow, off float64, pattern bool) []float64 {
	l := fsplLoss(rows, pattern)
	for i := range l {
		l[i] = off - l[i]
	}
	return l
}

func rmseOf(rows []dtRow, pred []float64) float64 {
	se := 0.0
	for i := range rows {
		d := rows[i].ObservedDBm - pred[i]
		se += d * d
	}
	return math.Sqrt(se / float64(len(rows)))
}

// figures formats RMSE, bias and, with a calibration, the coverage and
// mean width of its marginal signed band.
func figures(rows []dtRow, pred []float64, cal *ml.Calibration) string {
	y := make([]float64, len(rows))
	for i := range rows {
		y[i] = rows[i].ObservedDBm
	}
	lo, hi := math.NaN(), math.NaN()
	if cal != nil {
		lo, hi = cal.Marginal.QLoDB, cal.Marginal.QHiDB
	}
	return evalLine(y, pred, lo, hi)
}
