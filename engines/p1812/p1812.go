package p1812

import (
	"math"

	"linkplan/appliance"
)

// Zone codes of the radio-climatic zones of P.1812-8 (Table 2).
const (
	ZoneSea     = 1 // sea
	ZoneCoastal = 3 // coastal land
	ZoneInland  = 4 // inland
)

// Validity limits of P.1812-8 as enforced by Predict.
const (
	MinFreqGHz  = 0.03 // lowest frequency, GHz
	MaxFreqGHz  = 6    // highest frequency, GHz
	MinTimePct  = 1    // lowest time percentage, %
	MaxTimePct  = 50   // highest time percentage, %
	MaxHeightM  = 3000 // highest antenna height above ground, metres
	EarthRadius = 6371 // mean Earth radius, km
)

// Input is one point-to-point prediction. Distances are km, heights metres,
// angles degrees (longitude positive east).
type Input struct {
	FreqGHz  float64 // frequency, GHz, 0.03–6
	TimePct  float64 // time percentage p for which Lb is not exceeded, %, 1–50
	LocPct   float64 // location percentage pL, %, 0 < pL < 100; 0 means 50
	SigmaLdB float64 // location variability standard deviation σL, dB, ≥ 0 (see LocationSigmaDB)

	// DKm holds the distance of each profile point from the transmitter, km:
	// starts at 0, strictly increasing, at least 3 points.
	DKm []float64
	// HMasl holds the terrain height of each point, metres above mean sea level.
	HMasl []float64
	// RM holds the representative clutter height of each point, metres, ≥ 0;
	// nil means no clutter. It is added at the intermediate points only
	// (P.1812-8 §3.2).
	RM []float64
	// Zone holds the radio-climatic zone of each point (ZoneSea, ZoneCoastal,
	// ZoneInland); nil means all inland.
	Zone []int

	HtgM float64      // transmitter antenna height above ground, metres, (0, 3000]
	HrgM float64      // receiver antenna height above ground, metres, (0, 3000]
	Pol  Polarization // Horizontal (1) or Vertical (2)

	PhiT, LamT float64 // transmitter latitude and longitude, degrees (east positive)
	PhiR, LamR float64 // receiver latitude and longitude, degrees (east positive)

	// DeltaN is the average radio-refractivity lapse-rate through the lowest
	// 1 km of the atmosphere at the path centre, N-units/km, 0 < ΔN < 157
	// (see Refractivity, DefaultDeltaN).
	DeltaN float64
	// N0 is the sea-level surface refractivity at the path centre, N-units,
	// > 0 (see Refractivity, DefaultN0).
	N0 float64
	// DctKm and DcrKm are the distances over land from the transmitter and
	// receiver to the coast along the path, km, ≥ 0 (500 when the coast is
	// far). They are set to 0 when the terminal's own zone is sea.
	DctKm, DcrKm float64

	// Diffraction selects the diffraction model; the zero value is the
	// delta-Bullington model of P.1812-8.
	Diffraction DiffractionMethod
}

