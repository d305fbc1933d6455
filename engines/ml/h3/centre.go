package h3

import "fmt"

// CellToLatLng returns the centre of cell c in degrees (latitude,
// longitude in [-180, 180]).
func CellToLatLng(c Cell) (latDeg, lonDeg float64, err error) {
	if err := c.Validate(); err != nil {
		return 0, 0, fmt.Errorf("centre of %s: %w", c, err)
	}
	lat, lon, err := reference.centre(c)
	if err != nil {
		return 0, 0, fmt.Errorf("centre of %s: %w", c, err)
	}
	return radToDeg(lat), radToDeg(lon), nil
}

// centre finds the cell's centre: for each face position of its base cell
// and each orientation of the digits that orient maps back onto the cell,
// it descends to the cell's position on that face and projects it back to
// the sphere; where that point lies nearer to another face, the centre
// belongs to that face's grid and is rounded again on its plane (near a
// shared edge both projections agree to second order). The first centre
// that LatLngToCell's own encoding maps back to c is the answer: around a
// pentagon several orientations give the same digits, and only the right
// one lands in the cell.
func (g grid) centre(c Cell) (latRad, lonRad float64, err error) {
	if g.pentagons[c.BaseCell()] {
		return g.pentagonCentre(c)
	}
	for f := range g.faces {
		for i := range 3 {
			for j := range 3 {
				for k := range 3 {
					fc := g.cells[f][i][j][k]
					if !fc.ok || int(fc.base) != c.BaseCell() {
						continue
					}
					h := c
					for range 6 {
						if g.orient(h, fc) == c {
							if lat, lon, ok := g.centreFrom(c, h, f, ijk{i, j, k}); ok {
								return lat, lon, nil
							}
						}
						h = h.rotateCW()
					}
				}
			}
		}
	}
	return 0, 0, fmt.Errorf("base cell %d: %w", c.BaseCell(), ErrUnmapped)
}

// centreFrom descends from resolution-0 position pos on face f along the
// face-oriented digits h and reports the centre it reaches when that
// centre encodes back to c.
func (g grid) centreFrom(c, h Cell, f int, pos ijk) (latRad, lonRad float64, ok bool) {
	res := c.Resolution()
	for r := 1; r <= res; r++ {
		if classIII(r) {
			pos.childCCW()
		} else {
			pos.childCW()
		}
		pos = pos.add(unitDigits[h.digit(r)])
		pos.normalize()
	}
	lat, lon := g.faces[f].fromPlane(pos.hex2d(), res)
	x, y, z := unitVector(lat, lon)
	nf, sqd := g.nearestFace(x, y, z)
	if nf != f {
		nff := &g.faces[nf]
		lat, lon = nff.fromPlane(hexAt(nff.toPlane(lat, lon, sqd, res)).hex2d(), res)
	}
	back, err := g.cellAt(lat, lon, res)
	return lat, lon, err == nil && back == c
}

// pentagonCentre finds the centre of a pentagon's descendant the way H3
// defines it: digits in the orientation of the pentagon's home face (the
// face where it sits at position (2,0,0) without rotation, with a leading
// ik digit turned clockwise), descended on that face, then moved across
// face edges by the lattice transforms between neighbouring faces while
// the class II position lies beyond the face (and, for a leading i digit,
// turned out of the deleted k subsequence first).
func (g grid) pentagonCentre(c Cell) (latRad, lonRad float64, err error) {
	base := c.BaseCell()
	face := -1
	for f := range g.faces {
		if fc := g.cells[f][2][0][0]; fc.ok && int(fc.base) == base && fc.ccwRot == 0 {
			if face >= 0 {
				return 0, 0, fmt.Errorf("pentagon %d has two home faces (%d, %d): %w", base, face, f, ErrUnmapped)
			}
			face = f
		}
	}
	if face < 0 {
		return 0, 0, fmt.Errorf("pentagon %d has no home face: %w", base, ErrUnmapped)
	}
	h := c
	if h.leadingDigit() == digitIK {
		h = h.rotateCW()
	}
	res := c.Resolution()
	pos := ijk{2, 0, 0}
	for r := 1; r <= res; r++ {
		if classIII(r) {
			pos.childCCW()
		} else {
			pos.childCW()
		}
		pos = pos.add(unitDigits[h.digit(r)])
		pos.normalize()
	}
	orig, res2 := pos, res
	if classIII(res) {
		pos.childCW()
		res2++
	}
	moved, err := g.crossEdge(&face, &pos, res2, h.leadingDigit() == digitI)
	if err != nil {
		return 0, 0, err
	}
	if moved {
		for moved {
			if moved, err = g.crossEdge(&face, &pos, res2, false); err != nil {
				return 0, 0, err
			}
		}
		if res2 != res {
			pos.parentCW()
		}
	} else {
		pos = orig
	}
	lat, lon := g.faces[face].fromPlane(pos.hex2d(), res)
	return lat, lon, nil
}

