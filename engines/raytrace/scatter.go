package raytrace

import (
	"math"
	"slices"

	"linkplan/appliance"
)

// Diffuse scattering from walls: the effective roughness model of
// Degli-Esposti et al. (IEEE Trans. AP-55(1), 2007) in its Lambertian form.
// A wall tile of area dS lit by the transmitter scatters the fraction S²
// of the power it intercepts, with a cos θs pattern:
//
//	P_r/P_t = (λ/4π)²·S²·dS·cosθi·cosθs / (π·ri²·rs²) · G_t·G_r
//
// (ri, rs the distances transmitter–tile and tile–receiver, θi and θs the
// angles from the wall's normal), added in power (random phase) to both
// sums; the walls' specular reflections keep √(1 − S²) of their field, the
// model's energy balance. The transmitter's leg of each lit tile (its
// distance, gain and terrain/clutter factor) is computed once per request
// (prepareScatter), the receiver's leg per receiver.
//
// With Options.ScatteringReflections each leg may also take one specular
// wall reflection: a tile within DiffractionRangeM (2D) of an antenna
// also receives (or sends) what that antenna's image in a wall facing
// it delivers through the wall, with the wall's Fresnel coefficients
// (times √(1 − S²)) for the antenna's polarisation, so that
//
//	P_r/P_t = (λ/4π)²·S²·dS/π · (Lt_direct + Lt_reflected)·(Lr_direct + Lr_reflected)
//
// with L = cosθ·|Γ|²·G·T/r² per leg (r the unfolded length, θ at the
// tile). The product keeps the sum reciprocal (the same two legs whichever
// end transmits); it adds the paths Tx–wall–tile–Rx, Tx–tile–wall–Rx and
// Tx–wall–tile–wall–Rx. In a street canyon these light the walls that
// face the main street square on at the corners of a side street (the
// scattering the corner's diffraction alone misses; TestStreetCanyon).
// The receiver's reflected leg is computed per receiver over the walls
// facing it within the range, which makes it costly in maps.
// scatterTileM is the largest side of a scattering tile, metres: walls are
// cut into tiles of at most this width and height.
const scatterTileM = appliance.RaytraceScatterTileM

// wallTiles is where a wall's tiles are: tile indices first to
// first+nu·nv−1, column (along the wall from a) major, each of area
// areaM2 (square metres).
type wallTiles struct {
	first, nu, nv int32
	areaM2        float64
}

// tileAt is the tile of wall sf (surface si) that holds x, a point of it,
// or -1 where the wall has no tiles.
func (s *Scene) tileAt(si int32, x vec3) int32 {
	sf := &s.surfaces[si]
	wt := &s.wallTiles[si]
	if wt.nu == 0 || wt.nv == 0 {
		return -1
	}
	d := sf.b.sub(sf.a)
	iu := int32(x.xy().sub(sf.a).dot(d) / d.dot(d) * float64(wt.nu))
	iv := int32((x.Z - sf.zb) / (sf.zt - sf.zb) * float64(wt.nv))
	return wt.first + max(0, min(wt.nu-1, iu))*wt.nv + max(0, min(wt.nv-1, iv))
}

// tile is one scattering element of a wall, as Scene.tile computes it
// from the wall and the tile's place in it: a scene keeps only each tile's
// wall (Scene.tileSurf, 4 bytes a tile instead of this struct's 64), the
// tiles being most of a scene's memory.
type tile struct {
	c    vec3 // centre, 1 cm in front of the wall
	n    vec3 // outward normal
	area float64
	bld  int32
	surf int32
}

// buildTiles cuts every wall into tiles.
func (s *Scene) buildTiles() {
	s.wallTiles = make([]wallTiles, len(s.surfaces))
	for i := range s.surfaces {
		sf := &s.surfaces[i]
		if sf.kind != kindWall {
			continue
		}
		l := sf.b.sub(sf.a).norm()
		h := sf.zt - sf.zb
		if !(l > 0) || !(h > 0) {
			continue
		}
		nu := int(math.Ceil(l / scatterTileM))
		nv := int(math.Ceil(h / scatterTileM))
		s.wallTiles[i] = wallTiles{first: int32(len(s.tileSurf)), nu: int32(nu), nv: int32(nv), areaM2: l * h / float64(nu*nv)}
		for range nu * nv {
			s.tileSurf = append(s.tileSurf, int32(i))
		}
	}
}

