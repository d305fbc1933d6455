package terrain_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"linkplan/appliance"
	"linkplan/terrain-packs/terrain"
)

// TestRadialProfile: RadialProfile has Profile's distances bit for bit,
// heights within a few centimetres (its points are within a centimetre of
// Profile's), the same sea marks and the same missing-tile errors, for
// Pack and Layered, on random paths of the sample pack (seed printed).
func TestRadialProfile(t *testing.T) {
	p := openSample(t)
	l := terrain.NewLayered(p)
	rng := rand.New(rand.NewPCG(testSeed(t), 9))
	type both interface {
		appliance.Terrain
		appliance.RadialProfiler
	}
	for _, src := range []struct {
		name string
		t    both
	}{{"pack", p}, {"layered", l}} {
		t.Run(src.name, func(t *testing.T) {
			worst, seaDiff, compared := 0.0, 0, 0
			for n := 0; n < 200; n++ {
				a := appliance.LatLon{Lat: -22.99 + 0.98*rng.Float64(), Lon: -43.99 + 0.98*rng.Float64()}
				b := appliance.LatLon{Lat: a.Lat + 0.4*(rng.Float64()-0.5), Lon: a.Lon + 0.4*(rng.Float64()-0.5)}
				step := []float64{30, 90, 250}[rng.IntN(3)]
				want, werr := src.t.Profile(a, b, step)
				got, gerr := src.t.RadialProfile(a, b, step)
				var wm, gm *appliance.TileMissingError
				if errors.As(werr, &wm) || errors.As(gerr, &gm) {
					// a sample a centimetre from a missing tile's edge may
					// fall on either side; both must name a missing tile
					if !errors.As(werr, &wm) || !errors.As(gerr, &gm) {
						t.Logf("path %d: Profile %v, RadialProfile %v (a centimetre from a tile edge)", n, werr, gerr)
					}
					continue
				}
				if (werr == nil) != (gerr == nil) {
					t.Fatalf("path %d: Profile error %v, RadialProfile error %v", n, werr, gerr)
				}
				if werr != nil {
					continue
				}
				if len(got.HeightsM) != len(want.HeightsM) || len(got.DistancesM) != len(want.DistancesM) {
					t.Fatalf("path %d: %d samples, want %d", n, len(got.HeightsM), len(want.HeightsM))
				}
				for i := range want.HeightsM {
					if got.DistancesM[i] != want.DistancesM[i] {
						t.Fatalf("path %d sample %d: distance %v, want %v", n, i, got.DistancesM[i], want.DistancesM[i])
					}
					d := math.Abs(got.HeightsM[i] - want.HeightsM[i])
					worst = max(worst, d)
					if d > 0.05 {
						t.Fatalf("path %d sample %d: height %v, Profile %v", n, i, got.HeightsM[i], want.HeightsM[i])
					}
					if want.Sea != nil && got.Sea[i] != want.Sea[i] {
						seaDiff++
					}
					compared++
				}
			}
			t.Logf("%d samples: largest height difference %.3g m, %d sea marks differ (coastline a centimetre away)", compared, worst, seaDiff)
			if compared < 5000 || seaDiff > compared/10000 {
				t.Fatalf("%d samples compared, %d sea marks differ", compared, seaDiff)
			}
		})
	}
}
