// Package itm is the Longley-Rice Irregular Terrain Model (ITM) with the
// semantics of NTIA ITM v1.4 (github.com/NTIA/itm, which NTIA states is
// functionally identical to the FORTRAN ITM 1.2.2). It is a pure Go
// implementation written from the published algorithm; it has no state.
//
// # Basics
//
// Point-to-point mode takes a terrain profile; area mode takes a path length,
// the terrain irregularity Δh and the siting criteria:
//
//	res, err := itm.P2PTLS(itm.P2PInput{PFL: pfl, HTxM: 30, HRxM: 10,
//		ClimateCode: itm.ClimateContinentalSubtropical, N0: 330, FreqMHz: 700,
//		Pol: itm.PolVertical, Epsilon: 15, SigmaSm: 0.005, MdVar: itm.MdVarAccidental},
//		90, 50, 50) // time, location, situation, %
//	loss := res.LossDB // basic transmission loss, dB (free space included)
//
// Entry points, all returning a Result (loss in dB, Warning flags and the
// intermediate values) or an error:
//
//   - P2PTLS(in, time %, location %, situation %) and P2PCR(in, confidence %,
//     reliability %): point-to-point mode (NTIA ITM_P2P_TLS_Ex / _CR_Ex).
//   - AreaTLS and AreaCR: area mode (ITM_AREA_TLS_Ex / _CR_Ex).
//   - ParsePFL reads the PFL text form; SystemElevationM and
//     SurfaceRefractivity expose the N_s = N_0·exp(−h_sys/9460 m) rule.
//
// Profiles follow the PFL convention: PFL[0] = np, the number of intervals
// (points − 1), PFL[1] = xi, the spacing in metres, then np+1 elevations in
// metres above sea level from TX to RX; the path length is np·xi metres.
// Percentages are percentages (0 < p < 100), not the fractions of the old
// FORTRAN interface. Polarisation is 0 horizontal, 1 vertical. Climates are
// 1..7 (Brazil mostly 1 equatorial, 2 continental subtropical, 3 maritime
// subtropical). MdVar is 0 single message, 1 accidental, 2 mobile,
// 3 broadcast, plus 10 to drop location variability and/or 20 to drop
// direct situation variability. The CR variants are the TLS ones with
// time = reliability, location = 50 % and situation = confidence.
//
// Units: heights, distances, Δh and the profile in metres (DistKm and
// Intermediate.DistKm in km); frequency in MHz; losses and A_ref in dB;
// horizon angles in radians (NTIA's tools print milliradians); N_0 and N_s
// in N-units; conductivity in S/m; ε dimensionless.
//
// Errors: bad inputs return a *appliance.ValidationError (errors.Is
// appliance.ErrInvalid) naming every bad field: "h_tx_m", "h_rx_m",
// "climate", "n_0", "f_mhz", "pol", "epsilon", "sigma_s_m", "mdvar", "pfl",
// "time_pct", "location_pct", "situation_pct", "confidence_pct",
// "reliability_pct", and in area mode "d_km", "delta_h_m", "tx_siting",
// "rx_siting". The accepted ranges are NTIA's: heights 0.5–3000 m,
// frequency 20–20000 MHz, N_0 250–400, ε ≥ 1, σ > 0, profiles of at least
// 3 points with positive spacing. Failures found during the computation
// (N_s outside 150–400, effective earth radius or ground impedance out of
// range) return a *ModelError carrying the NTIA error code, which matches
// appliance.ErrOutsideEnvelope; so does a result that would be NaN or ±Inf
// (CodeNonFinite, only for absurd terrain such as kilometres of relief over
// a few hundred metres of path).
//
// Warnings: Result.Warnings holds the NTIA v1.4 warning bits (Warning
// constants, same values as Warnings.h); Warning.Strings turns them into
// sentences; Result.ReturnCode gives NTIA's 0 (success) or 1 (success with
// warnings).
//
// # Caveats
//
//   - Intermediate.Mode is NTIA's mode: line of sight only means that the
//     path is shorter than the smooth-earth line-of-sight distance d_sML; it
//     is not the terrain-obstruction status of the path.
//   - The package computes exp, log, log10 and cube roots with its own
//     table-driven functions (fastmath.go: under one ulp, about half the
//     cost of the math package's), and those of the C library differ from
//     them in the last bits, so results agree with the compiled NTIA code
//     to about 1e-12 dB, not bit for bit. Outputs are bit-identical for identical
//     inputs on one platform, whatever GOMAXPROCS (no goroutines, no state);
//     platforms on which the Go compiler fuses multiply-adds (arm64,
//     ppc64le, s390x) may differ in the last bits.
//   - Point-to-point mode is reciprocal in exact arithmetic: swapping the
//     terminals (reversed profile, swapped heights) gives the same loss for
//     TLS and CR and every mdvar, and this package reproduces that to
//     1e-9 dB. Like the reference, though, QuickPfl truncates distances to
//     profile indices and sample counts (⌊d_start/xi⌋, ⌈0.9·d_hzn/xi⌉,
//     ⌊0.1·(range+8)⌋ for Δh). Horizon distances are whole multiples of xi,
//     so these are often whole numbers up to rounding, and the rounding
//     differs with the direction: the two directions then use one more or
//     one fewer profile point. Over random rough test paths about 7 % of
//     paths differ this way, typically by tenths of a dB (1.7 dB seen at
//     most). Exact horizon-angle ties are also
//     broken towards one side only. This package keeps the reference
//     behaviour rather than "fixing" it.
//   - A profile is used as given: ITM has no clutter, buildings or
//     vegetation, and the profile is expected to be sampled evenly along the
//     great circle.
//   - Cost: one prediction on a 100 km profile of 1112 points takes about
//     12 µs and does not allocate; the time is linear in the number of
//     points (horizon search, mean elevation and up to two least-squares
//     fits) plus a constant part (Δh on at most 245 resampled points, the
//     Longley-Rice and variability formulas). A Sweeper computes every
//     prefix of one profile (a coverage radial) for about 2.4 µs each on
//     the 50 km Rio map: the linear parts become constant (prefix sums,
//     bounded horizon search), what remains is about 40 % Δh, 20 %
//     Longley-Rice, 15 % horizons; it equals P2PTLS to rounding (the
//     horizon distances are the reference's step-by-step sums, rebuilt in
//     time per binade by addRepeated/subtractRepeated).
//   - N_s is derived from N_0 and the mean elevation of the middle 80 % of
//     the profile, as v1.4 does. To feed a surface refractivity N_s
//     directly (older tools, e.g. the QKPFL deck), pass
//     N_0 = N_s·exp(SystemElevationM(pfl)/9460).
package itm
