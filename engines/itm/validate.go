package itm

import (
	"fmt"
	"math"

	"linkplan/appliance"
)

// Input limits of NTIA ITM v1.4 (ValidateInputs); outside them the reference
// returns an error code and so does this package.
const (
	minHeightM  = 0.5   // smallest structural antenna height, metres
	maxHeightM  = 3000  // largest structural antenna height, metres
	minFreqMHz  = 20    // lowest frequency, MHz
	maxFreqMHz  = 20000 // highest frequency, MHz
	minN0       = 250   // smallest N_0, N-units
	maxN0       = 400   // largest N_0, N-units
	minEpsilon  = 1     // smallest relative permittivity
	minProfileN = 2     // fewest profile intervals (3 points)
)

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// validateCommon checks the inputs shared by both modes and records every bad
// one in v.
func validateCommon(v *appliance.ValidationError, hTx, hRx float64, climate int, n0, f float64, pol int,
	eps, sigma float64, mdvar int) {
	checkRange(v, "h_tx_m", hTx, minHeightM, maxHeightM, "metres")
	checkRange(v, "h_rx_m", hRx, minHeightM, maxHeightM, "metres")
	if climate < ClimateEquatorial || climate > ClimateMaritimeTemperateOverSea {
		v.Add("climate", "radio climate %d is not one of 1..7", climate)
	}
	checkRange(v, "n_0", n0, minN0, maxN0, "N-units")
	checkRange(v, "f_mhz", f, minFreqMHz, maxFreqMHz, "MHz")
	if pol != PolHorizontal && pol != PolVertical {
		v.Add("pol", "polarisation %d is not 0 (horizontal) or 1 (vertical)", pol)
	}
	switch {
	case !finite(eps):
		v.Add("epsilon", "relative permittivity %v is not a finite number", eps)
	case eps < minEpsilon:
		v.Add("epsilon", "relative permittivity %g is below 1", eps)
	}
	switch {
	case !finite(sigma):
		v.Add("sigma_s_m", "conductivity %v is not a finite number", sigma)
	case sigma <= 0:
		v.Add("sigma_s_m", "conductivity %g S/m is not positive", sigma)
	}
	if base := mdvar % 10; mdvar < 0 || mdvar > 33 || base > 3 {
		v.Add("mdvar", "mode of variability %d is not 0..3 plus 0, 10, 20 or 30", mdvar)
	}
}

func checkRange(v *appliance.ValidationError, field string, x, lo, hi float64, unit string) {
	switch {
	case !finite(x):
		v.Add(field, "%v is not a finite number", x)
	case x < lo || x > hi:
		v.Add(field, "%g %s is outside %g..%g", x, unit, lo, hi)
	}
}

// checkPct requires 0 < p < 100.
func checkPct(v *appliance.ValidationError, field string, p float64) {
	if !(p > 0 && p < 100) { // also catches NaN
		v.Add(field, "percentage %v is not strictly between 0 and 100", p)
	}
}

// validatePFL checks the PFL layout: np ≥ 2 whole intervals, positive finite
// spacing, np+1 finite elevations and nothing else.
func validatePFL(v *appliance.ValidationError, pfl []float64) {
	if len(pfl) < minProfileN+3 {
		v.Add("pfl", "profile holds %d values; at least %d (np, xi and 3 elevations) are needed", len(pfl), minProfileN+3)
		return
	}
	np, xi := pfl[0], pfl[1]
	switch {
	case !finite(np) || np != math.Trunc(np) || np < minProfileN:
		v.Add("pfl", "interval count np = %v is not a whole number ≥ %d", np, minProfileN)
		return
	case np+3 != float64(len(pfl)):
		v.Add("pfl", "np = %v intervals needs %v values (np, xi, np+1 elevations), got %d", np, np+3, len(pfl))
		return
	}
	if !finite(xi) || xi <= 0 {
		v.Add("pfl", "spacing xi = %v m is not a positive finite number", xi)
	}
	// z·0 is 0 for finite z and NaN for NaN or ±Inf: one branch for the lot
	nonFinite := 0.0
	for _, z := range pfl[2:] {
		nonFinite += z * 0
	}
	if nonFinite != 0 { // NaN != 0 too
		for i, z := range pfl[2:] {
			if !finite(z) {
				v.Add("pfl", "elevation %d is %v, not a finite number", i, z)
				return
			}
		}
	}
}

