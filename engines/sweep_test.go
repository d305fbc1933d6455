package engines_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
	"linkplan/engines"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

// sweepSeed returns SWEEP_SEED when set, else a fresh seed, and logs it.
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

// predictPrefixes is the coverage service's per-prefix path: Predict on
// every used prefix (a fresh copy), NaN for an envelope refusal.
func predictPrefixes(t testing.TB, eng appliance.Engine, in appliance.LinkInput, use []bool) ([]float64, error) {
	p := in.Profile
	n := p.Len()
	gc := in.Tx.GreatCircleTo(in.Rx)
	out := make([]float64, n)
	for i := 1; i < n; i++ {
		if !use[i] {
			continue
		}
		pre := &appliance.PathProfile{DistancesM: append([]float64(nil), p.DistancesM[:i+1]...),
			HeightsM: append([]float64(nil), p.HeightsM[:i+1]...)}
		if p.Sea != nil {
			pre.Sea = append([]bool(nil), p.Sea[:i+1]...)
		}
		q := in
		q.Profile, q.Rx = pre, coverage.SampleRx(&gc, in.Rx, i, n)
		pred, err := eng.Predict(context.Background(), q)
		switch {
		case errors.Is(err, appliance.ErrOutsideEnvelope):
			out[i] = math.NaN()
		case err != nil:
			return nil, err
		default:
			out[i] = pred.PathLossDB
		}
	}
	return out, nil
}

// compareSweep runs SweepLoss and the per-prefix Predict on every prefix
// and returns the largest |Δ| dB (NaN must match NaN).
func compareSweep(t *testing.T, eng appliance.Engine, in appliance.LinkInput) (maxDelta float64, exact, total int) {
	t.Helper()
	n := in.Profile.Len()
	use := make([]bool, n)
	for i := 1; i < n; i++ {
		use[i] = true
	}
	want, werr := predictPrefixes(t, eng, in, use)
	got := make([]float64, n)
	gerr := eng.(coverage.PrefixSweeper).SweepLoss(context.Background(), in, use, got)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("Predict error %v, SweepLoss error %v", werr, gerr)
	}
	if werr != nil {
		return 0, 0, 0
	}
	for i := 1; i < n; i++ {
		w, g := want[i], got[i]
		total++
		if math.IsNaN(w) || math.IsNaN(g) {
			if math.IsNaN(w) != math.IsNaN(g) {
				t.Fatalf("prefix %d of %d: Predict %v, SweepLoss %v", i, n, w, g)
			}
			exact++
			continue
		}
		if w == g {
			exact++
		}
		maxDelta = max(maxDelta, math.Abs(w-g))
	}
	return maxDelta, exact, total
}

