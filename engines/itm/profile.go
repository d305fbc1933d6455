package itm

import "math"

// pathParams are the geometric parameters of a path, from a terrain profile
// (point-to-point mode) or from Δh and the siting criteria (area mode).
type pathParams struct {
	d      float64    // path length, metres
	theta  [2]float64 // horizon angles, radians
	dHzn   [2]float64 // horizon distances, metres
	he     [2]float64 // effective heights, metres
	deltaH float64    // terrain irregularity Δh, metres
}

// fdim is C's fdim: x − y when x > y, else 0.
func fdim(x, y float64) float64 {
	if x > y {
		return x - y
	}
	return 0
}

// SystemElevationM returns h_sys, the mean elevation in metres of the middle
// 80 % of a PFL profile (points p10..np−p10, p10 = ⌊0.1·np⌋), from which
// point-to-point mode derives N_s = N_0·exp(−h_sys/9460). The profile is not
// validated; it returns NaN when it is too short to hold np+1 elevations.
func SystemElevationM(pfl []float64) float64 {
	if len(pfl) < 3 || !(pfl[0] >= 0) || int(pfl[0])+3 > len(pfl) {
		return math.NaN()
	}
	return systemElevation(pfl[2 : int(pfl[0])+3])
}

// systemElevation averages z[p10..np−p10], z holding np+1 elevations.
func systemElevation(z []float64) float64 {
	np := len(z) - 1
	p10 := int(0.1 * float64(np))
	sum := 0.0
	for _, v := range z[p10 : np-p10+1] {
		sum += v
	}
	return sum / float64(np-2*p10+1)
}

// SurfaceRefractivity returns N_s = N_0·exp(−h/9460) in N-units for a
// sea-level refractivity n0 (N-units) and a system elevation h (metres), as
// NTIA v1.4 does (N_s = N_0 when h is exactly 0).
func SurfaceRefractivity(n0, hSysM float64) float64 {
	if hSysM == 0 {
		return n0
	}
	return n0 * expF(-hSysM/9460)
}

// findHorizons returns the horizon angles and distances of both terminals
// over a profile z (np+1 elevations, spacing xi) on an earth of radius ae.
func findHorizons(z []float64, xi, d, ae float64, h [2]float64) (theta, dHzn [2]float64) {
	np := len(z) - 1
	zTx := z[0] + h[0]
	zRx := z[np] + h[1]
	twoAe := 2 * ae

	theta[0] = (zRx-zTx)/d - d/twoAe
	theta[1] = -(zRx-zTx)/d - d/twoAe
	dHzn[0], dHzn[1] = d, d

	dTx, dRx := 0.0, d
	for i := 1; i < np; i++ {
		dTx += xi
		dRx -= xi
		zi := z[i]
		if t := (zi-zTx)/dTx - dTx/twoAe; t > theta[0] {
			theta[0], dHzn[0] = t, dTx
		}
		if t := (zi-zRx)/dRx - dRx/twoAe; t > theta[1] {
			theta[1], dHzn[1] = t, dRx
		}
	}
	return theta, dHzn
}

// fitRange fits a straight line by least squares to the profile between the
// distances dStart and dEnd (metres) and returns its values at the first
// and at the last point of the whole profile.
func fitRange(z []float64, xi, dStart, dEnd float64) (y0, yN float64) {
	iStart, iEnd := fitIndices(len(z)-1, xi, dStart, dEnd)
	return fitIndex(z, iStart, iEnd)
}

// fitIndices returns the profile points fitRange fits between, for a
// profile of np intervals.
func fitIndices(np int, xi, dStart, dEnd float64) (iStart, iEnd int) {
	iStart = int(fdim(dStart/xi, 0))
	iEnd = np - int(fdim(float64(np), dEnd/xi))
	if iEnd <= iStart {
		iStart = int(fdim(float64(iStart), 1))
		iEnd = np - int(fdim(float64(np), float64(iEnd)+1))
	}
	return iStart, iEnd
}

// fitIndex fits a line to z[iStart..iEnd] with trapezoidal weights (half
// weight on both end points) and returns the line's values at index 0 and
// at index len(z)−1. The sums are taken about the middle of the range.
// y0 depends only on z[iStart..iEnd]; yN also on len(z).
func fitIndex(z []float64, iStart, iEnd int) (y0, yN float64) {
	np := len(z) - 1
	n := float64(iEnd - iStart)
	x := -0.5 * n
	mid := float64(iEnd) + x
	sumY := 0.5 * (z[iStart] + z[iEnd])
	sumXY := 0.5 * (z[iStart] - z[iEnd]) * x
	for _, v := range z[iStart+1 : iEnd] {
		x++
		sumY += v
		sumXY += v * x
	}
	sumY /= n
	slope := sumXY * 12 / ((n*n + 2) * n)
	return sumY - slope*mid, sumY + slope*(float64(np)-mid)
}

