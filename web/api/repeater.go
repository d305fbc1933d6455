package api

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/repeater"
)

// RepeaterPlanner plans relay routes (appliance/repeater): short plans at
// once, the others as a queued job.
type RepeaterPlanner interface {
	Submit(ctx context.Context, k *appliance.APIKey, req repeater.Request, set map[string]bool) (*repeater.Plan, *appliance.Job, error)
}

func (a *API) registerRepeater(r *mux.Router) {
	if a.Repeaters == nil {
		return
	}
	r.HandleFunc("/plan_repeater", a.wrap(a.ready(a.authed(a.planRepeater)))).Methods(http.MethodPost)
}

type endpointJSON struct {
	TowerID *string  `json:"tower_id"`
	Lat     *float64 `json:"lat"`
	Lon     *float64 `json:"lon"`
	HeightM *float64 `json:"height_m"`
}

type candidateSiteJSON struct {
	Lat     *float64 `json:"lat"`
	Lon     *float64 `json:"lon"`
	HeightM *float64 `json:"height_m"`
}

type planRepeaterRequest struct {
	From           *endpointJSON       `json:"from"`
	To             *endpointJSON       `json:"to"`
	FrequencyMHz   *float64            `json:"frequency_mhz"`
	MaxHops        *int                `json:"max_hops"`
	MaxHopM        *float64            `json:"max_hop_m"`
	MinMarginDB    *float64            `json:"min_margin_db"`
	EIRPDBm        *float64            `json:"eirp_dbm"`
	RxGainDBi      *float64            `json:"rx_gain_dbi"`
	RxThresholdDBm *float64            `json:"rx_threshold_dbm"`
	RelayHeightM   *float64            `json:"relay_height_m"`
	Engine         *string             `json:"engine"`
	CandidateSites []candidateSiteJSON `json:"candidate_sites"`
	CorridorM      *float64            `json:"corridor_m"`
	Alternatives   *int                `json:"alternatives"`
}

// toDomain maps the body onto a repeater.Request and the set of fields
// given; a site missing a coordinate is named here, ranges by the service.
func (q *planRepeaterRequest) toDomain() (repeater.Request, map[string]bool, error) {
	v := &appliance.ValidationError{}
	var r repeater.Request
	set := map[string]bool{}
	f := func(p *float64, name string, dst *float64) {
		if p != nil {
			*dst, set[name] = *p, true
		}
	}
	ep := func(e *endpointJSON, name string) repeater.Endpoint {
		var out repeater.Endpoint
		if e == nil {
			return out // Validate names it
		}
		if e.TowerID != nil {
			out.TowerID = *e.TowerID
		}
		if e.Lat != nil || e.Lon != nil || e.HeightM != nil {
			for _, m := range []struct {
				p *float64
				n string
			}{{e.Lat, "lat"}, {e.Lon, "lon"}, {e.HeightM, "height_m"}} {
				if m.p == nil {
					v.Add(name+"."+m.n, "is required for a site")
				}
			}
			out.Site = &repeater.Site{Pos: appliance.LatLon{Lat: num(e.Lat), Lon: num(e.Lon)}, HeightM: num(e.HeightM)}
		}
		return out
	}
	r.From, r.To = ep(q.From, "from"), ep(q.To, "to")
	if q.FrequencyMHz == nil {
		v.Add("frequency_mhz", "is required")
	}
	f(q.FrequencyMHz, "frequency_mhz", &r.FreqMHz)
	if q.MaxHops != nil {
		r.MaxHops, set["max_hops"] = *q.MaxHops, true
	}
	f(q.MaxHopM, "max_hop_m", &r.MaxHopM)
	f(q.MinMarginDB, "min_margin_db", &r.MinMarginDB)
	f(q.EIRPDBm, "eirp_dbm", &r.EIRPDBm)
	f(q.RxGainDBi, "rx_gain_dbi", &r.RxGainDBi)
	f(q.RxThresholdDBm, "rx_threshold_dbm", &r.RxThresholdDBm)
	f(q.RelayHeightM, "relay_height_m", &r.RelayHeightM)
	f(q.CorridorM, "corridor_m", &r.CorridorM)
	if q.Engine != nil {
		r.Engine = appliance.EngineID(*q.Engine)
	}
	if q.Alternatives != nil {
		r.Alternatives = *q.Alternatives
	}
	for i, s := range q.CandidateSites {
		name := "candidate_sites[" + strconv.Itoa(i) + "]"
		if s.Lat == nil || s.Lon == nil || s.HeightM == nil {
			v.Add(name, "needs lat, lon and height_m")
			continue
		}
		r.CandidateSites = append(r.CandidateSites, repeater.Site{Pos: appliance.LatLon{Lat: *s.Lat, Lon: *s.Lon}, HeightM: *s.HeightM})
	}
	return r, set, v.Err()
}

// PlanRepeaterJSON is the synchronous answer of POST /plan_repeater (and
// the result file of a plan job): the plan, its warnings followed by the
// engine notes (engine_resolved) of this request.
type PlanRepeaterJSON struct {
	*repeater.Plan
	Warnings []appliance.Warning `json:"warnings"`
}

// PlanAcceptedJSON is the 202 answer of a plan queued as a job: the job
// object exactly as GET /jobs/{id} (Location) answers it.
type PlanAcceptedJSON struct {
	JobJSON
	// Job repeats the job object under the member older clients read;
	// deprecated (OpenAPI), removed in a later version.
	Job *JobJSON `json:"job"`
}

func (a *API) planRepeater(w http.ResponseWriter, r *http.Request) (any, error) {
	var q planRepeaterRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	req, set, err := q.toDomain()
	if err != nil {
		return nil, err
	}
	k := keyFrom(r.Context())
	id, note, err := a.resolveEngine(k, req.Engine)
	if err != nil {
		return nil, err
	}
	req.Engine = id
	plan, job, err := a.Repeaters.Submit(r.Context(), k, req, set)
	if err != nil {
		return nil, err
	}
	if job != nil {
		w.Header().Set("Location", "/jobs/"+job.ID)
		j := jobJSON(job, time.Now())
		writeJSON(w, http.StatusAccepted, PlanAcceptedJSON{JobJSON: j, Job: &j})
		return nil, nil
	}
	out := PlanRepeaterJSON{Plan: plan, Warnings: append([]appliance.Warning{}, plan.Warnings...)}
	out.Warnings = withEngineNote(out.Warnings, note)
	return out, nil
}
