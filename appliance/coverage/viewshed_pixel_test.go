package coverage

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"linkplan/appliance"
)

// viewshedTruth is the path check of /analyze (the fspl engine's
// LOSClear and FresnelOK) on the pixel's own profile,
// Terrain.Profile(site, pixel centre, step): the class the pixel stands
// for. ok is false where that profile needs a missing tile.
func viewshedTruth(t *testing.T, ter appliance.Terrain, eng appliance.Engine, req ViewshedRequest, c appliance.LatLon, stepM float64) (uint8, bool) {
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
