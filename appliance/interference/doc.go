// Package interference computes interference maps (issue 26 scope 1) and
// checks one link against the interferers around its ends (scope 2). It
// has no HTTP: web/api decodes, calls one method and encodes.
//
// # Maps
//
// Service.Compute takes transmitters (each a coverage.Request: position,
// antenna, EIRP, centre frequency, radius, grid, engine; plus its channel
// width and the adjacent-channel selectivity of the receivers it serves)
// and computes each transmitter's heatmap on one grid, the best-server
// grid of appliance/coverage (coverage.ComputeEach: the raster of each
// transmitter is bit for bit the one coverage.ComputeBest computes for
// it). Per pixel, with every level S_j in mW (10^(dBm/10) of the float32
// level):
//
//	best server b   the strongest level, the lowest request index on a tie
//	carrier C       S_b, dBm (float32 as in the heatmap)
//	interference I  Σ_{j≠b} f(b, j)·S_j, dBm; no data where no j couples
//	C/I             C − I, dB; no data where no j couples
//	SINR            C − 10·log10(I + N_b), dB, N_b = −174 dBm/Hz
//	                + 10·log10(bandwidth of b) + noise figure
//
// The sum is kept per channel (the strongest of the channel and the sum
// of the others), so that no power is subtracted from another: checked
// pixel by pixel against the direct sum in request order to 1e-4 dB on the
// float32 outputs (TestIssue26_ThreeTransmittersPixelByPixel), the best
// server and its level bit for bit.
//
// # Pixels
//
// A pixel stands for a receiver at its centre (RxHeightM above ground,
// isotropic), and each transmitter's level there is its heatmap's
// (coverage's pixel rule: the receiver at the pixel centre, on its own
// profile; coverage package doc, "Pixels"). The truth a pixel is held to
// is the same formula applied to every transmitter's /analyze_link answer
// at the pixel centre (Terrain.Profile(tx, centre, step), the engine's
// Predict, the pattern at the pixel's own bearing). Measured SINR (C/I)
// agreement in the default mode, share of pixels within 1 dB, within
// 3 dB, largest difference:
//
//	map (ITM unless named)                     SINR                      C/I
//	rio5, hand-built, every pixel (15,614)     99.840 %, 99.994 %, 4.0   99.904 %, 99.962 %, 30.0
//	rio5 fspl, every pixel                     100 %, 100 %, 0.020       100 %, 100 %, 0.020
//	rio5 p1812, every pixel                    100 %, 100 %, 0.063       100 %, 100 %, 0.063
//	rio30 (3″), 4000 pixels, seed 22           99.975 %, 100 %, 1.16     99.950 %, 100 %, 1.18
//	rio50 (3″), 4000 pixels, seed 22           99.850 %, 100 %, 1.36     99.900 %, 100 %, 1.54
//	rio10 at 1″, 4000 pixels, seed 22          100 %, 100 %, 0.78        100 %, 100 %, 0.79
//
// (TestIssue22_InterferencePixelTruth: rio5, the hand-built map of two
// co-channel sectors and an adjacent-channel omni at 5.5 GHz;
// BenchmarkIssue22_InterferencePixelTruth: rioNetwork, Sumaré and Pedra
// Branca co-channel omnis and a Tijuca sector on the adjacent channel at
// 900 MHz, each with the map's radius, `make bench-pixels`.) The C/I
// misses of rio5 are pixels 180 dB below the transmitters, where the
// three levels tie within 0.2 dB and the best server flips between the
// map and the truth; their SINR is noise-bound and agrees. The figures
// travel with the map (Summary.Pixel: the summary event's pixel, the
// GeoTIFF's PIXEL_* items).
//
// # Exact mode
//
// With every transmitter's coverage.Request.Exact (`exact` on the API;
// Validate refuses a mixed map, naming exact) each level is its exact
// heatmap's: the engine's Predict on the pixel's own Terrain.Profile, bit
// for bit (TestIssue22_InterferenceExactEqualsHeatmaps), so best server,
// carrier, C/I and SINR are the truth's to the float32 output (measured
// 0.000 dB on every pixel of rio5 for fspl, itm and p1812). Nothing is
// shared between co-sited transmitters (a pixel's profile is its own),
// and the map is capped per tier as an exact best-server map is: the sum
// over the transmitters of coverage.ExactPixels within
// TierCaps.MaxExactPixels (CheckCaps, 422 naming exact). Its CPU time
// over the default mode's (BenchmarkIssue22_InterferenceExactRatio, ITM,
// 3″, 29 Nov 2026 on the shared 2-core machine): rioNetwork at 10 km
// 2.27 s against 0.48 (4.7×), network20 at 5 km (20 sectors on 7 sites,
// whose default shares each site's pixels) 2.63 s against 0.75 (3.5×).
//
// # Channels
//
// A channel is a centre frequency and a width (MHz; default
// DefaultBandwidthMHz, 20). For a victim receiver tuned to the best
// server's channel v and an interferer's channel i (CouplingOf):
//
//	co-channel  the channels overlap: f = overlap / width of i (the
//	            interferer's power spread flat over its channel)
//	adjacent    no overlap, the gap between the band edges below the
//	            victim's width: f = 10^(−ACS/10), ACS the selectivity of
//	            the best server's receivers (Transmitter.ACSDB, from its
//	            radio's data sheet), else DefaultACSDB (33 dB, about the
//	            3GPP LTE terminal ACS) with the warning acs_assumed
//	none        farther apart: ignored
//
// The selectivity of a transmitter's receivers, in order: its own ACSDB
// when the request gives one; else the acs_db of the catalogue radio its
// RadioID names (appliance.Radio.ACSDB, filled by Request.UseRadios
// before Compute, as the tenant sees the catalogue: a built-in or its
// own radio; an unknown radio is a 422 naming sites[i].radio_id); else,
// when neither states one, DefaultACSDB with acs_assumed.
//
// # Shared sweeps
//
// Transmitters at one position with one radius and grid (the sectors of a
// site) are computed one after the other, and while they are, the radial
// terrain profiles of the first are kept and served to the others; those
// that also share height, frequency, receiver height, engine and
// percentages (co-sited sectors on one channel) get the engine's prefix
// sweep (or prediction) of the first, keyed by the profile's identity and
// the samples in use. The engine's per-pixel answers (coverage's pixel
// path, "Pixels" there) are shared across frequencies too: the first
// sector of a site to reach a radial computes that radial's pixels for
// every frequency of the site at once (an engine with PixelLossFreqs,
// ITM: each pixel's horizons, Δh, effective heights and N_s once, the
// Longley-Rice, free-space and variability arithmetic per frequency),
// and a later sector whose radial, pixels, bounds and inputs (frequency
// aside) are the same takes its frequency's answer. Only the pattern and
// the EIRP differ, so the values are those of separate sweeps bit for
// bit (TestIssue26_CoSitedChannelsSharePixels). The kept data is dropped
// between sites, and a site whose estimate (ShareBytes: 57 bytes per
// radial sample; 18 MB for 20 km at 90 m) exceeds MaxShareBytes (256
// MiB) is computed without sharing; the kept pixels, not in that
// estimate, add 64 bytes a pixel (its query) and 9 a pixel and
// frequency. Summary.SharedProfiles and SharedSweeps count the reuse
// (SharedSweeps: kept sweeps, predictions and radials' pixels served
// again).
//
// BenchmarkInterference20Tx20km (20 transmitters on 7 sites, 20 km, ITM,
// 3″, 460 375 valid pixels) against the 20 heatmaps on the same grid
// summed as the direct computation does (…SumOfHeatmaps); each benchmark
// checks its values equal the sum's. Measured on the shared 2-core build
// machine under a CI run (load average 5 to 10), process CPU seconds per
// map (wall time there measured the queue of other builds):
//
//	network                         interference   sum of 20 heatmaps   ratio
//	two channels alternating        6.29 s         12.39 s              1.97×
//	  between a site's sectors
//	one channel (reuse 1)           5.51 s         12.19 s              2.21×
//
// Before the pixels were shared (each sector's pixel path computed on its
// own, the prefix sweep shared per channel) the two-channel network took
// 11.76 s against 12.30 s, 1.05×, on the same loaded machine: the
// per-pixel work dominates since maps are pixel-exact.
//
// # Exports
//
// WriteGeoTIFF writes five Float32 bands (GeoTIFFBands: best server index,
// carrier dBm, interference dBm, C/I dB, SINR dB; NaN no data) with the
// warnings as GDAL metadata; WriteContours the areas at or above SINR
// thresholds (default DefaultSINRThresholdsDB: 0, 5, 10, 20 dB) as
// GeoJSON, KML, KMZ or Shapefile, each feature with the warnings.
//
// # Link check
//
// LinkService.Check evaluates, at each end of a link as a receiver, every
// tower within RadiusM (default 20 km, at most MaxLinkCandidates nearest)
// visible to the tenant (public towers and its own; another tenant's never)
// with a band that couples to the link's channel. A public tower states
// bands, not channels: each band is taken as a DefaultPublicBandwidthMHz
// channel centred on it (warning public_channel_assumed). Its level at the
// end is
//
//	EIRP (ERP + 2.15, or coverage.DefaultEIRPDBm) − its antenna's loss
//	toward the end (appliance.TowerRadiator: catalogue antenna or generic
//	sector, at the elevation its antenna tip sees the end's, k = 4/3)
//	− the engine's path loss (terrain profile at 90 m) + the end's gain
//	− the end's pattern loss toward the tower (catalogue antenna, else a
//	generic sector of BeamwidthDeg, pointed at the other end)
//	+ 10·log10(coupling fraction)
//
// The carrier is TxPowerDBm + both gains − the link's path loss (antennas
// aligned). C/I and SINR as for maps; when C/I is below RequiredCIDB the
// answer warns ci_below_requirement. CheckFor caps the radius by the
// tier's map radius (coverage.CapsFor) and reads the ends' catalogue
// antennas as the key's tenant sees them. The tenant's own planned links
// (not stored by the appliance yet) are not interferers.
//
// # States
//
// A computation (Compute or Check) is one call:
//
//	| State     | Entered when                            | Returns                                  |
//	|-----------|-----------------------------------------|------------------------------------------|
//	| computing | the request is valid                    | (running; coverage's OnProgress fires)   |
//	| done      | every transmitter (or tower) evaluated  | *Result / *LinkResult, nil               |
//	| canceled  | ctx ended                               | nil, context.Canceled / DeadlineExceeded |
//	| failed    | bad request, no terrain at a            | nil, appliance.ErrInvalid /              |
//	|           | transmitter, an engine refusing a whole | ErrTerrainMissing / ErrOutsideEnvelope / |
//	|           | map, a bug                              | the cause                                |
//
// # Streams
//
// Maps (maps.go) starts interference maps and viewsheds as computed maps
// of the coverage registry (coverage.Starter.StartComputed): the
// per-tenant bound, the heavy-work admission (sized by Work: the
// best-server map's estimate plus the map's own arrays and the largest
// shared site), the stream and its resume, persistence, retention and
// the exports are a heatmap's. Request resolves a MapSpec for a key:
// towers by ids or box through coverage.Starter.Requests (scope, caps,
// antennas, calibration), explicit sites each on its own channel (their
// field errors named sites[i].…), then CheckCaps and Validate. An
// interference map (kind "interference") streams its SINR as the tiles'
// data (centi-dB) and the best server as their servers, at the end; its
// summary's carrier figures (min/max dBm, covered area at −95 dBm) are the
// best server's level, and its detail (MapDetail) the SINR areas, the
// channels and the served pixels. Its bands carrier, interference and C/I
// are kept with it, and ResultOf rebuilds the Result the exports take
// (WriteGeoTIFF, WriteContours: TestIssue26_MapsRegistryRoundTrip checks
// them bit for bit after a restart). A viewshed (StartViewshed, kind
// "viewshed") is coverage.ViewshedComputer, its site explicit or a
// tower's position and height, within CheckViewshedCaps (an exact one,
// ViewshedRequest.Exact, within MaxExactPixels as an exact heatmap of
// one transmitter).
package interference
