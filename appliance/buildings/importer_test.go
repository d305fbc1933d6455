package buildings_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/buildings"
)

func read(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func ungz(t testing.TB, b []byte) []byte {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := out.ReadFrom(r); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestImportRealCampuses reads the two real campuses in every format and
// checks the counts against the files' own figures (testdata/README.md).
func TestImportRealCampuses(t *testing.T) {
	ufla := read(t, "testdata/ufla/ufla.osm.gz")
	cases := []struct {
		name, file    string
		data          []byte
		format        string
		compressed    bool
		wantBuildings int
		wantLevels    int
	}{
		{name: "UFLA OSM XML gzip", file: "testdata/ufla/ufla.osm.gz", format: "osm-xml", compressed: true},
		{name: "UFLA OSM XML plain", data: ungz(t, ufla), format: "osm-xml"},
		{name: "UFLA OSM PBF", file: "testdata/ufla/ufla.osm.pbf", format: "osm-pbf"},
		{name: "UFLA GeoJSON", file: "testdata/ufla/ufla_buildings.geojson", format: "geojson", wantBuildings: 88, wantLevels: 23},
		{name: "UFLA GeoJSON gzip", data: gz(read(t, "testdata/ufla/ufla_buildings.geojson")), format: "geojson", compressed: true, wantBuildings: 88, wantLevels: 23},
		{name: "UFLA Shapefile zip", file: "testdata/ufla/ufla_buildings.shp.zip", format: "shapefile", wantBuildings: 88, wantLevels: 23},
		{name: "Dortmund OSM XML gzip", file: "testdata/dortmund/TUDO_2018.osm.gz", format: "osm-xml", compressed: true},
		{name: "Dortmund GeoJSON", file: "testdata/dortmund/tudo_buildings.geojson", format: "geojson", wantBuildings: 398, wantLevels: 24},
	}
	counts := map[string]int{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := c.data
			if c.file != "" {
				data = read(t, c.file)
			}
			im, err := buildings.Parse(context.Background(), data, buildings.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if im.Format != c.format || im.Compressed != c.compressed {
				t.Errorf("format %s compressed %v, want %s %v", im.Format, im.Compressed, c.format, c.compressed)
			}
			if c.wantBuildings > 0 && len(im.Buildings) != c.wantBuildings {
				t.Errorf("%d buildings, want %d (refused %d: %v)", len(im.Buildings), c.wantBuildings, im.Refused, im.Refusals)
			}
			if c.wantLevels > 0 && im.Levels != c.wantLevels {
				t.Errorf("%d heights from levels, want %d", im.Levels, c.wantLevels)
			}
			if im.Tagged != 0 {
				t.Errorf("%d tagged heights; the files have none", im.Tagged)
			}
			if im.Assumed != len(im.Buildings)-im.Levels || !slices.ContainsFunc(im.Warnings, func(w appliance.Warning) bool { return w.Code == "buildings_assumed_heights" }) {
				t.Errorf("assumed heights %d of %d, warnings %v", im.Assumed, len(im.Buildings), im.Warnings)
			}
			for _, b := range im.Buildings {
				if b.HeightSource == appliance.HeightLevels && (b.HeightM < 3 || int(b.HeightM*1000)%3000 != 0) {
					t.Errorf("%s: levels height %g is not a multiple of 3 m", b.ID, b.HeightM)
				}
				if b.HeightSource == appliance.HeightDefault && b.HeightM != buildings.DefaultHeightM {
					t.Errorf("%s: default height %g", b.ID, b.HeightM)
				}
			}
			counts[c.name] = len(im.Buildings)
			t.Logf("%s: %d buildings (%d from levels, %d assumed), %d refused %v", c.name, len(im.Buildings), im.Levels, im.Assumed, im.Refused, im.Refusals)
		})
	}
	if counts["UFLA OSM PBF"] != counts["UFLA OSM XML gzip"] || counts["UFLA OSM XML plain"] != counts["UFLA OSM XML gzip"] {
		t.Errorf("PBF %d, XML %d, plain XML %d buildings: the same data must give the same buildings",
			counts["UFLA OSM PBF"], counts["UFLA OSM XML gzip"], counts["UFLA OSM XML plain"])
	}
}

const good = `{"type":"Feature","id":"good","properties":{"height":"12 m"},"geometry":{"type":"Polygon","coordinates":[[[-43.2,-22.9],[-43.1999,-22.9],[-43.1999,-22.8999],[-43.2,-22.8999],[-43.2,-22.9]]]}}`

// TestImportRefusesBadFeaturesAlone: each kind of invalid feature is
// refused with a reason naming what is wrong, and the good feature of the
// same file is kept.
func TestImportRefusesBadFeaturesAlone(t *testing.T) {
	cases := []struct{ name, feature, reason string }{
		{"point", `{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[-43.2,-22.9]}}`, "is a Point"},
		{"line", `{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[-43.2,-22.9],[-43.1,-22.9]]}}`, "is a LineString"},
		{"no geometry", `{"type":"Feature","properties":{},"geometry":null}`, "has no geometry"},
		{"bow tie", `{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[-43.2,-22.9],[-43.1999,-22.8999],[-43.1999,-22.9],[-43.2,-22.8999],[-43.2,-22.9]]]}}`, "crosses itself"},
		{"two vertices", `{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[-43.2,-22.9],[-43.1999,-22.9],[-43.2,-22.9]]]}}`, "distinct vertices"},
		{"latitude out of range", `{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[-43.2,-95],[-43.1999,-22.9],[-43.1999,-22.8999],[-43.2,-95]]]}}`, "invalid position"},
		{"hole outside", `{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[-43.2,-22.9],[-43.1999,-22.9],[-43.1999,-22.8999],[-43.2,-22.8999],[-43.2,-22.9]],[[-43.3,-22.95],[-43.2999,-22.95],[-43.2999,-22.9499],[-43.3,-22.95]]]}}`, "hole 1 is not inside"},
		{"giant", `{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[-43.2,-22.9],[-43.1,-22.9],[-43.1,-22.8],[-43.2,-22.8],[-43.2,-22.9]]]}}`, "spans"},
		{"too tall", `{"type":"Feature","properties":{"height":"2500"},"geometry":{"type":"Polygon","coordinates":[[[-43.2,-22.9],[-43.1999,-22.9],[-43.1999,-22.8999],[-43.2,-22.8999],[-43.2,-22.9]]]}}`, "above the"},
		{"tiny", `{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[-43.2,-22.9],[-43.2000001,-22.9],[-43.2000001,-22.9000001],[-43.2,-22.9]]]}}`, "area"},
		{"malformed coordinates", `{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":"x"}}`, "malformed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fc := `{"type":"FeatureCollection","features":[` + c.feature + `,` + good + `]}`
			im, err := buildings.Parse(context.Background(), []byte(fc), buildings.Options{})
			if err != nil {
				t.Fatalf("the file was refused whole: %v", err)
			}
			if len(im.Buildings) != 1 || im.Buildings[0].ID != "good" || im.Buildings[0].HeightM != 12 {
				t.Fatalf("want the good feature kept (12 m), got %+v", im.Buildings)
			}
			if im.Refused != 1 || len(im.Refusals) != 1 || im.Refusals[0].Feature != "feature/0" || !strings.Contains(im.Refusals[0].Reason, c.reason) {
				t.Fatalf("want feature/0 refused with %q, got %+v", c.reason, im.Refusals)
			}
		})
	}
}

