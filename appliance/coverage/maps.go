package coverage

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
)

// MapState is the state of a map computation (see the package doc's
// table).
type MapState string

// Map states.
const (
	// MapQueued waits in the heavy-work admission queue (appliance/admission)
	// for CPU workers and memory; queued events report its position.
	MapQueued    MapState = "queued"
	MapComputing MapState = "computing"
	MapDone      MapState = "done"
	MapCanceled  MapState = "canceled"
	MapFailed    MapState = "failed"
)

// Event types of a map's stream, in the order they come: one started, any
// number of queued events while the map waits for the heavy-work budget,
// any number of progress and tile events, then exactly one summary (done)
// or error (canceled, failed).
const (
	EventStarted  = "started"
	EventQueued   = "queued"
	EventProgress = "progress"
	EventTile     = "tile"
	EventSummary  = "summary"
	EventError    = "error"
)

// TileEncoding names the encoding of EventTileData.Data and .Servers.
const TileEncoding = "int16le-base64"

// Event is one event of a map's stream. Seq counts from 1 per map and is
// the stream's event id: a client that resumes after Seq n gets the events
// from n+1 on, the same bytes as the first time.
type Event struct {
	Seq  int
	Type string
	Data any // one of the Event*Data types
}

// EventStartedData opens a stream: the grid of the map.
type EventStartedData struct {
	MapID       string  `json:"map_id"`
	Kind        string  `json:"kind"`           // "single" or "best_server"
	West        float64 `json:"west"`           // WGS84 degrees
	North       float64 `json:"north"`          // WGS84 degrees
	PixelLonDeg float64 `json:"pixel_lon_deg"`  // degrees of longitude
	PixelLatDeg float64 `json:"pixel_lat_deg"`  // degrees of latitude
	Width       int     `json:"width"`          // pixels
	Height      int     `json:"height"`         // pixels
	TileSize    int     `json:"tile_size"`      // pixels
	Tiles       int     `json:"tiles"`          // tiles to come
	Engine      string  `json:"engine"`         // engine id
	Servers     int     `json:"servers"`        // transmitters
	Encoding    string  `json:"encoding"`       // TileEncoding
	CRS         string  `json:"crs"`            // "EPSG:4326"
	Retention   int64   `json:"retention_s"`    // seconds the finished map is kept for export and resume
	Threshold   float64 `json:"threshold_dbm"`  // level of the summary's covered area, dBm
	RadiusM     float64 `json:"radius_m"`       // metres (largest of the servers)
	FreqMHz     float64 `json:"frequency_mhz"`  // MHz (of the first server)
	RxHeightM   float64 `json:"rx_height_m"`    // metres above ground
	Resolution  float64 `json:"resolution_m"`   // requested resolution, metres
	Created     string  `json:"created_at"`     // RFC 3339 UTC
	Progressive bool    `json:"progressive"`    // tiles come while the map computes (false: all at the end, best-server maps)
	NoData      int     `json:"nodata_value"`   // the int16 value of a pixel without data (−32768)
	Scale       float64 `json:"value_scale_db"` // dB per int16 unit (0.01)
	// The caveats known before computing (package doc, "Caveats"): the
	// first transmitter's EIRP, dBm; whether any transmitter's EIRP was
	// assumed; every transmitter; and the warnings its requests decide
	// (TransmitterWarnings). The summary adds those the terrain raises.
	EIRPDBm      float64             `json:"eirp_dbm"`
	EIRPAssumed  bool                `json:"eirp_assumed"`
	Transmitters []TransmitterData   `json:"transmitters"`
	Warnings     []appliance.Warning `json:"warnings"`
}

// EventProgressData reports finished radials.
type EventProgressData struct {
	Done     int     `json:"done_radials"`
	Total    int     `json:"total_radials"`
	Fraction float64 `json:"fraction"` // 0..1, 3 decimals
}

// EventTileData is one finished tile.
type EventTileData struct {
	ID     string  `json:"id"`
	Row    int     `json:"row"`
	Col    int     `json:"col"`
	X0     int     `json:"x0"`     // column of its north-west pixel in the map
	Y0     int     `json:"y0"`     // row of its north-west pixel in the map
	Width  int     `json:"width"`  // pixels
	Height int     `json:"height"` // pixels
	West   float64 `json:"west"`   // WGS84 degrees (outer pixel edges)
	South  float64 `json:"south"`
	East   float64 `json:"east"`
	North  float64 `json:"north"`
	// Data is the tile's received power, row-major from its north-west
	// pixel: little-endian int16 centi-dBm, −32768 for no data, base64.
	Data string `json:"data"`
	// Servers (best-server maps only) is the index of the strongest
	// transmitter per pixel, same layout, −1 for no data.
	Servers     string   `json:"servers,omitempty"`
	ValidPixels int      `json:"valid_pixels"`
	MinDBm      *float64 `json:"min_dbm"` // null without a valid pixel
	MaxDBm      *float64 `json:"max_dbm"`
}

