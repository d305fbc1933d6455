package itur

import (
	"fmt"
	"math"

	"linkplan/appliance"
)

// MinutesPerYear is the length of the average year the percentages refer
// to: 365.25 days (P.837-7 Annex 1 uses 365.25 days too).
const MinutesPerYear = 365.25 * 24 * 60

// LinkInput describes one terrestrial line-of-sight path for the
// availability prediction.
type LinkInput struct {
	// LatDeg, LonDeg locate the map look-ups, WGS84 degrees (east
	// positive): the path's mid-point, as P.530 intends.
	LatDeg, LonDeg float64
	// DistKm is the path length, km.
	DistKm float64
	// FreqGHz is the carrier frequency, GHz.
	FreqGHz float64
	// PolTiltDeg is the polarisation tilt from the horizontal, degrees:
	// 0 horizontal, 90 vertical, 45 circular.
	PolTiltDeg float64
	// HTxAmslM and HRxAmslM are the antenna heights above mean sea level
	// (ground elevation plus height above ground), metres.
	HTxAmslM, HRxAmslM float64
	// R001MMH, when > 0, replaces the P.837-7 Annex 1 estimate of R0.01
	// (mm/h) by a local measurement.
	R001MMH float64
	// Atmosphere, when its TemperatureK is > 0, replaces the default air
	// (DefaultAtmosphere) of the gaseous absorption.
	Atmosphere Atmosphere
	// XPD, when not nil, asks for the clear-air XPD outage of §4.1.
	XPD *XPDInput
}

// XPDInput is what §4.1 needs of the radio (co-channel dual-polarised links).
type XPDInput struct {
	// GuaranteedXPDDB is XPD_g, the manufacturer's guaranteed minimum XPD
	// at boresight, dB.
	GuaranteedXPDDB float64
	// C0IDB is C0/I, the carrier-to-interference ratio for the reference
	// BER, dB.
	C0IDB float64
	// XPIFDB is the XPIC improvement factor, dB (0 without XPIC).
	XPIFDB float64
}

// Warning codes an answer may carry.
const (
	// WarnR001Annex1: R0.01 comes from the P.837-7 Annex 1 monthly method
	// because the P.837-7 R0.01 map is not embedded.
	WarnR001Annex1 = "rain_r001_annex1_method"
	// WarnRainPathRange: the path is outside the range P.530-17 §2.4.1
	// states it was tested for (frequencies up to 100 GHz, paths up to 60 km).
	WarnRainPathRange = "rain_method_outside_tested_range"
	// WarnMultipathRange: a multipath input is outside the ranges of the
	// data eq. (7) was fitted on (d 7.5–185 km, f 0.45–37 GHz, |εp| ≤ 37 mrad,
	// hL 17–2300 m, dN1 −860…−150 N-units/km, s_a 6–850 m).
	WarnMultipathRange = "multipath_method_outside_fitted_range"
	// WarnRainBelowRange: rain exceeds the fade margin for less than
	// 0.001 % of the year, outside P.530's range: 0.001 % is used, so the
	// availability is a lower bound.
	WarnRainBelowRange = "rain_outage_below_0.001pct"
	// WarnRainAboveRange: rain exceeds the fade margin for more than 1 % of
	// the year: 1 % is used, so the availability is an upper bound.
	WarnRainAboveRange = "rain_outage_above_1pct"
	// WarnNoFadeMargin: the fade margin is ≤ 0: the link does not close in
	// clear air.
	WarnNoFadeMargin = "no_fade_margin"
)

// Link is a path prepared for availability questions: every map look-up
// and every quantity that does not depend on the fade margin, computed
// once. Outage and RequiredFadeMargin are then cheap (microseconds), so a
// caller may ask for every modulation of a radio. Read-only after
// PrepareLink; safe for concurrent use.
type Link struct {
	In LinkInput
	// Climate is what the maps say at (LatDeg, LonDeg).
	Climate Climate
	// P0RainPct is the annual probability of rain, % (P.837-7 Annex 1).
	P0RainPct float64
	// R001Source says where R0.01 came from.
	R001Source string
	// ElevationDeg is the path elevation atan((hRx − hTx)/d), degrees,
	// passed to P.838.
	ElevationDeg float64
	Rain         RainPath
	Multipath    Multipath
	// Atmosphere is the air used for the gaseous absorption.
	Atmosphere Atmosphere
	// GammaOxygenDBPerKm and GammaWaterDBPerKm are the specific
	// attenuations of dry air and water vapour, dB/km (P.676 Annex 2
	// approximation, GasSpecificAttenuation).
	GammaOxygenDBPerKm, GammaWaterDBPerKm float64
	// GasAttenuationDB is the gaseous absorption of the whole path,
	// (γo + γw)·d, dB: a steady loss, to be taken from the received level
	// before the fade margin is computed (it is not a fade).
	GasAttenuationDB float64
	// Sources lists the Recommendations and data behind every figure.
	Sources []string
	// Warnings are the codes that apply whatever the fade margin.
	Warnings []string
}

