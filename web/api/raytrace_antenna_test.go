package api_test

// The raytrace routes' antennas, caveats, audit and odd inputs (review
// rvapi, findings 1, 2, 5, 6, 8 and 10).

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/raytrace"
)

// startedAntenna is the antenna the started event of a map stream states
// for its transmitter.
func startedAntenna(t *testing.T, body []byte) string {
	t.Helper()
	evs := parseSSE(t, body)
	var started struct {
		Transmitters []struct {
			Antenna string `json:"antenna"`
		} `json:"transmitters"`
	}
	if len(evs) == 0 || json.Unmarshal([]byte(evs[0].Data), &started) != nil || len(started.Transmitters) != 1 {
		t.Fatalf("no started event with one transmitter: %.300s", body)
	}
	return started.Transmitters[0].Antenna
}

// lastWarnings are the warnings of a map stream's last event (its
// summary).
func lastWarnings(t *testing.T, body []byte) []appliance.Warning {
	t.Helper()
	evs := parseSSE(t, body)
	var s struct {
		Warnings []appliance.Warning `json:"warnings"`
	}
	if len(evs) == 0 || evs[len(evs)-1].Type != "summary" || json.Unmarshal([]byte(evs[len(evs)-1].Data), &s) != nil {
		t.Fatalf("no summary: %.500s", body)
	}
	return s.Warnings
}

// TestRaytraceMapAntenna: a raytrace map's site radiates the catalogue
// antenna it names, with its tilt, as a heatmap's does (the started
// event states the same antenna; the vertical pattern is applied along
// the direct ray, warned); an unknown antenna or a bad tilt is refused
// as the heatmap refuses it, 422 naming the field.
func TestRaytraceMapAntenna(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ent := h.keys["enterprise"]
	layer := uploadBlock(t, h, ent)
	tx := raytrace.NewFrame(appliance.LatLon{Lat: rtLat, Lon: rtLon}).ToLatLon(-35, 20)
	for _, tc := range []struct {
		name, antenna string
		status        int
		field         string
	}{
		{"catalogue omni antenna tilted", `"antenna_id":"builtin:omni-10dbi","tilt_deg":10`, 200, ""},
		{"generic sector tilted", `"tilt_deg":6`, 200, ""},
		{"unknown antenna", `"antenna_id":"ant_does_not_exist","tilt_deg":10`, 422, "site.antenna_id"},
		{"tilt out of range", `"tilt_deg":120`, 422, "site.tilt_deg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site := fmt.Sprintf(`"site":{"lat":%.6f,"lon":%.6f,"height_m":30,"eirp_dbm":55,"azimuth_deg":45,%s}`, tx.Lat, tx.Lon, tc.antenna)
			res := h.do(t, "POST", "/coverage/raytrace", ent, nil, fmt.Sprintf(`{"layer_id":%q,%s,"frequency_mhz":3500,"radius_m":30,"resolution_m":10,"max_reflections":1}`, layer, site))
			hm := h.do(t, "POST", "/coverage/heatmap", ent, nil, fmt.Sprintf(`{%s,"frequency_mhz":1800,"radius_km":1,"resolution_m":90,"engine":"fspl"}`, site))
			if res.status != tc.status || hm.status != tc.status {
				t.Fatalf("raytrace map %d, heatmap %d, want %d: %.300s", res.status, hm.status, tc.status, res.body)
			}
			if tc.status != 200 {
				checkFieldError(t, res, tc.field)
				return
			}
			got, want := startedAntenna(t, res.body), startedAntenna(t, hm.body)
			if got != want || strings.Contains(got, "generic 65° sector") && strings.Contains(tc.antenna, "antenna_id") {
				t.Errorf("the raytrace map's transmitter antenna is %q; the heatmap's %q", got, want)
			}
			var along string
			for _, w := range lastWarnings(t, res.body) {
				if w.Code == "raytrace_pattern_along_bearing" {
					along = w.Message
				}
			}
			if !strings.Contains(along, "elevation") || !strings.Contains(along, want) {
				t.Errorf("raytrace_pattern_along_bearing %q: want the antenna %q and its elevation", along, want)
			}
		})
	}
}

