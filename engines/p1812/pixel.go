package p1812

import (
	"fmt"
	"math"

	"linkplan/appliance"
)

// Pixel is one receiver of a coverage map for Sweep.Loss: a pixel centre
// beside the radial of Sweep.Reset, whose own profile is Steps equal
// steps of DistKm/Steps km on its own great circle from the transmitter,
// the last sample at the pixel centre (GroundM high). Sample j of that
// profile lies beside the radial's point j·DistKm/Steps·CosOff km from the
// transmitter (its foot). Exact(Index, js, heightsM) writes the ground
// heights of samples js of the pixel's own profile, metres above mean sea
// level.
type Pixel struct {
	DistKm  float64 // km
	Steps   int     // at least MinPixelSteps
	GroundM float64 // metres above mean sea level
	CosOff  float64
	Index   int
	Exact   func(pixel int, js []int32, heightsM []float64) error
}

// MinPixelSteps is the fewest steps of a pixel's own profile Sweep.Loss
// takes: shorter profiles are cheap to compute whole.
const MinPixelSteps = 8

// Sweep computes P.1812 (delta-Bullington, no clutter, no sea) at the
// pixels of one radial of a coverage map, each on its own profile, at a
// cost that does not grow with the path length:
//
//   - every maximum over the profile's samples (the horizons of Eqs. 76–81,
//     the Bullington slopes and ν of Eqs. 13–17 for both Earth radii, the
//     obstruction of §5.6.2, the roughness of Eq. 93) is taken over the
//     pixel's own samples, exactly, with a branch-and-bound search: the
//     bounds of the ground (per radial segment, its blocks and
//     superblocks) rule out the samples that cannot beat the best value
//     found so far, and the rest are sampled with Pixel.Exact;
//   - the least-squares smooth surface (Eqs. 85–88: integrals of the
//     whole profile) is integrated from the radial's prefix sums at the
//     same distances, with the pixel's own last interval;
//   - the smooth-profile Bullington maxima (heights zero) come from the
//     stationary points of their closed forms.
//
// A Sweep holds one radial's state (the last pixel's maximising samples
// seed the next pixel's search); it is not safe for concurrent use.
type Sweep struct {
	xr     float64   // the radial's spacing, km
	z      []float64 // the radial's heights, metres (kept)
	i0, i1 []float64 // ∫₀^{k·xr} Z dx and ∫₀^{k·xr} x·Z dx, km·m and km²·m
	u      []float64 // per radial segment, the bound of the pixels' ground, metres (kept)
	ub, us []float64 // u's block and superblock maxima
	prevKm [nObj]float64

	// per pixel
	px       *Pixel
	n        int
	xi, d, c float64 // sample spacing km, length km, segments per sample
	seen     []uint32
	hgt      []float64
	stamp    uint32
	got      []int32 // the samples taken, in order
	js       []int32
	hs       []float64
	o        objectives
	lastSeg  int
	nSeg     int
	hm0, hmM float64 // its line: HstM + hmM·d
	hmBest   float64
	hmOnly   bool
	lo       [nObj]float64 // the best values less the slack (lower)
}

// Search blocks of the radial's segments.
const (
	sweepBlock = 16
	sweepSuper = 16
)

// The maxima a pixel needs (objectives.v):
const (
	oTA = iota // (h − hts)/d − ce·d, ae: transmitter horizon, Bullington stim
	oTB        // the same for ab
	oRA        // (h − hrs)/dr − ce·dr, ae: receiver horizon, Bullington srim
	oRB        // the same for ab
	oNA        // Bullington ν, ae (and the LoS path's Bullington point)
	oNB        // Bullington ν, ab
	oHH        // h − the antennas' line: hobs
	oHT        // (h − line)/d: αobt
	oHR        // (h − line)/dr: αobr
	nObj
)

// objectives is the state of one pixel's search: the path's constants
// and, per maximum, the best value, its sample and that sample's height.
type objectives struct {
	d, hts, hrs, ceA, ceB, kk float64
	v                         [nObj]float64
	j                         [nObj]int
	h                         [nObj]float64
}

