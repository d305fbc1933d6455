package repeater

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"linkplan/appliance"
)

// Enqueuer puts a job on the durable queue (appliance/jobs).
type Enqueuer interface {
	Enqueue(ctx context.Context, j *appliance.Job) error
}

// Submitter answers POST /plan_repeater: plans below AsyncMinHops hops
// at once, the others as a job on the durable queue (package doc,
// "States").
type Submitter struct {
	Plans            *Service
	Queue            Enqueuer
	NewID            func() (string, error)
	MaxAttempts      int // of a plan job; 0: 3
	MaxInterruptions int // of a plan job (restarts it survives)
}

// payloadVersion is the version of a plan job's payload.
const payloadVersion = 1

type payload struct {
	Version int     `json:"version"`
	Request Request `json:"request"`
}

// Submit fills the defaults (set holds the JSON names the client gave),
// scopes the request to the key's tenant, validates it, and plans it or
// queues it: exactly one of the plan and the job is non-nil on success.
func (s *Submitter) Submit(ctx context.Context, k *appliance.APIKey, req Request, set map[string]bool) (*Plan, *appliance.Job, error) {
	if k == nil {
		return nil, nil, fmt.Errorf("plan repeater: no API key: %w", appliance.ErrUnauthenticated)
	}
	Defaults(&req, set)
	req.TenantID = k.TenantID
	if err := Validate(&req); err != nil {
		return nil, nil, err
	}
	if !s.Plans.NeedsJob(req) {
		p, err := s.Plans.Plan(ctx, req)
		if err != nil {
			return nil, nil, err
		}
		return p.Rounded(), nil, nil
	}
	if s.Queue == nil {
		return nil, nil, fmt.Errorf("the job queue refused the plan: no queue configured: %w", appliance.ErrUnavailable)
	}
	// The endpoints must exist now: a plan job that can only fail is a
	// 4xx at once, not a failed job later.
	ix := s.Plans.Towers()
	for _, e := range []struct {
		field string
		ep    Endpoint
	}{{"from", req.From}, {"to", req.To}} {
		if _, err := s.Plans.resolve(ix, e.field, e.field, e.ep, req.TenantID); err != nil {
			return nil, nil, err
		}
	}
	body, err := json.Marshal(payload{Version: payloadVersion, Request: req})
	if err != nil {
		return nil, nil, fmt.Errorf("plan repeater: payload: %w", err)
	}
	id, err := s.NewID()
	if err != nil {
		return nil, nil, fmt.Errorf("the job queue refused the plan: %w: %w", appliance.ErrUnavailable, err)
	}
	attempts := s.MaxAttempts
	if attempts <= 0 {
		attempts = 3
	}
	j := &appliance.Job{ID: id, TenantID: k.TenantID, KeyID: k.ID, Kind: appliance.JobKindRepeaterPlan,
		Lane: appliance.LaneOf(k.Tier), Payload: body, Total: 1, MaxAttempts: attempts, MaxInterruptions: s.MaxInterruptions}
	if err := s.Queue.Enqueue(ctx, j); err != nil {
		return nil, nil, fmt.Errorf("the job queue refused the plan: %w: %w", appliance.ErrUnavailable, err)
	}
	return nil, j, nil
}

// Handler returns the job handler of appliance.JobKindRepeaterPlan: it
// plans the queued request and writes the plan as the job's JSON result
// (the body a synchronous POST /plan_repeater answers). A plan is one
// unit: an interrupted job plans again from the start (warm edges make
// that cheap), so its result is the same.
func (s *Submitter) Handler() appliance.JobHandler { return planHandler{s} }

type planHandler struct{ s *Submitter }

// PlanSummary is the summary of a finished plan job.
type PlanSummary struct {
	Found       bool     `json:"found"`         // a route meets the constraints
	Hops        int      `json:"hops"`          // hops of the best route, 0 without one
	MinMarginDB *float64 `json:"min_margin_db"` // least hop margin of the best route, dB; null without one
}

