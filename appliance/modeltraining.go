package appliance

// ModelDecision is the recorded outcome of one retrain (appliance/training):
// whether the candidate models replaced the served ones, and the holdout
// replay that decided it. Decisions are global (they hold no tenant data)
// and keyed by the retrain's job id, so a re-run of the same job never
// records twice.
type ModelDecision struct {
	JobID         string `json:"job_id"`
	DecidedAtUnix int64  `json:"decided_at"` // epoch seconds
	// Trigger says why the retrain ran: "observations" (enough new
	// consented rows), "monitor" (with the monitor's reason), "cli".
	Trigger  string `json:"trigger"`
	Promoted bool   `json:"promoted"`
	// Reason is a one-line explanation of the decision.
	Reason string `json:"reason"`
	// NTrain and NHoldout are the candidate's training and holdout rows.
	NTrain   int `json:"n_train"`
	NHoldout int `json:"n_holdout"`
	// CandidateRMSEDB and ServedRMSEDB are the holdout RMSE of the local
	// ridge family (band model where one exists, else the global ridge);
	// ServedRMSEDB is nil when nothing was served.
	CandidateRMSEDB float64  `json:"candidate_rmse_db"`
	ServedRMSEDB    *float64 `json:"served_rmse_db"`
	// CandidateResidualRMSEDB and ServedResidualRMSEDB are the same for the
	// residual engine (baseline + GBM); nil when that side has none.
	CandidateResidualRMSEDB *float64 `json:"candidate_residual_rmse_db"`
	ServedResidualRMSEDB    *float64 `json:"served_residual_rmse_db"`
	// DataProvenance is the candidate's (synthetic, real, mixed or
	// unknown: real only for rows of attested sources, issue 20).
	DataProvenance string `json:"data_provenance"`
	// ModelDir is the directory name the promoted models were swapped in
	// from ("" when kept).
	ModelDir string `json:"model_dir,omitempty"`
}

// RetrainState is the training side's bookkeeping (store bucket
// model_training): the job id sequence of retrains and the consent-grant
// counts that trigger them.
type RetrainState struct {
	// Seq numbers the next retrain job (job_model_retrain_<Seq>); it moves
	// on when a retrain records its decision or a finished one is seen.
	Seq uint64 `json:"seq"`
	// GrantsAtLastTraining is the consent-grant counter when the corpus of
	// the last decided retrain was read.
	GrantsAtLastTraining uint64 `json:"grants_at_last_training"`
	// TriggeredAtGrants is the counter when the count trigger last queued a
	// retrain (it fires again only 1,000 grants later, whatever that
	// retrain's outcome).
	TriggeredAtGrants uint64 `json:"triggered_at_grants"`
	LastTrainedUnix   int64  `json:"last_trained_at"`
	LastJobID         string `json:"last_job_id"`
}

// FeatureSchema names the features of a learned model's input vector, in
// order. Version distinguishes layouts of the feature builder: SPEC §2.5's
// 17-feature vector and its 27-dimension extension with the clutter
// one-hot; an artifact of an older schema keeps loading and is served
// with the vector of its own schema. The feature builder
// (appliance/features) returns it and the model artifact (engines/ml,
// whose ml.FeatureSchema is this type) stores it, so the builder needs no
// learning package.
type FeatureSchema struct {
	Version int      `json:"version"`
	Names   []string `json:"names"`
}
