package itur

import (
	"fmt"
	"math"

	"linkplan/appliance"
)

// Range says where a percentage of time found by an inverse lies with
// respect to the range a method is valid in.
type Range string

const (
	// InRange: the value was computed inside the method's validity range.
	InRange Range = "in_range"
	// BelowRange: the answer is below the range's lower end (e.g. rain
	// exceeds the fade margin for less than 0.001 % of the year); the value
	// given is that end, an upper bound.
	BelowRange Range = "below_range"
	// AboveRange: the answer is above the range's upper end (e.g. rain
	// exceeds the fade margin for more than 1 % of the year); the value given
	// is that end, a lower bound.
	AboveRange Range = "above_range"
)

// Validity range of P.530-17 §2.4.1 step 5, % of an average year.
const (
	RainMinPct = 0.001
	RainMaxPct = 1.0
)

// RainPath is the P.530-17 §2.4.1 rain attenuation model of one path, with
// every intermediate quantity.
type RainPath struct {
	// R001MMH is R0.01, the rain rate exceeded 0.01 % of an average year,
	// mm/h (1-minute integration), step 1.
	R001MMH float64
	FreqGHz float64
	DistKm  float64
	// K and Alpha are the P.838-3 coefficients for the path's frequency,
	// elevation and polarisation tilt.
	K, Alpha float64
	// GammaRDBPerKm is γR at R0.01, dB/km (step 2).
	GammaRDBPerKm float64
	// R is the distance factor r of eq. (32), at most 2.5 (step 3).
	R float64
	// DEffKm is the effective path length d_eff = r·d, km.
	DEffKm float64
	// A001DB is A0.01 = γR·d_eff, dB, exceeded 0.01 % of an average year
	// (eq. 33, step 4).
	A001DB float64
	// C0, C1, C2, C3 are the coefficients of eq. (35).
	C0, C1, C2, C3 float64
	// aMin, aMax are A_p at p = 1 % and p = 0.001 %, dB.
	aMin, aMax float64
}

// NewRainPath computes the §2.4.1 model: r001MMH (mm/h), fGHz, dKm (km),
// the path elevation elDeg (degrees, for P.838) and the polarisation tilt
// tauDeg (0 = H, 90 = V).
func NewRainPath(r001MMH, fGHz, dKm, elDeg, tauDeg float64) (RainPath, error) {
	if !(r001MMH >= 0) || math.IsInf(r001MMH, 0) {
		return RainPath{}, fmt.Errorf("P.530 rain: R0.01 = %v mm/h: must be ≥ 0: %w", r001MMH, appliance.ErrInvalid)
	}
	if !(dKm > 0) || math.IsInf(dKm, 0) {
		return RainPath{}, fmt.Errorf("P.530 rain: path length %v km: must be > 0: %w", dKm, appliance.ErrInvalid)
	}
	k, alpha, err := RainCoefficients(fGHz, elDeg, tauDeg)
	if err != nil {
		return RainPath{}, err
	}
	rp := RainPath{R001MMH: r001MMH, FreqGHz: fGHz, DistKm: dKm, K: k, Alpha: alpha}
	rp.GammaRDBPerKm = k * math.Pow(r001MMH, alpha)
	// Eq. (32). The Recommendation caps r at 2.5: "if the denominator is
	// less than 0.4, use r = 2.5", which also covers a zero or negative
	// denominator (ITU-Rpy takes min(r, 2.5), which would keep a negative r).
	den := 0.477*math.Pow(dKm, 0.633)*math.Pow(r001MMH, 0.073*alpha)*math.Pow(fGHz, 0.123) - 10.579*(1-math.Exp(-0.024*dKm))
	if den < 0.4 {
		rp.R = 2.5
	} else {
		rp.R = 1 / den
	}
	rp.DEffKm = rp.R * dKm
	rp.A001DB = rp.GammaRDBPerKm * rp.DEffKm
	// Eq. (35): C0 = 0.12 + 0.4·[log10(f/10)]^0.8 for f ≥ 10 GHz, else 0.12.
	rp.C0 = 0.12
	if fGHz >= 10 {
		rp.C0 = 0.12 + 0.4*math.Pow(math.Log10(fGHz/10), 0.8)
	}
	rp.C1 = math.Pow(0.07, rp.C0) * math.Pow(0.12, 1-rp.C0)
	rp.C2 = 0.855*rp.C0 + 0.546*(1-rp.C0)
	rp.C3 = 0.139*rp.C0 + 0.043*(1-rp.C0)
	rp.aMin, rp.aMax = rp.attenuation(RainMaxPct), rp.attenuation(RainMinPct)
	return rp, nil
}

