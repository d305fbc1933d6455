package raytracing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"linkplan/appliance"
	"linkplan/appliance/planner"
)

// Routes of a link job (LinkRequest.Route).
const (
	RouteAnalyze        = "analyze"         // POST /analyze: one tower, one receiver, the link budget
	RouteAnalyzeLink    = "analyze_link"    // POST /analyze_link: the towers around one receiver, ranked by margin
	RouteEnginesPredict = "engines_predict" // POST /coverage/engines/predict: one path's loss
)

// MaxLinks bounds the links of one job (the towers /analyze_link traces).
const MaxLinks = 50

// Site is one end of a link: WGS84 degrees and metres above the ground.
type Site struct {
	Lat     float64 `json:"lat"`
	Lon     float64 `json:"lon"`
	HeightM float64 `json:"height_m"`
}

func (s Site) pos() appliance.LatLon { return appliance.LatLon{Lat: s.Lat, Lon: s.Lon} }

// Link is one transmitter–receiver pair of a link job, with its link
// budget when Budget is set: received power = EIRPDBm − PatternLossDB −
// path loss + RxGainDBi − CableLossDB, margin = received power −
// RxThresholdDBm (dBm, dB, dBi).
type Link struct {
	TowerID       string  `json:"tower_id,omitempty"`
	Operator      string  `json:"operator,omitempty"`
	Tx            Site    `json:"tx"`
	Rx            Site    `json:"rx"`
	Budget        bool    `json:"budget"`
	EIRPDBm       float64 `json:"eirp_dbm"`
	EIRPAssumed   bool    `json:"eirp_assumed"`
	PatternLossDB float64 `json:"antenna_pattern_loss_db"`
	// Antenna names the transmitter's antenna whose loss PatternLossDB is
	// (a catalogue antenna, "generic 65° sector", "omnidirectional"), as
	// the physics engines' links state it; "" without a budget.
	Antenna string `json:"antenna,omitempty"`
	// TowerElevationDeg is the angle below the horizontal at which the
	// transmitter's antenna sees the receiver's, degrees (negative:
	// above), on the terrain (appliance.ElevationDownDeg); nil without a
	// budget.
	TowerElevationDeg *float64            `json:"tower_elevation_deg,omitempty"`
	RxGainDBi         float64             `json:"rx_gain_dbi"`
	CableLossDB       float64             `json:"cable_loss_db"`
	RxThresholdDBm    float64             `json:"rx_threshold_dbm"`
	Warnings          []appliance.Warning `json:"warnings,omitempty"` // the tower's caveats (planner.TowerWarnings, antenna_unavailable)
	// Standing is how far the tower's record can be relied on for the
	// choice of the best link (planner.Standing's name: real,
	// uncertain_position, synthetic); "" is real (no tower, or a job
	// queued before standings were recorded).
	Standing string `json:"standing,omitempty"`
}

// LinkRequest is a link job: the links to trace over one of the tenant's
// building layers.
type LinkRequest struct {
	Route   string                    `json:"route"`
	LayerID string                    `json:"layer_id"`
	FreqMHz float64                   `json:"frequency_mhz"`
	Options appliance.RaytraceOptions `json:"options"`
	Links   []Link                    `json:"links"`
	// Warnings apply to the whole answer (engine resolved, renamed
	// fields); they travel into the result.
	Warnings []appliance.Warning `json:"warnings,omitempty"`
}

// linkPayload is a link job's payload.
type linkPayload struct {
	Version   int         `json:"version"`
	Tier      string      `json:"tier"`
	SceneHash string      `json:"scene_hash"`
	Request   LinkRequest `json:"request"`
}

// linkPayloadVersion 2: the scene hash covers the terrain grid's shape,
// its voids and the assumed-height marks (engines/raytrace Scene.Hash).
// A version 1 payload, queued before that change, holds a hash of the
// older scheme: its layer's scene is taken as it is now (a layer's
// buildings never change; only the terrain packs could have).
const linkPayloadVersion = 2