// EventSummaryData ends a finished stream: Summary in JSON.
type EventSummaryData struct {
	Pixels                   int       `json:"pixels"`
	InRadiusPixels           int       `json:"in_radius_pixels"`
	ValidPixels              int       `json:"valid_pixels"`
	NoDataMissingTerrain     int       `json:"nodata_missing_terrain_pixels"`
	MissingTiles             []string  `json:"missing_tiles"`
	NoDataOutsideEnvelope    int       `json:"nodata_outside_envelope_pixels"`
	ThresholdDBm             float64   `json:"threshold_dbm"`
	CoveredKm2AboveThreshold float64   `json:"covered_km2_above_threshold"`
	MinDBm                   *float64  `json:"min_dbm"` // null without a valid pixel
	MaxDBm                   *float64  `json:"max_dbm"`
	ElapsedMS                int64     `json:"elapsed_ms"`
	Engine                   string    `json:"engine"`
	EngineVersion            string    `json:"engine_version"`
	Radials                  int       `json:"radials"`
	ProfileStepM             float64   `json:"profile_step_m"`
	Evaluations              int       `json:"evaluations"`
	Pixel                    PixelData `json:"pixel"`
	// Detail is a computed map's own summary (an interference map's
	// SINR areas, a viewshed's visible area); absent for the others.
	Detail json.RawMessage `json:"detail,omitempty"`
	// The caveats of the map (package doc, "Caveats"): the first
	// transmitter's EIRP, dBm; whether any transmitter's EIRP was assumed;
	// every transmitter; and the warnings that apply to the whole map.
	EIRPDBm      float64             `json:"eirp_dbm"`
	EIRPAssumed  bool                `json:"eirp_assumed"`
	Transmitters []TransmitterData   `json:"transmitters"`
	Warnings     []appliance.Warning `json:"warnings"`
}

// PixelData is PixelInfo in JSON: what a pixel stands for.
type PixelData struct {
	Mode         string  `json:"mode"`     // "default" or "exact"
	Receiver     string  `json:"receiver"` // the receiver position it stands for
	Profile      string  `json:"profile"`  // the profile its value was computed on
	Within1DBPct float64 `json:"within_1db_pct"`
	Within3DBPct float64 `json:"within_3db_pct"`
	MaxAbsDB     float64 `json:"max_abs_db"`
	Source       string  `json:"agreement_source"`
}

// SummaryData returns s as the summary event's data.
func SummaryData(s Summary) EventSummaryData {
	tiles := s.MissingTiles
	if tiles == nil {
		tiles = []string{}
	}
	if s.Warnings == nil {
		s.Warnings = []appliance.Warning{}
	}
	if s.Transmitters == nil {
		s.Transmitters = []TransmitterData{}
	}
	return EventSummaryData{Pixels: s.Pixels, InRadiusPixels: s.InRadiusPixels, ValidPixels: s.ValidPixels,
		NoDataMissingTerrain: s.NoDataMissingTerrain, MissingTiles: tiles, NoDataOutsideEnvelope: s.NoDataOutsideEnvelope,
		ThresholdDBm: s.ThresholdDBm, CoveredKm2AboveThreshold: r3(s.CoveredKm2AboveThreshold),
		MinDBm: finitePtr(s.MinDBm), MaxDBm: finitePtr(s.MaxDBm), ElapsedMS: s.ElapsedMS, Engine: string(s.Engine),
		EngineVersion: s.EngineVersion, Radials: s.Radials, ProfileStepM: r3(s.ProfileStepM), Evaluations: s.Evaluations,
		Pixel: PixelData{Mode: s.Pixel.Mode, Receiver: s.Pixel.Receiver, Profile: s.Pixel.Profile, Within1DBPct: s.Pixel.Within1DBPct,
			Within3DBPct: s.Pixel.Within3DBPct, MaxAbsDB: s.Pixel.MaxAbsDB, Source: s.Pixel.Source}, Detail: s.Detail,
		EIRPDBm: r3(s.EIRPDBm), EIRPAssumed: s.EIRPAssumed, Transmitters: s.Transmitters, Warnings: s.Warnings}
}

// EventErrorData ends a canceled or failed stream.
type EventErrorData struct {
	Code    string `json:"code"` // "canceled", "missing_terrain", "outside_envelope", "interrupted", "worker_crashed", "unavailable", "failed"
	Message string `json:"message"`
}

// EventQueuedData reports a map waiting for the heavy-work budget: sent
// when it starts to wait and whenever its position changes.
type EventQueuedData struct {
	// Position is the map's 1-based place in the appliance's queue of heavy
	// work (1: computed next).
	Position int    `json:"queue_position"`
	Message  string `json:"message"`
}

