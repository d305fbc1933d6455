package telemetry

import "linkplan/appliance"

// Type is a family's Prometheus metric type.
type Type string

// Metric types.
const (
	Counter   Type = "counter"
	Gauge     Type = "gauge"
	Histogram Type = "histogram"
	// Untyped is a counter whose name promtool's lint refuses as a
	// counter (LLM_EGRESS_TOTAL: the _total suffix must be lower-case).
	Untyped Type = "untyped"
)

// Family declares one metric family.
type Family struct {
	Name string // the family's name; a histogram's samples add _bucket, _sum and _count
	Type Type
	Help string // one sentence with the unit, written as the HELP text
	// Labels names the labels of its series, in the order its samples
	// write them (a histogram's le excluded).
	Labels []string
	// Closed lists, for a counter whose labels all come from closed sets,
	// every label tuple (values in the order of Labels): each is exposed
	// at 0 until a source counts it. Nil for a family without labels or
	// with an open label.
	Closed [][]string
}

// Metric family names. The coverage_*, residual_* and LLM_EGRESS_TOTAL
// names are SPEC §4.9's; the linkplan_* names are the appliance's own.
const (
	HTTPRequests        = "linkplan_http_requests_total"
	HTTPRequestDuration = "linkplan_http_request_duration_seconds"

	JobsEnqueued = "linkplan_jobs_enqueued_total"
	JobsFinished = "linkplan_jobs_finished_total"
	JobsQueued   = "linkplan_jobs_queued"
	JobsRunning  = "linkplan_jobs_running"

	// RecoveredPanics counts the panics recovered in tenant work, by
	// component (RecoveredPanicComponents; appliance.Recoverer). Count one
	// with set.GetOrCreateCounter(telemetry.RecoveredPanicSeries(component)).Inc().
	RecoveredPanics = appliance.MetricRecoveredPanics

	ObservationsTotal = "coverage_observations_total"

	// Admission of heavy work (appliance/admission).
	AdmissionWaiting = "linkplan_admission_waiting"
	AdmissionRunning = "linkplan_admission_running"
	AdmissionWorkers = "linkplan_admission_workers"
	AdmissionMemory  = "linkplan_admission_memory_bytes"
	AdmissionRefused = "linkplan_admission_refused_total"

	// The raytrace worker (engines/raytrace/worker) and its units
	// (appliance/raytracing).
	RaytraceWorkerUp       = "linkplan_raytrace_worker_up"
	RaytraceWorkerRestarts = "linkplan_raytrace_worker_restarts_total"
	RaytraceUnits          = "linkplan_raytrace_units_total"
	// Backups (appliance/backup): the counter for every trigger; the
	// gauges describe the scheduled backups and exist only with a
	// schedule (the time and age only once one succeeded).
	Backups               = "linkplan_backups_total"
	BackupLastSuccessTime = "linkplan_backup_last_success_timestamp_seconds"
	BackupAge             = "linkplan_backup_age_seconds"
	BackupLastOK          = "linkplan_backup_last_ok"
	BackupLastDuration    = "linkplan_backup_last_duration_seconds"
	BackupLastBytes       = "linkplan_backup_last_size_bytes"
	// The warm standby (appliance/standby), on a standby only: its pulls
	// by result; the lag and the last pull's result once there is one;
	// whether a promotion would give a sound primary now.
	StandbyPulls          = "linkplan_standby_pulls_total"
	StandbyLag            = "linkplan_standby_lag_seconds"
	StandbyLastPullOK     = "linkplan_standby_last_pull_ok"
	StandbyReadyToPromote = "linkplan_standby_ready_to_promote"

	ModelRMSE             = "coverage_model_rmse_db"
	ModelCVRMSE           = "coverage_model_cv_rmse_db"
	ModelCVRMSEStd        = "coverage_model_cv_rmse_std_db"
	ModelCVFolds          = "coverage_model_cv_folds"
	ModelRMSEByMorphology = "coverage_model_rmse_by_morphology_db"
	ModelRMSEByBand       = "coverage_model_rmse_by_band_db"
	ObservationResidual   = "coverage_observation_residual_db"
	ConformalHalfWidth    = "residual_conformal_halfwidth_db"
	ConformalEmpirical    = "residual_conformal_empirical_coverage"
	ConformalNominal      = "residual_conformal_nominal_coverage"
	ConformalRegions      = "residual_conformal_regions"
	LLMEgress             = "LLM_EGRESS_TOTAL"

	// The tenants' calibrations (appliance/calibration).
	CalibrationFits        = "linkplan_calibration_fits_total"
	CalibrationTenants     = "linkplan_calibration_tenants"
	recoveredPanicsLabel   = "component"
	observationsTotalLabel = "source"
)

