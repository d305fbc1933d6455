package itm

import (
	"fmt"
	"math"

	"linkplan/appliance"
)

// Sweeper computes the point-to-point loss (P2PTLS) of many profiles that
// share every input but the profile, the radio climate and N_0: the
// prefixes of one radial of a coverage sweep. The fields fixed for the
// sweep are validated once by NewSweeper and the ground impedance is
// computed once; Loss then runs the model without allocating. A Sweeper
// is not safe for concurrent use.
type Sweeper struct {
	in                      P2PInput // PFL, ClimateCode and N0 unused
	timePct, locPct, sitPct float64
	h                       [2]float64
	baseWarn                Warning
	zg                      complex128 // ground impedance of newGround
	vc                      varConsts  // variability's constants for the sweep

	z []float64 // the radial of SetRadial
	// the transmitter side's last fit: fitIndex's y0 on z[txFitLo..txFitHi]
	txFitLo, txFitHi int
	txFitY0          float64
	txFitOK          bool
	bmax             []float64 // its block maxima
	smax             []float64 // its superblock maxima (sweepSuper blocks)
	txHzn            int       // the transmitter-side horizon point of the last prefix; −1: none
	txHznI           int       // addRepeated(txHznXi, txHznI) = txHznD, metres
	txHznXi, txHznD  float64
	invK             []float64 // invK[k] = 1/(k·invXi): reciprocal distances of the bounds
	invXi            float64   // the spacing invK was made for
	prefix           bool      // Loss runs on a prefix of z
	scratch          decileScratch
	// prefix sums of the radial for the least-squares fits:
	// s0[k] = Σ z[0..k−1], s1[k] = Σ i·z[i] over i < k
	s0, s1 []float64

	// LossPixel's (pixel.go): the bounds of SetBounds and their block
	// and superblock maxima, the radial's spacing, the previous pixel's
	// horizons (metres from the transmitter; −1: none), the current
	// pixel, its spacing and its spacing in radial samples, and the
	// buffers of its exact samples.
	u, ubmax, usmax   []float64
	txA, abmax, asmax []float64 // the transmitter side's bounds per segment (SetBounds) and their maxima
	xr                float64
	pxRxHznM          float64 // the previous pixel's receiver horizon, metres from the transmitter (−1: none)
	pxTxHznM          float64 // the previous pixel's transmitter horizon, metres from the transmitter (−1: none)
	px                *Pixel
	pxXi, pxR         float64
	dhKnots           []dhKnot // pixelDeltaH's knots (deltaHKnot)
	dhStart           float64  // the start, radial samples, the knots hold
	pxJ               []int32
	pxH               []float64
}

// NewSweeper validates the inputs of in other than PFL, ClimateCode and N0
// (as P2PTLS does) and the percentages; its error is P2PTLS's for them.
func NewSweeper(in P2PInput, timePct, locPct, sitPct float64) (*Sweeper, error) {
	var v appliance.ValidationError
	validateCommon(&v, in.HTxM, in.HRxM, ClimateEquatorial, minN0, in.FreqMHz, in.Pol, in.Epsilon, in.SigmaSm, in.MdVar)
	checkPct(&v, "time_pct", timePct)
	checkPct(&v, "location_pct", locPct)
	checkPct(&v, "situation_pct", sitPct)
	if err := invalid(v); err != nil {
		return nil, fmt.Errorf("itm p2p: %w", err)
	}
	s := &Sweeper{in: in, timePct: timePct, locPct: locPct, sitPct: sitPct,
		h: [2]float64{in.HTxM, in.HRxM}, baseWarn: inputWarnings(in.HTxM, in.HRxM, in.FreqMHz)}
	s.zg = newGround(in.FreqMHz, 0, minN0, in.Pol, in.Epsilon, in.SigmaSm).zg
	s.vc = newVarConsts(timePct, locPct, sitPct, in.FreqMHz)
	return s, nil
}

