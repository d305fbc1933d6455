// Package features builds the input vector of the learned coverage models
// (SPEC §2.5) from one transmitter–receiver link and the terrain between
// them. It is shared by the training side (appliance/training: one vector
// per stored observation) and the serving side (appliance/prediction: one
// vector per query), so that both compute every feature the same way; it
// knows nothing of models, observations or HTTP.
//
// # Schemas
//
// Version 1 is SPEC §2.5's 17 features, in this order:
//
//	log_distance_km     log10 of the great-circle distance, km (at least 10 m)
//	log_freq_mhz        log10 of the carrier frequency, MHz
//	tx_height_m         transmitter antenna height above ground, metres
//	rx_height_m         receiver antenna height above ground, metres
//	tx_power_dbm        transmitter power, dBm
//	tx_gain_dbi         transmitter antenna gain, dBi
//	rx_gain_dbi         receiver antenna gain, dBi
//	terrain_mean_m      mean ground height of the profile, metres AMSL
//	terrain_max_m       highest ground of the profile, metres AMSL
//	terrain_std_m       population standard deviation of the ground heights, metres
//	terrain_slope_deg   mean absolute ground slope between neighbouring samples, degrees
//	obstruction_count   interior samples whose effective ground (earth bulge at
//	                    k = 4/3) reaches the line of sight between the antenna tips
//	max_obstruction_m   greatest height of the effective ground above that line,
//	                    metres (0 when the line is clear)
//	min_fresnel_ratio   smallest clearance / first-Fresnel radius over the interior
//	                    samples, clipped to [−MaxFresnelRatio, MaxFresnelRatio]
//	                    (MaxFresnelRatio for a path with no interior sample)
//	log_d_sq            log_distance_km²
//	log_d_log_f         log_distance_km · log_freq_mhz
//	terrain_std_log_d   terrain_std_m · log_distance_km
//
// Version 2 appends the receiver's land-cover class as a one-hot of the ten
// classes of terrain-packs/clutter (clutter_forest … clutter_other: 27
// features); an unknown class (0) is all zeros. A terrain without a
// land-cover layer cannot give a version-2 vector (ErrNoLandCover): the
// callers then use version 1, and a model of version 2 cannot serve there.
//
// The profile is the terrain's Profile(tx, rx, ProfileStepM): the same
// sampling as the engines'. The geometry is the planner's path check
// (appliance/planner, "Path check"): effective ground
// e_i = g_i + d1·d2/(2·k·a) with k = 4/3 and a = 6 371 km, line of sight
// from the transmitter's antenna tip to the receiver's, first-Fresnel
// radius √(λ·d1·d2/d).
//
// # Other figures
//
// Info carries what the models' bookkeeping needs beside the vector: the
// distance, the terrain's standard deviation and its morphology class
// (SPEC §2.6: open_or_flat below 5 m, rural_rolling from 5 to below 15 m,
// rural_mountainous from 15 m), the band the frequency snaps to (the
// nearest of the seven of SPEC §2.5; a tie goes to the lower band), and
// the receiver's land-cover class and label.
//
// # Errors
//
// A link out of range is an *appliance.FieldError naming the field
// (tx_lat, rx_height_m, freq_mhz …); a point no terrain pack covers is the
// terrain's *appliance.TileMissingError (matching ErrTerrainMissing): the
// builder never reads missing ground as sea level.
package features
