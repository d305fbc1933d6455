package repeater

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"linkplan/appliance"
	"linkplan/engines/radio"
)

// Defaults and limits of a Request (doc.go, "Defaults").
const (
	DefaultMaxHops        = 3        // hops
	MaxHops               = 8        // hops, largest accepted max_hops
	AsyncMinHops          = 4        // plans with max_hops ≥ 4 run as a job (SPEC §4.2)
	DefaultMaxHopM        = 50_000.0 // metres, longest hop considered
	MinMaxHopM            = 100.0    // metres
	MaxMaxHopM            = 200_000.0
	DefaultMinMarginDB    = 10.0     // dB, least fade margin per hop
	DefaultEIRPDBm        = 58.0     // dBm, as appliance/planner.DefaultAssumedEIRPDBm
	DefaultRxGainDBi      = 0.0      // dBi, as appliance/planner's receiver default
	DefaultRxThresholdDBm = -95.0    // dBm, as appliance/planner.DefaultRxThresholdDBm
	DefaultCorridorM      = 10_000.0 // metres each side of the From–To great circle
	MinCorridorM          = 0.0      // metres; 0 keeps only towers on the line (and the candidate sites)
	MaxCorridorM          = 50_000.0 // metres
	MaxAlternatives       = 3        // routes besides the best
	MaxCandidateSites     = 100      // user-supplied relay sites per request
	MaxCandidateTowers    = 400      // corridor towers kept, nearest to the line first
	MaxSiteHeightM        = 500.0    // metres above ground
	MinFreqMHz            = 30.0     // MHz
	MaxFreqMHz            = 100_000.0
	DefaultProfileStepM   = 90.0 // metres, the 3" terrain grid
	DefaultFresnelPenalty = 6.0  // dB added to a hop with line of sight but < 60 % first-Fresnel clearance
)

// Site is an explicit antenna position.
type Site struct {
	Pos     appliance.LatLon // WGS84 degrees
	HeightM float64          // antenna height above ground, metres
}

// Endpoint is one end of the route: a tower of the catalogue (TowerID) or
// an explicit site; exactly one of them.
type Endpoint struct {
	TowerID string // catalogue tower id, e.g. "anatel:1000017564"
	Site    *Site  // explicit site
}

// Request asks for a relay route from From to To (POST /plan_repeater).
// Fields with a default are filled by Defaults.
type Request struct {
	From, To Endpoint
	FreqMHz  float64 // carrier frequency, MHz, 30..100000
	// MaxHops is the most hops of a route, 1..MaxHops (default
	// DefaultMaxHops); a plan with MaxHops ≥ AsyncMinHops runs as a job.
	MaxHops int
	// MaxHopM is the longest hop, metres (great-circle distance),
	// MinMaxHopM..MaxMaxHopM, default DefaultMaxHopM.
	MaxHopM float64
	// MinMarginDB is the least margin of every hop, dB, -50..100, default
	// DefaultMinMarginDB; margin = EIRPDBm − path loss + RxGainDBi −
	// RxThresholdDBm.
	MinMarginDB float64
	// EIRPDBm is the transmitter EIRP of every hop, dBm, 0..100, default
	// DefaultEIRPDBm.
	EIRPDBm float64
	// RxGainDBi is the receiver antenna gain of every hop minus its feeder
	// loss, dBi, -20..60, default DefaultRxGainDBi.
	RxGainDBi float64
	// RxThresholdDBm is the receiver sensitivity of every hop, dBm,
	// -160..0, default DefaultRxThresholdDBm.
	RxThresholdDBm float64
	// RelayHeightM, when > 0, is the antenna height above ground, metres,
	// of every relay tower; 0 uses each tower's own height
	// (appliance.DefaultTowerHeightM when unknown). Sites keep theirs.
	RelayHeightM float64
	// Engine is the propagation engine; "" is the lookup's default.
	Engine appliance.EngineID
	// CandidateSites are relay sites the user can build on, at most
	// MaxCandidateSites; they are candidates wherever they lie.
	CandidateSites []Site
	// CorridorM is the half-width of the corridor around the From–To great
	// circle where towers are relay candidates, metres, default
	// DefaultCorridorM.
	CorridorM float64
	// Alternatives is how many routes besides the best to return, 0..3.
	Alternatives int
	// TenantID scopes user-registered towers to their tenant; "" sees all.
	TenantID string
	// Assumed lists the JSON names of the radio-budget fields (eirp_dbm,
	// rx_gain_dbi, rx_threshold_dbm, min_margin_db) that the client left
	// out and Defaults filled: the plan echoes them (RadioBudget) and an
	// assumed EIRP is a warning.
	Assumed []string
}

// Node is one end of a hop.
type Node struct {
	Kind    string           `json:"kind"`               // "from", "to", "tower" (relay tower) or "site" (candidate site)
	TowerID string           `json:"tower_id,omitempty"` // when the node is a tower
	Site    int              `json:"site"`               // index in Request.CandidateSites for kind "site", else -1
	Pos     appliance.LatLon `json:"pos"`                // WGS84 degrees
	HeightM float64          `json:"height_m"`           // antenna height above ground used, metres
	// Synthetic is true for a tower that is synthetic sample data, not
	// real infrastructure.
	Synthetic bool `json:"synthetic"`
	// UncertaintyM is the radius within which a tower's true position
	// lies (about 95 %), metres; 0 for sites and towers whose source gives
	// none.
	UncertaintyM float64 `json:"position_uncertainty_m"`
	// Placement says how a tower's position was obtained.
	Placement appliance.Placement `json:"-"`
}

