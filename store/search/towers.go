package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"linkplan/appliance"
)

// MaxWindow bounds offset+limit of SearchTowers, in hits: deeper pages cost
// a heap of offset+limit entries per query.
const MaxWindow = appliance.SearchMaxWindow

// Persisted layout under Options.Dir.
const (
	currentFile = "CURRENT"     // names the directory of the current tower index
	towerPrefix = "towers-"     // tower index directories: towers-000001, ...
	fpKey       = "fingerprint" // bleve internal key holding the catalogue fingerprint
	tmpSuffix   = ".tmp"        // partially written files and directories
)

// Scope says whose user-registered towers a tower search may return.
// Catalogue towers (regulator, crowd-sourced, synthetic) are visible to
// every scope. The zero value sees catalogue towers only, so a forgotten
// scope fails closed.
type Scope = appliance.SearchScope

// TowerHits is one page of SearchTowers.
type TowerHits = appliance.SearchTowerHits

// towerHandle is one built tower index. Readers hold mu for reading while
// they search; close takes it for writing, so an index is never closed under
// a reader.
type towerHandle struct {
	idx    bleve.Index
	dir    string // directory of a persisted index, "" in memory
	fp     atomic.Pointer[string]
	mu     sync.RWMutex
	closed bool
}

func (h *towerHandle) fingerprint() string { return *h.fp.Load() }

func (h *towerHandle) close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	if err := h.idx.Close(); err != nil {
		return fmt.Errorf("close tower index: %w", err)
	}
	return nil
}

// acquire returns the serving tower handle read-locked; the caller must
// RUnlock it.
func (ix *Index) acquire(op string) (*towerHandle, error) {
	for {
		h := ix.towers.Load()
		if h == nil {
			return nil, fmt.Errorf("%s: tower index not ready: %w", op, appliance.ErrUnavailable)
		}
		h.mu.RLock()
		if !h.closed {
			return h, nil
		}
		h.mu.RUnlock() // swapped and closed meanwhile: load the new one
	}
}

// lockWrites takes the write slot or fails when ctx or the index ends.
func (ix *Index) lockWrites(ctx context.Context, op string) error {
	select {
	case ix.wsem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", op, ctx.Err())
	case <-ix.ctx.Done():
		return fmt.Errorf("%s: index closed: %w", op, appliance.ErrUnavailable)
	}
}

func (ix *Index) unlockWrites() { <-ix.wsem }

// tenantOf is the tenant field value of t; see tenantPublic.
func tenantOf(t *appliance.Tower) string {
	if t.Source != appliance.SourceUser {
		return tenantPublic
	}
	return tenantPrefix + t.OwnerTenantID
}

// storedFingerprint is the value kept in a persisted index for the caller's
// fingerprint fp: prefixed with the mapping version, so an index built by a
// binary with another mapping never matches.
func storedFingerprint(fp string) string { return "mapping-v" + towerMappingVersion + "/" + fp }

func (ix *Index) towerDoc(t *appliance.Tower) map[string]any {
	d := map[string]any{
		fOperator: t.Operator,
		fMunic:    t.Municipality,
		fStation:  t.StationNumber,
		fStationW: t.StationNumber,
		fUF:       strings.ToLower(t.UF),
		fTenant:   tenantOf(t),
	}
	if ix.opts.Address != nil {
		d[fAddress] = ix.opts.Address(t)
	}
	return d
}

// ReplaceTowers makes towers the tower set, identified by the catalogue
// fingerprint fp. When the serving index, or with Options.Dir the persisted
// one, already carries fp and holds len(towers) documents, it is reused and
// towers are not read. Otherwise a new index is built and swapped in
// atomically: until then readers keep the previous complete index (or get
// ErrUnavailable when there is none). Tower ids must be unique and non-empty.
func (ix *Index) ReplaceTowers(ctx context.Context, fp string, towers []*appliance.Tower) error {
	const op = "replace towers"
	if err := ix.usable(op); err != nil {
		return err
	}
	if err := ix.lockWrites(ctx, op); err != nil {
		return err
	}
	defer ix.unlockWrites()
	ix.setBuilding(1)
	defer ix.setBuilding(-1)
	// Cancel the build when either ctx or the index ends.
	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ix.ctx, cancel)
	defer stop()
	err := ix.replace(bctx, fp, towers)
	ix.mu.Lock()
	ix.lastErr = err
	ix.mu.Unlock()
	return err
}