// DefaultOptions are the options of a link job that names none: the set
// the Dortmund drive tests validated (linkplan raytrace eval; package doc,
// "Options"): the engine's defaults (reflections up to order 2,
// first-order diffraction, ground reflection, coherent sum for a link:
// the local field) with the walls' scattering at
// DefaultDiffuseScattering (its legs also through one wall reflection),
// the reflection–diffraction paths and clutter beyond the layer's extent.
func DefaultOptions() appliance.RaytraceOptions {
	o := appliance.DefaultRaytraceOptions()
	o.DiffuseScattering = DefaultDiffuseScattering
	o.ScatteringReflections = true
	o.ReflectionDiffraction = true
	o.ClutterBeyondExtent = true
	return o
}

// SubmitLinks validates a link job for k's tenant and enqueues it: the
// tier (Enterprise or Ultra, else appliance.ErrForbidden), the layer (the
// tenant's own, else appliance.ErrNotFound), every position within the
// layer's frame, the frequency and options (appliance.ErrInvalid naming
// the field). Its answer is the queued job (202 on the routes).
func (s *Service) SubmitLinks(ctx context.Context, k *appliance.APIKey, req LinkRequest) (*appliance.Job, error) {
	if err := allowed(k); err != nil {
		return nil, err
	}
	v := &appliance.ValidationError{}
	switch req.Route {
	case RouteAnalyze, RouteAnalyzeLink, RouteEnginesPredict:
	default:
		return nil, fmt.Errorf("raytrace link job: route %q: %w", req.Route, appliance.ErrInvalid)
	}
	if len(req.Links) == 0 {
		return nil, appliance.Invalid("receiver", "no tower within max_distance_km of the receiver lies within the building layer's traced frame")
	}
	if len(req.Links) > MaxLinks {
		return nil, fmt.Errorf("raytrace link job: %d links, at most %d: %w", len(req.Links), MaxLinks, appliance.ErrInvalid)
	}
	ly, err := s.layerOf(ctx, k, k.TenantID, req.LayerID, "raytrace.layer_id")
	if err != nil {
		return nil, err
	}
	f := ly.frame
	for i, l := range req.Links {
		p := appliance.RaytracePointRequest{Tx: appliance.RaytraceAntenna{Pos: l.Tx.pos(), HeightM: l.Tx.HeightM}, Rx: appliance.RaytraceAntenna{Pos: l.Rx.pos(), HeightM: l.Rx.HeightM},
			FreqMHz: req.FreqMHz, Options: req.Options}
		if err := p.Validate(); err != nil {
			var ve *appliance.ValidationError
			if errors.As(err, &ve) {
				for _, fe := range ve.Fields {
					v.Add(linkField(req.Route, i, fe.Field), "%s", fe.Reason)
				}
			} else {
				return nil, err
			}
		}
		if req.Route != RouteAnalyzeLink || i == 0 {
			inFrame(v, linkField(req.Route, i, "rx.pos"), f, l.Rx.pos())
		}
		if sep, limit, close := tooClose(s.Terrain, l.Tx, l.Rx, req.FreqMHz); close {
			v.Add(linkField(req.Route, i, "rx.pos"), "%s", tooCloseReason(sep, limit))
		}
		if req.Route != RouteAnalyzeLink {
			inFrame(v, linkField(req.Route, i, "tx.pos"), f, l.Tx.pos())
		}
		if v.Full() {
			break
		}
	}
	validOptions(v, req.Options, func(f string) string { return linkField(req.Route, 0, f) })
	if err := v.Err(); err != nil {
		return nil, err
	}
	body, err := json.Marshal(linkPayload{Version: linkPayloadVersion, Tier: string(k.Tier), SceneHash: ly.hash, Request: req})
	if err != nil {
		return nil, fmt.Errorf("raytrace link job: payload: %w", err)
	}
	id, err := s.NewID()
	if err != nil {
		return nil, fmt.Errorf("the job queue refused the raytrace job: %w: %w", appliance.ErrUnavailable, err)
	}
	attempts, interruptions := s.MaxAttempts, s.MaxInterruptions
	if attempts <= 0 {
		attempts = 3
	}
	if interruptions <= 0 {
		interruptions = 10
	}
	j := &appliance.Job{ID: id, TenantID: k.TenantID, KeyID: k.ID, Kind: appliance.JobKindRaytraceLink, Lane: appliance.LaneOf(k.Tier),
		Payload: body, Total: int64(len(req.Links)), MaxAttempts: attempts, MaxInterruptions: interruptions}
	if err := s.Queue.Enqueue(ctx, j); err != nil {
		return nil, fmt.Errorf("the job queue refused the raytrace job: %w: %w", appliance.ErrUnavailable, err)
	}
	return j, nil
}