// MapsOptions configure the map registry; the zero value is valid.
type MapsOptions struct {
	// Retention is how long a finished map is kept for export and
	// resume; 0 means DefaultRetention.
	Retention time.Duration
	// MaxMaps bounds the finished maps kept; 0 means DefaultMaxMaps. The
	// oldest finished map goes first. Without an Admitter it bounds the
	// maps kept in all, computing ones included.
	MaxMaps int
	// MaxComputingPerTenant bounds one tenant's maps queued or computing
	// at once; 0 means DefaultMaxComputingPerTenant.
	MaxComputingPerTenant int
	// Compute are the options of every computation (OnTile and OnProgress
	// are the registry's own; Workers is the grant's when an Admitter is
	// set).
	Compute Options
	// Admitter schedules the computations (appliance/admission): a map
	// waits in its queue (state queued) until it is granted workers and
	// memory, and computes on the granted workers. nil: maps compute at
	// once on Compute.Workers goroutines.
	Admitter appliance.Admitter
	// Dir keeps maps on disk (package doc, "Persistence"): finished rasters
	// leave memory, and finished maps survive a restart within Retention.
	// Empty: maps live in memory only and a restart forgets them.
	Dir string
	// Log receives failures and recovered panics; nil discards them.
	Log *slog.Logger
	// Metrics receives linkplan_recovered_panics_total{component="coverage"};
	// nil means none.
	Metrics *metrics.Set
	// Units, when set, computes every map's radials as work units of
	// this executor (units.go; in the process or on workers: the same
	// map bit for bit), planned on the digests Inputs returns.
	Units  appliance.UnitExecutor
	Inputs func() appliance.Inputs
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// NewID returns a fresh map id; nil means NewMapID.
	NewID func() (string, error)
}

// Registry defaults.
const (
	DefaultRetention = time.Hour
	DefaultMaxMaps   = 16
	// MaxMapPixels bounds one map of the registry (64 MiB of float32
	// raster; EstimateMemBytes gives its peak while it computes).
	MaxMapPixels                 = 16 << 20
	DefaultMaxComputingPerTenant = 2
)

// Maps runs map computations for tenants and keeps their events and
// rasters (package doc, "Streams"). It is safe for concurrent use.
type Maps struct {
	svc     *Service
	opts    MapsOptions
	log     *slog.Logger
	panics  *metrics.Counter // nil without Metrics
	closing atomic.Bool
	wg      sync.WaitGroup // run goroutines
	mu      sync.Mutex
	maps    map[string]*Map
}