// Result is the prediction with every intermediate quantity of P.1812-8.
// Equation numbers are those of P.1812-8 as used in the ITU-R reference
// logs.
type Result struct {
	LbDB    float64 // basic transmission loss not exceeded for p % time and pL % locations, Eq. 69, dB
	EpDBuVm float64 // field strength for 1 kW e.r.p., Eq. 70, dB(µV/m)

	DistanceKm   float64 // path length d, km
	TransHorizon bool    // the path is trans-horizon (Eq. 76 test)

	DltKm      float64 // transmitter horizon distance (or Bullington point distance on LoS paths), km
	DlrKm      float64 // receiver horizon distance, km
	ThetaTMrad float64 // transmitter horizon elevation angle θt, mrad
	ThetaRMrad float64 // receiver horizon elevation angle θr, mrad
	ThetaMrad  float64 // path angular distance θ, mrad

	HtsM     float64 // transmitter antenna height, metres above mean sea level
	HrsM     float64 // receiver antenna height, metres above mean sea level
	HstRawM  float64 // least-squares smooth surface height at the transmitter, Eq. 85, metres amsl
	HsrRawM  float64 // least-squares smooth surface height at the receiver, Eq. 86, metres amsl
	HstM     float64 // smooth surface height at the transmitter limited to the ground height, Eq. 90a, metres amsl
	HsrM     float64 // smooth surface height at the receiver limited to the ground height, Eq. 90b, metres amsl
	HstdM    float64 // smooth surface height at the transmitter for diffraction, Eq. 89, metres amsl
	HsrdM    float64 // smooth surface height at the receiver for diffraction, Eq. 89, metres amsl
	HteM     float64 // transmitter effective height for ducting, Eq. 92a, metres
	HreM     float64 // receiver effective height for ducting, Eq. 92b, metres
	HmM      float64 // terrain roughness, Eq. 93, metres
	Omega    float64 // fraction of the path over sea, 0–1
	DtmKm    float64 // longest continuous land section, km
	DlmKm    float64 // longest continuous inland section, km
	PhiMDeg  float64 // path-centre latitude, degrees
	LamMDeg  float64 // path-centre longitude, degrees (east positive)
	Beta0Pct float64 // β0, Eq. 5, %
	AeKm     float64 // median effective Earth radius, Eq. 7a, km
	AbKm     float64 // effective Earth radius exceeded for β0 % time, Eq. 7b, km
	DctKm    float64 // distance of the transmitter from the coast as used, km
	DcrKm    float64 // distance of the receiver from the coast as used, km

	Fi float64 // interpolation factor Fi, Eq. 40
	Fj float64 // angular-distance blending factor Fj, Eq. 57
	Fk float64 // distance blending factor Fk, Eq. 58

	LbfsDB float64 // free-space basic transmission loss, Eq. 8, dB
	Lb0pDB float64 // LoS loss not exceeded for p % time, Eq. 10, dB
	Lb0bDB float64 // LoS loss not exceeded for β0 % time, Eq. 11, dB

	// Parts of the diffraction loss for the median radius ae (…50) and for
	// ab (…Beta). With DeygoutMethod the Bullington and spherical parts are
	// 0 and the Ld values are the Deygout loss.
	Lbulla50DB   float64 // Bullington loss of the actual profile, radius ae, dB
	Lbulls50DB   float64 // Bullington loss of the smooth profile, radius ae, dB
	Ldsph50DB    float64 // spherical-Earth loss, radius ae, dB
	LbullaBetaDB float64 // Bullington loss of the actual profile, radius ab, dB
	LbullsBetaDB float64 // Bullington loss of the smooth profile, radius ab, dB
	LdsphBetaDB  float64 // spherical-Earth loss, radius ab, dB
	Ld50DB       float64 // median diffraction loss, Eq. 39 with ae, dB
	LdbDB        float64 // diffraction loss not exceeded for β0 % time, Eq. 39 with ab, dB
	LdpDB        float64 // diffraction loss not exceeded for p % time, Eq. 41, dB
	Lbd50DB      float64 // median basic transmission loss for diffraction, Eq. 42, dB
	LbdDB        float64 // basic transmission loss for diffraction, Eq. 43, dB
	Lminb0pDB    float64 // notional minimum loss for LoS and sub-path diffraction, Eq. 59, dB
	LbaDB        float64 // ducting/layer-reflection loss, Eq. 46, dB
	LminbapDB    float64 // notional minimum loss for LoS and ducting, Eq. 60, dB
	LbdaDB       float64 // diffraction/ducting blend, Eq. 61, dB
	LbamDB       float64 // modified loss, Eq. 62, dB
	LbsDB        float64 // troposcatter loss, Eq. 44, dB
	LbcDB        float64 // combined loss for pL = 50 %, Eq. 63, dB
	LlocDB       float64 // location variability correction, dB (0 when the receiver is at sea)
}

