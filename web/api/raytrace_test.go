package api_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/tooltest"
	"linkplan/engines/raytrace"
)

// cityBlock is a GeoJSON layer of n×n buildings on a 60 m pitch around
// (lat, lon) in Rio, 10 to 28 m tall.
func cityBlock(lat, lon float64, n int) string {
	f := raytrace.NewFrame(appliance.LatLon{Lat: lat, Lon: lon})
	var b strings.Builder
	b.WriteString(`{"type":"FeatureCollection","features":[`)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			x0, y0 := float64(i-n/2)*60+10, float64(j-n/2)*60+10
			var coords []string
			for _, p := range []appliance.LatLon{f.ToLatLon(x0, y0), f.ToLatLon(x0+30, y0), f.ToLatLon(x0+30, y0+25), f.ToLatLon(x0, y0+25), f.ToLatLon(x0, y0)} {
				coords = append(coords, fmt.Sprintf("[%.7f,%.7f]", p.Lon, p.Lat))
			}
			if i+j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"type":"Feature","id":"b%d_%d","properties":{"height":"%d"},"geometry":{"type":"Polygon","coordinates":[[%s]]}}`,
				i, j, 10+((i*5+j*3)%4)*6, strings.Join(coords, ","))
		}
	}
	b.WriteString(`]}`)
	return b.String()
}

const rtLat, rtLon = -22.9519, -43.2105

// uploadBlock uploads a city block as key's layer and returns its id.
func uploadBlock(t testing.TB, h *harness, key string) string {
	t.Helper()
	res := h.do(t, "POST", "/buildings/layers?name=block", key, nil, cityBlock(rtLat, rtLon, 6))
	if res.status != http.StatusCreated {
		t.Fatalf("upload: %d %s", res.status, res.body)
	}
	return res.json(t)["layer"].(map[string]any)["id"].(string)
}

// rtResult is the result file of a raytrace link job.
type rtResult struct {
	Route         string `json:"route"`
	Engine        string `json:"engine"`
	EngineVersion string `json:"engine_version"`
	Links         []struct {
		TowerID      string           `json:"tower_id"`
		Reachable    bool             `json:"reachable"`
		LOS          bool             `json:"los"`
		PathLossDB   *float64         `json:"path_loss_db"`
		RxPowerDBm   *float64         `json:"rx_power_dbm"`
		LinkMarginDB *float64         `json:"link_margin_db"`
		Paths        []map[string]any `json:"paths"`
	} `json:"links"`
	Best     *int                `json:"best"`
	Warnings []appliance.Warning `json:"warnings"`
}

// TestRaytraceAnalysisRoutes: engine "raytrace" on the three analysis
// routes answers 202 with the job (the object GET /jobs/{id} returns, and
// its Location) for an Enterprise key; the job traces over the tenant's
// layer and its result holds every path; the refusals carry their status
// and field.
func TestRaytraceAnalysisRoutes(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ent := h.keys["enterprise"]
	layer := uploadBlock(t, h, ent)
	rx := raytrace.NewFrame(appliance.LatLon{Lat: rtLat, Lon: rtLon}).ToLatLon(5, -5)
	tx := raytrace.NewFrame(appliance.LatLon{Lat: rtLat, Lon: rtLon}).ToLatLon(-150, 140)
	rt := fmt.Sprintf(`"engine":"raytrace","raytrace":{"layer_id":%q}`, layer)
	routes := []struct {
		name, url, body, route string
		budget                 bool
	}{
		{"analyze", "/analyze", fmt.Sprintf(`{"tower":{"lat":%.6f,"lon":%.6f,"height_m":30,"power":40},"receiver":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":3500,%s}`,
			tx.Lat, tx.Lon, rx.Lat, rx.Lon, rt), "analyze", true},
		{"engines predict", "/coverage/engines/predict", fmt.Sprintf(`{"tx":{"lat":%.6f,"lon":%.6f,"height_m":30},"rx":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":3500,%s}`,
			tx.Lat, tx.Lon, rx.Lat, rx.Lon, rt), "engines_predict", false},
		{"analyze link", "/analyze_link", fmt.Sprintf(`{"receiver":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":1800,"max_distance_km":3,%s}`,
			rx.Lat, rx.Lon, rt), "analyze_link", true},
	}
	for _, tc := range routes {
		t.Run(tc.name, func(t *testing.T) {
			res := h.do(t, "POST", tc.url, ent, nil, tc.body)
			if res.status != http.StatusAccepted {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			j := decodeInto[jobAnswer](t, res)
			if res.header.Get("Location") != "/jobs/"+j.ID || j.State != "queued" || j.Lane != "priority" {
				t.Fatalf("Location %q, job %s", res.header.Get("Location"), res.body)
			}
			if got := decodeInto[map[string]any](t, h.do(t, "GET", "/jobs/"+j.ID, ent, nil, "")); !reflect.DeepEqual(keysOf(got), keysOf(res.json(t))) {
				t.Errorf("the 202 body is not the job object of GET /jobs/{id}: %v vs %v", keysOf(res.json(t)), keysOf(got))
			}
			done := waitFor(t, h, ent, j.ID)
			if done.State != "succeeded" || done.Result == nil {
				t.Fatalf("job %+v", done)
			}
			dl := h.do(t, "GET", done.Result.DownloadURL, ent, nil, "")
			if dl.status != http.StatusOK {
				t.Fatalf("download %d %s", dl.status, dl.body)
			}
			out := decodeInto[rtResult](t, dl)
			if out.Route != tc.route || out.Engine != "raytrace" || out.EngineVersion != raytrace.Version || len(out.Links) == 0 || out.Best == nil {
				t.Fatalf("result %s", dl.body)
			}
			b := out.Links[*out.Best]
			if !b.Reachable || b.PathLossDB == nil || len(b.Paths) == 0 || (b.RxPowerDBm != nil) != tc.budget {
				t.Fatalf("best link %+v", b)
			}
			t.Logf("%s: %d links, best %q: %d paths, loss %.2f dB, los %v", tc.url, len(out.Links), b.TowerID, len(b.Paths), *b.PathLossDB, b.LOS)
		})
	}

	other := h.keys["pro"]
	for _, tc := range []struct {
		name, url, key, body string
		status               int
		field                string
	}{
		{"Pro on /analyze", "/analyze", other, routes[0].body, 403, ""},
		{"Pro on /analyze_link", "/analyze_link", other, routes[2].body, 403, ""},
		{"Pro on engines predict", "/coverage/engines/predict", other, routes[1].body, 403, ""},
		{"no layer", "/analyze", ent, strings.Replace(routes[0].body, rt, `"engine":"raytrace"`, 1), 422, "raytrace.layer_id"},
		{"an unknown layer", "/analyze", ent, strings.Replace(routes[0].body, layer, "bl_0000000000000000", 1), 404, ""},
		{"raytrace options without the engine", "/analyze", ent, strings.Replace(routes[0].body, `"engine":"raytrace",`, `"engine":"fspl",`, 1), 422, "raytrace"},
		{"a bad reflection order", "/coverage/engines/predict", ent,
			strings.Replace(routes[1].body, `"raytrace":{`, `"raytrace":{"max_reflections":7,`, 1), 422, "raytrace.max_reflections"},
		{"an unknown raytrace option", "/coverage/engines/predict", ent,
			strings.Replace(routes[1].body, `"raytrace":{`, `"raytrace":{"rays":7,`, 1), 422, "raytrace.rays"},
		{"an explicit profile", "/coverage/engines/predict", ent,
			`{"profile":{"distances_m":[0,100],"heights_m":[0,0]},"tx":{"height_m":30},"rx":{"height_m":2},"frequency_mhz":3500,` + rt + `}`, 422, "profile"},
		{"receiver far from the layer", "/analyze", ent, strings.Replace(routes[0].body, fmt.Sprintf(`"receiver":{"lat":%.6f`, rx.Lat), `"receiver":{"lat":-22.70`, 1), 422, "receiver"},
		{"heatmap with the asynchronous engine", "/coverage/heatmap", ent,
			`{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800,"radius_km":3,"resolution_m":90,"engine":"raytrace"}`, 422, "engine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.do(t, "POST", tc.url, tc.key, nil, tc.body)
			if res.status != tc.status {
				t.Fatalf("status %d, want %d: %s", res.status, tc.status, res.body)
			}
			if tc.field != "" && !strings.Contains(string(res.body), `"field":"`+tc.field+`"`) {
				t.Fatalf("answer does not name %s: %s", tc.field, res.body)
			}
		})
	}

	t.Run("the listing", func(t *testing.T) {
		for key, allowed := range map[string]bool{"enterprise": true, "pro": false} {
			res := h.do(t, "GET", "/coverage/engines", h.keys[key], nil, "")
			var l struct {
				Engines []struct {
					ID           string `json:"id"`
					Status       string `json:"status"`
					Asynchronous bool   `json:"asynchronous"`
					Allowed      bool   `json:"allowed_for_key"`
				} `json:"engines"`
			}
			if err := json.Unmarshal(res.body, &l); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, e := range l.Engines {
				if e.ID == "raytrace" {
					found = true
					if e.Status != "available" || !e.Asynchronous || e.Allowed != allowed {
						t.Errorf("%s: raytrace listed %+v", key, e)
					}
				}
			}
			if !found {
				t.Errorf("raytrace not listed: %s", res.body)
			}
		}
	})
}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestRaytraceMapRoute: POST /coverage/raytrace streams a raytrace map as
// a heatmap streams (started with kind raytrace, progress, tiles, the
// summary with the engine's warnings); GET /coverage/heatmap/{id} and its
// exports serve it, and the GeoTIFF reads in GDAL with the map's grid and
// caveats; the tier's caps refuse a larger area or a finer pixel.
func TestRaytraceMapRoute(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ent := h.keys["enterprise"]
	layer := uploadBlock(t, h, ent)
	tx := raytrace.NewFrame(appliance.LatLon{Lat: rtLat, Lon: rtLon}).ToLatLon(-35, 20)
	body := fmt.Sprintf(`{"layer_id":%q,"site":{"lat":%.6f,"lon":%.6f,"height_m":30,"eirp_dbm":55,"azimuth_deg":45},"frequency_mhz":3500,"radius_m":150,"resolution_m":5}`,
		layer, tx.Lat, tx.Lon)
	res := h.do(t, "POST", "/coverage/raytrace", ent, map[string]string{"Content-Type": "application/json"}, body)
	if res.status != http.StatusOK || !strings.HasPrefix(res.header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("%d %s", res.status, res.body)
	}
	id := res.header.Get("X-Map-Id")
	evs := parseSSE(t, res.body)
	if len(evs) < 4 || evs[0].Type != "started" || evs[len(evs)-1].Type != "summary" {
		t.Fatalf("%d events: %s", len(evs), res.body)
	}
	var started struct {
		Kind   string `json:"kind"`
		Engine string `json:"engine"`
		Width  int    `json:"width"`
		Height int    `json:"height"`
	}
	if err := json.Unmarshal([]byte(evs[0].Data), &started); err != nil || started.Kind != "raytrace" || started.Engine != "raytrace" || started.Width != 60 || started.Height != 60 {
		t.Fatalf("started %s: %v", evs[0].Data, err)
	}
	kinds := map[string]int{}
	for _, e := range evs {
		kinds[e.Type]++
	}
	if kinds["progress"] != 8 || kinds["tile"] != 1 {
		t.Errorf("events by type %v; want 8 progress (bands of 8 rows) and 1 tile", kinds)
	}
	var sum struct {
		ValidPixels   int                 `json:"valid_pixels"`
		EngineVersion string              `json:"engine_version"`
		MaxDBm        *float64            `json:"max_dbm"`
		Warnings      []appliance.Warning `json:"warnings"`
		Detail        struct {
			LayerID   string          `json:"layer_id"`
			SceneHash string          `json:"scene_hash"`
			Options   json.RawMessage `json:"options"`
		} `json:"detail"`
	}
	if err := json.Unmarshal([]byte(evs[len(evs)-1].Data), &sum); err != nil || sum.ValidPixels == 0 || sum.EngineVersion != raytrace.Version {
		t.Fatalf("summary %s: %v", evs[len(evs)-1].Data, err)
	}
	// the sector's pattern is applied along the direct bearing: warned
	if !slices.Contains(appliance.WarningCodes(sum.Warnings), "raytrace_pattern_along_bearing") {
		t.Errorf("a sector map's warnings %v lack raytrace_pattern_along_bearing", appliance.WarningCodes(sum.Warnings))
	}
	var opts bytes.Buffer
	if err := json.Compact(&opts, sum.Detail.Options); err != nil || sum.Detail.LayerID != layer || len(sum.Detail.SceneHash) != 64 {
		t.Fatalf("summary detail %+v: %v", sum.Detail, err)
	}
	st := h.do(t, "GET", "/coverage/heatmap/"+id, ent, nil, "")
	if st.status != http.StatusOK || !strings.Contains(string(st.body), `"kind":"raytrace"`) || !strings.Contains(string(st.body), `"state":"done"`) {
		t.Fatalf("state %d %s", st.status, st.body)
	}
	for _, f := range []string{"geotiff", "kmz", "geojson"} {
		if r := h.do(t, "GET", "/coverage/heatmap/"+id+"/export?format="+f, ent, nil, ""); r.status != http.StatusOK || len(r.body) == 0 {
			t.Errorf("export %s: %d %.200s", f, r.status, r.body)
		}
	}
	tif := h.do(t, "GET", "/coverage/heatmap/"+id+"/export?format=geotiff", ent, nil, "")
	info := gdalInfo(t, tif.body)
	if info.Size[0] != 60 || info.Size[1] != 60 || info.Metadata[""]["ENGINE"] != "raytrace" || info.Metadata[""]["ENGINE_VERSION"] != raytrace.Version {
		t.Fatalf("gdalinfo: size %v, metadata %v", info.Size, info.Metadata[""])
	}
	if want := strings.Join(appliance.WarningCodes(sum.Warnings), ";"); info.Metadata[""]["WARNINGS"] != want {
		t.Errorf("GeoTIFF warnings %q, summary %q", info.Metadata[""]["WARNINGS"], want)
	}
	// how the map was traced travels with it: the GeoTIFF's metadata, the
	// KMZ's legend and the contours' properties
	md := info.Metadata[""]
	if md["LAYER_ID"] != layer || md["SCENE_HASH"] != sum.Detail.SceneHash || md["RAYTRACE_OPTIONS"] != opts.String() {
		t.Errorf("GeoTIFF LAYER_ID %q, SCENE_HASH %q, RAYTRACE_OPTIONS %q; want %q, %q, %q",
			md["LAYER_ID"], md["SCENE_HASH"], md["RAYTRACE_OPTIONS"], layer, sum.Detail.SceneHash, opts.String())
	}
	kmz := h.do(t, "GET", "/coverage/heatmap/"+id+"/export?format=kmz", ent, nil, "")
	zr, err := zip.NewReader(bytes.NewReader(kmz.body), int64(len(kmz.body)))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := zr.Open("doc.kml")
	if err != nil {
		t.Fatal(err)
	}
	kmlb, _ := io.ReadAll(doc)
	kml := html.UnescapeString(html.UnescapeString(string(kmlb))) // XML, then the legend's HTML
	for _, want := range []string{"building layer " + layer, sum.Detail.SceneHash, "options " + opts.String(), "raytrace_pattern_along_bearing"} {
		if !strings.Contains(kml, want) {
			t.Errorf("the KMZ's doc.kml lacks %q", want)
		}
	}
	gj := h.do(t, "GET", "/coverage/heatmap/"+id+"/export?format=geojson", ent, nil, "")
	gp := filepath.Join(t.TempDir(), "contours.geojson")
	if err := os.WriteFile(gp, gj.body, 0o600); err != nil {
		t.Fatal(err)
	}
	ogr, err := exec.Command(requireCLI(t, "ogrinfo", "gdal-bin"), "-ro", "-al", gp).CombinedOutput()
	if err != nil {
		t.Fatalf("ogrinfo: %v\n%s", err, ogr)
	}
	for _, want := range []string{"layer_id (String) = " + layer, "scene_hash (String) = " + sum.Detail.SceneHash, "rt_options (String) = " + opts.String()} {
		if !bytes.Contains(ogr, []byte(want)) {
			t.Errorf("ogrinfo of the contours lacks %q", want)
		}
	}
	if b := info.Bands[0]; b.Maximum == nil || *b.Maximum-*sum.MaxDBm > 1e-3 || *sum.MaxDBm-*b.Maximum > 1e-3 {
		t.Errorf("band maximum %v, summary %v", b.Maximum, *sum.MaxDBm)
	}
	t.Logf("raytrace map %s: %d valid of 3600 pixels, warnings %v", id, sum.ValidPixels, appliance.WarningCodes(sum.Warnings))

	for _, tc := range []struct {
		name, key, body string
		status          int
		field           string
	}{
		{"Pro", h.keys["pro"], body, 403, ""},
		{"area over the Enterprise cap", ent, strings.Replace(body, `"radius_m":150`, `"radius_m":800`, 1), 422, "radius_m"},
		{"pixel under the Enterprise cap", ent, strings.Replace(body, `"resolution_m":5`, `"resolution_m":2`, 1), 422, "resolution_m"},
		{"no layer", ent, strings.Replace(body, fmt.Sprintf(`"layer_id":%q,`, layer), "", 1), 422, "layer_id"},
		{"no transmitter", ent, fmt.Sprintf(`{"layer_id":%q,"frequency_mhz":3500}`, layer), 422, "tower_id"},
		{"unknown member", ent, strings.Replace(body, `"radius_m"`, `"radius_km":1,"radius_m"`, 1), 422, "radius_km"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.do(t, "POST", "/coverage/raytrace", tc.key, nil, tc.body)
			if res.status != tc.status || tc.field != "" && !strings.Contains(string(res.body), `"field":"`+tc.field+`"`) {
				t.Fatalf("status %d, want %d naming %q: %s", res.status, tc.status, tc.field, res.body)
			}
		})
	}
}

