// Package refcheck reads the ITU-R reference tables of
// shared/validation/itu_p530 (the ITU-Rpy Brazil tables and the ITU-R SG3
// validation examples of its itu-validation folder) and checks every row
// against the product's implementation in engines/itur.
// It backs `linkplan itu check --cases FILE` and the reference tests.
//
// # Reading (Read)
//
// The kind of a table is recognised from its header row, whatever the
// order of its columns (Kinds lists them):
//
//	kind                               recognised by                              checked columns
//	p837_rain_rate                     lat_deg, lon_deg, P0_annual_rain_...      P0, every R_<p>pct_mm_per_h
//	grid_lookup                        lat_deg, lon_deg and MT_/T_/dN/s_a cols   every map column
//	p838_specific_attenuation          f_GHz, R_mm_per_h, tau_deg, el_deg, k...  k, alpha, gamma_R
//	p530_links                         link_id, d_km, h_e_m_amsl, fade_margin... el, R001, γ, A_rain_<p>, status,
//	                                                                              p_rain, N10s, p0, p_w, FM_for_pw, P_XP
//	itu_p837_rainfall_rate             exactly lat,lon,p,Rp                       Rp (Annex 1)
//	itu_p837_rainfall_rate_r001        the same header, "R001" in the file name   Rp against Annex 1 (map absent)
//	itu_p837_rainfall_probability      exactly lat,lon,p                          P0_annual
//	itu_p838_rain_specific_attenuation exactly el,f,R,tau,k,alpha,gamma_r         k, alpha, gamma_r
//	itu_p1510_temperature              exactly lat,lon,T                          annual mean T
//
// A column the kind does not know is refused, so nothing is silently left
// unchecked. The ITU-R files' second header line (units, in Latin-1) is
// skipped. The reader is bounded (MaxBytes, MaxRows, MaxColumns,
// MaxFieldSize); every malformed file fails with appliance.ErrInvalid and
// the line number (FuzzRead).
//
// # Checking (Check)
//
// Each row is evaluated on its own, from its inputs only, with the same
// functions the product uses (Maps.PrepareLink for the P.530 links), so a
// verdict does not depend on the order of the rows or on which rows are
// present. A value passes when |got − want| is within the column's
// tolerance, absolute or relative, or within half a unit of the last digit
// the reference is printed with. The tolerances (refcheck.go) are those of
// shared/validation/itu_p530/README.md where it gives them: rain rates
// 1e-4 mm/h or 1e-5 relative, map look-ups 1e-6 relative, P.838 1e-9
// relative, P.530 rain 1e-4 relative (R0.01 carries ITU-Rpy's bisection
// tolerance), P.530 multipath 1e-6 relative; for the ITU-R SG3 examples
// 1e-3 mm/h for R_p (their iteration stops early, see engines/itur), 1e-3
// relative for the R0.01 map table (a difference of method), otherwise
// their printed precision, or 1e-6 relative where that is looser (inside
// Brazil the maps are float32, as for the map look-ups).
//
// # Rows outside the maps (Skip)
//
// The embedded ITU-R maps cover Brazil only (latitude −34…6, longitude
// −75…−33; engines/itur). A row of a map-based kind (p837_rain_rate,
// grid_lookup, p530_links, itu_p837_*, itu_p1510_temperature) whose point is
// not covered by every map the row needs (Grid.Covers) is SKIPPED: it is
// not evaluated, and counts neither as passed nor as failed; Result.Skipped
// counts such rows and Result.Skips gives each one's line and reason. Rows
// inside the maps are checked as every other row. The map-free kinds
// (p838_specific_attenuation, itu_p838_rain_specific_attenuation) never
// skip. The ITU-R SG3 examples for P.837-7 and P.1510-1 are all at sites
// outside Brazil (Kuala Lumpur, London, Rome, Miami, …; the row
// 22.9,-43.23 has a positive latitude, so it is not Rio de Janeiro), so
// every one of their rows is skipped (TestReferenceTables gives the counts).
//
// The p530_links column P_XP_clear_air_pct is defined by the README with
// XPD_g = 30 dB, C0/I = 20 dB and XPIF = 0, which the table does not carry;
// those values are used.
//
// Result gives the rows (Cases), the rows with a failing value (Failed), the
// largest absolute error over every compared value in each column's own
// unit (MaxAbsErr), the failures, the skipped rows (Skipped, Skips) and
// per-column statistics; Summary is the line
// `cases=N failed=N skipped=N max_abs_err=X`.
package refcheck
