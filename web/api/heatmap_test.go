package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"linkplan/appliance/tooltest"
)

type sseEvent struct {
	ID   int
	Type string
	Data string
	Raw  string // the event's bytes as sent
}

// parseSSE splits a text/event-stream body into events (comments and the
// retry line are skipped).
func parseSSE(t *testing.T, body []byte) []sseEvent {
	t.Helper()
	var out []sseEvent
	for _, block := range strings.Split(string(body), "\n\n") {
		if block == "" {
			continue
		}
		var e sseEvent
		for _, line := range strings.Split(block, "\n") {
			k, v, _ := strings.Cut(line, ": ")
			switch k {
			case "id":
				n, err := strconv.Atoi(v)
				if err != nil {
					t.Fatalf("event id %q", v)
				}
				e.ID = n
			case "event":
				e.Type = v
			case "data":
				e.Data = v
			}
		}
		if e.Type != "" {
			e.Raw = block + "\n\n"
			out = append(out, e)
		}
	}
	return out
}

const heatmapBody = `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800,"radius_km":3,"resolution_m":90,"engine":"fspl"}`

func startMap(t *testing.T, h *harness, key, body string) (string, []sseEvent, []byte) {
	t.Helper()
	res := h.do(t, "POST", "/coverage/heatmap", key, map[string]string{"Content-Type": "application/json"}, body)
	if res.status != http.StatusOK || !strings.HasPrefix(res.header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("%d %s %s", res.status, res.header.Get("Content-Type"), res.body)
	}
	return res.header.Get("X-Map-Id"), parseSSE(t, res.body), res.body
}

