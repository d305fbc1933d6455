package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
	"linkplan/appliance/admission"
	"linkplan/appliance/ai"
	"linkplan/appliance/auditlog"
	"linkplan/appliance/backup"
	"linkplan/appliance/basemap"
	"linkplan/appliance/batch"
	"linkplan/appliance/buildings"
	"linkplan/appliance/calibration"
	"linkplan/appliance/catalog"
	"linkplan/appliance/coverage"
	"linkplan/appliance/datamanifest"
	"linkplan/appliance/decodebudget"
	"linkplan/appliance/equipment"
	"linkplan/appliance/interference"
	"linkplan/appliance/jobs"
	"linkplan/appliance/observations"
	"linkplan/appliance/planner"
	"linkplan/appliance/prediction"
	"linkplan/appliance/privacy"
	"linkplan/appliance/ptp"
	"linkplan/appliance/quota"
	"linkplan/appliance/raytracing"
	"linkplan/appliance/refresh"
	"linkplan/appliance/repeater"
	"linkplan/appliance/standby"
	"linkplan/appliance/telemetry"
	"linkplan/appliance/tenancy"
	"linkplan/appliance/training"
	"linkplan/appliance/units"
	"linkplan/engines"
	"linkplan/engines/itur"
	"linkplan/engines/ml/shipped"
	"linkplan/engines/raytrace"
	"linkplan/engines/raytrace/worker"
	"linkplan/store"
	"linkplan/store/jsq"
	"linkplan/store/search"
	"linkplan/store/spatial"
	"linkplan/web/api"
)

// config is what serve needs to boot.
type config struct {
	DataDir         string
	Packs           []string
	Basemap         *basemap.External // serve --basemap; nil: none
	TowerFiles      []string
	RefreshInterval time.Duration
	RefractivityDir string // ITU-R P.1812 DN50/N050 map files; "" = documented Brazil defaults
	SSO             ssoConfig
	BillingSecret   string // file holding the payment webhook's signing secret; "" = no webhook
	Log             *slog.Logger
	Observations    observations.Config // signature enforcement and dedup window
	// AI is the language model of the AI routes; a zero URL: the built-in
	// template explainer only, and no outbound call.
	AI aiConfig
	// ModelEndpoint is the external model endpoint of POST
	// /coverage/predict (the first link of the fallback chain); a zero URL:
	// none.
	ModelEndpoint prediction.External
	// Heavy is the budget of heavy work (coverage maps, batch and repeater
	// jobs): appliance/admission; zero values take its defaults.
	Heavy admission.Options
	// Queue is the job queue backend: queueBBolt ("" too) or
	// queueJetStream (NATS below).
	Queue string
	// NATS is how the jetstream queue reaches its server.
	NATS natsConfig
	// DecodeBudget is the memory, bytes, that decoding request bodies may
	// hold at once over all requests; 0: decodebudget.DefaultLimit.
	DecodeBudget int64
	// Raytrace runs the raytrace worker (serve); disabled: requests that
	// name the raytrace engine answer 503.
	Raytrace raytraceWorkerConfig
	// Backup schedules backups (a zero Dir: none) and says where the
	// pre-migration backup goes.
	Backup backupConfig
}

// aiConfig configures the AI routes' language model provider.
type aiConfig struct {
	ProviderURL string        // OpenAI-compatible server root (llama-server, Ollama); "" none
	Model       string        // the model it answers with; required with ProviderURL
	Timeout     time.Duration // per provider call; 0: ai.DefaultTimeout
}

// provider builds the configured provider, nil when none.
func (c aiConfig) provider() (ai.Provider, error) {
	if c.ProviderURL == "" {
		return nil, nil
	}
	if c.Model == "" {
		return nil, fmt.Errorf("--ai-model is required with --ai-provider-url: %w", errUsage)
	}
	p, err := ai.NewClient(c.ProviderURL, c.Model, c.Timeout)
	if err != nil {
		return nil, fmt.Errorf("--ai-provider-url: %w", err)
	}
	return p, nil
}

