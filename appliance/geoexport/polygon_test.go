package geoexport

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"

	"linkplan/appliance"
)

func polySchema() Schema {
	return Schema{Geometry: KindMultiPolygon, Fields: []Field{
		{Name: "threshold_dbm", Type: TypeFloat, Width: 10, Decimals: 2},
		{Name: "pixels", Type: TypeInt, Width: 12},
		{Name: "label", Type: TypeString, Width: 16},
	}}
}

// ring returns the closed ring through the (lon, lat) pairs.
func ring(lonLat ...float64) []appliance.LatLon {
	var r []appliance.LatLon
	for i := 0; i+1 < len(lonLat); i += 2 {
		r = append(r, appliance.LatLon{Lat: lonLat[i+1], Lon: lonLat[i]})
	}
	return append(r, r[0])
}

// polyFeatures: a square with a square hole (exterior given clockwise,
// the hole counter-clockwise: the wrong way for GeoJSON) plus a separate
// rectangle (given counter-clockwise); an empty multipolygon; one
// triangle.
func polyFeatures() []Feature {
	sq := ring(-43.3, -22.9, -43.3, -22.8, -43.2, -22.8, -43.2, -22.9) // clockwise (north first from SW, then east)
	hole := ring(-43.28, -22.88, -43.22, -22.88, -43.22, -22.82, -43.28, -22.82)
	rect := ring(-43.1, -22.9, -43.0, -22.9, -43.0, -22.85, -43.1, -22.85)
	tri := ring(-43.5, -23.0, -43.4, -23.0, -43.45, -22.95)
	return []Feature{
		{Geometry: MultiPolygon([][]appliance.LatLon{sq, hole}, [][]appliance.LatLon{rect}), Properties: []Value{Float(-75), Int(12), String("two")}},
		{Geometry: MultiPolygon(), Properties: []Value{Float(-65), Int(0), String("empty")}},
		{Geometry: MultiPolygon([][]appliance.LatLon{tri}), Properties: []Value{Float(-95), Int(3), Null()}},
	}
}

func TestRingOrientationHelpers(t *testing.T) {
	if a := ringArea(ring(0, 0, 1, 0, 1, 1, 0, 1)); a != 1 {
		t.Fatalf("ccw unit square area %g, want 1", a)
	}
	if a := ringArea(ring(0, 0, 0, 1, 1, 1, 1, 0)); a != -1 {
		t.Fatalf("cw unit square area %g, want -1", a)
	}
}

func TestPolygonValidation(t *testing.T) {
	s := polySchema()
	props := []Value{Float(1), Int(1), Null()}
	bad := map[string]Geometry{
		"open ring":     MultiPolygon([][]appliance.LatLon{ring(0, 0, 1, 0, 1, 1)[:3]}),
		"three points":  MultiPolygon([][]appliance.LatLon{ring(0, 0, 1, 0)}),
		"no ring":       MultiPolygon([][]appliance.LatLon{}),
		"bad position":  MultiPolygon([][]appliance.LatLon{ring(0, 0, 1, 0, 1, 95)}),
		"loose coords":  {Kind: KindMultiPolygon, Coords: []appliance.LatLon{{}}},
		"point in poly": Point(appliance.LatLon{}),
	}
	for name, g := range bad {
		err := WriteGeoJSON(&bytes.Buffer{}, s, Slice([]Feature{{Geometry: g, Properties: props}}))
		if !errors.Is(err, appliance.ErrInvalid) {
			t.Errorf("%s: err %v, want ErrInvalid", name, err)
		}
	}
	// A mixed schema stays points and lines.
	mixed := Schema{Geometry: KindMixed, Fields: s.Fields}
	err := WriteGeoJSON(&bytes.Buffer{}, mixed, Slice([]Feature{{Geometry: MultiPolygon([][]appliance.LatLon{ring(0, 0, 1, 0, 1, 1)}), Properties: props}}))
	if !errors.Is(err, appliance.ErrInvalid) {
		t.Errorf("polygon in a mixed schema: err %v, want ErrInvalid", err)
	}
}

func TestPolygonGeoJSONRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	fs := polyFeatures()
	if err := WriteGeoJSON(&buf, polySchema(), Slice(fs)); err != nil {
		t.Fatal(err)
	}
	fc, err := geojson.UnmarshalFeatureCollection(buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.Bytes())
	}
	if len(fc.Features) != len(fs) {
		t.Fatalf("%d features, want %d", len(fc.Features), len(fs))
	}
	if !strings.Contains(buf.String(), `{"type":"MultiPolygon","coordinates":[]}`) {
		t.Errorf("the empty multipolygon is not written as one:\n%s", buf.Bytes())
	}
	for i, f := range fc.Features {
		mp, ok := f.Geometry.(orb.MultiPolygon)
		if !ok {
			t.Fatalf("feature %d geometry %T, want MultiPolygon", i, f.Geometry)
		}
		want := fs[i].Geometry.Polygons
		if len(mp) != len(want) {
			t.Fatalf("feature %d: %d polygons, want %d", i, len(mp), len(want))
		}
		for p, poly := range mp {
			if len(poly) != len(want[p]) {
				t.Fatalf("feature %d polygon %d: %d rings, want %d", i, p, len(poly), len(want[p]))
			}
			for j, r := range poly {
				if !r.Closed() || len(r) != len(want[p][j]) {
					t.Errorf("feature %d polygon %d ring %d: closed %v, %d positions, want %d", i, p, j, r.Closed(), len(r), len(want[p][j]))
				}
				wantOr := orb.CCW
				if j > 0 {
					wantOr = orb.CW
				}
				if r.Orientation() != wantOr {
					t.Errorf("feature %d polygon %d ring %d orientation %v, want %v (RFC 7946)", i, p, j, r.Orientation(), wantOr)
				}
				// Same positions as written, in some order.
				for _, c := range want[p][j] {
					found := false
					for _, q := range r {
						if math.Abs(q[0]-c.Lon) < 1e-7 && math.Abs(q[1]-c.Lat) < 1e-7 {
							found = true
						}
					}
					if !found {
						t.Errorf("feature %d polygon %d ring %d lacks %v", i, p, j, c)
					}
				}
			}
		}
		if got := f.Properties["threshold_dbm"]; got != fs[i].Properties[0].Float64() {
			t.Errorf("feature %d threshold_dbm %v", i, got)
		}
	}
}

// readShp parses a polygon .shp: header shape type and box, and per record
// its shape type and rings.
func readShp(t *testing.T, b []byte) (shapeType uint32, box [4]float64, recs []shpRec) {
	t.Helper()
	le, be := binary.LittleEndian, binary.BigEndian
	if be.Uint32(b[0:]) != shpFileCode || int(be.Uint32(b[24:]))*2 != len(b) {
		t.Fatalf("bad .shp header: code %d, length %d words for %d bytes", be.Uint32(b[0:]), be.Uint32(b[24:]), len(b))
	}
	shapeType = le.Uint32(b[32:])
	for i := range 4 {
		box[i] = math.Float64frombits(le.Uint64(b[36+8*i:]))
	}
	off := shpHeaderLen
	for off < len(b) {
		n := int(be.Uint32(b[off+4:])) * 2
		c := b[off+8 : off+8+n]
		rec := shpRec{typ: le.Uint32(c)}
		if rec.typ == shpPolygon {
			for i := range 4 {
				rec.box[i] = math.Float64frombits(le.Uint64(c[4+8*i:]))
			}
			parts, points := int(le.Uint32(c[36:])), int(le.Uint32(c[40:]))
			starts := make([]int, parts+1)
			for i := range parts {
				starts[i] = int(le.Uint32(c[44+4*i:]))
			}
			starts[parts] = points
			pts := c[44+4*parts:]
			if len(pts) != 16*points {
				t.Fatalf("record %d: %d bytes of points for %d points", len(recs)+1, len(pts), points)
			}
			for i := range parts {
				var r []appliance.LatLon
				for k := starts[i]; k < starts[i+1]; k++ {
					r = append(r, appliance.LatLon{Lon: math.Float64frombits(le.Uint64(pts[16*k:])), Lat: math.Float64frombits(le.Uint64(pts[16*k+8:]))})
				}
				rec.rings = append(rec.rings, r)
			}
		} else if len(c) != 4 {
			t.Fatalf("record %d: type %d with %d bytes", len(recs)+1, rec.typ, len(c))
		}
		recs = append(recs, rec)
		off += 8 + n
	}
	return shapeType, box, recs
}

type shpRec struct {
	typ   uint32
	box   [4]float64
	rings [][]appliance.LatLon
}

func TestPolygonShapefileLayout(t *testing.T) {
	var shp, shx, dbf, prj, cpg bytes.Buffer
	fs := polyFeatures()
	if err := WriteShapefile(ShapefileSet{&shp, &shx, &dbf, &prj, &cpg}, polySchema(), Slice(fs), ShapefileOptions{}); err != nil {
		t.Fatal(err)
	}
	typ, box, recs := readShp(t, shp.Bytes())
	if typ != shpPolygon {
		t.Fatalf("header shape type %d, want 5", typ)
	}
	if want := [4]float64{-43.5, -23.0, -43.0, -22.8}; box != want {
		t.Errorf("header box %v, want %v", box, want)
	}
	if len(recs) != 3 || recs[1].typ != shpNull || recs[0].typ != shpPolygon || recs[2].typ != shpPolygon {
		t.Fatalf("records %+v", recs)
	}
	if want := [4]float64{-43.3, -22.9, -43.0, -22.8}; recs[0].box != want {
		t.Errorf("record 1 box %v, want %v", recs[0].box, want)
	}
	// Exterior rings clockwise (negative area), holes counter-clockwise.
	wantSign := [][]float64{{-1, 1, -1}, nil, {-1}}
	for i, rec := range recs {
		if len(rec.rings) != len(wantSign[i]) {
			t.Fatalf("record %d: %d rings, want %d", i+1, len(rec.rings), len(wantSign[i]))
		}
		for j, r := range rec.rings {
			if r[0] != r[len(r)-1] || math.Signbit(ringArea(r)) != math.Signbit(wantSign[i][j]) {
				t.Errorf("record %d ring %d: closed %v, area %g, want sign of %g", i+1, j, r[0] == r[len(r)-1], ringArea(r), wantSign[i][j])
			}
		}
	}
	if shx.Len() != shpHeaderLen+8*3 {
		t.Errorf(".shx %d bytes", shx.Len())
	}
}

