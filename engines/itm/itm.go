package itm

import (
	"fmt"

	"linkplan/appliance"
)

// Radio climate codes (the ITM "climate" input).
const (
	ClimateEquatorial                = 1
	ClimateContinentalSubtropical    = 2
	ClimateMaritimeSubtropical       = 3
	ClimateDesert                    = 4
	ClimateContinentalTemperate      = 5
	ClimateMaritimeTemperateOverLand = 6
	ClimateMaritimeTemperateOverSea  = 7
)

// Polarisation codes (the ITM "pol" input). Note that ITU-R P.1812 numbers
// them 1 and 2 instead.
const (
	PolHorizontal = 0
	PolVertical   = 1
)

// Modes of variability (the ITM "mdvar" input). Add MdVarNoLocation and/or
// MdVarNoSituation to one of the four base modes.
const (
	MdVarSingleMessage = 0  // time, location and situation merged into one
	MdVarAccidental    = 1  // location merged with situation
	MdVarMobile        = 2  // location merged with time
	MdVarBroadcast     = 3  // time and location kept apart
	MdVarNoLocation    = 10 // eliminates location variability (p2p use)
	MdVarNoSituation   = 20 // eliminates direct situation variability (interference use)
)

// Siting criteria for area mode.
const (
	SitingRandom      = 0
	SitingCareful     = 1
	SitingVeryCareful = 2
)

// PropMode is the propagation mode that ITM v1.4 reports. It only says on
// which side of the smooth-earth line-of-sight distance d_sML (and of the
// diffraction/troposcatter crossover) the path length lies; it is not the
// terrain-obstruction status of the path.
type PropMode int

// Propagation modes, with the NTIA v1.4 values.
const (
	ModeLineOfSight  PropMode = 1
	ModeDiffraction  PropMode = 2
	ModeTroposcatter PropMode = 3
)

// String names the mode as NTIA's driver does, in lower case.
func (m PropMode) String() string {
	switch m {
	case ModeLineOfSight:
		return "line of sight"
	case ModeDiffraction:
		return "diffraction"
	case ModeTroposcatter:
		return "troposcatter"
	}
	return fmt.Sprintf("mode(%d)", int(m))
}

// P2PInput is one point-to-point prediction request.
type P2PInput struct {
	// PFL is the terrain profile from TX to RX in the ITM PFL convention:
	// PFL[0] = np, the number of intervals (points − 1); PFL[1] = xi, the
	// spacing in metres; PFL[2:] = the np+1 elevations z_0..z_np in metres
	// above sea level. len(PFL) must be np+3. The path length is np·xi metres.
	PFL []float64
	// HTxM and HRxM are the structural antenna heights above ground, metres.
	HTxM, HRxM float64
	// ClimateCode is the radio climate, 1..7 (ClimateEquatorial...).
	ClimateCode int
	// N0 is the surface refractivity reduced to sea level, N-units
	// (250..400). The model uses N_s = N0·exp(−h_sys/9460 m), h_sys being
	// the mean elevation of the middle 80 % of the profile.
	N0 float64
	// FreqMHz is the carrier frequency, MHz (20..20000).
	FreqMHz float64
	// Pol is the polarisation: PolHorizontal (0) or PolVertical (1).
	Pol int
	// Epsilon is the relative permittivity of the ground (≥ 1).
	Epsilon float64
	// SigmaSm is the ground conductivity, S/m (> 0).
	SigmaSm float64
	// MdVar is the mode of variability: 0..3 plus 10 and/or 20.
	MdVar int
}

// AreaInput is one area-mode prediction request.
type AreaInput struct {
	// DistKm is the path length, km (> 0).
	DistKm float64
	// DeltaHM is the terrain irregularity parameter Δh, metres (≥ 0).
	DeltaHM float64
	// HTxM and HRxM are the structural antenna heights above ground, metres.
	HTxM, HRxM float64
	// TxSiting and RxSiting are the siting criteria, 0..2 (SitingRandom...).
	TxSiting, RxSiting int
	// ClimateCode is the radio climate, 1..7.
	ClimateCode int
	// N0 is the surface refractivity, N-units (250..400). Area mode uses it
	// as N_s unchanged.
	N0 float64
	// FreqMHz is the carrier frequency, MHz (20..20000).
	FreqMHz float64
	// Pol is the polarisation: PolHorizontal (0) or PolVertical (1).
	Pol int
	// Epsilon is the relative permittivity of the ground (≥ 1).
	Epsilon float64
	// SigmaSm is the ground conductivity, S/m (> 0).
	SigmaSm float64
	// MdVar is the mode of variability: 0..3 plus 10 and/or 20.
	MdVar int
}

