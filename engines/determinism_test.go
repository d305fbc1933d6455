package engines_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"linkplan/appliance"
	"linkplan/engines"
	"linkplan/engines/radio"
)

// fingerprint renders a prediction with every float as its bit pattern, so
// that two fingerprints are equal only for bit-identical results.
func fingerprint(p appliance.LinkPrediction) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%x|%x|%x|%v|%v|", p.Engine, p.EngineVersion, math.Float64bits(p.PathLossDB),
		math.Float64bits(p.DiffractionDB), math.Float64bits(p.MinClearanceRatio), p.LOSClear, p.FresnelOK)
	keys := make([]string, 0, len(p.Intermediate))
	for k := range p.Intermediate {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%x,", k, math.Float64bits(p.Intermediate[k]))
	}
	fmt.Fprintf(&b, "|%q", p.Warnings)
	return b.String()
}

func rowsFingerprint(rows []engines.CompareRow) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%s>%s %s %x %x %v %v %q %q %v %q;", r.Engine, r.UsedEngine, r.EngineVersion, math.Float64bits(r.PathLossDB),
			math.Float64bits(r.DiffractionDB), r.LOSClear, r.FresnelOK, r.Warnings, r.Error, r.FellBack, r.FallbackReason)
		keys := make([]string, 0, len(r.Intermediate))
		for k := range r.Intermediate {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "%s=%x,", k, math.Float64bits(r.Intermediate[k]))
		}
	}
	return b.String()
}

// seed returns $SEED or a fixed default, and logs it.
func seed(t *testing.T) uint64 {
	s := uint64(20260518)
	if v := os.Getenv("SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("SEED: %v", err)
		}
		s = n
	}
	t.Logf("seed %d (SEED=%d to repeat)", s, s)
	return s
}

func determinismInputs(t *testing.T) []appliance.LinkInput {
	long, short := rjLink(t), shortLink(t)
	coarse := long
	coarse.Profile = resample(long.Profile, 90)
	hi := long
	hi.FreqMHz, hi.TimePct, hi.LocationPct = 10000, 10, 90
	return []appliance.LinkInput{long, short, coarse, hi}
}

// TestDeterminism checks bit-identical results for repeated calls, for
// GOMAXPROCS 1 against 4 with concurrent callers, and for the engines run
// one by one in a shuffled order against Compare's fixed order.
func TestDeterminism(t *testing.T) {
	reg := newRegistry(t)
	ins := determinismInputs(t)
	ref := make([]string, len(ins))
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	for i, in := range ins {
		ref[i] = rowsFingerprint(reg.Compare(t.Context(), in))
		if again := rowsFingerprint(reg.Compare(t.Context(), in)); again != ref[i] {
			t.Fatalf("input %d: two runs differ", i)
		}
	}
	runtime.GOMAXPROCS(4)
	var wg sync.WaitGroup
	got := make([][]string, 8)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, in := range ins {
				got[g] = append(got[g], rowsFingerprint(reg.Compare(t.Context(), in)))
			}
		}()
	}
	wg.Wait()
	for g := range got {
		for i := range ins {
			if got[g][i] != ref[i] {
				t.Errorf("goroutine %d input %d: GOMAXPROCS 4 differs from GOMAXPROCS 1", g, i)
			}
		}
	}
	// Shuffled order of engines and inputs, one call at a time.
	r := rand.New(rand.NewPCG(seed(t), 1))
	type job struct {
		in  int
		eng appliance.EngineID
	}
	var jobs []job
	for i := range ins {
		for _, id := range engines.CompareEngines() {
			jobs = append(jobs, job{i, id})
		}
	}
	r.Shuffle(len(jobs), func(a, b int) { jobs[a], jobs[b] = jobs[b], jobs[a] })
	single := map[job]string{}
	for _, j := range jobs {
		pred, _, _, err := reg.PredictWithFallback(t.Context(), j.eng, ins[j.in])
		if err != nil {
			t.Fatal(err)
		}
		single[j] = fingerprint(pred)
	}
	for i, in := range ins {
		for _, row := range reg.Compare(t.Context(), in) {
			pred, _, _, _ := reg.PredictWithFallback(t.Context(), row.Engine, in)
			if fingerprint(pred) != single[job{i, row.Engine}] {
				t.Errorf("input %d engine %s: shuffled single call differs", i, row.Engine)
			}
			if math.Float64bits(row.PathLossDB) != math.Float64bits(pred.PathLossDB) {
				t.Errorf("input %d engine %s: Compare %.15g dB, single %.15g dB", i, row.Engine, row.PathLossDB, pred.PathLossDB)
			}
		}
	}
}

