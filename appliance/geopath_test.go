package appliance_test

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"linkplan/appliance"
)

// TestFastPointsNearPoint: FastPoints is within a centimetre of Point on
// random paths from the equator to 70°, 50 m to 300 km long, sampled every
// 5 to 250 m, and exact at both ends; across the antimeridian too.
func TestFastPointsNearPoint(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("GEO_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("seed %d (rerun with GEO_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 5))
	worst := 0.0
	var buf []appliance.LatLon
	check := func(a, b appliance.LatLon, stepM float64) {
		t.Helper()
		pp := appliance.NewProfilePath(a, b, stepM)
		buf = pp.FastPoints(buf)
		if len(buf) != pp.Steps+1 || buf[0] != pp.Point(0) || buf[pp.Steps] != pp.Point(pp.Steps) {
			t.Fatalf("%v→%v every %g m: %d points or ends differ", a, b, stepM, len(buf))
		}
		for i, q := range buf {
			d := q.DistanceM(pp.Point(i))
			worst = max(worst, d)
			if d > 0.01 {
				t.Fatalf("%v→%v every %g m: sample %d of %d is %.4f m from Point", a, b, stepM, i, pp.Steps, d)
			}
		}
	}
	for range 3000 {
		a := appliance.LatLon{Lat: -70 + 140*rng.Float64(), Lon: -180 + 360*rng.Float64()}
		b := a.Destination(360*rng.Float64(), math.Exp(math.Log(50)+rng.Float64()*math.Log(6000)))
		check(a, b, 5+245*rng.Float64())
	}
	check(appliance.LatLon{Lat: -10, Lon: 179.9}, appliance.LatLon{Lat: -10.1, Lon: -179.8}, 30)      // antimeridian
	check(appliance.LatLon{Lat: -22.95, Lon: -43.24}, appliance.LatLon{Lat: -22.95, Lon: -43.24}, 90) // one point
	t.Logf("largest distance from Point: %.2g m", worst)
}