// validate checks in (its profile too when profile) and returns an error wrapping appliance.ErrInvalid that
// names every bad field.
func validate(in *Input, profile bool) error {
	var vs appliance.ValidationError
	v := &vs
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if !finite(in.FreqGHz) || in.FreqGHz < MinFreqGHz || in.FreqGHz > MaxFreqGHz {
		v.Add("f_ghz", "must be within %g–%g GHz, got %g", float64(MinFreqGHz), float64(MaxFreqGHz), in.FreqGHz)
	}
	if !finite(in.TimePct) || in.TimePct < MinTimePct || in.TimePct > MaxTimePct {
		v.Add("p_pct", "must be within %g–%g %%, got %g", float64(MinTimePct), float64(MaxTimePct), in.TimePct)
	}
	if !finite(in.LocPct) || in.LocPct < 0 || in.LocPct >= 100 {
		v.Add("pl_pct", "must be within (0, 100) %% (0 means 50), got %g", in.LocPct)
	}
	if !finite(in.SigmaLdB) || in.SigmaLdB < 0 {
		v.Add("sigma_l_db", "must be finite and ≥ 0, got %g", in.SigmaLdB)
	}
	if !finite(in.HtgM) || in.HtgM <= 0 || in.HtgM > MaxHeightM {
		v.Add("htg_m", "must be within (0, %g] m, got %g", float64(MaxHeightM), in.HtgM)
	}
	if !finite(in.HrgM) || in.HrgM <= 0 || in.HrgM > MaxHeightM {
		v.Add("hrg_m", "must be within (0, %g] m, got %g", float64(MaxHeightM), in.HrgM)
	}
	if in.Pol != Horizontal && in.Pol != Vertical {
		v.Add("pol", "must be 1 (horizontal) or 2 (vertical), got %d", in.Pol)
	}
	for _, c := range []struct {
		name string
		val  float64
		lim  float64
	}{{"phi_t_deg", in.PhiT, 90}, {"lam_t_deg", in.LamT, 360}, {"phi_r_deg", in.PhiR, 90}, {"lam_r_deg", in.LamR, 360}} {
		if !finite(c.val) || math.Abs(c.val) > c.lim {
			v.Add(c.name, "must be within ±%g°, got %g", c.lim, c.val)
		}
	}
	if !finite(in.DeltaN) || in.DeltaN <= 0 || in.DeltaN >= 157 {
		v.Add("delta_n", "must be within (0, 157) N-units/km, got %g", in.DeltaN)
	}
	if !finite(in.N0) || in.N0 <= 0 {
		v.Add("n0", "must be finite and > 0 N-units, got %g", in.N0)
	}
	if !finite(in.DctKm) || in.DctKm < 0 {
		v.Add("dct_km", "must be finite and ≥ 0, got %g", in.DctKm)
	}
	if !finite(in.DcrKm) || in.DcrKm < 0 {
		v.Add("dcr_km", "must be finite and ≥ 0, got %g", in.DcrKm)
	}
	if in.Diffraction != DeltaBullingtonMethod && in.Diffraction != DeygoutMethod {
		v.Add("diffraction", "unknown method %d", int(in.Diffraction))
	}
	if profile {
		validateProfile(in, v)
	}
	if len(vs.Fields) == 0 {
		return nil
	}
	out := vs // only a failed validation allocates
	return &out
}

func validateProfile(in *Input, v *appliance.ValidationError) {
	n := len(in.DKm)
	if n < 3 {
		v.Add("profile.d_km", "needs at least 3 points, got %d", n)
	} else {
		if in.DKm[0] != 0 {
			v.Add("profile.d_km", "must start at 0 (the transmitter), got %g", in.DKm[0])
		}
		for i := 1; i < n; i++ {
			if !(in.DKm[i] > in.DKm[i-1]) || math.IsInf(in.DKm[i], 0) {
				v.Add("profile.d_km", "must be finite and strictly increasing, point %d is %g after %g", i, in.DKm[i], in.DKm[i-1])
				break
			}
		}
	}
	if len(in.HMasl) != n {
		v.Add("profile.h_masl", "has %d points, d_km has %d", len(in.HMasl), n)
	} else {
		for i, h := range in.HMasl {
			if math.IsNaN(h) || math.IsInf(h, 0) {
				v.Add("profile.h_masl", "point %d is not finite", i)
				break
			}
		}
	}
	if in.RM != nil {
		if len(in.RM) != n {
			v.Add("profile.r_m", "has %d points, d_km has %d", len(in.RM), n)
		} else {
			for i, r := range in.RM {
				if !(r >= 0) || math.IsInf(r, 0) {
					v.Add("profile.r_m", "point %d must be finite and ≥ 0, got %g", i, r)
					break
				}
			}
		}
	}
	if in.Zone != nil {
		if len(in.Zone) != n {
			v.Add("profile.zone", "has %d points, d_km has %d", len(in.Zone), n)
		} else {
			for i, z := range in.Zone {
				if z != ZoneSea && z != ZoneCoastal && z != ZoneInland {
					v.Add("profile.zone", "point %d must be 1 (sea), 3 (coastal) or 4 (inland), got %d", i, z)
					break
				}
			}
		}
	}
}

