package itm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSubtractRepeated compares subtractRepeated and addRepeated with the
// plain loops on
// random spacings and lengths, on spacings whose step rounds by exactly
// half an ulp (ties), and on spacings of a few ulps.
func TestSubtractRepeated(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(sweepSeed(t), 11))
	loop := func(d, xi float64, k int) float64 {
		for range k {
			d -= xi
		}
		return d
	}
	addLoop := func(xi float64, k int) float64 {
		v := 0.0
		for range k {
			v += xi
		}
		return v
	}
	check := func(d, xi float64, k int) {
		t.Helper()
		if got, want := subtractRepeated(d, xi, k), loop(d, xi, k); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("subtract: d=%v xi=%v k=%d: %v, loop %v", d, xi, k, got, want)
		}
		if got, want := addRepeated(xi, k), addLoop(xi, k); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("add: xi=%v k=%d: %v, loop %v", xi, k, got, want)
		}
	}
	for range 200000 {
		np := 2 + rng.IntN(3000)
		xi := math.Exp(math.Log(1) + rng.Float64()*math.Log(200)) // 1..200 m
		switch rng.IntN(4) {
		case 0: // a spacing with one bit below the ulp of the distances: ties
			e := math.Ilogb(float64(np)*xi) - 52
			xi = math.Ldexp(math.Round(math.Ldexp(xi, -e+1)), e-1)
			if math.Ldexp(xi, -e+1) == math.Round(math.Ldexp(xi, -e))*2 {
				xi += math.Ldexp(1, e-1)
			}
		case 1: // short profiles of a few metres
			xi = rng.Float64()
		}
		d := float64(np) * xi
		check(d, xi, 1+rng.IntN(np-1))
	}
	check(3000, 30+math.Ldexp(1, -42), 40)  // every step a tie (half an ulp of 2048..4096)
	check(4096, 30+math.Ldexp(1, -43), 120) // adding: ties from 2048 up
	check(100, 30, 5)                       // crosses zero
	check(1, 0.25, 8)                       // exact steps
	check(1e-300, 1e-301, 20)
	check(10, 0, 3)
	check(10, -1, 3)
	check(math.Inf(1), 1, 3)
}