// app is the assembled appliance.
type app struct {
	db       *store.DB
	ter      *terrainSet
	index    *spatial.Index
	refresh  *refresh.Service
	search   *search.Index
	api      *api.API
	jobs     *jobs.Service
	privacy  *privacy.Service
	training *training.Service
	quota    *quota.Service
	log      *slog.Logger
	batch    *batch.Service
	maps     *coverage.Maps
	heavy    *admission.Scheduler // admits the heavy work of maps and jobs under one budget
	plans    *repeater.Submitter
	calib    *calibration.Service // the tenants' residual reports and calibrations
	// predictions serves the learned models; its Reload is the hook the
	// training side calls after swapping <data dir>/models/current in.
	predictions     *prediction.Service
	credentialsPath string
	nats            *natsLink // --queue jetstream: the connection and the embedded server
	inputs          *inputSet // --queue jetstream: the digests announced to workers
	units           *jsq.Executor
	runners         units.Runners // the unit runners of the appliance's own worker
	rec             *appliance.Recoverer
	stopWorker      func()                // stops the appliance's own unit worker
	data            *datamanifest.Service // terrain packs and tower sources by SHA-256
	// The raytrace worker process (nil when disabled) and the service of
	// the raytrace engine's requests.
	rtw        *worker.Supervisor
	rtwCleanup func()
	raytrace   *raytracing.Service
	// backups takes the scheduled backups and those of POST /admin/backup
	// and the admin socket.
	backups *backup.Service
}