// Predict returns the P.1812-8 basic transmission loss and field strength
// for in, with its intermediate values. Invalid input gives an error that
// matches appliance.ErrInvalid (a *appliance.ValidationError naming every
// bad field). Predict does not retain or modify the slices of in and is
// safe for concurrent use.
func Predict(in Input) (Result, error) {
	if err := validate(&in, true); err != nil {
		return Result{}, err
	}
	var res Result
	d, h := in.DKm, in.HMasl
	n := len(d)
	lam := SpeedOfLightMps / (in.FreqGHz * 1e9)
	begin(&in, &res, d[n-1], h[0], h[n-1], pathZones{
		txSea: zoneAt(in.Zone, 0) == ZoneSea, rxSea: zoneAt(in.Zone, n-1) == ZoneSea,
		dtm: longestSection(d, in.Zone, isLand), dlm: longestSection(d, in.Zone, isInland),
		omega: seaFraction(d, in.Zone),
	})
	analysePath(&in, &res, lam)
	var b bullPair
	if in.Diffraction != DeygoutMethod {
		b = scanPair(d, h, in.RM, res.HtsM, res.HrsM, res.HstdM, res.HsrdM, res.AeKm, res.AbKm, lam)
	}
	finish(&in, &res, lam, &b, zoneAt(in.Zone, n-1) == ZoneSea)
	return res, nil
}

// pathZones are the radio-climatic facts of a path that Predict takes
// from its zones.
type pathZones struct {
	txSea, rxSea bool    // the terminal's own zone is sea
	dtm, dlm     float64 // longest land and inland sections, km
	omega        float64 // fraction of the path over sea
}

// begin fills what Predict takes from the path ends and zones: the
// distance, the coast distances, the path centre, β0, the Earth radii,
// ω and the antenna heights above sea level (dtot km, h0 and hn the
// ground at the transmitter and receiver, metres).
func begin(in *Input, res *Result, dtot, h0, hn float64, z pathZones) {
	res.DistanceKm = dtot

	res.DctKm, res.DcrKm = in.DctKm, in.DcrKm
	if z.txSea {
		res.DctKm = 0
	}
	if z.rxSea {
		res.DcrKm = 0
	}

	// Path centre (great-circle mid-point, P.2001 Annex H), β0, radii.
	res.PhiMDeg, res.LamMDeg = greatCirclePoint(in.PhiT, in.LamT, in.PhiR, in.LamR, 0.5*dtot)
	res.DtmKm = z.dtm
	res.DlmKm = z.dlm
	res.Beta0Pct = beta0(res.PhiMDeg, res.DtmKm, res.DlmKm)
	res.AeKm = EarthRadius * 157 / (157 - in.DeltaN)
	res.AbKm = EarthRadius * 3
	res.Omega = z.omega

	res.HtsM = h0 + in.HtgM
	res.HrsM = hn + in.HrgM
}

