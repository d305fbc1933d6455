package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
	"linkplan/appliance/raytracing"
	"linkplan/appliance/tenancy"
)

// Raytracer runs the asynchronous raytrace engine (appliance/raytracing):
// link jobs on the analysis routes and radio maps.
type Raytracer interface {
	SubmitAnalyzeLink(ctx context.Context, k *appliance.APIKey, req appliance.LinkRequest, layerID string, opt appliance.RaytraceOptions, warnings []appliance.Warning, given []string) (*appliance.Job, error)
	SubmitPair(ctx context.Context, k *appliance.APIKey, req appliance.PairRequest, layerID string, opt appliance.RaytraceOptions, warnings []appliance.Warning) (*appliance.Job, error)
	SubmitCase(ctx context.Context, k *appliance.APIKey, c appliance.EngineCaseSummary, layerID string, opt appliance.RaytraceOptions) (*appliance.Job, error)
	StartMap(ctx context.Context, k *appliance.APIKey, req raytracing.MapRequest) (*coverage.Map, error)
}

// Route of the raytrace radio map.
const routeRaytraceMap = "/coverage/raytrace"

func (a *API) registerRaytrace(r *mux.Router) {
	r.HandleFunc(routeRaytraceMap, a.wrap(a.ready(a.authed(a.startRaytraceMap)))).Methods(http.MethodPost)
}

// raytraceJSON is the "raytrace" member of a request that names engine
// raytrace: the building layer and the engine's options (absent: the
// service's defaults, raytracing.DefaultOptions on the analysis routes
// and raytracing.DefaultMapOptions on maps).
type raytraceJSON struct {
	LayerID *string `json:"layer_id"`
	raytraceOptionsJSON
}

// raytraceOptionsJSON are the engine's options a request may name: in the
// "raytrace" member of the analysis routes and at the top of a raytrace
// map's body.
type raytraceOptionsJSON struct {
	MaxReflections    *int     `json:"max_reflections"`
	Diffraction       *bool    `json:"diffraction"`
	DiffractionRangeM *float64 `json:"diffraction_range_m"`
	GroundReflection  *bool    `json:"ground_reflection"`
	Transmission      *bool    `json:"transmission"`
	Sum               *string  `json:"sum"`
	Polarization      *string  `json:"polarization"`
	// The validated set's options (raytracing's package doc, "Options").
	DiffuseScattering     *float64 `json:"diffuse_scattering"`
	ReflectionDiffraction *bool    `json:"reflection_diffraction"`
	ScatteringReflections *bool    `json:"scattering_reflections"`
	ClutterBeyondExtent   *bool    `json:"clutter_beyond_extent"`
}

// params returns the layer id and the options: those named applied to
// def, the service's defaults for the request's kind.
func (q *raytraceJSON) params(def appliance.RaytraceOptions) (string, appliance.RaytraceOptions) {
	if q == nil {
		return "", def
	}
	layer := ""
	if q.LayerID != nil {
		layer = *q.LayerID
	}
	return layer, q.apply(def)
}

// apply returns def with the options q names.
func (q *raytraceOptionsJSON) apply(def appliance.RaytraceOptions) appliance.RaytraceOptions {
	opt := def
	if q.MaxReflections != nil {
		opt.MaxReflections = *q.MaxReflections
	}
	if q.Diffraction != nil {
		opt.Diffraction = *q.Diffraction
	}
	if q.DiffractionRangeM != nil {
		opt.DiffractionRangeM = *q.DiffractionRangeM
	}
	if q.GroundReflection != nil {
		opt.GroundReflection = *q.GroundReflection
	}
	if q.Transmission != nil {
		opt.Transmission = *q.Transmission
	}
	if q.Sum != nil {
		opt.Sum = appliance.RaytraceSumMode(*q.Sum)
	}
	if q.Polarization != nil {
		opt.Polarization = appliance.RaytracePolarization(*q.Polarization)
	}
	if q.DiffuseScattering != nil {
		opt.DiffuseScattering = *q.DiffuseScattering
	}
	if q.ClutterBeyondExtent != nil {
		opt.ClutterBeyondExtent = *q.ClutterBeyondExtent
	}
	if q.ReflectionDiffraction != nil {
		opt.ReflectionDiffraction = *q.ReflectionDiffraction
	} else {
		opt.ReflectionDiffraction = raytracing.DefaultReflectionDiffraction(def, opt)
	}
	if q.ScatteringReflections != nil {
		opt.ScatteringReflections = *q.ScatteringReflections
	} else {
		opt.ScatteringReflections = raytracing.DefaultScatteringReflections(def, opt)
	}
	return opt
}

var errNoRaytrace = &httpError{status: http.StatusServiceUnavailable, code: "unavailable",
	msg: "the raytrace engine is not served on this appliance: its raytrace worker is not configured"}

// raytraceAsked reports a request that names engine raytrace, after the
// engine's tier rule (403 below Enterprise) and the worker's presence
// (503); a "raytrace" member without the engine is a 422.
func (a *API) raytraceAsked(k *appliance.APIKey, engine *string, params *raytraceJSON) (bool, error) {
	if engine == nil || appliance.EngineID(*engine) != appliance.EngineRaytrace {
		if params != nil {
			return false, appliance.Invalid("raytrace", "is for engine \"raytrace\" only")
		}
		return false, nil
	}
	if err := tenancy.RequireTier(k, appliance.TierEnterprise); err != nil {
		return false, err
	}
	if a.Raytrace == nil {
		return false, errNoRaytrace
	}
	return true, nil
}

// acceptJob answers 202 with the job (the object GET /jobs/{id} returns)
// and its Location.
func acceptJob(w http.ResponseWriter, j *appliance.Job) (any, error) {
	w.Header().Set("Location", "/jobs/"+j.ID)
	writeJSON(w, http.StatusAccepted, jobJSON(j, time.Now()))
	return nil, nil
}