// tile returns tile ti: its centre (1 cm in front of the wall, at the
// middle of its column and row), the wall's normal, its area, building
// and wall.
func (s *Scene) tile(ti int32) tile {
	si := s.tileSurf[ti]
	sf := &s.surfaces[si]
	wt := &s.wallTiles[si]
	k := ti - wt.first
	return tile{c: tileCentre(sf, wt, k/wt.nv, k%wt.nv), n: sf.n, area: wt.areaM2, bld: sf.bld, surf: si}
}

// tileCentre is the centre of the tile in column iu and row iv of wall sf
// (tiles wt), 1 cm in front of it: the one formula of every tile centre.
func tileCentre(sf *surface, wt *wallTiles, iu, iv int32) vec3 {
	d := sf.b.sub(sf.a)
	f := (float64(iu) + 0.5) / float64(wt.nu)
	z := sf.zb + (sf.zt-sf.zb)*(float64(iv)+0.5)/float64(wt.nv)
	return vec3{sf.a.X + d.X*f, sf.a.Y + d.Y*f, z}.add(sf.n.scale(0.01))
}

// numTiles is the number of the scene's tiles.
func (s *Scene) numTiles() int { return len(s.tileSurf) }

// rxBounds is the box of a request's receivers (local frame, metres).
type rxBounds struct {
	lo, hi vec3
	// pts, when not nil, are every receiver (top view): the image tree
	// keeps only the last-order nodes that reach one (buildTree).
	pts []vec2
}

func (b *rxBounds) add(p vec3) {
	b.lo = vec3{min(b.lo.X, p.X), min(b.lo.Y, p.Y), min(b.lo.Z, p.Z)}
	b.hi = vec3{max(b.hi.X, p.X), max(b.hi.Y, p.Y), max(b.hi.Z, p.Z)}
}

// dist2 is the squared 2D distance from p to the box.
func (b *rxBounds) dist2(p vec2) float64 {
	dx := p.X - max(b.lo.X, min(p.X, b.hi.X))
	dy := p.Y - max(b.lo.Y, min(p.Y, b.hi.Y))
	return dx*dx + dy*dy
}

// litTiles lists the tiles that face the transmitter and see it, in scene
// order, among those that can matter to the receivers in rxb: a tile
// scatters to a receiver only within rangeM (2D) of it or of the
// transmitter (scatterTile), and the scattering's reflections ask whether
// the transmitter sees a tile within about 2·rangeM of it (the
// reflection point of a leg to a tile within rangeM through a wall within
// rangeM), so the tiles farther than 2·rangeM + 5 m from the transmitter
// and rangeM + 1 m from the receivers' box, whose answers nothing reads,
// are not traced: a request costs what lies around its ends, not the
// whole layer. The margins only add tiles, so the answers are those of
// every tile.
func (s *Scene) litTiles(tx vec3, rxb rxBounds, rangeM float64, naive bool) []int32 {
	var out []int32
	nearTx2 := (2*rangeM + 5) * (2*rangeM + 5)
	nearRx2 := (rangeM + 1) * (rangeM + 1)
	for si := range s.surfaces {
		sf := &s.surfaces[si]
		wt := &s.wallTiles[si]
		for iu := int32(0); iu < wt.nu; iu++ {
			if col := tileCentre(sf, wt, iu, 0).xy(); dot2(col.sub(tx.xy())) > nearTx2 && rxb.dist2(col) > nearRx2 {
				continue
			}
			for iv := int32(0); iv < wt.nv; iv++ {
				c := tileCentre(sf, wt, iu, iv)
				if sf.n.dot(tx.sub(c)) <= 0 {
					continue
				}
				occ := false
				if naive {
					occ = s.occludedNaive(tx, c)
				} else {
					occ = s.occluded(tx, c)
				}
				if !occ {
					out = append(out, wt.first+iu*wt.nv+iv)
				}
			}
		}
	}
	return out
}