// finish is Predict after the path analysis (res's horizons, smooth
// surface, effective heights and roughness) and, for the
// delta-Bullington method, the Bullington maxima b of the path: the
// losses, Eqs. 8–70 (rxSea: the receiver's own zone is sea). With
// DeygoutMethod it reads in's profile.
func finish(in *Input, res *Result, lam float64, b *bullPair, rxSea bool) {
	dtot := res.DistanceKm
	f, p := in.FreqGHz, in.TimePct
	pl := in.LocPct
	if pl == 0 {
		pl = 50
	}
	// Blending factors, Eqs. 57 and 58.
	res.Fj = 1 - 0.5*(1+math.Tanh(3*0.8*(res.ThetaMrad-0.3)/0.3))
	res.Fk = 1 - 0.5*(1+math.Tanh(3*0.5*(dtot-20)/20))

	// Line of sight, Eqs. 8–11.
	dh := (res.HtsM - res.HrsM) / 1000
	res.LbfsDB = 92.4 + 20*math.Log10(f) + 10*math.Log10(dtot*dtot+dh*dh)
	es := 2.6 * (1 - math.Exp(-0.1*(res.DltKm+res.DlrKm)))
	res.Lb0pDB = res.LbfsDB + es*math.Log10(p/50)
	res.Lb0bDB = res.LbfsDB + es*math.Log10(res.Beta0Pct/50)

	diffraction(in, res, lam, b)

	// Eqs. 42, 43, 59.
	omega := res.Omega
	res.Lbd50DB = res.LbfsDB + res.Ld50DB
	res.LbdDB = res.Lb0pDB + res.LdpDB
	res.Fi = 1
	res.Lminb0pDB = res.Lb0pDB + (1-omega)*res.LdpDB
	if p >= res.Beta0Pct {
		res.Fi = invCumNorm(p/100) / invCumNorm(res.Beta0Pct/100)
		res.Lminb0pDB = res.Lbd50DB + (res.Lb0bDB+(1-omega)*res.LdpDB-res.Lbd50DB)*res.Fi
	}

	// Ducting and layer reflection, Eq. 46, and Eqs. 60–62.
	res.LbaDB = anomalous(res, f, p)
	const eta = 2.5
	res.LminbapDB = eta * logSumExp(res.LbaDB/eta, res.Lb0pDB/eta)
	res.LbdaDB = res.LbdDB
	if res.LminbapDB <= res.LbdDB {
		res.LbdaDB = res.LminbapDB + (res.LbdDB-res.LminbapDB)*res.Fk
	}
	res.LbamDB = res.LbdaDB + (res.Lminb0pDB-res.LbdaDB)*res.Fj

	// Troposcatter, Eqs. 44–45.
	lf := 25*math.Log10(f) - 2.5*math.Pow(math.Log10(f/2), 2)
	res.LbsDB = 190.1 + lf + 20*math.Log10(dtot) + 0.573*res.ThetaMrad - 0.15*in.N0 -
		10.125*math.Pow(math.Log10(50/p), 0.7)

	// Eq. 63: −5·log10(10^(−0.2·Lbs) + 10^(−0.2·Lbam)), in a form that
	// cannot underflow.
	lo, hi := math.Min(res.LbsDB, res.LbamDB), math.Max(res.LbsDB, res.LbamDB)
	res.LbcDB = lo - 5*math.Log10(1+math.Pow(10, -0.2*(hi-lo)))

	// Location variability (§4.8), Eqs. 69 and 70.
	if !rxSea {
		res.LlocDB = -invCumNorm(pl/100) * in.SigmaLdB
	}
	res.LbDB = math.Max(res.Lb0pDB, res.LbcDB+res.LlocDB)
	res.EpDBuVm = 199.36 + 20*math.Log10(f) - res.LbDB
}

// EpFromLb returns the field strength for 1 kW e.r.p., dB(µV/m), that
// corresponds to the basic transmission loss lbDB (dB) at fGHz (Eq. 70).
func EpFromLb(lbDB, fGHz float64) float64 { return 199.36 + 20*math.Log10(fGHz) - lbDB }

