package ml_test

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"linkplan/engines/ml"
)

// TestConformalRank pins ranks of SPEC §2.6's ceil((n+1)(1-alpha)),
// including ones where float64 arithmetic would round the product the
// wrong way.
func TestConformalRank(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		n       int
		alpha   float64
		want    int
		tooFew  bool
		invalid bool
	}{
		{"n 9 at 0.1 is the largest", 9, 0.1, 9, false, false},
		{"n 8 at 0.1 is infinite", 8, 0.1, 0, true, false},
		{"n 99 at 0.1", 99, 0.1, 90, false, false},
		{"n 100 at 0.1", 100, 0.1, 91, false, false},
		{"n 19 at 0.05 (alpha/2 of 0.1)", 19, 0.05, 19, false, false},
		{"n 18 at 0.05 is infinite", 18, 0.05, 0, true, false},
		{"n 9 at 0.3: (n+1)(1-a) is exactly 7", 9, 0.3, 7, false, false},
		{"n 99 at 0.07: exactly 93", 99, 0.07, 93, false, false},
		{"n 1 at 0.5", 1, 0.5, 1, false, false},
		{"n 9 at 0.7: exactly 3, float64 ceil(10*(1-0.7)) gives 4", 9, 0.7, 3, false, false},
		{"n 19 at 0.7: exactly 6, float64 gives 7", 19, 0.7, 6, false, false},
		{"no residuals", 0, 0.1, 0, true, false},
		{"alpha 0", 10, 0, 0, false, true},
		{"alpha 1", 10, 1, 0, false, true},
		{"alpha NaN", 10, math.NaN(), 0, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k, err := ml.ConformalRank(tc.n, tc.alpha)
			switch {
			case tc.tooFew:
				if !errors.Is(err, ml.ErrTooFewResiduals) {
					t.Fatalf("error %v, want ErrTooFewResiduals", err)
				}
			case tc.invalid:
				if err == nil || errors.Is(err, ml.ErrTooFewResiduals) {
					t.Fatalf("error %v, want an invalid-alpha error", err)
				}
			case err != nil:
				t.Fatal(err)
			case k != tc.want:
				t.Fatalf("rank %d, want %d", k, tc.want)
			}
		})
	}
}

// bruteQuantile returns, by counting, the smallest candidate value q
// among vals with #{v <= q} >= (n+1)·level (exact rationals), or ok=false
// when no candidate has that many.
func bruteQuantile(vals []float64, level *big.Rat) (float64, bool) {
	need := new(big.Rat).Mul(big.NewRat(int64(len(vals))+1, 1), level)
	best, ok := math.Inf(1), false
	for _, q := range vals {
		c := 0
		for _, v := range vals {
			if v <= q {
				c++
			}
		}
		if big.NewRat(int64(c), 1).Cmp(need) >= 0 && q < best {
			best, ok = q, true
		}
	}
	return best, ok
}