// RecoveredPanicComponents returns the closed set of the component label
// of RecoveredPanics: the places that recover tenant work (the component
// argument of appliance.Recoverer.Recover), each exposed at 0 from the
// start. A new place is added here; until it is, its series is still
// written under the family's HELP and TYPE, just not from the start.
func RecoveredPanicComponents() []string {
	out := []string{"batch.pdf", "batch.row", "coverage", "http", "jobs.loop"}
	for _, k := range jobKinds() {
		out = append(out, "jobs."+string(k))
	}
	out = append(out, "periodic.backup", "periodic.privacy", "periodic.refresh", "periodic.training", "repeater.edge", "training.featurise")
	// The work units the appliance's own worker computes (--queue
	// jetstream; appliance/units).
	return append(out, "units."+string(appliance.UnitBatchRows), "units."+string(appliance.UnitCoverageRadials))
}

// BackupTriggers is the closed set of the trigger label of Backups (the
// pre-migration backup runs before the metrics exist).
func BackupTriggers() []string {
	return []string{appliance.BackupTriggerCLI, appliance.BackupTriggerRoute, appliance.BackupTriggerScheduled, appliance.BackupTriggerStandby}
}

// jobKinds are the job kinds of the appliance (labels of the job families
// and of the jobs.<kind> panic components).
func jobKinds() []appliance.JobKind {
	return []appliance.JobKind{appliance.JobKindBatchReport, appliance.JobKindRepeaterPlan,
		appliance.JobKindDSARHardDelete, appliance.JobKindModelRetrain, appliance.JobKindRaytraceLink,
		appliance.JobKindObservationResiduals, appliance.JobKindCalibrationFit}
}

// raytraceUnits is the closed label set of RaytraceUnits (the kinds and
// outcomes of appliance/raytracing).
func raytraceUnits() [][]string {
	var out [][]string
	for _, k := range []string{"map_band", "point"} {
		for _, o := range []string{"canceled", "crashed", "error", "invalid", "ok", "unavailable"} {
			out = append(out, []string{k, o})
		}
	}
	return out
}

// CalibrationFitOutcomes are the outcome label values of CalibrationFits:
// an engine's calibration applied, refused (its cross-validated RMSE is not
// better), or not fitted (too few residuals or blocks).
func CalibrationFitOutcomes() []string { return []string{"applied", "refused", "not_fitted"} }

// CalibrationFitSeries is the series name of CalibrationFits for one
// engine and outcome (closed sets: CalibrationEngines, CalibrationFitOutcomes).
func CalibrationFitSeries(engine appliance.EngineID, outcome string) string {
	return CalibrationFits + `{engine=` + quote(string(engine)) + `,outcome=` + quote(outcome) + `}`
}

// CalibrationEngines are the engines a calibration covers (the engine
// label of CalibrationFits; appliance/calibration.ReportEngines).
func CalibrationEngines() []appliance.EngineID {
	return []appliance.EngineID{appliance.EngineFSPL, appliance.EngineP1812, appliance.EngineITM, appliance.EngineHybrid, appliance.EngineAuto}
}

// RecoveredPanicSeries is the series name of RecoveredPanics for one
// component of RecoveredPanicComponents, as metrics.Set.GetOrCreateCounter
// takes it.
func RecoveredPanicSeries(component string) string {
	return RecoveredPanics + `{` + recoveredPanicsLabel + `="` + component + `"}`
}