// Hop is one link of a route, From transmitting to To.
type Hop struct {
	From      Node    `json:"from"`
	To        Node    `json:"to"`
	DistanceM float64 `json:"distance_m"` // great-circle distance, metres
	// PathLossDB is the engine's basic transmission loss on the terrain
	// profile, dB.
	PathLossDB float64 `json:"path_loss_db"`
	// FresnelPenaltyDB is the penalty added for line of sight with less
	// than 60 % first-Fresnel clearance, dB (0 or the service's penalty).
	FresnelPenaltyDB float64 `json:"fresnel_penalty_db"`
	// AntennaPatternLossDB is the attenuation of the From tower's antenna
	// toward the hop's receiving end on the hops it transmits, dB (doc.go,
	// "Antennas"); 0 on every other hop.
	AntennaPatternLossDB float64 `json:"antenna_pattern_loss_db"`
	// Antenna names that antenna's model; "" on the other hops.
	Antenna string `json:"antenna,omitempty"`
	// EffectiveLossDB = PathLossDB + FresnelPenaltyDB +
	// AntennaPatternLossDB, dB: the hop's cost.
	EffectiveLossDB float64 `json:"effective_loss_db"`
	// MarginDB = EIRPDBm − AntennaPatternLossDB − PathLossDB + RxGainDBi −
	// RxThresholdDBm, dB.
	MarginDB          float64 `json:"margin_db"`
	LOSClear          bool    `json:"los_clear"`           // the straight ray clears the terrain (k = 4/3)
	FresnelOK         bool    `json:"fresnel_ok"`          // ≥ 60 % of the first Fresnel zone clear
	MinClearanceRatio float64 `json:"min_clearance_ratio"` // least (ray − terrain) / F1 radius; negative when blocked
	EngineVersion     string  `json:"engine_version"`
	// Warnings are the caveats of this hop (doc.go, "Warnings"), never
	// nil in a plan.
	Warnings []appliance.Warning `json:"warnings"`
}

// Route is a chain of hops from the request's From to its To.
type Route struct {
	Hops []Hop `json:"hops"`
	// BottleneckHop is the index in Hops of the first hop with the worst
	// effective loss.
	BottleneckHop    int     `json:"bottleneck_hop"`
	BottleneckLossDB float64 `json:"bottleneck_loss_db"` // worst effective loss of a hop, dB
	TotalLossDB      float64 `json:"total_loss_db"`      // sum of the hops' effective losses, dB
	MinMarginDB      float64 `json:"min_margin_db"`      // least hop margin, dB
}

// Counts tell how much work a plan did.
type Counts struct {
	// Candidates is the number of relay candidates: corridor towers kept
	// plus candidate sites.
	Candidates int `json:"candidates"`
	// CandidatesDropped counts corridor towers beyond MaxCandidateTowers.
	CandidatesDropped int `json:"candidates_dropped"`
	// EdgesEvaluated counts edges computed on terrain by this plan.
	EdgesEvaluated int `json:"edges_evaluated"`
	// EdgesCacheHits counts edges answered by the edge cache.
	EdgesCacheHits int `json:"edges_cache_hits"`
	// EdgesPruned counts edges absent without terrain: longer than
	// max_hop_m, shorter than 1 m (co-located ends), or (engines whose loss is never below free space) unable
	// to reach min_margin_db even in free space.
	EdgesPruned int `json:"edges_pruned"`
	// EdgesMissingTerrain counts edges absent because their profile needs
	// a terrain tile no pack holds (never sea level).
	EdgesMissingTerrain int `json:"edges_missing_terrain"`
	// EdgesFailed counts edges the engine refused for another reason.
	EdgesFailed int `json:"edges_failed"`
}

// RadioBudget is the radio budget a plan applied to every hop, as the
// request gave it or Defaults assumed it.
type RadioBudget struct {
	FreqMHz float64 `json:"frequency_mhz"` // MHz
	EIRPDBm float64 `json:"eirp_dbm"`      // transmitter EIRP of every hop, dBm
	// EIRPAssumed is true when the request gave no eirp_dbm and
	// DefaultEIRPDBm was assumed.
	EIRPAssumed bool `json:"eirp_assumed"`
	// RxGainDBi is the receiver antenna gain minus its feeder and
	// connector losses, dBi.
	RxGainDBi      float64 `json:"rx_gain_dbi"`
	RxThresholdDBm float64 `json:"rx_threshold_dbm"` // receiver sensitivity, dBm
	MinMarginDB    float64 `json:"min_margin_db"`    // least margin of a hop, dB
	// FresnelPenaltyDB is the cost added to a hop with line of sight but
	// less than 60 % first-Fresnel clearance, dB (the cost only: margins
	// do not include it).
	FresnelPenaltyDB float64 `json:"fresnel_penalty_db"`
	// MaxPathLossDB is the largest path loss a hop may have, dB:
	// EIRPDBm + RxGainDBi − RxThresholdDBm − MinMarginDB.
	MaxPathLossDB float64 `json:"max_path_loss_db"`
	// Assumed lists the budget fields the request left to their defaults
	// (eirp_dbm, rx_gain_dbi, rx_threshold_dbm, min_margin_db), never nil.
	Assumed []string `json:"assumed"`
}

