package refresh

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
	"linkplan/appliance/periodic"
)

// DefaultInterval is the time between scheduled refreshes.
const DefaultInterval = 6 * time.Hour

// MaxRecordedRejects caps the rejects kept per refresh record.
const MaxRecordedRejects = 100

// Source is one tower source.
type Source struct {
	Name string                        // file path or a label for embedded data
	Read func() ([]byte, error)        // reads the whole source
	Keep func(t *appliance.Tower) bool // optional filter (e.g. "stands on loaded terrain")
}

// FileSource reads a file on every refresh.
func FileSource(path string) Source {
	return Source{Name: path, Read: func() ([]byte, error) { return os.ReadFile(path) }}
}

// Recorder stores refresh records (store.DB).
type Recorder interface {
	AppendTowerRefresh(r appliance.TowerRefresh) error
}

// Service refreshes the catalogue.
type Service struct {
	Sources []Source
	// Discover, when set, lists further sources on every refresh (files
	// installed in the data directory by `linkplan towers import`).
	Discover func() ([]Source, error)
	Interval time.Duration
	// Apply receives the towers of every source; it adds what does not
	// come from sources (user-registered towers) and swaps the catalogue in
	// atomically. An error keeps the previous catalogue, and the sources
	// are retried at the next refresh.
	Apply    func(towers []*appliance.Tower) error
	SnapM    float64 // snapping radius, metres; 0 means catalog.DefaultSnapRadiusM
	Recorder Recorder
	// Recover recovers a panic of a scheduled refresh (the loop goes on);
	// nil logs it to slog.Default.
	Recover *appliance.Recoverer

	gaz *catalog.Gazetteer
	log *slog.Logger
	now func() time.Time

	mu      sync.Mutex // serialises refreshes
	lastSHA map[string]string
	last    Summary

	loop periodic.Loop // the schedule of Start
}

// Summary describes the catalogue after a refresh.
type Summary struct {
	Regulator, Crowd, Rejected int
	Changed                    bool
	Records                    []appliance.TowerRefresh
}

// New returns a service over the embedded gazetteer.
func New(gaz *catalog.Gazetteer, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{Interval: DefaultInterval, gaz: gaz, log: log.With("component", "refresh"), now: time.Now, lastSHA: map[string]string{}}
}

type imported struct {
	regulator, crowd []appliance.Tower
	rec              appliance.TowerRefresh
	err              error
}

// ctxReader reads r until ctx ends: a stop interrupts the parse of a
// national file instead of waiting for it.
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

func (s *Service) importOne(ctx context.Context, src Source) imported {
	start := s.now()
	out := imported{rec: appliance.TowerRefresh{Source: src.Name, Rejects: []appliance.RowIssue{}}}
	fail := func(err error) imported {
		out.err = err
		out.rec.Error = err.Error()
		out.rec.DurationMs = float64(s.now().Sub(start).Microseconds()) / 1000
		out.rec.TimeUnix = float64(s.now().UnixNano()) / 1e9
		return out
	}
	data, err := src.Read()
	if err != nil {
		return fail(fmt.Errorf("read %s: %w", src.Name, err))
	}
	sum := sha256.Sum256(data)
	out.rec.SHA256 = hex.EncodeToString(sum[:])
	out.rec.Changed = s.lastSHA[src.Name] != out.rec.SHA256
	f, err := catalog.DetectFormat(data)
	if err != nil {
		return fail(fmt.Errorf("detect format of %s: %w", src.Name, err))
	}
	out.rec.Format = f.String()
	var placer *catalog.Placer
	if f != catalog.FormatOpenCelliD {
		placer = catalog.NewPlacer(s.gaz)
	}
	res, _, err := catalog.Import(f, ctxReader{ctx, bytes.NewReader(data)}, placer)
	if err != nil {
		return fail(fmt.Errorf("import %s: %w", src.Name, err))
	}
	out.rec.Rows, out.rec.Rejected = res.Rows, len(res.Rejects)
	for i, r := range res.Rejects {
		if i == MaxRecordedRejects {
			break
		}
		out.rec.Rejects = append(out.rec.Rejects, appliance.RowIssue{Line: r.Line, Reason: r.Reason})
	}
	towers := res.Towers()
	if f == catalog.FormatOpenCelliD {
		out.crowd = towers
	} else {
		out.regulator = towers
	}
	out.rec.Towers = len(towers)
	out.rec.DurationMs = float64(s.now().Sub(start).Microseconds()) / 1000
	out.rec.TimeUnix = float64(s.now().UnixNano()) / 1e9
	return out
}

