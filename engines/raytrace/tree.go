package raytrace

import (
	"context"
	"fmt"
	"math"

	"linkplan/appliance"
)

// halfplane is the set of points p with n·p ≥ c.
type halfplane struct {
	n vec2
	c float64
}

// region is a conservative 2D (top view) superset of the receivers a
// reflection node can reach: every half-plane holds, and the distance from
// apex lies in [rLo, rHi] (rHi may be +Inf).
type region struct {
	all      bool
	hp       [3]halfplane
	nhp      int8
	apex     vec2
	rLo, rHi float64
}

func (r *region) contains(p vec2) bool {
	if r.all {
		return true
	}
	for i := int8(0); i < r.nhp; i++ {
		h := &r.hp[i]
		if h.n.dot(p) < h.c {
			return false
		}
	}
	if r.rLo > 0 || !math.IsInf(r.rHi, 1) {
		d := p.sub(r.apex).norm()
		if d < r.rLo || d > r.rHi {
			return false
		}
	}
	return true
}

// containsAny reports whether the region holds one of ps, whose bounding
// box is [lo, hi]: the box is tested first (one test for a region far from
// every receiver), with a slack of regionTol so that rounding never leaves
// out a point contains would hold.
func (r *region) containsAny(ps []vec2, lo, hi vec2) bool {
	if r.all {
		return len(ps) > 0
	}
	for i := int8(0); i < r.nhp; i++ {
		h := &r.hp[i]
		c := lo // the box's corner farthest along h.n
		if h.n.X > 0 {
			c.X = hi.X
		}
		if h.n.Y > 0 {
			c.Y = hi.Y
		}
		if h.n.dot(c) < h.c-regionTol {
			return false
		}
	}
	if r.rLo > 0 || !math.IsInf(r.rHi, 1) {
		near := vec2{max(lo.X-r.apex.X, 0, r.apex.X-hi.X), max(lo.Y-r.apex.Y, 0, r.apex.Y-hi.Y)}
		far := vec2{max(math.Abs(lo.X-r.apex.X), math.Abs(hi.X-r.apex.X)), max(math.Abs(lo.Y-r.apex.Y), math.Abs(hi.Y-r.apex.Y))}
		if near.norm() > r.rHi+regionTol || far.norm() < r.rLo-regionTol {
			return false
		}
	}
	for _, p := range ps {
		if r.contains(p) {
			return true
		}
	}
	return false
}

// node is one reflection of the image tree: the image of the transmitter
// in surface surf after the reflections of its ancestors.
type node struct {
	parent int32
	surf   int32
	order  int8
	img    vec3
	reg    region
	// ap is the aperture: the part of the surface the beam can light,
	// heights [zLo, zHi] and 2D distances [dMin, dMax] from img; hasAp is
	// false where it is unbounded (the ground).
	hasAp                bool
	zLo, zHi, dMin, dMax float64
}

