package terrain

import (
	"fmt"
	"math"

	"linkplan/appliance"
)

var (
	_ appliance.PointSampler  = (*Pack)(nil)
	_ appliance.PointSampler  = (*Layered)(nil)
	_ appliance.HeightBounder = (*Pack)(nil)
	_ appliance.HeightBounder = (*Layered)(nil)
)

// PointSession returns a sampler of arbitrary points
// (appliance.PointSampler): each height is ElevationM's at that point, bit
// for bit, with the current tile kept between points and calls.
func (p *Pack) PointSession() appliance.PointSession {
	return &pointSession{at: p.elevation, first: p}
}

// PointSession returns a sampler of arbitrary points, each from the first
// pack that has it (appliance.PointSampler; see Pack.PointSession).
func (l *Layered) PointSession() appliance.PointSession {
	ps := &pointSession{at: l.elevation, layered: true}
	if len(l.packs) > 0 {
		ps.first = l.packs[0]
	}
	return ps
}

// pointSession is a PointSession: the sampler, its current tile and the
// pack that answers first.
type pointSession struct {
	at      sampler
	ref     tileRef
	first   *Pack
	layered bool
}

// ElevationsM implements appliance.PointSession. A point of the current
// tile, when the first pack answered it, is interpolated directly (what
// that pack's elevation does with the tile kept, without the look-up).
func (ps *pointSession) ElevationsM(pts []appliance.LatLon, heightsM []float64, sea []bool) error {
	if len(heightsM) < len(pts) || sea != nil && len(sea) < len(pts) {
		return fmt.Errorf("sample %d points into %d heights and %d sea flags: %w", len(pts), len(heightsM), len(sea), appliance.ErrInvalid)
	}
	heightsM = heightsM[:len(pts)]
	var spd int
	var f float64
	if ps.first != nil {
		spd = ps.first.hdr.SamplesPerDegree
		f = float64(spd)
	}
	for i, q := range pts {
		if r := &ps.ref; r.owner == ps.first && r.samples != nil {
			t := r.id
			if q.Lat >= float64(t.Lat) && q.Lat < float64(t.Lat+1) && q.Lon >= float64(t.Lon) && q.Lon < float64(t.Lon+1) {
				// bilinear's arithmetic, inline: cell, weights and the
				// weighted sum in the same order (a zero weight adds
				// nothing to it)
				y, x := (float64(t.Lat+1)-q.Lat)*f, (q.Lon-float64(t.Lon))*f
				row, col := min(int(y), spd-1), min(int(x), spd-1)
				fy, fx := y-float64(row), x-float64(col)
				k := row*(spd+1) + col
				c := r.samples[k : k+spd+3 : k+spd+3]
				v0, v1, v2, v3 := c[0], c[1], c[spd+1], c[spd+2]
				if v0 != NoData && v1 != NoData && v2 != NoData && v3 != NoData {
					h := 0.0
					h += (1 - fx) * (1 - fy) * float64(v0)
					h += fx * (1 - fy) * float64(v1)
					h += (1 - fx) * fy * float64(v2)
					h += fx * fy * float64(v3)
					heightsM[i] = h
					if sea != nil {
						sea[i] = false
					}
					continue
				}
			}
		}
		h, s, _, err := ps.at(q, &ps.ref)
		if err != nil {
			if ps.layered {
				return fmt.Errorf("layered: sample point %d: %w", i, err)
			}
			return fmt.Errorf("sample point %d: %w", i, err)
		}
		heightsM[i] = h
		if sea != nil {
			sea[i] = s
		}
	}
	return nil
}

// boundSlackM is added to the bounds: a bilinear interpolation's weights
// sum to 1 only to within rounding, so a height can exceed its highest
// sample by a few ulps.
const boundSlackM = 1e-6

// metresPerDegree is the length of a degree of latitude in a Strip's
// metric, metres.
const metresPerDegree = appliance.EarthRadiusM * math.Pi / 180