// legFlags are the flags a scattering leg computed apart from its
// receiver carries to it: a terrain void, and the assumed-height clutter
// (FlagClutterAssumed with its FlagAssumedHeight).
const legFlags = FlagTerrainVoid | FlagClutterAssumed | FlagAssumedHeight

// litTile is a lit tile with what its transmitter leg gives every
// receiver, computed once per request: the Rx-independent factor of its
// scattered power (λ/4π)²·S²/π·dS·Lt (Lt the leg: cosθi/ri²·G_t·T_t
// direct, plus the reflected legs of ScatteringReflections, G_t the
// transmitter's gain toward it and T_t the terrain/clutter factor of the
// leg, both in power).
type litTile struct {
	ti      int32
	ri      float64 // length of the leg's strongest part, metres
	part    float64
	txFlags uint8 // the transmitter leg's legFlags
	// via is the wall of the leg's strongest part when it is a
	// reflection (at viaPt), else -1
	via   int32
	viaPt vec3
}

// mirrorWall is a wall facing an antenna and the antenna's image in it.
type mirrorWall struct {
	surf int32
	img  vec3
}

// facingWalls appends to out the walls facing p within rangeM (2D) of it,
// with p's image in each.
func (s *Scene) facingWalls(out []mirrorWall, p vec3, rangeM float64) []mirrorWall {
	for si := range s.surfaces {
		sf := &s.surfaces[si]
		if sf.kind != kindWall || !sf.facing(p) || distPointSeg(p.xy(), sf.a, sf.b) > rangeM {
			continue
		}
		out = append(out, mirrorWall{surf: int32(si), img: sf.mirror(p)})
	}
	return out
}

// reflectedLeg is the leg between antenna src (pattern pat) and tile t
// through wall m (src's image in it): cosθ·|Γ|²·G·T/r², the unfolded
// length and the reflection point, or ok false where the wall does not
// reflect src onto t or a building blocks the way. The antenna sees the
// reflection point where it sees the centre of the wall's tile that
// holds it (vis: the transmitter's lit tiles, or the receiver's memo),
// the same rule from either end.
func (w *worker) reflectedLeg(src vec3, pat Pattern, m *mirrorWall, t *tile, a *accum, vis func(int32) bool) (leg, length float64, x vec3, ok bool) {
	sf := &w.s.surfaces[m.surf]
	if m.surf == t.surf || !sf.facing(t.c) || t.n.dot(m.img.sub(t.c)) <= 0 {
		return 0, 0, x, false
	}
	dir := t.c.sub(m.img)
	den := sf.n.dot(dir)
	if den == 0 {
		return 0, 0, x, false
	}
	tt := (sf.d - sf.n.dot(m.img)) / den
	if !(tt > 0 && tt < 1) {
		return 0, 0, x, false
	}
	x = m.img.add(dir.scale(tt))
	if !w.s.onSurface(sf, x) {
		return 0, 0, x, false
	}
	if ti := w.s.tileAt(m.surf, x); ti < 0 || !vis(ti) || w.occluded(x, t.c) {
		return 0, 0, x, false
	}
	k0 := x.sub(src).unit()
	kout := t.c.sub(x).unit()
	e := w.reflect(along(w.polVec(k0), complex(gainAmp(pat, k0), 0)), k0, kout, sf)
	p := e.norm2()
	length = dir.norm()
	cos := -t.n.dot(kout)
	tf := w.terrainFactor(src, x, a) * w.terrainFactor(x, t.c, a)
	return cos / (length * length) * p * tf * tf, length, x, true
}

// tileCellM is the cell of the grid of tile centres, metres.
const tileCellM = 20.0

