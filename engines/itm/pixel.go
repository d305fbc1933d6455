package itm

import (
	"fmt"
	"math"

	"linkplan/appliance"
)

// Pixel is one receiver of a coverage map for LossPixel: a pixel centre
// off the radial of SetRadial, whose own profile is Steps equal steps of
// DistM/Steps metres on its own great circle from the transmitter, the
// last sample at the pixel centre (GroundM high). Sample j of that profile
// lies beside the radial's point j·DistM/Steps·CosOff metres from the
// transmitter (its foot; see SetBounds). Exact(Index, js, heightsM)
// writes the ground heights of the samples js of the pixel's own profile.
type Pixel struct {
	DistM   float64 // metres
	Steps   int     // at least minPixelSteps
	GroundM float64 // metres above mean sea level
	CosOff  float64
	Index   int
	Exact   func(pixel int, js []int32, heightsM []float64) error
}

// minPixelSteps is the fewest steps of a pixel's own profile LossPixel
// takes: shorter profiles are cheap to compute whole.
const minPixelSteps = 4

// SetBounds gives the radial of SetRadial the bounds of LossPixel:
// upperM[i] is at least the ground height of every sample of a pixel's own
// profile whose foot lies between radial samples i and i+1 (spacingM
// metres apart); len(upperM) = len(z) − 1. upperM is kept, not copied.
func (s *Sweeper) SetBounds(upperM []float64, spacingM, cosMin float64) {
	s.u, s.xr = upperM, spacingM
	s.ubmax, s.usmax = blockMaxima(upperM, s.ubmax, s.usmax)
	// The transmitter side's bound per segment, for every pixel: the
	// angle from the transmitter's antenna of ground upperM[i] anywhere
	// from i·spacing to (i+1)·spacing/cosMin metres away, on the largest
	// effective earth LossPixel can use (N_s at most maxN0 at 500 m below
	// sea level).
	zTx := s.z[0] + s.h[0]
	aeMax := 1 / (earthCurvature * (1 - 0.04665*math.Exp(maxN0*math.Exp(500.0/9460)/179.3)))
	if cap(s.txA) < len(upperM) {
		s.txA = make([]float64, len(upperM))
	}
	s.txA = s.txA[:len(upperM)]
	for i, u := range upperM {
		lo, hi := float64(i)*spacingM, float64(i+1)*spacingM/cosMin
		a := u - zTx
		switch {
		case i == 0:
			s.txA[i] = math.Inf(1)
		case a >= 0:
			s.txA[i] = a/lo - lo/(2*aeMax)
		default:
			s.txA[i] = a/hi - lo/(2*aeMax)
		}
		s.txA[i] += 1e-9 * (1 + math.Abs(s.txA[i]))
	}
	s.abmax, s.asmax = blockMaxima(s.txA, s.abmax, s.asmax)
	s.pxRxHznM, s.pxTxHznM = -1, -1
	s.dhKnots = s.dhKnots[:0] // the knots are the radial's

	if cap(s.pxJ) < 4*sweepBlock {
		s.pxJ, s.pxH = make([]int32, 0, 4*sweepBlock), make([]float64, 4*sweepBlock)
	}
}

// blockMaxima returns the maxima of v's blocks of sweepBlock elements and
// of its superblocks of sweepSuper blocks, in bm and sm's arrays.
func blockMaxima(v, bm, sm []float64) ([]float64, []float64) {
	nb := (len(v) + sweepBlock - 1) / sweepBlock
	bm = bm[:0]
	for b := range nb {
		m := math.Inf(-1)
		for _, x := range v[b*sweepBlock : min(len(v), (b+1)*sweepBlock)] {
			m = max(m, x)
		}
		bm = append(bm, m)
	}
	sm = sm[:0]
	for b := 0; b < nb; b += sweepSuper {
		m := math.Inf(-1)
		for _, x := range bm[b:min(nb, b+sweepSuper)] {
			m = max(m, x)
		}
		sm = append(sm, m)
	}
	return bm, sm
}