// linkField names a link's field as the route's body does.
func linkField(route string, i int, field string) string {
	switch field {
	case "frequency_mhz", "max_reflections", "diffraction_range_m", "sum", "polarization", "diffuse_scattering", "reflection_diffraction", "scattering_reflections":
		if field == "frequency_mhz" {
			return field
		}
		return "raytrace." + field
	}
	switch route {
	case RouteEnginesPredict:
		switch field {
		case "tx.pos":
			return "tx"
		case "rx.pos":
			return "rx"
		case "tx.height_m", "rx.height_m":
			return field
		}
	case RouteAnalyze:
		switch field {
		case "tx.pos", "tx.height_m":
			return "tower"
		case "rx.pos":
			return "receiver"
		case "rx.height_m":
			return "receiver.height_m"
		}
	case RouteAnalyzeLink:
		switch field {
		case "rx.pos":
			return "receiver"
		case "rx.height_m":
			return "receiver.height_m"
		}
		return fmt.Sprintf("towers[%d].%s", i, field)
	}
	return field
}

// Cost sizes a link job for the heavy-work scheduler: one worker slot
// (a point unit is single-threaded in the worker) and the appliance's
// share of memory: the scene's input when the worker misses it, and the
// answers (linkJobMemBytes), plus the build of the layer's scene
// (Scenes.EstimateBytes) when the appliance does not hold it built (a
// restart, or the scene cache evicted it): the job builds it under this
// grant (layerOf admits no build of its own for a job: a job holding a
// grant must not wait for another). Cost is asked before the job's
// admission, holding no grant, so it may wait for a build in progress
// (Scenes.Built).
func (s *Service) Cost(j *appliance.Job) (appliance.HeavyWork, bool) {
	if j.Kind != appliance.JobKindRaytraceLink {
		return appliance.HeavyWork{}, false
	}
	var p linkPayload
	_ = json.Unmarshal(j.Payload, &p) // an unreadable payload fails in the handler
	w := appliance.HeavyWork{Workers: 1, MemBytes: linkJobMemBytes, Tier: appliance.Tier(p.Tier)}
	if p.Request.LayerID != "" && s.Layers != nil && s.Scenes != nil {
		// a layer that cannot be read fails in the handler
		if l, _, err := s.Layers.BuildingLayer(j.TenantID, p.Request.LayerID, false); err == nil && !s.Scenes.Built(l) {
			w.MemBytes += s.Scenes.EstimateBytes(l)
		}
	}
	return w, true
}

// linkJobMemBytes is a link job's estimate without a scene build: the
// scene input of a large layer on a worker miss (decoded buildings and
// heightfield) and the path lists.
const linkJobMemBytes = 96 << 20

// LinkResult is one traced link of a job's result (JSON; null where no
// path reaches the receiver).
type LinkResult struct {
	Link
	DistanceM        float64                  `json:"distance_m"`
	Reachable        bool                     `json:"reachable"`
	LOS              bool                     `json:"los"`
	PathLossDB       *float64                 `json:"path_loss_db"`        // dB, antenna gains excluded (isotropic)
	CoherentLossDB   *float64                 `json:"coherent_loss_db"`    // dB, from the coherent field sum
	PowerSumLossDB   *float64                 `json:"power_sum_loss_db"`   // dB, from the power sum
	RxPowerDBm       *float64                 `json:"rx_power_dbm"`        // with the budget; dBm
	LinkMarginDB     *float64                 `json:"link_margin_db"`      // with the budget; dB
	RMSDelaySpreadNs *float64                 `json:"rms_delay_spread_ns"` // ns
	Paths            []appliance.RaytracePath `json:"paths"`
	EngineWarnings   []appliance.Warning      `json:"engine_warnings"`
}

