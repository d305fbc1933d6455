package raytracing_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/buildings"
	"linkplan/appliance/coverage"
	"linkplan/appliance/raytracing"
	"linkplan/engines/raytrace"
)

// TestFlatGroundWarned: a building layer the terrain packs do not cover
// with its margin is traced on flat ground at 0 m; every answer made
// from it says so (raytrace_flat_ground): a link job's engine warnings
// and summary, a map's summary. It was said only by the layer's index
// (GET /buildings/layers/{id}), while the other engines say
// missing_terrain. A layer the packs cover raises no such warning.
func TestFlatGroundWarned(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const la, lo = -22.90, -43.006 // 600 m inside the sample pack's edge: its 1 km margin is not covered
	bl := &buildings.Service{Store: f.db, Index: f.index}
	edge, idx, err := bl.Upload(ctx, f.ent, buildings.UploadRequest{Name: "edge"}, blockGeoJSON(la, lo, 6), appliance.AuditEntry{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(idx.Ground, "flat ground") {
		t.Fatalf("the layer's ground is %q; the test needs a layer the packs do not cover", idx.Ground)
	}
	for _, c := range []struct {
		name, layer string
		lat, lon    float64
		flat        bool
	}{
		{"layer beyond the terrain", edge.ID, la, lo, true},
		{"layer on the terrain", f.layer, lat0, lon0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			fr := raytrace.NewFrame(appliance.LatLon{Lat: c.lat, Lon: c.lon})
			tx, rx := fr.ToLatLon(-150, 140), fr.ToLatLon(5, -5)
			j, err := f.svc.SubmitLinks(ctx, f.ent, raytracing.LinkRequest{Route: raytracing.RouteAnalyze, LayerID: c.layer, FreqMHz: 3500, Options: raytracing.DefaultOptions(),
				Links: []raytracing.Link{{TowerID: "t", Tx: raytracing.Site{Lat: tx.Lat, Lon: tx.Lon, HeightM: 30}, Rx: raytracing.Site{Lat: rx.Lat, Lon: rx.Lon, HeightM: 1.5}, Budget: true, EIRPDBm: 58, RxThresholdDBm: -95}}})
			if err != nil {
				t.Fatal(err)
			}
			done := f.wait(t, j.ID)
			if done.State != appliance.JobSucceeded || done.Result == nil {
				t.Fatalf("job %s: %s", done.State, done.Error)
			}
			var out raytracing.LinkJobResult
			readResult(t, f, j.ID, &out)
			var sum raytracing.LinkJobSummary
			if err := json.Unmarshal(done.Result.Summary, &sum); err != nil {
				t.Fatal(err)
			}
			opt := raytracing.DefaultMapOptions()
			opt.DiffuseScattering = 0
			_, msum, _ := runMap(t, f, f.ent, raytracing.MapRequest{LayerID: c.layer, RadiusM: 20, Options: opt, FreqMHz: 3500, RxHeightM: 1.5, ResolutionM: 10,
				Site: &coverage.Site{Pos: tx, HeightM: 30, EIRPDBm: 55, AzimuthDeg: math.NaN()}})
			for _, got := range []struct {
				what string
				ws   []appliance.Warning
			}{{"the link's engine warnings", out.Links[0].EngineWarnings}, {"the job's summary", sum.Warnings}, {"the map's summary", msum.Warnings}} {
				if hasCode(got.ws, raytrace.WarnFlatGround) != c.flat {
					t.Errorf("%s %v: %s present = %v, want %v", got.what, got.ws, raytrace.WarnFlatGround, !c.flat, c.flat)
				}
			}
			for _, w := range out.Links[0].EngineWarnings {
				if w.Code == raytrace.WarnFlatGround {
					t.Logf("%s: %s", w.Code, w.Message)
				}
			}
		})
	}
}
