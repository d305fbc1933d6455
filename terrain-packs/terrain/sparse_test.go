package terrain_test

import (
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/terrain-packs/terrain"
)

// TestProfileEvery: a sparse profile is, bit for bit, the subsequence
// 0, every, 2·every, … and the last sample of the full profile, for Pack
// and Layered, on random paths of the sample pack (seed printed).
func TestProfileEvery(t *testing.T) {
	p := openSample(t)
	l := terrain.NewLayered(p)
	seed := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv("TERRAIN_SEED"), 10, 64); err == nil {
		seed = v
	}
	t.Logf("seed %d (rerun with TERRAIN_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	type both interface {
		appliance.Terrain
		appliance.SparseProfiler
	}
	for _, src := range []struct {
		name string
		t    both
	}{{"pack", p}, {"layered", l}} {
		t.Run(src.name, func(t *testing.T) {
			for n := 0; n < 200; n++ {
				// S23W044 is in the sample; a few paths leave it.
				a := appliance.LatLon{Lat: -22.99 + 0.98*rng.Float64(), Lon: -43.99 + 0.98*rng.Float64()}
				b := appliance.LatLon{Lat: a.Lat + 0.3*(rng.Float64()-0.5), Lon: a.Lon + 0.3*(rng.Float64()-0.5)}
				if n%20 == 0 {
					b = a // co-located
				}
				step := []float64{30, 90, 250}[rng.IntN(3)]
				every := []int{1, 2, 3, 8, 16, 1000}[rng.IntN(6)]
				full, ferr := src.t.Profile(a, b, step)
				sp, serr := src.t.ProfileEvery(a, b, step, every)
				var fm, sm *appliance.TileMissingError
				if errors.As(ferr, &fm) {
					// The sparse profile may step over the samples on the
					// first missing tile (and succeed, or meet another
					// missing tile further on); when it fails, it is a
					// missing tile too (seed 1795607557017942831 found
					// S22W045 past the full profile's S23W045).
					if serr != nil && !errors.As(serr, &sm) {
						t.Fatalf("%v→%v: full %v, sparse %v", a, b, ferr, serr)
					}
					continue
				}
				if ferr != nil || serr != nil {
					t.Fatalf("%v→%v step %v every %d: %v / %v", a, b, step, every, ferr, serr)
				}
				var want []int
				for i := 0; i < full.Len(); i += every {
					want = append(want, i)
				}
				if want[len(want)-1] != full.Len()-1 {
					want = append(want, full.Len()-1)
				}
				if sp.Len() != len(want) || len(sp.HeightsM) != len(want) {
					t.Fatalf("%v→%v step %v every %d: %d samples, want %d", a, b, step, every, sp.Len(), len(want))
				}
				for k, i := range want {
					if sp.DistancesM[k] != full.DistancesM[i] || sp.HeightsM[k] != full.HeightsM[i] {
						t.Fatalf("sample %d (full %d): %v m, %v m; full %v m, %v m", k, i, sp.DistancesM[k], sp.HeightsM[k], full.DistancesM[i], full.HeightsM[i])
					}
				}
				if every > 1 && (sp.Sea != nil || sp.ClutterClass != nil || sp.VoidFilled != nil) {
					t.Fatal("a sparse profile carries heights and distances only")
				}
			}
		})
	}
}
