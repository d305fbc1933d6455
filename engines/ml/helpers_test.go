package ml_test

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// seedFor returns the seed of a randomized test: SEED from the
// environment when set, else def. It is logged so a failure can be
// replayed with SEED=….
func seedFor(tb testing.TB, def uint64) uint64 {
	tb.Helper()
	seed := def
	if s := os.Getenv("SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			tb.Fatalf("SEED=%q: %v", s, err)
		}
		seed = v
	}
	tb.Logf("seed %d (replay with SEED=%d)", seed, seed)
	return seed
}

// synth returns n rows of nf >= 6 features uniform in [0, 1) and a target
// in dB shaped like a path-loss residual problem: a log-distance term, an
// interaction, a quadratic, a linear term, a step and Gaussian noise of
// noiseDB; features 6… carry no signal.
func synth(n, nf int, noiseDB float64, seed uint64) ([][]float64, []float64) {
	r := rand.New(rand.NewPCG(seed, seed^0x5DEECE66D))
	X := make([][]float64, n)
	y := make([]float64, n)
	for i := range X {
		x := make([]float64, nf)
		for j := range x {
			x[j] = r.Float64()
		}
		X[i] = x
		v := -80 - 35*math.Log10(0.1+10*x[0]) + 10*math.Sin(math.Pi*x[1]*x[2]) +
			20*(x[3]-0.5)*(x[3]-0.5) + 8*x[4]
		if x[5] > 0.5 {
			v += 6
		}
		y[i] = v + noiseDB*r.NormFloat64()
	}
	return X, y
}

func rmse(pred, y []float64) float64 {
	var se float64
	for i := range y {
		d := pred[i] - y[i]
		se += d * d
	}
	return math.Sqrt(se / float64(len(y)))
}
