package planner

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"linkplan/appliance"
)

// TestCandHeapPopsInSortedOrder: the heap yields exactly the order of a full
// sort under candLess, ties on bound and distance included.
func TestCandHeapPopsInSortedOrder(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for trial := range 200 {
		n := rng.IntN(300)
		cs := make([]cand, n)
		for i := range cs {
			// Few distinct values, so that ties on bound and distance are common.
			cs[i] = cand{t: &appliance.Tower{ID: fmt.Sprintf("t%04d", rng.IntN(10000))}, optimist: float64(rng.IntN(5)), distM: float64(rng.IntN(4))}
			cs[i].t.ID += fmt.Sprint("-", i) // ids are unique in a catalogue
		}
		want := slices.Clone(cs)
		slices.SortFunc(want, func(a, b cand) int {
			if candLess(&a, &b) {
				return -1
			}
			if candLess(&b, &a) {
				return 1
			}
			return 0
		})
		h := candHeap(cs)
		h.init()
		for i := range want {
			if got := h.pop(); got.t != want[i].t {
				t.Fatalf("trial %d, n %d: pop %d = %s, want %s", trial, n, i, got.t.ID, want[i].t.ID)
			}
		}
		if len(h) != 0 {
			t.Fatalf("trial %d: %d left", trial, len(h))
		}
	}
}
