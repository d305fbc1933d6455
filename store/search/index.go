package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/analysis"

	"linkplan/appliance"
)

// Options configures an Index. The zero value keeps the tower index in
// memory only.
type Options struct {
	// Dir is the directory holding the persisted tower index. "" keeps the
	// tower index in memory: it is then rebuilt by every ReplaceTowers.
	Dir string
	// Address returns the street address of a tower, indexed beside its
	// operator, station number, municipality and UF. nil indexes no address.
	Address func(*appliance.Tower) string
	// BatchSize is the number of towers per indexing batch; 0 means
	// DefaultBatchSize.
	BatchSize int
}

// DefaultBatchSize is the number of towers indexed per bleve batch.
const DefaultBatchSize = 5000

// TowerState describes the tower index.
type TowerState struct {
	Ready       bool   // a tower index is serving SearchTowers
	Building    bool   // a ReplaceTowers build is under way
	Fingerprint string // catalogue fingerprint of the serving index; "" when none
	Persisted   bool   // the serving index lives under Options.Dir
	Err         error  // error of the last background build, nil when it succeeded
}

// Index is the full-text search index over places (municipalities) and
// towers. Build it with New, then Open it; Close releases it. All methods are
// safe for concurrent use.
type Index struct {
	opts      Options
	input     []Place
	pl        *places
	stationAn analysis.Analyzer // the station analyzer of the tower mapping, for queries
	towers    atomic.Pointer[towerHandle]
	wsem      chan struct{} // one-slot semaphore serialising tower index writes

	mu       sync.Mutex // guards the fields below
	opened   bool
	closed   bool
	building int
	lastErr  error
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// New returns an unopened index over the given places. The slice is copied
// when Open builds the places index; New itself does no work.
func New(places []Place, opts Options) *Index {
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultBatchSize
	}
	return &Index{
		opts:  opts,
		input: places,
		wsem:  make(chan struct{}, 1),
	}
}

// Open builds the in-memory places index and prepares Options.Dir. The tower
// index is not served until ReplaceTowers (or ReplaceTowersInBackground)
// names the catalogue fingerprint: a persisted index is reused only when its
// fingerprint matches.
func (ix *Index) Open(ctx context.Context) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.opened || ix.closed {
		return fmt.Errorf("open search index: %w", appliance.ErrConflict)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("open search index: %w", err)
	}
	if ix.opts.Dir != "" {
		if err := os.MkdirAll(ix.opts.Dir, 0o750); err != nil {
			return fmt.Errorf("open search index: %w", err)
		}
		if err := removeStale(ix.opts.Dir); err != nil {
			return fmt.Errorf("open search index: %w", err)
		}
	}
	pl, err := buildPlaces(ix.input)
	if err != nil {
		return fmt.Errorf("open search index: %w", err)
	}
	tm, err := newTowerMapping()
	if err != nil {
		_ = pl.close()
		return fmt.Errorf("open search index: %w", err)
	}
	ix.stationAn = tm.AnalyzerNamed(stationAnalyzer)
	ix.pl = pl
	ix.input = nil
	ix.ctx, ix.cancel = context.WithCancel(context.Background())
	ix.opened = true
	return nil
}

// Close stops any background build, waits for it and releases both indexes.
// Persisted tower indexes stay on disk.
func (ix *Index) Close() error {
	ix.mu.Lock()
	if !ix.opened || ix.closed {
		ix.closed = true
		ix.mu.Unlock()
		return nil
	}
	ix.closed = true
	ix.cancel()
	ix.mu.Unlock()
	ix.wg.Wait()
	// Take the write slot so no foreground write is in flight.
	ix.wsem <- struct{}{}
	defer func() { <-ix.wsem }()
	var errs []error
	if h := ix.towers.Swap(nil); h != nil {
		errs = append(errs, h.close())
	}
	errs = append(errs, ix.pl.close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close search index: %w", err)
	}
	return nil
}

// usable returns an error unless the index is open.
func (ix *Index) usable(op string) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !ix.opened || ix.closed {
		return fmt.Errorf("%s: index not open: %w", op, appliance.ErrUnavailable)
	}
	return nil
}

// SearchPlaces returns up to limit municipalities matching q, best first.
// Matching ignores accents and case, tolerates typos (1 edit for words of 4
// to 7 letters, 2 from 8) and treats the last word as a prefix for
// type-ahead. A trailing state code ("Rio de Janeiro, RJ", "Natal - RN",
// "Campinas/SP") filters by UF. limit <= 0 means DefaultLimit; it is clamped
// to MaxLimit. An empty query returns no hits.
func (ix *Index) SearchPlaces(ctx context.Context, q string, limit int) ([]PlaceHit, error) {
	if err := ix.usable("search places"); err != nil {
		return nil, err
	}
	return ix.pl.search(ctx, q, "", limit)
}

// SearchPlacesInUF is SearchPlaces restricted to the state with code uf
// ("RJ", case-insensitive). An unknown uf is an ErrInvalid error.
func (ix *Index) SearchPlacesInUF(ctx context.Context, q, uf string, limit int) ([]PlaceHit, error) {
	if err := ix.usable("search places"); err != nil {
		return nil, err
	}
	if !ix.pl.ufs[upper(uf)] {
		return nil, appliance.Invalid("uf", "unknown state code %q", uf)
	}
	return ix.pl.search(ctx, q, uf, limit)
}

// Place returns the place with the given IBGE code.
func (ix *Index) Place(ibgeCode string) (Place, bool) {
	if ix.usable("place") != nil {
		return Place{}, false
	}
	p, ok := ix.pl.byCode[ibgeCode]
	return p, ok
}

// TowerState reports the state of the tower index.
func (ix *Index) TowerState() TowerState {
	ix.mu.Lock()
	st := TowerState{Building: ix.building > 0, Err: ix.lastErr}
	ix.mu.Unlock()
	if h := ix.towers.Load(); h != nil {
		st.Ready = true
		st.Fingerprint = h.fingerprint()
		st.Persisted = h.dir != ""
	}
	return st
}

func upper(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }
