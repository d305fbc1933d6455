package raytrace

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// Reflection–diffraction combinations (Options.ReflectionDiffraction):
// paths that meet one wall before a diffracting edge (R-D), one wall after
// it (D-R), or one on each side (R-D-R), with at most MaxReflections walls
// in all. They are what carries the power of a street round its corner in
// an image-based UTD tracer: the wave guided down the main street by its
// walls meets the corner, and the diffracted wave is guided down the side
// street by the side street's walls.
//
// Each wall is replaced by the image of the antenna on its side (the
// image method): the diffraction point follows Keller's law between the
// two images, the reflection points are where the image → edge segments
// cross the walls' planes, and the unfolded lengths are the caustic
// distances of the UTD spreading factor (exact for plane reflectors). The
// pruning is conservative and symmetric in the two antennas (so that
// reciprocity holds): a wall is a candidate on an antenna's side when it
// faces the antenna and the edge meets the top view of the beam the wall
// reflects (the wedge from the antenna's image through the wall, in front
// of the wall). The transmitter's candidates are listed once per request
// for every edge, the receiver's once per receiver; every candidate is
// then decided by the exact construction and the visibility of each
// segment.

// rdWall is a wall facing an antenna, the antenna's image in it and the
// top view of the beam it reflects.
type rdWall struct {
	surf int32
	img  vec3
	reg  region
}

// rdWalls lists the walls facing p with p's images and beam regions,
// appending to out.
func (s *Scene) rdWalls(p vec3, out []rdWall) []rdWall {
	for si := range s.surfaces {
		sf := &s.surfaces[si]
		if sf.kind != kindWall || !sf.facing(p) {
			continue
		}
		img := sf.mirror(p)
		r := region{apex: img.xy(), rHi: math.Inf(1)}
		if !wedge(&r, r.apex, sf.a, sf.b) {
			continue // seen edge-on: reflects nothing
		}
		r.hp[2] = halfplane{n: vec2{sf.n.X, sf.n.Y}, c: sf.d - regionTol}
		r.nhp = 3
		out = append(out, rdWall{surf: int32(si), img: img, reg: r})
	}
	return out
}

