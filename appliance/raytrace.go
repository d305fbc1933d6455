package appliance

import (
	"context"
	"math"
)

// The ray tracer's vocabulary: what a service asks the raytrace engine
// (RaytracePointRequest, RaytraceMapRequest with RaytraceOptions), what it
// answers (RaytraceResult, RaytraceMapResult), the local frame positions
// are traced in (LocalFrame) and the reference to a building layer's scene
// that its executor computes on (RaytraceScene). engines/raytrace computes
// them (its Options, Antenna, PointRequest, ... are these types under
// their engine names); appliance/raytracing and web/api speak them without
// importing the engine (doc.go, import rules).

// RaytraceMaxFrameM is how far from a scene's origin a transmitter or
// receiver may be, metres: the local frame's (LocalFrame) distortion stays
// below 0.2 % there.
const RaytraceMaxFrameM = 20000.0

// Limits and defaults of RaytraceOptions and of the requests.
const (
	RaytraceDefaultMaxReflections    = 2        // reflection order
	RaytraceMaxReflections           = 3        // reflection order
	RaytraceDefaultDiffractionRangeM = 250.0    // metres
	RaytraceMaxDiffractionRangeM     = 2000.0   // metres
	RaytraceMinFreqMHz               = 100.0    // MHz
	RaytraceMaxFreqMHz               = 100000.0 // MHz
	// RaytraceMaxMapReceivers bounds the receivers (pixels) of one map
	// request.
	RaytraceMaxMapReceivers = 4 << 20
)

// RaytraceSumMode says how the paths' fields are added.
type RaytraceSumMode string

// Sum modes: the coherent (phasor) sum gives the small-scale field at one
// point, fading included; the power sum adds the paths' powers and gives
// the local mean, the usual basis of a coverage map.
const (
	RaytraceSumCoherent RaytraceSumMode = "coherent"
	RaytraceSumPower    RaytraceSumMode = "power"
)

// RaytracePolarization is the polarisation of both antennas (co-polarised
// link).
type RaytracePolarization string

// Polarisations: vertical (the field along θ̂, in the vertical plane of
// the ray) or horizontal (along φ̂ = ẑ × k̂).
const (
	RaytracePolVertical   RaytracePolarization = "vertical"
	RaytracePolHorizontal RaytracePolarization = "horizontal"
)

// RaytraceOptions select the interactions traced.
type RaytraceOptions struct {
	// MaxReflections is the highest order of specular reflection (walls,
	// roofs and ground), 0..RaytraceMaxReflections.
	MaxReflections int `json:"max_reflections"`
	// Diffraction adds first-order UTD diffraction at vertical corners and
	// roof edges within DiffractionRangeM metres of the receiver (2D).
	Diffraction bool `json:"diffraction"`
	// DiffractionRangeM bounds, in metres (2D, from either antenna), the
	// diffracting edges and the walls that scatter (DiffuseScattering).
	DiffractionRangeM float64 `json:"diffraction_range_m"`
	// GroundReflection lets the ground plane reflect.
	GroundReflection bool `json:"ground_reflection"`
	// Transmission lets the direct path cross walls and roofs, each
	// crossing a single-layer P.2040 slab; otherwise a building blocks it.
	Transmission bool `json:"transmission"`
	// DiffuseScattering is the scattering coefficient S (dimensionless)
	// of the walls' effective roughness model (engines/raytrace
	// scatter.go), 0 (off) to 1: the walls within DiffractionRangeM (2D)
	// of either antenna that see both scatter the fraction S² of their
	// incident power (Lambertian), and their specular reflections keep
	// √(1 − S²) of the field.
	DiffuseScattering float64 `json:"diffuse_scattering,omitempty"`
	// ReflectionDiffraction adds the paths that meet one wall before a
	// diffracting edge, one after it, or one on each side, with at most
	// MaxReflections walls in all (engines/raytrace rd.go). Needs
	// Diffraction.
	ReflectionDiffraction bool `json:"reflection_diffraction,omitempty"`
	// ScatteringReflections lets each leg of the walls' scattering also
	// take one specular wall reflection (a wall facing the antenna within
	// DiffractionRangeM, 2D): Tx–wall–tile–Rx, Tx–tile–wall–Rx and
	// Tx–wall–tile–wall–Rx (engines/raytrace scatter.go). Needs
	// DiffuseScattering > 0.
	ScatteringReflections bool `json:"scattering_reflections,omitempty"`
	// ClutterBeyondExtent treats the ground beyond the building layer's
	// extent as covered by unknown buildings of the layer's median height:
	// the part of every path segment outside the extent is attenuated by
	// the knife-edge loss of its most obstructing sample of that clutter
	// (with the terrain's, one J(ν) a segment), as ITU-R P.1812 adds a
	// representative clutter height to the terrain profile.
	ClutterBeyondExtent bool                 `json:"clutter_beyond_extent,omitempty"`
	Sum                 RaytraceSumMode      `json:"sum"`
	Polarization        RaytracePolarization `json:"polarization"`
}

