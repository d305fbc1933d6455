package search

import (
	"os"
	"path/filepath"
	"testing"

	"linkplan/appliance"
)

// TestFinding4MappingVersionForcesRebuild: a persisted tower index built by a
// binary with an older mapping (which stored the bare catalogue fingerprint)
// must be rebuilt, not reused, even when the fingerprint and the document
// count match: its fields would be read with the new mapping's meaning (no
// tenant field: every user tower would vanish from tenant searches).
func TestFinding4MappingVersionForcesRebuild(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	towers := []*appliance.Tower{
		{ID: "anatel:1", Source: appliance.SourceAnatel, Operator: "Vivo"},
		{ID: "user:a", Source: appliance.SourceUser, Operator: "Vivo", OwnerTenantID: "t_a"},
	}
	open := func() *Index {
		ix := New([]Place{{IBGECode: "3304557", Name: "Rio de Janeiro", UF: "RJ"}}, Options{Dir: dir})
		if err := ix.Open(t.Context()); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	ix := open()
	if err := ix.ReplaceTowers(t.Context(), "cat-1", towers); err != nil {
		t.Fatal(err)
	}
	// Make the index look as version 1 wrote it: the bare fingerprint.
	h, err := ix.acquire("test")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.idx.SetInternal([]byte(fpKey), []byte("cat-1")); err != nil {
		t.Fatal(err)
	}
	h.mu.RUnlock()
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := readCurrent(dir)
	if err != nil || before == "" {
		t.Fatalf("CURRENT = %q, %v", before, err)
	}

	ix = open()
	defer ix.Close()
	if err := ix.ReplaceTowers(t.Context(), "cat-1", towers); err != nil {
		t.Fatal(err)
	}
	after, err := readCurrent(dir)
	if err != nil || after == before {
		t.Fatalf("CURRENT %q -> %q (%v): the old-mapping index was reused", before, after, err)
	}
	if _, err := os.Stat(filepath.Join(dir, before)); !os.IsNotExist(err) {
		t.Errorf("old-mapping index %s left on disk: %v", before, err)
	}
	got, err := ix.SearchTowers(t.Context(), "vivo", Scope{Tenant: "t_a"}, 10, 0)
	if err != nil || got.Total != 2 {
		t.Errorf("tenant search after rebuild: %+v, %v; want both towers", got, err)
	}
	// And the rebuilt index is reused by the next start.
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix2 := open()
	defer ix2.Close()
	if err := ix2.ReplaceTowers(t.Context(), "cat-1", towers); err != nil {
		t.Fatal(err)
	}
	if again, _ := readCurrent(dir); again != after {
		t.Errorf("CURRENT %q -> %q: a current-mapping index was rebuilt", after, again)
	}
}
