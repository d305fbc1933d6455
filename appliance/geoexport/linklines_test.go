package geoexport

import (
	"archive/zip"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"linkplan/appliance"
)

func sampleAnalysis() *appliance.LinkAnalysis {
	rx := appliance.LatLon{Lat: -22.95, Lon: -43.21}
	t1 := &appliance.Tower{ID: "anatel:1", Operator: "Vivo", Lat: -22.94, Lon: -43.20, HeightM: 30}
	t2 := &appliance.Tower{ID: "user:2", Operator: "", Lat: -22.96, Lon: -43.19, HeightM: 25, Synthetic: true}
	return &appliance.LinkAnalysis{
		Request:         appliance.LinkRequest{Receiver: rx, RxHeightM: 10},
		ReceiverGroundM: 12.5, Engine: appliance.EngineFSPL,
		Best: &appliance.LinkCandidate{Tower: t1, DistanceKm: 1.5, AzimuthDeg: 40, LinkMarginDB: 12, RxPowerDBm: -70,
			Prediction: appliance.LinkPrediction{Engine: appliance.EngineFSPL, LOSClear: true, FresnelOK: true}},
		Alternatives: []appliance.LinkCandidate{{Tower: t2, DistanceKm: 2.3, AzimuthDeg: 120, LinkMarginDB: -3, RxPowerDBm: -95,
			EIRPAssumed: true, Prediction: appliance.LinkPrediction{Engine: appliance.EngineFSPL}}},
	}
}

func TestLinkLines(t *testing.T) {
	s := LinkLineSchema()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	fs := LinkLines(sampleAnalysis())
	if len(fs) != 3 {
		t.Fatalf("%d features, want receiver + 2 lines", len(fs))
	}
	idx := func(name string) int {
		i := slices.IndexFunc(s.Fields, func(f Field) bool { return f.Name == name })
		if i < 0 {
			t.Fatalf("no field %q", name)
		}
		return i
	}
	for i, f := range fs {
		if err := s.check(i, f); err != nil {
			t.Errorf("feature %d: %v", i, err)
		}
	}
	if fs[0].Geometry.Kind != KindPoint || fs[0].Properties[idx("feature")].Str() != FeatureReceiver || fs[0].Properties[idx("status")].Str() != StatusOK {
		t.Errorf("receiver feature %+v", fs[0])
	}
	if !fs[0].Properties[idx("tower_id")].IsNull() || fs[0].Properties[idx("ground_m")].Float64() != 12.5 {
		t.Errorf("receiver attributes %+v", fs[0].Properties)
	}
	for i, want := range []struct {
		id     string
		rank   int64
		status string
	}{{"anatel:1", 1, StatusOK}, {"user:2", 2, StatusLowMargin}} {
		f := fs[i+1]
		if f.Geometry.Kind != KindLineString || len(f.Geometry.Coords) != 2 || f.Geometry.Coords[0] != fs[0].Geometry.Coords[0] {
			t.Errorf("line %d geometry %+v", i, f.Geometry)
		}
		if f.Properties[idx("tower_id")].Str() != want.id || f.Properties[idx("rank")].Int64() != want.rank || f.Properties[idx("status")].Str() != want.status {
			t.Errorf("line %d attributes %+v", i, f.Properties)
		}
	}
	a := sampleAnalysis()
	a.Best, a.Alternatives, a.ReceiverGroundM = nil, nil, math.NaN()
	fs = LinkLines(a)
	if len(fs) != 1 || fs[0].Properties[idx("status")].Str() != StatusNoTower || !fs[0].Properties[idx("ground_m")].IsNull() {
		t.Errorf("no tower: %+v", fs)
	}
}

func TestWriteShapefileMixedRefused(t *testing.T) {
	var b bytes.Buffer
	err := WriteShapefile(ShapefileSet{&b, &b, &b, &b, &b}, LinkLineSchema(), Slice(nil), ShapefileOptions{})
	if err == nil {
		t.Fatal("a mixed schema was written as one Shapefile")
	}
}

// TestLinkAnalysisEveryFormat writes one analysis in every format and
// reads each back with ogrinfo: 3 features (GeoJSON, KML, KMZ) or a
// receiver set of 1 point and a towers set of 2 lines (Shapefile zip).
func TestLinkAnalysisEveryFormat(t *testing.T) {
	dir := t.TempDir()
	for _, f := range Formats() {
		var b bytes.Buffer
		if err := WriteLinkAnalysis(&b, f, sampleAnalysis(), FixedDate()); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := os.WriteFile(filepath.Join(dir, "link"+f.Extension()), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if f == FormatShapefile {
			zr, err := zip.NewReader(bytes.NewReader(b.Bytes()), int64(b.Len()))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range zr.File {
				names = append(names, e.Name)
			}
			want := []string{"link_receiver.shp", "link_receiver.shx", "link_receiver.dbf", "link_receiver.prj", "link_receiver.cpg",
				"link_towers.shp", "link_towers.shx", "link_towers.dbf", "link_towers.prj", "link_towers.cpg"}
			if !slices.Equal(names, want) {
				t.Errorf("zip holds %v, want %v", names, want)
			}
		}
	}
	requireOgrinfo(t)
	zipPath := "/vsizip/" + filepath.Join(dir, "link.zip")
	for _, c := range []struct {
		path string
		want int
	}{
		{filepath.Join(dir, "link.geojson"), 3},
		{filepath.Join(dir, "link.kml"), 3},
		{filepath.Join(dir, "link.kmz"), 3},
		{zipPath + "/link_receiver.shp", 1},
		{zipPath + "/link_towers.shp", 2},
	} {
		l := runOgrinfo(t, c.path)
		if n := featureCount(t, l, c.want); n != c.want || len(l.features) != c.want {
			t.Errorf("%s: feature count %d with %d printed, want %d", c.path, n, len(l.features), c.want)
		}
	}
}
