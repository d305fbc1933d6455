package engines

import (
	"context"
	"fmt"

	"linkplan/appliance"
	"linkplan/engines/p1812"
)

var _ appliance.Engine = (*p1812Engine)(nil)

// p1812Engine adapts engines/p1812 to appliance.Engine.
type p1812Engine struct{ reg *Registry }

func (e *p1812Engine) ID() appliance.EngineID { return appliance.EngineP1812 }

// LossAtLeastFreeSpace is false: ducting and layer reflection (Lba) and
// the time-percentage correction can put P.1812 below free space.
func (e *p1812Engine) LossAtLeastFreeSpace() bool { return false }

func (e *p1812Engine) Predict(ctx context.Context, in appliance.LinkInput) (appliance.LinkPrediction, error) {
	return e.run(ctx, in, &extras{})
}

func (e *p1812Engine) run(ctx context.Context, in appliance.LinkInput, x *extras) (appliance.LinkPrediction, error) {
	pin, res, err := e.predict(ctx, in, x)
	if err != nil {
		return appliance.LinkPrediction{}, err
	}
	pred := appliance.LinkPrediction{
		Engine:        appliance.EngineP1812,
		EngineVersion: P1812Version,
		PathLossDB:    res.LbDB,
		DiffractionDB: res.LdpDB,
		Intermediate:  p1812Intermediate(&pin, &res),
	}
	e.reg.geometry(in, &pred)
	return pred, nil
}

// PredictLossDB returns Predict(ctx, in).PathLossDB, bit for bit, and
// Predict's error, without the rest of the prediction (no Intermediate
// map, no line-of-sight geometry): a coverage map needs only the loss of
// each pixel (coverage.LossPredictor).
func (e *p1812Engine) PredictLossDB(ctx context.Context, in appliance.LinkInput) (float64, error) {
	_, res, err := e.predict(ctx, in, &extras{})
	if err != nil {
		return 0, err
	}
	return res.LbDB, nil
}

// PixelVersion is the EngineVersion Predict reports
// (coverage.LossPredictor).
func (e *p1812Engine) PixelVersion() string { return P1812Version }

// predict validates in and runs P.1812 on it.
func (e *p1812Engine) predict(ctx context.Context, in appliance.LinkInput, x *extras) (p1812.Input, p1812.Result, error) {
	if err := ctx.Err(); err != nil {
		return p1812.Input{}, p1812.Result{}, err
	}
	if err := ValidateLink(in); err != nil {
		return p1812.Input{}, p1812.Result{}, fmt.Errorf("p1812 predict: %w", err)
	}
	pin, err := e.reg.p1812Input(in, x)
	if err != nil {
		return p1812.Input{}, p1812.Result{}, fmt.Errorf("p1812 predict: %w", err)
	}
	res, err := p1812.Predict(pin)
	if err != nil {
		return p1812.Input{}, p1812.Result{}, fmt.Errorf("p1812 predict: %w", err)
	}
	return pin, res, nil
}

