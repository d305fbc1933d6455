// Package planner holds linkplan's use cases that combine towers, terrain and
// engines: link analysis (which tower can this site reach, with what margin)
// and, later, repeater routes. It knows nothing of HTTP or storage.
//
// # Link budget
//
//	EIRP (dBm)      = tower ERP + 2.15 (dipole to isotropic), or the
//	                  request's assumed EIRP when the tower has no ERP
//	pattern (dB)    = the tower antenna's attenuation toward the receiver
//	                  ("Antennas"); for a tower without tilt, beamwidth,
//	                  front-to-back ratio or catalogue antenna
//	                  min(12·(Δφ/65°)², 25) when it has an azimuth, Δφ the
//	                  angle between its main lobe and the receiver (3GPP
//	                  TR 36.814 sector, 65° beamwidth, 25 dB front-to-back;
//	                  PatternLossDB), 0 for an omnidirectional tower
//	calibration     = the tenant's calibration of the tower for the engine
//	  (dB)            and band toward the receiver (Planner.Calibrations,
//	                  appliance/calibration; 0 when none): offset, distance
//	                  slope and, inside the calibrated area, the local
//	                  correction. It joins the EIRP term in every bound, so
//	                  the search ranks calibrated margins; the result
//	                  carries it (LinkCandidate.Calibration) and warns
//	                  calibration_outside_area outside the area
//	Rx power (dBm)  = EIRP − pattern − path loss + calibration + Rx gain
//	                  − cable loss
//	margin (dB)     = Rx power − Rx threshold
//
// # Antennas
//
// A tower whose record names a catalogue antenna (Tower.AntennaID, read
// through Planner.Antennas as its owner tenant sees it) or gives a tilt, a
// horizontal beamwidth or a front-to-back ratio radiates through an
// appliance.Radiator (the rule, and why, is its doc): the catalogue
// antenna's pattern mounted at the tower's azimuth with its tilt as the
// mechanical downtilt, else the generic 3GPP sector with the record's
// beamwidth and front-to-back ratio and, when the tilt is known, its
// vertical pattern tilted by it (vertical beamwidth from the gain by ITU-R
// F.1336 eq. 2b, 10° when the gain is unknown; a tower without azimuth
// but with a tilt radiates the vertical pattern as a cone). The loss
// depends on the elevation below the horizontal at which the tower's
// antenna tip sees the receiver's: appliance.ElevationDownDeg of the
// profile's end heights (tower ground + tower height, receiver ground +
// receiver height) over the great-circle distance, on the k = 4/3 earth,
// reported as tower_elevation_deg with the antenna's name (antenna). Until
// a tower is evaluated on terrain the search uses the horizontal part of
// its pattern, a lower bound of the composite (Radiator.HorizontalLossDB),
// so the pruning stays exact. Every other tower keeps PatternLossDB bit
// for bit: answers without tilt or pattern data did not move when patterns
// came (issue 25). The same antennas radiate in POST /analyze (the ad hoc
// tower may give tilt and antenna_id), the coverage maps
// (appliance/coverage), a relay plan's From tower (appliance/repeater) and
// engine raytrace's links and maps (appliance/raytracing: HasRadiator,
// TowerWarnings).
// A tower whose catalogue antenna cannot be read radiates its generic
// antenna with the warning antenna_unavailable.
//
// # Search
//
// Every tower within the search radius whose path has terrain ("Missing
// terrain" below) gets an optimistic margin computed with free-space loss
// over the horizontal distance, which is a lower bound of the loss of
// engines that declare LossAtLeastFreeSpace (fspl). Towers are evaluated
// on terrain in order of that optimistic margin. A tower is left out when
// its optimistic margin is below what its standing needs to change the
// answer ("Ranking": the worst of the requested number of results, or
// what it takes to become the best tower), and the search stops when no
// tower left of any standing can; so the answer is exactly the one an
// exhaustive evaluation would give, at a fraction of the terrain reads.
// For engines without that property the first MaxEvaluated towers in that
// order are evaluated, and the analysis says how many were (Evaluated:
// the work of the search, which differs between engines; the towers
// skipped for missing terrain do not).
//
// A second exact bound spares most of the terrain reads that remain. Once
// the requested number of results is known, a tower whose optimistic
// margin could still reach what its standing needs (below: "the worst
// result") is first evaluated on sparse
// profiles of its path, coarse to fine: every 32nd, 8th and 2nd sample
// (4·SparseEvery, SparseEvery and SparseEvery/4; SparseEvery is 8 by
// default), each with the last; appliance.SparseProfiler gives them
// bit-identical to the full profile's. For engines that declare LossAtLeastOnSubsample (fspl: free
// space depends on the ends only, the knife edge is J of the largest ν over
// the interior samples, and J is non-decreasing) the loss on fewer samples
// is never above the loss on all of them, so the margin from the sparse
// profile is an upper bound; when it stays below the worst result (with
// 1e-6 dB of slack for rounding) the tower cannot rank and its full path
// is never sampled (LinkAnalysis.Pruned counts them); the first bound that
// proves it ends the checks. In mountainous Rio this cuts the full paths of
// a search by about 2.7× (planner tests); a 100-row batch on the national
// tower set went from 502 to 128 ms. The coarse-to-fine ladder (one stride
// of 8 before) took 1,000 random Rio receivers on the national set (30 km,
// 1,214 towers in range each) from 45.7 to 16.3 full paths a receiver and
// from about 3.7 to 2.8 ms of CPU a receiver (paired runs, loaded machine).
//
// Each stride of the ladder refines the previous one's profile when the
// terrain is an appliance.SparseRefiner (terrain packs are): the samples
// the coarser stride already read (every 4th of the next stride) are
// copied, not sampled again. The bounds take the loss alone from engines
// that are a LossPredictor (fspl: Predict's PathLossDB bit for bit,
// without the prediction's Intermediate map), and the search around a
// receiver computes the receiver's trigonometry once (appliance.Origin)
// and each sine of a distance once. In BenchmarkBatch5kAsync (5,000 Rio
// receivers, 30 km, national set; paired with the previous build, load
// average 2.3 to 2.8 with the benchmark's own) the three took AnalyzeLink
// from 16.2 to 13.7 s of CPU (3.2 to 2.7 ms a row), the sparse bounds
// (cannotRank) from 12.2-12.4 to 9.7-9.8 s; in a run of their own the
// ladder refinement took AnalyzeLink from 12.7 to 11.3 s. The sparse
// bounds remained most of a row's CPU: great-circle points
// (GreatCircle.At, two sines and two arctangents a sample) and bilinear
// terrain reads.
//
// Whether the ladder proves a tower out does not depend on the stride
// that proves it: each stride's samples hold the coarser ones' (the
// strides are nested), so the finest stride's bound is the largest, and
// the loss over any subset of its samples that keeps both ends is a
// bound too. When the terrain is a PathSampler and covers the path (no
// sample of it can fail: the search's terrain check, "Missing terrain",
// found it so) and the engine is a
// SampleLossBounder (fspl: the loss is a function of the largest ν of
// the interior samples), the bounds therefore take the finest stride's
// samples one at a time and stop at the first that proves the tower out
// (cannotRankSampled): the ends, then the coarse stride from the receiver
// back (its antenna is the lower, so its obstacles are the likelier),
// then each finer stride outward from the sample of the largest ν so
// far, computing the loss only when the largest ν rises above the
// engine's floor (fspl: −0.78, below which the knife edge is 0). A tower
// is proven out by some sample exactly when the finest stride's profile
// proves it (the loss being non-decreasing in ν; were fspl's J to round
// the other way in its last bit right at a tower's threshold, that tower
// would move between Pruned and Evaluated, never a result), so Pruned,
// Evaluated and every result are those of the sparse profiles, field for
// field (TestSampledBoundsChangeNothing, paths across missing tiles
// included); a path the terrain check could not settle (an error other
// than missing terrain) takes the sparse profiles. The sample points are
// the full profile's bit for
// bit: terrain packs sample every profile through appliance.ProfilePath
// (the path's distance, step count and great-circle trigonometry,
// computed once). A search keeps its scratch (the candidates and the
// marks of the samples taken) for the next search. On 200 Rio rows
// (BenchmarkAnalyzeLinkRioBatch) the sparse bounds take 703,000 samples
// (125,000 of them ends, which need no great-circle point) instead of
// about 1,250,000 plus the ends, and the rows allocate 85 instead of 356
// kB each. In BenchmarkBatch5kAsync (paired with the previous build, load
// average 3.4 to 4.3 with the benchmark's own) AnalyzeLink went from
// 11.5 to 6.5 s of CPU (2.30 to 1.30 ms a row), the sparse bounds from
// 8.3 to 3.8 s; what remains of a row is about three fifths the sampled
// bounds (great-circle points and bilinear reads in equal parts), a fifth
// the full profiles of the evaluated towers and an eighth the tower
// index's range search.
//
// # Missing terrain
//
// Before the search, the path of every tower in range is checked against
// the terrain, whatever the engine: a tower whose full profile meets
// missing terrain (a tile no pack holds, a void tile, NoData samples) is
// skipped (SkippedNoTerrain) and the tile of its first failing sample,
// from the tower, is named (MissingTiles, as Profile's error names it).
// So the skipped towers and the tiles named are those of an exhaustive
// evaluation for every engine (TestIssue20_MissingTileCountsAlikeForEveryEngine):
// before, each engine's search counted the towers it happened to reach,
// and on the national set around Rio (sample pack, 400 receivers at 30
// and 50 km) fspl and itm disagreed on 282; e.g. at (-22.95, -43.05), 30
// km, fspl evaluated 18 and skipped 129 while itm and p1812 evaluated
// their 200 and skipped none; now all three skip the same 142 (S23W043).
//
// The check is cheap where the terrain is whole: a GapFinder (terrain
// packs' Gaps) lists the tiles of the search disc's box
// (appliance.DiscBox) that are not held soundly; with none, every path
// is covered; else a path whose box (appliance.ArcBox) meets no gap is
// covered, and the rest are sampled in index order up to the first
// failing sample (PathSampler.SamplePath; Profile for other terrain). On
// 200 Rio rows of the national set (BenchmarkAnalyzeLinkRioBatch, whose
// 30 km discs all reach the tiles the sample pack lacks) the check costs
// about 3 % of the CPU.
//
// # Ranking
//
// Each tower has a standing for a link of its distance (TowerStanding):
// real (not synthetic, position uncertainty at most
// PositionUncertaintyFraction, 10 %, of the link length), uncertain (real,
// uncertainty above it: the position_uncertainty warning) or synthetic
// (the synthetic_tower warning). The best tower is, among the towers
// whose link closes (margin ≥ 0 dB), the one of the best standing, then
// the highest margin, the shortest distance and the smallest id; when no
// link closes it is the one of the highest margin. The alternatives are
// the other results of the highest margins (margin, distance, id), up to
// MaxAlternatives; they keep their warnings. So a real tower with a
// well-known position whose link closes is the best tower even when a
// synthetic tower, or one whose position is uncertain by more than the
// link is long, has a higher margin, and that one stays an alternative.
// The order is total, so the answer is deterministic; the pruning above
// keeps it exact (TestIssue20_RankingPruningIsExact).
//
// BestTowerCaveats (best_tower_caveats in the API) are the warnings that
// qualify the choice of the best tower, never nil, in this order:
//
//	code                    raised when
//	synthetic_tower         the best tower is synthetic: no real tower
//	                        closes the link (or none closes at all)
//	position_uncertainty    the best tower's position is uncertain: no
//	                        real tower with a well-known position closes
//	                        the link (or none closes at all)
//	stronger_tower_demoted  a result with a higher margin, synthetic or of
//	                        uncertain position, ranks below the best tower
//	                        (the message names it and both margins)
//
// It is empty when the best tower is a real tower with a well-known
// position and the highest margin, or when there is none. The messages
// say whether every tower in range was compared ("within 30 km") or only
// those an engine without a free-space bound evaluated ("among the 200
// evaluated of the 1352 within 30 km"). The analysis
// Warnings carry stronger_tower_demoted too (the other two are the
// best tower's own warnings), so batch rows, reports and explanations,
// which take the planner's answer, carry the same rule and its caveats.
//
// # Path check
//
// CheckPath (always for a pair, on request for /analyze_link candidates)
// makes a result checkable by hand. On the engine's terrain profile (index 0
// the tower, samples every ≤ 90 m) with the effective earth k = 4/3:
//
//	effective ground e_i = g_i + d1·d2 / (2·k·a)     a = 6 371 km
//	line of sight    L_i = T + (R − T)·d1/d          T, R: antenna tips AMSL
//	F1 radius        F_i = √(λ·d1·d2 / d)
//	clearance        c_i = L_i − e_i, as a fraction c_i / F_i
//
// which is the geometry of fspl's los_clear, fresnel_ok and knife edge. The
// dominant obstacle is the intermediate sample with the smallest c_i / F_i
// (ties: the one nearest the tower). The minimum receiver height for a rule
// c_i ≥ q·F_i (q = 0: line of sight; q = 0.6: 60 % of F1) with the tower
// as given is exact on the samples, because L_i is linear in R:
//
//	R ≥ (e_i + q·F_i − T·(1 − d1/d)) / (d1/d)   for every intermediate i
//
// and symmetrically for the tower height with the receiver as given. The
// answer is metres above local ground, at least 0, rounded up to the next
// centimetre without tolerance and re-checked with the clearance formula
// above (a centimetre is added while it misses), so the stated height
// always meets the rule exactly; above
// MaxAntennaHeightM (500 m) it is reported as not achievable below 500 m.
//
// ClearanceRule applies the same geometry at any effective earth radius
// factor k and any fraction q of F1 (the point-to-point links of
// appliance/ptp check k = 4/3 with q = 0, 0.6, 1 and k = 2/3 with q = 0,
// 0.3, the criteria of ITU-R P.530-17 §2.2.2): the smallest clearance
// ratio and the minimum height of either end, by the rule above.
//
// Decimation: a profile of more than MaxProfilePoints (512) samples keeps
// both ends and, of 510 contiguous near-equal buckets of the intermediate
// samples (bucket j: indices 1+⌊j·m/510⌋ … ⌊(j+1)·m/510⌋, m = n − 2), the
// sample with the smallest clearance / F1 (ties: the first). The dominant
// obstacle, and the worst point of every stretch, are always kept;
// SamplesTotal says how many samples the computation used. A 200 km path
// at 90 m (2 224 samples) becomes 512 points.
//
// # Height search
//
// SuggestHeight (POST /ai/suggest-height: the engine computes, an AI only
// explains) finds the smallest height of one end (receiver by default, or
// the tower) on the grid StepM, 2·StepM, … MaxHeightM (defaults 1 m and
// 100 m; step 0.1–10 m; at most 2 000 heights) at which the path clears
// 60 % of F1 at every intermediate sample (hence line of sight) and the
// engine's link margin reaches the target. Clearance only grows with the
// moving end's height, so the search starts at the grid height just below
// the exact geometric 60 % F1 bound above and evaluates every height from
// there with the engine, in order, until one qualifies: the answer equals
// a brute force over every grid height (height_test.go, real Rio
// profiles). When no grid height up to the cap qualifies the answer says
// so and names the rule the highest searched height still misses
// (line_of_sight, fresnel60 or margin); when the geometric bound is above
// the cap no height is evaluated.
//
// # Warnings
//
// Each candidate carries Warnings (never nil), in this order, then the
// engine's own (engines package doc: engine_fallback, outside_validity,
// itm_warning, itm_troposcatter, profile_resampled, parameter_ignored). The
// first three are the path's, from appliance.PathWarnings, which POST
// /coverage/engines/predict and /compare share (there the last two only for
// terrain-derived profiles):
//
//	code                  raised when
//	fspl_obstructed       the engine that answered is fspl (asked for, or
//	                      the fallback) and the minimum clearance is below
//	                      60 % of F1 (or the terrain blocks the ray): fspl
//	                      models it with one knife edge; P.1812 and ITM are
//	                      the design engines
//	no_land_cover         the profile has no land-cover layer
//	                      (PathProfile.ClutterClass nil), or every sample,
//	                      or both end samples, are class 0 (unknown):
//	                      clutter losses near the antennas are not modelled
//	void_filled_terrain   the path crosses samples interpolated across DEM
//	                      voids; the message gives their count and the
//	                      largest interpolated span, metres
//	eirp_assumed          the tower has no ERP: the request's assumed EIRP
//	                      was used
//	synthetic_tower       the tower is synthetic sample data
//	position_uncertainty  the tower's position uncertainty exceeds
//	                      PositionUncertaintyFraction (10 %) of the link
//	                      length
//	stronger_tower_demoted (analysis only) a stronger result ranks below
//	                      the best tower ("Ranking")
//	engine_resolved       (API) the requested engine resolved to another
//	                      one, e.g. auto below Pro
//	deprecated_field      (API) the request named a member by its
//	                      deprecated name (receiver.height for height_m);
//	                      it was read as the new name, which the message
//	                      gives
//
// An analysis merges the warnings of its returned candidates: one per code
// (per code and message for engine warnings), with the message of the
// best-ranked candidate that raised it and how many results raised it, at
// most MaxAnalysisWarnings; then stronger_tower_demoted when the
// best tower's caveats have it ("Ranking").
//
// # Caveats
//
// The 60 % F1 clearance at k = 4/3 is a rule of thumb for the median
// atmosphere, not a design criterion. ITU-R P.530 §2.2.2 sizes antennas
// for both conditions and takes the higher: about 100 % F1 at the median k
// (≈ 4/3) and, at the minimum k exceeded 99.9 % of the worst month (k_e,
// often near 2/3 in temperate climates, lower on long paths), 0 % F1
// (grazing) for a single isolated obstruction or 30 % F1 for one extended
// along the path (60 % F1 in tropical climates beyond about 30 km). The
// minimum heights here are for k = 4/3 only: on a link that must hold
// through sub-refractive conditions, check them against that rule (the
// minimum-k heights are not reported yet).
//
// A tower record's tilt is taken as the beam's mechanical downtilt: MOSAICO
// does not say whether its AnguloElevacao is mechanical, electrical or
// both; a purely electrical tilt would keep the back lobe down where the
// mechanical reading lifts it. The receiver's antenna is taken as aligned
// (its gain, no pattern). The best tower and the alternatives are ordered
// as "Ranking" says, by total orders, so they are deterministic.
package planner
