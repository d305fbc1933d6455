package interference

import (
	"context"
	"math"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
	"linkplan/store/spatial"
)

// waitDone reads mp's events until the stream ends and returns the last.
func waitDone(t *testing.T, mp *coverage.Map) coverage.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	after := 0
	for {
		evs, final, err := mp.Next(ctx, after, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) > 0 {
			after = evs[len(evs)-1].Seq
		}
		if final {
			return evs[len(evs)-1]
		}
	}
}

func sameBits(t *testing.T, name string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d pixels, want %d", name, len(got), len(want))
	}
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
			t.Fatalf("%s: pixel %d is %v, want %v", name, i, got[i], want[i])
		}
	}
}

// TestIssue26_MapsRegistryRoundTrip: an interference map and a viewshed
// started through Maps compute in the registry, and after a restart of
// the registry (its Dir) their rasters, servers, bands and summaries
// rebuild the results of the direct computations bit for bit.
func TestIssue26_MapsRegistryRoundTrip(t *testing.T) {
	ter, reg := rioTerrain(t), registry(t)
	dir := t.TempDir()
	cov := coverage.New(ter, reg.Get)
	reg1 := coverage.NewMaps(cov, coverage.MapsOptions{Dir: dir})
	if err := reg1.Open(); err != nil {
		t.Fatal(err)
	}
	ix := spatial.New(nil)
	st := &coverage.Starter{Maps: reg1, Towers: func() appliance.TowerIndex { return ix }}
	m := &Maps{Starter: st, Service: New(ter, reg.Get), Coverage: cov}
	k := &appliance.APIKey{ID: "k1", TenantID: "t1", Tier: appliance.TierPro}
	site := func(lat, lon, az float64) coverage.Site {
		return coverage.Site{Pos: appliance.LatLon{Lat: lat, Lon: lon}, HeightM: 30, EIRPDBm: 50, AzimuthDeg: az}
	}
	spec := MapSpec{Spec: coverage.Spec{FreqMHz: 5500, RadiusM: 4000, RxHeightM: 10, ResolutionM: 90, Engine: appliance.EngineITM},
		BandwidthMHz: 20, Sites: []MapSite{{Site: site(-22.93, -43.30, 0)}, {Site: site(-22.93, -43.30, 120)},
			{Site: site(-22.95, -43.27, math.NaN()), FreqMHz: 5520}}}
	ctx := context.Background()
	imp, err := m.StartInterference(ctx, k, spec)
	if err != nil {
		t.Fatal(err)
	}
	detach := imp.Attach()
	if last := waitDone(t, imp); last.Type != coverage.EventSummary {
		t.Fatalf("interference map ended with %s %+v", last.Type, last.Data)
	}
	detach()
	vreq := coverage.ViewshedRequest{Site: appliance.LatLon{Lat: -22.93, Lon: -43.30}, HeightM: 30, RxHeightM: 5, FreqMHz: 5800, RadiusM: 4000, ResolutionM: 90}
	vmp, err := m.StartViewshed(ctx, k, ViewshedSpec{Request: vreq})
	if err != nil {
		t.Fatal(err)
	}
	detach = vmp.Attach()
	if last := waitDone(t, vmp); last.Type != coverage.EventSummary {
		t.Fatalf("viewshed ended with %s %+v", last.Type, last.Data)
	}
	detach()
	reg1.Close()

	// the direct computations
	req, err := m.Request(k, spec)
	if err != nil {
		t.Fatal(err)
	}
	want, err := New(ter, reg.Get).Compute(ctx, req, coverage.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	wantV, err := cov.Viewshed(ctx, vreq, coverage.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}

	// a new registry on the same Dir
	reg2 := coverage.NewMaps(cov, coverage.MapsOptions{Dir: dir})
	if err := reg2.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg2.Close)
	imp2, err := reg2.Get("t1", imp.ID)
	if err != nil {
		t.Fatal(err)
	}
	ras, servers, sum, err := imp2.Result()
	if err != nil {
		t.Fatal(err)
	}
	bands, err := imp2.Bands()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ResultOf(ras, servers, bands, sum)
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, "SINR", got.SINRDB, want.SINRDB)
	sameBits(t, "carrier", got.CarrierDBm, want.CarrierDBm)
	sameBits(t, "interference", got.InterferenceDBm, want.InterferenceDBm)
	sameBits(t, "C/I", got.CIDB, want.CIDB)
	for i := range want.Server {
		if got.Server[i] != want.Server[i] {
			t.Fatalf("server of pixel %d: %d, want %d", i, got.Server[i], want.Server[i])
		}
	}
	if got.Summary.InterferedPixels != want.Summary.InterferedPixels || got.Summary.ValidPixels != want.Summary.ValidPixels ||
		len(got.Summary.SINRAreas) != 4 || math.Abs(got.Summary.SINRAreas[1].AreaKm2-want.Summary.SINRAreas[1].AreaKm2) > 0.001 ||
		len(got.Summary.Channels) != 2 || len(got.Summary.ServedPixels) != 3 {
		t.Fatalf("summary %+v, want %+v", got.Summary, want.Summary)
	}
	if sum.Engine != appliance.EngineITM || sum.Pixel.Mode == "" || len(sum.Transmitters) != 3 {
		t.Fatalf("registry summary %+v", sum)
	}
	t.Logf("interference: %d valid pixels, %d interfered, SINR ≥ 5 dB on %.3f km², warnings %v",
		got.Summary.ValidPixels, got.Summary.InterferedPixels, got.Summary.SINRAreas[1].AreaKm2, appliance.WarningCodes(sum.Warnings))

	vmp2, err := reg2.Get("t1", vmp.ID)
	if err != nil {
		t.Fatal(err)
	}
	vras, _, vsum, err := vmp2.Result()
	if err != nil {
		t.Fatal(err)
	}
	vr, vres, err := coverage.ViewshedResultOf(vras, vsum)
	if err != nil {
		t.Fatal(err)
	}
	for i := range wantV.Class {
		if vres.Class[i] != wantV.Class[i] {
			t.Fatalf("viewshed pixel %d: class %d, want %d", i, vres.Class[i], wantV.Class[i])
		}
	}
	if math.Abs(vres.Summary.VisibleKm2-wantV.Summary.VisibleKm2) > 0.001 || vr.HeightM != 30 || vr.FreqMHz != 5800 {
		t.Fatalf("viewshed summary %+v (%+v), want %+v", vres.Summary, vr, wantV.Summary)
	}
	t.Logf("viewshed: visible %.3f km² of %.3f", vres.Summary.VisibleKm2, vres.Summary.InRadiusKm2)
}