// LossPixel returns the loss of the pixel px: P2PTLS (as Loss) on the
// pixel's own profile, with its horizons (angles and distances) exact
// and its statistics (Δh, the effective-height fits, the system
// elevation) taken from the radial at the same distances from the
// transmitter.
//
// The horizons are found among the samples of the pixel's own profile
// (on the radio horizon of ITM's effective earth) with the bounds of
// SetBounds: a block of samples whose bound cannot reach the best angle
// found so far is skipped, and the others are sampled with px.Exact; the
// receiver's ground is px.GroundM. Everything else is the radial's: the
// terrain a few tens of metres to the side of the pixel's own line. The
// answer is P2PTLS on a profile that has the pixel's own length, sample
// count, end heights and horizons, with the radial's heights between.
//
// Its errors are Loss's, and px.Exact's (wrapped).
func (s *Sweeper) LossPixel(px *Pixel, climate int, n0 float64) (float64, error) {
	pp, g, err := s.pixelPath(px, climate, n0)
	if err != nil {
		return 0, err
	}
	return s.pixelLoss(pp, g, climate)
}

// LossPixelFreqs is LossPixel for s and for each of others at once:
// others are Sweepers on the same radial heights, antenna heights and
// percentages as s (only the frequency, and what follows from it, may
// differ; SetRadial and SetBounds need not be called on them). The
// pixel's path (horizons, Δh, effective heights, N_s), which does not
// depend on the frequency, is computed once on s; the loss arithmetic on
// it per Sweeper. otherLoss[k] and otherErr[k] are others[k]'s LossPixel
// answer, bit for bit; the returned values are s's.
func (s *Sweeper) LossPixelFreqs(px *Pixel, climate int, n0 float64, others []*Sweeper, otherLoss []float64, otherErr []error) (float64, error) {
	pp, g, err := s.pixelPath(px, climate, n0)
	if err != nil {
		for k := range others {
			otherLoss[k], otherErr[k] = 0, err
		}
		return 0, err
	}
	for k, o := range others {
		if o.h != s.h {
			otherLoss[k], otherErr[k] = 0, fmt.Errorf("itm pixel: %w", appliance.Invalid("pfl", "sweepers of one pixel differ in antenna heights"))
			continue
		}
		og := g
		og.zg = o.zg
		otherLoss[k], otherErr[k] = o.pixelLoss(pp, og, climate)
	}
	return s.pixelLoss(pp, g, climate)
}

// pixelPath is the frequency-independent part of LossPixel: the pixel's
// path parameters and its ground (N_s, the effective earth; zg is s's),
// after LossPixel's input checks.
func (s *Sweeper) pixelPath(px *Pixel, climate int, n0 float64) (pathParams, ground, error) {
	n := px.Steps
	xi := px.DistM / float64(n)
	if n < minPixelSteps || !finite(xi) || xi <= 0 || len(s.u) != len(s.z)-1 || !(s.xr > 0) ||
		climate < ClimateEquatorial || climate > ClimateMaritimeTemperateOverSea || !finite(n0) || n0 < minN0 || n0 > maxN0 ||
		!finite(px.GroundM) || !(px.CosOff > 0.5) || px.DistM*px.CosOff > s.xr*float64(len(s.z)-1)*(1+1e-9) {
		return pathParams{}, ground{}, fmt.Errorf("itm pixel: %w", appliance.Invalid("pfl", "pixel outside the radial or LossPixel's input range"))
	}
	s.px, s.pxXi, s.pxR = px, xi, xi/s.xr
	defer func() { s.px = nil }()
	g := ground{ns: SurfaceRefractivity(n0, s.pixelSystemElevation(n))}
	g.gammaE = earthCurvature * (1 - 0.04665*expF(g.ns/179.3))
	g.zg = s.zg
	pp, err := s.pixelPfl(n, 1/g.gammaE)
	return pp, g, err
}

