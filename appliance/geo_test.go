package appliance_test

import (
	"math"
	"testing"

	"linkplan/appliance"
)

func TestDistanceAndBearingKnownValues(t *testing.T) {
	deg := appliance.EarthRadiusM * math.Pi / 180 // one degree of great circle, metres
	rio := appliance.LatLon{Lat: -22.9068, Lon: -43.1729}
	sp := appliance.LatLon{Lat: -23.5505, Lon: -46.6333}
	bsb := appliance.LatLon{Lat: -15.7939, Lon: -47.8828}
	for _, tc := range []struct {
		name        string
		a, b        appliance.LatLon
		distM, bear float64
		tolM        float64
	}{
		// Exact on the sphere.
		{"one degree east on the equator", appliance.LatLon{}, appliance.LatLon{Lon: 1}, deg, 90, 1e-6},
		{"one degree north", appliance.LatLon{}, appliance.LatLon{Lat: 1}, deg, 0, 1e-6},
		{"one degree west", appliance.LatLon{}, appliance.LatLon{Lon: -1}, deg, 270, 1e-6},
		{"one degree south", appliance.LatLon{}, appliance.LatLon{Lat: -1}, deg, 180, 1e-6},
		{"pole to pole", appliance.LatLon{Lat: 90}, appliance.LatLon{Lat: -90}, 180 * deg, 180, 1e-6},
		// City pairs: an independent haversine (Python math, same sphere);
		// the published straight-line figures are about 361 km and 932 km.
		{"Rio to São Paulo", rio, sp, 360749.3232, 257.8772251, 1e-3},
		{"São Paulo to Rio", sp, rio, 360749.3232, 79.2423839, 1e-3},
		{"Rio to Brasília", rio, bsb, 932349.7310, 327.1913619, 1e-3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := tc.a.DistanceM(tc.b); math.Abs(d-tc.distM) > tc.tolM {
				t.Errorf("distance %.6f m, want %.6f", d, tc.distM)
			}
			if b := tc.a.BearingDeg(tc.b); math.Abs(b-tc.bear) > 1e-6 {
				t.Errorf("bearing %.9f°, want %.9f", b, tc.bear)
			}
		})
	}
}

func TestDestinationAndIntermediateRoundTrip(t *testing.T) {
	rio := appliance.LatLon{Lat: -22.9068, Lon: -43.1729}
	for _, bear := range []float64{0, 45, 137, 270, 359} {
		for _, d := range []float64{10, 1000, 50000, 400000} {
			q := rio.Destination(bear, d)
			if got := rio.DistanceM(q); math.Abs(got-d) > 1e-6*math.Max(1, d) {
				t.Fatalf("destination %g m at %g°: distance back %g", d, bear, got)
			}
			if got := rio.BearingDeg(q); math.Abs(math.Mod(got-bear+540, 360)-180) > 1e-6 {
				t.Fatalf("destination at %g°: bearing back %g", bear, got)
			}
			mid := rio.Intermediate(q, 0.5)
			if a, b := rio.DistanceM(mid), mid.DistanceM(q); math.Abs(a-b) > 1e-6*math.Max(1, d) || math.Abs(a+b-d) > 1e-6*math.Max(1, d) {
				t.Fatalf("midpoint of %g m: %g + %g", d, a, b)
			}
		}
	}
}

func TestAroundHoldsTheCircle(t *testing.T) {
	p := appliance.LatLon{Lat: -30, Lon: -51}
	b := appliance.Around(p, 50000)
	for bear := 0.0; bear < 360; bear += 7.5 {
		if q := p.Destination(bear, 49999); !b.Contains(q) {
			t.Fatalf("point at %g° 50 km outside the box %+v", bear, b)
		}
	}
}

func TestTowerVisibility(t *testing.T) {
	public := appliance.Tower{Source: appliance.SourceAnatel}
	user := appliance.Tower{Source: appliance.SourceUser, OwnerTenantID: "t1"}
	for _, tc := range []struct {
		name   string
		t      appliance.Tower
		tenant string
		want   bool
	}{
		{"public tower, any tenant", public, "t2", true},
		{"own user tower", user, "t1", true},
		{"other tenant's user tower", user, "t2", false},
		{"operator view", user, "", true},
	} {
		if got := tc.t.VisibleTo(tc.tenant); got != tc.want {
			t.Errorf("%s: got %v", tc.name, got)
		}
	}
}

func TestTierOrderAndCaps(t *testing.T) {
	if !appliance.TierPro.AtLeast(appliance.TierStarter) || appliance.TierStarter.AtLeast(appliance.TierPro) || appliance.TierErased.AtLeast(appliance.TierFree) {
		t.Fatal("tier order broken")
	}
	for tier, want := range map[appliance.Tier]int{appliance.TierFree: 20, appliance.TierStarter: 100, appliance.TierPro: 500, appliance.TierBusiness: -1, appliance.TierEnterprise: 10000} {
		if got := tier.TowersPerKey(); got != want {
			t.Errorf("%s: %d towers per key, SPEC §8.1 says %d", tier, got, want)
		}
	}
	if _, err := appliance.ParseTier("erased"); err == nil {
		t.Error("erased parsed as a tier a client may ask for")
	}
	if tr, err := appliance.ParseTier("business"); err != nil || tr != appliance.TierBusiness {
		t.Errorf("ParseTier(business) = %v, %v", tr, err)
	}
}
