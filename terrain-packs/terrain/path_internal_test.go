package terrain

import (
	"math"
	"math/rand/v2"
	"testing"

	"linkplan/appliance"
)

// TestPathBoxMargin: every sample of a path CoversPath would consider
// (up to 0.1 rad long, ends within 80° of the equator) lies inside the
// end points' box widened by pathBoxMarginDeg, on random paths up to the
// limits (seed fixed: the margin is a bound, not a statistic).
func TestPathBoxMargin(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 17))
	for n := 0; n < 20000; n++ {
		a := appliance.LatLon{Lat: -80 + 160*rng.Float64(), Lon: -170 + 340*rng.Float64()}
		θ, δ := 2*math.Pi*rng.Float64(), 0.1*math.Sqrt(rng.Float64())
		b := a.Destination(θ*180/math.Pi, δ*appliance.EarthRadiusM)
		if math.Abs(b.Lat) > 80 || math.Abs(a.Lon-b.Lon) > 90 {
			continue
		}
		path := appliance.NewProfilePath(a, b, 500)
		m := pathBoxMarginDeg(path.LengthM/appliance.EarthRadiusM, math.Max(math.Abs(a.Lat), math.Abs(b.Lat)))
		for i := 0; i <= path.Steps; i++ {
			q := path.Point(i)
			if q.Lat < math.Min(a.Lat, b.Lat)-m || q.Lat > math.Max(a.Lat, b.Lat)+m || q.Lon < math.Min(a.Lon, b.Lon)-m || q.Lon > math.Max(a.Lon, b.Lon)+m {
				t.Fatalf("%v→%v: sample %d at %v is outside the box (margin %g°)", a, b, i, q, m)
			}
		}
	}
}
