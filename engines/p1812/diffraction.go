package p1812

import "math"

// SpeedOfLightMps is the speed of light used by P.1812-8 (and P.2001), m/s.
// The ITU-R SG3 delta-Bullington spreadsheet uses 3e8 instead; the
// diffraction sub-API takes it as a parameter.
const SpeedOfLightMps = 2.998e8

// Polarization selects the polarization of the spherical-Earth diffraction
// term (Eq. 29). The values are the P.1812 ones.
type Polarization int

// Polarizations, with the P.1812 numbering.
const (
	Horizontal Polarization = 1
	Vertical   Polarization = 2
)

// KnifeEdgeJ returns the single knife-edge diffraction loss J(ν) of
// P.1812-8 Eq. 12 (the P.526 approximation), dB, for the dimensionless
// diffraction parameter ν. It is 0 for ν ≤ −0.78.
func KnifeEdgeJ(nu float64) float64 {
	if nu <= -0.78 {
		return 0
	}
	x := nu - 0.1
	return 6.9 + 20*math.Log10(math.Sqrt(x*x+1)+x)
}

// DiffractionInput is one path for the diffraction sub-models of
// P.1812-8 §4.3 (Bullington, spherical Earth, delta-Bullington) and for the
// Deygout option.
type DiffractionInput struct {
	// DKm holds the distance of each profile point from the transmitter, km,
	// starting at 0 and strictly increasing.
	DKm []float64
	// HM holds the profile heights, metres above mean sea level. In P.1812
	// these are the terrain heights with the representative clutter height
	// added at the intermediate points (gi of §3.2); only the intermediate
	// points are used.
	HM []float64
	// HtsM and HrsM are the transmitter and receiver antenna heights, metres
	// above mean sea level.
	HtsM, HrsM float64
	// HstdM and HsrdM are the smooth-surface heights at the transmitter and
	// receiver for the diffraction model (Attachment 1 §5.6.2), metres above
	// mean sea level. See DiffractionHeights.
	HstdM, HsrdM float64
	// FreqGHz is the frequency, GHz.
	FreqGHz float64
	// ApKm is the effective Earth radius, km.
	ApKm float64
	// Omega is the fraction of the path over sea, 0 to 1.
	Omega float64
	// Pol selects the polarization of the spherical-Earth term.
	Pol Polarization
	// CMps is the speed of light, m/s; 0 means SpeedOfLightMps.
	CMps float64
	// WavelengthConstants makes the spherical-Earth first term (Eqs. 29–32)
	// use the unrounded ITU-R P.526 forms K = (2π·a/λ)^(−1/3)·…,
	// X = β·(π/(λ·a²))^(1/3)·d and Y = 2β·(π²/(λ²·a))^(1/3)·h with
	// λ = CMps/f, as the ITU-R SG3 delta-Bullington spreadsheet does,
	// instead of P.1812's rounded 0.036, 21.88 and 0.9575. The two differ
	// by about 0.01 % in X and 0.02 % in Y (a few thousandths of a dB).
	WavelengthConstants bool
}

func (in *DiffractionInput) wavelengthM() float64 {
	c := in.CMps
	if c == 0 {
		c = SpeedOfLightMps
	}
	return c / (in.FreqGHz * 1e9)
}

// DeltaBullingtonResult holds the parts of the delta-Bullington loss
// (P.1812-8 §4.3.4), dB.
type DeltaBullingtonResult struct {
	LbullaDB float64 // Bullington loss of the actual profile, Eq. 21, dB
	LbullsDB float64 // Bullington loss of the smooth profile, Eq. 21 with hi = 0, dB
	LdsphDB  float64 // spherical-Earth loss for the modified heights, Eq. 27, dB
	LdDB     float64 // Ld = Lbulla + max(Ldsph − Lbulls, 0), Eq. 39, dB
}

