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
