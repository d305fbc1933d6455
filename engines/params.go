package engines

import (
	"math"

	"linkplan/appliance"
	"linkplan/engines/itm"
	"linkplan/engines/p1411"
	"linkplan/engines/p1812"
)

// Polarisation names accepted by P1812Params and ITMParams.
const (
	PolVertical   = "vertical"   // the default of every engine here
	PolHorizontal = "horizontal" // horizontal polarisation
)

// Diffraction method names accepted by P1812Params.Diffraction.
const (
	DiffractionDeltaBullington = "delta-bullington" // P.1812-8 §4.3, the default
	DiffractionDeygout         = "deygout"          // three-edge Deygout (P.526), not part of P.1812-8
)

// P1812Params are the parameters of the p1812 engine. Unset fields (nil or
// "") take the registry default: ΔN and N0 from the refractivity source
// (the ITU-R maps when Config.RefractivityDir is set, else the Brazil
// defaults p1812.DefaultDeltaN = 50 N-units/km and p1812.DefaultN0 = 350
// N-units), vertical polarisation, delta-Bullington diffraction, the
// coast distances from the profile's zones.
type P1812Params struct {
	DeltaN       *float64 `json:"delta_n,omitempty"`      // ΔN, N-units/km, 0 < ΔN < 157
	N0           *float64 `json:"n0,omitempty"`           // sea-level surface refractivity, N-units, > 0
	Polarization string   `json:"polarization,omitempty"` // "vertical" (default) or "horizontal"
	Diffraction  string   `json:"diffraction,omitempty"`  // "delta-bullington" (default) or "deygout"
	DctKm        *float64 `json:"dct_km,omitempty"`       // TX distance over land to the coast, km, ≥ 0
	DcrKm        *float64 `json:"dcr_km,omitempty"`       // RX distance over land to the coast, km, ≥ 0
	// LocationAreaM is the side of the square area over which location
	// variability applies (§4.8), metres; default 100.
	LocationAreaM *float64 `json:"location_area_m,omitempty"`
}

// ITMParams are the parameters of the itm engine. Unset fields take the
// defaults: climate by the Brazil rule of Registry.ITMClimate, N0 from the
// refractivity maps when configured (clamped to 250–400) else the typical
// value of the climate (ITMClimateN0), ε = 15, σ = 0.005 S/m, mdvar 12
// (accidental, no location variability: the planner's point-to-point
// use), situation 50 %, vertical polarisation.
type ITMParams struct {
	Climate      int      `json:"climate,omitempty"`       // 1..7; 0 = the Brazil rule
	N0           *float64 `json:"n0,omitempty"`            // sea-level surface refractivity, N-units, 250–400
	Epsilon      *float64 `json:"epsilon,omitempty"`       // relative permittivity of the ground, ≥ 1
	SigmaSPerM   *float64 `json:"sigma_s_per_m,omitempty"` // ground conductivity, S/m, > 0
	MdVar        *int     `json:"mdvar,omitempty"`         // 0..3 plus 10 and/or 20
	SituationPct *float64 `json:"situation_pct,omitempty"` // situation (confidence) percentage, (0, 100)
	Polarization string   `json:"polarization,omitempty"`  // "vertical" (default) or "horizontal"
}

// P1411Params are the parameters of the p1411 engine.
type P1411Params struct {
	// Environment is one of P1411Environments; "" or "auto" selects it by
	// the criteria of the package documentation.
	Environment string `json:"environment,omitempty"`
}

// ITM defaults.
const (
	ITMDefaultEpsilon = 15.0  // relative permittivity (average ground)
	ITMDefaultSigma   = 0.005 // S/m (average ground)
	ITMDefaultMdVar   = itm.MdVarAccidental + itm.MdVarNoLocation
	ITMMinFreqMHz     = 20.0    // MHz
	ITMMaxFreqMHz     = 20000.0 // MHz
	ITMMinHeightM     = 0.5     // metres
	ITMMaxHeightM     = 3000.0  // metres
)