// LinkJobResult is the result file of a link job (JSON).
type LinkJobResult struct {
	Route         string              `json:"route"`
	Engine        string              `json:"engine"`
	EngineVersion string              `json:"engine_version"`
	LayerID       string              `json:"layer_id"`
	SceneHash     string              `json:"scene_hash"`
	FreqMHz       float64             `json:"frequency_mhz"`
	Options       OptionsJSON         `json:"options"` // the options the links were traced with, every one stated
	Links         []LinkResult        `json:"links"`
	Best          *int                `json:"best"` // index of the best link (best: ranked as the planner ranks towers); null when none is reachable
	Warnings      []appliance.Warning `json:"warnings"`
}

// LinkJobSummary is a link job's summary (GET /jobs/{id}).
type LinkJobSummary struct {
	Links        int      `json:"links"`
	Reachable    int      `json:"reachable"`
	BestTowerID  string   `json:"best_tower_id,omitempty"`
	PathLossDB   *float64 `json:"path_loss_db"`   // of the best link, dB
	LinkMarginDB *float64 `json:"link_margin_db"` // of the best link with a budget, dB
	// Warnings are the caveats of those numbers: the result's (the whole
	// answer's), then the best link's (its tower's) and its engine's, a
	// warning repeated word for word listed once (two of one code with
	// different messages, such as two ignored members, are both kept).
	// When no link is reachable (no best) the links' own follow instead,
	// the first of each code not yet listed, in link order: why none
	// reaches the receiver (a receiver inside a building, no path) and
	// what its towers rest on. Empty, never null.
	Warnings []appliance.Warning `json:"warnings"`
}

// summaryWarnings is the summary's warnings of out (LinkJobSummary).
func summaryWarnings(out *LinkJobResult) []appliance.Warning {
	ws := []appliance.Warning{}
	add := func(list []appliance.Warning) {
		for _, w := range list {
			if !slices.Contains(ws, w) {
				ws = append(ws, w)
			}
		}
	}
	add(out.Warnings)
	if out.Best != nil {
		b := out.Links[*out.Best]
		add(b.Link.Warnings)
		add(b.EngineWarnings)
		return ws
	}
	for _, l := range out.Links {
		for _, w := range append(slices.Clip(l.Link.Warnings), l.EngineWarnings...) {
			if !slices.ContainsFunc(ws, func(x appliance.Warning) bool { return x.Code == w.Code }) {
				ws = append(ws, w)
			}
		}
	}
	return ws
}

// Handler returns the job handler of appliance.JobKindRaytraceLink.
func (s *Service) Handler() appliance.JobHandler { return linkHandler{s} }

type linkHandler struct{ s *Service }