// diffraction fills the diffraction losses for ae and ab and their
// interpolation for p (§4.3.5, Eqs. 39–41), the delta-Bullington ones
// from the Bullington maxima b.
func diffraction(in *Input, res *Result, lam float64, b *bullPair) {
	hts, hrs := res.HtsM, res.HrsM
	switch in.Diffraction {
	case DeygoutMethod:
		d, h, rr := in.DKm, in.HMasl, in.RM
		res.Ld50DB = deygout(d, h, rr, hts, hrs, res.AeKm, lam)
		res.LdbDB = deygout(d, h, rr, hts, hrs, res.AbKm, lam)
	default:
		r50, rb := b.losses(res.DistanceKm, hts, hrs, res.HstdM, res.HsrdM, res.AeKm, res.AbKm,
			in.FreqGHz, res.Omega, lam, in.Pol)
		res.Lbulla50DB, res.Lbulls50DB, res.Ldsph50DB, res.Ld50DB = r50.LbullaDB, r50.LbullsDB, r50.LdsphDB, r50.LdDB
		res.LbullaBetaDB, res.LbullsBetaDB, res.LdsphBetaDB, res.LdbDB = rb.LbullaDB, rb.LbullsDB, rb.LdsphDB, rb.LdDB
	}
	p := in.TimePct
	switch {
	case p == 50:
		res.LdpDB = res.Ld50DB
	default:
		fi := 1.0
		if p > res.Beta0Pct {
			fi = invCumNorm(p/100) / invCumNorm(res.Beta0Pct/100)
		}
		res.LdpDB = res.Ld50DB + fi*(res.LdbDB-res.Ld50DB)
	}
}

// bullPair holds the Bullington maxima of a path for the two effective
// Earth radii ae (…50) and ab (…2): of the actual profile (a…) and of
// the smooth one (s…, heights zero above the smooth surface).
type bullPair struct{ a50, a2, s50, s2 bullRadius }

// scanPair is the pass over the profile that deltaBullingtonPair needs,
// with point heights h[i] + rr[i] (rr may be nil): one pass serves both
// radii, and the Earth-bulge, chord and Fresnel terms of each point are
// computed once.
func scanPair(d, h, rr []float64, hts, hrs, hstd, hsrd, ae, ab, lam float64) bullPair {
	var b bullPair
	b.a50.init(ae)
	b.a2.init(ab)
	b.s50.init(ae)
	b.s2.init(ab)
	bullingtonScan(d, h, rr, hts, hrs, lam, &b.a50, &b.a2)
	bullingtonScan(d, nil, nil, hts-hstd, hrs-hsrd, lam, &b.s50, &b.s2)
	return b
}

// losses finishes the delta-Bullington construction of both radii from
// the maxima (Eqs. 14–39).
func (b *bullPair) losses(dtot, hts, hrs, hstd, hsrd, ae, ab, f, omega, lam float64,
	pol Polarization) (r50, rb DeltaBullingtonResult) {
	hts1 := hts - hstd
	hrs1 := hrs - hsrd
	r50.LbullaDB = b.a50.loss(dtot, hts, hrs, lam)
	rb.LbullaDB = b.a2.loss(dtot, hts, hrs, lam)
	r50.LbullsDB = b.s50.loss(dtot, hts1, hrs1, lam)
	rb.LbullsDB = b.s2.loss(dtot, hts1, hrs1, lam)
	r50.LdsphDB = sphericalEarth(dtot, hts1, hrs1, ae, f, omega, lam, pol, false)
	rb.LdsphDB = sphericalEarth(dtot, hts1, hrs1, ab, f, omega, lam, pol, false)
	r50.LdDB = r50.LbullaDB + math.Max(r50.LdsphDB-r50.LbullsDB, 0)
	rb.LdDB = rb.LbullaDB + math.Max(rb.LdsphDB-rb.LbullsDB, 0)
	return r50, rb
}

// deltaBullingtonPair is DeltaBullington for the two effective Earth radii
// ae and ab at once (scanPair, then losses).
func deltaBullingtonPair(d, h, rr []float64, hts, hrs, hstd, hsrd, ae, ab, f, omega, lam float64,
	pol Polarization) (r50, rb DeltaBullingtonResult) {
	b := scanPair(d, h, rr, hts, hrs, hstd, hsrd, ae, ab, lam)
	return b.losses(d[len(d)-1], hts, hrs, hstd, hsrd, ae, ab, f, omega, lam, pol)
}

