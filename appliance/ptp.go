package appliance

// Point-to-point links (issue 25 scope 3): a link between two sites the
// engineer defines, with the engineer's radios and antennas, its budget
// per modulation and its ITU-R availability. appliance/ptp computes them;
// the API, the PDF report and the CLI show them.

// Polarization is the polarisation of a point-to-point link, which sets
// the P.838-3 rain coefficients.
type Polarization string

// Link polarisations. Dual (cross-polar, XPIC) links are dimensioned on
// their horizontal channel, the one rain attenuates more.
const (
	PolarizationVertical   Polarization = "vertical"
	PolarizationHorizontal Polarization = "horizontal"
	PolarizationDual       Polarization = "dual"
)

// TiltDeg returns the polarisation tilt from the horizontal of P.838-3
// eqs. (4)–(5), degrees: 0 horizontal (and dual), 90 vertical.
func (p Polarization) TiltDeg() float64 {
	if p == PolarizationVertical {
		return 90
	}
	return 0
}

// PTPEnd is one end of a point-to-point link as the engineer gives it.
type PTPEnd struct {
	// Name labels the site, e.g. "Sumaré" (optional).
	Name string
	Pos  LatLon // WGS84 degrees
	// HeightM is the antenna's height above ground, metres.
	HeightM float64
	// RadioID names a catalogue radio (a built-in or one of the tenant's);
	// "" when Radio is given inline. After the planner, Radio holds the
	// radio used either way.
	RadioID string
	Radio   *Radio
	// AntennaID names a catalogue antenna; "" when Antenna is given
	// inline. After the planner, Antenna holds the antenna used.
	AntennaID string
	Antenna   *Antenna
	// AzimuthDeg is the antenna's boresight bearing, degrees clockwise
	// from true north; NaN: aligned on the other end.
	AzimuthDeg float64
	// TiltDeg is the antenna's mechanical downtilt, degrees (positive
	// down); NaN: aligned on the other end's antenna.
	TiltDeg float64
	// CableLossDB is the feeder, connector and branching loss between the
	// radio and the antenna at this end, dB.
	CableLossDB float64
	// AnatelStation is the end's Anatel station number (número da
	// estação), when known; shown in the report.
	AnatelStation string
}

// PTPRequest asks for the budget and availability of one point-to-point
// link (POST /links/ptp).
type PTPRequest struct {
	A, B PTPEnd
	// FreqMHz is the carrier frequency, MHz; ChannelMHz the channel width,
	// MHz (one of the radios' widths).
	FreqMHz, ChannelMHz float64
	Polarization        Polarization
	// Engine computes the median path loss; "" is fspl.
	Engine EngineID
	// AvailabilityTargetPct is the availability the link must meet, % of
	// an average year (the highest mode that meets it is recommended);
	// 0: DefaultPTPTargetPct.
	AvailabilityTargetPct float64
	// R001MMH, when > 0, is a locally measured rain rate exceeded 0.01 %
	// of the year, mm/h, in place of the P.837-7 estimate.
	R001MMH float64
	// TenantID reads the catalogue ids as this tenant sees them.
	TenantID string
}

// DefaultPTPTargetPct is the availability target of a request that gives
// none, % of an average year.
const DefaultPTPTargetPct = 99.99

// PTPEndResult is what the planner found at one end.
type PTPEndResult struct {
	GroundM float64 // ground height, metres AMSL
	// TipM is the antenna's height above mean sea level (ground +
	// HeightM), metres.
	TipM float64
	// BearingDeg is the bearing toward the other end, degrees from true
	// north; ElevationDeg the angle below the horizontal at which the
	// antenna sees the other end's antenna on the k = 4/3 earth, degrees
	// (negative: above).
	BearingDeg, ElevationDeg float64
	// AzimuthDeg and TiltDeg are the pointing used (the request's, or the
	// aligned values when it gave none); Aligned* say which.
	AzimuthDeg, TiltDeg           float64
	AzimuthAligned, TiltAligned   bool
	AntennaGainDBi, AntennaLossDB float64 // peak gain, dBi; pattern attenuation toward the other end, dB
	// AntennaLabel names the mounted antenna and its tilt.
	AntennaLabel string
}

