package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/planner"
	"linkplan/appliance/raytracing"
	"linkplan/appliance/registry"
	"linkplan/appliance/tenancy"
)

// Engines is the engine registry (linkplan/engines). An engine case
// passes through the handlers as an appliance.EngineCase.
type Engines interface {
	Public() []appliance.EngineInfo
	Info(id appliance.EngineID) (appliance.EngineInfo, bool)
	// ZeroCase is an empty engine case: the JSON shape a case body's
	// members are checked against.
	ZeroCase() appliance.EngineCase
	// ParseEngineCase decodes and validates one case document strictly
	// (appliance.ErrInvalid).
	ParseEngineCase(b []byte) (appliance.EngineCase, error)
	// PredictEngineCase runs engine (in place of the case's own) on c.
	PredictEngineCase(ctx context.Context, c appliance.EngineCase, engine appliance.EngineID, terrain appliance.Terrain) (appliance.EngineCaseResult, error)
	CompareEngineCase(ctx context.Context, c appliance.EngineCase, terrain appliance.Terrain) ([]appliance.EngineCompareRow, error)
	// Resolve applies the default and the tier rule to the engine a key
	// asks for.
	Resolve(k *appliance.APIKey, id appliance.EngineID) (appliance.EngineID, string, error)
}

// PairAnalyzer computes one tower–receiver link budget (appliance/planner).
type PairAnalyzer interface {
	AnalyzePair(ctx context.Context, req appliance.PairRequest) (*appliance.LinkCandidate, error)
}

func (a *API) registerCoverage(r *mux.Router) {
	r.HandleFunc("/coverage/engines", a.wrap(a.authed(a.listEngines))).Methods(http.MethodGet)
	r.HandleFunc("/coverage/engines/predict", a.wrap(a.ready(a.authed(a.enginePredict)))).Methods(http.MethodPost)
	r.HandleFunc("/coverage/engines/compare", a.wrap(a.ready(a.authed(a.engineCompare)))).Methods(http.MethodPost)
	r.HandleFunc("/analyze", a.wrap(a.ready(a.authed(a.analyzePair)))).Methods(http.MethodPost)
}

// resolveEngine applies the default and the tier rule to an engine id
// (engines.Registry.Resolve): the engine to run, a note when auto was
// downgraded, or the error of a refused engine.
func (a *API) resolveEngine(k *appliance.APIKey, id appliance.EngineID) (appliance.EngineID, string, error) {
	return a.Engines.Resolve(k, id)
}

// withEngineNote returns ws with the warning engine_resolved carrying note
// appended, or ws when note is empty (resolveEngine kept the engine
// asked): an answer whose engine is not the one asked says why.
func withEngineNote(ws []appliance.Warning, note string) []appliance.Warning {
	if note == "" {
		return ws
	}
	return append(ws, appliance.Warning{Code: appliance.WarnEngineResolved, Message: note})
}

// EngineJSON is one engine of GET /coverage/engines.
type EngineJSON struct {
	appliance.EngineInfo
	AllowedForKey bool `json:"allowed_for_key"` // the calling key's tier may use it
}

// EngineList is the body of GET /coverage/engines.
type EngineList struct {
	Engines []EngineJSON `json:"engines"`
	Default string       `json:"default"`
}

func (a *API) listEngines(w http.ResponseWriter, r *http.Request) (any, error) {
	k := keyFrom(r.Context())
	out := EngineList{Default: string(appliance.EngineFSPL)}
	for _, in := range a.Engines.Public() {
		if in.Asynchronous && a.Raytrace == nil {
			in.Status = appliance.EngineStatusUnavailable
			in.Notes = "not served on this appliance: its raytrace worker is not configured"
		}
		allowed := in.Status == appliance.EngineStatusAvailable && (in.MinTier == "" || tenancy.RequireTier(k, appliance.Tier(in.MinTier)) == nil)
		out.Engines = append(out.Engines, EngineJSON{EngineInfo: in, AllowedForKey: allowed})
	}
	return out, nil
}

