package coverage

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"linkplan/appliance"
)

// agreement is how a map's pixels agree with the point-to-point answer at
// their own centres (issue 22): Predict on Terrain.Profile(transmitter,
// pixel centre, the map's step), the profile /analyze_link builds for a
// receiver there, with the pattern at the pixel's own bearing.
type agreement struct {
	Mode, Map string
	// Pixels compared: both answers have a value, or both none.
	Pixels int
	// Within1, Within3: pixels within 1 dB and 3 dB.
	Within1, Within3 int
	// MaxAbsDB is the largest |map − point-to-point|, dB (+Inf when a
	// pixel has a value on one side only).
	MaxAbsDB float64
	// Mismatched pixels have a value on one side only.
	Mismatched int
	worst      []string
}

func (a *agreement) add(row, col int, got float32, want float64, hasWant bool) {
	a.Pixels++
	switch {
	case !hasWant && got != got:
		a.Within1++
		a.Within3++
		return
	case !hasWant || got != got:
		a.Mismatched++
		a.MaxAbsDB = math.Inf(1)
		if len(a.worst) < 5 {
			a.worst = append(a.worst, fmt.Sprintf("pixel (%d,%d): map %v dBm, point-to-point %v (has %v)", row, col, got, want, hasWant))
		}
		return
	}
	d := math.Abs(float64(got) - want)
	if d <= 1 {
		a.Within1++
	}
	if d <= 3 {
		a.Within3++
	}
	if d > 3 && len(a.worst) < 5 {
		a.worst = append(a.worst, fmt.Sprintf("pixel (%d,%d): map %.3f dBm, point-to-point %.3f dBm", row, col, got, want))
	}
	a.MaxAbsDB = math.Max(a.MaxAbsDB, d)
}

func (a *agreement) pct1() float64 { return 100 * float64(a.Within1) / float64(max(a.Pixels, 1)) }
func (a *agreement) pct3() float64 { return 100 * float64(a.Within3) / float64(max(a.Pixels, 1)) }

// String is the issue's line: mode= pixels= within_1db_pct=
// within_3db_pct= max_abs_db=.
func (a *agreement) String() string {
	return fmt.Sprintf("mode=%s map=%s pixels=%d within_1db_pct=%.3f within_3db_pct=%.3f max_abs_db=%.3f mismatched_nodata=%d",
		a.Mode, a.Map, a.Pixels, a.pct1(), a.pct3(), a.MaxAbsDB, a.Mismatched)
}

// pointToPoint is the level, dBm, of the receiver at pixel centre c of the
// map of req, computed as /analyze_link does; false when there is none
// (no terrain on its profile, or the engine refuses it).
func pointToPoint(t testing.TB, ter appliance.Terrain, eng appliance.Engine, req Request, c appliance.LatLon, stepM float64) (float64, bool) {
	t.Helper()
	prof, err := ter.Profile(req.Tx, c, stepM)
	var tme *appliance.TileMissingError
	switch {
	case errors.As(err, &tme):
		return 0, false
	case err != nil:
		t.Fatal(err)
	}
	pred, err := eng.Predict(context.Background(), appliance.LinkInput{Tx: req.Tx, Rx: c, TxHeightM: req.TxHeightM,
		RxHeightM: req.RxHeightM, FreqMHz: req.FreqMHz, Profile: prof, TimePct: req.TimePct, LocationPct: req.LocationPct})
	switch {
	case errors.Is(err, appliance.ErrOutsideEnvelope):
		return 0, false
	case err != nil:
		t.Fatal(err)
	}
	return req.EIRPDBm - req.PatternLossDB(req.Tx.BearingDeg(c)) - pred.PathLossDB, true
}

// pixelsToCheck lists the raster pixels within the radius of every
// request: all of them when sample is 0, else sample of them drawn with
// rng (with replacement).
func pixelsToCheck(r *Raster, reqs []Request, sample int, rng *rand.Rand) []int {
	in := func(px int) bool {
		c := r.PixelCenter(px/r.Width, px%r.Width)
		for _, q := range reqs {
			if q.Tx.DistanceM(c) <= q.RadiusM {
				return true
			}
		}
		return false
	}
	var out []int
	if sample == 0 {
		for px := range r.DBm {
			if in(px) {
				out = append(out, px)
			}
		}
		return out
	}
	for len(out) < sample {
		if px := rng.IntN(len(r.DBm)); in(px) {
			out = append(out, px)
		}
	}
	return out
}