// Plan is the answer to a Request.
type Plan struct {
	Engine       appliance.EngineID `json:"engine"`
	Route        *Route             `json:"route"`  // nil when no route meets the constraints
	Reason       string             `json:"reason"` // why Route is nil, when it is
	Alternatives []Route            `json:"alternatives"`
	MissingTiles []string           `json:"missing_tiles"` // terrain tiles the absent edges needed, sorted
	FailReasons  []string           `json:"fail_reasons"`  // the first 5 engine refusals, in search order
	Counts       Counts             `json:"counts"`
	// RadioBudget echoes the budget every hop was computed with.
	RadioBudget RadioBudget `json:"radio_budget"`
	// Warnings are the plan's caveats: eirp_assumed when the EIRP was
	// assumed, then one per code of the best route's hop warnings (doc.go,
	// "Warnings"); never nil.
	Warnings []appliance.Warning `json:"warnings"`
}

// EngineLookup returns the engine for an id ("" is the default engine).
type EngineLookup func(id appliance.EngineID) (appliance.Engine, error)

// Service plans relay routes. Its fields are set by New and must not
// change while plans run; it is safe for concurrent use.
type Service struct {
	Terrain appliance.Terrain
	Towers  func() appliance.TowerIndex // the current tower snapshot
	Engine  EngineLookup
	// StepM is the terrain profile spacing, metres.
	StepM float64
	// FresnelPenaltyDB is added to the cost of a hop with line of sight
	// but less than 60 % first-Fresnel clearance, dB.
	FresnelPenaltyDB float64
	// Workers is the most edges evaluated at once.
	Workers int
	// Antennas resolves the catalogue antenna a From tower names
	// (appliance/equipment); nil: such a tower radiates its generic
	// antenna with an antenna_unavailable warning.
	Antennas appliance.AntennaCatalogue
	// Recover recovers the panics of the edge workers: an edge that
	// panics is a failed edge (counted, its reason among FailReasons) and
	// the plan goes on. nil logs them to slog.Default.
	Recover *appliance.Recoverer
	cache   *EdgeCache
}

// New returns a service with the defaults of doc.go and an edge cache of
// cacheEntries edges (DefaultCacheEntries when ≤ 0).
func New(terrain appliance.Terrain, towers func() appliance.TowerIndex, engines EngineLookup, cacheEntries int) *Service {
	return &Service{Terrain: terrain, Towers: towers, Engine: engines, StepM: DefaultProfileStepM,
		FresnelPenaltyDB: DefaultFresnelPenalty, Workers: runtime.GOMAXPROCS(0), cache: NewEdgeCache(cacheEntries)}
}

// Cache returns the service's edge cache.
func (s *Service) Cache() *EdgeCache { return s.cache }

// NeedsJob reports whether the plan runs asynchronously as a job: max_hops
// (after defaults) of AsyncMinHops or more (SPEC §4.2).
func (s *Service) NeedsJob(req Request) bool {
	h := req.MaxHops
	if h == 0 {
		h = DefaultMaxHops
	}
	return h >= AsyncMinHops
}

// Defaults fills the optional fields of r that are zero and that the
// client did not give explicitly (set holds the JSON names given, so that
// an explicit 0 is kept; nil means none). The radio-budget fields it
// fills are listed in r.Assumed.
func Defaults(r *Request, set map[string]bool) {
	fill := func(name string, v *float64, d float64) {
		if *v == 0 && !set[name] {
			*v = d
			switch name {
			case "eirp_dbm", "rx_gain_dbi", "rx_threshold_dbm", "min_margin_db":
				if !slices.Contains(r.Assumed, name) {
					r.Assumed = append(r.Assumed, name)
				}
			}
		}
	}
	if r.MaxHops == 0 && !set["max_hops"] {
		r.MaxHops = DefaultMaxHops
	}
	fill("max_hop_m", &r.MaxHopM, DefaultMaxHopM)
	fill("min_margin_db", &r.MinMarginDB, DefaultMinMarginDB)
	fill("eirp_dbm", &r.EIRPDBm, DefaultEIRPDBm)
	fill("rx_gain_dbi", &r.RxGainDBi, DefaultRxGainDBi)
	fill("rx_threshold_dbm", &r.RxThresholdDBm, DefaultRxThresholdDBm)
	fill("corridor_m", &r.CorridorM, DefaultCorridorM)
}

func badFloat(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }

func validateSite(v *appliance.ValidationError, field string, s *Site) {
	if badFloat(s.Pos.Lat) || s.Pos.Lat < -90 || s.Pos.Lat > 90 {
		v.Add(field+".lat", "must be a latitude in degrees between -90 and 90, got %g", s.Pos.Lat)
	}
	if badFloat(s.Pos.Lon) || s.Pos.Lon < -180 || s.Pos.Lon > 180 {
		v.Add(field+".lon", "must be a longitude in degrees between -180 and 180, got %g", s.Pos.Lon)
	}
	if badFloat(s.HeightM) || s.HeightM <= 0 || s.HeightM > MaxSiteHeightM {
		v.Add(field+".height_m", "must be a height above ground in metres, 0 < h <= %g, got %g", MaxSiteHeightM, s.HeightM)
	}
}

func validateEndpoint(v *appliance.ValidationError, field string, e *Endpoint) {
	switch {
	case e.TowerID != "" && e.Site != nil:
		v.Add(field, "give either tower_id or a site (lat, lon, height_m), not both")
	case e.TowerID == "" && e.Site == nil:
		v.Add(field, "is required: tower_id or a site (lat, lon, height_m)")
	case e.TowerID != "" && len(e.TowerID) > 128:
		v.Add(field+".tower_id", "must be at most 128 characters")
	case e.Site != nil:
		validateSite(v, field, e.Site)
	}
}