// checkFieldError fails unless res is a 422 naming field.
func checkFieldError(t *testing.T, res *response, field string) {
	t.Helper()
	var e struct {
		Error struct {
			Code   string `json:"code"`
			Fields []struct {
				Field string `json:"field"`
			} `json:"fields"`
		} `json:"error"`
	}
	if res.status != http.StatusUnprocessableEntity || json.Unmarshal(res.body, &e) != nil || !slices.ContainsFunc(e.Error.Fields, func(f struct {
		Field string `json:"field"`
	}) bool {
		return f.Field == field
	}) {
		t.Errorf("%d %.400s: want 422 naming %s", res.status, res.body, field)
	}
}

// rtJobResult is a raytrace link job's result as the tests read it.
type rtJobResult struct {
	Links []struct {
		TowerID           string              `json:"tower_id"`
		PatternLossDB     float64             `json:"antenna_pattern_loss_db"`
		Antenna           string              `json:"antenna"`
		TowerElevationDeg *float64            `json:"tower_elevation_deg"`
		Warnings          []appliance.Warning `json:"warnings"`
	} `json:"links"`
	Warnings []appliance.Warning `json:"warnings"`
}

// rtJob submits a raytrace link job and returns its result and its
// summary's warnings.
func rtJob(t *testing.T, h *harness, key, url, body string) (rtJobResult, []appliance.Warning) {
	t.Helper()
	res := h.do(t, "POST", url, key, nil, body)
	if res.status != http.StatusAccepted {
		t.Fatalf("%s: %d %s", url, res.status, res.body)
	}
	done := waitFor(t, h, key, decodeInto[jobAnswer](t, res).ID)
	if done.Result == nil {
		t.Fatalf("job %+v", done)
	}
	st := h.do(t, "GET", "/jobs/"+done.ID, key, nil, "")
	var sum struct {
		Summary struct {
			Warnings []appliance.Warning `json:"warnings"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(st.body, &sum); err != nil {
		t.Fatal(err)
	}
	dl := h.do(t, "GET", done.Result.DownloadURL, key, nil, "")
	var out rtJobResult
	if err := json.Unmarshal(dl.body, &out); err != nil || len(out.Links) == 0 {
		t.Fatalf("result %v: %.300s", err, dl.body)
	}
	return out, sum.Summary.Warnings
}

// TestRaytracePairAntenna: engine raytrace on POST /analyze applies the
// ad hoc tower's catalogue antenna and tilt as the physics engines do
// (the same pattern loss, antenna and elevation as fspl's answer for the
// pair), and warns parameter_ignored for time_pct and location_pct, which
// it has no use for.
func TestRaytracePairAntenna(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ent := h.keys["enterprise"]
	layer := uploadBlock(t, h, ent)
	f := raytrace.NewFrame(appliance.LatLon{Lat: rtLat, Lon: rtLon})
	rx, tx := f.ToLatLon(5, -5), f.ToLatLon(-150, 140)
	for _, tc := range []struct {
		name, tower, extra string
		ignored            []string
	}{
		// azimuth 315°: the receiver lies to the south-east, behind a sector
		{"catalogue omni antenna", `"azimuth":315,"antenna_id":"builtin:omni-10dbi"`, "", nil},
		{"tilted generic sector", `"azimuth":120,"tilt":8`, "", nil},
		{"generic sector", `"azimuth":315`, `,"time_pct":10,"location_pct":90`, []string{"time_pct", "location_pct"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := fmt.Sprintf(`{"tower":{"lat":%.6f,"lon":%.6f,"height_m":30,"power":40,%s},"receiver":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":3500%s,`,
				tx.Lat, tx.Lon, tc.tower, rx.Lat, rx.Lon, tc.extra)
			out, _ := rtJob(t, h, ent, "/analyze", body+fmt.Sprintf(`"engine":"raytrace","raytrace":{"layer_id":%q,"max_reflections":1}}`, layer))
			ph := h.do(t, "POST", "/analyze", ent, nil, body+`"engine":"fspl"}`)
			var want struct {
				PatternLossDB     float64 `json:"antenna_pattern_loss_db"`
				TowerElevationDeg float64 `json:"tower_elevation_deg"`
				Antenna           string  `json:"antenna"`
			}
			if ph.status != http.StatusOK || json.Unmarshal(ph.body, &want) != nil {
				t.Fatalf("fspl: %d %s", ph.status, ph.body)
			}
			l := out.Links[0]
			if math.Abs(l.PatternLossDB-want.PatternLossDB) > 0.01 || l.Antenna != want.Antenna || l.TowerElevationDeg == nil || math.Abs(*l.TowerElevationDeg-want.TowerElevationDeg) > 0.01 {
				el := math.NaN()
				if l.TowerElevationDeg != nil {
					el = *l.TowerElevationDeg
				}
				t.Errorf("raytrace link: pattern loss %g dB, antenna %q, elevation %g°; fspl's %g dB, %q, %g°",
					l.PatternLossDB, l.Antenna, el, want.PatternLossDB, want.Antenna, want.TowerElevationDeg)
			}
			var ignored []string
			for _, w := range out.Warnings {
				if w.Code == appliance.WarnParameterIgnored {
					ignored = append(ignored, strings.Fields(w.Message[strings.LastIndex(w.Message, ":")+1:])[0])
				}
			}
			if !slices.Equal(ignored, tc.ignored) {
				t.Errorf("parameter_ignored for %v, want %v (warnings %v)", ignored, tc.ignored, out.Warnings)
			}
		})
	}
}