func rioPack(t testing.TB) *terrain.Pack {
	t.Helper()
	p, err := terrain.OpenBytes(sample.Pack())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestITMSweepLossRio compares SweepLoss with Predict on every prefix of
// random radials over the real Rio terrain (random transmitters, bearings,
// lengths, heights and frequencies).
func TestITMSweepLossRio(t *testing.T) {
	rng := rand.New(rand.NewPCG(sweepSeed(t), 9))
	ter := rioPack(t)
	reg := newRegistry(t)
	eng, err := reg.Get(appliance.EngineITM)
	if err != nil {
		t.Fatal(err)
	}
	radials := 60
	if testing.Short() {
		radials = 15
	}
	// Radials that leave the sample's tiles are skipped, so draw until
	// `radials` of them were compared and at least 1000 prefixes (the
	// count a seed gives otherwise varies), within a bounded number of
	// draws.
	worst, exact, total, done := 0.0, 0, 0, 0
	for k := 0; (done < radials || total < 1000) && k < 50*radials; k++ {
		tx := appliance.LatLon{Lat: -23 + 0.15*rng.Float64(), Lon: -43.6 + 0.5*rng.Float64()}
		if k == 0 {
			tx = appliance.LatLon{Lat: -22.9516, Lon: -43.2372} // Sumaré
		}
		if _, err := ter.ElevationM(tx); err != nil {
			continue
		}
		end := tx.Destination(360*rng.Float64(), 2000+38000*rng.Float64())
		step := []float64{90, 30, 60, 77.7}[rng.IntN(4)]
		prof, err := ter.Profile(tx, end, step)
		if err != nil {
			continue // crosses a missing tile
		}
		in := appliance.LinkInput{Tx: tx, Rx: end, TxHeightM: 1 + 80*rng.Float64(), RxHeightM: 1 + 20*rng.Float64(),
			FreqMHz: []float64{900, 150, 2400, 5800, 450}[rng.IntN(5)], Profile: prof}
		if rng.IntN(4) == 0 {
			in.TimePct, in.LocationPct = 10+80*rng.Float64(), 10+80*rng.Float64()
		}
		d, ex, tot := compareSweep(t, eng, in)
		worst = max(worst, d)
		exact += ex
		total += tot
		done++
	}
	t.Logf("max |Δ| = %.3g dB over %d prefixes of %d radials (%d bit-identical)", worst, total, done, exact)
	if worst > 1e-6 {
		t.Fatalf("max |Δ| %.3g dB", worst)
	}
	if total < 1000 {
		t.Fatalf("only %d prefixes compared", total)
	}
}

// TestITMSweepLossEdges covers what makes Predict differ from the plain
// path: sea samples (climate), a non-uniform spacing (resampling), a bad
// sample (an error), out-of-range inputs (all NaN) and short profiles.
func TestITMSweepLossEdges(t *testing.T) {
	reg := newRegistry(t)
	eng, err := reg.Get(appliance.EngineITM)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(sweepSeed(t), 1))
	tx := appliance.LatLon{Lat: -22.95, Lon: -43.2}
	mk := func(n int, step float64) *appliance.PathProfile {
		p := &appliance.PathProfile{DistancesM: make([]float64, n), HeightsM: make([]float64, n)}
		for i := range n {
			p.DistancesM[i] = float64(i) * step
			p.HeightsM[i] = 50 + 300*math.Sin(float64(i)/7) + 20*rng.Float64()
		}
		return p
	}
	base := appliance.LinkInput{Tx: tx, TxHeightM: 30, RxHeightM: 10, FreqMHz: 900}
	cases := map[string]func() appliance.LinkInput{
		"plain":      func() appliance.LinkInput { in := base; in.Profile = mk(200, 90); return in },
		"two points": func() appliance.LinkInput { in := base; in.Profile = mk(2, 500); return in },
		"sea": func() appliance.LinkInput {
			in := base
			in.Profile = mk(150, 90)
			in.Profile.Sea = make([]bool, 150)
			for i := 60; i < 80; i++ {
				in.Profile.Sea[i] = true
			}
			return in
		},
		"short last step": func() appliance.LinkInput {
			in := base
			in.Profile = mk(120, 90)
			in.Profile.DistancesM[119] -= 40
			return in
		},
		"jitter": func() appliance.LinkInput {
			in := base
			in.Profile = mk(120, 90)
			for i := 1; i < 120; i++ {
				in.Profile.DistancesM[i] += 1e-7 * rng.Float64()
			}
			return in
		},
		"bad height": func() appliance.LinkInput {
			in := base
			in.Profile = mk(100, 90)
			in.Profile.HeightsM[70] = math.NaN()
			return in
		},
		"frequency out of range": func() appliance.LinkInput { in := base; in.FreqMHz = 30000; in.Profile = mk(50, 90); return in },
		"low antenna":            func() appliance.LinkInput { in := base; in.RxHeightM = 0.2; in.Profile = mk(50, 90); return in },
		"north": func() appliance.LinkInput {
			in := base
			in.Tx = appliance.LatLon{Lat: -15.05, Lon: -47.9}
			in.Profile = mk(200, 90)
			return in
		},
		"inland": func() appliance.LinkInput {
			in := base
			in.Tx = appliance.LatLon{Lat: -20, Lon: -48}
			in.Profile = mk(200, 90)
			return in
		},
		"coast edge": func() appliance.LinkInput {
			in := base
			in.Tx = appliance.LatLon{Lat: -21.9, Lon: -43.5}
			in.Profile = mk(400, 90)
			return in
		},
		"steep": func() appliance.LinkInput { in := base; in.Profile = mk(100, 3); return in },
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			in := f()
			if in.Rx == (appliance.LatLon{}) {
				in.Rx = in.Tx.Destination(77, in.Profile.LengthM())
			}
			d, ex, tot := compareSweep(t, eng, in)
			t.Logf("max |Δ| = %.3g dB over %d prefixes (%d bit-identical)", d, tot, ex)
			if d > 1e-6 {
				t.Fatalf("max |Δ| %.3g dB", d)
			}
		})
	}
}

