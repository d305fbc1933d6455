package towerset_test

import (
	"context"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/towerset"
	"linkplan/store"
	"linkplan/store/search"
	"linkplan/store/spatial"
)

// TestTowerSet: on the real store, R-tree and search index, a swap keeps
// the registered towers, a registration and an erase reach both indexes,
// and Visible applies the tenant rule.
func TestTowerSet(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ix := spatial.New(nil)
	sx := search.New(nil, search.Options{Dir: t.TempDir(), Address: func(t *appliance.Tower) string { return t.Address }})
	if err := sx.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer sx.Close()
	mine := &appliance.Tower{ID: "user_a1", Operator: "Mine", Lat: -22.9, Lon: -43.2, HeightM: 30, Source: appliance.SourceUser, OwnerTenantID: "t_a"}
	if err := db.PutUserTower(mine, 10); err != nil {
		t.Fatal(err)
	}
	var public []*appliance.Tower
	set := towerset.New(towerset.Deps{Index: ix, Search: sx, Store: db,
		Synthetic: []*appliance.Tower{{ID: "syn_1", Operator: "Synthetic", Lat: -22.8, Lon: -43.1, HeightM: 25, Synthetic: true}},
		OnPublic:  func(p []*appliance.Tower) { public = p }})
	catalogue := []*appliance.Tower{{ID: "anatel_1", Operator: "Claro", Lat: -22.95, Lon: -43.15, HeightM: 40}}
	if err := set.Apply(catalogue); err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 3 || len(public) != 2 || public[0].ID != "anatel_1" || public[1].ID != "syn_1" {
		t.Fatalf("after the swap: %d towers, public %v", ix.Len(), public)
	}
	waitSearch(t, sx)
	other := &appliance.Tower{ID: "user_b1", Operator: "Theirs", Lat: -22.91, Lon: -43.21, HeightM: 20, Source: appliance.SourceUser, OwnerTenantID: "t_b"}
	set.Upsert(other)
	for _, c := range []struct {
		name, tenant, id string
		want             bool
	}{
		{"public tower, any tenant", "t_b", "anatel_1", true},
		{"synthetic tower, any tenant", "t_a", "syn_1", true},
		{"own tower", "t_a", "user_a1", true},
		{"another tenant's tower", "t_a", "user_b1", false},
		{"registered tower, its owner", "t_b", "user_b1", true},
		{"unknown id", "t_a", "nope", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, ok := set.Visible(c.tenant, c.id); ok != c.want {
				t.Errorf("Visible(%s, %s) = %v, want %v", c.tenant, c.id, ok, c.want)
			}
		})
	}
	hits, err := sx.SearchTowers(context.Background(), "Theirs", search.Scope{All: true}, 10, 0)
	if err != nil || len(hits.IDs) != 1 || hits.IDs[0] != "user_b1" {
		t.Fatalf("search after the upsert: %+v %v", hits, err)
	}
	set.Delete([]string{"user_b1"})
	if _, ok := ix.Get("user_b1"); ok {
		t.Error("the erased tower is still in the R-tree")
	}
	hits, err = sx.SearchTowers(context.Background(), "Theirs", search.Scope{All: true}, 10, 0)
	if err != nil || len(hits.IDs) != 0 {
		t.Fatalf("search after the erase: %+v %v", hits, err)
	}
	if towerset.Fingerprint(catalogue) == towerset.Fingerprint(append(catalogue, other)) {
		t.Error("two different sets share a fingerprint")
	}
}

func waitSearch(t *testing.T, sx *search.Index) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for st := sx.TowerState(); !st.Ready || st.Building; st = sx.TowerState() {
		if st.Err != nil || time.Now().After(deadline) {
			t.Fatalf("search index: %+v", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