// AttenuationDB is A_p, the rain attenuation exceeded for pPct % of an
// average year: A_p = A0.01·C1·p^−(C2 + C3·log10 p) (eq. 34), valid for
// 0.001 % ≤ p ≤ 1 %; outside it fails with appliance.ErrOutsideEnvelope.
func (rp *RainPath) AttenuationDB(pPct float64) (float64, error) {
	if !(pPct >= RainMinPct*(1-1e-12) && pPct <= RainMaxPct*(1+1e-12)) {
		return 0, fmt.Errorf("P.530 rain attenuation for p = %v %%: valid from 0.001 to 1 %%: %w", pPct, appliance.ErrOutsideEnvelope)
	}
	return rp.attenuation(pPct), nil
}

func (rp *RainPath) attenuation(pPct float64) float64 {
	lp := math.Log10(pPct)
	return rp.A001DB * rp.C1 * math.Pow(pPct, -(rp.C2+rp.C3*lp))
}

// ExceedancePct inverts eq. (34): the percentage of an average year (%) for
// which rain attenuation exceeds aDB, found only within 0.001–1 %, where
// eq. (34) decreases monotonically with p for every frequency up to
// 1000 GHz. It solves C3·L² + C2·L + log10(A/(A0.01·C1)) = 0 for
// L = log10 p in closed form. When aDB > A(0.001 %) it returns 0.001 with
// BelowRange, when aDB < A(1 %) it returns 1 with AboveRange. A path with
// no rain (A0.01 = 0) returns 0.001 with BelowRange for any aDB ≥ 0.
func (rp *RainPath) ExceedancePct(aDB float64) (float64, Range) {
	if rp.A001DB <= 0 || aDB > rp.aMax {
		return RainMinPct, BelowRange
	}
	if aDB < rp.aMin {
		return RainMaxPct, AboveRange
	}
	y := math.Log10(aDB / (rp.A001DB * rp.C1))
	disc := rp.C2*rp.C2 - 4*rp.C3*y
	if disc < 0 {
		disc = 0
	}
	// Of the two roots, the larger lies in [−3, 0]: the parabola's vertex,
	// −C2/(2·C3), is below −3 for every C0 in [0.12, 0.82].
	l := (-rp.C2 + math.Sqrt(disc)) / (2 * rp.C3)
	p := math.Pow(10, l)
	return math.Min(RainMaxPct, math.Max(RainMinPct, p)), InRange
}

// RainEventCount is N10s = 1 + 1313·p^0.945, the number of rain events per
// year in which the attenuation exceeds the level it exceeds for pPct % of
// the time for 10 s or longer (P.530-17 §2.4.5, the formula ITU-Rpy's
// rain_event_count uses).
func RainEventCount(pPct float64) float64 { return 1 + 1313*math.Pow(pPct, 0.945) }

