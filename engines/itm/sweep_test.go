package itm

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

func sweepSeed(t testing.TB) uint64 {
	t.Helper()
	s := uint64(time.Now().UnixNano())
	if v := os.Getenv("SWEEP_SEED"); v != "" {
		var err error
		if s, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("SEED=%d (rerun with SWEEP_SEED=%d)", s, s)
	return s
}

// roughTerrain is a rough random profile: a random walk with ridges and
// flat stretches (ties).
func roughTerrain(rng *rand.Rand, n int) []float64 {
	z := make([]float64, n)
	h := 200 * rng.Float64()
	for i := range z {
		switch rng.IntN(10) {
		case 0:
			h += 100 * rng.NormFloat64()
		case 1: // flat: repeated values
		default:
			h += 10 * rng.NormFloat64()
		}
		z[i] = h
		if rng.IntN(3) == 0 {
			z[i] = math.Round(h)
		}
	}
	return z
}

func TestDecilesEqualKthLargest(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(sweepSeed(t), 2))
	sc := &decileScratch{fHi: 0.03, fLo: 0.03}
	var a []float64
	for it := 0; it < 20000; it++ {
		n := 5 + rng.IntN(maxDeltaHSamples-4)
		if it%2 == 0 || len(a) < n {
			a = roughTerrain(rng, n)
		} else { // a perturbed prefix of the last array: the hint path
			a = a[:n]
			for j := range a {
				a[j] += 0.1 * rng.NormFloat64()
			}
		}
		k1 := 1 + rng.IntN(min(25, n-1))
		k2 := 1 + rng.IntN(min(25, n-k1))
		orig := append([]float64(nil), a...)
		y0, step := 0.0, 0.0
		if it%4 < 2 {
			y0, step = 50*rng.NormFloat64(), rng.NormFloat64()
		}
		hi, lo := deciles(a, k1, k2, sc, y0, step)
		a = orig
		det := append([]float64(nil), orig...)
		for j := range det {
			det[j] -= y0 + float64(j)*step
		}
		b := append([]float64(nil), det...)
		wantHi := kthLargest(b, k1-1)
		b = append(b[:0], det...)
		wantLo := kthLargest(b, n-k2)
		if hi != wantHi || lo != wantLo {
			t.Fatalf("n=%d k1=%d k2=%d: got %v %v, want %v %v", n, k1, k2, hi, lo, wantHi, wantLo)
		}
	}
}

func TestSweepHorizonsEqualFindHorizons(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(sweepSeed(t), 3))
	s := &Sweeper{}
	worst := 0.0
	for it := 0; it < 300; it++ {
		z := roughTerrain(rng, 3+rng.IntN(700))
		s.SetRadial(z)
		xi := 30 + 60*rng.Float64()
		ae := 8.5e6 + 1e5*rng.NormFloat64()
		h := [2]float64{1 + 100*rng.Float64(), 1 + 30*rng.Float64()}
		for np := 2; np < len(z); np++ {
			d := float64(np) * xi
			th, dh := s.horizons(z[:np+1], xi, d, ae, h)
			wth, wdh := findHorizons(z[:np+1], xi, d, ae, h)
			for k := range 2 {
				// the same angle to rounding; the same point unless
				// another one's angle ties with it to rounding
				tol := 1e-9 * (1 + math.Abs(wth[k]))
				sameAngle := math.Abs(th[k]-wth[k]) <= tol
				samePoint := math.Abs(dh[k]-wdh[k]) <= 1e-9*wdh[k]
				if !sameAngle || !samePoint && nearMaxAngles(z[:np+1], xi, d, ae, h, k, wth[k], tol) < 2 {
					t.Fatalf("np=%d side %d: got θ=%v d=%v, want θ=%v d=%v", np, k, th[k], dh[k], wth[k], wdh[k])
				}
				worst = max(worst, math.Abs(th[k]-wth[k]))
			}
		}
	}
	t.Logf("max |Δθ| = %.3g rad", worst)
}

// nearMaxAngles counts the candidates of side k of findHorizons (the
// other terminal, every interior point) whose angle is within tol of max.
func nearMaxAngles(z []float64, xi, d, ae float64, h [2]float64, k int, maxAngle, tol float64) int {
	np := len(z) - 1
	zTx, zRx := z[0]+h[0], z[np]+h[1]
	n := 0
	if los := [2]float64{(zRx-zTx)/d - d/(2*ae), -(zRx-zTx)/d - d/(2*ae)}[k]; math.Abs(los-maxAngle) <= tol {
		n++
	}
	for i := 1; i < np; i++ {
		di := float64(i) * xi
		t := (z[i]-zTx)/di - di/(2*ae)
		if k == 1 {
			t = (z[i]-zRx)/(d-di) - (d-di)/(2*ae)
		}
		if math.Abs(t-maxAngle) <= tol {
			n++
		}
	}
	return n
}