// ReplaceTowersInBackground runs ReplaceTowers in a goroutine owned by the
// index; Close cancels and waits for it. Its outcome shows in TowerState.
// The caller must not modify towers until TowerState reports Building false.
func (ix *Index) ReplaceTowersInBackground(fp string, towers []*appliance.Tower) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !ix.opened || ix.closed {
		return fmt.Errorf("replace towers: index not open: %w", appliance.ErrUnavailable)
	}
	ix.building++ // counted until the goroutine has taken over
	ix.wg.Go(func() {
		defer ix.setBuilding(-1)
		_ = ix.ReplaceTowers(ix.ctx, fp, towers) // recorded in lastErr
	})
	return nil
}

func (ix *Index) setBuilding(d int) {
	ix.mu.Lock()
	ix.building += d
	ix.mu.Unlock()
}

func (ix *Index) replace(ctx context.Context, fp string, towers []*appliance.Tower) error {
	const op = "replace towers"
	old := ix.towers.Load()
	if old != nil && fp != "" && old.fingerprint() == fp && docCount(old) == uint64(len(towers)) {
		return nil
	}
	var (
		h   *towerHandle
		err error
	)
	if ix.opts.Dir != "" {
		if old == nil && fp != "" {
			h, err = ix.reopen(fp, len(towers))
			if err != nil {
				return fmt.Errorf("%s: %w", op, err)
			}
		}
		if h == nil {
			h, err = ix.buildPersisted(ctx, fp, towers)
		}
	} else {
		h, err = ix.buildMemory(ctx, fp, towers)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	ix.towers.Store(h)
	if old == nil && h.dir != "" {
		// A persisted index that was not reused (another fingerprint or
		// mapping version) is not open: remove it now, not at the next Open.
		if err := removeStale(ix.opts.Dir); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
	}
	if old != nil {
		err = old.close()
		if old.dir != "" && old.dir != h.dir {
			err = errors.Join(err, os.RemoveAll(old.dir))
		}
		if err != nil {
			return fmt.Errorf("%s: release previous index: %w", op, err)
		}
	}
	return nil
}

func docCount(h *towerHandle) uint64 {
	n, err := h.idx.DocCount()
	if err != nil {
		return 0
	}
	return n
}

// reopen opens the persisted index named by CURRENT when it carries fp and
// holds n documents; it returns nil, nil otherwise.
func (ix *Index) reopen(fp string, n int) (*towerHandle, error) {
	name, err := readCurrent(ix.opts.Dir)
	if err != nil || name == "" {
		return nil, err
	}
	dir := filepath.Join(ix.opts.Dir, name)
	idx, err := openPersisted(dir)
	if err != nil {
		// A damaged index is rebuilt rather than fatal.
		return nil, nil
	}
	got, err := idx.GetInternal([]byte(fpKey))
	cnt, cerr := idx.DocCount()
	if err != nil || cerr != nil || string(got) != storedFingerprint(fp) || cnt != uint64(n) {
		if err := idx.Close(); err != nil {
			return nil, fmt.Errorf("close stale index %s: %w", name, err)
		}
		return nil, nil
	}
	return newHandle(idx, dir, fp), nil
}

// openPersisted opens a persisted tower index with durable batches: every
// UpsertTower and DeleteTower is on disk when it returns.
func openPersisted(dir string) (bleve.Index, error) {
	return bleve.OpenUsing(dir, map[string]any{"unsafe_batch": false})
}

func newHandle(idx bleve.Index, dir, fp string) *towerHandle {
	h := &towerHandle{idx: idx, dir: dir}
	h.fp.Store(&fp)
	return h
}

// checkTowers rejects nil towers, empty and duplicate ids.
func checkTowers(towers []*appliance.Tower) error {
	seen := make(map[string]struct{}, len(towers))
	for i, t := range towers {
		if t == nil || t.ID == "" {
			return appliance.Invalid(fmt.Sprintf("towers[%d].id", i), "tower and id are required")
		}
		if _, dup := seen[t.ID]; dup {
			return appliance.Invalid(fmt.Sprintf("towers[%d].id", i), "duplicate tower id %q", t.ID)
		}
		seen[t.ID] = struct{}{}
	}
	return nil
}

// fill indexes towers into idx in batches of Options.BatchSize, checking ctx
// between batches, and stores fp as the fingerprint in the last batch.
func (ix *Index) fill(ctx context.Context, idx bleve.Index, fp string, towers []*appliance.Tower, unsafeBatch bool) error {
	b := idx.NewBatch()
	for i, t := range towers {
		if err := b.Index(t.ID, ix.towerDoc(t)); err != nil {
			return fmt.Errorf("index tower %s: %w", t.ID, err)
		}
		if b.Size() >= ix.opts.BatchSize && i < len(towers)-1 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := idx.Batch(b); err != nil {
				return fmt.Errorf("index towers: %w", err)
			}
			b.Reset()
		}
	}
	b.SetInternal([]byte(fpKey), []byte(storedFingerprint(fp)))
	// With unsafe_batch (the persisted build) Batch returns before the
	// segment is on disk; wait for the last one, which persists all before it.
	persisted := make(chan error, 1)
	b.SetPersistedCallback(func(err error) { persisted <- err })
	if err := idx.Batch(b); err != nil {
		return fmt.Errorf("index towers: %w", err)
	}
	if !unsafeBatch {
		return ctx.Err()
	}
	select {
	case err := <-persisted:
		if err != nil {
			return fmt.Errorf("persist towers: %w", err)
		}
	case <-ctx.Done():
	}
	return ctx.Err()
}

