package h3

import "math"

// ijk is a position in H3's three-axis hexagonal coordinates on one face;
// the axes i, j, k are 120° apart and a normalized position has its
// smallest component 0.
type ijk struct{ i, j, k int }

// vec2 is a position on a face's plane in units of the current
// resolution's cell spacing.
type vec2 struct{ x, y float64 }

const (
	sin60   = 0.8660254037844386467637231707529361834714 // √3/2
	invSin  = 1.1547005383792515290182975610039149112953 // 1/sin 60°
	sqrt7   = 2.6457513110645905905016157536392604257102
	invSqr7 = 0.3779644730092272272145165362341800608157 // 1/√7
)

func (c *ijk) normalize() {
	if c.i < 0 {
		c.j -= c.i
		c.k -= c.i
		c.i = 0
	}
	if c.j < 0 {
		c.i -= c.j
		c.k -= c.j
		c.j = 0
	}
	if c.k < 0 {
		c.i -= c.k
		c.j -= c.k
		c.k = 0
	}
	m := min(c.i, c.j, c.k)
	if m > 0 {
		c.i -= m
		c.j -= m
		c.k -= m
	}
}

func (c ijk) add(o ijk) ijk { return ijk{c.i + o.i, c.j + o.j, c.k + o.k} }
func (c ijk) sub(o ijk) ijk { return ijk{c.i - o.i, c.j - o.j, c.k - o.k} }

// hex2d returns the centre of the cell at c on the face plane.
func (c ijk) hex2d() vec2 {
	i := float64(c.i - c.k)
	j := float64(c.j - c.k)
	return vec2{i - 0.5*j, j * sin60}
}

// hexAt returns the cell whose hexagon contains v: v is expressed along
// the i axis and the j axis (60° oblique), the containing hexagon is
// decided inside the unit rhombus from the fractional parts, and the
// quadrants with negative x or y are mirrored back.
func hexAt(v vec2) ijk {
	ax, ay := math.Abs(v.x), math.Abs(v.y)
	x2 := ay * invSin
	x1 := ax + x2/2
	m1, m2 := int(x1), int(x2)
	r1, r2 := x1-float64(m1), x2-float64(m2)
	var c ijk
	switch {
	case r1 < 1.0/3.0:
		c.i = m1
		if r2 < (1+r1)/2 {
			c.j = m2
		} else {
			c.j = m2 + 1
		}
	case r1 < 0.5:
		c.j = m2
		if r2 >= 1-r1 {
			c.j = m2 + 1
		}
		c.i = m1
		if 1-r1 <= r2 && r2 < 2*r1 {
			c.i = m1 + 1
		}
	case r1 < 2.0/3.0:
		c.j = m2
		if r2 >= 1-r1 {
			c.j = m2 + 1
		}
		c.i = m1 + 1
		if 2*r1-1 < r2 && r2 < 1-r1 {
			c.i = m1
		}
	default:
		c.i = m1 + 1
		c.j = m2
		if r2 >= r1/2 {
			c.j = m2 + 1
		}
	}
	if v.x < 0 {
		if c.j%2 == 0 {
			c.i -= 2 * (c.i - c.j/2)
		} else {
			c.i -= 2*(c.i-(c.j+1)/2) + 1
		}
	}
	if v.y < 0 {
		c.i -= (2*c.j + 1) / 2
		c.j = -c.j
	}
	c.normalize()
	return c
}

// Aperture-7 parents and centre children. Class III resolutions (odd) are
// rotated against class II ones by asin(√(3/28)); parentCCW and childCCW
// step between a class III resolution and its class II parent, parentCW
// and childCW between a class II resolution and its class III parent.
func (c *ijk) parentCCW() {
	i, j := c.i-c.k, c.j-c.k
	c.i = int(math.Round(float64(3*i-j) / 7))
	c.j = int(math.Round(float64(i+2*j) / 7))
	c.k = 0
	c.normalize()
}

func (c *ijk) parentCW() {
	i, j := c.i-c.k, c.j-c.k
	c.i = int(math.Round(float64(2*i+j) / 7))
	c.j = int(math.Round(float64(3*j-i) / 7))
	c.k = 0
	c.normalize()
}

func (c *ijk) childCCW() {
	// i·(3,0,1) + j·(1,3,0) + k·(0,1,3)
	*c = ijk{3*c.i + c.j, 3*c.j + c.k, c.i + 3*c.k}
	c.normalize()
}

func (c *ijk) childCW() {
	// i·(3,1,0) + j·(0,3,1) + k·(1,0,3)
	*c = ijk{3*c.i + c.k, c.i + 3*c.j, c.j + 3*c.k}
	c.normalize()
}

// unitDigits maps a digit to its unit vector.
var unitDigits = [7]ijk{{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {0, 1, 1}, {1, 0, 0}, {1, 0, 1}, {1, 1, 0}}

// digitOf returns the digit of a unit vector, or digitInvalid. A
// normalized unit vector has components 0 or 1, and the digit is their
// binary number i·4 + j·2 + k.
func digitOf(c ijk) int {
	c.normalize()
	if c.i|c.j|c.k > 1 || c.i < 0 || c.j < 0 || c.k < 0 {
		return digitInvalid
	}
	return c.i<<2 | c.j<<1 | c.k
}

// classIII reports whether resolution res is of class III (odd).
func classIII(res int) bool { return res%2 == 1 }

// rotCCW turns the position 60° counter-clockwise about the face origin.
func (c ijk) rotCCW() ijk {
	r := ijk{c.i + c.k, c.i + c.j, c.j + c.k}
	r.normalize()
	return r
}

// rotCW turns the position 60° clockwise about the face origin.
func (c ijk) rotCW() ijk {
	r := ijk{c.i + c.j, c.j + c.k, c.i + c.k}
	r.normalize()
	return r
}

func (c ijk) scale(s int) ijk { return ijk{c.i * s, c.j * s, c.k * s} }

func (c ijk) sum() int { return c.i + c.j + c.k }