// TestRaytraceCaseIgnoredMembers: a raytrace case on POST
// /coverage/engines/predict names each member the engine has no use for
// (time_pct, step_m, the p1812 parameters) in a parameter_ignored warning
// of the result and the job's summary, in document order; a case without
// them has none.
func TestRaytraceCaseIgnoredMembers(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ent := h.keys["enterprise"]
	layer := uploadBlock(t, h, ent)
	f := raytrace.NewFrame(appliance.LatLon{Lat: rtLat, Lon: rtLon})
	rx, tx := f.ToLatLon(5, -5), f.ToLatLon(-150, 140)
	for _, tc := range []struct {
		name, extra string
		ignored     []string
	}{
		{"none", "", nil},
		{"time, step and P.1812", `,"time_pct":10,"step_m":30,"p1812":{"polarization":"horizontal"}`, []string{"time_pct", "step_m", "p1812"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, sum := rtJob(t, h, ent, "/coverage/engines/predict", fmt.Sprintf(`{"tx":{"lat":%.6f,"lon":%.6f,"height_m":30},"rx":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":3500%s,"engine":"raytrace","raytrace":{"layer_id":%q,"max_reflections":1}}`,
				tx.Lat, tx.Lon, rx.Lat, rx.Lon, tc.extra, layer))
			var ignored []string
			for _, w := range out.Warnings {
				if w.Code == appliance.WarnParameterIgnored {
					ignored = append(ignored, strings.TrimSuffix(strings.Fields(w.Message)[4], ":"))
				}
			}
			if !slices.Equal(ignored, tc.ignored) {
				t.Errorf("parameter_ignored for %v, want %v (warnings %v)", ignored, tc.ignored, out.Warnings)
			}
			if got := slices.Contains(appliance.WarningCodes(sum), appliance.WarnParameterIgnored); got != (tc.ignored != nil) {
				t.Errorf("summary warnings %v: parameter_ignored %v, want %v", appliance.WarningCodes(sum), got, tc.ignored != nil)
			}
		})
	}
}

