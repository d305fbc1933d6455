package appliance

import "fmt"

// LinkRequest asks which towers a receiver site can reach (POST /analyze_link).
type LinkRequest struct {
	Receiver      LatLon  // receiver position
	RxHeightM     float64 // receiver antenna height above ground, metres
	FreqMHz       float64 // carrier frequency, MHz
	MaxDistanceKm float64 // search radius, km
	// RxGainDBi is the receiver antenna gain, dBi.
	RxGainDBi float64
	// CableLossDB is the receiver feeder and connector loss, dB.
	CableLossDB float64
	// RxThresholdDBm is the receiver sensitivity the margin is measured
	// against, dBm.
	RxThresholdDBm float64
	// AssumedEIRPDBm is the transmitter EIRP, dBm, used for towers whose
	// source gives no ERP (crowd-sourced towers).
	AssumedEIRPDBm float64
	// Operator, when not empty, keeps only towers of that operator
	// (case-insensitive).
	Operator string
	// Engine is the propagation engine; empty means the default (fspl).
	Engine EngineID
	// MaxAlternatives is how many alternatives to return besides the best
	// tower, 0..5.
	MaxAlternatives int
	// TenantID scopes user-registered towers to their tenant; "" sees all.
	TenantID string
	// IncludeProfile asks for the PathCheck of every returned candidate
	// (request field include: ["profile"]).
	IncludeProfile bool
}

// LinkCandidate is the link budget of one tower for a receiver.
type LinkCandidate struct {
	Tower      *Tower
	DistanceKm float64 // great-circle distance receiver to tower, km
	// AzimuthDeg is the bearing from the receiver to the tower, degrees
	// clockwise from true north: where to point the receiver antenna.
	AzimuthDeg float64
	// TowerToRxDeg is the bearing from the tower to the receiver, degrees.
	TowerToRxDeg float64
	Prediction   LinkPrediction
	EIRPDBm      float64 // transmitter EIRP toward the main lobe, dBm
	EIRPAssumed  bool    // true when the tower has no ERP and AssumedEIRPDBm was used
	// PatternLossDB is the tower antenna's attenuation toward the
	// receiver relative to its main lobe, dB: horizontal and, when the
	// tower's tilt or pattern is known, vertical (appliance.Radiator).
	PatternLossDB float64
	// TowerElevationDeg is the angle below the horizontal at which the
	// tower's antenna sees the receiver's, degrees (negative: above),
	// on the k = 4/3 earth (ElevationDownDeg).
	TowerElevationDeg float64
	// Antenna names the tower antenna's model, e.g. "generic 65° sector".
	Antenna      string
	RxPowerDBm   float64 // predicted received power, dBm
	LinkMarginDB float64 // RxPowerDBm − RxThresholdDBm, dB
	TowerGroundM float64 // ground height at the tower, metres AMSL
	// Path is the checkable geometry of the path (profile, dominant
	// obstacle, minimum antenna heights); nil unless asked for.
	Path *PathCheck
	// Warnings are the conditions of this result the caller should know,
	// engine warnings included; never nil after the planner.
	Warnings []Warning
	// Calibration is the tenant's calibration of this tower's prediction
	// (issue 26): its offset is in RxPowerDBm and LinkMarginDB, not in
	// Prediction.PathLossDB. nil: not calibrated.
	Calibration *CalibrationInfo
}

// ProfilePoint is one sample of a checkable path profile. Heights are
// metres above mean sea level; the effective ground adds the earth bulge of
// the k = 4/3 effective earth to the ground, so that the line of sight is a
// straight line in the same frame.
type ProfilePoint struct {
	DistanceM        float64 // distance from the transmitter (tower), metres
	GroundM          float64 // ground height, metres AMSL
	EffectiveGroundM float64 // ground plus earth bulge (k = 4/3), metres
	LOSM             float64 // height of the straight line between the antenna tips, metres
	F1RadiusM        float64 // radius of the first Fresnel zone, metres
	VoidFilled       bool    // the ground height was interpolated across a DEM void
}

