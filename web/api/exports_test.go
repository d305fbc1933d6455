package api_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"linkplan/appliance/tooltest"
)

// exportBody is the /analyze_link body of the export and report tests: a
// Rio receiver on the embedded terrain with several towers in range.
const exportBody = `{"receiver":{"lat":-22.95,"lon":-43.20,"height":10},"frequency_mhz":1800,"max_distance_km":20}`

// requireCLI returns the path of an external reader (GDAL's ogrinfo,
// poppler's pdftotext). Without it the test fails when CI is set (make test
// installs gdal-bin and poppler-utils) and skips otherwise.
func requireCLI(tb testing.TB, name, pkg string) string {
	tb.Helper()
	return tooltest.Need(tb, name, pkg)
}

var ogrCountLine = regexp.MustCompile(`(?m)^Feature Count: (\d+)$`)

// ogrFeatureCounts opens path with `ogrinfo -ro -al -so` and returns the
// feature count of each layer, in ogrinfo's order. GDAL's LIBKML driver
// makes no layer of a KML document without placemarks: an empty list.
func ogrFeatureCounts(tb testing.TB, path string) []int {
	tb.Helper()
	out, err := exec.Command(requireCLI(tb, "ogrinfo", "gdal-bin"), "-ro", "-al", "-so", path).CombinedOutput()
	if err != nil {
		tb.Fatalf("ogrinfo %s: %v\n%s", path, err, out)
	}
	var counts []int
	for _, m := range ogrCountLine.FindAllSubmatch(out, -1) {
		n, _ := strconv.Atoi(string(m[1]))
		counts = append(counts, n)
	}
	return counts
}

// linkTowerIDs runs /analyze_link on body for key and returns the ids of
// the best tower and the alternatives, in order.
func linkTowerIDs(t *testing.T, h *harness, key, body string) []string {
	t.Helper()
	res := h.do(t, http.MethodPost, "/analyze_link", h.keys[key], nil, body)
	if res.status != http.StatusOK {
		t.Fatalf("analyze_link: %d %s", res.status, res.body)
	}
	a := decodeJSON[analysis](t, res)
	var ids []string
	if a.BestTower != nil {
		ids = append(ids, a.BestTower.TowerID)
	}
	for _, alt := range a.Alternatives {
		ids = append(ids, alt.TowerID)
	}
	return ids
}

