package appliance

import "context"

// EngineID names a propagation engine; the values are the stable wire values
// of the request field "engine" (SPEC §2.5, §9).
type EngineID string

// Engine ids of SPEC §2.5.
const (
	EngineFSPL       EngineID = "fspl"
	EngineP1812      EngineID = "p1812"
	EngineITM        EngineID = "itm"
	EngineP1411      EngineID = "p1411"
	EngineHybrid     EngineID = "p1812-p1411-hybrid"
	EngineRaytrace   EngineID = "raytrace"
	EngineRaytraceML EngineID = "raytrace_ml"
	EngineAuto       EngineID = "auto"
)

// LinkInput is everything a physical engine needs for one transmitter to
// receiver path.
type LinkInput struct {
	Tx        LatLon  // transmitter position
	Rx        LatLon  // receiver position
	TxHeightM float64 // transmitter antenna height above ground, metres
	RxHeightM float64 // receiver antenna height above ground, metres
	FreqMHz   float64 // carrier frequency, MHz
	// Profile is the terrain from Tx to Rx. Engines that need terrain return
	// an ErrInvalid error when it is nil.
	Profile *PathProfile
	// TimePct is the percentage of time the loss is not exceeded (P.1812,
	// ITM), 0 < p < 100; 0 means the engine's default (50).
	TimePct float64
	// LocationPct is the percentage of locations, 0 < p < 100; 0 means 50.
	LocationPct float64
}

// LinkPrediction is the physical result of one engine for one path.
type LinkPrediction struct {
	Engine        EngineID // engine that produced the number
	EngineVersion string   // engine implementation version, e.g. "p1812-8/1"
	PathLossDB    float64  // basic transmission loss, dB
	LOSClear      bool     // the straight ray clears the terrain (k = 4/3)
	FresnelOK     bool     // minimum clearance is at least 60 % of the first Fresnel zone
	// MinClearanceRatio is the smallest (ray height − terrain) / F1 along the
	// path; negative when terrain blocks the ray.
	MinClearanceRatio float64
	DiffractionDB     float64            // diffraction part of PathLossDB, dB, never negative (itm: see the engines package doc)
	Intermediate      map[string]float64 // engine-specific values worth showing, units in the key names
	Warnings          []Warning          // conditions the caller should know (outside validity, fallbacks), with stable codes
}

// Engine is a deterministic propagation model.
type Engine interface {
	ID() EngineID
	Predict(ctx context.Context, in LinkInput) (LinkPrediction, error)
}

// EngineCompareRow is one engine's answer in an engine comparison
// (engines.Registry.Compare, POST /coverage/engines/compare). Every field but
// ElapsedMicros is deterministic.
type EngineCompareRow struct {
	Engine            EngineID           `json:"engine"`      // engine asked
	UsedEngine        EngineID           `json:"used_engine"` // engine that answered (fspl after a fallback); "" on error
	EngineVersion     string             `json:"engine_version"`
	PathLossDB        float64            `json:"path_loss_db"`   // dB; 0 on error
	DiffractionDB     float64            `json:"diffraction_db"` // dB
	LOSClear          bool               `json:"los_clear"`
	FresnelOK         bool               `json:"fresnel_ok"`
	Warnings          []Warning          `json:"warnings"`        // never null
	Error             string             `json:"error,omitempty"` // Err's message (the API replaces it with the user message)
	Err               error              `json:"-"`               // why the engine gave no answer; nil when it did
	FellBack          bool               `json:"fell_back"`
	FallbackReason    string             `json:"fallback_reason,omitempty"`
	ElapsedMicros     int64              `json:"elapsed_us"` // wall time of this engine, µs
	Intermediate      map[string]float64 `json:"intermediate,omitempty"`
	MinClearanceRatio float64            `json:"-"` // may be +Inf (no intermediate point)
}

