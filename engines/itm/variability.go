package itm

import "math"

// climateCurves holds, for one radio climate, the curve-fit constants of
// the all-year median V_med, of the time-variability spreads σ_T− and σ_T+
// and their frequency factors, and of the ducting tail (C_D, z_D).
type climateCurves struct {
	med                          [5]float64 // c1, c2, x1, x2, x3 of V_med(d_e), dB
	sm, sp                       [5]float64 // same for σ_T− and σ_T+, dB
	fm1, fm2, fm3, fp1, fp2, fp3 float64    // frequency factors g−(f), g+(f)
	cD, zD                       float64
}

// curves returns the constants of climate 1..7 (TN101 Fig. 10.13 fits as
// used by NTIA ITM v1.4).
func curves(climate int) climateCurves {
	switch climate {
	case ClimateEquatorial:
		return climateCurves{
			med: [5]float64{-9.67, 12.7, 144.9e3, 190.3e3, 133.8e3},
			sm:  [5]float64{2.13, 159.5, 762.2e3, 123.6e3, 94.5e3},
			sp:  [5]float64{2.11, 102.3, 636.9e3, 134.8e3, 95.6e3},
			fm1: 1, fp1: 1, cD: 1.224, zD: 1.282,
		}
	case ClimateContinentalSubtropical:
		return climateCurves{
			med: [5]float64{-0.62, 9.19, 228.9e3, 205.2e3, 143.6e3},
			sm:  [5]float64{2.66, 7.67, 100.4e3, 172.5e3, 136.4e3},
			sp:  [5]float64{6.87, 15.53, 138.7e3, 143.7e3, 98.6e3},
			fm1: 1, fp1: 0.93, fp2: 0.31, fp3: 2.00, cD: 0.801, zD: 2.161,
		}
	case ClimateMaritimeSubtropical:
		return climateCurves{
			med: [5]float64{1.26, 15.5, 262.6e3, 185.2e3, 99.8e3},
			sm:  [5]float64{6.11, 6.65, 138.2e3, 242.2e3, 178.6e3},
			sp:  [5]float64{10.08, 9.60, 165.3e3, 225.7e3, 129.7e3},
			fm1: 1, fp1: 1, cD: 1.380, zD: 1.282,
		}
	case ClimateDesert:
		return climateCurves{
			med: [5]float64{-9.21, 9.05, 84.1e3, 101.1e3, 98.6e3},
			sm:  [5]float64{1.98, 13.11, 139.1e3, 132.7e3, 193.5e3},
			sp:  [5]float64{3.68, 159.3, 464.4e3, 93.1e3, 94.2e3},
			fm1: 1, fp1: 0.93, fp2: 0.19, fp3: 1.79, cD: 1.000, zD: 20.0,
		}
	case ClimateContinentalTemperate:
		return climateCurves{
			med: [5]float64{-0.62, 9.19, 228.9e3, 205.2e3, 143.6e3},
			sm:  [5]float64{2.68, 7.16, 93.7e3, 186.8e3, 133.5e3},
			sp:  [5]float64{4.75, 8.12, 93.2e3, 135.9e3, 113.4e3},
			fm1: 0.92, fm2: 0.25, fm3: 1.77, fp1: 0.93, fp2: 0.31, fp3: 2.00, cD: 1.224, zD: 1.282,
		}
	case ClimateMaritimeTemperateOverLand:
		return climateCurves{
			med: [5]float64{-0.39, 2.86, 141.7e3, 315.9e3, 167.4e3},
			sm:  [5]float64{6.86, 10.38, 187.8e3, 169.6e3, 108.9e3},
			sp:  [5]float64{8.58, 13.97, 216.0e3, 152.0e3, 122.7e3},
			fm1: 1, fp1: 1, cD: 1.518, zD: 1.282,
		}
	default: // ClimateMaritimeTemperateOverSea
		return climateCurves{
			med: [5]float64{3.15, 857.9, 2222.e3, 164.8e3, 116.3e3},
			sm:  [5]float64{8.51, 169.8, 609.8e3, 119.9e3, 106.6e3},
			sp:  [5]float64{8.43, 8.19, 136.2e3, 188.5e3, 122.9e3},
			fm1: 1, fp1: 1, cD: 1.518, zD: 1.282,
		}
	}
}

// curve evaluates (c1 + c2/(1+((d−x2)/x3)²))·(d/x1)²/(1+(d/x1)²).
func curve(c [5]float64, de float64) float64 {
	a := (de - c[3]) / c[4]
	b := de / c[2]
	b *= b
	return (c[0] + c[1]/(1+a*a)) * b / (1 + b)
}

// invQ is the inverse of the complementary standard normal distribution,
// Q⁻¹(q) for 0 < q < 1 (Abramowitz & Stegun 26.2.23, |error| < 4.5e-4).
func invQ(q float64) float64 {
	x := q
	if q > 0.5 {
		x = 1 - x
	}
	t := math.Sqrt(-2 * logF(x))
	z := t - ((0.010328*t+0.802853)*t+2.515516)/(((0.001308*t+0.189269)*t+1.432788)*t+1)
	if q > 0.5 {
		z = -z
	}
	return z
}

// variability returns the attenuation relative to free space (dB) at the
// requested time, location and situation percentages, from the reference
// attenuation aRef (Variability). It adds warnings to *w.
func variability(timePct, locPct, sitPct float64, he [2]float64, deltaH, f, d, aRef float64,
	climate, mdvar int, w *Warning) float64 {
	vc := newVarConsts(timePct, locPct, sitPct, f)
	return vc.variability(he, deltaH, d, aRef, climate, mdvar, w)
}

// varConsts are the parts of variability that depend only on the
// percentages and the frequency: a sweep computes them once.
type varConsts struct {
	zT, zL, zS float64 // standard normal deviates of the percentages
	wn         float64 // wave number, 1/m
	dexFreq    float64 // the frequency term of the effective distance, metres
	q          float64 // ln(0.133·wn)
}

func newVarConsts(timePct, locPct, sitPct, f float64) varConsts {
	wn := f / waveNumberDenom
	return varConsts{zT: invQ(timePct / 100), zL: invQ(locPct / 100), zS: invQ(sitPct / 100),
		wn: wn, dexFreq: math.Pow(575.7e12/wn, third), q: logF(0.133 * wn)}
}

func (vc *varConsts) variability(he [2]float64, deltaH, d, aRef float64, climate, mdvar int, w *Warning) float64 {
	zT, zL, zS := vc.zT, vc.zL, vc.zS
	c := curves(climate)
	wn := vc.wn

	// effective distance
	dex := math.Sqrt(2*varRadiusM*he[0]) + math.Sqrt(2*varRadiusM*he[1]) + vc.dexFreq
	var de float64
	if d < dex {
		de = 130e3 * d / dex
	} else {
		de = 130e3 + d - dex
	}

	mode := mdvar
	noSituation := mode >= 20
	if noSituation {
		mode -= 20
	}
	sigmaS := 0.0
	if !noSituation {
		sigmaS = 5 + 3*expF(-de/100e3)
	}
	noLocation := mode >= 10
	if noLocation {
		mode -= 10
	}

	vMed := curve(c.med, de)

	switch mode {
	case MdVarSingleMessage:
		zT, zL = zS, zS
	case MdVarAccidental:
		zL = zS
	case MdVarMobile:
		zL = zT
	}
	if math.Abs(zT) > 3.10 || math.Abs(zL) > 3.10 || math.Abs(zS) > 3.10 {
		*w |= WarnExtremeVariability
	}

	sigmaL := 0.0
	if !noLocation {
		dhd := terrainRoughness(d, deltaH)
		sigmaL = 10 * wn * dhd / (wn*dhd + 13)
	}
	yL := sigmaL * zL

	q := vc.q
	gm := c.fm1 + c.fm2/((c.fm3*q)*(c.fm3*q)+1)
	gp := c.fp1 + c.fp2/((c.fp3*q)*(c.fp3*q)+1)
	sigmaTm := curve(c.sm, de) * gm
	sigmaTp := curve(c.sp, de) * gp
	sigmaTD := c.cD * sigmaTp
	tgtd := (sigmaTp - sigmaTD) * c.zD
	var sigmaT float64
	switch {
	case zT < 0:
		sigmaT = sigmaTm
	case zT <= c.zD:
		sigmaT = sigmaTp
	default:
		sigmaT = sigmaTD + tgtd/zT
	}
	yT := sigmaT * zT

	zS2 := zS * zS
	ysTemp := sigmaS*sigmaS + yT*yT/(7.8+zS2) + yL*yL/(24+zS2)
	var yR, yS float64
	switch mode {
	case MdVarSingleMessage:
		yR = 0
		yS = math.Sqrt(sigmaT*sigmaT+sigmaL*sigmaL+ysTemp) * zS
	case MdVarAccidental:
		yR = yT
		yS = math.Sqrt(sigmaL*sigmaL+ysTemp) * zS
	case MdVarMobile:
		yR = math.Sqrt(sigmaT*sigmaT+sigmaL*sigmaL) * zT
		yS = math.Sqrt(ysTemp) * zS
	default: // broadcast
		yR = yT + yL
		yS = math.Sqrt(ysTemp) * zS
	}

	r := aRef - vMed - yR - yS
	if r < 0 {
		r = r * (29 - r) / (29 - 10*r)
	}
	return r
}