// Bullington returns the Bullington diffraction loss of P.1812-8 §4.3.1
// (Eqs. 13–21) for the profile in.DKm/in.HM, the antenna heights in.HtsM and
// in.HrsM, the effective Earth radius in.ApKm and in.FreqGHz, dB. The other
// fields of in are not used.
func Bullington(in DiffractionInput) float64 {
	var r bullRadius
	r.init(in.ApKm)
	bullingtonScan(in.DKm, in.HM, nil, in.HtsM, in.HrsM, in.wavelengthM(), &r, nil)
	return r.loss(in.DKm[len(in.DKm)-1], in.HtsM, in.HrsM, in.wavelengthM())
}

// SphericalEarth returns the spherical-Earth diffraction loss Ldsph of
// P.1812-8 §4.3.2 (Eqs. 22–27), dB, for a path of dKm kilometres, effective
// antenna heights hteM and hreM (metres above the smooth surface), the
// effective Earth radius in.ApKm, in.FreqGHz, in.Omega, in.Pol and in.CMps.
// The profile fields of in are not used.
func SphericalEarth(dKm, hteM, hreM float64, in DiffractionInput) float64 {
	return sphericalEarth(dKm, hteM, hreM, in.ApKm, in.FreqGHz, in.Omega, in.wavelengthM(), in.Pol, in.WavelengthConstants)
}

// DeltaBullington returns the delta-Bullington diffraction loss of
// P.1812-8 §4.3.4 (Eqs. 37–39) with its parts, dB.
func DeltaBullington(in DiffractionInput) DeltaBullingtonResult {
	lam := in.wavelengthM()
	d := in.DKm
	dtot := d[len(d)-1]
	var ra, rs bullRadius
	ra.init(in.ApKm)
	rs.init(in.ApKm)
	hts1 := in.HtsM - in.HstdM
	hrs1 := in.HrsM - in.HsrdM
	bullingtonScan(d, in.HM, nil, in.HtsM, in.HrsM, lam, &ra, nil)
	bullingtonScan(d, nil, nil, hts1, hrs1, lam, &rs, nil)
	var out DeltaBullingtonResult
	out.LbullaDB = ra.loss(dtot, in.HtsM, in.HrsM, lam)
	out.LbullsDB = rs.loss(dtot, hts1, hrs1, lam)
	out.LdsphDB = sphericalEarth(dtot, hts1, hrs1, in.ApKm, in.FreqGHz, in.Omega, lam, in.Pol, in.WavelengthConstants)
	out.LdDB = out.LbullaDB + math.Max(out.LdsphDB-out.LbullsDB, 0)
	return out
}

// DiffractionHeights returns the smooth-surface heights hstd and hsrd at the
// transmitter and receiver for the diffraction model (P.1812-8 Attachment 1
// §5.6.1–5.6.2), metres above mean sea level, for the terrain profile
// dKm/hM (km, metres above mean sea level; the bare terrain, without
// clutter) and the antenna heights htsM and hrsM (metres above mean sea
// level). It needs at least three profile points.
func DiffractionHeights(dKm, hM []float64, htsM, hrsM float64) (hstdM, hsrdM float64) {
	hst, hsr := smoothSurface(dKm, hM)
	return diffractionHeights(dKm, hM, htsM, hrsM, hst, hsr)
}

// smoothSurface returns the least-squares smooth-Earth surface heights at the
// transmitter and receiver, Attachment 1 Eqs. 85–88 (P.1812-8 numbering of
// the reference logs), metres.
func smoothSurface(d, h []float64) (hst, hsr float64) {
	n := len(d)
	dtot := d[n-1]
	var v1, v2 float64
	for i := 1; i < n; i++ {
		dd := d[i] - d[i-1]
		v1 += dd * (h[i] + h[i-1])
		v2 += dd * (h[i]*(2*d[i]+d[i-1]) + h[i-1]*(d[i]+2*d[i-1]))
	}
	hst = (2*v1*dtot - v2) / (dtot * dtot)
	hsr = (v2 - v1*dtot) / (dtot * dtot)
	return hst, hsr
}

