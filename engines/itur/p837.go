package itur

import (
	"fmt"
	"math"

	"linkplan/appliance"
)

// daysInMonth are the N_ii of P.837-7 Annex 1 (February 28.25 days).
var daysInMonth = [12]float64{31, 28.25, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// RainDistribution is the P.837-7 Annex 1 annual rain-rate distribution of
// one location, built from its monthly MT_ii and T_ii: the monthly rain
// rate r_ii (mm/h, eq. 1) and probability of rain P0_ii (%, eq. 2 with the
// 70 % cap of step 6), and the annual probability of rain P0_annual (%, eq. 3).
type RainDistribution struct {
	lnR [12]float64 // ln r_ii
	w   [12]float64 // N_ii·P0_ii/365.25, % of the year
	// P0AnnualPct is the annual probability of rain, % (Annex 1 step 7).
	P0AnnualPct float64
}

// NewRainDistribution builds the Annex 1 distribution from the monthly mean
// total rainfall MT_ii (mm) and monthly mean surface temperature T_ii (K),
// steps 2 to 7.
func NewRainDistribution(mtMM, tK [12]float64) RainDistribution {
	var d RainDistribution
	sum := 0.0
	for i := 0; i < 12; i++ {
		t := tK[i] - 273.15 // °C (step 4)
		r := 0.5874         // mm/h, t < 0 °C (eq. 1)
		if t >= 0 {
			r = 0.5874 * math.Exp(0.0883*t)
		}
		p0 := 100 * mtMM[i] / (24 * daysInMonth[i] * r) // % (eq. 2)
		if p0 > 70 {                                    // step 6
			p0 = 70
			r = 100.0 / 70.0 * mtMM[i] / (24 * daysInMonth[i])
		}
		d.lnR[i], d.w[i] = math.Log(r), daysInMonth[i]*p0/365.25
		sum += daysInMonth[i] * p0
	}
	d.P0AnnualPct = sum / 365.25
	return d
}

// ExceedancePct is P(R > rMMH), the annual percentage of time the 1-minute
// rain rate exceeds rMMH (mm/h): Σ N_ii·P0_ii·Q((ln R + 0.7938 − ln r_ii)/1.26)
// / 365.25 (Annex 1 step 8).
func (d *RainDistribution) ExceedancePct(rMMH float64) float64 {
	if rMMH <= 0 {
		return d.P0AnnualPct
	}
	p, _ := d.exceedanceLn(math.Log(rMMH))
	return p
}

// exceedanceLn is P(R > e^x) and its derivative with respect to x.
func (d *RainDistribution) exceedanceLn(x float64) (p, dp float64) {
	for i := 0; i < 12; i++ {
		if d.w[i] == 0 {
			continue
		}
		z := (x + 0.7938 - d.lnR[i]) / 1.26
		p += d.w[i] * qFunc(z)
		dp -= d.w[i] * math.Exp(-z*z/2) / (math.Sqrt(2*math.Pi) * 1.26)
	}
	return p, dp
}

// qFunc is the complementary standard normal cumulative distribution Q(x).
func qFunc(x float64) float64 { return 0.5 * math.Erfc(x/math.Sqrt2) }

// RateMMH is R_p, the rain rate (mm/h, 1-minute integration) exceeded for
// pPct % of an average year (Annex 1 step 8): 0 when p > P0_annual, else the
// root of P(R > R_p) = p on [1e-10, 1000] mm/h, found by Newton's method on
// ln P against ln R, kept inside a shrinking bisection bracket, to 1e-12
// relative.
// p must be in (0, 100].
func (d *RainDistribution) RateMMH(pPct float64) (float64, error) {
	if !(pPct > 0 && pPct <= 100) {
		return 0, fmt.Errorf("rain rate for p = %v %%: p must be in (0, 100]: %w", pPct, appliance.ErrInvalid)
	}
	if pPct > d.P0AnnualPct {
		return 0, nil
	}
	lo, hi := math.Log(1e-10), math.Log(1000)
	if p, _ := d.exceedanceLn(hi); p > pPct {
		return 1000, fmt.Errorf("rain rate for p = %v %%: above 1000 mm/h: %w", pPct, appliance.ErrOutsideEnvelope)
	}
	// P decreases with x = ln R: P(lo) ≥ p ≥ P(hi). Newton's method on
	// ln P(x) − ln p, nearly linear in x in the tail (P is a mixture of
	// log-normals), kept inside the bracket.
	x := math.Log(10)
	lp := math.Log(pPct)
	for i := 0; i < 200; i++ {
		p, dp := d.exceedanceLn(x)
		if p > pPct {
			lo = x
		} else {
			hi = x
		}
		next := math.NaN()
		if p > 0 && dp < 0 {
			next = x - (math.Log(p)-lp)*p/dp
		}
		if !(next > lo && next < hi) {
			next = 0.5 * (lo + hi)
		}
		if math.Abs(next-x) < 1e-12 || hi-lo < 1e-12 {
			x = next
			break
		}
		x = next
	}
	return math.Exp(x), nil
}

// RainRateMMH is R_p at a point from the embedded maps (P.837-7 Annex 1).
// P.837-7 also publishes a map of R_0.01; it is not embedded (see the
// package documentation), so p = 0.01 % is answered by Annex 1 too.
func (m *Maps) RainRateMMH(latDeg, lonDeg, pPct float64) (float64, error) {
	c, err := m.RainClimate(latDeg, lonDeg)
	if err != nil {
		return 0, err
	}
	d := NewRainDistribution(c.MTmm, c.TK)
	return d.RateMMH(pPct)
}

// RainProbabilityPct is P0_annual at a point, % (P.837-7 Annex 1 step 7).
func (m *Maps) RainProbabilityPct(latDeg, lonDeg float64) (float64, error) {
	c, err := m.RainClimate(latDeg, lonDeg)
	if err != nil {
		return 0, err
	}
	d := NewRainDistribution(c.MTmm, c.TK)
	return d.P0AnnualPct, nil
}
