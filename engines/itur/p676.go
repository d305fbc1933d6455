package itur

import (
	"fmt"
	"math"

	"linkplan/appliance"
)

// Atmosphere is the state of the air along a terrestrial path for P.676.
// The approximation of GasSpecificAttenuation holds from sea level to 10 km.
type Atmosphere struct {
	// DryPressureHPa is the dry-air pressure p, hPa.
	DryPressureHPa float64
	// TemperatureK is the air temperature T, K.
	TemperatureK float64
	// WaterVapourGM3 is the water-vapour density ρ, g/m³.
	WaterVapourGM3 float64
}

// phi is the fitting function of the dry-air approximation,
// φ(rp, rt, a, b, c, d) = rp^a·rt^b·exp[c·(1 − rp) + d·(1 − rt)].
func phi(rp, rt, a, b, c, d float64) float64 {
	return math.Pow(rp, a) * math.Pow(rt, b) * math.Exp(c*(1-rp)+d*(1-rt))
}

// GasSpecificAttenuation returns the specific attenuations of dry air (γo)
// and water vapour (γw), dB/km, at fGHz (1…350 GHz), by the simplified
// closed-form algorithm of Recommendation ITU-R P.676 Annex 2 §1 as
// published up to P.676-10 (09/2013): curve fits to the line-by-line
// calculation of Annex 1, for 1–350 GHz and from sea level to an altitude of
// 10 km. (From P.676-11 on, Annex 2 obtains the specific attenuation from the
// Annex 1 line tables, which this package does not embed.) The
// Recommendation presents them as agreeing with the line-by-line
// calculation to within an average of roughly ±10–15 % away from the
// centres of the major absorption lines, the absolute difference being
// generally below 0.1 dB/km and reaching about 0.7 dB/km near 60 GHz; the
// differences measured against P.676-13 Annex 1 are in the package doc.
//
// With rp = (p + e)/1013 (total pressure, hPa; e = ρ·T/216.7, P.676 Annex 1
// eq. 4) and rt = 288/(273 + t) (t = T − 273.15, °C):
//
// dry air, in six frequency bands (f ≤ 54, 54–60, 60–62, 62–66, 66–120,
// 120–350 GHz): a Debye-like low-frequency term plus the wing of the 60 GHz
// complex below 54 GHz; inside the complex, interpolation of ln γ through
// the fitted values γ54, γ58, γ60, γ62, γ64, γ66 (linear between 60 and
// 62 GHz); above 66 GHz the wing of the complex, the 118.75 GHz line and
// the dry continuum, with the correction δ above 120 GHz;
//
// water vapour: the sum of the lines at 22.235, 183.31, 321.226, 325.153,
// 380, 448, 557, 752 and 1780 GHz with widths η1 = 0.955·rp·rt^0.68 +
// 0.006·ρ and η2 = 0.735·rp·rt^0.5 + 0.0353·rt^4·ρ, times f²·rt^2.5·ρ·1e-4.
//
// A frequency outside 1–350 GHz fails with appliance.ErrOutsideEnvelope, an
// atmosphere that is not physical with appliance.ErrInvalid.
func GasSpecificAttenuation(fGHz float64, a Atmosphere) (gammaO, gammaW float64, err error) {
	if !(fGHz >= 1 && fGHz <= 350) {
		return 0, 0, fmt.Errorf("P.676 Annex 2 at %v GHz: valid from 1 to 350 GHz: %w", fGHz, appliance.ErrOutsideEnvelope)
	}
	if !(a.DryPressureHPa > 0 && a.TemperatureK > 0 && a.WaterVapourGM3 >= 0) ||
		math.IsInf(a.DryPressureHPa, 0) || math.IsInf(a.TemperatureK, 0) || math.IsInf(a.WaterVapourGM3, 0) {
		return 0, 0, fmt.Errorf("P.676: atmosphere p = %v hPa, T = %v K, ρ = %v g/m³: %w", a.DryPressureHPa, a.TemperatureK, a.WaterVapourGM3, appliance.ErrInvalid)
	}
	f, T, rho := fGHz, a.TemperatureK, a.WaterVapourGM3
	e := rho * T / 216.7
	rp := (a.DryPressureHPa + e) / 1013
	rt := 288 / (273 + (T - 273.15))
	return annex2Dry(f, rp, rt), annex2Water(f, rp, rt, rho), nil
}

