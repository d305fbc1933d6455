// Package fspl is linkplan's default engine (SPEC §2.5, engine id "fspl"):
// free-space loss, first-Fresnel-zone clearance and a single knife-edge on
// the dominant obstacle, over an effective Earth of k = 4/3.
//
// # Basics
//
// For a terrain profile from transmitter to receiver with antenna heights
// above ground, the engine
//
//  1. draws the straight ray between the antenna tips (ground + height,
//     metres AMSL) and lifts every intermediate terrain sample by the Earth
//     bulge d1·d2/(2·k·a), a = 6 371 km, k = 4/3;
//  2. at each sample computes the clearance (ray − lifted terrain, metres),
//     the first Fresnel radius F1 (metres) and the ratio clearance/F1;
//  3. takes the dominant obstacle as the sample with the largest
//     Fresnel-Kirchhoff parameter ν = −clearance·√(2/λ·(1/d1 + 1/d2));
//  4. path loss (dB) = free space over the slant distance (20·log10(4πd/λ),
//     c = 299 792 458 m/s) + J(ν) of ITU-R P.526 eq. (31), capped at 40 dB.
//
// LOSClear is true when every clearance is positive; FresnelOK when the
// smallest clearance ratio is at least 0.6 (60 % of F1 free).
//
// # Caveats
//
// One knife edge underestimates the loss of paths with several obstacles
// and ignores clutter and ground reflection; it is a screening preview, the
// weakest physical engine (SPEC §1.9). P.526 eq. (31) is zero for ν ≤ −0.78,
// so the engine never reports a diffraction gain; free space is therefore a
// lower bound of its loss, which the planner uses to prune candidates.
// The loss depends on the interior samples only through the largest ν,
// so the loss of any subset of them (both ends kept) is a lower bound
// too: PredictLossDB gives the loss alone, and SampleLossBound, SampleNu
// and SampleLossDB give it sample by sample, bit for bit Predict's
// PathLossDB, for the planner's sparse bounds.
package fspl
