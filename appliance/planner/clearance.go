package planner

import (
	"fmt"
	"math"

	"linkplan/appliance"
	"linkplan/engines/radio"
)

// Path check settings (package doc, "Path check").
const (
	// KFactor is the effective earth radius factor of the path check,
	// dimensionless: the standard atmosphere's 4/3.
	KFactor = 4.0 / 3.0
	// FresnelRule is the design clearance, as a fraction of the first
	// Fresnel zone radius, of the "60 % F1" minimum heights.
	FresnelRule = 0.6
	// MaxProfilePoints is the most points a PathCheck profile holds.
	MaxProfilePoints = 512
	// MaxAntennaHeightM is the cap of the minimum-height search, metres
	// above ground (the largest receiver height a request accepts).
	MaxAntennaHeightM = 500.0
)

// CheckPath computes the PathCheck of a terrain profile p (index 0 the
// transmitter) for antennas txHeightM and rxHeightM metres above ground at
// freqMHz. It is deterministic and exact on the samples of p: see the
// package doc for the geometry, the minimum-height rule and the decimation.
// Malformed input is an error matching appliance.ErrInvalid (a
// *appliance.ValidationError naming each bad field): a profile with fewer
// than 2 samples, a height count that differs from the distance count,
// distances that do not start at 0 or are not finite and strictly
// increasing, heights that are not finite, antenna heights that are not
// finite and ≥ 0 m, a frequency that is not finite and > 0 MHz.
func CheckPath(p *appliance.PathProfile, txHeightM, rxHeightM, freqMHz float64) (*appliance.PathCheck, error) {
	if err := checkPathInput(p, txHeightM, rxHeightM, freqMHz); err != nil {
		return nil, fmt.Errorf("check path: %w", err)
	}
	n := p.Len()
	d := p.LengthM()
	g0, gn := p.HeightsM[0], p.HeightsM[n-1]
	tipT, tipR := g0+txHeightM, gn+rxHeightM
	pts, ratio, obst := pathPoints(p, tipT, tipR, freqMHz, KFactor)
	pc := &appliance.PathCheck{KFactor: KFactor, EffEarthRadiusM: radio.EffectiveEarthRadiusM(KFactor), FreqMHz: freqMHz, TxHeightM: txHeightM, RxHeightM: rxHeightM,
		SamplesTotal: n, Profile: decimate(pts, ratio, MaxProfilePoints)}
	if obst >= 0 {
		o := pts[obst]
		pc.Obstacle = &appliance.Obstacle{DistanceFromRxM: d - o.DistanceM, DistanceFromTxM: o.DistanceM,
			GroundM: o.GroundM, EffectiveGroundM: o.EffectiveGroundM, LOSM: o.LOSM,
			ClearanceM: o.LOSM - o.EffectiveGroundM, F1RadiusM: o.F1RadiusM, ClearanceF1: ratio[obst],
			VoidFilled: o.VoidFilled}
	}
	pc.RxMinLOS = minHeight(pts, d, tipT, gn, 0, false)
	pc.RxMinFresnel60 = minHeight(pts, d, tipT, gn, FresnelRule, false)
	pc.TxMinLOS = minHeight(pts, d, tipR, g0, 0, true)
	pc.TxMinFresnel60 = minHeight(pts, d, tipR, g0, FresnelRule, true)
	return pc, nil
}

// pathPoints returns the samples of p in the frame of the path check for
// the effective earth radius factor k (antenna tips tipT and tipR, metres
// AMSL), the clearance / F1 of each intermediate sample (+Inf at the ends)
// and the index of the smallest (-1 without an intermediate sample; ties:
// the one nearest the transmitter).
func pathPoints(p *appliance.PathProfile, tipT, tipR, freqMHz, k float64) (pts []appliance.ProfilePoint, ratio []float64, obst int) {
	n := p.Len()
	d := p.LengthM()
	pts = make([]appliance.ProfilePoint, n)
	ratio = make([]float64, n)
	obst = -1
	for i := range n {
		d1 := p.DistancesM[i]
		d2 := d - d1
		pt := appliance.ProfilePoint{DistanceM: d1, GroundM: p.HeightsM[i], EffectiveGroundM: p.HeightsM[i],
			LOSM: tipT + (tipR-tipT)*d1/d}
		if p.VoidFilled != nil {
			pt.VoidFilled = p.VoidFilled[i]
		}
		ratio[i] = math.Inf(1)
		if i > 0 && i < n-1 && d1 > 0 && d2 > 0 {
			pt.EffectiveGroundM += radio.EarthBulgeM(d1, d2, k)
			pt.F1RadiusM = radio.FresnelRadiusM(freqMHz, d1, d2)
			ratio[i] = (pt.LOSM - pt.EffectiveGroundM) / pt.F1RadiusM
			if obst < 0 || ratio[i] < ratio[obst] {
				obst = i
			}
		}
		pts[i] = pt
	}
	return pts, ratio, obst
}