// pixelLoss is the frequency-dependent part of LossPixel on the path pp
// and ground g (g.zg s's own); climate is checked by pixelPath.
func (s *Sweeper) pixelLoss(pp pathParams, g ground, climate int) (float64, error) {
	w := s.baseWarn
	ref, err := longleyRice(&pp, s.in.FreqMHz, g, s.h, true, &w)
	if err != nil {
		return 0, err
	}
	afs := freeSpaceLoss(pp.d, s.in.FreqMHz)
	loss := s.vc.variability(pp.he, pp.deltaH, pp.d, ref.aRef, climate, s.in.MdVar, &w) + afs
	res := Result{LossDB: loss}
	im := &res.Intermediate
	im.ThetaHznRad, im.DHznM, im.HEffM, im.DeltaHM = pp.theta, pp.dHzn, pp.he, pp.deltaH
	im.ARefDB, im.FreeSpaceLossDB = ref.aRef, afs
	if err := checkFinite(res); err != nil {
		return 0, err
	}
	return loss, nil
}

// zAt is the radial's height u samples from the transmitter (linear
// between samples).
func (s *Sweeper) zAt(u float64) float64 {
	i := min(int(u), len(s.z)-2)
	zi := s.z[i]
	return zi + (s.z[i+1]-zi)*(u-float64(i))
}

// zPixel is sample j of the current pixel's profile as LossPixel sees it:
// its ground at the end, else the radial's height at the same distance.
func (s *Sweeper) zPixel(j, n int) float64 {
	if j == n {
		return s.px.GroundM
	}
	return s.zAt(float64(j) * s.pxR)
}

// pixelSystemElevation is systemElevation of the pixel's profile: the
// mean of its samples p10..n−p10, from the radial's samples at the same
// distances (prefix sums; the same to well under a metre, and Ns moves
// by 0.04 N-units a metre).
func (s *Sweeper) pixelSystemElevation(n int) float64 {
	p10 := int(0.1 * float64(n))
	lo := int(math.Round(float64(p10) * s.pxR))
	hi := min(int(math.Round(float64(n-p10)*s.pxR)), len(s.z)-1)
	if hi < lo {
		return s.z[lo]
	}
	return (s.s0[hi+1] - s.s0[lo]) / float64(hi-lo+1)
}

// pixelPfl is quickPfl for the pixel of LossPixel.
func (s *Sweeper) pixelPfl(n int, ae float64) (pathParams, error) {
	var p pathParams
	h := s.h
	xi := s.pxXi
	p.d = float64(n) * xi
	var err error
	p.theta, p.dHzn, err = s.pixelHorizons(n, xi, p.d, ae, s.z[0]+h[0], s.px.GroundM+h[1])
	if err != nil {
		return p, err
	}
	dStart := min(15*h[0], 0.1*p.dHzn[0])
	dEnd := p.d - min(15*h[1], 0.1*p.dHzn[1])
	p.deltaH = s.pixelDeltaH(n, dStart, dEnd)
	if p.dHzn[0]+p.dHzn[1] > 1.5*p.d {
		fitTx, fitRx := s.pixelFit(n, dStart, dEnd)
		p.he[0] = h[0] + fdim(s.z[0], fitTx)
		p.he[1] = h[1] + fdim(s.px.GroundM, fitRx)
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
		return p, nil
	}
	fitTx, _ := s.pixelFit(n, dStart, 0.9*p.dHzn[0])
	p.he[0] = h[0] + fdim(s.z[0], fitTx)
	_, fitRx := s.pixelFit(n, p.d-0.9*p.dHzn[1], dEnd)
	p.he[1] = h[1] + fdim(s.px.GroundM, fitRx)
	return p, nil
}

// pixelDirectFit is the longest fit range pixelFit sums sample by sample;
// longer ranges are integrated from the radial's prefix sums.
const pixelDirectFit = 32

