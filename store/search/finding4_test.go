package search_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/store/search"
)

// userTower returns a user-registered tower of tenant, as POST /towers makes
// them.
func userTower(tenant string, i int, station string) *appliance.Tower {
	return &appliance.Tower{
		ID: appliance.TowerID(appliance.SourceUser, fmt.Sprintf("%s-%02d", tenant, i)), Source: appliance.SourceUser,
		Operator: "Brisanet", Municipality: "Mossoró", UF: "RN", StationNumber: station,
		OwnerKeyID: "k_" + tenant, OwnerTenantID: tenant, HeightM: appliance.DefaultTowerHeightM,
	}
}

// TestFinding4TenantScopedTowerSearch is the regression test of issue 7,
// finding 4: GET /towers?q= counted every tenant's user towers in total and
// next_offset before filtering the page. The scope is now part of the index
// query: totals, pages and offsets are the caller's own, and an operator
// scope sees all.
func TestFinding4TenantScopedTowerSearch(t *testing.T) {
	t.Parallel()
	towers, addr := loadERBs(t)
	var a, b []*appliance.Tower
	for i := range 5 {
		a = append(a, userTower("t_alpha", i, fmt.Sprintf("A%d", i)))
	}
	for i := range 3 {
		b = append(b, userTower("t_beta", i, fmt.Sprintf("B%d", i)))
	}
	all := slices.Concat(towers, a, b)
	for _, mode := range []string{"memory", "persisted"} {
		t.Run(mode, func(t *testing.T) {
			opts := search.Options{Address: addressOf(addr)}
			if mode == "persisted" {
				opts.Dir = t.TempDir()
			}
			ix := openIndex(t, opts)
			replace(t, ix, "f4-1", all)
			ids := func(ts []*appliance.Tower) []string {
				out := make([]string, len(ts))
				for i, tw := range ts {
					out[i] = tw.ID
				}
				slices.Sort(out)
				return out
			}
			tests := []struct {
				name  string
				q     string
				scope search.Scope
				want  []string // every id, in any order; nil: none
			}{
				{name: "tenant without towers sees none", q: "brisanet", scope: search.Scope{Tenant: "t_gamma"}},
				{name: "zero scope sees no user tower", q: "brisanet", scope: search.Scope{}},
				{name: "tenant alpha sees its own", q: "brisanet", scope: search.Scope{Tenant: "t_alpha"}, want: ids(a)},
				{name: "tenant beta sees its own", q: "brisanet mossoro", scope: search.Scope{Tenant: "t_beta"}, want: ids(b)},
				{name: "operator scope sees all", q: "brisanet", scope: search.Scope{All: true}, want: ids(slices.Concat(a, b))},
				{name: "tenant id is not a search word", q: "t_beta", scope: search.Scope{Tenant: "t_alpha"}},
				{name: "another tenant's station number", q: "B1", scope: search.Scope{Tenant: "t_alpha"}},
				{name: "own station number", q: "b1", scope: search.Scope{Tenant: "t_beta"}, want: []string{"user:t_beta-01"}},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					got, err := ix.SearchTowers(t.Context(), tc.q, tc.scope, search.MaxLimit, 0)
					if err != nil {
						t.Fatal(err)
					}
					sorted := slices.Sorted(slices.Values(got.IDs))
					if got.Total != len(tc.want) || !slices.Equal(sorted, tc.want) {
						t.Fatalf("total %d, ids %v; want total %d, ids %v", got.Total, got.IDs, len(tc.want), tc.want)
					}
				})
			}
			// Pages: the empty query lists the catalogue plus the caller's own
			// towers, and pages of 7 concatenate to that list with the same
			// total on every page.
			for _, tc := range []struct {
				name  string
				scope search.Scope
				want  int
			}{
				{name: "gamma", scope: search.Scope{Tenant: "t_gamma"}, want: len(towers)},
				{name: "alpha", scope: search.Scope{Tenant: "t_alpha"}, want: len(towers) + len(a)},
				{name: "beta", scope: search.Scope{Tenant: "t_beta"}, want: len(towers) + len(b)},
				{name: "all", scope: search.Scope{All: true}, want: len(all)},
			} {
				t.Run("pages "+tc.name, func(t *testing.T) {
					var paged []string
					for off := 0; off < tc.want+7; off += 7 {
						p, err := ix.SearchTowers(t.Context(), "", tc.scope, 7, off)
						if err != nil {
							t.Fatal(err)
						}
						if p.Total != tc.want {
							t.Fatalf("page at %d: total %d, want %d", off, p.Total, tc.want)
						}
						paged = append(paged, p.IDs...)
					}
					if len(paged) != tc.want || !slices.IsSorted(paged) {
						t.Fatalf("pages hold %d ids (sorted %v), want %d", len(paged), slices.IsSorted(paged), tc.want)
					}
					for _, id := range paged {
						if strings.HasPrefix(id, "user:") && !tc.scope.All && !strings.HasPrefix(id, "user:"+tc.scope.Tenant+"-") {
							t.Errorf("page holds %s, not visible to %+v", id, tc.scope)
						}
					}
				})
			}
			// A registration indexed later is scoped too.
			late := userTower("t_gamma", 0, "G0")
			if err := ix.UpsertTower(t.Context(), "f4-2", late); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				scope search.Scope
				want  int
			}{{search.Scope{Tenant: "t_gamma"}, 1}, {search.Scope{Tenant: "t_alpha"}, len(a)}, {search.Scope{All: true}, len(a) + len(b) + 1}} {
				if got, err := ix.SearchTowers(t.Context(), "brisanet", tc.scope, 10, 0); err != nil || got.Total != tc.want {
					t.Errorf("after upsert, scope %+v: total %d, err %v; want %d", tc.scope, got.Total, err, tc.want)
				}
			}
		})
	}
}

