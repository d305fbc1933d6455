package p1812

import "math"

// zoneAt returns the zone of point i, inland when zone is nil.
func zoneAt(zone []int, i int) int {
	if zone == nil {
		return ZoneInland
	}
	return zone[i]
}

func isLand(z int) bool   { return z == ZoneCoastal || z == ZoneInland }
func isInland(z int) bool { return z == ZoneInland }
func isSea(z int) bool    { return z == ZoneSea }

// sections calls fn with the length of every maximal run of consecutive
// points whose zone satisfies in, km. A run extends half a step beyond its
// first and last points unless they are the path ends.
func sections(d []float64, zone []int, in func(int) bool, fn func(km float64)) {
	n := len(d)
	for i := 0; i < n; {
		if !in(zoneAt(zone, i)) {
			i++
			continue
		}
		j := i
		for j+1 < n && in(zoneAt(zone, j+1)) {
			j++
		}
		length := d[j] - d[i]
		if j < n-1 {
			length += (d[j+1] - d[j]) / 2
		}
		if i > 0 {
			length += (d[i] - d[i-1]) / 2
		}
		fn(length)
		i = j + 1
	}
}

// longestSection returns the longest continuous section whose zones satisfy
// in, km (dtm for land, dlm for inland; §3.6).
func longestSection(d []float64, zone []int, in func(int) bool) float64 {
	var m float64
	sections(d, zone, in, func(km float64) { m = math.Max(m, km) })
	return m
}

// seaFraction returns ω, the fraction of the path over sea (Table 5).
func seaFraction(d []float64, zone []int) float64 {
	if zone == nil {
		return 0
	}
	var s float64
	sections(d, zone, isSea, func(km float64) { s += km })
	return s / d[len(d)-1]
}

// beta0 is Eqs. 2–5: the time percentage for which refractive index lapse
// rates exceeding 100 N-units/km are expected in the first 100 m of the
// atmosphere, %, for the path-centre latitude phi (degrees).
func beta0(phi, dtm, dlm float64) float64 {
	tau := 1 - math.Exp(-4.12e-4*math.Pow(dlm, 2.41))
	mu1 := math.Pow(math.Pow(10, -dtm/(16-6.6*tau))+math.Pow(10, -5*(0.496+0.354*tau)), 0.2)
	mu1 = math.Min(mu1, 1)
	a := math.Abs(phi)
	if a <= 70 {
		mu4 := math.Pow(mu1, -0.935+0.0176*a)
		return math.Pow(10, -0.015*a+1.67) * mu1 * mu4
	}
	mu4 := math.Pow(mu1, 0.3)
	return 4.17 * mu1 * mu4
}

// greatCirclePoint returns the point at dKm kilometres from (phiT, lamT)
// along the great circle towards (phiR, lamR), degrees (P.2001 Annex H,
// mean Earth radius 6371 km).
func greatCirclePoint(phiT, lamT, phiR, lamR, dKm float64) (phi, lam float64) {
	const rad = math.Pi / 180
	st, ct := math.Sincos(phiT * rad)
	sr, cr := math.Sincos(phiR * rad)
	sdl, cdl := math.Sincos((lamR - lamT) * rad)
	r := st*sr + ct*cr*cdl
	x1 := sr - r*st
	y1 := ct * cr * sdl
	var bearing float64
	if math.Abs(x1) >= 1e-9 || math.Abs(y1) >= 1e-9 {
		bearing = math.Atan2(y1, x1)
	}
	ang := dKm / EarthRadius
	sa, ca := math.Sincos(ang)
	sb, cb := math.Sincos(bearing)
	s := st*ca + ct*sa*cb
	s = math.Max(-1, math.Min(1, s))
	phi = math.Asin(s) / rad
	x2 := ca - s*st
	y2 := ct * sa * sb
	lam = lamT + math.Atan2(y2, x2)/rad
	if lam > 180 {
		lam -= 360
	} else if lam < -180 {
		lam += 360
	}
	return phi, lam
}

// analysePath fills the profile analysis of Attachment 1 §4–5: horizon
// angles and distances, angular distance, smooth-Earth heights for the
// diffraction and ducting models and the terrain roughness. Like the ITU-R
// reference implementation it uses the bare terrain heights (without
// clutter) for these quantities.
func analysePath(in *Input, res *Result, lam float64) {
	d, h := in.DKm, in.HMasl
	n := len(d)
	dtot := d[n-1]
	ae := res.AeKm
	hts, hrs := res.HtsM, res.HrsM

	res.HstRawM, res.HsrRawM = smoothSurface(d, h)
	res.HstdM, res.HsrdM = diffractionHeights(d, h, hts, hrs, res.HstRawM, res.HsrRawM)

	// Transmitter horizon, Eqs. 76–78.
	// atan is increasing, so the maximum is taken over its argument and
	// atan is evaluated once.
	xMax, lt := math.Inf(-1), 1
	for i := 1; i < n-1; i++ {
		x := (h[i]-hts)/(1000*d[i]) - d[i]/(2*ae)
		if x > xMax {
			xMax, lt = x, i
		}
	}
	thetaMax := 1000 * math.Atan(xMax)
	thetaTd := 1000 * math.Atan((hrs-hts)/(1000*dtot)-dtot/(2*ae))
	thetaRd := 1000 * math.Atan((hts-hrs)/(1000*dtot)-dtot/(2*ae))
	res.TransHorizon = thetaMax > thetaTd
	lr := lt
	if res.TransHorizon {
		res.ThetaTMrad = thetaMax
		res.DltKm = d[lt]
		// Receiver horizon, Eqs. 79–81 (last point of the maximum).
		xr := math.Inf(-1)
		for i := 1; i < n-1; i++ {
			dr := dtot - d[i]
			x := (h[i]-hrs)/(1000*dr) - dr/(2*ae)
			if x >= xr {
				xr, lr = x, i
			}
		}
		res.ThetaRMrad = 1000 * math.Atan(xr)
		res.DlrKm = dtot - d[lr]
	} else {
		res.ThetaTMrad = thetaTd
		res.ThetaRMrad = thetaRd
		// The Bullington point of the LoS path: the last point of largest ν.
		numax := math.Inf(-1)
		ce := 500 / ae
		for i := 1; i < n-1; i++ {
			di := d[i]
			dr := dtot - di
			nu := (h[i] + ce*di*dr - (hts*dr+hrs*di)/dtot) * math.Sqrt(0.002*dtot/(lam*di*dr))
			if nu >= numax {
				numax, lt = nu, i
			}
		}
		lr = lt
		res.DltKm = d[lt]
		res.DlrKm = dtot - d[lt]
	}
	res.ThetaMrad = 1e3*dtot/ae + res.ThetaTMrad + res.ThetaRMrad

	// Ducting/layer-reflection heights and roughness, §5.6.3.
	res.HstM = math.Min(res.HstRawM, h[0])
	res.HsrM = math.Min(res.HsrRawM, h[n-1])
	m := (res.HsrM - res.HstM) / dtot
	res.HteM = in.HtgM + h[0] - res.HstM
	res.HreM = in.HrgM + h[n-1] - res.HsrM
	a, b := lt, lr
	if a > b {
		a, b = b, a
	}
	hm := math.Inf(-1)
	for i := a; i <= b; i++ {
		hm = math.Max(hm, h[i]-(res.HstM+m*d[i]))
	}
	res.HmM = hm
}
