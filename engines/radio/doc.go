// Package radio holds the closed-form propagation formulas that the engines and
// the planner share: free-space loss (ITU-R P.525), the Fresnel integrals, the
// single knife-edge diffraction loss J(ν) (ITU-R P.526), the first Fresnel zone
// radius and the effective-Earth (k-factor) geometry.
//
// # Basics
//
// Every function is pure: it reads only its arguments, allocates nothing and
// returns bit-identical results for identical inputs. Units are in the names:
//
//	freqMHz        frequency, MHz
//	distKm         distance, km
//	d1M, d2M, hM   distances and heights, metres
//	k              effective Earth radius factor, dimensionless (4/3 standard)
//	...DB          loss, dB (positive = loss)
//	nu             Fresnel–Kirchhoff diffraction parameter ν, dimensionless
//
// The wavelength is λ = c/f with c = SpeedOfLightMS = 299 792 458 m/s, so
// λ = 299.792458/freqMHz metres. The Earth radius is EarthRadiusM = 6 371 km,
// the value the P.526/P.1812 geometry uses (appliance uses the IUGG mean
// 6 371 008.8 m for geodesy; the 8.8 m difference changes a bulge by 1.4e-6
// relative).
//
// FreeSpaceLossDB uses the rounded constant 32.4 of P.525; FreeSpaceLossExactDB
// evaluates 20·log10(4πd/λ), which corresponds to 32.4478. Other
// Recommendations round differently (ITM and P.1411 use 32.45, P.1812 uses
// c = 2.998e8): those engines carry their own constant.
//
// # Caveats
//
// The functions do not validate: a NaN, zero or negative argument yields NaN or
// ±Inf as the formula does (for example FreeSpaceLossDB at distKm = 0 is -Inf).
// Callers validate user input before calling.
//
// KnifeEdgeLossApproxDB is P.526 eq. (31), which returns 0 for ν ≤ −0.78 while
// the exact J(ν) (KnifeEdgeLossDB) oscillates around 0 there (−1.37 dB at
// ν = −1.2: a small gain), so the two differ by up to about 1.4 dB below
// ν = −0.7; above it they differ by at most about 0.12 dB.
//
// KnifeEdgeNu takes h as the height of the obstacle above the straight ray
// (positive when the obstacle blocks it), with the Earth bulge already added
// by the caller (see EarthBulgeM).
package radio
