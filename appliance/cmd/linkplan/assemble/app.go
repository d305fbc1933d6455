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
	"linkplan/appliance/registry"
	"linkplan/appliance/repeater"
	"linkplan/appliance/standby"
	"linkplan/appliance/telemetry"
	"linkplan/appliance/tenancy"
	"linkplan/appliance/towerset"
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

// App is the assembled appliance. The exported fields are the parts New
// built, each the very one the HTTP handler (API) calls: serve starts and
// stops them through Start and Stop, tests read them.
type App struct {
	Log                *slog.Logger
	DB                 *store.DB
	Auth               *tenancy.Service // keys, tenants, the admin step-up
	CredentialsPath    string           // the admin credentials file Bootstrap wrote or found
	Terrain            *TerrainSet
	TerrainDescription string            // the terrain's provenance, as answers name it
	Index              *spatial.Index    // the tower R-tree
	Towers             *towerset.Service // keeps Index and Search consistent; the tenant visibility rule
	Registry           *registry.Service // tower registration (POST /towers), built once
	Search             *search.Index     // full-text search over towers and places
	Refresh            *refresh.Service
	Data               *datamanifest.Service // terrain packs and tower sources by SHA-256
	Heavy              *admission.Scheduler  // admits the heavy work of maps and jobs under one budget
	Jobs               *jobs.Service
	Batch              *batch.Service
	Repeaters          *repeater.Submitter
	Calibration        *calibration.Service // the tenants' residual reports and calibrations
	Privacy            *privacy.Service
	Training           *training.Service
	Maps               *coverage.Maps
	Raytrace           *raytracing.Service // nil: no raytrace executor configured
	Quota              *quota.Service      // nil with TestOptions.Unmetered
	// Predictions serves the learned models; its Reload is the hook the
	// training side calls after swapping <data dir>/models/current in.
	Predictions *prediction.Service
	// Backups takes the scheduled backups and those of POST /admin/backup
	// and the admin socket.
	Backups *backup.Service
	Standby *standby.Source // the primary's side of the warm standby
	API     *api.API        // the HTTP handler; state "starting" until serve marks it ready

	cfg        Config
	nats       *natsLink     // --queue jetstream: the connection and the embedded server
	inputs     *InputSet     // --queue jetstream: the digests announced to workers
	units      *jsq.Executor // --queue jetstream: heavy work as units
	runners    units.Runners // the unit runners of the appliance's own worker
	rec        *appliance.Recoverer
	stopWorker func() // stops the appliance's own unit worker
	// The raytrace worker process (nil without Config.Raytrace.NewWorker).
	rtw        *worker.Supervisor
	rtwCleanup func()
}

