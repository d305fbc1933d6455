package search_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/store/search"
)

// exactMatches is the test oracle: the ids of towers where every folded word
// of q equals a word of the operator, municipality, address, station number
// or UF (the last word may be a prefix). Search may return more (typos).
func exactMatches(towers []*appliance.Tower, addr map[string]string, q string) []string {
	qw := words(q)
	var out []string
	for _, t := range towers {
		fields := slices.Concat(words(t.Operator), words(t.Municipality), words(addr[t.ID]),
			[]string{fold(t.StationNumber), fold(t.UF)})
		ok := len(qw) > 0
		for i, w := range qw {
			last := i == len(qw)-1
			if !slices.ContainsFunc(fields, func(f string) bool { return f == w || (last && strings.HasPrefix(f, w)) }) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, t.ID)
		}
	}
	return out
}

func replace(tb testing.TB, ix *search.Index, fp string, towers []*appliance.Tower) {
	tb.Helper()
	if err := ix.ReplaceTowers(tb.Context(), fp, towers); err != nil {
		tb.Fatalf("ReplaceTowers(%s): %v", fp, err)
	}
}

func TestSearchTowers(t *testing.T) {
	t.Parallel()
	towers, addr := loadERBs(t)
	for _, mode := range []string{"memory", "persisted"} {
		t.Run(mode, func(t *testing.T) {
			opts := search.Options{Address: addressOf(addr)}
			if mode == "persisted" {
				opts.Dir = t.TempDir()
			}
			ix := openIndex(t, opts)
			replace(t, ix, "erbs-1", towers)
			tests := []struct {
				name    string
				q       string
				wantMin int    // at least this many exact matches (guards the oracle)
				first   string // id of the first hit, when checked
			}{
				{name: "operator any case", q: "vivo", wantMin: 48},
				{name: "operator and municipality", q: "claro manaus", wantMin: 1},
				{name: "municipality without accents", q: "sao paulo", wantMin: 4},
				{name: "municipality accented upper", q: "GOIÂNIA", wantMin: 1},
				{name: "uf code", q: "tim rs", wantMin: 2},
				{name: "station number", q: "1000017564", wantMin: 1, first: "anatel:1000017564"},
				{name: "station number prefix", q: "1000015", wantMin: 3},
				{name: "address words", q: "avenida lucio costa", wantMin: 1, first: "anatel:1000017564"},
				{name: "address district", q: "barra da tijuca", wantMin: 1},
				{name: "type-ahead municipality", q: "ribeirao pre", wantMin: 1},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					want := exactMatches(towers, addr, tc.q)
					if len(want) < tc.wantMin {
						t.Fatalf("oracle found %d towers for %q, want at least %d", len(want), tc.q, tc.wantMin)
					}
					got, err := ix.SearchTowers(t.Context(), tc.q, search.Scope{All: true}, search.MaxLimit, 0)
					if err != nil {
						t.Fatal(err)
					}
					if got.Total < len(want) || got.Total != len(got.IDs) {
						t.Errorf("total %d, ids %d, want >= %d", got.Total, len(got.IDs), len(want))
					}
					for _, id := range want {
						if !slices.Contains(got.IDs, id) {
							t.Errorf("exact match %s missing from %v", id, got.IDs)
						}
					}
					if tc.first != "" && (len(got.IDs) == 0 || got.IDs[0] != tc.first) {
						t.Errorf("first = %v, want %s", got.IDs, tc.first)
					}
				})
			}
		})
	}
}

