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
	// CaseSummary is the case's frequency and antenna heights.
	CaseSummary() EngineCaseSummary
}

// EngineCaseSummary is the part of an engine case a service explains.
type EngineCaseSummary struct {
	FrequencyMHz float64 // MHz
	TxHeightM    float64 // transmitter antenna above ground, metres
	RxHeightM    float64 // receiver antenna above ground, metres
}