// P.1812 adapter limits beyond those of engines/p1812.
const (
	P1812MinDistKm         = 0.25  // km, the lower end of P.1812-8's scope
	P1812MaxDistKm         = 3000  // km
	P1812DefaultLocAreaM   = 100.0 // metres
	P1812CoastalMaxKm      = 50.0  // km: land this close to sea (and ≤ 100 m high) is coastal, Table 2
	P1812CoastalMaxHeightM = 100.0 // metres above sea level
	P1812FarCoastKm        = 500.0 // km, dct/dcr when the path crosses no sea
)

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func (p P1812Params) validate(v *appliance.ValidationError, pre string) {
	if p.DeltaN != nil && (!finite(*p.DeltaN) || *p.DeltaN <= 0 || *p.DeltaN >= 157) {
		v.Add(pre+".delta_n", "must be within (0, 157) N-units/km, got %g", *p.DeltaN)
	}
	if p.N0 != nil && (!finite(*p.N0) || *p.N0 <= 0 || *p.N0 > 500) {
		v.Add(pre+".n0", "must be within (0, 500] N-units, got %g", *p.N0)
	}
	if p.Polarization != "" && p.Polarization != PolVertical && p.Polarization != PolHorizontal {
		v.Add(pre+".polarization", "must be %q or %q, got %q", PolVertical, PolHorizontal, p.Polarization)
	}
	if p.Diffraction != "" && p.Diffraction != DiffractionDeltaBullington && p.Diffraction != DiffractionDeygout {
		v.Add(pre+".diffraction", "must be %q or %q, got %q", DiffractionDeltaBullington, DiffractionDeygout, p.Diffraction)
	}
	for _, c := range []struct {
		name string
		val  *float64
	}{{".dct_km", p.DctKm}, {".dcr_km", p.DcrKm}} {
		if c.val != nil && (!finite(*c.val) || *c.val < 0) {
			v.Add(pre+c.name, "must be a finite distance ≥ 0 km, got %g", *c.val)
		}
	}
	if p.LocationAreaM != nil && (!finite(*p.LocationAreaM) || *p.LocationAreaM <= 0 || *p.LocationAreaM > 10000) {
		v.Add(pre+".location_area_m", "must be within (0, 10000] m, got %g", *p.LocationAreaM)
	}
}

// over returns p with every field set in o replacing p's.
func (p P1812Params) over(o P1812Params) P1812Params {
	if o.DeltaN != nil {
		p.DeltaN = o.DeltaN
	}
	if o.N0 != nil {
		p.N0 = o.N0
	}
	if o.Polarization != "" {
		p.Polarization = o.Polarization
	}
	if o.Diffraction != "" {
		p.Diffraction = o.Diffraction
	}
	if o.DctKm != nil {
		p.DctKm = o.DctKm
	}
	if o.DcrKm != nil {
		p.DcrKm = o.DcrKm
	}
	if o.LocationAreaM != nil {
		p.LocationAreaM = o.LocationAreaM
	}
	return p
}

func (p P1812Params) diffraction() p1812.DiffractionMethod {
	if p.Diffraction == DiffractionDeygout {
		return p1812.DeygoutMethod
	}
	return p1812.DeltaBullingtonMethod
}

func (p P1812Params) pol() p1812.Polarization {
	if p.Polarization == PolHorizontal {
		return p1812.Horizontal
	}
	return p1812.Vertical
}

