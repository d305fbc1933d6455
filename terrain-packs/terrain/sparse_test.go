package terrain_test

import (
	"errors"
	"math"
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
	seed := testSeed(t)
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

// TestProfileEveryFrom: a sparse profile refined from a coarser one of the
// same path is ProfileEvery's, bit for bit, for Pack and Layered on random
// paths (the planner's ladder 32, 8, 2 and other strides); a prev of
// another shape or stride is ignored, never copied.
func TestProfileEveryFrom(t *testing.T) {
	p := openSample(t)
	l := terrain.NewLayered(p)
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 9))
	type both interface {
		appliance.SparseProfiler
		appliance.SparseRefiner
	}
	same := func(x, y *appliance.PathProfile) bool {
		if x.Len() != y.Len() || len(x.HeightsM) != len(y.HeightsM) || x.Sea != nil || x.ClutterClass != nil || x.VoidFilled != nil {
			return false
		}
		for i := range x.DistancesM {
			if math.Float64bits(x.DistancesM[i]) != math.Float64bits(y.DistancesM[i]) || math.Float64bits(x.HeightsM[i]) != math.Float64bits(y.HeightsM[i]) {
				return false
			}
		}
		return true
	}
	for _, src := range []struct {
		name string
		t    both
	}{{"pack", p}, {"layered", l}} {
		t.Run(src.name, func(t *testing.T) {
			for n := 0; n < 300; n++ {
				a := appliance.LatLon{Lat: -22.99 + 0.98*rng.Float64(), Lon: -43.99 + 0.98*rng.Float64()}
				b := appliance.LatLon{Lat: a.Lat + 0.3*(rng.Float64()-0.5), Lon: a.Lon + 0.3*(rng.Float64()-0.5)}
				if n%25 == 0 {
					b = a // co-located
				}
				step := []float64{30, 90, 250}[rng.IntN(3)]
				ladder := [][]int{{32, 8, 2}, {12, 6, 3}, {9, 2}, {8, 8}, {2, 4}}[rng.IntN(5)]
				var prev *appliance.PathProfile
				prevEvery := 0
				for _, every := range ladder {
					want, werr := src.t.ProfileEvery(a, b, step, every)
					var got *appliance.PathProfile
					var err error
					if prev == nil {
						got, err = want, werr
					} else {
						got, err = src.t.ProfileEveryFrom(prev, prevEvery, a, b, step, every)
					}
					if (werr == nil) != (err == nil) {
						t.Fatalf("%v→%v step %v every %d from %d: %v, want %v", a, b, step, every, prevEvery, err, werr)
					}
					if werr != nil {
						break
					}
					if !same(got, want) {
						t.Fatalf("%v→%v step %v every %d from %d: differs from ProfileEvery", a, b, step, every, prevEvery)
					}
					prev, prevEvery = got, every
				}
			}
			// A prev of another path is ignored, not copied.
			a, b := appliance.LatLon{Lat: -22.5, Lon: -43.5}, appliance.LatLon{Lat: -22.6, Lon: -43.3}
			other, err := src.t.ProfileEvery(a, appliance.LatLon{Lat: -22.7, Lon: -43.2}, 90, 8)
			if err != nil {
				t.Fatal(err)
			}
			want, err := src.t.ProfileEvery(a, b, 90, 2)
			if err != nil {
				t.Fatal(err)
			}
			got, err := src.t.ProfileEveryFrom(other, 8, a, b, 90, 2)
			if err != nil || !same(got, want) {
				t.Fatalf("a prev of another shape was used: %v", err)
			}
			// A prev of the path is copied, not sampled again.
			prev, err := src.t.ProfileEvery(a, b, 90, 8)
			if err != nil || prev.Len() < 3 {
				t.Fatal(err)
			}
			prev.HeightsM[1] = 12345
			if got, err = src.t.ProfileEveryFrom(prev, 8, a, b, 90, 2); err != nil || got.HeightsM[4] != 12345 {
				t.Fatalf("sample 8 was not taken from prev: %v", err)
			}
		})
	}
}

// testSeed returns TERRAIN_SEED when set, else a fresh seed, and logs it
// so that a failing random test can be replayed.
func testSeed(t testing.TB) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv("TERRAIN_SEED"), 10, 64); err == nil {
		seed = v
	}
	t.Logf("seed %d (rerun with TERRAIN_SEED=%d)", seed, seed)
	return seed
}