// pixelFit is fitRange on the pixel's profile (fitIndex's trapezoidal
// line over the samples between dStart and dEnd): sample by sample on a
// short range, else with the sums replaced by integrals of the radial
// (linear between its samples) over the same distances.
func (s *Sweeper) pixelFit(n int, dStart, dEnd float64) (y0, yN float64) {
	lo, hi := fitIndices(n, s.pxXi, dStart, dEnd)
	nn := float64(hi - lo)
	mid := float64(hi) - 0.5*nn
	var sumY, sumXY float64
	if hi-lo <= pixelDirectFit {
		x := -0.5 * nn
		zl, zh := s.zPixel(lo, n), s.zPixel(hi, n)
		sumY = 0.5 * (zl + zh)
		sumXY = 0.5 * (zl - zh) * x
		for j := lo + 1; j < hi; j++ {
			x++
			v := s.zPixel(j, n)
			sumY += v
			sumXY += v * x
		}
	} else {
		m := hi
		if hi == n {
			m = n - 1 // the last interval ends on the pixel's own ground
		}
		r := s.pxR
		a0, a1 := s.radialIntegrals(float64(lo) * r)
		b0, b1 := s.radialIntegrals(float64(m) * r)
		sumY = (b0 - a0) / r
		sumXY = (b1-a1)/(r*r) - mid*sumY
		if m != hi {
			zm := s.zPixel(m, n)
			g := s.px.GroundM
			sumY += 0.5 * (zm + g)
			sumXY += 0.5 * ((float64(m)-mid)*zm + (float64(hi)-mid)*g)
		}
	}
	sumY /= nn
	slope := sumXY * 12 / ((nn*nn + 2) * nn)
	return sumY - slope*mid, sumY + slope*(float64(n)-mid)
}

// radialIntegrals returns ∫₀ᵘ Z and ∫₀ᵘ t·Z(t) dt of the radial's height Z
// (linear between samples, t and u in samples from the transmitter), from
// its prefix sums.
func (s *Sweeper) radialIntegrals(u float64) (i0, i1 float64) {
	k := min(int(u), len(s.z)-2)
	f := u - float64(k)
	z0 := s.z[0]
	// whole intervals 0..k
	i0 = 0.5 * (s.s0[k] + s.s0[k+1] - z0)
	i1 = 0.5*s.s1[k] + 0.5*(s.s1[k+1]-s.s0[k+1]+z0) + s.s0[k]/6 + (s.s0[k+1]-z0)/3
	// the part of interval k up to u
	zk := s.z[k]
	dz := s.z[k+1] - zk
	fk := float64(k)
	i0 += f*zk + 0.5*f*f*dz
	i1 += fk*f*zk + 0.5*fk*f*f*dz + 0.5*f*f*zk + f*f*f/3*dz
	return i0, i1
}

// pixelDeltaH is deltaHSelect on the pixel's profile, its points resampled
// from the radial at the same distances (and toward the pixel's own ground
// in its last interval).
func (s *Sweeper) pixelDeltaH(n int, dStart, dEnd float64) float64 {
	xi := s.pxXi
	xStart := dStart / xi
	xEnd := dEnd / xi
	if xEnd-xStart < 2 {
		return 0
	}
	p10 := min(max(4, int(0.1*(xEnd-xStart+8))), 25)
	m := 10*p10 - 5
	step := (xEnd - xStart) / float64(m-1)
	// samples before cut lie before the pixel's last interval: the
	// radial's heights at the same distances; the others between its last
	// sample and its own ground
	lastJ := float64(n - 1)
	cut := m
	if xEnd > lastJ {
		cut = min(max(int(math.Ceil((lastJ-xStart)/step)), 0), m)
		for cut > 0 && xStart+float64(cut-1)*step >= lastJ {
			cut--
		}
		for cut < m && xStart+float64(cut)*step < lastJ {
			cut++
		}
	}
	r := s.pxR
	uStart, uStep := xStart*r, step*r
	lenFactor := 1 - 0.8*expF(-(dEnd-dStart)/50e3)
	if cut == m && p10 == maxDeltaHP10 {
		// a long range on the radial alone: between knots
		if v, ok := s.deltaHKnots(dStart, dEnd, m, p10); ok {
			return v / lenFactor
		}
	}
	if cut == m {
		return s.deltaHRadial(uStart, uStep, m, p10) / lenFactor
	}
	zLast := s.zPixel(n-1, n)
	tail := dhTail{zLast: zLast, rise: s.px.GroundM - zLast, xStart: xStart, step: step, lastJ: lastJ}
	return s.resampledDeltaH(uStart, uStep, m, p10, cut, tail) / lenFactor
}

