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
// model's energy balance.

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

// scatter adds the power scattered by the lit tiles that see rx and lie
// within DiffractionRangeM (2D) of either antenna.
func (w *worker) scatter(rx vec3, a *accum) {
	s := w.s
	sc := w.opt.DiffuseScattering
	rng2 := w.opt.DiffractionRangeM * w.opt.DiffractionRangeM
	base := w.lambda / (4 * math.Pi)
	base *= base * sc * sc / math.Pi
	var total, best, bestL float64
	bestI := int32(-1)
	for _, ti := range w.lit {
		t := &s.tiles[ti]
		v := rx.sub(t.c)
		cosS := t.n.dot(v)
		if cosS <= 0 {
			continue
		}
		dr := v.xy()
		u := w.tx.sub(t.c)
		du := u.xy()
		if dr.dot(dr) > rng2 && du.dot(du) > rng2 {
			continue
		}
		if w.occluded(t.c, rx) {
			continue
		}
		rs := v.norm()
		ri := u.norm()
		cosS /= rs
		cosI := t.n.dot(u) / ri
		kdep := u.scale(-1 / ri)
		karr := v.scale(1 / rs)
		gt := gainAmp(w.txPat, kdep) * gainAmp(w.rxPat, karr.scale(-1))
		tf := w.terrainFactor(w.tx, t.c, a) * w.terrainFactor(t.c, rx, a)
		g := base * t.area * cosI * cosS / (ri * ri * rs * rs) * gt * gt * tf * tf
		if g == 0 {
			continue
		}
		a.addPower(g, ri+rs)
		w.markAssumed(t.bld, a)
		total += g
		if g > best {
			best, bestL, bestI = g, ri+rs, ti
		}
	}
	if w.collect && bestI >= 0 {
		t := &s.tiles[bestI]
		in := []Interaction{w.interaction("scattering", "wall", t.bld, t.c)}
		p := w.pathOf("scattering", in, bestL, w.tx.sub(t.c).scale(-1).unit(), rx.sub(t.c).unit(), complex(math.Sqrt(total), 0))
		w.paths = append(w.paths, p)
	}
}
