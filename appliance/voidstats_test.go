package appliance_test

import (
	"math"
	"testing"

	"linkplan/appliance"
)

// TestVoidStats: a run of k void-filled samples spans k sample spacings
// ((last − first) + one spacing), so a single void-filled sample is never
// "0 m" in the void_filled_terrain warning (issue 7, finding 1 review).
func TestVoidStats(t *testing.T) {
	const x, o = true, false
	every30 := func(n int) []float64 { // equally spaced, 30 m
		d := make([]float64, n)
		for i := range d {
			d[i] = 30 * float64(i)
		}
		return d
	}
	cases := []struct {
		name      string
		distances []float64 // metres
		void      []bool
		count     int
		spanM     float64
	}{
		{"no void mask", every30(5), nil, 0, 0},
		{"no void-filled sample", every30(5), []bool{o, o, o, o, o}, 0, 0},
		{"one void-filled sample spans one spacing", every30(5), []bool{o, o, x, o, o}, 1, 30},
		{"a run of three spans three spacings", every30(6), []bool{o, x, x, x, o, o}, 3, 90},
		{"the longest of two runs", every30(8), []bool{x, o, x, x, o, x, o, o}, 4, 60},
		{"a run at both ends", every30(4), []bool{x, x, x, x}, 4, 120},
		{"an uneven profile uses the mean spacing", []float64{0, 10, 40, 100}, []bool{o, x, o, o}, 1, 100.0 / 3},
		{"a one-sample profile has no spacing", []float64{0}, []bool{x}, 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := appliance.PathProfile{DistancesM: tc.distances, HeightsM: make([]float64, len(tc.distances)), VoidFilled: tc.void}
			n, span := p.VoidStats()
			if n != tc.count || math.Abs(span-tc.spanM) > 1e-9 {
				t.Fatalf("VoidStats = %d, %.3f m; want %d, %.3f m", n, span, tc.count, tc.spanM)
			}
		})
	}
}
