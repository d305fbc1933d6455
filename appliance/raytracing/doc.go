// Package raytracing is the raytrace service: the requests that name
// engine "raytrace" (issue 24 scope 4), validated here, computed by the
// raytrace worker through the Executor this package declares, on the scene
// of one of the tenant's building layers (appliance/buildings).
// It follows the one path of heavy work (WORK.md): the service validates
// and sizes the work, the heavy-work scheduler admits it, the durable
// queue (link jobs) or the coverage registry (maps) holds it, the
// executor computes units that are pure functions of a scene named by
// hash and a request, and the appliance, the only writer of tenant data,
// stores the results.
//
// # Options
//
// A request names the engine's options in its "raytrace" member (link
// jobs) or at the top of its body (maps); each one it leaves out takes
// the service's default for its kind, and every answer states the
// options it was computed with (LinkJobResult.Options; a map's summary
// detail, MapDetail, kept in its record), its warnings as always.
//
//	option                  link jobs (DefaultOptions)   maps (DefaultMapOptions)
//	max_reflections         2                            2
//	diffraction (250 m)     on                           on
//	ground_reflection       on                           on
//	transmission            off                          off
//	diffuse_scattering      0.4                          0.4
//	scattering_reflections  on (where S > 0)             off; asked: cap ÷ MapSRCostFactor
//	reflection_diffraction  on (where it applies)        off; asked: cap ÷ MapRDCostFactor
//	clutter_beyond_extent   on                           on
//	sum                     coherent (the local field)   power (the local mean)
//
// Why: the link defaults are the set the real measurements were
// validated with (linkplan raytrace eval against the TU Dortmund drive
// tests, engines/raytrace doc.go "Validation"): RMSE raytrace/fspl
// 9.90/12.06 dB O2 → T-Mobile and 11.03/11.22 T-Mobile → O2. Without the
// clutter (11.11, 12.52) or the scattering (10.72, 11.36) the engine
// loses to fspl on the second; the reflection–diffraction paths move
// that campus of detached buildings by ±0.2 dB (9.72, 11.17 without
// them) but carry a street's power round its corners (2 to 4 dB in the
// P.1411 street canyon: with scattering, within that model's spread from
// 130 m and up to 2 dB above it nearer the corner). The scattering's
// reflections (one wall reflection on either leg of a scattering tile)
// close that gap: with them the canyon's corner is within P.1411's spread
// at every distance from 45 to 250 m, 3.2 to 5.4 dB under its upper bound
// (engines/raytrace TestStreetCanyonAgainstP1411); on the campus they
// move the figures by 0.02 to 0.03 dB (9.87 and 11.00 with them on every
// 20th row; on the whole files 9.80/12.52 and 10.39/11.58, n = 2562 and
// 1935).
// The engine keeps these options off in its DefaultOptions; an answer of
// this service is the validated configuration unless the request says
// otherwise.
//
// Maps: scattering and clutter cost a map little. On the engine's
// benchmark scene (benchScene and benchMap of engines/raytrace: 1 km²,
// 500 buildings, the 200×200 map of BenchmarkMap40k; CPU time on the
// shared 2-core machine) the full map with the map defaults took 63.7 to
// 70.7 CPU-s (1.59–1.77 ms a pixel); 16 rows of 200 receivers spread over
// its grid, one request each, took 2.0–2.2 ms a receiver with the
// engine's defaults and 2.7–3.2 with scattering and clutter. The
// reflection–diffraction paths cost 48.8–51.3 ms a receiver over those
// rows (19.5 to 85 by row) and 81–94 ms in the pixels around the
// transmitter, where every pixel has walls and edges near both ends
// (squares of 44, 35, 28 and 25 pixels of 5 m): 46 to 59 times a default
// map's pixel, and a map is centred on its transmitter. A 40 000-pixel
// map with them would take half an hour to an hour of CPU instead of
// about a minute. So maps leave them off unless asked, and a map that asks gets
// the tier's pixel cap divided by MapRDCostFactor, 80 (Enterprise 500
// pixels, Ultra 2 000), so that it costs no more than a default map at
// the full cap, with a margin for the spread of those figures:
// BenchmarkMapRDCap (engines/raytrace) computes both: 43.9 CPU-s for
// 25×20 reflection–diffraction pixels around the transmitter against 75.9
// for the default map (at the cap ÷ 64, 25×25 pixels took 51.7 and 58.5
// against 63.7 to 70.7: too close). Above the reduced cap: 422 naming
// reflection_diffraction with the cap.
//
// The scattering's reflections cost a map pixel near the transmitter
// about 5 times a default pixel (7.65 against 1.44 CPU-ms on the same
// scene: the receiver's leg through every wall facing it is traced per
// pixel), a point answer about 10 % more: maps leave them off unless
// asked, and a map that asks gets the cap divided by MapSRCostFactor, 8
// (Enterprise 5 000 pixels, Ultra 20 000): BenchmarkMapSRCap computes
// 40.8 CPU-s for 70×70 such pixels around the transmitter against 57.6
// for the default map. Above the reduced cap: 422 naming
// scattering_reflections with the cap. With reflection–diffraction as
// well, that option's lower cap applies.
//
// Reflection–diffraction needs diffraction and at least one reflection
// (its paths meet a wall before or after a diffracting edge): left out,
// it defaults on only where both hold (DefaultReflectionDiffraction), so
// that a request turning diffraction or reflections off need not name it;
// asked for where they do not hold, it is refused (422 naming
// raytrace.reflection_diffraction, or reflection_diffraction on a map).
// Likewise the scattering's reflections need scattering: left out, they
// default on only where S > 0 (DefaultScatteringReflections); asked for
// with S = 0, 422 naming raytrace.scattering_reflections.
// diffuse_scattering must be 0..1 (422 naming it). diffraction_range_m
// must be in (0, 2000] m whatever the other options (validOptions: the
// engine checks it only where it bounds something, with diffraction or
// scattering on, but every answer states it). The option fields of a
// map are named as its body names them, at the top level.
//
// Every request needs the Enterprise or Ultra tier (the engine's, SPEC
// §2.5; appliance.ErrForbidden below) and a building layer of the tenant
// (another tenant's reads as missing, appliance.ErrNotFound). Positions
// must lie within appliance.RaytraceMaxFrameM (20 km) of the layer's
// centre. A link's ends must be more than one wavelength plus 0.5 m apart
// (3D, over the terrain; proximity.go): the engine refuses a receiver
// within one wavelength, where the far-field ray model does not hold, and
// a queued job must not meet that refusal when it runs; the margin covers
// the scene's sampled ground. The case and the pair answer 422 naming the
// receiver; /analyze_link leaves such a tower out, as any tower with
// nothing to trace.
//
// # The engine boundary
//
// The service imports no engine (appliance/doc.go, import rules). It
// speaks the ray tracer's vocabulary of the appliance root
// (appliance/raytrace.go: RaytraceOptions, RaytracePointRequest,
// RaytraceMapRequest, RaytraceResult, LocalFrame, RaytraceScene) and
// declares what it calls; the assembly passes the engine in. Scenes is
// engines/raytrace's LayerIndex (each layer's scene built once: its hash
// and frame; the cache is bounded by the scenes' estimated bytes). A
// route that misses the cache (SubmitLinks and the routes over it,
// StartMap) builds the scene on the request's goroutine only once the
// heavy-work scheduler (Service.Admitter) admits a KindSceneBuild of
// Scenes.EstimateBytes; a full queue answers 503 + Retry-After. A link
// job rebuilding a lost scene (a restart, an eviction from the scene
// cache) does so under its own grant, which Cost sizes with
// Scenes.EstimateBytes whenever the scene is not built when the job is
// admitted (a job admits no build of its own: it would wait while holding
// a grant). Executor is engines/raytrace/worker's LayerExecutor over the
// worker's client: a unit names its scene by hash, and the layer and its
// buildings are loaded from the store only when the worker does not hold
// the scene. The scene's input (engines/raytrace.SceneInput: P.2040
// materials, the terrain heightfield) stays the engine's: what crosses the
// boundary is domain data (the layer and its buildings), which the
// engine's own layer index turns into the input on the executor's side,
// as it built the service's copy of the scene, so the hashes agree. The
// executor also answers for the engine (MapWarnings, EngineVersion), so
// the service needs no other handle on it.
//
// # Link jobs
//
// Engine "raytrace" on POST /analyze (one tower or site, one receiver),
// POST /analyze_link (the towers around a receiver, at most MaxLinks, the
// nearest first) and POST /coverage/engines/predict (one path's loss, no
// budget) is asynchronous: SubmitLinks validates the request and enqueues
// a job of kind appliance.JobKindRaytraceLink, and the route answers 202
// with the job (GET /jobs/{id}; the result, a JSON document LinkJobResult,
// at /jobs/{id}/download). The job's payload names the layer's scene by
// its hash: a job whose layer was deleted, or whose scene changed (the
// terrain packs changed), fails for good with the reason.
//
// The handler traces one link per unit (a Point of the executor), from the
// job's checkpoint: each link's answer is an item written once by its
// index, so a retried or resumed job never traces a committed link again.
// A link's answer holds every path (kind, interactions, length, delay,
// angles, field), the path loss (the sum Options.Sum names; both sums
// given), the RMS delay spread, the LOS flag and the engine's warnings;
// with a budget (the analysis routes) the received power = EIRP − antenna
// pattern loss toward the receiver − path loss + receiver gain − feeder
// loss, and the margin over the threshold, as the planner's budget for
// every engine. The antenna is the planner's (planner doc, "Antennas"):
// a tower whose record names a catalogue antenna, a tilt, a beamwidth or a
// front-to-back ratio (the ad hoc tower of POST /analyze: its antenna_id
// and tilt) radiates its appliance.TowerRadiator (Service.Antennas),
// horizontal at the direct bearing and vertical at the elevation its
// antenna sees the receiver's from on the terrain (Service.Terrain; flat
// ground where the terrain has no height, as the scene then is); any
// other, the generic 65° sector. The link states the antenna and that
// elevation (antenna, tower_elevation_deg) as the physics engines' links
// do. Antenna patterns are applied on the direct ray by the budget, not
// per path (the units are traced with isotropic antennas).
//
// A link's warnings are its tower's caveats as the planner gives them for
// every engine (planner.TowerWarnings: eirp_assumed, synthetic_tower,
// position_uncertainty above 10 % of the link; antenna_unavailable); the
// result's are the request's (engine_resolved, deprecated_field;
// parameter_ignored for a time_pct or location_pct given to POST
// /analyze, which the engine has no use for: one geometry's paths have no
// time or location variability, as P.1411 ignores time_pct; the towers
// left out by /analyze_link, and its max_alternatives and include when
// given (every traced tower is a link; its paths are the answer); on POST /coverage/engines/predict one
// parameter_ignored per case member the engine has no use for: time_pct,
// location_pct, step_m and the other engines' parameters), then the
// import warnings of the building layer (LayerWarnings: every one but the
// assumed heights, which each link states for its own paths as
// raytrace_assumed_heights), read when the job runs, then
// stronger_tower_demoted; the summary carries the result's, then the best
// link's or, when no link is reachable, the links' own (why none reaches
// the receiver).
//
// The best link is chosen as the planner chooses the best tower (planner
// package doc, "Ranking"): each tower link records its tower's standing
// (Link.Standing: real, uncertain_position, synthetic) at submission; of
// the links that close, the best standing wins, then the largest margin;
// when none closes, the largest margin. A stronger link that ranks below
// the best raises stronger_tower_demoted in the result's warnings, so a
// synthetic tower's 20 dB never heads the answer over a real tower's 2.
//
// Cost sizes a job for the heavy-work scheduler: one worker slot, 96 MiB,
// plus Scenes.EstimateBytes when the layer's scene is not built.
//
//	state    trigger                             condition                              next      effects
//	(none)   SubmitLinks                         tier, layer, positions, options valid   queued    job.submit audit entry (appliance/jobs)
//	queued   lease and admission                 -                                       running   -
//	running  a link traced                       -                                       running   item i and Done = i+1 in one checkpoint
//	running  every link traced                   -                                       succeeded result file (JSON) and summary
//	running  the layer is gone or its scene      -                                       failed    permanent: the reason
//	         changed
//	running  the engine refuses a link           -                                       failed    permanent (appliance.ErrInvalid)
//	running  the worker dies holding a link      first death                             queued    Crashes+1, on probation (JobQueue.Crash)
//	running  the worker dies holding a link      second death                            failed    "stopped the raytrace worker twice; quarantined", job.quarantine audit
//	running  the worker is not running           for 60 s (Client.ReadyWait)              queued    retryable failure with backoff
//	running  the appliance stops (SIGTERM)       -                                       queued    released; resumes at its checkpoint
//	running  the appliance dies (kill -9)        -                                       queued    at the next start, a crash on probation
//
// # Maps
//
// POST /coverage/raytrace: StartMap validates a radio map of one
// transmitter over a box of the layer (bbox, or the square of side
// 2·radius_m around the transmitter), resolves the transmitter as a
// heatmap's (Service.Maps, a coverage.Starter without calibrations:
// Requests; a tower in the key's scope with its own antenna, or a site
// with its antenna_id and tilt_deg as its Radiator; an unknown antenna or
// tower, an empty tower_id, a bad tilt: 422 naming site.antenna_id,
// tower_id, site.tilt_deg or site.azimuth_deg) and starts it in the
// coverage registry as a computed map of kind "raytrace"
// (Starter.StartComputed, which writes the coverage.map.start audit entry
// and cancels the map if it cannot): it is admitted, streamed (SSE), kept,
// resumed and exported (GeoTIFF, KMZ, contours) exactly as a heatmap, at
// GET /coverage/heatmap/{id}, /events and /export. The transmitter's
// height and the receiver's are in (0, 1000] m (a heatmap's range; the
// ray tracer needs the antenna above the ground); a transmitter beyond
// the layer's frame is named by the field that gave it (tower_id or
// site). A raytrace map is not calibrated. The caps per tier:
//
//	tier        area      side     resolution   pixels    with scattering_reflections   with reflection_diffraction
//	Enterprise  1 km²     2 km     ≥ 5 m        40 000    5 000                         500
//	Ultra       4 km²     4 km     ≥ 2 m        160 000   20 000                        2 000
//
// (admin keys: Ultra's). 40 000 pixels is the engine's benchmark map
// (BenchmarkMap40k: 2 reflections, diffraction, 500 buildings on a km², at
// most 60 s on two cores); the Ultra cap is four of them; a map with the
// scattering's reflections gets the cap ÷ MapSRCostFactor, one with the
// reflection–diffraction paths the cap ÷ MapRDCostFactor ("Options").
// Defaults: a radius of 500 m, 5 m pixels, a receiver 1.5 m above the
// ground, DefaultMapOptions: the power sum (the local mean, a coverage
// map's usual basis; "sum": "coherent" gives the local field with its
// fading), scattering and clutter, neither the scattering's reflections
// nor reflection–diffraction.
//
// The grid is square in metres in the layer's frame: nx×ny pixels of
// resolution_m from the box's south-west corner. The frame is
// equirectangular, so the pixels are also a regular WGS84 grid (EPSG:4326,
// not on whole arc-seconds as a heatmap's). A pixel's level is EIRP −
// the antenna's loss toward the pixel − the engine's path loss at the
// pixel's centre (isotropic receiver); no data where no path reaches it.
// The antenna's loss is a heatmap's (coverage package doc, "Antenna
// pattern"): coverage.Request.PatternLossDB at the pixel's direct bearing
// and, for an antenna with a vertical pattern (a catalogue antenna, a
// known tilt), PatternLossAtDB at the elevation at which the antenna sees
// the receiver at the pixel's centre on the terrain (flat ground where it
// has no height). The pattern is applied along the pixel's direct ray, not
// per path: a map with a directional pattern or a vertical one warns
// raytrace_pattern_along_bearing (WarnPatternAlongBearing), naming the
// antenna, as the started event's transmitters[].antenna does.
//
// The map is computed in units of rows from the north (about 20 units, at
// least 8 rows each): each is a Map of the executor on the same scene,
// and since each pixel equals the engine's Point at its centre, bit for
// bit, the split changes no number (TestMapBandsEqualOneUnit). Progress
// follows the units, tiles as their rows finish. The warnings are the
// request's (from the first unit) and those of every pixel's flags over
// the whole map with pixel counts (Executor.MapWarnings, the engine's, on
// the merged flags, the union of the assumed-height buildings and the
// scene's clutter), then raytrace_pattern_along_bearing, then the
// layer's import warnings (LayerWarnings, as for link jobs); they travel
// into the summary and every export. A unit whose worker dies is computed once
// more on the restarted worker; a second death fails the map with the
// code worker_crashed and the reason (the quarantine rule, once per map).
// An appliance restart ends a computing map as interrupted (the
// registry's rule): maps are interactive and short, jobs are durable.
package raytracing