// Run traces the job's links one by one from its checkpoint (each link's
// result is an item, written once by index), then writes the result.
func (h linkHandler) Run(ctx context.Context, run appliance.JobRun) (appliance.JobResult, error) {
	s := h.s
	j := run.Job()
	var p linkPayload
	if err := json.Unmarshal(j.Payload, &p); err != nil || p.Version < 1 || p.Version > linkPayloadVersion {
		return appliance.JobResult{}, fmt.Errorf("raytrace job %s: payload (version %d): %v: %w", j.ID, p.Version, err, appliance.ErrInvalid)
	}
	req := p.Request
	ly, err := s.layerOf(ctx, nil, j.TenantID, req.LayerID, "raytrace.layer_id")
	if errors.Is(err, appliance.ErrNotFound) {
		return appliance.JobResult{}, &jobError{msg: fmt.Sprintf("the building layer %s was deleted after the job was submitted", req.LayerID), err: appliance.ErrInvalid}
	}
	if err != nil {
		return appliance.JobResult{}, fmt.Errorf("raytrace job %s: %w", j.ID, err)
	}
	if p.Version == 1 {
		p.SceneHash = ly.hash // hashed by the older scheme (linkPayloadVersion)
	}
	if ly.hash != p.SceneHash {
		return appliance.JobResult{}, &jobError{msg: fmt.Sprintf("the scene of building layer %s changed since the job was submitted (scene %s, now %s; the terrain packs changed?): submit it again",
			req.LayerID, p.SceneHash[:12], ly.hash[:12]), err: appliance.ErrInvalid}
	}
	scene := s.sceneRef(j.TenantID, ly)
	version := ""
	for i := int(j.Done); i < len(req.Links); i++ {
		l := req.Links[i]
		txPower := 0.0
		if l.Budget {
			txPower = l.EIRPDBm - l.PatternLossDB
		}
		pr := appliance.RaytracePointRequest{Tx: appliance.RaytraceAntenna{Pos: l.Tx.pos(), HeightM: l.Tx.HeightM}, Rx: appliance.RaytraceAntenna{Pos: l.Rx.pos(), HeightM: l.Rx.HeightM},
			FreqMHz: req.FreqMHz, TxPowerDBm: txPower, Options: req.Options}
		res, err := s.Executor.Point(ctx, scene, pr)
		s.count("point", err, ctx)
		if err != nil {
			return appliance.JobResult{}, fmt.Errorf("raytrace job %s, link %d: %w", j.ID, i, err)
		}
		version = res.EngineVersion
		b, err := json.Marshal(linkResult(l, res, txPower))
		if err != nil {
			return appliance.JobResult{}, fmt.Errorf("raytrace job %s, link %d: %w", j.ID, i, err)
		}
		if err := run.Checkpoint(ctx, appliance.JobProgress{Done: int64(i + 1)}, []appliance.JobItem{{Index: int64(i), Data: b}}); err != nil {
			return appliance.JobResult{}, err
		}
	}
	out := LinkJobResult{Route: req.Route, Engine: string(appliance.EngineRaytrace), EngineVersion: version, LayerID: req.LayerID, SceneHash: ly.hash,
		FreqMHz: req.FreqMHz, Options: EchoOptions(req.Options), Links: make([]LinkResult, 0, len(req.Links))}
	// the request's warnings, then the layer's import caveats
	out.Warnings = append(append([]appliance.Warning{}, req.Warnings...), LayerWarnings(ly.l)...)
	if err := run.Items(ctx, 0, func(it appliance.JobItem) error {
		var lr LinkResult
		if err := json.Unmarshal(it.Data, &lr); err != nil {
			return fmt.Errorf("item %d: %w", it.Index, err)
		}
		out.Links = append(out.Links, lr)
		return nil
	}); err != nil {
		return appliance.JobResult{}, fmt.Errorf("raytrace job %s: %w", j.ID, err)
	}
	if out.EngineVersion == "" {
		out.EngineVersion = s.Executor.EngineVersion() // every link was traced before a restart
	}
	var strongest *int
	out.Best, strongest = best(out.Links)
	if w := demotedWarning(out.Links, out.Best, strongest); w != nil {
		out.Warnings = append(out.Warnings, *w)
	}
	sum := LinkJobSummary{Links: len(out.Links), Warnings: summaryWarnings(&out)}
	for _, l := range out.Links {
		if l.Reachable {
			sum.Reachable++
		}
	}
	if out.Best != nil {
		b := out.Links[*out.Best]
		sum.BestTowerID, sum.PathLossDB, sum.LinkMarginDB = b.TowerID, b.PathLossDB, b.LinkMarginDB
	}
	res, err := run.WriteResult(".json", func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(out)
	})
	if err != nil {
		return appliance.JobResult{}, fmt.Errorf("raytrace job %s: result: %w", j.ID, err)
	}
	if res.Summary, err = json.Marshal(sum); err != nil {
		return appliance.JobResult{}, fmt.Errorf("raytrace job %s: summary: %w", j.ID, err)
	}
	return res, nil
}

// jobError is a link job's failure whose message is the reason the job's
// record shows (GET /jobs/{id} error): a sentence for the user, without
// the sentinel's text at its end ("…: invalid input"); it matches err
// (the sentinel that decides whether the job is retried).
type jobError struct {
	msg string
	err error
}

func (e *jobError) Error() string { return e.msg }
func (e *jobError) Unwrap() error { return e.err }