// Loss returns P2PTLS(in with PFL = (len(z)−1, xi, z...), climate, n0).LossDB
// for the sweep's other inputs, and its error: a *ModelError (matching
// appliance.ErrOutsideEnvelope) when the model fails on this profile, an
// error matching appliance.ErrInvalid when z, xi, climate or n0 would fail
// P2PTLS's validation (z must hold at least 3 finite elevations).
func (s *Sweeper) Loss(z []float64, xi float64, climate int, n0 float64) (float64, error) {
	if len(z) < minProfileN+1 || !finite(xi) || xi <= 0 || climate < ClimateEquatorial ||
		climate > ClimateMaritimeTemperateOverSea || !finite(n0) || n0 < minN0 || n0 > maxN0 {
		return 0, fmt.Errorf("itm sweep: %w", appliance.Invalid("pfl", "profile, climate or n0 outside P2PTLS's input range"))
	}
	w := s.baseWarn
	var hSys float64
	if s.prefix {
		hSys = s.systemElevation(len(z) - 1)
	} else {
		hSys = systemElevation(z)
	}
	g := ground{ns: SurfaceRefractivity(n0, hSys)}
	g.gammaE = earthCurvature * (1 - 0.04665*expF(g.ns/179.3))
	g.zg = s.zg
	pp := s.quickPfl(z, xi, 1/g.gammaE, s.h)
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

// sweepBlock is the number of profile points per block of the horizon
// search's block maxima.
const sweepBlock = 16

// SetRadial makes z (the elevations of the whole radial, sample 0 at the
// transmitter) the profile whose prefixes LossPrefix computes. z is kept,
// not copied; its block maxima are computed once.
func (s *Sweeper) SetRadial(z []float64) {
	s.z = z
	s.scratch.haveLast = false
	s.scratch.fHi, s.scratch.fLo = 0.03, 0.03
	s.txFitOK = false
	if cap(s.s0) < len(z)+1 {
		s.s0, s.s1 = make([]float64, len(z)+1), make([]float64, len(z)+1)
	}
	s.s0, s.s1 = s.s0[:len(z)+1], s.s1[:len(z)+1]
	var a0, a1 float64
	for i, v := range z {
		a0 += v
		a1 += float64(i) * v
		s.s0[i+1], s.s1[i+1] = a0, a1
	}
	nb := (len(z) + sweepBlock - 1) / sweepBlock
	if cap(s.bmax) < nb {
		s.bmax = make([]float64, 0, nb)
		s.smax = make([]float64, 0, nb/sweepSuper+1)
	}
	s.bmax = s.bmax[:0]
	for b := range nb {
		m := math.Inf(-1)
		for _, v := range z[b*sweepBlock : min(len(z), (b+1)*sweepBlock)] {
			m = max(m, v)
		}
		s.bmax = append(s.bmax, m)
	}
	s.smax = s.smax[:0]
	for b := 0; b < nb; b += sweepSuper {
		m := math.Inf(-1)
		for _, v := range s.bmax[b:min(nb, b+sweepSuper)] {
			m = max(m, v)
		}
		s.smax = append(s.smax, m)
	}
	s.txHzn = -1
}

// LossPrefix is Loss on the prefix z[0..np] of the radial of SetRadial
// (np ≥ 2), with a horizon search that skips the blocks of the profile
// that cannot hold the horizon, and the system elevation and the
// least-squares sums of the effective heights taken from the radial's
// prefix sums: Loss (and P2PTLS) on that prefix to within rounding (the
// sums are added in another order; tested to 1e-6 dB, typically 1e-9 dB).
func (s *Sweeper) LossPrefix(np int, xi float64, climate int, n0 float64) (float64, error) {
	if np < minProfileN || np >= len(s.z) {
		return 0, fmt.Errorf("itm sweep: %w", appliance.Invalid("pfl", "prefix %d of a %d-point radial", np, len(s.z)))
	}
	s.prefix = true
	defer func() { s.prefix = false }()
	return s.Loss(s.z[:np+1], xi, climate, n0)
}

// sweepSuper is the number of blocks per superblock: the horizon search
// bounds a superblock first and looks into its blocks only when the bound
// can reach the best angle found so far.
const sweepSuper = 16

// horizons is findHorizons on the prefix z of the radial (len(z)−1 = np
// intervals) to within rounding: the search compares angles computed
// with distances k·xi and reciprocal distances (a few ulps off), and the
// point it finds gets findHorizons's own distance and angle; points are
// evaluated only in the blocks of the profile
// whose upper bound can reach the horizon (bounds on superblocks of
// sweepSuper blocks first). The transmitter side starts from the previous
// prefix's horizon point, the receiver side scans from the receiver back,
// so that the best angle so far is close to the horizon's and prunes most
// blocks. Among equal angles the point nearest the transmitter wins on
// both sides, as in findHorizons.
func (s *Sweeper) horizons(z []float64, xi, d, ae float64, h [2]float64) (theta, dHzn [2]float64) {
	np := len(z) - 1
	zTx := z[0] + h[0]
	zRx := z[np] + h[1]
	twoAe := 2 * ae
	theta[0] = (zRx-zTx)/d - d/twoAe
	theta[1] = -(zRx-zTx)/d - d/twoAe
	dHzn[0], dHzn[1] = d, d
	last := np - 1 // last interior point
	if last < 1 {
		s.txHzn = -1
		return theta, dHzn
	}
	// The bounds and comparisons multiply by reciprocal distances (a few
	// ulps from the divisions; the spacing of a radial's prefixes differs
	// by ulps, so a table made for a spacing within 1e-12 of this one
	// serves); the horizon found gets findHorizons's distance and angle.
	if math.Abs(s.invXi-xi) > 1e-12*xi || len(s.invK) < len(s.z) {
		if cap(s.invK) < len(s.z) {
			s.invK = make([]float64, 0, len(s.z))
		}
		s.invK = s.invK[:0]
		for k := range len(s.z) {
			s.invK = append(s.invK, 1/(float64(k)*xi))
		}
		s.invXi = xi
	}
	invK := s.invK
	inv2Ae := 1 / twoAe
	const slack = 1e-9
	span := sweepBlock * sweepSuper

	// transmitter side
	best := -1
	if i := s.txHzn; i >= 1 && i <= last {
		di := float64(i) * xi
		if t := (z[i]-zTx)*invK[i] - di*inv2Ae; t > theta[0] {
			theta[0], dHzn[0], best = t, di, i
		}
	}
	txBound := func(m float64, lo, hi int) float64 {
		a := m - zTx
		ub := a*invK[hi] - float64(lo)*xi*inv2Ae
		if a >= 0 {
			ub = a*invK[lo] - float64(lo)*xi*inv2Ae
		}
		return ub + slack*(1+math.Abs(ub))
	}
	for sb := 0; sb*span <= last; sb++ {
		lo, hi := max(1, sb*span), min(last, (sb+1)*span-1)
		if lo > hi || txBound(s.smax[sb], lo, hi) < theta[0] {
			continue
		}
		for b := lo / sweepBlock; b <= hi/sweepBlock; b++ {
			blo, bhi := max(lo, b*sweepBlock), min(hi, (b+1)*sweepBlock-1)
			if txBound(s.bmax[b], blo, bhi) < theta[0] {
				continue
			}
			for i := blo; i <= bhi; i++ {
				di := float64(i) * xi
				t := (z[i]-zTx)*invK[i] - di*inv2Ae
				if t > theta[0] || t == theta[0] && best > i {
					theta[0], dHzn[0], best = t, di, i
				}
			}
		}
	}
	s.txHzn = best
	if best >= 1 {
		// findHorizons's distance (xi added best times) and angle
		if best != s.txHznI || xi != s.txHznXi {
			s.txHznI, s.txHznXi, s.txHznD = best, xi, addRepeated(xi, best)
		}
		di := s.txHznD
		theta[0], dHzn[0] = (z[best]-zTx)/di-di/twoAe, di
	}

	// receiver side, from the receiver back
	found, bestRx := false, -1
	rxBound := func(m float64, lo, hi int) float64 {
		a := m - zRx
		dNear := float64(np-hi) * xi
		ub := a*invK[np-lo] - dNear*inv2Ae
		if a >= 0 {
			ub = a*invK[np-hi] - dNear*inv2Ae
		}
		return ub + slack*(1+math.Abs(ub))
	}
	for sb := last / span; sb >= 0; sb-- {
		lo, hi := max(1, sb*span), min(last, (sb+1)*span-1)
		if lo > hi || rxBound(s.smax[sb], lo, hi) < theta[1] {
			continue
		}
		for b := hi / sweepBlock; b >= lo/sweepBlock; b-- {
			blo, bhi := max(lo, b*sweepBlock), min(hi, (b+1)*sweepBlock-1)
			if rxBound(s.bmax[b], blo, bhi) < theta[1] {
				continue
			}
			for i := bhi; i >= blo; i-- {
				k := np - i
				dk := float64(k) * xi
				t := (z[i]-zRx)*invK[k] - dk*inv2Ae
				if t > theta[1] || t == theta[1] && found {
					theta[1], dHzn[1], found, bestRx = t, dk, true, i
				}
			}
		}
	}
	if found {
		// findHorizons's distance (xi subtracted from d bestRx times) and
		// angle: ITM truncates distances derived from dHzn to whole
		// intervals (the effective-height fits, Δh's range and sample
		// count), so their rounding must be the reference's.
		dk := subtractRepeated(d, xi, bestRx)
		theta[1], dHzn[1] = (z[bestRx]-zRx)/dk-dk/twoAe, dk
	}
	return theta, dHzn
}

// quickPflSweep is quickPflWith(fastKernels(), ...) with the sweep's
// horizon search (on a prefix of the radial) and selection of the deciles.
func (s *Sweeper) quickPfl(z []float64, xi, ae float64, h [2]float64) pathParams {
	var p pathParams
	np := len(z) - 1
	p.d = float64(np) * xi
	if s.prefix {
		p.theta, p.dHzn = s.horizons(z, xi, p.d, ae, h)
	} else {
		p.theta, p.dHzn = findHorizons(z, xi, p.d, ae, h)
	}
	dStart := min(15*h[0], 0.1*p.dHzn[0])
	dEnd := p.d - min(15*h[1], 0.1*p.dHzn[1])
	p.deltaH = deltaHSelect(z, xi, dStart, dEnd, &s.scratch)

	if p.dHzn[0]+p.dHzn[1] > 1.5*p.d {
		fitTx, fitRx := s.fit(z, xi, dStart, dEnd)
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

	fitTx := s.txFit(z, xi, dStart, 0.9*p.dHzn[0])
	p.he[0] = h[0] + fdim(z[0], fitTx)
	_, fitRx := s.fit(z, xi, p.d-0.9*p.dHzn[1], dEnd)
	p.he[1] = h[1] + fdim(z[np], fitRx)
	return p
}

// fit is fitRange(z, xi, dStart, dEnd); on a prefix of the radial it
// takes the sums from the radial's prefix sums in constant time (the same
// line to within rounding: the sums are added in another order).
func (s *Sweeper) fit(z []float64, xi, dStart, dEnd float64) (y0, yN float64) {
	if !s.prefix {
		return fitRange(z, xi, dStart, dEnd)
	}
	np := len(z) - 1
	lo, hi := fitIndices(np, xi, dStart, dEnd)
	if hi-lo < 2 {
		return fitIndex(z, lo, hi)
	}
	n := float64(hi - lo)
	mid := 0.5 * float64(lo+hi)
	inY := s.s0[hi] - s.s0[lo+1] // Σ z[lo+1..hi−1]
	inIY := s.s1[hi] - s.s1[lo+1]
	sumY := 0.5*(z[lo]+z[hi]) + inY
	sumXY := 0.25*n*(z[hi]-z[lo]) + (inIY - mid*inY)
	sumY /= n
	slope := sumXY * 12 / ((n*n + 2) * n)
	return sumY - slope*mid, sumY + slope*(float64(np)-mid)
}

// txFit is fitRange(z, xi, dStart, dEnd)'s y0 (the value at the
// transmitter), kept from the previous prefix when its points are the
// same: y0 depends only on the fitted points, and beyond the horizon the
// transmitter side's fit range stays put.
func (s *Sweeper) txFit(z []float64, xi, dStart, dEnd float64) float64 {
	if !s.prefix {
		y0, _ := fitRange(z, xi, dStart, dEnd)
		return y0
	}
	lo, hi := fitIndices(len(z)-1, xi, dStart, dEnd)
	if !s.txFitOK || lo != s.txFitLo || hi != s.txFitHi {
		s.txFitY0, _ = fitIndex(z, lo, hi)
		s.txFitLo, s.txFitHi, s.txFitOK = lo, hi, true
	}
	return s.txFitY0
}

// deltaHSelect is deltaHFromProfile with both deciles found in one pass
// by two bounded heaps (the same order statistics, so the same value).
func deltaHSelect(z []float64, xi, dStart, dEnd float64, sc *decileScratch) float64 {
	s := &sc.s
	n, p10, p90, y, step, ok := resampleFit(z, xi, dStart, dEnd, s)
	if !ok {
		return 0
	}
	diffs := s[:n]
	q10, q90 := deciles(diffs, p10, n-p90, sc, y, step)
	return (q10 - q90) / (1 - 0.8*expF(-(dEnd-dStart)/50e3))
}

// decileScratch holds the buffers of deciles and deltaHSelect.
type decileScratch struct {
	s, smp, hi, lo [maxDeltaHSamples]float64
	lastHi, lastLo float64 // the deciles of the previous call
	haveLast       bool
	fHi, fLo       float64 // threshold margins, fractions of the interdecile range
}

// decileStride is the stride of the sample from which deciles guesses
// its thresholds.
const decileStride = 8

// deciles returns the k1-th largest and the k2-th smallest element of a
// (1-based ranks, k1 + k2 ≤ len(a)): kthLargest(a, k1−1) and
// kthLargest(a, len(a)−k2). Both are order statistics, so any exact
// selection gives the same values. Thresholds are guessed (from the
// previous call's deciles, widened by an adaptive margin, else from a
// sample of every decileStride-th element); the elements at or beyond a
// threshold are kept, and when at least k1 (k2) pass, the k1-th largest
// (k2-th smallest) of a is the same of those. Otherwise the whole array is
// searched.
//
// a holds the resampled points: their deviations from the line y + j·step
// are what deltaHFromProfile ranks. The guessed path takes them on the fly
// and leaves a as it was; the others detrend a in place and reorder it.
func deciles(a []float64, k1, k2 int, sc *decileScratch, y, step float64) (hi, lo float64) {
	hi, lo = decilesGuess(a, k1, k2, sc, y, step)
	sc.lastHi, sc.lastLo, sc.haveLast = hi, lo, true
	return hi, lo
}

// rankBuf is the most ranks rankFromTop and rankFromBottom keep in their
// insertion buffer; deeper ranks go to selectLargest.
const rankBuf = 16

// rankFromTop returns the r-th largest (1-based) element of a. For small r
// it keeps the r largest elements seen so far in a sorted buffer (one
// pass; most elements are rejected by one comparison), else it selects
// (reordering a).
func rankFromTop(a []float64, r int) float64 {
	if r > rankBuf {
		return selectLargest(a, r-1)
	}
	var buf [rankBuf]float64 // descending
	m := 0
	for _, v := range a {
		i := m
		if m < r {
			m++
		} else if v <= buf[r-1] {
			continue
		} else {
			i = r - 1
		}
		for i > 0 && buf[i-1] < v {
			buf[i] = buf[i-1]
			i--
		}
		buf[i] = v
	}
	return buf[r-1]
}

// rankFromBottom returns the r-th smallest (1-based) element of a, as
// rankFromTop.
func rankFromBottom(a []float64, r int) float64 {
	if r > rankBuf {
		return selectLargest(a, len(a)-r)
	}
	var buf [rankBuf]float64 // ascending
	m := 0
	for _, v := range a {
		i := m
		if m < r {
			m++
		} else if v >= buf[r-1] {
			continue
		} else {
			i = r - 1
		}
		for i > 0 && buf[i-1] > v {
			buf[i] = buf[i-1]
			i--
		}
		buf[i] = v
	}
	return buf[r-1]
}

// adapt tunes a threshold margin (a fraction of the interdecile range)
// from the surplus of elements it let through: doubled after a miss,
// narrowed when more than 3 too many passed.
func adapt(f *float64, surplus int) {
	switch {
	case surplus < 0:
		*f = min(1, 2**f+0.005)
	case surplus > 3:
		*f *= 0.75
	case surplus == 0:
		*f *= 1.25
	}
}

func decilesGuess(a []float64, k1, k2 int, sc *decileScratch, y, step float64) (hi, lo float64) {
	n := len(a)
	smp, bufHi, bufLo := &sc.smp, &sc.hi, &sc.lo
	if !(sc.haveLast && sc.lastHi >= sc.lastLo) {
		for j := range a {
			a[j] -= y + float64(j)*step
		}
	} else {
		// the previous prefix's deciles, widened: consecutive prefixes
		// have nearly the same deviations
		idr := sc.lastHi - sc.lastLo
		tHi, tLo := sc.lastHi-sc.fHi*idr-1e-9, sc.lastLo+sc.fLo*idr+1e-9
		nh, nl := 0, 0
		fj := 0.0 // float64(j), counted (exact for any profile length)
		for j := range a {
			v := a[j] - (y + fj*step)
			fj++
			if v >= tHi {
				bufHi[nh] = v
				nh++
			}
			if v <= tLo {
				bufLo[nl] = v
				nl++
			}
		}
		adapt(&sc.fHi, nh-k1)
		adapt(&sc.fLo, nl-k2)
		if nh >= k1 && nl >= k2 && nh <= 3*k1+8 && nl <= 3*k2+8 {
			return rankFromBottom(bufHi[:nh], nh-k1+1), rankFromTop(bufLo[:nl], nl-k2+1)
		}
		// the guess failed: detrend a in place for the searches below
		for j := range a {
			a[j] -= y + float64(j)*step
		}
	}
	ns := 0
	for j := decileStride / 2; j < n; j += decileStride {
		smp[ns] = a[j]
		ns++
	}
	r1, r2 := k1/decileStride+2, k2/decileStride+2
	if ns < 8 || r1+r2 > ns {
		return decilesFull(a, k1, k2)
	}
	tHi := selectLargest(smp[:ns], r1-1)
	tLo := selectLargest(smp[:ns], ns-r2)
	nh, nl := 0, 0
	for _, v := range a {
		if v >= tHi {
			bufHi[nh] = v
			nh++
		}
		if v <= tLo {
			bufLo[nl] = v
			nl++
		}
	}
	if nh < k1 || nl < k2 {
		return decilesFull(a, k1, k2)
	}
	return selectLargest(bufHi[:nh], k1-1), selectLargest(bufLo[:nl], nl-k2)
}

// decilesFull is deciles by selection on the whole array.
func decilesFull(a []float64, k1, k2 int) (hi, lo float64) {
	hi = selectLargest(a, k1-1)
	rest := a[k1:]
	return hi, selectLargest(rest, len(rest)-k2)
}

// systemElevation is systemElevation(s.z[:np+1]), the mean of
// z[p10..np−p10], from the radial's prefix sums in constant time (the
// same to within rounding; a run of zeros, sea, still gives exactly 0).
func (s *Sweeper) systemElevation(np int) float64 {
	p10 := int(0.1 * float64(np))
	lo, hi := p10, np-p10
	return (s.s0[hi+1] - s.s0[lo]) / float64(np-2*p10+1)
}

// selectLargest returns the element that would be at index k (0-based) if
// a were sorted in decreasing order, as kthLargest, by selection with a
// three-way partition, so that runs of equal values (a flat profile: sea)
// cost linear time instead of quadratic. It reorders a.
func selectLargest(a []float64, k int) float64 {
	lo, hi := 0, len(a)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		// median of three
		x, y, z := a[lo], a[mid], a[hi]
		if x < y {
			x, y = y, x
		}
		if y < z {
			y = z
			if x < y {
				y = x
			}
		}
		pivot := y
		// a[lo:gt] > pivot, a[gt:i] == pivot, a[lt+1:hi+1] < pivot
		gt, i, lt := lo, lo, hi
		for i <= lt {
			switch v := a[i]; {
			case v > pivot:
				a[gt], a[i] = a[i], a[gt]
				gt++
				i++
			case v < pivot:
				a[i], a[lt] = a[lt], a[i]
				lt--
			default:
				i++
			}
		}
		switch {
		case k < gt:
			hi = gt - 1
		case k > lt:
			lo = lt + 1
		default:
			return pivot
		}
	}
	return a[k]
}
