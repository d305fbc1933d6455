package p1411

import (
	"fmt"
	"math"

	"linkplan/appliance"
)

// The site-specific street-canyon models of ITU-R P.1411 Annex 1 §4.1.2
// (line of sight, UHF) and §4.1.3 (non-line of sight around one corner).
// Both use λ = c/f with c = 2.998e8 m/s, as the Recommendation does.

const c1411 = 2.998e8 // m/s

// CanyonLoS holds the §4.1.2 UHF line-of-sight losses, dB.
type CanyonLoS struct {
	MedianDB, LowerDB, UpperDB float64
	BreakpointM                float64 // R_bp = 4·h1·h2/λ, metres
}

// StreetCanyonLoS returns the basic transmission loss of §4.1.2 for UHF
// (300 MHz–3 GHz) line of sight in a street canyon, distM metres apart,
// antenna heights h1M and h2M (metres above the street):
//
//	R_bp = 4·h1·h2/λ,  L_bp = |20·log10(λ²/(8π·h1·h2))|
//	lower  = L_bp + 20·log10(d/R_bp) (d ≤ R_bp) or 40·log10(d/R_bp)
//	upper  = L_bp + 20 + 25·log10(d/R_bp) (d ≤ R_bp) or 40·log10(d/R_bp)
//	median = L_bp + 6 + 20·log10(d/R_bp) (d ≤ R_bp) or 40·log10(d/R_bp)
//
// Lower and upper are the bounds the Recommendation states for the loss.
func StreetCanyonLoS(freqMHz, distM, h1M, h2M float64) (CanyonLoS, error) {
	v := &appliance.ValidationError{}
	positive(v, "frequency_mhz", freqMHz)
	positive(v, "distance_m", distM)
	positive(v, "h1_m", h1M)
	positive(v, "h2_m", h2M)
	if err := v.Err(); err != nil {
		return CanyonLoS{}, fmt.Errorf("p1411 street canyon los: %w", err)
	}
	lambda := c1411 / (freqMHz * 1e6)
	rbp := 4 * h1M * h2M / lambda
	lbp := math.Abs(20 * math.Log10(lambda*lambda/(8*math.Pi*h1M*h2M)))
	x := math.Log10(distM / rbp)
	out := CanyonLoS{BreakpointM: rbp}
	if distM <= rbp {
		out.LowerDB, out.UpperDB, out.MedianDB = lbp+20*x, lbp+20+25*x, lbp+6+20*x
	} else {
		out.LowerDB, out.UpperDB, out.MedianDB = lbp+40*x, lbp+20+40*x, lbp+6+40*x
	}
	return out, nil
}

// CanyonNLoS holds the §4.1.3.2 non-line-of-sight losses around one
// corner, dB: L_LoS(x1) + L_c + L_att with L_LoS the §4.1.2 median, and
// the same sum with the §4.1.2 lower and upper bounds.
type CanyonNLoS struct {
	MedianDB, LowerDB, UpperDB float64
	CornerDB, AttDB            float64 // L_c and L_att, dB
}

// StreetCanyonNLoSCorner returns the §4.1.3.2 loss (2–38 GHz; the UHF
// line-of-sight model below 3 GHz) for station 1 in the main street x1M
// metres before the crossing and station 2 in the side street x2M metres
// past it, main street width w1M, urban corner (L_corner = 20 dB,
// β = 6, d_corner = 30 m):
//
//	L_c   = L_corner·log10(x2 − w1/2)/log10(1 + d_corner)  in the corner region
//	      = L_corner                                        beyond it
//	L_att = 10·β·log10((x1 + x2)/(x1 + w1/2 + d_corner))   beyond the corner region
//
// (the corner region is w1/2 + 1 < x2 ≤ w1/2 + 1 + d_corner; nearer, the
// station is in line of sight).
func StreetCanyonNLoSCorner(freqMHz, x1M, x2M, w1M, h1M, h2M float64) (CanyonNLoS, error) {
	const lCorner, beta, dCorner = 20.0, 6.0, 30.0
	los, err := StreetCanyonLoS(freqMHz, x1M, h1M, h2M)
	if err != nil {
		return CanyonNLoS{}, fmt.Errorf("p1411 street canyon nlos: %w", err)
	}
	if !(w1M > 0) || !(x2M >= 0) {
		return CanyonNLoS{}, fmt.Errorf("p1411 street canyon nlos: %w", appliance.Invalid("w1_m", "street width and x2 must be positive"))
	}
	var out CanyonNLoS
	switch {
	case x2M > w1M/2+1+dCorner:
		out.CornerDB = lCorner
		out.AttDB = 10 * beta * math.Log10((x1M+x2M)/(x1M+w1M/2+dCorner))
	case x2M > w1M/2+1:
		out.CornerDB = lCorner / math.Log10(1+dCorner) * math.Log10(x2M-w1M/2)
	}
	add := out.CornerDB + out.AttDB
	out.MedianDB, out.LowerDB, out.UpperDB = los.MedianDB+add, los.LowerDB+add, los.UpperDB+add
	return out, nil
}