// diffractionHeights applies the obstruction correction of §5.6.2 to the
// smooth-surface heights hst and hsr.
func diffractionHeights(d, h []float64, hts, hrs, hst, hsr float64) (hstd, hsrd float64) {
	n := len(d)
	dtot := d[n-1]
	hobs := math.Inf(-1)
	aobt := math.Inf(-1)
	aobr := math.Inf(-1)
	for i := 1; i < n-1; i++ {
		hh := h[i] - (hts*(dtot-d[i])+hrs*d[i])/dtot
		if hh > hobs {
			hobs = hh
		}
		if a := hh / d[i]; a > aobt {
			aobt = a
		}
		if a := hh / (dtot - d[i]); a > aobr {
			aobr = a
		}
	}
	return obstructionHeights(hst, hsr, hobs, aobt, aobr, h[0], h[n-1])
}

// obstructionHeights is the end of §5.6.2: the smooth-surface heights hst
// and hsr lowered for the highest obstruction hobs (metres above the
// antennas' line) with its slopes aobt and aobr seen from the ends, and
// limited to the ground heights h0 and hn at the ends, metres.
func obstructionHeights(hst, hsr, hobs, aobt, aobr, h0, hn float64) (hstd, hsrd float64) {
	hstp, hsrp := hst, hsr
	if hobs > 0 {
		gt := aobt / (aobt + aobr)
		gr := aobr / (aobt + aobr)
		hstp = hst - hobs*gt
		hsrp = hsr - hobs*gr
	}
	hstd, hsrd = hstp, hsrp
	if hstp >= h0 {
		hstd = h0
	}
	if hsrp > hn {
		hsrd = hn
	}
	return hstd, hsrd
}

// bullRadius accumulates, for one effective Earth radius, the three maxima
// of the Bullington construction over the intermediate profile points.
type bullRadius struct {
	ce    float64 // 500/ap, m per km² (half the curvature in the units of Eq. 13)
	stim  float64 // Eq. 13, m/km
	srim  float64 // Eq. 17, m/km
	numax float64 // Eq. 15
}

func (r *bullRadius) init(apKm float64) {
	r.ce = 500 / apKm
	r.stim = math.Inf(-1)
	r.srim = math.Inf(-1)
	r.numax = math.Inf(-1)
}

// bullingtonScan runs the single pass over the intermediate points that the
// Bullington method needs, for one or two effective Earth radii at once
// (r2 may be nil). The point heights are h[i] + rr[i]; h nil means zero
// heights (the smooth path), rr nil means no clutter.
func bullingtonScan(d, h, rr []float64, hts, hrs, lam float64, r1, r2 *bullRadius) {
	n := len(d)
	dtot := d[n-1]
	k := 0.002 * dtot / lam
	for i := 1; i < n-1; i++ {
		di := d[i]
		dr := dtot - di
		var g float64
		if h != nil {
			g = h[i]
		}
		if rr != nil {
			g += rr[i]
		}
		x := di * dr
		line := (hts*dr + hrs*di) / dtot
		sq := math.Sqrt(k / x)
		b := r1.ce * x
		r1.update((g+b-hts)/di, (g+b-hrs)/dr, (g+b-line)*sq)
		if r2 != nil {
			b2 := r2.ce * x
			r2.update((g+b2-hts)/di, (g+b2-hrs)/dr, (g+b2-line)*sq)
		}
	}
}

// update folds one point's slopes and ν into the maxima. Plain comparisons
// (not math.Max) keep the hot loop cheap; the values are never NaN for a
// validated profile.
func (r *bullRadius) update(st, sr, nu float64) {
	if st > r.stim {
		r.stim = st
	}
	if sr > r.srim {
		r.srim = sr
	}
	if nu > r.numax {
		r.numax = nu
	}
}

// loss finishes the Bullington construction (Eqs. 14–21) from the maxima.
func (r *bullRadius) loss(dtot, hts, hrs, lam float64) float64 {
	str := (hrs - hts) / dtot
	var luc float64
	if r.stim < str {
		luc = KnifeEdgeJ(r.numax)
	} else {
		dbp := (hrs - hts + r.srim*dtot) / (r.stim + r.srim)
		nub := (hts + r.stim*dbp - (hts*(dtot-dbp)+hrs*dbp)/dtot) *
			math.Sqrt(0.002*dtot/(lam*dbp*(dtot-dbp)))
		luc = KnifeEdgeJ(nub)
	}
	return luc + (1-math.Exp(-luc/6))*(10+0.02*dtot)
}

