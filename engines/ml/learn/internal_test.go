package learn

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBinThresholds checks the bin edges and that binOf is the number of
// edges strictly below a value (brute force).
func TestBinThresholds(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	many := make([]float64, 5000)
	for i := range many {
		many[i] = r.NormFloat64()
	}
	ties := make([]float64, 3000)
	for i := range ties {
		ties[i] = float64(r.IntN(400)) // 400 distinct values, more than 255
		if i%3 == 0 {
			ties[i] = 7 // a value that fills several quantile bins
		}
	}
	cases := []struct {
		name    string
		col     []float64
		maxBins int
		want    []float64 // nil: only the invariants
	}{
		{"constant column has one bin", []float64{3, 3, 3}, 255, []float64{}},
		{"few distinct values: midpoints", []float64{1, 3, 3, 2, 10}, 255, []float64{1.5, 2.5, 6.5}},
		{"distinct values equal to max bins", []float64{0, 1, 2, 3}, 4, []float64{0.5, 1.5, 2.5}},
		{"continuous column: 254 quantile edges", many, 255, nil},
		{"ties across quantiles are kept once", ties, 255, nil},
		{"32 bins", many, 32, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := binThresholds(tc.col, tc.maxBins)
			if tc.want != nil && !slices.Equal(e, tc.want) {
				t.Fatalf("edges %v, want %v", e, tc.want)
			}
			if len(e) > tc.maxBins-1 {
				t.Fatalf("%d edges for %d bins", len(e), tc.maxBins)
			}
			for i := 1; i < len(e); i++ {
				if !(e[i] > e[i-1]) {
					t.Fatalf("edges %d, %d not ascending: %v, %v", i-1, i, e[i-1], e[i])
				}
			}
			for _, x := range append(slices.Clone(tc.col), -1e300, 1e300) {
				want := 0
				for _, v := range e {
					if v < x {
						want++
					}
				}
				if got := binOf(e, x); int(got) != want {
					t.Fatalf("binOf(%v) = %d, want %d", x, got, want)
				}
			}
		})
	}
}
