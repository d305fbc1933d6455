package itm

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDeltaHKnots: pixelDeltaH's knots (Δh of a long range interpolated
// between ranges ending every dhKnotStep radial samples) against Δh
// resampled for the range itself, on rough random radials (printed
// seed): the knots' value lies between their own ranges' values, and
// within a few per cent of the exact one (Δh moves slowly with the end of
// a range of more than 240 samples).
func TestDeltaHKnots(t *testing.T) {
	rng := rand.New(rand.NewPCG(sweepSeed(t), 9))
	const xr = 90.0 // metres
	var rel []float64
	for trial := range 5 {
		z := roughTerrain(rng, 700)
		s := &Sweeper{}
		s.SetRadial(z)
		s.xr = xr
		s.dhKnots = s.dhKnots[:0]
		m, p10 := 10*maxDeltaHP10-5, maxDeltaHP10
		dStart := 750.0
		for range 200 {
			dEnd := xr * (300 + 390*rng.Float64())
			got, ok := s.deltaHKnots(dStart, dEnd, m, p10)
			if !ok {
				t.Fatalf("trial %d: no knots for %.0f–%.0f m", trial, dStart, dEnd)
			}
			uS, uE := dStart/xr, dEnd/xr
			want := s.deltaHRadial(uS, (uE-uS)/float64(m-1), m, p10)
			k := int(uE / dhKnotStep)
			v0 := s.deltaHRadial(uS, (float64(k*dhKnotStep)-uS)/float64(m-1), m, p10)
			v1 := s.deltaHRadial(uS, (float64((k+1)*dhKnotStep)-uS)/float64(m-1), m, p10)
			if got < min(v0, v1)-1e-9 || got > max(v0, v1)+1e-9 {
				t.Errorf("trial %d, end %.0f m: %.4f outside its knots %.4f, %.4f", trial, dEnd, got, v0, v1)
			}
			rel = append(rel, math.Abs(got-want)/want)
		}
		if _, ok := s.deltaHKnots(dStart, xr*100, m, p10); ok {
			t.Errorf("trial %d: knots for a short range", trial)
		}
		if _, ok := s.deltaHKnots(dStart, xr*699, m, p10); ok {
			t.Errorf("trial %d: knots beyond the radial", trial)
		}
	}
	slices.Sort(rel)
	med, p99 := rel[len(rel)/2], rel[len(rel)*99/100]
	t.Logf("relative error of Δh: median %.4f, p99 %.4f, max %.4f", med, p99, rel[len(rel)-1])
	if med > 0.02 || p99 > 0.2 {
		t.Errorf("knots too far from the exact Δh: median %.4f, p99 %.4f", med, p99)
	}
}