// measureAgreement compares pixels of raster r (the map of reqs: one
// request, or a best-server map's) with the strongest point-to-point
// level among reqs at each pixel centre.
func measureAgreement(t testing.TB, ter appliance.Terrain, get func(appliance.EngineID) (appliance.Engine, error), reqs []Request,
	r *Raster, stepM []float64, pixels []int, mode, name string) *agreement {
	t.Helper()
	a := &agreement{Mode: mode, Map: name}
	engs := make([]appliance.Engine, len(reqs))
	for i, q := range reqs {
		e, err := get(q.Engine)
		if err != nil {
			t.Fatal(err)
		}
		engs[i] = e
	}
	for _, px := range pixels {
		row, col := px/r.Width, px%r.Width
		c := r.PixelCenter(row, col)
		best, has := math.Inf(-1), false
		for i, q := range reqs {
			if q.Tx.DistanceM(c) > q.RadiusM {
				continue
			}
			if v, ok := pointToPoint(t, ter, engs[i], q, c, stepM[i]); ok && v > best {
				best, has = v, true
			}
		}
		a.add(row, col, r.DBm[px], best, has)
	}
	return a
}

// checkAgreement fails t when a misses the issue's bounds for its mode:
// default ≥ 99 % of pixels within 1 dB and ≥ 99.9 % within 3 dB, exact
// every pixel within 0.01 dB.
func checkAgreement(t testing.TB, a *agreement) {
	t.Helper()
	t.Log(a)
	for _, w := range a.worst {
		t.Log("  ", w)
	}
	switch a.Mode {
	case "exact":
		if a.MaxAbsDB > 0.01 || a.Mismatched > 0 {
			t.Errorf("%s: exact mode off by up to %.4f dB (%d no-data mismatches)", a.Map, a.MaxAbsDB, a.Mismatched)
		}
	default:
		if a.pct1() < 99 || a.pct3() < 99.9 {
			t.Errorf("%s: %.3f %% within 1 dB (want ≥ 99), %.3f %% within 3 dB (want ≥ 99.9)", a.Map, a.pct1(), a.pct3())
		}
	}
}

