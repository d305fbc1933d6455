package raytrace

import "math"

// vec3 is a point or direction in the scene's local frame: x east, y north,
// z up, metres (z is height above mean sea level for points).
type vec3 struct{ X, Y, Z float64 }

func (a vec3) add(b vec3) vec3      { return vec3{a.X + b.X, a.Y + b.Y, a.Z + b.Z} }
func (a vec3) sub(b vec3) vec3      { return vec3{a.X - b.X, a.Y - b.Y, a.Z - b.Z} }
func (a vec3) scale(s float64) vec3 { return vec3{a.X * s, a.Y * s, a.Z * s} }
func (a vec3) dot(b vec3) float64   { return a.X*b.X + a.Y*b.Y + a.Z*b.Z }
func (a vec3) norm() float64        { return math.Sqrt(a.dot(a)) }
func (a vec3) xy() vec2             { return vec2{a.X, a.Y} }
func (a vec3) cross(b vec3) vec3 {
	return vec3{a.Y*b.Z - a.Z*b.Y, a.Z*b.X - a.X*b.Z, a.X*b.Y - a.Y*b.X}
}

// unit returns a/|a|, or the zero vector for a zero a.
func (a vec3) unit() vec3 {
	n := a.norm()
	if n == 0 {
		return vec3{}
	}
	return a.scale(1 / n)
}

// vec2 is a point or direction in the horizontal plane, metres.
type vec2 struct{ X, Y float64 }

func (a vec2) add(b vec2) vec2      { return vec2{a.X + b.X, a.Y + b.Y} }
func (a vec2) sub(b vec2) vec2      { return vec2{a.X - b.X, a.Y - b.Y} }
func (a vec2) scale(s float64) vec2 { return vec2{a.X * s, a.Y * s} }
func (a vec2) dot(b vec2) float64   { return a.X*b.X + a.Y*b.Y }
func (a vec2) cross(b vec2) float64 { return a.X*b.Y - a.Y*b.X }
func (a vec2) norm() float64        { return math.Hypot(a.X, a.Y) }
func (a vec2) at(z float64) vec3    { return vec3{a.X, a.Y, z} }

// cvec3 is a complex field vector (volts per metre, relative).
type cvec3 struct{ X, Y, Z complex128 }

func (e cvec3) dot(b vec3) complex128 {
	return e.X*complex(b.X, 0) + e.Y*complex(b.Y, 0) + e.Z*complex(b.Z, 0)
}

// along returns c·b, a complex vector along the real direction b.
func along(b vec3, c complex128) cvec3 {
	return cvec3{c * complex(b.X, 0), c * complex(b.Y, 0), c * complex(b.Z, 0)}
}

func (e cvec3) add(f cvec3) cvec3 { return cvec3{e.X + f.X, e.Y + f.Y, e.Z + f.Z} }

// thetaHat is the unit vector perpendicular to the propagation direction k
// in the vertical plane that holds k, with a non-negative z component: the
// vertical polarisation of a wave travelling along k. For a vertical k it
// falls back to x̂ (east).
func thetaHat(k vec3) vec3 {
	t := vec3{0, 0, 1}.sub(k.scale(k.Z))
	if n := t.norm(); n > 1e-12 {
		return t.scale(1 / n)
	}
	return vec3{1, 0, 0}
}

// phiHat is ẑ × k normalised: the horizontal polarisation of a wave
// travelling along k. For a vertical k it falls back to ŷ (north).
func phiHat(k vec3) vec3 {
	p := vec3{-k.Y, k.X, 0}
	if n := p.norm(); n > 1e-12 {
		return p.scale(1 / n)
	}
	return vec3{0, 1, 0}
}

// azElDeg returns the azimuth (degrees clockwise from north, [0, 360)) and
// elevation (degrees above the horizontal) of direction d.
func azElDeg(d vec3) (az, el float64) {
	az = math.Atan2(d.X, d.Y) * 180 / math.Pi
	if az < 0 {
		az += 360
	}
	el = math.Atan2(d.Z, math.Hypot(d.X, d.Y)) * 180 / math.Pi
	return az, el
}

// norm2 is |e|², the squared magnitude.
func (e cvec3) norm2() float64 {
	sq := func(c complex128) float64 { return real(c)*real(c) + imag(c)*imag(c) }
	return sq(e.X) + sq(e.Y) + sq(e.Z)
}
