package spatial

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tidwall/rtree"

	"linkplan/appliance"
)

var _ appliance.TowerIndex = (*Index)(nil)

// Snapshot is one immutable state of the index.
type Snapshot struct {
	tree rtree.RTreeG[*appliance.Tower]
	byID map[string]*appliance.Tower

	sortOnce sync.Once
	sorted   []*appliance.Tower // every tower by id, built on first use
}

// all returns every tower of the snapshot ordered by id, sorting once per
// snapshot rather than once per request.
func (s *Snapshot) all() []*appliance.Tower {
	s.sortOnce.Do(func() {
		s.sorted = make([]*appliance.Tower, 0, len(s.byID))
		for _, t := range s.byID {
			s.sorted = append(s.sorted, t)
		}
		slices.SortFunc(s.sorted, func(a, b *appliance.Tower) int { return cmp.Compare(a.ID, b.ID) })
	})
	return s.sorted
}

// Index is a concurrency-safe tower index: readers load the current
// snapshot without locking; writers (Replace, Upsert) are serialised by mu,
// because rtree's lazy Copy marks the source tree and must not run twice
// concurrently on one snapshot.
type Index struct {
	mu  sync.Mutex
	cur atomic.Pointer[Snapshot]
}

// New returns an index holding towers. The towers must not be modified
// afterwards.
func New(towers []*appliance.Tower) *Index {
	ix := &Index{}
	ix.Replace(towers)
	return ix
}

func build(towers []*appliance.Tower) *Snapshot {
	s := &Snapshot{byID: make(map[string]*appliance.Tower, len(towers))}
	for _, t := range towers {
		if old, ok := s.byID[t.ID]; ok {
			s.tree.Delete(pt(old), pt(old), old)
		}
		s.byID[t.ID] = t
		s.tree.Insert(pt(t), pt(t), t)
	}
	return s
}

func pt(t *appliance.Tower) [2]float64 { return [2]float64{t.Lon, t.Lat} }

// Replace swaps in a new snapshot holding exactly towers. A later tower with
// the same id as an earlier one wins.
func (ix *Index) Replace(towers []*appliance.Tower) {
	s := build(towers)
	ix.mu.Lock()
	ix.cur.Store(s)
	ix.mu.Unlock()
}

// Upsert adds or replaces one tower (copy-on-write). It copies the id map,
// O(n) in the number of towers (about 10 ms for 140,000), which suits
// manual registrations, not bulk loads (use Replace).
func (ix *Index) Upsert(t *appliance.Tower) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	{
		old := ix.cur.Load()
		s := &Snapshot{tree: *old.tree.Copy(), byID: make(map[string]*appliance.Tower, len(old.byID)+1)}
		for k, v := range old.byID {
			s.byID[k] = v
		}
		if prev, ok := s.byID[t.ID]; ok {
			s.tree.Delete(pt(prev), pt(prev), prev)
		}
		s.byID[t.ID] = t
		s.tree.Insert(pt(t), pt(t), t)
		ix.cur.Store(s)
	}
}

// Delete removes the towers with these ids (copy-on-write, O(n) as
// Upsert); unknown ids are ignored.
func (ix *Index) Delete(ids ...string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	old := ix.cur.Load()
	s := &Snapshot{tree: *old.tree.Copy(), byID: make(map[string]*appliance.Tower, len(old.byID))}
	for k, v := range old.byID {
		s.byID[k] = v
	}
	for _, id := range ids {
		if prev, ok := s.byID[id]; ok {
			s.tree.Delete(pt(prev), pt(prev), prev)
			delete(s.byID, id)
		}
	}
	ix.cur.Store(s)
}

// Len returns the number of towers.
func (ix *Index) Len() int { return len(ix.cur.Load().byID) }

// Get returns the tower with the given id.
func (ix *Index) Get(id string) (*appliance.Tower, bool) {
	t, ok := ix.cur.Load().byID[id]
	return t, ok
}

type hit struct {
	t *appliance.Tower
	d float64
}

func (s *Snapshot) within(p appliance.LatLon, radiusM float64) []hit {
	b := appliance.Around(p, radiusM)
	var hits []hit
	o := p.Origin()
	s.tree.Search([2]float64{b.MinLon, b.MinLat}, [2]float64{b.MaxLon, b.MaxLat}, func(_, _ [2]float64, t *appliance.Tower) bool {
		if d := o.DistanceM(t.Pos()); d <= radiusM {
			hits = append(hits, hit{t, d})
		}
		return true
	})
	slices.SortFunc(hits, func(a, b hit) int {
		if c := cmp.Compare(a.d, b.d); c != 0 {
			return c
		}
		return cmp.Compare(a.t.ID, b.t.ID)
	})
	return hits
}

func towersOf(hits []hit) []*appliance.Tower {
	out := make([]*appliance.Tower, len(hits))
	for i, h := range hits {
		out[i] = h.t
	}
	return out
}

// VisitWithin calls fn for every tower within radiusM metres of p, in no
// particular order, with its distance from p (appliance.TowerVisitor).
func (ix *Index) VisitWithin(p appliance.LatLon, radiusM float64, fn func(t *appliance.Tower, distM float64)) {
	b := appliance.Around(p, radiusM)
	o := p.Origin() // the receiver's trigonometry once, not per tower (bit-identical)
	ix.cur.Load().tree.Search([2]float64{b.MinLon, b.MinLat}, [2]float64{b.MaxLon, b.MaxLat}, func(_, _ [2]float64, t *appliance.Tower) bool {
		if d := o.DistanceM(t.Pos()); d <= radiusM {
			fn(t, d)
		}
		return true
	})
}

// Within returns the towers within radiusM metres of p, nearest first.
func (ix *Index) Within(p appliance.LatLon, radiusM float64) []*appliance.Tower {
	return towersOf(ix.cur.Load().within(p, radiusM))
}

// Nearest returns up to k towers nearest to p within maxM metres (maxM <= 0
// means no bound), nearest first.
func (ix *Index) Nearest(p appliance.LatLon, k int, maxM float64) []*appliance.Tower {
	if k <= 0 {
		return nil
	}
	s := ix.cur.Load()
	limit := math.Pi * appliance.EarthRadiusM
	if maxM > 0 && maxM < limit {
		limit = maxM
	}
	for r := math.Min(5000, limit); ; r = math.Min(r*4, limit) {
		hits := s.within(p, r)
		if len(hits) >= k || r >= limit {
			if len(hits) > k {
				hits = hits[:k]
			}
			return towersOf(hits)
		}
	}
}

// InBox returns the towers inside b, ordered by id. The slice is the
// caller's.
func (ix *Index) InBox(b appliance.BBox) []*appliance.Tower {
	s := ix.cur.Load()
	if mn, mx := s.tree.Bounds(); b.MinLon <= mn[0] && b.MinLat <= mn[1] && b.MaxLon >= mx[0] && b.MaxLat >= mx[1] {
		return slices.Clone(s.all()) // the box holds every tower
	}
	var out []*appliance.Tower
	s.tree.Search([2]float64{b.MinLon, b.MinLat}, [2]float64{b.MaxLon, b.MaxLat}, func(_, _ [2]float64, t *appliance.Tower) bool {
		out = append(out, t)
		return true
	})
	slices.SortFunc(out, func(a, b *appliance.Tower) int { return cmp.Compare(a.ID, b.ID) })
	return out
}