// DefaultRaytraceOptions returns order 2 reflections, diffraction within
// 250 m, ground reflection, no transmission, no diffuse scattering, no
// reflection–diffraction paths, no clutter beyond the layer's extent,
// coherent sum, vertical polarisation: the engine's own defaults. The
// answers of the API and of maps use the raytrace service's instead
// (appliance/raytracing DefaultOptions and DefaultMapOptions: the
// Dortmund-validated scattering, reflection–diffraction and clutter on).
func DefaultRaytraceOptions() RaytraceOptions {
	return RaytraceOptions{MaxReflections: RaytraceDefaultMaxReflections, Diffraction: true, DiffractionRangeM: RaytraceDefaultDiffractionRangeM,
		GroundReflection: true, Sum: RaytraceSumCoherent, Polarization: RaytracePolVertical}
}

// Validate adds to v the options out of their bounds, each named by its
// JSON field.
func (o RaytraceOptions) Validate(v *ValidationError) {
	if o.MaxReflections < 0 || o.MaxReflections > RaytraceMaxReflections {
		v.Add("max_reflections", "must be between 0 and %d, got %d", RaytraceMaxReflections, o.MaxReflections)
	}
	// the range bounds the diffracting edges and the scattering walls
	if (o.Diffraction || o.DiffuseScattering > 0) && (!(o.DiffractionRangeM > 0) || o.DiffractionRangeM > RaytraceMaxDiffractionRangeM) {
		v.Add("diffraction_range_m", "must be in (0, %g] metres, got %g", RaytraceMaxDiffractionRangeM, o.DiffractionRangeM)
	}
	if !(o.DiffuseScattering >= 0 && o.DiffuseScattering <= 1) {
		v.Add("diffuse_scattering", "must be between 0 and 1, got %g", o.DiffuseScattering)
	}
	if o.Sum != RaytraceSumCoherent && o.Sum != RaytraceSumPower {
		v.Add("sum", "must be %q or %q, got %q", RaytraceSumCoherent, RaytraceSumPower, o.Sum)
	}
	if o.Polarization != RaytracePolVertical && o.Polarization != RaytracePolHorizontal {
		v.Add("polarization", "must be %q or %q, got %q", RaytracePolVertical, RaytracePolHorizontal, o.Polarization)
	}
}

// ValidateRaytraceFreq adds to v ("frequency_mhz") a frequency, MHz,
// outside RaytraceMinFreqMHz..RaytraceMaxFreqMHz.
func ValidateRaytraceFreq(v *ValidationError, freqMHz float64) {
	if math.IsNaN(freqMHz) || freqMHz < RaytraceMinFreqMHz || freqMHz > RaytraceMaxFreqMHz {
		v.Add("frequency_mhz", "must be between %g and %g MHz, got %g", RaytraceMinFreqMHz, RaytraceMaxFreqMHz, freqMHz)
	}
}

// RaytracePattern is an antenna's gain, dBi, toward the direction with
// azimuth azDeg (degrees clockwise from north) and elevation elDeg
// (degrees above the horizontal), boresight and tilt included. A nil
// RaytracePattern is an isotropic antenna (0 dBi).
type RaytracePattern func(azDeg, elDeg float64) float64

// RaytraceAntenna is one end of a traced link.
type RaytraceAntenna struct {
	Pos     LatLon          `json:"pos"`      // WGS84 degrees
	HeightM float64         `json:"height_m"` // above the ground, metres
	Pattern RaytracePattern `json:"-"`
}

// Validate adds to v the antenna's invalid position and height, named
// field+".pos" and field+".height_m".
func (a RaytraceAntenna) Validate(v *ValidationError, field string) {
	if !a.Pos.Valid() {
		v.Add(field+".pos", "must be a valid WGS84 position")
	}
	if math.IsNaN(a.HeightM) || a.HeightM <= 0 || a.HeightM > 3000 {
		v.Add(field+".height_m", "must be in (0, 3000] metres, got %g", a.HeightM)
	}
}

// RaytracePointRequest asks for every path between two antennas.
type RaytracePointRequest struct {
	Tx, Rx     RaytraceAntenna
	FreqMHz    float64 // MHz
	TxPowerDBm float64 // power into the transmitting antenna, dBm
	Options    RaytraceOptions
}

// Validate checks a point request (not its positions against a scene's
// frame: the engine does that).
func (r RaytracePointRequest) Validate() error {
	v := &ValidationError{}
	ValidateRaytraceFreq(v, r.FreqMHz)
	r.Tx.Validate(v, "tx")
	r.Rx.Validate(v, "rx")
	if math.IsNaN(r.TxPowerDBm) || math.IsInf(r.TxPowerDBm, 0) {
		v.Add("tx_power_dbm", "must be finite")
	}
	r.Options.Validate(v)
	return v.Err()
}

