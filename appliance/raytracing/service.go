package raytracing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
)

// Layers reads tenants' building layers (store.DB).
type Layers interface {
	BuildingLayer(tenantID, id string, withBuildings bool) (*appliance.BuildingLayer, []appliance.Building, error)
}

// Scenes builds layers' scenes, once per layer (engines/raytrace.LayerIndex).
type Scenes interface {
	// SceneOf returns the hash (hex SHA-256) and the local frame of the
	// layer's scene, building the scene from load's buildings on a miss.
	SceneOf(l *appliance.BuildingLayer, load func() ([]appliance.Building, error)) (hash string, f appliance.LocalFrame, err error)
	// EstimateBytes is the peak memory of building l's scene, bytes.
	EstimateBytes(l *appliance.BuildingLayer) int64
	// Built reports whether l's scene is built (waiting for a build in
	// progress), building nothing.
	Built(l *appliance.BuildingLayer) bool
}

// KindSceneBuild is the heavy work of a layer's scene built on a cache
// miss (appliance.HeavyWork.Kind).
const KindSceneBuild = "building_scene_build"

// Executor runs the ray tracer's units (engines/raytrace/worker.LayerExecutor
// over the local worker's client, or in process) and answers for the
// engine (its map warnings and version). Every unit is a pure function of
// the named scene and the request. Errors: a request or scene the engine
// refuses matches appliance.ErrInvalid (naming the field); an executor
// that died holding the unit is an *appliance.ExecutorCrashError; one that
// is not running matches appliance.ErrUnavailable.
type Executor interface {
	Point(ctx context.Context, s appliance.RaytraceScene, r appliance.RaytracePointRequest) (appliance.RaytraceResult, error)
	Map(ctx context.Context, s appliance.RaytraceScene, r appliance.RaytraceMapRequest) (appliance.RaytraceMapResult, error)
	// MapWarnings returns the warnings of a whole map's pixel flags, each
	// with its pixel count; assumed names the assumed-height buildings
	// that shaped a path to any pixel (the union of the bands') and
	// clutter is the scene's clutter beyond the extent (the bands').
	MapWarnings(flags []uint8, assumed []string, clutter appliance.RaytraceClutter) []appliance.Warning
	// EngineVersion is the engine's implementation version.
	EngineVersion() string
}

// Queue stores jobs durably (appliance/jobs.Service).
type Queue interface {
	Enqueue(ctx context.Context, j *appliance.Job) error
}

// MapStarter resolves and starts computed maps for a key
// (coverage.Starter): Requests resolves a map's transmitter as a heatmap's
// (a tower in the key's scope, a catalogue antenna and tilt as its
// Radiator: field errors naming site.antenna_id, site.tilt_deg,
// site.azimuth_deg, tower_id); StartComputed starts the map in the
// coverage registry and audits it (coverage.map.start).
type MapStarter interface {
	Requests(k *appliance.APIKey, spec coverage.Spec, best bool) ([]coverage.Request, error)
	StartComputed(ctx context.Context, k *appliance.APIKey, kind string, reqs []coverage.Request, c coverage.Computer) (*coverage.Map, error)
}

// Ground gives the ground height (the appliance's terrain,
// appliance.Terrain): the elevation at which a transmitter's antenna sees
// a receiver, for antennas with a vertical pattern.
type Ground interface {
	ElevationM(p appliance.LatLon) (float64, error)
}

// Service is the raytrace service: link jobs on the durable queue and
// radio maps through the coverage registry, both computed by the
// Executor (the raytrace worker). Construct it with its fields set.
type Service struct {
	Layers Layers
	Scenes Scenes
	// Admitter admits the build of a layer's scene on a cache miss in the
	// routes (package doc, "Scene builds"); nil: none. A job's own build
	// runs under the job's grant.
	Admitter appliance.Admitter
	Executor Executor
	Queue    Queue
	// Maps resolves and starts raytrace maps (coverage.Starter, without
	// calibrations: a raytrace map is not calibrated).
	Maps MapStarter
	// Towers is the current tower snapshot (the towers of /analyze and
	// /analyze_link).
	Towers func() appliance.TowerIndex
	// Antennas resolves the catalogue antennas towers name
	// (appliance/equipment); nil: such a tower radiates its generic
	// antenna with the warning antenna_unavailable (appliance.TowerRadiator).
	Antennas appliance.AntennaCatalogue
	// Terrain gives the ground heights of the elevation at which an
	// antenna with a vertical pattern sees a receiver (the terrain the
	// scenes are built on); nil: flat ground.
	Terrain Ground
	// NewID returns a fresh job id (jobs.NewID).
	NewID func() (string, error)
	// MaxAttempts and MaxInterruptions of a link job (0: 3 and 10).
	MaxAttempts, MaxInterruptions int
	// Metrics receives linkplan_raytrace_units_total; nil: none.
	Metrics *metrics.Set
	Log     *slog.Logger

	once sync.Once
}

func (s *Service) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

// Unit kinds and outcomes of linkplan_raytrace_units_total.
var (
	UnitKinds    = []string{"map_band", "point"}
	UnitOutcomes = []string{"canceled", "crashed", "error", "invalid", "ok", "unavailable"}
)