// Reset starts a radial: its spacing (km), its heights (metres, sample 0
// at the transmitter) and upperM[i], at least the ground of every sample
// of a pixel's own profile whose foot lies between radial samples i and
// i+1 (+Inf: unknown). heightsM and upperM are kept, not copied. It
// reports false when the radial cannot serve (too short, a height not
// finite, mismatched lengths).
func (s *Sweep) Reset(spacingKm float64, heightsM, upperM []float64) bool {
	n := len(heightsM)
	if n < 3 || len(upperM) != n-1 || !(spacingKm > 0) || math.IsInf(spacingKm, 0) {
		return false
	}
	for _, z := range heightsM {
		if math.IsNaN(z) || math.IsInf(z, 0) {
			return false
		}
	}
	s.xr, s.z, s.u = spacingKm, heightsM, upperM
	s.i0, s.i1 = growF(s.i0, n), growF(s.i1, n)
	s.i0[0], s.i1[0] = 0, 0
	for k := 1; k < n; k++ {
		a, b := float64(k-1)*spacingKm, float64(k)*spacingKm
		za, zb := heightsM[k-1], heightsM[k]
		s.i0[k] = s.i0[k-1] + (b-a)*(za+zb)/2
		s.i1[k] = s.i1[k-1] + (b-a)/6*(zb*(2*b+a)+za*(b+2*a))
	}
	s.ub, s.us = blockMaxima(upperM, s.ub, s.us)
	for k := range s.prevKm {
		s.prevKm[k] = -1
	}
	return true
}

func growF(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n, n+n/4)
	}
	return b[:n]
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

