package geoexport

import (
	"bytes"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"linkplan/appliance"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// exportCase is one schema and feature set written to every format.
type exportCase struct {
	name     string
	schema   Schema
	features []Feature
	kml      KMLOptions
}

func exportCases() []exportCase {
	return []exportCase{
		{name: "link-points", schema: LinkSchema(), features: sampleLinkFeatures(), kml: LinkKMLOptions()},
		{name: "route-lines", schema: routeSchema(), features: routeFeatures(), kml: KMLOptions{DocumentName: "Routes", NameField: "route_id"}},
		{name: "empty", schema: LinkSchema(), features: nil, kml: LinkKMLOptions()},
	}
}

// writeAll writes c to every format and returns the files by name.
func writeAll(tb testing.TB, c exportCase) map[string][]byte {
	tb.Helper()
	var gj, km, kz, shp, shx, dbf, prj, cpg bytes.Buffer
	src := Slice(c.features)
	if err := WriteGeoJSON(&gj, c.schema, src); err != nil {
		tb.Fatalf("WriteGeoJSON: %v", err)
	}
	if err := WriteKML(&km, c.schema, src, c.kml); err != nil {
		tb.Fatalf("WriteKML: %v", err)
	}
	if err := WriteKMZ(&kz, c.schema, src, c.kml); err != nil {
		tb.Fatalf("WriteKMZ: %v", err)
	}
	if err := WriteShapefile(ShapefileSet{&shp, &shx, &dbf, &prj, &cpg}, c.schema, src, ShapefileOptions{}); err != nil {
		tb.Fatalf("WriteShapefile: %v", err)
	}
	return map[string][]byte{
		"results.geojson": gj.Bytes(), "results.kml": km.Bytes(), "results.kmz": kz.Bytes(),
		"results.shp": shp.Bytes(), "results.shx": shx.Bytes(), "results.dbf": dbf.Bytes(),
		"results.prj": prj.Bytes(), "results.cpg": cpg.Bytes(),
	}
}

// golden compares got with testdata/<path>, or rewrites it under -update.
func golden(tb testing.TB, path string, got []byte) {
	tb.Helper()
	path = filepath.Join("testdata", path)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("read golden (run go test ./appliance/geoexport -update): %v", err)
	}
	if !bytes.Equal(got, want) {
		tb.Errorf("%s differs from the golden file (%d bytes, want %d); run with -update if the change is intended", path, len(got), len(want))
	}
}

func TestGolden(t *testing.T) {
	for _, c := range exportCases() {
		t.Run(c.name, func(t *testing.T) {
			files := writeAll(t, c)
			again := writeAll(t, c)
			for name, b := range files {
				if !bytes.Equal(b, again[name]) {
					t.Errorf("%s: two writes of the same input differ", name)
				}
				golden(t, filepath.Join(c.name, name), b)
			}
		})
	}
}

// TestShapefileIndependentReader reads every written set back with the
// independent parser of reader_test.go and compares field by field.
func TestShapefileIndependentReader(t *testing.T) {
	for _, c := range exportCases() {
		t.Run(c.name, func(t *testing.T) {
			files := writeAll(t, c)
			d, err := readShapefile(files["results.shp"], files["results.shx"], files["results.dbf"])
			if err != nil {
				t.Fatalf("readShapefile: %v", err)
			}
			wantType := int32(1)
			if c.schema.Geometry == KindLineString {
				wantType = 3
			}
			if d.shapeType != wantType {
				t.Errorf("shape type %d, want %d", d.shapeType, wantType)
			}
			if len(d.shapes) != len(c.features) {
				t.Fatalf("%d shapes, want %d", len(d.shapes), len(c.features))
			}
			names := ShortNames(c.schema)
			for i, f := range d.fields {
				if f.name != names[i] {
					t.Errorf("field %d name %q, want %q", i, f.name, names[i])
				}
				if want := dbfType(c.schema.Fields[i].Type); f.typ != want {
					t.Errorf("field %q type %q, want %q", f.name, f.typ, want)
				}
			}
			box := emptyBox()
			for i, feat := range c.features {
				for j, p := range feat.Geometry.Coords {
					box.add(p)
					got := d.shapes[i].points[j]
					if got[0] != p.Lon || got[1] != p.Lat { // full float64 precision, no rounding
						t.Errorf("feature %d point %d = %v, want (%v, %v)", i, j, got, p.Lon, p.Lat)
					}
				}
				for j, v := range feat.Properties {
					checkDBFCell(t, d.fields[j], d.records[i][j], v)
				}
			}
			box = box.orZero()
			if d.box != [4]float64{box.minX, box.minY, box.maxX, box.maxY} {
				t.Errorf("file box %v, want %v", d.box, box)
			}
			if string(files["results.prj"]) != PRJWGS84 || string(files["results.cpg"]) != "UTF-8" {
				t.Errorf(".prj %q .cpg %q", files["results.prj"], files["results.cpg"])
			}
		})
	}
}