func (a *API) enginePredict(w http.ResponseWriter, r *http.Request) (any, error) {
	b, err := readCaseBody(r)
	if err != nil {
		return nil, err
	}
	if e := bodyEngine(b); e != nil && appliance.EngineID(*e) == appliance.EngineRaytrace {
		if _, err := a.raytraceAsked(keyFrom(r.Context()), e, nil); err != nil {
			return nil, err
		}
		return a.raytraceEnginesPredict(w, r, b)
	}
	c, err := a.parseCaseBytes(b)
	if err != nil {
		return nil, err
	}
	// An omitted engine means auto (engines.DefaultCaseEngineID): resolve
	// it like an explicit "auto", so the caller's tier bounds what it picks.
	asked := c.CaseSummary().Engine
	if asked == "" {
		asked = appliance.EngineAuto
	}
	id, note, err := a.resolveEngine(keyFrom(r.Context()), asked)
	if err != nil {
		return nil, err
	}
	res, err := a.Engines.PredictEngineCase(r.Context(), c, id, a.Terrain)
	if err != nil {
		return nil, err
	}
	res.Warnings = withEngineNote(res.Warnings, note)
	return roundCase(res), nil
}

// CompareResult is the body of POST /coverage/engines/compare.
type CompareResult struct {
	Rows          []appliance.EngineCompareRow `json:"rows"`
	TotalElapsedU int64                        `json:"total_elapsed_us"` // wall time of the whole comparison, µs
}

func (a *API) engineCompare(w http.ResponseWriter, r *http.Request) (any, error) {
	if err := tenancy.RequireTier(keyFrom(r.Context()), appliance.TierPro); err != nil {
		return nil, fmt.Errorf("comparing engines runs P.1812 and ITM: %w", err)
	}
	c, err := a.parseCase(r)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	rows, err := a.Engines.CompareEngineCase(r.Context(), c, a.Terrain)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		if rows[i].Err != nil {
			rows[i].Error = rowError(rows[i].Err)
		}
		rows[i] = roundRow(rows[i])
	}
	return CompareResult{Rows: rows, TotalElapsedU: time.Since(start).Microseconds()}, nil
}

// rowError is the error of a comparison row as the client reads it: the
// user message of an error answer (errors.go), without operation prefixes,
// sanitised.
func rowError(err error) string {
	_, _, sentinel := classify(err)
	return clean(userMessage(err, sentinel), maxMessageBytes)
}

// roundMap rounds the values of an intermediate map to 3 decimals (a
// negative value that rounds to zero is 0, not -0), leaving out the
// non-finite ones.
func roundMap(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, x := range m {
		if p := round3(x); p != nil {
			if *p == 0 {
				*p = 0 // drops the sign of -0
			}
			out[k] = *p
		}
	}
	return out
}

// roundCase rounds the numbers of an engine case answer to the documented
// precision (LinkResultJSON) and makes its warnings an array.
func roundCase(res appliance.EngineCaseResult) appliance.EngineCaseResult {
	res.PathLossDB, res.DiffractionDB, res.DistanceKm = r3(res.PathLossDB), r3(res.DiffractionDB), r3(res.DistanceKm)
	if res.MinClearanceRatio != nil {
		res.MinClearanceRatio = round3(*res.MinClearanceRatio)
	}
	res.Intermediate = roundMap(res.Intermediate)
	if res.Warnings == nil {
		res.Warnings = []appliance.Warning{}
	}
	return res
}

// roundRow is roundCase for one row of a comparison.
func roundRow(row appliance.EngineCompareRow) appliance.EngineCompareRow {
	row.PathLossDB, row.DiffractionDB = r3(row.PathLossDB), r3(row.DiffractionDB)
	if row.Intermediate != nil {
		row.Intermediate = roundMap(row.Intermediate)
	}
	if row.Warnings == nil {
		row.Warnings = []appliance.Warning{}
	}
	return row
}

type towerJSONIn struct {
	Lat     *float64 `json:"lat"`
	Lon     *float64 `json:"lon"`
	HeightM *float64 `json:"height_m"` // metres above ground, default 30
	// Height is the deprecated name of height_m (renames.go).
	Height  *float64 `json:"height" deprecated:"height_m"`
	Power   *float64 `json:"power"`   // ERP, dBm
	Azimuth *float64 `json:"azimuth"` // degrees
	Tilt    *float64 `json:"tilt"`    // degrees, positive down (mechanical downtilt)
	// AntennaID names a catalogue antenna of the caller's tenant (or a
	// built-in) whose pattern the ad hoc tower radiates.
	AntennaID *string `json:"antenna_id"`
}

