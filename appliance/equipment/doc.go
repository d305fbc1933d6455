// Package equipment keeps each tenant's equipment catalogue (issue 25
// scope 1): radios, with their bands, channel widths and per width a
// table of modulation/coding → transmit power, sensitivity and
// throughput, and antennas, with their gain, a pattern (imported from a
// Planet/MSI, NSMA or Radio Mobile file through engines/antfile, given as
// two cuts, or synthesised from data-sheet figures) and the beamwidths,
// front-to-back ratio and electrical tilt read off it. It knows nothing of
// HTTP; web/api decodes, calls one method and encodes.
//
// # Basics
//
//	svc := equipment.New(db, nil)
//	r, err := svc.CreateRadio(ctx, key, equipment.RadioInput{...})
//	a, err := svc.ImportAntenna(ctx, key, equipment.ImportInput{FileName: "x.msi", Data: b})
//	a, err := svc.Antenna(tenantID, id) // appliance.AntennaCatalogue: a built-in or the tenant's own
//
// The planner and the coverage maps read a tower's catalogue antenna
// (appliance.Tower.AntennaID) through Antenna, which keeps the tenant's
// antennas in a small cache (at most 2048, dropped whole when full) that
// UpdateAntenna and DeleteAntenna invalidate. The point-to-point planner
// reads radios (Radio) and antennas (Antenna) the same way.
//
// # Scope and caps
//
// A tenant's records are its own (store buckets equipment_radios and
// equipment_antennas, keyed by tenant id): another tenant can neither
// read, list, change nor delete them, and a foreign id reads as not found.
// The built-in examples (ids "builtin:…") are visible to every tenant and
// read-only (appliance.ErrForbidden). New records count against the
// tier's cap (appliance.Tier.EquipmentPerTenant: 10/50/200/1000/5000 per
// tenant, radios and antennas separately; none for admin keys), counted
// inside the store's write transaction so concurrent creations cannot pass
// it (appliance.ErrQuota). The ids are "radio_" or "ant_" and 16 random
// hex digits. The tenant's hard delete (appliance/privacy) purges both
// buckets.
//
// # Fields
//
// appliance.Radio.Validate and appliance.Antenna.Validate state the field
// rules (every bad field named by its JSON path in one
// appliance.ValidationError). An antenna is created with either pattern
// (two cuts: angles in [0, 360), ascending, attenuation below the peak)
// or parametric figures:
//
//	model           figures (0: default)                                    pattern
//	3gpp-sector     h_beamwidth_deg (65), v_beamwidth_deg (from the gain,     appliance.SectorPattern
//	                F.1336 eq. 2b), front_to_back_db (25), side_lobe_db (20),
//	                electrical_tilt_deg (0)
//	omni            v_beamwidth_deg (from the gain, F.1336 eq. 1b),          appliance.OmniPattern
//	                side_lobe_db (20), electrical_tilt_deg (0)
//	itu-f699-dish   the gain alone (≥ 10 dBi)                                 appliance.DishPattern
//
// An imported file keeps its name, make, frequency, polarization and
// comment (as notes), and its warnings (engines/antfile doc) travel with
// the antenna; name, gain_dbi and frequency_mhz given with the upload
// replace the file's, and gain_dbi is required for a Radio Mobile file.
// The antenna's source records the format, the file name and its SHA-256.
//
// # Built-in examples
//
// Generic examples, computed from documented formulas and named as such,
// not vendor claims: radios "builtin:wifi5-2x2" (5 GHz 2×2 OFDM, 20/40/80
// MHz, the IEEE 802.11 VHT minimum sensitivities, PHY rate × 0.65),
// "builtin:microwave-11-23ghz" (11/18/23 GHz, 7–112 MHz, QPSK to 1024-QAM
// from kTB + 6 dB noise figure + the modulation's SNR) and
// "builtin:eband-80ghz" (71–76/81–86 GHz, 250–2000 MHz, 8 dB noise
// figure); antennas "builtin:sector-65-17dbi", "sector-90-16dbi",
// "sector-120-14dbi" (3GPP TR 36.814 sectors), "omni-10dbi" and
// "dish-23dbi", "dish-30dbi", "dish-38dbi", "dish-44dbi" (ITU-R F.699-8
// reference patterns). builtin.go gives each formula.
//
// # States
//
//	state      event                                        next state  effect
//	(none)     Create*/ImportAntenna, a field is bad         (none)      ErrInvalid (422) naming every bad field; nothing written
//	(none)     ImportAntenna, a malformed file               (none)      ErrInvalid naming field "file" and the file's line
//	(none)     Create*/ImportAntenna, the tier's cap reached (none)      ErrQuota (429); nothing written
//	(none)     Create*/ImportAntenna, valid                  stored      record + audit equipment.create (kind, id)
//	stored     Update*, valid                                stored      replaced (creation time kept, updated now) + audit equipment.update;
//	                                                                     towers mounting the antenna radiate the new pattern
//	stored     Update*, a field is bad                       stored      ErrInvalid; unchanged
//	stored     Delete*                                       (none)      deleted + audit equipment.delete
//	stored     DeleteAntenna while a tenant's tower mounts it stored     ErrConflict (409) naming the towers; unchanged
//	built-in   Update*/Delete*                               built-in    ErrForbidden (403)
//	any        another tenant's Get/Update/Delete            unchanged   ErrNotFound (404), as for a missing id
//
// # Caveats
//
//   - A tower names its antenna by id; a built-in cannot be deleted and a
//     tenant's mounted antenna cannot either, so a tower's antenna is
//     missing only when the store fails to read it: the planner then uses
//     the tower's generic antenna with an antenna_unavailable warning.
//   - The tenant's data export (GET /tenant/me/data/export) does not list
//     the catalogue yet.
package equipment