// EngineCase is what a service reads of one engine-comparison case
// (engines.Case, the body of POST /coverage/engines/compare): a service
// passes the case through to the engines without importing them.
type EngineCase interface {
	// CaseSummary is the case's engine, positions, frequency and antenna
	// heights.
	CaseSummary() EngineCaseSummary
}

// EngineCaseSummary is the part of an engine case a service explains or a
// handler reads (web/api passes the case through without importing engines).
type EngineCaseSummary struct {
	Engine       EngineID // engine asked; "" = auto
	Tx, Rx       LatLon   // transmitter and receiver positions, WGS84 degrees
	FrequencyMHz float64  // MHz
	TxHeightM    float64  // transmitter antenna above ground, metres
	RxHeightM    float64  // receiver antenna above ground, metres
	// Tuning names the optional members the case gives, in document order
	// (time_pct, location_pct, step_m, p1812, itm, p1411): an engine with
	// no use for one says so with a parameter_ignored warning.
	Tuning []string
}

// Status values of EngineInfo.Status (engines.Registry).
const (
	EngineStatusAvailable   = "available"   // Get returns the engine
	EngineStatusUnavailable = "unavailable" // listed, but not served on this appliance (raytrace without its worker)
	EngineStatusHidden      = "hidden"      // not to be shown by GET /coverage/engines; Get refuses it
)

// EngineInfo describes one engine (engines.Registry) for GET
// /coverage/engines. The frequency and distance ranges are the validity ranges the adapter enforces or warns
// about (see Notes); 0 for DistMaxKm means no upper limit.
type EngineInfo struct {
	ID      EngineID `json:"id"`
	Name    string   `json:"name"`
	Method  string   `json:"method"`
	Version string   `json:"version"`
	MinTier string   `json:"min_tier"` // Tier name; "" when the engine has no tier of its own
	Status  string   `json:"status"`   // EngineStatusAvailable, EngineStatusUnavailable or EngineStatusHidden
	Default bool     `json:"default"`
	// Asynchronous engines run as jobs and maps on their own routes (the
	// raytrace worker): Get refuses them, the synchronous routes too.
	Asynchronous bool    `json:"asynchronous"`
	FreqMinMHz   float64 `json:"freq_min_mhz"` // MHz
	FreqMaxMHz   float64 `json:"freq_max_mhz"` // MHz
	DistMinKm    float64 `json:"dist_min_km"`  // km
	DistMaxKm    float64 `json:"dist_max_km"`  // km; 0 = no upper limit
	Notes        string  `json:"notes"`
}

// EngineCaseResult is the answer to one engine case (engines.Case,
// POST /coverage/engines/predict). Non-finite intermediate values are
// left out (JSON cannot carry them).
type EngineCaseResult struct {
	Engine            EngineID           `json:"engine"`      // engine asked ("auto" when omitted)
	UsedEngine        EngineID           `json:"used_engine"` // engine that produced the number
	EngineVersion     string             `json:"engine_version"`
	AutoReason        string             `json:"auto_reason,omitempty"` // why auto chose UsedEngine
	PathLossDB        float64            `json:"path_loss_db"`          // basic transmission loss, dB
	DiffractionDB     float64            `json:"diffraction_db"`        // dB
	LOSClear          bool               `json:"los_clear"`
	FresnelOK         bool               `json:"fresnel_ok"`
	MinClearanceRatio *float64           `json:"min_clearance_ratio"` // nil when the profile has no intermediate point
	DistanceKm        float64            `json:"distance_km"`         // profile length, km
	ProfilePoints     int                `json:"profile_points"`
	ProfileSource     string             `json:"profile_source"` // "case" or "terrain"
	P1411Environment  string             `json:"p1411_environment,omitempty"`
	Intermediate      map[string]float64 `json:"intermediate"`
	Warnings          []Warning          `json:"warnings"` // never null
	FellBack          bool               `json:"fell_back"`
	FallbackReason    string             `json:"fallback_reason,omitempty"`
}
