package appliance

import "math"

// ProfilePath is the sampling geometry of a terrain profile
// (Terrain.Profile(a, b, stepM)): its Steps+1 equally spaced points on the
// great circle from A (index 0) to B (index Steps), with the great
// circle's trigonometry computed once. Terrain packs sample their
// profiles through it, so a caller that samples single indices of a path
// (the planner's sparse bounds) gets the points and distances of the
// full profile bit for bit.
type ProfilePath struct {
	A, B     LatLon
	LengthM  float64 // great-circle distance from A to B, metres
	Steps    int     // the last index: the path has Steps+1 samples
	spacingM float64 // LengthM / Steps (0 when Steps is 0)
	gc       GreatCircle
}

// ProfileSteps returns the number of steps of a profile of lengthM
// metres sampled at most every stepM metres: ⌈lengthM/stepM⌉, a hair
// (1e-9 of a step) over a whole step not counting as a new step. It is a
// float64 so that a caller can reject a count too large for an int.
func ProfileSteps(lengthM, stepM float64) float64 {
	return math.Ceil(lengthM/stepM - 1e-9)
}

// NewProfilePath returns the path from a to b sampled at most every stepM
// metres (ProfileSteps of a.DistanceM(b)). The caller checks that a, b
// and stepM are valid and the step count reasonable.
func NewProfilePath(a, b LatLon, stepM float64) ProfilePath {
	d := a.DistanceM(b)
	return NewProfilePathSteps(a, b, d, int(max(ProfileSteps(d, stepM), 0)))
}

// NewProfilePathSteps returns the path from a to b, lengthM =
// a.DistanceM(b) metres long, with steps steps: for a caller that has
// computed both already.
func NewProfilePathSteps(a, b LatLon, lengthM float64, steps int) ProfilePath {
	pp := ProfilePath{A: a, B: b, LengthM: lengthM, Steps: max(steps, 0), gc: greatCircle(a, b, lengthM)}
	// Equal spacing d/steps (at most stepM): the engines that want a
	// regular grid (ITM's PFL) then need no resampling.
	if pp.Steps > 0 {
		pp.spacingM = lengthM / float64(pp.Steps)
	}
	return pp
}

// DistanceM returns the distance of sample i from A, metres: i times the
// spacing, and LengthM exactly for the last sample.
func (pp *ProfilePath) DistanceM(i int) float64 {
	if i == pp.Steps {
		return pp.LengthM
	}
	return float64(i) * pp.spacingM
}

// Point returns the position of sample i: A, B, or the great circle's
// point at DistanceM(i)/LengthM between them.
func (pp *ProfilePath) Point(i int) LatLon {
	switch {
	case i == pp.Steps:
		return pp.B
	case i > 0:
		return pp.gc.At(float64(i) * pp.spacingM / pp.LengthM)
	}
	return pp.A
}

// pointsChordM is the longest chord FastPoints interpolates over at the
// equator, metres; it shrinks with the tangent of the latitude.
const pointsChordM = 1000

// FastPoints returns the positions of every sample, dst[i] within a
// centimetre of Point(i), at a fraction of the cost: Point itself at A, B
// and every stride-th sample, and latitude and longitude interpolated
// linearly in between. A great circle bends away from a straight line in
// latitude/longitude by about L²·tan φ/(8·R) over a chord of L metres at
// latitude φ, so the chord is kept below pointsChordM metres and below
// pointsChordM·0.4/tan φ: about a centimetre at most anywhere (tested
// against Point on random paths). The coverage sweep samples its radials
// with it; single profiles use Point. dst is reused when large enough.
func (pp *ProfilePath) FastPoints(dst []LatLon) []LatLon {
	n := pp.Steps + 1
	if cap(dst) < n {
		dst = make([]LatLon, n)
	}
	dst = dst[:n]
	stride := 1
	if pp.spacingM > 0 {
		φ := rad(max(math.Abs(pp.A.Lat), math.Abs(pp.B.Lat)))
		chord := pointsChordM * min(1, 0.4/math.Max(math.Tan(φ), 1e-9))
		stride = max(1, min(64, int(chord/pp.spacingM)))
	}
	prev := pp.Point(0)
	dst[0] = prev
	for i0 := 0; i0 < pp.Steps; i0 += stride {
		i1 := min(i0+stride, pp.Steps)
		next := pp.Point(i1)
		dst[i1] = next
		dLon := next.Lon - prev.Lon
		if math.Abs(dLon) > 90 {
			// across the antimeridian: no interpolation
			for i := i0 + 1; i < i1; i++ {
				dst[i] = pp.Point(i)
			}
		} else {
			dLat := next.Lat - prev.Lat
			span := float64(i1 - i0)
			for i := i0 + 1; i < i1; i++ {
				f := float64(i-i0) / span
				dst[i] = LatLon{Lat: prev.Lat + f*dLat, Lon: prev.Lon + f*dLon}
			}
		}
		prev = next
	}
	return dst
}