// TestFSPLMonotonic checks on prefixes of a real profile, at random
// frequencies, that the free-space part of fspl grows with distance and
// frequency and that the total never falls below free space over the
// horizontal distance (the bound fspl declares).
func TestFSPLMonotonic(t *testing.T) {
	reg := newRegistry(t)
	eng, _ := reg.Get(appliance.EngineFSPL)
	full := rjLink(t)
	r := rand.New(rand.NewPCG(seed(t), 2))
	for trial := 0; trial < 50; trial++ {
		f := 30 + r.Float64()*(100000-30)
		prevFS := math.Inf(-1)
		for n := 3; n <= full.Profile.Len(); n += 1 + r.IntN(20) {
			in := full
			in.FreqMHz = f
			in.Profile = &appliance.PathProfile{DistancesM: full.Profile.DistancesM[:n], HeightsM: full.Profile.HeightsM[:n]}
			pred, err := eng.Predict(t.Context(), in)
			if err != nil {
				t.Fatal(err)
			}
			fs := pred.Intermediate["free_space_db"]
			if !(fs > prevFS) {
				t.Fatalf("f %.1f MHz, %d points: free space %.6f dB after %.6f dB", f, n, fs, prevFS)
			}
			prevFS = fs
			if bound := radio.FreeSpaceLossExactDB(f, in.Profile.LengthM()/1000); pred.PathLossDB < bound-1e-9 {
				t.Fatalf("f %.1f MHz, %d points: loss %.6f dB below free space %.6f dB", f, n, pred.PathLossDB, bound)
			}
			g := in
			g.FreqMHz = math.Min(100000, f*(1+r.Float64()))
			if g.FreqMHz > f {
				hp, _ := eng.Predict(t.Context(), g)
				if !(hp.Intermediate["free_space_db"] > fs) {
					t.Fatalf("free space not increasing with frequency: %.6f → %.6f dB", fs, hp.Intermediate["free_space_db"])
				}
			}
		}
	}
}