// buildTileGrid buckets the walls' tile columns by centre
// (Scene.tileGrid): an item is a column's first tile, the column's other
// tiles (one per row) following it, all with the same x and y; each
// cell's items in scene order.
func (s *Scene) buildTileGrid() {
	var cols []int32
	for si := range s.wallTiles {
		wt := &s.wallTiles[si]
		for iu := int32(0); iu < wt.nu; iu++ {
			cols = append(cols, wt.first+iu*wt.nv)
		}
	}
	s.tileGrid = s.newGrid2(tileCellM, len(cols), func(i int) (float64, float64, float64, float64) {
		c := s.tile(cols[i]).c
		return c.X, c.Y, c.X, c.Y
	})
	for k, i := range s.tileGrid.items {
		s.tileGrid.items[k] = cols[i]
	}
}

// wallBeam is the 2D region wall sf can reflect a source (image img) into:
// the wedge from the image through the wall, in front of it.
func wallBeam(sf *surface, img vec3) (region, bool) {
	r := region{apex: img.xy(), rHi: math.Inf(1)}
	if !wedge(&r, img.xy(), sf.a, sf.b) {
		return r, false
	}
	r.hp[2] = halfplane{n: vec2{sf.n.X, sf.n.Y}, c: sf.d - regionTol}
	r.nhp = 3
	return r, true
}

// beamBox bounds the part of beam r (through wall sf) within rangeM of c:
// the box of the wall's part within the circle, of the beam's edges
// within it, and of the circle's extreme points inside the beam (the
// region is convex, bounded by the wall, two rays and arcs).
func beamBox(r *region, sf *surface, c vec2, rangeM float64) (x0, y0, x1, y1 float64, ok bool) {
	x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	grow := func(p vec2) {
		x0, y0 = min(x0, p.X), min(y0, p.Y)
		x1, y1 = max(x1, p.X), max(y1, p.Y)
	}
	apex := r.apex
	for _, e := range [2]vec2{sf.a, sf.b} {
		d := e.sub(apex)
		d = d.scale(1 / d.norm())
		// e + t·d on the circle, t ≥ 0
		f := e.sub(c)
		b := f.dot(d)
		disc := b*b - (f.dot(f) - rangeM*rangeM)
		if disc < 0 {
			continue
		}
		t1 := -b + math.Sqrt(disc)
		if t1 < 0 {
			continue
		}
		grow(e.add(d.scale(max(0, -b-math.Sqrt(disc)))))
		grow(e.add(d.scale(t1)))
	}
	for _, p := range [4]vec2{{c.X - rangeM, c.Y}, {c.X + rangeM, c.Y}, {c.X, c.Y - rangeM}, {c.X, c.Y + rangeM}} {
		if r.contains(p) {
			grow(p)
		}
	}
	// the part of the wall within the circle
	d := sf.b.sub(sf.a)
	f := sf.a.sub(c)
	qa, qb, qc := d.dot(d), f.dot(d), f.dot(f)-rangeM*rangeM
	if disc := qb*qb - qa*qc; disc >= 0 && qa > 0 {
		t0, t1 := (-qb-math.Sqrt(disc))/qa, (-qb+math.Sqrt(disc))/qa
		if t0 <= 1 && t1 >= 0 {
			grow(sf.a.add(d.scale(max(0, t0))))
			grow(sf.a.add(d.scale(min(1, t1))))
		}
	}
	if x0 > x1 {
		// the wall's ends, its rays and the circle's extremes all miss:
		// the beam may still cut the circle through the wall's middle
		return c.X - rangeM, c.Y - rangeM, c.X + rangeM, c.Y + rangeM, true
	}
	return x0, y0, x1, y1, true
}