// p1812Input builds the P.1812 input of in, refusing (EnvelopeError) what
// lies outside P.1812-8's scope.
func (r *Registry) p1812Input(in appliance.LinkInput, x *extras) (p1812.Input, error) {
	id := appliance.EngineP1812
	prm := r.p1812.over(x.p1812)
	fGHz := in.FreqMHz / 1000
	if fGHz < p1812.MinFreqGHz || fGHz > p1812.MaxFreqGHz {
		return p1812.Input{}, outside(id, "frequency_mhz", "P.1812-8 covers %g–%g MHz, got %g", 1000*p1812.MinFreqGHz, 1000.0*p1812.MaxFreqGHz, in.FreqMHz)
	}
	tp := pct(in.TimePct, 50)
	if tp < p1812.MinTimePct || tp > p1812.MaxTimePct {
		return p1812.Input{}, outside(id, "time_pct", "P.1812-8 covers %g–%g %% of time, got %g", float64(p1812.MinTimePct), float64(p1812.MaxTimePct), tp)
	}
	for _, h := range []struct {
		name string
		val  float64
	}{{"tx_height_m", in.TxHeightM}, {"rx_height_m", in.RxHeightM}} {
		if h.val <= 0 || h.val > p1812.MaxHeightM {
			return p1812.Input{}, outside(id, h.name, "P.1812-8 needs an antenna height within (0, %g] m above ground, got %g", float64(p1812.MaxHeightM), h.val)
		}
	}
	dKm := lengthM(in) / 1000
	if dKm < P1812MinDistKm || dKm > P1812MaxDistKm {
		return p1812.Input{}, outside(id, "distance_km", "P.1812-8 covers paths of %g–%g km, got %.4g", P1812MinDistKm, float64(P1812MaxDistKm), dKm)
	}

	p := in.Profile
	n := p.Len()
	d := make([]float64, n, n+1)
	for i, v := range p.DistancesM {
		d[i] = v / 1000
	}
	h := append(make([]float64, 0, n+1), p.HeightsM...)
	clutter := x.clutterM
	if clutter == nil && len(p.ClutterHeightsM) == n {
		// Representative clutter heights from the terrain's land-cover
		// layer (P.1812-8 R), when the pack has one.
		clutter = p.ClutterHeightsM
	}
	zones := x.zones
	if zones == nil {
		zones = ZonesFromSea(p)
	}
	if n == 2 {
		// P.1812 needs an intermediate point: insert the mid-point of the
		// straight terrain segment (it cannot obstruct the ray).
		d = []float64{d[0], d[1] / 2, d[1]}
		h = []float64{h[0], (h[0] + h[1]) / 2, h[1]}
		if clutter != nil {
			clutter = []float64{clutter[0], (clutter[0] + clutter[1]) / 2, clutter[1]}
		}
		if zones != nil {
			zones = []int{zones[0], zones[0], zones[1]}
		}
	}

	deltaN, n0 := r.refractivity(in, dKm)
	if prm.DeltaN != nil {
		deltaN = *prm.DeltaN
	}
	if prm.N0 != nil {
		n0 = *prm.N0
	}
	dct, dcr := CoastDistancesKm(d, zones)
	if prm.DctKm != nil {
		dct = *prm.DctKm
	}
	if prm.DcrKm != nil {
		dcr = *prm.DcrKm
	}
	lp := pct(in.LocationPct, 50)
	sigma := 0.0
	if lp != 50 {
		area := P1812DefaultLocAreaM
		if prm.LocationAreaM != nil {
			area = *prm.LocationAreaM
		}
		rRx := 0.0
		if clutter != nil {
			rRx = clutter[len(clutter)-1]
		}
		sigma = p1812.LocationSigmaDB(fGHz, in.RxHeightM, rRx, area)
	}
	return p1812.Input{
		FreqGHz: fGHz, TimePct: tp, LocPct: lp, SigmaLdB: sigma,
		DKm: d, HMasl: h, RM: clutter, Zone: zones,
		HtgM: in.TxHeightM, HrgM: in.RxHeightM, Pol: prm.pol(),
		PhiT: in.Tx.Lat, LamT: in.Tx.Lon, PhiR: in.Rx.Lat, LamR: in.Rx.Lon,
		DeltaN: deltaN, N0: n0, DctKm: dct, DcrKm: dcr,
		Diffraction: prm.diffraction(),
	}, nil
}

// refractivity returns ΔN (N-units/km) and N0 (N-units) at the centre of
// the path of in (dKm long, km): from the maps when configured, else the
// Brazil defaults of engines/p1812.
func (r *Registry) refractivity(in appliance.LinkInput, dKm float64) (deltaN, n0 float64) {
	lat, lon := p1812.PathCentre(in.Tx.Lat, in.Tx.Lon, in.Rx.Lat, in.Rx.Lon, dKm)
	return p1812.Refractivity(r.maps, lat, lon)
}

