package geoexport

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/tooltest"
)

// gdalInfo is the part of `gdalinfo -stats -json` the tests check.
type gdalInfo struct {
	Driver           string    `json:"driverShortName"`
	Size             []int     `json:"size"`
	GeoTransform     []float64 `json:"geoTransform"`
	CoordinateSystem struct {
		WKT string `json:"wkt"`
	} `json:"coordinateSystem"`
	Metadata map[string]map[string]string `json:"metadata"`
	Bands    []struct {
		Description string                       `json:"description"`
		Unit        string                       `json:"unit"`
		Metadata    map[string]map[string]string `json:"metadata"`
		Type        string                       `json:"type"`
		NoDataValue any                          `json:"noDataValue"`
		Minimum     *float64                     `json:"minimum"`
		Maximum     *float64                     `json:"maximum"`
	} `json:"bands"`
}

// GDALInfoJSON runs `gdalinfo -stats -json` on path; it skips the test
// when gdalinfo is not installed (fails under CI).
func gdalInfoJSON(tb testing.TB, path string) gdalInfo {
	tb.Helper()
	bin := tooltest.Need(tb, "gdalinfo", "gdal-bin")
	out, err := exec.Command(bin, "-stats", "-json", path).CombinedOutput()
	if err != nil {
		tb.Fatalf("gdalinfo: %v\n%s", err, out)
	}
	var gi gdalInfo
	if err := json.Unmarshal(out, &gi); err != nil {
		tb.Fatalf("gdalinfo json: %v\n%s", err, out)
	}
	return gi
}

func TestWriteGeoTIFFGdalinfo(t *testing.T) {
	cases := []struct {
		name          string
		width, height int
		west, north   float64
		pxLon, pxLat  float64
		nodata        float64
	}{
		{"small NaN nodata", 7, 5, -43.5, -22.75, 3.0 / 3600, 3.0 / 3600, math.NaN()},
		{"sentinel nodata", 4, 3, -44, -22, 1.0 / 3600, 2.0 / 3600, -9999},
		{"many strips", 301, 500, -43.25, -22.8, 3.0 / 3600, 3.0 / 3600, math.NaN()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := make([]float32, c.width*c.height)
			lo, hi := math.Inf(1), math.Inf(-1)
			for i := range data {
				v := float32(-140 + float64((i*37)%1000)/10) // −140 .. −40.1 dBm
				if i%11 == 3 {
					if math.IsNaN(c.nodata) {
						v = float32(math.NaN())
					} else {
						v = float32(c.nodata)
					}
				} else {
					lo, hi = math.Min(lo, float64(v)), math.Max(hi, float64(v))
				}
				data[i] = v
			}
			var buf bytes.Buffer
			if err := WriteGeoTIFF(&buf, c.west, c.north, c.pxLon, c.pxLat, c.width, c.height, data, c.nodata); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "map.tif")
			if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			gi := gdalInfoJSON(t, path)
			if gi.Driver != "GTiff" || len(gi.Size) != 2 || gi.Size[0] != c.width || gi.Size[1] != c.height {
				t.Fatalf("driver %q size %v, want GTiff %dx%d", gi.Driver, gi.Size, c.width, c.height)
			}
			want := []float64{c.west, c.pxLon, 0, c.north, 0, -c.pxLat}
			for i := range want {
				if len(gi.GeoTransform) != 6 || math.Abs(gi.GeoTransform[i]-want[i]) > 1e-12 {
					t.Fatalf("geotransform %v, want %v", gi.GeoTransform, want)
				}
			}
			if !strings.Contains(gi.CoordinateSystem.WKT, `ID["EPSG",4326]`) {
				t.Fatalf("coordinate system is not EPSG:4326: %s", gi.CoordinateSystem.WKT)
			}
			if gi.Metadata[""]["AREA_OR_POINT"] != "Area" {
				t.Fatalf("AREA_OR_POINT %q, want Area", gi.Metadata[""]["AREA_OR_POINT"])
			}
			if len(gi.Bands) != 1 || gi.Bands[0].Type != "Float32" {
				t.Fatalf("bands %+v, want one Float32", gi.Bands)
			}
			b := gi.Bands[0]
			switch nd := b.NoDataValue.(type) {
			case string:
				if !math.IsNaN(c.nodata) || !strings.EqualFold(nd, "nan") {
					t.Fatalf("nodata %q, want %g", nd, c.nodata)
				}
			case float64:
				if nd != c.nodata {
					t.Fatalf("nodata %g, want %g", nd, c.nodata)
				}
			default:
				t.Fatalf("nodata %v (%T), want %g", b.NoDataValue, b.NoDataValue, c.nodata)
			}
			if b.Minimum == nil || b.Maximum == nil || math.Abs(*b.Minimum-lo) > 1e-3 || math.Abs(*b.Maximum-hi) > 1e-3 { // gdalinfo -json prints 3 decimals
				t.Fatalf("min/max %v/%v, want %g/%g", b.Minimum, b.Maximum, lo, hi)
			}
		})
	}
}

func TestWriteGeoTIFFRefusals(t *testing.T) {
	cases := []struct {
		name  string
		w, h  int
		data  int
		pxLon float64
		nd    float64
		field string
	}{
		{"zero width", 0, 2, 0, 1, 0, "size"},
		{"short data", 2, 2, 3, 1, 0, "data"},
		{"zero pixel", 2, 2, 4, 0, 0, "pixel_lon_deg"},
		{"infinite nodata", 2, 2, 4, 1, math.Inf(-1), "nodata"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := WriteGeoTIFF(&bytes.Buffer{}, -43, -22, c.pxLon, 1, c.w, c.h, make([]float32, c.data), c.nd)
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) || len(ve.Fields) != 1 || ve.Fields[0].Field != c.field {
				t.Fatalf("got %v, want a validation error naming %q", err, c.field)
			}
		})
	}
}

// TestWriteGeoTIFFMetadataGdalinfo: the GDAL_METADATA tag reads back in
// gdalinfo as dataset items (escaped text, names kept to [A-Za-z0-9_]),
// the band's unit type and its description; strips stay readable.
func TestWriteGeoTIFFMetadataGdalinfo(t *testing.T) {
	data := make([]float32, 6*4)
	for i := range data {
		data[i] = -80 + float32(i)
	}
	meta := &GeoTIFFMetadata{BandUnit: "dBm", BandDescription: "received power, dBm",
		Items: []MetadataItem{{Name: "EIRP_DBM", Value: "58"}, {Name: "WARNING 1", Value: "eirp_assumed: <no ERP> & \"assumed\"\nsecond line"}}}
	var buf bytes.Buffer
	if err := WriteGeoTIFFMeta(&buf, -43.5, -22.75, 1.0/3600, 1.0/3600, 6, 4, data, math.NaN(), meta); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.tif")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	gi := gdalInfoJSON(t, path)
	md := gi.Metadata[""]
	if md["EIRP_DBM"] != "58" || md["WARNING_1"] != `eirp_assumed: <no ERP> & "assumed" second line` {
		t.Fatalf("dataset metadata %v", gi.Metadata)
	}
	if len(gi.Bands) != 1 || gi.Bands[0].Unit != "dBm" || gi.Bands[0].Description != "received power, dBm" ||
		gi.Bands[0].Metadata[""]["UNITS"] != "dBm" || *gi.Bands[0].Minimum != -80 || *gi.Bands[0].Maximum != -57 {
		t.Fatalf("band %+v", gi.Bands)
	}
}
