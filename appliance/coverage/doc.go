// Package coverage computes coverage heatmaps (SPEC §4.8, issue 9 scope
// 1): the received power, dBm, of one transmitter on a geographic grid
// around it, with a propagation engine of the registry on the real terrain.
// It has no HTTP: web/api streams its tiles.
//
// # Grid
//
// The raster is EPSG:4326 (WGS84 degrees) with pixel edges on whole
// arc-seconds. For a resolution R metres and a transmitter latitude φ:
//
//	pixel height = max(1, round(R / ArcSecondM)) arc-seconds of latitude
//	pixel width  = max(1, round(R / (ArcSecondM·cos φ))) arc-seconds of longitude
//
// with ArcSecondM = π·6 371 008.8 m / 648 000 ≈ 30.887 m, so the pixel is
// about R metres wide at the transmitter (3″×3″ at Rio for 90 m: the SRTM3
// terrain grid). The raster's corners are multiples of the pixel size
// (arc-seconds) and cover the bounding box of the radius circle
// (appliance.Around). Pixels whose centre lies farther than RadiusM from
// the transmitter are no-data (NaN). Raster.DBm is row-major from the
// north-west pixel.
//
// # Tiles
//
// The raster is cut into tiles of TileSize×TileSize (256×256) pixels from
// its north-west corner; the last tile column and row are narrower or
// shorter. Tile (row, col) has the id "r{row}c{col}" (0-based, row 0 is the
// northernmost) and the bounds of its outer pixel edges (Raster.TileAt,
// Raster.Tiles).
//
// # Radial sweep
//
// The map is computed on n radials from the transmitter, rounded up to a
// multiple of 8 (pixel = the smaller pixel side in metres), so that
// neighbouring radials are at most one pixel apart at the radius (below).
// Radial k has the bearing 360°·k/n. Its terrain profile is Terrain.Profile(tx, end, step) to the point at
// RadiusM, step = max(30 m, min(terrain spacing, pixel)) (terrain spacing:
// Options.TerrainSpacingM, default 90 m).
//
// n = ceil(2π·max(RadiusM, MinRadialsRadiusM)/pixel): a map smaller than
// 20 km gets the radials of a 20 km map, so that the radial nearest a
// pixel stays within d·π/n of the pixel's own line. An engine whose
// pixels do not depend on that (AnyRadialSpacing: fspl and p1812, which
// take from the radial its terrain bounds, and p1812 its smooth surface)
// gets n = ceil(2π·RadiusM/pixel): on the 10 km Sumaré map at 3″ half
// the radials, and its default map 29 % (fspl) and 12 % (p1812) less CPU
// time (BenchmarkIssue22_Default).
//
// # Pixels
//
// A pixel stands for a receiver at its centre, RxHeightM above ground,
// isotropic (0 dBi, no feeder loss), and its value is what /analyze_link
// answers for that receiver:
//
//	dBm = EIRPDBm − pattern loss(the pixel's own bearing) − engine path loss
//
// on the pixel's own profile: Terrain.Profile(tx, pixel centre, step), ⌈d/
// step⌉ equal steps (d the great-circle distance to the centre); the
// pattern loss is the section "Antenna pattern"'s. Each pixel belongs to the radial nearest its bearing (its pixels are computed
// by that radial's worker, in order of distance), and is computed so:
//
//	| mode    | engine                 | the pixel's value                                          |
//	|---------|------------------------|------------------------------------------------------------|
//	| exact   | any                    | Predict on Terrain.Profile(tx, centre, step): bit for bit  |
//	| default | itm (PixelSweeper)     | PixelLoss: its own length, step count, end heights and    |
//	|         |                        | horizons (the samples of its own profile that the terrain  |
//	|         |                        | bounds of HeightBounder cannot rule out, sampled exactly), |
//	|         |                        | the terrain statistics (Δh, effective heights) from the    |
//	|         |                        | radial's heights at the same distances (Δh of a range of   |
//	|         |                        | more than 240 samples interpolated between the ranges      |
//	|         |                        | ending every 8 radial samples, each resampled once)        |
//	| default | fspl (PixelSweeper)    | PixelLoss: free space between its own antenna tips and J  |
//	|         |                        | of the largest ν over its own interior samples, sampled    |
//	|         |                        | exactly where the bounds of HeightBounder cannot keep ν at |
//	|         |                        | or below the largest found so far (or −0.78, where J is 0) |
//	|         |                        | and ruled out elsewhere: Predict's loss on those heights,  |
//	|         |                        | bit for bit                                                |
//	| default | p1812 (PixelSweeper)   | PixelLoss: its own length, end heights and every maximum   |
//	|         |                        | over its own interior samples (the horizons, the           |
//	|         |                        | Bullington slopes and ν for both Earth radii, the          |
//	|         |                        | obstruction of §5.6.2, the roughness), sampled exactly     |
//	|         |                        | where the bounds of HeightBounder cannot rule them out;    |
//	|         |                        | the least-squares smooth surface integrated from the       |
//	|         |                        | radial's heights at the same distances                     |
//	| default | the rest               | Predict on its own profile sampled through                 |
//	|         |                        | appliance.RadialProfiler (points within a centimetre)      |
//
// A pixel computed on its own profile takes only Predict's loss
// (LossPredictor: fspl and p1812 give it without the intermediate values
// and the line-of-sight geometry), bit for bit, in both modes.
//
// A pixel PixelLoss leaves (itm and fspl: fewer than 4 steps, a radio
// climate that depends on whether its own profile crosses a sea tile, a
// radial sample the model refuses on the way; p1812: fewer than 8 steps,
// a profile that may cross a sea tile, a radial with land-cover clutter,
// the Deygout method) is computed on its own profile. Measured
// against Predict on the pixel's own Terrain.Profile (TestIssue22_PixelTruth
// on the Rio sample, BenchmarkIssue22_PixelTruth on the 10, 30 and 50 km
// Sumaré maps): itm default ≥ 99 % of pixels within 1 dB and ≥ 99.9 %
// within 3 dB (the misses sit where a horizon is a tie between the radial's
// and the pixel's terrain statistics); fspl within 0.02 dB (the exact
// samples lie within a centimetre of Terrain.Profile's); p1812 within
// 0.035 dB (every pixel of the 5 km map and 4000 of each other map: rio30
// 0.008, rio50 0.021, rio10 at 1″ 0.014 dB with the radials of a 20 km
// map, 0.019 dB, and 0.034 dB on another 2000, with its own since
// AnyRadialSpacing; the smooth surface moves the spherical-Earth and
// ducting terms only slightly); exact 0.000 dB.
// Summary.Pixel (the summary event's pixel, the GeoTIFF's PIXEL_*
// metadata) states the mode, the receiver, the profile and these figures.
// The exact mode (Request.Exact, `exact` on the API, --exact on the CLI)
// costs more CPU time than the default one (BenchmarkIssue22_ExactRatio,
// Sumaré; 29 Nov 2026, the 2-core machine under a load of 20–33; default
// and exact CPU s, ratio):
//
//	| map         | fspl                | itm                 | p1812               |
//	|-------------|---------------------|---------------------|---------------------|
//	| 10 km, 3″   | 0.083 / 0.542  6.5× | 0.180 / 0.841  4.7× | 0.191 / 0.866  4.5× |
//	| 30 km, 3″   | 0.565 / 11.23 19.9× | 0.998 / 12.59 12.6× | 1.283 / 12.22  9.5× |
//	| 50 km, 3″   | 1.358 / 38.32 28.2× | 2.518 / 43.95 17.5× | 3.638 / 45.82 12.6× |
//	| 10 km, 1″   | 0.573 / 11.25 19.6× | 1.339 / 14.74 11.0× | 1.808 / 15.60  8.6× |
//
// (the same run: 2000 random pixels of each default map within 1 dB of
// their own point-to-point answer 99.7–100 %, within 3 dB 100 %). The
// API caps it per tier (TierCaps.MaxExactPixels).
//
// What a default pixel still costs (CPU profiles of
// BenchmarkIssue22_Default's maps) is mostly what exact mode spends on it
// too, besides its own profile: the engine's per-pixel arithmetic (p1812:
// the path centre, β0, the spherical-Earth, ducting and troposcatter
// terms, about 30 % of a default p1812 pixel on the 30 km map; itm: Δh on
// up to 245 points resampled from the radial, its line fit and deciles
// (about 22 % of the default itm map of 10 km), the horizon search (22 %)
// and the Longley-Rice reference (13 %)), and per radial its profile
// (14 % of the default fspl map of 10 km) and its terrain bounds
// (MaxElevationsM, 7 %). On a 10 km map at 3″ a pixel's own profile is
// short (at most 112 samples) and cheap: exact mode's itm map there is
// its own profiles (0.42 CPU s) and Predict (0.27 CPU s), and Predict on
// every pixel alone costs 1.7 default maps; so the ratio of a 10 km map at
// 3″ is capped near 5× by the engine arithmetic both modes do. It grows
// with the path length (the profile and the scans exact mode does per
// pixel grow with it, the default mode's shared costs do not): the issue's
// 10× holds on the 30 km (but p1812, 9.5×) and 50 km maps and on the
// 10 km map at 1″ (but p1812, 8.6×).
//
// p1812's PixelLoss (engines/p1812 Sweep) finds its maxima with one
// branch-and-bound search per pixel over the radial's segments (blocks of
// 16 and superblocks of 256, from the receiver's end, seeded with the
// samples next to the receiver and the maximising samples of the
// radial's previous pixel): a block is skipped when no maximum's bound
// (its expression at the block's highest ground and most favourable
// distance) reaches the best value so far; the roughness, between the
// two horizons, is searched after them. On random hilly terrain it takes
// 7–11 % of the interior samples exactly (TestSweepMatchesPredict). The
// smooth-profile Bullington maxima (heights zero above the smooth
// surface) are concave in the distance and come from their stationary
// points.
//
// The value does not depend on the worker count: each radial's pixels,
// their exact samples and the engine's running state are its own.
//
// # Antenna pattern
//
// Without Request.Radiator the pattern is planner.PatternLossDB, scaled
// to Request.BeamwidthDeg (Request.PatternLossDB), at the pixel's own
// bearing; an omni antenna (NaN azimuth) has none. With one (a tower whose
// record gives a tilt, a beamwidth or a front-to-back ratio, a tower or
// a site naming a catalogue antenna, a site given a tilt: Starter), the
// loss of each pixel is appliance.Radiator.LossDB toward the pixel's own
// bearing at the elevation below the horizontal at which the
// transmitter's antenna tip sees the receiver at the pixel centre
// (appliance.ElevationDownDeg: transmitter ground + TxHeightM, the ground
// at the pixel centre + RxHeightM, the pixel's distance, k = 4/3). A
// downtilted sector's main lobe therefore reaches the ground where the
// geometry puts it: on flat ground at d ≈ h/tan(tilt) for a height
// difference h (TestIssue25_TiltedSectorMainLobe).
//
// Radials run on Options.Workers goroutines (in the registry: the
// workers the heavy-work scheduler granted the map). Each radial writes only its
// own pixels, so the raster is bit-identical whatever the worker count or
// GOMAXPROCS; sums of the summary are taken afterwards in pixel order.
// Radials are dispatched in the order of the first tile they touch
// (row-major), and OnTile reports tile after tile in row-major order as
// soon as every radial touching it (and every earlier tile) is done.
//
// Every radial touches the tile that holds the transmitter, so that tile
// (and, row-major, every tile after it) is reported only when the last
// radial finishes; tiles of earlier rows are reported as they complete.
//
// An engine's refusal of a whole map as outside its validity (every pixel
// refused, e.g. P.1812 at 30 GHz) fails the computation with the engine's
// error (appliance.ErrOutsideEnvelope) instead of an all-no-data map.
//
// # Best-server map
//
// ComputeBest computes several transmitters on one grid: the grid rule
// above applied to the union of their radius boxes, with the pixel size of
// the union's central latitude (all requests share ResolutionM). Each
// transmitter's map is computed as by Compute on that grid, one after the
// other; per pixel the strongest level wins, the lowest request index on a
// tie (BestResult.Server, −1 for no data). A single transmitter's
// best-server map is its Compute map bit for bit (tested). Each
// transmitter's pixels follow "Pixels", in the mode of its request
// (Request.Exact; the API caps an exact best-server map on its pixels
// times its transmitters), and the strongest level is held to the
// strongest point-to-point answer at the pixel centre: exact within
// 0.01 dB on every pixel of a two-transmitter 5 km map
// (TestIssue22_PixelTruth); default itm, three transmitters on Rio hills
// (BenchmarkIssue22_BestPixelTruth, 4000 pixels, seed 22), rio30
// 99.975 % within 1 dB, rio50 99.850 %, rio10 at 1″ 100 %, each 100 %
// within 3 dB (largest 1.36 dB).
//
// # Missing terrain
//
// Terrain is never taken as sea level (SPEC §8.6). When a radial's profile
// needs a tile no pack holds (*appliance.TileMissingError), the radial is
// probed at its sample points and profiled only up to the last point with
// terrain. A pixel farther along it than that point is no-data when one of
// the first 8 samples of its own profile past that point has no terrain
// (then its own profile has none), else it is computed on its own profile
// (no-data when that has a missing sample); a pixel whose own profile
// needs a missing tile is no-data. They are counted in
// Summary.NoDataMissingTerrain, and Summary.MissingTiles names the
// first missing tile of every cut radial and every missing tile under a
// no-data pixel. A transmitter without terrain fails the whole
// computation (appliance.ErrTerrainMissing). A pixel the engine refuses as
// outside its validity (appliance.ErrOutsideEnvelope, e.g. P.1812 below its
// minimum distance) is no-data counted in Summary.NoDataOutsideEnvelope.
//
// # Caveats
//
// A map carries what its numbers rest on, as /analyze_link does for a
// link (issue 20): the engine, the EIRP of the transmitter (of the first,
// for a best-server map) and whether an EIRP was assumed (a tower without
// ERP gets DefaultEIRPDBm, 58 dBm), every transmitter (TransmitterData:
// tower id, position, height, EIRP, assumed, synthetic, position
// uncertainty) and the warnings that apply to the whole map, in this
// order:
//
//	engine_resolved       the engine is not the one asked for (Request.EngineNote)
//	eirp_assumed          a transmitter has no ERP in its source
//	synthetic_tower       a transmitter is synthetic sample data
//	position_uncertainty  a transmitter's position uncertainty exceeds the
//	                      map's resolution (its pixel): the map may be
//	                      shifted by that much, and within 10× the
//	                      uncertainty of the transmitter the planner's rule
//	                      (10 % of the path length) is broken
//	calibration_outside_area
//	                      a transmitter carries the tenant's calibration
//	                      (Request.Calibration, appliance/calibration):
//	                      every pixel got its transmitter-wide offset and
//	                      slope, the local correction only inside the
//	                      calibrated area (the transmitter's calibration
//	                      object says how many squares)
//	antenna_unavailable   a tower's catalogue antenna could not be read (its
//	                      generic antenna stood in)
//	void_filled_terrain   radials cross samples interpolated across DEM
//	                      voids (counted per radial profile, with the
//	                      samples and the longest interpolated span)
//	missing_terrain       pixels within the radius have no value because a
//	                      terrain tile toward them is in no pack (named)
//	no_land_cover         radials have no land-cover class (no layer, or
//	                      every sample unknown)
//
// Those up to antenna_unavailable depend on the requests only
// (TransmitterWarnings) and
// come in the started event; the summary (Summary.Warnings, the summary
// event and GET's summary) has all of them. Every export of a done map
// carries them: the GeoTIFF as GDAL metadata (GeoTIFFMetadata: band unit
// type and UNITS dBm, ENGINE, ENGINE_VERSION, EIRP_DBM, EIRP_ASSUMED,
// THRESHOLD_DBM, WARNINGS as ';'-separated codes and WARNING_n as "code:
// message"), the KMZ in its legend (WriteKMZ), the contours as properties
// of every feature (ContourSchema). A map traced on a building layer
// (raytrace; its Summary.Detail names layer_id, scene_hash and options)
// also says how it was traced (TracedScene): GeoTIFF items LAYER_ID,
// SCENE_HASH and RAYTRACE_OPTIONS (compact JSON), a line of the KMZ
// legend, and the contours' layer_id, scene_hash and rt_options.
//
// # Tile encoding
//
// EncodeTile gives a tile as base64 (standard alphabet, padded) of
// little-endian int16 centi-dBm, row by row from the tile's north-west
// pixel: round(dBm·100) clamped to −32767..32767 (±327.67 dBm); no-data is
// −32768. −150 dBm is −15000.
//
// # States
//
// A computation (one Compute call) is in one of these states:
//
//	| State     | Entered when                                   | Compute returns                         |
//	|-----------|------------------------------------------------|-----------------------------------------|
//	| computing | the request is valid and the engine is known   | (still running; OnTile/OnProgress fire) |
//	| done      | every radial finished                          | *Result, nil                            |
//	| canceled  | ctx ended; workers stop within one radial's    | nil, error matching context.Canceled    |
//	|           | ctxEvery (16) engine evaluations               | (or context.DeadlineExceeded)           |
//	| failed    | bad request, unknown engine, no terrain at the | nil, error matching appliance.ErrInvalid|
//	|           | transmitter, or an engine/terrain error        | / ErrTerrainMissing / the cause         |
//
// Summary.CoveredKm2AboveThreshold uses Options.ThresholdDBm, default
// DefaultThresholdDBm (−95 dBm).
//
// # Memory
//
// EstimateMemBytes sizes a computation before it is admitted, from its
// parameters: per pixel of the raster's rectangle P, 4 bytes of raster and
// 16 of newPlan's band lists (transient, while radials are assigned); per
// pixel within the radius I (π·radius² over the pixel area, at most P), 12
// bytes of the radials' own lists; 192 bytes per radial (its record and
// progress event); 256 bytes per sample of the longest radial per worker
// (profile, prefix sums, losses); 4 MiB besides; and a tenth more for the
// collector's slack (newPlan's lists are garbage when the raster is
// allocated). A best-server map adds 9 bytes per pixel of the union
// (strongest level, server, in-radius flag) and holds one transmitter's
// raster at a time. The 100 km map at 50 m of Rio (11.4 million pixels)
// is estimated at about 360 MiB; the estimate is checked against the
// measured peak heap in BenchmarkEstimateMemBytes.
// Tile events hold no pixels: Next encodes a tile's data from the raster
// when a stream reads it (the same bytes every time).
//
// # Streams
//
// Maps is the registry behind the server-sent-event stream: StartFor
// checks the request and the registry's bounds (DefaultMaxComputingPerTenant
// maps queued or computing per tenant: appliance.ErrQuota; at most
// MaxMapPixels pixels a map: appliance.ErrInvalid naming resolution_m),
// submits the map to the heavy-work scheduler (MapsOptions.Admitter,
// appliance/admission) with its memory estimate, records the "started"
// event (the grid, from Shape, before any computing) and computes in the
// background once admitted. The scheduler's refusals pass through: a full
// wait queue is a *appliance.RetryAfterError matching
// appliance.ErrUnavailable (HTTP 503 with Retry-After), a map larger than
// the whole budget appliance.ErrInvalid naming resolution_m. Every event
// gets the next sequence number of its map and is never changed or
// renumbered, so that a stream resumed after event n (the SSE
// Last-Event-ID) gets the same bytes from n+1 on. Events: started (with
// the caveats known before computing), then queued (while the map waits
// for the budget: when it starts to wait and whenever its queue position
// changes; the position is also Map.QueuePosition), then progress (after
// every radial) and tile (as each tile is final; best-server maps report
// their tiles at the end), then one summary (done, with every caveat) or
// error (canceled, failed; code canceled, missing_terrain,
// outside_envelope, interrupted, worker_crashed, unavailable or failed).
// A transmitter on no loaded terrain is refused before its map starts
// (Starter.CheckTerrain: 422 terrain_missing naming the tile, for heatmaps,
// best-server, interference and viewshed maps); missing_terrain in a
// stream is then terrain missing elsewhere the computation needed it.
// Streams Attach to a map; when the last one detaches while it is queued
// or computes, the computation is canceled (it leaves the queue). A finished map (done, canceled or
// failed) is kept for DefaultRetention (1 h) after it finished, with at
// most DefaultMaxMaps finished maps (the oldest finished goes first), for
// resume and export; Get then answers appliance.ErrNotFound, as for
// another tenant's map.
//
// Every computation runs under recover, its worker goroutines too (a
// worker's panic becomes a *PanicError that fails the computation): a
// panic fails the map with the error code failed, is logged once at ERROR
// with the map id, the request id and the stack, and is counted in
// MetricRecoveredPanics; it never ends the process.
//
//	| State     | Entered when                                  | Next                                |
//	|-----------|-----------------------------------------------|-------------------------------------|
//	| queued    | StartFor accepted the request and the         | computing, canceled, failed         |
//	|           | scheduler queued it (its budget is in use)    | (interrupted)                       |
//	| computing | the scheduler admitted it (at once, or        | done, canceled, failed              |
//	|           | from queued); without an Admitter at start    |                                     |
//	| done      | Compute/ComputeBest returned a result         | removed after the retention         |
//	| canceled  | the last attached stream detached             | removed after the retention         |
//	| failed    | the computation returned an error or          | removed after the retention         |
//	|           | panicked; or the appliance stopped while it   |                                     |
//	|           | was queued or computing (code interrupted)    |                                     |
//
// # Units
//
// With Options.Units (MapsOptions.Units: serve --queue jetstream) the
// radials are computed as work units of an appliance.UnitExecutor instead
// of on Workers goroutines: consecutive radials of the dispatch order,
// at most Units.MaxPixels pixels a unit (DefaultUnitPixels, 65,536),
// coverage.radials units. A unit's body carries the request (with its
// antenna), the grid, the number of radials and the profile step, and
// for each radial its
// index and the raster indices and distances of its pixels (the plan's
// geometry: a worker does not rebuild it); RunUnit (on a worker, or the
// appliance's own) sweeps each listed radial with the same sweep into a
// pooled raster buffer and returns, per radial, its facts (evaluations,
// no-data counts, void and land-cover facts, engine version, the
// engine's first refusal as text, missing tiles) and its pixel values as
// float32 bits. The appliance applies each result as the local sweep
// would have written it (applyRadials) and reports the radials to the
// tile and progress loop, so the raster, the summary and the tile events
// are the same bit for bit (TestUnitsByteIdentical); an engine refusal
// keeps its meaning (appliance.ErrOutsideEnvelope) through a
// *appliance.UnitError with the engine's text. A best-server map runs one
// run of units per transmitter. A request's Radiator (a catalogue
// antenna or a known tilt, "Antenna pattern") travels in the unit body
// (appliance.Radiator.MarshalBinary, every field as it is), so the worker
// radiates the same pattern bit for bit.
//
//	Unit state | Entered when                            | Next
//	-----------+-----------------------------------------+--------------------------------------------
//	planned    | runUnits split the radials              | out (the executor sends it)
//	out        | published / handed to a goroutine       | merged; failed (its error, a quarantine)
//	merged     | its result applied, its radials done    | - (a second result is dropped)
//	failed     | the unit's error or a malformed result  | the map fails with it (the others stop)
//
// # Computed maps
//
// StartComputed runs a map whose grid and method belong to another
// service (a Computer: the raytrace maps of appliance/raytracing, computed
// on the raytrace worker) through the same registry: the per-tenant bound,
// the heavy-work admission (Computer.Work sizes it), the events and their
// resume, persistence, retention and every export are those of a heatmap.
// Its kind ("raytrace") is the started event's kind, GET's kind and the
// record's. Its grid need not follow the arc-second rule of "Grid" (a
// raytrace map's pixels are square in metres in its layer's frame); it is
// still EPSG:4326, row-major from the north-west pixel. The Computer
// reports tiles as its rows finish from the north (RowTiles) and ends with
// ComputedSummary. Two more error codes end such a stream:
// worker_crashed (the process that computed it died, with how) and
// unavailable (that process is not running).
//
// A computed map may be more than one band (issue 26): its Result carries
// Servers (an index per pixel; a ServersComputer's map is recorded as a
// best-server one: its tiles come at the end with their servers), Bands
// (more float32 values per pixel, kept with the raster: Map.Bands) and
// Summary.Detail (its kind's own summary as a JSON object, the summary
// event's detail). The interference maps of appliance/interference (kind
// "interference": the raster is the SINR, dB, the servers the best
// server, the bands carrier, interference and C/I) and the viewsheds
// (ViewshedComputer, kind "viewshed": the raster is the pixel class) are
// computed maps; Starter.StartComputed starts one for a key and audits it
// as Start does, and Starter.Requests resolves a Spec without starting a
// map.
//
// # Persistence
//
// With MapsOptions.Dir (the appliance's <data dir>/maps) a map is kept on
// disk: <id>.json, its record (tenant, requests, grid, state, every event
// without tile pixels, summary), written atomically when the map starts and
// when it finishes; <id>.dbm, its raster (float32 little-endian dBm,
// row-major from the north-west pixel, NaN for no data), and for a
// best-server map <id>.srv (int32 little-endian server index, −1 for no
// data), written when it finishes (with the tiles reported so far when it
// failed after reporting some); a computed map's Result.Servers go to
// <id>.srv and its Result.Bands to <id>.bands (float32 little-endian, band
// after band, each row-major from the north-west pixel; the record counts
// them). A finished raster then leaves memory:
// tiles are read back from the file for a stream, and the whole raster for
// an export (Result). At start, Open loads the records: a finished map
// within its retention (DefaultRetention counted from when it finished,
// across restarts) answers as before the restart, byte for byte; a map
// that was queued or computing when the appliance stopped is failed with
// the error code interrupted ("interrupted by a restart"), not unknown; a
// map past its retention is deleted with its files. A graceful stop
// (Close, before the streams are cut) records the interruption itself,
// with every event; after a crash the record holds the events up to the
// start, and the interruption is added at the next start.
//
// # Per-transmitter maps and viewsheds (issue 26)
//
// ComputeEach computes the maps of several transmitters on the
// best-server grid one after the other and hands each raster (the one
// ComputeBest computes for it, bit for bit) and its pixel lists to a
// callback: appliance/interference sums them into C/I and SINR maps.
// Viewshed answers, per pixel of a heatmap's grid, the path check of
// /analyze (line of sight, 60 % of the first Fresnel zone, k = 4/3 by
// default) on the pixel's own profile (viewshed.go states the rule and
// its measured agreement; ViewshedRequest.Exact profiles each pixel with
// Terrain.Profile itself, the same class on every pixel measured);
// WriteViewshedGeoTIFF and WriteViewshedAreas export it (with the PIXEL_*
// items of PixelMetadataItems), and ViewshedComputer streams it as a
// computed map ("Computed maps").
package coverage