// TestRaytracePositionUncertainty: a raytrace link from a tower whose
// position is uncertain by more than 10 % of the link carries
// position_uncertainty, as the same pair on a physics engine does, in the
// link's warnings and the job's summary.
func TestRaytracePositionUncertainty(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ent := h.keys["enterprise"]
	near := h.do(t, "GET", fmt.Sprintf("/towers/nearest?lat=%g&lon=%g&k=50&max_km=30", rtLat, rtLon), ent, nil, "")
	var list struct {
		Towers []struct {
			ID  string   `json:"id"`
			Lat float64  `json:"lat"`
			Lon float64  `json:"lon"`
			U   *float64 `json:"position_uncertainty_m"`
		} `json:"towers"`
	}
	if err := json.Unmarshal(near.body, &list); err != nil {
		t.Fatal(err)
	}
	id, lat, lon, u := "", 0.0, 0.0, 0.0
	for _, tw := range list.Towers {
		if tw.U != nil && *tw.U > 0 && *tw.U < 5000 {
			id, lat, lon, u = tw.ID, tw.Lat, tw.Lon, *tw.U
			break
		}
	}
	if id == "" {
		t.Fatalf("no tower with an uncertain position near Rio: %d %.300s", near.status, near.body)
	}
	res := h.do(t, "POST", "/buildings/layers?name=block", ent, nil, cityBlock(lat, lon, 3))
	if res.status != http.StatusCreated {
		t.Fatalf("upload: %d %s", res.status, res.body)
	}
	layer := res.json(t)["layer"].(map[string]any)["id"].(string)
	const code = appliance.WarnPositionUncertainty
	// the link is about 2.8 u long: u is 35 % of it
	rx := raytrace.NewFrame(appliance.LatLon{Lat: lat, Lon: lon}).ToLatLon(u*2, u*2)
	for _, tc := range []struct {
		name, tower string
		warned      bool
	}{
		{"tower uncertain by 35 % of the link", fmt.Sprintf(`"tower_id":%q`, id), true},
		{"ad hoc tower at the same place", fmt.Sprintf(`"tower":{"lat":%.6f,"lon":%.6f,"height_m":30,"power":40}`, lat, lon), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := fmt.Sprintf(`{%s,"receiver":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":1800,`, tc.tower, rx.Lat, rx.Lon)
			ph := h.do(t, "POST", "/analyze", ent, nil, body+`"engine":"fspl"}`)
			out, sum := rtJob(t, h, ent, "/analyze", body+fmt.Sprintf(`"engine":"raytrace","raytrace":{"layer_id":%q,"max_reflections":1}}`, layer))
			physics := strings.Contains(string(ph.body), `"code":"`+code+`"`)
			link := slices.Contains(appliance.WarningCodes(out.Links[0].Warnings), code)
			summary := slices.Contains(appliance.WarningCodes(sum), code)
			if physics != tc.warned || link != tc.warned || summary != tc.warned {
				t.Errorf("tower %s uncertain by %g m: position_uncertainty on fspl %v, on the raytrace link %v, in its summary %v; want %v",
					id, u, physics, link, summary, tc.warned)
			}
		})
	}
}

