// Package ptp plans point-to-point links between two sites the engineer
// defines (issue 25 scope 3): both ends with their position, antenna
// height, radio and antenna (from the tenant's equipment catalogue or
// given inline), pointing and cable losses; the answer is the path check,
// the budget of every modulation of the radios in both directions, its
// ITU-R availability (rain and multipath, P.530-17), the fastest mode that
// meets an availability target, the fade margins the standard targets
// need, and every caveat as a warning. It knows nothing of HTTP: web/api
// decodes POST /links/ptp, calls Plan and encodes; the PDF report
// (appliance/report WritePTP) and the CLI (linkplan ptp) show the same
// answer.
//
// # Basics
//
//	svc := ptp.New(terrain, registry.WithFallback, equipmentService, maps) // maps: itur.LoadMaps()
//	link, err := svc.Plan(ctx, appliance.PTPRequest{A: a, B: b, FreqMHz: 18700, ChannelMHz: 28})
//	for _, m := range link.Modes { ... m.AB.RxLevelDBm, m.FadeMarginDB, m.Availability.AvailabilityPct }
//
// Plan is a pure computation: it stores nothing and has no state, so the
// package has no state table. Its outcomes:
//
//	input                                                 outcome
//	a field out of range, radio or antenna missing/twice   ErrInvalid (422) naming every bad field (Validate)
//	a catalogue id unknown to the tenant (another          ErrInvalid naming a.radio_id / a.antenna_id / b.…,
//	  tenant's id included: Catalogue answers NotFound)    the same answer as for an id that does not exist
//	a radio that does not tune the frequency, lacks the    ErrInvalid naming frequency_mhz / channel_mhz
//	  channel width
//	b's radio lacks one of a's modes (by name)             ErrInvalid naming b.radio_id
//	terrain missing under the path                          appliance.TileMissingError (ErrTerrainMissing)
//	the catalogue's store fails                             its error, wrapped (5xx)
//	otherwise                                               the PTPLink
//
// # Request
//
// Each end: lat, lon (WGS84 degrees), height_m (antenna above ground,
// 0 < h ≤ 500 m), exactly one of radio_id and radio, exactly one of
// antenna_id and antenna, azimuth_deg (0 ≤ a < 360) and tilt_deg
// (mechanical downtilt, −90..90, positive down), both absent for
// "aligned", cable_loss_db (0..50 dB), name and anatel_station (the end's
// Anatel station number, for the report; at most 20 characters). The
// link: frequency_mhz (30..100 000), channel_mhz (one of both radios'
// widths), polarization (vertical by default, horizontal, or dual:
// dimensioned on the horizontal channel, which rain attenuates more),
// engine (fspl by default, p1812, itm or auto; the API applies the tier
// rules of every route before), availability_target_pct (50 ≤ p < 100,
// default 99.99 %), r001_mmh (a local R0.01 in mm/h in place of the
// P.837-7 estimate). The ends are 10 m to 200 km apart.
//
// # Geometry and antennas
//
// The terrain profile runs from a to b every StepM (90 m) or less; the
// engine predicts the median path loss a→b (50 % of time and locations),
// used both ways (the path is reciprocal). Each end's antenna tip is
// ground + height_m (AMSL). Its elevation toward the other end is
// appliance.ElevationDownDeg (k = 4/3 earth). An antenna "aligned" (no
// azimuth_deg, no tilt_deg) points its horizontal peak at the bearing of
// the other end (azimuth = bearing − the pattern's horizontal peak angle)
// and its vertical peak at the other end's antenna (mechanical downtilt =
// elevation − the pattern's electrical tilt); its loss toward the other
// end is then the pattern's peak attenuation, 0 dB for the built-in
// dishes. Given pointing is used as given: the antenna's Radiator
// (appliance, the F.1336-style composite of the two cuts) gives the loss
// toward the other end, and above 3 dB the warning antenna_misaligned
// says how far off it points.
//
// # Modes
//
// The modes are those of a's radio at channel_mhz, most robust first;
// b's radio must have a mode of the same name (case and surrounding spaces
// ignored) at that width: the link runs one mode both ways. Direction a→b
// takes a's transmit power and b's sensitivity, b→a the reverse; the
// throughput is the smaller of the two radios'. Both radios must tune
// frequency_mhz.
//
// # Budget
//
// For each mode and direction (T the transmitting end, R the receiving):
//
//	EIRP (dBm)        = P_tx(T) − cable(T) + G(T) − pattern(T → R)
//	Rx level (dBm)    = EIRP − path loss (engine) − gas − pattern(R → T) + G(R) − cable(R)
//	fade margin (dB)  = Rx level − sensitivity(R)
//
// gas is the gaseous absorption of ITU-R P.676 (engines/itur: the Annex 2
// closed forms, for the P.835/P.1510 air at the path), a steady loss,
// deducted whenever the availability is computed (it matters above about
// 10 GHz: 0.6 dB over 8 km at 18 GHz, 1 dB over 3 km at 73 GHz; a few
// hundredths of a dB at 5 GHz). None of the engines (fspl, P.1812, ITM)
// includes it.
//
// # Availability
//
// engines/itur prepares the path once (the maps read at the path's
// great-circle mid-point, P.530-17 §2.3 multipath with the antenna tips'
// heights, §2.4 rain with the polarisation's P.838-3 coefficients); each
// mode's availability is itur's Outage at the weaker direction's fade
// margin: rain (average year) + multipath (worst month converted to the
// year, §2.3.4) as unavailability, outage minutes in a 365.25-day year,
// and the Bound (exact; at_least when rain falls below P.530's 0.001 %;
// at_most above 1 %). A mode meets the target when its availability is at
// least the target and is not an upper bound; Recommended is the fastest
// mode that does. Required gives, for 99.9, 99.99 and 99.999 % (and the
// request's target), the fade margin rain plus multipath need
// (itur RequiredFadeMargin), with its bound and the rain-only and
// multipath-only margins. Availability is not computed below 1 GHz, for
// a mid-point outside the embedded maps (Brazil) or without maps; the
// warning availability_not_computed says so, and Recommended is then the
// fastest mode whose clear-air fade margin is positive.
//
// # Clearance
//
// Path is the planner's k = 4/3 path check (profile, dominant obstacle,
// minimum heights for line of sight and 60 % F1; a is its transmitter).
// Clearance adds the rules an engineer checks, each with the smallest
// clearance / F1 at its k and the minimum height at each end, the other
// as given (planner.ClearanceRule):
//
//	k     F1 fraction  basis
//	4/3   0            line of sight, median atmosphere
//	4/3   0.6          the rule of thumb of the link results
//	4/3   1.0          P.530-17 §2.2.2, median k
//	2/3   0            P.530-17 §2.2.2, minimum k, single isolated obstruction
//	2/3   0.3          P.530-17 §2.2.2, minimum k, obstruction extended along the path
//
// P.530 takes the minimum k exceeded 99.9 % of the worst month from its
// Figure 3 (it depends on the path length and the climate); 2/3 is the
// usual conservative planning figure, used here for every path.
//
// # Warnings
//
// In this order, never nil: the path's (appliance.PathWarnings:
// fspl_obstructed, no_land_cover, void_filled_terrain), the engine's own
// (engine_fallback, outside_validity, …), the antennas' import warnings
// (prefixed with the end), then:
//
//	code                               raised when
//	antenna_band_mismatch              the frequency is outside an antenna's stated band (or, without one,
//	                                   more than 15 % from its pattern's frequency)
//	antenna_misaligned                 an end's antenna loses more than 3 dB toward the other end
//	clearance_rule_not_met             a P.530 §2.2.2 rule of the table above is missed (the heights it needs)
//	availability_on_obstructed_path    under 60 % of F1 clear at k = 4/3: P.530's fading methods assume line of sight
//	availability_not_computed          no availability (why), see above
//	rain_r001_annex1_method            R0.01 from the P.837-7 Annex 1 method (the R0.01 map is not embedded)
//	availability_outside_method_range  the path is outside the range P.530's rain (≤ 100 GHz, ≤ 60 km) or
//	                                   multipath (7.5–185 km, 0.45–37 GHz, …) methods were tested or fitted on
//	no_fade_margin                     modes that do not close in clear air (their names)
//	availability_is_a_bound            modes whose availability is a bound (which way, which modes)
//	no_mode_meets_target               no mode meets the target (the margin it needs)
//
// Each mode's Availability carries its own warnings at its margin
// (no_fade_margin, availability_is_a_bound). The API adds engine_resolved
// when the tier rules changed the engine.
//
// # Imports
//
// ptp imports appliance, appliance/planner (the path check) and
// engines/itur. itur is a leaf of pure formulas over maps embedded in the
// binary (no I/O after LoadMaps, no engine registry), like engines/radio,
// which services may import; the maps are loaded once by the composition
// root and handed in.
//
// # Performance
//
// Issue 25's goal is a point-to-point answer with its availability in
// 20 ms or less. BenchmarkPlan (ptp_test.go) plans a 15 km Rio link on the
// real embedded SRTM3 sample with availability for its 8 modes and 3
// targets: 1.4-2.7 ms an answer (fspl; 1.5 ms with P.1812) on the shared
// 2-core build host. BenchmarkPTPHTTP (web/api) is the whole route over
// HTTP, decoding and encoding included, on the 6.1 km 18.7 GHz link:
// 0.68 ms an answer.
package ptp
