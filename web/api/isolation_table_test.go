package api_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
	"linkplan/engines/raytrace"
)

// isoRoute is one row of the unified tenant-isolation table.
type isoRoute struct {
	name, method, url, body string
	// list: the answer summarises tenant data (totals, counts, lists); its
	// shape (shapeOf) must be the same before and after tenant A stored
	// its data: B and Free never count A's rows.
	list bool
	// foreign: the URL names one of A's resources; B and Free get 404,
	// exactly as for a missing one (forbidden: 403, an admin-only route).
	foreign   bool
	forbidden bool
	// fresh: a tenant allowed the route stores the row as new (200 with
	// ingested 1): A's equal row is not seen.
	fresh bool
	// want, when not 0, is the status B and Free get (422: the body names
	// A's resources, which read as unknown).
	want int
	// engine: the row names the raytrace engine's resources of A (the
	// Enterprise tenant's building layer, raytrace job or map). It also
	// runs as C, a second Enterprise tenant, which is allowed the engine
	// and so passes the tier check that refuses B and Free: C gets 404,
	// as for a missing layer, job or map (rvapi finding 12;
	// TestRaytraceIsolation also compares C's answers with a missing
	// layer's).
	engine bool
}

// shapeOf summarises a JSON answer: every number and every array length,
// by path (arrays of objects are looked into element by element up to
// depth 3). Two answers with the same shape count the same rows.
func shapeOf(t *testing.T, body []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Sprintf("not JSON, %d bytes", len(body))
	}
	var parts []string
	var walk func(path string, v any, depth int)
	walk = func(path string, v any, depth int) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				switch k {
				case "generated_unix", "dsar_request_id", "last_used_unix", "audit_log", "request_id":
					continue // the request's own time and id, and the caller's own audit rows
				}
				walk(path+"."+k, e, depth)
			}
		case []any:
			parts = append(parts, fmt.Sprintf("%s#%d", path, len(x)))
			if depth < 3 {
				for i, e := range x {
					walk(fmt.Sprintf("%s[%d]", path, i), e, depth+1)
				}
			}
		case float64:
			parts = append(parts, fmt.Sprintf("%s=%g", path, x))
		}
	}
	walk("", v, 0)
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// TestTenantIsolationTable walks every tenant-scoped route of this
// appliance (towers, jobs and their downloads, batch reports, link
// reports and exports, coverage maps, repeater plans, observations, keys,
// data exports, audit log, quota, privacy, AI, SSO binding, equipment,
// point-to-point links and admin
// routes) with tenant B (the internal key, Business)
// and a Free key, after tenant A (the pro key) stored a tower, a batch
// job, a coverage map, a repeater plan job, an observation and a second
// key: B and Free
// never see A's rows (no id, station, e-mail or tenant id of A in any
// answer), never count them (list answers have the same totals as before
// A stored anything) and never change them (A's jobs, keys, tower and map
// are as before). The rows of the raytrace engine's resources (the
// Enterprise tenant's building layer, raytrace job and map, on every
// route that names them) also run as C, a second Enterprise tenant that
// passes the engine's tier check: 404, as for a missing one. The
// per-resource isolation tests stay beside their routes.
func TestTenantIsolationTable(t *testing.T) {
	h := newHarness(t, harnessOptions{sso: true})
	const lat, lon = -22.9519, -43.2105
	const station, operator = "ISO-TABLE-A", "Isolada Tabela"
	near := fmt.Sprintf(`{"receiver":{"lat":%g,"lon":%g,"height":10},"frequency_mhz":1800,"max_distance_km":2}`, lat+0.01, lon)
	bbox := url.QueryEscape(fmt.Sprintf("%g,%g,%g,%g", lon-0.02, lat-0.02, lon+0.02, lat+0.02))
	lists := []isoRoute{
		{name: "towers list", method: "GET", url: "/towers?limit=1000", list: true},
		{name: "towers by bbox", method: "GET", url: "/towers?bbox=" + bbox + "&limit=1000", list: true},
		{name: "towers by operator", method: "GET", url: "/towers?operator=" + url.QueryEscape(operator), list: true},
		{name: "towers full-text by station", method: "GET", url: "/towers?q=" + station, list: true},
		{name: "towers full-text by operator", method: "GET", url: "/towers?q=isolada", list: true},
		{name: "nearest towers", method: "GET", url: fmt.Sprintf("/towers/nearest?lat=%g&lon=%g&k=100&max_km=3", lat, lon), list: true},
		{name: "keys", method: "GET", url: "/tenant/keys", list: true},
		{name: "data export", method: "GET", url: "/tenant/me/data/export", list: true},
		{name: "observation stats", method: "GET", url: "/coverage/observations/stats", list: true},
		// The learned models: model figures only, the same for every
		// caller before and after A stored its data.
		{name: "model info", method: "GET", url: "/coverage/model/info", list: true},
		{name: "claim readiness", method: "GET", url: "/coverage/claim-readiness", list: true},
		{name: "effective band", method: "GET", url: "/coverage/effective-band", list: true},
		{name: "promotion readiness", method: "GET", url: "/coverage/promotion-readiness", list: true},
		{name: "audit gate", method: "GET", url: "/health/audit-gate", list: true},
		{name: "predict near A's tower", method: "POST", url: "/coverage/predict", list: true,
			body: fmt.Sprintf(`{"tx_lat":%g,"tx_lon":%g,"tx_height_m":30,"rx_lat":%g,"rx_lon":%g,"frequency_mhz":1800,"tx_power_dbm":43}`, lat, lon, lat+0.01, lon)},
		{name: "analyze link near A's tower", method: "POST", url: "/analyze_link", body: near, list: true},
		{name: "export link near A's tower", method: "POST", url: "/exports/link?format=geojson", body: near, list: true},
		{name: "ai chat near A's tower", method: "POST", url: "/ai/chat", body: `{"analysis":` + near + `}`, list: true},
		{name: "ai models", method: "GET", url: "/ai/models", list: true},
		// Building layers are listed at any tier, the tenant's own only
		// (rvapi finding 9).
		{name: "building layers", method: "GET", url: "/buildings/layers", list: true},
		// The calibration: A's own, never in B's status or answers.
		{name: "calibration status", method: "GET", url: "/coverage/calibration", list: true},
		{name: "analyze A's calibrated transmitter", method: "POST", url: "/analyze", list: true,
			body: calAnalyzeBody(appliance.LatLon{Lat: calTx.Lat + 1500.0/111195, Lon: calTx.Lon})},
		// The equipment catalogue: the built-ins, then the caller's own.
		{name: "radios", method: "GET", url: "/equipment/radios", list: true},
		{name: "antennas with patterns", method: "GET", url: "/equipment/antennas?include=pattern", list: true},
		// Public and tenant-free: a hillshade tile is the same bytes for
		// every caller before and after A stored its data (shapeOf of a
		// PNG is its length; TestHillshadeTiles compares the bytes).
		{name: "sso config", method: "GET", url: "/auth/oidc/config", list: true},
		{name: "sso bindings", method: "GET", url: "/tenant/sso/bindings", list: true},
		{name: "hillshade tile over A's tower", method: "GET", url: "/tiles/hillshade/12/1556/2316.png", list: true},
		{name: "elevation tile over A's tower", method: "GET", url: "/tiles/elevation/12/1556/2316.png", list: true},
		{name: "surface tile over A's tower", method: "GET", url: "/tiles/surface/12/1556/2316.png", list: true},
		{name: "operator basemap description", method: "GET", url: "/basemap/ext", list: true},
		{name: "operator basemap drawn tile", method: "GET", url: "/basemap/ext/raster/11/778/1158", list: true},
		{name: "operator basemap labels", method: "GET", url: "/basemap/ext/labels/11/778/1158", list: true},
		{name: "ai compare", method: "POST", url: "/ai/compare",
			body: fmt.Sprintf(`{"tx":{"lat":%g,"lon":%g,"height_m":30},"rx":{"lat":%g,"lon":%g,"height_m":10},"frequency_mhz":1800}`, lat, lon, lat+0.01, lon)},
	}
	tenants := []string{"internal", "free"}
	h.issue(t, "enterprise-c", appliance.TierEnterprise, appliance.RoleTenant) // C: allowed the raytrace engine
	before := map[string]string{}
	for _, r := range lists {
		for _, k := range tenants {
			res := h.do(t, r.method, r.url, h.keys[k], nil, r.body)
			before[r.name+"/"+k] = fmt.Sprintf("%d %s", res.status, shapeOf(t, res.body))
		}
	}

	// Tenant A stores its data.
	pro := h.keys["pro"]
	towerID := registerOwn(t, h, "pro", operator, station, lat, lon)
	owner, err := h.auth.Authenticate(pro)
	if err != nil {
		t.Fatal(err)
	}
	_, second, err := h.auth.CreateKey(owner, tenancy.KeyRequest{TenantRole: appliance.TenantMember})
	if err != nil {
		t.Fatal(err)
	}
	job := submitJob(t, h, pro, `{"rows":[`+batchRows(101)+`],"options":{"pdfs":false}}`)
	waitFor(t, h, pro, job.ID)
	mapID, _, _ := startMap(t, h, pro, heatmapBody)
	planRes := h.do(t, "POST", "/plan_repeater", pro, nil, planBody(4))
	if planRes.status != http.StatusAccepted {
		t.Fatalf("async plan: %d %s", planRes.status, planRes.body)
	}
	plan := decodeInto[struct {
		Job jobAnswer `json:"job"`
	}](t, planRes).Job
	planState := waitFor(t, h, pro, plan.ID).State
	obsRes := h.do(t, "POST", "/coverage/observations", pro, nil, obsRow(-22.9001))
	if obsRes.status != http.StatusOK {
		t.Fatalf("observation: %d %s", obsRes.status, obsRes.body)
	}
	obsIDs := decodeInto[struct {
		IDs []string `json:"ids"`
	}](t, obsRes).IDs
	if len(obsIDs) != 1 {
		t.Fatalf("observation ids: %s", obsRes.body)
	}
	radioA, antennaA := storeEquipment(t, h, pro)
	// A's consented drive test and its calibration.
	if res := h.do(t, "POST", "/coverage/observations/batch", pro, nil, calibrationRows(200, 10)); res.status != http.StatusOK {
		t.Fatalf("calibration rows: %d %.300s", res.status, res.body)
	}
	calRes := h.do(t, "PUT", "/coverage/calibration", pro, nil, `{"enabled":true}`)
	calFit := decodeInto[calStatus](t, calRes).FitJob
	if calRes.status != http.StatusOK || calFit == nil {
		t.Fatalf("calibration: %d %s", calRes.status, calRes.body)
	}
	if j := waitFor(t, h, pro, calFit.ID); j.State != "succeeded" {
		t.Fatalf("calibration fit %+v", j)
	}
	if a := analyzeAs(t, h, "pro", appliance.LatLon{Lat: calTx.Lat + 1500.0/111195, Lon: calTx.Lon}); a.Calibration == nil {
		t.Fatal("A's answer is not calibrated")
	}
	const subjectA = "iso-table-subject-a"
	bindSubject(t, h, "pro", subjectA)
	linkA := h.do(t, "POST", "/tenant/sso/binding_intents", pro, nil, `{}`)
	if linkA.status != http.StatusCreated {
		t.Fatalf("binding link: %d %s", linkA.status, linkA.body)
	}
	intentA := linkA.json(t)["intent"].(string)
	// An Enterprise tenant's building layer (the pro key's tier has none).
	layerRes := h.do(t, "POST", "/buildings/layers?name=iso", h.keys["enterprise"], nil, riosBlock())
	if layerRes.status != http.StatusCreated {
		t.Fatalf("building layer: %d %s", layerRes.status, layerRes.body)
	}
	layerID := layerRes.json(t)["layer"].(map[string]any)["id"].(string)
	// The Enterprise tenant's raytrace link job and raytrace map over it.
	rtBody := raytracePairOn(layerID)
	rtRes := h.do(t, "POST", "/analyze", h.keys["enterprise"], nil, rtBody)
	if rtRes.status != http.StatusAccepted {
		t.Fatalf("raytrace job: %d %s", rtRes.status, rtRes.body)
	}
	rtJob := decodeInto[jobAnswer](t, rtRes)
	waitFor(t, h, h.keys["enterprise"], rtJob.ID)
	rtMapBody := raytraceMapOn(layerID)
	rtFrame := raytrace.NewFrame(appliance.LatLon{Lat: rtLat, Lon: rtLon})
	rtRx, rtTx := rtFrame.ToLatLon(5, -5), rtFrame.ToLatLon(-150, 140)
	rtUse := fmt.Sprintf(`"engine":"raytrace","raytrace":{"layer_id":%q}`, layerID)
	rtLinkBody := fmt.Sprintf(`{"receiver":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":1800,"max_distance_km":3,%s}`, rtRx.Lat, rtRx.Lon, rtUse)
	rtCaseBody := fmt.Sprintf(`{"tx":{"lat":%.6f,"lon":%.6f,"height_m":30},"rx":{"lat":%.6f,"lon":%.6f,"height_m":1.5},"frequency_mhz":3500,%s}`,
		rtTx.Lat, rtTx.Lon, rtRx.Lat, rtRx.Lon, rtUse)
	rtMap := h.do(t, "POST", "/coverage/raytrace", h.keys["enterprise"], nil, rtMapBody)
	rtMapID := rtMap.header.Get("X-Map-Id")
	if rtMap.status != http.StatusOK || rtMapID == "" {
		t.Fatalf("raytrace map: %d %s", rtMap.status, rtMap.body)
	}
	// A's interference map over its own tower and a viewshed from it.
	ifBody := fmt.Sprintf(`{"tower_ids":[%q],"frequency_mhz":1800,"radius_km":2,"resolution_m":90,"engine":"fspl"}`, towerID)
	ifMapID, _ := startNetMap(t, h, "/coverage/interference", pro, ifBody)
	vsBody := fmt.Sprintf(`{"tower_id":%q,"frequency_mhz":5800,"radius_km":2,"resolution_m":90}`, towerID)
	vsMapID, _ := startNetMap(t, h, "/coverage/viewshed", pro, vsBody)
	markers := []string{ifMapID, vsMapID, layerID, rtJob.ID, rtMapID, obsIDs[0], towerID, station, job.ID, plan.ID, mapID, second.ID, h.keyIDs["pro"], "t_" + h.keyIDs["pro"], "pro@example.com", pro[:14],
		subjectA, intentA, radioA, antennaA, calFit.ID}

	routes := append(append([]isoRoute{}, lists...),
		isoRoute{name: "one tower of A", method: "GET", url: "/towers/" + towerID, foreign: true},
		isoRoute{name: "job status", method: "GET", url: "/jobs/" + job.ID, foreign: true},
		isoRoute{name: "job download", method: "GET", url: "/jobs/" + job.ID + "/download", foreign: true},
		isoRoute{name: "job cancel", method: "POST", url: "/jobs/" + job.ID + "/cancel", foreign: true},
		isoRoute{name: "repeater plan job", method: "GET", url: "/jobs/" + plan.ID, foreign: true},
		isoRoute{name: "repeater plan download", method: "GET", url: "/jobs/" + plan.ID + "/download", foreign: true},
		isoRoute{name: "map status", method: "GET", url: "/coverage/heatmap/" + mapID, foreign: true},
		isoRoute{name: "map events", method: "GET", url: "/coverage/heatmap/" + mapID + "/events", foreign: true},
		isoRoute{name: "map export", method: "GET", url: "/coverage/heatmap/" + mapID + "/export?format=geotiff", foreign: true},
		isoRoute{name: "A's interference map", method: "GET", url: "/coverage/heatmap/" + ifMapID, foreign: true},
		isoRoute{name: "A's interference map events", method: "GET", url: "/coverage/heatmap/" + ifMapID + "/events", foreign: true},
		isoRoute{name: "A's interference map export", method: "GET", url: "/coverage/heatmap/" + ifMapID + "/export?format=geojson", foreign: true},
		isoRoute{name: "A's viewshed map", method: "GET", url: "/coverage/heatmap/" + vsMapID, foreign: true},
		isoRoute{name: "A's viewshed map export", method: "GET", url: "/coverage/heatmap/" + vsMapID + "/export?format=geotiff", foreign: true},
		// A's tower is unknown to the others' network maps: B gets 422
		// naming it (Free: 403, no interference maps on its tier).
		isoRoute{name: "interference map over A's tower", method: "POST", url: "/coverage/interference", body: ifBody},
		isoRoute{name: "viewshed from A's tower", method: "POST", url: "/coverage/viewshed", body: vsBody, want: http.StatusUnprocessableEntity},
		isoRoute{name: "A's radio", method: "GET", url: "/equipment/radios/" + radioA, foreign: true},
		isoRoute{name: "replace A's radio", method: "PUT", url: "/equipment/radios/" + radioA, foreign: true, body: isoRadioBody},
		isoRoute{name: "delete A's radio", method: "DELETE", url: "/equipment/radios/" + radioA, foreign: true},
		isoRoute{name: "A's antenna", method: "GET", url: "/equipment/antennas/" + antennaA, foreign: true},
		isoRoute{name: "replace A's antenna", method: "PUT", url: "/equipment/antennas/" + antennaA, foreign: true, body: isoAntennaBody},
		isoRoute{name: "delete A's antenna", method: "DELETE", url: "/equipment/antennas/" + antennaA, foreign: true},
		// A's antenna reads as unknown to the others' towers and maps (422).
		isoRoute{name: "register a tower with A's antenna", method: "POST", url: "/towers",
			body: `{"operator":"Isolada B","lat":-22.95,"lon":-43.21,"azimuth":90,"antenna_id":"` + antennaA + `"}`},
		// (The compute routes naming A's antenna: TestEquipmentIsolationOnComputeRoutes,
		// beside the equipment tests: the Free key's compute budget is spent here.)
		// A point-to-point link naming A's radio and antenna reads them as
		// unknown (422 naming the fields; TestIssue25_PTPForeignCatalogueIDIsUnknown
		// checks the answer equals that of ids that do not exist).
		isoRoute{name: "ptp link with A's equipment", want: http.StatusUnprocessableEntity, method: "POST", url: "/links/ptp", body: ptpForeignBody(radioA, antennaA)},
		isoRoute{name: "ptp report with A's equipment", want: http.StatusUnprocessableEntity, method: "POST", url: "/reports/ptp", body: ptpForeignBody(radioA, antennaA)},
		isoRoute{name: "ptp export with A's equipment", want: http.StatusUnprocessableEntity, method: "POST", url: "/exports/ptp", body: ptpForeignBody(radioA, antennaA)},
		isoRoute{name: "rotate A's key", method: "POST", url: "/tenant/keys/" + second.ID + "/rotate", foreign: true},
		isoRoute{name: "revoke A's key", method: "POST", url: "/tenant/keys/" + second.ID + "/revoke", foreign: true},
		isoRoute{name: "admin export of A", method: "POST", url: "/admin/dsar/" + pro[:14] + "/export", forbidden: true,
			body: dsarBody("123456", "isolation test justification", "pro@example.com")},
		isoRoute{name: "admin erase of A", method: "POST", url: "/admin/dsar/" + pro[:14] + "/erase", forbidden: true,
			body: dsarBody("123456", "isolation test justification", "pro@example.com")},
		isoRoute{name: "overdue requests", method: "GET", url: "/admin/dsar/overdue", forbidden: true},
		isoRoute{name: "admin audit log", method: "GET", url: "/admin/audit", forbidden: true},
		// A backup holds every tenant's rows: admin keys only.
		isoRoute{name: "admin backup", method: "POST", url: "/admin/backup", forbidden: true,
			body: `{"justification":"isolation test justification","totp":"123456"}`},
		// The standby key reads every tenant's rows: admin keys only, and
		// no tenant key opens the snapshot route.
		isoRoute{name: "admin standby key", method: "POST", url: "/admin/standby-key", forbidden: true,
			body: `{"justification":"isolation test justification","totp":"123456"}`},
		// Both callers' keys are their tenants' tenant-admin keys (issued
		// without a tenant role): still not an admin key.
		isoRoute{name: "admin tenant list", method: "GET", url: "/admin/tenants", forbidden: true},
		isoRoute{name: "admin tenant list, second page", method: "GET", url: "/admin/tenants?limit=1&cursor=" + tenancy.TenantCursor("t_"), forbidden: true},
		// SSO bindings: A's subject is bound only with its owner's fresh
		// ID token; naming it is refused before any lookup (422), and a
		// proof of it gets the one binding refusal (403), never a 409.
		isoRoute{name: "bind A's subject by name", method: "POST", url: "/tenant/sso/bindings", body: `{"subject":"` + subjectA + `"}`},
		isoRoute{name: "bind A's subject with its proof", method: "POST", url: "/tenant/sso/bindings", forbidden: true,
			body: `{"id_token":"` + proofToken(t, h, subjectA) + `"}`},
		isoRoute{name: "binding link for A's key", method: "POST", url: "/tenant/sso/binding_intents", body: `{"key_id":"` + h.keyIDs["pro"] + `"}`},
		isoRoute{name: "unbind A's subject", method: "DELETE", url: "/tenant/sso/bindings?subject=" + subjectA, foreign: true},
		// Building layers: uploads need Enterprise or Ultra (B and Free:
		// 403); A's layer is a missing one to anybody else, at any tier
		// (404; C too).
		isoRoute{name: "A's building layer", method: "GET", url: "/buildings/layers/" + layerID, foreign: true, engine: true},
		isoRoute{name: "delete A's building layer", method: "DELETE", url: "/buildings/layers/" + layerID, foreign: true, engine: true},
		isoRoute{name: "upload a building layer", method: "POST", url: "/buildings/layers?name=b", body: riosBlock(), forbidden: true},
		// The raytrace engine needs Enterprise or Ultra: B and Free are
		// refused (403) before the layer's lookup; A's raytrace job and map
		// are unknown to them (404). C, allowed the engine, gets 404 for
		// A's layer, job and map on every route.
		isoRoute{name: "A's raytrace job", method: "GET", url: "/jobs/" + rtJob.ID, foreign: true, engine: true},
		isoRoute{name: "A's raytrace job result", method: "GET", url: "/jobs/" + rtJob.ID + "/download", foreign: true, engine: true},
		isoRoute{name: "A's raytrace map", method: "GET", url: "/coverage/heatmap/" + rtMapID, foreign: true, engine: true},
		isoRoute{name: "A's raytrace map export", method: "GET", url: "/coverage/heatmap/" + rtMapID + "/export?format=geotiff", foreign: true, engine: true},
		isoRoute{name: "A's raytrace map events", method: "GET", url: "/coverage/heatmap/" + rtMapID + "/events", foreign: true, engine: true},
		isoRoute{name: "cancel A's raytrace job", method: "POST", url: "/jobs/" + rtJob.ID + "/cancel", foreign: true, engine: true},
		isoRoute{name: "raytrace pair over A's layer", method: "POST", url: "/analyze", body: rtBody, forbidden: true, engine: true},
		isoRoute{name: "raytrace link over A's layer", method: "POST", url: "/analyze_link", body: rtLinkBody, forbidden: true, engine: true},
		isoRoute{name: "raytrace case over A's layer", method: "POST", url: "/coverage/engines/predict", body: rtCaseBody, forbidden: true, engine: true},
		isoRoute{name: "raytrace map over A's layer", method: "POST", url: "/coverage/raytrace", body: rtMapBody, forbidden: true, engine: true},
		isoRoute{name: "tenant audit log", method: "GET", url: "/tenant/audit?limit=1000"},
		isoRoute{name: "tenant audit log of A's actions", method: "GET", url: "/tenant/audit?action=tower.register"},
		isoRoute{name: "quota", method: "GET", url: "/v1/me/quota"},
		isoRoute{name: "limits", method: "GET", url: "/v1/me/limits"},
		isoRoute{name: "register a tower", method: "POST", url: "/towers", body: `{"operator":"Isolada B","lat":-22.95,"lon":-43.21}`},
		isoRoute{name: "batch report near A's tower", method: "POST", url: "/batch_reports",
			body: `{"rows":[{"receiver":{"lat":-22.9419,"lon":-43.2105,"height":10},"frequency_mhz":1800,"max_distance_km":2}]}`},
		isoRoute{name: "report link near A's tower", method: "POST", url: "/reports/link", body: near},
		// A Free key is refused the AI routes (403) before any lookup; B gets
		// 404 for A's job and tower (TestAIBatchAnalyze, TestTenantIsolationAI).
		isoRoute{name: "ai summary of A's batch job", method: "POST", url: "/ai/batch-analyze", body: `{"job_id":"` + job.ID + `"}`},
		isoRoute{name: "ai height on A's tower", method: "POST", url: "/ai/suggest-height",
			body: fmt.Sprintf(`{"link":{"tower_id":%q,"receiver":{"lat":%g,"lon":%g,"height":3},"frequency_mhz":5800}}`, towerID, lat+0.01, lon)},
		isoRoute{name: "repeater plan", method: "POST", url: "/plan_repeater", body: planBody(2)},
		// A's towers are no interferers of the others' links, and A's
		// antenna is unknown to them (422).
		isoRoute{name: "link interference near A's tower", method: "POST", url: "/links/interference",
			body: fmt.Sprintf(`{"a":{"lat":%g,"lon":%g,"height_m":30},"b":{"lat":%g,"lon":%g,"height_m":30},"frequency_mhz":1800,"radius_km":5,"engine":"fspl"}`, lat+0.01, lon, lat-0.01, lon)},
		isoRoute{name: "link interference with A's antenna", method: "POST", url: "/links/interference",
			body: fmt.Sprintf(`{"a":{"lat":%g,"lon":%g,"height_m":30,"antenna_id":%q},"b":{"lat":%g,"lon":%g,"height_m":30},"frequency_mhz":1800,"radius_km":5}`, lat+0.01, lon, antennaA, lat-0.01, lon)},
		// A Free key is refused (403) before the tower lookup; B gets 404
		// for A's tower (TestTenantIsolationPrediction).
		isoRoute{name: "predict from A's tower", method: "POST", url: "/coverage/predict",
			body: fmt.Sprintf(`{"tower_id":%q,"rx_lat":%g,"rx_lon":%g,"frequency_mhz":1800,"tx_power_dbm":43}`, towerID, lat+0.01, lon)},
		isoRoute{name: "observation batch", method: "POST", url: "/coverage/observations/batch", body: obsBatch("", -22.95)},
		// The calibration routes: B is not opted in (409 for a refit) and
		// never sees A's calibration; Free is refused (403).
		isoRoute{name: "calibration refit", method: "POST", url: "/coverage/calibration/fit"},
		isoRoute{name: "calibration stays off", method: "PUT", url: "/coverage/calibration", body: `{"enabled":false}`},
		isoRoute{name: "residual report", method: "POST", url: "/coverage/observations/residuals", body: `{"engines":["fspl"]}`},
		// The same row as A's: another tenant's stored row must not make it
		// a duplicate (deduplication is per tenant).
		isoRoute{name: "observation equal to A's", method: "POST", url: "/coverage/observations", body: obsRow(-22.9001), fresh: true},
	)
	for _, r := range routes {
		// A new rate-limit window for every route: the table has more rows
		// than the Free tier's per-minute budget of read routes.
		h.clock.advance(time.Minute)
		callers := tenants
		if r.engine {
			callers = append(slices.Clone(tenants), "enterprise-c")
		}
		for _, k := range callers {
			t.Run(r.name+" as "+k, func(t *testing.T) {
				res := h.do(t, r.method, r.url, h.keys[k], nil, r.body)
				if res.status >= 500 {
					t.Fatalf("status %d: %s", res.status, res.body)
				}
				for _, m := range markers {
					if strings.Contains(string(res.body), m) && !strings.Contains(r.url+r.body, m) { // a 404 may echo the id sent
						t.Errorf("answer holds A's %q: %.400s", m, res.body)
					}
				}
				switch {
				case k == "enterprise-c":
					if res.status != http.StatusNotFound {
						t.Errorf("status %d for A's resource as C (a second Enterprise tenant, allowed the engine), want 404: %.300s", res.status, res.body)
					}
				case r.foreign && res.status != http.StatusNotFound:
					t.Errorf("status %d for A's resource, want 404: %.300s", res.status, res.body)
				case r.want != 0 && res.status != r.want:
					t.Errorf("status %d, want %d: %.300s", res.status, r.want, res.body)
				case r.forbidden && res.status != http.StatusForbidden:
					t.Errorf("status %d on an admin route, want 403: %.300s", res.status, res.body)
				case r.fresh && res.status == http.StatusOK && !strings.Contains(string(res.body), `"ingested":1`):
					t.Errorf("A's equal row made this one a duplicate: %s", res.body)
				case r.fresh && k == "internal" && res.status != http.StatusOK:
					t.Errorf("status %d: %s", res.status, res.body)
				case r.list:
					if got := fmt.Sprintf("%d %s", res.status, shapeOf(t, res.body)); got != before[r.name+"/"+k] {
						t.Errorf("the answer changed when A stored its data:\nbefore %s\nafter  %s", before[r.name+"/"+k], got)
					}
				}
			})
		}
	}

	// A's data is unchanged and still its own.
	for _, u := range []string{"/equipment/radios/" + radioA, "/equipment/antennas/" + antennaA} {
		if res := h.do(t, "GET", u, pro, nil, ""); res.status != http.StatusOK {
			t.Errorf("A's %s: %d", u, res.status)
		}
	}
	if got := waitFor(t, h, pro, job.ID); got.State != "succeeded" {
		t.Errorf("A's job: %+v", got)
	}
	if got := waitFor(t, h, pro, plan.ID); got.State != planState {
		t.Errorf("A's plan job: %s, was %s", got.State, planState)
	}
	if res := h.do(t, "GET", "/towers/"+towerID, pro, nil, ""); res.status != http.StatusOK {
		t.Errorf("A's tower: %d", res.status)
	}
	if res := h.do(t, "GET", "/coverage/heatmap/"+mapID, pro, nil, ""); res.status != http.StatusOK {
		t.Errorf("A's map: %d", res.status)
	}
	if res := h.do(t, "GET", "/tenant/sso/bindings", pro, nil, ""); !strings.Contains(string(res.body), subjectA) {
		t.Errorf("A's binding: %d %s", res.status, res.body)
	}
	if res := h.do(t, "GET", "/tenant/branding", "", bearer(h.issuer.Sign(t, h.issuer.Claims(subjectA))), ""); res.status != http.StatusOK {
		t.Errorf("A's subject no longer signs in: %d %s", res.status, res.body)
	}
	keys := decodeInto[struct {
		Keys []wireKey `json:"keys"`
	}](t, h.do(t, "GET", "/tenant/keys", pro, nil, ""))
	if len(keys.Keys) != 2 {
		t.Fatalf("A's keys: %+v", keys)
	}
	for _, k := range keys.Keys {
		if k.State != "active" {
			t.Errorf("A's key %s is %s", k.KeyID, k.State)
		}
	}
}