// annex2Dry is γo of the Annex 2 approximation, dB/km.
func annex2Dry(f, rp, rt float64) float64 {
	rp2 := rp * rp
	switch {
	case f <= 54:
		xi1 := phi(rp, rt, 0.0717, -1.8132, 0.0156, -1.6515)
		xi2 := phi(rp, rt, 0.5146, -4.6368, -0.1921, -5.7416)
		xi3 := phi(rp, rt, 0.3414, -6.5851, 0.2130, -8.5854)
		return (7.2*math.Pow(rt, 2.8)/(f*f+0.34*rp2*math.Pow(rt, 1.6)) +
			0.62*xi3/(math.Pow(54-f, 1.16*xi1)+0.83*xi2)) * f * f * rp2 * 1e-3
	case f <= 60:
		g54, g58, g60 := gamma54(rp, rt), gamma58(rp, rt), gamma60(rp, rt)
		return math.Exp(math.Log(g54)/24*(f-58)*(f-60) - math.Log(g58)/8*(f-54)*(f-60) + math.Log(g60)/12*(f-54)*(f-58))
	case f <= 62:
		g60, g62 := gamma60(rp, rt), gamma62(rp, rt)
		return g60 + (g62-g60)*(f-60)/2
	case f <= 66:
		g62, g64, g66 := gamma62(rp, rt), gamma64(rp, rt), gamma66(rp, rt)
		return math.Exp(math.Log(g62)/8*(f-64)*(f-66) - math.Log(g64)/4*(f-62)*(f-66) + math.Log(g66)/8*(f-62)*(f-64))
	case f <= 120:
		xi4 := phi(rp, rt, -0.0112, 0.0092, -0.1033, -0.0009)
		xi5 := phi(rp, rt, 0.2705, -2.7192, -0.3016, -4.1033)
		xi6 := phi(rp, rt, 0.2445, -5.9191, 0.0422, -8.0719)
		xi7 := phi(rp, rt, -0.1833, 6.5589, -0.2402, 6.131)
		return (3.02e-4*math.Pow(rt, 3.5) +
			0.283*math.Pow(rt, 3.8)/((f-118.75)*(f-118.75)+2.91*rp2*math.Pow(rt, 1.6)) +
			0.502*xi6*(1-0.0163*xi7*(f-66))/(math.Pow(f-66, 1.4346*xi4)+1.15*xi5)) * f * f * rp2 * 1e-3
	default:
		delta := -0.00306 * phi(rp, rt, 3.211, -14.94, 1.583, -16.37)
		return (3.02e-4/(1+1.9e-5*math.Pow(f, 1.5))+
			0.283*math.Pow(rt, 0.3)/((f-118.75)*(f-118.75)+2.91*rp2*math.Pow(rt, 1.6)))*f*f*rp2*math.Pow(rt, 3.5)*1e-3 + delta
	}
}

// The fitted dry-air attenuations inside the 60 GHz complex, dB/km.
func gamma54(rp, rt float64) float64 { return 2.192 * phi(rp, rt, 1.8286, -1.9487, 0.4051, -2.8509) }
func gamma58(rp, rt float64) float64 { return 12.59 * phi(rp, rt, 1.0045, 3.5610, 0.1588, 1.2834) }
func gamma60(rp, rt float64) float64 { return 15.0 * phi(rp, rt, 0.9003, 4.1335, 0.0427, 1.6088) }
func gamma62(rp, rt float64) float64 { return 14.28 * phi(rp, rt, 0.9886, 3.4176, 0.1827, 1.3429) }
func gamma64(rp, rt float64) float64 { return 6.819 * phi(rp, rt, 1.4320, 0.6258, 0.3177, -0.5914) }
func gamma66(rp, rt float64) float64 { return 1.908 * phi(rp, rt, 2.0717, -4.1404, 0.4910, -4.8718) }

