package raytracing_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
	"linkplan/appliance/raytracing"
	"linkplan/engines/raytrace"
)

// TestMapPixelsWithinFrame: StartMap refuses, with a 422 naming the map's
// area, a map whose pixel centres (not only its requested box) reach
// beyond the engine's frame. The grid rounds its pixel count up, so the
// last centres may lie up to half a pixel past the box: such a map was
// accepted and then failed in every band with a bare "failed".
func TestMapPixelsWithinFrame(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	l, _, err := f.db.BuildingLayer(f.ent.TenantID, f.layer, false)
	if err != nil {
		t.Fatal(err)
	}
	fr := raytrace.NewFrame(appliance.LatLon{Lat: (l.Bounds.MinLat + l.Bounds.MaxLat) / 2, Lon: (l.Bounds.MinLon + l.Bounds.MaxLon) / 2})
	opt := raytracing.DefaultMapOptions()
	opt.DiffuseScattering = 0
	for _, c := range []struct {
		name    string
		east, r float64 // transmitter east of the layer's centre and radius, metres
		res     float64 // resolution, metres
		refused bool
	}{
		// the box spans 19.1 to 19.9 km east: two 790 m pixels, the second
		// (rounded up) centred at 20.285 km
		{"last pixel centre past the frame", 19500, 400, 790, true},
		{"box past the frame", 19800, 400, 50, true},
		{"within the frame", 19000, 400, 400, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := raytracing.MapRequest{LayerID: f.layer, RadiusM: c.r, Options: opt, FreqMHz: 3500, RxHeightM: 1.5, ResolutionM: c.res,
				Site: &coverage.Site{Pos: fr.ToLatLon(c.east, 0), HeightM: 30, EIRPDBm: 55, AzimuthDeg: math.NaN()}}
			if !c.refused {
				if r, _, _ := runMap(t, f, f.ent, req); r.Width*r.Height == 0 {
					t.Fatal("the map within the frame has no pixel")
				}
				return
			}
			_, err := f.svc.StartMap(ctx, f.ent, req)
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("StartMap: %v; want a validation error", err)
			}
			if ve.Fields[0].Field != "radius_m" {
				t.Errorf("the refusal names %q: %v", ve.Fields[0].Field, err)
			}
			t.Logf("refused: %v", err)
		})
	}
}