// anomalous is the ducting/layer-reflection loss Lba of §4.5 (Eqs. 46–56).
func anomalous(res *Result, f, p float64) float64 {
	dtot, dlt, dlr := res.DistanceKm, res.DltKm, res.DlrKm
	var alf float64
	if f < 0.5 {
		alf = 45.375 - 137.0*f + 92.5*f*f
	}
	shield := func(theta, dl float64) float64 {
		th2 := theta - 0.1*dl
		if th2 <= 0 {
			return 0
		}
		return 20*math.Log10(1+0.361*th2*math.Sqrt(f*dl)) + 0.264*th2*math.Cbrt(f)
	}
	ast := shield(res.ThetaTMrad, dlt)
	asr := shield(res.ThetaRMrad, dlr)
	coupling := func(dc, dl, hs float64) float64 {
		if dc <= 5 && dc <= dl && res.Omega >= 0.75 {
			return -3 * math.Exp(-0.25*dc*dc) * (1 + math.Tanh(0.07*(50-hs)))
		}
		return 0
	}
	act := coupling(res.DctKm, dlt, res.HtsM)
	acr := coupling(res.DcrKm, dlr, res.HrsM)
	gammaD := 5e-5 * res.AeKm * math.Cbrt(f)
	tht1 := math.Min(res.ThetaTMrad, 0.1*dlt)
	thr1 := math.Min(res.ThetaRMrad, 0.1*dlr)
	theta1 := 1e3*dtot/res.AeKm + tht1 + thr1
	dI := math.Min(dtot-dlt-dlr, 40)
	mu3 := 1.0
	if res.HmM > 10 {
		mu3 = math.Exp(-4.6e-5 * (res.HmM - 10) * (43 + 6*dI))
	}
	tau := 1 - math.Exp(-4.12e-4*math.Pow(res.DlmKm, 2.41))
	alpha := math.Max(-0.6-3.5e-9*math.Pow(dtot, 3.1)*tau, -3.4)
	sh := math.Sqrt(res.HteM) + math.Sqrt(res.HreM)
	mu2 := math.Min(math.Pow(500/res.AeKm*dtot*dtot/(sh*sh), alpha), 1)
	beta := res.Beta0Pct * mu2 * mu3
	lb := math.Log10(beta)
	gamma := 1.076 / math.Pow(2.0058-lb, 1.012) *
		math.Exp(-(9.51-4.8*lb+0.198*lb*lb)*1e-6*math.Pow(dtot, 1.13))
	ap := -12 + (1.2+3.7e-3*dtot)*math.Log10(p/beta) + 12*math.Pow(p/beta, gamma)
	adp := gammaD*theta1 + ap
	af := 102.45 + 20*math.Log10(f) + 20*math.Log10(dlt+dlr) + alf + ast + asr + act + acr
	return af + adp
}

// logSumExp returns ln(exp(a) + exp(b)) without overflow.
func logSumExp(a, b float64) float64 {
	m := math.Max(a, b)
	return m + math.Log(math.Exp(a-m)+math.Exp(b-m))
}

// invCumNorm is the approximation I(x) of the inverse complementary
// cumulative normal distribution of Attachment 2 (Eqs. 94–97), for
// 1e-6 ≤ x ≤ 1 − 1e-6 (x is clamped to that range).
func invCumNorm(x float64) float64 {
	x = math.Max(1e-6, math.Min(x, 0.999999))
	if x <= 0.5 {
		return tInv(x) - cInv(x)
	}
	return -(tInv(1-x) - cInv(1-x))
}

func tInv(y float64) float64 { return math.Sqrt(-2 * math.Log(y)) }

func cInv(z float64) float64 {
	const (
		c0 = 2.515516698
		c1 = 0.802853
		c2 = 0.010328
		d1 = 1.432788
		d2 = 0.189269
		d3 = 0.001308
	)
	t := tInv(z)
	return ((c2*t+c1)*t + c0) / (((d3*t+d2)*t+d1)*t + 1)
}

// LocationSigmaDB returns the standard deviation of the location
// variability σL of P.1812-8 §4.8, dB, for the frequency fGHz
// (GHz), the receiver antenna height above ground hM (metres), the
// representative clutter height at the receiver rM (metres) and the width of
// the square area over which the variability applies widthM (metres).
func LocationSigmaDB(fGHz, hM, rM, widthM float64) float64 {
	s := (0.52 + 0.024*fGHz) * math.Pow(widthM, 0.28)
	var uh float64
	switch {
	case hM < rM:
		uh = 1
	case hM >= rM+10:
		uh = 0
	default:
		uh = 1 - (hM-rM)/10
	}
	return s * uh
}