// ObservationsSeries is the series name of ObservationsTotal for one
// source label value (bounded by appliance/observations).
func ObservationsSeries(source string) string {
	return ObservationsTotal + `{` + observationsTotalLabel + `=` + quote(source) + `}`
}

// Families returns every metric family of the appliance, in the order
// /metrics writes them. It is the one declaration: a family missing here is
// a bug that the tests of web/api find.
func Families() []Family {
	kinds := jobKinds()
	lanes := []appliance.Lane{appliance.LanePriority, appliance.LaneStandard}
	terminal := []appliance.JobState{appliance.JobSucceeded, appliance.JobFailed, appliance.JobCanceled, appliance.JobExpired}
	var enqueued, finished [][]string
	for _, k := range kinds {
		for _, l := range lanes {
			enqueued = append(enqueued, []string{string(k), string(l)})
		}
		for _, s := range terminal {
			finished = append(finished, []string{string(k), string(s)})
		}
	}
	var backups [][]string
	for _, t := range BackupTriggers() {
		for _, r := range []string{"failed", "ok"} {
			backups = append(backups, []string{t, r})
		}
	}
	var panics [][]string
	for _, c := range RecoveredPanicComponents() {
		panics = append(panics, []string{c})
	}
	var fits [][]string
	for _, e := range CalibrationEngines() {
		for _, o := range CalibrationFitOutcomes() {
			fits = append(fits, []string{string(e), o})
		}
	}
	return []Family{
		{Name: HTTPRequests, Type: Counter, Labels: []string{"method", "route", "status"},
			Help: "HTTP requests answered, by method, route template and status code."},
		{Name: HTTPRequestDuration, Type: Histogram, Labels: []string{"method", "route"},
			Help: "Time from the start of a request to its answer, in seconds, by method and route template."},
		{Name: RecoveredPanics, Type: Counter, Labels: []string{recoveredPanicsLabel}, Closed: panics,
			Help: "Panics recovered while running tenant work (the work failed with an error; the process kept running), by component."},
		{Name: JobsEnqueued, Type: Counter, Labels: []string{"kind", "lane"}, Closed: enqueued,
			Help: "Jobs enqueued, by kind and lane."},
		{Name: JobsFinished, Type: Counter, Labels: []string{"kind", "state"}, Closed: finished,
			Help: "Jobs that reached a terminal state, by kind and state."},
		{Name: JobsRunning, Type: Gauge, Help: "Jobs running on this appliance's workers."},
		{Name: JobsQueued, Type: Gauge, Help: "Jobs waiting in the queue (both lanes)."},
		{Name: AdmissionWaiting, Type: Gauge, Help: "Heavy computations waiting for CPU workers and memory."},
		{Name: AdmissionRunning, Type: Gauge, Help: "Heavy computations admitted and running."},
		{Name: AdmissionWorkers, Type: Gauge, Labels: []string{"state"},
			Help: "Worker slots of heavy work: busy, and the total budget."},
		{Name: AdmissionMemory, Type: Gauge, Labels: []string{"state"},
			Help: "Memory of heavy work in bytes: reserved by running work, and the budget."},
		{Name: AdmissionRefused, Type: Counter, Labels: []string{"reason"}, Closed: [][]string{{"over_budget"}, {"queue_full"}},
			Help: "Heavy computations refused at submission, by reason."},
		{Name: RaytraceWorkerUp, Type: Gauge, Help: "1 while the raytrace worker process answers its health route, 0 while it starts, restarts or is stopped."},
		{Name: RaytraceWorkerRestarts, Type: Counter, Help: "Starts of the raytrace worker process after its first (it exited or did not answer)."},
		{Name: RaytraceUnits, Type: Counter, Labels: []string{"kind", "outcome"}, Closed: raytraceUnits(),
			Help: "Raytrace units sent to the executor (point: one link of a job; map_band: rows of a map), by outcome."},
		{Name: Backups, Type: Counter, Labels: []string{"trigger", "result"}, Closed: backups,
			Help: "Backups taken, by trigger (cli, route, scheduled, standby: a snapshot served to a warm standby) and result (ok: written and verified; failed)."},
		{Name: BackupLastSuccessTime, Type: Gauge, Help: "Time the newest good scheduled backup was taken, Unix seconds."},
		{Name: BackupAge, Type: Gauge, Help: "Age of the newest good scheduled backup, seconds."},
		{Name: BackupLastOK, Type: Gauge, Help: "Whether the latest scheduled backup attempt succeeded (1) or failed (0)."},
		{Name: BackupLastDuration, Type: Gauge, Help: "Wall time of the latest scheduled backup attempt, seconds."},
		{Name: BackupLastBytes, Type: Gauge, Help: "Size of the newest good scheduled backup file, bytes."},
		{Name: StandbyPulls, Type: Counter, Labels: []string{"result"}, Closed: [][]string{{"failed"}, {"ok"}},
			Help: "Snapshots a warm standby pulled from its primary, by result (ok: received and verified; failed)."},
		{Name: StandbyLag, Type: Gauge, Help: "How far a warm standby's last good snapshot is behind its primary (now minus the snapshot's read transaction), seconds."},
		{Name: StandbyLastPullOK, Type: Gauge, Help: "Whether a warm standby's latest pull succeeded (1) or failed (0)."},
		{Name: StandbyReadyToPromote, Type: Gauge, Help: "Whether promoting this warm standby would give a sound primary now (1) or not (0; GET /health/failover says why)."},
		{Name: ObservationsTotal, Type: Counter, Labels: []string{observationsTotalLabel},
			Help: "Coverage observations stored, by source label (at most 64 sources, the others as \"other\")."},
		{Name: ModelRMSE, Type: Gauge, Help: "In-sample RMSE of the served local model, dB (history only)."},
		{Name: ModelCVRMSE, Type: Gauge, Help: "Mean out-of-fold RMSE of the served local model, dB."},
		{Name: ModelCVRMSEStd, Type: Gauge, Help: "Standard deviation of the fold RMSEs of the served local model, dB."},
		{Name: ModelCVFolds, Type: Gauge, Help: "Cross-validation folds of the served local model."},
		{Name: ModelRMSEByMorphology, Type: Gauge, Labels: []string{"morphology"},
			Help: "Out-of-fold RMSE of the served local model per terrain morphology, dB."},
		{Name: ModelRMSEByBand, Type: Gauge, Labels: []string{"band"},
			Help: "Out-of-fold RMSE of the served local model per band, dB."},
		{Name: ObservationResidual, Type: Histogram,
			Help: "Residuals (observed - predicted) of consented observations with a model prediction, dB."},
		{Name: ConformalHalfWidth, Type: Gauge, Labels: []string{"scope"},
			Help: "Half-width of the residual engine's conformal band, dB, marginal and per macro-region."},
		{Name: ConformalEmpirical, Type: Gauge, Labels: []string{"scope"},
			Help: "Empirical coverage of the residual engine's conformal band on its calibration residuals, marginal and per macro-region."},
		{Name: ConformalNominal, Type: Gauge,
			Help: "Nominal coverage (1 - alpha) of the residual engine's band; 0 when no residual engine is served."},
		{Name: ConformalRegions, Type: Gauge, Help: "Macro-regions with a local (Mondrian) band in the residual engine."},
		{Name: CalibrationFits, Type: Counter, Labels: []string{"engine", "outcome"}, Closed: fits,
			Help: "Engine calibrations fitted for tenants, by engine and outcome (applied, refused by cross-validation, not fitted)."},
		{Name: CalibrationTenants, Type: Gauge, Help: "Tenants with a fitted calibration held for their answers."},
		// SPEC §4.9 spells the name upper-case; promtool refuses a counter
		// without a lower-case _total suffix, so the family is untyped (a
		// monotonic count all the same: rate() applies).
		{Name: LLMEgress, Type: Untyped, Labels: []string{"provider", "outcome"},
			Help: "Calls to the language model provider, by provider kind and outcome (ok, error, timeout); a counter."},
	}
}