// crossEdge moves a class II position of resolution res that lies beyond
// its face onto the neighbouring face across the edge it lies beyond, and
// reports whether it moved.
func (g grid) crossEdge(face *int, pos *ijk, res int, pentLeadingI bool) (bool, error) {
	unit := 1
	for range res / 2 {
		unit *= 7
	}
	maxDim := 2 * unit
	if pos.sum() <= maxDim {
		return false, nil
	}
	// The edge cell of the quadrant the position lies in.
	var edge ijk
	switch {
	case pos.k > 0 && pos.j > 0:
		edge = ijk{0, 1, 1}
	case pos.k > 0:
		edge = ijk{1, 0, 1}
		if pentLeadingI {
			origin := ijk{maxDim, 0, 0}
			t := pos.sub(origin).rotCW()
			*pos = t.add(origin)
		}
	default:
		edge = ijk{1, 1, 0}
	}
	nf, rot, trans, err := g.neighbour(*face, edge)
	if err != nil {
		return false, err
	}
	p := *pos
	for range rot {
		p = p.rotCCW()
	}
	p = p.add(trans.scale(unit))
	p.normalize()
	*face, *pos = nf, p
	return true, nil
}

// neighbour derives the lattice transform from face f to the face across
// the edge whose resolution-0 edge cell sits at position edge on f: the
// rotation (60° counter-clockwise turns) and translation (resolution-0
// units) that carry the edge cell and both end pentagons from f's
// positions to the neighbour's.
func (g grid) neighbour(f int, edge ijk) (nf, rot int, trans ijk, err error) {
	edges := []ijk{{1, 1, 0}, {1, 0, 1}, {0, 1, 1}}
	vertices := []ijk{{2, 0, 0}, {0, 2, 0}, {0, 0, 2}}
	var ends [2]ijk
	n := 0
	for _, v := range vertices {
		if v.i*edge.i+v.j*edge.j+v.k*edge.k == 2 { // the two vertices beside the edge
			ends[n] = v
			n++
		}
	}
	// at finds base cell base among face's edge cells or vertices.
	at := func(face int, base int8, places []ijk) (ijk, bool) {
		for _, p := range places {
			if fc := g.cells[face][p.i][p.j][p.k]; fc.ok && fc.base == base {
				return p, true
			}
		}
		return ijk{}, false
	}
	eb := g.cells[f][edge.i][edge.j][edge.k].base
	for cand := range g.faces {
		if cand == f {
			continue
		}
		ep, ok := at(cand, eb, edges)
		if !ok {
			continue
		}
		for r := range 6 {
			re := edge
			for range r {
				re = re.rotCCW()
			}
			t := ep.sub(re)
			good := true
			for _, v := range ends {
				vp, ok := at(cand, g.cells[f][v.i][v.j][v.k].base, vertices)
				rv := v
				for range r {
					rv = rv.rotCCW()
				}
				rv = rv.add(t)
				rv.normalize()
				if !ok || rv != vp {
					good = false
					break
				}
			}
			if good {
				t.normalize()
				return cand, r, t, nil
			}
		}
	}
	return 0, 0, ijk{}, fmt.Errorf("face %d edge %v: no neighbour: %w", f, edge, ErrUnmapped)
}