// RaytraceInteraction is one event of a path.
type RaytraceInteraction struct {
	// Kind is "reflection", "diffraction" or "transmission".
	Kind string `json:"kind"`
	// Surface is "wall", "roof" or "ground" (reflection, transmission),
	// "vertical_edge" or "roof_edge" (diffraction).
	Surface  string  `json:"surface"`
	Building string  `json:"building,omitempty"` // Building.ID, "" for the ground
	Point    LatLon  `json:"point"`              // WGS84 degrees
	HeightM  float64 `json:"height_m"`           // metres above mean sea level
}

// RaytracePath is one propagation path.
type RaytracePath struct {
	// Kind is "los", "reflection", "diffraction" or "transmission" (the
	// direct path through walls).
	Kind         string                `json:"kind"`
	Interactions []RaytraceInteraction `json:"interactions"`
	LengthM      float64               `json:"length_m"` // unfolded length, metres
	DelayNs      float64               `json:"delay_ns"` // LengthM / c, nanoseconds
	// Departure: direction leaving the transmitter; arrival: direction at
	// the receiver toward where the wave comes from. Azimuth degrees
	// clockwise from north, elevation degrees above the horizontal.
	DepartureAzDeg float64 `json:"departure_az_deg"`
	DepartureElDeg float64 `json:"departure_el_deg"`
	ArrivalAzDeg   float64 `json:"arrival_az_deg"`
	ArrivalElDeg   float64 `json:"arrival_el_deg"`
	// FieldRe, FieldIm are the complex amplitude a of the path: the
	// received voltage relative to the transmitted one, so that |a|² is
	// the path's gain (antenna gains included, dimensionless).
	FieldRe  float64 `json:"field_re"`
	FieldIm  float64 `json:"field_im"`
	GainDB   float64 `json:"gain_db"`   // 20·log10|a|, dB
	PowerDBm float64 `json:"power_dbm"` // TxPowerDBm + GainDB, dBm
}

// RaytraceResult is the answer for one receiver.
type RaytraceResult struct {
	EngineVersion string         `json:"engine_version"`
	Paths         []RaytracePath `json:"paths"`
	// Reachable is false when no path exists; the power fields are then 0
	// and meaningless.
	Reachable bool `json:"reachable"`
	// ReceivedPowerDBm (dBm) is CoherentPowerDBm or PowerSumDBm per
	// Options.Sum; PathLossDB (dB) = TxPowerDBm − ReceivedPowerDBm
	// (antenna gains included: the basic transmission loss for isotropic
	// antennas).
	ReceivedPowerDBm float64 `json:"received_power_dbm"`
	CoherentPowerDBm float64 `json:"coherent_power_dbm"`
	PowerSumDBm      float64 `json:"power_sum_dbm"`
	PathLossDB       float64 `json:"path_loss_db"`
	// RMSDelaySpreadNs is the power-weighted RMS delay spread, ns.
	RMSDelaySpreadNs float64 `json:"rms_delay_spread_ns"`
	// LOS: the direct path is unobstructed by buildings and terrain.
	LOS bool `json:"los"`
	// Flags are the receiver's bits (engines/raytrace FlagLOS,
	// FlagAssumedHeight, …).
	Flags    uint8     `json:"flags"`
	Warnings []Warning `json:"warnings,omitempty"`
}

// RaytraceMapRequest asks for a radio map: receivers on a regular grid in
// the scene's frame, at RxHeightM above the ground.
type RaytraceMapRequest struct {
	Tx RaytraceAntenna
	// SouthWest is the centre of the first pixel (WGS84 degrees); pixel
	// (i, j) is StepM·i metres east and StepM·j metres north of it in the
	// scene's frame.
	SouthWest  LatLon
	StepM      float64 // metres
	NX, NY     int
	RxHeightM  float64 // metres above the ground
	RxPattern  RaytracePattern
	FreqMHz    float64 // MHz
	TxPowerDBm float64 // dBm
	Options    RaytraceOptions
	// Workers is the number of goroutines; 0 uses runtime.GOMAXPROCS. The
	// map is byte-identical whatever the number.
	Workers int
}

