package p1411

import (
	"fmt"
	"math"

	"linkplan/appliance"
)

// DefaultTransitionWidthM is the typical width w of the LoS/NLoS transition
// region of §4.3.1, metres.
const DefaultTransitionWidthM = 20.0

// lowHeightSigmaDB is σ of the §4.3.1 location variation (eqs. 59, 62), dB.
const lowHeightSigmaDB = 7.0

// freeSpaceDB is 20·log10(4πd/λ) with c = 299 792 458 m/s, the free-space
// loss the reference uses as a floor below the minimum distance.
func freeSpaceDB(freqMHz, distM float64) float64 {
	return 20 * math.Log10(4*math.Pi*distM*freqMHz*1e6/299792458)
}

// BelowRooftop returns the median basic transmission loss in dB of §4.1.1
// (eq. 1 with Table 4), for a frequency in MHz and the 3-D distance between
// the two stations in metres:
//
//	L = 10·α·log10(d/m) + β + 10·γ·log10(f/GHz)
//
// Below the environment's minimum distance the loss is not allowed to fall
// below free space (WarnFreeSpaceFloor). Inputs outside Table 4's ranges give
// the formula's value with WarnFrequency or WarnDistance. A NaN, infinite,
// zero or negative input, or an unknown environment, is an error wrapping
// appliance.ErrInvalid (*appliance.ValidationError).
func BelowRooftop(env BelowRooftopEnv, freqMHz, distM float64) (lossDB float64, warn Warning, err error) {
	c, ok := env.coeffs()
	if err := validate(ok, freqMHz, distM); err != nil {
		return math.NaN(), 0, fmt.Errorf("p1411 below rooftop: %w", err)
	}
	lossDB, warn = siteGeneral(c, freqMHz, distM)
	return lossDB, warn, nil
}

// AboveRooftop returns the median basic transmission loss in dB of §4.2.1
// (eq. 1 with Table 8), where one station is above rooftop and the other
// below, for a frequency in MHz and the 3-D distance in metres. Warnings and
// errors are as for BelowRooftop.
func AboveRooftop(env AboveRooftopEnv, freqMHz, distM float64) (lossDB float64, warn Warning, err error) {
	c, ok := env.coeffs()
	if err := validate(ok, freqMHz, distM); err != nil {
		return math.NaN(), 0, fmt.Errorf("p1411 above rooftop: %w", err)
	}
	lossDB, warn = siteGeneral(c, freqMHz, distM)
	return lossDB, warn, nil
}

// siteGeneral evaluates eq. (1) with the free-space floor below the minimum
// distance and collects the range warnings.
func siteGeneral(c coeffs, freqMHz, distM float64) (float64, Warning) {
	l := 10*c.alpha*math.Log10(distM) + c.beta + 10*c.gamma*math.Log10(freqMHz/1000)
	warn := rangeWarnings(c.rng, freqMHz, distM)
	if distM < c.rng.MinDistM {
		if fs := freeSpaceDB(freqMHz, distM); fs > l {
			l = fs
			warn |= WarnFreeSpaceFloor
		}
	}
	if l < 0 {
		warn |= WarnNegativeLoss
	}
	return l, warn
}