// NewMaps returns a registry computing with svc. With Dir set, call Open
// before use.
func NewMaps(svc *Service, o MapsOptions) *Maps {
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.MaxMaps <= 0 {
		o.MaxMaps = DefaultMaxMaps
	}
	if o.MaxComputingPerTenant <= 0 {
		o.MaxComputingPerTenant = DefaultMaxComputingPerTenant
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewID == nil {
		o.NewID = NewMapID
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Maps{svc: svc, opts: o, log: log, maps: map[string]*Map{}}
	if o.Metrics != nil {
		// Created at start, so that the series exists before any panic.
		m.panics = o.Metrics.GetOrCreateCounter(MetricRecoveredPanics)
	}
	return m
}

// MetricRecoveredPanics counts the panics of map computations recovered
// into a failed map (the other components count theirs under their own
// component label).
const MetricRecoveredPanics = `linkplan_recovered_panics_total{component="coverage"}`

// Map is one computation and, once finished, its result.
type Map struct {
	ID       string
	TenantID string
	Best     bool // a best-server map
	// Kind is "single", "best_server", or the kind of a computed map
	// (StartComputed, e.g. "raytrace").
	Kind     string
	Created  time.Time
	Requests []Request

	requestID string   // of the request that started it (logged with a failure)
	computer  Computer // a computed map's computation; nil for the registry's own
	log       *slog.Logger
	shape     *Raster
	ctx       context.Context // the computation's, canceled by cancel
	cancel    context.CancelFunc
	mu        sync.Mutex
	state     MapState
	position  int // queue position while queued
	// events holds the stream; tile events hold their EventTileData
	// without Data and Servers, which Next encodes from the raster (the
	// live one, the finished one in memory, or its file in Dir).
	events []Event
	wake   chan struct{} // closed and replaced at every change
	// watchers counts attached streams; the last one to leave cancels a
	// queued or computing map.
	watchers    int
	finished    time.Time
	live        *Raster // the raster being computed: its reported tiles are final
	liveServers []int32
	raster      *Raster // a finished raster kept in memory (no Dir)
	servers     []int32
	bands       [][]float32 // a computed map's more bands, in memory (no Dir)
	nbands      int         // how many bands the finished map keeps
	summary     *Summary
	dir         string // the Dir holding the finished raster; "" when in memory
}

// Owner is who starts a map: the tenant, its tier (its fair share of the
// heavy-work budget) and the id of the request, logged with a failure.
type Owner struct {
	TenantID  string
	Tier      appliance.Tier
	RequestID string
}

// Start starts a map for tenantID (StartFor with no tier: the smallest
// fair share).
func (m *Maps) Start(tenantID string, reqs []Request, best bool) (*Map, error) {
	return m.StartFor(Owner{TenantID: tenantID}, reqs, best)
}

// StartFor validates the requests (one for a single map, several for a
// best-server map), checks the registry's bounds, submits the map to the
// Admitter and computes it in the background once admitted. The caller
// attaches a stream at once (Attach): a queued or computing map that no
// stream watches is canceled. A full admission queue is a
// *appliance.RetryAfterError matching appliance.ErrUnavailable; a map whose
// memory estimate exceeds the whole heavy-work budget appliance.ErrInvalid
// naming resolution_m.
func (m *Maps) StartFor(o Owner, reqs []Request, best bool) (*Map, error) {
	if len(reqs) == 0 {
		return nil, appliance.Invalid("tower_ids", "at least one transmitter is required")
	}
	if !best && len(reqs) != 1 {
		return nil, fmt.Errorf("coverage: a single map has one transmitter, got %d: %w", len(reqs), appliance.ErrInvalid)
	}
	if best && len(reqs) > MaxBestServers {
		return nil, appliance.Invalid("tower_ids", "at most %d transmitters, got %d", MaxBestServers, len(reqs))
	}
	for i := range reqs {
		if err := reqs[i].Validate(); err != nil {
			return nil, err
		}
	}
	shape := Shape(reqs, best)
	if px := shape.Width * shape.Height; px > MaxMapPixels {
		return nil, appliance.Invalid("resolution_m", "the map would have %d×%d = %d pixels, more than %d: choose a coarser resolution or a smaller radius",
			shape.Width, shape.Height, px, MaxMapPixels)
	}
	id, err := m.opts.NewID()
	if err != nil {
		return nil, fmt.Errorf("coverage: map id: %w", err)
	}
	now := m.opts.Now().UTC()
	kind := "single"
	if best {
		kind = "best_server"
	}
	workers := m.opts.Compute.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	mp, adm, err := m.admit(o, id, now, reqs, best, shape, kind, nil, workers, EstimateMemBytes(reqs, best, workers))
	if err != nil {
		return nil, err
	}
	m.save(mp) // a map on disk as queued or computing reads as interrupted after a restart
	go m.run(mp.ctx, mp, adm)
	return mp, nil
}

// Computer computes a map whose grid and method are its own (a raytrace
// map of a building layer, appliance/raytracing); the registry gives it
// what its own maps have: the stream and its resume, the heavy-work
// admission, persistence, retention and the exports.
type Computer interface {
	// Shape is the map's grid, without pixels (Raster.DBm nil).
	Shape() *Raster
	// Work sizes the computation for the heavy-work scheduler: how many
	// goroutines it can keep busy and its peak memory, bytes.
	Work() (workers int, memBytes int64)
	// Compute computes the raster on at most workers goroutines. It calls
	// onProgress as units finish and onTile for each tile of Shape's grid
	// in row-major order as soon as the tile is final (TileDone.Raster is
	// the raster being filled). The Result's Summary carries the map's
	// caveats (Warnings never nil). It stops when ctx ends, returning
	// ctx's error.
	Compute(ctx context.Context, workers int, onTile func(TileDone), onProgress func(done, total int)) (*Result, error)
}

// ServersComputer is a Computer whose Result carries Servers (an index
// per pixel, like a best-server map's): its tiles come at the end with
// their servers, and the index is kept with the raster.
type ServersComputer interface {
	Computer
	HasServers() bool
}

// StartComputed starts a computed map of kind for o: req describes its
// transmitter for the started event's caveats (engine, frequency, EIRP,
// receiver height, resolution; it is not validated here: the Computer's
// service validated it). The per-tenant bound, the admission (c.Work) and
// everything after are those of StartFor. A ServersComputer's map is
// recorded as a best-server one (Map.Best: not progressive, its index
// kept and streamed).
func (m *Maps) StartComputed(o Owner, kind string, req Request, c Computer) (*Map, error) {
	return m.StartComputedFor(o, kind, []Request{req}, c)
}

// StartComputedFor is StartComputed for a map of several transmitters
// (reqs, each described in the started event; at least one).
func (m *Maps) StartComputedFor(o Owner, kind string, reqs []Request, c Computer) (*Map, error) {
	if len(reqs) == 0 {
		return nil, appliance.Invalid("sites", "at least one transmitter is required")
	}
	shape := c.Shape()
	if px := shape.Width * shape.Height; px > MaxMapPixels || px <= 0 {
		return nil, appliance.Invalid("resolution_m", "the map would have %d×%d pixels; at most %d", shape.Width, shape.Height, MaxMapPixels)
	}
	id, err := m.opts.NewID()
	if err != nil {
		return nil, fmt.Errorf("coverage: map id: %w", err)
	}
	workers, mem := c.Work()
	sc, best := c.(ServersComputer)
	best = best && sc.HasServers()
	mp, adm, err := m.admit(o, id, m.opts.Now().UTC(), reqs, best, shape, kind, c, max(1, workers), mem)
	if err != nil {
		return nil, err
	}
	m.save(mp)
	go m.run(mp.ctx, mp, adm)
	return mp, nil
}

// admit checks the registry's bounds, submits the map to the Admitter and
// registers it, under the registry's lock.
func (m *Maps) admit(o Owner, id string, now time.Time, reqs []Request, best bool, shape *Raster, kind string, c Computer, workers int, mem int64) (*Map, appliance.Admission, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closing.Load() {
		return nil, nil, fmt.Errorf("the appliance is stopping; start the map again once it is back: %w", appliance.ErrUnavailable)
	}
	m.sweepLocked(now)
	active := 0
	for _, x := range m.maps {
		if x.TenantID == o.TenantID && x.State().active() {
			active++
		}
	}
	if active >= m.opts.MaxComputingPerTenant {
		return nil, nil, fmt.Errorf("%d coverage maps of this tenant are queued or computing (at most %d at once); wait for one to finish: %w",
			active, m.opts.MaxComputingPerTenant, appliance.ErrQuota)
	}
	if m.opts.Admitter == nil && len(m.maps) >= m.opts.MaxMaps {
		return nil, nil, fmt.Errorf("the appliance is computing %d coverage maps, its limit; try again shortly: %w", len(m.maps), appliance.ErrUnavailable)
	}
	state := MapComputing
	var (
		adm appliance.Admission
		err error
	)
	if m.opts.Admitter != nil {
		work := kind
		if kind == "single" {
			work = "heatmap"
		}
		adm, err = m.opts.Admitter.Submit(appliance.HeavyWork{ID: id, TenantID: o.TenantID, Tier: o.Tier, Kind: work,
			Workers: workers, MemBytes: mem})
		if errors.Is(err, appliance.ErrInvalid) {
			return nil, nil, appliance.Invalid("resolution_m", "%v: choose a coarser resolution, a smaller radius or fewer transmitters", unwrapped(err))
		}
		if err != nil {
			return nil, nil, fmt.Errorf("coverage: start map: %w", err)
		}
		if m.opts.Admitter.Position(id) > 0 {
			state = MapQueued
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	mp := &Map{ID: id, TenantID: o.TenantID, Best: best, Kind: kind, Created: now, Requests: reqs, requestID: o.RequestID, shape: shape, log: m.log,
		computer: c, ctx: ctx, cancel: cancel, state: state, wake: make(chan struct{})}
	mp.addStarted(shape, m.opts, reqs[0])
	m.maps[id] = mp
	m.wg.Add(1) // under the lock: Close waits for it
	return mp, adm, nil
}

// unwrapped is err's message without the sentinel's suffix.
func unwrapped(err error) string {
	return strings.TrimSuffix(err.Error(), ": "+appliance.ErrInvalid.Error())
}

// active reports a map that is queued or computing.
func (s MapState) active() bool { return s == MapQueued || s == MapComputing }

// Get returns tenant's map; another tenant's map is appliance.ErrNotFound,
// like an unknown or expired one.
func (m *Maps) Get(tenantID, id string) (*Map, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweepLocked(m.opts.Now().UTC())
	mp, ok := m.maps[id]
	if !ok || mp.TenantID != tenantID {
		return nil, fmt.Errorf("coverage map %s (unknown, or expired after %v): %w", id, m.opts.Retention, appliance.ErrNotFound)
	}
	return mp, nil
}

// Close stops the registry for a shutdown: a queued or computing map ends
// failed with the error code interrupted ("interrupted by a restart"),
// recorded in Dir, and Close waits (at most 10 s) for the computations to
// stop. Starts are refused from then on. Close is idempotent.
func (m *Maps) Close() {
	m.closing.Store(true)
	m.mu.Lock()
	for _, mp := range m.maps {
		mp.cancel()
	}
	m.mu.Unlock()
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		m.log.Warn("coverage maps still computing at shutdown; the next start reports them interrupted")
	}
}

// sweepLocked drops finished maps past retention and, over MaxMaps, the
// oldest finished ones (with their files).
func (m *Maps) sweepLocked(now time.Time) {
	var done []*Map
	for id, mp := range m.maps {
		st, fin := mp.finishedAt()
		if st.active() {
			continue
		}
		if now.Sub(fin) >= m.opts.Retention {
			delete(m.maps, id)
			m.remove(id)
			continue
		}
		done = append(done, mp)
	}
	limit := m.opts.MaxMaps
	kept := len(done)
	if m.opts.Admitter == nil {
		kept = len(m.maps) + 1 // room for the map being started
	}
	if kept <= limit {
		return
	}
	sort.Slice(done, func(i, j int) bool {
		_, a := done[i].finishedAt()
		_, b := done[j].finishedAt()
		return a.Before(b) || a.Equal(b) && done[i].ID < done[j].ID
	})
	for _, mp := range done {
		if kept <= limit {
			break
		}
		delete(m.maps, mp.ID)
		m.remove(mp.ID)
		kept--
	}
}

// run waits for the map's admission, computes it and records the end.
// Every panic of the computation (its own goroutine and, through
// PanicError, its workers') fails the map instead of the process.
func (m *Maps) run(ctx context.Context, mp *Map, adm appliance.Admission) {
	defer m.wg.Done()
	defer mp.cancel()
	var (
		res  *Result
		best *BestResult
		err  error
	)
	defer func() {
		if p := recover(); p != nil { // a panic in finish itself: the map still ends
			m.finish(mp, nil, nil, recovered(p))
		}
	}()
	workers := m.opts.Compute.Workers
	if adm != nil {
		var g appliance.Grant
		g, err = adm.Wait(ctx, mp.queuedAt)
		if err == nil {
			defer adm.Release() // after finish: the raster has left memory by then
			workers = g.Workers
			mp.setComputing()
		}
	}
	if err == nil {
		res, best, err = m.compute(ctx, mp, workers)
	}
	m.finish(mp, res, best, err)
}

// compute runs the computation on workers goroutines, a panic recovered
// into a *PanicError.
func (m *Maps) compute(ctx context.Context, mp *Map, workers int) (res *Result, best *BestResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, best, err = nil, nil, recovered(p)
		}
	}()
	opts := m.opts.Compute
	opts.Workers = workers
	opts.OnProgress = func(done, total int) {
		mp.add(EventProgress, EventProgressData{Done: done, Total: total, Fraction: math.Round(1000*float64(done)/float64(max(total, 1))) / 1000})
	}
	opts.OnTile = func(td TileDone) {
		if td.Tile.X0 < 0 || td.Tile.Y0 < 0 || td.Tile.X0+td.Tile.W > td.Raster.Width || td.Tile.Y0+td.Tile.H > td.Raster.Height {
			return // cannot happen: the tile is one of its own raster
		}
		ev := EventTileData{ID: td.Tile.ID, Row: td.Tile.Row, Col: td.Tile.Col, X0: td.Tile.X0, Y0: td.Tile.Y0,
			Width: td.Tile.W, Height: td.Tile.H, West: td.Tile.West, South: td.Tile.South, East: td.Tile.East, North: td.Tile.North,
			ValidPixels: td.ValidPixels, MinDBm: finitePtr(td.MinDBm), MaxDBm: finitePtr(td.MaxDBm)}
		mp.mu.Lock()
		mp.live, mp.liveServers = td.Raster, td.Servers
		mp.mu.Unlock()
		mp.add(EventTile, ev) // Data and Servers are encoded when read (Next)
	}
	if mp.computer != nil {
		res, err = mp.computer.Compute(ctx, workers, opts.OnTile, opts.OnProgress)
		return res, nil, err
	}
	if m.opts.Units != nil {
		var in appliance.Inputs
		if m.opts.Inputs != nil {
			in = m.opts.Inputs()
		}
		opts.Units = &Units{Executor: m.opts.Units, Unit: appliance.WorkUnit{JobID: mp.ID, Run: "map", TenantID: mp.TenantID, Inputs: in}}
	}
	if mp.Best {
		best, err = m.svc.ComputeBest(ctx, mp.Requests, opts)
		if err == nil {
			res = &Result{Raster: best.Raster, Summary: best.Summary}
		}
		return res, best, err
	}
	res, err = m.svc.Compute(ctx, mp.Requests[0], opts)
	return res, nil, err
}

// recovered turns a recovered panic value into a *PanicError (the one a
// worker already made, with its own stack).
func recovered(p any) *PanicError {
	if pe, ok := p.(*PanicError); ok {
		return pe
	}
	return &PanicError{Value: p, Stack: debug.Stack()}
}

func (mp *Map) addStarted(r *Raster, o MapsOptions, first Request) {
	radius := 0.0
	for _, q := range mp.Requests {
		radius = max(radius, q.RadiusM)
	}
	kind := mp.Kind
	th := o.Compute.ThresholdDBm
	if th == 0 {
		th = DefaultThresholdDBm
	}
	mp.mu.Lock()
	defer mp.mu.Unlock()
	ev := Event{Seq: 1, Type: EventStarted, Data: EventStartedData{MapID: mp.ID, Kind: kind, West: r.West, North: r.North,
		PixelLonDeg: r.PixelLonDeg, PixelLatDeg: r.PixelLatDeg, Width: r.Width, Height: r.Height, TileSize: TileSize,
		Tiles: r.TileRows() * r.TileCols(), Engine: string(first.Engine), Servers: len(mp.Requests), Encoding: TileEncoding,
		CRS: "EPSG:4326", Retention: int64(o.Retention / time.Second), Threshold: th, RadiusM: radius,
		FreqMHz: first.FreqMHz, RxHeightM: first.RxHeightM, Resolution: first.ResolutionM,
		Created: mp.Created.Format(time.RFC3339Nano), Progressive: !mp.Best, NoData: NoDataCentiDBm, Scale: 0.01,
		EIRPDBm: r3(first.EIRPDBm), EIRPAssumed: anyAssumed(mp.Requests), Transmitters: TransmittersData(mp.Requests),
		Warnings: TransmitterWarnings(mp.Requests)}}
	mp.events = append(mp.events, ev)
	mp.signalLocked()
}

// finitePtr returns v rounded to 3 decimals (dB, dBm), nil when not
// finite.
func finitePtr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	v = r3(v)
	return &v
}

