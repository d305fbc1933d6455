package spatial_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"

	"linkplan/appliance"
	"linkplan/store/spatial"
)

func seed(t testing.TB) uint64 {
	s := uint64(42)
	if v, err := strconv.ParseUint(os.Getenv("SEED"), 10, 64); err == nil {
		s = v
	}
	t.Logf("SEED=%d", s)
	return s
}

// randomTowers spreads n towers over a box roughly the size of Brazil.
func randomTowers(n int, s uint64) []*appliance.Tower {
	r := rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
	out := make([]*appliance.Tower, n)
	for i := range out {
		out[i] = &appliance.Tower{ID: fmt.Sprintf("synthetic:%06d", i), Lat: -33 + 38*r.Float64(), Lon: -73 + 39*r.Float64()}
	}
	return out
}

// naiveWithin is the reference: a linear scan with exact distances.
func naiveWithin(towers []*appliance.Tower, p appliance.LatLon, radiusM float64) []*appliance.Tower {
	type h struct {
		t *appliance.Tower
		d float64
	}
	var hs []h
	for _, t := range towers {
		if d := p.DistanceM(t.Pos()); d <= radiusM {
			hs = append(hs, h{t, d})
		}
	}
	slices.SortFunc(hs, func(a, b h) int {
		if c := cmp.Compare(a.d, b.d); c != 0 {
			return c
		}
		return cmp.Compare(a.t.ID, b.t.ID)
	})
	out := make([]*appliance.Tower, len(hs))
	for i := range hs {
		out[i] = hs[i].t
	}
	return out
}

func ids(ts []*appliance.Tower) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

func TestWithinAndNearestMatchLinearScan(t *testing.T) {
	s := seed(t)
	towers := randomTowers(20000, s)
	ix := spatial.New(towers)
	r := rand.New(rand.NewPCG(s+1, s+2))
	for i := 0; i < 200; i++ {
		p := appliance.LatLon{Lat: -33 + 38*r.Float64(), Lon: -73 + 39*r.Float64()}
		radius := 1000 + 200000*r.Float64()
		want := naiveWithin(towers, p, radius)
		if got := ix.Within(p, radius); !slices.Equal(ids(got), ids(want)) {
			t.Fatalf("Within(%v, %.0f): got %d towers, want %d", p, radius, len(got), len(want))
		}
		k := 1 + r.IntN(10)
		all := naiveWithin(towers, p, 1e8)
		if got := ix.Nearest(p, k, 0); !slices.Equal(ids(got), ids(all[:k])) {
			t.Fatalf("Nearest(%v, %d): got %v want %v", p, k, ids(got), ids(all[:k]))
		}
	}
}

func TestEmptyAndBounded(t *testing.T) {
	ix := spatial.New(nil)
	p := appliance.LatLon{Lat: -22.9, Lon: -43.2}
	if got := ix.Nearest(p, 5, 0); len(got) != 0 {
		t.Fatalf("empty index returned %d", len(got))
	}
	ix.Upsert(&appliance.Tower{ID: "user:a", Lat: -22.0, Lon: -43.2}) // ~100 km north
	if got := ix.Nearest(p, 5, 50000); len(got) != 0 {
		t.Fatalf("bounded nearest returned a tower beyond the bound")
	}
	if got := ix.Nearest(p, 5, 0); len(got) != 1 {
		t.Fatalf("unbounded nearest: got %d", len(got))
	}
	ix.Upsert(&appliance.Tower{ID: "user:a", Lat: -22.91, Lon: -43.2}) // moved, same id
	if ix.Len() != 1 || len(ix.Within(p, 5000)) != 1 || len(ix.InBox(appliance.BBox{MinLat: -22.5, MinLon: -44, MaxLat: -21, MaxLon: -42})) != 0 {
		t.Fatalf("upsert did not replace the old position")
	}
}

func TestConcurrentReadersDuringReplace(t *testing.T) {
	s := seed(t)
	a, b := randomTowers(5000, s), randomTowers(7000, s+1)
	ix := spatial.New(a)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if n := len(ix.InBox(appliance.BBox{MinLat: -90, MinLon: -180, MaxLat: 90, MaxLon: 180})); n != 5000 && n != 7000 {
					t.Errorf("reader saw a half-built index: %d towers", n)
					return
				}
			}
		}()
	}
	for i := 0; i < 20; i++ {
		if i%2 == 0 {
			ix.Replace(b)
		} else {
			ix.Replace(a)
		}
	}
	wg.Wait()
}

func benchSetup(b *testing.B) ([]*appliance.Tower, *spatial.Index, appliance.LatLon) {
	towers := randomTowers(140000, 7)
	return towers, spatial.New(towers), appliance.LatLon{Lat: -22.9, Lon: -43.2}
}

func BenchmarkWithin50km140k(b *testing.B) {
	_, ix, p := benchSetup(b)
	b.ReportAllocs()
	for b.Loop() {
		ix.Within(p, 50000)
	}
}

func BenchmarkWithin50km140kNaive(b *testing.B) {
	towers, _, p := benchSetup(b)
	b.ReportAllocs()
	for b.Loop() {
		naiveWithin(towers, p, 50000)
	}
}

func BenchmarkNearest10of140k(b *testing.B) {
	_, ix, p := benchSetup(b)
	b.ReportAllocs()
	for b.Loop() {
		ix.Nearest(p, 10, 0)
	}
}

func TestConcurrentUpserts(t *testing.T) {
	ix := spatial.New(randomTowers(1000, seed(t)))
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				ix.Upsert(&appliance.Tower{ID: fmt.Sprintf("user:%d-%d", g, i), Lat: -22.9, Lon: -43.2})
			}
		}()
	}
	wg.Wait()
	if ix.Len() != 1100 {
		t.Fatalf("lost upserts: %d towers, want 1100", ix.Len())
	}
}

// TestDelete removes towers and checks every query against the linear
// scan of the rest; an unknown id changes nothing.
func TestDelete(t *testing.T) {
	s := seed(t)
	all := randomTowers(2000, s)
	ix := spatial.New(all)
	r := rand.New(rand.NewPCG(s, 7))
	gone := map[string]bool{}
	var ids []string
	for len(ids) < 300 {
		id := all[r.IntN(len(all))].ID
		if !gone[id] {
			gone[id] = true
			ids = append(ids, id)
		}
	}
	ix.Delete(append(ids, "no-such-tower")...)
	var rest []*appliance.Tower
	for _, tw := range all {
		if !gone[tw.ID] {
			rest = append(rest, tw)
		}
	}
	if ix.Len() != len(rest) {
		t.Fatalf("Len %d, want %d", ix.Len(), len(rest))
	}
	for _, id := range ids[:10] {
		if _, ok := ix.Get(id); ok {
			t.Errorf("deleted %s still found", id)
		}
	}
	for i := range 50 {
		p := appliance.LatLon{Lat: -33 + 38*r.Float64(), Lon: -73 + 39*r.Float64()}
		got, want := ix.Within(p, 300e3), naiveWithin(rest, p, 300e3)
		if len(got) != len(want) {
			t.Fatalf("query %d: %d towers within, want %d", i, len(got), len(want))
		}
		for j := range got {
			if got[j].ID != want[j].ID {
				t.Fatalf("query %d: tower %d is %s, want %s", i, j, got[j].ID, want[j].ID)
			}
		}
	}
}