func (ix *Index) buildMemory(ctx context.Context, fp string, towers []*appliance.Tower) (*towerHandle, error) {
	if err := checkTowers(towers); err != nil {
		return nil, err
	}
	im, err := newTowerMapping()
	if err != nil {
		return nil, err
	}
	idx, err := newMemIndex(im)
	if err != nil {
		return nil, fmt.Errorf("create tower index: %w", err)
	}
	if err := ix.fill(ctx, idx, fp, towers, false); err != nil {
		_ = idx.Close()
		return nil, err
	}
	return newHandle(idx, "", fp), nil
}

func (ix *Index) buildPersisted(ctx context.Context, fp string, towers []*appliance.Tower) (*towerHandle, error) {
	if err := checkTowers(towers); err != nil {
		return nil, err
	}
	im, err := newTowerMapping()
	if err != nil {
		return nil, err
	}
	name, err := nextName(ix.opts.Dir)
	if err != nil {
		return nil, err
	}
	tmp := filepath.Join(ix.opts.Dir, name+tmpSuffix)
	dir := filepath.Join(ix.opts.Dir, name)
	// The build directory is private until renamed: batches need not be
	// durable one by one, so skip the fsync per batch (the gain was within
	// the noise of our shared 2-core machine); the last batch is awaited.
	idx, err := bleve.NewUsing(tmp, im, scorch.Name, scorch.Name, map[string]any{"unsafe_batch": true})
	if err != nil {
		return nil, fmt.Errorf("create tower index: %w", err)
	}
	if err := ix.fill(ctx, idx, fp, towers, true); err != nil {
		_ = idx.Close()
		return nil, errors.Join(err, os.RemoveAll(tmp))
	}
	if err := idx.Close(); err != nil {
		return nil, errors.Join(fmt.Errorf("close built index: %w", err), os.RemoveAll(tmp))
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, errors.Join(fmt.Errorf("publish built index: %w", err), os.RemoveAll(tmp))
	}
	idx, err = openPersisted(dir)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open built index: %w", err), os.RemoveAll(dir))
	}
	if n, err := idx.DocCount(); err != nil || n != uint64(len(towers)) {
		_ = idx.Close()
		return nil, errors.Join(fmt.Errorf("built index holds %d documents, want %d: %w", n, len(towers), err), os.RemoveAll(dir))
	}
	if err := writeCurrent(ix.opts.Dir, name); err != nil {
		_ = idx.Close()
		return nil, errors.Join(err, os.RemoveAll(dir))
	}
	return newHandle(idx, dir, fp), nil
}