func r3(v float64) float64 { return appliance.Round(v, 3) }

func (mp *Map) add(typ string, data any) {
	mp.mu.Lock()
	defer mp.mu.Unlock()
	mp.events = append(mp.events, Event{Seq: len(mp.events) + 1, Type: typ, Data: data})
	mp.signalLocked()
}

func (mp *Map) signalLocked() {
	close(mp.wake)
	mp.wake = make(chan struct{})
}

// queuedAt records a queue position: the state, and a queued event.
func (mp *Map) queuedAt(pos int) {
	mp.mu.Lock()
	defer mp.mu.Unlock()
	if mp.state != MapQueued {
		return
	}
	mp.position = pos
	mp.events = append(mp.events, Event{Seq: len(mp.events) + 1, Type: EventQueued, Data: EventQueuedData{Position: pos,
		Message: fmt.Sprintf("waiting for the appliance's heavy-work budget (CPU workers and memory): position %d in the queue", pos)}})
	mp.signalLocked()
}

// setComputing records the admission.
func (mp *Map) setComputing() {
	mp.mu.Lock()
	defer mp.mu.Unlock()
	if mp.state == MapQueued {
		mp.state, mp.position = MapComputing, 0
		mp.signalLocked()
	}
}

// finish records the end of a computation: the summary or the error
// event, the state, and (with Dir) the raster and the record on disk. A
// map already finished stays as it is.
func (m *Maps) finish(mp *Map, res *Result, best *BestResult, err error) {
	var pe *PanicError
	switch {
	case errors.As(err, &pe):
		m.log.Error("coverage map computation panicked; the map failed", "map_id", mp.ID, "tenant", mp.TenantID, "request_id", mp.requestID,
			"panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
		if m.panics != nil {
			m.panics.Inc()
		}
	case err != nil && !errors.Is(err, context.Canceled) && errorData(err).Code == "failed":
		m.log.Error("coverage map failed", "map_id", mp.ID, "tenant", mp.TenantID, "request_id", mp.requestID, "err", err)
	}
	interrupted := err != nil && errors.Is(err, context.Canceled) && m.closing.Load()
	// The raster of the tiles the stream reported (all of them when done)
	// stays readable: in Dir when set, else in memory.
	mp.mu.Lock()
	r, servers := mp.live, mp.liveServers
	mp.mu.Unlock()
	var bands [][]float32
	if err == nil {
		r, servers, bands = res.Raster, res.Servers, res.Bands
		if best != nil {
			servers = best.Server
		}
	}
	spilled := ""
	if r != nil && m.opts.Dir != "" {
		if serr := writeRaster(m.opts.Dir, mp.ID, r, servers, bands); serr != nil {
			m.log.Error("coverage map raster not written; it stays in memory", "map_id", mp.ID, "err", serr)
		} else {
			r, servers, bands, spilled = nil, nil, nil, m.opts.Dir
		}
	}
	now := m.opts.Now().UTC()
	mp.mu.Lock()
	if !mp.state.active() {
		mp.mu.Unlock()
		return
	}
	mp.finished, mp.position, mp.live, mp.liveServers = now, 0, nil, nil
	mp.raster, mp.servers, mp.dir = r, servers, spilled
	if err == nil {
		mp.bands, mp.nbands = bands, len(res.Bands)
	}
	switch {
	case err == nil:
		mp.events = append(mp.events, Event{Seq: len(mp.events) + 1, Type: EventSummary, Data: SummaryData(res.Summary)})
		mp.state, mp.summary = MapDone, &res.Summary
	case interrupted:
		mp.state = MapFailed
		mp.events = append(mp.events, Event{Seq: len(mp.events) + 1, Type: EventError, Data: interruptedData})
	case errors.Is(err, context.Canceled):
		mp.state = MapCanceled
		mp.events = append(mp.events, Event{Seq: len(mp.events) + 1, Type: EventError,
			Data: EventErrorData{Code: "canceled", Message: "the computation was canceled: its last stream disconnected"}})
	default:
		mp.state = MapFailed
		mp.events = append(mp.events, Event{Seq: len(mp.events) + 1, Type: EventError, Data: errorData(err)})
	}
	m.saveLocked(mp) // durable before a stream or a Get sees the end
	mp.signalLocked()
	mp.mu.Unlock()
}

// interruptedData ends the stream of a map that was queued or computing
// when the appliance stopped.
var interruptedData = EventErrorData{Code: "interrupted",
	Message: "the computation was interrupted by a restart of the appliance; start the map again"}

func errorData(err error) EventErrorData {
	var tm *appliance.TileMissingError
	var ce *appliance.ExecutorCrashError
	switch {
	case errors.As(err, &ce):
		return EventErrorData{Code: "worker_crashed", Message: ce.Error()}
	case errors.Is(err, appliance.ErrUnavailable):
		return EventErrorData{Code: "unavailable", Message: "a dependency of the computation is not running (the raytrace worker, restarting?); start the map again shortly"}
	case errors.As(err, &tm):
		return EventErrorData{Code: "missing_terrain", Message: "terrain tile " + tm.Tile + " under the transmitter is not in any loaded terrain pack"}
	case errors.Is(err, appliance.ErrTerrainMissing):
		return EventErrorData{Code: "missing_terrain", Message: "terrain under the transmitter is not in any loaded terrain pack"}
	case errors.Is(err, appliance.ErrOutsideEnvelope):
		return EventErrorData{Code: "outside_envelope", Message: "the engine refuses every path of this map as outside its validity range; choose another engine or frequency"}
	}
	return EventErrorData{Code: "failed", Message: "the computation failed; the appliance log has the details"}
}

// State returns the map's state.
func (mp *Map) State() MapState {
	mp.mu.Lock()
	defer mp.mu.Unlock()
	return mp.state
}

// QueuePosition returns the map's 1-based position in the heavy-work
// queue while it is queued, 0 otherwise.
func (mp *Map) QueuePosition() int {
	mp.mu.Lock()
	defer mp.mu.Unlock()
	return mp.position
}

func (mp *Map) finishedAt() (MapState, time.Time) {
	mp.mu.Lock()
	defer mp.mu.Unlock()
	return mp.state, mp.finished
}

// Attach registers a stream; the returned detach must be called when the
// stream ends. When the last stream of a queued or computing map
// detaches, the computation is canceled (it leaves the queue, or stops
// within one radial of each worker).
func (mp *Map) Attach() (detach func()) {
	mp.mu.Lock()
	mp.watchers++
	mp.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mp.mu.Lock()
			mp.watchers--
			last := mp.watchers == 0 && mp.state.active()
			mp.mu.Unlock()
			if last {
				mp.cancel()
			}
		})
	}
}

