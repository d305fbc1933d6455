package itm

import (
	"math"
	"math/cmplx"
)

const (
	earthRadiusM    = 6370e3 // actual earth radius a_0, metres
	earthCurvature  = 157e-9 // actual earth curvature γ_a, 1/m
	varRadiusM      = 9000e3 // reference radius for the variability effective distance, metres
	third           = 1.0 / 3.0
	waveNumberDenom = 47.7 // k = f/47.7 (1/m) with f in MHz
)

// ground holds the refractivity-derived and electrical parameters.
type ground struct {
	ns     float64    // surface refractivity N_s, N-units
	gammaE float64    // effective earth curvature, 1/m
	zg     complex128 // surface transfer impedance
}

// newGround computes N_s from N_0 and h_sys, the effective earth curvature
// and the ground impedance (InitializePointToPoint).
func newGround(f, hSys, n0 float64, pol int, eps, sigma float64) ground {
	var g ground
	g.ns = SurfaceRefractivity(n0, hSys)
	g.gammaE = earthCurvature * (1 - 0.04665*expF(g.ns/179.3))
	epr := complex(eps, 18000*sigma/f)
	g.zg = cmplx.Sqrt(epr - 1)
	if pol == PolVertical {
		g.zg /= epr
	}
	return g
}

// refResult is the outcome of the Longley-Rice reference attenuation.
type refResult struct {
	aRef float64 // reference attenuation, dB
	mode PropMode
	// dx is the diffraction/troposcatter crossover distance d_x, metres,
	// and aDiffDx the diffraction line's value there, dB; both 0 in
	// line-of-sight mode (where they are not computed).
	dx, aDiffDx float64
}

// longleyRice computes the reference attenuation A_ref (dB, relative to
// free space) for the path parameters pp (LongleyRice). p2pMode selects the
// point-to-point clutter constant. It adds warnings to *w.
func longleyRice(pp *pathParams, f float64, g ground, h [2]float64, p2pMode bool, w *Warning) (refResult, error) {
	ae := 1 / g.gammaE
	var dHznS [2]float64
	for i := range 2 {
		dHznS[i] = math.Sqrt(2 * pp.he[i] * ae)
	}
	dSML := dHznS[0] + dHznS[1]    // smooth-earth line-of-sight distance
	dML := pp.dHzn[0] + pp.dHzn[1] // line-of-sight distance of the path
	thetaLOS := -max(pp.theta[0]+pp.theta[1], -dML/ae)

	if math.Abs(pp.theta[0]) > 200e-3 {
		*w |= WarnTxHorizonAngle
	}
	if math.Abs(pp.theta[1]) > 200e-3 {
		*w |= WarnRxHorizonAngle
	}
	if pp.dHzn[0] < 0.1*dHznS[0] {
		*w |= WarnTxHorizonNear
	}
	if pp.dHzn[1] < 0.1*dHznS[1] {
		*w |= WarnRxHorizonNear
	}
	if pp.dHzn[0] > 3*dHznS[0] {
		*w |= WarnTxHorizonFar
	}
	if pp.dHzn[1] > 3*dHznS[1] {
		*w |= WarnRxHorizonFar
	}

	switch {
	case g.ns < 150:
		return refResult{}, &ModelError{Code: CodeSurfaceRefractivitySmall,
			Reason: "surface refractivity N_s below 150 N-units (profile too high for N_0)"}
	case g.ns > 400:
		return refResult{}, &ModelError{Code: CodeSurfaceRefractivityLarge,
			Reason: "surface refractivity N_s above 400 N-units"}
	case g.ns < 250:
		*w |= WarnLowSurfaceRefractivity
	}
	if ae < 4000000 || ae > 13333333 {
		return refResult{}, &ModelError{Code: CodeEffectiveEarth,
			Reason: "effective earth radius outside 4000-13333 km"}
	}
	if real(g.zg) <= math.Abs(imag(g.zg)) {
		return refResult{}, &ModelError{Code: CodeGroundImpedance,
			Reason: "ground impedance has an imaginary part not smaller than its real part (check epsilon and sigma)"}
	}

	dp := diffParams{dHzn: pp.dHzn, he: pp.he, zg: g.zg, ae: ae, deltaH: pp.deltaH, h: h,
		p2p: p2pMode, thetaLOS: thetaLOS, dSML: dSML, f: f}
	dp.prepare()

	// two distances far in the diffraction region fix the diffraction line
	scale := cbrtF(ae * ae / f)
	d3 := max(dSML, dML+5*scale)
	d4 := d3 + 10*scale
	a3 := dp.loss(d3)
	a4 := dp.loss(d4)
	md := (a4 - a3) / (d4 - d3)
	ad0 := a3 - md*d3

	d := pp.d
	if d < math.Abs(pp.he[0]-pp.he[1])/200e-3 {
		*w |= WarnPathShortForHeights
	}
	if d < 1e3 {
		*w |= WarnPathShort
	}
	if d > 1000e3 {
		*w |= WarnPathLong
	}
	if d > 2000e3 {
		*w |= WarnPathVeryLong
	}

	var r refResult
	if d < dSML {
		r.aRef = losRef(d, pp, dp, md, ad0, dML)
		r.mode = ModeLineOfSight
	} else {
		// two distances far in the troposcatter region fix the scatter line
		d5 := dML + 200e3
		d6 := dML + 400e3
		h0 := -1.0
		a6 := troposcatterLoss(d6, pp, ae, g.ns, f, thetaLOS, &h0)
		a5 := troposcatterLoss(d5, pp, ae, g.ns, f, thetaLOS, &h0)
		var ms, as0, dx float64
		if a5 < 1000 {
			ms = (a6 - a5) / 200e3
			dx = max(max(dSML, dML+1.088*scale*logF(f)), (a5-ad0-ms*d5)/(md-ms))
			as0 = (md-ms)*dx + ad0
		} else {
			// no usable troposcatter value: keep the diffraction line
			ms, as0, dx = md, ad0, 10e6
		}
		r.dx, r.aDiffDx = dx, md*dx+ad0
		if d > dx {
			r.aRef = ms*d + as0
			r.mode = ModeTroposcatter
		} else {
			r.aRef = md*d + ad0
			r.mode = ModeDiffraction
		}
	}
	r.aRef = max(r.aRef, 0)
	return r, nil
}

