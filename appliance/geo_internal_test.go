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