// Obstacle is the dominant obstacle of a path: the intermediate sample with
// the smallest clearance as a fraction of the first Fresnel zone radius.
type Obstacle struct {
	DistanceFromRxM  float64 // metres from the receiver
	DistanceFromTxM  float64 // metres from the transmitter (tower)
	GroundM          float64 // ground height, metres AMSL
	EffectiveGroundM float64 // ground plus earth bulge (k = 4/3), metres
	LOSM             float64 // line-of-sight height above it, metres
	ClearanceM       float64 // LOSM − EffectiveGroundM, metres; negative when the ground blocks the ray
	F1RadiusM        float64 // first Fresnel zone radius there, metres
	ClearanceF1      float64 // ClearanceM / F1RadiusM, dimensionless (0.6 is the usual design rule)
	VoidFilled       bool    // its height was interpolated across a DEM void
}

// MinHeight is the smallest antenna height above ground that meets a
// clearance rule with the other end as given.
type MinHeight struct {
	// HeightM is the height, metres above ground, rounded up to the next
	// centimetre; when Achievable is false it is the cap that was searched.
	HeightM float64
	// Achievable is false when no height up to the cap meets the rule.
	Achievable bool
}

// PathCheck is what an engineer needs to check a link result by hand: the
// profile, the dominant obstacle and the antenna heights that would give
// line of sight and 60 % first-Fresnel-zone clearance. It uses k = 4/3.
type PathCheck struct {
	KFactor float64 // effective earth radius factor, dimensionless (4/3)
	// EffEarthRadiusM is the effective earth radius k·a of the earth-bulge
	// correction, metres (a = 6 371 000 m).
	EffEarthRadiusM float64
	FreqMHz         float64 // frequency of the Fresnel radii, MHz
	TxHeightM       float64 // transmitter antenna height above ground used, metres
	RxHeightM       float64 // receiver antenna height above ground used, metres
	SamplesTotal    int     // samples of the computed terrain profile
	// Profile is the terrain profile from the transmitter to the receiver,
	// decimated to at most MaxProfilePoints points (planner package doc).
	Profile []ProfilePoint
	// Obstacle is the dominant obstacle; nil for a profile without an
	// intermediate sample.
	Obstacle *Obstacle
	// Minimum receiver heights with the tower as given.
	RxMinLOS, RxMinFresnel60 MinHeight
	// Minimum tower (transmitter) heights with the receiver as given.
	TxMinLOS, TxMinFresnel60 MinHeight
}

// LinkAnalysis is the answer to a LinkRequest.
type LinkAnalysis struct {
	Request         LinkRequest
	ReceiverGroundM float64 // ground height at the receiver, metres AMSL
	Best            *LinkCandidate
	Alternatives    []LinkCandidate
	Reason          string   // why Best is nil, when it is
	Engine          EngineID // engine requested (resolved default)
	EngineVersion   string   // version of the engine that produced Best's number
	// Warnings are the distinct warnings (by code) of the returned
	// candidates, best first, then the caveats of BestTowerCaveats whose
	// code none of them has; never nil after the planner.
	Warnings []Warning
	// BestTowerCaveats are the warnings that qualify the choice of Best
	// (synthetic_tower, position_uncertainty, stronger_tower_demoted;
	// planner package doc, "Ranking"); empty when Best is a real tower
	// with a well-known position and no result has a higher margin, or
	// when there is no Best; never nil after the planner.
	BestTowerCaveats []Warning
	InRange          int // towers within MaxDistanceKm (after the operator filter)
	// Evaluated counts the towers whose terrain path was computed: the
	// work of the engine's search, which differs between engines (planner
	// package doc, "Search").
	Evaluated int
	// Pruned counts towers proven unable to rank from a sparse profile of
	// their path (every SparseEvery-th sample), without the full path.
	Pruned int
	// SkippedNoTerrain counts the towers in range whose full terrain
	// profile meets a tile that no pack holds (or a void there), every one
	// of them whatever the engine and its pruning; MissingTiles names, for
	// each, the tile of the first sample that fails, from the tower.
	SkippedNoTerrain int
	MissingTiles     []string
	// SkippedOther counts towers in range that could not be evaluated for
	// another reason (co-located with the receiver, catalogue data an engine
	// refuses); SkipReasons holds up to 5 distinct reasons.
	SkippedOther    int
	SkipReasons     []string
	SyntheticTowers int // towers among the results that are synthetic sample data
}

