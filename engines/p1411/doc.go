// Package p1411 implements the site-general short-path models of
// Recommendation ITU-R P.1411-11 (2021), Annex 1:
//
//   - §4.1.1 BelowRooftop: both stations below rooftop, within street
//     canyons (eq. 1, Table 4), 0.8–82 GHz, 5–715 m by environment;
//   - §4.2.1 AboveRooftop: one station above rooftop, the other below
//     (eq. 1, Table 8), 2.2–73 GHz, 55–1200 m by environment;
//   - §4.3.1 LowHeight: both terminals near street level (about 1.9–3 m),
//     with the percentage of locations (eqs. 58–65), 300–3000 MHz, up to
//     3000 m.
//
// # Basics
//
// Every function returns basic transmission loss in dB between isotropic
// antennas: the median for BelowRooftop and AboveRooftop, the value not
// exceeded at p % of locations for LowHeight. Inputs are a frequency in MHz
// (the Recommendation's §4.1.1/§4.2.1 formulas take GHz; the conversion is
// internal) and the 3-D direct distance between the stations in metres.
// Percentages are in (0, 100). Each environment reports its fitted domain
// (Range, MHz and metres) and, for §4.1.1/§4.2.1, the standard deviation σ
// in dB of its location variation (SigmaDB), for callers that want a
// percentile or a Monte-Carlo draw around the median.
//
// Outside the fitted domain the functions still return the equations' value,
// as the reference implementations do, and set Warning flags (WarnFrequency,
// WarnDistance, WarnFreeSpaceFloor, WarnNegativeLoss). NaN, infinite, zero or
// negative inputs, percentages outside (0, 100) and unknown environments are
// errors wrapping appliance.ErrInvalid; errors.As gives the
// *appliance.ValidationError with the field names freq_mhz, dist_m,
// location_pct, transition_width_m and environment.
//
// The functions are pure and allocation-free on success: identical inputs
// give bit-identical results.
//
// # Validation
//
// engines/testdata/validation/p1411/cases.csv (361 cases from the OFCOM
// javaP1411 tests, themselves checked against the OFCOM MATLAB reference of
// P.1411-11) passes with max |ΔL| = 5e-7 dB, the rounding of the printed
// values, against the reference tolerance of 0.01 dB. The §4.3.1 values were
// computed with the exact inverse normal N⁻¹ of eq. (62), as here: the
// P.1057 rational approximation in the Java port would put the NLoS cases up
// to 3.1e-3 dB off (at p = 99 %), still inside 0.01 dB but far above the
// printing.
//
// # Caveats
//
// Edition. The coefficients are those of P.1411-11. P.1411-12 (2023) could
// not be read here; the one independent P.1411-12 implementation at hand
// (CRC-Covlib, crc_covlib/helper/itur_p1411.py, "Implementation of ITU-R
// P.1411-12") uses exactly the same Table 4 and Table 8 coefficients and
// frequency/distance ranges (including the -11 extension of §4.1.1 to
// 82 GHz and the 260 m minimum of §4.2.1 NLoS) and the same §4.3.1 equations
// and constants (σ = 7 dB, L_urban = 0 / 6.8 / 2.3 dB, d_LoS of eq. 64,
// w = 20 m typical). No difference between -11 and -12 was found for these
// three sections; check the published -12 tables before claiming -12.
//
// Free-space floor. For distances below an environment's minimum the fitted
// line can fall below free-space loss (even below 0 dB). As in the OFCOM
// Java/SEAMCAT reference (SEAMCAT manual A.17.14.3.1, not the Recommendation
// text), BelowRooftop and AboveRooftop then return the free-space loss
// 20·log10(4πd/λ), c = 299 792 458 m/s, and set WarnFreeSpaceFloor. The
// MATLAB reference has no floor; inside the fitted ranges both agree.
//
// Low height. §4.3.1 states no minimum distance; its LoS branch is free space
// (constant 32.45) plus a location correction that is about −12 dB at
// p = 0.1 %, so very short distances give negative losses (the validation
// table holds −7.38 dB at d = 0.1 m). They are returned as computed with
// WarnNegativeLoss. The 3000 m upper bound is inclusive. The Monte-Carlo
// variation of §4.1.1/§4.2.1 (with its capping for NLoS) is not implemented:
// results are deterministic medians.
package p1411