func (h planHandler) Run(ctx context.Context, run appliance.JobRun) (appliance.JobResult, error) {
	j := run.Job()
	var p payload
	if err := json.Unmarshal(j.Payload, &p); err != nil || p.Version != payloadVersion {
		return appliance.JobResult{}, fmt.Errorf("plan job %s: payload (version %d): %v: %w", j.ID, p.Version, err, appliance.ErrInvalid)
	}
	plan, err := h.s.Plans.Plan(ctx, p.Request)
	if err != nil {
		return appliance.JobResult{}, fmt.Errorf("plan job %s: %w", j.ID, err)
	}
	out := plan.Rounded()
	res, err := run.WriteResult(".json", func(w io.Writer) error { return json.NewEncoder(w).Encode(out) })
	if err != nil {
		return appliance.JobResult{}, fmt.Errorf("plan job %s: result: %w", j.ID, err)
	}
	if err := run.Checkpoint(ctx, appliance.JobProgress{Done: 1}, nil); err != nil {
		return appliance.JobResult{}, fmt.Errorf("plan job %s: checkpoint: %w", j.ID, err)
	}
	sum := PlanSummary{}
	if plan.Route != nil {
		m := plan.Route.MinMarginDB
		sum = PlanSummary{Found: true, Hops: len(plan.Route.Hops), MinMarginDB: &m}
	}
	if res.Summary, err = json.Marshal(sum); err != nil {
		return appliance.JobResult{}, fmt.Errorf("plan job %s: summary: %w", j.ID, err)
	}
	return res, nil
}

// MarshalJSON writes the node with lat and lon (WGS84 degrees) in place
// of pos.
func (n Node) MarshalJSON() ([]byte, error) {
	type node struct {
		Kind    string  `json:"kind"`
		TowerID string  `json:"tower_id,omitempty"`
		Site    *int    `json:"site,omitempty"` // index in candidate_sites, for kind "site"
		Lat     float64 `json:"lat"`
		Lon     float64 `json:"lon"`
		HeightM float64 `json:"height_m"`
		// Synthetic and UncertaintyM are a tower's caveats: synthetic
		// sample data; its position uncertainty, metres (null for a site or
		// a tower whose source gives none).
		Synthetic    bool     `json:"synthetic"`
		UncertaintyM *float64 `json:"position_uncertainty_m"`
	}
	out := node{Kind: n.Kind, TowerID: n.TowerID, Lat: n.Pos.Lat, Lon: n.Pos.Lon, HeightM: n.HeightM, Synthetic: n.Synthetic}
	if n.UncertaintyM > 0 {
		u := n.UncertaintyM
		out.UncertaintyM = &u
	}
	if n.Site >= 0 && n.Kind == "site" {
		s := n.Site
		out.Site = &s
	}
	return json.Marshal(out)
}

// Rounded returns a copy of p with its figures rounded as the API
// answers them: 3 decimals for metres, dB and the clearance ratio, 6 for
// degrees. The search itself uses the unrounded figures.
func (p *Plan) Rounded() *Plan {
	r3 := func(x float64) float64 { return appliance.Round(x, 3) }
	r6 := func(x float64) float64 { return appliance.Round(x, 6) }
	node := func(n Node) Node {
		n.Pos.Lat, n.Pos.Lon, n.HeightM = r6(n.Pos.Lat), r6(n.Pos.Lon), r3(n.HeightM)
		return n
	}
	route := func(rt Route) Route {
		hops := make([]Hop, len(rt.Hops))
		for i, h := range rt.Hops {
			h.From, h.To = node(h.From), node(h.To)
			h.DistanceM, h.PathLossDB, h.FresnelPenaltyDB = r3(h.DistanceM), r3(h.PathLossDB), r3(h.FresnelPenaltyDB)
			h.EffectiveLossDB, h.MarginDB, h.MinClearanceRatio = r3(h.EffectiveLossDB), r3(h.MarginDB), r3(h.MinClearanceRatio)
			hops[i] = h
		}
		rt.Hops = hops
		rt.BottleneckLossDB, rt.TotalLossDB, rt.MinMarginDB = r3(rt.BottleneckLossDB), r3(rt.TotalLossDB), r3(rt.MinMarginDB)
		return rt
	}
	out := *p
	if p.Route != nil {
		rt := route(*p.Route)
		out.Route = &rt
	}
	if p.Alternatives != nil {
		out.Alternatives = make([]Route, len(p.Alternatives))
		for i, a := range p.Alternatives {
			out.Alternatives[i] = route(a)
		}
	}
	return &out
}
