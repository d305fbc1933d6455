package raytracing_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/buildings"
	"linkplan/appliance/coverage"
	"linkplan/appliance/jobs"
	"linkplan/appliance/raytracing"
	"linkplan/engines/raytrace"
	"linkplan/engines/raytrace/worker"
	"linkplan/store"
	"linkplan/store/spatial"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

// blockGeoJSON is an n×n block of buildings on a 60 m pitch around (lat,
// lon) in Rio, 10 to 28 m tall (every fourth one without a height: the
// layer's default).
func blockGeoJSON(lat, lon float64, n int) []byte {
	f := raytrace.NewFrame(appliance.LatLon{Lat: lat, Lon: lon})
	var b strings.Builder
	b.WriteString(`{"type":"FeatureCollection","features":[`)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			x0, y0 := float64(i-n/2)*60+10, float64(j-n/2)*60+10
			ring := []appliance.LatLon{f.ToLatLon(x0, y0), f.ToLatLon(x0+30, y0), f.ToLatLon(x0+30, y0+25), f.ToLatLon(x0, y0+25), f.ToLatLon(x0, y0)}
			var coords []string
			for _, p := range ring {
				coords = append(coords, fmt.Sprintf("[%.7f,%.7f]", p.Lon, p.Lat))
			}
			props := fmt.Sprintf(`{"height":"%d","building":"yes"}`, 10+((i*5+j*3)%4)*6)
			if (i+j)%4 == 3 {
				props = `{"building":"yes"}`
			}
			if i+j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"type":"Feature","id":"b%d_%d","properties":%s,"geometry":{"type":"Polygon","coordinates":[[%s]]}}`, i, j, props, strings.Join(coords, ","))
		}
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

const lat0, lon0 = -22.9519, -43.2105

// noTowers is an empty tower snapshot.
func noTowers() appliance.TowerIndex { return spatial.New(nil) }

type fixture struct {
	db    *store.DB
	svc   *raytracing.Service
	jobs  *jobs.Service
	maps  *coverage.Maps
	index *raytrace.LayerIndex
	ter   appliance.Terrain
	layer string
	ent   *appliance.APIKey
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	ter, err := terrain.OpenBytes(sample.Pack())
	if err != nil {
		t.Fatal(err)
	}
	index := &raytrace.LayerIndex{Cache: raytrace.NewCache(4), Terrain: ter}
	ent := &appliance.APIKey{ID: "k_ent", TenantID: "t_ent", Tier: appliance.TierEnterprise}
	bl := &buildings.Service{Store: db, Index: index}
	l, _, err := bl.Upload(context.Background(), ent, buildings.UploadRequest{Name: "block"}, blockGeoJSON(lat0, lon0, 6), appliance.AuditEntry{})
	if err != nil {
		t.Fatal(err)
	}
	js := jobs.New(db, dir, jobs.Options{Workers: 1, PollInterval: 10 * time.Millisecond})
	maps := coverage.NewMaps(nil, coverage.MapsOptions{})
	t.Cleanup(maps.Close)
	svc := &raytracing.Service{Layers: db, Scenes: index, Executor: worker.LayerExecutor{X: worker.NewInProcess(4), Index: index}, Queue: js, Maps: &coverage.Starter{Maps: maps, Towers: noTowers}, NewID: jobs.NewID}
	js.Register(appliance.JobKindRaytraceLink, svc.Handler())
	if err := js.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = js.Close(context.Background()) })
	return &fixture{db: db, svc: svc, jobs: js, maps: maps, index: index, ter: ter, layer: l.ID, ent: ent}
}

func (f *fixture) wait(t *testing.T, id string) *appliance.Job {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		j, err := f.jobs.Get(context.Background(), f.ent.TenantID, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.State.Terminal() {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still %s", id, j.State)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func at(dx, dy float64) appliance.LatLon {
	return raytrace.NewFrame(appliance.LatLon{Lat: lat0, Lon: lon0}).ToLatLon(dx, dy)
}

// TestLinkJob: an analysis link job traces each link on the executor and
// its result equals the engine's Point on the layer's scene, with the
// budget applied; the summary names the best tower.
func TestLinkJob(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rx := at(5, -5)
	links := []raytracing.Link{
		{TowerID: "far", Tx: raytracing.Site{Lat: at(-150, 140).Lat, Lon: at(-150, 140).Lon, HeightM: 30}, Rx: raytracing.Site{Lat: rx.Lat, Lon: rx.Lon, HeightM: 1.5},
			Budget: true, EIRPDBm: 58, PatternLossDB: 3, RxGainDBi: 2, CableLossDB: 1, RxThresholdDBm: -95},
		{TowerID: "near", Tx: raytracing.Site{Lat: at(40, 45).Lat, Lon: at(40, 45).Lon, HeightM: 35}, Rx: raytracing.Site{Lat: rx.Lat, Lon: rx.Lon, HeightM: 1.5},
			Budget: true, EIRPDBm: 58, RxThresholdDBm: -95},
	}
	j, err := f.svc.SubmitLinks(ctx, f.ent, raytracing.LinkRequest{Route: raytracing.RouteAnalyzeLink, LayerID: f.layer, FreqMHz: 3500,
		Options: raytracing.DefaultOptions(), Links: links})
	if err != nil {
		t.Fatal(err)
	}
	if j.Kind != appliance.JobKindRaytraceLink || j.Total != 2 || j.Lane != appliance.LanePriority {
		t.Fatalf("job %+v", j)
	}
	done := f.wait(t, j.ID)
	if done.State != appliance.JobSucceeded {
		t.Fatalf("job %s: %s", done.State, done.Error)
	}
	_, file, err := f.jobs.Open(ctx, f.ent.TenantID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	raw, _ := io.ReadAll(file)
	var out raytracing.LinkJobResult
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if out.Options != raytracing.EchoOptions(raytracing.DefaultOptions()) {
		t.Fatalf("result options %+v, want the job's %+v", out.Options, raytracing.DefaultOptions())
	}
	l, _, err := f.db.BuildingLayer(f.ent.TenantID, f.layer, false)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := f.index.Cached(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, lr := range out.Links {
		want, err := sc.Point(ctx, raytrace.PointRequest{Tx: raytrace.Antenna{Pos: appliance.LatLon{Lat: links[i].Tx.Lat, Lon: links[i].Tx.Lon}, HeightM: links[i].Tx.HeightM},
			Rx: raytrace.Antenna{Pos: rx, HeightM: 1.5}, FreqMHz: 3500, TxPowerDBm: links[i].EIRPDBm - links[i].PatternLossDB, Options: raytracing.DefaultOptions()})
		if err != nil {
			t.Fatal(err)
		}
		if !want.Reachable || lr.PathLossDB == nil || math.Abs(*lr.PathLossDB-want.PathLossDB) > 0.0005 || len(lr.Paths) != len(want.Paths) {
			t.Fatalf("link %d: %+v, want loss %.3f with %d paths", i, lr, want.PathLossDB, len(want.Paths))
		}
		rxp := want.ReceivedPowerDBm + links[i].RxGainDBi - links[i].CableLossDB
		if math.Abs(*lr.RxPowerDBm-rxp) > 0.0005 || math.Abs(*lr.LinkMarginDB-(rxp+95)) > 0.0005 {
			t.Fatalf("link %d budget: rx %v margin %v, want %.3f", i, *lr.RxPowerDBm, *lr.LinkMarginDB, rxp)
		}
		t.Logf("link %s: %d paths, loss %.2f dB, los %v, margin %.2f dB", lr.TowerID, len(lr.Paths), *lr.PathLossDB, lr.LOS, *lr.LinkMarginDB)
	}
	var sum raytracing.LinkJobSummary
	if err := json.Unmarshal(done.Result.Summary, &sum); err != nil || sum.Links != 2 || out.Best == nil || sum.BestTowerID != out.Links[*out.Best].TowerID {
		t.Fatalf("summary %s (%v), best %v", done.Result.Summary, err, out.Best)
	}
}

// TestLinkJobRefusals: the tier, the layer's owner, positions outside the
// frame and bad options are refused at submission with their meaning.
func TestLinkJobRefusals(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	site := func(p appliance.LatLon, h float64) raytracing.Site {
		return raytracing.Site{Lat: p.Lat, Lon: p.Lon, HeightM: h}
	}
	one := func(tx, rx appliance.LatLon) []raytracing.Link {
		return []raytracing.Link{{Tx: site(tx, 30), Rx: site(rx, 1.5)}}
	}
	opt := raytracing.DefaultOptions()
	bad := opt
	bad.MaxReflections = 5
	cases := []struct {
		name  string
		key   *appliance.APIKey
		req   raytracing.LinkRequest
		is    error
		field string
	}{
		{"Business is refused", &appliance.APIKey{TenantID: "t_ent", Tier: appliance.TierBusiness},
			raytracing.LinkRequest{Route: raytracing.RouteAnalyze, LayerID: f.layer, FreqMHz: 3500, Options: opt, Links: one(at(0, 100), at(0, 0))}, appliance.ErrForbidden, ""},
		{"another tenant's layer reads as missing", &appliance.APIKey{TenantID: "t_other", Tier: appliance.TierUltra},
			raytracing.LinkRequest{Route: raytracing.RouteAnalyze, LayerID: f.layer, FreqMHz: 3500, Options: opt, Links: one(at(0, 100), at(0, 0))}, appliance.ErrNotFound, ""},
		{"no layer", f.ent, raytracing.LinkRequest{Route: raytracing.RouteAnalyze, FreqMHz: 3500, Options: opt, Links: one(at(0, 100), at(0, 0))}, appliance.ErrInvalid, "raytrace.layer_id"},
		{"receiver out of the frame", f.ent,
			raytracing.LinkRequest{Route: raytracing.RouteAnalyze, LayerID: f.layer, FreqMHz: 3500, Options: opt, Links: one(at(0, 100), at(0, 25000))}, appliance.ErrInvalid, "receiver"},
		{"frequency out of range", f.ent,
			raytracing.LinkRequest{Route: raytracing.RouteEnginesPredict, LayerID: f.layer, FreqMHz: 1, Options: opt, Links: one(at(0, 100), at(0, 0))}, appliance.ErrInvalid, "frequency_mhz"},
		{"receiver within a wavelength of the transmitter (100 MHz: 3 m, plus 0.5 m)", f.ent,
			raytracing.LinkRequest{Route: raytracing.RouteEnginesPredict, LayerID: f.layer, FreqMHz: 100, Options: opt,
				Links: []raytracing.Link{{Tx: site(at(0, 100), 10), Rx: site(at(0, 102), 10)}}}, appliance.ErrInvalid, "rx"},
		{"a link of /analyze_link's list within a wavelength", f.ent,
			raytracing.LinkRequest{Route: raytracing.RouteAnalyzeLink, LayerID: f.layer, FreqMHz: 100, Options: opt,
				Links: []raytracing.Link{{Tx: site(at(0, 300), 10), Rx: site(at(0, 100), 1.5)}, {Tx: site(at(0, 103), 2), Rx: site(at(0, 100), 1.5)}}}, appliance.ErrInvalid, "receiver"},
		{"reflection order", f.ent,
			raytracing.LinkRequest{Route: raytracing.RouteEnginesPredict, LayerID: f.layer, FreqMHz: 3500, Options: bad, Links: one(at(0, 100), at(0, 0))}, appliance.ErrInvalid, "raytrace.max_reflections"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.SubmitLinks(ctx, tc.key, tc.req)
			if !errors.Is(err, tc.is) {
				t.Fatalf("error %v, want %v", err, tc.is)
			}
			var ve *appliance.ValidationError
			if tc.field != "" && (!errors.As(err, &ve) || !strings.Contains(fmt.Sprint(ve.Fields), tc.field)) {
				t.Fatalf("error %v does not name %s", err, tc.field)
			}
		})
	}
}

// TestLinkJobPayloadVersion1: a link job queued before the scene hash
// covered the terrain grid's shape, voids and assumed heights (payload
// version 1, an older hash) runs on its layer's scene after the upgrade
// (it failed, "the scene changed since the job was submitted"); a payload
// of an unknown version fails.
func TestLinkJobPayloadVersion1(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rx, tx := at(5, -5), at(40, 45)
	req := raytracing.LinkRequest{Route: raytracing.RouteEnginesPredict, LayerID: f.layer, FreqMHz: 3500, Options: raytracing.DefaultOptions(),
		Links: []raytracing.Link{{Tx: raytracing.Site{Lat: tx.Lat, Lon: tx.Lon, HeightM: 35}, Rx: raytracing.Site{Lat: rx.Lat, Lon: rx.Lon, HeightM: 1.5}}}}
	for _, c := range []struct {
		version int
		want    appliance.JobState
	}{{1, appliance.JobSucceeded}, {3, appliance.JobFailed}} {
		body, err := json.Marshal(map[string]any{"version": c.version, "tier": "enterprise", "scene_hash": strings.Repeat("0", 64), "request": req})
		if err != nil {
			t.Fatal(err)
		}
		id, _ := jobs.NewID()
		j := &appliance.Job{ID: id, TenantID: f.ent.TenantID, KeyID: f.ent.ID, Kind: appliance.JobKindRaytraceLink, Lane: appliance.LanePriority,
			Payload: body, Total: 1, MaxAttempts: 1, MaxInterruptions: 1}
		if err := f.jobs.Enqueue(ctx, j); err != nil {
			t.Fatal(err)
		}
		if done := f.wait(t, id); done.State != c.want {
			t.Errorf("payload version %d: %s (%s), want %s", c.version, done.State, done.Error, c.want)
		}
	}
}

// TestCaseWithinWavelength: POST /coverage/engines/predict's raytrace
// case refuses, at submission, a receiver the engine would refuse when the
// job runs (within one wavelength of the transmitter, plus 0.5 m): at
// 100 MHz 2 m apart is refused naming rx, 4 m apart is queued.
func TestCaseWithinWavelength(t *testing.T) {
	f := newFixture(t)
	opt := raytracing.DefaultOptions()
	tx := raytracing.Site{Lat: at(0, 100).Lat, Lon: at(0, 100).Lon, HeightM: 10}
	for _, c := range []struct {
		name  string
		dy    float64
		field string
	}{{"2 m apart", 2, "rx"}, {"4 m apart", 4, ""}} {
		t.Run(c.name, func(t *testing.T) {
			p := at(0, 100+c.dy)
			cs := appliance.EngineCaseSummary{Tx: appliance.LatLon{Lat: tx.Lat, Lon: tx.Lon}, Rx: p, FrequencyMHz: 100, TxHeightM: tx.HeightM, RxHeightM: 10}
			_, err := f.svc.SubmitCase(context.Background(), f.ent, cs, f.layer, opt)
			var ve *appliance.ValidationError
			switch {
			case c.field == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.field != "" && (!errors.As(err, &ve) || ve.Fields[0].Field != c.field):
				t.Fatalf("error %v, want one naming %s", err, c.field)
			}
		})
	}
}

// TestMapBandsEqualOneUnit: a raytrace map computed in bands of rows on
// the executor equals, pixel for pixel, one Map of the whole grid on the
// layer's scene with the EIRP applied (omni antenna); the warnings count
// the pixels of the whole map; the tier's caps refuse what is too large.
func TestMapBandsEqualOneUnit(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	tx := at(-35, 20)
	// A map's defaults without the walls' scattering: the split into bands
	// changes no number whatever the options, and on this block of tall
	// buildings the scattering makes the 6 400 pixels ten times as slow
	// (TestIssue24_OptionDefaults computes a map with it).
	opt := raytracing.DefaultMapOptions()
	opt.DiffuseScattering = 0
	req := raytracing.MapRequest{LayerID: f.layer, RadiusM: 200, Options: opt,
		Site: &coverage.Site{Pos: tx, HeightM: 30, EIRPDBm: 55, AzimuthDeg: math.NaN()}, FreqMHz: 3500, RxHeightM: 1.5, ResolutionM: 5}
	mp, err := f.svc.StartMap(ctx, f.ent, req)
	if err != nil {
		t.Fatal(err)
	}
	detach := mp.Attach()
	defer detach()
	var last coverage.Event
	progress := 0
	for after := 0; ; {
		evs, final, err := mp.Next(ctx, after, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			after, last = e.Seq, e
			if e.Type == coverage.EventProgress {
				progress++
			}
		}
		if final && len(evs) == 0 {
			break
		}
	}
	if last.Type != coverage.EventSummary || mp.Kind != "raytrace" {
		t.Fatalf("last event %s %+v", last.Type, last.Data)
	}
	r, _, sum, err := mp.Result()
	if err != nil {
		t.Fatal(err)
	}
	if r.Width != 80 || r.Height != 80 || progress != 10 {
		t.Fatalf("%d×%d pixels, %d progress events; want 80×80 and 10 bands of 8 rows", r.Width, r.Height, progress)
	}
	l, _, _ := f.db.BuildingLayer(f.ent.TenantID, f.layer, false)
	sc, err := f.index.Cached(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	fr := sc.Frame()
	x, y := fr.ToLocal(tx)
	whole, err := sc.Map(ctx, raytrace.MapRequest{Tx: raytrace.Antenna{Pos: tx, HeightM: 30}, SouthWest: fr.ToLatLon(x-200+2.5, y-200+2.5), StepM: 5, NX: 80, NY: 80,
		RxHeightM: 1.5, FreqMHz: 3500, Options: opt, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	valid := 0
	for j := 0; j < 80; j++ {
		for i := 0; i < 80; i++ {
			got := r.DBm[(79-j)*80+i]
			loss := whole.PathLossDB[j*80+i]
			want := float32(55 - float64(loss))
			if loss != loss {
				if got == got {
					t.Fatalf("pixel (%d,%d): %v, want no data", i, j, got)
				}
				continue
			}
			valid++
			if got != want {
				t.Fatalf("pixel (%d,%d): %v dBm, want %v", i, j, got, want)
			}
		}
	}
	if sum.ValidPixels != valid || sum.EngineVersion != raytrace.Version {
		t.Fatalf("summary %+v; %d valid pixels", sum, valid)
	}
	if fmt.Sprint(sum.Warnings) != fmt.Sprint(whole.Warnings) {
		t.Errorf("warnings of the bands:\n%v\nof one unit:\n%v", sum.Warnings, whole.Warnings)
	}
	t.Logf("80×80 map: %d valid pixels, %v; warnings %v", valid, time.Duration(sum.ElapsedMS)*time.Millisecond, appliance.WarningCodes(sum.Warnings))

	for _, tc := range []struct {
		name  string
		edit  func(*raytracing.MapRequest)
		field string
	}{
		{"area over the Enterprise cap", func(r *raytracing.MapRequest) { r.RadiusM = 1500 }, "radius_m"},
		{"resolution below the Enterprise cap", func(r *raytracing.MapRequest) { r.ResolutionM = 2 }, "resolution_m"},
		{"bbox and radius", func(r *raytracing.MapRequest) {
			r.BBox = &appliance.BBox{MinLat: lat0 - 0.001, MinLon: lon0 - 0.001, MaxLat: lat0 + 0.001, MaxLon: lon0 + 0.001}
		}, "radius_m"},
		{"no layer", func(r *raytracing.MapRequest) { r.LayerID = "" }, "layer_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := req
			tc.edit(&q)
			_, err := f.svc.StartMap(ctx, f.ent, q)
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) || !strings.Contains(fmt.Sprint(ve.Fields), tc.field) {
				t.Fatalf("error %v, want one naming %s", err, tc.field)
			}
		})
	}
	ultra := &appliance.APIKey{TenantID: f.ent.TenantID, Tier: appliance.TierUltra}
	q := req
	q.ResolutionM = 2
	q.RadiusM = 40
	if mp, err := f.svc.StartMap(ctx, ultra, q); err != nil {
		t.Fatalf("Ultra at 2 m: %v", err)
	} else {
		mp.Attach()()
	}
	if _, err := f.svc.StartMap(ctx, &appliance.APIKey{TenantID: f.ent.TenantID, Tier: appliance.TierPro}, req); !errors.Is(err, appliance.ErrForbidden) {
		t.Fatalf("Pro: %v", err)
	}
}

// TestIssue24_OptionDefaults: the service's defaults are the validated
// set for link jobs (the options of linkplan raytrace eval's Dortmund
// comparison: scattering S = 0.4, reflection–diffraction, clutter beyond
// the extent; the coherent sum) and, for maps, the same without
// reflection–diffraction and with the power sum; reflection–diffraction
// not named defaults on only where it applies, and named where it does
// not is refused naming the field; a map that asks for it gets the
// tier's pixel cap divided by MapRDCostFactor; the job's result and the
// map's summary state every option they were computed with.
func TestIssue24_OptionDefaults(t *testing.T) {
	link := raytracing.DefaultOptions()
	if link.DiffuseScattering != 0.4 || !link.ScatteringReflections || !link.ReflectionDiffraction || !link.ClutterBeyondExtent || link.Sum != raytrace.SumCoherent ||
		link.MaxReflections != 2 || !link.Diffraction || !link.GroundReflection || link.Transmission {
		t.Errorf("link defaults %+v", link)
	}
	mp := raytracing.DefaultMapOptions()
	if mp.DiffuseScattering != 0.4 || mp.ScatteringReflections || mp.ReflectionDiffraction || !mp.ClutterBeyondExtent || mp.Sum != raytrace.SumPower ||
		mp.MaxReflections != 2 || !mp.Diffraction {
		t.Errorf("map defaults %+v", mp)
	}
	for _, tc := range []struct {
		name string
		edit func(*raytrace.Options)
		want bool
	}{
		{"as defaulted", func(*raytrace.Options) {}, true},
		{"diffraction off", func(o *raytrace.Options) { o.Diffraction = false }, false},
		{"no reflections", func(o *raytrace.Options) { o.MaxReflections = 0 }, false},
		{"one reflection", func(o *raytrace.Options) { o.MaxReflections = 1 }, true},
	} {
		o := link
		tc.edit(&o)
		if got := raytracing.DefaultReflectionDiffraction(link, o); got != tc.want {
			t.Errorf("%s: reflection–diffraction by default %v, want %v", tc.name, got, tc.want)
		}
		if raytracing.DefaultReflectionDiffraction(mp, o) {
			t.Errorf("%s: a map defaults reflection–diffraction on", tc.name)
		}
	}
	for _, tc := range []struct {
		name string
		s    float64
		want bool
	}{{"as defaulted", 0.4, true}, {"scattering off", 0, false}, {"S = 1", 1, true}} {
		o := link
		o.DiffuseScattering = tc.s
		if got := raytracing.DefaultScatteringReflections(link, o); got != tc.want {
			t.Errorf("%s: the scattering's reflections by default %v, want %v", tc.name, got, tc.want)
		}
		if raytracing.DefaultScatteringReflections(mp, o) {
			t.Errorf("%s: a map defaults the scattering's reflections on", tc.name)
		}
	}

	f := newFixture(t)
	ctx := context.Background()
	rx := at(5, -5)
	one := []raytracing.Link{{Tx: raytracing.Site{Lat: at(-150, 140).Lat, Lon: at(-150, 140).Lon, HeightM: 30}, Rx: raytracing.Site{Lat: rx.Lat, Lon: rx.Lon, HeightM: 1.5}}}
	for _, tc := range []struct {
		name  string
		edit  func(*raytrace.Options)
		field string
	}{
		{"reflection–diffraction without diffraction", func(o *raytrace.Options) { o.Diffraction = false }, "raytrace.reflection_diffraction"},
		{"reflection–diffraction without reflections", func(o *raytrace.Options) { o.MaxReflections = 0 }, "raytrace.reflection_diffraction"},
		{"scattering above 1", func(o *raytrace.Options) { o.DiffuseScattering = 1.5 }, "raytrace.diffuse_scattering"},
		{"negative scattering", func(o *raytrace.Options) { o.DiffuseScattering = -0.1 }, "raytrace.diffuse_scattering"},
		{"the scattering's reflections without scattering", func(o *raytrace.Options) { o.DiffuseScattering = 0 }, "raytrace.scattering_reflections"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := link
			tc.edit(&o)
			_, err := f.svc.SubmitLinks(ctx, f.ent, raytracing.LinkRequest{Route: raytracing.RouteEnginesPredict, LayerID: f.layer, FreqMHz: 3500, Options: o, Links: one})
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) || len(ve.Fields) != 1 || ve.Fields[0].Field != tc.field {
				t.Fatalf("error %v, want one naming %s", err, tc.field)
			}
		})
	}

	// The link job's result states the options, off ones included.
	off := link
	off.DiffuseScattering, off.ScatteringReflections, off.ReflectionDiffraction, off.ClutterBeyondExtent = 0, false, false, false
	j, err := f.svc.SubmitLinks(ctx, f.ent, raytracing.LinkRequest{Route: raytracing.RouteEnginesPredict, LayerID: f.layer, FreqMHz: 3500, Options: off, Links: one})
	if err != nil {
		t.Fatal(err)
	}
	if done := f.wait(t, j.ID); done.State != appliance.JobSucceeded {
		t.Fatalf("job %s: %s", done.State, done.Error)
	}
	_, file, err := f.jobs.Open(ctx, f.ent.TenantID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(file)
	file.Close()
	var res struct {
		Options map[string]any `json:"options"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"diffuse_scattering": 0.0, "scattering_reflections": false, "reflection_diffraction": false, "clutter_beyond_extent": false, "sum": "coherent", "max_reflections": 2.0} {
		if got, ok := res.Options[k]; !ok || got != want {
			t.Errorf("result options[%s] = %v (stated %v), want %v", k, got, ok, want)
		}
	}

	// Maps: the cap with reflection–diffraction, and the summary's options.
	caps := raytracing.CapsOf(f.ent)
	if caps.MaxPixelsRD() != caps.MaxPixels/raytracing.MapRDCostFactor || caps.MaxPixelsRD() < 1 {
		t.Fatalf("caps %+v: %d pixels with reflection–diffraction", caps, caps.MaxPixelsRD())
	}
	rd := mp
	rd.ReflectionDiffraction = true
	site := &coverage.Site{Pos: at(-35, 20), HeightM: 30, EIRPDBm: 55, AzimuthDeg: math.NaN()}
	// A side of 5·(√cap + 2) metres: just over the reduced cap, far under the full one.
	over := 5 * (math.Floor(math.Sqrt(float64(caps.MaxPixelsRD()))) + 2) / 2
	_, err = f.svc.StartMap(ctx, f.ent, raytracing.MapRequest{LayerID: f.layer, RadiusM: over, Options: rd, Site: site, FreqMHz: 3500, ResolutionM: 5})
	var ve *appliance.ValidationError
	if !errors.As(err, &ve) || len(ve.Fields) != 1 || ve.Fields[0].Field != "reflection_diffraction" || !strings.Contains(ve.Fields[0].Reason, fmt.Sprint(caps.MaxPixelsRD())) {
		t.Fatalf("an RD map over the reduced cap: %v", err)
	}
	t.Logf("refused: %v", err)
	// the cap with the scattering's reflections
	if caps.MaxPixelsSR() != caps.MaxPixels/raytracing.MapSRCostFactor || caps.MaxPixelsSR() <= caps.MaxPixelsRD() {
		t.Fatalf("caps %+v: %d pixels with the scattering's reflections", caps, caps.MaxPixelsSR())
	}
	sr := mp
	sr.ScatteringReflections = true
	overSR := 5 * (math.Floor(math.Sqrt(float64(caps.MaxPixelsSR()))) + 2) / 2
	_, err = f.svc.StartMap(ctx, f.ent, raytracing.MapRequest{LayerID: f.layer, RadiusM: overSR, Options: sr, Site: site, FreqMHz: 3500, ResolutionM: 5})
	if !errors.As(err, &ve) || len(ve.Fields) != 1 || ve.Fields[0].Field != "scattering_reflections" || !strings.Contains(ve.Fields[0].Reason, fmt.Sprint(caps.MaxPixelsSR())) {
		t.Fatalf("a map with the scattering's reflections over the reduced cap: %v", err)
	}
	t.Logf("refused: %v", err)
	noS := sr
	noS.DiffuseScattering = 0
	if _, err := f.svc.StartMap(ctx, f.ent, raytracing.MapRequest{LayerID: f.layer, RadiusM: 20, Options: noS, Site: site, FreqMHz: 3500, ResolutionM: 5}); !errors.As(err, &ve) || ve.Fields[0].Field != "scattering_reflections" {
		t.Fatalf("a map with the scattering's reflections without scattering: %v", err)
	}
	bad := rd
	bad.Diffraction = false
	if _, err := f.svc.StartMap(ctx, f.ent, raytracing.MapRequest{LayerID: f.layer, RadiusM: 20, Options: bad, Site: site, FreqMHz: 3500, ResolutionM: 5}); !errors.As(err, &ve) || ve.Fields[0].Field != "reflection_diffraction" {
		t.Fatalf("an RD map without diffraction: %v", err)
	}
	m, err := f.svc.StartMap(ctx, f.ent, raytracing.MapRequest{LayerID: f.layer, RadiusM: 20, Options: rd, Site: site, FreqMHz: 3500, ResolutionM: 5})
	if err != nil {
		t.Fatalf("an RD map under the reduced cap: %v", err)
	}
	detach := m.Attach()
	defer detach()
	for after := 0; ; {
		evs, final, err := m.Next(ctx, after, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) > 0 {
			after = evs[len(evs)-1].Seq
		}
		if final && len(evs) == 0 {
			break
		}
	}
	_, _, sum, err := m.Result()
	if err != nil {
		t.Fatal(err)
	}
	var d raytracing.MapDetail
	if err := json.Unmarshal(sum.Detail, &d); err != nil || d.Kind != "raytrace" || d.LayerID != f.layer || d.Options != raytracing.EchoOptions(rd) {
		t.Fatalf("map detail %s (%v), want the options %+v", sum.Detail, err, rd)
	}
}