// UnitSeries is the series of linkplan_raytrace_units_total for a unit
// kind and an outcome.
func UnitSeries(kind, outcome string) string {
	return `linkplan_raytrace_units_total{kind="` + kind + `",outcome="` + outcome + `"}`
}

// count counts one unit by its outcome.
func (s *Service) count(kind string, err error, ctx context.Context) {
	if s.Metrics == nil {
		return
	}
	s.once.Do(func() {
		for _, k := range UnitKinds {
			for _, o := range UnitOutcomes {
				s.Metrics.GetOrCreateCounter(UnitSeries(k, o))
			}
		}
	})
	s.Metrics.GetOrCreateCounter(UnitSeries(kind, outcome(ctx, err))).Inc()
}

func outcome(ctx context.Context, err error) string {
	var ce *appliance.ExecutorCrashError
	switch {
	case err == nil:
		return "ok"
	case ctx.Err() != nil:
		return "canceled"
	case errors.As(err, &ce):
		return "crashed"
	case errors.Is(err, appliance.ErrInvalid):
		return "invalid"
	case errors.Is(err, appliance.ErrUnavailable):
		return "unavailable"
	}
	return "error"
}

// allowed refuses keys the raytrace engine does not serve
// (appliance.RaytraceTier: tiers below Enterprise, SPEC §2.5; the rule of
// the building layers too).
func allowed(k *appliance.APIKey) error {
	if k == nil {
		return fmt.Errorf("raytrace: no API key: %w", appliance.ErrUnauthenticated)
	}
	if _, ok := appliance.RaytraceTier(k); ok {
		return nil
	}
	return fmt.Errorf("the raytrace engine needs the Enterprise or Ultra tier (this key is %s): %w", k.Tier, appliance.ErrForbidden)
}

// layer is a tenant's layer with its scene's hash and frame.
type layer struct {
	l     *appliance.BuildingLayer
	frame appliance.LocalFrame
	hash  string
}

// layerOf finds the tenant's layer and its scene (built once, cached);
// field names the request field holding the id. On a cache miss the
// buildings are loaded and the scene built under admission for k's
// tenant and tier (a full queue: 503 + Retry-After), admitted before the
// build starts; k nil: the caller already holds a grant (a job).
func (s *Service) layerOf(ctx context.Context, k *appliance.APIKey, tenantID, id, field string) (*layer, error) {
	if id == "" {
		return nil, appliance.Invalid(field, "is required: the id of one of your building layers (GET /buildings/layers)")
	}
	l, _, err := s.Layers.BuildingLayer(tenantID, id, false)
	if err != nil {
		if errors.Is(err, appliance.ErrNotFound) {
			return nil, fmt.Errorf("building layer %s (%s): %w", truncate(id, 64), field, appliance.ErrNotFound)
		}
		return nil, fmt.Errorf("building layer %s: %w", truncate(id, 64), err)
	}
	// admitted before the build starts, never inside it: a job holding a
	// grant may wait for a build in progress, whose builder must not be
	// waiting for that grant
	if k != nil && !s.Scenes.Built(l) {
		release, err := appliance.AdmitNow(ctx, s.Admitter, appliance.HeavyWork{TenantID: tenantID, Tier: k.Tier, Kind: KindSceneBuild,
			Workers: 1, MemBytes: s.Scenes.EstimateBytes(l)})
		if err != nil {
			return nil, fmt.Errorf("building layer %s: %w", l.ID, err)
		}
		defer release()
	}
	hash, f, err := s.Scenes.SceneOf(l, func() ([]appliance.Building, error) {
		_, bs, err := s.Layers.BuildingLayer(tenantID, id, true)
		return bs, err
	})
	if err != nil {
		return nil, fmt.Errorf("building layer %s: %w", l.ID, err)
	}
	return &layer{l: l, frame: f, hash: hash}, nil
}

// sceneRef names the layer's scene for the executor; the layer and its
// buildings are loaded from the store only when the executor does not hold
// the scene.
func (s *Service) sceneRef(tenantID string, ly *layer) appliance.RaytraceScene {
	return appliance.RaytraceScene{Hash: ly.hash, Load: func(context.Context) (*appliance.BuildingLayer, []appliance.Building, error) {
		l, bs, err := s.Layers.BuildingLayer(tenantID, ly.l.ID, true)
		if err != nil {
			return nil, nil, fmt.Errorf("building layer %s: %w", ly.l.ID, err)
		}
		return l, bs, nil
	}}
}

// inFrame checks that p is within the layer's traced frame.
func inFrame(v *appliance.ValidationError, field string, f appliance.LocalFrame, p appliance.LatLon) {
	if !p.Valid() {
		return // named by the caller's own checks
	}
	x, y := f.ToLocal(p)
	if d := math.Hypot(x, y); d > appliance.RaytraceMaxFrameM {
		v.Add(field, "is %.0f m from the building layer's centre %v; the raytrace engine traces positions within %g m of it", d, f.Origin, appliance.RaytraceMaxFrameM)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