// TestITMReciprocity checks through the adapter that swapping the
// terminals (reversed profile, swapped heights and positions) gives the
// same ITM loss (1e-9 dB, as engines/itm states), on the real Rio profiles
// at random frequencies, heights and percentages. Paths on one of the
// index-rounding boundaries where NTIA's QuickPfl itself is not reciprocal
// (engines/itm doc, Caveats) are counted and left out.
func TestITMReciprocity(t *testing.T) {
	reg := newRegistry(t)
	eng, _ := reg.Get(appliance.EngineITM)
	r := rand.New(rand.NewPCG(seed(t), 3))
	tested, boundary := 0, 0
	defer func() {
		t.Logf("%d paths compared, %d on a rounding boundary left out", tested, boundary)
		if tested < 35 {
			t.Errorf("only %d of 70 paths could be compared", tested)
		}
	}()
	for _, name := range []string{"barra", "campogrande", "caxias", "itaguai", "niteroi", "novaiguacu", "petropolis"} {
		base := pflProfile(readPFL(t, "pfls/rj_sumare_to_"+name+".pfl.csv"))
		for trial := 0; trial < 10; trial++ {
			in := appliance.LinkInput{Tx: appliance.LatLon{Lat: -22.9519, Lon: -43.2367}, Rx: appliance.LatLon{Lat: -22.7, Lon: -43.5},
				TxHeightM: 1 + r.Float64()*100, RxHeightM: 1 + r.Float64()*100, FreqMHz: 20 + r.Float64()*19980,
				TimePct: 1 + r.Float64()*98, LocationPct: 1 + r.Float64()*98, Profile: base}
			if trial%2 == 1 {
				in.Profile = resample(base, 90) // unequal last step: the adapter resamples
			}
			rev := appliance.LinkInput{Tx: in.Rx, Rx: in.Tx, TxHeightM: in.RxHeightM, RxHeightM: in.TxHeightM, FreqMHz: in.FreqMHz,
				TimePct: in.TimePct, LocationPct: in.LocationPct, Profile: reverse(in.Profile)}
			a, err := eng.Predict(t.Context(), in)
			if err != nil {
				t.Fatal(err)
			}
			b, err := eng.Predict(t.Context(), rev)
			if err != nil {
				t.Fatal(err)
			}
			pfl, _ := engines.PFL(in.Profile)
			if onRoundingBoundary(pfl, in.TxHeightM, in.RxHeightM, 1000*a.Intermediate["eff_earth_radius_km"]) {
				boundary++
				continue
			}
			tested++
			if !near(a.PathLossDB, b.PathLossDB, 1e-9) {
				t.Errorf("%s trial %d (%.1f MHz, %.1f/%.1f m): forward %.9f dB, reverse %.9f dB", name, trial, in.FreqMHz,
					in.TxHeightM, in.RxHeightM, a.PathLossDB, b.PathLossDB)
			}
		}
	}
}

// reverse returns p seen from the other end. For an unequally spaced
// profile the spacing is mirrored, as a terrain pack would not do; the ITM
// adapter resamples both to the same equal spacing only when the profile
// is equally spaced, so reverse re-samples first.
func reverse(p *appliance.PathProfile) *appliance.PathProfile {
	pfl, _ := engines.PFL(p)
	np := int(pfl[0])
	out := &appliance.PathProfile{DistancesM: make([]float64, np+1), HeightsM: make([]float64, np+1)}
	for i := 0; i <= np; i++ {
		out.DistancesM[i] = float64(i) * pfl[1]
		out.HeightsM[i] = pfl[2+np-i]
	}
	return out
}

// onRoundingBoundary reports whether a PFL path has one of the quantities
// that QuickPfl truncates to a profile index on a whole number (to 1e-6),
// where the two directions may use one point more or fewer. It is the
// predicate of engines/itm/property_test.go, restated here for the
// adapter's input; ae is the effective earth radius, metres.
func onRoundingBoundary(pfl []float64, hTx, hRx, ae float64) bool {
	np := int(pfl[0])
	xi := pfl[1]
	z := pfl[2:]
	d := float64(np) * xi
	zTx, zRx := z[0]+hTx, z[np]+hRx
	bestTx, bestRx := (zRx-zTx)/d-d/(2*ae), (zTx-zRx)/d-d/(2*ae)
	kTx, kRx := np, np
	for i := 1; i < np; i++ {
		dt, dr := float64(i)*xi, float64(np-i)*xi
		if a := (z[i]-zTx)/dt - dt/(2*ae); a > bestTx {
			bestTx, kTx = a, i
		}
		if a := (z[i]-zRx)/dr - dr/(2*ae); a >= bestRx {
			bestRx, kRx = a, np-i
		}
	}
	whole := func(x float64) bool { return math.Abs(x-math.Round(x)) < 1e-6 }
	start := math.Min(15*hTx, 0.1*float64(kTx)*xi) / xi
	end := float64(np) - math.Min(15*hRx, 0.1*float64(kRx)*xi)/xi
	return whole(0.9*float64(kTx)) || whole(0.9*float64(kRx)) || whole(start) || whole(end) ||
		whole(0.1*(end-start+8))
}
