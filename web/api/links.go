package api

import (
	"fmt"
	"math"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/planner"
	"linkplan/appliance/raytracing"
)

func (a *API) registerLinks(r *mux.Router) {
	r.HandleFunc("/analyze_link", a.wrap(a.ready(a.authed(a.analyzeLink)))).Methods(http.MethodPost)
}

type receiverJSON struct {
	Lat     *float64 `json:"lat"`
	Lon     *float64 `json:"lon"`
	HeightM *float64 `json:"height_m"` // metres above ground
	// Height is the deprecated name of height_m (renames.go).
	Height *float64 `json:"height" deprecated:"height_m"`
}

// LinkFieldsJSON is the body of POST /analyze_link, declared once for
// every route built on it (embedded, its members are the route's own):
// /analyze_link adds max_alternatives, include and raytrace;
// /reports/link adds max_alternatives, include, tower_id and language;
// each row of /batch_reports adds id.
type LinkFieldsJSON struct {
	Receiver       *receiverJSON `json:"receiver"`
	FrequencyMHz   *float64      `json:"frequency_mhz"`
	MaxDistanceKm  *float64      `json:"max_distance_km"`
	RxGainDBi      *float64      `json:"rx_gain_dbi"`
	CableLossDB    *float64      `json:"cable_loss_db"`
	RxThresholdDBm *float64      `json:"rx_threshold_dbm"`
	AssumedEIRPDBm *float64      `json:"assumed_eirp_dbm"`
	Operator       *string       `json:"operator"`
	Engine         *string       `json:"engine"`
}

// analyzeLinkRequest is the body of POST /analyze_link.
type analyzeLinkRequest struct {
	renamed
	LinkFieldsJSON
	MaxAlternatives *int     `json:"max_alternatives"`
	Include         []string `json:"include"` // optional parts of each result: "profile"
	// Raytrace: the building layer and options of engine "raytrace".
	Raytrace *raytraceJSON `json:"raytrace"`
}

// given lists the members of an /analyze_link body that only the terrain
// engines use, when given: engine raytrace names each in a warning.
func (q *analyzeLinkRequest) given() []string {
	var out []string
	if q.MaxAlternatives != nil {
		out = append(out, "max_alternatives")
	}
	if len(q.Include) > 0 {
		out = append(out, "include")
	}
	return out
}

// includeProfile is the one accepted value of a request's "include" array:
// each result carries its path check.
const includeProfile = "profile"

// parseInclude checks an "include" array and reports whether it asks for
// the profile; an unknown value is named by its index.
func parseInclude(include []string, v *appliance.ValidationError) (profile bool) {
	for i, x := range include {
		switch x {
		case includeProfile:
			profile = true
		default:
			v.Add(fmt.Sprintf("include[%d]", i), "must be one of [%q], got %q", includeProfile, truncate(x, 40))
		}
	}
	return profile
}