// PTPDirection is the budget of one direction of one mode.
type PTPDirection struct {
	TxPowerDBm     float64 // transmitter output, dBm
	EIRPDBm        float64 // Tx power − cable + gain − pattern loss, dBm
	RxLevelDBm     float64 // received level in clear air at the receiver's port, dBm
	SensitivityDBm float64 // the receiving radio's threshold in this mode, dBm
	FadeMarginDB   float64 // RxLevelDBm − SensitivityDBm, dB
}

// PTPAvailability is the ITU-R availability of one mode.
type PTPAvailability struct {
	// AvailabilityPct is 100 − UnavailabilityPct, % of an average year;
	// Bound says whether it is exact or a bound (engines/itur):
	// "exact", "at_least" or "at_most".
	AvailabilityPct      float64
	UnavailabilityPct    float64 // rain + multipath, % of an average year
	OutageMinutesPerYear float64 // minutes of a 365.25-day year
	RainPct              float64 // rain part, % of an average year (P.530 §2.4.1)
	RainRange            string  // "in_range", "below_range" or "above_range" of 0.001–1 %
	MultipathPct         float64 // multipath part, % of an average year (§2.3.4)
	MultipathWorstMonth  float64 // multipath, % of the average worst month (§2.3.2)
	Bound                string
	// MeetsTarget: AvailabilityPct ≥ the target and the figure is not an
	// upper bound.
	MeetsTarget bool
	// Warnings are the availability caveats at this margin.
	Warnings []Warning
}

// PTPMode is the budget and availability of one modulation and coding
// scheme.
type PTPMode struct {
	Name           string
	ThroughputMbps float64 // the slower of the two radios', Mbit/s
	AB, BA         PTPDirection
	// FadeMarginDB is the weaker direction's fade margin, dB: the one the
	// availability is computed for.
	FadeMarginDB float64
	// Availability is nil when it was not computed (PTPLink.Availability
	// false).
	Availability *PTPAvailability
}

// PTPRequiredMargin is the fade margin an availability target needs.
type PTPRequiredMargin struct {
	AvailabilityPct float64 // target, % of an average year
	// FadeMarginDB is the margin at which rain plus multipath leave
	// 100 − target, dB; Bound "exact", "at_most" (it suffices) or
	// "at_least" (it is necessary; P.530's rain range ends at 0.001 %).
	FadeMarginDB float64
	Bound        string
	// RainOnlyDB (NaN outside P.530's 0.001–1 %) and MultipathOnlyDB are
	// the margins if one cause alone had to leave 100 − target, dB.
	RainOnlyDB, MultipathOnlyDB float64
}

// PTPClearanceRule is one clearance criterion of the path at one
// effective earth radius factor.
type PTPClearanceRule struct {
	KFactor    float64 // effective earth radius factor, dimensionless
	F1Fraction float64 // required clearance, fraction of the first Fresnel zone radius
	Basis      string  // why the rule, e.g. "P.530-17 §2.2.2, median k"
	// ClearanceF1 is the smallest clearance / F1 over the intermediate
	// samples at this k; Met says whether it reaches F1Fraction.
	ClearanceF1 float64
	Met         bool
	// MinHeightA and MinHeightB are the smallest antenna heights above
	// ground at each end, the other as given, that meet the rule.
	MinHeightA, MinHeightB MinHeight
}

// PTPClimate is the climate behind the availability.
type PTPClimate struct {
	LatDeg, LonDeg float64 // where the maps were read: the path's mid-point
	R001MMH        float64 // rain rate exceeded 0.01 % of an average year, mm/h
	R001Source     string
	P0RainPct      float64 // annual probability of rain, %
	// GammaRDBPerKm is the rain specific attenuation at R0.01, dB/km;
	// A001DB the path's rain attenuation exceeded 0.01 % of the year, dB.
	GammaRDBPerKm, A001DB float64
	DN1                   float64 // P.453 refractivity gradient dN1, N-units/km
	SaM                   float64 // area terrain roughness, metres
	GeoclimaticK          float64 // P.530 eq. (4), dimensionless
	InclinationMrad       float64 // |εp|, mrad
	// GasDBPerKm is the gaseous specific attenuation (dry air + water
	// vapour), dB/km, for TemperatureK and WaterVapourGM3.
	GasDBPerKm, TemperatureK, WaterVapourGM3 float64
}

