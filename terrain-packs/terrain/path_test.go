package terrain_test

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/terrain-packs/terrain"
)

// TestSamplePath: the heights SamplePath gives, in any order, are the
// full profile's bit for bit, and its points and distances are the
// profile's; in index order it fails at the profile's sample with the
// profile's error; and a path CoversPath accepts never fails, for Pack
// and Layered on random paths in and out of the sample pack's tiles
// (seed printed).
func TestSamplePath(t *testing.T) {
	p := openSample(t)
	seed := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv("TERRAIN_SEED"), 10, 64); err == nil {
		seed = v
	}
	t.Logf("seed %d (rerun with TERRAIN_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 13))
	type sampler interface {
		appliance.Terrain
		SamplePath(path *appliance.ProfilePath, idx []int, yield func(i int, heightM float64) bool) error
		CoversPath(path *appliance.ProfilePath) bool
	}
	for _, src := range []struct {
		name string
		t    sampler
	}{{"pack", p}, {"layered", terrain.NewLayered(p)}, {"layered twice", terrain.NewLayered(p, p)}} {
		t.Run(src.name, func(t *testing.T) {
			covered, failed := 0, 0
			for n := 0; n < 400; n++ {
				// The pack holds S23W044 and S22W043; many paths leave them.
				a := appliance.LatLon{Lat: -22.99 + 1.98*rng.Float64(), Lon: -43.99 + 1.98*rng.Float64()}
				b := appliance.LatLon{Lat: a.Lat + 0.5*(rng.Float64()-0.5), Lon: a.Lon + 0.5*(rng.Float64()-0.5)}
				if n%40 == 0 {
					b = a // co-located
				}
				step := []float64{30, 90, 250}[rng.IntN(3)]
				path := appliance.NewProfilePath(a, b, step)
				full, ferr := src.t.Profile(a, b, step)
				all := make([]int, path.Steps+1)
				for i := range all {
					all[i] = i
				}
				var got []float64
				err := src.t.SamplePath(&path, all, func(i int, h float64) bool {
					if i != len(got) {
						t.Fatalf("sample %d given as the %dth", i, len(got))
					}
					got = append(got, h)
					return true
				})
				covers := src.t.CoversPath(&path)
				if covers {
					covered++
				}
				if ferr != nil {
					failed++
					if err == nil || err.Error() != ferr.Error() {
						t.Fatalf("%v→%v step %v: SamplePath error %v, Profile's %v", a, b, step, err, ferr)
					}
					if covers {
						t.Fatalf("%v→%v step %v: CoversPath, but Profile fails: %v", a, b, step, ferr)
					}
					continue
				}
				if err != nil || full.Len() != path.Steps+1 || len(got) != full.Len() {
					t.Fatalf("%v→%v step %v: %d samples, %v; profile %d", a, b, step, len(got), err, full.Len())
				}
				for i := range got {
					if math.Float64bits(got[i]) != math.Float64bits(full.HeightsM[i]) || math.Float64bits(path.DistanceM(i)) != math.Float64bits(full.DistancesM[i]) {
						t.Fatalf("%v→%v step %v sample %d: %v m at %v m, profile %v m at %v m", a, b, step, i, got[i], path.DistanceM(i), full.HeightsM[i], full.DistancesM[i])
					}
				}
				// Any order, stopping where yield says.
				perm := rng.Perm(len(all))
				stop := rng.IntN(len(all))
				seen := 0
				if err := src.t.SamplePath(&path, perm, func(i int, h float64) bool {
					if i != perm[seen] || math.Float64bits(h) != math.Float64bits(full.HeightsM[i]) {
						t.Fatalf("%v→%v: sample %d out of order or %v m, profile %v m", a, b, i, h, full.HeightsM[i])
					}
					seen++
					return seen <= stop
				}); err != nil || seen != stop+1 {
					t.Fatalf("%v→%v: %d samples before the stop at %d: %v", a, b, seen, stop+1, err)
				}
			}
			t.Logf("%d paths covered, %d failed", covered, failed)
			if covered == 0 || failed == 0 {
				t.Fatal("the paths do not exercise both covered and failing paths")
			}
		})
	}
}
