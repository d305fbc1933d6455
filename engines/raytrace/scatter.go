package raytrace

import (
	"math"
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

// scatterTileM is the largest side of a scattering tile, metres: walls are
// cut into tiles of at most this width and height.
const scatterTileM = 3.0

// tile is one scattering element of a wall.
type tile struct {
	c    vec3 // centre, 1 cm in front of the wall
	n    vec3 // outward normal
	area float64
	bld  int32
}

// buildTiles cuts every wall into tiles.
func (s *Scene) buildTiles() {
	for i := range s.surfaces {
		sf := &s.surfaces[i]
		if sf.kind != kindWall {
			continue
		}
		d := sf.b.sub(sf.a)
		l := d.norm()
		h := sf.zt - sf.zb
		if !(l > 0) || !(h > 0) {
			continue
		}
		nu := int(math.Ceil(l / scatterTileM))
		nv := int(math.Ceil(h / scatterTileM))
		area := l * h / float64(nu*nv)
		for iu := 0; iu < nu; iu++ {
			f := (float64(iu) + 0.5) / float64(nu)
			for iv := 0; iv < nv; iv++ {
				z := sf.zb + h*(float64(iv)+0.5)/float64(nv)
				c := vec3{sf.a.X + d.X*f, sf.a.Y + d.Y*f, z}.add(sf.n.scale(0.01))
				s.tiles = append(s.tiles, tile{c: c, n: sf.n, area: area, bld: sf.bld})
			}
		}
	}
}

// litTiles lists the tiles that face the transmitter and see it, in scene
// order.
func (s *Scene) litTiles(tx vec3, naive bool) []int32 {
	var out []int32
	for i := range s.tiles {
		t := &s.tiles[i]
		if t.n.dot(tx.sub(t.c)) <= 0 {
			continue
		}
		occ := false
		if naive {
			occ = s.occludedNaive(tx, t.c)
		} else {
			occ = s.occluded(tx, t.c)
		}
		if !occ {
			out = append(out, int32(i))
		}
	}
	return out
}

// litTile is a lit tile with what its transmitter leg gives every
// receiver, computed once per request: the Rx-independent factor of its
// scattered power (λ/4π)²·S²/π·dS·cosθi/ri²·G_t·T_t, with G_t the
// transmitter's gain toward it and T_t the terrain/clutter factor of the
// leg, both in power.
type litTile struct {
	ti     int32
	ri     float64
	part   float64
	txVoid bool // the transmitter's leg crosses a terrain void
}

// prepareScatter computes the transmitter leg of every lit tile
// (traceCtx.litTiles, in scene order).
func (c *traceCtx) prepareScatter() {
	w := &worker{traceCtx: c}
	sc := c.opt.DiffuseScattering
	base := c.lambda / (4 * math.Pi)
	base *= base * sc * sc / math.Pi
	c.litTiles = make([]litTile, 0, len(c.lit))
	for _, ti := range c.lit {
		t := &c.s.tiles[ti]
		u := c.tx.sub(t.c)
		ri := u.norm()
		cosI := t.n.dot(u) / ri
		gt := gainAmp(c.txPat, u.scale(-1/ri))
		var a accum
		tf := w.terrainFactor(c.tx, t.c, &a)
		c.litTiles = append(c.litTiles, litTile{ti: ti, ri: ri, part: base * t.area * cosI / (ri * ri) * gt * gt * tf * tf,
			txVoid: a.flags&FlagTerrainVoid != 0})
	}
}

// scatter adds the power scattered by the lit tiles that see rx and lie
// within DiffractionRangeM (2D) of either antenna.
func (w *worker) scatter(rx vec3, a *accum) {
	var total, best, bestL float64
	bestI := int32(-1)
	for i := range w.litTiles {
		lt := &w.litTiles[i]
		if g, l := w.scatterTile(lt, rx, a); g > 0 {
			total += g
			if g > best {
				best, bestL, bestI = g, l, lt.ti
			}
		}
	}
	if w.collect && bestI >= 0 {
		t := &w.s.tiles[bestI]
		in := []Interaction{w.interaction("scattering", "wall", t.bld, t.c)}
		p := w.pathOf("scattering", in, bestL, w.tx.sub(t.c).scale(-1).unit(), rx.sub(t.c).unit(), complex(math.Sqrt(total), 0))
		w.paths = append(w.paths, p)
	}
}

// scatterTile adds the power lt scatters to rx, if it sees rx and lies
// within DiffractionRangeM (2D) of either antenna, and returns it with
// the path's length.
func (w *worker) scatterTile(lt *litTile, rx vec3, a *accum) (float64, float64) {
	t := &w.s.tiles[lt.ti]
	v := rx.sub(t.c)
	cosS := t.n.dot(v)
	if cosS <= 0 {
		return 0, 0
	}
	rng2 := w.opt.DiffractionRangeM * w.opt.DiffractionRangeM
	dr := v.xy()
	du := w.tx.sub(t.c).xy()
	if dr.dot(dr) > rng2 && du.dot(du) > rng2 {
		return 0, 0
	}
	if w.occluded(t.c, rx) {
		return 0, 0
	}
	rs := v.norm()
	cosS /= rs
	karr := v.scale(1 / rs)
	gr := gainAmp(w.rxPat, karr.scale(-1))
	if lt.txVoid {
		a.flags |= FlagTerrainVoid
	}
	tf := w.terrainFactor(t.c, rx, a)
	g := lt.part * cosS / (rs * rs) * gr * gr * tf * tf
	if g == 0 {
		return 0, 0
	}
	a.addPower(g, lt.ri+rs)
	w.markAssumed(t.bld, a)
	return g, lt.ri + rs
}