// losRef is the reference attenuation within the smooth-earth line of
// sight: a fit a_o + k1·d + k2·ln d through two-ray values and the
// extended diffraction line.
func losRef(d float64, pp *pathParams, dp diffParams, md, ad0, dML float64) float64 {
	dSML := dp.dSML
	f := dp.f
	aSML := dSML*md + ad0

	d0 := 0.04 * f * pp.he[0] * pp.he[1]
	var d1 float64
	if ad0 >= 0 {
		d0 = min(d0, 0.5*dML)
		d1 = d0 + 0.25*(dML-d0)
	} else {
		d1 = max(-ad0/md, 0.25*dML)
	}
	a1 := losLoss(d1, pp.he, dp.zg, pp.deltaH, md, ad0, dSML, f)

	flag := false
	k1, k2 := 0.0, 0.0
	if d0 < d1 {
		a0 := losLoss(d0, pp.he, dp.zg, pp.deltaH, md, ad0, dSML, f)
		q := logF(dSML / d0)
		k2 = max(0, ((dSML-d0)*(a1-a0)-(d1-d0)*(aSML-a0))/
			((dSML-d0)*logF(d1/d0)-(d1-d0)*q))
		flag = ad0 > 0 || k2 > 0
		if flag {
			k1 = (aSML - a0 - k2*q) / (dSML - d0)
			if k1 < 0 {
				k1 = 0
				k2 = fdim(aSML, a0) / q
				if k2 == 0 {
					k1 = md
				}
			}
		}
	}
	if !flag {
		k1 = fdim(aSML, a1) / (dSML - d1)
		k2 = 0
		if k1 == 0 {
			k1 = md
		}
	}
	ao := aSML - k1*dSML - k2*logF(dSML)
	return ao + k1*d + k2*logF(d)
}

// losLoss is the two-ray line-of-sight attenuation blended with the
// extended diffraction line (LineOfSightLoss), dB.
func losLoss(d float64, he [2]float64, zg complex128, deltaH, md, ad0, dSML, f float64) float64 {
	sigmaH := sigmaHFn(terrainRoughness(d, deltaH))
	wn := f / waveNumberDenom
	hs := he[0] + he[1]
	sinPsi := hs / math.Sqrt(d*d+hs*hs)
	sp := complex(sinPsi, 0)
	re := (sp - zg) / (sp + zg) * complex(expF(-min(10, wn*sigmaH*sinPsi)), 0)
	q := real(re)*real(re) + imag(re)*imag(re)
	if q < 0.25 || q < sinPsi {
		re *= complex(math.Sqrt(sinPsi/q), 0)
	}
	dPhi := wn * 2 * he[0] * he[1] / d
	if dPhi > math.Pi/2 {
		dPhi = math.Pi - (math.Pi/2)*(math.Pi/2)/dPhi
	}
	rr := complex(math.Cos(dPhi), -math.Sin(dPhi)) + re
	at := -10 * log10F(real(rr)*real(rr)+imag(rr)*imag(rr))
	ad := md*d + ad0
	wt := 1 / (1 + f*deltaH/max(10e3, dSML))
	return wt*at + (1-wt)*ad
}