// checkDBFCell compares one dBase cell with the value written; floats
// within half a unit of the last decimal.
func checkDBFCell(tb testing.TB, f dbfField, cell string, v Value) {
	tb.Helper()
	text := strings.TrimSpace(cell)
	if v.IsNull() {
		if (f.typ == 'L' && cell != "?") || (f.typ != 'L' && text != "") {
			tb.Errorf("field %q null written as %q", f.name, cell)
		}
		return
	}
	switch v.Type() {
	case TypeString:
		if want := truncUTF8(v.Str(), f.width); strings.TrimRight(cell, " ") != strings.TrimRight(want, " ") {
			tb.Errorf("field %q = %q, want %q", f.name, cell, want)
		}
	case TypeBool:
		if want := map[bool]string{true: "T", false: "F"}[v.Bool()]; cell != want {
			tb.Errorf("field %q = %q, want %q", f.name, cell, want)
		}
	case TypeInt:
		if got, err := strconv.ParseInt(text, 10, 64); err != nil || got != v.Int64() {
			tb.Errorf("field %q = %q, want %d", f.name, cell, v.Int64())
		}
	case TypeFloat:
		got, err := strconv.ParseFloat(text, 64)
		if tol := 0.5*math.Pow(10, -float64(f.decimals)) + 1e-12; err != nil || math.Abs(got-v.Float64()) > tol {
			tb.Errorf("field %q = %q, want %v ± %g", f.name, cell, v.Float64(), tol)
		}
		if dot := strings.IndexByte(text, '.'); dot < 0 || len(text)-dot-1 != f.decimals {
			tb.Errorf("field %q = %q, want %d decimals", f.name, cell, f.decimals)
		}
	}
}

func TestShortNames(t *testing.T) {
	for _, tc := range []struct {
		name  string
		long  []string
		short []string
	}{
		{"short names kept", []string{"lat", "lon", "status"}, []string{"lat", "lon", "status"}},
		{"cut to ten bytes", []string{"receiver_id", "rx_power_dbm"}, []string{"receiver_i", "rx_power_d"}},
		{"collisions numbered", []string{"hop_distance_km", "hop_distance_m", "hop_distance_mi"}, []string{"hop_distan", "hop_dist_2", "hop_dist_3"}},
		{"case-insensitive collision", []string{"Status", "status"}, []string{"Status", "status_2"}},
		{"suffix taken by a later-looking name", []string{"a_2", "a", "a"}, []string{"a_2", "a", "a_3"}},
		{"bad bytes and leading digit", []string{"2nd hop", "ação", ""}, []string{"f2nd_hop", "a__o", "f"}},
		{"ten collisions", []string{"abcdefghijk", "abcdefghijl", "abcdefghijm", "abcdefghijn", "abcdefghijo", "abcdefghijp", "abcdefghijq", "abcdefghijr", "abcdefghijs", "abcdefghijt", "abcdefghiju"},
			[]string{"abcdefghij", "abcdefgh_2", "abcdefgh_3", "abcdefgh_4", "abcdefgh_5", "abcdefgh_6", "abcdefgh_7", "abcdefgh_8", "abcdefgh_9", "abcdefg_10", "abcdefg_11"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Schema{Geometry: KindPoint}
			for _, n := range tc.long {
				s.Fields = append(s.Fields, Field{Name: n, Type: TypeInt})
			}
			got := ShortNames(s)
			if strings.Join(got, ",") != strings.Join(tc.short, ",") {
				t.Errorf("ShortNames(%q) = %q, want %q", tc.long, got, tc.short)
			}
		})
	}
}