// truncate shortens s to at most n bytes (on a rune boundary) for echoing
// it in a message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// toDomain checks required fields, applies defaults and returns the domain
// request.
func (q *analyzeLinkRequest) toDomain() (appliance.LinkRequest, error) {
	v := &appliance.ValidationError{}
	var req appliance.LinkRequest
	set := map[string]bool{}
	if q.Receiver == nil {
		v.Add("receiver", "is required: an object with lat, lon (degrees) and height_m (metres above ground)")
	} else {
		if q.Receiver.Lat == nil {
			v.Add("receiver.lat", "is required")
		} else {
			req.Receiver.Lat = *q.Receiver.Lat
		}
		if q.Receiver.Lon == nil {
			v.Add("receiver.lon", "is required")
		} else {
			req.Receiver.Lon = *q.Receiver.Lon
		}
		if q.Receiver.HeightM != nil {
			req.RxHeightM, set["receiver.height_m"] = *q.Receiver.HeightM, true
		}
	}
	if q.FrequencyMHz == nil {
		v.Add("frequency_mhz", "is required")
	} else {
		req.FreqMHz = *q.FrequencyMHz
	}
	opt := func(p *float64, name string, dst *float64) {
		if p != nil {
			*dst, set[name] = *p, true
		}
	}
	opt(q.MaxDistanceKm, "max_distance_km", &req.MaxDistanceKm)
	opt(q.RxGainDBi, "rx_gain_dbi", &req.RxGainDBi)
	opt(q.CableLossDB, "cable_loss_db", &req.CableLossDB)
	opt(q.RxThresholdDBm, "rx_threshold_dbm", &req.RxThresholdDBm)
	opt(q.AssumedEIRPDBm, "assumed_eirp_dbm", &req.AssumedEIRPDBm)
	if q.MaxAlternatives != nil {
		req.MaxAlternatives, set["max_alternatives"] = *q.MaxAlternatives, true
	}
	if q.Operator != nil {
		req.Operator = *q.Operator
	}
	if q.Engine != nil {
		req.Engine = appliance.EngineID(*q.Engine)
	}
	req.IncludeProfile = parseInclude(q.Include, v)
	// Defaults first, so that a caller who also checks ranges (POST /analyze)
	// does not report an omitted optional field as out of range.
	planner.Defaults(&req, set)
	return req, v.Err()
}

// LinkResultJSON is one tower of an /analyze_link answer (SPEC §2.3 plus the
// budget terms that produced the margin).
//
// Precision of the link and coverage answers: every number is rounded to 3
// decimals (dB and dBm to 0.001 dB, km to 0.001 km, metres to 0.001 m,
// degrees of bearing to 0.001°, ratios to 0.001), except latitudes and
// longitudes (6 decimals, about 0.1 m) and minimum antenna heights (rounded
// up to the next 0.01 m so that the stated height always clears).
type LinkResultJSON struct {
	TowerID              string   `json:"tower_id"`
	Operator             string   `json:"operator"`
	DistanceKm           float64  `json:"distance_km"`
	AzimuthDeg           float64  `json:"azimuth_deg"`           // receiver -> tower, degrees clockwise from true north
	TowerToReceiverDeg   float64  `json:"tower_to_receiver_deg"` // tower -> receiver
	LOSClear             bool     `json:"los_clear"`
	FresnelOK            bool     `json:"fresnel_ok"`
	MinFresnelClearance  *float64 `json:"min_fresnel_clearance_ratio"` // null for a path with no intermediate sample
	PathLossDB           float64  `json:"path_loss_db"`
	DiffractionDB        float64  `json:"diffraction_db"`
	LinkMarginDB         float64  `json:"link_margin_db"`
	RxPowerDBm           float64  `json:"rx_power_dbm"`
	EIRPDBm              float64  `json:"eirp_dbm"`
	EIRPAssumed          bool     `json:"eirp_assumed"`
	PatternLossDB        float64  `json:"antenna_pattern_loss_db"`
	TowerElevationDeg    float64  `json:"tower_elevation_deg"` // angle below the tower antenna's horizontal toward the receiver, degrees
	Antenna              string   `json:"antenna"`             // the tower antenna's model, e.g. "generic 65° sector"
	TowerLat             float64  `json:"tower_lat"`
	TowerLon             float64  `json:"tower_lon"`
	TowerHeightM         float64  `json:"tower_height_m"`
	TowerGroundM         float64  `json:"tower_ground_elevation_m"`
	Source               string   `json:"source"`
	Placement            string   `json:"placement"`
	PositionUncertaintyM float64  `json:"position_uncertainty_m"`
	Synthetic            bool     `json:"synthetic"`
	Engine               string   `json:"engine"` // engine that produced this tower's number
	// Warnings are this path's warnings with stable codes (planner package
	// doc), never null.
	Warnings []appliance.Warning `json:"warnings"`
	// Path is the checkable geometry: always on POST /analyze, on
	// /analyze_link only with include: ["profile"].
	Path *PathCheckJSON `json:"path,omitempty"`
	// Calibration is the tenant's calibration of this tower's number
	// (appliance/calibration): its offset is in rx_power_dbm and
	// link_margin_db, not in path_loss_db. Absent when not calibrated.
	Calibration *CalibrationJSON `json:"calibration,omitempty"`
}