// diffParams carries what the diffraction loss needs besides the distance.
type diffParams struct {
	dHzn, he, h    [2]float64
	zg             complex128
	ae, deltaH     float64
	p2p            bool
	thetaLOS, dSML float64
	f              float64

	// derived once by prepare
	afo float64          // clutter factor, dB
	se  smoothEarthFixed // smooth-earth parts fixed for the path
}

func (p *diffParams) prepare() {
	sigmaH := sigmaHFn(terrainRoughness(p.dSML, p.deltaH))
	p.afo = min(15, 5*log10F(1+1e-5*p.h[0]*p.h[1]*p.f*sigmaH))
	p.se = newSmoothEarthFixed(p.f, p.dHzn, p.he, p.zg)
}

// loss is the diffraction attenuation at distance d (DiffractionLoss): a
// weighted mean of knife-edge and smooth-earth diffraction plus clutter, dB.
func (p *diffParams) loss(d float64) float64 {
	ak := knifeEdge(d, p.f, p.ae, p.thetaLOS, p.dHzn)
	ase := smoothEarth(d, p.ae, p.thetaLOS, &p.se)

	deltaHd := terrainRoughness(d, p.deltaH)
	q := p.h[0] * p.h[1]
	qk := p.he[0]*p.he[1] - q
	if p.p2p {
		q += 10
	}
	term1 := math.Sqrt(1 + qk/q)
	dML := p.dHzn[0] + p.dHzn[1]
	q = (term1 + (-p.thetaLOS*p.ae+dML)/d) * min(deltaHd*p.f/waveNumberDenom, 6283.2)
	w := 25.1 / (25.1 + math.Sqrt(q))
	return w*ase + (1-w)*ak + p.afo
}

// knifeEdge is the double knife-edge diffraction loss, dB.
func knifeEdge(d, f, ae, thetaLOS float64, dHzn [2]float64) float64 {
	dML := dHzn[0] + dHzn[1]
	thetaNLOS := d/ae - thetaLOS
	dNLOS := d - dML
	c := 0.0795775 * (f / waveNumberDenom) * thetaNLOS * thetaNLOS
	v1 := c * dHzn[0] * dNLOS / (dNLOS + dHzn[0])
	v2 := c * dHzn[1] * dNLOS / (dNLOS + dHzn[1])
	return fresnelLoss(v1) + fresnelLoss(v2)
}

// fresnelLoss approximates the ideal knife-edge loss from v², dB.
func fresnelLoss(v2 float64) float64 {
	if v2 < 5.76 {
		return 6.02 + 9.11*math.Sqrt(v2) - 1.27*v2
	}
	return 12.953 + 10*log10F(v2)
}

// smoothEarth is Vogler's three-radii smooth-earth diffraction loss, dB,
// at distance d; se holds its parts that do not depend on d.
func smoothEarth(d, ae, thetaLOS float64, se *smoothEarthFixed) float64 {
	thetaNLOS := d/ae - thetaLOS
	a0 := (d - se.dML) / (d/ae - thetaLOS)
	dKm0 := a0 * thetaNLOS / 1000
	c0 := cbrtF((4.0 / 3.0) * earthRadiusM / a0)
	k0 := 0.017778 * c0 * se.fMinusThird / se.absZg
	x0 := (1.607-k0)*c0*c0*se.fThird*dKm0 + se.x12
	g := 0.05751*x0 - 10*log10F(x0)
	return g - se.f12 - 20
}

// smoothEarthFixed is the part of smoothEarth that depends on the path
// (horizon distances, effective heights) and the frequency but not on
// the distance: the two terminal radii's height gains.
type smoothEarthFixed struct {
	dML                        float64 // dHzn[0] + dHzn[1], metres
	absZg, fThird, fMinusThird float64
	x12                        float64 // x[1] + x[2]
	f12                        float64 // F(x[1], K[1]) + F(x[2], K[2]), dB
}

func newSmoothEarthFixed(f float64, dHzn, he [2]float64, zg complex128) smoothEarthFixed {
	se := smoothEarthFixed{dML: dHzn[0] + dHzn[1], absZg: cmplx.Abs(zg), fThird: cbrtF(f)}
	se.fMinusThird = 1 / se.fThird
	var x, fx [2]float64
	for i := range 2 {
		a := 0.5 * dHzn[i] * dHzn[i] / he[i]
		c := cbrtF((4.0 / 3.0) * earthRadiusM / a)
		k := 0.017778 * c * se.fMinusThird / se.absZg
		x[i] = (1.607 - k) * c * c * se.fThird * (dHzn[i] / 1000)
		fx[i] = heightGain(x[i], k)
	}
	se.x12 = x[0] + x[1]
	se.f12 = fx[0] + fx[1]
	return se
}