// UpsertTower adds or replaces one tower in the serving index and records
// fp as its new catalogue fingerprint (persisted atomically with the change;
// "" makes the next ReplaceTowers rebuild). ErrUnavailable when no tower
// index is serving.
func (ix *Index) UpsertTower(ctx context.Context, fp string, t *appliance.Tower) error {
	const op = "upsert tower"
	if t == nil || t.ID == "" {
		return appliance.Invalid("id", "tower and id are required")
	}
	return ix.write(ctx, op, fp, func(b *bleve.Batch) error {
		if err := b.Index(t.ID, ix.towerDoc(t)); err != nil {
			return fmt.Errorf("%s %s: %w", op, t.ID, err)
		}
		return nil
	})
}

// DeleteTower removes the tower with the given id, if present, and records
// fp as the catalogue fingerprint, as UpsertTower does.
func (ix *Index) DeleteTower(ctx context.Context, fp, id string) error {
	if id == "" {
		return appliance.Invalid("id", "tower id is required")
	}
	return ix.write(ctx, "delete tower", fp, func(b *bleve.Batch) error {
		b.Delete(id)
		return nil
	})
}

func (ix *Index) write(ctx context.Context, op, fp string, add func(*bleve.Batch) error) error {
	if err := ix.usable(op); err != nil {
		return err
	}
	if err := ix.lockWrites(ctx, op); err != nil {
		return err
	}
	defer ix.unlockWrites()
	h, err := ix.acquire(op)
	if err != nil {
		return err
	}
	defer h.mu.RUnlock()
	b := h.idx.NewBatch()
	if err := add(b); err != nil {
		return err
	}
	b.SetInternal([]byte(fpKey), []byte(storedFingerprint(fp)))
	if err := h.idx.Batch(b); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	h.fp.Store(&fp)
	return nil
}

// SearchTowers returns one page of tower ids matching q and visible in
// scope, best first, ties broken by id, and the total number of matches in
// scope. Every word of q must match the operator, municipality, address
// (accent- and case-insensitive, typo tolerant, last word as prefix), a word
// of the station number (exact, or prefix for the last word) or the UF; or
// the whole of q equals (or, from 3 characters, begins) a station number,
// case- and accent-insensitively. An empty q matches every tower in scope, in
// id order. The scope is part of the index query, so Total, the pages and
// their offsets count only the towers the scope may see. limit <= 0 means
// DefaultLimit and is clamped to MaxLimit; offset must be >= 0 and
// offset+limit <= MaxWindow. ErrUnavailable while no tower index is serving.
func (ix *Index) SearchTowers(ctx context.Context, q string, scope Scope, limit, offset int) (TowerHits, error) {
	const op = "search towers"
	if err := ix.usable(op); err != nil {
		return TowerHits{}, err
	}
	limit = clampLimit(limit)
	if offset < 0 || offset+limit > MaxWindow {
		return TowerHits{}, appliance.Invalid("offset", "must be in [0, %d]", MaxWindow-limit)
	}
	h, err := ix.acquire(op)
	if err != nil {
		return TowerHits{}, err
	}
	defer h.mu.RUnlock()
	toks := tokens(ix.pl.an, q)
	var qq query.Query
	if len(toks) == 0 {
		qq = query.NewMatchAllQuery()
	} else {
		ex, err := newTermExpander(h.idx)
		if err != nil {
			return TowerHits{}, fmt.Errorf("%s %q: %w", op, q, err)
		}
		qq, err = towerQuery(ex, toks, tokens(ix.stationAn, strings.TrimSpace(q)))
		if cerr := ex.close(); err == nil {
			err = cerr
		}
		if err != nil {
			return TowerHits{}, fmt.Errorf("%s %q: %w", op, q, err)
		}
	}
	if f := scopeQuery(scope); f != nil {
		qq = query.NewConjunctionQuery([]query.Query{qq, f})
	}
	req := bleve.NewSearchRequestOptions(qq, limit, offset, false)
	req.SortBy([]string{"-_score", "_id"})
	res, err := h.idx.SearchInContext(ctx, req)
	if err != nil {
		return TowerHits{}, fmt.Errorf("%s %q: %w", op, q, err)
	}
	out := TowerHits{IDs: make([]string, 0, len(res.Hits)), Total: int(res.Total)}
	for _, hit := range res.Hits {
		out.IDs = append(out.IDs, hit.ID)
	}
	return out, nil
}

