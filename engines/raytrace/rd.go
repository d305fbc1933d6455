package raytrace

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// Reflection–diffraction combinations (Options.ReflectionDiffraction):
// paths that meet one or two walls before a diffracting edge, one or two
// after it, or walls on both sides, with at most MaxReflections walls in
// all, each also with a ground reflection on either side. They are what
// carries the power of a street round its corner in an image-based UTD
// tracer: the wave guided down the main street by its walls meets the
// corner, and the diffracted wave is guided down the side street by the
// side street's walls.
//
// Each wall is replaced by the image of the antenna on its side (the
// image method): the diffraction point follows Keller's law between the
// two final images, the reflection points are where the image → edge
// lines cross the walls' planes, and the unfolded lengths are the caustic
// distances of the UTD spreading factor (exact for plane reflectors). The
// ground folds the heights of the unfolded line (rdSide). The pruning is
// conservative and symmetric in the two antennas (so that reciprocity
// holds): a wall sequence is a candidate on an antenna's side when its
// walls face the antenna (the second the first image) within
// DiffractionRangeM of it, the edge lies within DiffractionRangeM of the
// antenna, and the edge meets the top view of the beam the last wall
// reflects (the wedge from the antenna's image through the lit part of
// the wall, in front of it). The transmitter's candidates are listed once
// per request, the receiver's once per receiver, by rasterising the beams
// on the edge grid; every candidate is then decided by the exact
// construction and the visibility of each segment.

// rdWall is a sequence of one or two walls seen from an antenna (from
// the antenna outward), the antenna's images after each and the top view
// of the beam the last one reflects.
type rdWall struct {
	n    int8
	surf [2]int32
	img  [2]vec3
	reg  region
}

// beam returns the region of the rays from apex through segment a→b of
// wall sf, in front of the wall.
func beam(apex vec2, a, b vec2, sf *surface) (region, bool) {
	r := region{apex: apex, rHi: math.Inf(1)}
	if !wedge(&r, apex, a, b) {
		return r, false // seen edge-on: reflects nothing
	}
	r.hp[2] = halfplane{n: vec2{sf.n.X, sf.n.Y}, c: sf.d - regionTol}
	r.nhp = 3
	return r, true
}

// rdWalls lists the walls facing p within rangeM (2D) with p's images and
// beam regions, then, for maxOrder ≥ 2, every second wall within rangeM
// that faces the first image and meets its beam; appending to out.
func (s *Scene) rdWalls(p vec3, maxOrder int, rangeM float64, out []rdWall) []rdWall {
	first := len(out)
	for si := range s.surfaces {
		sf := &s.surfaces[si]
		if sf.kind != kindWall || !sf.facing(p) || distPointSeg(p.xy(), sf.a, sf.b) > rangeM {
			continue
		}
		img := sf.mirror(p)
		if r, ok := beam(img.xy(), sf.a, sf.b, sf); ok {
			out = append(out, rdWall{n: 1, surf: [2]int32{int32(si)}, img: [2]vec3{img}, reg: r})
		}
	}
	if maxOrder < 2 {
		return out
	}
	end := len(out)
	for k := first; k < end; k++ {
		w1 := out[k]
		for si := range s.surfaces {
			sf := &s.surfaces[si]
			if int32(si) == w1.surf[0] || sf.kind != kindWall || !sf.facing(w1.img[0]) || distPointSeg(p.xy(), sf.a, sf.b) > rangeM {
				continue
			}
			a, b, ok := clipSegment(sf.a, sf.b, &w1.reg)
			if !ok {
				continue
			}
			img := sf.mirror(w1.img[0])
			if r, ok := beam(img.xy(), a, b, sf); ok {
				out = append(out, rdWall{n: 2, surf: [2]int32{w1.surf[0], int32(si)}, img: [2]vec3{w1.img[0], img}, reg: r})
			}
		}
	}
	return out
}