// PrepareLink reads the maps at the path's mid-point and computes the rain,
// multipath and gaseous models of the path. Inputs out of range fail with
// appliance.ErrInvalid; a point outside the embedded maps with
// appliance.ErrOutsideEnvelope.
func (m *Maps) PrepareLink(in LinkInput) (*Link, error) {
	switch {
	case !(in.DistKm > 0) || in.DistKm > 1000:
		return nil, fmt.Errorf("availability: path length %v km: must be in (0, 1000]: %w", in.DistKm, appliance.ErrInvalid)
	case !(in.FreqGHz >= 1 && in.FreqGHz <= 350):
		return nil, fmt.Errorf("availability: frequency %v GHz: the ITU-R methods used cover 1 to 350 GHz (P.676 Annex 2 gaseous absorption): %w", in.FreqGHz, appliance.ErrOutsideEnvelope)
	case math.IsNaN(in.PolTiltDeg) || math.IsInf(in.PolTiltDeg, 0):
		return nil, fmt.Errorf("availability: polarisation tilt %v°: %w", in.PolTiltDeg, appliance.ErrInvalid)
	case math.IsNaN(in.HTxAmslM) || math.IsNaN(in.HRxAmslM) || math.Abs(in.HTxAmslM) > 9000 || math.Abs(in.HRxAmslM) > 9000:
		return nil, fmt.Errorf("availability: antenna heights %v m and %v m above sea level: %w", in.HTxAmslM, in.HRxAmslM, appliance.ErrInvalid)
	case math.IsNaN(in.R001MMH) || in.R001MMH < 0 || in.R001MMH > 1000:
		return nil, fmt.Errorf("availability: R0.01 %v mm/h: must be in [0, 1000] (0: from the maps): %w", in.R001MMH, appliance.ErrInvalid)
	}
	c, err := m.Climate(in.LatDeg, in.LonDeg)
	if err != nil {
		return nil, fmt.Errorf("availability: %w", err)
	}
	l := &Link{In: in, Climate: c}
	dist := NewRainDistribution(c.MTmm, c.TK)
	l.P0RainPct = dist.P0AnnualPct
	r001 := in.R001MMH
	if r001 > 0 {
		l.R001Source = "given by the caller"
	} else {
		if r001, err = dist.RateMMH(0.01); err != nil {
			return nil, fmt.Errorf("availability: %w", err)
		}
		l.R001Source = "ITU-R P.837-7 Annex 1 (monthly MT maps of P.837-7, monthly temperatures of P.1510-1); the P.837-7 R0.01 map is not embedded"
		l.Warnings = append(l.Warnings, WarnR001Annex1)
	}
	l.ElevationDeg = math.Atan((in.HRxAmslM-in.HTxAmslM)/(1000*in.DistKm)) * 180 / math.Pi
	if l.Rain, err = NewRainPath(r001, in.FreqGHz, in.DistKm, l.ElevationDeg, in.PolTiltDeg); err != nil {
		return nil, fmt.Errorf("availability: %w", err)
	}
	if l.Multipath, err = NewMultipath(c.DN1, c.SaM, in.DistKm, in.FreqGHz, in.HTxAmslM, in.HRxAmslM, in.LatDeg); err != nil {
		return nil, fmt.Errorf("availability: %w", err)
	}
	if in.Atmosphere.TemperatureK > 0 {
		l.Atmosphere = in.Atmosphere
	} else {
		l.Atmosphere = DefaultAtmosphere(in.LatDeg, (in.HTxAmslM+in.HRxAmslM)/2000, c.TAnnualK)
	}
	if l.GammaOxygenDBPerKm, l.GammaWaterDBPerKm, err = GasSpecificAttenuation(in.FreqGHz, l.Atmosphere); err != nil {
		return nil, fmt.Errorf("availability: %w", err)
	}
	l.GasAttenuationDB = (l.GammaOxygenDBPerKm + l.GammaWaterDBPerKm) * in.DistKm
	if in.FreqGHz > 100 || in.DistKm > 60 {
		l.Warnings = append(l.Warnings, WarnRainPathRange)
	}
	mp := &l.Multipath
	if in.DistKm < 7.5 || in.DistKm > 185 || in.FreqGHz < 0.45 || in.FreqGHz > 37 || mp.EpsPMrad > 37 ||
		mp.HLM < 17 || mp.HLM > 2300 || c.DN1 < -860 || c.DN1 > -150 || c.SaM < 6 || c.SaM > 850 {
		l.Warnings = append(l.Warnings, WarnMultipathRange)
	}
	l.Sources = []string{
		"rain rate R0.01: " + l.R001Source,
		"rain specific attenuation: ITU-R P.838-3 (eqs. 1-5)",
		"rain attenuation: ITU-R P.530-17 §2.4.1 (eqs. 32-35), valid 0.001-1 % of the year",
		"multipath fading: ITU-R P.530-17 §2.3.1 (eqs. 4, 5, 7), §2.3.2 (all fade depths), §2.3.4 (worst month to year); dN1 from the ITU-R P.453 map, s_a from the P.530 map",
		"gaseous absorption: ITU-R P.676 Annex 2 §1 simplified algorithm (closed forms of P.676-10, 1-350 GHz, an approximation of the Annex 1 line-by-line method); air from ITU-R P.835-6 and the P.1510-1 annual temperature unless given",
		"maps: ITU-R digital maps as shipped by ITU-Rpy 6d7f35c3 (MIT), Brazil subset, bilinear interpolation (ITU-R P.1144)",
	}
	return l, nil
}

