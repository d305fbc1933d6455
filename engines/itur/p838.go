package itur

import (
	"fmt"
	"math"

	"linkplan/appliance"
)

// P.838-3 Tables 1–4: coefficients of eqs. (2) and (3).
type p838Fit struct {
	a, b, c []float64
	m, k    float64 // m_k, c_k (Tables 1, 2) or m_α, c_α (Tables 3, 4)
}

var (
	p838kH = p838Fit{
		a: []float64{-5.33980, -0.35351, -0.23789, -0.94158},
		b: []float64{-0.10008, 1.26970, 0.86036, 0.64552},
		c: []float64{1.13098, 0.45400, 0.15354, 0.16817},
		m: -0.18961, k: 0.71147,
	}
	p838kV = p838Fit{
		a: []float64{-3.80595, -3.44965, -0.39902, 0.50167},
		b: []float64{0.56934, -0.22911, 0.73042, 1.07319},
		c: []float64{0.81061, 0.51059, 0.11899, 0.27195},
		m: -0.16398, k: 0.63297,
	}
	p838aH = p838Fit{
		a: []float64{-0.14318, 0.29591, 0.32177, -5.37610, 16.1721},
		b: []float64{1.82442, 0.77564, 0.63773, -0.96230, -3.29980},
		c: []float64{-0.55187, 0.19822, 0.13164, 1.47828, 3.43990},
		m: 0.67849, k: -1.95537,
	}
	p838aV = p838Fit{
		a: []float64{-0.07771, 0.56727, -0.20238, -48.2991, 48.5833},
		b: []float64{2.33840, 0.95545, 1.14520, 0.791669, 0.791459},
		c: []float64{-0.76284, 0.54039, 0.26809, 0.116226, 0.116479},
		m: -0.053739, k: 0.83433,
	}
)

func (t *p838Fit) eval(lf float64) float64 {
	s := t.m*lf + t.k
	for j := range t.a {
		x := (lf - t.b[j]) / t.c[j]
		s += t.a[j] * math.Exp(-x*x)
	}
	return s
}

// RainCoefficients returns the P.838-3 power-law coefficients k and α of
// γ_R = k·R^α (eq. 1) at frequency fGHz (1…1000 GHz), path elevation elDeg
// (degrees) and polarisation tilt tauDeg relative to the horizontal (0 = H,
// 90 = V, 45 = circular): k_H, k_V by eq. (2), α_H, α_V by eq. (3), and the
// combination for any tilt and elevation by eqs. (4) and (5).
func RainCoefficients(fGHz, elDeg, tauDeg float64) (k, alpha float64, err error) {
	if !(fGHz >= 1 && fGHz <= 1000) {
		return 0, 0, fmt.Errorf("P.838-3 coefficients at %v GHz: valid from 1 to 1000 GHz: %w", fGHz, appliance.ErrOutsideEnvelope)
	}
	if math.IsNaN(elDeg) || math.IsNaN(tauDeg) || math.Abs(elDeg) > 90 {
		return 0, 0, fmt.Errorf("P.838-3 coefficients: elevation %v° and tilt %v°: %w", elDeg, tauDeg, appliance.ErrInvalid)
	}
	lf := math.Log10(fGHz)
	kH := math.Pow(10, p838kH.eval(lf))
	kV := math.Pow(10, p838kV.eval(lf))
	aH := p838aH.eval(lf)
	aV := p838aV.eval(lf)
	ce := math.Cos(elDeg * math.Pi / 180)
	c := ce * ce * math.Cos(2*tauDeg*math.Pi/180)
	k = (kH + kV + (kH-kV)*c) / 2
	alpha = (kH*aH + kV*aV + (kH*aH-kV*aV)*c) / (2 * k)
	return k, alpha, nil
}

// SpecificAttenuationDBPerKm is γ_R = k·R^α, dB/km (P.838-3 eq. 1), for a rain
// rate rMMH (mm/h, ≥ 0).
func SpecificAttenuationDBPerKm(rMMH, fGHz, elDeg, tauDeg float64) (float64, error) {
	if !(rMMH >= 0) {
		return 0, fmt.Errorf("P.838-3: rain rate %v mm/h: must be ≥ 0: %w", rMMH, appliance.ErrInvalid)
	}
	k, a, err := RainCoefficients(fGHz, elDeg, tauDeg)
	if err != nil {
		return 0, err
	}
	return k * math.Pow(rMMH, a), nil
}
