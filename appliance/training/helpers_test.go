package training_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/features"
	"linkplan/appliance/jobs"
	"linkplan/appliance/training"
	"linkplan/engines"
	"linkplan/engines/ml/learn"
	"linkplan/store"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

// env is a real appliance slice: the embedded Rio terrain, the feature
// builder, the hybrid engine, a bbolt store and the job queue.
type env struct {
	db       *store.DB
	queue    *jobs.Service
	feat     training.Featurizer
	baseline training.BaselineFunc
	models   string
	now      time.Time
	reloads  int
}

var (
	rioOnce sync.Once
	rioPack *terrain.Pack
	rioErr  error
)

func rio(t testing.TB) *terrain.Pack {
	t.Helper()
	rioOnce.Do(func() { rioPack, rioErr = terrain.OpenBytes(sample.Pack()) })
	if rioErr != nil {
		t.Fatal(rioErr)
	}
	return rioPack
}

func hybrid(t testing.TB) training.BaselineFunc {
	t.Helper()
	reg, err := engines.New(engines.Config{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := reg.WithFallback(appliance.EngineHybrid)
	if err != nil {
		t.Fatal(err)
	}
	return training.HybridBaseline(eng, rio(t))
}

func newEnv(t testing.TB) *env {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "data"), store.Options{LockTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &env{db: db, queue: jobs.New(db, filepath.Join(dir, "results"), jobs.Options{}),
		feat: training.Features{Builder: &features.Builder{Terrain: rio(t)}}, baseline: hybrid(t),
		models: filepath.Join(dir, "models"), now: time.Unix(1_800_000_000, 0).UTC()}
}

// service returns a training service on the env; the clock moves one
// second a call so that directories and decisions are ordered.
func (e *env) service(opts training.Options) *training.Service {
	opts.Models = e.models
	opts.Clock = func() time.Time { e.now = e.now.Add(time.Second); return e.now }
	opts.Reload = func(context.Context) error { e.reloads++; return nil }
	s := training.New(e.db, e.queue, e.feat, e.baseline, learners(), opts)
	e.queue.Register(appliance.JobKindModelRetrain, s.Handler())
	return s
}

var (
	synthOnce sync.Map // n -> []appliance.Observation
)

// synth returns n synthetic rows (seed 7), computed once per n.
func synth(t testing.TB, n int) []appliance.Observation {
	t.Helper()
	if v, ok := synthOnce.Load(n); ok {
		return v.([]appliance.Observation)
	}
	rows, err := training.Synthesize(context.Background(), hybrid(t), training.RioSampleAreas, n, 7)
	if err != nil {
		t.Fatal(err)
	}
	synthOnce.Store(n, rows)
	return rows
}

// put stores rows for tenant with the given consent and source (a copy:
// the cached rows stay as they are).
func (e *env) put(t testing.TB, tenant string, rows []appliance.Observation, consent appliance.Consent, source string) {
	t.Helper()
	cp := make([]appliance.Observation, len(rows))
	keys := make([]string, len(rows))
	for i, o := range rows {
		o.ID, o.TenantID, o.Consent, o.Source = tenant+"_"+source+"_"+o.ID, tenant, consent, source
		cp[i], keys[i] = o, o.ID
	}
	if _, err := e.db.PutObservations(tenant, appliance.KindLinkObservation, cp, keys, nil); err != nil {
		t.Fatal(err)
	}
}

// learners are the real learners of engines/ml/learn, as the assembly
// passes them.
func learners() training.Learners {
	return training.Learners{GBM: learn.TrainGBM, Ridge: learn.TrainRidge}
}