// Intermediate holds the values ITM computes on the way to the loss, as the
// NTIA "_Ex" entry points report them. Index 0 is the TX terminal, 1 the RX.
type Intermediate struct {
	DistKm          float64    // path length d, km
	ThetaHznRad     [2]float64 // horizon elevation angles θ_hzn, radians (NTIA prints mrad)
	DHznM           [2]float64 // horizon distances d_hzn, metres
	HEffM           [2]float64 // effective antenna heights h_e, metres
	Ns              float64    // surface refractivity N_s, N-units
	DeltaHM         float64    // terrain irregularity Δh, metres
	ARefDB          float64    // reference attenuation A_ref (median, relative to free space), dB
	FreeSpaceLossDB float64    // free-space basic transmission loss A_fs, dB
	Mode            PropMode   // propagation mode
	EffEarthRadiusM float64    // effective earth radius a_e = 1/γ_e, metres
	// CrossoverDistM is d_x, the distance where NTIA ties the troposcatter
	// line to the diffraction line, metres (10 000 km when no scatter
	// value is usable), and DiffractionAtCrossoverDB the diffraction
	// line's attenuation there, dB. In troposcatter mode A_ref =
	// DiffractionAtCrossoverDB + m_s·(d − d_x). Both are 0 in line-of-sight
	// mode, where NTIA does not compute them; NTIA's _Ex entry points do
	// not report them.
	CrossoverDistM           float64
	DiffractionAtCrossoverDB float64
}

// Result is one ITM prediction.
type Result struct {
	// LossDB is the basic transmission loss at the requested quantiles, dB
	// (free-space loss included).
	LossDB float64
	// Warnings flags conditions the caller should know; zero when none.
	Warnings Warning
	// Intermediate holds the values computed on the way.
	Intermediate Intermediate
}

// ReturnCode is the NTIA v1.4 return code of a successful call: 0 without
// warnings, 1 with warnings.
func (r Result) ReturnCode() int {
	if r.Warnings != 0 {
		return 1
	}
	return 0
}

// P2PTLS predicts the basic transmission loss of a terrain profile with
// variability given as time, location and situation percentages, each
// strictly between 0 and 100 (ITM_P2P_TLS_Ex).
func P2PTLS(in P2PInput, timePct, locPct, sitPct float64) (Result, error) {
	var v appliance.ValidationError
	validateCommon(&v, in.HTxM, in.HRxM, in.ClimateCode, in.N0, in.FreqMHz, in.Pol, in.Epsilon, in.SigmaSm, in.MdVar)
	checkPct(&v, "time_pct", timePct)
	checkPct(&v, "location_pct", locPct)
	checkPct(&v, "situation_pct", sitPct)
	validatePFL(&v, in.PFL)
	if err := invalid(v); err != nil {
		return Result{}, fmt.Errorf("itm p2p: %w", err)
	}
	return p2p(in, timePct, locPct, sitPct)
}

// P2PCR predicts the basic transmission loss of a terrain profile with
// variability given as confidence and reliability percentages, each strictly
// between 0 and 100 (ITM_P2P_CR_Ex). It equals P2PTLS with time =
// reliability, location = 50 and situation = confidence.
func P2PCR(in P2PInput, confPct, relPct float64) (Result, error) {
	var v appliance.ValidationError
	validateCommon(&v, in.HTxM, in.HRxM, in.ClimateCode, in.N0, in.FreqMHz, in.Pol, in.Epsilon, in.SigmaSm, in.MdVar)
	checkPct(&v, "confidence_pct", confPct)
	checkPct(&v, "reliability_pct", relPct)
	validatePFL(&v, in.PFL)
	if err := invalid(v); err != nil {
		return Result{}, fmt.Errorf("itm p2p: %w", err)
	}
	return p2p(in, relPct, 50, confPct)
}

// AreaTLS predicts the basic transmission loss in area mode with variability
// given as time, location and situation percentages (ITM_AREA_TLS_Ex).
func AreaTLS(in AreaInput, timePct, locPct, sitPct float64) (Result, error) {
	var v appliance.ValidationError
	validateArea(&v, in)
	checkPct(&v, "time_pct", timePct)
	checkPct(&v, "location_pct", locPct)
	checkPct(&v, "situation_pct", sitPct)
	if err := invalid(v); err != nil {
		return Result{}, fmt.Errorf("itm area: %w", err)
	}
	return area(in, timePct, locPct, sitPct)
}