// maxBoxArc is the longest arc or largest disc radius ArcBox and DiscBox
// bound, radians (about 637 km), and maxBoxLatDeg the largest latitude,
// degrees, they reach: beyond, a box is not worth its proof.
const (
	maxBoxArc    = 0.1
	maxBoxLatDeg = 80
)

// ArcBox returns a latitude/longitude box, degrees, that holds every
// point of the great-circle arc from a to b, lengthM = a.DistanceM(b)
// metres long, as ProfilePath.Point computes them: the end points' box
// widened by a margin more than four times the arc's largest latitude
// excess over its ends (about δ²/8·tan φ for an arc of δ radians), plus
// rounding. ok is false for an arc it does not bound: invalid ends, an
// end beyond 80° of latitude, an arc longer than 0.1 rad or one more than
// 90° of longitude wide (across the antimeridian).
func ArcBox(a, b LatLon, lengthM float64) (box BBox, ok bool) {
	δ := lengthM / EarthRadiusM
	maxAbs := math.Max(math.Abs(a.Lat), math.Abs(b.Lat))
	if !a.Valid() || !b.Valid() || !(δ >= 0) || maxAbs > maxBoxLatDeg || δ > maxBoxArc || math.Abs(a.Lon-b.Lon) > 90 {
		return BBox{}, false
	}
	t := math.Tan(rad(maxAbs) + δ)
	m := deg(δ*δ*(1+t)/2) + 1e-7
	return BBox{MinLat: math.Min(a.Lat, b.Lat) - m, MaxLat: math.Max(a.Lat, b.Lat) + m,
		MinLon: math.Min(a.Lon, b.Lon) - m, MaxLon: math.Max(a.Lon, b.Lon) + m}, true
}

// DiscBox returns a latitude/longitude box, degrees, that holds every
// point within radiusM metres (great-circle distance) of c: the spherical
// cap's latitudes φ ± δ and longitudes λ ± asin(sin δ / cos φ), δ =
// radiusM / EarthRadiusM, each widened by 1e-6° (about 0.1 m) against
// rounding. Every point of a great-circle arc from c to a point of the
// disc is in the disc. ok is false for a disc it does not bound: an
// invalid centre or radius, a radius above 0.1 rad, a cap reaching
// beyond 80° of latitude or across the antimeridian.
func DiscBox(c LatLon, radiusM float64) (box BBox, ok bool) {
	δ := radiusM / EarthRadiusM
	φ := rad(c.Lat)
	if !c.Valid() || !(δ >= 0) || δ > maxBoxArc || math.Abs(φ)+δ > rad(maxBoxLatDeg) {
		return BBox{}, false
	}
	const m = 1e-6
	dLat := deg(δ) + m
	dLon := deg(math.Asin(math.Min(1, math.Sin(δ)/math.Cos(φ)))) + m
	if c.Lon-dLon < -180 || c.Lon+dLon > 180 {
		return BBox{}, false
	}
	return BBox{MinLat: c.Lat - dLat, MaxLat: c.Lat + dLat, MinLon: c.Lon - dLon, MaxLon: c.Lon + dLon}, true
}
