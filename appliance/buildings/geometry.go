package buildings

import (
	"fmt"
	"math"
	"sort"

	"linkplan/appliance"
)

// box is an axis-aligned bounding box in a local frame, metres.
type box struct{ x0, y0, x1, y1 float64 }

func boxOf(r []xy) box {
	b := box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, p := range r {
		b.x0, b.y0, b.x1, b.y1 = min(b.x0, p.x), min(b.y0, p.y), max(b.x1, p.x), max(b.y1, p.y)
	}
	return b
}

func (b box) holds(c box) bool { return b.x0 <= c.x0 && c.x1 <= b.x1 && b.y0 <= c.y0 && c.y1 <= b.y1 }

// meeting is a pair of edges that meet: edge ea of ring ra and edge eb of
// ring rb (ra ≤ rb; ea < eb when ra == rb).
type meeting struct{ ra, ea, rb, eb int }

// meetingEdges finds two edges of the rings that meet (touching counts):
// two non-adjacent edges of one ring, or edges of two rings a < b for
// which check(a, b) is true (nil: every pair). It sweeps the edges in x
// with a bounding-box prefilter, so rings and edges far apart cost
// nothing; the answer is the first meeting in the sweep's order (by the
// edges' west end, then ring, then edge), the same on every run.
func meetingEdges(rings [][]xy, check func(a, b int) bool) (meeting, bool) {
	type edge struct {
		b    box
		r, i int
	}
	n := 0
	for _, r := range rings {
		n += len(r)
	}
	edges := make([]edge, 0, n)
	for ri, r := range rings {
		for i := range r {
			p, q := r[i], r[(i+1)%len(r)]
			edges = append(edges, edge{box{min(p.x, q.x), min(p.y, q.y), max(p.x, q.x), max(p.y, q.y)}, ri, i})
		}
	}
	sort.Slice(edges, func(i, j int) bool {
		a, b := edges[i], edges[j]
		if a.b.x0 != b.b.x0 {
			return a.b.x0 < b.b.x0
		}
		if a.r != b.r {
			return a.r < b.r
		}
		return a.i < b.i
	})
	active := make([]edge, 0, 64)
	for _, e := range edges {
		k := 0
		for _, a := range active {
			if a.b.x1 >= e.b.x0 {
				active[k] = a
				k++
			}
		}
		active = active[:k]
		for _, a := range active {
			if a.b.y0 > e.b.y1 || e.b.y0 > a.b.y1 {
				continue
			}
			m := meeting{a.r, a.i, e.r, e.i}
			if m.ra > m.rb || (m.ra == m.rb && m.ea > m.eb) {
				m = meeting{e.r, e.i, a.r, a.i}
			}
			if m.ra == m.rb {
				nr := len(rings[m.ra])
				if m.eb == m.ea+1 || (m.ea == 0 && m.eb == nr-1) {
					continue // neighbours share a vertex
				}
			} else if check != nil && !check(m.ra, m.rb) {
				continue
			}
			r1, r2 := rings[m.ra], rings[m.rb]
			if segsCross(r1[m.ea], r1[(m.ea+1)%len(r1)], r2[m.eb], r2[(m.eb+1)%len(r2)]) {
				return m, true
			}
		}
		active = append(active, e)
	}
	return meeting{}, false
}

// ringsReason validates the rings of one polygon (outer first, then the
// holes) against each other: each ring simple, every hole inside the
// outer ring without touching it, and no hole touching, crossing or
// holding another (overlapping holes would make their overlap solid again
// under the scene's even-odd rule). It returns "" when they are usable.
func ringsReason(rs [][]xy) string {
	if m, ok := meetingEdges(rs, nil); ok {
		switch {
		case m.ra == m.rb && m.ra == 0:
			return fmt.Sprintf("outer ring crosses itself (edges %d and %d)", m.ea+1, m.eb+1)
		case m.ra == m.rb:
			return fmt.Sprintf("hole %d crosses itself (edges %d and %d)", m.ra, m.ea+1, m.eb+1)
		case m.ra == 0:
			return fmt.Sprintf("hole %d is not inside the outer ring (it meets it at edge %d)", m.rb, m.eb+1)
		default:
			return fmt.Sprintf("holes %d and %d overlap (edges %d and %d meet)", m.ra, m.rb, m.ea+1, m.eb+1)
		}
	}
	if len(rs) == 1 {
		return ""
	}
	// No two edges meet: one vertex tells whether a ring lies inside another.
	for h := 1; h < len(rs); h++ {
		if !pointInRing(rs[h][0], rs[0]) {
			return fmt.Sprintf("hole %d is not inside the outer ring", h)
		}
	}
	if a, b, ok := nestedRings(rs[1:], func(i, j int) bool { return true }); ok {
		return fmt.Sprintf("hole %d lies inside hole %d", a+1, b+1)
	}
	return ""
}

// nestedRings finds a ring lying inside another among rings none of whose
// edges meet (i inside j, for pairs where check(i, j)), sweeping their
// bounding boxes in x.
func nestedRings(rs [][]xy, check func(i, j int) bool) (int, int, bool) {
	bs := make([]box, len(rs))
	order := make([]int, len(rs))
	for i, r := range rs {
		bs[i], order[i] = boxOf(r), i
	}
	sort.Slice(order, func(a, b int) bool {
		if bs[order[a]].x0 != bs[order[b]].x0 {
			return bs[order[a]].x0 < bs[order[b]].x0
		}
		return order[a] < order[b]
	})
	for k, i := range order {
		for _, j := range order[k+1:] {
			if bs[j].x0 > bs[i].x1 {
				break
			}
			if bs[i].holds(bs[j]) && check(j, i) && pointInRing(rs[j][0], rs[i]) {
				return j, i, true
			}
			if bs[j].holds(bs[i]) && check(i, j) && pointInRing(rs[i][0], rs[j]) {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// partsReason validates the parts of a multipolygon against each other,
// each part given as its rings (outer first) in one common frame: no edge
// of one part meets an edge of another, and no part lies inside another
// (a part standing in another's courtyard is fine). Duplicated or
// overlapping parts would duplicate walls. It returns "" when they are
// usable.
func partsReason(parts [][][]xy) string {
	var rings [][]xy
	var owner []int
	for pi, p := range parts {
		for _, r := range p {
			rings = append(rings, r)
			owner = append(owner, pi)
		}
	}
	if m, ok := meetingEdges(rings, func(a, b int) bool { return owner[a] != owner[b] }); ok {
		return fmt.Sprintf("parts %d and %d overlap or touch", owner[m.ra]+1, owner[m.rb]+1)
	}
	outers := make([][]xy, len(parts))
	for i, p := range parts {
		outers[i] = p[0]
	}
	inside := func(i, j int) bool { // part i's outer ring in part j's area (not in one of its holes)
		for _, h := range parts[j][1:] {
			if pointInRing(outers[i][0], h) {
				return false
			}
		}
		return true
	}
	if a, b, ok := nestedRings(outers, inside); ok {
		return fmt.Sprintf("part %d lies inside part %d", a+1, b+1)
	}
	return ""
}

// footprintsReason validates the parts of a multipolygon against each
// other in the frame of the first part ("" for a single part).
func footprintsReason(fps []appliance.Footprint) string {
	if len(fps) < 2 {
		return ""
	}
	f := localFrame(fps[0].Outer[0])
	parts := make([][][]xy, len(fps))
	for i, fp := range fps {
		parts[i] = append(parts[i], f.ring(fp.Outer))
		for _, h := range fp.Holes {
			parts[i] = append(parts[i], f.ring(h))
		}
	}
	return partsReason(parts)
}
