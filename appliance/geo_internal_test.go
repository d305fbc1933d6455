package appliance

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestGreatCircleAtIsIntermediate: the precomputed great circle gives the
// points of the original formula bit for bit (terrain profiles, and so every
// engine result, are unchanged by it).
func TestGreatCircleAtIsIntermediate(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	old := func(p, q LatLon, f float64) LatLon { // the formula before GreatCircle
		φ1, λ1 := rad(p.Lat), rad(p.Lon)
		φ2, λ2 := rad(q.Lat), rad(q.Lon)
		δ := p.DistanceM(q) / EarthRadiusM
		if δ < 1e-12 {
			return p
		}
		a := math.Sin((1-f)*δ) / math.Sin(δ)
		b := math.Sin(f*δ) / math.Sin(δ)
		x := a*math.Cos(φ1)*math.Cos(λ1) + b*math.Cos(φ2)*math.Cos(λ2)
		y := a*math.Cos(φ1)*math.Sin(λ1) + b*math.Cos(φ2)*math.Sin(λ2)
		z := a*math.Sin(φ1) + b*math.Sin(φ2)
		return LatLon{Lat: deg(math.Atan2(z, math.Hypot(x, y))), Lon: deg(math.Atan2(y, x))}
	}
	for range 2000 {
		p := LatLon{Lat: -34 + 40*rng.Float64(), Lon: -74 + 40*rng.Float64()}
		q := p.Destination(360*rng.Float64(), 200000*rng.Float64())
		g := p.GreatCircleTo(q)
		for _, f := range []float64{0, rng.Float64(), rng.Float64(), 1} {
			if got, want := g.At(f), old(p, q, f); got != want {
				t.Fatalf("%v -> %v at %g: %v, want %v", p, q, f, got, want)
			}
		}
	}
}

// TestDistanceAndBearingAreTheOriginalFormulas: DistanceM, Origin.DistanceM
// and BearingDeg, which compute each sine and cosine once, give the
// formulas that called them twice bit for bit (every distance, pruning
// bound and engine result is unchanged by them).
func TestDistanceAndBearingAreTheOriginalFormulas(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 5))
	oldDist := func(p, q LatLon) float64 {
		φ1, φ2 := rad(p.Lat), rad(q.Lat)
		dφ, dλ := φ2-φ1, rad(q.Lon-p.Lon)
		a := math.Sin(dφ/2)*math.Sin(dφ/2) + math.Cos(φ1)*math.Cos(φ2)*math.Sin(dλ/2)*math.Sin(dλ/2)
		return 2 * EarthRadiusM * math.Asin(math.Min(1, math.Sqrt(a)))
	}
	oldBear := func(p, q LatLon) float64 {
		φ1, φ2 := rad(p.Lat), rad(q.Lat)
		dλ := rad(q.Lon - p.Lon)
		y := math.Sin(dλ) * math.Cos(φ2)
		x := math.Cos(φ1)*math.Sin(φ2) - math.Sin(φ1)*math.Cos(φ2)*math.Cos(dλ)
		b := math.Mod(deg(math.Atan2(y, x))+360, 360)
		if b >= 360 {
			b = 0
		}
		return b
	}
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	for i := range 20000 {
		p := LatLon{Lat: -89 + 178*rng.Float64(), Lon: -180 + 360*rng.Float64()}
		q := p.Destination(360*rng.Float64(), 200000*rng.Float64())
		if i%4 == 0 { // anywhere on the globe, antipodes included
			q = LatLon{Lat: -90 + 180*rng.Float64(), Lon: -180 + 360*rng.Float64()}
		}
		o := p.Origin()
		if got, want := p.DistanceM(q), oldDist(p, q); !same(got, want) || !same(o.DistanceM(q), want) {
			t.Fatalf("%v -> %v: %v, %v, want %v", p, q, got, o.DistanceM(q), want)
		}
		if got, want := p.BearingDeg(q), oldBear(p, q); !same(got, want) {
			t.Fatalf("bearing %v -> %v: %v, want %v", p, q, got, want)
		}
		if got, want := o.BearingFromDeg(q), oldBear(q, p); !same(got, want) {
			t.Fatalf("bearing %v -> %v from the origin: %v, want %v", q, p, got, want)
		}
	}
}
