package datamanifest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"linkplan/appliance"
)

// Input is one data file the appliance serves.
type Input struct {
	Kind string // appliance.DataKindTerrainPack or appliance.DataKindTowerSource
	// Path is the file; empty for embedded data, which has Name and Data.
	Path string
	Name string // embedded data: "embedded:<name>"
	Data []byte // embedded data's bytes
	// Terrain packs: tiles and bounds, degrees (shown as they are).
	Tiles  int
	Bounds *appliance.BBox
}

// RefreshLog reads the tower refresh records, newest first (store.DB).
type RefreshLog interface {
	TowerRefreshes(limit int) ([]appliance.TowerRefresh, error)
}

// Deps are what the manifest reads.
type Deps struct {
	// Inputs lists the data in use now: terrain packs in priority order,
	// then tower sources. Called on every Manifest (tower files installed
	// by `linkplan towers import` join at the next refresh).
	Inputs    func() ([]Input, error)
	Refreshes RefreshLog // nil: no LastRefresh
	Log       *slog.Logger
	Now       func() time.Time // nil: time.Now
}

// fileKey identifies the bytes of a file without reading them: a file
// whose size or modification time changes is hashed again.
type fileKey struct {
	path    string
	size    int64
	modNano int64
}

type hashed struct {
	sha256 string
	at     time.Time
	err    string // the read failed: why
}

// Service keeps the SHA-256 of every data file in use. Hashing runs in
// one background goroutine (Start), so Manifest never waits for a large
// file.
type Service struct {
	deps Deps

	mu       sync.Mutex
	done     map[fileKey]hashed // finished hashes (and read failures)
	queued   map[fileKey]bool   // waiting or being hashed
	queue    []fileKey
	embedded map[string]hashed // embedded data by name
	settled  chan struct{}     // closed and replaced whenever a hash finishes

	kick   chan struct{}
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New returns a manifest over deps; Start begins hashing.
func New(deps Deps) *Service {
	if deps.Log == nil {
		deps.Log = slog.New(slog.DiscardHandler)
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	return &Service{deps: deps, done: map[fileKey]hashed{}, queued: map[fileKey]bool{}, embedded: map[string]hashed{},
		settled: make(chan struct{}), kick: make(chan struct{}, 1)}
}

// Start queues every input and runs the hashing goroutine until Close. A
// second Start is appliance.ErrConflict.
func (s *Service) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.cancel != nil {
		s.mu.Unlock()
		return fmt.Errorf("data manifest: already started: %w", appliance.ErrConflict)
	}
	run, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	s.mu.Unlock()
	s.wg.Add(1)
	go s.loop(run)
	_, err := s.Manifest(ctx) // queues the inputs
	return err
}

// Close stops hashing (a file being hashed is abandoned) and waits for the
// goroutine, at most until ctx ends.
func (s *Service) Close(ctx context.Context) error {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("data manifest: close: %w", ctx.Err())
	}
}

func (s *Service) loop(ctx context.Context) {
	defer s.wg.Done()
	for {
		s.mu.Lock()
		var k fileKey
		ok := len(s.queue) > 0
		if ok {
			k, s.queue = s.queue[0], s.queue[1:]
		}
		s.mu.Unlock()
		if !ok {
			select {
			case <-ctx.Done():
				return
			case <-s.kick:
				continue
			}
		}
		h := s.hashFile(ctx, k)
		if ctx.Err() != nil {
			return
		}
		s.mu.Lock()
		delete(s.queued, k)
		if h != nil {
			s.done[k] = *h
		}
		close(s.settled)
		s.settled = make(chan struct{})
		s.mu.Unlock()
	}
}

// hashFile hashes k's file; nil when the file changed while it was read
// (the next Manifest queues its new key).
func (s *Service) hashFile(ctx context.Context, k fileKey) *hashed {
	start := s.deps.Now()
	f, err := os.Open(k.path)
	if err != nil {
		return &hashed{err: readError(err)}
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, ctxReader{ctx, f}); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return &hashed{err: readError(err)}
	}
	st, err := f.Stat()
	if err != nil {
		return &hashed{err: readError(err)}
	}
	if st.Size() != k.size || st.ModTime().UnixNano() != k.modNano {
		return nil
	}
	sum := hex.EncodeToString(h.Sum(nil))
	s.deps.Log.Info("data file hashed", "file", k.path, "bytes", k.size, "sha256", sum, "took", s.deps.Now().Sub(start).Round(time.Millisecond).String())
	return &hashed{sha256: sum, at: s.deps.Now().UTC()}
}

// ctxReader stops a long read when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// readError says why a data file cannot be read, for an operator.
func readError(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "the file does not exist (moved or deleted since the start?)"
	case errors.Is(err, fs.ErrPermission):
		return "the appliance's user may not read the file"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return "the file cannot be read: " + pe.Err.Error()
	}
	return "the file cannot be read: " + err.Error()
}