// annex2Water is γw of the Annex 2 approximation, dB/km.
func annex2Water(f, rp, rt, rho float64) float64 {
	eta1 := 0.955*rp*math.Pow(rt, 0.68) + 0.006*rho
	eta2 := 0.735*rp*math.Pow(rt, 0.5) + 0.0353*math.Pow(rt, 4)*rho
	g := func(fi float64) float64 { x := (f - fi) / (f + fi); return 1 + x*x }
	sq := func(x float64) float64 { return x * x }
	s := 3.98*eta1*math.Exp(2.23*(1-rt))/(sq(f-22.235)+9.42*eta1*eta1)*g(22.0) +
		11.96*eta1*math.Exp(0.7*(1-rt))/(sq(f-183.31)+11.14*eta1*eta1) +
		0.081*eta1*math.Exp(6.44*(1-rt))/(sq(f-321.226)+6.29*eta1*eta1) +
		3.66*eta1*math.Exp(1.6*(1-rt))/(sq(f-325.153)+9.22*eta1*eta1) +
		25.37*eta1*math.Exp(1.09*(1-rt))/sq(f-380) +
		17.4*eta1*math.Exp(1.46*(1-rt))/sq(f-448) +
		844.6*eta1*math.Exp(0.17*(1-rt))/sq(f-557)*g(557) +
		290*eta1*math.Exp(0.41*(1-rt))/sq(f-752)*g(752) +
		8.3328e4*eta2*math.Exp(0.99*(1-rt))/sq(f-1780)*g(1780)
	return s * f * f * math.Pow(rt, 2.5) * rho * 1e-4
}

// DefaultAtmosphere is the air the product assumes along a path whose mean
// height is hKm above sea level at latitude latDeg, with annual mean surface
// temperature tSurfaceK (P.1510-1, from the maps):
//
//   - total pressure from the P.835-6 §1 mean annual global reference
//     atmosphere, P(h) = 1013.25·(288.15/(288.15 − 6.5·h′))^(−34.1632/6.5)
//     with the geopotential height h′ = 6356.766·h/(6356.766 + h) (h′ ≤ 11 km);
//   - temperature: the P.1510-1 annual mean surface temperature (the path
//     runs near the ground);
//   - water-vapour density from the P.835-6 reference atmospheres: the
//     low-latitude annual profile (|lat| < 22°), ρ(h) = 19.6542·exp(−0.2313h
//     − 0.1122h² + 0.01351h³ − 0.0005923h⁴), else the mean of the mid-latitude
//     summer (14.3542·exp(−0.4174h − 0.02290h² + 0.001007h³)) and winter
//     (3.4742·exp(−0.2697h − 0.03604h² + 0.0004489h³)) profiles;
//   - the dry pressure p = P − e, with e = ρ·T/216.7 (P.676 eq. 4).
func DefaultAtmosphere(latDeg, hKm, tSurfaceK float64) Atmosphere {
	if hKm < 0 {
		hKm = 0
	}
	if hKm > 10 {
		hKm = 10
	}
	hp := 6356.766 * hKm / (6356.766 + hKm)
	P := 1013.25 * math.Pow(288.15/(288.15-6.5*hp), -34.1632/6.5)
	var rho float64
	h := hKm
	if math.Abs(latDeg) < 22 {
		rho = 19.6542 * math.Exp(-0.2313*h-0.1122*h*h+0.01351*h*h*h-0.0005923*h*h*h*h)
	} else {
		summer := 14.3542 * math.Exp(-0.4174*h-0.02290*h*h+0.001007*h*h*h)
		winter := 3.4742 * math.Exp(-0.2697*h-0.03604*h*h+0.0004489*h*h*h)
		rho = (summer + winter) / 2
	}
	e := rho * tSurfaceK / 216.7
	return Atmosphere{DryPressureHPa: P - e, TemperatureK: tSurfaceK, WaterVapourGM3: rho}
}
