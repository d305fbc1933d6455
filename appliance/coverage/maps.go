package coverage

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"linkplan/appliance"
)

// MapState is the state of a map computation (see the package doc's
// table).
type MapState string

// Map states.
const (
	MapComputing MapState = "computing"
	MapDone      MapState = "done"
	MapCanceled  MapState = "canceled"
	MapFailed    MapState = "failed"
)

// Event types of a map's stream, in the order they come: one started, any
// number of progress and tile events, then exactly one summary (done) or
// error (canceled, failed).
const (
	EventStarted  = "started"
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
	Pixels                   int      `json:"pixels"`
	InRadiusPixels           int      `json:"in_radius_pixels"`
	ValidPixels              int      `json:"valid_pixels"`
	NoDataMissingTerrain     int      `json:"nodata_missing_terrain_pixels"`
	MissingTiles             []string `json:"missing_tiles"`
	NoDataOutsideEnvelope    int      `json:"nodata_outside_envelope_pixels"`
	ThresholdDBm             float64  `json:"threshold_dbm"`
	CoveredKm2AboveThreshold float64  `json:"covered_km2_above_threshold"`
	MinDBm                   *float64 `json:"min_dbm"` // null without a valid pixel
	MaxDBm                   *float64 `json:"max_dbm"`
	ElapsedMS                int64    `json:"elapsed_ms"`
	Engine                   string   `json:"engine"`
	EngineVersion            string   `json:"engine_version"`
	Radials                  int      `json:"radials"`
	ProfileStepM             float64  `json:"profile_step_m"`
	Evaluations              int      `json:"evaluations"`
	// The caveats of the map (package doc, "Caveats"): the first
	// transmitter's EIRP, dBm; whether any transmitter's EIRP was assumed;
	// every transmitter; and the warnings that apply to the whole map.
	EIRPDBm      float64             `json:"eirp_dbm"`
	EIRPAssumed  bool                `json:"eirp_assumed"`
	Transmitters []TransmitterData   `json:"transmitters"`
	Warnings     []appliance.Warning `json:"warnings"`
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
		ThresholdDBm: s.ThresholdDBm, CoveredKm2AboveThreshold: math.Round(s.CoveredKm2AboveThreshold*1000) / 1000,
		MinDBm: finitePtr(s.MinDBm), MaxDBm: finitePtr(s.MaxDBm), ElapsedMS: s.ElapsedMS, Engine: string(s.Engine),
		EngineVersion: s.EngineVersion, Radials: s.Radials, ProfileStepM: r3(s.ProfileStepM), Evaluations: s.Evaluations,
		EIRPDBm: r3(s.EIRPDBm), EIRPAssumed: s.EIRPAssumed, Transmitters: s.Transmitters, Warnings: s.Warnings}
}

// EventErrorData ends a canceled or failed stream.
type EventErrorData struct {
	Code    string `json:"code"` // "canceled", "missing_terrain", "outside_envelope", "failed"
	Message string `json:"message"`
}

// MapsOptions configure the map registry; the zero value is valid.
type MapsOptions struct {
	// Retention is how long a finished map is kept for export and
	// resume; 0 means DefaultRetention.
	Retention time.Duration
	// MaxMaps bounds the maps kept (computing or finished); 0 means
	// DefaultMaxMaps. The oldest finished map goes first.
	MaxMaps int
	// MaxComputingPerTenant bounds one tenant's maps computing at once; 0
	// means DefaultMaxComputingPerTenant.
	MaxComputingPerTenant int
	// Compute are the options of every computation (OnTile and OnProgress
	// are the registry's own).
	Compute Options
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
	// raster, about as much again while it computes): with DefaultMaxMaps
	// the registry holds at most about 1 GiB of rasters.
	MaxMapPixels                 = 16 << 20
	DefaultMaxComputingPerTenant = 2
)

// Maps runs map computations for tenants and keeps their events and
// rasters (package doc, "Streams"). It is safe for concurrent use.
type Maps struct {
	svc  *Service
	opts MapsOptions
	mu   sync.Mutex
	maps map[string]*Map
}