// maxDeltaHP10 is the largest p10 of pixelDeltaH (its point count
// 10·p10 − 5 is then 245 whatever the range).
const maxDeltaHP10 = 25

// interdecile is the end of deltaHSelect on the m points of a whose sum
// is sumY and whose sum of values times (j − (m−1)/2) is sumXY, both
// with every point counted whole: the trapezoidal line through them, and
// the difference of the deciles of the points' deviations from it.
func (s *Sweeper) interdecile(a []float64, sumY, sumXY float64, p10, m int) float64 {
	nn := float64(m - 1)
	half := 0.5 * nn
	p90 := m - p10
	// the trapezoid's end points count half
	first, lastS := a[0], a[m-1]
	sumY -= 0.5 * (first + lastS)
	sumXY -= 0.5 * (first*(-half) + lastS*half)
	sumY /= nn
	slope := sumXY * 12 / ((nn*nn + 2) * nn)
	y0 := sumY - slope*half
	yN := sumY + slope*(nn-half)
	q10, q90 := deciles(a, p10, m-p90, &s.scratch, y0, (yN-y0)/nn)
	return q10 - q90
}

// deltaHRadial is pixelDeltaH's interdecile range (before its length
// factor) of m points resampled from the radial alone, the first uStart
// radial samples from the transmitter, uStep apart.
func (s *Sweeper) deltaHRadial(uStart, uStep float64, m, p10 int) float64 {
	return s.resampledDeltaH(uStart, uStep, m, p10, m, dhTail{})
}

// dhTail is the pixel's last interval for resampledDeltaH: point j
// (fj = j) past the cut lies at zLast + rise·(xStart + fj·step − lastJ)
// (pixel samples), between the pixel's last interior sample (zLast) and
// its own ground (zLast + rise).
type dhTail struct{ zLast, rise, xStart, step, lastJ float64 }

// resampledDeltaH is pixelDeltaH's interdecile range (before its length
// factor) of m points: points j < cut resampled from the radial (the
// first uStart radial samples from the transmitter, uStep apart), the
// others on the pixel's last interval (tail), with the sums of the
// trapezoidal line through them (fitIndex's, about the middle; two
// accumulators each, in the one order every caller shares).
func (s *Sweeper) resampledDeltaH(uStart, uStep float64, m, p10, cut int, tail dhTail) float64 {
	a := s.scratch.s[:m]
	z := s.z
	nn := float64(m - 1)
	half := 0.5 * nn
	var sy0, sy1, sxy0, sxy1 float64
	fj := 0.0
	j := 0
	for ; j+1 < cut; j += 2 {
		u0 := uStart + fj*uStep
		u1 := u0 + uStep
		i0, i1 := int(u0), int(u1)
		z0 := z[i0 : i0+2 : i0+2]
		z1 := z[i1 : i1+2 : i1+2]
		v0 := z0[0] + (z0[1]-z0[0])*(u0-float64(i0))
		v1 := z1[0] + (z1[1]-z1[0])*(u1-float64(i1))
		a[j], a[j+1] = v0, v1
		x0 := fj - half
		sy0 += v0
		sy1 += v1
		sxy0 += v0 * x0
		sxy1 += v1 * (x0 + 1)
		fj += 2
	}
	for ; j < m; j++ {
		var v float64
		if j < cut {
			u := uStart + fj*uStep
			i := int(u)
			zz := z[i : i+2 : i+2]
			v = zz[0] + (zz[1]-zz[0])*(u-float64(i))
		} else {
			v = tail.zLast + tail.rise*(tail.xStart+fj*tail.step-tail.lastJ)
		}
		a[j] = v
		sy0 += v
		sxy0 += v * (fj - half)
		fj++
	}
	return s.interdecile(a, sy0+sy1, sxy0+sxy1, p10, m)
}