type gdalInfoJSON struct {
	Size     []int                        `json:"size"`
	Metadata map[string]map[string]string `json:"metadata"`
	Bands    []struct {
		Type    string   `json:"type"`
		Minimum *float64 `json:"minimum"`
		Maximum *float64 `json:"maximum"`
	} `json:"bands"`
}

// gdalInfo reads a GeoTIFF with gdalinfo -json -stats (skipped without
// gdal-bin; make test installs it).
func gdalInfo(t *testing.T, tif []byte) gdalInfoJSON {
	t.Helper()
	tooltest.Need(t, "gdalinfo", "gdal-bin")
	p := filepath.Join(t.TempDir(), "map.tif")
	if err := os.WriteFile(p, tif, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("gdalinfo", "-json", "-stats", p).Output()
	if err != nil {
		t.Fatalf("gdalinfo: %v", err)
	}
	var info gdalInfoJSON
	if err := json.Unmarshal(out, &info); err != nil {
		t.Fatal(err)
	}
	if len(info.Size) != 2 || len(info.Bands) != 1 {
		t.Fatalf("gdalinfo %s", out)
	}
	return info
}

// raytraceScenarios are the raytrace routes in the scenario table (every
// answer checked against the OpenAPI document): the 202 jobs of the
// analysis routes, a finished raytrace job's status and result, and the
// map stream.
func raytraceScenarios(t *testing.T, h *harness) []scenario {
	t.Helper()
	ent := h.keys["enterprise"]
	layer := uploadBlock(t, h, ent)
	f := raytrace.NewFrame(appliance.LatLon{Lat: rtLat, Lon: rtLon})
	rx, tx := f.ToLatLon(5, -5), f.ToLatLon(-150, 140)
	rt := fmt.Sprintf(`"engine":"raytrace","raytrace":{"layer_id":%q,"max_reflections":1}`, layer)
	pair := fmt.Sprintf(`{"tower":{"lat":%.6f,"lon":%.6f,"height_m":30,"power":40},"receiver":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":3500,%s}`,
		tx.Lat, tx.Lon, rx.Lat, rx.Lon, rt)
	res := h.do(t, "POST", "/analyze", ent, nil, pair)
	if res.status != http.StatusAccepted {
		t.Fatalf("%d %s", res.status, res.body)
	}
	j := decodeInto[jobAnswer](t, res)
	waitFor(t, h, ent, j.ID)
	ct := map[string]string{"Content-Type": "application/json"}
	return []scenario{
		{name: "raytrace pair job", method: "POST", url: "/analyze", key: "enterprise", body: pair, status: 202, contains: []string{`"raytrace_link"`}},
		{name: "raytrace link job", method: "POST", url: "/analyze_link", key: "enterprise", status: 202, contains: []string{`"raytrace_link"`},
			body: fmt.Sprintf(`{"receiver":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":1800,"max_distance_km":2,%s}`, rx.Lat, rx.Lon, rt)},
		{name: "raytrace case job", method: "POST", url: "/coverage/engines/predict", key: "enterprise", status: 202, contains: []string{`"raytrace_link"`},
			body: fmt.Sprintf(`{"tx":{"lat":%.6f,"lon":%.6f,"height_m":30},"rx":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":3500,%s}`, tx.Lat, tx.Lon, rx.Lat, rx.Lon, rt)},
		{name: "raytrace job status", method: "GET", url: "/jobs/" + j.ID, key: "enterprise", status: 200, contains: []string{`"best_tower_id":"adhoc"`}},
		{name: "raytrace job result", method: "GET", url: "/jobs/" + j.ID + "/download", key: "enterprise", status: 200, contains: []string{`"route": "analyze"`}},
		{name: "raytrace below its tier", method: "POST", url: "/analyze", key: "pro", body: pair, status: 403, code: "forbidden"},
		{name: "raytrace map", method: "POST", url: "/coverage/raytrace", key: "enterprise", headers: ct, status: 200, contains: []string{"event: summary"},
			body: fmt.Sprintf(`{"layer_id":%q,"site":{"lat":%.6f,"lon":%.6f,"height_m":30,"eirp_dbm":55},"frequency_mhz":3500,"radius_m":60,"resolution_m":10,"max_reflections":1}`, layer, tx.Lat, tx.Lon)},
		{name: "raytrace map below its tier", method: "POST", url: "/coverage/raytrace", key: "pro", headers: ct, status: 403, code: "forbidden",
			body: fmt.Sprintf(`{"layer_id":%q,"site":{"lat":%.6f,"lon":%.6f,"height_m":30,"eirp_dbm":55},"frequency_mhz":3500}`, layer, tx.Lat, tx.Lon)},
		{name: "raytrace map over the cap", method: "POST", url: "/coverage/raytrace", key: "enterprise", headers: ct, status: 422, code: "invalid_input", fields: []string{"radius_m"},
			body: fmt.Sprintf(`{"layer_id":%q,"site":{"lat":%.6f,"lon":%.6f,"height_m":30,"eirp_dbm":55},"frequency_mhz":3500,"radius_m":5000}`, layer, tx.Lat, tx.Lon)},
	}
}

// raytracePairOn is an /analyze body with engine raytrace over layer: a
// 30 m transmitter north-west of the city block and a street-level
// receiver inside it, first-order reflections.
func raytracePairOn(layer string) string {
	f := raytrace.NewFrame(appliance.LatLon{Lat: rtLat, Lon: rtLon})
	rx, tx := f.ToLatLon(5, -5), f.ToLatLon(-150, 140)
	return fmt.Sprintf(`{"tower":{"lat":%.6f,"lon":%.6f,"height_m":30,"power":40},"receiver":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":3500,`+
		`"engine":"raytrace","raytrace":{"layer_id":%q,"max_reflections":1}}`, tx.Lat, tx.Lon, rx.Lat, rx.Lon, layer)
}

// raytraceMapOn is a small /coverage/raytrace body over layer (12 × 12
// pixels of 10 m).
func raytraceMapOn(layer string) string {
	tx := raytrace.NewFrame(appliance.LatLon{Lat: rtLat, Lon: rtLon}).ToLatLon(-35, 20)
	return fmt.Sprintf(`{"layer_id":%q,"site":{"lat":%.6f,"lon":%.6f,"height_m":30,"eirp_dbm":55},"frequency_mhz":3500,"radius_m":60,"resolution_m":10,"max_reflections":1}`,
		layer, tx.Lat, tx.Lon)
}

// TestRaytraceIsolation: a second Enterprise tenant naming A's building
// layer on every raytrace route gets 404 (never a job or a map over A's
// buildings), and A's raytrace job, its result and A's raytrace map and
// its export are unknown to it (404); A still sees them.
func TestRaytraceIsolation(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	a := h.keys["enterprise"]
	b := h.issue(t, "enterprise-b", appliance.TierEnterprise, appliance.RoleTenant)
	layer := uploadBlock(t, h, a)
	res := h.do(t, "POST", "/analyze", a, nil, raytracePairOn(layer))
	if res.status != http.StatusAccepted {
		t.Fatalf("A's job: %d %s", res.status, res.body)
	}
	job := decodeInto[jobAnswer](t, res)
	if done := waitFor(t, h, a, job.ID); done.State != "succeeded" {
		t.Fatalf("A's job %+v", done)
	}
	m := h.do(t, "POST", "/coverage/raytrace", a, nil, raytraceMapOn(layer))
	mapID := m.header.Get("X-Map-Id")
	if m.status != http.StatusOK || mapID == "" {
		t.Fatalf("A's map: %d %s", m.status, m.body)
	}
	f := raytrace.NewFrame(appliance.LatLon{Lat: rtLat, Lon: rtLon})
	rx, tx := f.ToLatLon(5, -5), f.ToLatLon(-150, 140)
	rt := fmt.Sprintf(`"engine":"raytrace","raytrace":{"layer_id":%q}`, layer)
	for _, tc := range []struct{ name, method, url, body string }{
		{"pair over A's layer", "POST", "/analyze", raytracePairOn(layer)},
		{"case over A's layer", "POST", "/coverage/engines/predict", fmt.Sprintf(`{"tx":{"lat":%.6f,"lon":%.6f,"height_m":30},"rx":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":3500,%s}`,
			tx.Lat, tx.Lon, rx.Lat, rx.Lon, rt)},
		{"link over A's layer", "POST", "/analyze_link", fmt.Sprintf(`{"receiver":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":1800,"max_distance_km":3,%s}`, rx.Lat, rx.Lon, rt)},
		{"map over A's layer", "POST", "/coverage/raytrace", raytraceMapOn(layer)},
		{"A's job", "GET", "/jobs/" + job.ID, ""},
		{"A's job result", "GET", "/jobs/" + job.ID + "/download", ""},
		{"A's map", "GET", "/coverage/heatmap/" + mapID, ""},
		{"A's map export", "GET", "/coverage/heatmap/" + mapID + "/export?format=geotiff", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.do(t, tc.method, tc.url, b, nil, tc.body)
			if res.status != http.StatusNotFound {
				t.Fatalf("as B: %d %s", res.status, res.body)
			}
			for _, marker := range []string{layer, job.ID, mapID} {
				if strings.Contains(string(res.body), marker) && !strings.Contains(tc.url+tc.body, marker) {
					t.Errorf("B's answer names %s: %s", marker, res.body)
				}
			}
			if tc.body != "" {
				// The answer for A's layer is the answer for no layer at all.
				const none = "bl_0000000000000000"
				other := h.do(t, tc.method, tc.url, b, nil, strings.ReplaceAll(tc.body, layer, none))
				if other.status != res.status || gjsonMessage(t, other.body) != strings.ReplaceAll(gjsonMessage(t, res.body), layer, none) {
					t.Errorf("A's layer answers %d %s; an unknown layer %d %s", res.status, res.body, other.status, other.body)
				}
			}
			if tc.method == "GET" {
				if res := h.do(t, tc.method, tc.url, a, nil, ""); res.status != http.StatusOK {
					t.Errorf("as A: %d", res.status)
				}
			}
		})
	}
}

// gjsonMessage is the error message of an error body.
func gjsonMessage(t *testing.T, body []byte) string {
	t.Helper()
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return e.Error.Message
}