// linkResult is the answer of one link: the engine's paths and losses and,
// with a budget, the received power and margin.
func linkResult(l Link, r appliance.RaytraceResult, txPower float64) LinkResult {
	out := LinkResult{Link: l, DistanceM: r3(l.Tx.pos().DistanceM(l.Rx.pos())), Reachable: r.Reachable, LOS: r.LOS,
		Paths: r.Paths, EngineWarnings: r.Warnings}
	if out.Paths == nil {
		out.Paths = []appliance.RaytracePath{}
	}
	if out.EngineWarnings == nil {
		out.EngineWarnings = []appliance.Warning{}
	}
	if out.Link.Warnings == nil {
		out.Link.Warnings = []appliance.Warning{}
	}
	if !r.Reachable {
		return out
	}
	out.PathLossDB = fp(r.PathLossDB) // TxPowerDBm − received power: independent of the power
	out.CoherentLossDB = fp(txPower - r.CoherentPowerDBm)
	out.PowerSumLossDB = fp(txPower - r.PowerSumDBm)
	out.RMSDelaySpreadNs = fp(r.RMSDelaySpreadNs)
	if l.Budget {
		rx := r.ReceivedPowerDBm + l.RxGainDBi - l.CableLossDB
		out.RxPowerDBm = fp(rx)
		out.LinkMarginDB = fp(rx - l.RxThresholdDBm)
	}
	return out
}

// best is the link the answer puts first, as the planner ranks towers
// (planner package doc, "Ranking"): of the links whose margin closes
// (≥ 0 dB), the best standing (a real tower with a well-known position
// before one of uncertain position, before synthetic sample data), then
// the largest margin; when none closes, or without a budget, the largest
// margin or the least path loss. The first wins a tie. strongest is the
// link with the largest margin (or least loss), which best is unless a
// stronger link ranks below it; both nil when none is reachable.
func best(ls []LinkResult) (b, strongest *int) {
	score := func(l LinkResult) float64 {
		if l.LinkMarginDB != nil {
			return *l.LinkMarginDB
		}
		return -*l.PathLossDB
	}
	var head *int
	for i := range ls {
		if !ls[i].Reachable || ls[i].PathLossDB == nil {
			continue
		}
		if strongest == nil || score(ls[i]) > score(ls[*strongest]) {
			strongest = &i
		}
		if m := ls[i].LinkMarginDB; m != nil && *m >= 0 {
			if head == nil || standingRank(ls[i].Standing) < standingRank(ls[*head].Standing) ||
				standingRank(ls[i].Standing) == standingRank(ls[*head].Standing) && *m > *ls[*head].LinkMarginDB {
				head = &i
			}
		}
	}
	if head != nil {
		return head, strongest
	}
	return strongest, strongest
}

// standingRank orders Link.Standing names, best first ("" is real).
func standingRank(name string) int {
	switch name {
	case planner.StandingUncertain.String():
		return int(planner.StandingUncertain)
	case planner.StandingSynthetic.String():
		return int(planner.StandingSynthetic)
	}
	return int(planner.StandingReal)
}

// demotedWarning is stronger_tower_demoted when the strongest link ranks
// below the best one (best), as the planner's analyses say it; nil when
// it does not.
func demotedWarning(ls []LinkResult, b, strongest *int) *appliance.Warning {
	if b == nil || strongest == nil || *b == *strongest {
		return nil
	}
	s, h := ls[*strongest], ls[*b]
	if s.LinkMarginDB == nil || h.LinkMarginDB == nil || !(*s.LinkMarginDB > *h.LinkMarginDB) {
		return nil // no budget, or not stronger: nothing ranks above its margin
	}
	why := "it is synthetic sample data"
	if standingRank(s.Standing) == int(planner.StandingUncertain) {
		why = "its position is uncertain (position_uncertainty: more than 10 % of its link)"
	}
	return &appliance.Warning{Code: appliance.WarnStrongerTowerDemoted, Message: fmt.Sprintf(
		"tower %s has a higher margin (%.1f dB against %.1f dB) but ranks below the best tower %s because %s: a real tower with a well-known position whose link closes ranks first",
		s.TowerID, *s.LinkMarginDB, *h.LinkMarginDB, h.TowerID, why)}
}

func r3(x float64) float64 { return appliance.Round(x, 3) }

// fp rounds x to 3 decimals (dB, dBm, ns); nil when not finite.
func fp(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	x = r3(x)
	return &x
}