// boot assembles the appliance in start order: store, terrain, towers and
// indexes, engines, API. The caller starts serving and then marks it ready.
func boot(ctx context.Context, cfg config) (*app, error) {
	log := cfg.Log
	a := &app{log: log}
	// The appliance's one metrics set; every goroutine that runs tenant
	// work recovers its panics through rec, which logs each once with its
	// stack and counts it by component.
	mset := metrics.NewSet()
	rec := &appliance.Recoverer{Log: log, Count: func(component string) {
		mset.GetOrCreateCounter(telemetry.RecoveredPanicSeries(component)).Inc()
	}}
	// A file of an older schema is backed up before it is migrated
	// (issue 21, scope 6); one of a newer schema is refused, naming both
	// versions (appliance.ErrNewerSchema: exit status 3).
	db, err := store.Open(cfg.DataDir, store.Options{BeforeMigrate: preMigrationBackup(ctx, backupDirOf(cfg.DataDir, cfg.Backup.Dir), log.Info)})
	if err != nil {
		return nil, err
	}
	a.db = db
	ok := false
	defer func() {
		if !ok {
			a.close()
		}
	}()
	// Bootstrap may rewrite the database file (compaction after sealing a
	// clear TOTP secret), so it runs before anything else holds db. Only
	// store errors stop start-up; an unusable credentials file is logged.
	auth := tenancy.New(db, nil).WithLog(log)
	path, created, err := auth.Bootstrap(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	a.credentialsPath = path
	if created {
		log.Info("created admin credentials; keep this file safe", "path", path)
	} else {
		log.Info("admin credentials", "path", path)
	}

	ter, terrainDesc, err := openTerrain(cfg.Packs)
	if err != nil {
		return nil, err
	}
	a.ter = ter
	reg, err := engines.New(engines.Config{RefractivityDir: cfg.RefractivityDir})
	if err != nil {
		return nil, err
	}
	if cfg.Queue == queueJetStream {
		// The digests of what units compute on, announced to workers.
		if a.inputs, err = newInputSet(ter, reg, cfg.RefractivityDir); err != nil {
			return nil, err
		}
	}

	gaz, err := catalog.EmbeddedGazetteer()
	if err != nil {
		return nil, err
	}
	a.index = spatial.New(nil)
	// Search (bleve) is derived data: the tower index persists in the data
	// directory and is reused when the catalogue fingerprint matches, else
	// rebuilt in the background (tower search answers 503 meanwhile).
	a.search = search.New(searchPlaces(gaz), search.Options{Dir: filepath.Join(cfg.DataDir, "search"), Address: func(t *appliance.Tower) string { return t.Address }})
	if err := a.search.Open(ctx); err != nil {
		return nil, fmt.Errorf("open search index: %w", err)
	}
	rs := refresh.New(gaz, log)
	rs.Recorder = db
	rs.Recover = rec
	if cfg.RefreshInterval > 0 {
		rs.Interval = cfg.RefreshInterval
	}
	srcs, discover, synthetic, err := towerSetup(cfg.DataDir, cfg.TowerFiles, ter)
	if err != nil {
		return nil, err
	}
	rs.Sources, rs.Discover = srcs, discover
	// One lock orders catalogue swaps and tower registrations: a swap reads
	// the user towers from the store under it, and a registration (committed
	// before) adds its tower under it, so neither can lose the other's work.
	var catalogMu sync.Mutex
	rs.Apply = func(ts []*appliance.Tower) error {
		catalogMu.Lock()
		defer catalogMu.Unlock()
		user, err := db.UserTowers()
		if err != nil {
			return err
		}
		all := append(append(append(make([]*appliance.Tower, 0, len(ts)+len(synthetic)+len(user)), ts...), synthetic...), user...)
		a.index.Replace(all)
		if a.inputs != nil {
			a.inputs.setTowers(all[:len(ts)+len(synthetic)]) // the public towers: what a worker loads
		}
		if err := a.search.ReplaceTowersInBackground(catalogFingerprint(all), all); err != nil {
			log.Warn("tower search index not rebuilt", "err", err)
		}
		return nil
	}
	log.Info("loading tower sources", "files", len(srcs))
	if _, err := rs.RefreshOnce(ctx, true); err != nil {
		return nil, fmt.Errorf("load towers: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err // stopped: the rest of the assembly is not needed
	}
	a.refresh = rs
	// The data files in use, hashed in the background from now on.
	a.data = newDataManifest(cfg, ter, discover == nil, db, log) // no discovery: the embedded samples
	if err := a.data.Start(ctx); err != nil {
		return nil, err
	}

	// reg.WithFallback hands fspl ("" too) over unwrapped: it declares the
	// free-space bound the planner prunes with. Every other engine answers
	// through the fspl fallback when asked outside its validity range
	// (SPEC §2.5).
	towers := func() appliance.TowerIndex { return a.index }
	plan := planner.New(ter, towers, reg.WithFallback)
	// The equipment catalogue: the planner, the maps and the relay plans
	// read towers' catalogue antennas through it.
	equip := equipment.New(db, nil)
	plan.Antennas = equip
	// Point-to-point links: the tenants' equipment, the engines with their
	// fallback, and the ITU-R maps of the availability (embedded, ~20 ms).
	ituMaps, err := itur.LoadMaps()
	if err != nil {
		return nil, fmt.Errorf("load the ITU-R maps: %w", err)
	}
	links := ptp.New(ter, reg.WithFallback, equip, ituMaps)
	links.TerrainDescription = terrainDesc

	// Backups: verified snapshots of the database, scheduled when
	// --backup-dir is set, else on demand into the data directory (the
	// file is unlinked as soon as it is open for streaming). Their
	// manifests name the data files in use by the data manifest's hashes.
	scratch := cfg.Backup.Dir
	if scratch == "" {
		scratch = cfg.DataDir
	}
	if a.backups, err = backup.New(&backup.Writer{DB: db, Check: checkIsolated, Version: version(),
		Inputs: func(ctx context.Context) ([]appliance.DataFile, []appliance.DataFile, error) {
			return dataFiles(ctx, a.data)
		}},
		backup.Options{Dir: cfg.Backup.Dir, Every: cfg.Backup.Every, Keep: cfg.Backup.Keep, Scratch: scratch,
			Log: log, Metrics: mset, Audit: db.AppendAudit, Recover: rec}); err != nil {
		return nil, err
	}
	// The job queue lives in the database; finished bundles are files
	// under the data directory. Workers start with serve, after the API is
	// ready, and drain before the database closes.
	// One scheduler admits all heavy work: maps, batch and repeater jobs
	// (a raytrace job joins in jobCost below) under one budget of worker
	// slots and memory; cheap routes never pass through it.
	heavy := cfg.Heavy
	heavy.Metrics = mset
	a.heavy = admission.New(heavy)
	jobCost := func(j *appliance.Job) (appliance.HeavyWork, bool) {
		switch j.Kind {
		case appliance.JobKindBatchReport:
			return a.batch.Cost(j)
		case appliance.JobKindRepeaterPlan:
			return a.plans.Cost(j)
		case appliance.JobKindRaytraceLink:
			if a.raytrace != nil {
				return a.raytrace.Cost(j)
			}
		case appliance.JobKindObservationResiduals, appliance.JobKindCalibrationFit:
			return a.calib.Cost(j)
		}
		return appliance.HeavyWork{}, false // light jobs: privacy sweep; retraining has its own trigger
	}
	// --queue jetstream: the job records stay in the database (the
	// ledger); each lease is also a JetStream message (store/jsq).
	var queue appliance.JobQueue = db
	a.rec = rec
	if cfg.Queue == queueJetStream {
		if a.nats, err = startNATS(ctx, cfg.DataDir, cfg.NATS, log); err != nil {
			return nil, err
		}
		jq, err := jsq.NewJobQueue(ctx, db, a.nats.nc, a.nats.cfg, log)
		if err != nil {
			return nil, err
		}
		queue = jq
		// Heavy work as units (store/jsq): published to the unit stream,
		// computed by the appliance's own worker (serve starts it) and by
		// `linkplan worker` processes, merged here once each.
		if a.units, err = jsq.NewExecutor(ctx, a.nats.nc, a.nats.cfg, 0, log); err != nil {
			return nil, err
		}
		a.inputs.onChange = func(in appliance.Inputs) {
			actx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := jsq.Announce(actx, a.nats.nc, a.nats.cfg, in); err != nil {
				log.Warn("inputs not announced to workers", "err", err)
			}
		}
		a.inputs.onChange(a.inputs.Inputs())
	}
	a.jobs = jobs.New(queue, filepath.Join(cfg.DataDir, "jobs"), jobs.Options{Metrics: mset, Log: log, Recover: rec,
		Admission: a.heavy, Cost: jobCost})
	a.batch = batch.New(batch.Deps{
		Analyzer: plan, Queue: a.jobs, Quota: db, Terrain: terrainDesc,
		ResolveEngine: func(k *appliance.APIKey, id appliance.EngineID) (appliance.EngineID, string, error) {
			return api.ResolveEngine(reg, k, id)
		},
		NewID:            jobs.NewID,
		MaxInterruptions: jobs.DefaultMaxInterruptions,
		Recover:          rec,
	})
	if a.units != nil {
		a.batch.UseUnits(a.units, a.inputs.Inputs, func(ctx context.Context, tenantID string) ([]*appliance.Tower, error) {
			user, err := db.UserTowers()
			var own []*appliance.Tower
			for _, t := range user {
				if t.OwnerTenantID == tenantID {
					own = append(own, t)
				}
			}
			return own, err
		}, equip)
	}
	a.jobs.Register(appliance.JobKindBatchReport, a.batch.Handler())
	repeaters := repeater.New(ter, towers, reg.WithFallback, 0)
	repeaters.Recover = rec
	repeaters.Antennas = equip
	a.plans = &repeater.Submitter{Plans: repeaters, Queue: a.jobs,
		NewID: jobs.NewID, MaxInterruptions: jobs.DefaultMaxInterruptions}
	a.jobs.Register(appliance.JobKindRepeaterPlan, a.plans.Handler())
	// The tenants' measured-versus-predicted reports and calibrations
	// (issue 26): jobs on the same queue, on the appliance's terrain and
	// the engines the link routes use; a fitted calibration reaches the
	// answers through the planner and the coverage maps (one hook each).
	a.calib = calibration.New(calibration.Deps{Store: db, Queue: a.jobs, NewID: jobs.NewID, TerrainDescription: terrainDesc, Log: log,
		Predictor: &calibration.Predictor{Terrain: ter, Engine: reg.WithFallback, Choose: reg.Choose}, Workers: runtime.GOMAXPROCS(0),
		OnFit: func(c *appliance.TenantCalibration) {
			for _, e := range c.Engines {
				outcome := "refused"
				switch {
				case e.Applied:
					outcome = "applied"
				case len(e.Cells) == 0:
					outcome = "not_fitted"
				}
				mset.GetOrCreateCounter(telemetry.CalibrationFitSeries(e.Engine, outcome)).Inc()
			}
		}})
	if err := a.calib.Open(ctx); err != nil {
		return nil, err
	}
	mset.NewGauge(telemetry.CalibrationTenants, func() float64 { return float64(a.calib.Tenants()) })
	plan.Calibrations = a.calib
	a.jobs.Register(appliance.JobKindObservationResiduals, a.calib.ReportHandler())
	a.jobs.Register(appliance.JobKindCalibrationFit, a.calib.FitHandler())
	// Privacy requests: the daily hard delete is a job on the same queue;
	// the scheduler that queues it starts with serve.
	jobsDir := filepath.Join(cfg.DataDir, "jobs")
	a.privacy = privacy.New(db, a.jobs, func(k *appliance.APIKey, code string, c privacy.Client) error {
		return auth.VerifyAdminFrom(k, code, tenancy.Client(c))
	}, privacy.Options{Log: log, Recover: rec, RemoveResult: func(name string) error {
		err := os.Remove(filepath.Join(jobsDir, filepath.Base(name)))
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}, TowersDeleted: func(ids []string) {
		catalogMu.Lock()
		defer catalogMu.Unlock()
		a.index.Delete(ids...)
		for _, id := range ids {
			// "" as fingerprint: the next start re-indexes the full set.
			if err := a.search.DeleteTower(context.Background(), "", id); err != nil {
				log.Warn("tower search index not updated", "tower", id, "err", err)
			}
		}
	}})
	a.jobs.Register(appliance.JobKindDSARHardDelete, a.privacy.Handler())
	// Retraining of the learned models (issue 11): a job on the same
	// queue, queued by the count trigger (started with serve) or the
	// effective-band monitor; after a swap it reloads the serving side
	// (a.predictions, assembled below, before any job runs).
	reload := func(ctx context.Context) error { return a.predictions.Reload(ctx) }
	if a.training, err = newTraining(db, a.jobs, ter, reg, gaz, cfg.DataDir, shipped.FS(), reload, log, rec); err != nil {
		return nil, err
	}
	a.jobs.Register(appliance.JobKindModelRetrain, a.training.Handler())
	// Coverage maps compute in memory, on the strict engines (no fspl
	// fallback: a prefix outside an engine's validity is no-data, counted).
	// Finished maps live in <data dir>/maps (rasters out of memory, and
	// they survive a restart within the retention).
	covSvc := coverage.New(ter, reg.Get)
	mopts := coverage.MapsOptions{Admitter: a.heavy, Dir: filepath.Join(cfg.DataDir, "maps"), Log: log, Metrics: mset}
	if a.units != nil {
		mopts.Units, mopts.Inputs = a.units, a.inputs.Inputs
		// The appliance's own worker computes units on the same engines
		// and terrain; the planner sees every tower (each unit's rows are
		// scoped to its tenant by the planner's visibility rule).
		a.runners = units.Runners{appliance.UnitCoverageRadials: covSvc,
			appliance.UnitBatchRows: batch.RowsRunner{Analyzer: func([]*appliance.Tower, appliance.AntennaCatalogue) batch.LinkAnalyzer { return plan }, Workers: 1, Recover: rec}}
	}
	a.maps = coverage.NewMaps(covSvc, mopts)
	if err := a.maps.Open(); err != nil {
		return nil, err
	}
	// Building layers for the raytrace engine: each layer's scene is built
	// once and cached (16 layers), on the terrain packs. The raytrace
	// worker computes the engine's units in its own process (serve starts
	// it): link jobs on the queue, maps through the map registry.
	layerIndex := &raytrace.LayerIndex{Cache: raytrace.NewCache(16), Terrain: ter}
	var raytracer api.Raytracer
	var rtwCheck []api.Check
	if cfg.Raytrace.Enabled {
		up := 0.0
		var upMu sync.Mutex
		mset.NewGauge(telemetry.RaytraceWorkerUp, func() float64 { upMu.Lock(); defer upMu.Unlock(); return up })
		restarts := mset.GetOrCreateCounter(telemetry.RaytraceWorkerRestarts)
		sup, cleanup, err := newRaytraceSupervisor(cfg.DataDir, cfg.Raytrace, log, func(ok bool) {
			upMu.Lock()
			defer upMu.Unlock()
			up = 0
			if ok {
				up = 1
			}
		}, restarts.Inc)
		if err != nil {
			return nil, err
		}
		a.rtw, a.rtwCleanup = sup, cleanup
		a.raytrace = &raytracing.Service{Layers: db, Scenes: layerIndex, Executor: sup.Client(), Queue: a.jobs, Maps: a.maps, Towers: towers,
			NewID: jobs.NewID, MaxInterruptions: jobs.DefaultMaxInterruptions, Metrics: mset, Log: log}
		a.jobs.Register(appliance.JobKindRaytraceLink, a.raytrace.Handler())
		raytracer = a.raytrace
		rtwCheck = append(rtwCheck, api.Check{Name: "raytrace_worker", Fn: sup.Check, Advisory: true, Kind: "local_process"})
	}

	obsConfig := cfg.Observations
	obsConfig.Metrics = mset
	// Quotas and rate limits: counts in memory, flushed to the store each
	// second by the loop serve starts, and by close (appliance/quota).
	a.quota = quota.New(db, quota.Options{Log: log})

	ts, err := newTenantServices(ctx, db, auth, cfg.SSO, cfg.BillingSecret, log)
	if err != nil {
		return nil, err
	}
	// The interfaces stay nil (not a typed nil) when not configured.
	var ssoDep api.SSO
	if ts.sso != nil {
		ssoDep = ts.sso
	}
	var billingDep api.Billing
	if ts.billing != nil {
		billingDep = ts.billing
	}
	aiProvider, err := cfg.AI.provider()
	if err != nil {
		return nil, err
	}
	terrainID, err := ter.identity()
	if err != nil {
		return nil, err
	}
	tiles, err := basemap.New(ter, basemap.Options{Identity: terrainID})
	if err != nil {
		return nil, err
	}
	// The learned models: <data dir>/models/current/ when the training
	// side has written one, else the models shipped in the binary. A bad
	// directory is logged and the shipped set serves.
	a.predictions, err = prediction.New(prediction.Deps{Terrain: ter, Clutter: ter, Engines: reg.WithFallback,
		Tower: func(tenantID, id string) (*appliance.Tower, bool) {
			t, ok := towers().Get(id)
			if !ok || !t.VisibleTo(tenantID) {
				return nil, false
			}
			return t, true
		},
		RegionAt:  regionAtOf(gaz),
		External:  cfg.ModelEndpoint,
		ModelsDir: filepath.Join(cfg.DataDir, "models"), Shipped: shipped.FS(), Metrics: mset, Log: log,
		Attestations: db.SourceAttestations,
		// The live band's drift monitor queues a retrain.
		OnDrift: func(ctx context.Context, reason string) {
			if _, err := a.training.MonitorFired(ctx, reason); err != nil {
				log.Warn("retrain not queued by the drift monitor", "err", err)
			}
		}})
	if err != nil {
		return nil, err
	}
	if err := a.predictions.Reload(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		log.Warn("model directory not loaded; the shipped models serve", "err", err)
	}
	src := standby.NewSource(standby.SourceDeps{DataDir: cfg.DataDir, Take: a.backups.Take, Audit: db.AppendAudit, Version: version(), Log: log})
	a.api = api.New(api.Deps{
		Data:        a.data,
		Decode:      decodebudget.New(cfg.DecodeBudget),
		Predictions: a.predictions,
		Basemap:     tiles, // public hillshade tiles of the console's map
		// The operator's PMTiles archive; a nil *External answers "not configured".
		ExternalBasemap: cfg.Basemap,
		// The AI routes: the template explainer, or the operator's language
		// model; the engine (the planner) computes every number.
		Explainer: ai.New(ai.Deps{Provider: aiProvider, Links: plan, Heights: plan, Compare: reg, Terrain: ter, Jobs: a.jobs, Quota: a.quota, Metrics: mset}),
		Quota:     a.quota, PDFs: a.quota, Audit: auditlog.New(db),
		Auth: auth, Links: plan, Towers: towers, Search: a.search,
		Upsert: func(t *appliance.Tower) {
			catalogMu.Lock()
			defer catalogMu.Unlock()
			a.index.Upsert(t)
			// "" as fingerprint: the next start re-indexes the full set.
			if err := a.search.UpsertTower(context.Background(), "", t); err != nil {
				log.Warn("tower search index not updated", "tower", t.ID, "err", err)
			}
		},
		TowerDB: db, Refreshes: db, Engines: reg, Pairs: plan, Terrain: ter, Clutter: ter, Metrics: mset, Log: log, Recover: rec, Version: version(), Offline: cfg.SSO.offline() && aiProvider == nil && cfg.ModelEndpoint.URL == "",
		OfflineReason: offlineReason(cfg.SSO.offline(), aiProvider != nil, cfg.ModelEndpoint.URL != ""),
		Jobs:          a.jobs, Batches: a.batch,
		Heatmaps:         &coverage.Starter{Maps: a.maps, Towers: towers, Antennas: equip, Audit: db.AppendAudit, Calibrations: a.calib},
		Calibration:      a.calib,
		Repeaters:        a.plans,
		LinkInterference: &interference.LinkService{Terrain: ter, Towers: towers, Engines: reg.WithFallback, Antennas: equip},
		// Interference maps and viewsheds (issue 26): computed maps of the
		// same registry, resolved by the heatmaps' rules.
		NetworkMaps: &interference.Maps{Starter: &coverage.Starter{Maps: a.maps, Towers: towers, Antennas: equip, Audit: db.AppendAudit, Calibrations: a.calib},
			Service: interference.New(ter, reg.Get), Coverage: covSvc},
		// Consented rows feed the live band of the served residual engine.
		Observations: observations.New(observingStore{Store: db, observe: a.predictions.Observe, consented: a.calib.ObservationsStored}, func(k *appliance.APIKey, id string) (*appliance.Tower, bool) {
			t, ok := towers().Get(id)
			if !ok || !t.VisibleTo(k.TenantID) {
				return nil, false
			}
			return t, true
		}, obsConfig),
		Keys:               auth,
		Tenants:            auth,
		Privacy:            a.privacy,
		TerrainDescription: terrainDesc,
		Branding:           ts.branding,
		Buildings:          &buildings.Service{Store: db, Index: layerIndex},
		Raytrace:           raytracer,
		Equipment:          equip,
		PTP:                links,
		SSO:                ssoDep,
		Billing:            billingDep,
		Backups:            a.backups,
		// The warm standby's source: the standby key and the snapshots
		// it pulls, the failover report (appliance/standby).
		Failover:    src,
		Replication: src,
		Checks: append([]api.Check{
			{Name: "database", Fn: func(context.Context) error { return db.Ping() }},
			{Name: "terrain", Fn: func(context.Context) error { return ter.Check() }},
			{Name: "towers", Fn: func(context.Context) error {
				if a.index.Len() == 0 {
					return errors.New("no tower loaded")
				}
				return nil
			}},
			api.QueueCheck(a.jobs),
		}, append(append(backupChecks(cfg.Backup, a.backups), a.scaleOutChecks()...), rtwCheck...)...),
	})
	log.Info("appliance assembled", "towers", a.index.Len(), "terrain", terrainDesc, "data_dir", filepath.Clean(cfg.DataDir))
	ok = true
	return a, nil
}

// close releases everything in reverse start order; the database is last
// because everything above writes through it.
func (a *app) close() {
	if a.backups != nil {
		// A scheduled backup in progress stops at its next step and
		// removes its partial files.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := a.backups.Close(ctx); err != nil {
			a.log.Warn("backup schedule did not stop", "err", err)
		}
		cancel()
	}
	if a.maps != nil {
		a.maps.Close()
	}
	if a.privacy != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := a.privacy.Close(ctx); err != nil {
			a.log.Warn("privacy scheduler did not stop", "err", err)
		}
		cancel()
	}
	if a.training != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := a.training.Close(ctx); err != nil {
			a.log.Warn("retrain trigger did not stop", "err", err)
		}
		cancel()
	}
	if a.jobs != nil {
		// In-flight jobs checkpoint and give their leases back, so the
		// next start resumes them at once; bounded so that a stuck handler
		// cannot hold the shutdown (systemd's stop timeout is 90 s).
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		if err := a.jobs.Close(ctx); err != nil {
			a.log.Warn("job drain incomplete", "err", err)
		}
		cancel()
	}
	if a.rtw != nil {
		// After the jobs' drain: a unit still on the worker was canceled
		// by the drain, so stopping the worker counts no crash.
		a.rtw.Close(5 * time.Second)
		a.rtwCleanup()
	}
	// The jobs gave their leases back: the unit worker, the executor, the
	// JetStream connection and the embedded server go before the
	// database.
	if a.stopWorker != nil {
		a.stopWorker()
	}
	if a.units != nil {
		a.units.Close()
	}
	a.nats.close()
	if a.quota != nil {
		// The requests are over: the last counts are written before the
		// database closes.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := a.quota.Close(ctx); err != nil {
			a.log.Warn("usage counts not written", "err", err)
		}
		cancel()
	}
	if a.data != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := a.data.Close(ctx); err != nil {
			a.log.Warn("data manifest hashing did not stop", "err", err)
		}
		cancel()
	}
	if a.refresh != nil {
		a.refresh.Close()
	}
	if a.search != nil {
		_ = a.search.Close()
	}
	if a.ter != nil {
		for _, p := range a.ter.packs {
			_ = p.Close()
		}
	}
	if a.db != nil {
		_ = a.db.Close()
	}
}