// Manifest lists the data in use now. An entry whose file is new or
// changed is queued for hashing and listed as pending; it never waits.
func (s *Service) Manifest(ctx context.Context) (appliance.DataManifest, error) {
	m := appliance.DataManifest{TerrainPacks: []appliance.DataManifestEntry{}, TowerSources: []appliance.DataManifestEntry{}, Complete: true}
	inputs, err := s.deps.Inputs()
	if err != nil {
		return m, fmt.Errorf("data manifest: list the data in use: %w", err)
	}
	refreshes := s.lastRefreshes(inputs)
	queuedAny := false
	for _, in := range inputs {
		if err := ctx.Err(); err != nil {
			return m, err
		}
		e := s.entry(in)
		if e.Status == appliance.DataFilePending {
			queuedAny = true
		}
		if e.Status != appliance.DataFileOK {
			m.Complete = false
		}
		if in.Kind == appliance.DataKindTowerSource {
			if r, ok := refreshes[sourceName(in)]; ok {
				e.LastRefresh = &r
			}
			m.TowerSources = append(m.TowerSources, e)
		} else {
			m.TerrainPacks = append(m.TerrainPacks, e)
		}
	}
	if queuedAny {
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
	return m, nil
}

// Wait returns the manifest once no entry is pending (every file hashed or
// failing), or ctx's error. It needs Start.
func (s *Service) Wait(ctx context.Context) (appliance.DataManifest, error) {
	for {
		s.mu.Lock()
		settled := s.settled
		s.mu.Unlock()
		m, err := s.Manifest(ctx)
		if err != nil {
			return m, err
		}
		pending := false
		for _, e := range append(append([]appliance.DataManifestEntry(nil), m.TerrainPacks...), m.TowerSources...) {
			pending = pending || e.Status == appliance.DataFilePending
		}
		if !pending {
			return m, nil
		}
		select {
		case <-settled:
		case <-ctx.Done():
			return m, ctx.Err()
		}
	}
}

// sourceName is the name refresh records carry: the file path, or the
// embedded name.
func sourceName(in Input) string {
	if in.Path == "" {
		return in.Name
	}
	return in.Path
}

// entry describes one input now, queueing its file when its hash is not
// known.
func (s *Service) entry(in Input) appliance.DataManifestEntry {
	e := appliance.DataManifestEntry{Kind: in.Kind, Tiles: in.Tiles, Bounds: in.Bounds}
	if in.Path == "" {
		e.Name, e.Embedded, e.Bytes = in.Name, true, int64(len(in.Data))
		s.mu.Lock()
		h, ok := s.embedded[in.Name]
		if !ok {
			sum := sha256.Sum256(in.Data)
			h = hashed{sha256: hex.EncodeToString(sum[:]), at: s.deps.Now().UTC()}
			s.embedded[in.Name] = h
		}
		s.mu.Unlock()
		e.Status, e.SHA256, e.HashedAt = appliance.DataFileOK, h.sha256, h.at
		return e
	}
	e.Name = filepath.Base(in.Path)
	st, err := os.Stat(in.Path)
	if err != nil {
		e.Status, e.Detail = appliance.DataFileFailing, readError(err)
		return e
	}
	if !st.Mode().IsRegular() {
		e.Status, e.Detail = appliance.DataFileFailing, "not a regular file"
		return e
	}
	e.Bytes, e.ModifiedAt = st.Size(), st.ModTime().UTC()
	k := fileKey{path: in.Path, size: st.Size(), modNano: st.ModTime().UnixNano()}
	s.mu.Lock()
	defer s.mu.Unlock()
	if h, ok := s.done[k]; ok {
		if h.err != "" {
			e.Status, e.Detail = appliance.DataFileFailing, h.err
			return e
		}
		e.Status, e.SHA256, e.HashedAt = appliance.DataFileOK, h.sha256, h.at
		return e
	}
	if !s.queued[k] {
		s.queued[k] = true
		s.queue = append(s.queue, k)
	}
	e.Status, e.Detail = appliance.DataFilePending, fmt.Sprintf("computing the SHA-256 of %d bytes", st.Size())
	return e
}

// lastRefreshes maps each tower source to its newest refresh record,
// looking back over a bounded number of records (each refresh appends one
// per source).
func (s *Service) lastRefreshes(inputs []Input) map[string]appliance.TowerRefresh {
	out := map[string]appliance.TowerRefresh{}
	if s.deps.Refreshes == nil {
		return out
	}
	n := 0
	for _, in := range inputs {
		if in.Kind == appliance.DataKindTowerSource {
			n++
		}
	}
	if n == 0 {
		return out
	}
	recs, err := s.deps.Refreshes.TowerRefreshes(min(64*n, 4096))
	if err != nil {
		s.deps.Log.Warn("data manifest: refresh records not read", "err", err)
		return out
	}
	for _, r := range recs {
		if _, seen := out[r.Source]; !seen {
			r.Rejects = nil // the refresh log route lists them; the manifest names the file
			out[r.Source] = r
		}
	}
	return out
}