// ZonesFromSea returns the P.1812 radio-climatic zone of every sample of p:
// ZoneSea where p.Sea is true; ZoneCoastal for land no higher than 100 m
// above sea level within 50 km along the path of a sea sample (Table 2 of
// P.1812-8, measured along the path only); ZoneInland otherwise. It
// returns nil (all inland) when p.Sea is nil or holds no sea sample.
func ZonesFromSea(p *appliance.PathProfile) []int {
	if p.Sea == nil || len(p.Sea) != p.Len() {
		return nil
	}
	n := p.Len()
	anySea := false
	for _, s := range p.Sea {
		anySea = anySea || s
	}
	if !anySea {
		return nil
	}
	const far = 1e300
	toSea := make([]float64, n) // along-path distance to the nearest sea sample, metres
	last := -far
	for i := 0; i < n; i++ {
		if p.Sea[i] {
			last = p.DistancesM[i]
		}
		toSea[i] = p.DistancesM[i] - last
	}
	next := far
	for i := n - 1; i >= 0; i-- {
		if p.Sea[i] {
			next = p.DistancesM[i]
		}
		toSea[i] = min(toSea[i], next-p.DistancesM[i])
	}
	z := make([]int, n)
	for i := range z {
		switch {
		case p.Sea[i]:
			z[i] = p1812.ZoneSea
		case toSea[i] <= P1812CoastalMaxKm*1000 && p.HeightsM[i] <= P1812CoastalMaxHeightM:
			z[i] = p1812.ZoneCoastal
		default:
			z[i] = p1812.ZoneInland
		}
	}
	return z
}

// CoastDistancesKm returns dct and dcr of P.1812 (the distance over land
// from each terminal to the first sea sample along the path, km) for the
// profile distances dKm (km) and zones; 500 km when the path holds no sea
// sample, 0 for a terminal at sea.
func CoastDistancesKm(dKm []float64, zones []int) (dct, dcr float64) {
	dct, dcr = P1812FarCoastKm, P1812FarCoastKm
	if zones == nil {
		return dct, dcr
	}
	n := len(dKm)
	for i := 0; i < n; i++ {
		if zones[i] == p1812.ZoneSea {
			dct = min(dKm[i], P1812FarCoastKm)
			break
		}
	}
	for i := n - 1; i >= 0; i-- {
		if zones[i] == p1812.ZoneSea {
			dcr = min(dKm[n-1]-dKm[i], P1812FarCoastKm)
			break
		}
	}
	return dct, dcr
}

func p1812Intermediate(in *p1812.Input, r *p1812.Result) map[string]float64 {
	return map[string]float64{
		"lbfs_db":                r.LbfsDB,
		"lb0p_db":                r.Lb0pDB,
		"ld_db":                  r.LdpDB,
		"ld50_db":                r.Ld50DB,
		"lbd_db":                 r.LbdDB,
		"lba_db":                 r.LbaDB,
		"lbam_db":                r.LbamDB,
		"lbs_db":                 r.LbsDB,
		"lbc_db":                 r.LbcDB,
		"lloc_db":                r.LlocDB,
		"sigma_l_db":             in.SigmaLdB,
		"ep_1kw_dbuv_per_m":      r.EpDBuVm,
		"ae_km":                  r.AeKm,
		"theta_mrad":             r.ThetaMrad,
		"theta_t_mrad":           r.ThetaTMrad,
		"theta_r_mrad":           r.ThetaRMrad,
		"dlt_km":                 r.DltKm,
		"dlr_km":                 r.DlrKm,
		"distance_km":            r.DistanceKm,
		"trans_horizon":          b2f(r.TransHorizon),
		"beta0_pct":              r.Beta0Pct,
		"omega_sea_fraction":     r.Omega,
		"delta_n_n_units_per_km": in.DeltaN,
		"n0_n_units":             in.N0,
		"dct_km":                 r.DctKm,
		"dcr_km":                 r.DcrKm,
		"time_pct":               in.TimePct,
		"location_pct":           in.LocPct,
		"polarization_p1812":     float64(in.Pol),
		"diffraction_deygout":    b2f(in.Diffraction == p1812.DeygoutMethod),
	}
}