// PairRequest asks for the link budget of one tower–receiver pair
// (POST /analyze). Either TowerID names a catalogued tower or Tower gives an
// ad-hoc transmitter.
type PairRequest struct {
	TowerID        string
	Tower          *Tower // used when TowerID is empty
	Receiver       LatLon
	RxHeightM      float64 // metres above ground
	FreqMHz        float64 // MHz
	RxGainDBi      float64 // dBi
	CableLossDB    float64 // dB
	RxThresholdDBm float64 // dBm
	AssumedEIRPDBm float64 // dBm, for a tower without ERP
	Engine         EngineID
	TenantID       string  // scopes user-registered towers; "" sees all
	TimePct        float64 // % of time, 0 = engine default (50)
	LocationPct    float64 // % of locations, 0 = 50
}

// Warning is a condition the caller of a result should know (an optimistic
// engine on an obstructed path, an assumed EIRP, void-filled terrain …),
// with a stable code clients can match on and a sentence for people. The
// codes and what raises them are documented in the planner package.
type Warning struct {
	Code    string `json:"code"`    // stable snake_case code, e.g. "void_filled_terrain"
	Message string `json:"message"` // one sentence, no internal prefixes
}

// Warning codes. They are stable: clients match on them. What raises each
// one is documented in the planner package (link results) and the engines
// package (engine warnings).
const (
	// WarnFSPLObstructed: the path is obstructed (clearance below 60 % of
	// F1) and the engine is fspl, which models it with one knife edge.
	WarnFSPLObstructed = "fspl_obstructed"
	// WarnEIRPAssumed: the tower has no ERP; the request's assumed EIRP was
	// used.
	WarnEIRPAssumed = "eirp_assumed"
	// WarnSyntheticTower: the tower is synthetic sample data.
	WarnSyntheticTower = "synthetic_tower"
	// WarnPositionUncertainty: the tower's position uncertainty exceeds a
	// documented fraction of the link length.
	WarnPositionUncertainty = "position_uncertainty"
	// WarnStrongerTowerDemoted: a result with a higher margin than the
	// best tower ranks below it because it is synthetic or its position is
	// uncertain (planner package doc, "Ranking").
	WarnStrongerTowerDemoted = "stronger_tower_demoted"
	// WarnNoLandCover: no land-cover layer covers the path.
	WarnNoLandCover = "no_land_cover"
	// WarnVoidFilledTerrain: the path crosses heights interpolated across
	// voids of the source DEM.
	WarnVoidFilledTerrain = "void_filled_terrain"
	// WarnEngineFallback: the requested engine could not answer and fspl
	// did.
	WarnEngineFallback = "engine_fallback"
	// WarnEngineResolved: the requested engine resolved to another one
	// ("auto" for a tier below Pro).
	WarnEngineResolved = "engine_resolved"
	// WarnOutsideValidity: an input lies outside the range a model was
	// validated for; the number is an extrapolation.
	WarnOutsideValidity = "outside_validity"
	// WarnITM: a warning flag of the NTIA ITM (the message names the flag
	// and its NTIA bit value).
	WarnITM = "itm_warning"
	// WarnITMTroposcatter: ITM answered in its troposcatter mode (the path
	// is longer than the crossover d_x where NTIA ties the scatter line to
	// the diffraction line); the message splits A_ref and flags horizon
	// angles beyond ITM's validity.
	WarnITMTroposcatter = "itm_troposcatter"
	// WarnProfileResampled: the engine re-interpolated a profile that was
	// not equally spaced.
	WarnProfileResampled = "profile_resampled"
	// WarnParameterIgnored: a request parameter has no effect on the
	// engine used (e.g. time_pct for P.1411).
	WarnParameterIgnored = "parameter_ignored"
	// WarnMissingTerrain: part of the answer has no value because terrain
	// it needs is in no loaded pack (a coverage map's no-data pixels
	// behind a missing tile; never taken as sea level).
	WarnMissingTerrain = "missing_terrain"
	// WarnModelNotFieldValidated: a learned model answered that claims no
	// field accuracy (trained on synthetic, mixed or unattested data, or
	// without a cross-validated RMSE: grade pipeline_validation_only);
	// its confidence is capped at the fspl fallback's (appliance/prediction).
	WarnModelNotFieldValidated = "model_not_field_validated"
	// WarnDeprecatedField: the request named a member by its deprecated
	// name (receiver.height for height_m, freq_hz for frequency_mhz); it
	// was read as the new name, which the message gives. One warning per
	// deprecated name, with how many times it was given (web/api).
	WarnDeprecatedField = "deprecated_field"
)