// Validate checks a request (after Defaults) and names every bad field
// with its JSON name.
func Validate(r *Request) error {
	v := &appliance.ValidationError{}
	validateEndpoint(v, "from", &r.From)
	validateEndpoint(v, "to", &r.To)
	if r.From.Site != nil && r.To.Site != nil && r.From.Site.Pos.Valid() && r.To.Site.Pos.Valid() &&
		r.From.Site.Pos.DistanceM(r.To.Site.Pos) < 1 {
		v.Add("to", "is within 1 m of from: no route to plan")
	}
	if r.From.TowerID != "" && r.From.TowerID == r.To.TowerID {
		v.Add("to.tower_id", "is the same tower as from.tower_id")
	}
	if badFloat(r.FreqMHz) || r.FreqMHz < MinFreqMHz || r.FreqMHz > MaxFreqMHz {
		v.Add("frequency_mhz", "must be between %g and %g MHz, got %g", MinFreqMHz, MaxFreqMHz, r.FreqMHz)
	}
	if r.MaxHops < 1 || r.MaxHops > MaxHops {
		v.Add("max_hops", "must be between 1 and %d, got %d", MaxHops, r.MaxHops)
	}
	if badFloat(r.MaxHopM) || r.MaxHopM < MinMaxHopM || r.MaxHopM > MaxMaxHopM {
		v.Add("max_hop_m", "must be between %g and %g metres, got %g", MinMaxHopM, MaxMaxHopM, r.MaxHopM)
	}
	if badFloat(r.MinMarginDB) || r.MinMarginDB < -50 || r.MinMarginDB > 100 {
		v.Add("min_margin_db", "must be between -50 and 100 dB, got %g", r.MinMarginDB)
	}
	if badFloat(r.EIRPDBm) || r.EIRPDBm < 0 || r.EIRPDBm > 100 {
		v.Add("eirp_dbm", "must be between 0 and 100 dBm, got %g", r.EIRPDBm)
	}
	if badFloat(r.RxGainDBi) || r.RxGainDBi < -20 || r.RxGainDBi > 60 {
		v.Add("rx_gain_dbi", "must be between -20 and 60 dBi, got %g", r.RxGainDBi)
	}
	if badFloat(r.RxThresholdDBm) || r.RxThresholdDBm < -160 || r.RxThresholdDBm > 0 {
		v.Add("rx_threshold_dbm", "must be between -160 and 0 dBm, got %g", r.RxThresholdDBm)
	}
	if badFloat(r.RelayHeightM) || r.RelayHeightM < 0 || r.RelayHeightM > MaxSiteHeightM {
		v.Add("relay_height_m", "must be 0 (each tower's own height) or a height above ground up to %g metres, got %g", MaxSiteHeightM, r.RelayHeightM)
	}
	if badFloat(r.CorridorM) || r.CorridorM < MinCorridorM || r.CorridorM > MaxCorridorM {
		v.Add("corridor_m", "must be between %g and %g metres, got %g", MinCorridorM, MaxCorridorM, r.CorridorM)
	}
	if r.Alternatives < 0 || r.Alternatives > MaxAlternatives {
		v.Add("alternatives", "must be between 0 and %d, got %d", MaxAlternatives, r.Alternatives)
	}
	if len(r.CandidateSites) > MaxCandidateSites {
		v.Add("candidate_sites", "must hold at most %d sites, got %d", MaxCandidateSites, len(r.CandidateSites))
	} else {
		for i := range r.CandidateSites {
			if v.Full() {
				break
			}
			validateSite(v, fmt.Sprintf("candidate_sites[%d]", i), &r.CandidateSites[i])
		}
	}
	return v.Err()
}

// towerHeightM is the antenna height of a tower, metres above ground.
func towerHeightM(t *appliance.Tower) float64 {
	if badFloat(t.HeightM) || t.HeightM <= 0 {
		return appliance.DefaultTowerHeightM
	}
	return t.HeightM
}

// resolve turns an endpoint into a node.
func (s *Service) resolve(ix appliance.TowerIndex, field, kind string, e Endpoint, tenant string) (Node, error) {
	if e.Site != nil {
		return Node{Kind: kind, Site: -1, Pos: e.Site.Pos, HeightM: e.Site.HeightM}, nil
	}
	t, ok := ix.Get(e.TowerID)
	if !ok || !t.VisibleTo(tenant) {
		return Node{}, fmt.Errorf("%s.tower_id %q: %w", field, e.TowerID, appliance.ErrNotFound)
	}
	return towerNode(kind, t, towerHeightM(t)), nil
}

// towerNode is the node of tower t with its antenna hM metres above
// ground.
func towerNode(kind string, t *appliance.Tower, hM float64) Node {
	return Node{Kind: kind, TowerID: t.ID, Site: -1, Pos: t.Pos(), HeightM: hM, Synthetic: t.Synthetic,
		UncertaintyM: t.UncertaintyM, Placement: t.Placement}
}

