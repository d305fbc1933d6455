// Package p1812 implements Recommendation ITU-R P.1812-8 (09/2025), "A
// path-specific propagation prediction method for point-to-area terrestrial
// services in the frequency range 30 MHz to 6 000 MHz", for one terrain
// profile from the transmitter to the receiver.
//
// # Basics
//
// Predict takes an Input (frequency in GHz, time and location percentages
// in %, the profile as distances in km, terrain heights in metres above
// mean sea level, representative clutter heights in metres and
// radio-climatic zones, antenna heights above ground in metres,
// polarization, terminal coordinates in degrees east-positive, ΔN in
// N-units/km, N0 in N-units, distances to the coast in km) and returns a
// Result: the basic transmission loss Lb (Eq. 69, dB), the field strength
// Ep for 1 kW e.r.p. (Eq. 70, dB(µV/m)) and every intermediate quantity,
// each with its unit in the field name.
//
//	res, err := p1812.Predict(p1812.Input{
//		FreqGHz: 0.6, TimePct: 10, LocPct: 50,
//		DKm: d, HMasl: h, RM: r, Zone: z,
//		HtgM: 30, HrgM: 10, Pol: p1812.Vertical,
//		PhiT: -22.9, LamT: -43.2, PhiR: -22.5, LamR: -43.6,
//		DeltaN: dn, N0: n0, DctKm: 500, DcrKm: 500,
//	})
//
// What is implemented, in the order of the Recommendation:
//
//   - Path profile analysis (Attachment 1): line-of-sight or trans-horizon
//     test, horizon angles θt, θr and distances dlt, dlr (on LoS paths the
//     point of largest ν), angular distance θ, least-squares smooth-Earth
//     heights hst/hsr, the diffraction heights hstd/hsrd, the ducting
//     heights hte/hre and the roughness hm.
//   - Radio-meteorology (§3.5–3.6): ae = 6371·157/(157−ΔN) km,
//     ab = 6371·3 km, β0 from the path-centre latitude (great-circle
//     mid-point at half the profile length, P.2001 Annex H) and the longest
//     land (dtm) and inland (dlm) sections; ω, the sea fraction, from the
//     zones (1 sea, 3 coastal land, 4 inland).
//   - Line of sight (§4.2): free space Lbfs = 92.4 + 20·log10 f +
//     10·log10(d² + ((hts−hrs)/1000)²) and the focusing corrections Lb0p,
//     Lb0β.
//   - Diffraction (§4.3): delta-Bullington (Lbulla, Lbulls, Ldsph, Ld50,
//     Ldβ, Ldp) with λ = 2.998e8/f.
//   - Troposcatter Lbs (§4.4) and ducting/layer reflection Lba (§4.5).
//   - Combination (§4.6–4.7): Fj, Fk, Lminb0p, Lminbap, Lbda, Lbam, Lbc.
//   - Location variability (§4.8): Lloc = −I(pL/100)·σL on land, with σL
//     supplied by the caller (LocationSigmaDB gives the §4.8 value).
//   - Terminal clutter as P.1812-8 models it: the representative clutter
//     height R is added to the terrain at the intermediate profile points
//     (§3.2); the terminal points keep the bare ground height.
//
// The diffraction sub-models are exported so that they can be tested and
// reused on their own: KnifeEdgeJ, Bullington, SphericalEarth,
// DeltaBullington and DiffractionHeights, all taking a DiffractionInput
// whose speed of light is a parameter (the ITU-R SG3 delta-Bullington
// examples use 3e8 m/s; set WavelengthConstants to reproduce them to 2e-4 dB).
//
// Input.Diffraction = DeygoutMethod replaces the whole diffraction loss by
// the three-edge Deygout construction of ITU-R P.526 (see Deygout), for
// both the median and the β0 effective Earth radius. This is the
// "multi-knife-edge (Deygout)" option of the product; delta-Bullington, the
// method of P.1812-8, is the default.
//
// ΔN and N0 come from the ITU-R digital maps DN50.TXT and N050.TXT, which
// may not be redistributed and are not in this repository:
// LoadRefractivityMaps reads them from a directory the operator supplies,
// RefractivityMaps.At interpolates them bilinearly on their 1.5° grid, and
// Refractivity falls back to DefaultDeltaN and DefaultN0 (documented
// Brazil values) when no maps are configured. PathCentre gives the point at
// which to read them.
//
// Validation: the package tests run the ITU-R WP 3K/3M reference cases
// (engines/testdata/validation/p1812, Lb within 0.01 dB; every logged
// intermediate value within 1e-6 relative) and the ITU-R SG3
// delta-Bullington examples (delta_bullington, within 0.1 dB). Set
// LINKPLAN_VALIDATION_DIR to run another directory of the same layout.
//
// # Caveats
//
//   - Validity: 0.03–6 GHz, p 1–50 %, antenna heights 0–3000 m above
//     ground; Predict rejects input outside these ranges with an error
//     matching appliance.ErrInvalid (a *appliance.ValidationError naming
//     each bad field: "f_ghz", "p_pct", "htg_m", "profile.d_km", …).
//     P.1812 is meant for paths from about 0.25 km to about 3000 km; shorter
//     paths are computed but are outside its intended use.
//   - Like the ITU-R reference implementation, the horizon angles and the
//     smooth-Earth heights use the bare terrain heights; only the
//     diffraction profile includes the clutter heights R.
//   - Not implemented: the Attachment 4 alternative for Lbulls (without
//     profile analysis), building entry loss (§4.9), the clutter-category
//     (Ct) terminal corrections of earlier editions, which P.1812-8 no
//     longer uses, and field strength for powers or gains other than the
//     1 kW e.r.p. of Eq. 70. Lloc uses the σL given by the caller.
//   - At pL = 50 % the Attachment 2 approximation gives I(0.5) ≈ −1.3e-9,
//     so Lloc is a few nanodecibels rather than exactly 0, as in the
//     reference implementation.
//   - The reference implementation reports the Bullington and
//     spherical-Earth parts for the β0 radius ab; Result holds both sets
//     (…50DB for ae, …BetaDB for ab).
//   - DefaultDeltaN and DefaultN0 are rounded values for populated Brazil,
//     not map values; configure the maps where ΔN matters (it sets ae).
//   - Predict does not allocate on valid input and is safe for concurrent
//     use; results are bit-identical across runs and GOMAXPROCS settings.
package p1812
