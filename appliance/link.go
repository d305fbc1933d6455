package appliance

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
}

// LinkCandidate is the link budget of one tower for a receiver.
type LinkCandidate struct {
	Tower      *Tower
	DistanceKm float64 // great-circle distance receiver to tower, km
	// AzimuthDeg is the bearing from the receiver to the tower, degrees
	// clockwise from true north: where to point the receiver antenna.
	AzimuthDeg float64
	// TowerToRxDeg is the bearing from the tower to the receiver, degrees.
	TowerToRxDeg  float64
	Prediction    LinkPrediction
	EIRPDBm       float64 // transmitter EIRP toward the main lobe, dBm
	EIRPAssumed   bool    // true when the tower has no ERP and AssumedEIRPDBm was used
	PatternLossDB float64 // horizontal antenna pattern attenuation toward the receiver, dB
	RxPowerDBm    float64 // predicted received power, dBm
	LinkMarginDB  float64 // RxPowerDBm − RxThresholdDBm, dB
	TowerGroundM  float64 // ground height at the tower, metres AMSL
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
	// Warnings are the distinct engine warnings of the evaluated paths
	// (for example why an engine fell back to fspl), at most 10.
	Warnings  []string
	InRange   int // towers within MaxDistanceKm (after the operator filter)
	Evaluated int // towers whose terrain path was computed
	// SkippedNoTerrain counts towers in range whose path needs a terrain
	// tile that no pack holds; MissingTiles names those tiles.
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
	Code    string // stable snake_case code, e.g. "void_filled_terrain"
	Message string // one sentence, no internal prefixes
}