// CalibrationJSON is the "calibration" object of an answer: the offset
// added to the engine's level at this receiver and the cross-validated
// figures it rests on (appliance.CalibrationInfo), dB rounded to 0.001.
type CalibrationJSON struct {
	OffsetDB       float64 `json:"offset_db"`
	N              int     `json:"n"`
	CVRMSEBeforeDB float64 `json:"cv_rmse_before_db"`
	CVRMSEAfterDB  float64 `json:"cv_rmse_after_db"`
	Engine         string  `json:"engine"`
	Cell           string  `json:"cell"`
	InsideArea     bool    `json:"inside_area"`
	FittedAt       string  `json:"fitted_at"` // RFC 3339 UTC
}

// calibrationJSON renders a calibration, nil for none.
func calibrationJSON(c *appliance.CalibrationInfo) *CalibrationJSON {
	if c == nil {
		return nil
	}
	return &CalibrationJSON{OffsetDB: r3(c.OffsetDB), N: c.N, CVRMSEBeforeDB: r3(c.CVRMSEBeforeDB), CVRMSEAfterDB: r3(c.CVRMSEAfterDB),
		Engine: string(c.Engine), Cell: c.Cell, InsideArea: c.InsideArea, FittedAt: *timeJSON(time.Unix(int64(c.FittedAtUnix), 0))}
}

// r6 rounds a latitude or longitude to 6 decimals (about 0.1 m).
func r6(x float64) float64 { return roundTo(x, 1e6) }

// ProfilePointJSON is one point of a path profile; heights are metres above
// mean sea level, the effective ground includes the k = 4/3 earth bulge.
type ProfilePointJSON struct {
	DistanceM        float64 `json:"distance_m"`         // from the tower, metres
	GroundM          float64 `json:"ground_m"`           // metres AMSL
	EffectiveGroundM float64 `json:"effective_ground_m"` // ground + earth bulge, metres
	LOSM             float64 `json:"los_m"`              // line between the antenna tips, metres
	F1RadiusM        float64 `json:"f1_radius_m"`        // first Fresnel zone radius, metres
	VoidFilled       bool    `json:"void_filled"`
}

// ObstacleJSON is the dominant obstacle of a path.
type ObstacleJSON struct {
	DistanceFromRxM  float64 `json:"distance_from_receiver_m"`
	DistanceFromTxM  float64 `json:"distance_from_tower_m"`
	GroundM          float64 `json:"ground_m"`
	EffectiveGroundM float64 `json:"effective_ground_m"`
	LOSM             float64 `json:"los_m"`
	ClearanceM       float64 `json:"clearance_m"`           // negative: the ground blocks the ray
	F1RadiusM        float64 `json:"f1_radius_m"`           // metres
	ClearanceF1      float64 `json:"clearance_f1_fraction"` // clearance / F1
	VoidFilled       bool    `json:"void_filled"`
}

// MinHeightJSON is a minimum antenna height; height_m is null when the rule
// cannot be met below the cap.
type MinHeightJSON struct {
	HeightM    *float64 `json:"height_m"` // metres above ground, rounded up to 0.01 m
	Achievable bool     `json:"achievable"`
	Note       string   `json:"note,omitempty"`
}