// deltaHFromProfile returns the terrain irregularity Δh (metres): the
// interdecile range of the profile's deviations from a straight-line fit
// between dStart and dEnd, resampled to at most 245 points, scaled to an
// asymptotic value.
func deltaHFromProfile(z []float64, xi, dStart, dEnd float64) float64 {
	var s [maxDeltaHSamples]float64
	n, p10, p90, y, step, ok := resampleFit(z, xi, dStart, dEnd, &s)
	if !ok {
		return 0
	}
	diffs := s[:n]
	for j := range diffs {
		diffs[j] -= y + float64(j)*step // no chain of additions: the line at j afresh
	}
	q10 := kthLargest(diffs, p10-1)
	q90 := kthLargest(diffs, p90)
	return (q10 - q90) / (1 - 0.8*expF(-(dEnd-dStart)/50e3))
}

// maxDeltaHSamples is the most resampled points deltaHFromProfile uses.
const maxDeltaHSamples = 245

// resampleForDeltaH linearly interpolates n equally spaced samples of the
// profile between dStart and dEnd into s. p10 and p90 are the ranks of the
// upper and lower deciles. ok is false when the range spans fewer than two
// profile intervals.
//
// Sample j lies at xStart + j·step profile intervals, computed afresh for
// every j (the reference implementation accumulates the position by
// repeated addition: the same point to within a few ulps, and no
// loop-carried dependency here).
func resampleForDeltaH(z []float64, xi, dStart, dEnd float64, s *[maxDeltaHSamples]float64) (n, p10, p90 int, ok bool) {
	n, p10, p90, _, _, ok = resample(z, xi, dStart, dEnd, s, false)
	return n, p10, p90, ok
}

// resampleFit is resampleForDeltaH that also fits the resampled points as
// fitIndex(s[:n], 0, n−1) does (trapezoidal weights, sums about the
// middle) in the same pass: y0 is the line at sample 0 and dy its
// increment per sample.
func resampleFit(z []float64, xi, dStart, dEnd float64, s *[maxDeltaHSamples]float64) (n, p10, p90 int, y0, dy float64, ok bool) {
	return resample(z, xi, dStart, dEnd, s, true)
}

func resample(z []float64, xi, dStart, dEnd float64, s *[maxDeltaHSamples]float64, fit bool) (n, p10, p90 int, y0, dy float64, ok bool) {
	np := len(z) - 1
	xStart := dStart / xi
	xEnd := dEnd / xi
	if xEnd-xStart < 2 {
		return 0, 0, 0, 0, 0, false
	}
	p10 = min(max(4, int(0.1*(xEnd-xStart+8))), 25)
	n = 10*p10 - 5
	p90 = n - p10
	step := (xEnd - xStart) / float64(n-1)
	last := max(np-1, 0)
	// sample j, fj = float64(j) (the loops count it in floating point:
	// exact, and no conversion per sample)
	sample := func(fj float64) float64 {
		pos := xStart + fj*step
		i := min(int(pos), last)
		zi := z[i]
		return zi + (z[i+1]-zi)*(pos-float64(i))
	}
	if !fit {
		fj := 0.0
		for j := range n {
			s[j] = sample(fj)
			fj++
		}
		return n, p10, p90, 0, 0, true
	}
	// Two accumulators per sum (even and odd samples) halve the chains of
	// dependent additions; the order is fixed, so the result is too.
	nn := float64(n - 1)
	half := 0.5 * nn
	first, lastS := sample(0), sample(nn)
	s[0], s[n-1] = first, lastS
	var sy0, sy1, sxy0, sxy1 float64
	j, fj := 1, 1.0
	for ; j+1 < n-1; j, fj = j+2, fj+2 {
		a, b := sample(fj), sample(fj+1)
		s[j], s[j+1] = a, b
		xa := fj - half
		sy0 += a
		sy1 += b
		sxy0 += a * xa
		sxy1 += b * (xa + 1)
	}
	for ; j < n-1; j, fj = j+1, fj+1 {
		a := sample(fj)
		s[j] = a
		sy0 += a
		sxy0 += a * (fj - half)
	}
	sumY := 0.5*(first+lastS) + (sy0 + sy1)
	sumXY := 0.5*(first-lastS)*(-half) + (sxy0 + sxy1)
	sumY /= nn
	slope := sumXY * 12 / ((nn*nn + 2) * nn)
	y0 = sumY - slope*half
	yN := sumY + slope*(nn-half)
	return n, p10, p90, y0, (yN - y0) / nn, true
}