// dhKnot is deltaHRadial's value for the range from the knots' start to
// knot k (k·dhKnotStep radial samples), when set.
type dhKnot struct {
	v   float64
	set bool
}

// dhKnotStep is the spacing of pixelDeltaH's knots, radial samples.
const dhKnotStep = 8

// deltaHKnots is deltaHRadial from dStart to dEnd (metres from the
// transmitter on the radial, m points, the largest p10) interpolated linearly between the ranges
// ending at the knots around uEnd (every dhKnotStep radial samples),
// each computed once per radial and start: a pixel of a long path needs
// no resampling of its own (on such a range, 245 points over more than
// 240 samples, the interdecile range moves slowly with its end). It
// reports false when a knot's range would be short or leave the radial.
func (s *Sweeper) deltaHKnots(dStart, dEnd float64, m, p10 int) (float64, bool) {
	uStart, uEnd := dStart/s.xr, dEnd/s.xr
	k := int(uEnd / dhKnotStep)
	u0, u1 := float64(k*dhKnotStep), float64((k+1)*dhKnotStep)
	if u0-uStart < float64(10*maxDeltaHP10) || u1 > float64(len(s.z)-2) {
		return 0, false
	}
	if uStart != s.dhStart || len(s.dhKnots) == 0 {
		if cap(s.dhKnots) < len(s.z)/dhKnotStep+2 {
			s.dhKnots = make([]dhKnot, len(s.z)/dhKnotStep+2)
		}
		s.dhKnots = s.dhKnots[:len(s.z)/dhKnotStep+2]
		clear(s.dhKnots)
		s.dhStart = uStart
	}
	at := func(i int, u float64) float64 {
		kn := &s.dhKnots[i]
		if !kn.set {
			kn.v, kn.set = s.deltaHRadial(uStart, (u-uStart)/float64(m-1), m, p10), true
		}
		return kn.v
	}
	v0, v1 := at(k, u0), at(k+1, u1)
	f := (uEnd - u0) / dhKnotStep
	return v0 + (v1-v0)*f, true
}

