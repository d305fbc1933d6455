package coverage

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"linkplan/appliance"
)

// viewshedTruth is the path check of /analyze (the fspl engine's
// LOSClear and FresnelOK) on the pixel's own profile,
// Terrain.Profile(site, pixel centre, step): the class the pixel stands
// for. ok is false where that profile needs a missing tile.
func viewshedTruth(t testing.TB, ter appliance.Terrain, eng appliance.Engine, req ViewshedRequest, c appliance.LatLon, stepM float64) (uint8, bool) {
	t.Helper()
	prof, err := ter.Profile(req.Site, c, stepM)
	var tme *appliance.TileMissingError
	if errors.As(err, &tme) {
		return ViewNoData, false
	}
	if err != nil {
		t.Fatal(err)
	}
	pred, err := eng.Predict(context.Background(), appliance.LinkInput{Tx: req.Site, Rx: c, TxHeightM: req.HeightM, RxHeightM: req.RxHeightM,
		FreqMHz: req.FreqMHz, Profile: prof})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case pred.LOSClear && pred.FresnelOK:
		return ViewFresnel, true
	case pred.LOSClear:
		return ViewLOS, true
	}
	return ViewBlocked, true
}

// TestIssue22_ViewshedPixelTruth: the viewshed's class of each pixel
// against the path check of /analyze on the pixel's own profile (issue 22
// scope 1): a random sample (printed seed) of the Pedra Branca and Tijuca
// 10 km maps and every pixel of a 5 km map, at 90 m; the identical share
// printed per map as `map= mode= pixels= identical_pct=`.
func TestIssue22_ViewshedPixelTruth(t *testing.T) {
	svc, ter, reg := newService(t)
	eng, err := reg.Get(appliance.EngineFSPL)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed(t), 22))
	tijuca := pedraBranca()
	tijuca.Site, tijuca.HeightM, tijuca.FreqMHz = appliance.LatLon{Lat: -22.95, Lon: -43.30}, 40, 900
	small := pedraBranca()
	small.RadiusM = 5000
	for _, c := range []struct {
		name   string
		req    ViewshedRequest
		sample int // 0: every pixel
	}{{"pedra_branca_10km", pedraBranca(), 3000}, {"tijuca_10km", tijuca, 3000}, {"pedra_branca_5km_all", small, 0}} {
		res, err := svc.Viewshed(context.Background(), c.req, Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		r := res.Grid
		var idx []int
		for px := range res.Class {
			if res.Class[px] != ViewNoData || c.req.Site.DistanceM(r.PixelCenter(px/r.Width, px%r.Width)) <= c.req.RadiusM {
				idx = append(idx, px)
			}
		}
		if c.sample > 0 {
			rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
			idx = idx[:min(c.sample, len(idx))]
		}
		same, checked := 0, 0
		for _, px := range idx {
			ctr := r.PixelCenter(px/r.Width, px%r.Width)
			if c.req.Site.DistanceM(ctr) > c.req.RadiusM {
				continue
			}
			want, ok := viewshedTruth(t, ter, eng, c.req, ctr, res.Summary.ProfileStepM)
			if !ok {
				want = ViewNoData
			}
			checked++
			if res.Class[px] == want {
				same++
			} else if checked-same <= 5 {
				t.Logf("%s pixel %d: viewshed %d, /analyze on its own profile %d", c.name, px, res.Class[px], want)
			}
		}
		pct := 100 * float64(same) / float64(max(checked, 1))
		t.Logf("map=%s mode=%s pixels=%d identical_pct=%.3f", c.name, PixelModeDefault, checked, pct)
		if checked == 0 || same*1000 < checked*999 {
			t.Errorf("%s: %d of %d pixels identical to /analyze on their own profiles (need 99.9 %%)", c.name, same, checked)
		}
	}
}

