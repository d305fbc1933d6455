package assemble

import (
	"context"
	"log/slog"
	"path/filepath"
	"runtime"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/admission"
	"linkplan/appliance/backup"
	"linkplan/appliance/batch"
	"linkplan/appliance/calibration"
	"linkplan/appliance/catalog"
	"linkplan/appliance/coverage"
	"linkplan/appliance/datamanifest"
	"linkplan/appliance/jobs"
	"linkplan/appliance/prediction"
	"linkplan/appliance/privacy"
	"linkplan/appliance/quota"
	"linkplan/appliance/raytracing"
	"linkplan/appliance/refresh"
	"linkplan/appliance/registry"
	"linkplan/appliance/repeater"
	"linkplan/appliance/standby"
	"linkplan/appliance/tenancy"
	"linkplan/appliance/towerset"
	"linkplan/appliance/training"
	"linkplan/appliance/units"
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

// New assembles the appliance from cfg, one phase after another in
// dependency order (doc.go's table): the store, tenancy's bootstrap, the
// terrain and the engine registry, the tower catalogue, the planning
// services, backups, the job queue, the job kinds, the maps, the tenant
// services, the learned models and the HTTP handler. Nothing runs yet:
// Start starts the workers and schedules. On error everything built so
// far is released.
func New(ctx context.Context, cfg Config) (*App, error) {
	b := newBuild(cfg)
	if err := b.openStore(ctx); err != nil {
		return nil, err
	}
	a := b.a
	ok := false
	defer func() {
		if !ok {
			a.Stop()
		}
	}()
	for _, phase := range []func(context.Context) error{
		b.bootstrap,
		b.buildEngines,
		b.loadCatalogue,
		b.buildPlanning,
		b.buildBackups,
		b.buildJobs,
		b.buildBatch,
		b.buildCalibration,
		b.buildPrivacyAndTraining,
		b.buildMaps,
		b.buildTenantServices,
		b.buildModels,
		b.buildHTTP,
	} {
		if err := phase(ctx); err != nil {
			return nil, err
		}
	}
	b.log.Info("appliance assembled", "towers", a.Index.Len(), "terrain", a.TerrainDescription, "data_dir", filepath.Clean(cfg.DataDir))
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