// NewMaps returns a registry computing with svc.
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
	return &Maps{svc: svc, opts: o, maps: map[string]*Map{}}
}

// Map is one computation and, once finished, its result.
type Map struct {
	ID       string
	TenantID string
	Best     bool // a best-server map
	Created  time.Time
	Requests []Request

	cancel context.CancelFunc
	mu     sync.Mutex
	state  MapState
	events []Event
	wake   chan struct{} // closed and replaced at every change
	// watchers counts attached streams; the last one to leave cancels a
	// computing map.
	watchers int
	finished time.Time
	raster   *Raster
	servers  []int32
	summary  *Summary
}

// Start validates the requests (one for a single map, several for a
// best-server map), checks the registry's bounds and starts the
// computation in the background. The caller attaches a stream at once
// (Attach): a computing map that no stream watches is canceled.
func (m *Maps) Start(tenantID string, reqs []Request, best bool) (*Map, error) {
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
	m.mu.Lock()
	m.sweepLocked(now)
	computing := 0
	for _, x := range m.maps {
		if x.TenantID == tenantID && x.State() == MapComputing {
			computing++
		}
	}
	if computing >= m.opts.MaxComputingPerTenant {
		m.mu.Unlock()
		return nil, fmt.Errorf("%d coverage maps of this tenant are computing (at most %d at once); wait for one to finish: %w",
			computing, m.opts.MaxComputingPerTenant, appliance.ErrQuota)
	}
	if len(m.maps) >= m.opts.MaxMaps {
		m.mu.Unlock()
		return nil, fmt.Errorf("the appliance is computing %d coverage maps, its limit; try again shortly: %w", len(m.maps), appliance.ErrUnavailable)
	}
	ctx, cancel := context.WithCancel(context.Background())
	mp := &Map{ID: id, TenantID: tenantID, Best: best, Created: now, Requests: reqs, cancel: cancel,
		state: MapComputing, wake: make(chan struct{})}
	m.maps[id] = mp
	m.mu.Unlock()
	mp.addStarted(shape, m.opts, reqs[0])
	go m.run(ctx, mp)
	return mp, nil
}

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

// Close cancels every computing map.
func (m *Maps) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, mp := range m.maps {
		mp.cancel()
	}
}

// sweepLocked drops finished maps past retention and, over MaxMaps, the
// oldest finished ones.
func (m *Maps) sweepLocked(now time.Time) {
	var done []*Map
	for id, mp := range m.maps {
		st, fin := mp.finishedAt()
		if st == MapComputing {
			continue
		}
		if now.Sub(fin) >= m.opts.Retention {
			delete(m.maps, id)
			continue
		}
		done = append(done, mp)
	}
	if len(m.maps) < m.opts.MaxMaps {
		return
	}
	sort.Slice(done, func(i, j int) bool {
		_, a := done[i].finishedAt()
		_, b := done[j].finishedAt()
		return a.Before(b) || a.Equal(b) && done[i].ID < done[j].ID
	})
	for _, mp := range done {
		if len(m.maps) < m.opts.MaxMaps {
			break
		}
		delete(m.maps, mp.ID)
	}
}