// LowHeight returns the basic transmission loss in dB not exceeded at
// locationPct percent of locations, §4.3.1, between two terminals near street
// level (antenna heights about 1.9–3 m), for a frequency in MHz, the distance
// in metres, 0 < locationPct < 100, and the width of the LoS/NLoS transition
// region transitionWidthM in metres (DefaultTransitionWidthM typically):
//
//	L_LoS  = 32.45 + 20·log10(f/MHz) + 20·log10(d/km) + 1.5624·σ·(√(−2·ln(1−p/100)) − 1.1774)
//	L_NLoS = 9.5 + 45·log10(f/MHz) + 40·log10(d/km) + L_urban + σ·N⁻¹(p/100)
//	d_LoS  = 212·log10²(p/100) − 64·log10(p/100) for p < 45, else 79.2 − 70·p/100
//
// with σ = 7 dB: L_LoS for d < d_LoS, L_NLoS for d > d_LoS + w and, between
// them, the linear interpolation from L_LoS(d_LoS) to L_NLoS(d_LoS + w).
// N⁻¹ is the exact inverse of the standard normal distribution.
func LowHeight(env LowHeightEnv, freqMHz, distM, locationPct, transitionWidthM float64) (lossDB float64, warn Warning, err error) {
	lurban, ok := env.urbanDB()
	if !ok || !finitePositive(freqMHz) || !finitePositive(distM) || !finitePositive(transitionWidthM) ||
		!(locationPct > 0 && locationPct < 100) {
		var v appliance.ValidationError
		if !ok {
			v.Add("environment", "unknown low-height environment %d", int(env))
		}
		positive(&v, "freq_mhz", freqMHz)
		positive(&v, "dist_m", distM)
		positive(&v, "transition_width_m", transitionWidthM)
		if !(locationPct > 0 && locationPct < 100) {
			v.Add("location_pct", "must be in (0, 100) %%, got %g", locationPct)
		}
		return math.NaN(), 0, fmt.Errorf("p1411 low height: %w", &v)
	}

	p := locationPct / 100
	var dLoS float64 // eq. (64), metres
	if locationPct < 45 {
		lp := math.Log10(p)
		dLoS = 212*lp*lp - 64*lp
	} else {
		dLoS = 79.2 - 70*p
	}
	w := transitionWidthM
	lf := math.Log10(freqMHz)
	switch {
	case distM < dLoS:
		lossDB = lowLoS(lf, distM, p)
	case distM > dLoS+w:
		lossDB = lowNLoS(lf, distM, p, lurban)
	default: // eq. (65)
		l0 := lowLoS(lf, dLoS, p)
		lossDB = l0 + (lowNLoS(lf, dLoS+w, p, lurban)-l0)*(distM-dLoS)/w
	}
	warn = rangeWarnings(lowHeightRange(), freqMHz, distM)
	if lossDB < 0 {
		warn |= WarnNegativeLoss
	}
	return lossDB, warn, nil
}

// lowLoS is L_LoS of eqs. (58)–(60), dB, for log10(f/MHz), d in metres and
// the location fraction p = p%/100.
func lowLoS(logFMHz, distM, p float64) float64 {
	return 32.45 + 20*logFMHz + 20*math.Log10(distM/1000) +
		1.5624*lowHeightSigmaDB*(math.Sqrt(-2*math.Log1p(-p))-1.1774)
}

// lowNLoS is L_NLoS of eqs. (61)–(63), dB.
func lowNLoS(logFMHz, distM, p, lurbanDB float64) float64 {
	return 9.5 + 45*logFMHz + 40*math.Log10(distM/1000) + lurbanDB + lowHeightSigmaDB*normInv(p)
}

// validate checks the inputs shared by §4.1.1 and §4.2.1.
// It allocates only when it reports an error.
func validate(envOK bool, freqMHz, distM float64) error {
	if envOK && finitePositive(freqMHz) && finitePositive(distM) {
		return nil
	}
	var v appliance.ValidationError
	if !envOK {
		v.Add("environment", "unknown environment")
	}
	positive(&v, "freq_mhz", freqMHz)
	positive(&v, "dist_m", distM)
	return &v
}

// finitePositive reports whether x is a finite number > 0.
func finitePositive(x float64) bool { return x > 0 && !math.IsInf(x, 1) }

// positive records field as invalid unless x is finite and > 0.
func positive(v *appliance.ValidationError, field string, x float64) {
	if !finitePositive(x) {
		v.Add(field, "must be a finite number > 0, got %g", x)
	}
}

func rangeWarnings(r Range, freqMHz, distM float64) Warning {
	var w Warning
	if freqMHz < r.MinFreqMHz || freqMHz > r.MaxFreqMHz {
		w |= WarnFrequency
	}
	if distM < r.MinDistM || distM > r.MaxDistM {
		w |= WarnDistance
	}
	return w
}

// normInv returns the inverse of the standard normal cumulative distribution
// at probability q, 0 < q < 1.
func normInv(q float64) float64 {
	return -math.Sqrt2 * math.Erfcinv(2*q)
}