// TestFitBandBruteForce compares the band's quantiles with a brute-force
// count over every candidate, on random residuals with ties, for several
// alphas given as exact fractions.
func TestFitBandBruteForce(t *testing.T) {
	t.Parallel()
	seed := seedFor(t, 17)
	r := rand.New(rand.NewPCG(seed, 99))
	alphas := []struct {
		a    float64
		p, q int64
	}{{0.1, 1, 10}, {0.05, 1, 20}, {0.2, 1, 5}, {0.3, 3, 10}, {0.01, 1, 100}, {0.5, 1, 2}, {0.25, 1, 4}}
	for iter := 0; iter < 400; iter++ {
		n := 1 + r.IntN(250)
		res := make([]float64, n)
		for i := range res {
			res[i] = math.Round(r.NormFloat64()*60) / 10 // 0.1 dB steps: ties
		}
		al := alphas[iter%len(alphas)]
		alpha := big.NewRat(al.p, al.q)
		b, err := ml.FitBand(res, al.a)
		abs := make([]float64, n)
		for i, v := range res {
			abs[i] = math.Abs(v)
		}
		one := big.NewRat(1, 1)
		qAbs, okAbs := bruteQuantile(abs, new(big.Rat).Sub(one, alpha))
		half := new(big.Rat).Sub(one, new(big.Rat).Quo(alpha, big.NewRat(2, 1)))
		qHi, okHi := bruteQuantile(res, half)
		neg := make([]float64, n)
		for i, v := range res {
			neg[i] = -v
		}
		qLoNeg, _ := bruteQuantile(neg, half)
		if !okAbs || !okHi {
			if !errors.Is(err, ml.ErrTooFewResiduals) {
				t.Fatalf("n %d alpha %v: brute force has no finite quantile, FitBand gave %+v, %v", n, al.a, b, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("n %d alpha %v: %v", n, al.a, err)
		}
		if b.QAbsDB != qAbs || b.QHiDB != qHi || b.QLoDB != -qLoNeg {
			t.Fatalf("n %d alpha %v: band q %v [%v, %v], brute force q %v [%v, %v]", n, al.a, b.QAbsDB, b.QLoDB, b.QHiDB, qAbs, -qLoNeg, qHi)
		}
		if b.EmpiricalCoverage < 1-al.a || b.MeanWidthDB != 2*b.QAbsDB || b.N != n {
			t.Fatalf("n %d alpha %v: %+v", n, al.a, b)
		}
	}
}

// TestMondrian checks which rows get a local band and the coverage
// report.
func TestMondrian(t *testing.T) {
	t.Parallel()
	seed := seedFor(t, 5)
	r := rand.New(rand.NewPCG(seed, 7))
	// Region spreads (dB): a band per region must follow its spread.
	spread := map[string]float64{"N": 9, "NE": 6, "CO": 4, "SE": 3, "S": 5}
	count := map[string]int{"N": 400, "NE": 800, "CO": 10, "SE": 2000, "S": 900}
	var res []float64
	var groups []string
	for _, g := range []string{"N", "NE", "CO", "SE", "S"} {
		for range count[g] {
			res = append(res, r.NormFloat64()*spread[g])
			groups = append(groups, g)
		}
	}
	for range 50 {
		res = append(res, r.NormFloat64()*5)
		groups = append(groups, "") // outside every region
	}
	c, err := ml.FitMondrian(res, groups, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		group    string
		mondrian bool
	}{
		{"a region with 2000 rows has its own band", "SE", true},
		{"a region with 400 rows has its own band", "N", true},
		{"a region with 10 rows falls back to the marginal band", "CO", false},
		{"an unknown region falls back to the marginal band", "XX", false},
		{"no region uses the marginal band", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, mondrian := c.BandFor(tc.group)
			if mondrian != tc.mondrian {
				t.Fatalf("mondrian %v, want %v", mondrian, tc.mondrian)
			}
			if !mondrian && b != c.Marginal {
				t.Fatalf("band %+v is not the marginal band", b)
			}
			if mondrian {
				var own []float64
				for i, g := range groups {
					if g == tc.group {
						own = append(own, res[i])
					}
				}
				want, _ := ml.FitBand(own, 0.1)
				if b != want {
					t.Fatalf("band %+v, want the band of the region's own residuals %+v", b, want)
				}
			}
		})
	}
	t.Run("coverage report", func(t *testing.T) {
		rep, err := c.Coverage(res, groups)
		if err != nil {
			t.Fatal(err)
		}
		var covered, mondrian int
		var width float64
		for i, v := range res {
			b, m := c.BandFor(groups[i])
			if math.Abs(v) <= b.QAbsDB {
				covered++
			}
			if m {
				mondrian++
			}
			width += 2 * b.QAbsDB
		}
		if rep.N != len(res) || rep.Covered != covered || rep.Mondrian != mondrian || math.Abs(rep.MeanWidthDB-width/float64(len(res))) > 1e-9 {
			t.Fatalf("report %+v; counted covered %d mondrian %d width %v", rep, covered, mondrian, width/float64(len(res)))
		}
		// Every band covers at least 1-alpha of its own calibration rows.
		if rep.EmpiricalCoverage < 0.9 {
			t.Errorf("in-sample coverage %v below 0.9", rep.EmpiricalCoverage)
		}
		// Fresh residuals from the same regions: coverage near 0.9.
		fresh := make([]float64, len(res))
		for i, g := range groups {
			s := spread[g]
			if g == "" {
				s = 5
			}
			fresh[i] = r.NormFloat64() * s
		}
		out, err := c.Coverage(fresh, groups)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(out.EmpiricalCoverage-0.9) > 0.025 {
			t.Errorf("coverage of fresh residuals %v, want 0.9 ± 0.025", out.EmpiricalCoverage)
		}
		t.Logf("in-sample %+v; fresh %+v", rep, out)
	})
	t.Run("out-of-region coverage", func(t *testing.T) {
		oo, err := ml.OutOfGroupCoverage(res, groups, 0.1)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, g := range oo {
			names = append(names, g.Group)
		}
		if !slices.Equal(names, []string{"CO", "N", "NE", "S", "SE"}) {
			t.Fatalf("groups %v", names)
		}
		for _, g := range oo {
			var rest, in []float64
			for i, v := range res {
				if groups[i] == g.Group {
					in = append(in, v)
				} else {
					rest = append(rest, v)
				}
			}
			b, _ := ml.FitBand(rest, 0.1)
			cov := 0
			for _, v := range in {
				if math.Abs(v) <= b.QAbsDB {
					cov++
				}
			}
			if g.Band != b || g.Report.Covered != cov || g.Report.N != len(in) {
				t.Errorf("%s: %+v, want band %+v covering %d of %d", g.Group, g, b, cov, len(in))
			}
		}
		// N is the widest region: a band from the others under-covers it.
		if oo[1].Report.EmpiricalCoverage >= 0.9 {
			t.Errorf("region N covered %v by the other regions' band, want below 0.9", oo[1].Report.EmpiricalCoverage)
		}
	})
	t.Run("mismatched lengths", func(t *testing.T) {
		if _, err := ml.FitMondrian(res, groups[:3], 0.1); err == nil {
			t.Error("FitMondrian: no error")
		}
		if _, err := c.Coverage(res, groups[:3]); err == nil {
			t.Error("Coverage: no error")
		}
		if _, err := c.Coverage(nil, nil); err == nil {
			t.Error("Coverage of nothing: no error")
		}
	})
}