// MaxElevationsM bounds the heights of every strip (appliance.HeightBounder)
// by the highest grid sample of the cells its bounding box touches, per
// one-degree tile: 0 m on a sea tile; +Inf (with appliance.BoundMissing)
// where the pack lacks a tile, holds it as void, or a sample there is
// NoData.
func (p *Pack) MaxElevationsM(strips []appliance.Strip, maxM []float64, kinds []uint8) error {
	return maxElevations([]*Pack{p}, strips, maxM, kinds)
}

// MaxElevationsM bounds the heights of every strip over all the layered
// packs (appliance.HeightBounder): the highest of the bounds of the packs
// that hold each tile; +Inf where no pack answers a tile of the strip.
func (l *Layered) MaxElevationsM(strips []appliance.Strip, maxM []float64, kinds []uint8) error {
	if err := maxElevations(l.packs, strips, maxM, kinds); err != nil {
		return fmt.Errorf("layered: %w", err)
	}
	return nil
}

func maxElevations(packs []*Pack, strips []appliance.Strip, maxM []float64, kinds []uint8) error {
	if len(maxM) < len(strips) || len(kinds) < len(strips) {
		return fmt.Errorf("bound %d strips into %d heights and %d kinds: %w", len(strips), len(maxM), len(kinds), appliance.ErrInvalid)
	}
	var c boundCache
	cosLat, cosV := math.NaN(), 0.0 // the last cosine computed, of latitude cosLat
	for i, st := range strips {
		if !st.A.Valid() || !st.B.Valid() || !(st.HalfWidthM >= 0) || math.IsInf(st.HalfWidthM, 0) || math.Abs(st.A.Lon-st.B.Lon) > 90 {
			return fmt.Errorf("bound strip %d %+v: %w", i, st, appliance.ErrInvalid)
		}
		// a lower bound of the cosine of the middle latitude: the last
		// one computed while within 0.001° (cos moves by under 2e-5 a
		// thousandth of a degree), made 1e-4 smaller
		φ := (st.A.Lat + st.B.Lat) / 2
		if !(math.Abs(φ-cosLat) < 1e-3) {
			cosLat, cosV = φ, math.Cos(φ*math.Pi/180)
		}
		cφ := max(cosV-1e-4, 1e-9)
		w := st.HalfWidthM*(1+1e-9) + 1e-9
		dLat, dLon := w/metresPerDegree, w/(metresPerDegree*cφ)
		b := appliance.BBox{MinLat: max(-90, min(st.A.Lat, st.B.Lat)-dLat), MaxLat: min(90, max(st.A.Lat, st.B.Lat)+dLat),
			MinLon: max(-180, min(st.A.Lon, st.B.Lon)-dLon), MaxLon: min(180, max(st.A.Lon, st.B.Lon)+dLon)}
		m, k := math.Inf(-1), uint8(0)
		t0, t1 := TileOf(appliance.LatLon{Lat: b.MinLat, Lon: b.MinLon}), TileOf(appliance.LatLon{Lat: b.MaxLat, Lon: b.MaxLon})
		if t0 == t1 && c.known && c.tile == t0 && c.land != nil {
			// within the one land tile of the last strip, held by one
			// pack: its cells' highest sample
			g := boxGrid(c.spd, t0, b)
			if tm, full := g.nodeMax(c.land); full {
				maxM[i], kinds[i] = tm, appliance.BoundLand
				continue
			}
		}
		for lat := t0.Lat; lat <= t1.Lat; lat++ {
			for lon := t0.Lon; lon <= t1.Lon; lon++ {
				tm, tk, err := c.tileBound(packs, TileID{Lat: lat, Lon: lon}, b)
				if err != nil {
					return err
				}
				m, k = max(m, tm), k|tk
			}
		}
		maxM[i], kinds[i] = m, k
	}
	return nil
}