// Loss returns the basic transmission loss Lb, dB, of the pixel px:
// Predict on a profile with the pixel's own length, end heights and
// maxima (above) and the smooth surface integrated from the radial. in
// gives every field but the profile (DKm, HMasl, RM, Zone are ignored):
// the path is all inland, without clutter; in.Diffraction must be the
// delta-Bullington method. Its errors are Predict's validation (of the
// fields other than the profile) and px.Exact's (wrapped).
func (s *Sweep) Loss(in *Input, px *Pixel) (float64, error) {
	n := px.Steps
	d := px.DistKm
	xi := d / float64(n)
	if s.z == nil || n < MinPixelSteps || !(xi > 0) || math.IsInf(xi, 0) || math.IsNaN(px.GroundM) || math.IsInf(px.GroundM, 0) ||
		!(px.CosOff > 0.5) || d*px.CosOff > s.xr*float64(len(s.z)-1)*(1+1e-9) || in.Diffraction != DeltaBullingtonMethod {
		return 0, fmt.Errorf("p1812 pixel: %w", appliance.Invalid("pixel", "outside the radial or the pixel sweep's input range"))
	}
	if err := validate(in, false); err != nil {
		return 0, err
	}
	s.px, s.n, s.xi, s.d = px, n, xi, d
	s.c = xi * px.CosOff / s.xr
	s.nSeg = len(s.u)
	s.lastSeg = s.seg(n - 1)
	defer func() { s.px = nil }()
	s.stamp++
	if s.stamp == 0 || len(s.seen) < n+1 {
		s.seen = make([]uint32, n+1+n/4)
		s.stamp = 1
	}
	if len(s.hgt) < n+1 {
		s.hgt = make([]float64, len(s.seen))
	}
	s.got = s.got[:0]

	h0, hn := s.z[0], px.GroundM
	var res Result
	begin(in, &res, d, h0, hn, pathZones{dtm: d, dlm: d})
	lam := SpeedOfLightMps / (in.FreqGHz * 1e9)
	hts, hrs := res.HtsM, res.HrsM
	ae, ab := res.AeKm, res.AbKm
	o := &s.o
	*o = objectives{d: d, hts: hts, hrs: hrs, ceA: 500 / ae, ceB: 500 / ab, kk: 0.002 * d / lam}
	for k := range o.v {
		o.v[k], o.j[k] = math.Inf(-1), -1
	}

	// The likely maxima first: the receiver's neighbours and the last
	// pixel's maximising distances.
	js := s.js[:0]
	for j := n - 1; j >= max(1, n-3); j-- {
		js = append(js, int32(j))
		s.seen[j] = s.stamp
	}
	for _, km := range s.prevKm {
		if km < 0 {
			continue
		}
		j := min(max(1, int(math.Round(km/xi))), n-1)
		if s.seen[j] != s.stamp {
			js = append(js, int32(j))
			s.seen[j] = s.stamp
		}
	}
	s.js = js
	if err := s.fetch(js); err != nil {
		return 0, err
	}
	// Every other sample the bounds cannot rule out.
	s.hmOnly = false
	if err := s.search(1, n-1); err != nil {
		return 0, err
	}
	for k := range s.prevKm {
		s.prevKm[k] = float64(o.j[k]) * xi
	}

	// The path analysis (analysePath) from the maxima.
	res.HstRawM, res.HsrRawM = s.smoothSurface(hn)
	res.HstdM, res.HsrdM = obstructionHeights(res.HstRawM, res.HsrRawM, o.v[oHH], o.v[oHT], o.v[oHR], h0, hn)
	dj := func(j int) float64 { return float64(j) * xi }
	lt := o.j[oTA]
	xMax := (o.h[oTA]-hts)/(1000*dj(lt)) - dj(lt)/(2*ae)
	thetaMax := 1000 * math.Atan(xMax)
	thetaTd := 1000 * math.Atan((hrs-hts)/(1000*d)-d/(2*ae))
	thetaRd := 1000 * math.Atan((hts-hrs)/(1000*d)-d/(2*ae))
	res.TransHorizon = thetaMax > thetaTd
	lr := lt
	if res.TransHorizon {
		res.ThetaTMrad = thetaMax
		res.DltKm = dj(lt)
		lr = o.j[oRA]
		dr := d - dj(lr)
		res.ThetaRMrad = 1000 * math.Atan((o.h[oRA]-hrs)/(1000*dr)-dr/(2*ae))
		res.DlrKm = dr
	} else {
		res.ThetaTMrad = thetaTd
		res.ThetaRMrad = thetaRd
		lt = o.j[oNA]
		lr = lt
		res.DltKm = dj(lt)
		res.DlrKm = d - dj(lt)
	}
	res.ThetaMrad = 1e3*d/ae + res.ThetaTMrad + res.ThetaRMrad
	res.HstM = math.Min(res.HstRawM, h0)
	res.HsrM = math.Min(res.HsrRawM, hn)
	m := (res.HsrM - res.HstM) / d
	res.HteM = in.HtgM + h0 - res.HstM
	res.HreM = in.HrgM + hn - res.HsrM
	a, b := min(lt, lr), max(lt, lr)
	hm, err := s.roughness(a, b, res.HstM, m)
	if err != nil {
		return 0, err
	}
	res.HmM = hm

	// The Bullington maxima: the actual profile's at the maximising
	// samples (bullingtonScan's expressions), the smooth one's from its
	// closed forms.
	var bp bullPair
	bp.a50.init(ae)
	bp.a2.init(ab)
	bp.a50.stim, bp.a50.srim, bp.a50.numax = s.bullAt(oTA, &bp.a50, lam, 0), s.bullAt(oRA, &bp.a50, lam, 1), s.bullAt(oNA, &bp.a50, lam, 2)
	bp.a2.stim, bp.a2.srim, bp.a2.numax = s.bullAt(oTB, &bp.a2, lam, 0), s.bullAt(oRB, &bp.a2, lam, 1), s.bullAt(oNB, &bp.a2, lam, 2)
	hts1, hrs1 := hts-res.HstdM, hrs-res.HsrdM
	bp.s50 = s.smoothBull(ae, hts1, hrs1, lam)
	bp.s2 = s.smoothBull(ab, hts1, hrs1, lam)
	finish(in, &res, lam, &bp, false)
	return res.LbDB, nil
}