// PathCheckJSON is the checkable geometry of a path.
type PathCheckJSON struct {
	KFactor              float64            `json:"k_factor"`                 // dimensionless, 3 decimals
	EffEarthRadiusM      float64            `json:"effective_earth_radius_m"` // k·a, a = 6 371 000 m, metres, rounded to 1 m
	HeightsAbove         string             `json:"heights_above"`            // "ground": antenna heights are above local ground
	TowerHeightM         float64            `json:"tower_height_m"`
	ReceiverHeightM      float64            `json:"receiver_height_m"`
	ProfileSamples       int                `json:"profile_samples"` // samples of the computed profile
	ProfileDecimated     bool               `json:"profile_decimated"`
	Profile              []ProfilePointJSON `json:"profile"`
	DominantObstacle     *ObstacleJSON      `json:"dominant_obstacle"`
	MinReceiverHeightLOS MinHeightJSON      `json:"min_receiver_height_los"`
	MinReceiverHeightF60 MinHeightJSON      `json:"min_receiver_height_fresnel60"`
	MinTowerHeightLOS    MinHeightJSON      `json:"min_tower_height_los"`
	MinTowerHeightF60    MinHeightJSON      `json:"min_tower_height_fresnel60"`
}

func minHeightJSON(m appliance.MinHeight) MinHeightJSON {
	if !m.Achievable {
		return MinHeightJSON{Note: fmt.Sprintf("not achievable below %g m", m.HeightM)}
	}
	h := m.HeightM
	return MinHeightJSON{HeightM: &h, Achievable: true}
}

func pathCheckJSON(p *appliance.PathCheck) *PathCheckJSON {
	if p == nil {
		return nil
	}
	out := &PathCheckJSON{KFactor: r3(p.KFactor), EffEarthRadiusM: math.Round(p.EffEarthRadiusM), HeightsAbove: "ground", TowerHeightM: r3(p.TxHeightM),
		ReceiverHeightM: r3(p.RxHeightM), ProfileSamples: p.SamplesTotal, ProfileDecimated: len(p.Profile) < p.SamplesTotal,
		Profile:              make([]ProfilePointJSON, len(p.Profile)),
		MinReceiverHeightLOS: minHeightJSON(p.RxMinLOS), MinReceiverHeightF60: minHeightJSON(p.RxMinFresnel60),
		MinTowerHeightLOS: minHeightJSON(p.TxMinLOS), MinTowerHeightF60: minHeightJSON(p.TxMinFresnel60)}
	for i, pt := range p.Profile {
		out.Profile[i] = ProfilePointJSON{DistanceM: r3(pt.DistanceM), GroundM: r3(pt.GroundM),
			EffectiveGroundM: r3(pt.EffectiveGroundM), LOSM: r3(pt.LOSM), F1RadiusM: r3(pt.F1RadiusM), VoidFilled: pt.VoidFilled}
	}
	if o := p.Obstacle; o != nil {
		out.DominantObstacle = &ObstacleJSON{DistanceFromRxM: r3(o.DistanceFromRxM), DistanceFromTxM: r3(o.DistanceFromTxM),
			GroundM: r3(o.GroundM), EffectiveGroundM: r3(o.EffectiveGroundM), LOSM: r3(o.LOSM), ClearanceM: r3(o.ClearanceM),
			F1RadiusM: r3(o.F1RadiusM), ClearanceF1: r3(o.ClearanceF1), VoidFilled: o.VoidFilled}
	}
	return out
}