// zRange returns the heights that rays from an apex at height zi through
// an aperture (heights [zLo, zHi], 2D distances [dMin, dMax] from the
// apex) have at 2D distances [r0, r1] from the apex. The height is
// bilinear in (z, r/d), so its extremes are at the corners.
func zRange(zi, zLo, zHi, dMin, dMax, r0, r1 float64) (lo, hi float64) {
	if dMin < 1e-9 {
		return math.Inf(-1), math.Inf(1)
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, z := range [2]float64{zLo, zHi} {
		for _, q := range [2]float64{r0 / dMax, r1 / dMin} {
			v := zi + (z-zi)*q
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	return lo - regionTol, hi + regionTol
}

// imageTree holds every reflection sequence (up to the maximum order) that
// survives the geometric pruning for one transmitter position and one
// range of receiver heights. It is read-only once built.
type imageTree struct {
	tx    vec3
	nodes []node
}

// regionTol widens every half-plane, metres, so that pruning is never
// decided by rounding.
const regionTol = 1e-6

// buildTree enumerates reflection sequences breadth first. A child
// surface must face its parent image (the image lies in front of it), and
// its 2D extent must meet its parent's region. rxZMin and rxZMax bound the
// receivers' heights, metres AMSL, for the band pruning of walls.
//
// The tree grows about as the number of surfaces to the power of the
// order: 50 buildings give 120 thousand third-order nodes, 144 buildings
// two million (7 s to build and about 400 MB). A tree whose third order
// would pass MaxThirdOrderNodes is refused with a validation error naming
// max_reflections, before it can hold a worker for minutes or its memory;
// ctx is checked for every parent node.
//
// rxPts, when not nil, are the only receivers the tree serves (top view):
// a node of the last order whose region holds none of them is left out
// (it has no children and reflections would never evaluate it), so that a
// few receivers of a linkplan raytrace eval cell do not pay for the whole
// second order (920,187 nodes, 180 MB, for the first T-Mobile cell of the
// Dortmund campus at 30 m; 10,155 kept for one of its receivers). The nodes kept, and their order, are those of the full tree
// that any of the receivers reaches: the answers are the same. The
// MaxThirdOrderNodes cap counts the sequences enumerated, left out or not
// (it bounds the time as well as the memory).
func (s *Scene) buildTree(ctx context.Context, tx vec3, maxOrder int, ground bool, rxZMin, rxZMax float64, rxPts []vec2, naive bool) (*imageTree, error) {
	t := &imageTree{tx: tx}
	var nodes nodeChunks
	root := node{parent: -1, surf: -1, img: tx, reg: region{all: true, rHi: math.Inf(1)}}
	prevStart, prevEnd := -1, 0 // -1: the parent is the root
	var lo, hi vec2             // rxPts' bounding box
	if len(rxPts) > 0 {
		lo, hi = rxPts[0], rxPts[0]
		for _, p := range rxPts {
			lo, hi = vec2{min(lo.X, p.X), min(lo.Y, p.Y)}, vec2{max(hi.X, p.X), max(hi.Y, p.Y)}
		}
	}
	for order := 1; order <= maxOrder; order++ {
		start := nodes.n
		seqs := 0 // the order's reflection sequences, those left out for rxPts included
		for pi := prevStart; pi < prevEnd; pi++ {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("raytrace image tree: %w", err)
			}
			if order >= 3 && seqs > MaxThirdOrderNodes {
				v := &appliance.ValidationError{}
				v.Add("max_reflections", "%d reflections over this scene make more than %d third-order reflection sequences to trace; ask for 2 reflections or use a smaller building layer",
					maxOrder, MaxThirdOrderNodes)
				return nil, v.Err()
			}
			p := root
			if pi >= 0 {
				p = *nodes.at(pi)
			}
			for si := range s.surfaces {
				if int32(si) == p.surf {
					continue
				}
				sf := &s.surfaces[si]
				if sf.kind == kindGround && !ground {
					continue
				}
				if c, ok := s.child(&p, int32(pi), int32(si), sf, order, rxZMin, rxZMax); ok {
					seqs++
					if naive {
						c.reg = region{all: true, rHi: math.Inf(1)}
					} else if order == maxOrder && rxPts != nil && !c.reg.containsAny(rxPts, lo, hi) {
						continue
					}
					nodes.add(c)
				} else if naive && sf.facing(p.img) {
					seqs++
					nodes.add(node{parent: int32(pi), surf: int32(si), order: int8(order),
						img: sf.mirror(p.img), reg: region{all: true, rHi: math.Inf(1)}})
				}
			}
			if pi < 0 {
				break
			}
		}
		prevStart, prevEnd = start, nodes.n
		if prevStart == prevEnd {
			break
		}
	}
	t.nodes = nodes.flatten()
	return t, nil
}

// nodeChunkLen is the number of nodes of one chunk of nodeChunks (about
// 2.5 MB).
const nodeChunkLen = 1 << 14

// nodeChunks collects a tree's nodes in fixed chunks while it grows, then
// flattens them once: appending to one slice copied the whole tree at
// every doubling (up to about 0.9 million nodes, 180 MB, for the
// second order over the Dortmund campus) in copies the garbage collector
// cannot interrupt, which held the other goroutines waiting on it; the
// image tree took 15 of 33 CPU seconds of a small linkplan raytrace eval.
type nodeChunks struct {
	chunks [][]node
	n      int
}

func (c *nodeChunks) add(nd node) {
	if c.n%nodeChunkLen == 0 {
		c.chunks = append(c.chunks, make([]node, 0, nodeChunkLen))
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = append(*last, nd)
	c.n++
}

func (c *nodeChunks) at(i int) *node { return &c.chunks[i/nodeChunkLen][i%nodeChunkLen] }

// flatten returns the nodes in one slice, in order.
func (c *nodeChunks) flatten() []node {
	out := make([]node, 0, c.n)
	for _, ch := range c.chunks {
		out = append(out, ch...)
	}
	return out
}

// MaxThirdOrderNodes bounds the third-order reflection sequences of one
// image tree (about 200 bytes each: 240 MB, about 4 s of building on one
// core; a 100-building layer stays under it). The first two orders are not bounded here: they grow as the
// square of the facing surfaces (the 398 buildings of the Dortmund campus
// make up to about 0.9 million second-order sequences, built in about a
// second), and a
// layer's size is capped per tier.
const MaxThirdOrderNodes = 1_200_000

// facing reports whether point p lies in front of the surface's plane.
func (sf *surface) facing(p vec3) bool { return sf.n.dot(p)-sf.d > regionTol }

// mirror returns the image of p in the surface's plane.
func (sf *surface) mirror(p vec3) vec3 { return p.sub(sf.n.scale(2 * (sf.n.dot(p) - sf.d))) }

// child returns the node of reflecting parent p's image in surface sf, if
// the geometry allows it.
func (s *Scene) child(p *node, pIdx, si int32, sf *surface, order int, rxZMin, rxZMax float64) (node, bool) {
	img := p.img
	c := node{parent: pIdx, surf: si, order: int8(order)}
	switch sf.kind {
	case kindGround, kindRoof:
		if !(img.Z > sf.d+regionTol) {
			return c, false
		}
		c.img = vec3{img.X, img.Y, 2*sf.d - img.Z}
		c.reg = p.reg                         // a horizontal mirror keeps the top view of every ray
		c.reg.rLo, c.reg.rHi = 0, math.Inf(1) // but not the parent's height band
		if sf.kind == kindRoof && p.reg.all {
			c.reg = s.roofRegion(img.xy(), sf)
		}
		return c, true
	}
	// wall
	dist := sf.n.X*img.X + sf.n.Y*img.Y - sf.d
	if !(dist > regionTol) {
		return c, false
	}
	a, b := sf.a, sf.b
	if !p.reg.all {
		var ok bool
		if a, b, ok = clipSegment(a, b, &p.reg); !ok {
			return c, false
		}
	}
	zLo, zHi := sf.zb, sf.zt
	r0 := distPointSeg(img.xy(), a, b)
	r1 := max(a.sub(img.xy()).norm(), b.sub(img.xy()).norm())
	if p.hasAp {
		lo, hi := zRange(p.img.Z, p.zLo, p.zHi, p.dMin, p.dMax, r0, r1)
		zLo, zHi = max(zLo, lo), min(zHi, hi)
		if zLo > zHi {
			return c, false
		}
	}
	c.hasAp, c.zLo, c.zHi, c.dMin, c.dMax = true, zLo, zHi, r0, r1
	c.img = sf.mirror(img)
	apex := c.img.xy()
	r := region{apex: apex, rHi: math.Inf(1)}
	// the wedge from the apex through a→b, beyond the wall line
	if !wedge(&r, apex, a, b) {
		return c, false
	}
	r.hp[2] = halfplane{n: vec2{sf.n.X, sf.n.Y}, c: sf.d - regionTol}
	r.nhp = 3
	// radial band for receivers between rxZMin and rxZMax
	lo, hi, ok := band(img.Z, zLo, zHi, rxZMin, rxZMax, r0, r1)
	if !ok {
		// no receiver height is reachable through this wall, but deeper
		// reflections may still be: keep the node with an empty band
		lo, hi = math.Inf(1), math.Inf(1)
	}
	r.rLo, r.rHi = lo, hi
	c.reg = r
	return c, true
}

// wedge sets r.hp[0:2] to the 2D cone from apex through segment a→b.
func wedge(r *region, apex, a, b vec2) bool {
	da, db := a.sub(apex), b.sub(apex)
	cr := da.cross(db)
	if math.Abs(cr) < 1e-9*da.norm()*db.norm() {
		return false
	}
	if cr < 0 {
		da, db = db, da
		a, b = b, a
	}
	// inside: left of apex→a (cross(da, p−apex) ≥ 0) and right of apex→b
	n0 := vec2{-da.Y, da.X}
	n1 := vec2{db.Y, -db.X}
	scale0, scale1 := 1/n0.norm(), 1/n1.norm()
	n0, n1 = n0.scale(scale0), n1.scale(scale1)
	r.hp[0] = halfplane{n: n0, c: n0.dot(apex) - regionTol}
	r.hp[1] = halfplane{n: n1, c: n1.dot(apex) - regionTol}
	return true
}

// band returns the range of 2D distances from the apex at which rays from
// an apex at height zi, through an aperture spanning heights [zb, zt] at 2D
// distances [dmin, dmax], are between rxZMin and rxZMax beyond the
// aperture.
func band(zi, zb, zt, rxZMin, rxZMax, dmin, dmax float64) (lo, hi float64, ok bool) {
	if zi >= zb-regionTol && zi <= zt+regionTol {
		return dmin, math.Inf(1), true
	}
	above := zb > zi // the aperture is above the apex: rays rise
	z1, z2 := rxZMin, rxZMax
	if above {
		z1 = max(z1, zi)
	} else {
		z2 = min(z2, zi)
	}
	if z1 > z2 {
		return 0, 0, false
	}
	gmin, gmax := math.Inf(1), 0.0
	for _, z := range [2]float64{zb, zt} {
		for _, zr := range [2]float64{z1, z2} {
			g := (zr - zi) / (z - zi)
			if g < 0 {
				g = 0
			}
			gmin, gmax = min(gmin, g), max(gmax, g)
		}
	}
	lo = max(dmin, dmin*gmin) - regionTol
	hi = dmax*gmax + regionTol
	if hi < lo {
		return 0, 0, false
	}
	return lo, hi, true
}

func distPointSeg(p, a, b vec2) float64 {
	d := b.sub(a)
	l2 := d.dot(d)
	t := 0.0
	if l2 > 0 {
		t = max(0, min(1, p.sub(a).dot(d)/l2))
	}
	return p.sub(a.add(d.scale(t))).norm()
}

// clipSegment clips a→b to the region's half-planes (its band is not
// used), reporting false when nothing is left.
func clipSegment(a, b vec2, r *region) (vec2, vec2, bool) {
	t0, t1 := 0.0, 1.0
	d := b.sub(a)
	for i := int8(0); i < r.nhp; i++ {
		h := &r.hp[i]
		fa := h.n.dot(a) - h.c
		fd := h.n.dot(d)
		if fd == 0 {
			if fa < 0 {
				return a, b, false
			}
			continue
		}
		t := -fa / fd
		if fd > 0 {
			t0 = max(t0, t)
		} else {
			t1 = min(t1, t)
		}
		if t0 >= t1 {
			return a, b, false
		}
	}
	return a.add(d.scale(t0)), a.add(d.scale(t1)), true
}

// roofRegion is the top view of the rays from apex through a roof: the
// cone from apex through the roof polygon's vertices, or everything when
// the apex is over the roof or the cone is wider than a half-plane.
func (s *Scene) roofRegion(apex vec2, sf *surface) region {
	all := region{all: true, rHi: math.Inf(1)}
	b := &s.buildings[sf.bld]
	p := &b.polys[sf.poly]
	outer := p.rings[0]
	if p.contains(apex) {
		return all
	}
	// reference direction: to the first vertex; angles relative to it
	ref := outer[0].sub(apex)
	lo, hi := 0.0, 0.0
	var va, vb vec2 = outer[0], outer[0]
	for _, v := range outer {
		d := v.sub(apex)
		ang := math.Atan2(ref.cross(d), ref.dot(d))
		if ang < lo {
			lo, va = ang, v
		}
		if ang > hi {
			hi, vb = ang, v
		}
	}
	if hi-lo >= math.Pi-1e-6 {
		return all
	}
	r := region{apex: apex, rHi: math.Inf(1)}
	if !wedge(&r, apex, va, vb) {
		return all
	}
	r.nhp = 2
	return r
}
