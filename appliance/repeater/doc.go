// Package repeater plans relay routes (POST /plan_repeater, SPEC §4.2,
// issue 9 scope 5): from one end (a tower of the catalogue or an explicit
// site) to the other through relay towers and user-supplied candidate
// sites, minimising the worst hop.
//
// # Basics
//
//	svc := repeater.New(terrain, towers, engines.WithFallback, 0)
//	req := repeater.Request{From: ..., To: ..., FreqMHz: 5800}
//	repeater.Defaults(&req, setFields)
//	if svc.NeedsJob(req) { /* enqueue a job that calls svc.Plan */ }
//	plan, err := svc.Plan(ctx, req)
//
// The package knows nothing of HTTP or the job queue; the HTTP layer maps
// Request and Plan to JSON and runs plans of AsyncMinHops or more hops as
// jobs.
//
// # Candidates
//
// The graph's nodes are From (0), To (1) and the relay candidates: the
// towers visible to the tenant (appliance.Tower.VisibleTo) whose distance
// to the From–To great-circle segment is at most CorridorM (default 10 km;
// found with TowerIndex.InBox on the corridor's bounding box, then the
// cross-track distance), nearest to the line first and ties by id, at most
// MaxCandidateTowers (400: the rest are counted in
// Counts.CandidatesDropped), then every candidate site in request order
// (at most 100, wherever they lie). Endpoint towers are not relays. A relay
// tower's antenna is at RelayHeightM when given, else at the tower's own
// height (appliance.DefaultTowerHeightM, 30 m, when unknown).
//
// # Cost
//
// A hop u → v (u transmits) is evaluated on the real terrain profile
// (Terrain.Profile at StepM, 90 m by default) with the chosen engine
// (Engine.Predict, heights above ground of both ends, the request's
// frequency). Its margin is
//
//	margin (dB) = EIRPDBm − AntennaPatternLossDB − PathLossDB + RxGainDBi − RxThresholdDBm
//
// with the request's single radio budget for every hop (defaults 58 dBm,
// 0 dBi, −95 dBm: those of appliance/planner). Its cost, the effective
// loss, is
//
//	effective loss (dB) = PathLossDB + AntennaPatternLossDB
//	                      + FresnelPenaltyDB (6 dB) when the ray
//	                      clears the terrain (LOSClear) but less than 60 % of
//	                      the first Fresnel zone is clear (!FresnelOK)
//
// # Antennas
//
// A From end that is a tower with an azimuth, a tilt or a catalogue
// antenna transmits its hops through that antenna: AntennaPatternLossDB
// is appliance.Radiator.LossDB of the tower's antenna (its catalogue
// antenna, else the generic sector of its record, tilted when the tilt is
// known) toward the hop's bearing at the elevation below the horizontal
// at which its antenna tip sees the other end's (the profile's end
// heights plus the antenna heights, k = 4/3), and the hop names the
// antenna. Relays and sites radiate the request's budget aligned on the
// next hop, and the To end receives with RxGainDBi: their hops have no
// pattern loss. (Before patterns existed no hop had one: a From tower
// with an azimuth now loses its sector's pattern toward a relay behind
// it, a documented correction.) The pattern is applied after the edge
// cache, like the budget.
//
// An obstructed path gets no penalty: the engines already include its
// diffraction loss. A hop is absent from the graph when it is longer than
// MaxHopM (default 50 km), when its margin is below MinMarginDB (default
// 10 dB), when its profile needs a terrain tile that no pack holds
// (counted in Counts.EdgesMissingTerrain and named in MissingTiles: never
// sea level), or when the engine refuses it (Counts.EdgesFailed, with up to
// 5 reasons; a hop whose evaluation panics is a failed hop too, its reason
// "internal error (reference <request or job id>)", the panic logged and
// counted by Service.Recover as component "repeater.edge"). For engines whose loss is never below free space (fspl), a
// hop whose free-space loss over its great-circle length already leaves
// less than MinMarginDB is absent without touching the terrain
// (Counts.EdgesPruned, with the hops over MaxHopM and those between ends
// less than 1 m apart). The direction matters:
// the engines take the transmitter first, and the route's hops all point
// from From to To. Missing terrain at From or To is an error (matching
// appliance.ErrTerrainMissing, naming the tile), not an empty plan.
//
// # Search
//
// The route minimises, lexicographically, (worst hop cost, sum of hop
// costs, hop count) over the routes of at most MaxHops hops. The worst hop
// alone is a bottleneck (minimax) objective, and with a hop limit and the
// sum tie-break the best route's prefixes are not always best themselves,
// so the search runs in two label-setting phases over (node, hops) states,
// each a Dijkstra ordered by (key, hops, node):
//
//  1. key = worst hop so far: the first time To is popped gives B, the
//     least worst hop of any route within the hop limit;
//  2. key = sum of hop costs, over the hops of cost ≤ B only: the first
//     time To is popped gives the least sum, and among equal sums the
//     fewest hops (hops are the second key). Every route of phase 2 has
//     worst hop exactly B.
//
// Both keys grow along a hop (costs are non-negative), so a state's first
// pop has its least key; a state (v, h) is skipped when v was popped with
// h' ≤ h hops (no worse key, more hops left), and never created when
// h + minHops(v) > MaxHops, where minHops(v) = ⌈distance(v, To) /
// MaxHopM⌉ (no hop is longer than MaxHopM and great-circle distances obey
// the triangle inequality, so the bound is exact). A route with a cycle is
// strictly worse than the same route without it (fewer hops, no larger
// worst hop or sum), so the answer is a simple path. graph_internal_test.go
// checks the answer against a brute-force enumeration of every simple path
// on random graphs, with and without admissible hop bounds. The graph
// code (graph.go) knows nothing of radio: it sees costs evaluated lazily.
// When the search first expands a node at h hops it asks for the node's
// row restricted to the nodes that can still reach To in the hops left
// (h + 1 + minHops(v) ≤ MaxHops); a node expanded at MaxHops − 1 hops asks
// for its one edge into To only. Hops are evaluated only when the search
// needs them: on the Rio test graph a 3-hop plan evaluates 31 of the 90
// evaluable hops.
//
// # Alternatives
//
// Alternative k (k = 1..Alternatives, at most 3) is the best route, by the
// same order, that uses none of the bottleneck hops of the routes before
// it (the best route's and alternatives 1..k−1's): each alternative avoids
// the weak link of every better route. Fewer are returned when no such
// route exists.
//
// # Edge cache and parallelism
//
// Each evaluated hop's engine figures (path loss, LOS, Fresnel, clearance
// ratio, engine version, the path's and the engine's warnings, or the
// missing tile) go into the service's EdgeCache: a mutex-guarded LRU of at
// most DefaultCacheEntries (100 000, about 20 MB; a hop with several
// warnings takes up to about 700 bytes) hops unless New is given another
// size, keyed by both ends rounded to 1e-6° (about 0.1 m), both antenna
// heights to the centimetre,
// the frequency and the engine id. The radio budget is applied after the
// cache, so plans with other EIRP, gains or margins share it; a repeated
// plan in the same area evaluates no terrain at all (warm). When the
// search expands a node, its uncached hops are evaluated by up to Workers
// goroutines (GOMAXPROCS by default); results land in per-hop slots, so
// the answer does not depend on the scheduling or the core count (the
// counters of a plan running beside another plan of the same area can:
// which of them computed a shared hop first is a race).
//
// # Performance
//
// Measured on the 2-core development machine (itm, Rio sample terrain,
// plan_internal_test.go): BenchmarkPlanWarm3Hops (11 relay candidates) 50–80 µs
// per warm plan against 1.7 ms cold; BenchmarkPlanWarm3HopsDense (312
// candidates in the corridor, 6 445 hops evaluated cold) 6–8 ms warm
// against 0.7–1.2 s cold (a busy machine). The warm plan's time is mostly edge-cache
// lookups (one per hop the search needs); SPEC §4.2 asks for < 100 ms.
//
// # Warnings
//
// Every hop of every returned route carries Warnings (never nil), in this
// order: those of its path, shared with the link routes
// (appliance.PathWarnings: fspl_obstructed when fspl answers a path whose
// first Fresnel zone is less than 60 % clear or whose ray the terrain
// blocks, no_land_cover, void_filled_terrain), then the engine's own
// (engines package doc), then, for each end that is a tower (transmitting
// end first), synthetic_tower when the tower is synthetic sample data and
// position_uncertainty when its position uncertainty exceeds
// planner.PositionUncertaintyFraction (10 %) of the hop's length. The
// path's and the engine's warnings are kept with the hop's figures in the
// edge cache. Beside them each hop has its LOS and Fresnel figures
// (los_clear, fresnel_ok, min_clearance_ratio), and each tower end its
// synthetic flag and position_uncertainty_m.
//
// Plan.Warnings (never nil) holds eirp_assumed first when the request gave
// no eirp_dbm, then one warning per code of the best route's hops, in
// order of first appearance, with the message of the first hop that
// raised it (naming the hop) and how many hops raised it. Plan.RadioBudget
// echoes the budget every hop used: frequency, EIRP and whether it was
// assumed, receiver gain net of feeder loss, receiver threshold, least
// margin, the Fresnel penalty, the largest path loss a hop may have and
// the budget fields left to their defaults (Request.Assumed, filled by
// Defaults).
//
// # Defaults
//
//	field              default       range
//	max_hops           3             1..8 (≥ 4: a job)
//	max_hop_m          50 000 m      100..200 000 m
//	min_margin_db      10 dB         -50..100 dB
//	eirp_dbm           58 dBm        0..100 dBm
//	rx_gain_dbi        0 dBi         -20..60 dBi
//	rx_threshold_dbm   −95 dBm       -160..0 dBm
//	relay_height_m     0 (own)       0..500 m
//	corridor_m         10 000 m      0..50 000 m
//	alternatives       0             0..3
//	candidate_sites    none          at most 100, height 0 < h ≤ 500 m
//	frequency_mhz      required      30..100 000 MHz
//
// # States
//
// A synchronous plan (max_hops < 4):
//
//	state        event                                   next state   effect
//	validating   bad field                               failed       ValidationError naming every bad field (422)
//	validating   unknown or invisible endpoint tower     failed       ErrNotFound naming from/to.tower_id
//	validating   endpoint without terrain                failed       ErrTerrainMissing naming the tile
//	validating   ok                                      searching    candidates gathered
//	searching    route found                             done         Plan.Route (+ Alternatives)
//	searching    no route meets the constraints          done         Plan.Route nil, Plan.Reason says why
//	searching    context cancelled                       failed       the context's error
//
// As a job (max_hops ≥ 4, run by the job queue around Plan):
//
//	state     event                     next state   effect
//	queued    worker picks it up        running      Plan called
//	running   Plan returns a plan       succeeded    the plan (with or without a route) is the result
//	running   Plan returns an error     failed       the error is the job's reason
//
// # Caveats
//
// One radio budget applies to every hop; per-hop EIRP and gains are not
// modelled. Hops are evaluated in the From → To direction only. Towers are
// not filtered by operator.
package repeater