// TestFinding4StationNumbersWithLetters: the station field was a
// case-sensitive keyword while the query is lower-cased, so a station number
// holding letters never matched. It is now folded like the query, whole and
// word by word.
func TestFinding4StationNumbersWithLetters(t *testing.T) {
	t.Parallel()
	towers, addr := loadERBs(t)
	mk := func(id, station string) *appliance.Tower {
		return &appliance.Tower{ID: "user:" + id, Source: appliance.SourceUser, Operator: "Provedor Local",
			StationNumber: station, OwnerTenantID: "t_a", HeightM: appliance.DefaultTowerHeightM}
	}
	extra := []*appliance.Tower{mk("s1", "ERB-12A"), mk("s2", "Torre7B"), mk("s3", "SÃO-01"), mk("s4", "ERB-99Z")}
	ix := openIndex(t, search.Options{Address: addressOf(addr), Dir: t.TempDir()})
	replace(t, ix, "f4-st", slices.Concat(towers, extra))
	tests := []struct {
		name string
		q    string
		want []string // ids that must be among the hits
		not  []string // ids that must not
	}{
		{name: "whole upper case", q: "ERB-12A", want: []string{"user:s1"}, not: []string{"user:s4"}},
		{name: "whole lower case", q: "erb-12a", want: []string{"user:s1"}, not: []string{"user:s4"}},
		{name: "letters and digits one word", q: "TORRE7B", want: []string{"user:s2"}},
		{name: "type-ahead prefix", q: "torre7", want: []string{"user:s2"}},
		{name: "whole prefix with separator", q: "erb-1", want: []string{"user:s1"}, not: []string{"user:s4"}},
		{name: "word of the station", q: "12a", want: []string{"user:s1"}},
		{name: "accent folded", q: "sao-01", want: []string{"user:s3"}},
		{name: "digits only still exact", q: "1000017564", want: []string{"anatel:1000017564"}},
		{name: "no match", q: "erb-13a", not: []string{"user:s1", "user:s4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ix.SearchTowers(t.Context(), tc.q, search.Scope{Tenant: "t_a"}, search.MaxLimit, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range tc.want {
				if !slices.Contains(got.IDs, id) {
					t.Errorf("%q: %s missing from %v", tc.q, id, got.IDs)
				}
			}
			for _, id := range tc.not {
				if slices.Contains(got.IDs, id) {
					t.Errorf("%q: %s found in %v", tc.q, id, got.IDs)
				}
			}
			if len(tc.want) > 0 && (len(got.IDs) == 0 || got.IDs[0] != tc.want[0]) {
				t.Errorf("%q: first hit %v, want %s", tc.q, got.IDs, tc.want[0])
			}
		})
	}
}