// AreaCR predicts the basic transmission loss in area mode with variability
// given as confidence and reliability percentages (ITM_AREA_CR_Ex): AreaTLS
// with time = reliability, location = 50 and situation = confidence.
func AreaCR(in AreaInput, confPct, relPct float64) (Result, error) {
	var v appliance.ValidationError
	validateArea(&v, in)
	checkPct(&v, "confidence_pct", confPct)
	checkPct(&v, "reliability_pct", relPct)
	if err := invalid(v); err != nil {
		return Result{}, fmt.Errorf("itm area: %w", err)
	}
	return area(in, relPct, 50, confPct)
}

// invalid returns v as an error when it holds a field (copied, so that the
// successful path does not allocate).
func invalid(v appliance.ValidationError) error {
	if len(v.Fields) == 0 {
		return nil
	}
	ve := v
	return &ve
}

// p2p runs the point-to-point model on validated input.
func p2p(in P2PInput, timePct, locPct, sitPct float64) (Result, error) {
	return p2pWith(fastKernels(), in, timePct, locPct, sitPct)
}

func p2pWith(k terrainKernels, in P2PInput, timePct, locPct, sitPct float64) (Result, error) {
	const modeName = "p2p"
	var res Result
	res.Warnings = inputWarnings(in.HTxM, in.HRxM, in.FreqMHz)
	np := int(in.PFL[0])
	xi := in.PFL[1]
	z := in.PFL[2 : np+3]

	im := &res.Intermediate
	im.DistKm = in.PFL[0] * xi / 1000

	hSys := systemElevation(z)
	g := newGround(in.FreqMHz, hSys, in.N0, in.Pol, in.Epsilon, in.SigmaSm)
	h := [2]float64{in.HTxM, in.HRxM}
	pp := quickPflWith(k, z, xi, 1/g.gammaE, h)

	ref, err := longleyRice(&pp, in.FreqMHz, g, h, true, &res.Warnings)
	if err != nil {
		return Result{}, fmt.Errorf("itm p2p: %w", err)
	}
	afs := freeSpaceLoss(pp.d, in.FreqMHz)
	res.LossDB = variability(timePct, locPct, sitPct, pp.he, pp.deltaH, in.FreqMHz, pp.d, ref.aRef,
		in.ClimateCode, in.MdVar, &res.Warnings) + afs

	im.ThetaHznRad = pp.theta
	im.DHznM = pp.dHzn
	im.HEffM = pp.he
	im.Ns = g.ns
	im.DeltaHM = pp.deltaH
	im.ARefDB = ref.aRef
	im.FreeSpaceLossDB = afs
	im.Mode = ref.mode
	im.EffEarthRadiusM = 1 / g.gammaE
	im.CrossoverDistM, im.DiffractionAtCrossoverDB = ref.dx, ref.aDiffDx
	if err := checkFinite(res); err != nil {
		return Result{}, fmt.Errorf("itm %s: %w", modeName, err)
	}
	return res, nil
}

// area runs the area-mode model on validated input.
func area(in AreaInput, timePct, locPct, sitPct float64) (Result, error) {
	const modeName = "area"
	var res Result
	res.Warnings = inputWarnings(in.HTxM, in.HRxM, in.FreqMHz)
	g := newGround(in.FreqMHz, 0, in.N0, in.Pol, in.Epsilon, in.SigmaSm)
	h := [2]float64{in.HTxM, in.HRxM}
	pp := initArea([2]int{in.TxSiting, in.RxSiting}, g.gammaE, in.DeltaHM, h)
	pp.d = in.DistKm * 1000

	ref, err := longleyRice(&pp, in.FreqMHz, g, h, false, &res.Warnings)
	if err != nil {
		return Result{}, fmt.Errorf("itm area: %w", err)
	}
	afs := freeSpaceLoss(pp.d, in.FreqMHz)
	res.LossDB = afs + variability(timePct, locPct, sitPct, pp.he, pp.deltaH, in.FreqMHz, pp.d, ref.aRef,
		in.ClimateCode, in.MdVar, &res.Warnings)

	im := &res.Intermediate
	im.DistKm = in.DistKm
	im.ThetaHznRad = pp.theta
	im.DHznM = pp.dHzn
	im.HEffM = pp.he
	im.Ns = g.ns
	im.DeltaHM = pp.deltaH
	im.ARefDB = ref.aRef
	im.FreeSpaceLossDB = afs
	im.Mode = ref.mode
	im.EffEarthRadiusM = 1 / g.gammaE
	im.CrossoverDistM, im.DiffractionAtCrossoverDB = ref.dx, ref.aDiffDx
	if err := checkFinite(res); err != nil {
		return Result{}, fmt.Errorf("itm %s: %w", modeName, err)
	}
	return res, nil
}