// TestHeightRules: height and building:height first (metres, feet),
// then building:levels × 3 m, then the default, flagged.
func TestHeightRules(t *testing.T) {
	cases := []struct {
		name, props string
		want        float64
		src         appliance.HeightSource
		min         float64
	}{
		{"height metres", `"height":"12"`, 12, appliance.HeightTagged, 0},
		{"height with unit", `"height":"12.5 m"`, 12.5, appliance.HeightTagged, 0},
		{"height in feet", `"height":"40'"`, 12.192, appliance.HeightTagged, 0},
		{"building:height", `"building:height":"20"`, 20, appliance.HeightTagged, 0},
		{"numeric height", `"height":7`, 7, appliance.HeightTagged, 0},
		{"levels", `"building:levels":"4"`, 12, appliance.HeightLevels, 0},
		{"levels list", `"building:levels":"2;3"`, 6, appliance.HeightLevels, 0},
		{"unreadable height falls to levels", `"height":"tall","building:levels":"2"`, 6, appliance.HeightLevels, 0},
		{"nothing", `"building":"yes"`, buildings.DefaultHeightM, appliance.HeightDefault, 0},
		{"min_height", `"height":"20","min_height":"5"`, 20, appliance.HeightTagged, 5},
		{"min_level", `"building:levels":"5","building:min_level":"2"`, 15, appliance.HeightLevels, 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := `{"type":"Feature","properties":{` + c.props + `},"geometry":{"type":"Polygon","coordinates":[[[-43.2,-22.9],[-43.1999,-22.9],[-43.1999,-22.8999],[-43.2,-22.8999],[-43.2,-22.9]]]}}`
			im, err := buildings.Parse(context.Background(), []byte(f), buildings.Options{})
			if err != nil {
				t.Fatal(err)
			}
			b := im.Buildings[0]
			if d := b.HeightM - c.want; d > 1e-9 || d < -1e-9 || b.HeightSource != c.src || b.MinHeightM != c.min {
				t.Fatalf("height %g (%s, min %g), want %g (%s, min %g)", b.HeightM, b.HeightSource, b.MinHeightM, c.want, c.src, c.min)
			}
		})
	}
}

