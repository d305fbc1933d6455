package raytrace

import "linkplan/appliance"

// The engine's request and answer types are the appliance's ray-tracing
// vocabulary (appliance/raytrace.go), under the engine's names, so that the
// services and web/api that ask for a trace import no engine (the import
// rules of appliance/doc.go).

// Options select the interactions traced (appliance.RaytraceOptions).
type Options = appliance.RaytraceOptions

// SumMode says how the paths' fields are added.
type SumMode = appliance.RaytraceSumMode

// Polarization of both antennas (co-polarised link).
type Polarization = appliance.RaytracePolarization

// Pattern is an antenna's gain, dBi, toward a direction (nil: isotropic).
type Pattern = appliance.RaytracePattern

// Antenna is one end of a link.
type Antenna = appliance.RaytraceAntenna

// PointRequest asks for every path between two antennas.
type PointRequest = appliance.RaytracePointRequest

// Interaction is one event of a path.
type Interaction = appliance.RaytraceInteraction

// Path is one propagation path.
type Path = appliance.RaytracePath

// Result is the answer for one receiver.
type Result = appliance.RaytraceResult

// MapRequest asks for a radio map.
type MapRequest = appliance.RaytraceMapRequest

// MapResult holds one value per pixel of a radio map.
type MapResult = appliance.RaytraceMapResult

// Frame is a scene's local frame (equirectangular, metres).
type Frame = appliance.LocalFrame

// Sum modes and polarisations.
const (
	SumCoherent   = appliance.RaytraceSumCoherent
	SumPower      = appliance.RaytraceSumPower
	PolVertical   = appliance.RaytracePolVertical
	PolHorizontal = appliance.RaytracePolHorizontal
)

// Limits and defaults of Options and of the requests.
const (
	DefaultMaxReflections    = appliance.RaytraceDefaultMaxReflections
	MaxReflections           = appliance.RaytraceMaxReflections
	DefaultDiffractionRangeM = appliance.RaytraceDefaultDiffractionRangeM // metres
	MaxDiffractionRangeM     = appliance.RaytraceMaxDiffractionRangeM     // metres
	MinFreqMHz               = appliance.RaytraceMinFreqMHz               // MHz
	MaxFreqMHz               = appliance.RaytraceMaxFreqMHz               // MHz
	MaxMapReceivers          = appliance.RaytraceMaxMapReceivers
)

// DefaultOptions returns appliance.DefaultRaytraceOptions: order 2
// reflections, diffraction within 250 m, ground reflection, coherent sum,
// vertical polarisation.
func DefaultOptions() Options { return appliance.DefaultRaytraceOptions() }

// NewFrame returns the frame about origin (appliance.NewLocalFrame).
func NewFrame(origin appliance.LatLon) Frame { return appliance.NewLocalFrame(origin) }

func validateFreq(v *appliance.ValidationError, freqMHz float64) {
	appliance.ValidateRaytraceFreq(v, freqMHz)
}

func validateAntenna(v *appliance.ValidationError, field string, a Antenna) { a.Validate(v, field) }