// TestRaytraceMapAudited: starting a raytrace map writes its
// coverage.map.start audit entry, as a heatmap's start does.
func TestRaytraceMapAudited(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ent := h.keys["enterprise"]
	layer := uploadBlock(t, h, ent)
	res := h.do(t, "POST", "/coverage/raytrace", ent, nil, raytraceMapOn(layer))
	id := res.header.Get("X-Map-Id")
	if res.status != http.StatusOK || id == "" {
		t.Fatalf("%d %s", res.status, res.body)
	}
	a := h.do(t, "GET", "/tenant/audit?action=coverage.map.start", ent, nil, "")
	var log struct {
		Entries []struct {
			Route  string            `json:"route"`
			Params map[string]string `json:"params"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(a.body, &log); err != nil {
		t.Fatal(err)
	}
	found := slices.ContainsFunc(log.Entries, func(e struct {
		Route  string            `json:"route"`
		Params map[string]string `json:"params"`
	}) bool {
		return e.Params["map_id"] == id && e.Params["kind"] == "raytrace" && e.Params["engine"] == "raytrace" && e.Route == "/coverage/raytrace"
	})
	if !found {
		t.Errorf("raytrace map %s has no coverage.map.start entry: %.600s", id, a.body)
	}
}

// osmMergedLayer is an OSM XML layer near (-22.9, -43.2) whose import
// warns buildings_outer_ways_merged (a way tagged building that is the
// outer ring of a building multipolygon), and a building far away.
const osmMergedLayer = `<osm><node id="1" lat="-22.9" lon="-43.2"/><node id="2" lat="-22.9" lon="-43.199"/><node id="3" lat="-22.899" lon="-43.199"/><node id="4" lat="-22.899" lon="-43.2"/>` +
	`<node id="11" lat="-22.9" lon="-43.19"/><node id="12" lat="-22.9" lon="-43.1895"/><node id="13" lat="-22.8995" lon="-43.1895"/><node id="14" lat="-22.8995" lon="-43.19"/>` +
	`<way id="50"><nd ref="11"/><nd ref="12"/><nd ref="13"/><nd ref="14"/><nd ref="11"/><tag k="building" v="yes"/><tag k="height" v="12"/></way>` +
	`<way id="10"><nd ref="1"/><nd ref="2"/><nd ref="3"/><nd ref="4"/><nd ref="1"/><tag k="building" v="yes"/><tag k="height" v="15"/></way>` +
	`<relation id="100"><member type="way" ref="10" role="outer"/><tag k="type" v="multipolygon"/><tag k="building" v="yes"/><tag k="height" v="20"/></relation></osm>`

// TestRaytraceLayerWarnings: the import warnings of a building layer
// travel into every answer computed on it: a link job's result and
// summary, a map's summary and its GeoTIFF's WARNINGS.
func TestRaytraceLayerWarnings(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ent := h.keys["enterprise"]
	res := h.do(t, "POST", "/buildings/layers?name=merged", ent, nil, osmMergedLayer)
	if res.status != http.StatusCreated {
		t.Fatalf("upload: %d %s", res.status, res.body)
	}
	const code = "buildings_outer_ways_merged"
	if !strings.Contains(string(res.body), code) {
		t.Fatalf("the layer does not warn %s: %s", code, res.body)
	}
	layer := res.json(t)["layer"].(map[string]any)["id"].(string)
	f := raytrace.NewFrame(appliance.LatLon{Lat: -22.9, Lon: -43.2})
	tx, rx := f.ToLatLon(-80, -60), f.ToLatLon(50, -30)

	out, sum := rtJob(t, h, ent, "/coverage/engines/predict", fmt.Sprintf(`{"tx":{"lat":%.6f,"lon":%.6f,"height_m":30},"rx":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":3500,"engine":"raytrace","raytrace":{"layer_id":%q,"max_reflections":1}}`,
		tx.Lat, tx.Lon, rx.Lat, rx.Lon, layer))
	var msg string
	for _, w := range out.Warnings {
		if w.Code == code {
			msg = w.Message
		}
	}
	if !strings.Contains(msg, layer) || !slices.Contains(appliance.WarningCodes(sum), code) {
		t.Errorf("link job: result warnings %v, summary %v; want %s naming the layer", out.Warnings, appliance.WarningCodes(sum), code)
	}
	if slices.Contains(appliance.WarningCodes(out.Warnings), "buildings_assumed_heights") {
		t.Errorf("the layer's assumed heights are stated per answer (raytrace_assumed_heights), not again: %v", out.Warnings)
	}

	mp := h.do(t, "POST", "/coverage/raytrace", ent, nil, fmt.Sprintf(`{"layer_id":%q,"site":{"lat":%.6f,"lon":%.6f,"height_m":30,"eirp_dbm":55},"frequency_mhz":3500,"radius_m":30,"resolution_m":10,"max_reflections":1}`,
		layer, tx.Lat, tx.Lon))
	if mp.status != http.StatusOK {
		t.Fatalf("map: %d %s", mp.status, mp.body)
	}
	ws := appliance.WarningCodes(lastWarnings(t, mp.body))
	if !slices.Contains(ws, code) {
		t.Errorf("map summary warnings %v lack %s", ws, code)
	}
	// the GeoTIFF's GDAL metadata (an XML text tag) lists the codes in WARNINGS
	tif := h.do(t, "GET", "/coverage/heatmap/"+mp.header.Get("X-Map-Id")+"/export?format=geotiff", ent, nil, "")
	m := regexp.MustCompile(`<Item name="WARNINGS">([^<]*)</Item>`).FindSubmatch(tif.body)
	if tif.status != http.StatusOK || m == nil || !slices.Contains(strings.Split(string(m[1]), ";"), code) {
		t.Errorf("GeoTIFF %d: WARNINGS %q lack %s", tif.status, m, code)
	}
}

// TestRaytraceOddInputs: the raytrace routes name the field of every
// input they refuse: an empty tower_id (not a 404), a tower beyond the
// layer's frame (tower_id, not site), a diffraction_range_m at or below
// 0 whatever the other options, a site height beyond 1000 m.
func TestRaytraceOddInputs(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ent := h.keys["enterprise"]
	layer := uploadBlock(t, h, ent)
	f := raytrace.NewFrame(appliance.LatLon{Lat: rtLat, Lon: rtLon})
	rx, tx := f.ToLatLon(5, -5), f.ToLatLon(-150, 140)
	site := fmt.Sprintf(`"site":{"lat":%.6f,"lon":%.6f,"height_m":30,"eirp_dbm":55}`, tx.Lat, tx.Lon)
	// a tower more than 20 km from the layer's centre
	near := h.do(t, "GET", fmt.Sprintf("/towers/nearest?lat=%g&lon=%g&k=100&max_km=50", rtLat+0.4, rtLon), ent, nil, "")
	var list struct {
		Towers []struct {
			ID  string  `json:"id"`
			Lat float64 `json:"lat"`
			Lon float64 `json:"lon"`
		} `json:"towers"`
	}
	if err := json.Unmarshal(near.body, &list); err != nil {
		t.Fatal(err)
	}
	far := ""
	for _, tw := range list.Towers {
		if (appliance.LatLon{Lat: tw.Lat, Lon: tw.Lon}).DistanceM(appliance.LatLon{Lat: rtLat, Lon: rtLon}) > 25000 {
			far = tw.ID
			break
		}
	}
	if far == "" {
		t.Fatalf("no tower beyond 25 km of Rio's block: %.300s", near.body)
	}
	predict := func(opts string) string {
		return fmt.Sprintf(`{"tx":{"lat":%.6f,"lon":%.6f,"height_m":30},"rx":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":3500,"engine":"raytrace","raytrace":{"layer_id":%q%s}}`,
			tx.Lat, tx.Lon, rx.Lat, rx.Lon, layer, opts)
	}
	for _, tc := range []struct {
		name, url, body, field string
	}{
		{"empty tower_id", "/coverage/raytrace", fmt.Sprintf(`{"layer_id":%q,"tower_id":"","frequency_mhz":3500}`, layer), "tower_id"},
		{"tower_id and site", "/coverage/raytrace", fmt.Sprintf(`{"layer_id":%q,%s,"frequency_mhz":3500,"tower_id":""}`, layer, site), "tower_id"},
		{"tower beyond the layer's frame", "/coverage/raytrace", fmt.Sprintf(`{"layer_id":%q,"tower_id":%q,"frequency_mhz":3500,"radius_m":10,"resolution_m":10}`, layer, far), "tower_id"},
		{"negative diffraction range, diffraction and scattering off, predict", "/coverage/engines/predict", predict(`,"diffraction":false,"diffuse_scattering":0,"diffraction_range_m":-5`), "raytrace.diffraction_range_m"},
		{"zero diffraction range, diffraction and scattering off, map", "/coverage/raytrace",
			fmt.Sprintf(`{"layer_id":%q,%s,"frequency_mhz":3500,"radius_m":10,"resolution_m":10,"diffraction":false,"diffuse_scattering":0,"diffraction_range_m":0}`, layer, site), "diffraction_range_m"},
		{"site above 1000 m", "/coverage/raytrace",
			fmt.Sprintf(`{"layer_id":%q,"site":{"lat":%.6f,"lon":%.6f,"height_m":2000,"eirp_dbm":55},"frequency_mhz":3500,"radius_m":10,"resolution_m":10}`, layer, tx.Lat, tx.Lon), "site.height_m"},
		{"receiver above 1000 m", "/coverage/raytrace",
			fmt.Sprintf(`{"layer_id":%q,%s,"frequency_mhz":3500,"radius_m":10,"resolution_m":10,"rx_height_m":1500}`, layer, site), "rx_height_m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkFieldError(t, h.do(t, "POST", tc.url, ent, nil, tc.body), tc.field)
		})
	}
}

// TestRaytraceLayerWarningCodes: every code of a building layer's import
// (OpenAPI BuildingWarning) but buildings_assumed_heights, which each
// answer states for its own paths as raytrace_assumed_heights, is a
// Warning code too: raytracing.LayerWarnings carries them into the
// raytrace answers.
func TestRaytraceLayerWarningCodes(t *testing.T) {
	doc := loadOpenAPI(t)
	codes := func(schema string) []string {
		raw, _ := obj(doc.root, "components", "schemas", schema, "properties", "code")["enum"].([]any)
		var out []string
		for _, v := range raw {
			s, _ := v.(string)
			out = append(out, s)
		}
		return out
	}
	layer, answer := codes("BuildingWarning"), codes("Warning")
	if len(layer) < 2 || len(answer) == 0 {
		t.Fatalf("BuildingWarning %v, Warning %v", layer, answer)
	}
	for _, c := range layer {
		if c != "buildings_assumed_heights" && !slices.Contains(answer, c) {
			t.Errorf("the layer's warning %s travels into raytrace answers but is not a Warning code", c)
		}
	}
}
