package main

import (
	"context"
	"fmt"
	"io"
	"linkplan/appliance/cmd/linkplan/assemble"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/batch"
	"linkplan/appliance/catalog"
	"linkplan/appliance/coverage"
	"linkplan/appliance/planner"
	"linkplan/appliance/refresh"
	"linkplan/appliance/units"
	"linkplan/engines"
	"linkplan/store/jsq"
	"linkplan/store/spatial"
)

const workerUsage = `usage:
  linkplan worker --nats URL [--data DIR] [--terrain PACK]... [--towers FILE]... [flags]
      compute heavy work (coverage map radials, batch report rows) for an
      appliance started with --queue jetstream, from its NATS server. The
      worker needs the appliance's read-only inputs: the same terrain packs,
      tower files (or the tower sources installed in DIR) and refractivity
      maps, given as to serve; their digests are checked against the
      appliance's, and a worker whose inputs differ refuses work, saying why
      (GET /health/ready, /platform/maturity). It writes no tenant data: it
      returns results, the appliance merges them. On the appliance's machine
      the URL is in <data dir>/nats/worker.url.
`

// workerCmd runs `linkplan worker`.
func workerCmd(ctx context.Context, args []string, stderr io.Writer) error {
	fs := newFlags("worker", stderr)
	var nc assemble.NATSConfig
	nc.AddFlags(fs, false)
	dataDir := fs.String("data", defaultDataDir(), "directory of the worker's copy of the inputs: tower sources installed by `linkplan towers import` (as the appliance's data directory)")
	var packs, towerFiles multi
	fs.Var(&packs, "terrain", "terrain pack file (repeatable), as given to serve; default: the embedded Rio de Janeiro sample")
	fs.Var(&towerFiles, "towers", "tower file (repeatable), as given to serve; default: the sources installed in --data, else the embedded sample towers")
	refrDir := fs.String("refractivity-dir", "", "directory with the ITU-R DN50.TXT and N050.TXT maps, as given to serve")
	slots := fs.Int("slots", runtime.GOMAXPROCS(0), "units computed at once (one core each)")
	id := fs.String("id", "", "worker id, unique among the workers (default HOST-PID)")
	interval := fs.Duration("refresh-interval", refresh.DefaultInterval, "time between re-reads of the tower sources, as serve's")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	flagsUsage := fs.Usage
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), workerUsage)
		flagsUsage()
	}
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("worker: %w", errUsage)
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("worker: --log-level: %w", errUsage)
	}
	if nc.URL == "" || *slots <= 0 || fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("worker: --nats URL is required, --slots must be > 0: %w", errUsage)
	}
	if *id == "" {
		host, _ := os.Hostname()
		*id = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl})).With("worker", *id)
	w, err := newWorkerInputs(ctx, *dataDir, packs, towerFiles, *refrDir, *interval, log)
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	defer w.close()
	conn, err := jsq.Connect(nc.URL, jsq.ConnectOptions{Name: "linkplan worker " + *id, CAFile: nc.CA, CertFile: nc.Cert, KeyFile: nc.Key})
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	defer conn.Close()
	log.Info("linkplan worker running", "server", conn.ConnectedUrlRedacted(), "slots", *slots, "inputs", w.inputs.Inputs())
	err = jsq.RunWorker(ctx, conn, jsq.Config{}, jsq.WorkerOptions{ID: *id, Version: version(), Slots: *slots,
		Inputs: w.inputs.Inputs, Log: log,
		Run: func(ctx context.Context, u *appliance.WorkUnit) ([]byte, error) { return w.runners.Run(ctx, w.rec, u) }})
	log.Info("linkplan worker stopped")
	return err
}

// workerInputs are a worker's read-only inputs and its runners.
type workerInputs struct {
	ter     *assemble.TerrainSet
	index   *spatial.Index // the public towers
	refresh *refresh.Service
	inputs  *assemble.InputSet
	runners units.Runners
	rec     *appliance.Recoverer
}

func (w *workerInputs) close() {
	if w.refresh != nil {
		w.refresh.Close()
	}
	for _, p := range w.ter.Packs {
		_ = p.Close()
	}
}

