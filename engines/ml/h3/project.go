package h3

import "math"

// faceFrame is one icosahedron face: its centre (radians and unit vector)
// and the azimuth of its class II i axis, clockwise from north, radians.
type faceFrame struct {
	latRad, lonRad float64
	x, y, z        float64
	axisAzRad      float64
}

// faceCell is the resolution-0 cell at one face position: its base cell,
// the 60° counter-clockwise turns from the face's axes to the base cell's
// own, and for pentagons whether a leading k-axis digit turns clockwise.
type faceCell struct {
	base   int8
	ccwRot int8
	cw     bool
	ok     bool
}

// grid holds the constant tables the projection works with.
type grid struct {
	faces     *[numFaces]faceFrame
	cells     *[numFaces][3][3][3]faceCell
	pentagons *[NumBaseCells]bool
}

const (
	numFaces = 20
	// res0UnitGnomonic is the gnomonic length, on the unit sphere, of one
	// resolution-0 unit: H3's published design constant, (3−√5)/2 rounded
	// as the reference writes it.
	res0UnitGnomonic = 0.38196601125010500003
	// ap7RotRad is the angle between class II and class III axes,
	// asin(√(3/28)).
	ap7RotRad = 0.333473172251832115336090755351601070065900389
	twoPi     = 2 * math.Pi
	epsilon   = 1e-16
)

func posAngle(a float64) float64 {
	t := a
	if a < 0 {
		t = a + twoPi
	}
	if t >= twoPi {
		t -= twoPi
	}
	return t
}

// azimuthRad returns the initial bearing from (lat1, lon1) to (lat2, lon2),
// radians clockwise from north.
func azimuthRad(lat1, lon1, lat2, lon2 float64) float64 {
	return math.Atan2(math.Cos(lat2)*math.Sin(lon2-lon1),
		math.Cos(lat1)*math.Sin(lat2)-math.Sin(lat1)*math.Cos(lat2)*math.Cos(lon2-lon1))
}

// nearestFace returns the face whose centre is nearest to the unit vector
// (x, y, z) and the squared chord distance to it.
func (g grid) nearestFace(x, y, z float64) (int, float64) {
	best, bestD := 0, math.Inf(1)
	for f := range g.faces {
		fc := &g.faces[f]
		dx, dy, dz := fc.x-x, fc.y-y, fc.z-z
		if d := dx*dx + dy*dy + dz*dz; d < bestD {
			best, bestD = f, d
		}
	}
	return best, bestD
}

// toPlane projects (latRad, lonRad) gnomonically onto face f's plane in
// units of resolution res; sqd is the squared chord distance from the
// face centre.
func (ff *faceFrame) toPlane(latRad, lonRad, sqd float64, res int) vec2 {
	r := math.Acos(1 - sqd/2)
	if r < epsilon {
		return vec2{}
	}
	theta := posAngle(ff.axisAzRad - posAngle(azimuthRad(ff.latRad, ff.lonRad, latRad, lonRad)))
	if classIII(res) {
		theta = posAngle(theta - ap7RotRad)
	}
	r = math.Tan(r) / res0UnitGnomonic
	for range res {
		r *= sqrt7
	}
	return vec2{r * math.Cos(theta), r * math.Sin(theta)}
}

// fromPlane is the inverse of toPlane: the point of face f's plane at v
// (units of resolution res) back on the sphere, radians.
func (ff *faceFrame) fromPlane(v vec2, res int) (latRad, lonRad float64) {
	r := math.Hypot(v.x, v.y)
	if r < epsilon {
		return ff.latRad, ff.lonRad
	}
	theta := math.Atan2(v.y, v.x)
	for range res {
		r *= invSqr7
	}
	r = math.Atan(r * res0UnitGnomonic)
	if classIII(res) {
		theta = posAngle(theta + ap7RotRad)
	}
	theta = posAngle(ff.axisAzRad - theta)
	return destination(ff.latRad, ff.lonRad, theta, r)
}

// destination returns the point at angular distance distRad from (lat, lon)
// along the initial bearing azRad.
func destination(lat, lon, azRad, distRad float64) (float64, float64) {
	if distRad < epsilon {
		return lat, lon
	}
	az := posAngle(azRad)
	var lat2, lon2 float64
	if az < epsilon || math.Abs(az-math.Pi) < epsilon {
		if az < epsilon {
			lat2 = lat + distRad
		} else {
			lat2 = lat - distRad
		}
		switch {
		case math.Abs(lat2-math.Pi/2) < epsilon:
			return math.Pi / 2, 0
		case math.Abs(lat2+math.Pi/2) < epsilon:
			return -math.Pi / 2, 0
		}
		return lat2, wrapLon(lon)
	}
	sinLat := clamp1(math.Sin(lat)*math.Cos(distRad) + math.Cos(lat)*math.Sin(distRad)*math.Cos(az))
	lat2 = math.Asin(sinLat)
	switch {
	case math.Abs(lat2-math.Pi/2) < epsilon:
		return math.Pi / 2, 0
	case math.Abs(lat2+math.Pi/2) < epsilon:
		return -math.Pi / 2, 0
	}
	inv := 1 / math.Cos(lat2)
	sinLon := clamp1(math.Sin(az) * math.Sin(distRad) * inv)
	cosLon := clamp1((math.Cos(distRad) - math.Sin(lat)*math.Sin(lat2)) / math.Cos(lat) * inv)
	lon2 = wrapLon(lon + math.Atan2(sinLon, cosLon))
	return lat2, lon2
}

func clamp1(v float64) float64 { return max(-1, min(1, v)) }

// wrapLon brings a longitude into [-π, π].
func wrapLon(lon float64) float64 {
	for lon > math.Pi {
		lon -= twoPi
	}
	for lon < -math.Pi {
		lon += twoPi
	}
	return lon
}

// unitVector returns the point's position on the unit sphere.
func unitVector(latRad, lonRad float64) (x, y, z float64) {
	cl := math.Cos(latRad)
	return cl * math.Cos(lonRad), cl * math.Sin(lonRad), math.Sin(latRad)
}
