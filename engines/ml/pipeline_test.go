package ml_test

import (
	"fmt"
	"math"
	"testing"

	"linkplan/engines/ml"
	"linkplan/engines/ml/learn"
)

// TestResidualPipeline composes the parts the way the residual engine
// will: grouped 5-fold CV of a GBM (groups standing in for H3 cells),
// Mondrian bands from the out-of-fold residuals, then a model trained on
// every row predicting fresh rows from the same distribution, whose
// residuals the bands must cover about 90 % of the time.
func TestResidualPipeline(t *testing.T) {
	t.Parallel()
	seed := seedFor(t, 31)
	const n = 4000
	regions := []string{"N", "NE", "CO", "SE", "S"}
	gen := func(n int, seed uint64) ([][]float64, []float64, []string, []string) {
		X, y := synth(n, 8, 3, seed)
		cells := make([]string, n)
		reg := make([]string, n)
		for i, x := range X {
			// A "cell" is a 0.1 × 0.1 square of features 6 and 7 (no signal
			// in them); the region is a function of the cell, and region N
			// gets twice the noise.
			cx, cy := int(x[6]*10), int(x[7]*10)
			cells[i] = fmt.Sprintf("%d/%d", cx, cy)
			reg[i] = regions[(cx+cy)%len(regions)]
			if reg[i] == "N" {
				y[i] += 3 * math.Sin(float64(i)*12.9898) // extra spread, deterministic
			}
		}
		return X, y, cells, reg
	}
	X, y, cells, reg := gen(n, seed)
	fold, err := ml.GroupKFold(cells, ml.DefaultFolds, ml.CVSeed)
	if err != nil {
		t.Fatal(err)
	}
	p := ml.GBMParams{Iterations: 60}
	cv, err := ml.CrossValidate(X, y, fold, func(X [][]float64, y []float64) (ml.Predictor, error) {
		return learn.TrainGBM(X, y, p)
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	res := make([]float64, n)
	for i := range y {
		res[i] = y[i] - cv.OOF[i]
	}
	cal, err := ml.FitMondrian(res, reg, ml.DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	if len(cal.ByGroup) != len(regions) {
		t.Fatalf("%d regional bands, want %d", len(cal.ByGroup), len(regions))
	}
	m, err := learn.TrainGBM(X, y, p)
	if err != nil {
		t.Fatal(err)
	}
	Xt, yt, _, regt := gen(3000, seed+1)
	rt := make([]float64, len(yt))
	for i, x := range Xt {
		rt[i] = yt[i] - m.Predict(x)
	}
	rep, err := cal.Coverage(rt, regt)
	if err != nil {
		t.Fatal(err)
	}
	nb, _ := cal.BandFor("N")
	sb, _ := cal.BandFor("SE")
	t.Logf("grouped CV RMSE %.3f ± %.3f dB; fresh rows: coverage %.4f, mean width %.3f dB; half-width N %.2f dB, SE %.2f dB",
		cv.RMSEDB, cv.StdDB, rep.EmpiricalCoverage, rep.MeanWidthDB, nb.QAbsDB, sb.QAbsDB)
	// The model trained on every row is a little better than the folds'
	// models, so the out-of-fold bands are, if anything, conservative.
	if rep.EmpiricalCoverage < 0.87 || rep.EmpiricalCoverage > 0.95 {
		t.Errorf("coverage of fresh rows %.4f, want 0.87–0.95", rep.EmpiricalCoverage)
	}
	if rep.Mondrian != len(rt) {
		t.Errorf("%d of %d rows served by a regional band", rep.Mondrian, len(rt))
	}
	if !(nb.QAbsDB > sb.QAbsDB) {
		t.Errorf("region N (noisier) half-width %.2f dB not above SE's %.2f dB", nb.QAbsDB, sb.QAbsDB)
	}
}
