package itm_test

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"linkplan/engines/itm"
)

// testSeed returns $SEED or def, and logs it so a failure can be replayed
// with SEED=<n> go test ./engines/itm.
func testSeed(tb testing.TB, def uint64) uint64 {
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

// terrainPFL is a seeded rough profile in PFL form: np intervals of xi
// metres, a random walk with hills of a few hundred metres.
func terrainPFL(r *rand.Rand, np int, xi float64) []float64 {
	pfl := make([]float64, np+3)
	pfl[0], pfl[1] = float64(np), xi
	h := 50 + 700*r.Float64()
	amp := 300 * r.Float64()
	period := 20 + 200*r.Float64()
	for i := 0; i <= np; i++ {
		h += 6 * r.NormFloat64()
		pfl[i+2] = math.Max(0, h+amp*math.Sin(float64(i)/period)+15*math.Sin(float64(i)/4.1))
	}
	return pfl
}

// randomP2P draws a p2p request over seeded terrain across the model's
// range of use.
func randomP2P(r *rand.Rand) itm.P2PInput {
	np := 20 + r.IntN(1500)
	xi := 30 + 120*r.Float64()
	mdvars := []int{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23, 30, 31, 32, 33}
	return itm.P2PInput{
		PFL:         terrainPFL(r, np, xi),
		HTxM:        1 + 100*r.Float64(),
		HRxM:        1 + 30*r.Float64(),
		ClimateCode: 1 + r.IntN(7),
		N0:          280 + 70*r.Float64(),
		FreqMHz:     math.Exp(math.Log(40) + (math.Log(10000)-math.Log(40))*r.Float64()),
		Pol:         r.IntN(2),
		Epsilon:     5 + 20*r.Float64(),
		SigmaSm:     0.001 + 0.03*r.Float64(),
		MdVar:       mdvars[r.IntN(len(mdvars))],
	}
}

// reversed swaps the terminals: reversed profile, swapped heights.
func reversed(in itm.P2PInput) itm.P2PInput {
	out := in
	out.PFL = append([]float64(nil), in.PFL...)
	z := out.PFL[2:]
	for i, j := 0, len(z)-1; i < j; i, j = i+1, j-1 {
		z[i], z[j] = z[j], z[i]
	}
	out.HTxM, out.HRxM = in.HRxM, in.HTxM
	return out
}

// pct draws a percentage in [1, 99].
func pct(r *rand.Rand) float64 { return 1 + 98*r.Float64() }
