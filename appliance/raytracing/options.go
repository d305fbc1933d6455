package raytracing

import (
	"linkplan/appliance"
)

// DefaultDiffuseScattering is the walls' scattering coefficient S of the
// answers that do not name one (appliance.RaytraceOptions.DiffuseScattering,
// the effective-roughness model): 0.4, typical of the building walls
// measured by Degli-Esposti et al. (2007), the value the Dortmund drive
// tests were compared with (linkplan raytrace eval; package doc,
// "Options").
const DefaultDiffuseScattering = 0.4

// DefaultMapOptions are the options of a map that names none: the
// engine's defaults with the power sum (the local mean), the walls'
// scattering at DefaultDiffuseScattering and clutter beyond the layer's
// extent, but no reflection–diffraction paths (they cost a pixel near
// the transmitter about 50 times as much: a map that asks for them gets
// the tier's pixel cap divided by MapRDCostFactor, 80) and no
// reflections on the scattering's legs (about 5 times: the cap divided
// by MapSRCostFactor, 8).
func DefaultMapOptions() appliance.RaytraceOptions {
	o := appliance.DefaultRaytraceOptions()
	o.Sum = appliance.RaytraceSumPower
	o.DiffuseScattering = DefaultDiffuseScattering
	o.ClutterBeyondExtent = true
	return o
}

// DefaultReflectionDiffraction is the reflection–diffraction option of a
// request that does not name it, given def (the defaults of its kind,
// DefaultOptions or DefaultMapOptions) and opt (the options it names
// applied to def): the default's, where it applies (diffraction on and at
// least one reflection), so that a request turning diffraction or
// reflections off need not turn it off as well; a request that names it
// on where it does not apply is refused (validOptions).
func DefaultReflectionDiffraction(def, opt appliance.RaytraceOptions) bool {
	return def.ReflectionDiffraction && opt.Diffraction && opt.MaxReflections >= 1
}

// DefaultScatteringReflections is the scattering_reflections option of a
// request that does not name it: the default's where it applies (the
// walls scatter, S > 0), as DefaultReflectionDiffraction.
func DefaultScatteringReflections(def, opt appliance.RaytraceOptions) bool {
	return def.ScatteringReflections && opt.DiffuseScattering > 0
}

// validOptions adds the service's own rules on the options (the engine
// checks the ranges; diffraction_range_m also where the engine does not
// use it, with diffraction and scattering off): reflection–diffraction needs diffraction and at
// least one reflection (the engine would silently trace none of its
// paths), and the scattering's reflections need scattering (S = 0; a
// negative S is the engine's range error). field names the option as the
// request does.
func validOptions(v *appliance.ValidationError, opt appliance.RaytraceOptions, field func(string) string) {
	// the engine checks the range only where it bounds something
	// (diffraction or scattering on); an answer states its options, so a
	// range outside the documented bounds is refused whatever the others
	if !(opt.Diffraction || opt.DiffuseScattering > 0) && (!(opt.DiffractionRangeM > 0) || opt.DiffractionRangeM > appliance.RaytraceMaxDiffractionRangeM) {
		v.Add(field("diffraction_range_m"), "must be in (0, %g] metres, got %g", appliance.RaytraceMaxDiffractionRangeM, opt.DiffractionRangeM)
	}
	if opt.ReflectionDiffraction && (!opt.Diffraction || opt.MaxReflections < 1) {
		v.Add(field("reflection_diffraction"), "needs diffraction on and max_reflections of at least 1 (got diffraction %v, max_reflections %d): its paths meet a wall before or after a diffracting edge",
			opt.Diffraction, opt.MaxReflections)
	}
	if opt.ScatteringReflections && opt.DiffuseScattering == 0 {
		v.Add(field("scattering_reflections"), "needs diffuse_scattering above 0 (got %g): it adds wall reflections to the legs of the walls' scattering", opt.DiffuseScattering)
	}
}

// OptionsJSON are the options an answer was computed with, every one
// stated (the engine's Options omit the newer ones when off): the
// "options" of a link job's result and of a raytrace map's summary.
type OptionsJSON struct {
	MaxReflections        int     `json:"max_reflections"`
	Diffraction           bool    `json:"diffraction"`
	DiffractionRangeM     float64 `json:"diffraction_range_m"` // metres
	GroundReflection      bool    `json:"ground_reflection"`
	Transmission          bool    `json:"transmission"`
	DiffuseScattering     float64 `json:"diffuse_scattering"` // S, 0..1
	ReflectionDiffraction bool    `json:"reflection_diffraction"`
	ScatteringReflections bool    `json:"scattering_reflections"`
	ClutterBeyondExtent   bool    `json:"clutter_beyond_extent"`
	Sum                   string  `json:"sum"`
	Polarization          string  `json:"polarization"`
}

// EchoOptions states o for an answer.
func EchoOptions(o appliance.RaytraceOptions) OptionsJSON {
	return OptionsJSON{MaxReflections: o.MaxReflections, Diffraction: o.Diffraction, DiffractionRangeM: o.DiffractionRangeM,
		GroundReflection: o.GroundReflection, Transmission: o.Transmission, DiffuseScattering: o.DiffuseScattering,
		ReflectionDiffraction: o.ReflectionDiffraction, ScatteringReflections: o.ScatteringReflections, ClutterBeyondExtent: o.ClutterBeyondExtent,
		Sum: string(o.Sum), Polarization: string(o.Polarization)}
}