// Multipath is the P.530-17 §2.3 clear-air (multipath and related
// mechanisms) fading model of one path.
type Multipath struct {
	DN1     float64 // P.453 dN1, N-units/km
	SaM     float64 // area terrain roughness s_a, m
	DistKm  float64
	FreqGHz float64
	HeM     float64 // transmitting antenna height above sea level, m
	HrM     float64 // receiving antenna height above sea level, m
	LatDeg  float64 // path latitude ξ (for §2.3.4), degrees
	// K is the geoclimatic factor, eq. (4).
	K float64
	// EpsPMrad is the magnitude of the path inclination |εp| = |hr − he|/d,
	// mrad (eq. 5).
	EpsPMrad float64
	// HLM is the lower antenna's height above sea level, m.
	HLM float64
	// P0Pct is the multipath occurrence factor p0: eq. (7) with A = 0, % of
	// the average worst month.
	P0Pct float64
	// AtDB is the transition fade depth A_t = 25 + 1.2·log10 p0 between the
	// shallow- and deep-fading distributions (§2.3.2 step 2).
	AtDB float64
	// DeltaGDB is ΔG, the worst-month to average-year conversion factor of
	// §2.3.4 (at most 10.8 dB).
	DeltaGDB float64
	qt       float64
	// The §2.3.2 parameters of the average-year distribution (§2.3.4).
	p0Year, atYear, qtYear float64
}

// transition returns A_t and q_t of §2.3.2 for an occurrence factor p0 (%).
func transition(p0 float64) (at, qt float64) {
	at = 25 + 1.2*math.Log10(p0)
	pt := p0 * math.Pow(10, -at/10)
	qaP := -20 * math.Log10(-math.Log((100-pt)/100)) / at
	qt = (qaP-2)/((1+0.3*math.Pow(10, -at/20))*math.Pow(10, -0.016*at)) - 4.3*(math.Pow(10, -at/20)+at/800)
	return at, qt
}

// NewMultipath computes the §2.3 model of a path: dN1 and s_a from the maps
// at the path, its length dKm, frequency fGHz, antenna heights above sea
// level heM and hrM (m), and the latitude (for ΔG).
func NewMultipath(dN1, saM, dKm, fGHz, heM, hrM, latDeg float64) (Multipath, error) {
	for _, v := range []float64{dN1, saM, dKm, fGHz, heM, hrM, latDeg} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Multipath{}, fmt.Errorf("P.530 multipath: non-finite input: %w", appliance.ErrInvalid)
		}
	}
	if !(dKm > 0 && fGHz > 0) {
		return Multipath{}, fmt.Errorf("P.530 multipath: d = %v km and f = %v GHz must be > 0: %w", dKm, fGHz, appliance.ErrInvalid)
	}
	mp := Multipath{DN1: dN1, SaM: saM, DistKm: dKm, FreqGHz: fGHz, HeM: heM, HrM: hrM, LatDeg: latDeg}
	mp.K = math.Pow(10, -4.4-0.0027*dN1) * math.Pow(10+saM, -0.46)
	mp.EpsPMrad = math.Abs(hrM-heM) / dKm
	mp.HLM = math.Min(heM, hrM)
	mp.P0Pct = mp.K * math.Pow(dKm, 3.4) * math.Pow(1+mp.EpsPMrad, -1.03) * math.Pow(fGHz, 0.8) * math.Pow(10, -0.00076*mp.HLM)
	mp.AtDB, mp.qt = transition(mp.P0Pct)
	// §2.3.4: ΔG = 10.5 − 5.6·log10(1.1 ± |cos 2ξ|^0.7) − 2.7·log10 d
	// + 1.7·log10(1 + |εp|), + for |ξ| ≤ 45°, − above; at most 10.8 dB.
	c := math.Pow(math.Abs(math.Cos(2*latDeg*math.Pi/180)), 0.7)
	if math.Abs(latDeg) > 45 {
		c = -c
	}
	mp.DeltaGDB = math.Min(10.8, 10.5-5.6*math.Log10(1.1+c)-2.7*math.Log10(dKm)+1.7*math.Log10(1+mp.EpsPMrad))
	mp.p0Year = mp.P0Pct * math.Pow(10, -mp.DeltaGDB/10)
	mp.atYear, mp.qtYear = transition(mp.p0Year)
	return mp, nil
}

// DeepFadePct is p_w, the percentage of the average worst month for which
// the fade depth aDB is exceeded, by eq. (7) (the deep-fading tail):
// p_w = K·d^3.4·(1 + |εp|)^−1.03·f^0.8·10^(−0.00076·hL − A/10).
func (mp *Multipath) DeepFadePct(aDB float64) float64 {
	return mp.P0Pct * math.Pow(10, -aDB/10)
}