func TestSearchTowersPaging(t *testing.T) {
	t.Parallel()
	towers, addr := loadERBs(t)
	ix := openIndex(t, search.Options{Address: addressOf(addr)})
	replace(t, ix, "erbs-1", towers)
	for _, q := range []string{"vivo", "", "avenida", "sp"} {
		t.Run(fmt.Sprintf("q=%q", q), func(t *testing.T) {
			all, err := ix.SearchTowers(t.Context(), q, search.Scope{All: true}, search.MaxLimit, 0)
			if err != nil {
				t.Fatal(err)
			}
			if q == "" && (all.Total != len(towers) || !slices.IsSorted(all.IDs)) {
				t.Fatalf("empty query: total %d (want %d), sorted %v", all.Total, len(towers), slices.IsSorted(all.IDs))
			}
			var paged []string
			for off := 0; off < len(all.IDs); off += 7 {
				p, err := ix.SearchTowers(t.Context(), q, search.Scope{All: true}, 7, off)
				if err != nil {
					t.Fatal(err)
				}
				if p.Total != all.Total {
					t.Fatalf("page at %d: total %d, want %d", off, p.Total, all.Total)
				}
				paged = append(paged, p.IDs...)
			}
			if paged = paged[:min(len(paged), len(all.IDs))]; !slices.Equal(paged, all.IDs) {
				t.Fatalf("pages of 7 differ from one page:\n%v\n%v", paged, all.IDs)
			}
		})
	}
	tests := []struct {
		name          string
		limit, offset int
	}{
		{name: "negative offset", limit: 10, offset: -1},
		{name: "beyond window", limit: 10, offset: search.MaxWindow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ix.SearchTowers(t.Context(), "vivo", search.Scope{All: true}, tc.limit, tc.offset); !errors.Is(err, appliance.ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestTowersUnavailableAndInvalid(t *testing.T) {
	t.Parallel()
	towers, addr := loadERBs(t)
	closed := search.New(loadPlaces(t), search.Options{})
	if _, err := closed.SearchPlaces(t.Context(), "rio", 5); !errors.Is(err, appliance.ErrUnavailable) {
		t.Errorf("search before Open: err = %v, want ErrUnavailable", err)
	}
	ix := openIndex(t, search.Options{Address: addressOf(addr)})
	if err := ix.Open(t.Context()); !errors.Is(err, appliance.ErrConflict) {
		t.Errorf("second Open: err = %v, want ErrConflict", err)
	}
	if _, err := ix.SearchTowers(t.Context(), "vivo", search.Scope{All: true}, 10, 0); !errors.Is(err, appliance.ErrUnavailable) {
		t.Errorf("search before ReplaceTowers: err = %v, want ErrUnavailable", err)
	}
	if err := ix.UpsertTower(t.Context(), "x", towers[0]); !errors.Is(err, appliance.ErrUnavailable) {
		t.Errorf("upsert before ReplaceTowers: err = %v, want ErrUnavailable", err)
	}
	dup := append(slices.Clone(towers), towers[3])
	bad := []struct {
		name   string
		towers []*appliance.Tower
	}{
		{name: "duplicate id", towers: dup},
		{name: "nil tower", towers: []*appliance.Tower{towers[0], nil}},
		{name: "empty id", towers: []*appliance.Tower{{Operator: "Vivo"}}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			if err := ix.ReplaceTowers(t.Context(), "bad", tc.towers); !errors.Is(err, appliance.ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
	if st := ix.TowerState(); st.Ready {
		t.Errorf("state after rejected replacements = %+v, want not ready", st)
	}
}

func TestUpsertDeleteTower(t *testing.T) {
	t.Parallel()
	towers, addr := loadERBs(t)
	ix := openIndex(t, search.Options{Address: addressOf(addr), Dir: t.TempDir()})
	replace(t, ix, "v1", towers)
	nt := &appliance.Tower{ID: "user:k1-1", Source: appliance.SourceUser, Operator: "Brisanet",
		Municipality: "Mossoró", UF: "RN", StationNumber: "9990001"}
	if err := ix.UpsertTower(t.Context(), "v2", nt); err != nil {
		t.Fatal(err)
	}
	got, err := ix.SearchTowers(t.Context(), "brisanet mossoro", search.Scope{All: true}, 10, 0)
	if err != nil || !slices.Equal(got.IDs, []string{"user:k1-1"}) {
		t.Fatalf("after upsert: %v, %v; want [user:k1-1]", got, err)
	}
	moved := *nt
	moved.Municipality = "Natal"
	if err := ix.UpsertTower(t.Context(), "v3", &moved); err != nil {
		t.Fatal(err)
	}
	if got, _ := ix.SearchTowers(t.Context(), "brisanet mossoro", search.Scope{All: true}, 10, 0); got.Total != 0 {
		t.Errorf("old text still found after update: %v", got)
	}
	if got, _ := ix.SearchTowers(t.Context(), "brisanet natal", search.Scope{All: true}, 10, 0); !slices.Equal(got.IDs, []string{"user:k1-1"}) {
		t.Errorf("updated text not found: %v", got)
	}
	if err := ix.DeleteTower(t.Context(), "v4", "user:k1-1"); err != nil {
		t.Fatal(err)
	}
	if got, _ := ix.SearchTowers(t.Context(), "brisanet", search.Scope{All: true}, 10, 0); got.Total != 0 {
		t.Errorf("deleted tower still found: %v", got)
	}
	if st := ix.TowerState(); st.Fingerprint != "v4" || !st.Ready || !st.Persisted {
		t.Errorf("state = %+v, want fingerprint v4, ready, persisted", st)
	}
}

// TestFingerprintReuse checks that a persisted index is reused when the
// fingerprint and count match (the towers passed are then not read) and
// rebuilt otherwise, and that upserts carry their fingerprint across restarts.
func TestFingerprintReuse(t *testing.T) {
	t.Parallel()
	towers, addr := loadERBs(t)
	dir := t.TempDir()
	places := loadPlaces(t)
	open := func() *search.Index {
		ix := search.New(places, search.Options{Dir: dir, Address: addressOf(addr)})
		if err := ix.Open(t.Context()); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	total := func(ix *search.Index, q string) int {
		h, err := ix.SearchTowers(t.Context(), q, search.Scope{All: true}, 10, 0)
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		return h.Total
	}
	// renamed has the same ids and count, but every operator renamed.
	renamed := make([]*appliance.Tower, len(towers))
	for i, tw := range towers {
		c := *tw
		c.Operator = "Renamed"
		renamed[i] = &c
	}

	ix := open()
	replace(t, ix, "cat-1", towers)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}

	ix = open()
	replace(t, ix, "cat-1", renamed) // same fingerprint: reused, renamed not read
	if n := total(ix, "vivo"); n != 48 {
		t.Errorf("reused index: vivo total %d, want 48", n)
	}
	if n := total(ix, "renamed"); n != 0 {
		t.Errorf("reused index indexed the new towers: renamed total %d", n)
	}
	replace(t, ix, "cat-2", renamed) // new fingerprint: rebuilt
	if n := total(ix, "renamed"); n != len(towers) {
		t.Errorf("rebuilt index: renamed total %d, want %d", n, len(towers))
	}
	if err := ix.UpsertTower(t.Context(), "cat-3", &appliance.Tower{ID: "user:x", Operator: "Algar"}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ents, _ := filepath.Glob(filepath.Join(dir, "towers-*"))
	if len(ents) != 1 {
		t.Errorf("index directories after rebuild: %v, want exactly one", ents)
	}

	ix = open()
	withUser := append(slices.Clone(renamed), &appliance.Tower{ID: "user:x", Operator: "Algar"})
	replace(t, ix, "cat-3", towers) // same fingerprint, 104 towers for 105 documents: rebuilt
	if n := total(ix, "algar"); n != 0 {
		t.Errorf("count mismatch was reused: algar total %d", n)
	}
	replace(t, ix, "cat-3", withUser)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix = open()
	defer ix.Close()
	replace(t, ix, "cat-3", withUser)
	if n := total(ix, "algar"); n != 1 {
		t.Errorf("reopened after upsert: algar total %d, want 1", n)
	}
}

func TestStaleDirectoriesRemoved(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, n := range []string{"towers-000007.tmp", "towers-000003", "CURRENT.tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, n), 0o750); err != nil {
			t.Fatal(err)
		}
	}
	ix := search.New(loadPlaces(t), search.Options{Dir: dir})
	if err := ix.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left after Open: %v", ents)
	}
}

// TestReplaceTowersConcurrentReaders swaps between two tower sets while
// readers search: every answer must come wholly from one set. Run with -race.
func TestReplaceTowersConcurrentReaders(t *testing.T) {
	t.Parallel()
	towers, addr := loadERBs(t)
	other := make([]*appliance.Tower, len(towers))
	otherAddr := map[string]string{}
	for i, tw := range towers {
		c := *tw
		c.ID = appliance.TowerID(appliance.SourceUser, tw.StationNumber)
		other[i] = &c
		otherAddr[c.ID] = addr[tw.ID]
	}
	maps := []map[string]string{addr, otherAddr}
	address := func(tw *appliance.Tower) string {
		for _, m := range maps {
			if a, ok := m[tw.ID]; ok {
				return a
			}
		}
		return ""
	}
	for _, mode := range []string{"memory", "persisted"} {
		t.Run(mode, func(t *testing.T) {
			opts := search.Options{Address: address}
			if mode == "persisted" {
				opts.Dir = t.TempDir()
			}
			ix := openIndex(t, opts)
			replace(t, ix, "a-0", towers)
			ctx, cancel := context.WithCancel(t.Context())
			var wg sync.WaitGroup
			var searches atomic.Int64
			for r := range 4 {
				wg.Go(func() {
					q := []string{"vivo", "sao paulo", "avenida", ""}[r]
					for ctx.Err() == nil {
						h, err := ix.SearchTowers(ctx, q, search.Scope{All: true}, search.MaxLimit, 0)
						if err != nil {
							if ctx.Err() == nil {
								t.Errorf("search %q: %v", q, err)
							}
							return
						}
						if len(h.IDs) == 0 {
							t.Errorf("search %q: no hits", q)
							return
						}
						src := appliance.SourceOf(h.IDs[0])
						for _, id := range h.IDs {
							if appliance.SourceOf(id) != src {
								t.Errorf("search %q mixes tower sets: %v", q, h.IDs)
								return
							}
						}
						searches.Add(1)
					}
				})
			}
			for i := 1; i <= 6; i++ {
				set := towers
				if i%2 == 1 {
					set = other
				}
				replace(t, ix, fmt.Sprintf("gen-%d", i), set)
			}
			time.Sleep(20 * time.Millisecond)
			cancel()
			wg.Wait()
			if searches.Load() == 0 {
				t.Error("readers completed no search")
			}
			t.Logf("%d searches during 6 replacements", searches.Load())
		})
	}
}

func TestReplaceTowersInBackground(t *testing.T) {
	t.Parallel()
	places := loadPlaces(t)
	towers, addr := synthTowers(places, 20000)
	ix := openIndex(t, search.Options{Dir: t.TempDir(), Address: addressOf(addr)})
	if err := ix.ReplaceTowersInBackground("bg-1", towers); err != nil {
		t.Fatal(err)
	}
	if st := ix.TowerState(); !st.Building && !st.Ready {
		t.Errorf("state right after start = %+v, want building", st)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for ix.TowerState().Building {
		if _, err := ix.SearchTowers(t.Context(), "vivo", search.Scope{All: true}, 10, 0); err != nil && !errors.Is(err, appliance.ErrUnavailable) {
			t.Fatalf("search while building: %v, want nil or ErrUnavailable", err)
		}
		if time.Now().After(deadline) {
			t.Fatal("background build did not finish")
		}
		time.Sleep(10 * time.Millisecond)
	}
	st := ix.TowerState()
	if !st.Ready || st.Err != nil || st.Fingerprint != "bg-1" {
		t.Fatalf("state after build = %+v", st)
	}
	want := 0
	for _, tw := range towers {
		if tw.Operator == "Vivo" {
			want++
		}
	}
	h, err := ix.SearchTowers(t.Context(), "vivo", search.Scope{All: true}, 10, 0)
	if err != nil || h.Total != want {
		t.Errorf("vivo: total %d, err %v, want %d", h.Total, err, want)
	}
}

func TestCloseCancelsBackgroundBuild(t *testing.T) {
	t.Parallel()
	places := loadPlaces(t)
	towers, _ := synthTowers(places, 60000)
	dir := t.TempDir()
	ix := search.New(places, search.Options{Dir: dir, BatchSize: 1000})
	if err := ix.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := ix.ReplaceTowersInBackground("big", towers); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("Close during build took %v", time.Since(start))
	if st := ix.TowerState(); st.Building || st.Ready {
		t.Errorf("state after Close = %+v", st)
	}
	if err := ix.ReplaceTowersInBackground("again", towers); !errors.Is(err, appliance.ErrUnavailable) {
		t.Errorf("background replace after Close: err = %v, want ErrUnavailable", err)
	}
	if err := ix.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
