package p1411

import "fmt"

// BelowRooftopEnv is an environment of §4.1.1 (Table 4), the site-general
// model for propagation within street canyons where both stations are below
// rooftop height, whatever their antenna heights.
type BelowRooftopEnv int

// Environments of Table 4 of §4.1.1. The zero value is not an environment.
const (
	// BelowLoS: line of sight in urban high-rise, urban low-rise or suburban
	// streets. 0.8–82 GHz, 5–660 m.
	BelowLoS BelowRooftopEnv = iota + 1
	// BelowNLoSUrbanHighRise: non-line of sight, urban high-rise.
	// 0.8–82 GHz, 30–715 m.
	BelowNLoSUrbanHighRise
	// BelowNLoSUrbanLowRiseSuburban: non-line of sight, urban low-rise or
	// suburban. 10–73 GHz, 30–250 m.
	BelowNLoSUrbanLowRiseSuburban
	// BelowNLoSResidential: non-line of sight, residential. 0.8–73 GHz,
	// 30–170 m.
	BelowNLoSResidential
)

// AboveRooftopEnv is an environment of §4.2.1 (Table 8), the site-general
// model where one station is above rooftop and the other below it.
type AboveRooftopEnv int

// Environments of Table 8 of §4.2.1. The zero value is not an environment.
const (
	// AboveLoS: line of sight in urban high-rise, urban low-rise or suburban
	// areas. 2.2–73 GHz, 55–1200 m.
	AboveLoS AboveRooftopEnv = iota + 1
	// AboveNLoSUrbanHighRise: non-line of sight, urban high-rise.
	// 2.2–66.5 GHz, 260–1200 m.
	AboveNLoSUrbanHighRise
)

// LowHeightEnv is an environment of §4.3.1, the site-general model for
// terminals near street level (antenna heights about 1.9–3 m).
type LowHeightEnv int

// Environments of §4.3.1 with their NLoS clutter term L_urban (eq. 61).
// The zero value is not an environment.
const (
	// LowSuburban: L_urban = 0 dB.
	LowSuburban LowHeightEnv = iota + 1
	// LowUrban: L_urban = 6.8 dB.
	LowUrban
	// LowDenseUrban: dense urban or high-rise, L_urban = 2.3 dB.
	LowDenseUrban
)

// Range is the domain a model's coefficients were fitted on. A prediction
// outside it is still computed but carries a warning.
type Range struct {
	MinFreqMHz, MaxFreqMHz float64 // frequency range, MHz, inclusive
	MinDistM, MaxDistM     float64 // 3-D distance range, metres, inclusive
}

// coeffs are the fitted constants of eq. (1) of §4.1.1 / §4.2.1:
// L = 10·α·log10(d/m) + β + 10·γ·log10(f/GHz), with σ the standard deviation
// of the zero-mean Gaussian variation.
type coeffs struct {
	alpha, beta, gamma float64 // dimensionless, dB, dimensionless
	sigmaDB            float64 // dB
	rng                Range
}

func (e BelowRooftopEnv) coeffs() (coeffs, bool) {
	switch e {
	case BelowLoS:
		return coeffs{2.12, 29.2, 2.11, 5.06, Range{800, 82000, 5, 660}}, true
	case BelowNLoSUrbanHighRise:
		return coeffs{4.00, 10.2, 2.36, 7.60, Range{800, 82000, 30, 715}}, true
	case BelowNLoSUrbanLowRiseSuburban:
		return coeffs{5.06, -4.68, 2.02, 9.33, Range{10000, 73000, 30, 250}}, true
	case BelowNLoSResidential:
		return coeffs{3.01, 18.8, 2.07, 3.07, Range{800, 73000, 30, 170}}, true
	}
	return coeffs{}, false
}

func (e AboveRooftopEnv) coeffs() (coeffs, bool) {
	switch e {
	case AboveLoS:
		return coeffs{2.29, 28.6, 1.96, 3.48, Range{2200, 73000, 55, 1200}}, true
	case AboveNLoSUrbanHighRise:
		return coeffs{4.39, -6.27, 2.30, 6.89, Range{2200, 66500, 260, 1200}}, true
	}
	return coeffs{}, false
}

// lowHeightRange is the §4.3.1 domain: 300–3000 MHz; distances up to 3 km
// (the LoS/NLoS transition distance of eq. 64 reaches 2.1 km at p = 0.1 %).
func lowHeightRange() Range { return Range{300, 3000, 0, 3000} }

func (e LowHeightEnv) urbanDB() (float64, bool) {
	switch e {
	case LowSuburban:
		return 0, true
	case LowUrban:
		return 6.8, true
	case LowDenseUrban:
		return 2.3, true
	}
	return 0, false
}

// Range returns the frequency and distance domain of Table 4 for e; the zero
// Range for an unknown environment.
func (e BelowRooftopEnv) Range() Range { c, _ := e.coeffs(); return c.rng }

// SigmaDB returns σ of Table 4, the standard deviation in dB of the location
// variation about the median that BelowRooftop returns (0 when unknown).
func (e BelowRooftopEnv) SigmaDB() float64 { c, _ := e.coeffs(); return c.sigmaDB }

// Range returns the frequency and distance domain of Table 8 for e; the zero
// Range for an unknown environment.
func (e AboveRooftopEnv) Range() Range { c, _ := e.coeffs(); return c.rng }

// SigmaDB returns σ of Table 8, the standard deviation in dB of the location
// variation about the median that AboveRooftop returns (0 when unknown).
func (e AboveRooftopEnv) SigmaDB() float64 { c, _ := e.coeffs(); return c.sigmaDB }

// Range returns the frequency and distance domain of §4.3.1 (the same for
// every LowHeightEnv).
func (e LowHeightEnv) Range() Range { return lowHeightRange() }

func (e BelowRooftopEnv) String() string {
	switch e {
	case BelowLoS:
		return "below-rooftop LoS"
	case BelowNLoSUrbanHighRise:
		return "below-rooftop NLoS urban high-rise"
	case BelowNLoSUrbanLowRiseSuburban:
		return "below-rooftop NLoS urban low-rise/suburban"
	case BelowNLoSResidential:
		return "below-rooftop NLoS residential"
	}
	return fmt.Sprintf("BelowRooftopEnv(%d)", int(e))
}

func (e AboveRooftopEnv) String() string {
	switch e {
	case AboveLoS:
		return "above-rooftop LoS"
	case AboveNLoSUrbanHighRise:
		return "above-rooftop NLoS urban high-rise"
	}
	return fmt.Sprintf("AboveRooftopEnv(%d)", int(e))
}

func (e LowHeightEnv) String() string {
	switch e {
	case LowSuburban:
		return "low-height suburban"
	case LowUrban:
		return "low-height urban"
	case LowDenseUrban:
		return "low-height dense urban"
	}
	return fmt.Sprintf("LowHeightEnv(%d)", int(e))
}
