package prediction

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/features"
	"linkplan/engines/ml"
)

// Service serves the learned coverage models: it holds one model set
// (swapped whole by Reload), answers predictions through the fallback
// chain, and reports grades, gates and bands. Safe for concurrent use.
type Service struct {
	deps Deps
	set  atomic.Pointer[modelSet]
	live *live
	// reloadMu orders reloads (the set pointer itself needs no lock).
	reloadMu sync.Mutex
}

// New builds the service over the shipped models (an error there is a bug
// of the build). The caller then calls Reload to read
// <ModelsDir>/current/; while that fails the shipped set serves.
func New(d Deps) (*Service, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.KnownSchema == nil {
		d.KnownSchema = KnownSchema
	}
	if d.Terrain == nil || d.Engines == nil || d.Tower == nil {
		return nil, fmt.Errorf("prediction: Terrain, Engines and Tower are required: %w", appliance.ErrInvalid)
	}
	if d.RegionAt == nil {
		d.RegionAt = func(appliance.LatLon) string { return "" }
	}
	if err := d.External.Validate(); err != nil {
		return nil, fmt.Errorf("prediction: %w", err)
	}
	s := &Service{deps: d, live: newLive()}
	if d.Shipped != nil {
		set, err := loadSet(d.Shipped, shippedRoles(), d.KnownSchema)
		if err != nil {
			return nil, fmt.Errorf("prediction: shipped models: %w", err)
		}
		set.Origin, set.LoadedAt = "shipped", d.Now()
		set.Live = s.liveSources()
		s.set.Store(set)
	} else {
		s.set.Store(&modelSet{Origin: "none", LoadedAt: d.Now(), Bands: map[int]*ml.Artifact{}, Live: s.liveSources()})
	}
	if d.Metrics != nil {
		d.Metrics.RegisterMetricsWriter(s.writeMetrics)
	}
	return s, nil
}

// current returns the served set.
func (s *Service) current() *modelSet { return s.set.Load() }

// Reload reads <ModelsDir>/current/ and swaps it in whole; when the
// directory does not exist the shipped set serves. A directory that fails
// validation (an unreadable or malformed artifact, an unknown schema, a
// model of the wrong kind, a stray .json name) keeps the served set and
// returns an error matching ErrModelSet: a half-read set is never served.
// The live residual windows are cleared when the residual model changes.
func (s *Service) Reload(ctx context.Context) error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	old := s.current()
	var next *modelSet
	dir := ""
	if s.deps.ModelsDir != "" {
		dir = filepath.Join(s.deps.ModelsDir, "current")
	}
	st, err := os.Stat(dir)
	switch {
	case dir == "" || errors.Is(err, fs.ErrNotExist):
		if s.deps.Shipped == nil {
			next = &modelSet{Origin: "none", Bands: map[int]*ml.Artifact{}}
		} else {
			next, err = loadSet(s.deps.Shipped, shippedRoles(), s.deps.KnownSchema)
			if err != nil {
				return fmt.Errorf("reload models: shipped: %w", err)
			}
			next.Origin = "shipped"
		}
	case err != nil:
		return fmt.Errorf("reload models: %w", err)
	case !st.IsDir():
		return fmt.Errorf("reload models: %s is not a directory: %w", dir, ErrModelSet)
	default:
		if err := checkDir(dir); err != nil {
			return fmt.Errorf("reload models from %s: %w", dir, err)
		}
		next, err = loadSet(os.DirFS(dir), dirRoles(), s.deps.KnownSchema)
		if err != nil {
			return fmt.Errorf("reload models from %s: %w", dir, err)
		}
		next.Origin = dir
		next.PrevRidge, next.PrevResidual = readPrevious(newestPrevious(s.deps.ModelsDir), s.deps.KnownSchema)
	}
	next.LoadedAt = s.deps.Now()
	next.Live = s.liveSources()
	if !sameModel(old.Residual, next.Residual) {
		s.live.reset()
	}
	s.set.Store(next)
	s.deps.Log.Info("coverage models loaded", "origin", next.Origin, "ridge", versionOf(next.Ridge),
		"band_models", len(next.Bands), "residual", versionOf(next.Residual))
	return nil
}

// liveSources reads the standing source attestations; nil when they
// cannot be read (logged): no appliance attestation is then confirmed.
func (s *Service) liveSources() map[string]bool {
	if s.deps.Attestations == nil {
		return nil
	}
	atts, err := s.deps.Attestations()
	if err != nil {
		s.deps.Log.Error("coverage models: read the source attestations; no appliance-attested model claims field accuracy until they read", "err", err)
		return nil
	}
	out := map[string]bool{}
	for _, a := range atts {
		if a.Live() {
			out[a.Source] = true
		}
	}
	return out
}

func versionOf(a *ml.Artifact) string {
	if a == nil {
		return ""
	}
	return a.ModelVersion
}

// sameModel reports whether two artifacts are the same served model.
func sameModel(a, b *ml.Artifact) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ModelVersion == b.ModelVersion && a.TrainedAtUnixS == b.TrainedAtUnixS && a.NTrain == b.NTrain && a.CVRMSEDB == b.CVRMSEDB
}

// ObserveResidual records one consented observation that has a model
// prediction: observed and predicted levels in dBm (the prediction of the
// served residual engine for that row). It feeds the live band of the
// observation's signal class (GET /coverage/effective-band) and the
// residual histogram; non-finite values are ignored.
func (s *Service) ObserveResidual(observedDBm, predictedDBm float64) {
	r := observedDBm - predictedDBm
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return
	}
	c := ClassOf(observedDBm)
	s.live.add(c, r)
	if a := s.current().Residual; a != nil && a.Conformal != nil && s.deps.OnDrift != nil {
		if reason := s.live.drift(c, a.Conformal.Marginal); reason != "" {
			s.deps.Log.Warn("live band drift", "reason", reason)
			s.deps.OnDrift(context.Background(), reason)
		}
	}
}

// Observe feeds the live band from one measured row: the served residual
// engine predicts the row's link (no external endpoint, no fallback: only
// that engine's residuals calibrate its band) and, when it answers inside
// its envelope, ObserveResidual records observed − predicted. It reports
// whether a residual was recorded. The observations path calls it for
// consented rows; it never fails the caller (a row the engine cannot
// predict is simply not recorded).
//
// metric is what observedDBm measures (appliance.Observation.Metric): a
// drive-test model predicts LTE RSRP and takes only "rsrp" rows; a
// residual over the hybrid baseline predicts the wideband received level
// and takes every other metric but "rsrp" and "rscp" (tens of dB below
// it).
func (s *Service) Observe(ctx context.Context, l features.Link, cableLossDB, observedDBm float64, metric string) bool {
	if l.Validate() != nil || !(cableLossDB >= 0 && cableLossDB <= 20) || math.IsNaN(observedDBm) || math.IsInf(observedDBm, 0) {
		return false
	}
	set := s.current()
	if set.Residual == nil || driveTest(set.Residual) != (metric == "rsrp") || metric == "rscp" {
		return false
	}
	c := &chain{s: s, r: &resolved{link: l, cableLossDB: cableLossDB, model: ModelResidual}, set: set, region: s.deps.RegionAt(l.Rx)}
	if !c.residual(ctx) {
		return false
	}
	s.ObserveResidual(observedDBm, c.out.SignalDBm)
	return true
}
