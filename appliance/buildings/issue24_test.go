package buildings_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/buildings"
)

// Rings of the geometry tests, GeoJSON coordinates (longitude, latitude):
// a 100 m square building, two 20 m courtyards that overlap, and a part
// beside it.
const (
	sqOuter  = `[[-43.2,-22.9],[-43.199,-22.9],[-43.199,-22.899],[-43.2,-22.899],[-43.2,-22.9]]`
	sqHole   = `[[-43.1996,-22.8996],[-43.1994,-22.8996],[-43.1994,-22.8994],[-43.1996,-22.8994],[-43.1996,-22.8996]]`
	sqHole2  = `[[-43.1995,-22.8995],[-43.1993,-22.8995],[-43.1993,-22.8993],[-43.1995,-22.8993],[-43.1995,-22.8995]]`
	sqSmall  = `[[-43.19955,-22.89955],[-43.19945,-22.89955],[-43.19945,-22.89945],[-43.19955,-22.89945],[-43.19955,-22.89955]]`
	sqBeside = `[[-43.198,-22.9],[-43.1975,-22.9],[-43.1975,-22.8995],[-43.198,-22.9]]`
	sqFar    = `[[-43.1,-22.9],[-43.0995,-22.9],[-43.0995,-22.8995],[-43.1,-22.9]]`
)

// TestIssue24_OverlappingHolesAndParts: holes are checked against each
// other and the parts of a multipolygon against each other; a bad
// feature is refused alone with a reason, and the valid shapes next to
// them (a holed polygon, a part in another's courtyard) stay accepted.
func TestIssue24_OverlappingHolesAndParts(t *testing.T) {
	cases := []struct{ name, geometry, reason string }{
		{"identical holes", `{"type":"Polygon","coordinates":[` + sqOuter + `,` + sqHole + `,` + sqHole + `]}`, "holes 1 and 2 overlap"},
		{"overlapping holes", `{"type":"Polygon","coordinates":[` + sqOuter + `,` + sqHole + `,` + sqHole2 + `]}`, "holes 1 and 2 overlap"},
		{"hole inside a hole", `{"type":"Polygon","coordinates":[` + sqOuter + `,` + sqSmall + `,` + sqHole + `]}`, "hole 1 lies inside hole 2"},
		{"duplicated parts", `{"type":"MultiPolygon","coordinates":[[` + sqOuter + `],[` + sqOuter + `]]}`, "parts 1 and 2 overlap"},
		{"overlapping parts", `{"type":"MultiPolygon","coordinates":[[` + sqOuter + `],[` + sqHole + `],[` + sqBeside + `]]}`, "part 2 lies inside part 1"},
		{"part across a courtyard", `{"type":"MultiPolygon","coordinates":[[` + sqOuter + `,` + sqHole + `],[` + sqHole2 + `]]}`, "parts 1 and 2 overlap"},
		{"one hole", `{"type":"Polygon","coordinates":[` + sqOuter + `,` + sqHole + `]}`, ""},
		{"two separate holes", `{"type":"Polygon","coordinates":[` + sqOuter + `,` + sqSmall + `,` + `[[-43.1999,-22.8999],[-43.1998,-22.8999],[-43.1998,-22.8998],[-43.1999,-22.8999]]` + `]}`, ""},
		{"part in a courtyard", `{"type":"MultiPolygon","coordinates":[[` + sqOuter + `,` + sqHole + `],[` + sqSmall + `],[` + sqBeside + `]]}`, ""},
		{"parts far apart", `{"type":"MultiPolygon","coordinates":[[` + sqOuter + `],[` + sqFar + `]]}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fc := `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":` + c.geometry + `},` + good + `]}`
			im, err := buildings.Parse(context.Background(), []byte(fc), buildings.Options{})
			if err != nil {
				t.Fatalf("the file was refused whole: %v", err)
			}
			if c.reason == "" {
				if len(im.Buildings) != 2 || im.Refused != 0 {
					t.Fatalf("want both features kept, got %d buildings, refusals %v", len(im.Buildings), im.Refusals)
				}
				return
			}
			if len(im.Buildings) != 1 || im.Buildings[0].ID != "good" {
				t.Fatalf("want only the good feature kept, got %d buildings", len(im.Buildings))
			}
			if im.Refused != 1 || im.Refusals[0].Feature != "feature/0" || !strings.Contains(im.Refusals[0].Reason, c.reason) {
				t.Fatalf("want feature/0 refused with %q, got %+v", c.reason, im.Refusals)
			}
			t.Logf("refused: %s", im.Refusals[0].Reason)
		})
	}
}