func validateArea(v *appliance.ValidationError, in AreaInput) {
	validateCommon(v, in.HTxM, in.HRxM, in.ClimateCode, in.N0, in.FreqMHz, in.Pol, in.Epsilon, in.SigmaSm, in.MdVar)
	switch {
	case !finite(in.DistKm):
		v.Add("d_km", "%v is not a finite number", in.DistKm)
	case in.DistKm <= 0:
		v.Add("d_km", "path length %g km is not positive", in.DistKm)
	}
	switch {
	case !finite(in.DeltaHM):
		v.Add("delta_h_m", "%v is not a finite number", in.DeltaHM)
	case in.DeltaHM < 0:
		v.Add("delta_h_m", "terrain irregularity %g m is negative", in.DeltaHM)
	}
	if in.TxSiting < SitingRandom || in.TxSiting > SitingVeryCareful {
		v.Add("tx_siting", "siting criteria %d is not 0, 1 or 2", in.TxSiting)
	}
	if in.RxSiting < SitingRandom || in.RxSiting > SitingVeryCareful {
		v.Add("rx_siting", "siting criteria %d is not 0, 1 or 2", in.RxSiting)
	}
}

// inputWarnings returns the warnings ValidateInputs raises for values that
// are allowed but near the limits.
func inputWarnings(hTx, hRx, f float64) Warning {
	var w Warning
	if hTx < 1 || hTx > 1000 {
		w |= WarnTxHeight
	}
	if hRx < 1 || hRx > 1000 {
		w |= WarnRxHeight
	}
	if f < 40 || f > 10000 {
		w |= WarnFrequency
	}
	return w
}

// ModelError is a hard failure found during the computation (as opposed to
// a bad input field): a derived quantity fell outside the range the model is
// defined for. It matches appliance.ErrOutsideEnvelope with errors.Is.
type ModelError struct {
	// Code is the NTIA v1.4 error code (1013, 1016, 1021 or 1022), or
	// CodeNonFinite.
	Code int
	// Reason says in words what went out of range.
	Reason string
}

// NTIA v1.4 error codes that ModelError carries.
const (
	CodeGroundImpedance          = 1013 // Im(Z_g) not smaller than Re(Z_g)
	CodeEffectiveEarth           = 1016 // effective earth radius outside 4000–13333 km
	CodeSurfaceRefractivitySmall = 1021 // N_s below 150 N-units
	CodeSurfaceRefractivityLarge = 1022 // N_s above 400 N-units
	// CodeNonFinite has no NTIA counterpart: the computation gave NaN or
	// ±Inf, which happens only for physically absurd input (for example
	// kilometres of relief over a few hundred metres of path).
	CodeNonFinite = -1
)

// checkFinite turns a non-finite result into a ModelError.
func checkFinite(res Result) error {
	im := res.Intermediate
	for _, v := range [...]float64{res.LossDB, im.ARefDB, im.FreeSpaceLossDB, im.DeltaHM, im.HEffM[0], im.HEffM[1],
		im.DHznM[0], im.DHznM[1], im.ThetaHznRad[0], im.ThetaHznRad[1]} {
		if !finite(v) {
			return &ModelError{Code: CodeNonFinite, Reason: "the computation gave a non-finite value; check the profile and heights"}
		}
	}
	return nil
}

// Error returns "itm error <code>: <reason>".
func (e *ModelError) Error() string {
	return fmt.Sprintf("itm error %d: %s", e.Code, e.Reason)
}

// Is reports that a ModelError is an appliance.ErrOutsideEnvelope.
func (e *ModelError) Is(target error) bool { return target == appliance.ErrOutsideEnvelope }
