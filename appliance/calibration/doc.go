// Package calibration compares a tenant's consented observations with the
// engines' predictions (the measured-versus-predicted report, issue 26
// scope 4) and fits, keeps and serves the tenant's calibration of those
// predictions (scope 5). The planner and the coverage maps apply a
// calibration through appliance.Calibrations; nothing else reads it, and
// only the tenant's own answers ever ask for it.
//
// # Report
//
// A report job (appliance.JobKindObservationResiduals) reads the tenant's
// consented observations of both kinds, the newest MaxRows(tier) first,
// and predicts each with every engine of ReportEngines (fspl, p1812, itm,
// the P.1812 + P.1411 hybrid, and auto, the engine the registry chooses
// per path) on the appliance's terrain with the observation's own
// transmitter and receiver parameters (Level: tx power + tx gain − path
// loss + rx gain − cable loss). The residual is observed − predicted, dB.
// Per engine: n, RMSE, bias (mean residual: positive, the engine predicts
// too weak a signal) and MAE, overall, by band (appliance.
// CalibrationBandMHz), by distance bin (DistanceBins) and by H3 cell at
// BlockResolution (8). Observations whose path needs a missing terrain
// tile are counted under skipped (missing_terrain, the tiles named, and
// the report warns missing_terrain); an engine's refusals are counted with
// their five most frequent reasons. The result is a zip: report.json,
// residuals.csv (one row per observation, each engine's prediction and
// residual; text cells spreadsheet-safe; the warnings as closing comment
// rows), residuals.geojson and residuals.kmz (the receivers as points
// coloured by the residual class of the engine with the least RMSE; the
// warnings in every feature).
//
// # Fit
//
// Residuals are grouped into calibration cells: one transmitter (its
// tower id, else its position to 1e-5°) on one band. A calibration of one
// engine has four layers, each shrunk toward the one above:
//
//   - a band level (and, when the inner folds choose it, a distance slope
//     in dB per decade, least squares) for every band: level =
//     Σ(r − slope·x) / (n + KGlobal);
//   - a cell offset: the band level plus Σ(r − band) / (n_cell + kCell);
//     kCell KCellEmpiricalBayes is estimated per band from the training
//     rows (σ²/τ²: the within-cell variance over the variance of the true
//     cell offsets, the one-way random-effects moment estimator);
//   - azimuth-sector offsets, when the inner folds choose them: N equal
//     sectors clockwise from north seen from the transmitter
//     (appliance.CalibrationSector), each the mean of the residuals after
//     the cell offset times B / (B + kSector), B the number of distinct
//     blocks the sector's measurements lie in (measurements along one
//     road in one block are one look at the sector, not hundreds);
//   - a local field, when the inner folds choose it: per square of GridM
//     (50 m) in the cell's local frame, the Gaussian-weighted (SigmaM
//     100 m, truncated at 3σ) sum of the remaining residuals over the
//     weighted count plus kLocal.
//
// InnerFolds (3) spatially blocked folds on the training rows choose, by
// the least pooled out-of-fold squared error (ties to the earlier,
// simpler candidate), in stages: the band slope or none and kCell ∈
// KCells (empirical Bayes, 10, 50, 200 points, or +Inf: no cell offsets);
// then sectors, N ∈ SectorCounts (3, 6, 12) × kSector ∈ KSectors (1, 4
// blocks), or none; each candidate with kLocal ∈ KLocals (1, 3, 10, 30)
// or no local layer. The same inner folds then refuse, per cell, the
// layers of a cell whose own held-out residuals they predict worse than
// its band's level alone: that cell gets the band's level (in the outer
// folds as in the final calibration, where the cell is stored refused
// with the reason). The reported figures come from Folds (5) outer folds
// grouped by the H3 resolution-8 block of the receiver (ml.GroupKFold,
// seed ml.CVSeed): every held-out residual is corrected by the model
// fitted on the other folds only, by its cell's layer when the training
// folds knew its cell, else by its band's level when the transmitter lies
// in the band's region, else not at all (and then it does not count:
// NValidated). cv_rmse_before_db is the held-out residuals' RMSE without
// calibration, cv_rmse_after_db with it. The calibration itself is the
// same procedure run once on every residual.
//
// The fold rule: when the calibration makes one outer held-out fold worse
// than the engine without calibration (FoldBeforeDB) by more than
// MaxFoldWorseningDB (0.2 dB), every cell layer is shrunk toward the band
// levels, band + λ·(cell − band), with the largest λ of 0.75, 0.5, 0.25
// and 0 under which no fold is (λ 0: the band levels alone; if even they
// worsen a fold, the engine's calibration is refused, below); the
// cross-validated figures are those of the shrunk layers (λ is chosen on
// the outer folds, one number against five folds), the stored cells
// (offsets, sectors, local fields) are shrunk by the same λ, and the
// engine's calibration says so in Note.
//
// Refusals (the calibration is stored but never applied, with the reason):
// an engine whose cross-validated RMSE after is not below before, or one
// held-out fold whose RMSE gets worse by more than MaxFoldWorseningDB
// (0.2 dB); a cell whose own held-out residuals are not better, or whose
// layers the inner folds refused; a band level that no held-out
// transmitter tested or that did not improve. Too
// few blocks for the folds: the engine is not fitted (Reason says so).
//
// # Applying
//
// appliance.TenantCalibration.For picks, for an answer's engine,
// transmitter and frequency: the applied cell of the tower id on the band,
// else the nearest applied cell within CalibrationMatchM (30 m), else the
// band's applied level when the transmitter lies in its region (the box of
// the band's measurements widened by RegionMarginM, 5 km). The correction
// at a receiver is offset + slope·log10(d / 1 km) + the offset of the
// receiver's azimuth sector (when fitted) plus the local field of
// the receiver's square inside the calibrated area (squares with a
// weighted count of at least SupportMin). Every touched answer carries
// calibration {offset_db, n, cv_rmse_before_db, cv_rmse_after_db, …};
// a receiver outside the calibrated area, a band-wide offset, and every
// calibrated map (whose area is only part of it) carry the warning
// calibration_outside_area.
//
// # States
//
//	state        trigger                          condition                      next         effects
//	off          PUT enabled true                 tier ≥ Pro                     on, fitting  settings + audit calibration.enable; fit job queued
//	on, fitting  fit job succeeds                 tenant still opted in          on, fitted   calibration stored + audit calibration.fit; cache
//	on, fitting  fit job succeeds                 tenant opted out meanwhile     off          nothing stored (summary stored false)
//	on, fitted   consented observations stored    —                              on, fitting  refit queued (one waiting fit at most)
//	on, fitted   POST /coverage/calibration/fit   —                              on, fitting  refit queued (the waiting one returned)
//	on, *        PUT enabled false                —                              off          settings + audit calibration.disable;
//	                                                                                          fitted calibration deleted in the same
//	                                                                                          transaction; cache dropped
//	any          the tenant's hard delete (DSAR)  —                              (none)       store/privacy.go purges both buckets
//
// A fitted calibration whose engine verdict is refused stays stored (its
// figures are shown) and corrects nothing.
//
// # Caps
//
// Reports and fits need tier Pro or higher (as observations do; below:
// 403). One job reads at most MaxRows(tier) consented observations (Pro
// 20,000, Business 50,000, Enterprise 100,000, Ultra 200,000; the newest
// first; a report says truncated). A second report of a tenant while one
// is still queued is a conflict (409); a second fit returns the queued
// one. Jobs run on the tier's lane under the heavy-work scheduler, sized
// by Cost (32 MiB + 4 KiB per row of the tier's cap).
//
// # Evaluation
//
// linkplan calibrate eval splits the residuals' blocks in two halves
// (Halves: the distinct blocks sorted by H3 index, permuted with the
// seed, the first half trains) and applies the calibration fitted on the
// training half to the other exactly as the appliance applies it
// (Evaluate).
package calibration