// heightGain is Vogler's height-gain function F(x, K), dB.
func heightGain(x, k float64) float64 {
	if x < 200 {
		w := -logF(k)
		if k < 1e-5 || x*w*w*w > 5495 {
			r := -117.0
			if x > 1 {
				r += 17.372 * logF(x)
			}
			return r
		}
		return 2.5e-5*x*x/k - 8.686*w - 15
	}
	r := 0.05751*x - 4.343*logF(x)
	if x < 2000 {
		w := 0.0134 * x * expF(-0.005*x)
		r = (1-w)*r + w*(17.372*logF(x)-117)
	}
	return r
}

// terrainRoughness is Δh(d), the irregularity seen over a distance d.
func terrainRoughness(d, deltaH float64) float64 {
	return deltaH * (1 - 0.8*expF(-d/50e3))
}

// sigmaHFn is the rms deviation of the terrain within the first Fresnel
// zone, metres, from Δh(d).
func sigmaHFn(deltaHd float64) float64 {
	return 0.78 * deltaHd * expF(-0.5*math.Sqrt(math.Sqrt(deltaHd)))
}

// troposcatterLoss is the troposcatter attenuation at distance d, dB; it
// returns 1001 where the scatter function is undefined. *h0 carries the
// frequency-gain value H_0 between the two calls (negative on the first).
func troposcatterLoss(d float64, pp *pathParams, ae, ns, f, thetaLOS float64, h0 *float64) float64 {
	wn := f / waveNumberDenom
	var hz float64
	if *h0 > 15 {
		hz = *h0
	} else {
		ad := pp.dHzn[0] - pp.dHzn[1]
		rr := pp.he[1] / pp.he[0]
		if ad < 0 {
			ad = -ad
			rr = 1 / rr
		}
		theta := pp.theta[0] + pp.theta[1] + d/ae
		r1 := 2 * wn * theta * pp.he[0]
		r2 := 2 * wn * theta * pp.he[1]
		if r1 < 0.2 && r2 < 0.2 {
			return 1001
		}
		s := (d - ad) / (d + ad)
		q := min(max(0.1, rr/s), 10)
		s = max(0.1, s)
		hc := (d - ad) * (d + ad) * theta * 0.25 / d // crossover height, metres
		const z0, z1 = 1.7556e3, 8.0e3
		e := min(1.7, hc/z1)
		e *= e * e
		etaS := (hc / z0) * (1 + (0.031-ns*2.32e-3+ns*ns*5.67e-6)*expF(-e*e))
		h00 := (h0Fn(r1, etaS) + h0Fn(r2, etaS)) / 2
		dh0 := min(h00, 6*(0.6-log10F(max(etaS, 1)))*log10F(s)*log10F(q))
		hz = max(h00+dh0, 0)
		if etaS < 1 {
			t := (1 + math.Sqrt2/r1) * (1 + math.Sqrt2/r2)
			hz = etaS*hz + (1-etaS)*10*log10F(t*t*(r1+r2)/(r1+r2+2*math.Sqrt2))
		}
		if hz > 15 && *h0 >= 0 {
			hz = *h0
		}
	}
	*h0 = hz
	th := d/ae - thetaLOS
	const d0, hScale = 40e3, 47.7
	th2 := th * th
	return fFn(th*d) + 10*log10F(wn*hScale*th2*th2) - 0.1*(ns-301)*expF(-th*d/d0) + hz
}

// fFn is the attenuation function F(θ·d), dB.
func fFn(td float64) float64 {
	switch {
	case td <= 10e3:
		return 133.4 + 0.332e-3*td - 10*log10F(td)
	case td <= 70e3:
		return 104.6 + 0.212e-3*td - 2.5*log10F(td)
	}
	return 71.8 + 0.157e-3*td + 5*log10F(td)
}

// h0Fn is the troposcatter frequency-gain function H_0(r, η_s), dB.
func h0Fn(r, etaS float64) float64 {
	etaS = min(max(etaS, 1), 5)
	i := int(etaS)
	q := etaS - float64(i)
	res := h0Curve(i-1, r)
	if q != 0 {
		res = (1-q)*res + q*h0Curve(i, r)
	}
	return res
}

// h0Curve is one of the five H_0 curves (j = 0..4), dB.
func h0Curve(j int, r float64) float64 {
	a := [5]float64{25, 80, 177, 395, 705}
	b := [5]float64{24, 45, 68, 80, 105}
	ir := 1 / r
	ir2 := ir * ir
	return 10 * log10F(1+a[j]*ir2*ir2+b[j]*ir2)
}

// freeSpaceLoss is the free-space basic transmission loss, dB, for d in
// metres and f in MHz.
func freeSpaceLoss(d, f float64) float64 {
	return 32.45 + 20*log10F(f) + 20*log10F(d/1000)
}