type analyzeRequest struct {
	renamed
	TowerID        *string       `json:"tower_id"`
	Tower          *towerJSONIn  `json:"tower"`
	Receiver       *receiverJSON `json:"receiver"`
	FrequencyMHz   *float64      `json:"frequency_mhz"`
	Engine         *string       `json:"engine"`
	RxGainDBi      *float64      `json:"rx_gain_dbi"`
	CableLossDB    *float64      `json:"cable_loss_db"`
	RxThresholdDBm *float64      `json:"rx_threshold_dbm"`
	AssumedEIRPDBm *float64      `json:"assumed_eirp_dbm"`
	TimePct        *float64      `json:"time_pct"`
	LocationPct    *float64      `json:"location_pct"`
	// Raytrace: the building layer and options of engine "raytrace".
	Raytrace *raytraceJSON `json:"raytrace"`
}

// AnalyzeResponse is the body of POST /analyze.
type AnalyzeResponse struct {
	LinkResultJSON
	EngineUsed     string             `json:"engine_used"`
	EngineVersion  string             `json:"engine_version"`
	Confidence     float64            `json:"confidence"`
	CVRMSEdB       *float64           `json:"cv_rmse_db"`    // null: no learned model is involved
	ModelVersion   *string            `json:"model_version"` // null: no learned model is involved
	ModelSource    string             `json:"model_source"`  // "physics"
	RxThresholdDBm float64            `json:"rx_threshold_dbm"`
	Intermediate   map[string]float64 `json:"intermediate"`
}

func (a *API) analyzePair(w http.ResponseWriter, r *http.Request) (any, error) {
	var q analyzeRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	k := keyFrom(r.Context())
	rt, err := a.raytraceAsked(k, q.Engine, q.Raytrace)
	if err != nil {
		return nil, err
	}
	if rt {
		q.Engine = nil // the pair's fields are checked as for any engine; raytrace runs as a job
		req, _, err := a.pairRequest(r, &q)
		if err != nil {
			return nil, err
		}
		layer, opt := q.Raytrace.params(raytracing.DefaultOptions())
		j, err := a.Raytrace.SubmitPair(r.Context(), k, req, layer, opt, q.renames())
		if err != nil {
			return nil, err
		}
		return acceptJob(w, j)
	}
	req, note, err := a.pairRequest(r, &q)
	if err != nil {
		return nil, err
	}
	c, err := a.Pairs.AnalyzePair(r.Context(), req)
	if err != nil {
		return nil, err
	}
	out := AnalyzeResponse{LinkResultJSON: linkResult(c), EngineUsed: string(c.Prediction.Engine),
		EngineVersion: c.Prediction.EngineVersion, Confidence: planner.PhysicsConfidence(c.Prediction.Engine),
		ModelSource: "physics", RxThresholdDBm: r3(req.RxThresholdDBm), Intermediate: map[string]float64{}}
	out.Warnings = withEngineNote(out.Warnings, note)
	out.Intermediate = roundMap(c.Prediction.Intermediate)
	out.Warnings = append(out.Warnings, q.renames()...)
	return out, nil
}