// tilesInBeam appends to out the tiles whose centres lie in r and within
// rangeM (2D) of c: the cells that may meet both, in cell order, each in
// scene order (a column's tiles share their centre's x and y: the test is
// made once per column).
func (s *Scene) tilesInBeam(out []int32, r *region, sf *surface, c vec2, rangeM float64) []int32 {
	g := &s.tileGrid
	if len(g.items) == 0 {
		return out
	}
	bx0, by0, bx1, by1, ok := beamBox(r, sf, c, rangeM)
	if !ok {
		return out
	}
	i0, i1 := g.clampX(bx0), g.clampX(bx1)
	j0, j1 := g.clampY(by0), g.clampY(by1)
	rng2 := rangeM * rangeM
	for j := j0; j <= j1; j++ {
		y0 := g.minY + float64(j)*g.cell
		for i := i0; i <= i1; i++ {
			x0 := g.minX + float64(i)*g.cell
			// the cell's point nearest c, and each half-plane at the
			// cell's corner farthest along its normal
			nx, ny := max(x0, min(c.X, x0+g.cell)), max(y0, min(c.Y, y0+g.cell))
			if (nx-c.X)*(nx-c.X)+(ny-c.Y)*(ny-c.Y) > rng2 {
				continue
			}
			in := true
			for k := int8(0); k < r.nhp && in; k++ {
				h := &r.hp[k]
				px, py := x0, y0
				if h.n.X > 0 {
					px += g.cell
				}
				if h.n.Y > 0 {
					py += g.cell
				}
				in = h.n.X*px+h.n.Y*py >= h.c
			}
			if !in {
				continue
			}
			ci := j*g.nx + i
			for _, t0 := range g.items[g.start[ci]:g.start[ci+1]] {
				p := s.tile(t0).c.xy() // the column's
				if d := p.sub(c); d.dot(d) <= rng2 && r.contains(p) {
					for k := range s.wallTiles[s.tileSurf[t0]].nv {
						out = append(out, t0+k)
					}
				}
			}
		}
	}
	return out
}

// reflLeg sums one tile's legs through walls (ScatteringReflections) and
// keeps the strongest.
type reflLeg struct {
	sum, best, length float64
	via               int32
	x                 vec3
	flags             uint8 // legFlags
}

func (r *reflLeg) add(leg, length float64, via int32, x vec3) {
	r.sum += leg
	if leg > r.best {
		r.best, r.length, r.via, r.x = leg, length, via, x
	}
}

