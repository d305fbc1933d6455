package assemble

import (
	"linkplan/appliance/basemap"
	"log/slog"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/admission"
	"linkplan/appliance/ai"
	"linkplan/appliance/backup"
	"linkplan/appliance/batch"
	"linkplan/appliance/decodebudget"
	"linkplan/appliance/observations"
	"linkplan/appliance/prediction"
	"linkplan/engines/raytrace/worker"
	"linkplan/web/api"
)

// Config is everything the assembly needs: serve fills it from its flags,
// tests from TestOptions and temporary directories. The zero value of
// every field but DataDir is a working default.
type Config struct {
	DataDir string
	Packs   []string // terrain pack files; none: the embedded Rio de Janeiro sample
	// Basemap is the operator's PMTiles archive (serve --basemap), opened
	// and closed by the caller; nil: none.
	Basemap         *basemap.External
	TowerFiles      []string // tower files; none (and none installed): the embedded samples
	RefreshInterval time.Duration
	RefractivityDir string // ITU-R P.1812 DN50/N050 map files; "" = documented Brazil defaults
	SSO             SSOConfig
	BillingSecret   string // file holding the payment webhook's signing secret; "" = no webhook
	Log             *slog.Logger
	// Version is the binary's version (backups, standby snapshots, the
	// engines digest, /health).
	Version      string
	Observations observations.Config // signature enforcement and dedup window
	// AI is the language model of the AI routes; nil: the built-in
	// template explainer only, and no outbound call.
	AI ai.Provider
	// ModelEndpoint is the external model endpoint of POST
	// /coverage/predict (the first link of the fallback chain); a zero URL:
	// none.
	ModelEndpoint prediction.External
	// Heavy is the budget of heavy work (coverage maps, batch and repeater
	// jobs): appliance/admission; zero values take its defaults.
	Heavy admission.Options
	// Queue is the job queue backend: QueueBBolt ("" too) or
	// QueueJetStream (NATS below).
	Queue string
	// NATS is how the jetstream queue reaches its server.
	NATS NATSConfig
	// DecodeBudget is the memory, bytes, that decoding request bodies may
	// hold at once over all requests; 0: decodebudget.DefaultLimit.
	DecodeBudget int64
	// Raytrace is the raytrace engine's executor; neither set: requests
	// that name the raytrace engine answer 503.
	Raytrace RaytraceConfig
	// Backup schedules backups (a zero Dir: none) and says where the
	// pre-migration backup goes.
	Backup BackupConfig
	// CheckDB checks a database file's structure (backups verify each
	// file with it); nil: store.CheckFile in this process. serve passes
	// its child-process check (a fault on a damaged page ends the child).
	CheckDB backup.Checker
	// Test holds what only tests set.
	Test TestOptions
}

// RaytraceConfig is the executor of the raytrace engine.
type RaytraceConfig struct {
	// NewWorker prepares (does not start) the supervisor of the raytrace
	// worker process and returns it with the cleanup of what it made;
	// onUp and onRestart feed the worker's metrics. serve: this binary
	// run as `linkplan raytrace-worker`. Start starts it.
	NewWorker func(onUp func(bool), onRestart func()) (*worker.Supervisor, func(), error)
	// Executor runs the engine without a worker process (tests:
	// worker.NewInProcess); used when NewWorker is nil.
	Executor worker.Executor
}

// BackupConfig configures the scheduled backups (serve --backup-*).
type BackupConfig struct {
	Dir   string        // "" = no schedule
	Every time.Duration // interval
	Keep  int           // rotation
}

// TestOptions are the assembly's test seams. Each replaces one part with
// a fake that only a test may want (a clock, a failing store); the rest
// of the assembly is serve's. The zero value is serve.
type TestOptions struct {
	// Now is the clock of every service that reads one (tenancy TOTP
	// steps, quotas, audit times); nil: time.Now.
	Now func() time.Time
	// JobPollInterval and JobWorkers tune the job queue (jobs.Options);
	// zero: its defaults.
	JobPollInterval time.Duration
	JobWorkers      int
	// Unmetered leaves out the quota service (nothing metered, no PDF
	// reservation, GET /v1/me/quota not served).
	Unmetered bool
	// NoSchedules: Start starts the job workers, the quota flush and the
	// raytrace worker, but not the periodic schedules (tower refresh,
	// backups, the privacy sweep, the retrain trigger), whose jobs would
	// interleave with a test's own.
	NoSchedules bool
	// Offline reports the appliance offline whatever is configured (the
	// tests' identity provider is a local test server, not an outbound
	// dependency).
	Offline bool
	// Decode replaces the decode budget (a test reads what it holds).
	Decode *decodebudget.Budget
	// The wrappers below replace one dependency by a wrapper of the real
	// one (fault injection); nil: the real one.
	WrapTowers     func(appliance.TowerIndex) appliance.TowerIndex // every reader of the tower index
	WrapTowerStore func(api.TowerStore) api.TowerStore             // the store of POST /towers
	WrapAuth       func(api.Authenticator) api.Authenticator       // the API's authenticator
	WrapBatchQueue func(batch.Enqueuer) batch.Enqueuer             // the batch service's queue
}