// WarningCodes returns the codes of ws, in order.
func WarningCodes(ws []Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Code
	}
	return out
}

// PathWarnings returns the warnings that a prediction pred owes its caller
// because of its path, on every route that answers one (the planner's link
// results, POST /coverage/engines/predict and /compare), in this order:
//
//   - fspl_obstructed: pred.Engine is fspl (asked for, or the fallback)
//     and pred.FresnelOK is false: the first Fresnel zone is less than
//     60 % clear or the terrain blocks the ray, and fspl models that with
//     one knife edge;
//   - no_land_cover, when terrainProf is not nil: it has no land-cover
//     layer (ClutterClass nil), or every sample is class 0 (unknown), or
//     both end samples (the antennas) are;
//   - void_filled_terrain, when terrainProf is not nil and it has
//     void-filled samples: their count and the largest interpolated span.
//
// terrainProf is the profile when it came from the terrain packs and nil
// when the caller gave it (an explicit case profile says nothing of land
// cover or voids). It never returns nil.
func PathWarnings(pred *LinkPrediction, terrainProf *PathProfile) []Warning {
	out := []Warning{}
	if pred.Engine == EngineFSPL && !pred.FresnelOK {
		state := "the first Fresnel zone is less than 60 % clear"
		if !pred.LOSClear {
			state = "the terrain blocks the line of sight"
		}
		out = append(out, Warning{Code: WarnFSPLObstructed, Message: fmt.Sprintf(
			"%s (minimum clearance %.2f F1) and fspl models it with a single knife edge, so the margin can be optimistic by tens of dB: P.1812 and ITM are the design engines for obstructed paths",
			state, pred.MinClearanceRatio)})
	}
	if terrainProf == nil {
		return out
	}
	switch {
	case terrainProf.ClutterClass == nil:
		out = append(out, Warning{Code: WarnNoLandCover, Message: "no land-cover layer covers this path: clutter losses near the antennas are not modelled"})
	case allUnknownClass(terrainProf.ClutterClass):
		out = append(out, Warning{Code: WarnNoLandCover, Message: "the land-cover layer has no class for any sample of this path (all unknown): clutter losses near the antennas are not modelled"})
	case terrainProf.ClutterClass[0] == 0 && terrainProf.ClutterClass[len(terrainProf.ClutterClass)-1] == 0:
		out = append(out, Warning{Code: WarnNoLandCover, Message: "the land-cover layer has no class at either antenna (both ends unknown): clutter losses near the antennas are not modelled"})
	}
	if count, span := terrainProf.VoidStats(); count > 0 {
		out = append(out, Warning{Code: WarnVoidFilledTerrain, Message: fmt.Sprintf(
			"the path crosses %d void-filled terrain samples (largest interpolated span %.0f m): the real ground there can be much higher, check the obstruction",
			count, span)})
	}
	return out
}

// allUnknownClass reports whether every land-cover class is 0 (unknown).
func allUnknownClass(classes []uint8) bool {
	for _, c := range classes {
		if c != 0 {
			return false
		}
	}
	return true
}
