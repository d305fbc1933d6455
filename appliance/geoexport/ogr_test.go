package geoexport

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"linkplan/appliance/tooltest"
)

// requireOgrinfo returns the path of GDAL's ogrinfo. Without it the test
// fails when CI is set (make test installs gdal-bin) and skips otherwise.
func requireOgrinfo(tb testing.TB) string {
	tb.Helper()
	p := tooltest.Need(tb, "ogrinfo", "gdal-bin")
	return p
}

// ogrLayer is what `ogrinfo -ro -al` printed about the single layer of a file.
type ogrLayer struct {
	driver   string            // driver that opened the file ("LIBKML", "GeoJSON", ...)
	count    int               // "Feature Count"; -1 when ogrinfo printed none
	fields   map[string]string // field name → OGR type, from the layer summary
	features []ogrFeature
}

type ogrFeature struct {
	values map[string]string // field name → printed value; absent when unset
	style  string            // "Style = " line (KML)
	wkt    string            // geometry line
}

var (
	ogrFieldDef   = regexp.MustCompile(`^([^ ].*): ([A-Za-z0-9]+(?:\([A-Za-z]+\))?) \(\d+\.\d+\)$`)
	ogrFeatureHdr = regexp.MustCompile(`^OGRFeature\(.*\):\d+$`)
	ogrValue      = regexp.MustCompile(`^  (.+?) \([A-Za-z0-9]+(?:\([A-Za-z]+\))?\) = (.*)$`)
	ogrDriver     = regexp.MustCompile("^ +using driver `([^']+)' successful\\.$")
)

// runOgrinfo runs ogrinfo -ro -al on path and parses its report. A file
// that GDAL opens but in which it finds no layer leaves count at -1 (see
// featureCount).
func runOgrinfo(tb testing.TB, path string) ogrLayer {
	tb.Helper()
	out, err := exec.Command(requireOgrinfo(tb), "-ro", "-al", path).CombinedOutput()
	if err != nil {
		tb.Fatalf("ogrinfo %s: %v\n%s", path, err, out)
	}
	l := ogrLayer{count: -1, fields: map[string]string{}}
	var cur *ogrFeature
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case ogrDriver.MatchString(line):
			l.driver = ogrDriver.FindStringSubmatch(line)[1]
		case strings.HasPrefix(line, "Feature Count: "):
			l.count, err = strconv.Atoi(strings.TrimPrefix(line, "Feature Count: "))
			if err != nil {
				tb.Fatalf("ogrinfo %s: %q: %v", path, line, err)
			}
		case ogrFeatureHdr.MatchString(line):
			l.features = append(l.features, ogrFeature{values: map[string]string{}})
			cur = &l.features[len(l.features)-1]
		case cur == nil:
			if m := ogrFieldDef.FindStringSubmatch(line); m != nil {
				l.fields[m[1]] = m[2]
			}
		case strings.HasPrefix(line, "  Style = "):
			cur.style = strings.TrimPrefix(line, "  Style = ")
		case strings.HasPrefix(line, "  POINT ") || strings.HasPrefix(line, "  LINESTRING "):
			cur.wkt = strings.TrimSpace(line)
		default:
			if m := ogrValue.FindStringSubmatch(line); m != nil {
				cur.values[m[1]] = m[2]
			}
		}
	}
	if l.driver == "" {
		tb.Fatalf("ogrinfo %s: no driver named in\n%s", path, out)
	}
	return l
}

// featureCount is the number of features GDAL found in l, want being the
// number written. GDAL's LIBKML driver makes one layer per container of
// placemarks, so a KML document without any placemark has no layer and
// ogrinfo prints no "Feature Count" at all: for that driver, and only when
// nothing was written and nothing was printed, a missing count reads as 0.
// Every other missing count is an error.
func featureCount(tb testing.TB, l ogrLayer, want int) int {
	tb.Helper()
	if l.count >= 0 {
		return l.count
	}
	if want == 0 && l.driver == "LIBKML" && len(l.features) == 0 {
		return 0
	}
	tb.Fatalf("ogrinfo (driver %s) printed no feature count, want %d", l.driver, want)
	return -1
}