// Bound says whether an availability figure is exact or a bound.
type Bound string

const (
	// Exact: every part was computed inside its method's range.
	Exact Bound = "exact"
	// AtLeast: the true availability is at least the figure (rain outage
	// below 0.001 % counted as 0.001 %).
	AtLeast Bound = "at_least"
	// AtMost: the true availability is at most the figure.
	AtMost Bound = "at_most"
)

// Outage is the availability of a link at one fade margin.
type Outage struct {
	// FadeMarginDB is the flat fade margin, dB.
	FadeMarginDB float64
	// RainAnnualPct is the percentage of an average year for which rain
	// attenuation exceeds the margin (P.530 §2.4.1, inverse of eq. 34),
	// clamped to 0.001–1 % (see RainRange).
	RainAnnualPct float64
	RainRange     Range
	// RainEvents10s is N10s, the rain events per year longer than 10 s
	// that exceed the margin (only when RainRange is InRange, else 0).
	RainEvents10s float64
	// MultipathWorstMonthPct is p_w at the margin, % of the average worst
	// month (§2.3.2).
	MultipathWorstMonthPct float64
	// MultipathAnnualPct is the same fade's percentage of an average year
	// (§2.3.4).
	MultipathAnnualPct float64
	// XPDWorstMonthPct is P_XP (§4.1), % of the average worst month; 0
	// unless the link asked for it. Not part of UnavailabilityPct.
	XPDWorstMonthPct float64
	// UnavailabilityPct is RainAnnualPct + MultipathAnnualPct, % of an
	// average year.
	UnavailabilityPct float64
	// OutageMinutesPerYear is UnavailabilityPct of MinutesPerYear.
	OutageMinutesPerYear float64
	// AvailabilityPct is 100 − UnavailabilityPct.
	AvailabilityPct float64
	// Bound says whether AvailabilityPct is exact or a bound.
	Bound Bound
	// Warnings are the codes that apply at this margin.
	Warnings []string
}

// Outage predicts the outage of the link at a flat fade margin (dB): the
// margin left between the received level in clear air (gaseous absorption
// already deducted) and the receiver threshold of the modulation.
// Availability never decreases as the margin grows.
func (l *Link) Outage(fadeMarginDB float64) Outage {
	o := Outage{FadeMarginDB: fadeMarginDB}
	if !(fadeMarginDB > 0) {
		o.RainAnnualPct, o.RainRange = 100, AboveRange
		o.MultipathWorstMonthPct, o.MultipathAnnualPct = 100, 100
		o.UnavailabilityPct, o.OutageMinutesPerYear, o.AvailabilityPct, o.Bound = 100, MinutesPerYear, 0, Exact
		o.Warnings = []string{WarnNoFadeMargin}
		return o
	}
	o.RainAnnualPct, o.RainRange = l.Rain.ExceedancePct(fadeMarginDB)
	o.MultipathWorstMonthPct = l.Multipath.WorstMonthPct(fadeMarginDB)
	o.MultipathAnnualPct = l.Multipath.AnnualPct(fadeMarginDB)
	if l.In.XPD != nil {
		o.XPDWorstMonthPct = l.Multipath.XPDClearAirPct(l.In.XPD.GuaranteedXPDDB, l.In.XPD.C0IDB, l.In.XPD.XPIFDB)
	}
	o.Bound = Exact
	switch o.RainRange {
	case InRange:
		o.RainEvents10s = RainEventCount(o.RainAnnualPct)
	case BelowRange:
		o.Bound = AtLeast
		o.Warnings = append(o.Warnings, WarnRainBelowRange)
	case AboveRange:
		o.Bound = AtMost
		o.Warnings = append(o.Warnings, WarnRainAboveRange)
	}
	o.UnavailabilityPct = math.Min(100, o.RainAnnualPct+o.MultipathAnnualPct)
	o.OutageMinutesPerYear = o.UnavailabilityPct / 100 * MinutesPerYear
	o.AvailabilityPct = 100 - o.UnavailabilityPct
	return o
}