func (m *Maps) run(ctx context.Context, mp *Map) {
	defer mp.cancel()
	opts := m.opts.Compute
	first := mp.Requests[0]
	opts.OnProgress = func(done, total int) {
		mp.add(EventProgress, EventProgressData{Done: done, Total: total, Fraction: math.Round(1000*float64(done)/float64(max(total, 1))) / 1000})
	}
	opts.OnTile = func(td TileDone) {
		data, err := EncodeTile(td.Raster, td.Tile)
		if err != nil {
			return // cannot happen: the tile is one of its own raster
		}
		ev := EventTileData{ID: td.Tile.ID, Row: td.Tile.Row, Col: td.Tile.Col, X0: td.Tile.X0, Y0: td.Tile.Y0,
			Width: td.Tile.W, Height: td.Tile.H, West: td.Tile.West, South: td.Tile.South, East: td.Tile.East, North: td.Tile.North,
			Data: data, ValidPixels: td.ValidPixels, MinDBm: finitePtr(td.MinDBm), MaxDBm: finitePtr(td.MaxDBm)}
		if td.Servers != nil {
			ev.Servers = EncodeServers(td.Raster, td.Servers, td.Tile)
		}
		mp.add(EventTile, ev)
	}
	var (
		res  *Result
		best *BestResult
		err  error
	)
	if mp.Best {
		best, err = m.svc.ComputeBest(ctx, mp.Requests, opts)
		if err == nil {
			res = &Result{Raster: best.Raster, Summary: best.Summary}
		}
	} else {
		res, err = m.svc.Compute(ctx, first, opts)
	}
	mp.finish(m.opts.Now().UTC(), res, best, err)
}

func (mp *Map) addStarted(r *Raster, o MapsOptions, first Request) {
	radius := 0.0
	for _, q := range mp.Requests {
		radius = max(radius, q.RadiusM)
	}
	kind := "single"
	if mp.Best {
		kind = "best_server"
	}
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

func r3(v float64) float64 { return math.Round(v*1000) / 1000 }

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

func (mp *Map) finish(now time.Time, res *Result, best *BestResult, err error) {
	if err == nil {
		mp.add(EventSummary, SummaryData(res.Summary))
	}
	mp.mu.Lock()
	defer mp.mu.Unlock()
	mp.finished = now
	switch {
	case err == nil:
		mp.state, mp.raster, mp.summary = MapDone, res.Raster, &res.Summary
		if best != nil {
			mp.servers = best.Server
		}
	case errors.Is(err, context.Canceled):
		mp.state = MapCanceled
		mp.events = append(mp.events, Event{Seq: len(mp.events) + 1, Type: EventError,
			Data: EventErrorData{Code: "canceled", Message: "the computation was canceled: its last stream disconnected"}})
	default:
		mp.state = MapFailed
		mp.events = append(mp.events, Event{Seq: len(mp.events) + 1, Type: EventError, Data: errorData(err)})
	}
	mp.signalLocked()
}

func errorData(err error) EventErrorData {
	var tm *appliance.TileMissingError
	switch {
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

func (mp *Map) finishedAt() (MapState, time.Time) {
	mp.mu.Lock()
	defer mp.mu.Unlock()
	return mp.state, mp.finished
}

// Attach registers a stream; the returned detach must be called when the
// stream ends. When the last stream of a computing map detaches, the
// computation is canceled (it stops within one radial of each worker).
func (mp *Map) Attach() (detach func()) {
	mp.mu.Lock()
	mp.watchers++
	mp.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mp.mu.Lock()
			mp.watchers--
			last := mp.watchers == 0 && mp.state == MapComputing
			mp.mu.Unlock()
			if last {
				mp.cancel()
			}
		})
	}
}

// Next returns the events after seq after: at once when there are some,
// else when one comes, the map finishes, wait passes (no events, not
// final) or ctx ends. final is true when the returned events end the
// stream (the map is finished and nothing follows them).
func (mp *Map) Next(ctx context.Context, after int, wait time.Duration) (evs []Event, final bool, err error) {
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		mp.mu.Lock()
		if after < 0 {
			after = 0
		}
		if after < len(mp.events) {
			evs = append([]Event(nil), mp.events[after:]...)
		}
		final = mp.state != MapComputing
		wake := mp.wake
		mp.mu.Unlock()
		if len(evs) > 0 || final {
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
func (mp *Map) Result() (*Raster, []int32, *Summary, error) {
	mp.mu.Lock()
	defer mp.mu.Unlock()
	if mp.state != MapDone {
		return nil, nil, nil, fmt.Errorf("coverage map %s is %s, not done: %w", mp.ID, mp.state, appliance.ErrConflict)
	}
	return mp.raster, mp.servers, mp.summary, nil
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