// TestOgrinfoReadsEveryFormat opens each written file with GDAL (an
// implementation independent of this package) and checks the feature
// count, the field names and types, every value and every geometry.
func TestOgrinfoReadsEveryFormat(t *testing.T) {
	requireOgrinfo(t)
	type format struct {
		name, file string
		shortNames bool                 // field names are the dBase ShortNames
		types      map[FieldType]string // OGR type of each field type
		coordTol   float64              // degrees
		styles     bool                 // KML: Style = @status-N
	}
	formats := []format{
		{name: "shapefile", file: "results.shp", shortNames: true, coordTol: 1e-12,
			types: map[FieldType]string{TypeString: "String", TypeInt: "Integer|Integer64", TypeFloat: "Real", TypeBool: "String"}},
		{name: "geojson", file: "results.geojson", coordTol: 0.5e-7 + 1e-12,
			types: map[FieldType]string{TypeString: "String", TypeInt: "Integer", TypeFloat: "Real", TypeBool: "Integer(Boolean)"}},
		{name: "kml", file: "results.kml", coordTol: 0.5e-7 + 1e-12, styles: true,
			types: map[FieldType]string{TypeString: "String", TypeInt: "Integer", TypeFloat: "Real", TypeBool: "Integer"}},
		{name: "kmz", file: "results.kmz", coordTol: 0.5e-7 + 1e-12, styles: true,
			types: map[FieldType]string{TypeString: "String", TypeInt: "Integer", TypeFloat: "Real", TypeBool: "Integer"}},
	}
	for _, c := range exportCases() {
		dir := t.TempDir()
		for name, b := range writeAll(t, c) {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range formats {
			t.Run(c.name+"/"+f.name, func(t *testing.T) {
				l := runOgrinfo(t, filepath.Join(dir, f.file))
				if n := featureCount(t, l, len(c.features)); n != len(c.features) || len(l.features) != len(c.features) {
					t.Fatalf("feature count %d with %d printed, want %d", n, len(l.features), len(c.features))
				}
				if len(c.features) == 0 && !f.shortNames {
					// GeoJSON and KML readers learn the fields from the
					// features (GeoJSON has no schema; LIBKML has no layer
					// without a placemark), so an empty file has none to
					// check. A Shapefile's .dbf header holds them: checked.
					return
				}
				names := make([]string, len(c.schema.Fields))
				for i, fd := range c.schema.Fields {
					names[i] = fd.Name
				}
				if f.shortNames {
					names = ShortNames(c.schema)
				}
				for i, fd := range c.schema.Fields {
					got, ok := l.fields[names[i]]
					if !ok {
						t.Errorf("field %q missing; ogrinfo has %v", names[i], l.fields)
						continue
					}
					if !strings.Contains("|"+f.types[fd.Type]+"|", "|"+got+"|") {
						t.Errorf("field %q is %s, want %s", names[i], got, f.types[fd.Type])
					}
				}
				for i, feat := range c.features {
					of := l.features[i]
					for j, v := range feat.Properties {
						checkOgrValue(t, f.name, i, names[j], c.schema.Fields[j], of.values, v)
					}
					checkOgrWKT(t, i, of.wkt, feat.Geometry, f.coordTol)
					if f.styles && c.kml.StyleField != "" {
						if want := "@" + kmlStyleOf(c, feat); of.style != want {
							t.Errorf("feature %d style %q, want %q", i, of.style, want)
						}
					}
				}
			})
		}
	}
}

func kmlStyleOf(c exportCase, f Feature) string {
	idx, _ := fieldIndex(c.schema, c.kml.StyleField)
	for i, st := range c.kml.Styles {
		if st.Value == f.Properties[idx].Str() {
			return styleID(i)
		}
	}
	return "status-other"
}

func checkOgrValue(tb testing.TB, format string, i int, name string, fd Field, got map[string]string, v Value) {
	tb.Helper()
	text, set := got[name]
	if v.IsNull() {
		if set && text != "(null)" && !(format == "shapefile" && fd.Type == TypeBool && text == "?") {
			tb.Errorf("feature %d field %q = %q, want null", i, name, text)
		}
		return
	}
	if !set {
		tb.Errorf("feature %d field %q unset, want %v", i, name, v)
		return
	}
	switch v.Type() {
	case TypeString:
		want := v.Str()
		if format == "shapefile" {
			width, _, _ := dbfSize(fd)
			want = strings.TrimRight(truncUTF8(want, width), " ")
		}
		if text != want {
			tb.Errorf("feature %d field %q = %q, want %q", i, name, text, want)
		}
	case TypeInt:
		if n, err := strconv.ParseInt(text, 10, 64); err != nil || n != v.Int64() {
			tb.Errorf("feature %d field %q = %q, want %d", i, name, text, v.Int64())
		}
	case TypeFloat:
		tol := 1e-9 * math.Max(1, math.Abs(v.Float64()))
		if format == "shapefile" {
			_, dec, _ := dbfSize(fd)
			tol = 0.5*math.Pow(10, -float64(dec)) + 1e-12
		}
		if x, err := strconv.ParseFloat(text, 64); err != nil || math.Abs(x-v.Float64()) > tol {
			tb.Errorf("feature %d field %q = %q, want %v ± %g", i, name, text, v.Float64(), tol)
		}
	case TypeBool:
		want := map[bool]string{true: "1", false: "0"}[v.Bool()]
		if format == "shapefile" {
			want = map[bool]string{true: "T", false: "F"}[v.Bool()]
		}
		if text != want {
			tb.Errorf("feature %d field %q = %q, want %q", i, name, text, want)
		}
	}
}

func checkOgrWKT(tb testing.TB, i int, wkt string, g Geometry, tol float64) {
	tb.Helper()
	kind := map[GeometryKind]string{KindPoint: "POINT", KindLineString: "LINESTRING"}[g.Kind]
	body, ok := strings.CutPrefix(wkt, kind+" (")
	if !ok || !strings.HasSuffix(body, ")") {
		tb.Errorf("feature %d geometry %q, want a %s", i, wkt, kind)
		return
	}
	pts := strings.Split(strings.TrimSuffix(body, ")"), ",")
	if len(pts) != len(g.Coords) {
		tb.Errorf("feature %d geometry %q has %d positions, want %d", i, wkt, len(pts), len(g.Coords))
		return
	}
	for j, p := range pts {
		xy := strings.Fields(p)
		if len(xy) != 2 {
			tb.Errorf("feature %d position %q", i, p)
			continue
		}
		x, err1 := strconv.ParseFloat(xy[0], 64)
		y, err2 := strconv.ParseFloat(xy[1], 64)
		// ogrinfo prints 15 significant digits, hence the 1e-12 added.
		if err1 != nil || err2 != nil || math.Abs(x-g.Coords[j].Lon) > tol+1e-12 || math.Abs(y-g.Coords[j].Lat) > tol+1e-12 {
			tb.Errorf("feature %d position %d = %q, want lon %v lat %v ± %g", i, j, p, g.Coords[j].Lon, g.Coords[j].Lat, tol)
		}
	}
}