// pairRequest maps a POST /analyze body onto the domain request of the
// calling key (tenant scope, engine resolved for its tier), naming every
// bad field; note is the engine_resolved message, "" when none.
func (a *API) pairRequest(r *http.Request, q *analyzeRequest) (appliance.PairRequest, string, error) {
	// Reuse the link request's decoding for the shared fields.
	lq := analyzeLinkRequest{LinkFieldsJSON: LinkFieldsJSON{Receiver: q.Receiver, FrequencyMHz: q.FrequencyMHz, RxGainDBi: q.RxGainDBi,
		CableLossDB: q.CableLossDB, RxThresholdDBm: q.RxThresholdDBm, AssumedEIRPDBm: q.AssumedEIRPDBm}}
	lr, err := lq.toDomain()
	v := &appliance.ValidationError{}
	if err != nil {
		var ve *appliance.ValidationError
		if errors.As(err, &ve) {
			v.Merge(ve)
		}
	}
	req := appliance.PairRequest{TenantID: scope(keyFrom(r.Context())), Receiver: lr.Receiver, RxHeightM: lr.RxHeightM, FreqMHz: lr.FreqMHz,
		RxGainDBi: lr.RxGainDBi, CableLossDB: lr.CableLossDB, RxThresholdDBm: lr.RxThresholdDBm,
		AssumedEIRPDBm: lr.AssumedEIRPDBm}
	switch {
	case q.TowerID != nil && q.Tower != nil:
		v.Add("tower", "give either tower_id or tower, not both")
	case q.TowerID != nil:
		req.TowerID = *q.TowerID
	case q.Tower != nil:
		rt := registerTowerRequest{Operator: ptr("ad hoc"), Lat: q.Tower.Lat, Lon: q.Tower.Lon, HeightM: q.Tower.HeightM,
			Power: q.Tower.Power, Azimuth: q.Tower.Azimuth, Tilt: q.Tower.Tilt, AntennaID: q.Tower.AntennaID}
		t, err := rt.toDomain()
		if ve, ok := err.(*appliance.ValidationError); ok {
			for _, f := range ve.Fields {
				v.Add("tower."+f.Field, "%s", f.Reason)
			}
		}
		if t != nil {
			t.ID, t.Source, t.Provenance = "adhoc", appliance.SourceUser, "given in the request"
			t.OwnerTenantID = keyFrom(r.Context()).TenantID // its antenna is read from this tenant's catalogue
			registry.CheckAntenna(a.antennaCatalogue(), t.OwnerTenantID, t, "tower.", v)
		}
		req.Tower = t
	}
	if q.TimePct != nil {
		req.TimePct = *q.TimePct
	}
	if q.LocationPct != nil {
		req.LocationPct = *q.LocationPct
	}
	// Range checks of the planner, merged so that the client learns of every
	// bad field in one answer.
	seen := map[string]bool{}
	for _, f := range v.Fields {
		seen[f.Field] = true
	}
	var pv *appliance.ValidationError
	if errors.As(planner.ValidatePair(&req), &pv) {
		for _, f := range pv.Fields {
			if !seen[f.Field] && !(f.Field == "tower_id" && seen["tower"]) {
				seen[f.Field] = true
				v.Fields = append(v.Fields, f)
			}
		}
	}
	if err := v.Err(); err != nil {
		return appliance.PairRequest{}, "", err
	}
	var asked appliance.EngineID
	if q.Engine != nil {
		asked = appliance.EngineID(*q.Engine)
	}
	id, note, err := a.resolveEngine(keyFrom(r.Context()), asked)
	if err != nil {
		return appliance.PairRequest{}, "", err
	}
	req.Engine = id
	return req, note, nil
}

func ptr[T any](v T) *T { return &v }

// parseCase reads an engine case with the body rules of every other route
// (400 for a body that is not one JSON value, 413 over the limit, 422
// naming every unknown field by its path), then decodes and validates it
// strictly with Engines.ParseEngineCase (engines.ParseCase, 422).
func (a *API) parseCase(r *http.Request) (appliance.EngineCase, error) {
	b, err := readCaseBody(r)
	if err != nil {
		return nil, err
	}
	return a.parseCaseBytes(b)
}

// readCaseBody reads an engine case's body (readBody: 413 over the limit,
// 503 over the decode budget), 400 when it is not one JSON value.
func readCaseBody(r *http.Request) ([]byte, error) {
	b, err := readBody(r)
	switch {
	case err != nil:
		return nil, err
	case len(bytes.TrimSpace(b)) == 0:
		return nil, &httpError{status: http.StatusBadRequest, code: "malformed_json", msg: "request body is empty: a JSON object is required"}
	case !json.Valid(b):
		return nil, &httpError{status: http.StatusBadRequest, code: "malformed_json", msg: "request body is not one valid JSON value"}
	}
	return b, nil
}

// parseCaseBytes is parseCase on a body read and checked by readCaseBody.
func (a *API) parseCaseBytes(b []byte) (appliance.EngineCase, error) {
	ve := &appliance.ValidationError{}
	unknownRaw(ve, b, reflect.TypeOf(a.Engines.ZeroCase()), "", "is not a known field of an engine case")
	if err := ve.Err(); err != nil {
		return nil, err
	}
	c, err := a.Engines.ParseEngineCase(b)
	if err != nil {
		return nil, err
	}
	if err := textErrors(c, b); err != nil {
		return nil, err
	}
	return c, nil
}