// crossTrackM returns the distance, metres, from p to the great-circle
// segment a–b (to the nearer end when p projects outside the segment).
func crossTrackM(a, b, p appliance.LatLon) float64 {
	dap := a.DistanceM(p)
	dab := a.DistanceM(b)
	if dab < 1e-6 || dap < 1e-6 {
		return dap
	}
	δ13 := dap / appliance.EarthRadiusM
	dθ := (a.BearingDeg(p) - a.BearingDeg(b)) * math.Pi / 180
	if math.Cos(dθ) < 0 {
		return dap
	}
	xt := math.Asin(math.Max(-1, math.Min(1, math.Sin(δ13)*math.Sin(dθ))))
	at := math.Acos(math.Max(-1, math.Min(1, math.Cos(δ13)/math.Cos(xt)))) * appliance.EarthRadiusM
	if at > dab {
		return b.DistanceM(p)
	}
	return math.Abs(xt) * appliance.EarthRadiusM
}

// corridorBox is the bounding box of every point within corridorM metres
// of the great-circle segment a–b: the union of boxes around points of the
// segment spaced at most corridorM apart (with a 1 km floor), each box
// widened by that spacing.
func corridorBox(a, b appliance.LatLon, corridorM float64) appliance.BBox {
	d := a.DistanceM(b)
	step := math.Max(corridorM, 1000)
	n := int(math.Ceil(d / step))
	if n < 1 {
		n = 1
	}
	gc := a.GreatCircleTo(b)
	box := appliance.BBox{MinLat: 90, MinLon: 180, MaxLat: -90, MaxLon: -180}
	for i := 0; i <= n; i++ {
		bb := appliance.Around(gc.At(float64(i)/float64(n)), corridorM+step)
		box.MinLat, box.MinLon = math.Min(box.MinLat, bb.MinLat), math.Min(box.MinLon, bb.MinLon)
		box.MaxLat, box.MaxLon = math.Max(box.MaxLat, bb.MaxLat), math.Max(box.MaxLon, bb.MaxLon)
	}
	return box
}

// candidates returns the relay nodes: corridor towers nearest to the line
// first (ties by id), at most MaxCandidateTowers, then the candidate sites
// in request order.
func (s *Service) candidates(ix appliance.TowerIndex, req *Request, from, to Node, counts *Counts) []Node {
	type ct struct {
		t   *appliance.Tower
		xtM float64
	}
	var cs []ct
	for _, t := range ix.InBox(corridorBox(from.Pos, to.Pos, req.CorridorM)) {
		if !t.VisibleTo(req.TenantID) || t.ID == from.TowerID || t.ID == to.TowerID || !t.Pos().Valid() {
			continue
		}
		if xt := crossTrackM(from.Pos, to.Pos, t.Pos()); xt <= req.CorridorM {
			cs = append(cs, ct{t, xt})
		}
	}
	slices.SortFunc(cs, func(a, b ct) int {
		if c := cmp.Compare(a.xtM, b.xtM); c != 0 {
			return c
		}
		return cmp.Compare(a.t.ID, b.t.ID)
	})
	if len(cs) > MaxCandidateTowers {
		counts.CandidatesDropped = len(cs) - MaxCandidateTowers
		cs = cs[:MaxCandidateTowers]
	}
	out := make([]Node, 0, len(cs)+len(req.CandidateSites))
	for _, c := range cs {
		h := towerHeightM(c.t)
		if req.RelayHeightM > 0 {
			h = req.RelayHeightM
		}
		out = append(out, towerNode("tower", c.t, h))
	}
	for i, st := range req.CandidateSites {
		out = append(out, Node{Kind: "site", Site: i, Pos: st.Pos, HeightM: st.HeightM})
	}
	counts.Candidates = len(out)
	return out
}

// planGraph holds the lazily evaluated edges of one plan.
type planGraph struct {
	s       *Service
	ctx     context.Context
	req     *Request
	eng     appliance.Engine
	nodes   []Node
	fsBound bool // the engine's loss is never below free space

	// Per source node u, allocated on first use: the cost of every edge
	// out of u (+Inf until evaluated or when absent) and which edges are
	// done. The figures are not kept: route takes those of its hops from
	// the cache again.
	costs [][]float64
	done  [][]bool
	// fullLeft[u] is the largest left of a row(u, left) answered, -1
	// before the first.
	fullLeft []int
	hopsToTo []int // minHops of each node
	// unit holds the unit vectors of the nodes (earth-centred), and
	// chord2MaxHop the squared chord of a MaxHopM arc on the unit sphere.
	unit         [][3]float64
	chord2MaxHop float64

	counts  Counts
	missing map[string]bool
	fails   []string
	// fromRad is the antenna of a From tower with an azimuth, a tilt or a
	// catalogue antenna (doc.go, "Antennas"); nil otherwise.
	fromRad *appliance.Radiator
}

// patternDB is the attenuation of the antenna of node u toward v on the
// hop of figures f, dB: the From tower's antenna pattern on the hops it
// transmits, 0 elsewhere (relays and sites radiate the request's budget
// toward the next hop).
func (g *planGraph) patternDB(u int, a, b Node, f *edgeFigures) float64 {
	if u != 0 || g.fromRad == nil {
		return 0
	}
	elev := appliance.ElevationDownDeg(f.TxGroundM+a.HeightM, f.RxGroundM+b.HeightM, a.Pos.DistanceM(b.Pos))
	return g.fromRad.LossDB(a.Pos.BearingDeg(b.Pos), elev)
}

