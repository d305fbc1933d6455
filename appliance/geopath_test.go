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

// TestArcBox: every sample of a path ArcBox bounds (up to 0.1 rad long,
// ends within 80° of the equator) lies inside its box, on random paths up
// to the limits (seed fixed: the margin is a bound, not a statistic); and
// it refuses what it does not bound.
func TestArcBox(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 17))
	for n := 0; n < 20000; n++ {
		a := appliance.LatLon{Lat: -80 + 160*rng.Float64(), Lon: -170 + 340*rng.Float64()}
		θ, δ := 2*math.Pi*rng.Float64(), 0.1*math.Sqrt(rng.Float64())
		b := a.Destination(θ*180/math.Pi, δ*appliance.EarthRadiusM)
		if math.Abs(b.Lat) > 80 || math.Abs(a.Lon-b.Lon) > 90 {
			continue
		}
		path := appliance.NewProfilePath(a, b, 500)
		box, ok := appliance.ArcBox(a, b, path.LengthM)
		if !ok {
			t.Fatalf("%v→%v (%g rad): no box", a, b, δ)
		}
		for i := 0; i <= path.Steps; i++ {
			if q := path.Point(i); !box.Contains(q) {
				t.Fatalf("%v→%v: sample %d at %v is outside the box %+v", a, b, i, q, box)
			}
		}
	}
	at := func(lat, lon float64) appliance.LatLon { return appliance.LatLon{Lat: lat, Lon: lon} }
	for _, tc := range []struct {
		name    string
		a, b    appliance.LatLon
		lengthM float64
	}{
		{"invalid end", at(-91, 0), at(0, 0), 1000},
		{"beyond 80°", at(-80.5, 0), at(-79.9, 0), 70000},
		{"longer than 0.1 rad", at(-10, -40), at(-10, -34), 660000},
		{"across the antimeridian", at(0, 179.9), at(0, -179.9), 22000},
		{"NaN length", at(0, 0), at(0, 0.1), math.NaN()},
	} {
		if _, ok := appliance.ArcBox(tc.a, tc.b, tc.lengthM); ok {
			t.Errorf("%s: ArcBox bounds it", tc.name)
		}
	}
}

// TestDiscBox: every sample of a path from a disc's centre to a random
// point inside it lies in the disc's box, on random discs up to the limits
// (seed fixed); and it refuses what it does not bound.
func TestDiscBox(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 19))
	for n := 0; n < 4000; n++ {
		c := appliance.LatLon{Lat: -75 + 150*rng.Float64(), Lon: -170 + 340*rng.Float64()}
		radiusM := 0.1 * appliance.EarthRadiusM * rng.Float64()
		box, ok := appliance.DiscBox(c, radiusM)
		if !ok {
			continue
		}
		for k := 0; k < 5; k++ {
			q := c.Destination(360*rng.Float64(), radiusM*math.Sqrt(rng.Float64()))
			if k == 0 {
				q = c.Destination(360*rng.Float64(), radiusM) // on the edge
			}
			if c.DistanceM(q) > radiusM {
				continue
			}
			path := appliance.NewProfilePath(q, c, 2000)
			for i := 0; i <= path.Steps; i++ {
				if p := path.Point(i); !box.Contains(p) {
					t.Fatalf("disc %v %g m: sample %d at %v of the path from %v is outside %+v", c, radiusM, i, p, q, box)
				}
			}
		}
	}
	at := func(lat, lon float64) appliance.LatLon { return appliance.LatLon{Lat: lat, Lon: lon} }
	for _, tc := range []struct {
		name    string
		c       appliance.LatLon
		radiusM float64
	}{
		{"invalid centre", at(0, 181), 10},
		{"negative radius", at(0, 0), -1},
		{"NaN radius", at(0, 0), math.NaN()},
		{"radius above 0.1 rad", at(0, 0), 0.11 * appliance.EarthRadiusM},
		{"reaches beyond 80°", at(79.9, 0), 20000},
		{"across the antimeridian", at(0, 179.99), 5000},
	} {
		if _, ok := appliance.DiscBox(tc.c, tc.radiusM); ok {
			t.Errorf("%s: DiscBox bounds it", tc.name)
		}
	}
}