func TestWriteErrors(t *testing.T) {
	pt := Point(appliance.LatLon{Lat: 1, Lon: 2})
	one := Schema{Geometry: KindPoint, Fields: []Field{{Name: "n", Type: TypeInt, Width: 3}}}
	for _, tc := range []struct {
		name   string
		schema Schema
		fs     []Feature
	}{
		{"no fields", Schema{Geometry: KindPoint}, nil},
		{"unknown geometry", Schema{Fields: one.Fields}, nil},
		{"duplicate field", Schema{Geometry: KindPoint, Fields: []Field{{Name: "a", Type: TypeInt}, {Name: "a", Type: TypeInt}}}, nil},
		{"string too wide", Schema{Geometry: KindPoint, Fields: []Field{{Name: "s", Type: TypeString, Width: 255}}}, nil},
		{"decimals exceed width", Schema{Geometry: KindPoint, Fields: []Field{{Name: "f", Type: TypeFloat, Width: 5, Decimals: 4}}}, nil},
		{"wrong geometry kind", one, []Feature{{Geometry: LineString(pt.Coords[0], pt.Coords[0]), Properties: []Value{Int(1)}}}},
		{"one-point line", Schema{Geometry: KindLineString, Fields: one.Fields}, []Feature{{Geometry: LineString(pt.Coords[0]), Properties: []Value{Int(1)}}}},
		{"latitude out of range", one, []Feature{{Geometry: Point(appliance.LatLon{Lat: 91}), Properties: []Value{Int(1)}}}},
		{"NaN position", one, []Feature{{Geometry: Point(appliance.LatLon{Lat: math.NaN()}), Properties: []Value{Int(1)}}}},
		{"missing property", one, []Feature{{Geometry: pt}}},
		{"wrong value type", one, []Feature{{Geometry: pt, Properties: []Value{String("1")}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a, b, c, d, e bytes.Buffer
			errs := map[string]error{
				"geojson":   WriteGeoJSON(&a, tc.schema, Slice(tc.fs)),
				"kml":       WriteKML(&a, tc.schema, Slice(tc.fs), KMLOptions{}),
				"shapefile": WriteShapefile(ShapefileSet{&a, &b, &c, &d, &e}, tc.schema, Slice(tc.fs), ShapefileOptions{}),
			}
			for format, err := range errs {
				if !errors.Is(err, appliance.ErrInvalid) {
					t.Errorf("%s: error %v, want ErrInvalid", format, err)
				}
			}
		})
	}
	t.Run("number wider than its dbf field", func(t *testing.T) {
		var a, b, c, d, e bytes.Buffer
		err := WriteShapefile(ShapefileSet{&a, &b, &c, &d, &e}, one, Slice([]Feature{{Geometry: pt, Properties: []Value{Int(-100)}}}), ShapefileOptions{})
		if !errors.Is(err, appliance.ErrInvalid) || !strings.Contains(err.Error(), "wider than 3") {
			t.Errorf("error %v, want ErrInvalid about width 3", err)
		}
	})
	t.Run("source that changes between passes", func(t *testing.T) {
		calls := 0
		src := func(yield func(Feature) bool) {
			calls++
			for i := 0; i < calls; i++ {
				if !yield(Feature{Geometry: pt, Properties: []Value{Int(1)}}) {
					return
				}
			}
		}
		var a, b, c, d, e bytes.Buffer
		if err := WriteShapefile(ShapefileSet{&a, &b, &c, &d, &e}, one, src, ShapefileOptions{}); !errors.Is(err, appliance.ErrInvalid) {
			t.Errorf("error %v, want ErrInvalid", err)
		}
	})
	t.Run("kml style field not a string", func(t *testing.T) {
		var a bytes.Buffer
		if err := WriteKML(&a, one, Slice(nil), KMLOptions{StyleField: "n"}); !errors.Is(err, appliance.ErrInvalid) {
			t.Errorf("error %v, want ErrInvalid", err)
		}
	})
}

func TestTruncUTF8(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		n        int
		want     string
	}{
		{"fits", "abc", 3, "abc"},
		{"ascii cut", "abcdef", 4, "abcd"},
		{"never splits a rune", "aç", 2, "a"},
		{"rune kept whole", "aç", 3, "aç"},
		{"invalid replaced", "a\xffb", 10, "a\uFFFDb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := truncUTF8(tc.in, tc.n); got != tc.want {
				t.Errorf("truncUTF8(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
			}
		})
	}
}

// TestTruncList: a list of codes is cut at an item boundary, saying how
// many items it left out, never mid-item.
func TestTruncList(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		n        int
		want     string
	}{
		{"fits", "a;b;c", 5, "a;b;c"},
		{"one left out", "aaaaaaaaaa;bbbbbbbbbb;cccccccccc", 31, "aaaaaaaaaa;bbbbbbbbbb;+1 more"},
		{"two left out", "aaaaaaaaaa;bbbbbbbbbb;cccccccccc", 28, "aaaaaaaaaa;+2 more"},
		{"none kept", "aaaaaaaaaa;bbbbbbbbbb;cccccccccc", 10, "+3 more"},
		{"last items dropped, not cut", "eirp_assumed;raytrace_no_path;raytrace_pattern_along_bearing", 40, "eirp_assumed;raytrace_no_path;+1 more"},
		{"too narrow for the marker", "aaaa;bbbb", 3, "aaa"},
		{"invalid replaced", "a\xffb;c", 20, "a\uFFFDb;c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := truncList(tc.in, ";", tc.n); got != tc.want || len(got) > tc.n {
				t.Errorf("truncList(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
			}
		})
	}
}

// TestJSONFloatSpelling: a float property always reads back as a float in
// a schema-less reader (GDAL types a GeoJSON column from the spelling).
func TestJSONFloatSpelling(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{{12500, "12500.0"}, {-1, "-1.0"}, {0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {12.5, "12.5"},
		{1e21, "1e+21"}, {1e-7, "1e-07"}, {-3.25e-9, "-3.25e-09"}} {
		if got := string(appendJSONFloat(nil, c.f)); got != c.want {
			t.Errorf("appendJSONFloat(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}