func newPlanGraph(s *Service, ctx context.Context, req *Request, eng appliance.Engine, nodes []Node) *planGraph {
	n := len(nodes)
	g := &planGraph{s: s, ctx: ctx, req: req, eng: eng, nodes: nodes,
		costs: make([][]float64, n), done: make([][]bool, n),
		fullLeft: make([]int, n), hopsToTo: make([]int, n), missing: map[string]bool{}}
	to := nodes[1].Pos
	g.unit = make([][3]float64, n)
	half := math.Sin(req.MaxHopM / (2 * appliance.EarthRadiusM))
	g.chord2MaxHop = 4 * half * half
	for v := range nodes {
		φ, λ := nodes[v].Pos.Lat*math.Pi/180, nodes[v].Pos.Lon*math.Pi/180
		g.unit[v] = [3]float64{math.Cos(φ) * math.Cos(λ), math.Cos(φ) * math.Sin(λ), math.Sin(φ)}
		g.fullLeft[v] = -1
		// The 1e-9 keeps a distance of exactly k hops from rounding up.
		g.hopsToTo[v] = max(0, int(math.Ceil(nodes[v].Pos.DistanceM(to)/req.MaxHopM-1e-9)))
	}
	if fb, ok := eng.(interface{ LossAtLeastFreeSpace() bool }); ok && fb.LossAtLeastFreeSpace() {
		g.fsBound = true
	}
	return g
}

// longerThanMaxHop reports whether the great-circle distance u–v
// (LatLon.DistanceM) exceeds MaxHopM. The squared chord between the unit
// vectors is monotone in that distance and costs three products; only
// within 1e-6 (relative) of the threshold does it fall back to DistanceM,
// so the answer is DistanceM's.
func (g *planGraph) longerThanMaxHop(u, v int) bool {
	p, q := g.unit[u], g.unit[v]
	dx, dy, dz := p[0]-q[0], p[1]-q[1], p[2]-q[2]
	c2 := dx*dx + dy*dy + dz*dz
	switch {
	case c2 > g.chord2MaxHop*(1+1e-6):
		return true
	case c2 < g.chord2MaxHop*(1-1e-6):
		return false
	}
	return g.nodes[u].Pos.DistanceM(g.nodes[v].Pos) > g.req.MaxHopM
}

// coLocated reports whether u and v are less than 1 m apart
// (LatLon.DistanceM): a hop with no path to evaluate.
func (g *planGraph) coLocated(u, v int) bool {
	p, q := g.unit[u], g.unit[v]
	dx, dy, dz := p[0]-q[0], p[1]-q[1], p[2]-q[2]
	if c := 2 / appliance.EarthRadiusM; dx*dx+dy*dy+dz*dz > c*c { // 2 m of chord: clearly apart
		return false
	}
	return g.nodes[u].Pos.DistanceM(g.nodes[v].Pos) < 1
}

// maxLossDB is the largest path loss that keeps the margin at
// MinMarginDB, dB.
func (g *planGraph) maxLossDB() float64 {
	return g.req.EIRPDBm + g.req.RxGainDBi - g.req.RxThresholdDBm - g.req.MinMarginDB
}

// row returns the costs of the edges out of u into every node that may
// still reach To within left more hops (minHops).
func (g *planGraph) row(u, left int) ([]float64, error) {
	if g.fullLeft[u] < left {
		vs := make([]int, 0, len(g.nodes))
		for v := range g.nodes {
			if g.hopsToTo[v] <= left {
				vs = append(vs, v)
			}
		}
		if err := g.fill(u, vs); err != nil {
			return nil, err
		}
		g.fullLeft[u] = left
	}
	return g.costs[u], nil
}

// minHops is the least number of hops from v to To: hops are at most
// MaxHopM long and great-circle distances obey the triangle inequality.
func (g *planGraph) minHops(v int) int { return g.hopsToTo[v] }

// edge returns the cost of the edge u → v.
func (g *planGraph) edge(u, v int) (float64, error) {
	if err := g.fill(u, []int{v}); err != nil {
		return 0, err
	}
	return g.costs[u][v], nil
}