// Bounds of one Next call: events, and tile events (each encodes a tile:
// about 175 kB of base64 for a full one).
const (
	maxNextEvents = 1024
	maxNextTiles  = 8
)

// Next returns the events after seq after: at once when there are some,
// else when one comes, the map finishes, wait passes (no events, not
// final) or ctx ends. It returns at most maxNextEvents events and
// maxNextTiles tiles at once; final is true when the returned events end
// the stream (the map is finished and nothing follows them). A tile
// event's data is encoded from the map's raster here; a raster file that
// cannot be read is an error.
func (mp *Map) Next(ctx context.Context, after int, wait time.Duration) (evs []Event, final bool, err error) {
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		mp.mu.Lock()
		if after < 0 {
			after = 0
		}
		end := min(len(mp.events), after+maxNextEvents)
		tiles := 0
		for i := after; i < end; i++ {
			if mp.events[i].Type == EventTile {
				if tiles == maxNextTiles {
					end = i
					break
				}
				tiles++
			}
		}
		if after < end {
			evs = append([]Event(nil), mp.events[after:end]...)
		}
		final = !mp.state.active() && end == len(mp.events)
		src := mp.tileSourceLocked()
		wake := mp.wake
		mp.mu.Unlock()
		if len(evs) > 0 || final {
			if err := src.fill(evs); err != nil {
				mp.log.Error("coverage map tiles not readable; the stream ends", "map_id", mp.ID, "err", err)
				return nil, false, fmt.Errorf("coverage map %s: %w", mp.ID, err)
			}
			return evs, final, nil
		}
		select {
		case <-ctx.Done():
			return nil, false, ctx.Err()
		case <-t.C:
			return nil, false, nil
		case <-wake:
		}
	}
}