// ptpForeignBody is a point-to-point link whose ends use radio and
// antenna (ids of tenant A in the isolation table).
func ptpForeignBody(radio, antenna string) string {
	return fmt.Sprintf(`{"a":{"lat":-22.9517,"lon":-43.2371,"height_m":30,"radio_id":%q,"antenna_id":%q},`+
		`"b":{"lat":-22.9877,"lon":-43.2826,"height_m":20,"radio_id":%q,"antenna_id":"builtin:dish-23dbi"},"frequency_mhz":5500,"channel_mhz":20}`, radio, antenna, radio)
}

const isoRadioBody = `{"name":"B's radio","bands":[{"min_mhz":5470,"max_mhz":5850}],"channels":[{"width_mhz":20,"modes":[{"name":"QPSK","tx_power_dbm":25,"sensitivity_dbm":-90,"throughput_mbps":20}]}]}`

const isoAntennaBody = `{"name":"B's antenna","gain_dbi":17,"parametric":{"model":"3gpp-sector"}}`

// storeEquipment stores a radio and an imported antenna for key and
// returns their ids.
func storeEquipment(t *testing.T, h *harness, key string) (radioID, antennaID string) {
	t.Helper()
	res := h.do(t, "POST", "/equipment/radios", key, nil, isoRadioBody)
	if res.status != http.StatusCreated {
		t.Fatalf("radio: %d %s", res.status, res.body)
	}
	radioID = res.json(t)["id"].(string)
	body, err := json.Marshal(map[string]string{"file_name": "B800A065-18-4E.pln", "content_base64": base64.StdEncoding.EncodeToString(readTestdata(t, "B800A065-18-4E.pln"))})
	if err != nil {
		t.Fatal(err)
	}
	res = h.do(t, "POST", "/equipment/antennas/import", key, nil, string(body))
	if res.status != http.StatusCreated {
		t.Fatalf("antenna: %d %s", res.status, res.body)
	}
	return radioID, res.json(t)["id"].(string)
}