// scopeQuery is the visibility filter of scope (nil: no filter). Its boost
// is 0: it selects, it does not rank.
func scopeQuery(scope Scope) query.Query {
	if scope.All {
		return nil
	}
	pub := query.NewTermQuery(tenantPublic)
	pub.SetField(fTenant)
	pub.SetBoost(0)
	if scope.Tenant == "" {
		return pub
	}
	own := query.NewTermQuery(tenantPrefix + scope.Tenant)
	own.SetField(fTenant)
	own.SetBoost(0)
	return query.NewDisjunctionQuery([]query.Query{pub, own})
}

// towerQuery matches every word of toks against the tower fields, or the
// whole query (whole, the station analyzer's tokens of it) against the
// station number. The word alternatives of the text fields are expanded
// here (see termExpander), one term query per distinct term.
func towerQuery(ex *termExpander, toks, whole []string) (query.Query, error) {
	must := make([]query.Query, 0, len(toks))
	for i, w := range toks {
		last := i == len(toks)-1
		var alts []query.Query
		for _, f := range []string{fOperator, fMunic, fAddress} {
			qs, err := ex.wordTerms(f, w, last)
			if err != nil {
				return nil, err
			}
			alts = append(alts, qs...)
		}
		st := query.NewTermQuery(w)
		st.SetField(fStationW)
		st.SetBoost(boostTerm)
		alts = append(alts, st)
		if last && len(w) >= 3 {
			sp := query.NewPrefixQuery(w)
			sp.SetField(fStationW)
			sp.SetBoost(boostPrefix)
			alts = append(alts, sp)
		}
		if len(w) == 2 {
			u := query.NewTermQuery(w)
			u.SetField(fUF)
			u.SetBoost(boostState)
			alts = append(alts, u)
		}
		must = append(must, query.NewDisjunctionQuery(alts))
	}
	words := query.NewConjunctionQuery(must)
	if len(whole) != 1 {
		return words, nil
	}
	st := query.NewTermQuery(whole[0])
	st.SetField(fStation)
	st.SetBoost(boostExactName)
	alts := []query.Query{words, st}
	if len(whole[0]) >= 3 {
		sp := query.NewPrefixQuery(whole[0])
		sp.SetField(fStation)
		sp.SetBoost(boostPrefix)
		alts = append(alts, sp)
	}
	return query.NewDisjunctionQuery(alts), nil
}

// termExpander expands a query word into the index terms it matches in one
// field (issue 27, scope 4). bleve's own term, prefix and fuzzy queries for
// one word each walk the postings of every term they match, so a word that
// is in the index (the usual case) had its postings walked two or three
// times (as the term, inside its fuzzy expansion at distance 0, inside its
// prefix expansion): half of the time of an address search of 14,000 hits.
// The expander reads the field dictionary once per alternative (the same
// Levenshtein automaton and prefix walk bleve uses) and gives one term
// query per distinct term, boosted by the sum of the alternatives it
// matches: boostTerm (the word), boostPrefix (last word, a term it begins),
// boostFuzzy/(d+1) (a term within the typo tolerance at edit distance d,
// as bleve weighs its fuzzy candidates).
//
// The dictionaries are read from a reader of their own, opened before the
// search: a tower upserted between the two is found by the search only
// through the terms the dictionaries already had (as if the search had
// started a moment earlier).
type termExpander struct {
	r index.IndexReader
}

func newTermExpander(idx bleve.Index) (*termExpander, error) {
	ai, err := idx.Advanced()
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	r, err := ai.Reader()
	if err != nil {
		return nil, fmt.Errorf("open index reader: %w", err)
	}
	return &termExpander{r: r}, nil
}