// fill evaluates the edges u → v for the vs not done yet (doc.go,
// "Cost"): pruned edges first, then the cache, then the misses on terrain
// in parallel.
func (g *planGraph) fill(u int, vs []int) error {
	if err := g.ctx.Err(); err != nil {
		return err
	}
	n := len(g.nodes)
	if g.costs[u] == nil {
		g.costs[u], g.done[u] = make([]float64, n), make([]bool, n)
		for v := range g.costs[u] {
			g.costs[u][v] = math.Inf(1)
		}
	}
	costs, done := g.costs[u], g.done[u]
	type job struct {
		v   int
		key edgeCacheKey
	}
	var todo []job
	type hit struct {
		v int
		f edgeFigures
	}
	var got []hit // edges with figures to turn into costs
	a := g.nodes[u]
	maxLoss := g.maxLossDB()
	for _, v := range vs {
		if done[v] {
			continue
		}
		done[v] = true
		// No hop into the source, none out of the target, none to itself:
		// the search never uses them.
		if v == u || v == 0 || u == 1 {
			continue
		}
		b := g.nodes[v]
		if g.longerThanMaxHop(u, v) || g.coLocated(u, v) {
			g.counts.EdgesPruned++
			continue
		}
		// 1e-6 dB of slack keeps the free-space bound safe against
		// rounding (as in appliance/planner).
		if g.fsBound && radio.FreeSpaceLossExactDB(g.req.FreqMHz, math.Max(a.Pos.DistanceM(b.Pos), 1)/1000) > maxLoss+1e-6 {
			g.counts.EdgesPruned++
			continue
		}
		k := newEdgeCacheKey(a.Pos, b.Pos, a.HeightM, b.HeightM, g.req.FreqMHz, g.eng.ID())
		if f, ok := g.s.cache.get(k); ok {
			g.counts.EdgesCacheHits++
			got = append(got, hit{v, f})
			continue
		}
		todo = append(todo, job{v, k})
	}
	errs := make([]error, len(todo))
	res := make([]edgeFigures, len(todo))
	workers := min(max(appliance.WorkersFrom(g.ctx, g.s.Workers), 1), len(todo))
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(todo) {
					return
				}
				j := todo[i]
				f, err := g.s.evalEdgeOnWorker(g.ctx, g.eng, a, g.nodes[j.v], g.req.FreqMHz)
				if err != nil {
					errs[i] = err
					continue
				}
				g.s.cache.put(j.key, f)
				res[i] = f
			}
		}()
	}
	wg.Wait()
	if err := g.ctx.Err(); err != nil {
		return err
	}
	g.counts.EdgesEvaluated += len(todo)
	for i, j := range todo { // in request order: deterministic reasons
		if errs[i] == nil {
			got = append(got, hit{j.v, res[i]})
			continue
		}
		g.counts.EdgesFailed++
		if r := fmt.Sprintf("%s → %s: %v", label(a), label(g.nodes[j.v]), errs[i]); len(g.fails) < 5 {
			g.fails = append(g.fails, r)
		}
	}
	for i := range got {
		v, f := got[i].v, &got[i].f
		if f.MissingTile != "" {
			g.counts.EdgesMissingTerrain++
			g.missing[f.MissingTile] = true
			continue
		}
		pat := g.patternDB(u, a, g.nodes[v], f)
		if margin := g.req.EIRPDBm - pat - f.PathLossDB + g.req.RxGainDBi - g.req.RxThresholdDBm; margin < g.req.MinMarginDB {
			continue
		}
		costs[v] = f.PathLossDB + g.penaltyDB(*f) + pat
	}
	return nil
}

// penaltyDB is the Fresnel penalty of an edge, dB.
func (g *planGraph) penaltyDB(f edgeFigures) float64 {
	if f.LOSClear && !f.FresnelOK {
		return g.s.FresnelPenaltyDB
	}
	return 0
}

func label(n Node) string {
	switch {
	case n.TowerID != "":
		return n.TowerID
	case n.Kind == "site":
		return fmt.Sprintf("candidate_sites[%d]", n.Site)
	}
	return n.Kind
}

// evalEdgeOnWorker is evalEdge on a worker goroutine: a panic is the
// edge's error (an *appliance.PanicError).
func (s *Service) evalEdgeOnWorker(ctx context.Context, eng appliance.Engine, a, b Node, freqMHz float64) (f edgeFigures, err error) {
	defer s.Recover.Recover(ctx, "repeater.edge", &err)
	return s.evalEdge(ctx, eng, a, b, freqMHz)
}

// evalEdge computes the figures of the hop a → b on the terrain profile.
// A missing terrain tile is an answer (MissingTile set), not an error.
func (s *Service) evalEdge(ctx context.Context, eng appliance.Engine, a, b Node, freqMHz float64) (edgeFigures, error) {
	prof, err := s.Terrain.Profile(a.Pos, b.Pos, s.StepM)
	var tm *appliance.TileMissingError
	switch {
	case errors.As(err, &tm):
		return edgeFigures{MissingTile: tm.Tile}, nil
	case errors.Is(err, appliance.ErrTerrainMissing):
		return edgeFigures{MissingTile: "unknown"}, nil
	case err != nil:
		return edgeFigures{}, fmt.Errorf("terrain profile: %w", err)
	}
	if prof.Len() < 2 {
		return edgeFigures{}, fmt.Errorf("evaluate hop: ends are co-located: %w", appliance.ErrInvalid)
	}
	pred, err := eng.Predict(ctx, appliance.LinkInput{Tx: a.Pos, Rx: b.Pos, TxHeightM: a.HeightM, RxHeightM: b.HeightM,
		FreqMHz: freqMHz, Profile: prof})
	if err != nil {
		return edgeFigures{}, fmt.Errorf("evaluate hop: %w", err)
	}
	return edgeFigures{PathLossDB: pred.PathLossDB, LOSClear: pred.LOSClear, FresnelOK: pred.FresnelOK,
		MinClearanceRatio: pred.MinClearanceRatio, EngineVersion: pred.EngineVersion,
		TxGroundM: prof.HeightsM[0], RxGroundM: prof.HeightsM[prof.Len()-1],
		Warnings: pathWarnings(&pred, prof)}, nil
}

