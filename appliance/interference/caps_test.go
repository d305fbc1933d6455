package interference

import (
	"errors"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
)

// TestIssue26_TierCaps: interference maps follow the best-server caps of
// each tier, viewsheds the heatmap caps.
func TestIssue26_TierCaps(t *testing.T) {
	net := func(n int, radiusM, resM float64) Request {
		r := Request{}
		for range n {
			tr := tx(-22.93, -43.30, 0, 5500, 20, appliance.EngineFSPL, radiusM)
			tr.ResolutionM = resM
			r.Transmitters = append(r.Transmitters, tr)
		}
		return r
	}
	exact := func(r Request) Request {
		for i := range r.Transmitters {
			r.Transmitters[i].Exact = true
		}
		return r
	}
	for _, c := range []struct {
		name  string
		tier  appliance.Tier
		req   Request
		field string // "" ok, "forbidden"
	}{
		{"free has none", appliance.TierFree, net(2, 5000, 250), "forbidden"},
		{"starter 10 transmitters", appliance.TierStarter, net(10, 15000, 90), ""},
		{"starter 11 transmitters", appliance.TierStarter, net(11, 15000, 90), "sites"},
		{"starter radius", appliance.TierStarter, net(2, 16000, 90), "sites[0].radius_km"},
		{"pro 30 km", appliance.TierPro, net(20, 30000, 90), ""},
		{"pro resolution", appliance.TierPro, net(2, 30000, 30), "sites[1].resolution_m"},
		{"business 30 m", appliance.TierBusiness, net(200, 50000, 30), ""},
		{"business 201", appliance.TierBusiness, net(201, 50000, 30), "sites"},
		// exact: π·r²/res² summed over the transmitters within MaxExactPixels
		{"starter exact 2 of 5 km", appliance.TierStarter, exact(net(2, 5000, 90)), ""},          // 19,393
		{"starter exact 3 of 10 km", appliance.TierStarter, exact(net(3, 10000, 90)), "exact"},   // 116,355
		{"pro exact 3 of 10 km", appliance.TierPro, exact(net(3, 10000, 90)), ""},                // 116,355
		{"pro exact 10 of 10 km", appliance.TierPro, exact(net(10, 10000, 90)), "exact"},         // 387,850
		{"business exact 3 of 30 km", appliance.TierBusiness, exact(net(3, 30000, 90)), "exact"}, // 1,047,198
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckCaps(c.tier, c.req)
			switch c.field {
			case "":
				if err != nil {
					t.Fatal(err)
				}
			case "forbidden":
				if !errors.Is(err, appliance.ErrForbidden) {
					t.Fatalf("got %v", err)
				}
			default:
				var ve *appliance.ValidationError
				if !errors.As(err, &ve) || !hasField(ve, c.field) {
					t.Fatalf("error %v does not name %s", err, c.field)
				}
			}
		})
	}
	vs := coverage.ViewshedRequest{Site: appliance.LatLon{Lat: -22.9, Lon: -43.2}, HeightM: 20, RxHeightM: 10, FreqMHz: 5800, RadiusM: 5000, ResolutionM: 250}
	if err := CheckViewshedCaps(appliance.TierFree, vs); err != nil {
		t.Fatal(err)
	}
	vs.ResolutionM = 90
	if err := CheckViewshedCaps(appliance.TierFree, vs); err == nil {
		t.Fatal("Free viewshed at 90 m accepted")
	}
	// an exact viewshed: the cap of an exact heatmap of one transmitter
	vs.Exact, vs.ResolutionM = true, 250
	if err := CheckViewshedCaps(appliance.TierFree, vs); !fieldErr(err, "exact") {
		t.Fatalf("Free exact viewshed: %v", err)
	}
	vs.RadiusM, vs.ResolutionM = 15000, 90 // 87,266 pixels
	if err := CheckViewshedCaps(appliance.TierStarter, vs); !fieldErr(err, "exact") {
		t.Fatalf("Starter exact 15 km viewshed: %v", err)
	}
	if err := CheckViewshedCaps(appliance.TierPro, vs); err != nil {
		t.Fatalf("Pro exact 15 km viewshed: %v", err)
	}
}

func fieldErr(err error, field string) bool {
	var ve *appliance.ValidationError
	return errors.As(err, &ve) && hasField(ve, field)
}