func TestHeatmapStreamResumeAndExport(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	id, evs, _ := startMap(t, h, h.keys["pro"], heatmapBody)
	if id == "" || len(evs) < 3 {
		t.Fatalf("map %q, %d events", id, len(evs))
	}
	if evs[0].Type != "started" || evs[len(evs)-1].Type != "summary" {
		t.Fatalf("first %s, last %s", evs[0].Type, evs[len(evs)-1].Type)
	}
	var started struct {
		MapID string `json:"map_id"`
		Tiles int    `json:"tiles"`
		Width int    `json:"width"`
	}
	if err := json.Unmarshal([]byte(evs[0].Data), &started); err != nil || started.MapID != id {
		t.Fatalf("started %s: %v", evs[0].Data, err)
	}
	tiles := 0
	for i, e := range evs {
		if e.ID != i+1 {
			t.Fatalf("event %d has id %d", i, e.ID)
		}
		if e.Type == "tile" {
			tiles++
		}
	}
	if tiles != started.Tiles {
		t.Errorf("%d tiles, started announced %d", tiles, started.Tiles)
	}
	var sum struct {
		ValidPixels int      `json:"valid_pixels"`
		MaxDBm      *float64 `json:"max_dbm"`
		MinDBm      *float64 `json:"min_dbm"`
	}
	if err := json.Unmarshal([]byte(evs[len(evs)-1].Data), &sum); err != nil || sum.ValidPixels == 0 || sum.MaxDBm == nil {
		t.Fatalf("summary %s: %v", evs[len(evs)-1].Data, err)
	}

	// Resume after event 3 (header) and after 5 (query): the same bytes.
	for _, after := range []int{3, 5} {
		hdr := map[string]string{"Last-Event-ID": strconv.Itoa(after)}
		url := "/coverage/heatmap/" + id + "/events"
		if after == 5 {
			hdr, url = nil, url+"?after=5"
		}
		res := h.do(t, "GET", url, h.keys["pro"], hdr, "")
		again := parseSSE(t, res.body)
		if res.status != http.StatusOK || len(again) != len(evs)-after {
			t.Fatalf("resume after %d: %d, %d events", after, res.status, len(again))
		}
		for i, e := range again {
			if e.Raw != evs[after+i].Raw {
				t.Fatalf("resumed event %d differs:\n%s\nvs\n%s", e.ID, e.Raw, evs[after+i].Raw)
			}
		}
	}

	res := h.do(t, "GET", "/coverage/heatmap/"+id, h.keys["pro"], nil, "")
	if res.status != http.StatusOK || !bytes.Contains(res.body, []byte(`"state":"done"`)) {
		t.Fatalf("status %d %s", res.status, res.body)
	}
	res = h.do(t, "GET", "/coverage/heatmap/"+id+"/export?format=geotiff", h.keys["pro"], nil, "")
	if res.status != http.StatusOK || res.header.Get("Content-Type") != "image/tiff" {
		t.Fatalf("export %d %s", res.status, res.body)
	}
	if res := h.do(t, "GET", "/coverage/heatmap/"+id+"/export?format=bmp", h.keys["pro"], nil, ""); res.status != http.StatusUnprocessableEntity || !bytes.Contains(res.body, []byte(`"format"`)) {
		t.Errorf("bad format: %d %s", res.status, res.body)
	}
	tooltest.Need(t, "gdalinfo", "gdal-bin")
	p := filepath.Join(t.TempDir(), "map.tif")
	if err := os.WriteFile(p, res.body, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("gdalinfo", "-json", "-stats", p).Output()
	if err != nil {
		t.Fatalf("gdalinfo: %v", err)
	}
	var info struct {
		Size  []int `json:"size"`
		Bands []struct {
			Type    string   `json:"type"`
			Minimum *float64 `json:"minimum"`
			Maximum *float64 `json:"maximum"`
		} `json:"bands"`
		CoordinateSystem struct {
			WKT string `json:"wkt"`
		} `json:"coordinateSystem"`
	}
	if err := json.Unmarshal(out, &info); err != nil {
		t.Fatal(err)
	}
	if len(info.Size) != 2 || info.Size[0] != started.Width || len(info.Bands) != 1 || info.Bands[0].Type != "Float32" {
		t.Fatalf("gdalinfo %s", out)
	}
	if !strings.Contains(info.CoordinateSystem.WKT, "4326") {
		t.Errorf("not EPSG:4326: %s", info.CoordinateSystem.WKT)
	}
	b := info.Bands[0]
	if b.Maximum == nil || *b.Maximum-*sum.MaxDBm > 1e-3 || *sum.MaxDBm-*b.Maximum > 1e-3 || *b.Minimum-*sum.MinDBm > 1e-3 || *sum.MinDBm-*b.Minimum > 1e-3 {
		t.Errorf("band statistics %v..%v, stream summary %v..%v", *b.Minimum, *b.Maximum, *sum.MinDBm, *sum.MaxDBm)
	}
}

// A client that leaves cancels the computation it alone was watching.
func TestHeatmapCancelOnDisconnect(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	body := `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":900,"radius_km":30,"resolution_m":90,"engine":"itm"}`
	req, err := http.NewRequest("POST", h.srv.URL+"/coverage/heatmap", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", h.keys["pro"])
	req.Header.Set("Content-Type", "application/json")
	res, err := h.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	id := res.Header.Get("X-Map-Id")
	line, err := bufio.NewReader(res.Body).ReadString('\n')
	if err != nil || id == "" {
		t.Fatalf("first line %q, map %q: %v", line, id, err)
	}
	res.Body.Close() // the client leaves
	h.srv.CloseClientConnections()
	deadline := time.Now().Add(30 * time.Second)
	for {
		h.clock.advance(time.Second) // a rate-limit slot per poll (appliance/quota)
		st := h.do(t, "GET", "/coverage/heatmap/"+id, h.keys["pro"], nil, "")
		if bytes.Contains(st.body, []byte(`"state":"canceled"`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("map not canceled after the client left: %s", st.body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	ev := parseSSE(t, h.do(t, "GET", "/coverage/heatmap/"+id+"/events", h.keys["pro"], nil, "").body)
	if last := ev[len(ev)-1]; last.Type != "error" || !strings.Contains(last.Data, `"canceled"`) {
		t.Errorf("last event %+v", last)
	}
}

func TestHeatmapBadInputs(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ct := map[string]string{"Content-Type": "application/json"}
	for _, tc := range []struct {
		name, key, route, body, field string
		status                        int
	}{
		{"radius over the Free cap", "free", "/coverage/heatmap", `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800,"radius_km":10}`, "radius_km", 422},
		{"resolution finer than Free", "free", "/coverage/heatmap", `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800,"radius_km":2,"resolution_m":90}`, "resolution_m", 422},
		{"radius over the Pro cap", "pro", "/coverage/heatmap", `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800,"radius_km":80}`, "radius_km", 422},
		{"unknown tower", "pro", "/coverage/heatmap", `{"tower_id":"anatel:nope","frequency_mhz":1800}`, "tower_id", 422},
		{"no transmitter", "pro", "/coverage/heatmap", `{"frequency_mhz":1800}`, "tower_id", 422},
		{"no frequency", "pro", "/coverage/heatmap", `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58}}`, "frequency_mhz", 422},
		{"site without eirp", "pro", "/coverage/heatmap", `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30},"frequency_mhz":1800}`, "site.eirp_dbm", 422},
		{"negative radius", "pro", "/coverage/heatmap", `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800,"radius_km":-1}`, "radius_km", 422},
		{"unknown engine", "pro", "/coverage/heatmap", `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800,"engine":"warp"}`, "engine", 422},
		{"Free asks itm", "free", "/coverage/heatmap", `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800,"radius_km":2,"engine":"itm"}`, "", 403},
		{"Free best-server", "free", "/coverage/best_server", `{"tower_ids":["a","b"],"frequency_mhz":1800,"radius_km":2}`, "", 403},
		{"best-server with a site", "pro", "/coverage/best_server", `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800}`, "tower_ids", 422},
		{"exact on Free", "free", "/coverage/heatmap", `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800,"radius_km":2,"resolution_m":250,"exact":true}`, "exact", 422},
		{"exact over the Pro cap", "pro", "/coverage/heatmap", `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800,"radius_km":30,"resolution_m":90,"exact":true}`, "exact", 422},
		{"exact not a boolean", "pro", "/coverage/heatmap", `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800,"exact":"yes"}`, "exact", 422},
		{"best-server bad bbox", "pro", "/coverage/best_server", `{"bbox":{"min_lat":-22,"min_lon":-43,"max_lat":-23,"max_lon":-42},"frequency_mhz":1800}`, "bbox", 422},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Map routes are rate-limited per minute (Free 2, appliance/quota)
			// at the harness clock: each case gets a fresh slot.
			h.clock.nextStep()
			res := h.do(t, "POST", tc.route, h.keys[tc.key], ct, tc.body)
			if res.status != tc.status {
				t.Fatalf("%d %s", res.status, res.body)
			}
			if tc.field != "" && !bytes.Contains(res.body, []byte(`"field":"`+tc.field+`"`)) {
				t.Errorf("field %s not named: %s", tc.field, res.body)
			}
		})
	}
}

// Missing terrain inside the radius: the summary names the tile and
// counts the no-data pixels.
func TestHeatmapMissingTerrainNamed(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	body := `{"site":{"lat":-22.05,"lon":-43.05,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800,"radius_km":12,"resolution_m":250,"engine":"fspl"}`
	_, evs, _ := startMap(t, h, h.keys["pro"], body)
	last := evs[len(evs)-1]
	var sum struct {
		Missing []string `json:"missing_tiles"`
		NoData  int      `json:"nodata_missing_terrain_pixels"`
	}
	if err := json.Unmarshal([]byte(last.Data), &sum); err != nil || last.Type != "summary" {
		t.Fatalf("%s %s: %v", last.Type, last.Data, err)
	}
	if len(sum.Missing) == 0 || sum.NoData == 0 {
		t.Fatalf("summary does not name the missing terrain: %s", last.Data)
	}
}

// TestIssue22_ExactModeAPI: exact on the map request gives an exact map
// whose summary says what a pixel stands for, and the default mode says
// its own.
func TestIssue22_ExactModeAPI(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	for _, tc := range []struct{ exact, mode string }{{`,"exact":true`, "exact"}, {"", "default"}} {
		h.clock.nextStep()
		body := strings.TrimSuffix(heatmapBody, "}") + tc.exact + "}"
		_, evs, _ := startMap(t, h, h.keys["pro"], body)
		last := evs[len(evs)-1]
		var sum struct {
			Pixel struct {
				Mode     string  `json:"mode"`
				Receiver string  `json:"receiver"`
				Profile  string  `json:"profile"`
				Within1  float64 `json:"within_1db_pct"`
			} `json:"pixel"`
		}
		if err := json.Unmarshal([]byte(last.Data), &sum); err != nil || last.Type != "summary" {
			t.Fatalf("%s %s: %v", last.Type, last.Data, err)
		}
		if sum.Pixel.Mode != tc.mode || !strings.Contains(sum.Pixel.Receiver, "pixel centre") || sum.Pixel.Profile == "" || sum.Pixel.Within1 < 99 {
			t.Errorf("summary pixel %+v, want mode %s", sum.Pixel, tc.mode)
		}
	}
}

// TestTenantIsolationHeatmaps is the isolation table of the coverage map
// routes: another tenant's map is a 404 on every route, like a missing one.
func TestTenantIsolationHeatmaps(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	id, _, _ := startMap(t, h, h.keys["pro"], heatmapBody)
	for _, tc := range []struct{ name, url string }{
		{"status", "/coverage/heatmap/" + id},
		{"events", "/coverage/heatmap/" + id + "/events"},
		{"export", "/coverage/heatmap/" + id + "/export?format=geotiff"},
		{"missing map", "/coverage/heatmap/doesnotexist"},
	} {
		for _, key := range []string{"internal", "free"} {
			t.Run(tc.name+" as "+key, func(t *testing.T) {
				res := h.do(t, "GET", tc.url, h.keys[key], nil, "")
				if res.status != http.StatusNotFound || bytes.Contains(res.body, []byte("summary")) {
					t.Fatalf("%d %s", res.status, res.body)
				}
			})
		}
	}
	if res := h.do(t, "GET", "/coverage/heatmap/"+id, h.keys["pro"], nil, ""); res.status != http.StatusOK {
		t.Errorf("owner: %d", res.status)
	}
}