// rdCandidate reports whether the walls of w may reflect between their
// antenna and edge ed (conservative; naive skips the beam test).
func (s *Scene) rdCandidate(w *rdWall, ed *edge, naive bool) bool {
	for k := int8(0); k < w.n; k++ {
		sf := &s.surfaces[w.surf[k]]
		// a face of the wedge itself: its reflection is the UTD's own term
		if math.Abs(sf.n.dot(ed.p0)-sf.d) < 1e-6 && math.Abs(sf.n.dot(ed.p1)-sf.d) < 1e-6 &&
			distPointSeg(ed.p0.xy(), sf.a, sf.b) < 1e-6 && distPointSeg(ed.p1.xy(), sf.a, sf.b) < 1e-6 {
			return false
		}
	}
	if naive {
		return true
	}
	if ed.vertical {
		return w.reg.contains(ed.p0.xy())
	}
	_, _, ok := clipSegment(ed.p0.xy(), ed.p1.xy(), &w.reg)
	return ok
}

// rdPair is a candidate wall of an edge.
type rdPair struct{ edge, wall int32 }

// rowSpan returns the grid columns [i0, i1] of row j that may meet region
// r (its half-planes; the radial band is not used), clamped to [lo, hi].
func (g *grid2) rowSpan(r *region, j, lo, hi int) (int, int) {
	y0 := g.minY + float64(j)*g.cell
	y1 := y0 + g.cell
	xlo := g.minX + float64(lo)*g.cell
	xhi := g.minX + float64(hi+1)*g.cell
	for k := int8(0); k < r.nhp; k++ {
		h := &r.hp[k]
		switch {
		case h.n.X > 0: // x ≥ (c − n.y·y)/n.x for some y of the row
			xlo = max(xlo, min(h.c-h.n.Y*y0, h.c-h.n.Y*y1)/h.n.X)
		case h.n.X < 0:
			xhi = min(xhi, min(h.c-h.n.Y*y0, h.c-h.n.Y*y1)/h.n.X)
		default:
			if max(h.n.Y*y0, h.n.Y*y1) < h.c {
				return 0, -1
			}
		}
	}
	if xlo > xhi {
		return 0, -1
	}
	return max(lo, g.clampX(xlo)), min(hi, g.clampX(xhi))
}