// New assembles the appliance from cfg in dependency order: metrics and
// the panic recoverer, the store (migrated, bootstrapped), terrain,
// engines, the tower catalogue and its indexes, the services, the job
// kinds, the HTTP handler. Nothing runs yet: Start starts the workers and
// schedules. On error everything built so far is released.
func New(ctx context.Context, cfg Config) (*App, error) {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := cfg.Test
	a := &App{Log: log, cfg: cfg}
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
	db, err := store.Open(cfg.DataDir, store.Options{BeforeMigrate: preMigrationBackup(ctx, backupDirOf(cfg.DataDir, cfg.Backup.Dir), cfg.Version, cfg.CheckDB, log.Info)})
	if err != nil {
		return nil, err
	}
	a.DB = db
	ok := false
	defer func() {
		if !ok {
			a.Stop()
		}
	}()
	// Bootstrap may rewrite the database file (compaction after sealing a
	// clear TOTP secret), so it runs before anything else holds db. Only
	// store errors stop start-up; an unusable credentials file is logged.
	auth := tenancy.New(db, t.Now).WithLog(log)
	a.Auth = auth
	path, created, err := auth.Bootstrap(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	a.CredentialsPath = path
	if created {
		log.Info("created admin credentials; keep this file safe", "path", path)
	} else {
		log.Info("admin credentials", "path", path)
	}

	ter, terrainDesc, err := OpenTerrain(cfg.Packs)
	if err != nil {
		return nil, err
	}
	a.Terrain, a.TerrainDescription = ter, terrainDesc
	reg, err := engines.New(engines.Config{RefractivityDir: cfg.RefractivityDir})
	if err != nil {
		return nil, err
	}
	if cfg.Queue == QueueJetStream {
		// The digests of what units compute on, announced to workers.
		if a.inputs, err = NewInputSet(ter, reg, cfg.RefractivityDir, cfg.Version); err != nil {
			return nil, err
		}
	}

	gaz, err := catalog.EmbeddedGazetteer()
	if err != nil {
		return nil, err
	}
	a.Index = spatial.New(nil)
	// Search (bleve) is derived data: the tower index persists in the data
	// directory and is reused when the catalogue fingerprint matches, else
	// rebuilt in the background (tower search answers 503 meanwhile).
	a.Search = search.New(searchPlaces(gaz), search.Options{Dir: filepath.Join(cfg.DataDir, "search"), Address: func(t *appliance.Tower) string { return t.Address }})
	if err := a.Search.Open(ctx); err != nil {
		return nil, fmt.Errorf("open search index: %w", err)
	}
	rs := refresh.New(gaz, log)
	rs.Recorder = db
	rs.Recover = rec
	if cfg.RefreshInterval > 0 {
		rs.Interval = cfg.RefreshInterval
	}
	srcs, discover, synthetic, err := TowerSetup(cfg.DataDir, cfg.TowerFiles, ter)
	if err != nil {
		return nil, err
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
	towers := func() appliance.TowerIndex { return index }
	a.Towers = towerset.New(towerset.Deps{Index: a.Index, Search: a.Search, Store: db, Synthetic: synthetic, View: towers, Log: log,
		OnPublic: func(public []*appliance.Tower) {
			if a.inputs != nil {
				a.inputs.SetTowers(public) // the public towers: what a worker loads
			}
		}})
	rs.Apply = a.Towers.Apply
	log.Info("loading tower sources", "files", len(srcs))
	if _, err := rs.RefreshOnce(ctx, true); err != nil {
		return nil, fmt.Errorf("load towers: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err // stopped: the rest of the assembly is not needed
	}
	a.Refresh = rs
	// The data files in use, hashed in the background from now on.
	a.Data = newDataManifest(cfg, ter, discover == nil, db, log) // no discovery: the embedded samples
	if err := a.Data.Start(ctx); err != nil {
		return nil, err
	}

	// reg.WithFallback hands fspl ("" too) over unwrapped: it declares the
	// free-space bound the planner prunes with. Every other engine answers
	// through the fspl fallback when asked outside its validity range
	// (SPEC §2.5).
	plan := planner.New(ter, towers, reg.WithFallback)
	// The equipment catalogue: the planner, the maps and the relay plans
	// read towers' catalogue antennas through it.
	equip := equipment.New(db, t.Now)
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
	check := cfg.CheckDB
	if check == nil {
		check = func(_ context.Context, path string) (appliance.DBCheck, error) { return store.CheckFile(path) }
	}
	if a.Backups, err = backup.New(&backup.Writer{DB: db, Check: check, Version: cfg.Version,
		Inputs: func(ctx context.Context) ([]appliance.DataFile, []appliance.DataFile, error) {
			return dataFiles(ctx, a.Data)
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
	a.rec = rec
	if cfg.Queue == QueueJetStream {
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
	a.Jobs = jobs.New(queue, filepath.Join(cfg.DataDir, "jobs"), jobs.Options{Metrics: mset, Log: log, Recover: rec,
		Admission: a.Heavy, Cost: jobCost, PollInterval: t.JobPollInterval, Workers: t.JobWorkers})
	var batchQueue batch.Enqueuer = a.Jobs
	if t.WrapBatchQueue != nil {
		batchQueue = t.WrapBatchQueue(a.Jobs)
	}
	a.Batch = batch.New(batch.Deps{
		Analyzer: plan, Queue: batchQueue, Quota: db, Terrain: terrainDesc,
		ResolveEngine:    reg.Resolve, // the engine tier rule of every route
		NewID:            jobs.NewID,
		MaxInterruptions: jobs.DefaultMaxInterruptions,
		Recover:          rec,
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
		}, equip)
	}
	a.Jobs.Register(appliance.JobKindBatchReport, a.Batch.Handler())
	repeaters := repeater.New(ter, towers, reg.WithFallback, 0)
	repeaters.Recover = rec
	repeaters.Antennas = equip
	a.Repeaters = &repeater.Submitter{Plans: repeaters, Queue: a.Jobs,
		NewID: jobs.NewID, MaxInterruptions: jobs.DefaultMaxInterruptions}
	a.Jobs.Register(appliance.JobKindRepeaterPlan, a.Repeaters.Handler())
	// The tenants' measured-versus-predicted reports and calibrations
	// (issue 26): jobs on the same queue, on the appliance's terrain and
	// the engines the link routes use; a fitted calibration reaches the
	// answers through the planner and the coverage maps (one hook each).
	a.Calibration = calibration.New(calibration.Deps{Store: db, Queue: a.Jobs, NewID: jobs.NewID, TerrainDescription: terrainDesc, Log: log, Now: t.Now,
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
	if err := a.Calibration.Open(ctx); err != nil {
		return nil, err
	}
	mset.NewGauge(telemetry.CalibrationTenants, func() float64 { return float64(a.Calibration.Tenants()) })
	plan.Calibrations = a.Calibration
	a.Jobs.Register(appliance.JobKindObservationResiduals, a.Calibration.ReportHandler())
	a.Jobs.Register(appliance.JobKindCalibrationFit, a.Calibration.FitHandler())
	// Privacy requests: the daily hard delete is a job on the same queue;
	// the scheduler that queues it starts with serve.
	jobsDir := filepath.Join(cfg.DataDir, "jobs")
	a.Privacy = privacy.New(db, a.Jobs, func(k *appliance.APIKey, code string, c privacy.Client) error {
		return auth.VerifyAdminFrom(k, code, tenancy.Client(c))
	}, privacy.Options{Log: log, Recover: rec, Clock: t.Now, RemoveResult: func(name string) error {
		err := os.Remove(filepath.Join(jobsDir, filepath.Base(name)))
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}, TowersDeleted: a.Towers.Delete})
	a.Jobs.Register(appliance.JobKindDSARHardDelete, a.Privacy.Handler())
	// Retraining of the learned models (issue 11): a job on the same
	// queue, queued by the count trigger (started with serve) or the
	// effective-band monitor; after a swap it reloads the serving side
	// (a.Predictions, assembled below, before any job runs).
	reload := func(ctx context.Context) error { return a.Predictions.Reload(ctx) }
	if a.Training, err = NewTraining(db, a.Jobs, ter, reg, gaz, cfg.DataDir, shipped.FS(), reload, log, rec); err != nil {
		return nil, err
	}
	a.Jobs.Register(appliance.JobKindModelRetrain, a.Training.Handler())
	// Coverage maps compute in memory, on the strict engines (no fspl
	// fallback: a prefix outside an engine's validity is no-data, counted).
	// Finished maps live in <data dir>/maps (rasters out of memory, and
	// they survive a restart within the retention).
	covSvc := coverage.New(ter, reg.Get)
	mopts := coverage.MapsOptions{Admitter: a.Heavy, Dir: filepath.Join(cfg.DataDir, "maps"), Log: log, Metrics: mset}
	if a.units != nil {
		mopts.Units, mopts.Inputs = a.units, a.inputs.Inputs
		// The appliance's own worker computes units on the same engines
		// and terrain; the planner sees every tower (each unit's rows are
		// scoped to its tenant by the planner's visibility rule).
		a.runners = units.Runners{appliance.UnitCoverageRadials: covSvc,
			appliance.UnitBatchRows: batch.RowsRunner{Analyzer: func([]*appliance.Tower, appliance.AntennaCatalogue) batch.LinkAnalyzer { return plan }, Workers: 1, Recover: rec}}
	}
	a.Maps = coverage.NewMaps(covSvc, mopts)
	if err := a.Maps.Open(); err != nil {
		return nil, err
	}
	// Building layers for the raytrace engine: each layer's scene is built
	// once and cached (16 layers), on the terrain packs. The raytrace
	// worker computes the engine's units in its own process (serve starts
	// it): link jobs on the queue, maps through the map registry.
	layerIndex := &raytrace.LayerIndex{Cache: raytrace.NewCache(16), Terrain: ter}
	var raytracer api.Raytracer
	var rtwCheck []api.Check
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
			return nil, err
		}
		a.rtw, a.rtwCleanup = sup, cleanup
		executor = sup.Client()
		rtwCheck = append(rtwCheck, api.Check{Name: "raytrace_worker", Fn: sup.Check, Advisory: true, Kind: "local_process"})
	}
	if executor != nil {
		a.Raytrace = &raytracing.Service{Layers: db, Scenes: layerIndex, Executor: executor, Queue: a.Jobs, Maps: a.Maps, Towers: towers,
			NewID: jobs.NewID, MaxInterruptions: jobs.DefaultMaxInterruptions, Metrics: mset, Log: log}
		a.Jobs.Register(appliance.JobKindRaytraceLink, a.Raytrace.Handler())
		raytracer = a.Raytrace
	}

	obsConfig := cfg.Observations
	obsConfig.Metrics = mset
	if t.Now != nil {
		obsConfig.Now = t.Now
	}
	// Quotas and rate limits: counts in memory, flushed to the store each
	// second by the loop serve starts, and by close (appliance/quota).
	if !t.Unmetered {
		a.Quota = quota.New(db, quota.Options{Log: log, Now: t.Now})
	}

	ts, err := newTenantServices(ctx, db, auth, cfg.SSO, cfg.BillingSecret, t.Now, log)
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
	aiProvider := cfg.AI
	terrainID, err := ter.Identity()
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
	a.Predictions, err = prediction.New(prediction.Deps{Terrain: ter, Clutter: ter, Engines: reg.WithFallback,
		Tower:     a.Towers.Visible,
		RegionAt:  RegionAtOf(gaz),
		External:  cfg.ModelEndpoint,
		ModelsDir: filepath.Join(cfg.DataDir, "models"), Shipped: shipped.FS(), Metrics: mset, Log: log, Now: t.Now,
		Attestations: db.SourceAttestations,
		// The live band's drift monitor queues a retrain.
		OnDrift: func(ctx context.Context, reason string) {
			if _, err := a.Training.MonitorFired(ctx, reason); err != nil {
				log.Warn("retrain not queued by the drift monitor", "err", err)
			}
		}})
	if err != nil {
		return nil, err
	}
	if err := a.Predictions.Reload(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		log.Warn("model directory not loaded; the shipped models serve", "err", err)
	}
	a.Standby = standby.NewSource(standby.SourceDeps{DataDir: cfg.DataDir, Take: a.Backups.Take, Audit: db.AppendAudit, Version: cfg.Version, Log: log, Now: t.Now})
	src := a.Standby
	// The interfaces stay nil (not a typed nil) when a service is left out.
	var (
		meter   api.Metering
		pdfs    api.PDFReserver
		aiQuota ai.Quota
	)
	if a.Quota != nil {
		meter, pdfs, aiQuota = a.Quota, a.Quota, a.Quota
	}
	// Tower registration (POST /towers): committed to the store, then
	// added to the live set; antennas checked against the equipment
	// catalogue. Its clock is the real one, as it always was.
	var towerDB registry.Store = db
	if t.WrapTowerStore != nil {
		towerDB = t.WrapTowerStore(db)
	}
	a.Registry = registry.New(towerDB, a.Towers.Upsert, nil).WithAntennas(equip)
	var authn api.Authenticator = auth
	if t.WrapAuth != nil {
		authn = t.WrapAuth(auth)
	}
	decode := t.Decode
	if decode == nil {
		decode = decodebudget.New(cfg.DecodeBudget)
	}
	offline := cfg.SSO.Offline() && aiProvider == nil && cfg.ModelEndpoint.URL == ""
	offlineWhy := offlineReason(cfg.SSO.Offline(), aiProvider != nil, cfg.ModelEndpoint.URL != "")
	if t.Offline {
		offline, offlineWhy = true, "test: every configured dependency is a local test server, no outbound call"
	}
	a.API = api.New(api.Deps{
		PlatformDeps: api.PlatformDeps{Metrics: mset, Log: log, Recover: rec, Version: cfg.Version, Offline: offline, OfflineReason: offlineWhy,
			Decode: decode, Data: a.Data,
			Checks: append([]api.Check{
				{Name: "database", Fn: func(context.Context) error { return db.Ping() }},
				{Name: "terrain", Fn: func(context.Context) error { return ter.Check() }},
				{Name: "towers", Fn: func(context.Context) error {
					if a.Index.Len() == 0 {
						return errors.New("no tower loaded")
					}
					return nil
				}},
				api.QueueCheck(a.Jobs),
			}, append(append(backupChecks(cfg.Backup, a.Backups), a.scaleOutChecks()...), rtwCheck...)...)},
		AccessDeps: api.AccessDeps{Auth: authn, Keys: auth, Tenants: auth, Quota: meter, Audit: auditlog.New(db)},
		CatalogueDeps: api.CatalogueDeps{Towers: towers, Registry: a.Registry, Refreshes: db, Search: a.Search,
			Basemap: tiles, // public hillshade tiles of the console's map
			// The operator's PMTiles archive; a nil *External answers "not configured".
			ExternalBasemap: cfg.Basemap},
		LinkDeps: api.LinkDeps{Links: plan, Pairs: plan, Engines: reg, Terrain: ter, Clutter: ter, TerrainDescription: terrainDesc},
		JobDeps: api.JobDeps{Jobs: a.Jobs, Batches: a.Batch, Repeaters: a.Repeaters,
			Heatmaps:         &coverage.Starter{Maps: a.Maps, Towers: towers, Antennas: equip, Audit: db.AppendAudit, Calibrations: a.Calibration},
			LinkInterference: &interference.LinkService{Terrain: ter, Towers: towers, Engines: reg.WithFallback, Antennas: equip},
			// Interference maps and viewsheds (issue 26): computed maps of
			// the same registry, resolved by the heatmaps' rules.
			NetworkMaps: &interference.Maps{Starter: &coverage.Starter{Maps: a.Maps, Towers: towers, Antennas: equip, Audit: db.AppendAudit, Calibrations: a.Calibration},
				Service: interference.New(ter, reg.Get), Coverage: covSvc, Radios: equip}},
		PlanningDeps: api.PlanningDeps{PTP: links, PDFs: pdfs, Equipment: equip, Raytrace: raytracer,
			Buildings: &buildings.Service{Store: db, Index: layerIndex, Now: t.Now}},
		ModelDeps: api.ModelDeps{Predictions: a.Predictions, Calibration: a.Calibration,
			// Consented rows feed the live band of the served residual engine.
			Observations: observations.New(observingStore{Store: db, observe: a.Predictions.Observe, consented: a.Calibration.ObservationsStored}, func(k *appliance.APIKey, id string) (*appliance.Tower, bool) {
				return a.Towers.Visible(k.TenantID, id)
			}, obsConfig),
			// The AI routes: the template explainer, or the operator's
			// language model; the engine (the planner) computes every number.
			Explainer: ai.New(ai.Deps{Provider: aiProvider, Links: plan, Heights: plan, Compare: reg, Terrain: ter, Jobs: a.Jobs, Quota: aiQuota, Metrics: mset})},
		TenantDeps: api.TenantDeps{SSO: ssoDep, Branding: ts.branding, Billing: billingDep, Privacy: a.Privacy},
		// The warm standby's source: the standby key and the snapshots it
		// pulls, the failover report (appliance/standby).
		OperationsDeps: api.OperationsDeps{Backups: a.Backups, Failover: src, Replication: src},
	})
	log.Info("appliance assembled", "towers", a.Index.Len(), "terrain", terrainDesc, "data_dir", filepath.Clean(cfg.DataDir))
	ok = true
	return a, nil
}

// Start starts the workers and schedules, in this order: the raytrace
// worker process, the backup schedule, the tower refresh schedule, the
// job workers, the appliance's own unit worker (--queue jetstream), the
// quota flush, the privacy sweep, the retrain trigger. With
// TestOptions.NoSchedules the four schedules are left out. serve calls it
// once it listens, then marks the API ready.
func (a *App) Start(ctx context.Context) error {
	sched := !a.cfg.Test.NoSchedules
	if a.rtw != nil {
		// The worker starts while the rest comes up; the raytrace routes
		// wait for it (and /health/ready reports it, without waiting).
		a.rtw.Start()
	}
	if sched {
		if err := a.Backups.Start(ctx); err != nil {
			return err
		}
		if err := a.Refresh.Start(ctx); err != nil {
			return err
		}
	}
	if err := a.Jobs.Start(ctx); err != nil {
		return err
	}
	slots := a.cfg.Heavy.Workers
	if slots <= 0 {
		slots = max(1, runtime.GOMAXPROCS(0)-1) // as the heavy-work budget
	}
	a.stopWorker = a.startLocalWorker(slots)
	if a.Quota != nil {
		if err := a.Quota.Start(ctx); err != nil {
			return err
		}
	}
	if sched {
		if err := a.Privacy.Start(ctx); err != nil {
			return err
		}
		if err := a.Training.Start(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Stopping is the first step of a shutdown, before the HTTP server cuts
// the streams: the API answers "stopping", and a map still queued or
// computing ends "interrupted by a restart", not canceled by its stream
// leaving.
func (a *App) Stopping() {
	a.API.SetState(api.StateStopping)
	a.Maps.Close()
}

// Stop releases everything in reverse start order; the database is last
// because everything above writes through it. It is safe after a failed
// New or without Start.
func (a *App) Stop() {
	if a.Backups != nil {
		// A scheduled backup in progress stops at its next step and
		// removes its partial files.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := a.Backups.Close(ctx); err != nil {
			a.Log.Warn("backup schedule did not stop", "err", err)
		}
		cancel()
	}
	if a.Maps != nil {
		a.Maps.Close()
	}
	if a.Privacy != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := a.Privacy.Close(ctx); err != nil {
			a.Log.Warn("privacy scheduler did not stop", "err", err)
		}
		cancel()
	}
	if a.Training != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := a.Training.Close(ctx); err != nil {
			a.Log.Warn("retrain trigger did not stop", "err", err)
		}
		cancel()
	}
	if a.Jobs != nil {
		// In-flight jobs checkpoint and give their leases back, so the
		// next start resumes them at once; bounded so that a stuck handler
		// cannot hold the shutdown (systemd's stop timeout is 90 s).
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		if err := a.Jobs.Close(ctx); err != nil {
			a.Log.Warn("job drain incomplete", "err", err)
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
	if a.Quota != nil {
		// The requests are over: the last counts are written before the
		// database closes.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := a.Quota.Close(ctx); err != nil {
			a.Log.Warn("usage counts not written", "err", err)
		}
		cancel()
	}
	if a.Data != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := a.Data.Close(ctx); err != nil {
			a.Log.Warn("data manifest hashing did not stop", "err", err)
		}
		cancel()
	}
	if a.Refresh != nil {
		a.Refresh.Close()
	}
	if a.Search != nil {
		_ = a.Search.Close()
	}
	if a.Terrain != nil {
		a.Terrain.Close()
	}
	if a.DB != nil {
		_ = a.DB.Close()
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

// backupChecks is the advisory readiness check of the scheduled backups;
// none without a schedule.
func backupChecks(cfg BackupConfig, s *backup.Service) []api.Check {
	if cfg.Dir == "" {
		return nil
	}
	return []api.Check{api.BackupCheck(s.Status, nil)}
}
