package engines

import (
	"context"
	"fmt"
	"math"
	"strings"

	"linkplan/appliance"
	"linkplan/engines/itm"
)

var _ appliance.Engine = (*itmEngine)(nil)

// itmEngine adapts engines/itm (point-to-point mode) to appliance.Engine.
type itmEngine struct{ reg *Registry }

func (e *itmEngine) ID() appliance.EngineID { return appliance.EngineITM }

// LossAtLeastFreeSpace is false: in line-of-sight mode the two-ray
// reference attenuation can be negative (loss below free space).
func (e *itmEngine) LossAtLeastFreeSpace() bool { return false }

func (e *itmEngine) Predict(ctx context.Context, in appliance.LinkInput) (appliance.LinkPrediction, error) {
	return e.run(ctx, in, &extras{})
}

// ITMClimateN0 returns the typical sea-level surface refractivity of an ITM
// radio climate, N-units, as tabulated with the ITM (Longley-Rice) model
// guidance: 1 equatorial 360, 2 continental subtropical 320, 3 maritime
// subtropical 370, 4 desert 280, 5 continental temperate 301, 6 maritime
// temperate over land 320, 7 maritime temperate over sea 350. It returns
// 301 for an unknown code.
func ITMClimateN0(climate int) float64 {
	switch climate {
	case itm.ClimateEquatorial:
		return 360
	case itm.ClimateContinentalSubtropical:
		return 320
	case itm.ClimateMaritimeSubtropical:
		return 370
	case itm.ClimateDesert:
		return 280
	case itm.ClimateMaritimeTemperateOverLand:
		return 320
	case itm.ClimateMaritimeTemperateOverSea:
		return 350
	}
	return 301
}

// Brazil rule of ITMClimate.
const (
	ITMEquatorialNorthOfLat = -15.0 // degrees: path centres north of it are equatorial (1)
	ITMMaritimeCoastKm      = 100.0 // km: south of it, centres this close to the Atlantic coast are maritime subtropical (3)
)

// ITMClimate returns the ITM radio climate the itm engine uses when none is
// given, for a path from tx to rx (degrees) that crosses sea when anySea:
// 1 (equatorial) when the path centre lies north of 15° S; otherwise 3
// (maritime subtropical) when the path crosses sea or its centre lies within
// 100 km of the Atlantic coast of Brazil (a 22-vertex polyline from 14.8° S
// to the Uruguayan border, good to a few km), else 2 (continental
// subtropical). It is a coarse reading of the Köppen map for ITM's seven
// classes; the semi-arid north-east (which ITM would rather call desert or
// continental) is counted as equatorial.
func ITMClimate(tx, rx appliance.LatLon, anySea bool) int {
	c := tx.Intermediate(rx, 0.5)
	if c.Lat > ITMEquatorialNorthOfLat {
		return itm.ClimateEquatorial
	}
	if anySea || coastDistanceKm(c) <= ITMMaritimeCoastKm {
		return itm.ClimateMaritimeSubtropical
	}
	return itm.ClimateContinentalSubtropical
}

// coastDistanceKm returns the distance from p to the Atlantic coast of
// Brazil south of 14.8° S, km, on a local equirectangular projection (good to well under
// 1 % at these distances).
func coastDistanceKm(p appliance.LatLon) float64 {
	const kmPerDeg = math.Pi * appliance.EarthRadiusM / 180 / 1000
	cosLat := math.Cos(p.Lat * math.Pi / 180)
	px, py := p.Lon*cosLat*kmPerDeg, p.Lat*kmPerDeg
	// The Atlantic coast of Brazil south of 14.8° S, degrees (lat, lon),
	// north to south.
	brazilSouthCoast := [...][2]float64{
		{-14.79, -39.03}, {-16.45, -39.06}, {-17.73, -39.25}, {-18.59, -39.73}, {-19.65, -39.82},
		{-20.32, -40.29}, {-21.30, -40.96}, {-22.04, -41.00}, {-22.88, -42.02}, {-22.97, -43.18},
		{-23.10, -44.30}, {-23.45, -45.07}, {-23.99, -46.30}, {-24.70, -47.55}, {-25.55, -48.35},
		{-26.24, -48.60}, {-27.60, -48.45}, {-28.48, -48.78}, {-29.33, -49.72}, {-29.98, -50.13},
		{-32.17, -52.08}, {-33.74, -53.37},
	}
	best := math.Inf(1)
	for i := 0; i+1 < len(brazilSouthCoast); i++ {
		a, b := brazilSouthCoast[i], brazilSouthCoast[i+1]
		ax, ay := a[1]*cosLat*kmPerDeg, a[0]*kmPerDeg
		bx, by := b[1]*cosLat*kmPerDeg, b[0]*kmPerDeg
		dx, dy := bx-ax, by-ay
		t := ((px-ax)*dx + (py-ay)*dy) / (dx*dx + dy*dy)
		t = math.Max(0, math.Min(1, t))
		best = math.Min(best, math.Hypot(px-(ax+t*dx), py-(ay+t*dy)))
	}
	return best
}