// PTPLink is the answer to a PTPRequest.
type PTPLink struct {
	// Request is the request with its defaults and each end's resolved
	// Radio and Antenna.
	Request    PTPRequest
	A, B       PTPEndResult
	DistanceKm float64 // great-circle distance, km
	// Prediction is the engine's median path loss A→B (the path is
	// reciprocal), with its clearance figures.
	Prediction LinkPrediction
	// GasAttenuationDB is the gaseous absorption of the path (ITU-R
	// P.676), dB, taken from the received level; 0 when Availability is
	// false.
	GasAttenuationDB float64
	// Path is the k = 4/3 path check (A is the transmitter end, index 0).
	Path *PathCheck
	// Clearance are the clearance rules at the usual k-factors.
	Clearance []PTPClearanceRule
	// Modes are the modes of A's radio at the channel width, most robust
	// first.
	Modes []PTPMode
	// Recommended is the index in Modes of the fastest mode that meets
	// AvailabilityTargetPct, -1 for none.
	Recommended           int
	AvailabilityTargetPct float64
	// Availability is false when the ITU-R methods could not be applied
	// (a frequency below 1 GHz, a mid-point outside the embedded maps):
	// a warning says why.
	Availability bool
	// Required are the margins for the standard targets (99.9, 99.99,
	// 99.999 %) and, when it is not one of them, the request's.
	Required []PTPRequiredMargin
	Climate  *PTPClimate
	// Sources name the Recommendations, their versions and the maps
	// behind the figures.
	Sources []string
	// Warnings are every caveat of the answer (path, engine, equipment,
	// availability), never nil.
	Warnings []Warning
}

// Point-to-point warning codes (appliance/ptp package doc).
const (
	// WarnAvailabilityNotComputed: the ITU-R availability methods could
	// not be applied to this link (below 1 GHz, outside the maps).
	WarnAvailabilityNotComputed = "availability_not_computed"
	// WarnAvailabilityObstructed: the path is not clear of the first
	// Fresnel zone at k = 4/3; P.530's fading methods assume a
	// line-of-sight path.
	WarnAvailabilityObstructed = "availability_on_obstructed_path"
	// WarnAntennaBand: an antenna's stated band or pattern frequency is
	// far from the link's frequency.
	WarnAntennaBand = "antenna_band_mismatch"
	// WarnAntennaMisaligned: an end's antenna, pointed as the request
	// says, loses more than 3 dB toward the other end.
	WarnAntennaMisaligned = "antenna_misaligned"
	// WarnClearanceRule: the path misses a P.530 §2.2.2 clearance rule.
	WarnClearanceRule = "clearance_rule_not_met"
	// WarnNoModeMeetsTarget: no mode meets the availability target.
	WarnNoModeMeetsTarget = "no_mode_meets_target"
	// WarnAvailabilityOutsideRange: an ITU-R availability method is used
	// outside the range it was tested or fitted on (the message says
	// which); the figures are extrapolations.
	WarnAvailabilityOutsideRange = "availability_outside_method_range"
	// WarnR001Annex1: R0.01 comes from the P.837-7 Annex 1 monthly method,
	// the P.837-7 R0.01 map not being embedded.
	WarnR001Annex1 = "rain_r001_annex1_method"
	// WarnNoFadeMargin: some modes do not close in clear air (fade margin
	// ≤ 0 dB in the weaker direction): their availability is 0.
	WarnNoFadeMargin = "no_fade_margin"
	// WarnAvailabilityBound: for some modes the availability figure is a
	// bound, rain falling outside P.530's 0.001–1 % (the message says
	// which modes and which way).
	WarnAvailabilityBound = "availability_is_a_bound"
)