// TestExportLinkFormats: each format answers 200 with its media type and a
// file name, and GDAL opens the file with one feature for the receiver and
// one per tower of the /analyze_link answer to the same body.
func TestExportLinkFormats(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ids := linkTowerIDs(t, h, "pro", exportBody)
	if len(ids) < 2 {
		t.Fatalf("the Rio receiver has %d towers; the test wants a best tower and an alternative", len(ids))
	}
	dir := t.TempDir()
	for _, c := range []struct {
		format, contentType, file string
	}{
		{"geojson", "application/geo+json", "link.geojson"},
		{"kml", "application/vnd.google-earth.kml+xml", "link.kml"},
		{"KMZ", "application/vnd.google-earth.kmz", "link.kmz"},
		{"shapefile", "application/zip", "link.zip"},
		{"", "application/geo+json", "link.geojson"}, // no format parameter: GeoJSON
	} {
		t.Run("format "+c.format, func(t *testing.T) {
			u := "/exports/link"
			if c.format != "" {
				u += "?format=" + c.format
			}
			res := h.do(t, http.MethodPost, u, h.keys["pro"], nil, exportBody)
			if res.status != http.StatusOK {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			if ct := res.header.Get("Content-Type"); ct != c.contentType {
				t.Errorf("Content-Type %q, want %q", ct, c.contentType)
			}
			if cd, want := res.header.Get("Content-Disposition"), `attachment; filename="`+c.file+`"`; cd != want {
				t.Errorf("Content-Disposition %q, want %q", cd, want)
			}
			path := filepath.Join(dir, strings.ToLower(c.format)+"-"+c.file)
			if err := os.WriteFile(path, res.body, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, id := range ids {
				if (c.format == "geojson" || c.format == "kml") && !bytes.Contains(res.body, []byte(id)) {
					t.Errorf("tower %s missing from the file", id)
				}
			}
			if c.contentType == "application/geo+json" {
				var fc struct {
					Type     string `json:"type"`
					Features []struct {
						Geometry struct {
							Type string `json:"type"`
						} `json:"geometry"`
						Properties map[string]any `json:"properties"`
					} `json:"features"`
				}
				if err := json.Unmarshal(res.body, &fc); err != nil || fc.Type != "FeatureCollection" || len(fc.Features) != 1+len(ids) {
					t.Fatalf("GeoJSON %v: %.300s", err, res.body)
				}
				if g := fc.Features[0]; g.Geometry.Type != "Point" || g.Properties["feature"] != "receiver" {
					t.Errorf("first feature %+v, want the receiver point", g)
				}
				for i, f := range fc.Features[1:] {
					p := f.Properties
					if f.Geometry.Type != "LineString" || p["tower_id"] != ids[i] || p["rank"] != float64(i+1) || p["engine"] != "fspl" {
						t.Errorf("line %d: %s %v, want tower %s rank %d", i, f.Geometry.Type, p, ids[i], i+1)
					}
					for _, k := range []string{"operator", "distance_km", "azimuth_deg", "margin_db", "rx_power_dbm", "status"} {
						if p[k] == nil {
							t.Errorf("line %d: %s is null", i, k)
						}
					}
				}
			}
			if c.format == "shapefile" {
				zr, err := zip.NewReader(bytes.NewReader(res.body), int64(len(res.body)))
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, f := range zr.File {
					names = append(names, f.Name)
				}
				for _, set := range []string{"link_receiver", "link_towers"} {
					for _, ext := range []string{".shp", ".shx", ".dbf", ".prj", ".cpg"} {
						if !slices.Contains(names, set+ext) {
							t.Errorf("zip lacks %s%s: %v", set, ext, names)
						}
					}
				}
				if n := ogrFeatureCounts(t, "/vsizip/"+path+"/link_receiver.shp"); !slices.Equal(n, []int{1}) {
					t.Errorf("receiver set: feature counts %v, want [1]", n)
				}
				if n := ogrFeatureCounts(t, "/vsizip/"+path+"/link_towers.shp"); !slices.Equal(n, []int{len(ids)}) {
					t.Errorf("towers set: feature counts %v, want [%d]", n, len(ids))
				}
				return
			}
			if n := ogrFeatureCounts(t, path); !slices.Equal(n, []int{1 + len(ids)}) {
				t.Errorf("ogrinfo feature counts %v, want [%d]", n, 1+len(ids))
			}
		})
	}
}

// TestExportLinkNoTower: a receiver without a tower in range exports the
// receiver point alone, with status no_tower.
func TestExportLinkNoTower(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	body := `{"receiver":{"lat":-22.95,"lon":-43.20},"frequency_mhz":1800,"max_distance_km":0.001}`
	res := h.do(t, http.MethodPost, "/exports/link?format=geojson", h.keys["pro"], nil, body)
	if res.status != http.StatusOK {
		t.Fatalf("status %d: %s", res.status, res.body)
	}
	if !bytes.Contains(res.body, []byte(`"status":"no_tower"`)) || bytes.Contains(res.body, []byte("LineString")) {
		t.Errorf("answer %s", res.body)
	}
	path := filepath.Join(t.TempDir(), "link.geojson")
	if err := os.WriteFile(path, res.body, 0o644); err != nil {
		t.Fatal(err)
	}
	if n := ogrFeatureCounts(t, path); !slices.Equal(n, []int{1}) {
		t.Errorf("ogrinfo feature counts %v, want [1]", n)
	}
}

// TestExportLinkRefusals: a bad format is a 422 naming format, a bad body
// a 4xx naming the field, exactly as on /analyze_link.
func TestExportLinkRefusals(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	for _, c := range []struct {
		name, url, body string
		status          int
		code, field     string
	}{
		{"unknown format", "/exports/link?format=gpx", exportBody, 422, "invalid_input", "format"},
		{"empty format", "/exports/link?format=", exportBody, 422, "invalid_input", "format"},
		{"format twice", "/exports/link?format=kml&format=kmz", exportBody, 422, "invalid_input", "format"},
		{"latitude of the wrong type", "/exports/link?format=kml", `{"receiver":{"lat":"x","lon":-43.2},"frequency_mhz":1800}`, 422, "invalid_input", "receiver.lat"},
		{"frequency missing", "/exports/link?format=shapefile", `{"receiver":{"lat":-22.95,"lon":-43.2}}`, 422, "invalid_input", "frequency_mhz"},
		{"unknown field", "/exports/link", `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"colour":"red"}`, 422, "invalid_input", "colour"},
		{"latitude out of range", "/exports/link", `{"receiver":{"lat":-95,"lon":-43.2},"frequency_mhz":1800}`, 422, "invalid_input", "receiver.lat"},
		{"malformed JSON", "/exports/link", `{"receiver":`, 400, "malformed_json", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := h.do(t, http.MethodPost, c.url, h.keys["pro"], nil, c.body)
			checkRefusal(t, res, c.status, c.code, c.field)
		})
	}
	res := h.do(t, http.MethodPost, "/exports/link", h.keys["pro"], map[string]string{"Content-Type": "text/plain"}, exportBody)
	checkRefusal(t, res, http.StatusUnsupportedMediaType, "unsupported_media_type", "Content-Type")
}

// checkRefusal checks the status, the JSON error body, its code and (when
// name is not empty) that its fields name it.
func checkRefusal(t *testing.T, res *response, status int, code, name string) {
	t.Helper()
	if res.status != status {
		t.Fatalf("status %d, want %d: %s", res.status, status, res.body)
	}
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want JSON", ct)
	}
	var eb struct {
		Error struct {
			Code   string  `json:"code"`
			Fields []field `json:"fields"`
		} `json:"error"`
	}
	if err := json.Unmarshal(res.body, &eb); err != nil {
		t.Fatalf("error body: %v: %s", err, res.body)
	}
	if eb.Error.Code != code {
		t.Errorf("code %q, want %q", eb.Error.Code, code)
	}
	if name != "" && !slices.ContainsFunc(eb.Error.Fields, func(f field) bool { return f.Field == name }) {
		t.Errorf("fields %+v do not name %s", eb.Error.Fields, name)
	}
}
