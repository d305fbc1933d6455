// Package itur predicts the availability of a terrestrial line-of-sight
// link from the ITU-R Recommendations and their digital maps: the rain rate
// of P.837-7, the specific attenuation of P.838-3, the rain and multipath
// fading of P.530-17 and the gaseous absorption of the P.676 Annex 2
// approximation, on the Brazil windows of the P.837-7, P.1510-1, P.453 and
// P.530 maps embedded in the binary. It is a leaf:
// it imports the appliance root (for its error sentinels) and nothing else
// of the project.
//
// # Use
//
//	maps, err := itur.LoadMaps()           // once, at start-up (~20 ms, 1.6 MB)
//	link, err := maps.PrepareLink(itur.LinkInput{
//		LatDeg: midLat, LonDeg: midLon,    // path mid-point, WGS84 degrees
//		DistKm: 12, FreqGHz: 18, PolTiltDeg: 90,
//		HTxAmslM: 320, HRxAmslM: 60,       // antenna heights above sea level
//	})
//	fm := rxClearAirDBm - link.GasAttenuationDB - thresholdDBm  // per modulation
//	o := link.Outage(fm)                   // availability, outage minutes, bound, warnings
//	r, err := link.RequiredFadeMargin(99.99) // margin needed for a target
//
// PrepareLink does every map look-up and everything that does not depend on
// the fade margin (about 50 µs); Outage then takes about 1 µs and
// RequiredFadeMargin about 20 µs. BenchmarkAvailability (one link, 12
// modulations and the three StandardTargets) runs in about 0.12 ms, measured
// on a shared 2-core machine under a load of 19, so an upper figure. Link carries its inputs, the
// map values (Climate), every intermediate quantity, Sources (the
// Recommendations and data behind the figures) and Warnings; each Outage
// carries its own warnings and Bound.
//
// Errors: bad inputs match appliance.ErrInvalid; a point outside the
// embedded maps (Brazil), or a link frequency outside 1–350 GHz (the range
// of the P.676 approximation; P.838 alone goes to 1000 GHz), matches
// appliance.ErrOutsideEnvelope.
//
// # Recommendations, versions and equations
//
// ITU-R P.1144-12 (bilinear interpolation). Every map is interpolated
// bilinearly between the four surrounding nodes (Grid.At), as P.1144 gives
// for these maps and as ITU-Rpy's bilinear_2D_interpolator does.
//
// ITU-R P.837-7 (06/2017) Annex 1, rain rate R_p exceeded for p % of an
// average year (RainDistribution, Maps.RainRateMMH): step 2 the monthly mean
// surface temperatures T_ii (P.1510-1), step 3 the monthly mean total
// rainfall MT_ii (P.837-7 maps), step 4 t_ii = T_ii − 273.15, step 5
// r_ii = 0.5874·exp(0.0883·t_ii) mm/h (0.5874 below 0 °C) (eq. 1), step 6
// P0_ii = 100·MT_ii/(24·N_ii·r_ii) % (eq. 2), capped at 70 % with
// r_ii = 100/70·MT_ii/(24·N_ii), N_ii the days of the month (February
// 28.25), step 7 P0_annual = Σ N_ii·P0_ii/365.25 (eq. 3), step 8
// P(R > R) = Σ N_ii·P0_ii·Q((ln R + 0.7938 − ln r_ii)/1.26)/365.25 and
// R_p its root at p (0 when p > P0_annual), solved by Newton's method
// (ln P against ln R) inside a bisection bracket to 1e-12 relative.
//
// The P.837-7 map of R0.01 (the Recommendation's own R0.01, step 1 of
// P.530 §2.4.1) is NOT embedded: its file is absent from the ITU-Rpy
// snapshot the maps come from. R0.01 is therefore computed by the Annex 1
// method at p = 0.01 %, and every answer that uses it says so
// (Link.R001Source, warning WarnR001Annex1, Sources). The ITU's own
// examples show the size of the difference (their Annex 1 table against
// their R0.01-map table, shared/validation/itu_p530/itu-validation): Kuala
// Lumpur R0.01 = 99.1512 mm/h by Annex 1, 99.1481 mm/h on the map; the
// largest gap of the eight sites is 0.022 mm/h (3.4e-4 relative, New
// Delhi). A caller with a measured R0.01 passes it in LinkInput.R001MMH.
//
// ITU-R P.1510-1 (06/2017): monthly and annual mean surface temperature
// maps (0.75°), used by P.837-7 Annex 1 and by the default atmosphere.
//
// ITU-R P.838-3 (03/2005), specific attenuation γ_R = k·R^α (eq. 1) with
// log10 k_H, log10 k_V (eq. 2) and α_H, α_V (eq. 3) from the Gaussian sums
// of Tables 1–4, and k, α for any elevation θ and polarisation tilt τ by
// eqs. (4) and (5): k = [k_H + k_V + (k_H − k_V)·cos²θ·cos 2τ]/2,
// α = [k_H·α_H + k_V·α_V + (k_H·α_H − k_V·α_V)·cos²θ·cos 2τ]/(2k).
// 1–1000 GHz (RainCoefficients).
//
// ITU-R P.530-17 (12/2017), the version of the reference figures:
//
//   - §2.4.1 rain attenuation (RainPath): step 1 R0.01; step 2 γ_R (P.838-3);
//     step 3 the distance factor r = 1/(0.477·d^0.633·R0.01^(0.073·α)·f^0.123
//     − 10.579·(1 − exp(−0.024·d))) (eq. 32), "maximum recommended r is 2.5":
//     when the denominator is below 0.4, r = 2.5 (also for a zero or negative
//     denominator, where ITU-Rpy's min(r, 2.5) would keep a negative r;
//     TestRainDistanceFactorCap); d_eff = r·d; step 4 A0.01 = γ_R·d_eff
//     (eq. 33); step 5 A_p = A0.01·C1·p^−(C2 + C3·log10 p) for
//     0.001 ≤ p ≤ 1 % (eq. 34) with C0 = 0.12 + 0.4·[log10(f/10)]^0.8 for
//     f ≥ 10 GHz, 0.12 below (eq. 35a), C1 = 0.07^C0·0.12^(1−C0) (35b),
//     C2 = 0.855·C0 + 0.546·(1 − C0), C3 = 0.139·C0 + 0.043·(1 − C0) (35c).
//     The typeset eq. (35a) can also be read 0.4·log10((f/10)^0.8); we follow
//     ITU-Rpy's reading, which reproduces the reference figures to 3e-7.
//     The inverse (RainPath.ExceedancePct: the p at which A_p equals the fade
//     margin) solves eq. (34) as a quadratic in log10 p, only inside
//     0.001–1 %, where eq. (34) decreases monotonically with p for every
//     frequency to 1000 GHz; outside it says BelowRange or AboveRange and
//     gives the range's end as a bound. (ITU-Rpy's inverse_rain_attenuation
//     brackets p in [1e-9, 100] %, where eq. 34 is not monotonic; it is not
//     used.) The number of 10-second rain events, N10s = 1 + 1313·p^0.945
//     (§2.4.5, RainEventCount).
//   - §2.3.1 multipath fading, small percentages (Multipath): the
//     geoclimatic factor K = 10^(−4.4 − 0.0027·dN1)·(10 + s_a)^−0.46 (eq. 4),
//     dN1 from the P.453 map of the point refractivity gradient of the lowest
//     65 m not exceeded for 1 % of an average year and s_a from the P.530
//     area-roughness map; the path inclination |εp| = |h_r − h_e|/d mrad
//     (eq. 5) with the antenna heights above sea level; the detailed-design
//     deep-fade formula p_w = K·d^3.4·(1 + |εp|)^−1.03·f^0.8·
//     10^(−0.00076·h_L − A/10) % of the average worst month, h_L the lower
//     antenna (eq. 7).
//   - §2.3.2 all fade depths (Multipath.WorstMonthPct): p0 = eq. (7) at
//     A = 0, A_t = 25 + 1.2·log10 p0; for A ≥ A_t eq. (7); below, p_t, q′_a,
//     q_t, q_a and p_w = 100·[1 − exp(−10^(−q_a·A/20))] (step 3b; ITU-Rpy
//     numbers these eqs. 10 and 12–18). Inverses (FadeMarginForWorstMonthDB,
//     FadeMarginForAnnualDB): closed form in the deep tail, Brent's method
//     on ln p_w below A_t.
//   - §2.3.4 worst month to average year (Multipath.AnnualPct):
//     ΔG = 10.5 − 5.6·log10(1.1 ± |cos 2ξ|^0.7) − 2.7·log10 d +
//     1.7·log10(1 + |εp|) dB, + for |ξ| ≤ 45°, at most 10.8 dB;
//     p = 10^(−ΔG/10)·p_w in the deep tail, and the §2.3.2 method with the
//     annual occurrence factor p0·10^(−ΔG/10) for shallower fades (step 4).
//   - §4.1 clear-air XPD outage (Multipath.XPDClearAirPct), one transmit
//     antenna (k_XP = 0.7): XPD0 = XPD_g + 5 (XPD_g ≤ 35 dB) else 40,
//     η = 1 − exp(−0.2·P0^0.75), Q = −10·log10(k_XP·η/P0), C = XPD0 + Q,
//     M_XPD = C − C0/I (+ XPIF), P_XP = P0·10^(−M_XPD/10) (worst month).
//     Reported apart; not added to the unavailability.
//   - Combination (Link.Outage). P.530 assigns outages to error performance
//     or to unavailability by their duration: clear-air (multipath) fades are
//     mostly short and count towards performance, rain fades towards
//     unavailability (§8). Planning tools and customers ask for one
//     availability figure, so UnavailabilityPct = rain (average year) +
//     multipath (converted to the average year by §2.3.4), both parts given
//     apart; OutageMinutesPerYear uses a 365.25-day year; AvailabilityPct =
//     100 − UnavailabilityPct. Where the rain part falls outside 0.001–1 %
//     its end is used and Bound says the figure is a lower (AtLeast) or upper
//     (AtMost) bound of the availability. Availability never decreases as
//     the margin grows (TestOutageMonotoneInMargin). Selective (dispersive)
//     fading (§5) needs the radio's signature and is not included.
//   - Inverse (Link.RequiredFadeMargin): for a target T the margin at which
//     rain plus multipath leave 100 − T %: rain alone is A_rain(100 − T)
//     (eq. 34; 99.9, 99.99, 99.999 % are p = 0.1, 0.01, 0.001 %), multipath
//     alone inverts §2.3.4, the combination is solved numerically. A target
//     that leaves rain 0.001 % or less (99.999 % always does, since multipath
//     takes a share) has no answer inside P.530's range: the margin given is
//     max(A_rain(0.001 %), multipath alone), which is necessary, with Bound
//     AtLeast.
//
// P.530-18 (09/2021) and P.530-19 (09/2025) supersede -17. The issue and
// the reference figures (ITU-Rpy's _ITU530_17_) are -17, and this package
// follows -17. The text of -18 was not available offline when this package
// was written (neither in the staged data nor in the reference corpus), so
// what it changes is not stated here. Changing versions means diffing
// §2.3 and §2.4 of -18/-19 against the equations above and regenerating the
// reference figures.
//
// ITU-R P.453 (maps of P.453-12 as ITU-Rpy ships them for P.453-13): dN1
// (DN1, multipath) and the median 1 km gradient (DN50, for callers; ΔN of
// P.452/P.1812 is −DN50).
//
// ITU-R P.676, gaseous absorption (GasSpecificAttenuation): the simplified
// closed-form algorithm of Annex 2 §1 as published up to P.676-10
// (09/2013), for 1–350 GHz from sea level to 10 km: γo for dry air by curve
// fits in six bands (f ≤ 54, 54–60, 60–62, 62–66, 66–120, 120–350 GHz,
// with the fitted functions φ, ξ1…ξ7, γ54…γ66 and δ), γw for water vapour
// as nine lines (22.235, 183.31, 321.226, 325.153, 380, 448, 557, 752,
// 1780 GHz) with widths η1, η2; rp = (p + e)/1013 (total pressure),
// rt = 288/(273 + t). (From P.676-11 on, Annex 2 no longer has these closed
// forms: the specific attenuation comes from the Annex 1 line tables, which
// are not embedded here.) The Recommendation presents the approximation as
// within an average of roughly ±10–15 % of the line-by-line calculation
// away from the centres of the major lines, generally within 0.1 dB/km, at
// most about 0.7 dB/km near 60 GHz. The path's absorption is (γo + γw)·d
// (terrestrial path). Above 350 GHz PrepareLink refuses the link.
//
// Measured against the line-by-line method of P.676-13 Annex 1 (eqs. 1–9
// with the Recommendation's Tables 1 and 2, run locally for this check;
// the tables are not in the product), 1–100 GHz in 0.01 GHz steps, largest
// relative difference (largest absolute, dB/km):
//
//	                        1–50 GHz        50–70 GHz         70–100 GHz
//	1013.25 hPa dry air, 15 °C, 7.5 g/m³ (the ITU-R reference atmosphere)
//	  dry air γo            3.2 % (0.002)   13.4 % (1.09 at 59.2 GHz)  23.9 % (0.028)
//	  water vapour γw      12.7 % (0.014)   12.7 % (0.024)   12.8 % (0.054)
//	  total γ               8.7 % (0.016)   10.8 % (1.10)    10.1 % (0.046)
//	1013.25 hPa total, 30 °C, 20 g/m³ (humid Brazilian coast)
//	  dry air γo            7.3 % (0.015)   12.4 % (1.13 at 59.2 GHz)  16.3 % (0.011)
//	  water vapour γw      23.8 % (0.073)   23.9 % (0.13)    24.5 % (0.29)
//	  total γ              20.0 % (0.089)   16.4 % (1.23)    23.6 % (0.28)
//
// γw agrees at the 22.235 GHz line centre (−0.8 % and −0.4 %) and is
// higher than P.676-13 in the line wings, more so in warm humid air. Against
// the P.676-10 Annex 1 line tables (the edition the fits belong to, also run
// locally) the same γw is within 2.6 % in both atmospheres from 1 to 100
// GHz: the formula is the Recommendation's, and the 12–25 % is the change
// of the water-vapour spectroscopy (the self-broadened continuum) between
// P.676-10 and P.676-13. Dry air above 70 GHz, where γo is a few hundredths
// of a dB/km, is the fit's own error. On the seven Brazilian test links of
// itur_test.go the path absorption is 0.2–14 % (at most 0.055 dB) above
// the P.676-13 line-by-line figure. The tests check the approximation's
// closed forms by hand at rp = rt = 1 (TestGasAnnex2AtReferenceConditions)
// and its physics (TestGasAttenuationPhysics: positive, the 22.235 GHz water
// line, the 60 GHz oxygen complex, the 118.75 GHz line, near-proportional
// scaling with ρ, dry-air absorption falling with temperature, no jump
// above 2 % between the fitted bands).
//
// Default atmosphere (DefaultAtmosphere), unless the caller gives one: the
// P.835-6 mean annual global reference pressure at the path's mean height
// above sea level, the P.1510-1 annual mean surface temperature at the
// mid-point, the water-vapour density of the P.835-6 low-latitude reference
// atmosphere below 22° of latitude (19.65 g/m³ at sea level), else the mean
// of the mid-latitude summer and winter profiles (8.91 g/m³), and the dry
// pressure p = P − e.
//
// # Maps
//
// data/ holds the Brazil windows of the ITU-R maps as staged in
// shared/data/itu/grids (float32, row 0 south, column 0 west; lat −34…+6,
// lon −75…−33 plus one node each side) with their headers. Outside them a
// look-up fails with appliance.ErrOutsideEnvelope (Grid.Covers says where
// a map answers). See data/PROVENANCE.md. Nothing is read from disk at run
// time.
//
// # Reference figures
//
// engines/itur/refcheck reproduces the ITU-Rpy Brazil tables of
// shared/validation/itu_p530 and the ITU-R SG3 examples of its
// itu-validation folder (linkplan itu check). Largest errors (refcheck
// TestReferenceTables): rain rates 1.7e-5 mm/h (ITU-Rpy bisects to 1e-5),
// grid look-ups 1.3e-5 (4.5e-8 relative, float32 grids), P.838 1.7e-9
// dB/km, P.530 rain 1.5e-5 dB and multipath 4e-8 relative; ITU-R P.838-3
// examples 4.9e-9. The ITU-R examples for P.837-7 (rain rate, R0.01,
// probability) and P.1510-1 are all at sites outside Brazil (the row
// 22.9,-43.23 has a positive latitude), where the embedded maps end: their
// 40 + 8 + 8 + 64 rows are skipped, counted and listed (refcheck), neither
// passed nor failed; a row of theirs inside Brazil is checked.
//
// Where the product and a reference differ beyond their printing, the
// Recommendation decides:
//
//   - ITU-R SG3 P.837-7 examples (ITURP837-7_rainfall_rate.csv). Before the
//     maps were cut to Brazil, the product was run locally on the global
//     maps of those sites: it reproduced the sheet's P0_annual to 5e-8 % and
//     its R_p to within 3e-4 mm/h. Step 8 defines R_p as the root of
//     P(R > R_p) = p, which the product's value met to 1e-11 relative (as it
//     does in Brazil, TestRainRateIsTheRootOfStep8) and the sheet's value
//     missed by 7e-6 relative (Kuala Lumpur, R0.01 99.15117186 mm/h against
//     the product's 99.1509): the sheet's iteration stopped early. Tolerance
//     for that table, for rows inside the maps: 1e-3 mm/h.
//   - ITURP837-7_rainfall_rate_R001.csv gives the R0.01 map, which is not
//     embedded: a difference of method (up to 0.022 mm/h, 3.4e-4 relative,
//     between the ITU's own two tables), checked against Annex 1 with a
//     1e-3 relative tolerance that measures that gap, not this package's
//     precision.
//   - eq. (32) with a denominator below zero: r = 2.5 per the text (above).
package itur
