package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
)

// Two sectors of one site on one channel and a third site on the adjacent
// channel: every pixel has a best server and co-channel interference.
const interferenceBody = `{"sites":[` +
	`{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58,"azimuth_deg":0,"beamwidth_deg":65},` +
	`{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58,"azimuth_deg":120,"beamwidth_deg":65},` +
	`{"lat":-22.95,"lon":-43.28,"height_m":25,"eirp_dbm":55,"frequency_mhz":1820}],` +
	`"frequency_mhz":1800,"bandwidth_mhz":20,"radius_km":3,"resolution_m":90,"engine":"fspl"}`

const viewshedBody = `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30},"frequency_mhz":5800,"radius_km":3,"resolution_m":90,"rx_height_m":5}`

func startNetMap(t *testing.T, h *harness, path, key, body string) (string, []sseEvent) {
	t.Helper()
	res := h.do(t, "POST", path, key, map[string]string{"Content-Type": "application/json"}, body)
	if res.status != http.StatusOK || !strings.HasPrefix(res.header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("POST %s: %d %s %s", path, res.status, res.header.Get("Content-Type"), res.body)
	}
	return res.header.Get("X-Map-Id"), parseSSE(t, res.body)
}

// TestIssue26_InterferenceMapStream: POST /coverage/interference streams
// started, tiles with SINR and the best server, and a summary with the
// SINR areas and every caveat; GET, resume and every export answer.
func TestIssue26_InterferenceMapStream(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	id, evs := startNetMap(t, h, "/coverage/interference", h.keys["pro"], interferenceBody)
	if id == "" || evs[0].Type != "started" || evs[len(evs)-1].Type != "summary" {
		t.Fatalf("map %q: %d events, first %s, last %s: %s", id, len(evs), evs[0].Type, evs[len(evs)-1].Type, evs[len(evs)-1].Data)
	}
	var started struct {
		Kind         string `json:"kind"`
		Tiles        int    `json:"tiles"`
		Servers      int    `json:"servers"`
		Transmitters []any  `json:"transmitters"`
	}
	if err := json.Unmarshal([]byte(evs[0].Data), &started); err != nil || started.Kind != "interference" || started.Servers != 3 || len(started.Transmitters) != 3 {
		t.Fatalf("started %s: %v", evs[0].Data, err)
	}
	tiles := 0
	for i, e := range evs {
		if e.ID != i+1 {
			t.Fatalf("event %d has id %d", i, e.ID)
		}
		if e.Type == "tile" {
			tiles++
			var td struct {
				Data    string `json:"data"`
				Servers string `json:"servers"`
			}
			if err := json.Unmarshal([]byte(e.Data), &td); err != nil || td.Data == "" || td.Servers == "" {
				t.Fatalf("tile without data or servers: %.300s", e.Data)
			}
		}
	}
	if tiles != started.Tiles {
		t.Errorf("%d tiles, started announced %d", tiles, started.Tiles)
	}
	var sum struct {
		ValidPixels int `json:"valid_pixels"`
		Detail      struct {
			Kind             string `json:"kind"`
			InterferedPixels int    `json:"interfered_pixels"`
			SINRAreas        []struct {
				ThresholdDB float64 `json:"threshold_db"`
				AreaKm2     float64 `json:"area_km2"`
			} `json:"sinr_areas"`
			ServedPixels []int `json:"served_pixels"`
			Channels     []any `json:"channels"`
		} `json:"detail"`
		Warnings []struct {
			Code string `json:"code"`
		} `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(evs[len(evs)-1].Data), &sum); err != nil {
		t.Fatal(err)
	}
	d := sum.Detail
	if d.Kind != "interference" || sum.ValidPixels == 0 || d.InterferedPixels == 0 || len(d.SINRAreas) != 4 || len(d.ServedPixels) != 3 || len(d.Channels) != 2 {
		t.Fatalf("summary %s", evs[len(evs)-1].Data)
	}
	acs := false
	for _, w := range sum.Warnings {
		acs = acs || w.Code == "acs_assumed"
	}
	if !acs {
		t.Errorf("the adjacent channel counts with the default selectivity: acs_assumed missing from %s", evs[len(evs)-1].Data)
	}

	// resume after event 2: the same bytes
	res := h.do(t, "GET", "/coverage/heatmap/"+id+"/events", h.keys["pro"], map[string]string{"Last-Event-ID": "2"}, "")
	again := parseSSE(t, res.body)
	if res.status != http.StatusOK || len(again) != len(evs)-2 {
		t.Fatalf("resume: %d, %d events", res.status, len(again))
	}
	for i, e := range again {
		if e.Raw != evs[2+i].Raw {
			t.Fatalf("resumed event %d differs", e.ID)
		}
	}
	res = h.do(t, "GET", "/coverage/heatmap/"+id, h.keys["pro"], nil, "")
	if res.status != http.StatusOK || !bytes.Contains(res.body, []byte(`"kind":"interference"`)) || !bytes.Contains(res.body, []byte(`"sinr_areas"`)) {
		t.Fatalf("GET %d %s", res.status, res.body)
	}
	for _, c := range []struct{ format, ctype, want string }{
		{"geotiff", "image/tiff", ""},
		{"geojson", "application/geo+json", `"sinr_db"`},
		{"kmz", "application/vnd.google-earth.kmz", ""},
	} {
		res := h.do(t, "GET", "/coverage/heatmap/"+id+"/export?format="+c.format, h.keys["pro"], nil, "")
		if res.status != http.StatusOK || res.header.Get("Content-Type") != c.ctype || !bytes.Contains(res.body, []byte(c.want)) {
			t.Errorf("export %s: %d %s %.300s", c.format, res.status, res.header.Get("Content-Type"), res.body)
		}
	}
	// another tenant's key does not find it
	if res := h.do(t, "GET", "/coverage/heatmap/"+id, h.keys["internal"], nil, ""); res.status != http.StatusNotFound {
		t.Errorf("another tenant: %d", res.status)
	}
}

// TestIssue26_ViewshedMapStream: POST /coverage/viewshed streams the class
// raster; the summary's detail has the visible area in km², and the
// exports answer.
func TestIssue26_ViewshedMapStream(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	id, evs := startNetMap(t, h, "/coverage/viewshed", h.keys["pro"], viewshedBody)
	last := evs[len(evs)-1]
	if evs[0].Type != "started" || last.Type != "summary" || !strings.Contains(evs[0].Data, `"kind":"viewshed"`) {
		t.Fatalf("%d events: first %s, last %s %s", len(evs), evs[0].Data, last.Type, last.Data)
	}
	var sum struct {
		InRadiusPixels int `json:"in_radius_pixels"`
		ValidPixels    int `json:"valid_pixels"`
		Detail         struct {
			Kind        string  `json:"kind"`
			VisibleKm2  float64 `json:"visible_km2"`
			InRadiusKm2 float64 `json:"in_radius_km2"`
			LOSPixels   int     `json:"los_pixels"`
		} `json:"detail"`
	}
	if err := json.Unmarshal([]byte(last.Data), &sum); err != nil {
		t.Fatal(err)
	}
	if d := sum.Detail; d.Kind != "viewshed" || d.LOSPixels == 0 || !(d.VisibleKm2 > 0 && d.VisibleKm2 <= d.InRadiusKm2) || d.InRadiusKm2 > 3.2*3.2*3.1416 {
		t.Fatalf("summary %s", last.Data)
	}
	for _, f := range []string{"geotiff", "geojson", "kml"} {
		res := h.do(t, "GET", "/coverage/heatmap/"+id+"/export?format="+f, h.keys["pro"], nil, "")
		if res.status != http.StatusOK || len(res.body) == 0 {
			t.Errorf("export %s: %d %.300s", f, res.status, res.body)
		}
		if f == "geojson" && !bytes.Contains(res.body, []byte(`"los"`)) {
			t.Errorf("geojson without the visible area: %.300s", res.body)
		}
	}
}

// TestIssue26_NetworkMapsRefusals: bad bodies are 422 naming the field,
// the tier caps hold, and Free has no interference maps.
func TestIssue26_NetworkMapsRefusals(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	site := `{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58}`
	for _, c := range []struct {
		name, key, path, body, field string
		status                       int
	}{
		{"no transmitter", "pro", "/coverage/interference", `{"frequency_mhz":1800}`, "sites", 422},
		{"no frequency", "pro", "/coverage/interference", `{"sites":[` + site + `]}`, "frequency_mhz", 422},
		{"site without eirp", "pro", "/coverage/interference", `{"sites":[{"lat":-22.93,"lon":-43.30,"height_m":30}],"frequency_mhz":1800}`, "sites[0].eirp_dbm", 422},
		{"bad bandwidth", "pro", "/coverage/interference", `{"sites":[` + site + `],"frequency_mhz":1800,"bandwidth_mhz":5000}`, "sites[0].bandwidth_mhz", 422},
		{"bad site frequency", "pro", "/coverage/interference", `{"sites":[{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58,"frequency_mhz":-3}],"frequency_mhz":1800}`, "sites[0].frequency_mhz", 422},
		{"thresholds descending", "pro", "/coverage/interference", `{"sites":[` + site + `],"frequency_mhz":1800,"sinr_thresholds_db":[10,0]}`, "sinr_thresholds_db[1]", 422},
		{"radius over the Pro cap", "pro", "/coverage/interference", `{"sites":[` + site + `],"frequency_mhz":1800,"radius_km":80}`, "radius_km", 422},
		{"unknown tower", "pro", "/coverage/interference", `{"tower_ids":["anatel:nope"],"frequency_mhz":1800}`, "tower_ids[0]", 422},
		{"unknown radio", "pro", "/coverage/interference", `{"sites":[` + site + `,{"lat":-22.94,"lon":-43.31,"height_m":30,"eirp_dbm":58,"radio_id":"no-such-radio"}],"frequency_mhz":1800}`, "sites[1].radio_id", 422},
		{"empty radio id", "pro", "/coverage/interference", `{"sites":[{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58,"radio_id":""}],"frequency_mhz":1800}`, "sites[0].radio_id", 422},
		{"Free has none", "free", "/coverage/interference", `{"sites":[` + site + `],"frequency_mhz":1800,"radius_km":2}`, "", 403},
		{"viewshed without site", "pro", "/coverage/viewshed", `{"frequency_mhz":1800}`, "tower_id", 422},
		{"viewshed bad k", "pro", "/coverage/viewshed", `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30},"frequency_mhz":1800,"k_factor":40}`, "k_factor", 422},
		{"viewshed radius over Free", "free", "/coverage/viewshed", `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30},"frequency_mhz":1800,"radius_km":10}`, "radius_km", 422},
		{"viewshed resolution finer than Free", "free", "/coverage/viewshed", `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30},"frequency_mhz":1800,"radius_km":2,"resolution_m":90}`, "resolution_m", 422},
		{"viewshed unknown tower", "pro", "/coverage/viewshed", `{"tower_id":"anatel:nope","frequency_mhz":1800}`, "tower_id", 422},
		{"viewshed unknown field", "pro", "/coverage/viewshed", `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30},"frequency_mhz":1800,"warp":1}`, "", 422},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.key == "free" {
				h.clock.advance(time.Minute) // the Free tier's maps group allows 2 a minute
			}
			res := h.do(t, "POST", c.path, h.keys[c.key], map[string]string{"Content-Type": "application/json"}, c.body)
			if res.status != c.status || c.field != "" && !bytes.Contains(res.body, []byte(strconv.Quote(c.field))) {
				t.Fatalf("%d %s", res.status, res.body)
			}
		})
	}
}

// TestIssue22_NetworkMapsExactAPI: POST /coverage/interference and
// /coverage/viewshed take exact; the summary's pixel and the GeoTIFF's
// PIXEL_MODE say the mode, with the measured agreement; an exact map past
// the tier's exact cap is a 422 naming exact (Starter 50,000 pixels:
// three 10 km transmitters at 90 m are about 116,000; a 15 km viewshed
// about 87,000).
func TestIssue22_NetworkMapsExactAPI(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	for _, c := range []struct{ path, body string }{
		{"/coverage/interference", interferenceBody},
		{"/coverage/viewshed", viewshedBody},
	} {
		for _, tc := range []struct{ exact, mode string }{{`,"exact":true`, "exact"}, {`,"exact":false`, "default"}} {
			h.clock.nextStep()
			id, evs := startNetMap(t, h, c.path, h.keys["pro"], strings.TrimSuffix(c.body, "}")+tc.exact+"}")
			last := evs[len(evs)-1]
			var sum struct {
				Pixel struct {
					Mode     string  `json:"mode"`
					Receiver string  `json:"receiver"`
					Profile  string  `json:"profile"`
					Within1  float64 `json:"within_1db_pct"`
					Within3  float64 `json:"within_3db_pct"`
					Source   string  `json:"agreement_source"`
				} `json:"pixel"`
			}
			if err := json.Unmarshal([]byte(last.Data), &sum); err != nil || last.Type != "summary" {
				t.Fatalf("%s %s: %s %v", c.path, last.Type, last.Data, err)
			}
			p := sum.Pixel
			if p.Mode != tc.mode || !strings.Contains(p.Receiver, "pixel centre") || p.Profile == "" || p.Within1 < 99 || p.Within3 < 99.9 || p.Source == "" {
				t.Errorf("%s: summary pixel %+v, want mode %s", c.path, p, tc.mode)
			}
			res := h.do(t, "GET", "/coverage/heatmap/"+id+"/export?format=geotiff", h.keys["pro"], nil, "")
			if res.status != http.StatusOK || !bytes.Contains(res.body, []byte(`<Item name="PIXEL_MODE">`+tc.mode+`</Item>`)) ||
				!bytes.Contains(res.body, []byte(`<Item name="PIXEL_WITHIN_1DB_PCT">`)) {
				t.Errorf("%s: GeoTIFF export %d without PIXEL_MODE %s", c.path, res.status, tc.mode)
			}
		}
	}
	h.issue(t, "starter", appliance.TierStarter, appliance.RoleTenant)
	site := `{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58}`
	for _, c := range []struct{ name, key, path, body string }{
		{"interference over the Starter exact cap", "starter", "/coverage/interference",
			`{"sites":[` + site + `,` + site + `,` + site + `],"frequency_mhz":1800,"radius_km":10,"exact":true}`},
		{"viewshed over the Starter exact cap", "starter", "/coverage/viewshed",
			`{"site":{"lat":-22.93,"lon":-43.30,"height_m":30},"frequency_mhz":1800,"radius_km":15,"exact":true}`},
		{"Free has no exact viewshed", "free", "/coverage/viewshed",
			`{"site":{"lat":-22.93,"lon":-43.30,"height_m":30},"frequency_mhz":1800,"radius_km":2,"exact":true}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := h.do(t, "POST", c.path, h.keys[c.key], map[string]string{"Content-Type": "application/json"}, c.body)
			if res.status != http.StatusUnprocessableEntity || !bytes.Contains(res.body, []byte(`"exact"`)) {
				t.Fatalf("%d %s", res.status, res.body)
			}
		})
	}
}