// Rule is the outcome of one clearance rule (ClearanceRule).
type Rule struct {
	// ClearanceF1 is the smallest clearance / F1 over the intermediate
	// samples (+Inf without one).
	ClearanceF1 float64
	// MinTx and MinRx are the smallest transmitter and receiver heights
	// above ground, the other end as given, at which every intermediate
	// sample is clear by fraction·F1 (the rounding and the cap of the
	// package doc, "Path check").
	MinTx, MinRx appliance.MinHeight
}

// ClearanceRule checks the rule "clearance ≥ fraction·F1 at every
// intermediate sample" on profile p (index 0 the transmitter) for the
// effective earth radius factor k (the geometry of CheckPath, whose
// k = 4/3 is one case): the smallest clearance ratio and the minimum
// antenna heights at either end. Its input is checked as CheckPath's,
// plus k > 0 and a finite fraction ≥ 0.
func ClearanceRule(p *appliance.PathProfile, txHeightM, rxHeightM, freqMHz, k, fraction float64) (Rule, error) {
	if err := checkPathInput(p, txHeightM, rxHeightM, freqMHz); err != nil {
		return Rule{}, fmt.Errorf("clearance rule: %w", err)
	}
	if !(k > 0) || math.IsInf(k, 0) || !(fraction >= 0) || math.IsInf(fraction, 0) {
		return Rule{}, fmt.Errorf("clearance rule: k %g, fraction %g: %w", k, fraction, appliance.ErrInvalid)
	}
	n := p.Len()
	d := p.LengthM()
	g0, gn := p.HeightsM[0], p.HeightsM[n-1]
	tipT, tipR := g0+txHeightM, gn+rxHeightM
	pts, ratio, obst := pathPoints(p, tipT, tipR, freqMHz, k)
	r := Rule{ClearanceF1: math.Inf(1)}
	if obst >= 0 {
		r.ClearanceF1 = ratio[obst]
	}
	r.MinRx = minHeight(pts, d, tipT, gn, fraction, false)
	r.MinTx = minHeight(pts, d, tipR, g0, fraction, true)
	return r, nil
}

// checkPathInput validates the input of CheckPath.
func checkPathInput(p *appliance.PathProfile, txHeightM, rxHeightM, freqMHz float64) error {
	v := &appliance.ValidationError{}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	n := p.Len()
	switch {
	case n < 2:
		v.Add("profile.distances_m", "a profile needs 2 or more samples, got %d", n)
	case p.DistancesM[0] != 0:
		v.Add("profile.distances_m", "must start at 0 m, got %g", p.DistancesM[0])
	default:
		for i := 1; i < n; i++ {
			if d := p.DistancesM[i]; !finite(d) || !(d > p.DistancesM[i-1]) {
				v.Add("profile.distances_m", "must be finite and strictly increasing: sample %d is %g m after %g m", i, d, p.DistancesM[i-1])
				break
			}
		}
	}
	if len(p.HeightsM) != n {
		v.Add("profile.heights_m", "%d heights for %d distances", len(p.HeightsM), n)
	} else {
		for i, h := range p.HeightsM {
			if !finite(h) {
				v.Add("profile.heights_m", "sample %d is %g: heights must be finite", i, h)
				break
			}
		}
	}
	for _, h := range []struct {
		field string
		m     float64
	}{{"tx_height_m", txHeightM}, {"rx_height_m", rxHeightM}} {
		if !finite(h.m) || h.m < 0 {
			v.Add(h.field, "must be a finite height of at least 0 m, got %g", h.m)
		}
	}
	if !finite(freqMHz) || !(freqMHz > 0) {
		v.Add("frequency_mhz", "must be a finite frequency above 0 MHz, got %g", freqMHz)
	}
	return v.Err()
}

