package coverage

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Files of a map in MapsOptions.Dir (package doc, "Persistence").
const (
	recordExt  = ".json"  // the map's record: state, requests, events
	rasterExt  = ".dbm"   // float32 little-endian dBm, row-major, NaN no data
	serversExt = ".srv"   // best-server maps: int32 little-endian server index, −1 no data
	bandsExt   = ".bands" // computed maps' more bands: float32 little-endian, band after band, NaN no data
	// recordVersion is the version of the record's layout.
	recordVersion = 1
)

// mapRecord is a map as kept in Dir.
type mapRecord struct {
	Version  int             `json:"version"`
	ID       string          `json:"id"`
	TenantID string          `json:"tenant_id"`
	Best     bool            `json:"best"`
	Kind     string          `json:"kind,omitempty"` // "" in records written before kinds: single or best_server by Best
	Created  time.Time       `json:"created"`
	Finished time.Time       `json:"finished"`
	State    MapState        `json:"state"`
	Requests []requestRecord `json:"requests"`
	Shape    shapeRecord     `json:"shape"`
	Raster   bool            `json:"raster"`          // a raster file holds the tiles the stream reported
	Bands    int             `json:"bands,omitempty"` // bands in the bands file (a computed map's Result.Bands)
	Summary  *summaryRecord  `json:"summary,omitempty"`
	Events   []eventRecord   `json:"events"`
}

// requestRecord is a Request in JSON: an omni antenna's NaN azimuth is
// null.
type requestRecord struct {
	Request
	AzimuthDeg *float64
}

// summaryRecord is a Summary in JSON: the extremes of a map without a
// valid pixel (NaN), and any other NaN figure, are null.
type summaryRecord struct {
	Summary
	MinDBm, MaxDBm, EIRPDBm *float64
}

type shapeRecord struct {
	West, North, PixelLonDeg, PixelLatDeg float64
	Width, Height                         int
}