// raytraceEnginesPredict is engine raytrace on POST
// /coverage/engines/predict: the body is an engine case in terrain mode
// (tx, rx, frequency_mhz) with a "raytrace" member; an explicit profile
// cannot be ray traced (it has no positions for buildings).
func (a *API) raytraceEnginesPredict(w http.ResponseWriter, r *http.Request, body []byte) (any, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, &httpError{status: http.StatusBadRequest, code: "malformed_json", msg: "request body is not a JSON object"}
	}
	var params *raytraceJSON
	if rt, ok := raw["raytrace"]; ok {
		params = &raytraceJSON{}
		if err := decodeBytes(rt, params, maxArrayElements); err != nil {
			return nil, prefixFields(err, "raytrace.")
		}
	}
	delete(raw, "raytrace")
	if _, ok := raw["profile"]; ok {
		return nil, appliance.Invalid("profile", "engine raytrace traces positions over a building layer: give tx and rx, not an explicit profile")
	}
	rest, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	ec, err := a.parseCaseBytes(rest)
	if err != nil {
		return nil, err
	}
	c := ec.CaseSummary()
	k := keyFrom(r.Context())
	layer, opt := params.params(raytracing.DefaultOptions())
	j, err := a.Raytrace.SubmitCase(r.Context(), k, c, layer, opt)
	if err != nil {
		return nil, err
	}
	return acceptJob(w, j)
}

// raytraceMapRequest is the body of POST /coverage/raytrace.
type raytraceMapRequest struct {
	LayerID      *string   `json:"layer_id"`
	TowerID      *string   `json:"tower_id"`
	Site         *siteJSON `json:"site"`
	FrequencyMHz *float64  `json:"frequency_mhz"`
	BBox         *bboxJSON `json:"bbox"`
	RadiusM      *float64  `json:"radius_m"`
	ResolutionM  *float64  `json:"resolution_m"`
	RxHeightM    *float64  `json:"rx_height_m"`
	// The engine's options, as the "raytrace" member of the analysis
	// routes names them.
	raytraceOptionsJSON
}

// raytraceMapDomain maps the body onto the service's request; the
// transmitter is the tower of tower_id or the site, resolved by the
// service as a heatmap's.
func (a *API) raytraceMapDomain(q *raytraceMapRequest) (raytracing.MapRequest, error) {
	v := &appliance.ValidationError{}
	var req raytracing.MapRequest
	if q.LayerID == nil {
		v.Add("layer_id", "is required: the id of one of your building layers (GET /buildings/layers)")
	} else {
		req.LayerID = *q.LayerID
	}
	if q.FrequencyMHz == nil {
		v.Add("frequency_mhz", "is required")
	}
	req.FreqMHz, req.RxHeightM, req.ResolutionM = num(q.FrequencyMHz), num(q.RxHeightM), num(q.ResolutionM)
	for _, p := range []struct {
		v     *float64
		field string
	}{{q.RxHeightM, "rx_height_m"}, {q.ResolutionM, "resolution_m"}, {q.RadiusM, "radius_m"}} {
		if p.v != nil && !(*p.v > 0) {
			v.Add(p.field, "must be greater than 0, got %g", *p.v)
		}
	}
	req.RadiusM = num(q.RadiusM)
	req.TowerID = q.TowerID
	if q.Site != nil {
		req.Site = q.Site.toDomain(v)
	}
	if q.BBox != nil {
		b := q.BBox
		if b.MinLat == nil || b.MinLon == nil || b.MaxLat == nil || b.MaxLon == nil {
			v.Add("bbox", "needs min_lat, min_lon, max_lat and max_lon")
		} else if !(*b.MinLat < *b.MaxLat && *b.MinLon < *b.MaxLon) || *b.MinLat < -90 || *b.MaxLat > 90 || *b.MinLon < -180 || *b.MaxLon > 180 {
			v.Add("bbox", "must have min_lat < max_lat and min_lon < max_lon within WGS84 ranges")
		} else {
			req.BBox = &appliance.BBox{MinLat: *b.MinLat, MinLon: *b.MinLon, MaxLat: *b.MaxLat, MaxLon: *b.MaxLon}
		}
	}
	req.Options = q.apply(raytracing.DefaultMapOptions())
	return req, v.Err()
}

// startRaytraceMap: POST /coverage/raytrace starts a raytrace radio map
// and streams its events, as POST /coverage/heatmap does (the map's
// state, events and exports are at /coverage/heatmap/{id}).
func (a *API) startRaytraceMap(w http.ResponseWriter, r *http.Request) (any, error) {
	var q raytraceMapRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	after, err := lastEventID(r)
	if err != nil {
		return nil, err
	}
	k := keyFrom(r.Context())
	if err := tenancy.RequireTier(k, appliance.TierEnterprise); err != nil {
		return nil, err
	}
	if a.Raytrace == nil || a.Heatmaps == nil {
		return nil, errNoRaytrace
	}
	req, err := a.raytraceMapDomain(&q)
	if err != nil {
		return nil, err
	}
	mp, err := a.Raytrace.StartMap(r.Context(), k, req)
	if err != nil {
		return nil, err
	}
	return nil, a.streamMap(w, r, mp, after)
}

// bodyEngine reads the "engine" member of a JSON body, nil when absent or
// not a string.
func bodyEngine(body []byte) *string {
	var head struct {
		Engine json.RawMessage `json:"engine"`
	}
	if json.Unmarshal(body, &head) != nil || len(head.Engine) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(bytes.TrimSpace(head.Engine), &s) != nil {
		return nil
	}
	return &s
}
