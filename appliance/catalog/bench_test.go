package catalog_test

import (
	"bytes"
	"encoding/csv"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
)

// nationalERBs returns a synthetic 150 000-row national ERBs file without
// coordinates, so that every row goes through centroid placement.
func nationalERBs(b *testing.B) []byte {
	b.Helper()
	var buf bytes.Buffer
	if err := catalog.WriteERBs(&buf, catalog.SyntheticNational(150000, 1), true); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkImportERBsNational150k parses a 150 000-row ERBs file and places
// every station (goal: well under 30 s).
func BenchmarkImportERBsNational150k(b *testing.B) {
	file := nationalERBs(b)
	g := gazetteer(b)
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := catalog.ParseAnatelERBs(bytes.NewReader(file))
		if err != nil {
			b.Fatal(err)
		}
		res.MarkSynthetic("synthetic benchmark")
		if st := catalog.NewPlacer(g).Place(res); st.Centroid != 150000 {
			b.Fatalf("stats %+v", st)
		}
	}
}

// BenchmarkImportERBsNational150kNaive is the baseline: encoding/csv
// ReadAll, then a linear scan of the municipality list for every row.
func BenchmarkImportERBsNational150kNaive(b *testing.B) {
	file := nationalERBs(b)
	ms := gazetteer(b).All()
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	for b.Loop() {
		cr := csv.NewReader(bytes.NewReader(file))
		cr.Comma = ';'
		recs, err := cr.ReadAll()
		if err != nil {
			b.Fatal(err)
		}
		towers := make([]appliance.Tower, 0, len(recs))
		for _, r := range recs[1:] {
			for _, m := range ms {
				if m.IBGECode == strings.TrimSpace(r[8]) {
					tw := appliance.Tower{ID: "synthetic:" + r[0], Operator: catalog.NormalizeOperator(r[1])}
					catalog.PlaceAtCentroid(&tw, m)
					towers = append(towers, tw)
					break
				}
			}
		}
		if len(towers) != 150000 {
			b.Fatalf("%d towers", len(towers))
		}
	}
}

// TestImportERBsNational150kBudget times one full import, so that the
// 30 s goal is checked by plain `go test` (skipped with -short).
func TestImportERBsNational150kBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	var buf bytes.Buffer
	start := time.Now()
	if err := catalog.WriteERBs(&buf, catalog.SyntheticNational(150000, 1), true); err != nil {
		t.Fatal(err)
	}
	gen := time.Since(start)
	start = time.Now()
	res, err := catalog.ParseAnatelERBs(&buf)
	if err != nil {
		t.Fatal(err)
	}
	res.MarkSynthetic("synthetic budget test")
	stats := catalog.NewPlacer(gazetteer(t)).Place(res)
	took := time.Since(start)
	t.Logf("generate+write %v, parse+place %v for %d rows (%+v)", gen, took, res.Rows, stats)
	if res.Rows != 150000 || stats.Centroid != 150000 || took > 30*time.Second {
		t.Errorf("rows %d, stats %+v, took %v (budget 30 s)", res.Rows, stats, took)
	}
}

func BenchmarkSyntheticNational140k(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if n := len(catalog.SyntheticNational(140000, 42)); n != 140000 {
			b.Fatal(n)
		}
	}
}

func snapScene(nTowers, nCrowd int) (towers, crowd []appliance.Tower) {
	rng := rand.New(rand.NewPCG(1, 2))
	return randomScene(rng, nTowers, nCrowd, appliance.BBox{MinLat: -24, MinLon: -47, MaxLat: -22, MaxLon: -43})
}

// BenchmarkSnap snaps 5 000 towers onto 20 000 crowd towers with the grid.
func BenchmarkSnap(b *testing.B) {
	towers, crowd := snapScene(5000, 20000)
	work := make([]appliance.Tower, len(towers))
	b.ReportAllocs()
	for b.Loop() {
		copy(work, towers)
		catalog.Snap(work, crowd, 0)
	}
}

// BenchmarkSnapNaive is the O(n·m) baseline of BenchmarkSnap.
func BenchmarkSnapNaive(b *testing.B) {
	towers, crowd := snapScene(5000, 20000)
	b.ReportAllocs()
	for b.Loop() {
		for _, tw := range towers {
			naiveSnapTarget(tw, crowd, catalog.DefaultSnapRadiusM)
		}
	}
}

func BenchmarkParseSamples(b *testing.B) {
	for _, s := range samples {
		data := readSample(b, s.file)
		b.Run(s.f.String(), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := catalog.Parse(s.f, bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkLoadGazetteer(b *testing.B) {
	mun, err := os.ReadFile("data/municipios.csv")
	if err != nil {
		b.Fatal(err)
	}
	est, err := os.ReadFile("data/estados.csv")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		ms, err := catalog.ParseMunicipalities(bytes.NewReader(mun), bytes.NewReader(est))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := catalog.NewGazetteer(ms); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRegionAt(b *testing.B) {
	g, err := catalog.EmbeddedGazetteer()
	if err != nil {
		b.Fatal(err)
	}
	pts := []appliance.LatLon{{Lat: -22.97, Lon: -43.18}, {Lat: -3.12, Lon: -60.02}, {Lat: 51.51, Lon: 7.47}, {Lat: -25.5, Lon: -40}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = g.RegionAt(pts[i%len(pts)])
	}
}