// TestIssue22_PixelTruth compares every pixel of 5 km maps and random
// pixels (printed seed) of the 30 km Sumaré map, for fspl, itm and
// p1812, with the point-to-point answer on the pixel's own profile, in
// the default and the exact mode; and a best-server map of two
// transmitters the same way. Terrain: the Rio sample committed in
// terrain-packs/sample (its missing tiles make no-data pixels, which
// must be no-data on both sides).
func TestIssue22_PixelTruth(t *testing.T) {
	svc, ter, reg := newService(t)
	rng := rand.New(rand.NewPCG(seed(t), 22))
	sample := 1500
	if testing.Short() {
		sample = 300
	}
	for _, id := range []appliance.EngineID{appliance.EngineFSPL, appliance.EngineITM, appliance.EngineP1812} {
		for _, m := range []struct {
			name    string
			radiusM float64
			sample  int
			exact   bool
		}{
			{"rio5", 5000, 0, false},
			{"rio5", 5000, 0, true},
			{"rio30", 30000, sample, false},
		} {
			t.Run(fmt.Sprintf("%s/%s/exact=%v", id, m.name, m.exact), func(t *testing.T) {
				req := sumare(m.radiusM)
				req.Engine, req.Exact = id, m.exact
				if m.radiusM == 5000 {
					req.AzimuthDeg, req.BeamwidthDeg = 200, 65 // the pattern at the pixel's own bearing
				}
				res, err := svc.Compute(context.Background(), req, Options{Workers: 2})
				if err != nil {
					t.Fatal(err)
				}
				mode := "default"
				if m.exact {
					mode = "exact"
				}
				px := pixelsToCheck(res.Raster, []Request{req}, m.sample, rng)
				checkAgreement(t, measureAgreement(t, ter, reg.Get, []Request{req}, res.Raster, []float64{res.Summary.ProfileStepM}, px,
					mode, fmt.Sprintf("%s-%s", m.name, id)))
			})
		}
	}
	for _, exact := range []bool{false, true} {
		t.Run(fmt.Sprintf("best/exact=%v", exact), func(t *testing.T) {
			a, b := sumare(5000), tijuca()
			a.Engine, b.Engine = appliance.EngineITM, appliance.EngineITM
			a.Exact, b.Exact = exact, exact
			reqs := []Request{a, b}
			res, err := svc.ComputeBest(context.Background(), reqs, Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			mode := "default"
			if exact {
				mode = "exact"
			}
			checkAgreement(t, measureAgreement(t, ter, reg.Get, reqs, res.Raster, []float64{res.PerServer[0].ProfileStepM, res.PerServer[1].ProfileStepM},
				pixelsToCheck(res.Raster, reqs, 0, nil), mode, "best-sumare5-tijuca5-itm"))
		})
	}
}

// TestIssue22_DeterministicPixels: the default mode's raster is
// bit-identical with 1 and 3 workers for fspl, itm and p1812 (the pixels'
// own samples and the engine's running state, fspl's previous knife edge
// included, are per radial).
func TestIssue22_DeterministicPixels(t *testing.T) {
	svc, _, _ := newService(t)
	for _, id := range []appliance.EngineID{appliance.EngineFSPL, appliance.EngineITM, appliance.EngineP1812} {
		req := sumare(8000)
		req.Engine = id
		a, err := svc.Compute(context.Background(), req, Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		b, err := svc.Compute(context.Background(), req, Options{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(a.Raster.DBm, b.Raster.DBm, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) }) {
			t.Errorf("%s: rasters differ between 1 and 3 workers", id)
		}
	}
}

// BenchmarkIssue22_PixelTruth computes the Sumaré maps of the Rio sample
// (terrain-packs/sample, committed; no ../shared) in the default mode and
// prints, per map, the issue's line (mode= pixels= within_1db_pct=
// within_3db_pct= max_abs_db=) against the point-to-point answer on every
// pixel's own profile for PIXEL_SAMPLE random pixels (default 4000, seed
// printed; 0: every pixel), with the map's CPU seconds. Maps: rio30 and
// rio50 at 3″ (90 m) and rio10 at 1″ (30 m), for fspl, itm and p1812, and
// a best-server map of two transmitters. `make bench-pixels` runs it.
func BenchmarkIssue22_PixelTruth(b *testing.B) {
	svc, ter, reg := newService(b)
	rng := rand.New(rand.NewPCG(seed(b), 22))
	sample := 4000
	if v := os.Getenv("PIXEL_SAMPLE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		sample = n
	}
	type mapDef struct {
		name          string
		radiusM, resM float64
	}
	maps := []mapDef{{"rio30", 30000, 90}, {"rio50", 50000, 90}, {"rio10-1s", 10000, 30}}
	for _, id := range []appliance.EngineID{appliance.EngineFSPL, appliance.EngineITM, appliance.EngineP1812} {
		for _, m := range maps {
			b.Run(fmt.Sprintf("%s/%s", m.name, id), func(b *testing.B) {
				req := sumare(m.radiusM)
				req.Engine, req.ResolutionM = id, m.resM
				var res *Result
				cpu0 := processCPU()
				for b.Loop() {
					var err error
					if res, err = svc.Compute(context.Background(), req, Options{}); err != nil {
						b.Fatal(err)
					}
				}
				cpu := (processCPU() - cpu0).Seconds() / float64(b.N)
				b.ReportMetric(cpu, "cpu-s/op")
				a := measureAgreement(b, ter, reg.Get, []Request{req}, res.Raster, []float64{res.Summary.ProfileStepM},
					pixelsToCheck(res.Raster, []Request{req}, sample, rng), "default", m.name+"-"+string(id))
				fmt.Printf("%s cpu_s=%.2f\n", a, cpu)
			})
		}
	}
	b.Run("best/itm", func(b *testing.B) {
		x, y := sumare(15000), tijuca()
		y.RadiusM, y.Engine = 15000, appliance.EngineITM
		reqs := []Request{x, y}
		var res *BestResult
		for b.Loop() {
			var err error
			if res, err = svc.ComputeBest(context.Background(), reqs, Options{}); err != nil {
				b.Fatal(err)
			}
		}
		a := measureAgreement(b, ter, reg.Get, reqs, res.Raster, []float64{res.PerServer[0].ProfileStepM, res.PerServer[1].ProfileStepM},
			pixelsToCheck(res.Raster, reqs, sample, rng), "default", "best-sumare15-tijuca15-itm")
		fmt.Println(a)
	})
}

// BenchmarkIssue22_ExactRatio times the default and the exact mode of the
// same map (Sumaré: rio10, rio30 and rio50 at 3″, rio10-1s at 1″) and
// prints, per map and engine, their CPU-time ratio (the issue asks the
// default mode ≥ 10× faster than the exact one) with the default map's
// agreement with the point-to-point answer on PIXEL_SAMPLE random pixels'
// own profiles (default 2000, seed printed; 0: every pixel):
// mode=default map= engine= default_cpu_s= exact_cpu_s= ratio=
// within_1db_pct= within_3db_pct= max_abs_db=. Select maps and engines
// with -bench, e.g. -bench 'ExactRatio/rio50/p1812'.
func BenchmarkIssue22_ExactRatio(b *testing.B) {
	svc, ter, reg := newService(b)
	rng := rand.New(rand.NewPCG(seed(b), 22))
	sample := 2000
	if v := os.Getenv("PIXEL_SAMPLE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		sample = n
	}
	for _, m := range ratioMaps {
		for _, id := range []appliance.EngineID{appliance.EngineFSPL, appliance.EngineITM, appliance.EngineP1812} {
			b.Run(fmt.Sprintf("%s/%s", m.name, id), func(b *testing.B) {
				var cpu [2]float64
				var def *Result
				for b.Loop() {
					for i, exact := range []bool{false, true} {
						req := sumare(m.radiusM)
						req.Engine, req.Exact, req.ResolutionM = id, exact, m.resM
						c0 := processCPU()
						res, err := svc.Compute(context.Background(), req, Options{})
						if err != nil {
							b.Fatal(err)
						}
						cpu[i] += (processCPU() - c0).Seconds()
						if !exact {
							def = res
						}
					}
				}
				req := sumare(m.radiusM)
				req.Engine, req.ResolutionM = id, m.resM
				a := measureAgreement(b, ter, reg.Get, []Request{req}, def.Raster, []float64{def.Summary.ProfileStepM},
					pixelsToCheck(def.Raster, []Request{req}, sample, rng), "default", m.name+"-"+string(id))
				fmt.Printf("mode=default map=%s engine=%s default_cpu_s=%.3f exact_cpu_s=%.3f ratio=%.1f pixels=%d within_1db_pct=%.3f within_3db_pct=%.3f max_abs_db=%.3f\n",
					m.name, id, cpu[0]/float64(b.N), cpu[1]/float64(b.N), cpu[1]/cpu[0], a.Pixels, a.pct1(), a.pct3(), a.MaxAbsDB)
			})
		}
	}
}

// ratioMaps are the Sumaré maps of BenchmarkIssue22_ExactRatio and
// BenchmarkIssue22_Default.
var ratioMaps = []struct {
	name          string
	radiusM, resM float64
}{{"rio10", 10000, 90}, {"rio30", 30000, 90}, {"rio50", 50000, 90}, {"rio10-1s", 10000, 30}}

// BenchmarkIssue22_Default times the default mode alone on
// BenchmarkIssue22_ExactRatio's maps (for CPU profiles and A/B speed
// checks: -bench 'Default/rio10/itm' -cpuprofile).
func BenchmarkIssue22_Default(b *testing.B) {
	svc, _, _ := newService(b)
	for _, m := range ratioMaps {
		for _, id := range []appliance.EngineID{appliance.EngineFSPL, appliance.EngineITM, appliance.EngineP1812} {
			b.Run(fmt.Sprintf("%s/%s", m.name, id), func(b *testing.B) {
				req := sumare(m.radiusM)
				req.Engine, req.ResolutionM = id, m.resM
				c0 := processCPU()
				for b.Loop() {
					if _, err := svc.Compute(context.Background(), req, Options{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((processCPU()-c0).Seconds()/float64(b.N), "cpu-s/op")
			})
		}
	}
}

// TestIssue22_RadialsPerEngine: a map smaller than MinRadialsRadiusM gets
// the radials of a 20 km map for itm (its pixels take Δh and the
// effective heights from the radial) and those of its own radius for
// fspl and p1812 (AnyRadialSpacing: 5 km at 3″, 376 against 1480); at
// or above 20 km every engine gets the same.
func TestIssue22_RadialsPerEngine(t *testing.T) {
	svc, _, reg := newService(t)
	radials := func(id appliance.EngineID, radiusM float64) int {
		eng, err := reg.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		req := sumare(radiusM)
		req.Engine = id
		return len(svc.newPlan(req, Options{Workers: 1}, eng, gridFor(req)).radials)
	}
	for _, tc := range []struct {
		radiusM          float64
		itm, fspl, p1812 int
	}{
		{5000, 1480, 376, 376},
		{20000, 1480, 1480, 1480},
		{30000, 2216, 2216, 2216},
	} {
		got := [3]int{radials(appliance.EngineITM, tc.radiusM), radials(appliance.EngineFSPL, tc.radiusM), radials(appliance.EngineP1812, tc.radiusM)}
		if want := [3]int{tc.itm, tc.fspl, tc.p1812}; got != want {
			t.Errorf("%.0f m: radials itm, fspl, p1812 = %v, want %v", tc.radiusM, got, want)
		}
	}
}