// prepareScatter computes the transmitter leg of every lit tile
// (traceCtx.litTiles): the tiles lit directly (traceCtx.lit, in scene
// order), then with ScatteringReflections those lit only through a wall,
// in scene order.
func (c *traceCtx) prepareScatter() {
	w := newWorker(c)
	sc := c.opt.DiffuseScattering
	base := c.lambda / (4 * math.Pi)
	base *= base * sc * sc / math.Pi
	c.litTiles = make([]litTile, 0, len(c.lit))
	for _, ti := range c.lit {
		t := c.s.tile(ti)
		u := c.tx.sub(t.c)
		ri := u.norm()
		cosI := t.n.dot(u) / ri
		gt := gainAmp(c.txPat, u.scale(-1/ri))
		var a accum
		tf := w.terrainFactor(c.tx, t.c, &a)
		c.litTiles = append(c.litTiles, litTile{ti: ti, ri: ri, part: base * t.area * cosI / (ri * ri) * gt * gt * tf * tf,
			txFlags: a.flags & legFlags, via: -1})
	}
	if !c.opt.ScatteringReflections {
		return
	}
	rng := c.opt.DiffractionRangeM
	// litIdx indexes the directly lit tiles first: what the transmitter
	// sees of a wall's tiles
	c.litIdx = newPaged[int32](c.s.numTiles(), -1)
	for i := range c.litTiles {
		c.litIdx.set(c.litTiles[i].ti, int32(i))
	}
	txSees := func(ti int32) bool { return c.litIdx.get(ti) >= 0 }
	// the reflected legs of the tiles some wall facing the transmitter
	// reflects it onto (few, near it): legs[legAt[ti]], touched in the
	// order found
	var legs []reflLeg
	legAt := map[int32]int32{}
	var touched []int32
	var cand []int32
	for _, m := range c.s.facingWalls(nil, c.tx, rng) {
		r, ok := wallBeam(&c.s.surfaces[m.surf], m.img)
		if !ok {
			continue
		}
		cand = c.s.tilesInBeam(cand[:0], &r, &c.s.surfaces[m.surf], c.tx.xy(), rng)
		for _, ti := range cand {
			var a accum
			t := c.s.tile(ti)
			if leg, l, x, ok := w.reflectedLeg(c.tx, c.txPat, &m, &t, &a, txSees); ok && leg > 0 {
				j, seen := legAt[ti]
				if !seen {
					j = int32(len(legs))
					legAt[ti] = j
					legs = append(legs, reflLeg{})
					touched = append(touched, ti)
				}
				legs[j].add(leg, l, m.surf, x)
				legs[j].flags |= a.flags & legFlags
			}
		}
	}
	for i := range c.litTiles {
		lt := &c.litTiles[i]
		j, seen := legAt[lt.ti]
		if !seen {
			continue
		}
		if r := &legs[j]; r.sum > 0 {
			area := base * c.s.tile(lt.ti).area
			// the leg's strongest part, by the rule of scatterTile's
			// receiver leg (the strongest single reflection against the
			// direct leg), so that either end reports the same path
			if area*r.best > lt.part {
				lt.ri, lt.via, lt.viaPt = r.length, r.via, r.x
			}
			lt.part += area * r.sum
			lt.txFlags |= r.flags
		}
	}
	// the tiles lit only through a wall, in scene order
	slices.Sort(touched)
	for _, ti := range touched {
		r := &legs[legAt[ti]]
		if r.sum == 0 || c.litIdx.get(ti) >= 0 {
			continue
		}
		c.litIdx.set(ti, int32(len(c.litTiles)))
		c.litTiles = append(c.litTiles, litTile{ti: ti, ri: r.length, part: base * c.s.tile(ti).area * r.sum,
			txFlags: r.flags, via: r.via, viaPt: r.x})
	}
}

// visMemo is whether the receiver of stamp sees a tile's centre.
type visMemo struct {
	stamp uint32
	sees  bool
}

// rxReflected computes, for the receiver rx, the legs through the walls
// facing it within the range of every lit tile within the range
// (ScatteringReflections), into w.rxLegs, stamped w.rxGen. The receiver
// sees a reflection point where its tile faces it and it sees the tile's
// centre: the rule of the transmitter's lit tiles.
func (w *worker) rxReflected(rx vec3) {
	if len(w.rxLegs) != len(w.litTiles) {
		w.rxLegs = make([]reflLeg, len(w.litTiles))
		w.rxStamp = make([]uint32, len(w.litTiles))
	}
	if w.vis.size() < w.s.numTiles() {
		w.vis = newPaged[visMemo](w.s.numTiles(), visMemo{})
	}
	w.rxGen++
	if w.rxGen == 0 { // wrapped: forget every stamp
		clear(w.rxStamp)
		w.vis.reset()
		w.rxGen = 1
	}
	rxSees := func(ti int32) bool {
		if m := w.vis.get(ti); m.stamp == w.rxGen {
			return m.sees
		}
		t := w.s.tile(ti)
		sees := t.n.dot(rx.sub(t.c)) > 0 && !w.occluded(rx, t.c)
		w.vis.set(ti, visMemo{stamp: w.rxGen, sees: sees})
		return sees
	}
	rng := w.opt.DiffractionRangeM
	w.rxWalls = w.s.facingWalls(w.rxWalls[:0], rx, rng)
	for k := range w.rxWalls {
		m := &w.rxWalls[k]
		r, ok := wallBeam(&w.s.surfaces[m.surf], m.img)
		if !ok {
			continue
		}
		w.cand = w.s.tilesInBeam(w.cand[:0], &r, &w.s.surfaces[m.surf], rx.xy(), rng)
		for _, ti := range w.cand {
			li := w.litIdx.get(ti)
			if li < 0 {
				continue
			}
			var la accum
			t := w.s.tile(ti)
			leg, l, x, ok := w.reflectedLeg(rx, w.rxPat, m, &t, &la, rxSees)
			if !ok || leg <= 0 {
				continue
			}
			if w.rxStamp[li] != w.rxGen {
				w.rxStamp[li] = w.rxGen
				w.rxLegs[li] = reflLeg{via: -1}
			}
			w.rxLegs[li].add(leg, l, m.surf, x)
			w.rxLegs[li].flags |= la.flags & legFlags
		}
	}
}