func linkResult(c *appliance.LinkCandidate) LinkResultJSON {
	t := c.Tower
	warnings := c.Warnings
	if warnings == nil {
		warnings = []appliance.Warning{}
	}
	return LinkResultJSON{
		TowerID: t.ID, Operator: t.Operator, DistanceKm: r3(c.DistanceKm), AzimuthDeg: r3(c.AzimuthDeg),
		TowerToReceiverDeg: r3(c.TowerToRxDeg), LOSClear: c.Prediction.LOSClear, FresnelOK: c.Prediction.FresnelOK,
		MinFresnelClearance: round3(c.Prediction.MinClearanceRatio), PathLossDB: r3(c.Prediction.PathLossDB),
		DiffractionDB: r3(c.Prediction.DiffractionDB), LinkMarginDB: r3(c.LinkMarginDB), RxPowerDBm: r3(c.RxPowerDBm),
		EIRPDBm: r3(c.EIRPDBm), EIRPAssumed: c.EIRPAssumed, PatternLossDB: r3(c.PatternLossDB),
		TowerElevationDeg: r3(c.TowerElevationDeg), Antenna: c.Antenna,
		TowerLat: r6(t.Lat), TowerLon: r6(t.Lon), TowerHeightM: r3(t.HeightM), TowerGroundM: r3(c.TowerGroundM),
		Source: string(t.Source), Placement: string(t.Placement), PositionUncertaintyM: r3(t.UncertaintyM),
		Synthetic: t.Synthetic, Engine: string(c.Prediction.Engine), Warnings: warnings, Path: pathCheckJSON(c.Path),
		Calibration: calibrationJSON(c.Calibration),
	}
}

// AnalyzeLinkResponse is the body of POST /analyze_link.
type AnalyzeLinkResponse struct {
	BestTower *LinkResultJSON `json:"best_tower"`
	// BestTowerCaveats qualify the choice of BestTower (planner package
	// doc, "Ranking"), never null.
	BestTowerCaveats []appliance.Warning `json:"best_tower_caveats"`
	Alternatives     []LinkResultJSON    `json:"alternatives"`
	Reason           string              `json:"reason,omitempty"`
	EngineUsed       string              `json:"engine_used"`      // engine of the best tower's number (the requested one unless it fell back)
	EngineAsked      string              `json:"engine_requested"` // engine requested, after defaults and tier rules
	EngineVersion    string              `json:"engine_version,omitempty"`
	Notes            []string            `json:"notes"` // how "auto" resolved for this tier: the message of the engine_resolved warning, repeated
	// Warnings merge the warnings of the results, one per code (planner
	// package doc), never null.
	Warnings []appliance.Warning `json:"warnings"`
	Receiver struct {
		Lat             float64 `json:"lat"`
		Lon             float64 `json:"lon"`
		HeightM         float64 `json:"height_m"`
		GroundElevation float64 `json:"ground_elevation_m"`
	} `json:"receiver"`
	FrequencyMHz  float64 `json:"frequency_mhz"`
	MaxDistanceKm float64 `json:"max_distance_km"`
	LinkBudget    struct {
		RxGainDBi      float64 `json:"rx_gain_dbi"`
		CableLossDB    float64 `json:"cable_loss_db"`
		RxThresholdDBm float64 `json:"rx_threshold_dbm"`
		AssumedEIRPDBm float64 `json:"assumed_eirp_dbm"`
	} `json:"link_budget"`
	Search struct {
		TowersInRange          int      `json:"towers_in_range"`
		TowersEvaluated        int      `json:"towers_evaluated"`
		TowersPruned           int      `json:"towers_pruned"`
		TowersSkippedNoTerrain int      `json:"towers_skipped_no_terrain"`
		MissingTiles           []string `json:"missing_tiles"`
		TowersSkippedOther     int      `json:"towers_skipped_other"`
		SkipReasons            []string `json:"skip_reasons"`
	} `json:"search"`
	DataProvenance struct {
		Terrain         string `json:"terrain"`
		SyntheticTowers int    `json:"synthetic_towers_in_result"`
		Note            string `json:"note,omitempty"`
	} `json:"data_provenance"`
}