// bullAt is bullingtonScan's value (0: stim, 1: srim, 2: ν) for radius r
// at the sample that maximises objective k.
func (s *Sweep) bullAt(k int, r *bullRadius, lam float64, which int) float64 {
	o := &s.o
	j := o.j[k]
	dtot := s.d
	di := float64(j) * s.xi
	dr := dtot - di
	g := o.h[k]
	x := di * dr
	b := r.ce * x
	switch which {
	case 0:
		return (g + b - o.hts) / di
	case 1:
		return (g + b - o.hrs) / dr
	}
	line := (o.hts*dr + o.hrs*di) / dtot
	return (g + b - line) * math.Sqrt(0.002*dtot/lam/x)
}

// smoothBull is bullingtonScan on the smooth profile (heights zero, the
// antennas hts1 and hrs1 above it) for radius ap, from the stationary
// points: (ce·d·dr − hts1)/d and (ce·d·dr − hrs1)/dr are concave in d
// (hts1, hrs1 > 0), so their largest sample is next to the stationary
// point; ν, needed only when the smooth path is in sight, is taken by a
// search for its largest sample.
func (s *Sweep) smoothBull(ap, hts1, hrs1, lam float64) bullRadius {
	var r bullRadius
	r.init(ap)
	n, xi, dtot := s.n, s.xi, s.d
	k := 0.002 * dtot / lam
	st := func(j int) float64 { di := float64(j) * xi; dr := dtot - di; return (r.ce*(di*dr) - hts1) / di }
	sr := func(j int) float64 { di := float64(j) * xi; dr := dtot - di; return (r.ce*(di*dr) - hrs1) / dr }
	nu := func(j int) float64 {
		di := float64(j) * xi
		dr := dtot - di
		x := di * dr
		return (r.ce*x - (hts1*dr+hrs1*di)/dtot) * math.Sqrt(k/x)
	}
	near := func(f func(int) float64, jc float64) float64 {
		best := math.Max(f(1), f(n-1))
		if jc >= 1 && jc <= float64(n-1) {
			j := int(jc)
			best = math.Max(best, f(j))
			if j+1 <= n-1 {
				best = math.Max(best, f(j+1))
			}
		}
		return best
	}
	jt, jr := 0.0, 0.0
	if hts1 > 0 {
		jt = math.Sqrt(hts1/r.ce) / xi
	}
	if hrs1 > 0 {
		jr = float64(n) - math.Sqrt(hrs1/r.ce)/xi
	}
	r.stim = near(st, jt)
	r.srim = near(sr, jr)
	if r.stim < (hrs1-hts1)/dtot {
		// ternary search for the largest sample, then a climb
		lo, hi := 1, n-1
		for hi-lo > 2 {
			m1, m2 := lo+(hi-lo)/3, hi-(hi-lo)/3
			if nu(m1) < nu(m2) {
				lo = m1 + 1
			} else {
				hi = m2 - 1
			}
		}
		j, v := lo, nu(lo)
		for i := lo + 1; i <= hi; i++ {
			if w := nu(i); w > v {
				j, v = i, w
			}
		}
		for j > 1 && nu(j-1) > v {
			j--
			v = nu(j)
		}
		for j < n-1 && nu(j+1) > v {
			j++
			v = nu(j)
		}
		r.numax = v
	}
	return r
}

// smoothSurface is smoothSurface (Eqs. 85–88) on the pixel's profile:
// ∫h and ∫x·h of its samples up to its last interior one from the
// radial's heights at the same distances, the last interval from that
// sample's own height to the pixel's ground hn.
func (s *Sweep) smoothSurface(hn float64) (hst, hsr float64) {
	n, xi, d := s.n, s.xi, s.d
	cos := s.px.CosOff
	dl := float64(n-1) * xi
	a0, a1 := s.integrals(dl * cos)
	v1 := a0 / cos
	v2 := a1 / (cos * cos)
	hl := s.hgt[n-1]
	v1 += (d - dl) * (hl + hn) / 2
	v2 += (d - dl) / 6 * (hn*(2*d+dl) + hl*(d+2*dl))
	v1 *= 2
	v2 *= 6
	hst = (2*v1*d - v2) / (d * d)
	hsr = (v2 - v1*d) / (d * d)
	return hst, hsr
}