// pixelHorizons is findHorizons on the pixel's own profile (n intervals
// of xi, d = n·xi), exact. It samples (px.Exact) first the likely
// horizons (the radial's own horizons seen from the pixel's antennas,
// and the sample next to the receiver), then every sample that the
// bounds of SetBounds cannot rule out against the best angles those gave:
// a sample of ground at most U whose angle from an antenna cannot reach
// that side's best is no horizon. Among equal angles the sample nearest
// the transmitter wins, as in findHorizons, and the horizon found gets
// findHorizons's own distance and angle.
func (s *Sweeper) pixelHorizons(n int, xi, d, ae, zTx, zRx float64) (theta, dHzn [2]float64, err error) {
	twoAe := 2 * ae
	theta[0] = (zRx-zTx)/d - d/twoAe
	theta[1] = -(zRx-zTx)/d - d/twoAe
	dHzn[0], dHzn[1] = d, d
	last := n - 1
	px := s.px
	h := horizonSearch{s: s, xi: xi, d: d, inv2Ae: 1 / twoAe, zTx: zTx, zRx: zRx, c: xi * px.CosOff / s.xr, last: last,
		best: theta, bestJ: [2]int{-1, -1}}
	lastSeg := h.seg(last)

	// the likely horizons
	js := s.pxJ[:0]
	if s.pxTxHznM > 0 {
		if j := int(math.Round(s.pxTxHznM / xi)); j >= 1 && j <= last {
			js = append(js, int32(j))
		}
	}
	if s.pxRxHznM > 0 {
		if j := int(math.Round(s.pxRxHznM / xi)); j >= 1 && j < last && !seeded(js, j) {
			js = append(js, int32(j))
		}
	}
	if !seeded(js, last) {
		js = append(js, int32(last))
	}
	if err := h.sample(js); err != nil {
		return theta, dHzn, err
	}
	seeds := len(js)
	// every other sample the bounds cannot rule out
	js = h.txCandidates(js, lastSeg)
	js = h.rxCandidates(js, lastSeg)
	s.pxJ = js
	if len(js) > seeds {
		if err := h.sample(js[seeds:]); err != nil {
			return theta, dHzn, err
		}
	}
	s.pxTxHznM = -1
	if j := h.bestJ[0]; j >= 1 {
		s.pxTxHznM = float64(j) * xi
		di := addRepeated(xi, j)
		theta[0], dHzn[0] = (h.bestZ[0]-zTx)/di-di/twoAe, di
	}
	s.pxRxHznM = -1
	if j := h.bestJ[1]; j >= 1 {
		s.pxRxHznM = float64(j) * xi
		dk := subtractRepeated(d, xi, j)
		theta[1], dHzn[1] = (h.bestZ[1]-zRx)/dk-dk/twoAe, dk
	}
	return theta, dHzn, nil
}

// horizonSearch is the state of pixelHorizons: per side (0 the
// transmitter's, 1 the receiver's) the best angle so far, its sample and
// that sample's ground height.
type horizonSearch struct {
	s                *Sweeper
	xi, d, inv2Ae, c float64 // c: segments per pixel sample
	last             int     // the last interior sample
	zTx, zRx         float64 // the antennas, metres above mean sea level
	best, bestZ      [2]float64
	bestJ            [2]int
}

func (h *horizonSearch) seg(j int) int { return min(int(float64(j)*h.c), len(h.s.u)-1) }

// sample takes the exact heights of samples js and keeps each side's best
// (findHorizons's expressions with the distance j·xi).
func (h *horizonSearch) sample(js []int32) error {
	s := h.s
	if len(s.pxH) < len(js) {
		s.pxH = make([]float64, 2*len(js))
	}
	hs := s.pxH[:len(js)]
	if err := s.px.Exact(s.px.Index, js, hs); err != nil {
		return fmt.Errorf("itm pixel: %w", err)
	}
	for k, j32 := range js {
		j, z := int(j32), hs[k]
		dj := float64(j) * h.xi
		dk := h.d - dj
		for side, t := range [2]float64{(z-h.zTx)/dj - dj*h.inv2Ae, (z-h.zRx)/dk - dk*h.inv2Ae} {
			if t > h.best[side] || t == h.best[side] && h.bestJ[side] >= 0 && j < h.bestJ[side] {
				h.best[side], h.bestJ[side], h.bestZ[side] = t, j, z
			}
		}
	}
	return nil
}

// boundSlackM absorbs the rounding of the bound tests, metres.
const boundSlackM = 1e-6

// segmentSamples returns the first and last samples j (1..last) whose
// foot lies in segment i (last < first when none does).
func (h *horizonSearch) segmentSamples(i int) (int, int) {
	j := max(1, int(float64(i)/h.c))
	for j > 1 && h.seg(j-1) >= i {
		j--
	}
	for j <= h.last && h.seg(j) < i {
		j++
	}
	k := j - 1
	for k+1 <= h.last && h.seg(k+1) == i {
		k++
	}
	return j, k
}

