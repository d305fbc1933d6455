package geoexport

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
)

// TestShapefileZipFullText: a Shapefile zip whose .dbf cuts a text value
// (warnings, a map's options) also holds <set>_full_text.txt with every
// cut value whole, naming its feature and field; a set that cuts nothing
// has no such file; GDAL still reads the zip as the one Shapefile layer,
// the text file beside it.
func TestShapefileZipFullText(t *testing.T) {
	schema := Schema{Geometry: KindPoint, Fields: []Field{
		{Name: "warnings", Type: TypeString, Width: 20, ListSep: ";"},
		{Name: "engine", Type: TypeString, Width: 32},
	}}
	long := "raytrace_assumed_heights;raytrace_flat_ground;raytrace_scene_truncated"
	for _, c := range []struct {
		name  string
		value string
		cut   bool
	}{
		{"a value the .dbf cuts", long, true},
		{"values that fit", "eirp_assumed", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := []Feature{
				{Geometry: Point(appliance.LatLon{Lat: -22.9, Lon: -43.2}), Properties: []Value{String("none"), String("fspl")}},
				{Geometry: Point(appliance.LatLon{Lat: -22.8, Lon: -43.1}), Properties: []Value{String(c.value), String("raytrace")}},
			}
			var buf bytes.Buffer
			if err := WriteShapefileZip(&buf, "contours_m1", schema, Slice(fs), time.Time{}); err != nil {
				t.Fatal(err)
			}
			zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil {
				t.Fatal(err)
			}
			var text string
			found := false
			for _, f := range zr.File {
				if f.Name == "contours_m1"+FullTextSuffix {
					found = true
					rc, _ := f.Open()
					b, _ := io.ReadAll(rc)
					rc.Close()
					text = string(b)
				}
			}
			if found != c.cut {
				t.Fatalf("full-text file present = %v, want %v", found, c.cut)
			}
			if c.cut && !strings.Contains(text, "feature 2, warnings:\n"+long+"\n") {
				t.Errorf("the full-text file lacks the whole value of feature 2:\n%s", text)
			}
			path := filepath.Join(t.TempDir(), "m.zip")
			if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			l := runOgrinfo(t, "/vsizip/"+path)
			if l.driver != "ESRI Shapefile" || featureCount(t, l, 2) != 2 {
				t.Errorf("ogrinfo read driver %q with %d features; want the Shapefile's 2", l.driver, l.count)
			}
		})
	}
}
