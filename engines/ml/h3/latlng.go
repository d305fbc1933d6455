package h3

import (
	"fmt"
	"math"
)

// reference is the grid of the generated tables (tables_gen.go).
var reference = grid{faces: &faceFrames, cells: &faceCells, pentagons: &pentagonBases}

func isPentagonBase(b int) bool { return b >= 0 && b < NumBaseCells && pentagonBases[b] }

// degToRad converts degrees to radians the way h3-js does ((deg·π)/180,
// two roundings), so that both give the same cell on a cell edge.
func degToRad(deg float64) float64 { return deg * math.Pi / 180 }

func radToDeg(rad float64) float64 { return rad * 180 / math.Pi }

// LatLngToCell returns the cell of resolution res (0..15) that contains the
// point at latDeg, lonDeg (WGS84 degrees; H3 treats them as spherical).
func LatLngToCell(latDeg, lonDeg float64, res int) (Cell, error) {
	if res < 0 || res > MaxResolution {
		return 0, fmt.Errorf("cell of (%g, %g) at resolution %d: %w", latDeg, lonDeg, res, ErrResolution)
	}
	if !(latDeg >= -90 && latDeg <= 90) || !(lonDeg >= -180 && lonDeg <= 180) {
		return 0, fmt.Errorf("cell of (%g, %g): %w", latDeg, lonDeg, ErrLatLng)
	}
	c, err := reference.cellAt(degToRad(latDeg), degToRad(lonDeg), res)
	if err != nil {
		return 0, fmt.Errorf("cell of (%g, %g) at resolution %d: %w", latDeg, lonDeg, res, err)
	}
	return c, nil
}

// cellAt projects the point onto its nearest face and encodes it.
func (g grid) cellAt(latRad, lonRad float64, res int) (Cell, error) {
	x, y, z := unitVector(latRad, lonRad)
	f, sqd := g.nearestFace(x, y, z)
	v := g.faces[f].toPlane(latRad, lonRad, sqd, res)
	return g.encode(f, hexAt(v), res)
}

// faceDigits climbs from position c of resolution res on a face to
// resolution 0, writing each aperture-7 digit into a cell of resolution res
// in the face's own orientation; it returns that cell (base cell 0) and the
// resolution-0 position.
func faceDigits(c ijk, res int) (Cell, ijk) {
	h := newCell(res, 0)
	for r := res; r >= 1; r-- {
		last := c
		center := c
		if classIII(r) {
			center.parentCCW()
			c = center
			center.childCCW()
		} else {
			center.parentCW()
			c = center
			center.childCW()
		}
		h = h.withDigit(r, digitOf(last.sub(center)))
	}
	return h, c
}

// encode turns position c of resolution res on face f into a cell.
func (g grid) encode(f int, c ijk, res int) (Cell, error) {
	h, c0 := faceDigits(c, res)
	if c0.i > 2 || c0.j > 2 || c0.k > 2 {
		return 0, fmt.Errorf("face %d position %v: %w", f, c0, ErrUnmapped)
	}
	fc := g.cells[f][c0.i][c0.j][c0.k]
	if !fc.ok {
		return 0, fmt.Errorf("face %d position %v: %w", f, c0, ErrUnmapped)
	}
	return g.orient(h, fc), nil
}

// orient gives the face-oriented digits h their base cell and turns them
// into the base cell's orientation.
func (g grid) orient(h Cell, fc faceCell) Cell {
	h = h.withBaseCell(int(fc.base))
	if g.pentagons[fc.base] {
		if h.leadingDigit() == digitK {
			if fc.cw {
				h = h.rotateCW()
			} else {
				h = h.rotateCCW()
			}
		}
		for range fc.ccwRot {
			h = h.rotatePentCCW()
		}
		return h
	}
	for range fc.ccwRot {
		h = h.rotateCCW()
	}
	return h
}