// minHeight returns the smallest height above ground (groundM) of the
// moving end whose line to the fixed tip (fixedTipM, metres AMSL) clears
// every intermediate sample by q·F1. The line height at a sample is linear
// in the moving tip's height, so the bound of each sample is exact:
//
//	H ≥ (e_i + q·F1_i − fixed·(1 − t_i)) / t_i
//
// with t_i the fraction of the path from the fixed end to the sample. The
// answer is the largest bound, never below 0 m, rounded up to the next
// centimetre; the moving end is the transmitter when moveTx.
func minHeight(pts []appliance.ProfilePoint, d, fixedTipM, groundM, q float64, moveTx bool) appliance.MinHeight {
	need := math.Inf(-1)
	for i := 1; i < len(pts)-1; i++ {
		pt := pts[i]
		t := pt.DistanceM / d // fraction from the transmitter
		if moveTx {
			t = 1 - t
		}
		if t <= 0 || t >= 1 {
			continue
		}
		if h := (pt.EffectiveGroundM + q*pt.F1RadiusM - fixedTipM*(1-t)) / t; h > need {
			need = h
		}
	}
	h := math.Ceil(math.Max(0, need-groundM)*100) / 100
	// The bound is exact but h·100 and the division round: re-check the
	// stated height with the geometry of CheckPath and go up a centimetre
	// while it misses the rule (once at most in practice).
	for i := 0; i < 3 && h <= MaxAntennaHeightM && !clears(pts, d, fixedTipM, groundM+h, q, moveTx); i++ {
		h = (math.Round(h*100) + 1) / 100
	}
	if h > MaxAntennaHeightM || !clears(pts, d, fixedTipM, groundM+h, q, moveTx) {
		return appliance.MinHeight{HeightM: MaxAntennaHeightM}
	}
	return appliance.MinHeight{HeightM: h, Achievable: true}
}

// clears reports whether the line from the fixed tip to the moving tip
// (metres AMSL; the moving end is the transmitter when moveTx) clears
// every intermediate sample by q·F1, computed as CheckPath computes the
// clearance ratio.
func clears(pts []appliance.ProfilePoint, d, fixedTipM, movingTipM, q float64, moveTx bool) bool {
	tipT, tipR := fixedTipM, movingTipM
	if moveTx {
		tipT, tipR = movingTipM, fixedTipM
	}
	for i := 1; i < len(pts)-1; i++ {
		pt := pts[i]
		if pt.F1RadiusM == 0 {
			continue
		}
		los := tipT + (tipR-tipT)*pt.DistanceM/d
		if (los-pt.EffectiveGroundM)/pt.F1RadiusM < q {
			return false
		}
	}
	return true
}

// decimate keeps at most max points of pts: all of them when they fit;
// otherwise both endpoints and, of each of max−2 contiguous, near-equal
// buckets of the intermediate samples (bucket j holds indices
// 1+⌊j·m/B⌋ … ⌊(j+1)·m/B⌋ with m = n−2 and B = max−2), the sample with the
// smallest clearance ratio (ties: the first). The global minimum, the
// dominant obstacle, is therefore always kept, as is the worst point of
// every stretch of the path.
func decimate(pts []appliance.ProfilePoint, ratio []float64, max int) []appliance.ProfilePoint {
	n := len(pts)
	if n <= max {
		return pts
	}
	m, b := n-2, max-2
	out := make([]appliance.ProfilePoint, 0, max)
	out = append(out, pts[0])
	for j := range b {
		lo, hi := 1+j*m/b, 1+(j+1)*m/b
		best := lo
		for i := lo + 1; i < hi; i++ {
			if ratio[i] < ratio[best] {
				best = i
			}
		}
		out = append(out, pts[best])
	}
	return append(out, pts[n-1])
}
