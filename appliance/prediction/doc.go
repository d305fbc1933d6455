// Package prediction is the serving side of the learned coverage models
// (SPEC §1.9, §2.4–2.6, §4.4, §4.9; issue 11): it holds the served model
// set, answers POST /coverage/predict through the fallback chain, and
// reports the models' grades, gates and conformal bands (GET
// /coverage/model/info, /coverage/claim-readiness, /coverage/effective-
// band, /coverage/promotion-readiness, /health/audit-gate) and their
// metrics. It knows nothing of HTTP: web/api decodes and calls one method.
// The training side (appliance/training) writes model directories and
// calls Reload.
//
// # Model set: states and transitions
//
// The set is swapped whole (an atomic pointer): a prediction reads one set
// from start to end, and a reload never shows half of one.
//
//	state                  trigger                  condition                                   next state             effect
//	(none)                 New                      Deps.Shipped given                          shipped                the shipped files load (an error is a build bug: New fails)
//	(none)                 New                      no Deps.Shipped                             empty                  only fspl answers
//	any                    Reload                   <ModelsDir>/current/ absent                 shipped (or empty)     live windows cleared if the residual model changed
//	any                    Reload                   current/ valid                              directory              swap; regression baseline = newest previous-<unix>/
//	any                    Reload                   current/ invalid                            unchanged              error matching ErrModelSet; the served set stays
//
// A directory is valid when every model file (ridge.json, ridge-<band>mhz.json for the seven bands of SPEC
// §2.5, residual.json) that exists reads with ml.ReadArtifact, its feature schema is one this server builds
// (KnownSchema: 1 and 2 of appliance/features with the same names in order, 100 and 101 the drive-test schemas), the
// local models are kind ridge on schema 1 or 2, the residual engine kind gbm, and no other *.json name is
// present. A missing file is no model of that role. Shipped files: drivetest-dortmund-lte.json (residual
// role) and ridge-synthetic-rio.json (ridge role).
//
// # Fallback chain (SPEC §2.5)
//
//	link                condition to answer                                                        model_source       confidence
//	external endpoint   model auto, URL configured, HTTP 200 within the timeout with a valid body  external-model     its confidence, else 0.55
//	residual engine     loaded, the receiver and frequency inside its envelope, features built    residual-gbm       0.75 (*)
//	local ridge         band model of SnapBandMHz(f), else the global one; inside its envelope    local-model        clip(1 − (cv_rmse_db − 8)/20, 0.3, 0.9) (*)
//	physics (fspl)      always, given terrain                                                       physics-fallback   0.55
//
// (*) A served model that claims no field accuracy (grade
// pipeline_validation_only: trained on synthetic, mixed or unattested
// rows, or without a cv_rmse) answers with its confidence capped at the
// fspl fallback's 0.55 and a warning of code model_not_field_validated
// that names its provenance (issue 20: the synthetic Rio ridge answered
// every Brazilian query with 0.9). The external endpoint keeps the
// confidence it reports (SPEC §2.4; the operator configured it) and its
// data_provenance is unknown. warnings is never null.
//
// model "residual" starts at the residual engine, "ridge" at the ridge
// model, "physics" at fspl; "auto" (default) at the external endpoint.
// Every link that does not answer adds its reason to fallback_reason
// (down, slow, malformed; "refused to extrapolate: outside the calibrated
// area …"; "no terrain covers the path"). A learned model never
// extrapolates: outside its envelope (ml.Envelope.Contains at the
// receiver: the training side writes the hull of its receivers, its
// bands and its baseline's validity) it refuses and envelope {inside:
// false, reason} is on the answer; a model without an envelope (an
// earlier build's) refuses everywhere (NoEnvelopeReason). The residual engine over the hybrid baseline gives
// signal = EIRP − L_hybrid + gbm(x) (its target is observed − baseline
// level; the hybrid answers through the registry's fspl fallback outside
// its validity, as the training side computes the baseline); a drive-test
// model (schema 100 or 101) predicts the level directly from its
// schema's features (ml.DriveTestFeatures, DriveTestFeaturesV2) and needs no terrain, so it answers even where no
// terrain pack exists. The ridge model predicts the level from its
// features. Learned models answer the measured level; EIRP = tx_power_dbm
// + tx_gain_dbi + rx_gain_dbi − cable_loss_db and path_loss_db = EIRP −
// signal_dbm on every answer. Only fspl's own needs fail a query: a path
// without terrain is appliance.ErrTerrainMissing (422), never sea level.
//
// # Conformal band of an answer
//
// The residual artifact's band for the receiver's macro-region
// (Deps.RegionAt: the nearest municipality seat, "" outside Brazil): the
// local Mondrian band with mondrian true when the artifact has one, else
// the marginal band. When the artifact has a band for unseen
// transmitters (ml.UnseenBand) and the query's transmitter is not among
// the training ones (UnseenBand.Saw: site to 1e-4° and carrier to 0.1
// MHz), the half-width
// is the larger of the two and unseen is true (issue 20: the ordinary band
// covered 0.854 of an unseen operator's rows at nominal 0.90). The live
// band may widen it further: per signal class of the
// predicted level (strong >= −80 dBm, medium, weak < −100 dBm) the last
// LiveWindow residuals fed by ObserveResidual give a conformal half-width
// at the artifact's alpha (from 19 residuals); the applied half-width is
// the larger of the two. loss_interval_db = [L − h, L + h]: hi is the
// larger loss. The windows are fed by Observe (the composition root calls
// it for the consented rows the observation store commits, at most 256 a
// submission): the served residual engine predicts the row's link and the
// residual is recorded when it answered inside its envelope and the row's
// metric is what it predicts (RSRP for a drive-test model; a wideband
// level, never RSRP or RSCP, for a residual over the hybrid). The windows
// restart when the residual model changes; the residual histogram
// (coverage_observation_residual_db) counts on.
//
// # Drift monitor
//
// After each recorded residual, the class's window is judged once it holds
// DriftMinResiduals (100): when fewer than coverage − DriftTolerance
// (0.85 for a 90 % band) of its residuals lie inside the artifact's
// marginal band, Deps.OnDrift is told why, once per residual model (a
// reload with a new residual model re-arms it). The composition root
// queues a retrain with it (appliance/training MonitorFired).
//
// # Grades and gates (SPEC §2.6)
//
//	rule                         condition                                                          result
//	served data_provenance       the artifact's; real only while its attestation is status attested  real, or unknown
//	grade                        data_provenance != real, or no cv_rmse                              pipeline_validation_only, field_accuracy_claim false
//	grade                        real, cv_rmse <= 8 dB / <= 12 dB / > 12 dB                          planejamento / triagem / screening, claim true
//	sole-source gate             cv_rmse < 8 dB and n_train >= 5,000 with data_provenance real       sole_source_eligible
//	promotion gate               sole source, and every macro-region a Mondrian band of >= 100       promotion_eligible
//	                             rows, every band and morphology an out-of-fold RMSE, cv_rmse not
//	                             above the previous set's, empirical coverage >= nominal
//
// A physics answer has data_provenance none and grade
// pipeline_validation_only.
//
// Attestation (AttestationInfo, on model info, claim readiness and the
// audit gate): attested when every training row is of an attested source
// (ml.Attestation.AttestedRows = n_train) and every appliance-scoped one
// still stands in Deps.Attestations (read when the set loads: the attest
// command runs with the appliance stopped); partial, none, or withdrawn
// (an appliance attestation withdrawn since, or unreadable). A build-scoped
// attestation (the shipped Dortmund model's, made by `linkplan model
// train --attest-basis`) has no appliance record to withdraw.
//
// # Who may call
//
// Predict: tier Pro or higher (admin keys too); Free and Starter get
// appliance.ErrForbidden. ModelInfo: any authenticated key. The readiness
// reports and the audit gate are public: they hold model figures and
// aggregate residuals, no tenant data.
package prediction