// txCandidates appends to js the samples of the transmitter side that the
// bounds cannot rule out against its best angle: a range of segments is
// ruled out when its pixel-independent bound (SetBounds) is below the
// best, a segment when its bound lies below the ground an angle of the
// best needs anywhere in it (a parabola in the distance from the
// transmitter: its least value there), a sample when its own does.
func (h *horizonSearch) txCandidates(js []int32, lastSeg int) []int32 {
	s := h.s
	best := h.best[0]
	inv2Ae := h.inv2Ae
	sStar := -best / (2 * inv2Ae)
	xrc := s.xr / s.px.CosOff
	zTx := h.zTx - boundSlackM
	span := sweepBlock * sweepSuper
	for sb := 0; sb*span <= lastSeg; sb++ {
		if s.asmax[sb] < best {
			continue
		}
		for b := sb * sweepSuper; b < min((sb+1)*sweepSuper, len(s.abmax)) && b*sweepBlock <= lastSeg; b++ {
			if s.abmax[b] < best {
				continue
			}
			for i := b * sweepBlock; i < min((b+1)*sweepBlock, lastSeg+1); i++ {
				if s.txA[i] < best {
					continue
				}
				u := s.u[i]
				// the samples whose foot lies in segment i are within
				// [i·xr, (i+1)·xr]/cos of the transmitter
				if st := min(max(sStar, float64(i)*s.xr), float64(i+1)*xrc); u < zTx+best*st+st*st*inv2Ae {
					continue
				}
				j0, j1 := h.segmentSamples(i)
				for j := j0; j <= j1; j++ {
					dj := float64(j) * h.xi
					if u-zTx >= best*dj+dj*dj*inv2Ae && !seeded(js, j) {
						js = append(js, int32(j))
					}
				}
			}
		}
	}
	return js
}

// rxCandidates is txCandidates for the receiver side, with the bounds
// of the ranges and segments taken from the heights alone (the angle
// depends on the pixel's receiver).
func (h *horizonSearch) rxCandidates(js []int32, lastSeg int) []int32 {
	s := h.s
	best := h.best[1]
	inv2Ae := h.inv2Ae
	tStar := -best / (2 * inv2Ae) // where the needed ground is lowest
	zRx := h.zRx - boundSlackM
	// need is the least ground a sample between ta and tb metres from
	// the receiver needs to reach the best angle
	need := func(ta, tb float64) float64 {
		t := min(max(tStar, ta), tb)
		return zRx + best*t + t*t*inv2Ae
	}
	// the samples whose foot lies in segments a..b are within
	// [d − (b+1)·xr/cos, d − a·xr/cos] metres of the receiver
	xrc := s.xr / s.px.CosOff
	d, xi := h.d, h.xi
	span := sweepBlock * sweepSuper
	for sb := lastSeg / span; sb >= 0; sb-- {
		a, b := sb*span, min((sb+1)*span-1, lastSeg)
		if s.usmax[sb] < need(max(d-float64(b+1)*xrc, 0), d-float64(a)*xrc) {
			continue
		}
		for blk := b / sweepBlock; blk >= a/sweepBlock; blk-- {
			ba, bb := blk*sweepBlock, min((blk+1)*sweepBlock-1, lastSeg)
			if s.ubmax[blk] < need(max(d-float64(bb+1)*xrc, 0), d-float64(ba)*xrc) {
				continue
			}
			for i := bb; i >= ba; i-- {
				u := s.u[i]
				if u < need(max(d-float64(i+1)*xrc, 0), d-float64(i)*xrc) {
					continue
				}
				j0, j1 := h.segmentSamples(i)
				for j := j0; j <= j1; j++ {
					t := d - float64(j)*xi
					if u-zRx >= best*t+t*t*inv2Ae && !seeded(js, j) {
						js = append(js, int32(j))
					}
				}
			}
		}
	}
	return js
}

// seeded reports whether j is already among js (the handful sampled
// first, and the candidates so far: a short list).
func seeded(js []int32, j int) bool {
	for _, k := range js {
		if int(k) == j {
			return true
		}
	}
	return false
}