// integrals returns ∫₀ˣ Z and ∫₀ˣ t·Z(t) dt of the radial's height Z
// (linear between samples), x km from the transmitter.
func (s *Sweep) integrals(x float64) (i0, i1 float64) {
	u := x / s.xr
	k := min(int(u), len(s.z)-2)
	a := float64(k) * s.xr
	za := s.z[k]
	zb := za + (s.z[k+1]-za)*(u-float64(k))
	i0 = s.i0[k] + (x-a)*(za+zb)/2
	i1 = s.i1[k] + (x-a)/6*(zb*(2*x+a)+za*(x+2*a))
	return i0, i1
}

// seg is the radial segment of sample j's foot.
func (s *Sweep) seg(j int) int { return min(int(float64(j)*s.c), s.nSeg-1) }

// samples returns the first and last samples j (1..n−1) whose foot lies
// in segments a..b (last < first when none does).
func (s *Sweep) samples(a, b int) (int, int) {
	last := s.n - 1
	j := max(1, int(float64(a)/s.c))
	for j > 1 && s.seg(j-1) >= a {
		j--
	}
	for j <= last && s.seg(j) < a {
		j++
	}
	k := min(last, max(j-1, int(float64(b+1)/s.c)))
	for k+1 <= last && s.seg(k+1) <= b {
		k++
	}
	for k >= j && s.seg(k) > b {
		k--
	}
	return j, k
}

// fetch samples js exactly and folds them into the maxima.
func (s *Sweep) fetch(js []int32) error {
	if len(js) == 0 {
		return nil
	}
	if cap(s.hs) < len(js) {
		s.hs = make([]float64, 2*len(js))
	}
	hs := s.hs[:len(js)]
	if err := s.px.Exact(s.px.Index, js, hs); err != nil {
		return fmt.Errorf("p1812 pixel: %w", err)
	}
	for k, j32 := range js {
		j := int(j32)
		s.hgt[j] = hs[k]
		s.seen[j] = s.stamp
		s.got = append(s.got, j32)
		if s.hmOnly {
			s.foldRoughness(j, hs[k])
		} else {
			s.fold(j, hs[k])
		}
	}
	return nil
}

// fold updates the maxima with sample j of height h. Among equal values
// the transmitter side's keep the sample nearest the transmitter, the
// receiver side's and ν the one nearest the receiver (analysePath's
// choices).
func (s *Sweep) fold(j int, h float64) {
	o := &s.o
	d := o.d
	di := float64(j) * s.xi
	dr := d - di
	line := (o.hts*dr + o.hrs*di) / d
	x := di * dr
	sq := math.Sqrt(o.kk / x)
	hh := h - line
	var v [nObj]float64
	v[oTA] = (h-o.hts)/di - o.ceA*di
	v[oTB] = (h-o.hts)/di - o.ceB*di
	v[oRA] = (h-o.hrs)/dr - o.ceA*dr
	v[oRB] = (h-o.hrs)/dr - o.ceB*dr
	v[oNA] = (hh + o.ceA*x) * sq
	v[oNB] = (hh + o.ceB*x) * sq
	v[oHH] = hh
	v[oHT] = hh / di
	v[oHR] = hh / dr
	for k, t := range v {
		late := k == oRA || k == oRB || k == oNA || k == oNB
		if t > o.v[k] || t == o.v[k] && (late && j > o.j[k] || !late && j < o.j[k]) {
			o.v[k], o.j[k], o.h[k] = t, j, h
		}
	}
}

