package assemble

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
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
	"linkplan/appliance/registry"
	"linkplan/appliance/repeater"
	"linkplan/appliance/standby"
	"linkplan/appliance/telemetry"
	"linkplan/appliance/tenancy"
	"linkplan/appliance/towerset"
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

// build carries what one phase of New makes for the later ones; the parts
// serve or the tests use are the App's fields, the rest lives here only
// while New runs. Each phase is one step of doc.go's table, in build
// order.
type build struct {
	a    *App
	cfg  Config
	t    TestOptions
	log  *slog.Logger
	mset *metrics.Set         // the appliance's one metrics set
	rec  *appliance.Recoverer // recovers (logs, counts) tenant work's panics
	reg  *engines.Registry    // built once
	gaz  *catalog.Gazetteer
	// towers is the live tower index as every reader sees it (wrapped by
	// TestOptions.WrapTowers).
	towers     func() appliance.TowerIndex
	plan       *planner.Planner
	equip      *equipment.Service
	links      *ptp.Service
	covSvc     *coverage.Service
	layerIndex *raytrace.LayerIndex
	raytracer  api.Raytracer // nil interface when no executor
	rtwCheck   []api.Check   // the raytrace worker's readiness check, if any
	tenant     *tenantServices
	tiles      *basemap.Service
}

// newBuild starts the assembly: the logger, the metrics set and the panic
// recoverer every goroutine that runs tenant work recovers through (it
// logs each panic once with its stack and counts it by component).
func newBuild(cfg Config) *build {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	mset := metrics.NewSet()
	rec := &appliance.Recoverer{Log: log, Count: func(component string) {
		mset.GetOrCreateCounter(telemetry.RecoveredPanicSeries(component)).Inc()
	}}
	return &build{a: &App{Log: log, cfg: cfg, rec: rec}, cfg: cfg, t: cfg.Test, log: log, mset: mset, rec: rec}
}

// openStore opens the database. A file of an older schema is backed up
// before it is migrated (issue 21, scope 6); one of a newer schema is
// refused, naming both versions (appliance.ErrNewerSchema: exit status 3).
func (b *build) openStore(ctx context.Context) error {
	cfg := b.cfg
	db, err := store.Open(cfg.DataDir, store.Options{BeforeMigrate: preMigrationBackup(ctx, backupDirOf(cfg.DataDir, cfg.Backup.Dir), cfg.Version, cfg.CheckDB, b.log.Info)})
	if err != nil {
		return err
	}
	b.a.DB = db
	return nil
}

// bootstrap builds tenancy and writes or finds the admin credentials.
// Bootstrap may rewrite the database file (compaction after sealing a
// clear TOTP secret), so it runs before anything else holds the database.
// Only store errors stop start-up; an unusable credentials file is logged.
func (b *build) bootstrap(context.Context) error {
	a := b.a
	a.Auth = tenancy.New(a.DB, b.t.Now).WithLog(b.log)
	path, created, err := a.Auth.Bootstrap(b.cfg.DataDir)
	if err != nil {
		return err
	}
	a.CredentialsPath = path
	switch _, serr := os.Stat(path); {
	case created:
		b.log.Info("created admin credentials; keep this file safe", "path", path)
	case serr == nil:
		b.log.Info("admin credentials", "path", path)
	default: // moved away (totp-forget, a restored or promoted directory): the database holds the key
		b.log.Info("admin credentials: no file (a restored or promoted directory, or moved away); the admin key is the one issued with this database", "path", path)
	}
	return nil
}

// buildEngines opens the terrain packs and builds the engine registry,
// once; with --queue jetstream, the digests of what units compute on,
// announced to workers.
func (b *build) buildEngines(context.Context) error {
	a, cfg := b.a, b.cfg
	ter, terrainDesc, err := OpenTerrain(cfg.Packs)
	if err != nil {
		return err
	}
	a.Terrain, a.TerrainDescription = ter, terrainDesc
	if b.reg, err = engines.New(engines.Config{RefractivityDir: cfg.RefractivityDir}); err != nil {
		return err
	}
	if cfg.Queue == QueueJetStream {
		if a.inputs, err = NewInputSet(ter, b.reg, cfg.RefractivityDir, cfg.Version); err != nil {
			return err
		}
	}
	return nil
}