// circle is a GeoJSON ring of n vertices, radius r degrees.
func circle(lon, lat, r float64, n int) string {
	var sb strings.Builder
	sb.WriteString("[")
	for i := 0; i <= n; i++ {
		a := 2 * math.Pi * float64(i%n) / float64(n)
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, "[%.8f,%.8f]", lon+r*math.Cos(a), lat+r*math.Sin(a))
	}
	sb.WriteString("]")
	return sb.String()
}

// BenchmarkIssue24_ValidateBigPolygon: the largest features the caps
// admit (MaxFeatureVertices = 20 000): an outer ring and 4 holes of 3999
// vertices, an outer ring of 3999 with 63 holes of 250, and 5 parts of
// 3999: the edge sweep keeps the pairwise checks near linear.
func BenchmarkIssue24_ValidateBigPolygon(b *testing.B) {
	big := []string{circle(-43.2, -22.9, 0.009, 3999)}
	for i := 0; i < 4; i++ {
		a := float64(i) * 2 * math.Pi / 4
		big = append(big, circle(-43.2+0.005*math.Cos(a), -22.9+0.005*math.Sin(a), 0.002, 3999))
	}
	many := []string{circle(-43.2, -22.9, 0.009, 3999)}
	for i := 0; i < 63; i++ {
		a := float64(i) * 2 * math.Pi / 63
		many = append(many, circle(-43.2+0.006*math.Cos(a), -22.9+0.006*math.Sin(a), 0.0002, 250))
	}
	var parts []string
	for i := 0; i < 5; i++ {
		parts = append(parts, "["+circle(-43.2+0.001*float64(i), -22.9, 0.0004, 3999)+"]")
	}
	for _, c := range []struct{ name, js string }{
		{"big holes", `{"type":"Polygon","coordinates":[` + strings.Join(big, ",") + `]}`},
		{"many holes", `{"type":"Polygon","coordinates":[` + strings.Join(many, ",") + `]}`},
		{"parts", `{"type":"MultiPolygon","coordinates":[` + strings.Join(parts, ",") + `]}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				st := time.Now()
				im, err := buildings.Parse(context.Background(), []byte(c.js), buildings.Options{})
				if err != nil || len(im.Buildings) != 1 {
					b.Fatalf("want the feature kept: %v %+v", err, im)
				}
				if i == 0 {
					b.Logf("%s: %d bytes validated in %v", c.name, len(c.js), time.Since(st))
				}
			}
		})
	}
}

// osmNodes: a 100 m square (1-4), a 30 m square inside it (5-8) and a
// square far away (11-14).
const osmNodes = `<node id="1" lat="-22.9" lon="-43.2"/><node id="2" lat="-22.9" lon="-43.199"/><node id="3" lat="-22.899" lon="-43.199"/><node id="4" lat="-22.899" lon="-43.2"/>` +
	`<node id="5" lat="-22.8998" lon="-43.1998"/><node id="6" lat="-22.8998" lon="-43.1995"/><node id="7" lat="-22.8995" lon="-43.1995"/><node id="8" lat="-22.8995" lon="-43.1998"/>` +
	`<node id="11" lat="-22.9" lon="-43.19"/><node id="12" lat="-22.9" lon="-43.1895"/><node id="13" lat="-22.8995" lon="-43.1895"/><node id="14" lat="-22.8995" lon="-43.19"/>` +
	`<way id="50"><nd ref="11"/><nd ref="12"/><nd ref="13"/><nd ref="14"/><nd ref="11"/><tag k="building" v="yes"/></way>`

// TestIssue24_OSMRelationsAndParts: a building multipolygon whose outer
// ring lost a way to the extract's edge is refused with a reason (it
// vanished with nothing refused); an outline is replaced by the
// building:part shapes inside it or named by its type=building relation
// (Simple 3D Buildings), with a warning counting them; indoor parts are
// refused; the building far away is always kept.
func TestIssue24_OSMRelationsAndParts(t *testing.T) {
	square := `<nd ref="1"/><nd ref="2"/><nd ref="3"/><nd ref="4"/><nd ref="1"/>`
	inner := `<nd ref="5"/><nd ref="6"/><nd ref="7"/><nd ref="8"/><nd ref="5"/>`
	cases := []struct {
		name, body string
		kept       []string // ids, with height/min height
		refused    string
		warning    string
	}{
		{"outer ring in two ways, one missing",
			`<way id="10"><nd ref="1"/><nd ref="2"/><nd ref="3"/></way><relation id="100"><member type="way" ref="10" role="outer"/><member type="way" ref="11" role="outer"/><tag k="type" v="multipolygon"/><tag k="building" v="yes"/></relation>`,
			[]string{"way/50 9/0"}, "relation/100 is a multipolygon with members missing from the file (1 of its 2", ""},
		{"outer ring in two ways, both present",
			`<way id="10"><nd ref="1"/><nd ref="2"/><nd ref="3"/></way><way id="11"><nd ref="3"/><nd ref="4"/><nd ref="1"/></way><relation id="100"><member type="way" ref="10" role="outer"/><member type="way" ref="11" role="outer"/><tag k="type" v="multipolygon"/><tag k="building" v="yes"/><tag k="height" v="20"/></relation>`,
			[]string{"relation/100 20/0", "way/50 9/0"}, "", ""},
		{"outer ways that do not close",
			`<way id="10"><nd ref="1"/><nd ref="2"/><nd ref="3"/></way><way id="11"><nd ref="4"/><nd ref="1"/></way><relation id="100"><member type="way" ref="10" role="outer"/><member type="way" ref="11" role="outer"/><tag k="type" v="multipolygon"/><tag k="building" v="yes"/></relation>`,
			[]string{"way/50 9/0"}, "relation/100 is a multipolygon whose outer ways do not join", ""},
		{"type=building relation: outline and a lifted part",
			`<way id="10">` + square + `<tag k="building" v="yes"/></way><way id="11">` + square + `<tag k="building:part" v="yes"/><tag k="min_height" v="20"/><tag k="height" v="60"/></way><relation id="100"><member type="way" ref="10" role="outline"/><member type="way" ref="11" role="part"/><tag k="type" v="building"/></relation>`,
			[]string{"way/11 60/20", "way/50 9/0"}, "", "1 building outline was replaced by the 1 building:part shape"},
		{"parts inside an outline, no relation",
			`<way id="10">` + square + `<tag k="building" v="yes"/></way><way id="11">` + inner + `<tag k="building:part" v="yes"/><tag k="height" v="40"/></way><way id="12">` + square + `<tag k="building:part" v="yes"/><tag k="building:levels" v="2"/></way>`,
			[]string{"way/11 40/0", "way/12 6/0", "way/50 9/0"}, "", "1 building outline was replaced by the 2 building:part shapes"},
		{"indoor part inside an outline",
			`<way id="10">` + square + `<tag k="building" v="yes"/></way><way id="11">` + inner + `<tag k="building:part" v="elevator"/><tag k="indoor" v="yes"/></way>`,
			[]string{"way/10 9/0", "way/50 9/0"}, "way/11 is indoor mapping (building:part=elevator with indoor=yes)", ""},
		{"building relation and its outer way both tagged building",
			`<way id="10">` + square + `<tag k="building" v="yes"/><tag k="height" v="15"/></way><relation id="100"><member type="way" ref="10" role="outer"/><tag k="type" v="multipolygon"/><tag k="building" v="yes"/><tag k="height" v="20"/></relation>`,
			[]string{"relation/100 20/0", "way/50 9/0"}, "", "1 way tagged building was the outer ring of a building multipolygon and merged into it"},
		{"relation without height takes its outer way's",
			`<way id="10">` + square + `<tag k="building" v="yes"/><tag k="building:levels" v="5"/></way><relation id="100"><member type="way" ref="10" role="outer"/><tag k="type" v="multipolygon"/><tag k="building" v="yes"/></relation>`,
			[]string{"relation/100 15/0", "way/50 9/0"}, "", "1 way tagged building was the outer ring"},
		{"part outside every outline",
			`<way id="11">` + inner + `<tag k="building:part" v="yes"/><tag k="height" v="40"/></way>`,
			[]string{"way/11 40/0", "way/50 9/0"}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			im, err := buildings.Parse(context.Background(), []byte(`<osm>`+osmNodes+c.body+`</osm>`), buildings.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range im.Buildings {
				got = append(got, fmt.Sprintf("%s %g/%g", b.ID, b.HeightM, b.MinHeightM))
			}
			if strings.Join(got, ",") != strings.Join(c.kept, ",") {
				t.Errorf("kept %v, want %v", got, c.kept)
			}
			var refused []string
			for _, r := range im.Refusals {
				refused = append(refused, r.Feature+" "+r.Reason)
			}
			if (c.refused == "") != (im.Refused == 0) || (c.refused != "" && (im.Refused != 1 || !strings.HasPrefix(refused[0], c.refused))) {
				t.Errorf("refused %d %v, want %q", im.Refused, refused, c.refused)
			}
			var warned string
			for _, w := range im.Warnings {
				if w.Code == "buildings_outlines_replaced_by_parts" || w.Code == "buildings_outer_ways_merged" {
					warned = w.Message
				}
			}
			if (c.warning == "") != (warned == "") || !strings.Contains(warned, c.warning) {
				t.Errorf("outline or outer-way warning %q, want %q", warned, c.warning)
			}
		})
	}
}

// TestIssue24_DortmundParts: the TU Dortmund export's two building:part
// tags are indoor elevator shafts (indoor=yes); they were kept as two
// 9 m buildings of their own inside their building. They are refused as
// indoor mapping, their building stays, and no outline is replaced.
func TestIssue24_DortmundParts(t *testing.T) {
	im, err := buildings.Parse(context.Background(), read(t, "testdata/dortmund/TUDO_2018.osm.gz"), buildings.Options{})
	if err != nil {
		t.Fatal(err)
	}
	indoor := 0
	for _, r := range im.Refusals {
		if strings.Contains(r.Reason, "indoor mapping") {
			indoor++
		}
	}
	t.Logf("Dortmund OSM XML: %d buildings (%d from levels, %d assumed), %d refused (%d indoor parts), warnings %v", len(im.Buildings), im.Levels, im.Assumed, im.Refused, indoor, im.Warnings)
	if len(im.Buildings) != 399 || indoor != 2 {
		t.Fatalf("want 399 buildings (the DELTA building tagged on its relation and its outer way merged) and the 2 indoor parts refused, got %d and %d: %v", len(im.Buildings), indoor, im.Refusals)
	}
	for _, w := range im.Warnings {
		if w.Code == "buildings_outlines_replaced_by_parts" {
			t.Fatalf("no outline has parts of its outer shape: %v", w)
		}
	}
}

// TestIssue24_ShapefileCRSAndEncodings: Shapefiles written by ogr2ogr
// (testdata/README.md). SIRGAS 2000 longitude/latitude is read as WGS84
// with a warning (it was refused); a projected SIRGAS 2000 / UTM file is
// still refused; attribute text is decoded by the .cpg or the language
// driver byte (a Latin-1 file gave "escrit\xf3rio", invalid UTF-8).
func TestIssue24_ShapefileCRSAndEncodings(t *testing.T) {
	const office = "escritório"
	cases := []struct{ file, refused, warning string }{
		{file: "sirgas.zip", warning: "buildings_sirgas2000_as_wgs84"},
		{file: "utm.zip", refused: "not WGS84 longitude/latitude (.prj: PROJCS[\"SIRGAS_2000_UTM_Zone_23S\""},
		{file: "latin1.zip"},
		{file: "ldid87.zip"},
		{file: "cp1252.zip"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			im, err := buildings.Parse(context.Background(), read(t, "testdata/shapefile/"+c.file), buildings.Options{})
			if c.refused != "" {
				if err == nil || !strings.Contains(err.Error(), c.refused) {
					t.Fatalf("want the file refused with %q, got %v", c.refused, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var codes []string
			for _, w := range im.Warnings {
				if w.Code != "buildings_assumed_heights" {
					codes = append(codes, w.Code)
					t.Logf("%s: %s", w.Code, w.Message)
				}
			}
			if strings.Join(codes, ",") != c.warning {
				t.Errorf("warnings %v, want %q", codes, c.warning)
			}
			if len(im.Buildings) != 2 || im.Buildings[0].Class != office || im.Buildings[0].HeightM != 9 || im.Levels != 2 {
				t.Fatalf("want 2 buildings, the first of class %q, 9 m from 3 levels: got %d, %+v", office, len(im.Buildings), im.Buildings)
			}
			if lat := im.Buildings[0].Footprints[0].Outer[0].Lat; lat < -21.23 || lat > -21.228 {
				t.Errorf("latitude %g: the coordinates were not read as longitude/latitude", lat)
			}
		})
	}
}

// TestIssue24_HeightRules: metre spellings are read; unreadable or
// implausible height tags (below the 2 m minimum, negative) are ignored
// with a warning counting them, and the next rule applies (they were
// ignored silently, or kept: 0.1 m and 3e-9 m buildings); roof:levels and
// roof:height add to a height from building:levels; min_height at or
// above the height refuses the feature (it was reset to 0 silently).
func TestIssue24_HeightRules(t *testing.T) {
	const def = buildings.DefaultHeightM
	cases := []struct {
		name, props string
		want, min   float64
		src         appliance.HeightSource
		unusable    int    // tags counted in buildings_unusable_height_tags
		refused     string // "" when kept
	}{
		{"metres spelt out", `"height":"12.5 metres"`, 12.5, 0, appliance.HeightTagged, 0, ""},
		{"capital M", `"height":"12 M"`, 12, 0, appliance.HeightTagged, 0, ""},
		{"meters before levels", `"height":"12.5 meters","building:levels":"4"`, 12.5, 0, appliance.HeightTagged, 0, ""},
		{"feet spelt out", `"height":"40 feet"`, 12.192, 0, appliance.HeightTagged, 0, ""},
		{"unreadable height, levels", `"height":"tall","building:levels":"2"`, 6, 0, appliance.HeightLevels, 1, ""},
		{"unreadable height and levels", `"height":"12 stories","building:levels":"many"`, def, 0, appliance.HeightDefault, 2, ""},
		{"height below the minimum", `"height":"0.1"`, def, 0, appliance.HeightDefault, 1, ""},
		{"negative height", `"height":"-3"`, def, 0, appliance.HeightDefault, 1, ""},
		{"tiny storey count", `"building:levels":"1e-9"`, def, 0, appliance.HeightDefault, 1, ""},
		{"roof on pillars, no levels", `"building":"roof","building:levels":"0"`, def, 0, appliance.HeightDefault, 1, ""},
		{"roof on pillars with a roof storey", `"building":"roof","building:levels":"0","roof:levels":"1"`, 3, 0, appliance.HeightLevels, 0, ""},
		{"levels and roof levels", `"building:levels":"2","roof:levels":"1"`, 9, 0, appliance.HeightLevels, 0, ""},
		{"levels and roof height", `"building:levels":"2","roof:height":"1.5 m"`, 7.5, 0, appliance.HeightLevels, 0, ""},
		{"tagged height includes the roof", `"height":"10","roof:levels":"1"`, 10, 0, appliance.HeightTagged, 0, ""},
		{"min_height above height", `"height":"10","min_height":"20"`, 0, 0, "", 0, "has min_height \"20\" at or above its height of 10 m"},
		{"min_height equals height", `"height":"10","min_height":"10"`, 0, 0, "", 0, "at or above its height"},
		{"min_level above the assumed height", `"building:min_level":"4"`, 0, 0, "", 0, "building:min_level \"4\" (12 m) at or above its height of 9 m (default)"},
		{"min_height below height", `"height":"30","min_height":"10"`, 30, 10, appliance.HeightTagged, 0, ""},
		{"unreadable min_height", `"height":"20","min_height":"low"`, 20, 0, appliance.HeightTagged, 1, ""},
		{"feet and inches", `"height":"40'6\""`, 12.3444, 0, appliance.HeightTagged, 0, ""},
		{"NaN feet", `"height":"NaN'"`, def, 0, appliance.HeightDefault, 1, ""},
		{"NaN inches", `"height":"30'NaN\""`, def, 0, appliance.HeightDefault, 1, ""},
		{"infinite feet", `"height":"Inf'"`, def, 0, appliance.HeightDefault, 1, ""},
		{"NaN feet min_height", `"height":"20","min_height":"NaN'"`, 20, 0, appliance.HeightTagged, 1, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{` + c.props + `},"geometry":{"type":"Polygon","coordinates":[[[-43.2,-22.9],[-43.1999,-22.9],[-43.1999,-22.8999],[-43.2,-22.8999],[-43.2,-22.9]]]}},` + good + `]}`
			im, err := buildings.Parse(context.Background(), []byte(f), buildings.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c.refused != "" {
				if len(im.Buildings) != 1 || im.Refused != 1 || !strings.Contains(im.Refusals[0].Reason, c.refused) {
					t.Fatalf("want feature/0 refused with %q, got %d buildings, %v", c.refused, len(im.Buildings), im.Refusals)
				}
				return
			}
			b := im.Buildings[0]
			if math.Abs(b.HeightM-c.want) > 1e-9 || b.HeightSource != c.src || b.MinHeightM != c.min {
				t.Fatalf("height %g (%s, min %g), want %g (%s, min %g)", b.HeightM, b.HeightSource, b.MinHeightM, c.want, c.src, c.min)
			}
			msg := ""
			for _, w := range im.Warnings {
				if w.Code == "buildings_unusable_height_tags" {
					msg = w.Message
				}
			}
			if (c.unusable == 0) != (msg == "") || (c.unusable > 0 && !strings.HasPrefix(msg, fmt.Sprintf("%d height", c.unusable))) {
				t.Fatalf("warning %q, want %d unusable tags", msg, c.unusable)
			}
			if msg != "" {
				t.Log(msg)
			}
		})
	}
}
