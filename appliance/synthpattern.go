package appliance

import (
	"math"
	"sort"
)

// Patterns synthesised from a few data-sheet figures, for catalogue
// antennas entered without a pattern file and for the built-in generic
// examples. Each samples a closed-form reference pattern: 1° steps, and
// steps of a twentieth of the beamwidth (at least 0.05°) within five
// beamwidths of the main lobe.

// sampleCut samples f (attenuation, dB, of an angle in [0, 360)) on the
// grid of the package comment: every whole degree, and steps of fineStep
// from each centre (degrees) out to halfDeg on both sides.
func sampleCut(f func(a float64) float64, fineStep, halfDeg float64, centres ...float64) PatternCut {
	fineStep = math.Min(1, math.Max(0.05, fineStep))
	set := map[float64]bool{}
	for a := 0; a < 360; a++ {
		set[float64(a)] = true
	}
	for _, c := range centres {
		for k := 0; float64(k)*fineStep <= halfDeg && k < 3600; k++ {
			for _, a := range []float64{c + float64(k)*fineStep, c - float64(k)*fineStep} {
				set[math.Round(wrap360(a)*1e6)/1e6] = true
			}
		}
	}
	var c PatternCut
	for a := range set {
		if a >= 360 {
			continue
		}
		c.AnglesDeg = append(c.AnglesDeg, a)
	}
	sort.Float64s(c.AnglesDeg)
	c.AttDB = make([]float64, len(c.AnglesDeg))
	for i, a := range c.AnglesDeg {
		c.AttDB[i] = Round(f(a), 3)
	}
	return c
}

// elevation returns the elevation below the horizon, degrees in
// (−180, 180], of a vertical-cut angle.
func elevation(a float64) float64 {
	if a > 180 {
		return a - 360
	}
	return a
}

// SectorPattern returns the 3GPP TR 36.814 sector pattern: horizontal
// min(12(φ/hbw)², fb), vertical (front half-plane) min(12((θ−tilt)/vbw)²,
// sla) around the electrical downtilt tiltDeg; the back half of the
// vertical cut is the front-to-back level fb (the composite of Radiator
// does not read it for a directional antenna). Widths in degrees, levels
// in dB.
func SectorPattern(hbw, vbw, fb, sla, tiltDeg float64) AntennaPattern {
	h := sampleCut(func(a float64) float64 {
		d := math.Abs(math.Mod(a+540, 360) - 180)
		return math.Min(12*(d/hbw)*(d/hbw), fb)
	}, hbw/20, 5*hbw, 0)
	v := sampleCut(func(a float64) float64 {
		if !frontHalf(a) {
			return fb
		}
		x := elevation(a) - tiltDeg
		return math.Min(12*(x/vbw)*(x/vbw), sla)
	}, vbw/20, 5*vbw, wrap360(tiltDeg))
	return AntennaPattern{H: h, V: v}
}

// OmniPattern returns an omnidirectional pattern: a flat horizontal cut
// and the vertical min(12((θ−tilt)/vbw)², sla) on both sides of the mast
// (the beam tilts down on both sides).
func OmniPattern(vbw, sla, tiltDeg float64) AntennaPattern {
	h := sampleCut(func(float64) float64 { return 0 }, 1, 0)
	v := sampleCut(func(a float64) float64 {
		th := elevation(a)
		if !frontHalf(a) {
			th = 180 - a // below the horizon on the back side
		}
		x := th - tiltDeg
		return math.Min(12*(x/vbw)*(x/vbw), sla)
	}, vbw/20, 5*vbw, wrap360(tiltDeg), 180-tiltDeg)
	return AntennaPattern{H: h, V: v}
}

// DishGainToDOverLambda returns D/λ of a parabolic antenna of peak gain
// gainDBi by ITU-R F.699-8 (20·log(D/λ) ≈ G_max − 7.7).
func DishGainToDOverLambda(gainDBi float64) float64 {
	return math.Pow(10, (gainDBi-7.7)/20)
}

// DishAttenuationDB returns the attenuation below the peak gain, dB, of
// the ITU-R F.699-8 reference pattern of a parabolic antenna of peak gain
// gainDBi at offBoresightDeg from its axis (0..180°): the main lobe
// G_max − 2.5·10⁻³·(D/λ·φ)², the first side lobe G1 = 2 + 15·log(D/λ),
// then 32 − 25·log φ (D/λ > 100; 52 − 10·log(D/λ) − 25·log φ below) and
// −10 dBi (10 − 10·log(D/λ) below 100) beyond 48°. It is an envelope of
// the side-lobe peaks, as F.699 intends: conservative off the axis.
func DishAttenuationDB(gainDBi, offBoresightDeg float64) float64 {
	dl := DishGainToDOverLambda(gainDBi)
	phi := math.Abs(offBoresightDeg)
	g1 := 2 + 15*math.Log10(dl)
	phim := 20 / dl * math.Sqrt(math.Max(0, gainDBi-g1))
	phir := 15.85 * math.Pow(dl, -0.6)
	big := dl > 100
	if !big {
		phir = 100 / dl
	}
	var g float64
	switch {
	case phi < phim:
		g = gainDBi - 2.5e-3*(dl*phi)*(dl*phi)
	case phi < math.Max(phim, phir):
		g = g1
	case phi < 48 && big:
		g = 32 - 25*math.Log10(phi)
	case phi < 48:
		g = 52 - 10*math.Log10(dl) - 25*math.Log10(phi)
	case big:
		g = -10
	default:
		g = 10 - 10*math.Log10(dl)
	}
	return math.Max(0, gainDBi-g)
}

// DishPattern returns the F.699-8 reference pattern of a parabolic
// antenna of peak gain gainDBi in both cuts (rotationally symmetric).
func DishPattern(gainDBi float64) AntennaPattern {
	hpbw := 69.3 / DishGainToDOverLambda(gainDBi) // 2·√(3/2.5·10⁻³)/(D/λ)
	f := func(a float64) float64 {
		return DishAttenuationDB(gainDBi, math.Abs(math.Mod(a+540, 360)-180))
	}
	c := sampleCut(f, hpbw/20, 5*hpbw, 0)
	return AntennaPattern{H: c, V: sampleCut(f, hpbw/20, 5*hpbw, 0)}
}