// eventRecord is one event: its data as the stream sent it (tile events
// without their pixels, which the raster file holds).
type eventRecord struct {
	Seq  int             `json:"seq"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

func nanNil(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func nilNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// recordLocked returns mp's record (mp.mu held); an error when an event
// cannot be encoded.
func (mp *Map) recordLocked() (*mapRecord, error) {
	rec := &mapRecord{Version: recordVersion, ID: mp.ID, TenantID: mp.TenantID, Best: mp.Best, Kind: mp.Kind, Created: mp.Created,
		Finished: mp.finished, State: mp.state, Raster: mp.dir != "", Bands: mp.nbands,
		Shape: shapeRecord{mp.shape.West, mp.shape.North, mp.shape.PixelLonDeg, mp.shape.PixelLatDeg, mp.shape.Width, mp.shape.Height}}
	for _, q := range mp.Requests {
		rec.Requests = append(rec.Requests, requestRecord{Request: q, AzimuthDeg: nanNil(q.AzimuthDeg)})
	}
	if mp.summary != nil {
		rec.Summary = &summaryRecord{Summary: *mp.summary, MinDBm: nanNil(mp.summary.MinDBm), MaxDBm: nanNil(mp.summary.MaxDBm),
			EIRPDBm: nanNil(mp.summary.EIRPDBm)}
	}
	rec.Events = make([]eventRecord, len(mp.events))
	for i, e := range mp.events {
		data, err := json.Marshal(e.Data)
		if err != nil {
			return nil, fmt.Errorf("event %d: %w", e.Seq, err)
		}
		rec.Events[i] = eventRecord{Seq: e.Seq, Type: e.Type, Data: data}
	}
	return rec, nil
}

// save writes mp's record to Dir (atomically); a failure is logged: the
// map still serves from memory.
func (m *Maps) save(mp *Map) {
	mp.mu.Lock()
	defer mp.mu.Unlock()
	m.saveLocked(mp)
}

// saveLocked is save with mp.mu held: finish writes the final record
// before any reader sees the map finished.
func (m *Maps) saveLocked(mp *Map) {
	if m.opts.Dir == "" {
		return
	}
	rec, err := mp.recordLocked()
	if err == nil {
		var b []byte
		if b, err = json.Marshal(rec); err == nil {
			err = writeFileAtomic(filepath.Join(m.opts.Dir, mp.ID+recordExt), func(w io.Writer) error {
				_, err := w.Write(b)
				return err
			})
		}
	}
	if err != nil {
		m.log.Error("coverage map record not written; a restart forgets the map", "map_id", mp.ID, "err", err)
	}
}

// remove deletes a map's files from Dir.
func (m *Maps) remove(id string) {
	if m.opts.Dir == "" {
		return
	}
	for _, ext := range []string{recordExt, rasterExt, serversExt, bandsExt} {
		if err := os.Remove(filepath.Join(m.opts.Dir, id+ext)); err != nil && !errors.Is(err, os.ErrNotExist) {
			m.log.Warn("coverage map file not removed", "map_id", id, "err", err)
		}
	}
}

// writeFileAtomic writes path through a temporary file, fsync and rename.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// writeRaster writes r (and servers, for a best-server map, and a
// computed map's more bands) to Dir.
func writeRaster(dir, id string, r *Raster, servers []int32, bands [][]float32) error {
	put := func(ext string, n int, word func(i int) uint32) error {
		return writeFileAtomic(filepath.Join(dir, id+ext), func(w io.Writer) error {
			buf := make([]byte, 0, 1<<16)
			for i := range n {
				buf = binary.LittleEndian.AppendUint32(buf, word(i))
				if len(buf) == cap(buf) {
					if _, err := w.Write(buf); err != nil {
						return err
					}
					buf = buf[:0]
				}
			}
			_, err := w.Write(buf)
			return err
		})
	}
	if err := put(rasterExt, len(r.DBm), func(i int) uint32 { return math.Float32bits(r.DBm[i]) }); err != nil {
		return err
	}
	if servers != nil {
		if err := put(serversExt, len(servers), func(i int) uint32 { return uint32(servers[i]) }); err != nil {
			return err
		}
	}
	if len(bands) > 0 {
		n := len(r.DBm)
		for _, b := range bands {
			if len(b) != n {
				return fmt.Errorf("write bands of %s: a band of %d pixels, the raster has %d", id, len(b), n)
			}
		}
		if err := put(bandsExt, n*len(bands), func(i int) uint32 { return math.Float32bits(bands[i/n][i%n]) }); err != nil {
			return err
		}
	}
	return nil
}

// readBands reads a computed map's nb more bands from Dir.
func readBands(dir, id string, shape *Raster, nb int) ([][]float32, error) {
	n := shape.Width * shape.Height
	b, err := os.ReadFile(filepath.Join(dir, id+bandsExt))
	if err != nil {
		return nil, fmt.Errorf("read bands: %w", err)
	}
	if len(b) != 4*n*nb {
		return nil, fmt.Errorf("read bands %s%s: %d bytes, want %d", id, bandsExt, len(b), 4*n*nb)
	}
	out := make([][]float32, nb)
	for k := range out {
		out[k] = make([]float32, n)
		for i := range out[k] {
			out[k][i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*(k*n+i):]))
		}
	}
	return out, nil
}

// readRaster reads a map's raster (and best-server index) from Dir.
func readRaster(dir, id string, shape *Raster, best bool) (*Raster, []int32, error) {
	n := shape.Width * shape.Height
	read := func(ext string) ([]uint32, error) {
		b, err := os.ReadFile(filepath.Join(dir, id+ext))
		if err != nil {
			return nil, fmt.Errorf("read raster: %w", err)
		}
		if len(b) != 4*n {
			return nil, fmt.Errorf("read raster %s%s: %d bytes, want %d", id, ext, len(b), 4*n)
		}
		out := make([]uint32, n)
		for i := range out {
			out[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
		return out, nil
	}
	words, err := read(rasterExt)
	if err != nil {
		return nil, nil, err
	}
	r := *shape
	r.DBm = make([]float32, n)
	for i, w := range words {
		r.DBm[i] = math.Float32frombits(w)
	}
	var servers []int32
	if best {
		if words, err = read(serversExt); err != nil {
			return nil, nil, err
		}
		servers = make([]int32, n)
		for i, w := range words {
			servers[i] = int32(w)
		}
	}
	return &r, servers, nil
}

// tileSource is where a map's tile events take their pixels from.
type tileSource struct {
	mem     *Raster // in memory (live or finished); nil: dir
	servers []int32
	dir, id string
	width   int
	best    bool
}

func (mp *Map) tileSourceLocked() tileSource {
	src := tileSource{id: mp.ID, width: mp.shape.Width, best: mp.Best}
	switch {
	case mp.live != nil:
		src.mem, src.servers = mp.live, mp.liveServers
	case mp.raster != nil:
		src.mem, src.servers = mp.raster, mp.servers
	default:
		src.dir = mp.dir
	}
	return src
}

// fill encodes the pixels of the tile events of evs (copies: the map keeps
// its tile events without pixels).
func (src tileSource) fill(evs []Event) error {
	var f, fs *os.File
	defer func() {
		if f != nil {
			f.Close()
		}
		if fs != nil {
			fs.Close()
		}
	}()
	for i, e := range evs {
		td, ok := e.Data.(EventTileData)
		if !ok || e.Type != EventTile {
			continue
		}
		t := Tile{ID: td.ID, Row: td.Row, Col: td.Col, X0: td.X0, Y0: td.Y0, W: td.Width, H: td.Height}
		switch {
		case src.mem != nil:
			data, err := EncodeTile(src.mem, t)
			if err != nil {
				return err
			}
			td.Data = data
			if src.servers != nil {
				td.Servers = EncodeServers(src.mem, src.servers, t)
			}
		case src.dir != "":
			if f == nil {
				var err error
				if f, err = os.Open(filepath.Join(src.dir, src.id+rasterExt)); err != nil {
					return fmt.Errorf("read tile %s: %w", t.ID, err)
				}
				if src.best {
					if fs, err = os.Open(filepath.Join(src.dir, src.id+serversExt)); err != nil {
						return fmt.Errorf("read tile %s: %w", t.ID, err)
					}
				}
			}
			win, err := readWindow(f, src.width, t)
			if err != nil {
				return fmt.Errorf("read tile %s: %w", t.ID, err)
			}
			one := &Raster{Width: t.W, Height: t.H, DBm: make([]float32, len(win))}
			for k, w := range win {
				one.DBm[k] = math.Float32frombits(w)
			}
			at := Tile{ID: t.ID, W: t.W, H: t.H}
			if td.Data, err = EncodeTile(one, at); err != nil {
				return err
			}
			if fs != nil {
				win, err := readWindow(fs, src.width, t)
				if err != nil {
					return fmt.Errorf("read tile %s: %w", t.ID, err)
				}
				srv := make([]int32, len(win))
				for k, w := range win {
					srv[k] = int32(w)
				}
				td.Servers = EncodeServers(one, srv, at)
			}
		default:
			return fmt.Errorf("tile %s: the map's raster is gone", t.ID)
		}
		evs[i].Data = td
	}
	return nil
}

// readWindow reads tile t's 32-bit words, row by row, from a raster file
// of width pixels per row.
func readWindow(f *os.File, width int, t Tile) ([]uint32, error) {
	out := make([]uint32, 0, t.W*t.H)
	row := make([]byte, 4*t.W)
	for y := t.Y0; y < t.Y0+t.H; y++ {
		if _, err := f.ReadAt(row, 4*int64(y*width+t.X0)); err != nil {
			return nil, err
		}
		for k := range t.W {
			out = append(out, binary.LittleEndian.Uint32(row[4*k:]))
		}
	}
	return out, nil
}

// Open loads the maps kept in Dir (none without Dir): finished maps within
// the retention come back as they were; a map that was queued or computing
// when the appliance stopped comes back failed with the error code
// interrupted; maps past the retention (or beyond MaxMaps, oldest first)
// and stray files are removed. A record that cannot be read is logged and
// removed.
func (m *Maps) Open() error {
	if m.opts.Dir == "" {
		return nil
	}
	if err := os.MkdirAll(m.opts.Dir, 0o700); err != nil {
		return fmt.Errorf("coverage maps: %w", err)
	}
	entries, err := os.ReadDir(m.opts.Dir)
	if err != nil {
		return fmt.Errorf("coverage maps: %w", err)
	}
	now := m.opts.Now().UTC()
	keep := map[string]bool{}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), recordExt)
		if !ok || e.IsDir() {
			continue
		}
		mp, changed, err := m.load(id, now)
		if err != nil {
			m.log.Warn("coverage map record not loaded; removed", "file", e.Name(), "err", err)
			continue
		}
		if mp == nil {
			continue // past retention
		}
		keep[id] = true
		m.mu.Lock()
		m.maps[id] = mp
		m.mu.Unlock()
		if changed {
			m.save(mp)
		}
	}
	for _, e := range entries { // orphans: rasters without a record, temporary files
		name := e.Name()
		id := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, ".tmp"), recordExt), rasterExt), serversExt), bandsExt)
		if !keep[id] && !e.IsDir() {
			_ = os.Remove(filepath.Join(m.opts.Dir, name))
		}
	}
	m.mu.Lock()
	m.sweepLocked(now)
	n := len(m.maps)
	m.mu.Unlock()
	if n > 0 {
		m.log.Info("coverage maps kept from before the restart", "maps", n)
	}
	return nil
}

// load reads one record; nil (files removed) past retention. changed
// reports a map that was queued or computing and is now interrupted.
func (m *Maps) load(id string, now time.Time) (mp *Map, changed bool, err error) {
	defer func() {
		if err != nil || mp == nil {
			m.remove(id)
		}
	}()
	b, err := os.ReadFile(filepath.Join(m.opts.Dir, id+recordExt))
	if err != nil {
		return nil, false, err
	}
	var rec mapRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, false, err
	}
	if rec.Version != recordVersion || rec.ID != id || len(rec.Requests) == 0 || len(rec.Events) == 0 {
		return nil, false, fmt.Errorf("record of map %s: version %d, %d requests, %d events", id, rec.Version, len(rec.Requests), len(rec.Events))
	}
	shape := &Raster{West: rec.Shape.West, North: rec.Shape.North, PixelLonDeg: rec.Shape.PixelLonDeg, PixelLatDeg: rec.Shape.PixelLatDeg,
		Width: rec.Shape.Width, Height: rec.Shape.Height}
	mp = &Map{ID: id, TenantID: rec.TenantID, Best: rec.Best, Kind: rec.Kind, Created: rec.Created, shape: shape, state: rec.State, log: m.log,
		finished: rec.Finished, wake: make(chan struct{}), cancel: func() {}}
	if mp.Kind == "" {
		mp.Kind = "single"
		if mp.Best {
			mp.Kind = "best_server"
		}
	}
	for _, q := range rec.Requests {
		r := q.Request
		r.AzimuthDeg = nilNaN(q.AzimuthDeg)
		mp.Requests = append(mp.Requests, r)
	}
	if rec.Raster {
		mp.dir = m.opts.Dir
	}
	mp.nbands = rec.Bands
	if rec.Summary != nil {
		s := rec.Summary.Summary
		s.MinDBm, s.MaxDBm, s.EIRPDBm = nilNaN(rec.Summary.MinDBm), nilNaN(rec.Summary.MaxDBm), nilNaN(rec.Summary.EIRPDBm)
		mp.summary = &s
	}
	for i, e := range rec.Events {
		if e.Seq != i+1 {
			return nil, false, fmt.Errorf("record of map %s: event %d has seq %d", id, i, e.Seq)
		}
		ev := Event{Seq: e.Seq, Type: e.Type, Data: e.Data}
		if e.Type == EventTile {
			var td EventTileData
			if err := json.Unmarshal(e.Data, &td); err != nil {
				return nil, false, fmt.Errorf("record of map %s: event %d: %w", id, e.Seq, err)
			}
			ev.Data = td
		}
		mp.events = append(mp.events, ev)
	}
	if mp.state.active() {
		mp.state, mp.finished, changed = MapFailed, now, true
		mp.events = append(mp.events, Event{Seq: len(mp.events) + 1, Type: EventError, Data: interruptedData})
	}
	if mp.state == MapDone && (mp.summary == nil || mp.dir == "") {
		return nil, false, fmt.Errorf("record of map %s: done without its summary or raster", id)
	}
	if now.Sub(mp.finished) >= m.opts.Retention {
		return nil, false, nil
	}
	return mp, changed, nil
}