// boundCache keeps the tile of the last strip: consecutive strips of a
// radial lie mostly in one tile.
type boundCache struct {
	tile  TileID
	known bool
	// the packs' entries for tile: kind, and samples of land tiles
	kinds   []Kind
	samples [][]int16
	// land: the samples of tile when one pack alone holds it, as land
	// (spd samples a degree); nil otherwise
	land []int16
	spd  int
}

// tileBound bounds the heights of the part of box b (the bounding box of
// a strip) in tile t over the packs that hold t: the highest of their
// bounds, +Inf when none answers every point there.
func (c *boundCache) tileBound(packs []*Pack, t TileID, b appliance.BBox) (float64, uint8, error) {
	if !c.known || c.tile != t {
		c.tile, c.known = t, true
		c.kinds, c.samples = c.kinds[:0], c.samples[:0]
		for _, p := range packs {
			kind, s := Kind(0), []int16(nil)
			if i, ok := p.byTile[t]; ok {
				kind = p.entries[i].Kind
				if kind == KindLand {
					var err error
					if s, err = p.samples(t); err != nil {
						c.known = false
						return 0, 0, fmt.Errorf("bound heights in tile %s: %w", t, err)
					}
				}
			}
			c.kinds, c.samples = append(c.kinds, kind), append(c.samples, s)
		}
		c.land = nil
		holders := 0
		for pi, kd := range c.kinds {
			if kd != 0 {
				holders++
				if kd == KindLand {
					c.land, c.spd = c.samples[pi], packs[pi].hdr.SamplesPerDegree
				}
			}
		}
		if holders != 1 {
			c.land = nil
		}
	}
	m, k, answered := math.Inf(-1), uint8(0), false
	for pi, p := range packs {
		switch c.kinds[pi] {
		case KindSea:
			m, k, answered = max(m, 0), k|appliance.BoundSea, true
		case KindLand:
			g := boxGrid(p.hdr.SamplesPerDegree, t, b)
			tm, full := g.nodeMax(c.samples[pi])
			k |= appliance.BoundLand
			m = max(m, tm)
			answered = answered || full
		}
	}
	if !answered {
		return math.Inf(1), k | appliance.BoundMissing, nil
	}
	return m, k, nil
}

// cellBox is the grid cells of a tile (spd samples a degree, spd+1 a
// side) that a box touches: rows r0..r1 and columns c0..c1 of samples.
type cellBox struct {
	spd            int
	t              TileID
	r0, r1, c0, c1 int
}

func boxGrid(spd int, t TileID, b appliance.BBox) cellBox {
	f := float64(spd)
	top := float64(t.Lat + 1)
	return cellBox{spd: spd, t: t,
		r0: floorIndex((top-min(b.MaxLat, top))*f, spd),
		r1: ceilIndex((top-max(b.MinLat, float64(t.Lat)))*f, spd),
		c0: floorIndex((max(b.MinLon, float64(t.Lon))-float64(t.Lon))*f, spd),
		c1: ceilIndex((min(b.MaxLon, float64(t.Lon+1))-float64(t.Lon))*f, spd)}
}

// floorIndex and ceilIndex are ⌊v⌋ and ⌈v⌉ of a non-negative v (a grid
// position within a tile) clamped to 0..spd.
func floorIndex(v float64, spd int) int {
	if !(v > 0) {
		return 0
	}
	return min(int(v), spd)
}

func ceilIndex(v float64, spd int) int {
	if !(v > 0) {
		return 0
	}
	i := int(v)
	if float64(i) < v {
		i++
	}
	return min(i, spd)
}

// nodeMax returns the highest sample of the box's cells (plus
// boundSlackM), and false when one of them is NoData (a point there may
// have no height from this tile).
func (g cellBox) nodeMax(s []int16) (float64, bool) {
	m := int16(math.MinInt16)
	n := g.spd + 1
	for r := g.r0; r <= g.r1; r++ {
		for _, v := range s[r*n+g.c0 : r*n+g.c1+1] {
			if v == NoData {
				return math.Inf(1), false
			}
			m = max(m, v)
		}
	}
	return float64(m) + boundSlackM, true
}
