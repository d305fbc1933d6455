// Package engines is the registry of the appliance's propagation engines:
// it adapts the concrete engine packages (engines/fspl, engines/p1812,
// engines/itm, engines/p1411) to appliance.Engine, lists them for GET
// /coverage/engines, chooses one for engine "auto", answers with fspl when
// an engine refuses an input (SPEC §2.5) and runs the explicit cases of
// `linkplan predict` and POST /coverage/engines/predict (CASE_FORMAT.md).
//
// # Basics
//
//	reg, err := engines.New(engines.Config{RefractivityDir: dir}) // dir may be ""
//	eng, err := reg.Get(appliance.EngineP1812)                    // appliance.Engine
//	pred, fellBack, reason, err := reg.PredictWithFallback(ctx, id, in)
//	rows := reg.Compare(ctx, in)                                  // every engine, fixed order
//	c, err := engines.ParseCase(r); res, err := reg.PredictCase(ctx, c, terrain)
//
// Every engine takes an appliance.LinkInput whose Profile runs from TX to RX
// and returns the basic transmission loss in dB (PathLossDB) with LOSClear,
// FresnelOK and MinClearanceRatio computed the way fspl computes them (bare
// profile, k = 4/3, 60 % of the first Fresnel zone), so that every engine's
// result carries them, and Intermediate values with their unit in the key
// (…_db, …_km, …_m, …_mrad, …_pct, …_n_units; flags are 0/1). Only fspl
// declares LossAtLeastFreeSpace() true.
//
// Engines, their validity ranges (outside them the adapter returns an
// *EnvelopeError matching appliance.ErrOutsideEnvelope) and defaults:
//
//   - fspl: 30–100000 MHz, any distance; see engines/fspl.
//   - p1812 (ITU-R P.1812-8): 30–6000 MHz, 0.25–3000 km, time 1–50 %,
//     antenna heights (0, 3000] m. Distances are passed in km. Zones: a
//     sample with Profile.Sea is sea (1); land no higher than 100 m within
//     50 km of a sea sample along the path is coastal (3); everything else
//     inland (4); no Sea flags means all inland. dct/dcr: the distance along
//     the path to the first sea sample, 500 km when there is none. Clutter R
//     is 0 (LinkInput has no clutter; a Case may give it). Terminal
//     positions are Tx and Rx. ΔN and N0: the ITU-R maps at the path centre
//     when Config.RefractivityDir is set, else the Brazil defaults
//     p1812.DefaultDeltaN (50 N-units/km) and p1812.DefaultN0 (350
//     N-units). Time and location default to 50 %; for a location
//     percentage other than 50 σL is that of §4.8 for a 100 m square.
//     Polarisation vertical (the usual one for the mobile bands in Brazil;
//     it only enters the spherical-Earth term). Diffraction delta-Bullington
//     (§4.3) unless P1812Params.Diffraction is "deygout". A 2-point profile
//     gets its mid-point inserted.
//   - itm (NTIA ITM v1.4, point-to-point): 20–20000 MHz, antenna heights
//     0.5–3000 m; ITM warnings (short or long paths, steep horizons…) are
//     passed on as LinkPrediction.Warnings, one itm_warning per NTIA flag
//     (the message names the NTIA bit value), and NTIA's hard errors (codes
//     1013, 1016, 1021, 1022) make the fspl fallback answer with an
//     engine_fallback warning naming the code. The profile keeps its
//     number of intervals and is re-interpolated to equal spacing when it is
//     not equally spaced (the terrain packs shorten the last step). Climate:
//     ITMClimate (1 equatorial north of 15° S; south of it 3 maritime
//     subtropical when the path crosses sea or its centre is within 100 km
//     of the Atlantic coast, else 2 continental subtropical). N0: the N0 map
//     at the path centre clamped to 250–400 when maps are configured, else
//     the climate's typical value (ITMClimateN0: 360, 320 or 370 for
//     Brazil's three climates; ITM's usual 301 is the continental temperate
//     value). ε = 15, σ = 0.005 S/m (average ground), mdvar 11 (accidental
//     variability, location variability eliminated), situation 50 %, time
//     and location as given (default 50 %), vertical polarisation.
//     Intermediate a_ref_db is A_ref, the median reference attenuation over
//     free space, in every mode. DiffractionDB is its diffraction part,
//     never below 0: A_ref itself in line-of-sight mode (NTIA's fit
//     through two-ray values and the extended diffraction line) and in
//     diffraction mode; in troposcatter mode (mode 3, the path longer than
//     the crossover d_x) NTIA ties the scatter line to the diffraction line
//     at d_x, so A_ref = A_diff(d_x) + m_s·(d − d_x), and DiffractionDB is
//     A_diff(d_x). Modes 2 and 3 also report d_x_km and a_diff_at_d_x_db
//     (d_x is 10 000 km when no scatter value is usable). Mode 3 raises
//     itm_troposcatter, whose message gives d, d_x and the split of A_ref
//     and, when NTIA flags a horizon angle above 200 mrad (0x080, 0x100),
//     says that the figure is outside ITM's validity and not a design
//     value. Issue 7, finding 11: the 87 km path at 700 MHz with a 5 m
//     receiver (testdata/cases/itm_rj_finding11_troposcatter_700.json)
//     answers 258.382 dB, A_ref 133.049 dB (130.0 dB diffraction at
//     d_x = 51.5 km, 3.0 dB scatter slope), mode 3, flags 0x680 (both
//     horizons near, transmitter horizon 268.5 mrad), NTIA's own figures.
//
// # Warning codes
//
// Engine warnings are appliance.Warning values with stable codes:
// engine_fallback (fspl answered for the requested engine; the message
// gives the reason), outside_validity (P.1411 inputs beyond the ranges of
// its site-general models), itm_warning (an NTIA ITM warning flag),
// itm_troposcatter (ITM answered in troposcatter mode), profile_resampled
// (ITM re-interpolated an unequally spaced profile) and parameter_ignored
// (time_pct for P.1411). The link-result codes are documented in
// appliance/planner. PredictCase and CompareCase (POST
// /coverage/engines/predict, /compare) put the path's warnings first, from
// appliance.PathWarnings as the planner does: fspl_obstructed when fspl
// answers (asked for or as the fallback) a path whose first Fresnel zone is
// less than 60 % clear, and for terrain-derived profiles no_land_cover and
// void_filled_terrain.
//   - p1411 (ITU-R P.1411-11 site-general): paths shorter than 250 m; the
//     frequency range is the environment's. The environment is
//     P1411Params.Environment, or by default: both antennas at most 3 m
//     above ground → §4.3.1 low-height urban (300–3000 MHz, with the
//     location percentage); else terrain line of sight (k = 4/3) → §4.2.1
//     above-rooftop LoS (2.2–73 GHz), or §4.1.1 below-rooftop LoS under
//     2.2 GHz (0.8–82 GHz); else §4.1.1 below-rooftop NLoS urban high-rise
//     (0.8–82 GHz; the above-rooftop NLoS row starts at 260 m). The median is
//     moved to the location percentage with the environment's σ. The
//     environment is reported as Intermediate "p1411_env_code"
//     (P1411EnvironmentName). P.1411 has no time variability.
//   - p1812-p1411-hybrid: the p1411 engine below 250 m, p1812 from 250 m
//     on, with no blending; Intermediate "hybrid_p1411_branch" says which.
//   - auto: runs the engine Choose picks and reports it as the result's
//     Engine.
//   - raytrace (listed, Status unavailable: the engine is engines/raytrace,
//     but it runs asynchronously through the local raytrace worker, which
//     is not in this build; Version is raytrace.Version) and raytrace_ml
//     (Status hidden: its artifact is synthetic-only). Get refuses both, so
//     the synchronous routes answer 422; PredictWithFallback (the case
//     CLI) answers with fspl. auto never chooses raytrace.
//
// The auto criteria (Registry.Choose), in order; d is the profile length,
// f the frequency, p the time percentage (default 50):
//
//	no usable profile                                         fspl
//	d < 250 m and a P.1411 environment covers f               p1812-p1411-hybrid
//	d < 250 m otherwise                                       fspl
//	30 ≤ f ≤ 6000 MHz, 1 ≤ p ≤ 50 %, heights in (0, 3000] m,
//	  d ≤ 3000 km                                             p1812
//	20 ≤ f ≤ 20000 MHz, heights in [0.5, 3000] m              itm
//	otherwise                                                 fspl
//
// Fallback (SPEC §2.5: the analysis endpoints never fail with 500):
// PredictWithFallback answers with fspl, and says why, when the engine
// refuses the input as outside its validity range, is not available, or
// returns a non-finite loss. Malformed input (ValidateLink: NaN, negative
// heights, a bad profile, percentages outside (0, 100)) and unknown engine
// ids remain errors matching appliance.ErrInvalid that name the field.
// WithFallback wraps this as an appliance.Engine for the planner.
//
// This is the only package that imports the concrete engines. The planner,
// the web layer and the other services see appliance.Engine, the
// EngineLookup function (Registry.Get or Registry.WithFallback) and the
// narrow interfaces they declare themselves, and only the composition root
// (appliance/cmd/linkplan) builds the Registry. So a new engine, a changed
// default or an engine's own API change touches this package and nothing
// above it, and no engine package can depend on another through a service.
//
// # Caveats
//
//   - SPEC §2.5 describes p1812 as "ITU-R P.1812 with multi-knife-edge
//     (Deygout)"; the Recommendation's own method (delta-Bullington) is the
//     default here, and Config.P1812.Diffraction = "deygout" follows the
//     SPEC wording.
//   - The hybrid jumps at 250 m: P.1411's fitted lines and P.1812 differ
//     there by several dB depending on the environment.
//   - The p1411 line-of-sight test uses the bare-earth profile: buildings
//     are not in the DEM, so nearly every short path is "LoS" and the auto
//     environment is the optimistic one; choose an NLoS environment
//     explicitly in dense urban areas.
//   - Coastal zones are judged along the path only (a coast beside the path
//     is not seen); without Sea flags every sample is inland. The ITM
//     climate rule is a coarse reading of the climate map (the semi-arid
//     north-east counts as equatorial); the coastline is a 22-vertex
//     polyline.
//   - LinkInput carries no clutter heights, zones or engine parameters; a
//     Case carries them (PredictCase, CompareCase).
//   - CompareRow.ElapsedMicros is wall time and varies between runs; every
//     other field is deterministic (bit-identical whatever GOMAXPROCS).
//     MinClearanceRatio is +Inf for a profile without intermediate point;
//     CaseResult reports it as null and drops non-finite Intermediate values.
package engines