// Plan finds the best relay route of req and its alternatives (doc.go).
// Invalid input is an appliance.ValidationError; an unknown endpoint tower
// matches appliance.ErrNotFound; an endpoint without terrain matches
// appliance.ErrTerrainMissing and names the tile.
func (s *Service) Plan(ctx context.Context, req Request) (*Plan, error) {
	if err := Validate(&req); err != nil {
		return nil, fmt.Errorf("plan repeater: %w", err)
	}
	eng, err := s.Engine(req.Engine)
	if err != nil {
		return nil, fmt.Errorf("plan repeater: %w", err)
	}
	ix := s.Towers()
	from, err := s.resolve(ix, "from", "from", req.From, req.TenantID)
	if err != nil {
		return nil, fmt.Errorf("plan repeater: %w", err)
	}
	to, err := s.resolve(ix, "to", "to", req.To, req.TenantID)
	if err != nil {
		return nil, fmt.Errorf("plan repeater: %w", err)
	}
	if from.Pos.DistanceM(to.Pos) < 1 {
		return nil, fmt.Errorf("plan repeater: %w", appliance.Invalid("to", "is within 1 m of from: no route to plan"))
	}
	for _, e := range []struct {
		field string
		n     Node
	}{{"from", from}, {"to", to}} {
		if _, err := s.Terrain.ElevationM(e.n.Pos); err != nil {
			return nil, fmt.Errorf("plan repeater: %s terrain: %w", e.field, err)
		}
	}
	out := &Plan{Engine: eng.ID(), Alternatives: []Route{}, MissingTiles: []string{}, FailReasons: []string{},
		RadioBudget: s.budget(&req), Warnings: []appliance.Warning{}}
	if out.RadioBudget.EIRPAssumed {
		out.Warnings = append(out.Warnings, appliance.Warning{Code: appliance.WarnEIRPAssumed, Message: fmt.Sprintf(
			"no eirp_dbm was given: every hop assumes an EIRP of %.1f dBm; give the real transmitter's EIRP", req.EIRPDBm)})
	}
	nodes := append([]Node{from, to}, s.candidates(ix, &req, from, to, &out.Counts)...)
	n := len(nodes)
	g := newPlanGraph(s, ctx, &req, eng, nodes)
	g.counts = out.Counts
	if t, ok := ix.Get(req.From.TowerID); ok && req.From.TowerID != "" && (!math.IsNaN(t.AzimuthDeg) || t.AntennaID != "" || !math.IsNaN(t.TiltDeg)) {
		r, w := appliance.TowerRadiator(t, s.Antennas)
		g.fromRad = &r
		if w != nil {
			out.Warnings = append(out.Warnings, *w)
		}
	}
	rs, err := routes(n, 0, 1, req.MaxHops, req.Alternatives, g)
	if err != nil {
		return nil, fmt.Errorf("plan repeater: %w", err)
	}
	out.Counts = g.counts
	for t := range g.missing {
		out.MissingTiles = append(out.MissingTiles, t)
	}
	slices.Sort(out.MissingTiles)
	out.FailReasons = append(out.FailReasons, g.fails...)
	if len(rs) == 0 && g.hopsToTo[0] > req.MaxHops {
		out.Reason = fmt.Sprintf("from and to are %.0f m apart: more than max_hops (%d) hops of at most max_hop_m (%g m)",
			from.Pos.DistanceM(to.Pos), req.MaxHops, req.MaxHopM)
		return out, nil
	}
	if len(rs) == 0 {
		out.Reason = fmt.Sprintf("no route of at most %d hops of at most %g m with %g dB margin per hop among %d candidates",
			req.MaxHops, req.MaxHopM, req.MinMarginDB, out.Counts.Candidates)
		if out.Counts.EdgesMissingTerrain > 0 {
			out.Reason += fmt.Sprintf("; %d edges need terrain no pack holds", out.Counts.EdgesMissingTerrain)
		}
		return out, nil
	}
	for i, r := range rs {
		rt, err := g.route(r)
		if err != nil {
			return nil, fmt.Errorf("plan repeater: route %d: %w", i, err)
		}
		if i == 0 {
			out.Route = &rt
			out.Warnings = append(out.Warnings, routeWarnings(rt)...)
		} else {
			out.Alternatives = append(out.Alternatives, rt)
		}
	}
	return out, nil
}

// route turns a graph route into the response's Route. The figures of
// its hops come from the edge cache, or, when evicted meanwhile, from the
// same deterministic evaluation again.
func (g *planGraph) route(r route) (Route, error) {
	out := Route{Hops: make([]Hop, r.hops()), BottleneckHop: r.bottleneckHop(), BottleneckLossDB: r.max,
		TotalLossDB: r.sum, MinMarginDB: math.Inf(1)}
	for i := range out.Hops {
		a, b := g.nodes[r.nodes[i]], g.nodes[r.nodes[i+1]]
		f, ok := g.s.cache.get(newEdgeCacheKey(a.Pos, b.Pos, a.HeightM, b.HeightM, g.req.FreqMHz, g.eng.ID()))
		if !ok {
			var err error
			if f, err = g.s.evalEdge(g.ctx, g.eng, a, b, g.req.FreqMHz); err != nil {
				return Route{}, fmt.Errorf("hop %d: %w", i, err)
			}
		}
		pen := g.penaltyDB(f)
		pat := g.patternDB(r.nodes[i], a, b, &f)
		h := Hop{From: a, To: b, DistanceM: a.Pos.DistanceM(b.Pos), PathLossDB: f.PathLossDB, FresnelPenaltyDB: pen,
			AntennaPatternLossDB: pat, EffectiveLossDB: f.PathLossDB + pen + pat,
			MarginDB: g.req.EIRPDBm - pat - f.PathLossDB + g.req.RxGainDBi - g.req.RxThresholdDBm,
			LOSClear: f.LOSClear, FresnelOK: f.FresnelOK, MinClearanceRatio: f.MinClearanceRatio, EngineVersion: f.EngineVersion}
		if r.nodes[i] == 0 && g.fromRad != nil {
			h.Antenna = g.fromRad.Label()
		}
		h.Warnings = hopWarnings(&h, f.Warnings)
		out.MinMarginDB = math.Min(out.MinMarginDB, h.MarginDB)
		out.Hops[i] = h
	}
	return out, nil
}