// BenchmarkIssue22_Viewshed: the Pedra Branca viewshed, 10 km at 90 m,
// on 2 workers; reports process CPU seconds per map.
func BenchmarkIssue22_Viewshed(b *testing.B) {
	svc, _, _ := newService(b)
	req := pedraBranca()
	cpu0 := processCPU()
	for b.Loop() {
		if _, err := svc.Viewshed(context.Background(), req, Options{Workers: 2}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((processCPU()-cpu0).Seconds()/float64(b.N), "cpu-s/map")
}

// TestIssue22_ViewshedExact: the exact mode (ViewshedRequest.Exact)
// answers every pixel of the 5 km and 10 km Pedra Branca maps with the
// /analyze path check on the pixel's own Terrain.Profile, identically,
// and the default mode (viewshedSweeper) gives the same class on every one
// of them and the same summary (no-data pixels, missing tiles, areas);
// the summary says which mode.
func TestIssue22_ViewshedExact(t *testing.T) {
	svc, ter, reg := newService(t)
	eng, err := reg.Get(appliance.EngineFSPL)
	if err != nil {
		t.Fatal(err)
	}
	for _, radiusM := range []float64{5000, 10000} {
		t.Run(strconv.Itoa(int(radiusM/1000))+"km", func(t *testing.T) {
			req := pedraBranca()
			req.RadiusM = radiusM
			def, err := svc.Viewshed(context.Background(), req, Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			req.Exact = true
			ex, err := svc.Viewshed(context.Background(), req, Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if def.Summary.Pixel.Mode != PixelModeDefault || ex.Summary.Pixel.Mode != PixelModeExact {
				t.Errorf("summary pixel modes %q and %q", def.Summary.Pixel.Mode, ex.Summary.Pixel.Mode)
			}
			r := ex.Grid
			checked, sameDefault := 0, 0
			for px := range ex.Class {
				c := r.PixelCenter(px/r.Width, px%r.Width)
				if req.Site.DistanceM(c) > req.RadiusM {
					if ex.Class[px] != ViewNoData {
						t.Fatalf("pixel %d outside the radius has class %d", px, ex.Class[px])
					}
					continue
				}
				want, ok := viewshedTruth(t, ter, eng, req, c, ex.Summary.ProfileStepM)
				if !ok {
					want = ViewNoData
				}
				checked++
				if ex.Class[px] != want {
					t.Errorf("pixel %d: exact class %d, /analyze on its own profile %d", px, ex.Class[px], want)
				}
				if def.Class[px] == ex.Class[px] {
					sameDefault++
				}
			}
			t.Logf("mode=exact map=pedra_branca_%gkm pixels=%d agree_pct=100 (default identical on %d)", radiusM/1000, checked, sameDefault)
			if sameDefault != checked {
				t.Errorf("default and exact differ on %d of %d pixels", checked-sameDefault, checked)
			}
			if radiusM == 5000 { // deterministic whatever the worker count
				one, err := svc.Viewshed(context.Background(), func() ViewshedRequest { q := req; q.Exact = false; return q }(), Options{Workers: 1})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(one.Class, def.Class) {
					t.Error("default classes differ between 1 and 2 workers")
				}
			}
			ds, es := def.Summary, ex.Summary
			if ds.NoDataMissingTerrain != es.NoDataMissingTerrain || !slices.Equal(ds.MissingTiles, es.MissingTiles) ||
				ds.VisibleKm2 != es.VisibleKm2 || ds.FresnelClearKm2 != es.FresnelClearKm2 || ds.BlockedPixels != es.BlockedPixels {
				t.Errorf("summaries differ: default %+v, exact %+v", ds, es)
			}
		})
	}
}

// BenchmarkIssue22_ViewshedPixelTruth: the Sumaré viewshed (50 m mast,
// receivers at 10 m, 900 MHz) of the Rio sample, rio30 and rio50 at 3″
// and rio10-1s at 1″, in both modes; prints per map and mode the issue's
// line `mode= map=rio50-viewshed pixels= agree_pct=` for PIXEL_SAMPLE
// random pixels within the radius (default 4000, seed printed:
// COVERAGE_SEED repeats it) against the /analyze path check on each
// pixel's own Terrain.Profile, with the map's CPU seconds. `make
// bench-pixels` runs it.
func BenchmarkIssue22_ViewshedPixelTruth(b *testing.B) {
	svc, ter, reg := newService(b)
	eng, err := reg.Get(appliance.EngineFSPL)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed(b), 22))
	sample := 4000
	if v := os.Getenv("PIXEL_SAMPLE"); v != "" {
		if sample, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	for _, m := range []struct {
		name          string
		radiusM, resM float64
	}{{"rio30", 30000, 90}, {"rio50", 50000, 90}, {"rio10-1s", 10000, 30}} {
		for _, exact := range []bool{false, true} {
			mode := PixelModeDefault
			if exact {
				mode = PixelModeExact
			}
			b.Run(m.name+"/"+mode, func(b *testing.B) {
				req := ViewshedRequest{Site: sumare(0).Tx, HeightM: 50, RxHeightM: 10, FreqMHz: 900, RadiusM: m.radiusM, ResolutionM: m.resM, Exact: exact}
				var res *ViewshedResult
				cpu0 := processCPU()
				for b.Loop() {
					var err error
					if res, err = svc.Viewshed(context.Background(), req, Options{}); err != nil {
						b.Fatal(err)
					}
				}
				cpu := (processCPU() - cpu0).Seconds() / float64(b.N)
				b.ReportMetric(cpu, "cpu-s/op")
				r := res.Grid
				in := func(px int) bool { return req.Site.DistanceM(r.PixelCenter(px/r.Width, px%r.Width)) <= req.RadiusM }
				var pixels []int
				for len(pixels) < sample {
					if px := rng.IntN(len(res.Class)); in(px) {
						pixels = append(pixels, px)
					}
				}
				if sample == 0 {
					for px := range res.Class {
						if in(px) {
							pixels = append(pixels, px)
						}
					}
				}
				same := 0
				for _, px := range pixels {
					want, ok := viewshedTruth(b, ter, eng, req, r.PixelCenter(px/r.Width, px%r.Width), res.Summary.ProfileStepM)
					if !ok {
						want = ViewNoData
					}
					if res.Class[px] == want {
						same++
					} else {
						fmt.Printf("  pixel %d: class %d, /analyze on its own profile %d\n", px, res.Class[px], want)
					}
				}
				fmt.Printf("mode=%s map=%s-viewshed pixels=%d agree_pct=%.3f cpu_s=%.2f\n", mode, m.name, len(pixels),
					100*float64(same)/float64(max(len(pixels), 1)), cpu)
			})
		}
	}
}