// RefreshOnce imports every source and, when anything changed (or force),
// applies the new catalogue. A source that fails to read or parse aborts
// the apply: the previous catalogue stays.
func (s *Service) RefreshOnce(ctx context.Context, force bool) (Summary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var (
		regulator, crowd []appliance.Tower
		sum              Summary
		firstErr         error
	)
	sources := s.Sources
	if s.Discover != nil {
		more, err := s.Discover()
		if err != nil {
			return sum, fmt.Errorf("refresh: discover sources: %w", err)
		}
		sources = append(append([]Source(nil), sources...), more...)
	}
	for _, src := range sources {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		im := s.importOne(ctx, src)
		if err := ctx.Err(); err != nil {
			// Stopped (a SIGTERM during start-up): not a failure of the
			// source, nothing recorded.
			return sum, err
		}
		sum.Records = append(sum.Records, im.rec)
		if s.Recorder != nil {
			if err := s.Recorder.AppendTowerRefresh(im.rec); err != nil {
				s.log.Warn("record refresh", "source", src.Name, "err", err)
			}
		}
		if im.err != nil {
			s.log.Error("tower source refresh failed; keeping the previous catalogue", "source", src.Name, "err", im.err)
			if firstErr == nil {
				firstErr = im.err
			}
			continue
		}
		sum.Changed = sum.Changed || im.rec.Changed
		sum.Rejected += im.rec.Rejected
		for _, t := range im.regulator {
			if src.Keep == nil || src.Keep(&t) {
				regulator = append(regulator, t)
			}
		}
		for _, t := range im.crowd {
			if src.Keep == nil || src.Keep(&t) {
				crowd = append(crowd, t)
			}
		}
	}
	if firstErr != nil {
		return sum, firstErr
	}
	if len(sources) != len(s.lastSHA) {
		sum.Changed = true // a source appeared or went away
	}
	if !sum.Changed && !force {
		s.last.Records = sum.Records
		s.log.Info("tower sources unchanged", "sources", len(s.Sources))
		return s.last, nil
	}
	catalog.Snap(regulator, crowd, s.snapM())
	all := make([]*appliance.Tower, 0, len(regulator)+len(crowd))
	for i := range regulator {
		all = append(all, &regulator[i])
	}
	for i := range crowd {
		all = append(all, &crowd[i])
	}
	sum.Regulator, sum.Crowd = len(regulator), len(crowd)
	if s.Apply != nil {
		if err := s.Apply(all); err != nil {
			return sum, fmt.Errorf("refresh: apply: %w", err)
		}
	}
	// Only now are the sources' bytes "seen": a failed apply retries them.
	clear(s.lastSHA)
	for _, r := range sum.Records {
		s.lastSHA[r.Source] = r.SHA256
	}
	s.last = sum
	s.log.Info("tower catalogue refreshed", "regulator", sum.Regulator, "crowd", sum.Crowd, "rejected_rows", sum.Rejected)
	return sum, nil
}

func (s *Service) snapM() float64 {
	if s.SnapM > 0 {
		return s.SnapM
	}
	return catalog.DefaultSnapRadiusM
}

// Start runs RefreshOnce every Interval until Close. The first refresh is
// the caller's (RefreshOnce at start-up), so Start only schedules. A
// second Start is appliance.ErrConflict.
func (s *Service) Start(ctx context.Context) error {
	s.loop.Recover = s.Recover
	return s.loop.Start("refresh", s.Interval, func(run context.Context) {
		if _, err := s.RefreshOnce(run, false); err != nil && run.Err() == nil {
			s.log.Warn("scheduled refresh", "err", err)
		}
	})
}

// Close stops the schedule and waits for a running refresh to finish.
func (s *Service) Close() {
	_ = s.loop.Close(context.Background()) // unbounded: it only fails when its context ends
}

// ReadAllFrom adapts an embedded byte slice to a Source reader.
func ReadAllFrom(b []byte) func() ([]byte, error) {
	return func() ([]byte, error) { return io.ReadAll(bytes.NewReader(b)) }
}