func TestSweepSystemElevation(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(sweepSeed(t), 4))
	s := &Sweeper{}
	for it := 0; it < 100; it++ {
		z := roughTerrain(rng, 3+rng.IntN(700))
		s.SetRadial(z)
		for np := 2; np < len(z); np += 1 + rng.IntN(3) {
			if got, want := s.systemElevation(np), systemElevation(z[:np+1]); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("np=%d: %v, want %v", np, got, want)
			}
		}
	}
}

func TestSelectLargestEqualsKthLargest(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(sweepSeed(t), 5))
	for it := 0; it < 20000; it++ {
		n := 1 + rng.IntN(300)
		a := roughTerrain(rng, n)
		if it%3 == 0 { // few distinct values
			for j := range a {
				a[j] = float64(rng.IntN(3))
			}
		}
		k := rng.IntN(n)
		b := append([]float64(nil), a...)
		if got, want := selectLargest(a, k), kthLargest(b, k); got != want {
			t.Fatalf("n=%d k=%d: %v, want %v", n, k, got, want)
		}
	}
}

// TestSweeperEqualsP2PTLS: LossPrefix on every prefix of random rough
// profiles equals P2PTLS on that prefix to within 1e-6 dB (errors alike):
// the sweep takes its least-squares sums from prefix sums, so they differ
// from P2PTLS's in the last bits.
func TestSweeperEqualsP2PTLS(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(sweepSeed(t), 7))
	count, same := 0, 0
	worst := 0.0
	for it := 0; it < 40; it++ {
		z := roughTerrain(rng, 3+rng.IntN(600))
		in := P2PInput{HTxM: 1 + 100*rng.Float64(), HRxM: 1 + 20*rng.Float64(), FreqMHz: 50 + 5000*rng.Float64(),
			Pol: rng.IntN(2), Epsilon: 15, SigmaSm: 0.005, MdVar: 12}
		tp, lp, sp := 1+98*rng.Float64(), 50.0, 1+98*rng.Float64()
		s, err := NewSweeper(in, tp, lp, sp)
		if err != nil {
			t.Fatal(err)
		}
		s.SetRadial(z)
		climate := 1 + rng.IntN(7)
		n0 := 250 + 150*rng.Float64()
		xi := 30 + 60*rng.Float64()
		for np := 2; np < len(z); np++ {
			got, gerr := s.LossPrefix(np, xi, climate, n0)
			q := in
			q.PFL = append([]float64{float64(np), xi}, z[:np+1]...)
			q.ClimateCode, q.N0 = climate, n0
			want, werr := P2PTLS(q, tp, lp, sp)
			if (gerr == nil) != (werr == nil) {
				t.Fatalf("np=%d: errors %v / %v", np, gerr, werr)
			}
			if werr == nil {
				if d := math.Abs(got - want.LossDB); d > 1e-6 {
					t.Fatalf("np=%d: %v, P2PTLS %v", np, got, want.LossDB)
				} else {
					worst = max(worst, d)
				}
				if got == want.LossDB {
					same++
				}
			}
			count++
		}
	}
	t.Logf("%d prefixes, %d bit-identical, max |Δ| %.3g dB", count, same, worst)
}

// TestRankFromTopBottom checks both ranks against a sort, with ties (a
// coarse grid of values) and every rank, on both sides of rankBuf.
func TestRankFromTopBottom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(sweepSeed(t), 7))
	for it := 0; it < 400; it++ {
		n := 1 + rng.IntN(60)
		a := make([]float64, n)
		for i := range a {
			a[i] = float64(rng.IntN(1 + n/3)) // many ties
			if it%2 == 0 {
				a[i] += rng.Float64()
			}
		}
		sorted := slices.Clone(a)
		slices.Sort(sorted)
		for r := 1; r <= n; r++ {
			if got, want := rankFromBottom(slices.Clone(a), r), sorted[r-1]; got != want {
				t.Fatalf("n=%d r=%d: rankFromBottom %v, want %v (a=%v)", n, r, got, want, a)
			}
			if got, want := rankFromTop(slices.Clone(a), r), sorted[n-r]; got != want {
				t.Fatalf("n=%d r=%d: rankFromTop %v, want %v (a=%v)", n, r, got, want, a)
			}
		}
	}
}