// Required is the fade margin a link needs for an availability target.
type Required struct {
	// AvailabilityPct is the target, % of an average year.
	AvailabilityPct float64
	// RainOnlyDB is A_rain at p = 100 − target (eq. 34), dB: the margin
	// if rain were the only cause (NaN when p is outside 0.001–1 %, with
	// RainOnlyRange saying which side).
	RainOnlyDB    float64
	RainOnlyRange Range
	// MultipathOnlyDB is the margin at which the annual multipath outage
	// alone equals 100 − target, dB.
	MultipathOnlyDB float64
	// CombinedDB is the margin at which rain plus multipath equal
	// 100 − target, dB (see CombinedBound).
	CombinedDB float64
	// CombinedBound is Exact when the rain part fell inside 0.001–1 %;
	// AtMost when it fell below 0.001 % (counted as 0.001 %, so the margin
	// given suffices); AtLeast when the target leaves less than 0.001 %
	// for rain (the margin given, max(A_rain(0.001 %), MultipathOnlyDB), is
	// necessary, and P.530 cannot say how much more is needed).
	CombinedBound Bound
}

// StandardTargets are the availability targets the product reports, %.
var StandardTargets = []float64{99.9, 99.99, 99.999}

// RequiredFadeMargin returns the fade margin needed for availabilityPct
// (% of an average year, in [50, 100)).
func (l *Link) RequiredFadeMargin(availabilityPct float64) (Required, error) {
	if !(availabilityPct >= 50 && availabilityPct < 100) {
		return Required{}, fmt.Errorf("availability target %v %%: must be in [50, 100): %w", availabilityPct, appliance.ErrInvalid)
	}
	q := 100 - availabilityPct
	r := Required{AvailabilityPct: availabilityPct, RainOnlyDB: math.NaN()}
	switch {
	case q < RainMinPct*(1-1e-9):
		r.RainOnlyRange = BelowRange
	case q > RainMaxPct*(1+1e-9):
		r.RainOnlyRange = AboveRange
	default:
		r.RainOnlyDB, r.RainOnlyRange = l.Rain.attenuation(math.Min(RainMaxPct, math.Max(RainMinPct, q))), InRange
	}
	r.MultipathOnlyDB, _ = l.Multipath.FadeMarginForAnnualDB(q)
	aMin := l.Rain.attenuation(RainMinPct)
	total := func(fm float64) float64 {
		p, _ := l.Rain.ExceedancePct(fm)
		return p + l.Multipath.AnnualPct(fm)
	}
	// total never increases with the margin and tends to 0.001 % (rain
	// counted at the lower end of its range): a target that leaves rain
	// 0.001 % or less has no answer inside P.530's range, only a necessary
	// margin.
	if q <= RainMinPct*(1+1e-9) {
		r.CombinedDB, r.CombinedBound = math.Max(aMin, r.MultipathOnlyDB), AtLeast
		return r, nil
	}
	hi := math.Max(aMin, r.MultipathOnlyDB) + 1
	for i := 0; i < 10 && total(hi) > q; i++ {
		hi *= 2
	}
	if total(hi) > q {
		r.CombinedDB, r.CombinedBound = math.Max(aMin, r.MultipathOnlyDB), AtLeast
		return r, nil
	}
	r.CombinedDB = solveDecreasing(total, q, 0, hi, 1e-9)
	_, rr := l.Rain.ExceedancePct(r.CombinedDB)
	switch rr {
	case InRange:
		r.CombinedBound = Exact
	case BelowRange:
		r.CombinedBound = AtMost
	case AboveRange:
		// Rain counted at 1 % where it exceeds 1 %: more margin may be needed.
		r.CombinedBound = AtLeast
	}
	return r, nil
}