func (ex *termExpander) close() error { return ex.r.Close() }

// wordTerms returns the term queries of the word w in field.
func (ex *termExpander) wordTerms(field, w string, last bool) ([]query.Query, error) {
	boosts := map[string]float64{w: boostTerm}
	n := len([]rune(w))
	if last && n >= 2 {
		d, err := ex.r.FieldDictPrefix(field, []byte(w))
		if err != nil {
			return nil, fmt.Errorf("prefix %q in %s: %w", w, field, err)
		}
		if err := eachTerm(d, func(e *index.DictEntry) { boosts[e.Term] += boostPrefix }); err != nil {
			return nil, fmt.Errorf("prefix %q in %s: %w", w, field, err)
		}
	}
	if f := fuzziness(n); f > 0 {
		fr, ok := ex.r.(index.IndexReaderFuzzy)
		if !ok {
			return nil, fmt.Errorf("fuzzy %q in %s: index reader has no fuzzy dictionary", w, field)
		}
		d, err := fr.FieldDictFuzzy(field, w, f, "")
		if err != nil {
			return nil, fmt.Errorf("fuzzy %q in %s: %w", w, field, err)
		}
		qr := []rune(w)
		if err := eachTerm(d, func(e *index.DictEntry) {
			dist := 0
			for dist < f && !levenshteinWithin(qr, []rune(e.Term), dist) {
				dist++
			}
			boosts[e.Term] += boostFuzzy / float64(dist+1)
		}); err != nil {
			return nil, fmt.Errorf("fuzzy %q in %s: %w", w, field, err)
		}
	}
	terms := make([]string, 0, len(boosts))
	for t := range boosts {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	out := make([]query.Query, len(terms))
	for i, t := range terms {
		tq := query.NewTermQuery(t)
		tq.SetField(field)
		tq.SetBoost(boosts[t])
		out[i] = tq
	}
	return out, nil
}

// eachTerm calls fn for every entry of d and closes it.
func eachTerm(d index.FieldDict, fn func(*index.DictEntry)) error {
	e, err := d.Next()
	for err == nil && e != nil {
		fn(e)
		e, err = d.Next()
	}
	return errors.Join(err, d.Close())
}

// readCurrent returns the directory name recorded in CURRENT, "" when none.
func readCurrent(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, currentFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", currentFile, err)
	}
	name := strings.TrimSpace(string(b))
	if !strings.HasPrefix(name, towerPrefix) || strings.ContainsAny(name, `/\`) {
		return "", nil
	}
	return name, nil
}

// writeCurrent records name in CURRENT atomically (write, sync, rename).
func writeCurrent(dir, name string) error {
	tmp := filepath.Join(dir, currentFile+tmpSuffix)
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("write %s: %w", currentFile, err)
	}
	_, werr := f.WriteString(name + "\n")
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("write %s: %w", currentFile, err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, currentFile)); err != nil {
		return fmt.Errorf("write %s: %w", currentFile, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// nextName returns the name of the next tower index directory.
func nextName(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("list %s: %w", dir, err)
	}
	max := 0
	for _, e := range ents {
		s := strings.TrimSuffix(e.Name(), tmpSuffix)
		if n, err := strconv.Atoi(strings.TrimPrefix(s, towerPrefix)); err == nil && strings.HasPrefix(s, towerPrefix) && n > max {
			max = n
		}
	}
	return fmt.Sprintf("%s%06d", towerPrefix, max+1), nil
}

// removeStale deletes tower index directories other than the current one,
// left by a crash or an interrupted build.
func removeStale(dir string) error {
	cur, err := readCurrent(dir)
	if err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("list %s: %w", dir, err)
	}
	for _, e := range ents {
		n := e.Name()
		if (strings.HasPrefix(n, towerPrefix) && n != cur) || n == currentFile+tmpSuffix {
			if err := os.RemoveAll(filepath.Join(dir, n)); err != nil {
				return fmt.Errorf("remove stale %s: %w", n, err)
			}
		}
	}
	return nil
}