var ogrGeomType = regexp.MustCompile(`(?m)^Geometry: (.+)$`)

// ogrSummary runs ogrinfo -ro -al -so on path and returns its output.
func ogrSummary(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command(requireOgrinfo(t), "-ro", "-al", "-so", path).CombinedOutput()
	if err != nil {
		t.Fatalf("ogrinfo %s: %v\n%s", path, err, out)
	}
	return string(out)
}

// ogrGeometries returns the WKT geometry type of each feature ogrinfo prints.
func ogrGeometries(t *testing.T, path string) []string {
	t.Helper()
	out, err := exec.Command(requireOgrinfo(t), "-ro", "-al", path).CombinedOutput()
	if err != nil {
		t.Fatalf("ogrinfo %s: %v\n%s", path, err, out)
	}
	var g []string
	for _, line := range strings.Split(string(out), "\n") {
		if ogrFeatureHdr.MatchString(line) {
			g = append(g, "")
			continue
		}
		if len(g) > 0 && strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") {
			w := strings.Fields(line)
			if len(w) > 0 && (w[0] == "POLYGON" || w[0] == "MULTIPOLYGON") {
				g[len(g)-1] = w[0]
			}
		}
	}
	return g
}

// TestOgrinfoReadsPolygons opens the polygon exports with GDAL: feature
// count, field names, geometry type and one polygon geometry per non-empty
// feature.
func TestOgrinfoReadsPolygons(t *testing.T) {
	requireOgrinfo(t)
	dir := t.TempDir()
	fs := polyFeatures()
	s := polySchema()
	var gj, km, zipb bytes.Buffer
	if err := WriteGeoJSON(&gj, s, Slice(fs)); err != nil {
		t.Fatal(err)
	}
	if err := WriteKML(&km, s, Slice(fs), KMLOptions{DocumentName: "polygons", NameField: "label"}); err != nil {
		t.Fatal(err)
	}
	if err := WriteShapefileZip(&zipb, "contours", s, Slice(fs), FixedDate()); err != nil {
		t.Fatal(err)
	}
	var shp, shx, dbf, prj, cpg bytes.Buffer
	if err := WriteShapefile(ShapefileSet{&shp, &shx, &dbf, &prj, &cpg}, s, Slice(fs), ShapefileOptions{}); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"p.geojson": gj.Bytes(), "p.kml": km.Bytes(), "p.zip": zipb.Bytes(),
		"p.shp": shp.Bytes(), "p.shx": shx.Bytes(), "p.dbf": dbf.Bytes(), "p.prj": prj.Bytes(), "p.cpg": cpg.Bytes()}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		file, geom string
		short      bool
	}{
		{"p.geojson", "Multi Polygon", false},
		{"p.shp", "Polygon", true},
		{"/vsizip/" + filepath.Join(dir, "p.zip") + "/contours.shp", "Polygon", true},
		{"p.kml", "", false},
	} {
		t.Run(c.file, func(t *testing.T) {
			path := c.file
			if !strings.HasPrefix(path, "/vsizip/") {
				path = filepath.Join(dir, c.file)
			}
			out := ogrSummary(t, path)
			if !strings.Contains(out, "Feature Count: 3\n") {
				t.Errorf("feature count is not 3:\n%s", out)
			}
			if m := ogrGeomType.FindStringSubmatch(out); c.geom != "" && (m == nil || m[1] != c.geom) {
				t.Errorf("geometry %v, want %q:\n%s", m, c.geom, out)
			}
			names := []string{"threshold_dbm", "pixels", "label"}
			if c.short {
				names = ShortNames(s)
			}
			for _, n := range names {
				if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(n) + `: `).MatchString(out) {
					t.Errorf("no field %q:\n%s", n, out)
				}
			}
			geoms := ogrGeometries(t, path)
			if len(geoms) != 3 || geoms[0] == "" || geoms[2] == "" {
				t.Errorf("feature geometries %q, want a polygon for features 1 and 3", geoms)
			}
			if geoms[0] != "MULTIPOLYGON" {
				t.Errorf("feature 1 (two polygons) read as %q", geoms[0])
			}
		})
	}
}