// Validate checks a map request (not its positions against a scene's
// frame: the engine does that).
func (r RaytraceMapRequest) Validate() error {
	v := &ValidationError{}
	ValidateRaytraceFreq(v, r.FreqMHz)
	r.Tx.Validate(v, "tx")
	if !r.SouthWest.Valid() {
		v.Add("south_west", "must be a valid WGS84 position")
	}
	if math.IsNaN(r.StepM) || r.StepM < 0.5 || r.StepM > 1000 {
		v.Add("step_m", "must be in [0.5, 1000] metres, got %g", r.StepM)
	}
	if r.NX < 1 || r.NY < 1 || r.NX*r.NY > RaytraceMaxMapReceivers || r.NX > RaytraceMaxMapReceivers || r.NY > RaytraceMaxMapReceivers {
		v.Add("nx", "nx and ny must be at least 1 with nx·ny ≤ %d, got %d×%d", RaytraceMaxMapReceivers, r.NX, r.NY)
	}
	if math.IsNaN(r.RxHeightM) || r.RxHeightM <= 0 || r.RxHeightM > 3000 {
		v.Add("rx_height_m", "must be in (0, 3000] metres, got %g", r.RxHeightM)
	}
	if math.IsNaN(r.TxPowerDBm) || math.IsInf(r.TxPowerDBm, 0) {
		v.Add("tx_power_dbm", "must be finite")
	}
	if r.Workers < 0 {
		v.Add("workers", "must not be negative")
	}
	r.Options.Validate(v)
	return v.Err()
}

// RaytraceMapResult holds one value per pixel, row-major from the
// south-west corner (index j·NX + i).
type RaytraceMapResult struct {
	EngineVersion string
	NX, NY        int
	// ReceivedPowerDBm (dBm) per Options.Sum; NaN where no path reaches
	// the pixel (engines/raytrace FlagNoPath).
	ReceivedPowerDBm []float32
	PathLossDB       []float32 // dB; NaN where no path
	RMSDelaySpreadNs []float32 // ns; NaN where no path
	Flags            []uint8   // engines/raytrace FlagLOS, FlagAssumedHeight, …
	// Warnings are the request's warnings (RequestWarnings) followed by
	// those of the flags over the map, with pixel counts (engines/raytrace
	// MapWarnings).
	Warnings []Warning
	// RequestWarnings are the warnings of the request itself, the same for
	// every part of a map: a material's fit extrapolated, the transmitter
	// inside a building.
	RequestWarnings []Warning
	// AssumedBuildings are the ids of the buildings with an assumed height
	// that shaped a path to any pixel, sorted.
	AssumedBuildings []string
	// Clutter is the scene's clutter beyond the layer's extent, the same
	// for every part of a map (engines/raytrace MapWarnings states it).
	Clutter RaytraceClutter
}

// RaytraceClutter is the clutter a scene models beyond its building
// layer's extent (RaytraceOptions.ClutterBeyondExtent).
type RaytraceClutter struct {
	// HeightM is the layer's median building height above its base,
	// metres.
	HeightM float64
	// Assumed: that median is a height some building took from the
	// layer's default rule (no height or storey count of its own).
	Assumed bool
}

// LocalFrame converts WGS84 positions to a scene's local frame and back:
// an equirectangular projection about Origin (x east, y north, metres) on
// the sphere of EarthRadiusM. Within 5 km of the origin the distance error
// is below 0.05 % (the convergence of meridians), well under a building's
// wall thickness for a city scene.
type LocalFrame struct {
	Origin LatLon // WGS84 degrees
	cosLat float64
}

// NewLocalFrame returns the frame about origin.
func NewLocalFrame(origin LatLon) LocalFrame {
	return LocalFrame{Origin: origin, cosLat: math.Cos(origin.Lat * math.Pi / 180)}
}

// ToLocal returns p in the frame, metres east (x) and north (y) of the
// origin.
func (f LocalFrame) ToLocal(p LatLon) (x, y float64) {
	x = (p.Lon - f.Origin.Lon) * math.Pi / 180 * EarthRadiusM * f.cosLat
	y = (p.Lat - f.Origin.Lat) * math.Pi / 180 * EarthRadiusM
	return x, y
}

// ToLatLon is the inverse of ToLocal: x, y metres east and north of the
// origin.
func (f LocalFrame) ToLatLon(x, y float64) LatLon {
	return LatLon{
		Lat: f.Origin.Lat + y/EarthRadiusM*180/math.Pi,
		Lon: f.Origin.Lon + x/(EarthRadiusM*f.cosLat)*180/math.Pi,
	}
}

// RaytraceScene names the scene of a building layer that a raytrace unit
// is computed on. The executor builds and caches scenes by Hash; it calls
// Load only when it does not hold the scene, and builds the scene from the
// layer and its buildings as the engine's layer index does (so the hashes
// agree; a scene of another hash is refused).
type RaytraceScene struct {
	// Hash is the hex SHA-256 of the built scene (everything it is built
	// from: buildings, materials, ground, terrain).
	Hash string
	// Load returns the layer and its buildings (read from the store by
	// the service, the only reader of tenant data); nil: the executor
	// must hold the scene.
	Load func(ctx context.Context) (*BuildingLayer, []Building, error)
}