// TestMultipolygonAndHoles: a multipolygon with a holed part keeps every
// part and hole.
func TestMultipolygonAndHoles(t *testing.T) {
	f := `{"type":"Feature","properties":{"building:levels":"2","building:material":"brick"},"geometry":{"type":"MultiPolygon","coordinates":[
	 [[[-43.2,-22.9],[-43.199,-22.9],[-43.199,-22.899],[-43.2,-22.899],[-43.2,-22.9]],[[-43.1996,-22.8996],[-43.1994,-22.8996],[-43.1994,-22.8994],[-43.1996,-22.8994],[-43.1996,-22.8996]]],
	 [[[-43.198,-22.9],[-43.1975,-22.9],[-43.1975,-22.8995],[-43.198,-22.9]]]]}}`
	im, err := buildings.Parse(context.Background(), []byte(f), buildings.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := im.Buildings[0]
	if len(b.Footprints) != 2 || len(b.Footprints[0].Holes) != 1 || len(b.Footprints[0].Outer) != 4 || b.Material != "brick" {
		t.Fatalf("got %+v", b)
	}
}

// TestImportRefusesWholeFile: what cannot be read as a whole is refused
// with ErrInvalid and a reason.
func TestImportRefusesWholeFile(t *testing.T) {
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "is not GeoJSON"},
		{"text", []byte("hello"), "is not GeoJSON"},
		{"bad json", []byte("{"), "not valid JSON"},
		{"geojson point", []byte(`{"type":"Point","coordinates":[1,2]}`), "type \"Point\""},
		{"no buildings", []byte(`{"type":"FeatureCollection","features":[]}`), "no usable building"},
		{"bad gzip", []byte{0x1f, 0x8b, 1, 2, 3}, "gzip"},
		{"zip without shp", zipOf(t, map[string][]byte{"a.txt": []byte("x")}), "no .shp"},
		{"projected shapefile", zipOf(t, map[string][]byte{"a.shp": make([]byte, 100), "a.prj": []byte(`PROJCS["SIRGAS 2000 / UTM zone 23S"]`)}), "not WGS84"},
		{"too big", bytes.Repeat([]byte(" "), 2000), "limit"},
		// the decoders' own errors, told without Go's prefixes and types
		{"features not an array", []byte(`{"type":"FeatureCollection","features":"x"}`), "member features must be a JSON array, not a string"},
		{"osm lat not a number", []byte(`<?xml version="1.0"?><osm version="0.6"><node id="1" lat="abc" lon="1"/></osm>`), `"abc" is not a number`},
		{"osm lat out of range", []byte(`<?xml version="1.0"?><osm version="0.6"><node id="1" lat="1e400" lon="1"/></osm>`), `the number "1e400" is out of range`},
		{"osm way id not a number", []byte(`<?xml version="1.0"?><osm version="0.6"><way id="abc"><nd ref="1"/></way></osm>`), `"abc" is not a number`},
		{"osm node ref overflows", []byte(`<?xml version="1.0"?><osm version="0.6"><way id="1"><nd ref="99999999999999999999"/></way></osm>`), `the number "99999999999999999999" is out of range`},
		{"zip garbage", []byte("PK\x03\x04garbage"), "is not a valid zip archive: not a valid zip file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := buildings.Parse(context.Background(), c.data, buildings.Options{MaxBytes: 1000})
			if err == nil || !errors.Is(err, appliance.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want ErrInvalid with %q, got %v", c.want, err)
			}
			for _, internal := range []string{"strconv.", "json:", "zip:", "xml:", "Go struct", "Go value", "RawMessage"} {
				if strings.Contains(err.Error(), internal) {
					t.Errorf("the refusal %q tells Go's %q", err, internal)
				}
			}
		})
	}
}

func cosT(x float64) float64 { return math.Cos(x) }
func sinT(x float64) float64 { return math.Sin(x) }