// TestITMSweepLossWithParams checks the fixed-climate and N_0 branches.
func TestITMSweepLossWithParams(t *testing.T) {
	n0 := 330.0
	reg, err := engines.New(engines.Config{ITM: engines.ITMParams{Climate: 5, N0: &n0}})
	if err != nil {
		t.Fatal(err)
	}
	eng, _ := reg.Get(appliance.EngineITM)
	ter := rioPack(t)
	tx := appliance.LatLon{Lat: -22.9516, Lon: -43.2372}
	end := tx.Destination(300, 25000)
	prof, err := ter.Profile(tx, end, 90)
	if err != nil {
		t.Fatal(err)
	}
	in := appliance.LinkInput{Tx: tx, Rx: end, TxHeightM: 50, RxHeightM: 10, FreqMHz: 900, Profile: prof}
	d, ex, tot := compareSweep(t, eng, in)
	t.Logf("max |Δ| = %.3g dB over %d prefixes (%d bit-identical)", d, tot, ex)
	if d > 1e-6 {
		t.Fatalf("max |Δ| %.3g dB", d)
	}
}

// BenchmarkITMSweepLoss is SweepLoss on every prefix of 64 radials of
// 30 km from Sumaré (90 m steps); ns/op is per radial, prefix-ns per prefix.
func BenchmarkITMSweepLoss(b *testing.B) {
	ter := rioPack(b)
	reg := newRegistry(b)
	eng, _ := reg.Get(appliance.EngineITM)
	sw := eng.(coverage.PrefixSweeper)
	tx := appliance.LatLon{Lat: -22.9516, Lon: -43.2372}
	var ins []appliance.LinkInput
	for k := 0; k < 64; k++ {
		end := tx.Destination(float64(k)*360/64, 30000)
		prof, err := ter.Profile(tx, end, 90)
		if err != nil {
			continue
		}
		ins = append(ins, appliance.LinkInput{Tx: tx, Rx: end, TxHeightM: 50, RxHeightM: 10, FreqMHz: 900, Profile: prof})
	}
	use := make([]bool, 1000)
	for i := 1; i < len(use); i++ {
		use[i] = true
	}
	loss := make([]float64, 1000)
	prefixes := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in := ins[i%len(ins)]
		n := in.Profile.Len()
		if err := sw.SweepLoss(context.Background(), in, use[:n], loss[:n]); err != nil {
			b.Fatal(err)
		}
		prefixes += n - 1
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(prefixes), "prefix-ns")
}

// plainEngine hides PixelLoss: the coverage service then calls Predict on
// every pixel's own profile.
type plainEngine struct{ appliance.Engine }