func (a *API) analyzeLink(w http.ResponseWriter, r *http.Request) (any, error) {
	var q analyzeLinkRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	req, err := q.toDomain()
	if err != nil {
		return nil, err
	}
	k := keyFrom(r.Context())
	rt, err := a.raytraceAsked(k, q.Engine, q.Raytrace)
	if err != nil {
		return nil, err
	}
	if rt {
		req.TenantID = k.TenantID
		layer, opt := q.Raytrace.params(raytracing.DefaultOptions())
		j, err := a.Raytrace.SubmitAnalyzeLink(r.Context(), k, req, layer, opt, q.renames(), q.given())
		if err != nil {
			return nil, err
		}
		return acceptJob(w, j)
	}
	id, note, err := a.resolveEngine(keyFrom(r.Context()), req.Engine)
	if err != nil {
		return nil, err
	}
	req.Engine = id
	req.TenantID = scope(keyFrom(r.Context()))
	res, err := a.Links.AnalyzeLink(r.Context(), req)
	if err != nil {
		return nil, err // errors.go: the user message carries no operation prefix
	}
	out := a.analysisJSON(req, res, note)
	out.Warnings = append(out.Warnings, q.renames()...)
	return out, nil
}

// analysisJSON is the body of an /analyze_link answer: the analysis res of
// req, with note the engine_resolved message ("" none).
func (a *API) analysisJSON(req appliance.LinkRequest, res *appliance.LinkAnalysis, note string) AnalyzeLinkResponse {
	var out AnalyzeLinkResponse
	if res.Best != nil {
		b := linkResult(res.Best)
		out.BestTower = &b
	}
	out.Alternatives = make([]LinkResultJSON, 0, len(res.Alternatives))
	for i := range res.Alternatives {
		out.Alternatives = append(out.Alternatives, linkResult(&res.Alternatives[i]))
	}
	out.Reason = res.Reason
	out.BestTowerCaveats = res.BestTowerCaveats
	if out.BestTowerCaveats == nil {
		out.BestTowerCaveats = []appliance.Warning{}
	}
	out.Notes = []string{}
	out.Warnings = res.Warnings
	if out.Warnings == nil {
		out.Warnings = []appliance.Warning{}
	}
	if note != "" {
		// engine_resolved is a warning on every route (as on /analyze and
		// /coverage/engines/predict); notes repeats it for older clients.
		out.Notes = append(out.Notes, note)
		out.Warnings = append(out.Warnings, appliance.Warning{Code: appliance.WarnEngineResolved, Message: note})
	}
	out.EngineAsked, out.EngineUsed, out.EngineVersion = string(res.Engine), string(res.Engine), res.EngineVersion
	if res.Best != nil {
		out.EngineUsed = string(res.Best.Prediction.Engine)
	}
	out.Receiver.Lat, out.Receiver.Lon, out.Receiver.HeightM = r6(req.Receiver.Lat), r6(req.Receiver.Lon), r3(req.RxHeightM)
	out.Receiver.GroundElevation = r3(res.ReceiverGroundM)
	out.FrequencyMHz, out.MaxDistanceKm = r3(req.FreqMHz), r3(req.MaxDistanceKm)
	out.LinkBudget.RxGainDBi, out.LinkBudget.CableLossDB = r3(req.RxGainDBi), r3(req.CableLossDB)
	out.LinkBudget.RxThresholdDBm, out.LinkBudget.AssumedEIRPDBm = r3(req.RxThresholdDBm), r3(req.AssumedEIRPDBm)
	out.Search.TowersInRange, out.Search.TowersEvaluated, out.Search.TowersPruned = res.InRange, res.Evaluated, res.Pruned
	out.Search.TowersSkippedNoTerrain, out.Search.MissingTiles = res.SkippedNoTerrain, res.MissingTiles
	if out.Search.MissingTiles == nil {
		out.Search.MissingTiles = []string{}
	}
	out.Search.TowersSkippedOther, out.Search.SkipReasons = res.SkippedOther, res.SkipReasons
	if out.Search.SkipReasons == nil {
		out.Search.SkipReasons = []string{}
	}
	out.DataProvenance.Terrain = a.TerrainDescription
	out.DataProvenance.SyntheticTowers = res.SyntheticTowers
	if res.SyntheticTowers > 0 {
		out.DataProvenance.Note = "results include synthetic sample towers: they are not real infrastructure"
	}
	return out
}