// rdPairs lists the candidate (edge, wall) pairs of an antenna at p: the
// walls are p's (rdWalls), the edges those within rangeM (2D) of p, in
// (edge, wall) order. stamp is scratch of one entry per edge.
func (s *Scene) rdPairs(p vec3, walls []rdWall, rangeM float64, naive bool, stamp []uint32, gen *uint32, out []rdPair) []rdPair {
	out = out[:0]
	g := &s.edgeGrid
	if len(s.edges) == 0 {
		return out
	}
	if naive {
		for ei := range s.edges {
			ed := &s.edges[ei]
			if distPointSeg(p.xy(), ed.p0.xy(), ed.p1.xy()) > rangeM {
				continue
			}
			for wi := range walls {
				if s.rdCandidate(&walls[wi], ed, true) {
					out = append(out, rdPair{int32(ei), int32(wi)})
				}
			}
		}
		return out
	}
	i0, i1 := g.clampX(p.X-rangeM), g.clampX(p.X+rangeM)
	j0, j1 := g.clampY(p.Y-rangeM), g.clampY(p.Y+rangeM)
	for wi := range walls {
		*gen++
		if *gen == 0 {
			clear(stamp)
			*gen = 1
		}
		r := &walls[wi].reg
		for j := j0; j <= j1; j++ {
			lo, hi := g.rowSpan(r, j, i0, i1)
			for i := lo; i <= hi; i++ {
				c := j*g.nx + i
				for _, ei := range g.items[g.start[c]:g.start[c+1]] {
					if stamp[ei] == *gen {
						continue
					}
					stamp[ei] = *gen
					ed := &s.edges[ei]
					if distPointSeg(p.xy(), ed.p0.xy(), ed.p1.xy()) <= rangeM && s.rdCandidate(&walls[wi], ed, false) {
						out = append(out, rdPair{ei, int32(wi)})
					}
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b rdPair) int {
		if a.edge != b.edge {
			return cmp.Compare(a.edge, b.edge)
		}
		return cmp.Compare(a.wall, b.wall)
	})
	return out
}

// rdTxIndex lists the transmitter's walls and its (edge, wall) pairs.
func (c *traceCtx) rdTxIndex() {
	s := c.s
	c.rdTx = s.rdWalls(c.tx, min(c.opt.MaxReflections, 2), c.opt.DiffractionRangeM, nil)
	var gen uint32
	c.rdTxPairs = s.rdPairs(c.tx, c.rdTx, c.opt.DiffractionRangeM, c.naive, make([]uint32, len(s.edges)), &gen, nil)
}

// pairsOf returns the pairs of edge ei in a sorted pair list.
func pairsOf(pairs []rdPair, ei int32) []rdPair {
	i := sort.Search(len(pairs), func(k int) bool { return pairs[k].edge >= ei })
	j := i
	for j < len(pairs) && pairs[j].edge == ei {
		j++
	}
	return pairs[i:j]
}

// rdEdge adds the reflection–diffraction paths of edge ed to rx: the
// transmitter's walls alone, the receiver's alone, then the pairs whose
// walls number at most MaxReflections, in pair-list order; with
// GroundReflection each comes without and with a ground reflection on the
// transmitter's side, the receiver's, or both (evalEdgeRD). w.rdRx holds
// the receiver's walls (set by diffractions).
func (w *worker) rdEdge(ei int32, ed *edge, rx vec3, a *accum) {
	if w.opt.MaxReflections < 1 {
		return
	}
	tx := pairsOf(w.rdTxPairs, ei)
	rxp := pairsOf(w.rdRxPairs, ei)
	for _, pt := range tx {
		w.evalEdgeGround(ed, rx, a, &w.rdTx[pt.wall], nil)
	}
	for _, pr := range rxp {
		w.evalEdgeGround(ed, rx, a, nil, &w.rdRx[pr.wall])
	}
	if w.opt.MaxReflections < 2 {
		return
	}
	for _, pt := range tx {
		ct := &w.rdTx[pt.wall]
		for _, pr := range rxp {
			cr := &w.rdRx[pr.wall]
			if int(ct.n+cr.n) <= w.opt.MaxReflections {
				w.evalEdgeGround(ed, rx, a, ct, cr)
			}
		}
	}
}

// evalEdgeGround evaluates the path of walls ct and cr without, then
// (GroundReflection) with a ground reflection on the transmitter's side,
// the receiver's, and both.
func (w *worker) evalEdgeGround(ed *edge, rx vec3, a *accum, ct, cr *rdWall) {
	w.evalEdgeRD(ed, rx, a, ct, cr, false, false)
	if w.opt.GroundReflection {
		w.evalEdgeRD(ed, rx, a, ct, cr, true, false)
		w.evalEdgeRD(ed, rx, a, ct, cr, false, true)
		w.evalEdgeRD(ed, rx, a, ct, cr, true, true)
	}
}

// rdVertex is one point of a reflection–diffraction path: a reflection on
// surface surf, or the diffraction point (surf = -1).
type rdVertex struct {
	p    vec3
	surf int32
}

// rdSide builds one side of the path backward from q: the walls of c
// (nil: none) with the antenna's images, and a ground reflection when
// ground is set. Walls are vertical and the ground horizontal, so the two
// kinds of mirror commute: the walls are crossed on the line from the
// images (their heights mirrored in the ground when ground is set) to q,
// the heights of that unfolded line are folded back above the ground, and
// the ground point is where the unfolded line crosses the ground's height.
// It appends the side's vertices to out in order from the antenna to q
// (the antenna and q excluded) and reports whether the side exists.
func (w *worker) rdSide(c *rdWall, antenna, q vec3, ground bool, out []rdVertex) ([]rdVertex, bool) {
	gz := w.s.surfaces[0].d
	mz := func(p vec3) vec3 {
		if ground {
			p.Z = 2*gz - p.Z
		}
		return p
	}
	start := len(out)
	// unfolded vertices, from q backward: the walls, then the antenna
	cur := q
	n := 0
	if c != nil {
		n = int(c.n)
	}
	var un [3]vec3 // unfolded points of the walls, from the antenna outward, then the antenna's image
	for k := n - 1; k >= 0; k-- {
		sf := &w.s.surfaces[c.surf[k]]
		img := mz(c.img[k])
		d := cur.sub(img)
		den := sf.n.dot(d)
		if den == 0 {
			return out, false
		}
		t := (sf.d - sf.n.dot(img)) / den
		if !(t > 0 && t < 1) {
			return out, false
		}
		x := img.add(d.scale(t))
		un[k] = x
		cur = x
	}
	// vertices in path order with the ground inserted where the unfolded
	// height crosses gz
	prev := mz(antenna)
	for k := 0; k <= n; k++ {
		next := q
		if k < n {
			next = un[k]
		}
		if ground && (prev.Z-gz)*(next.Z-gz) < 0 {
			f := (gz - prev.Z) / (next.Z - prev.Z)
			g := prev.add(next.sub(prev).scale(f))
			g.Z = gz
			out = append(out, rdVertex{p: g, surf: 0})
		}
		if k < n {
			x := next
			if x.Z < gz {
				x.Z = 2*gz - x.Z
			}
			if !w.s.onSurface(&w.s.surfaces[c.surf[k]], x) {
				return out[:start], false
			}
			out = append(out, rdVertex{p: x, surf: c.surf[k]})
		}
		prev = next
	}
	if ground && len(out)-start != n+1 {
		return out[:start], false // the unfolded line did not cross the ground
	}
	return out, true
}

// evalEdgeRD adds the path from the transmitter through the walls of ct
// (nil: none), diffracted by ed, through the walls of cr (listed from the
// receiver outward) to rx, with a ground reflection on the transmitter's
// side (gT) and/or the receiver's (gR), if it exists.
func (w *worker) evalEdgeRD(ed *edge, rx vec3, a *accum, ct, cr *rdWall, gT, gR bool) {
	src, dst := w.tx, rx
	if ct != nil {
		src = ct.img[ct.n-1]
	}
	if cr != nil {
		dst = cr.img[cr.n-1]
	}
	dp, ok := w.diffractionPoint(ed, src, dst, gT, gR, rx)
	if !ok {
		return
	}
	q, src, dst, phiP, phi := dp.q, dp.src, dp.dst, dp.phiP, dp.phi
	// the vertices: tx, the transmitter's side, q, the receiver's side
	// (built from the receiver, then reversed), rx
	v := w.rdVerts[:0]
	v = append(v, rdVertex{p: w.tx, surf: -1})
	if v, ok = w.rdSide(ct, w.tx, q, gT, v); !ok {
		return
	}
	iq := len(v)
	v = append(v, rdVertex{p: q, surf: -1})
	if v, ok = w.rdSide(cr, rx, q, gR, v); !ok {
		return
	}
	slices.Reverse(v[iq+1:])
	v = append(v, rdVertex{p: rx, surf: -1})
	w.rdVerts = v
	for i := 0; i+1 < len(v); i++ {
		if w.occluded(v[i].p, v[i+1].p) {
			return
		}
	}
	wd, ok := w.wedge(ed, q, src, dst, phiP, phi)
	if !ok {
		return
	}
	tf := 1.0
	for i := 0; i+1 < len(v); i++ {
		tf *= w.terrainFactor(v[i].p, v[i+1].p, a)
	}
	kdep := v[1].p.sub(w.tx).unit()
	e := along(w.polVec(kdep), complex(gainAmp(w.txPat, kdep), 0))
	k0 := kdep
	for i := 1; i+1 < len(v); i++ {
		k1 := v[i+1].p.sub(v[i].p).unit()
		if i == iq {
			e = wd.field(ed, e)
		} else {
			sf := &w.s.surfaces[v[i].surf]
			e = w.reflect(e, k0, k1, sf)
			w.markAssumed(sf.bld, a)
		}
		k0 = k1
	}
	total, spread := wd.spread()
	amp := w.finish(e, k0, total, spread*tf)
	a.add(amp, total)
	w.markAssumed(ed.bld, a)
	if w.collect {
		kind := ed.kind()
		in := make([]Interaction, 0, len(v)-2)
		for i := 1; i+1 < len(v); i++ {
			if i == iq {
				in = append(in, w.interaction("diffraction", kind, ed.bld, q))
				continue
			}
			sf := &w.s.surfaces[v[i].surf]
			in = append(in, w.interaction("reflection", surfaceName(sf.kind), sf.bld, v[i].p))
		}
		w.paths = append(w.paths, w.pathOf("diffraction", in, total, kdep, k0, amp))
	}
}