// TestITMSweepCoverageRaster computes coverage maps with the itm engine
// through PixelLoss and through Predict on every pixel's own profile: the
// same pixels have data and ≥ 99 % of them are within 1 dB, ≥ 99.9 %
// within 3 dB (issue 22's bounds), and the summaries are equal (a site
// whose circle crosses the missing S23W043 and the sea, and Sumaré with a
// low receiver).
func TestITMSweepCoverageRaster(t *testing.T) {
	ter := rioPack(t)
	reg := newRegistry(t)
	eng, err := reg.Get(appliance.EngineITM)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := eng.(coverage.PixelSweeper); !ok {
		t.Fatal("itm engine is not a PixelSweeper")
	}
	swept := coverage.New(ter, reg.Get)
	plain := coverage.New(ter, func(appliance.EngineID) (appliance.Engine, error) { return plainEngine{eng}, nil })
	for _, req := range []coverage.Request{
		{Tx: appliance.LatLon{Lat: -22.90, Lon: -43.05}, TxHeightM: 30, EIRPDBm: 58, AzimuthDeg: math.NaN(),
			FreqMHz: 900, RadiusM: 8000, RxHeightM: 10, ResolutionM: 90, Engine: appliance.EngineITM},
		{Tx: appliance.LatLon{Lat: -22.9516, Lon: -43.2372}, TxHeightM: 50, EIRPDBm: 58, AzimuthDeg: 45, BeamwidthDeg: 65,
			FreqMHz: 2400, RadiusM: 6000, RxHeightM: 2, ResolutionM: 60, Engine: appliance.EngineITM},
	} {
		a, err := plain.Compute(context.Background(), req, coverage.Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		b, err := swept.Compute(context.Background(), req, coverage.Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		w1, w3, n := 0, 0, 0
		for i := range a.Raster.DBm {
			x, y := a.Raster.DBm[i], b.Raster.DBm[i]
			if (x != x) != (y != y) {
				t.Fatalf("pixel %d: Predict path %v, pixel path %v", i, x, y)
			}
			if x != x {
				continue
			}
			n++
			if d := math.Abs(float64(x - y)); d <= 1 {
				w1++
				w3++
			} else if d <= 3 {
				w3++
			}
		}
		t.Logf("%d pixels, %d within 1 dB, %d within 3 dB", n, w1, w3)
		if float64(w1) < 0.99*float64(n) || float64(w3) < 0.999*float64(n) {
			t.Fatalf("pixel path: %d of %d pixels within 1 dB, %d within 3 dB of Predict on their own profiles", w1, n, w3)
		}
		sa, sb := a.Summary, b.Summary
		sa.ElapsedMS, sb.ElapsedMS = 0, 0
		// levels within the bounds above, not bit for bit
		sa.CoveredKm2AboveThreshold, sb.CoveredKm2AboveThreshold = 0, 0
		sa.MinDBm, sb.MinDBm, sa.MaxDBm, sb.MaxDBm = 0, 0, 0, 0
		if !reflect.DeepEqual(sa, sb) {
			t.Fatalf("summaries differ:\n%+v\n%+v", sa, sb)
		}
		t.Logf("%d evaluations, %d valid pixels, %d no-data (terrain), %d no-data (envelope): identical", sb.Evaluations, sb.ValidPixels, sb.NoDataMissingTerrain, sb.NoDataOutsideEnvelope)
	}
}

// TestITMSweepLossAllocs: the allocations of SweepLoss do not grow with
// the number of prefixes computed (none per prefix).
func TestITMSweepLossAllocs(t *testing.T) {
	ter := rioPack(t)
	reg := newRegistry(t)
	eng, _ := reg.Get(appliance.EngineITM)
	sw := eng.(coverage.PrefixSweeper)
	tx := appliance.LatLon{Lat: -22.9516, Lon: -43.2372}
	end := tx.Destination(300, 25000)
	prof, err := ter.Profile(tx, end, 90)
	if err != nil {
		t.Fatal(err)
	}
	in := appliance.LinkInput{Tx: tx, Rx: end, TxHeightM: 50, RxHeightM: 10, FreqMHz: 900, Profile: prof}
	n := prof.Len()
	loss := make([]float64, n)
	one, all := make([]bool, n), make([]bool, n)
	one[n-1] = true
	for i := 1; i < n; i++ {
		all[i] = true
	}
	a1 := testing.AllocsPerRun(20, func() { _ = sw.SweepLoss(context.Background(), in, one, loss) })
	aN := testing.AllocsPerRun(20, func() { _ = sw.SweepLoss(context.Background(), in, all, loss) })
	t.Logf("allocations per call: %v for 1 prefix, %v for %d prefixes", a1, aN, n-1)
	if aN > a1 {
		t.Fatalf("%v allocations for %d prefixes, %v for one", aN, n-1, a1)
	}
}
