package planner_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
	"linkplan/appliance/planner"
	"linkplan/engines/fspl"
)

// profilesOnly hides the terrain's PathSampler: the planner then bounds
// every path from sparse profiles, one stride at a time.
type profilesOnly struct {
	appliance.Terrain
	appliance.SparseRefiner
}

func (t profilesOnly) ProfileEvery(a, b appliance.LatLon, stepM float64, every int) (*appliance.PathProfile, error) {
	return t.Terrain.(appliance.SparseProfiler).ProfileEvery(a, b, stepM, every)
}

// lossOnly hides fspl's SampleLossBound.
type lossOnly struct{ *fspl.Engine }

func (e lossOnly) SampleLossBound() {} // not the planner's method

// TestSampledBoundsChangeNothing: the sampled bounds (one sample at a
// time, stopping at the proof) give the analysis of the sparse profiles,
// field for field: results, and the counts of evaluated, pruned and
// skipped towers and the missing tiles named, with receivers and towers
// on the sample pack's two tiles and beyond them (paths that cross a
// missing tile), for several strides (seed printed).
func TestSampledBoundsChangeNothing(t *testing.T) {
	s := seed(t)
	ter := rioTerrain(t)
	towers := ptrs(catalog.SyntheticInBox(appliance.BBox{MinLat: -23.4, MinLon: -44.4, MaxLat: -21.6, MaxLon: -42.6}, 6, s))
	if _, ok := ter.(planner.PathSampler); !ok {
		t.Fatal("the terrain pack is not a PathSampler: the test compares nothing")
	}
	r := rand.New(rand.NewPCG(s, 11))
	var pruned, skipped int
	for _, every := range []int{8, 4, 10, 12} {
		sampled := newPlanner(ter, towers, fspl.New())
		profiles := newPlanner(profilesOnly{ter, ter.(appliance.SparseRefiner)}, towers, fspl.New())
		engineOnly := newPlanner(ter, towers, lossOnly{fspl.New()})
		sampled.SparseEvery, profiles.SparseEvery, engineOnly.SparseEvery = every, every, every
		for i := 0; i < 40; i++ {
			// Receivers on S23W044 and S22W043 (the pack's tiles).
			req := request(-22.99+0.98*r.Float64(), -43.99+0.98*r.Float64())
			if i%2 == 1 {
				req = request(-21.99+0.98*r.Float64(), -42.99+0.98*r.Float64())
			}
			req.FreqMHz = []float64{700, 1800, 3500, 5800}[i%4]
			req.RxHeightM = []float64{3, 10, 30}[i%3]
			req.MaxAlternatives = i % 6
			req.MaxDistanceKm = []float64{10, 25, 40}[i%3]
			want, werr := profiles.AnalyzeLink(context.Background(), req)
			for name, p := range map[string]*planner.Planner{"sampled": sampled, "no SampleLossBound": engineOnly} {
				got, err := p.AnalyzeLink(context.Background(), req)
				if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
					t.Fatalf("every %d case %d %v: %s error %v, sparse profiles' %v", every, i, req.Receiver, name, err, werr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("every %d case %d %v: %s analysis differs from the sparse profiles':\n%+v\n%+v", every, i, req.Receiver, name, got, want)
				}
			}
			if want != nil {
				pruned, skipped = pruned+want.Pruned, skipped+want.SkippedNoTerrain
			}
		}
	}
	t.Logf("pruned %d, skipped for missing terrain %d", pruned, skipped)
	if pruned == 0 || skipped == 0 {
		t.Fatal("the cases do not exercise both the proof and the missing tiles")
	}
}