// admits reports whether ground at most u anywhere from sample ja to
// sample jb can beat the best value of some maximum.
func (s *Sweep) admits(u float64, ja, jb int) bool {
	if math.IsInf(u, 1) {
		return true
	}
	o := &s.o
	d := o.d
	da, db := float64(ja)*s.xi, float64(jb)*s.xi
	drMin, drMax := d-db, d-da
	if s.hmOnly {
		lmin := min(s.hm0+s.hmM*da, s.hm0+s.hmM*db)
		return u-lmin >= s.hmBest-slack(s.hmBest)
	}
	lo := &s.lo
	// the transmitter's side
	at := u - o.hts
	t := at / db
	if at >= 0 {
		t = at / da
	}
	if t-o.ceA*da >= lo[oTA] || t-o.ceB*da >= lo[oTB] {
		return true
	}
	// the receiver's side
	ar := u - o.hrs
	t = ar / drMax
	if ar >= 0 {
		t = ar / drMin
	}
	if t-o.ceA*drMin >= lo[oRA] || t-o.ceB*drMin >= lo[oRB] {
		return true
	}
	// above the antennas' line
	lmin := min((o.hts*drMax+o.hrs*da)/d, (o.hts*drMin+o.hrs*db)/d)
	a := u - lmin
	if a >= lo[oHH] {
		return true
	}
	tt, tr := a/db, a/drMax
	if a >= 0 {
		tt, tr = a/da, a/drMin
	}
	if tt >= lo[oHT] || tr >= lo[oHR] {
		return true
	}
	xa, xb := da*drMax, db*drMin
	xMin, xMax := min(xa, xb), max(xa, xb)
	if da <= d/2 && d/2 <= db {
		xMax = d * d / 4
	}
	if a >= 0 {
		t = a * math.Sqrt(o.kk/xMin)
	} else {
		t = a * math.Sqrt(o.kk/xMax)
	}
	r := math.Sqrt(o.kk * xMax)
	return t+o.ceA*r >= lo[oNA] || t+o.ceB*r >= lo[oNB]
}

// slack absorbs the rounding of the bound tests.
func slack(best float64) float64 {
	if math.IsInf(best, -1) {
		return 0
	}
	return 1e-9 * (1 + math.Abs(best))
}

// search samples every sample from ja to jb that the bounds cannot rule
// out, from the receiver's end, block by block.
func (s *Sweep) search(ja, jb int) error {
	if jb < ja {
		return nil
	}
	segA, segB := s.seg(ja), s.seg(jb)
	span := sweepBlock * sweepSuper
	clip := func(a, b int) (int, int) {
		x, y := s.samples(a, b)
		return max(x, ja), min(y, jb)
	}
	s.lower()
	for sb := segB / span; sb >= segA/span; sb-- {
		a, b := max(sb*span, segA), min((sb+1)*span-1, segB)
		if x, y := clip(a, b); y < x || !s.admits(s.us[sb], x, y) {
			continue
		}
		for blk := b / sweepBlock; blk >= a/sweepBlock; blk-- {
			ba, bb := max(blk*sweepBlock, a), min((blk+1)*sweepBlock-1, b)
			x, y := clip(ba, bb)
			if y < x || !s.admits(s.ub[blk], x, y) {
				continue
			}
			js := s.js[:0]
			for j := y; j >= x; j-- {
				if s.seen[j] != s.stamp && s.admits(s.u[s.seg(j)], j, j) {
					js = append(js, int32(j))
				}
			}
			s.js = js
			if err := s.fetch(js); err != nil {
				return err
			}
			s.lower()
		}
	}
	return nil
}

// lower sets the values a bound must reach to admit samples: each
// maximum's best so far, less the slack.
func (s *Sweep) lower() {
	for k, v := range s.o.v {
		s.lo[k] = v - slack(v)
	}
}

// roughness is Eq. 93's hm: the largest height of the samples a..b above
// the line hst + m·d, over the pixel's own samples (those sampled so far,
// and those the bounds cannot rule out).
func (s *Sweep) roughness(a, b int, hst, m float64) (float64, error) {
	s.hmOnly, s.hm0, s.hmM, s.hmBest = true, hst, m, math.Inf(-1)
	defer func() { s.hmOnly = false }()
	for _, j := range s.got {
		if int(j) >= a && int(j) <= b {
			s.foldRoughness(int(j), s.hgt[j])
		}
	}
	if err := s.search(a, b); err != nil {
		return 0, err
	}
	return s.hmBest, nil
}

func (s *Sweep) foldRoughness(j int, h float64) {
	s.hmBest = math.Max(s.hmBest, h-(s.hm0+s.hmM*(float64(j)*s.xi)))
}