func (p ITMParams) validate(v *appliance.ValidationError, pre string) {
	if p.Climate != 0 && (p.Climate < 1 || p.Climate > 7) {
		v.Add(pre+".climate", "must be 1..7 (0 = by location), got %d", p.Climate)
	}
	if p.N0 != nil && (!finite(*p.N0) || *p.N0 < 250 || *p.N0 > 400) {
		v.Add(pre+".n0", "must be within 250–400 N-units, got %g", *p.N0)
	}
	if p.Epsilon != nil && (!finite(*p.Epsilon) || *p.Epsilon < 1) {
		v.Add(pre+".epsilon", "must be finite and ≥ 1, got %g", *p.Epsilon)
	}
	if p.SigmaSPerM != nil && (!finite(*p.SigmaSPerM) || *p.SigmaSPerM <= 0) {
		v.Add(pre+".sigma_s_per_m", "must be finite and > 0 S/m, got %g", *p.SigmaSPerM)
	}
	if p.MdVar != nil {
		base := *p.MdVar % 10
		rest := *p.MdVar - base
		if *p.MdVar < 0 || base > 3 || (rest != 0 && rest != 10 && rest != 20 && rest != 30) {
			v.Add(pre+".mdvar", "must be 0..3 plus 10 and/or 20, got %d", *p.MdVar)
		}
	}
	if p.SituationPct != nil && (!finite(*p.SituationPct) || *p.SituationPct <= 0 || *p.SituationPct >= 100) {
		v.Add(pre+".situation_pct", "must be within (0, 100) %%, got %g", *p.SituationPct)
	}
	if p.Polarization != "" && p.Polarization != PolVertical && p.Polarization != PolHorizontal {
		v.Add(pre+".polarization", "must be %q or %q, got %q", PolVertical, PolHorizontal, p.Polarization)
	}
}

func (p ITMParams) over(o ITMParams) ITMParams {
	if o.Climate != 0 {
		p.Climate = o.Climate
	}
	if o.N0 != nil {
		p.N0 = o.N0
	}
	if o.Epsilon != nil {
		p.Epsilon = o.Epsilon
	}
	if o.SigmaSPerM != nil {
		p.SigmaSPerM = o.SigmaSPerM
	}
	if o.MdVar != nil {
		p.MdVar = o.MdVar
	}
	if o.SituationPct != nil {
		p.SituationPct = o.SituationPct
	}
	if o.Polarization != "" {
		p.Polarization = o.Polarization
	}
	return p
}

// P1411 environment names accepted by P1411Params.Environment.
const (
	P1411Auto                     = "auto"
	P1411AboveLoS                 = "above-rooftop-los"
	P1411AboveNLoSUrbanHighRise   = "above-rooftop-nlos-urban-high-rise"
	P1411BelowLoS                 = "below-rooftop-los"
	P1411BelowNLoSUrbanHighRise   = "below-rooftop-nlos-urban-high-rise"
	P1411BelowNLoSUrbanLowRiseSub = "below-rooftop-nlos-urban-low-rise-suburban"
	P1411BelowNLoSResidential     = "below-rooftop-nlos-residential"
	P1411LowHeightSuburban        = "low-height-suburban"
	P1411LowHeightUrban           = "low-height-urban"
	P1411LowHeightDenseUrban      = "low-height-dense-urban"
	p1411EnvCodeAboveBase         = 10 // Intermediate "p1411_env_code": 10+AboveRooftopEnv
	p1411EnvCodeBelowBase         = 20 // 20+BelowRooftopEnv
	p1411EnvCodeLowBase           = 30 // 30+LowHeightEnv
	p1411EnvCodeUnknown           = 0
	p1411DefaultTransitionWidthM  = p1411.DefaultTransitionWidthM
	P1411MinFreqMHz               = 300.0   // MHz, the lowest frequency of any §4.x model (§4.3.1)
	P1411MaxFreqMHz               = 82000.0 // MHz, the highest (§4.1.1)
)

// P1411Environments lists the accepted environment names in a fixed order.
func P1411Environments() []string {
	return []string{P1411Auto, P1411AboveLoS, P1411AboveNLoSUrbanHighRise, P1411BelowLoS,
		P1411BelowNLoSUrbanHighRise, P1411BelowNLoSUrbanLowRiseSub, P1411BelowNLoSResidential,
		P1411LowHeightSuburban, P1411LowHeightUrban, P1411LowHeightDenseUrban}
}

func (p P1411Params) validate(v *appliance.ValidationError, pre string) {
	if p.Environment == "" {
		return
	}
	for _, e := range P1411Environments() {
		if e == p.Environment {
			return
		}
	}
	v.Add(pre+".environment", "unknown environment %q", p.Environment)
}

func (p P1411Params) over(o P1411Params) P1411Params {
	if o.Environment != "" {
		p.Environment = o.Environment
	}
	return p
}
