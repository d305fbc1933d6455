package batch_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/batch"
	"linkplan/appliance/catalog"
	"linkplan/appliance/planner"
	"linkplan/appliance/refresh"
	"linkplan/appliance/sampledata"
	"linkplan/engines"
	"linkplan/store/spatial"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

// realPlanner is the planner of the composition root on the embedded
// sample data (as web/api's harness builds it): the Rio de Janeiro SRTM3
// pack, the embedded Anatel and OpenCelliD samples imported through the
// refresh service (placed, snapped, kept when on loaded terrain), the
// R-tree index and the engine registry with the fspl fallback.
func realPlanner(tb testing.TB) *planner.Planner {
	tb.Helper()
	pack, err := terrain.OpenBytes(sample.Pack())
	if err != nil {
		tb.Fatal(err)
	}
	ter := terrain.NewLayered(pack)
	gaz, err := catalog.EmbeddedGazetteer()
	if err != nil {
		tb.Fatal(err)
	}
	onTerrain := func(t *appliance.Tower) bool { _, err := ter.ElevationM(t.Pos()); return err == nil }
	ix := spatial.New(nil)
	rs := refresh.New(gaz, nil)
	rs.Apply = func(ts []*appliance.Tower) error { ix.Replace(ts); return nil }
	rs.Sources = []refresh.Source{
		{Name: "embedded:anatel_erbs_sample.csv", Read: refresh.ReadAllFrom(sampledata.AnatelERBs()), Keep: onTerrain},
		{Name: "embedded:opencellid_724_sample.csv", Read: refresh.ReadAllFrom(sampledata.OpenCelliD()), Keep: onTerrain},
	}
	if _, err := rs.RefreshOnce(context.Background(), true); err != nil {
		tb.Fatal(err)
	}
	reg, err := engines.New(engines.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	return planner.New(ter, func() appliance.TowerIndex { return ix }, reg.WithFallback)
}

// rioCSV is a pt-BR Excel-style batch: ';' separator, decimal commas.
func rioCSV(n int) string {
	var b strings.Builder
	b.WriteString("Nome;Latitude;Longitude;Altura (m);Frequência (MHz);Raio_km\r\n")
	for i := range n {
		lat := -22.97 + 0.003*float64(i%20)
		lon := -43.25 + 0.004*float64(i/20%10)
		b.WriteString("Cliente " + strings.Repeat("x", i%3) + ";")
		b.WriteString(strings.ReplaceAll(ftoa(lat), ".", ",") + ";" + strings.ReplaceAll(ftoa(lon), ".", ",") + ";10;1800;20\r\n")
	}
	// A receiver off the loaded terrain (no sea-level fallback) and a bad
	// value.
	b.WriteString("Fora;-25,5;-49,3;10;1800;20\r\n")
	b.WriteString("Ruim;-22,9;abc;10;1800;20\r\n")
	return b.String()
}

func ftoa(x float64) string { return strings.TrimRight(strings.TrimRight(strconvF(x), "0"), ".") }

func TestSyncBatchRealPlanner(t *testing.T) {
	p := realPlanner(t)
	rows, err := batch.ParseCSV(strings.NewReader(rioCSV(40)), batch.SyncMaxRows)
	if err != nil {
		t.Fatal(err)
	}
	s := batch.New(batch.Deps{Analyzer: p, Workers: 4})
	res, job, err := s.Submit(context.Background(), proKey(), rows, batch.DefaultOptions())
	if err != nil || job != nil {
		t.Fatal(err)
	}
	if res.Counts.Total != 42 || res.Counts.OK+res.Counts.LowMargin == 0 {
		t.Fatalf("counts %+v", res.Counts)
	}
	if r := res.Rows[40]; r.Status != batch.StatusError || !strings.Contains(r.Reason, "terrain tile") {
		t.Fatalf("off-terrain row %+v", r)
	}
	if r := res.Rows[41]; r.Status != batch.StatusError || len(r.Errors) != 1 || r.Errors[0].Field != "lon" {
		t.Fatalf("bad row %+v", r)
	}
	// Each row equals /analyze_link's answer for the same request.
	for i, r := range res.Rows[:40] {
		req := appliance.LinkRequest{Receiver: appliance.LatLon{Lat: *rows[i].Lat, Lon: *rows[i].Lon}, RxHeightM: 10, FreqMHz: 1800, MaxDistanceKm: 20, TenantID: "tn1"}
		planner.Defaults(&req, map[string]bool{"receiver.height_m": true, "max_distance_km": true})
		a, err := p.AnalyzeLink(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if a.Best == nil {
			if r.Status != batch.StatusNoTower {
				t.Fatalf("row %d: %+v, want no tower", i, r)
			}
			continue
		}
		if r.TowerID != a.Best.Tower.ID || *r.MarginDB != roundTo3(a.Best.LinkMarginDB) {
			t.Fatalf("row %d: %s %v, /analyze_link %s %v", i, r.TowerID, *r.MarginDB, a.Best.Tower.ID, a.Best.LinkMarginDB)
		}
	}
}

func TestJobRealPlannerWithPDFs(t *testing.T) {
	p := realPlanner(t)
	rows, err := batch.ParseCSV(strings.NewReader(rioCSV(150)), 2000)
	if err != nil {
		t.Fatal(err)
	}
	var bundles [2][]byte
	for i, workers := range []int{1, 6} {
		q := &fakeQueue{}
		s := batch.New(batch.Deps{Analyzer: p, Queue: q, Quota: &fakeQuota{}, Workers: workers, Terrain: "embedded sample pack",
			NewID: func() (string, error) { return "job-real", nil }, Clock: func() time.Time { return time.Unix(1_790_000_000, 0) }})
		opt := batch.DefaultOptions()
		opt.Language = "pt-BR"
		_, job, err := s.Submit(context.Background(), proKey(), rows, opt)
		if err != nil {
			t.Fatal(err)
		}
		run := newFakeRun(job)
		if _, err := s.Handler().Run(context.Background(), run); err != nil {
			t.Fatal(err)
		}
		bundles[i] = run.result.Bytes()
	}
	if string(bundles[0]) != string(bundles[1]) {
		a, b := unzip(t, bundles[0]), unzip(t, bundles[1])
		for name := range a {
			if string(a[name]) != string(b[name]) {
				t.Errorf("%s differs", name)
			}
		}
		t.Fatal("bundle depends on the worker count")
	}
	files := unzip(t, bundles[0])
	n := 0
	for name := range files {
		if strings.HasPrefix(name, batch.DirReports) {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no PDF report")
	}
	t.Logf("%d files, %d PDF reports, %d bytes", len(files), n, len(bundles[0]))
}

func BenchmarkSyncBatch100(b *testing.B) {
	p := realPlanner(b)
	rows, err := batch.ParseCSV(strings.NewReader(rioCSV(98)), batch.SyncMaxRows)
	if err != nil {
		b.Fatal(err)
	}
	s := batch.New(batch.Deps{Analyzer: p})
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := s.Submit(context.Background(), proKey(), rows, batch.DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBundle(b *testing.B) {
	k := proKey()
	k.Tier = appliance.TierEnterprise
	q := &fakeQueue{}
	s := batch.New(batch.Deps{Analyzer: &fakeAnalyzer{}, Queue: q})
	_, job, err := s.Submit(context.Background(), k, rowsN(10000), batch.Options{})
	if err != nil {
		b.Fatal(err)
	}
	run := newFakeRun(job)
	if _, err := s.Handler().Run(context.Background(), run); err != nil {
		b.Fatal(err)
	}
	results, err := decodeItems(run)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var size int
	for b.Loop() {
		var w countWriter
		if err := s.WriteBundle(context.Background(), &w, job, results); err != nil {
			b.Fatal(err)
		}
		size = int(w)
	}
	b.ReportMetric(float64(size), "bundle_bytes")
}