// loadCatalogue builds the tower catalogue and its indexes, loads the
// tower sources once and starts hashing the data files in use.
func (b *build) loadCatalogue(ctx context.Context) error {
	a, cfg, t, log, db, ter := b.a, b.cfg, b.t, b.log, b.a.DB, b.a.Terrain
	gaz, err := catalog.EmbeddedGazetteer()
	if err != nil {
		return err
	}
	b.gaz = gaz
	a.Index = spatial.New(nil)
	// Search (bleve) is derived data: the tower index persists in the data
	// directory and is reused when the catalogue fingerprint matches, else
	// rebuilt in the background (tower search answers 503 meanwhile).
	a.Search = search.New(searchPlaces(gaz), search.Options{Dir: filepath.Join(cfg.DataDir, "search"), Address: func(t *appliance.Tower) string { return t.Address }})
	if err := a.Search.Open(ctx); err != nil {
		return fmt.Errorf("open search index: %w", err)
	}
	rs := refresh.New(gaz, log)
	rs.Recorder = db
	rs.Recover = b.rec
	if cfg.RefreshInterval > 0 {
		rs.Interval = cfg.RefreshInterval
	}
	srcs, discover, synthetic, err := TowerSetup(cfg.DataDir, cfg.TowerFiles, ter)
	if err != nil {
		return err
	}
	rs.Sources, rs.Discover = srcs, discover
	// The live tower set keeps the R-tree and the search index consistent
	// with the catalogue, the synthetic towers and the registered towers
	// (appliance/towerset: one lock orders swaps, registrations and
	// erasures). Every reader of the index reads it through towers.
	var index appliance.TowerIndex = a.Index
	if t.WrapTowers != nil {
		index = t.WrapTowers(a.Index)
	}
	b.towers = func() appliance.TowerIndex { return index }
	a.Towers = towerset.New(towerset.Deps{Index: a.Index, Search: a.Search, Store: db, Synthetic: synthetic, View: b.towers, Log: log,
		OnPublic: func(public []*appliance.Tower) {
			if a.inputs != nil {
				a.inputs.SetTowers(public) // the public towers: what a worker loads
			}
		}})
	rs.Apply = a.Towers.Apply
	log.Info("loading tower sources", "files", len(srcs))
	if _, err := rs.RefreshOnce(ctx, true); err != nil {
		return fmt.Errorf("load towers: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err // stopped: the rest of the assembly is not needed
	}
	a.Refresh = rs
	// The data files in use, hashed in the background from now on.
	a.Data = newDataManifest(cfg, ter, discover == nil, db, log) // no discovery: the embedded samples
	return a.Data.Start(ctx)
}

// buildPlanning builds the planner, the equipment catalogue and the
// point-to-point links service.
func (b *build) buildPlanning(context.Context) error {
	a, reg := b.a, b.reg
	// reg.WithFallback hands fspl ("" too) over unwrapped: it declares the
	// free-space bound the planner prunes with. Every other engine answers
	// through the fspl fallback when asked outside its validity range
	// (SPEC §2.5).
	b.plan = planner.New(a.Terrain, b.towers, reg.WithFallback)
	// The equipment catalogue: the planner, the maps and the relay plans
	// read towers' catalogue antennas through it.
	b.equip = equipment.New(a.DB, b.t.Now)
	b.plan.Antennas = b.equip
	// Point-to-point links: the tenants' equipment, the engines with their
	// fallback, and the ITU-R maps of the availability (embedded, ~20 ms).
	ituMaps, err := itur.LoadMaps()
	if err != nil {
		return fmt.Errorf("load the ITU-R maps: %w", err)
	}
	b.links = ptp.New(a.Terrain, reg.WithFallback, b.equip, ituMaps)
	b.links.TerrainDescription = a.TerrainDescription
	return nil
}

// buildBackups builds the backup service: verified snapshots of the
// database, scheduled when --backup-dir is set, else on demand into the
// data directory (the file is unlinked as soon as it is open for
// streaming). Their manifests name the data files in use by the data
// manifest's hashes.
func (b *build) buildBackups(context.Context) error {
	a, cfg := b.a, b.cfg
	scratch := cfg.Backup.Dir
	if scratch == "" {
		scratch = cfg.DataDir
	}
	check := cfg.CheckDB
	if check == nil {
		check = func(_ context.Context, path string) (appliance.DBCheck, error) { return store.CheckFile(path) }
	}
	var err error
	a.Backups, err = backup.New(&backup.Writer{DB: a.DB, Check: check, Version: cfg.Version,
		Inputs: func(ctx context.Context) ([]appliance.DataFile, []appliance.DataFile, error) {
			return dataFiles(ctx, a.Data)
		}},
		backup.Options{Dir: cfg.Backup.Dir, Every: cfg.Backup.Every, Keep: cfg.Backup.Keep, Scratch: scratch,
			Log: b.log, Metrics: b.mset, Audit: a.DB.AppendAudit, Recover: b.rec})
	return err
}

// buildJobs builds the admission scheduler and the job queue. The queue
// lives in the database; finished bundles are files under the data
// directory. Workers start with serve, after the API is ready, and drain
// before the database closes. One scheduler admits all heavy work: maps,
// batch, repeater, raytrace and calibration jobs (jobCost) under one
// budget of worker slots and memory; cheap routes never pass through it.
func (b *build) buildJobs(ctx context.Context) error {
	a, cfg, t, log, db := b.a, b.cfg, b.t, b.log, b.a.DB
	heavy := cfg.Heavy
	heavy.Metrics = b.mset
	a.Heavy = admission.New(heavy)
	jobCost := func(j *appliance.Job) (appliance.HeavyWork, bool) {
		switch j.Kind {
		case appliance.JobKindBatchReport:
			return a.Batch.Cost(j)
		case appliance.JobKindRepeaterPlan:
			return a.Repeaters.Cost(j)
		case appliance.JobKindRaytraceLink:
			if a.Raytrace != nil {
				return a.Raytrace.Cost(j)
			}
		case appliance.JobKindObservationResiduals, appliance.JobKindCalibrationFit:
			return a.Calibration.Cost(j)
		}
		return appliance.HeavyWork{}, false // light jobs: privacy sweep; retraining has its own trigger
	}
	// --queue jetstream: the job records stay in the database (the
	// ledger); each lease is also a JetStream message (store/jsq).
	var queue appliance.JobQueue = db
	if cfg.Queue == QueueJetStream {
		var err error
		if a.nats, err = startNATS(ctx, cfg.DataDir, cfg.NATS, log); err != nil {
			return err
		}
		jq, err := jsq.NewJobQueue(ctx, db, a.nats.nc, a.nats.cfg, log)
		if err != nil {
			return err
		}
		queue = jq
		// Heavy work as units (store/jsq): published to the unit stream,
		// computed by the appliance's own worker (serve starts it) and by
		// `linkplan worker` processes, merged here once each.
		if a.units, err = jsq.NewExecutor(ctx, a.nats.nc, a.nats.cfg, 0, log); err != nil {
			return err
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
	a.Jobs = jobs.New(queue, filepath.Join(cfg.DataDir, "jobs"), jobs.Options{Metrics: b.mset, Log: log, Recover: b.rec,
		Admission: a.Heavy, Cost: jobCost, PollInterval: t.JobPollInterval, Workers: t.JobWorkers})
	return nil
}

// buildBatch builds the batch reports and the repeater plans, each a job
// kind on the one queue.
func (b *build) buildBatch(context.Context) error {
	a, t, db, reg := b.a, b.t, b.a.DB, b.reg
	var batchQueue batch.Enqueuer = a.Jobs
	if t.WrapBatchQueue != nil {
		batchQueue = t.WrapBatchQueue(a.Jobs)
	}
	a.Batch = batch.New(batch.Deps{
		Analyzer: b.plan, Queue: batchQueue, Quota: db, Terrain: a.TerrainDescription,
		ResolveEngine:    reg.Resolve, // the engine tier rule of every route
		NewID:            jobs.NewID,
		MaxInterruptions: jobs.DefaultMaxInterruptions,
		Recover:          b.rec,
	})
	if a.units != nil {
		a.Batch.UseUnits(a.units, a.inputs.Inputs, func(ctx context.Context, tenantID string) ([]*appliance.Tower, error) {
			user, err := db.UserTowers()
			var own []*appliance.Tower
			for _, t := range user {
				if t.OwnerTenantID == tenantID {
					own = append(own, t)
				}
			}
			return own, err
		}, b.equip)
	}
	a.Jobs.Register(appliance.JobKindBatchReport, a.Batch.Handler())
	repeaters := repeater.New(a.Terrain, b.towers, reg.WithFallback, 0)
	repeaters.Recover = b.rec
	repeaters.Antennas = b.equip
	a.Repeaters = &repeater.Submitter{Plans: repeaters, Queue: a.Jobs,
		NewID: jobs.NewID, MaxInterruptions: jobs.DefaultMaxInterruptions}
	a.Jobs.Register(appliance.JobKindRepeaterPlan, a.Repeaters.Handler())
	return nil
}

// buildCalibration builds the tenants' measured-versus-predicted reports
// and calibrations (issue 26): jobs on the same queue, on the appliance's
// terrain and the engines the link routes use; a fitted calibration
// reaches the answers through the planner and the coverage maps (one hook
// each).
func (b *build) buildCalibration(ctx context.Context) error {
	a, mset, reg := b.a, b.mset, b.reg
	a.Calibration = calibration.New(calibration.Deps{Store: a.DB, Queue: a.Jobs, NewID: jobs.NewID, TerrainDescription: a.TerrainDescription, Log: b.log, Now: b.t.Now,
		Predictor: &calibration.Predictor{Terrain: a.Terrain, Engine: reg.WithFallback, Choose: reg.Choose}, Workers: runtime.GOMAXPROCS(0),
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
	if err := a.Calibration.Open(ctx); err != nil {
		return err
	}
	mset.NewGauge(telemetry.CalibrationTenants, func() float64 { return float64(a.Calibration.Tenants()) })
	b.plan.Calibrations = a.Calibration
	a.Jobs.Register(appliance.JobKindObservationResiduals, a.Calibration.ReportHandler())
	a.Jobs.Register(appliance.JobKindCalibrationFit, a.Calibration.FitHandler())
	return nil
}

// buildPrivacyAndTraining builds the privacy requests (the daily hard
// delete is a job on the same queue; the scheduler that queues it starts
// with serve) and the retraining of the learned models (issue 11): a job
// on the same queue, queued by the count trigger (started with serve) or
// the effective-band monitor; after a swap it reloads the serving side
// (a.Predictions, built by buildModels before any job runs).
func (b *build) buildPrivacyAndTraining(context.Context) error {
	a, db, auth := b.a, b.a.DB, b.a.Auth
	jobsDir := filepath.Join(b.cfg.DataDir, "jobs")
	a.Privacy = privacy.New(db, a.Jobs, func(k *appliance.APIKey, code string, c privacy.Client) error {
		return auth.VerifyAdminFrom(k, code, tenancy.Client(c))
	}, privacy.Options{Log: b.log, Recover: b.rec, Clock: b.t.Now, RemoveResult: func(name string) error {
		err := os.Remove(filepath.Join(jobsDir, filepath.Base(name)))
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}, TowersDeleted: a.Towers.Delete})
	a.Jobs.Register(appliance.JobKindDSARHardDelete, a.Privacy.Handler())
	reload := func(ctx context.Context) error { return a.Predictions.Reload(ctx) }
	var err error
	if a.Training, err = NewTraining(db, a.Jobs, a.Terrain, b.reg, b.gaz, b.cfg.DataDir, shipped.FS(), reload, b.log, b.rec); err != nil {
		return err
	}
	a.Jobs.Register(appliance.JobKindModelRetrain, a.Training.Handler())
	return nil
}

// buildMaps builds the coverage maps and the raytrace service. Coverage
// maps compute in memory, on the strict engines (no fspl fallback: a
// prefix outside an engine's validity is no-data, counted); finished maps
// live in <data dir>/maps (rasters out of memory, and they survive a
// restart within the retention).
func (b *build) buildMaps(context.Context) error {
	a := b.a
	b.covSvc = coverage.New(a.Terrain, b.reg.Get)
	mopts := coverage.MapsOptions{Admitter: a.Heavy, Dir: filepath.Join(b.cfg.DataDir, "maps"), Log: b.log, Metrics: b.mset}
	if a.units != nil {
		mopts.Units, mopts.Inputs = a.units, a.inputs.Inputs
		// The appliance's own worker computes units on the same engines
		// and terrain; the planner sees every tower (each unit's rows are
		// scoped to its tenant by the planner's visibility rule).
		plan := b.plan
		a.runners = units.Runners{appliance.UnitCoverageRadials: b.covSvc,
			appliance.UnitBatchRows: batch.RowsRunner{Analyzer: func([]*appliance.Tower, appliance.AntennaCatalogue) batch.LinkAnalyzer { return plan }, Workers: 1, Recover: b.rec}}
	}
	a.Maps = coverage.NewMaps(b.covSvc, mopts)
	if err := a.Maps.Open(); err != nil {
		return err
	}
	return b.buildRaytrace()
}

// SceneCacheBytes bounds the scenes of building layers the appliance
// keeps built, by their estimated memory (raytrace.Scene.SizeBytes), for
// all tenants together: 1 GiB holds about 300 000 buildings of scenes
// (≈ 3.5 KiB each: walls, roofs, edges, wall tiles, BVH, grids, with
// their heightfields), e.g. the largest layer (200 000 buildings) or many
// small ones, however
// many layers that is; the least recently used scene goes first, the
// scene built last always stays. A count bound let a tenant cycling
// through 17 small layers evict every other tenant's scenes.
const SceneCacheBytes = 1 << 30

// buildRaytrace builds the raytrace engine's service: building layers
// whose scenes are built once and cached (SceneCacheBytes), on the
// terrain packs; a scene built on a miss is heavy work under a.Heavy. The raytrace worker computes the engine's units in its own
// process (serve starts it): link jobs on the queue, maps through the map
// registry. Without an executor the raytrace routes answer "not
// configured".
func (b *build) buildRaytrace() error {
	a, cfg, mset := b.a, b.cfg, b.mset
	b.layerIndex = &raytrace.LayerIndex{Cache: raytrace.NewSizedCache(SceneCacheBytes), Terrain: a.Terrain}
	executor := cfg.Raytrace.Executor
	if cfg.Raytrace.NewWorker != nil {
		up := 0.0
		var upMu sync.Mutex
		mset.NewGauge(telemetry.RaytraceWorkerUp, func() float64 { upMu.Lock(); defer upMu.Unlock(); return up })
		restarts := mset.GetOrCreateCounter(telemetry.RaytraceWorkerRestarts)
		sup, cleanup, err := cfg.Raytrace.NewWorker(func(ok bool) {
			upMu.Lock()
			defer upMu.Unlock()
			up = 0
			if ok {
				up = 1
			}
		}, restarts.Inc)
		if err != nil {
			return err
		}
		a.rtw, a.rtwCleanup = sup, cleanup
		executor = sup.Client()
		b.rtwCheck = append(b.rtwCheck, api.RaytraceWorkerCheck(sup.Check, func() api.RaytraceWorkerStatus {
			st := sup.Status()
			return api.RaytraceWorkerStatus{State: st.State, PID: st.PID, Restarts: st.Restarts, LivenessKills: st.LivenessKills, LastExit: st.LastExit, Since: st.Since}
		}, nil))
	}
	if executor != nil {
		// Maps start through a Starter as heatmaps do (the transmitter's
		// antenna, the coverage.map.start audit), without calibrations: a
		// raytrace map is not calibrated.
		starter := &coverage.Starter{Maps: a.Maps, Towers: b.towers, Antennas: b.equip, Audit: a.DB.AppendAudit}
		a.Raytrace = &raytracing.Service{Layers: a.DB, Scenes: b.layerIndex, Admitter: a.Heavy, Executor: worker.LayerExecutor{X: executor, Index: b.layerIndex}, Queue: a.Jobs, Maps: starter, Towers: b.towers,
			Antennas: b.equip, Terrain: a.Terrain, NewID: jobs.NewID, MaxInterruptions: jobs.DefaultMaxInterruptions, Metrics: mset, Log: b.log}
		a.Jobs.Register(appliance.JobKindRaytraceLink, a.Raytrace.Handler())
		b.raytracer = a.Raytrace
	}
	return nil
}

// buildTenantServices builds quotas and rate limits (counts in memory,
// flushed to the store each second by the loop serve starts, and by
// close; none with TestOptions.Unmetered), SSO, branding and billing, and
// the basemap tiles.
func (b *build) buildTenantServices(ctx context.Context) error {
	a, t := b.a, b.t
	if !t.Unmetered {
		a.Quota = quota.New(a.DB, quota.Options{Log: b.log, Now: t.Now})
	}
	var err error
	if b.tenant, err = newTenantServices(ctx, a.DB, a.Auth, b.cfg.SSO, b.cfg.BillingSecret, t.Now, b.log); err != nil {
		return err
	}
	terrainID, err := a.Terrain.Identity()
	if err != nil {
		return err
	}
	b.tiles, err = basemap.New(a.Terrain, basemap.Options{Identity: terrainID})
	return err
}

// buildModels builds the serving side of the learned models: <data
// dir>/models/current/ when the training side has written one, else the
// models shipped in the binary (a bad directory is logged and the shipped
// set serves); then the warm standby's source and tower registration
// (POST /towers: committed to the store, then added to the live set;
// antennas checked against the equipment catalogue; its clock is the real
// one, as it always was).
func (b *build) buildModels(ctx context.Context) error {
	a, cfg, t, log, db := b.a, b.cfg, b.t, b.log, b.a.DB
	var err error
	a.Predictions, err = prediction.New(prediction.Deps{Terrain: a.Terrain, Clutter: a.Terrain, Engines: b.reg.WithFallback,
		Tower:     a.Towers.Visible,
		RegionAt:  RegionAtOf(b.gaz),
		External:  cfg.ModelEndpoint,
		ModelsDir: filepath.Join(cfg.DataDir, "models"), Shipped: shipped.FS(), Metrics: b.mset, Log: log, Now: t.Now,
		Attestations: db.SourceAttestations,
		// The live band's drift monitor queues a retrain.
		OnDrift: func(ctx context.Context, reason string) {
			if _, err := a.Training.MonitorFired(ctx, reason); err != nil {
				log.Warn("retrain not queued by the drift monitor", "err", err)
			}
		}})
	if err != nil {
		return err
	}
	if err := a.Predictions.Reload(ctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		log.Warn("model directory not loaded; the shipped models serve", "err", err)
	}
	a.Standby = standby.NewSource(standby.SourceDeps{DataDir: cfg.DataDir, Take: a.Backups.Take, Audit: db.AppendAudit, Version: cfg.Version, Log: log, Now: t.Now})
	var towerDB registry.Store = db
	if t.WrapTowerStore != nil {
		towerDB = t.WrapTowerStore(db)
	}
	a.Registry = registry.New(towerDB, a.Towers.Upsert, nil).WithAntennas(b.equip)
	return nil
}

// checks are the readiness checks of /health/ready: the database, the
// terrain, the towers, the job queue, the backups, the scale-out parts and
// the raytrace worker.
func (b *build) checks() []api.Check {
	a, db, ter := b.a, b.a.DB, b.a.Terrain
	return append([]api.Check{
		{Name: "database", Fn: func(context.Context) error { return db.Ping() }},
		{Name: "terrain", Fn: func(context.Context) error { return ter.Check() }},
		{Name: "towers", Fn: func(context.Context) error {
			if a.Index.Len() == 0 {
				return errors.New("no tower loaded")
			}
			return nil
		}},
		api.QueueCheck(a.Jobs),
		diskCheck(b.cfg.DataDir),
	}, append(append(backupChecks(b.cfg.Backup, a.Backups), a.scaleOutChecks()...), b.rtwCheck...)...)
}

// optional returns the interfaces of the services a configuration may
// leave out: nil (not a typed nil) when left out.
func (b *build) optional() (ssoDep api.SSO, billingDep api.Billing, meter api.Metering, pdfs api.PDFReserver, aiQuota ai.Quota) {
	if b.tenant.sso != nil {
		ssoDep = b.tenant.sso
	}
	if b.tenant.billing != nil {
		billingDep = b.tenant.billing
	}
	if q := b.a.Quota; q != nil {
		meter, pdfs, aiQuota = q, q, q
	}
	return ssoDep, billingDep, meter, pdfs, aiQuota
}

// offline says whether the appliance makes no outbound call, and why.
func (b *build) offline() (bool, string) {
	cfg := b.cfg
	if b.t.Offline {
		return true, "test: every configured dependency is a local test server, no outbound call"
	}
	return cfg.SSO.Offline() && cfg.AI == nil && cfg.ModelEndpoint.URL == "",
		offlineReason(cfg.SSO.Offline(), cfg.AI != nil, cfg.ModelEndpoint.URL != "")
}

// buildHTTP builds the HTTP handler: api.New with every service above, in
// the Deps group of its handlers.
func (b *build) buildHTTP(context.Context) error {
	a, cfg, t, db, ter, reg, plan, equip, towers := b.a, b.cfg, b.t, b.a.DB, b.a.Terrain, b.reg, b.plan, b.equip, b.towers
	obsConfig := cfg.Observations
	obsConfig.Metrics = b.mset
	if t.Now != nil {
		obsConfig.Now = t.Now
	}
	ssoDep, billingDep, meter, pdfs, aiQuota := b.optional()
	var authn api.Authenticator = a.Auth
	if t.WrapAuth != nil {
		authn = t.WrapAuth(a.Auth)
	}
	decode := t.Decode
	if decode == nil {
		decode = decodebudget.New(cfg.DecodeBudget)
	}
	offline, offlineWhy := b.offline()
	heatmaps := func() *coverage.Starter {
		return &coverage.Starter{Maps: a.Maps, Towers: towers, Antennas: equip, Audit: db.AppendAudit, Calibrations: a.Calibration, Terrain: ter}
	}
	a.API = api.New(api.Deps{
		PlatformDeps: api.PlatformDeps{Metrics: b.mset, Log: b.log, Recover: b.rec, Version: cfg.Version, Offline: offline, OfflineReason: offlineWhy,
			Decode: decode, Data: a.Data, Checks: b.checks()},
		AccessDeps: api.AccessDeps{Auth: authn, Keys: a.Auth, Tenants: a.Auth, Quota: meter, Audit: auditlog.New(db)},
		CatalogueDeps: api.CatalogueDeps{Towers: towers, Registry: a.Registry, Refreshes: db, Search: a.Search,
			Basemap: b.tiles, // public hillshade tiles of the console's map
			// The operator's PMTiles archive; a nil *External answers "not configured".
			ExternalBasemap: cfg.Basemap},
		LinkDeps: api.LinkDeps{Links: plan, Pairs: plan, Engines: reg, Terrain: ter, Clutter: ter, TerrainDescription: a.TerrainDescription},
		JobDeps: api.JobDeps{Jobs: a.Jobs, Batches: a.Batch, Repeaters: a.Repeaters, Heatmaps: heatmaps(),
			LinkInterference: &interference.LinkService{Terrain: ter, Towers: towers, Engines: reg.WithFallback, Antennas: equip},
			// Interference maps and viewsheds (issue 26): computed maps of
			// the same registry, resolved by the heatmaps' rules.
			NetworkMaps: &interference.Maps{Starter: heatmaps(), Service: interference.New(ter, reg.Get), Coverage: b.covSvc, Radios: equip}},
		PlanningDeps: api.PlanningDeps{PTP: b.links, PDFs: pdfs, Equipment: equip, Raytrace: b.raytracer,
			Buildings: &buildings.Service{Store: db, Index: b.layerIndex, Admitter: a.Heavy, Now: t.Now}},
		ModelDeps: api.ModelDeps{Predictions: a.Predictions, Calibration: a.Calibration,
			// Consented rows feed the live band of the served residual engine.
			Observations: observations.New(observingStore{Store: db, observe: a.Predictions.Observe, consented: a.Calibration.ObservationsStored}, func(k *appliance.APIKey, id string) (*appliance.Tower, bool) {
				return a.Towers.Visible(k.TenantID, id)
			}, obsConfig),
			// The AI routes: the template explainer, or the operator's
			// language model; the engine (the planner) computes every number.
			Explainer: ai.New(ai.Deps{Provider: cfg.AI, Links: plan, Heights: plan, Compare: reg, Terrain: ter, Jobs: a.Jobs, Quota: aiQuota, Metrics: b.mset})},
		TenantDeps: api.TenantDeps{SSO: ssoDep, Branding: b.tenant.branding, Billing: billingDep, Privacy: a.Privacy},
		// The warm standby's source: the standby key and the snapshots it
		// pulls, the failover report (appliance/standby).
		OperationsDeps: api.OperationsDeps{Backups: a.Backups, Failover: a.Standby, Replication: a.Standby},
	})
	return nil
}