// WorstMonthPct is p_w for any fade depth aDB ≥ 0 (§2.3.2): eq. (7) for
// A ≥ A_t, and the interpolation between the shallow- and deep-fading
// distributions (step 3b) below A_t.
func (mp *Multipath) WorstMonthPct(aDB float64) float64 {
	return allFade(mp.P0Pct, mp.AtDB, mp.qt, aDB)
}

func allFade(p0, at, qt, a float64) float64 {
	if a >= at {
		return p0 * math.Pow(10, -a/10)
	}
	qa := 2 + (1+0.3*math.Pow(10, -a/20))*math.Pow(10, -0.016*a)*(qt+4.3*(math.Pow(10, -a/20)+a/800))
	return 100 * (1 - math.Exp(-math.Pow(10, -qa*a/20)))
}

// AnnualPct is the percentage of an average year for which the fade depth
// aDB is exceeded (§2.3.4): p = 10^(−ΔG/10)·p_w in the deep-fading tail,
// and the §2.3.2 method with the annual occurrence factor
// p0·10^(−ΔG/10) for shallower fades.
func (mp *Multipath) AnnualPct(aDB float64) float64 {
	return allFade(mp.p0Year, mp.atYear, mp.qtYear, aDB)
}

// FadeMarginForWorstMonthDB inverts WorstMonthPct: the fade depth (dB)
// exceeded for pwPct % of the average worst month. Deep fades (A ≥ A_t)
// invert eq. (7) in closed form, shallower ones numerically to 1e-10 dB.
// pwPct at or above p_w(0) = 100·(1 − e^−1) ≈ 63.2 % returns 0 with
// AboveRange.
func (mp *Multipath) FadeMarginForWorstMonthDB(pwPct float64) (float64, Range) {
	return invertFade(func(a float64) float64 { return mp.WorstMonthPct(a) }, mp.P0Pct, mp.AtDB, pwPct)
}

// FadeMarginForAnnualDB inverts AnnualPct: the fade depth (dB) exceeded for
// pPct % of an average year.
func (mp *Multipath) FadeMarginForAnnualDB(pPct float64) (float64, Range) {
	return invertFade(mp.AnnualPct, mp.p0Year, mp.atYear, pPct)
}

func invertFade(pw func(float64) float64, p0, at, target float64) (float64, Range) {
	if !(target > 0) {
		return math.Inf(1), BelowRange
	}
	if target >= pw(0) {
		return 0, AboveRange
	}
	if a := 10 * math.Log10(p0/target); a >= at {
		return a, InRange
	}
	return solveDecreasing(pw, target, 0, at, 1e-10), InRange
}

// XPDClearAirPct is P_XP, the probability (% of the average worst month) of
// outage from cross-polar discrimination degraded by clear-air multipath
// (P.530-17 §4.1), for one transmit antenna (k_XP = 0.7): XPD0 = XPDg + 5
// (XPDg ≤ 35 dB) else 40; η = 1 − exp(−0.2·P0^0.75) with P0 the multipath
// occurrence factor; Q = −10·log10(k_XP·η/P0); C = XPD0 + Q;
// M_XPD = C − C0/I (+ XPIF with a cross-polar interference canceller);
// P_XP = P0·10^(−M_XPD/10). xpdGDB is the manufacturer's guaranteed
// minimum XPD at boresight, c0iDB the carrier-to-interference ratio for the
// reference BER, xpifDB the XPIC improvement factor (0 without XPIC).
func (mp *Multipath) XPDClearAirPct(xpdGDB, c0iDB, xpifDB float64) float64 {
	xpd0 := 40.0
	if xpdGDB <= 35 {
		xpd0 = xpdGDB + 5
	}
	p0 := mp.P0Pct
	eta := 1 - math.Exp(-0.2*math.Pow(p0, 0.75))
	q := -10 * math.Log10(0.7*eta/p0)
	mXPD := xpd0 + q - c0iDB + xpifDB
	return p0 * math.Pow(10, -mXPD/10)
}