// newWorkerInputs loads a worker's inputs as serve loads them (terrain,
// engines, the public towers of the same sources, refreshed on the same
// interval) and builds the runners of both unit kinds.
func newWorkerInputs(ctx context.Context, dataDir string, packs, towerFiles []string, refrDir string, interval time.Duration, log *slog.Logger) (*workerInputs, error) {
	ter, _, err := assemble.OpenTerrain(packs)
	if err != nil {
		return nil, err
	}
	w := &workerInputs{ter: ter, index: spatial.New(nil), rec: &appliance.Recoverer{Log: log}}
	reg, err := engines.New(engines.Config{RefractivityDir: refrDir})
	if err != nil {
		w.close()
		return nil, err
	}
	if w.inputs, err = assemble.NewInputSet(ter, reg, refrDir, version()); err != nil {
		w.close()
		return nil, err
	}
	gaz, err := catalog.EmbeddedGazetteer()
	if err != nil {
		w.close()
		return nil, err
	}
	srcs, discover, synthetic, err := assemble.TowerSetup(dataDir, towerFiles, ter)
	if err != nil {
		w.close()
		return nil, err
	}
	rs := refresh.New(gaz, log)
	rs.Recover, rs.Sources, rs.Discover, rs.Interval = w.rec, srcs, discover, interval
	rs.Apply = func(ts []*appliance.Tower) error {
		public := append(append(make([]*appliance.Tower, 0, len(ts)+len(synthetic)), ts...), synthetic...)
		w.index.Replace(public)
		w.inputs.SetTowers(public)
		return nil
	}
	if _, err := rs.RefreshOnce(ctx, true); err != nil {
		w.close()
		return nil, fmt.Errorf("load towers: %w", err)
	}
	if err := rs.Start(ctx); err != nil {
		w.close()
		return nil, err
	}
	w.refresh = rs
	public := planner.New(ter, func() appliance.TowerIndex { return w.index }, reg.WithFallback)
	w.runners = units.Runners{
		appliance.UnitCoverageRadials: coverage.New(ter, reg.Get),
		appliance.UnitBatchRows: batch.RowsRunner{Workers: 1, Recover: w.rec, Analyzer: func(own []*appliance.Tower, antennas appliance.AntennaCatalogue) batch.LinkAnalyzer {
			if len(own) == 0 {
				return public
			}
			ov := &overlay{public: w.index, own: spatial.New(own)}
			p := planner.New(ter, func() appliance.TowerIndex { return ov }, reg.WithFallback)
			p.Antennas = antennas // the unit's: those its tenant's towers name
			return p
		}},
	}
	return w, nil
}

// overlay is the public tower index with one tenant's own towers over it
// (a batch unit's): what the appliance's index holds for that tenant.
type overlay struct {
	public, own *spatial.Index
}

func (o *overlay) VisitWithin(p appliance.LatLon, radiusM float64, fn func(t *appliance.Tower, distM float64)) {
	o.public.VisitWithin(p, radiusM, fn)
	o.own.VisitWithin(p, radiusM, fn)
}

func (o *overlay) Within(p appliance.LatLon, radiusM float64) []*appliance.Tower {
	return nearestFirst(p, append(o.public.Within(p, radiusM), o.own.Within(p, radiusM)...))
}

func (o *overlay) Nearest(p appliance.LatLon, k int, maxM float64) []*appliance.Tower {
	all := nearestFirst(p, append(o.public.Nearest(p, k, maxM), o.own.Nearest(p, k, maxM)...))
	return all[:min(k, len(all))]
}

func (o *overlay) InBox(b appliance.BBox) []*appliance.Tower {
	all := append(o.public.InBox(b), o.own.InBox(b)...)
	slices.SortFunc(all, func(x, y *appliance.Tower) int { return strings.Compare(x.ID, y.ID) })
	return all
}

func (o *overlay) Get(id string) (*appliance.Tower, bool) {
	if t, ok := o.own.Get(id); ok {
		return t, true
	}
	return o.public.Get(id)
}

func (o *overlay) Len() int { return o.public.Len() + o.own.Len() }

func nearestFirst(p appliance.LatLon, ts []*appliance.Tower) []*appliance.Tower {
	slices.SortStableFunc(ts, func(a, b *appliance.Tower) int {
		da, db := p.DistanceM(a.Pos()), p.DistanceM(b.Pos())
		switch {
		case da < db:
			return -1
		case da > db:
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	return ts
}
