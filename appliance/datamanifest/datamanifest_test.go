package datamanifest_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
	"linkplan/appliance/datamanifest"
	"linkplan/appliance/refresh"
	"linkplan/appliance/sampledata"
	"linkplan/store"
	"linkplan/terrain-packs/sample"
)

func sum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// inputs is a changeable input list, as the composition root's is.
type inputs struct {
	mu sync.Mutex
	in []datamanifest.Input
}

func (i *inputs) get() ([]datamanifest.Input, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	return append([]datamanifest.Input(nil), i.in...), nil
}

func start(t *testing.T, deps datamanifest.Deps) *datamanifest.Service {
	t.Helper()
	s := datamanifest.New(deps)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return s
}

func wait(t *testing.T, s *datamanifest.Service) appliance.DataManifest {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := s.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestManifestHashesEveryInput: the real sample pack (embedded and as a
// file) and the real tower samples, hashed by the background goroutine;
// names, sizes, dates and kinds as the files have them; a tower source
// carries its newest refresh record from a real store.
func TestManifestHashesEveryInput(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, "rio.ltp")
	anatel := filepath.Join(dir, "anatel_erbs.csv")
	for path, b := range map[string][]byte{pack: sample.Pack(), anatel: sampledata.AnatelERBs()} {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mtime := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if err := os.Chtimes(anatel, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	gaz, err := catalog.EmbeddedGazetteer()
	if err != nil {
		t.Fatal(err)
	}
	rs := refresh.New(gaz, nil)
	rs.Sources = []refresh.Source{refresh.FileSource(anatel), {Name: "embedded:opencellid_724_sample.csv", Read: refresh.ReadAllFrom(sampledata.OpenCelliD())}}
	rs.Recorder = db
	if _, err := rs.RefreshOnce(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	in := &inputs{in: []datamanifest.Input{
		{Kind: appliance.DataKindTerrainPack, Path: pack, Tiles: 2, Bounds: &appliance.BBox{MinLat: -23, MinLon: -44, MaxLat: -21, MaxLon: -42}},
		{Kind: appliance.DataKindTerrainPack, Name: "embedded:rio.ltp", Data: sample.Pack()},
		{Kind: appliance.DataKindTowerSource, Path: anatel},
		{Kind: appliance.DataKindTowerSource, Name: "embedded:opencellid_724_sample.csv", Data: sampledata.OpenCelliD()},
	}}
	s := start(t, datamanifest.Deps{Inputs: in.get, Refreshes: db})
	m := wait(t, s)
	if !m.Complete || len(m.TerrainPacks) != 2 || len(m.TowerSources) != 2 {
		t.Fatalf("manifest %+v", m)
	}
	cases := []struct {
		name string
		e    appliance.DataManifestEntry
		want appliance.DataManifestEntry // the fields checked
	}{
		{"pack file", m.TerrainPacks[0], appliance.DataManifestEntry{Kind: appliance.DataKindTerrainPack, Name: "rio.ltp", SHA256: sum(sample.Pack()), Bytes: int64(len(sample.Pack())), Tiles: 2}},
		{"embedded pack", m.TerrainPacks[1], appliance.DataManifestEntry{Kind: appliance.DataKindTerrainPack, Name: "embedded:rio.ltp", Embedded: true, SHA256: sum(sample.Pack()), Bytes: int64(len(sample.Pack()))}},
		{"anatel file", m.TowerSources[0], appliance.DataManifestEntry{Kind: appliance.DataKindTowerSource, Name: "anatel_erbs.csv", SHA256: sum(sampledata.AnatelERBs()), Bytes: int64(len(sampledata.AnatelERBs())), ModifiedAt: mtime}},
		{"embedded towers", m.TowerSources[1], appliance.DataManifestEntry{Kind: appliance.DataKindTowerSource, Name: "embedded:opencellid_724_sample.csv", Embedded: true, SHA256: sum(sampledata.OpenCelliD()), Bytes: int64(len(sampledata.OpenCelliD()))}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, w := c.e, c.want
			if e.Kind != w.Kind || e.Name != w.Name || e.Embedded != w.Embedded || e.Status != appliance.DataFileOK || e.Detail != "" ||
				e.SHA256 != w.SHA256 || e.Bytes != w.Bytes || e.Tiles != w.Tiles || e.HashedAt.IsZero() {
				t.Errorf("got %+v\nwant %+v", e, w)
			}
			if !w.ModifiedAt.IsZero() && !e.ModifiedAt.Equal(w.ModifiedAt) {
				t.Errorf("modified %v, want %v", e.ModifiedAt, w.ModifiedAt)
			}
			if e.Embedded != e.ModifiedAt.IsZero() {
				t.Errorf("embedded %v but modified %v", e.Embedded, e.ModifiedAt)
			}
		})
	}
	for i, want := range []struct {
		sha    string
		towers int
	}{{sum(sampledata.AnatelERBs()), 104}, {sum(sampledata.OpenCelliD()), 204}} {
		r := m.TowerSources[i].LastRefresh
		if r == nil || r.SHA256 != want.sha || r.Towers != want.towers || r.Error != "" || r.TimeUnix == 0 {
			t.Errorf("tower source %d: last refresh %+v, want sha %s and %d towers", i, r, want.sha, want.towers)
		}
	}
	if m.TerrainPacks[0].LastRefresh != nil || m.TerrainPacks[0].Bounds == nil {
		t.Errorf("pack entry %+v", m.TerrainPacks[0])
	}
}

// TestManifestFollowsChanges: a file rewritten is pending, then hashed
// again; a file removed is failing with a reason; one added later joins;
// Manifest answers without waiting, even before Start.
func TestManifestFollowsChanges(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.csv")
	if err := os.WriteFile(a, []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := &inputs{in: []datamanifest.Input{{Kind: appliance.DataKindTowerSource, Path: a}}}

	idle := datamanifest.New(datamanifest.Deps{Inputs: in.get})
	m, err := idle.Manifest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if e := m.TowerSources[0]; e.Status != appliance.DataFilePending || !strings.Contains(e.Detail, "computing the SHA-256 of 5 bytes") || m.Complete {
		t.Fatalf("before Start: %+v", m)
	}

	s := start(t, datamanifest.Deps{Inputs: in.get})
	if e := wait(t, s).TowerSources[0]; e.SHA256 != sum([]byte("first")) {
		t.Fatalf("first: %+v", e)
	}
	later := time.Now().Add(time.Hour)
	if err := os.WriteFile(a, []byte("second!"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(a, later, later); err != nil {
		t.Fatal(err)
	}
	if e := wait(t, s).TowerSources[0]; e.Status != appliance.DataFileOK || e.SHA256 != sum([]byte("second!")) || e.Bytes != 7 {
		t.Fatalf("after the rewrite: %+v", e)
	}

	b := filepath.Join(dir, "b.csv")
	if err := os.WriteFile(b, []byte("added"), 0o600); err != nil {
		t.Fatal(err)
	}
	in.mu.Lock()
	in.in = append(in.in, datamanifest.Input{Kind: appliance.DataKindTowerSource, Path: b})
	in.mu.Unlock()
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	m = wait(t, s)
	if e := m.TowerSources[0]; e.Status != appliance.DataFileFailing || !strings.Contains(e.Detail, "does not exist") || e.SHA256 != "" {
		t.Errorf("removed: %+v", e)
	}
	if e := m.TowerSources[1]; e.Status != appliance.DataFileOK || e.SHA256 != sum([]byte("added")) || e.Name != "b.csv" {
		t.Errorf("added: %+v", e)
	}
	if m.Complete {
		t.Error("complete with a failing entry")
	}
	if err := s.Start(context.Background()); !errors.Is(err, appliance.ErrConflict) {
		t.Errorf("second Start: %v", err)
	}
}

// TestManifestUnreadable: a file the appliance's user may not read is
// failing with that reason (not pending forever).
func TestManifestUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file: the permission case needs another user")
	}
	p := filepath.Join(t.TempDir(), "secret.ltp")
	if err := os.WriteFile(p, []byte("x"), 0o000); err != nil {
		t.Fatal(err)
	}
	s := start(t, datamanifest.Deps{Inputs: func() ([]datamanifest.Input, error) {
		return []datamanifest.Input{{Kind: appliance.DataKindTerrainPack, Path: p}}, nil
	}})
	if e := wait(t, s).TerrainPacks[0]; e.Status != appliance.DataFileFailing || !strings.Contains(e.Detail, "may not read") {
		t.Errorf("%+v", e)
	}
}
