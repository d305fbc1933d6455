package refresh_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
	"linkplan/appliance/refresh"
	"linkplan/appliance/sampledata"
	"linkplan/store"
)

func setup(t *testing.T) (*refresh.Service, *store.DB, *atomic.Int64, *[]*appliance.Tower, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	gaz, err := catalog.EmbeddedGazetteer()
	if err != nil {
		t.Fatal(err)
	}
	erbs := filepath.Join(dir, "erbs.csv")
	if err := os.WriteFile(erbs, sampledata.AnatelERBs(), 0o600); err != nil {
		t.Fatal(err)
	}
	ocid := filepath.Join(dir, "ocid.csv")
	if err := os.WriteFile(ocid, sampledata.OpenCelliD(), 0o600); err != nil {
		t.Fatal(err)
	}
	s := refresh.New(gaz, nil)
	s.Sources = []refresh.Source{refresh.FileSource(erbs), refresh.FileSource(ocid)}
	s.Recorder = db
	applies := &atomic.Int64{}
	var current []*appliance.Tower
	s.Apply = func(ts []*appliance.Tower) error { applies.Add(1); current = ts; return nil }
	return s, db, applies, &current, erbs
}

func TestRefreshIsIdempotentAndRecorded(t *testing.T) {
	s, db, applies, current, _ := setup(t)
	ctx := context.Background()
	sum, err := s.RefreshOnce(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	// The real samples: 104 Anatel stations, 204 OpenCelliD cells.
	if sum.Regulator != 104 || sum.Crowd != 204 || len(*current) != 308 || applies.Load() != 1 {
		t.Fatalf("first refresh: %+v, %d towers, %d applies", sum, len(*current), applies.Load())
	}
	if _, err := s.RefreshOnce(ctx, false); err != nil {
		t.Fatal(err)
	}
	if applies.Load() != 1 {
		t.Fatal("an unchanged refresh rebuilt the index")
	}
	recs, err := db.TowerRefreshes(10)
	if err != nil || len(recs) != 4 {
		t.Fatalf("records: %d, %v", len(recs), err)
	}
	if recs[0].Changed || recs[1].Changed || !recs[2].Changed || !recs[3].Changed {
		t.Fatalf("changed flags (newest first): %v %v %v %v", recs[0].Changed, recs[1].Changed, recs[2].Changed, recs[3].Changed)
	}
	if recs[3].Format != "anatel-erbs" || recs[3].Rows != 104 || recs[3].Towers != 104 || len(recs[3].SHA256) != 64 {
		t.Fatalf("record: %+v", recs[3])
	}
}

func TestFailingSourceKeepsThePreviousCatalogue(t *testing.T) {
	s, db, applies, current, erbs := setup(t)
	ctx := context.Background()
	if _, err := s.RefreshOnce(ctx, false); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(erbs, []byte("this is not a tower file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RefreshOnce(ctx, false); err == nil {
		t.Fatal("a broken source did not fail the refresh")
	}
	if applies.Load() != 1 || len(*current) != 308 {
		t.Fatalf("catalogue changed after a failed refresh: %d applies, %d towers", applies.Load(), len(*current))
	}
	recs, _ := db.TowerRefreshes(2)
	if len(recs) != 2 || recs[1].Error == "" { // newest first: ocid, then the broken erbs
		t.Fatalf("failure not recorded: %+v", recs)
	}
}

func TestRejectsAreRecordedWithLines(t *testing.T) {
	s, db, _, _, erbs := setup(t)
	data := append(append([]byte(nil), sampledata.AnatelERBs()...), []byte("999;TIM;RJ;Rio de Janeiro;X;Y;-2.872.917;-43.1;3304557;;4G ;1800 \n")...)
	if err := os.WriteFile(erbs, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RefreshOnce(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	recs, _ := db.TowerRefreshes(2)
	r := recs[1] // the ERBs record (sources are recorded in order)
	if r.Rejected != 1 || len(r.Rejects) != 1 || r.Rejects[0].Line != 106 {
		t.Fatalf("reject not recorded with its line: %+v", r)
	}
}

func TestFailedApplyIsRetried(t *testing.T) {
	s, _, applies, _, _ := setup(t)
	fail := true
	inner := s.Apply
	s.Apply = func(ts []*appliance.Tower) error {
		if fail {
			return errors.New("apply failed (injected)")
		}
		return inner(ts)
	}
	if _, err := s.RefreshOnce(context.Background(), false); err == nil {
		t.Fatal("a failed apply did not fail the refresh")
	}
	fail = false
	if _, err := s.RefreshOnce(context.Background(), false); err != nil || applies.Load() != 1 {
		t.Fatalf("unchanged sources were not applied after a failed apply: %v, %d applies", err, applies.Load())
	}
}

func TestDiscoveredSourcesJoinTheCatalogue(t *testing.T) {
	s, _, applies, current, _ := setup(t)
	ctx := context.Background()
	erbsOnly := s.Sources[:1]
	s.Sources = erbsOnly
	if _, err := s.RefreshOnce(ctx, false); err != nil || len(*current) != 104 {
		t.Fatalf("%v, %d towers", err, len(*current))
	}
	dir := t.TempDir()
	ocid := filepath.Join(dir, "ocid.csv")
	if err := os.WriteFile(ocid, sampledata.OpenCelliD(), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Discover = func() ([]refresh.Source, error) { return []refresh.Source{refresh.FileSource(ocid)}, nil }
	if _, err := s.RefreshOnce(ctx, false); err != nil || len(*current) != 308 || applies.Load() != 2 {
		t.Fatalf("a newly installed source was not picked up: %v, %d towers, %d applies", err, len(*current), applies.Load())
	}
}