// scatter adds the power scattered by the lit tiles that lie within
// DiffractionRangeM (2D) of either antenna and see rx (directly, or with
// ScatteringReflections through one of the walls facing rx within the
// range).
func (w *worker) scatter(rx vec3, a *accum) {
	if w.opt.ScatteringReflections {
		w.rxReflected(rx)
	}
	var total, best, bestL float64
	bestI := -1
	bestVia := int32(-1)
	var bestX vec3
	for i := range w.litTiles {
		lt := &w.litTiles[i]
		if g, l, via, x := w.scatterTile(i, lt, rx, a); g > 0 {
			total += g
			if g > best {
				best, bestL, bestI, bestVia, bestX = g, l, i, via, x
			}
		}
	}
	if w.collect && bestI >= 0 {
		lt := &w.litTiles[bestI]
		t := w.s.tile(lt.ti)
		var in []Interaction
		kdep, karr := t.c.sub(w.tx).unit(), rx.sub(t.c).unit()
		if lt.via >= 0 {
			sf := &w.s.surfaces[lt.via]
			in = append(in, w.interaction("reflection", surfaceName(sf.kind), sf.bld, lt.viaPt))
			kdep = lt.viaPt.sub(w.tx).unit()
		}
		in = append(in, w.interaction("scattering", "wall", t.bld, t.c))
		if bestVia >= 0 {
			sf := &w.s.surfaces[bestVia]
			in = append(in, w.interaction("reflection", surfaceName(sf.kind), sf.bld, bestX))
			karr = rx.sub(bestX).unit()
		}
		p := w.pathOf("scattering", in, bestL, kdep, karr, complex(math.Sqrt(total), 0))
		w.paths = append(w.paths, p)
	}
}

// scatterTile adds the power lt scatters to rx, if it lies within
// DiffractionRangeM (2D) of either antenna and reaches rx, and returns it
// with the length of its strongest path and, where that path's receiver
// leg is a reflection, the wall (else -1) and the reflection point.
func (w *worker) scatterTile(li int, lt *litTile, rx vec3, a *accum) (g, length float64, via int32, x vec3) {
	t := w.s.tile(lt.ti)
	rng2 := w.opt.DiffractionRangeM * w.opt.DiffractionRangeM
	dr := rx.sub(t.c).xy()
	du := w.tx.sub(t.c).xy()
	if dr.dot(dr) > rng2 && du.dot(du) > rng2 {
		return 0, 0, -1, x
	}
	via = -1
	var leg float64
	v := rx.sub(t.c)
	if cosS := t.n.dot(v); cosS > 0 && !w.occluded(t.c, rx) {
		rs := v.norm()
		cosS /= rs
		gr := gainAmp(w.rxPat, v.scale(-1/rs))
		tf := w.terrainFactor(t.c, rx, a)
		leg, length = cosS/(rs*rs)*gr*gr*tf*tf, rs
	}
	var rxFlags uint8
	if w.opt.ScatteringReflections && w.rxStamp[li] == w.rxGen {
		r := &w.rxLegs[li]
		if r.best > leg {
			length, via, x = r.length, r.via, r.x
		}
		leg += r.sum
		rxFlags = r.flags
	}
	g = lt.part * leg
	if g == 0 {
		return 0, 0, -1, x
	}
	a.flags |= lt.txFlags | rxFlags
	a.addPower(g, lt.ri+length)
	w.markAssumed(t.bld, a)
	return g, lt.ri + length, via, x
}

func dot2(v vec2) float64 { return v.dot(v) }