// kthLargest returns the element that would be at index k (0-based) if a
// were sorted in decreasing order. It reorders a.
func kthLargest(a []float64, k int) float64 {
	lo, hi := 0, len(a)-1
	for lo < hi {
		// median of three as pivot, moved to a[hi]
		mid := lo + (hi-lo)/2
		if a[mid] > a[lo] {
			a[mid], a[lo] = a[lo], a[mid]
		}
		if a[hi] > a[lo] {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if a[mid] > a[hi] {
			a[mid], a[hi] = a[hi], a[mid]
		}
		pivot := a[hi]
		store := lo
		for i := lo; i < hi; i++ {
			if a[i] > pivot {
				a[i], a[store] = a[store], a[i]
				store++
			}
		}
		a[store], a[hi] = a[hi], a[store]
		switch {
		case k == store:
			return a[k]
		case k < store:
			hi = store - 1
		default:
			lo = store + 1
		}
	}
	return a[k]
}

// terrainKernels are the two profile statistics quickPflWith needs. The
// model uses fastKernels; the tests swap in straightforward versions to measure
// and cross-check them.
type terrainKernels struct {
	fit    func(z []float64, xi, dStart, dEnd float64) (y0, yN float64)
	deltaH func(z []float64, xi, dStart, dEnd float64) float64
}

func fastKernels() terrainKernels {
	return terrainKernels{fit: fitRange, deltaH: deltaHFromProfile}
}

// quickPflWith derives the path parameters from a profile z (np+1
// elevations, spacing xi metres) for an effective earth radius ae and
// structural heights h (QuickPfl), with the kernels k.
func quickPflWith(k terrainKernels, z []float64, xi, ae float64, h [2]float64) pathParams {
	var p pathParams
	np := len(z) - 1
	p.d = float64(np) * xi
	p.theta, p.dHzn = findHorizons(z, xi, p.d, ae, h)

	// consider terrain from about 15 tower heights (at most 10 % of the
	// horizon distance) away from each terminal
	dStart := min(15*h[0], 0.1*p.dHzn[0])
	dEnd := p.d - min(15*h[1], 0.1*p.dHzn[1])
	p.deltaH = k.deltaH(z, xi, dStart, dEnd)

	if p.dHzn[0]+p.dHzn[1] > 1.5*p.d {
		// well within line of sight: one fit over the whole path, and
		// horizons from the smooth-earth formulas
		fitTx, fitRx := k.fit(z, xi, dStart, dEnd)
		p.he[0] = h[0] + fdim(z[0], fitTx)
		p.he[1] = h[1] + fdim(z[np], fitRx)
		for i := range 2 {
			p.dHzn[i] = math.Sqrt(2*p.he[i]*ae) * expF(-0.07*math.Sqrt(p.deltaH/max(p.he[i], 5)))
		}
		if sum := p.dHzn[0] + p.dHzn[1]; sum <= p.d {
			q := p.d / sum
			q *= q
			for i := range 2 {
				p.he[i] *= q
				p.dHzn[i] = math.Sqrt(2*p.he[i]*ae) * expF(-0.07*math.Sqrt(p.deltaH/max(p.he[i], 5)))
			}
		}
		for i := range 2 {
			q := math.Sqrt(2 * p.he[i] * ae)
			p.theta[i] = (0.65*p.deltaH*(q/p.dHzn[i]-1) - 2*p.he[i]) / q
		}
		return p
	}

	fitTx, _ := k.fit(z, xi, dStart, 0.9*p.dHzn[0])
	p.he[0] = h[0] + fdim(z[0], fitTx)
	_, fitRx := k.fit(z, xi, p.d-0.9*p.dHzn[1], dEnd)
	p.he[1] = h[1] + fdim(z[np], fitRx)
	return p
}

// initArea derives the path parameters of area mode from the siting
// criteria, the effective earth curvature gammaE (1/m), Δh and the
// structural heights (InitializeArea). The path length is left at zero.
func initArea(siting [2]int, gammaE, deltaH float64, h [2]float64) pathParams {
	var p pathParams
	p.deltaH = deltaH
	for i := range 2 {
		if siting[i] == SitingRandom {
			p.he[i] = h[i]
		} else {
			b := 4.0
			if siting[i] == SitingVeryCareful {
				b = 9
			}
			if h[i] < 5 {
				b *= math.Sin(0.1 * math.Pi * h[i])
			}
			p.he[i] = h[i] + (1+b)*expF(-min(20, 2*h[i]/max(1e-3, deltaH)))
		}
		dLs := math.Sqrt(2 * p.he[i] / gammaE)
		p.dHzn[i] = dLs * expF(-0.07*math.Sqrt(deltaH/max(p.he[i], 5)))
		p.theta[i] = (0.65*deltaH*(dLs/p.dHzn[i]-1) - 2*p.he[i]) / dLs
	}
	return p
}