// sphericalEarth is Eqs. 22–27 for one polarization.
// With exact the first term uses the unrounded P.526 constants.
func sphericalEarth(d, hte, hre, ap, f, omega, lam float64, pol Polarization, exact bool) float64 {
	dlos := math.Sqrt(2*ap) * (math.Sqrt(0.001*hte) + math.Sqrt(0.001*hre))
	if d >= dlos {
		return firstTerm(d, hte, hre, ap, f, omega, lam, pol, exact)
	}
	c := (hte - hre) / (hte + hre)
	m := 250 * d * d / (ap * (hte + hre))
	arg := 3 * c / 2 * math.Sqrt(3*m/((m+1)*(m+1)*(m+1)))
	arg = math.Max(-1, math.Min(1, arg))
	b := 2 * math.Sqrt((m+1)/(3*m)) * math.Cos(math.Pi/3+math.Acos(arg)/3)
	dse1 := d / 2 * (1 + b)
	dse2 := d - dse1
	hse := ((hte-500*dse1*dse1/ap)*dse2 + (hre-500*dse2*dse2/ap)*dse1) / d
	hreq := 17.456 * math.Sqrt(dse1*dse2*lam/d)
	if hse > hreq {
		return 0
	}
	sh := math.Sqrt(hte) + math.Sqrt(hre)
	aem := 500 * (d / sh) * (d / sh)
	ldft := math.Max(firstTerm(d, hte, hre, aem, f, omega, lam, pol, exact), 0)
	return (1 - hse/hreq) * ldft
}

// firstTerm is Eq. 28: the sea/land blend of the first-term loss.
func firstTerm(d, hte, hre, adft, f, omega, lam float64, pol Polarization, exact bool) float64 {
	land := firstTermInner(22, 0.003, d, hte, hre, adft, f, lam, pol, exact)
	sea := firstTermInner(80, 5, d, hte, hre, adft, f, lam, pol, exact)
	return omega*sea + (1-omega)*land
}

// firstTermInner is Eqs. 29–36 for one ground type.
func firstTermInner(epsr, sigma, d, hte, hre, adft, f, lam float64, pol Polarization, exact bool) float64 {
	s := 18 * sigma / f
	kc := 0.036 * math.Pow(adft*f, -1.0/3)
	xc := 21.88 * math.Cbrt(f/(adft*adft))
	yc := 0.9575 * math.Cbrt(f*f/adft)
	if exact {
		am := adft * 1e3 // m
		s = 60 * lam * sigma
		kc = math.Pow(2*math.Pi*am/lam, -1.0/3)
		xc = math.Cbrt(math.Pi/(lam*am*am)) * 1e3 // per km
		yc = 2 * math.Cbrt(math.Pi*math.Pi/(lam*lam*am))
	}
	k := kc * math.Pow((epsr-1)*(epsr-1)+s*s, -0.25)
	if pol == Vertical {
		k *= math.Sqrt(epsr*epsr + s*s)
	}
	k2 := k * k
	k4 := k2 * k2
	beta := (1 + 1.6*k2 + 0.67*k4) / (1 + 4.5*k2 + 1.53*k4)
	x := beta * xc * d
	yf := beta * yc
	yt := yf * hte
	yr := yf * hre
	var fx float64
	if x >= 1.6 {
		fx = 11 + 10*math.Log10(x) - 17.6*x
	} else {
		fx = -20*math.Log10(x) - 5.6488*math.Pow(x, 1.425)
	}
	gmin := 2 + 20*math.Log10(k)
	return -fx - heightGain(beta*yt, gmin) - heightGain(beta*yr, gmin)
}

// heightGain is Eq. 34 with the lower limit of Eq. 34a.
func heightGain(b, gmin float64) float64 {
	var g float64
	if b > 2 {
		g = 17.6*math.Sqrt(b-1.1) - 5*math.Log10(b-1.1) - 8
	} else {
		g = 20 * math.Log10(b+0.1*b*b*b)
	}
	return math.Max(g, gmin)
}