// rdCandidate reports whether wall w may reflect between its antenna and
// edge ed (conservative; naive accepts every wall).
func (s *Scene) rdCandidate(w *rdWall, ed *edge, naive bool) bool {
	sf := &s.surfaces[w.surf]
	// a face of the wedge itself: its reflection is the UTD's own term
	if math.Abs(sf.n.dot(ed.p0)-sf.d) < 1e-6 && math.Abs(sf.n.dot(ed.p1)-sf.d) < 1e-6 {
		return false
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
			xlo = math.Max(xlo, math.Min(h.c-h.n.Y*y0, h.c-h.n.Y*y1)/h.n.X)
		case h.n.X < 0:
			xhi = math.Min(xhi, math.Min(h.c-h.n.Y*y0, h.c-h.n.Y*y1)/h.n.X)
		default:
			if math.Max(h.n.Y*y0, h.n.Y*y1) < h.c {
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
	c.rdTx = s.rdWalls(c.tx, nil)
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

// rdChain is the reflections on one side of the edge, from the antenna
// outward: surfaces surf[:n] and the antenna's images img[:n] after each.
type rdChain struct {
	n    int
	surf [2]int32
	img  [2]vec3
}

// last is the antenna's final image (the antenna itself for n = 0).
func (c *rdChain) last(p vec3) vec3 {
	if c.n == 0 {
		return p
	}
	return c.img[c.n-1]
}

// chainOf returns the chain of wall w, with a ground reflection before it
// (groundFirst), after it, or none (ground = false), or false when the
// image is not above the ground.
func (w *worker) chainOf(wall *rdWall, antenna vec3, ground, groundFirst bool) (rdChain, bool) {
	c := rdChain{n: 1, surf: [2]int32{wall.surf}, img: [2]vec3{wall.img}}
	if !ground {
		return c, true
	}
	gz := w.s.surfaces[0].d
	if !(antenna.Z > gz) {
		return c, false
	}
	both := wall.img
	both.Z = 2*gz - both.Z // the two mirrors commute (vertical wall, horizontal ground)
	c.n = 2
	if groundFirst {
		g := antenna
		g.Z = 2*gz - g.Z
		c.surf = [2]int32{0, wall.surf}
		c.img = [2]vec3{g, both}
	} else {
		c.surf = [2]int32{wall.surf, 0}
		c.img = [2]vec3{wall.img, both}
	}
	return c, true
}

// rdEdge adds the reflection–diffraction paths of edge ed to rx: R-D for
// every transmitter candidate, D-R for every receiver candidate, then
// R-D-R for every pair (MaxReflections ≥ 2), in that order; with
// GroundReflection each wall also comes with the ground before or after
// it. w.rdRx holds the receiver's walls (set by diffractions).
func (w *worker) rdEdge(ei int32, ed *edge, rx vec3, a *accum) {
	if w.opt.MaxReflections < 1 {
		return
	}
	none := rdChain{}
	grounds := 1
	if w.opt.GroundReflection {
		grounds = 3
	}
	tx := pairsOf(w.rdTxPairs, ei)
	for _, pt := range tx {
		for g := 0; g < grounds; g++ {
			if c, ok := w.chainOf(&w.rdTx[pt.wall], w.tx, g > 0, g == 2); ok {
				w.evalEdgeRD(ed, rx, a, &c, &none)
			}
		}
	}
	rxp := pairsOf(w.rdRxPairs, ei)
	for _, pr := range rxp {
		for g := 0; g < grounds; g++ {
			if c, ok := w.chainOf(&w.rdRx[pr.wall], rx, g > 0, g == 2); ok {
				w.evalEdgeRD(ed, rx, a, &none, &c)
			}
		}
	}
	if w.opt.MaxReflections < 2 {
		return
	}
	for _, pt := range tx {
		ct, _ := w.chainOf(&w.rdTx[pt.wall], w.tx, false, false)
		for _, pr := range rxp {
			cr, _ := w.chainOf(&w.rdRx[pr.wall], rx, false, false)
			w.evalEdgeRD(ed, rx, a, &ct, &cr)
		}
	}
}

// evalEdgeRD adds the path from the transmitter through the reflections
// of ct, diffracted by ed, through the reflections of cr (listed from the
// receiver outward) to rx, if it exists.
func (w *worker) evalEdgeRD(ed *edge, rx vec3, a *accum, ct, cr *rdChain) {
	src, dst := ct.last(w.tx), cr.last(rx)
	as := src.sub(ed.p0).dot(ed.e)
	ar := dst.sub(ed.p0).dot(ed.e)
	ps := src.sub(ed.p0.add(ed.e.scale(as))).norm()
	pr := dst.sub(ed.p0.add(ed.e.scale(ar))).norm()
	if ps+pr == 0 {
		return
	}
	u := as + (ar-as)*ps/(ps+pr)
	if !(u > 0 && u < ed.length) {
		return
	}
	q := ed.p0.add(ed.e.scale(u))
	if rx.xy().sub(q.xy()).norm() > w.opt.DiffractionRangeM && w.tx.xy().sub(q.xy()).norm() > w.opt.DiffractionRangeM {
		return
	}
	phiP, okS := ed.angle(src.sub(q))
	phi, okR := ed.angle(dst.sub(q))
	if !okS || !okR {
		return
	}
	// the reflection points, backward from q on each side: pts[0:nt] from
	// the transmitter to q, pts[nt:nt+nr] from q to the receiver
	nt, nr := ct.n, cr.n
	pts := &w.rdPts
	cur := q
	for k := nt - 1; k >= 0; k-- {
		x, ok := w.s.crossing(&w.s.surfaces[ct.surf[k]], ct.img[k], cur)
		if !ok {
			return
		}
		pts[k], cur = x, x
	}
	cur = q
	for k := nr - 1; k >= 0; k-- {
		x, ok := w.s.crossing(&w.s.surfaces[cr.surf[k]], cr.img[k], cur)
		if !ok {
			return
		}
		pts[nt+nr-1-k], cur = x, x
	}
	// the vertices in path order: tx, pts[:nt], q, pts[nt:nt+nr], rx
	vert := func(i int) vec3 {
		switch {
		case i == 0:
			return w.tx
		case i <= nt:
			return pts[i-1]
		case i == nt+1:
			return q
		case i <= nt+nr+1:
			return pts[i-2]
		}
		return rx
	}
	nv := nt + nr + 3
	for i := 0; i+1 < nv; i++ {
		if w.occluded(vert(i), vert(i+1)) {
			return
		}
	}
	sp := q.sub(src)
	sPrime := sp.norm()
	kin := sp.scale(1 / sPrime)
	so := dst.sub(q)
	sDist := so.norm()
	kout := so.scale(1 / sDist)
	sinB := ed.e.cross(kin).norm()
	if sinB < 1e-6 {
		return
	}
	lDist := sDist * sPrime * sinB * sinB / (sDist + sPrime)
	eta := w.etas[ed.mat]
	ds, dh := WedgeDiffraction(Wedge{N: ed.nw, Eta0: eta, EtaN: eta}, phi, phiP, lDist, w.k, sinB)
	tf := 1.0
	for i := 0; i+1 < nv; i++ {
		tf *= w.terrainFactor(vert(i), vert(i+1), a)
	}
	kdep := vert(1).sub(w.tx).unit()
	e := along(w.polVec(kdep), complex(gainAmp(w.txPat, kdep), 0))
	k0 := kdep
	for k := 0; k < nt; k++ {
		sf := &w.s.surfaces[ct.surf[k]]
		k1 := vert(k + 2).sub(pts[k]).unit()
		e = w.reflect(e, k0, k1, sf)
		w.markAssumed(sf.bld, a)
		k0 = k1
	}
	phiHatI := ed.e.cross(kin).scale(-1 / sinB)
	betaI := kin.cross(phiHatI)
	phiHatD := ed.e.cross(kout)
	phiHatD = phiHatD.scale(1 / phiHatD.norm())
	betaD := kout.cross(phiHatD)
	e = along(betaD, -ds*e.dot(betaI)).add(along(phiHatD, -dh*e.dot(phiHatI)))
	k0 = kout
	for k := 0; k < nr; k++ {
		sf := &w.s.surfaces[cr.surf[nr-1-k]]
		p := pts[nt+k]
		k1 := vert(nt + k + 3).sub(p).unit()
		e = w.reflect(e, k0, k1, sf)
		w.markAssumed(sf.bld, a)
		k0 = k1
	}
	total := sPrime + sDist
	spread := math.Sqrt(sPrime/(sDist*total)) / sPrime * total
	amp := w.finish(e, k0, total, spread*tf)
	a.add(amp, total)
	w.markAssumed(ed.bld, a)
	if w.collect {
		kind := "roof_edge"
		if ed.vertical {
			kind = "vertical_edge"
		}
		var in []Interaction
		for k := 0; k < nt; k++ {
			sf := &w.s.surfaces[ct.surf[k]]
			in = append(in, w.interaction("reflection", surfaceName(sf.kind), sf.bld, pts[k]))
		}
		in = append(in, w.interaction("diffraction", kind, ed.bld, q))
		for k := 0; k < nr; k++ {
			sf := &w.s.surfaces[cr.surf[nr-1-k]]
			in = append(in, w.interaction("reflection", surfaceName(sf.kind), sf.bld, pts[nt+k]))
		}
		w.paths = append(w.paths, w.pathOf("diffraction", in, total, kdep, k0, amp))
	}
}

// crossing returns where segment img → q crosses the plane of wall sf,
// strictly between its ends and within the wall.
func (s *Scene) crossing(sf *surface, img, q vec3) (vec3, bool) {
	d := q.sub(img)
	den := sf.n.dot(d)
	if den == 0 {
		return vec3{}, false
	}
	t := (sf.d - sf.n.dot(img)) / den
	if !(t > 0 && t < 1) {
		return vec3{}, false
	}
	x := img.add(d.scale(t))
	return x, s.onSurface(sf, x)
}