// searchPlaces converts the gazetteer for the search index.
func searchPlaces(g *catalog.Gazetteer) []search.Place {
	ms := g.All()
	out := make([]search.Place, len(ms))
	for i, m := range ms {
		out[i] = search.Place{IBGECode: m.IBGECode, Name: m.Name, UF: m.UF, Region: string(m.Region), Lat: m.Lat, Lon: m.Lon, Capital: m.Capital}
	}
	return out
}

// catalogFingerprint identifies a tower set (ids, positions, operators,
// heights) so a persisted search index is reused only for the same set.
func catalogFingerprint(ts []*appliance.Tower) string {
	h := sha256.New()
	ids := make([]int, len(ts))
	for i := range ids {
		ids[i] = i
	}
	sort.Slice(ids, func(x, y int) bool { return ts[ids[x]].ID < ts[ids[y]].ID })
	var buf []byte
	for _, i := range ids {
		t := ts[i]
		buf = fmt.Appendf(buf[:0], "%s|%s|%.7f|%.7f|%g|%s|%s\n", t.ID, t.Operator, t.Lat, t.Lon, t.HeightM, t.Municipality, t.StationNumber)
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// backupChecks is the advisory readiness check of the scheduled backups;
// none without a schedule.
func backupChecks(cfg backupConfig, s *backup.Service) []api.Check {
	if cfg.Dir == "" {
		return nil
	}
	return []api.Check{api.BackupCheck(s.Status, nil)}
}