// Result returns a finished map's raster, its best-server index (nil for a
// single map) and summary; a map that is not done is appliance.ErrConflict.
// A raster kept in Dir is read from its file (a copy the caller owns).
func (mp *Map) Result() (*Raster, []int32, *Summary, error) {
	mp.mu.Lock()
	st, r, servers, sum, dir := mp.state, mp.raster, mp.servers, mp.summary, mp.dir
	mp.mu.Unlock()
	if st != MapDone {
		return nil, nil, nil, fmt.Errorf("coverage map %s is %s, not done: %w", mp.ID, st, appliance.ErrConflict)
	}
	if dir != "" {
		var err error
		if r, servers, err = readRaster(dir, mp.ID, mp.shape, mp.Best); err != nil {
			return nil, nil, nil, fmt.Errorf("coverage map %s: %w", mp.ID, err)
		}
	}
	return r, servers, sum, nil
}

// Bands returns a done computed map's more bands (Result.Bands: none for
// the registry's own maps); a map that is not done is
// appliance.ErrConflict. Bands kept in Dir are read from their file (a
// copy the caller owns).
func (mp *Map) Bands() ([][]float32, error) {
	mp.mu.Lock()
	st, bands, n, dir := mp.state, mp.bands, mp.nbands, mp.dir
	mp.mu.Unlock()
	if st != MapDone {
		return nil, fmt.Errorf("coverage map %s is %s, not done: %w", mp.ID, st, appliance.ErrConflict)
	}
	if dir == "" || n == 0 {
		return bands, nil
	}
	bands, err := readBands(dir, mp.ID, mp.shape, n)
	if err != nil {
		return nil, fmt.Errorf("coverage map %s: %w", mp.ID, err)
	}
	return bands, nil
}

// Summary returns a done map's summary without reading its raster; false
// for a map that is not done.
func (mp *Map) Summary() (*Summary, bool) {
	mp.mu.Lock()
	defer mp.mu.Unlock()
	if mp.state != MapDone {
		return nil, false
	}
	return mp.summary, true
}

// NewMapID returns a random map id: "map_" and 26 base32 characters
// (128 random bits), unguessable, so that an id alone reveals nothing.
func NewMapID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("new map id: %w", err)
	}
	return "map_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])), nil
}