// PFL converts p to the ITM PFL form (np, xi, z0..znp). The number of
// intervals is kept; when the samples are not equally spaced (relative
// deviation above 1e-9, e.g. a shorter last step) the heights are linearly
// re-interpolated at the equal spacing xi = length/np, and resampled is
// true.
func PFL(p *appliance.PathProfile) (pfl []float64, resampled bool) {
	n := p.Len()
	np := n - 1
	xi := p.LengthM() / float64(np)
	pfl = make([]float64, 0, n+2)
	pfl = append(pfl, float64(np), xi)
	uniform := true
	for i := 1; i < n; i++ {
		if math.Abs(p.DistancesM[i]-p.DistancesM[i-1]-xi) > 1e-9*xi {
			uniform = false
			break
		}
	}
	if uniform {
		return append(pfl, p.HeightsM...), false
	}
	j := 0
	for i := 0; i < n; i++ {
		x := float64(i) * xi
		if i == np {
			x = p.LengthM()
		}
		for j+1 < n-1 && p.DistancesM[j+1] < x {
			j++
		}
		x0, x1 := p.DistancesM[j], p.DistancesM[j+1]
		t := (x - x0) / (x1 - x0)
		pfl = append(pfl, p.HeightsM[j]+t*(p.HeightsM[j+1]-p.HeightsM[j]))
	}
	return pfl, true
}

// ITMWarnings turns the NTIA warning flags of an ITM result into
// appliance.Warnings, one per flag in bit order, each with the code
// appliance.WarnITM and a message that names the NTIA bit value.
func ITMWarnings(w itm.Warning) []appliance.Warning {
	var out []appliance.Warning
	for _, f := range w.Flags() {
		out = append(out, appliance.Warning{Code: appliance.WarnITM,
			Message: fmt.Sprintf("ITM warning flag %#04x: %s", uint32(f), f.String())})
	}
	return out
}

// itmDiffractionDB is the diffraction part of ITM's reference attenuation
// A_ref, dB, never below 0: A_ref itself in line-of-sight mode (NTIA's fit
// through two-ray values and the extended diffraction line) and in
// diffraction mode; in troposcatter mode, the diffraction line's value at
// the crossover d_x, to which NTIA ties the scatter line (A_ref is that plus
// the scatter slope m_s·(d − d_x)). A_ref itself is Intermediate a_ref_db in
// every mode.
func itmDiffractionDB(im itm.Intermediate) float64 {
	if im.Mode == itm.ModeTroposcatter {
		return math.Max(0, math.Min(im.ARefDB, im.DiffractionAtCrossoverDB))
	}
	return math.Max(0, im.ARefDB)
}

// itmTroposcatterMessage is the message of the itm_troposcatter warning for
// a troposcatter-mode (NTIA mode 3) result with intermediate values im and
// NTIA warning flags w: where the path lies against the crossover d_x, how
// A_ref splits into the diffraction value at d_x and the scatter slope, and,
// when a horizon angle exceeds 200 mrad (flags 0x080, 0x100), that the
// figure is outside ITM's validity and not a design value.
func itmTroposcatterMessage(im itm.Intermediate, w itm.Warning) string {
	msg := fmt.Sprintf("ITM answered in troposcatter mode (NTIA mode 3): the %.1f km path is beyond the crossover d_x = %.1f km where NTIA ties the scatter line to the diffraction line, so A_ref = %.1f dB over free space is the diffraction value at d_x (%.1f dB) plus %.1f dB of scatter slope",
		im.DistKm, im.CrossoverDistM/1000, im.ARefDB, im.DiffractionAtCrossoverDB, im.ARefDB-im.DiffractionAtCrossoverDB)
	var steep []string
	for i, f := range [2]itm.Warning{itm.WarnTxHorizonAngle, itm.WarnRxHorizonAngle} {
		if w&f != 0 {
			steep = append(steep, fmt.Sprintf("%.1f mrad at the %s", 1000*math.Abs(im.ThetaHznRad[i]), [2]string{"transmitter", "receiver"}[i]))
		}
	}
	if len(steep) > 0 {
		msg += fmt.Sprintf("; the horizon angle (%s) exceeds the 200 mrad of ITM's validity, so the figure is outside the model's range and not a design value", strings.Join(steep, ", "))
	}
	return msg
}

func (e *itmEngine) run(ctx context.Context, in appliance.LinkInput, x *extras) (appliance.LinkPrediction, error) {
	if err := ctx.Err(); err != nil {
		return appliance.LinkPrediction{}, err
	}
	if err := ValidateLink(in); err != nil {
		return appliance.LinkPrediction{}, fmt.Errorf("itm predict: %w", err)
	}
	r := e.reg
	id := appliance.EngineITM
	if in.FreqMHz < ITMMinFreqMHz || in.FreqMHz > ITMMaxFreqMHz {
		return appliance.LinkPrediction{}, fmt.Errorf("itm predict: %w",
			outside(id, "frequency_mhz", "ITM covers %g–%g MHz, got %g", ITMMinFreqMHz, ITMMaxFreqMHz, in.FreqMHz))
	}
	for _, h := range []struct {
		name string
		val  float64
	}{{"tx_height_m", in.TxHeightM}, {"rx_height_m", in.RxHeightM}} {
		if h.val < ITMMinHeightM || h.val > ITMMaxHeightM {
			return appliance.LinkPrediction{}, fmt.Errorf("itm predict: %w",
				outside(id, h.name, "ITM needs an antenna height of %g–%g m above ground, got %g", ITMMinHeightM, ITMMaxHeightM, h.val))
		}
	}
	prm := r.itm.over(x.itm)
	p := in.Profile
	if p.Len() == 2 {
		// ITM needs 3 points: add the mid-point of the straight segment.
		p = &appliance.PathProfile{
			DistancesM: []float64{0, p.DistancesM[1] / 2, p.DistancesM[1]},
			HeightsM:   []float64{p.HeightsM[0], (p.HeightsM[0] + p.HeightsM[1]) / 2, p.HeightsM[1]},
		}
	}
	pfl, resampled := PFL(p)
	anySea := false
	for _, s := range in.Profile.Sea {
		anySea = anySea || s
	}
	climate := prm.Climate
	if climate == 0 {
		climate = ITMClimate(in.Tx, in.Rx, anySea)
	}
	var n0 float64
	switch {
	case prm.N0 != nil:
		n0 = *prm.N0
	case r.maps != nil:
		_, n0 = r.refractivity(in, lengthM(in)/1000)
		n0 = math.Max(250, math.Min(400, n0))
	default:
		n0 = ITMClimateN0(climate)
	}
	eps, sigma, mdvar, sit := ITMDefaultEpsilon, ITMDefaultSigma, ITMDefaultMdVar, 50.0
	if prm.Epsilon != nil {
		eps = *prm.Epsilon
	}
	if prm.SigmaSPerM != nil {
		sigma = *prm.SigmaSPerM
	}
	if prm.MdVar != nil {
		mdvar = *prm.MdVar
	}
	if prm.SituationPct != nil {
		sit = *prm.SituationPct
	}
	pol := itm.PolVertical
	if prm.Polarization == PolHorizontal {
		pol = itm.PolHorizontal
	}
	tp, lp := pct(in.TimePct, 50), pct(in.LocationPct, 50)
	res, err := itm.P2PTLS(itm.P2PInput{PFL: pfl, HTxM: in.TxHeightM, HRxM: in.RxHeightM,
		ClimateCode: climate, N0: n0, FreqMHz: in.FreqMHz, Pol: pol, Epsilon: eps, SigmaSm: sigma, MdVar: mdvar},
		tp, lp, sit)
	if err != nil {
		return appliance.LinkPrediction{}, fmt.Errorf("itm predict: %w", err)
	}
	im := res.Intermediate
	diff := itmDiffractionDB(im)
	pred := appliance.LinkPrediction{
		Engine:        id,
		EngineVersion: ITMVersion,
		PathLossDB:    res.LossDB,
		DiffractionDB: diff,
		Warnings:      ITMWarnings(res.Warnings),
		Intermediate: map[string]float64{
			"free_space_db":       im.FreeSpaceLossDB,
			"a_ref_db":            im.ARefDB,
			"distance_km":         im.DistKm,
			"theta_hzn_tx_mrad":   1000 * im.ThetaHznRad[0],
			"theta_hzn_rx_mrad":   1000 * im.ThetaHznRad[1],
			"d_hzn_tx_m":          im.DHznM[0],
			"d_hzn_rx_m":          im.DHznM[1],
			"h_e_tx_m":            im.HEffM[0],
			"h_e_rx_m":            im.HEffM[1],
			"ns_n_units":          im.Ns,
			"delta_h_m":           im.DeltaHM,
			"eff_earth_radius_km": im.EffEarthRadiusM / 1000,
			"mode":                float64(im.Mode),
			"climate":             float64(climate),
			"n0_n_units":          n0,
			"epsilon":             eps,
			"sigma_s_per_m":       sigma,
			"mdvar":               float64(mdvar),
			"time_pct":            tp,
			"location_pct":        lp,
			"situation_pct":       sit,
			"warning_bits":        float64(res.Warnings),
			"profile_resampled":   b2f(resampled),
			"profile_spacing_m":   pfl[1],
		},
	}
	if im.Mode != itm.ModeLineOfSight {
		pred.Intermediate["d_x_km"] = im.CrossoverDistM / 1000
		pred.Intermediate["a_diff_at_d_x_db"] = im.DiffractionAtCrossoverDB
	}
	if im.Mode == itm.ModeTroposcatter {
		pred.Warnings = append(pred.Warnings, appliance.Warning{Code: appliance.WarnITMTroposcatter,
			Message: itmTroposcatterMessage(im, res.Warnings)})
	}
	if resampled {
		pred.Warnings = append(pred.Warnings, appliance.Warning{Code: appliance.WarnProfileResampled,
			Message: fmt.Sprintf("the profile was not equally spaced: ITM re-interpolated its heights at %.3f m spacing", pfl[1])})
	}
	r.geometry(in, &pred)
	return pred, nil
}
