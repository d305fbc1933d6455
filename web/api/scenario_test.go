package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/backup"
	"linkplan/appliance/planner"
	"linkplan/store"
	"linkplan/web/api"
)

// docExpect says how a scenario's request must fare against the request
// schemas of the document.
type docExpect int

const (
	// docDerived: a 2xx request must satisfy the documented schemas
	// (body and query); others are not checked.
	//lint:ignore U1000 the zero value, named for the reader
	docDerived docExpect = iota
	// docRejects: the documented schemas must refuse the request too (the
	// server's refusal is visible in the contract).
	docRejects
)

// scenario is one HTTP exchange and what must come back (pocketbase's
// ApiScenario).
type scenario struct {
	name    string
	method  string
	url     string
	key     string // harness key name: "", admin, pro, free, internal, unknown, revoked, erased
	totp    string // "": none; header: a fresh code in X-Admin-Totp; body: a fresh code for {{totp}} in the body; bad: a wrong code in the header; replay: a code already used once
	headers map[string]string
	body    string
	status  int
	code    string   // error code, for 4xx and 503
	fields  []string // error fields in any order; nil: the error has no fields
	// contains are substrings the body must hold.
	contains []string
	doc      docExpect
	check    func(t *testing.T, h *harness, res *response)
}

// scenarioRun collects what the scenarios exercised.
type scenarioRun struct {
	d        *openAPI
	statuses map[string]bool // "GET /towers/{id} 404"
	codes    map[string]bool
	n        int
}

func newRun(t *testing.T) *scenarioRun {
	return &scenarioRun{d: loadOpenAPI(t), statuses: map[string]bool{}, codes: map[string]bool{}}
}

func (run *scenarioRun) run(t *testing.T, h *harness, scs []scenario) {
	t.Helper()
	for _, sc := range scs {
		t.Run(sc.name, func(t *testing.T) {
			run.n++
			run.one(t, h, sc)
		})
	}
}

func (run *scenarioRun) one(t *testing.T, h *harness, sc scenario) {
	hdr := map[string]string{}
	for k, v := range sc.headers {
		hdr[k] = v
	}
	key := ""
	if sc.key != "" {
		var ok bool
		if key, ok = h.keys[sc.key]; !ok {
			t.Fatalf("no harness key %q", sc.key)
		}
	}
	body := sc.body
	switch sc.totp {
	case "header":
		hdr["X-Admin-Totp"] = h.freshTOTP(t)
	case "body":
		body = strings.ReplaceAll(body, "{{totp}}", h.freshTOTP(t))
	case "bad":
		c, _ := strconv.Atoi(h.freshTOTP(t))
		hdr["X-Admin-Totp"] = fmt.Sprintf("%06d", (c+500000)%1000000)
	case "replay":
		code := h.freshTOTP(t)
		first := h.do(t, http.MethodPost, "/admin/keys", h.adminKey, map[string]string{"X-Admin-Totp": code}, issueBody("Starter", ""))
		if first.status != http.StatusCreated {
			t.Fatalf("priming request: status %d: %s", first.status, first.body)
		}
		hdr["X-Admin-Totp"] = code
	case "":
	default:
		t.Fatalf("bad totp mode %q", sc.totp)
	}
	u, err := url.Parse(sc.url)
	if err != nil {
		t.Fatal(err)
	}

	// The request against the document.
	if sc.doc == docRejects || sc.status/100 == 2 {
		var errs []string
		// Bodies of another media type (a CSV batch) are checked by their
		// route's own tests: this validator reads JSON schemas only.
		ct := hdr["Content-Type"]
		if s := run.d.requestSchema(sc.method, u.Path); s != nil && body != "" && (ct == "" || strings.Contains(ct, "json")) {
			var v any
			if err := json.Unmarshal([]byte(body), &v); err != nil {
				errs = append(errs, "body is not JSON")
			} else {
				errs = append(errs, run.d.validate(s, v, "request")...)
			}
		}
		errs = append(errs, run.d.checkQuery(sc.method, u.Path, u.Query())...)
		if sc.doc == docRejects && len(errs) == 0 {
			t.Errorf("the document accepts a request the server refuses")
		}
		if sc.doc != docRejects && len(errs) > 0 {
			t.Errorf("the document refuses a request the server accepts: %v", errs)
		}
	}

	res := h.do(t, sc.method, sc.url, key, hdr, body)
	if res.status != sc.status {
		t.Fatalf("status %d, want %d; body: %.600s", res.status, sc.status, res.body)
	}
	rid := res.header.Get("X-Request-Id")
	if rid == "" {
		t.Error("no X-Request-Id header")
	}
	if c := sc.headers["X-Request-Id"]; c != "" && saneClientID(c) && rid != c {
		t.Errorf("X-Request-Id %q, want the client's %q", rid, c)
	}
	for _, e := range run.d.checkResponse(sc.method, u.Path, res) {
		t.Errorf("contract: %s", e)
	}
	tpl := run.d.templateFor(u.Path)
	run.statuses[fmt.Sprintf("%s %s %d", sc.method, tpl, res.status)] = true
	if res.status >= 400 && res.status != http.StatusInternalServerError {
		var eb struct {
			Error struct {
				Code      string  `json:"code"`
				RequestID string  `json:"request_id"`
				Fields    []field `json:"fields"`
			} `json:"error"`
		}
		if err := json.Unmarshal(res.body, &eb); err != nil {
			t.Fatalf("error body: %v: %s", err, res.body)
		}
		run.codes[eb.Error.Code] = true
		if sc.code == "" {
			t.Error("scenario names no error code")
		}
		if eb.Error.Code != sc.code {
			t.Errorf("code %q, want %q", eb.Error.Code, sc.code)
		}
		if eb.Error.RequestID != rid {
			t.Errorf("request_id %q differs from X-Request-Id %q", eb.Error.RequestID, rid)
		}
		var got []string
		for _, f := range eb.Error.Fields {
			got = append(got, f.Field)
			if f.Reason == "" {
				t.Errorf("field %s without reason", f.Field)
			}
		}
		want := slices.Clone(sc.fields)
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("fields %v, want %v; body %s", got, want, res.body)
		}
	}
	for _, s := range sc.contains {
		if !strings.Contains(string(res.body), s) {
			t.Errorf("body does not contain %q: %.600s", s, res.body)
		}
	}
	if sc.check != nil {
		sc.check(t, h, res)
	}
}

type field struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

func saneClientID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// issueBody is a valid POST /admin/keys body; totp, when not empty, goes in
// the body.
func issueBody(tier, totp string) string {
	m := map[string]any{"tier": tier, "email": "ops@example.com", "owner": "Example Telecom", "justification": "contract test: issue a key"}
	if totp != "" {
		m["totp"] = totp
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// tileName is the SRTM name of the 1°×1° tile holding a point: its
// south-west corner.
func tileName(lat, lon float64) string {
	la, lo := int(math.Floor(lat)), int(math.Floor(lon))
	ns, ew := "N", "E"
	if la < 0 {
		ns, la = "S", -la
	}
	if lo < 0 {
		ew, lo = "W", -lo
	}
	return fmt.Sprintf("%s%02d%s%03d", ns, la, ew, lo)
}

// haversineKm is an independent great-circle distance, km, on the mean
// sphere (radius 6371.0088 km).
func haversineKm(lat1, lon1, lat2, lon2 float64) float64 {
	r := math.Pi / 180
	dLat, dLon := (lat2-lat1)*r, (lon2-lon1)*r
	a := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(lat1*r)*math.Cos(lat2*r)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * 6371.0088 * math.Asin(math.Sqrt(a))
}

func decodeJSON[T any](t *testing.T, res *response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(res.body, &v); err != nil {
		t.Fatalf("decode %T: %v: %s", v, err, res.body)
	}
	return v
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// Wire types as a client would declare them (decoding strictly checks the
// shapes the schema validation already accepted).
type linkResult struct {
	TowerID        string   `json:"tower_id"`
	Operator       string   `json:"operator"`
	DistanceKm     float64  `json:"distance_km"`
	AzimuthDeg     float64  `json:"azimuth_deg"`
	LOSClear       bool     `json:"los_clear"`
	FresnelOK      bool     `json:"fresnel_ok"`
	MinClearance   *float64 `json:"min_fresnel_clearance_ratio"`
	PathLossDB     float64  `json:"path_loss_db"`
	LinkMarginDB   float64  `json:"link_margin_db"`
	RxPowerDBm     float64  `json:"rx_power_dbm"`
	EIRPDBm        float64  `json:"eirp_dbm"`
	EIRPAssumed    bool     `json:"eirp_assumed"`
	PatternLossDB  float64  `json:"antenna_pattern_loss_db"`
	TowerLat       float64  `json:"tower_lat"`
	TowerLon       float64  `json:"tower_lon"`
	Synthetic      bool     `json:"synthetic"`
	Engine         string   `json:"engine"`
	SourceOfTower  string   `json:"source"`
	PlacementTower string   `json:"placement"`
	UncertaintyM   float64  `json:"position_uncertainty_m"`
}

type analysis struct {
	BestTower     *linkResult         `json:"best_tower"`
	BestCaveats   []appliance.Warning `json:"best_tower_caveats"`
	Alternatives  []linkResult        `json:"alternatives"`
	Reason        string              `json:"reason"`
	EngineUsed    string              `json:"engine_used"`
	EngineVersion string              `json:"engine_version"`
	Notes         []string            `json:"notes"`
	Receiver      struct {
		Lat, Lon float64
		HeightM  float64 `json:"height_m"`
		GroundM  float64 `json:"ground_elevation_m"`
	} `json:"receiver"`
	FrequencyMHz  float64 `json:"frequency_mhz"`
	MaxDistanceKm float64 `json:"max_distance_km"`
	LinkBudget    struct {
		RxGainDBi      float64 `json:"rx_gain_dbi"`
		CableLossDB    float64 `json:"cable_loss_db"`
		RxThresholdDBm float64 `json:"rx_threshold_dbm"`
		AssumedEIRPDBm float64 `json:"assumed_eirp_dbm"`
	} `json:"link_budget"`
	Search struct {
		InRange   int      `json:"towers_in_range"`
		Evaluated int      `json:"towers_evaluated"`
		Skipped   int      `json:"towers_skipped_no_terrain"`
		Missing   []string `json:"missing_tiles"`
	} `json:"search"`
	DataProvenance struct {
		Terrain   string `json:"terrain"`
		Synthetic int    `json:"synthetic_towers_in_result"`
		Note      string `json:"note"`
	} `json:"data_provenance"`
}

type towerJSON struct {
	ID         string   `json:"id"`
	Source     string   `json:"source"`
	Operator   string   `json:"operator"`
	LatW       float64  `json:"lat"`
	LonW       float64  `json:"lon"`
	Height     float64  `json:"height"`
	Power      *float64 `json:"power"`
	Azimuth    *float64 `json:"azimuth"`
	Tilt       *float64 `json:"tilt"`
	Placement  string   `json:"placement"`
	Synthetic  bool     `json:"synthetic"`
	DistanceKm float64  `json:"distance_km"`
	BearingDeg float64  `json:"bearing_deg"`
}

type engineList struct {
	Engines []struct {
		ID      string `json:"id"`
		Allowed bool   `json:"allowed_for_key"`
	} `json:"engines"`
	Default string `json:"default"`
}

func (l engineList) has(id string) bool {
	for _, e := range l.Engines {
		if e.ID == id {
			return true
		}
	}
	return false
}

func (l engineList) allowed(id string) bool {
	for _, e := range l.Engines {
		if e.ID == id {
			return e.Allowed
		}
	}
	return false
}

type caseResult struct {
	Engine        string                           `json:"engine"`
	UsedEngine    string                           `json:"used_engine"`
	PathLossDB    float64                          `json:"path_loss_db"`
	DistanceKm    float64                          `json:"distance_km"`
	ProfilePoints int                              `json:"profile_points"`
	ProfileSource string                           `json:"profile_source"`
	Warnings      []struct{ Code, Message string } `json:"warnings"`
}

type placeList struct {
	Places []struct {
		Name string `json:"name"`
		UF   string `json:"uf"`
	} `json:"places"`
	Count int `json:"count"`
}

// caseBody is an engine case from Corcovado to a receiver in Rio (terrain
// mode unless extra adds a profile); engine "" leaves the field out.
func caseBody(engine, extra string) string {
	e := ""
	if engine != "" {
		e = fmt.Sprintf(`"engine":%q,`, engine)
	}
	return `{` + e + `"tx":{"lat":-22.9519,"lon":-43.2105,"height_m":30},"rx":{"lat":-22.95,"lon":-43.2,"height_m":10},"frequency_mhz":1800` + extra + `}`
}

type towerPage struct {
	Towers     []towerJSON `json:"towers"`
	Total      int         `json:"total"`
	Limit      int         `json:"limit"`
	Offset     int         `json:"offset"`
	NextOffset *int        `json:"next_offset"`
}

// checkAnalysis checks the internal consistency of an /analyze_link answer
// for request req (the defaults applied): ranking, budget arithmetic,
// distances, and that every tower is within the radius.
// checkRanking checks the best tower against the planner's ranking rule
// (package doc, "Ranking") and its caveats: a best tower weaker than the
// first alternative closes, has the better standing, and its caveats name
// that alternative; the standing caveats match the best tower.
func checkRanking(t *testing.T, a analysis) {
	t.Helper()
	if a.BestCaveats == nil {
		t.Errorf("best_tower_caveats is null")
	}
	var cs []string
	for _, w := range a.BestCaveats {
		cs = append(cs, w.Code)
	}
	b := a.BestTower
	if b == nil {
		if len(cs) != 0 {
			t.Errorf("caveats %v without a best tower", cs)
		}
		return
	}
	standing := func(r *linkResult) int {
		switch {
		case r.Synthetic:
			return 2
		case r.UncertaintyM > 0.1*r.DistanceKm*1000:
			return 1
		}
		return 0
	}
	var want []string
	switch standing(b) {
	case 2:
		want = append(want, appliance.WarnSyntheticTower)
	case 1:
		want = append(want, appliance.WarnPositionUncertainty)
	}
	if len(a.Alternatives) > 0 && a.Alternatives[0].LinkMarginDB > b.LinkMarginDB {
		s := &a.Alternatives[0]
		if b.LinkMarginDB < 0 || standing(s) <= standing(b) {
			t.Errorf("best %s (%g dB, standing %d) ranked above %s (%g dB, standing %d)", b.TowerID, b.LinkMarginDB, standing(b), s.TowerID, s.LinkMarginDB, standing(s))
		}
		want = append(want, appliance.WarnStrongerTowerDemoted)
		if w := a.BestCaveats[len(a.BestCaveats)-1]; !strings.Contains(w.Message, s.TowerID) {
			t.Errorf("the caveat does not name %s: %s", s.TowerID, w.Message)
		}
	}
	if !slices.Equal(cs, want) && !(len(cs) == len(want)+1 && cs[len(cs)-1] == appliance.WarnStrongerTowerDemoted) {
		t.Errorf("best_tower_caveats %v, want %v (best %s)", cs, want, b.TowerID)
	}
}

func checkAnalysis(t *testing.T, h *harness, a analysis, lat, lon, maxKm, thresholdDBm float64) {
	t.Helper()
	const tolDB = 0.005 // dB: every term is rounded to 1e-3
	all := a.Alternatives
	if a.BestTower != nil {
		all = append([]linkResult{*a.BestTower}, all...)
	}
	for i, r := range all {
		got := r.EIRPDBm - r.PatternLossDB - r.PathLossDB + a.LinkBudget.RxGainDBi - a.LinkBudget.CableLossDB
		if !near(r.RxPowerDBm, got, tolDB) {
			t.Errorf("%s: rx_power_dbm %g, budget terms give %g", r.TowerID, r.RxPowerDBm, got)
		}
		if !near(r.LinkMarginDB, r.RxPowerDBm-thresholdDBm, tolDB) {
			t.Errorf("%s: link_margin_db %g, rx_power − threshold = %g", r.TowerID, r.LinkMarginDB, r.RxPowerDBm-thresholdDBm)
		}
		if d := haversineKm(lat, lon, r.TowerLat, r.TowerLon); !near(r.DistanceKm, d, 0.002) || d > maxKm+0.001 {
			t.Errorf("%s: distance_km %g, haversine %g, radius %g", r.TowerID, r.DistanceKm, d, maxKm)
		}
		if i > 1 && r.LinkMarginDB > all[i-1].LinkMarginDB {
			t.Errorf("alternatives not ranked by margin: %s %g after %g", r.TowerID, r.LinkMarginDB, all[i-1].LinkMarginDB)
		}
		tw, ok := h.index.Get(r.TowerID)
		if !ok {
			t.Errorf("%s: not in the index", r.TowerID)
		} else if tw.Operator != r.Operator || tw.Synthetic != r.Synthetic || string(tw.Source) != r.SourceOfTower {
			t.Errorf("%s: operator/synthetic/source differ from the catalogue", r.TowerID)
		}
		if r.Engine != a.EngineUsed && r.Engine != "fspl" { // fspl: the fallback answered
			t.Errorf("%s: engine %s, engine_used %s", r.TowerID, r.Engine, a.EngineUsed)
		}
	}
	checkRanking(t, a)
	syn := 0
	for _, r := range all {
		if r.Synthetic {
			syn++
		}
	}
	if syn != a.DataProvenance.Synthetic || (syn > 0) != (a.DataProvenance.Note != "") {
		t.Errorf("synthetic_towers_in_result %d (note %q), counted %d", a.DataProvenance.Synthetic, a.DataProvenance.Note, syn)
	}
	if a.DataProvenance.Terrain != h.desc {
		t.Errorf("data_provenance.terrain %q", a.DataProvenance.Terrain)
	}
	if a.Search.Evaluated > a.Search.InRange || len(all) > a.Search.Evaluated {
		t.Errorf("search counts inconsistent: %+v with %d results", a.Search, len(all))
	}
}

// TestScenarios runs the contract scenario tables against the real API.
func TestScenarios(t *testing.T) {
	h := newHarness(t, harnessOptions{sso: true, billing: true})
	run := newRun(t)

	// Fixtures picked from the loaded catalogue.
	var anatelID string
	for _, tw := range h.index.InBox(appliance.BBox{MinLat: -90, MinLon: -180, MaxLat: 90, MaxLon: 180}) {
		if tw.Source == appliance.SourceAnatel {
			anatelID = tw.ID
			break
		}
	}
	if anatelID == "" {
		t.Fatal("no Anatel tower in the sample catalogue")
	}
	const rxLat, rxLon = -22.95, -43.20
	rio := appliance.LatLon{Lat: rxLat, Lon: rxLon}
	nearest := h.index.Nearest(rio, 1, 50000)
	if len(nearest) == 0 {
		t.Fatal("no tower near Rio")
	}
	rioOperator := nearest[0].Operator
	const southLat, southLon = -25.4, -49.2 // Curitiba: outside the Rio pack
	missingTile := tileName(southLat, southLon)
	huge := `{"operator":"` + strings.Repeat("a", 1<<20) + `"}`
	analyzeRio := `{"receiver":{"lat":-22.95,"lon":-43.20,"height":10},"frequency_mhz":1800,"max_distance_km":20}`

	groups := []struct {
		name string
		scs  []scenario
	}{
		{"operations", []scenario{
			{name: "health constant body", method: "GET", url: "/health", status: 200, check: func(t *testing.T, h *harness, res *response) {
				if string(res.body) != `{"status":"healthy"}`+"\n" {
					t.Errorf("body %q", res.body)
				}
			}},
			{name: "failover on a primary", method: "GET", url: "/health/failover", status: 200, check: func(t *testing.T, h *harness, res *response) {
				m := res.json(t)
				if m["role"] != "primary" || m["ready_to_promote"] != false || m["standby_key_issued"] != true || m["lag_s"] != 0.0 {
					t.Errorf("failover on a primary: %s", res.body)
				}
			}},
			{name: "health echoes a sane client request id", method: "GET", url: "/health", headers: map[string]string{"X-Request-Id": "client-req_42.abc"}, status: 200},
			{name: "health replaces an insane request id", method: "GET", url: "/health", headers: map[string]string{"X-Request-Id": "has space"}, status: 200,
				check: func(t *testing.T, h *harness, res *response) {
					if rid := res.header.Get("X-Request-Id"); rid == "has space" || len(rid) != 24 {
						t.Errorf("X-Request-Id %q, want a new 24-hex id", rid)
					}
				}},
			{name: "health replaces an over-long request id", method: "GET", url: "/health", headers: map[string]string{"X-Request-Id": strings.Repeat("x", 129)}, status: 200,
				check: func(t *testing.T, h *harness, res *response) {
					if rid := res.header.Get("X-Request-Id"); len(rid) != 24 {
						t.Errorf("X-Request-Id %q, want a new 24-hex id", rid)
					}
				}},
			{name: "ready with every check ok", method: "GET", url: "/health/ready", status: 200, check: func(t *testing.T, h *harness, res *response) {
				m := res.json(t)
				if m["status"] != "ready" || m["state"] != "ready" || m["offline"] != true {
					t.Errorf("report %v", m)
				}
				checks := m["checks"].(map[string]any)
				details := m["details"].(map[string]any)
				for _, c := range []string{"database", "terrain", "towers", "queue"} {
					if d, _ := details[c].(map[string]any); checks[c] != "ok" || d["status"] != "ok" || d["reason"] != "" {
						t.Errorf("check %s = %v, details %v", c, checks[c], details[c])
					}
				}
				// Issue 21, scope 3: the queue's workers and the offline
				// flag, each with a status and a reason.
				if q := details["queue"].(map[string]any); q["workers"] != 1.0 || q["workers_alive"] != 1.0 || q["ready"] != 0.0 {
					t.Errorf("details.queue %v", q)
				}
				if o := details["offline"].(map[string]any); o["status"] != "offline" || o["reason"] == "" {
					t.Errorf("details.offline %v", o)
				}
			}},
			{name: "metrics exposition", method: "GET", url: "/metrics", status: 200, contains: []string{"linkplan_http_requests_total{"}},
			{name: "openapi document", method: "GET", url: "/openapi.json", status: 200, check: func(t *testing.T, h *harness, res *response) {
				var a, b any
				_ = json.Unmarshal(res.body, &a)
				_ = json.Unmarshal(api.OpenAPI(), &b)
				if !equalJSON(a, b) {
					t.Error("served document differs from OpenAPI()")
				}
			}},
			{name: "no YAML document", method: "GET", url: "/openapi.yaml", status: 404, code: "not_found"},
			{name: "unknown route", method: "GET", url: "/nope", status: 404, code: "not_found",
				headers: map[string]string{"X-Request-Id": "trace-404"}},
			{name: "unknown route with POST", method: "POST", url: "/v1/analyze_link", body: analyzeRio, status: 404, code: "not_found"},
			{name: "trailing slash is another route", method: "GET", url: "/towers/", key: "pro", status: 404, code: "not_found"},
			{name: "health with POST", method: "POST", url: "/health", status: 405, code: "method_not_allowed"},
			{name: "sso config", method: "GET", url: "/auth/oidc/config", status: 200, contains: []string{`"enabled":true`, `"login_path":"/auth/oidc/login"`}},
		}},
		{"authentication", []scenario{
			{name: "analyze without key", method: "POST", url: "/analyze_link", body: analyzeRio, status: 401, code: "unauthenticated",
				contains: []string{"X-API-Key"}, headers: map[string]string{"X-Request-Id": "trace-401"}},
			{name: "analyze with unknown key", method: "POST", url: "/analyze_link", key: "unknown", body: analyzeRio, status: 401, code: "unauthenticated"},
			{name: "analyze with revoked key", method: "POST", url: "/analyze_link", key: "revoked", body: analyzeRio, status: 401, code: "unauthenticated", contains: []string{"revoked"}},
			{name: "analyze with erased key", method: "POST", url: "/analyze_link", key: "erased", body: analyzeRio, status: 401, code: "key_erased", contains: []string{"API key has been erased"}},
			{name: "towers without key", method: "GET", url: "/towers", status: 401, code: "unauthenticated"},
			{name: "nearest without key", method: "GET", url: "/towers/nearest?lat=-22.95&lon=-43.2", status: 401, code: "unauthenticated"},
			{name: "tower without key", method: "GET", url: "/towers/" + anatelID, status: 401, code: "unauthenticated"},
			{name: "register without key", method: "POST", url: "/towers", body: `{"operator":"Vivo","lat":-22.9,"lon":-43.2}`, status: 401, code: "unauthenticated"},
			{name: "admin keys without key", method: "POST", url: "/admin/keys", body: issueBody("Pro", ""), status: 401, code: "unauthenticated"},
			{name: "refreshes without key", method: "GET", url: "/admin/towers/refreshes", status: 401, code: "unauthenticated"},
		}},
		{"admin", []scenario{
			{name: "issue a Pro key (TOTP header)", method: "POST", url: "/admin/keys", key: "admin", totp: "header", body: issueBody("Pro", ""), status: 201,
				check: func(t *testing.T, h *harness, res *response) {
					m := res.json(t)
					plain, _ := m["api_key"].(string)
					if !strings.HasPrefix(plain, appliance.KeyPrefixTenant) || m["tier"] != "Pro" || m["role"] != "tenant" || !strings.HasPrefix(plain, m["prefix"].(string)) {
						t.Errorf("issued %v", m)
					}
					if m["created_unix"] != float64(h.clock.Now().Unix()) {
						t.Errorf("created_unix %v, clock %d", m["created_unix"], h.clock.Now().Unix())
					}
					// The new key works at once.
					if r := h.do(t, "GET", "/towers/nearest?lat=-22.95&lon=-43.2&k=1", plain, nil, ""); r.status != 200 {
						t.Errorf("the issued key is refused: %d %s", r.status, r.body)
					}
				}},
			{name: "issue an internal key (TOTP in body)", method: "POST", url: "/admin/keys", key: "admin", totp: "body",
				body:   `{"tier":"business","role":"internal","email":"bot@example.com","owner":"automation","justification":"nightly export job","totp":"{{totp}}"}`,
				status: 201, doc: docRejects, // the document lists canonical tier names; the server matches them case-insensitively
				check: func(t *testing.T, h *harness, res *response) {
					m := res.json(t)
					if !strings.HasPrefix(m["api_key"].(string), appliance.KeyPrefixInternal) || m["role"] != "internal" || m["tier"] != "Business" {
						t.Errorf("issued %v", m)
					}
				}},
			{name: "tenant key on admin keys", method: "POST", url: "/admin/keys", key: "pro", totp: "header", body: issueBody("Pro", ""), status: 403, code: "forbidden"},
			{name: "internal key on admin keys", method: "POST", url: "/admin/keys", key: "internal", totp: "header", body: issueBody("Pro", ""), status: 403, code: "forbidden"},
			{name: "wrong TOTP", method: "POST", url: "/admin/keys", key: "admin", totp: "bad", body: issueBody("Pro", ""), status: 403, code: "forbidden"},
			{name: "replayed TOTP", method: "POST", url: "/admin/keys", key: "admin", totp: "replay", body: issueBody("Pro", ""), status: 403, code: "forbidden", contains: []string{"already used"}},
			{name: "missing TOTP", method: "POST", url: "/admin/keys", key: "admin", body: issueBody("Pro", ""), status: 422, code: "invalid_input", fields: []string{"totp"}},
			{name: "every bad field named", method: "POST", url: "/admin/keys", key: "admin", totp: "header",
				body:   `{"tier":"Gold","role":"admin","email":"nope","owner":"","justification":"short"}`,
				status: 422, code: "invalid_input", fields: []string{"tier", "role", "email", "owner", "justification"}, doc: docRejects},
			{name: "unknown field", method: "POST", url: "/admin/keys", key: "admin", totp: "header",
				body: `{"tier":"Pro","email":"a@b.c","owner":"o","justification":"long enough text","is_admin":true}`, status: 422, code: "invalid_input", fields: []string{"is_admin"}, doc: docRejects},
			{name: "wrong type", method: "POST", url: "/admin/keys", key: "admin", totp: "header",
				body: `{"tier":5,"email":"a@b.c","owner":"o","justification":"long enough text"}`, status: 422, code: "invalid_input", fields: []string{"tier"}, doc: docRejects},
			{name: "backup (TOTP header)", method: "POST", url: "/admin/backup", key: "admin", totp: "header", body: backupBody, status: 200,
				check: checkBackupDownload},
			{name: "backup (TOTP in body)", method: "POST", url: "/admin/backup", key: "admin", totp: "body",
				body: `{"justification":"monthly off-site backup","totp":"{{totp}}"}`, status: 200, check: checkBackupDownload},
			{name: "backup with a tenant key", method: "POST", url: "/admin/backup", key: "pro", totp: "header", body: backupBody, status: 403, code: "forbidden"},
			{name: "backup with a wrong TOTP", method: "POST", url: "/admin/backup", key: "admin", totp: "bad", body: backupBody, status: 403, code: "forbidden"},
			{name: "backup without TOTP", method: "POST", url: "/admin/backup", key: "admin", body: backupBody, status: 422, code: "invalid_input", fields: []string{"totp"}},
			{name: "backup without a justification", method: "POST", url: "/admin/backup", key: "admin", totp: "header", body: `{"justification":"x"}`,
				status: 422, code: "invalid_input", fields: []string{"justification"}, doc: docRejects},
			{name: "backup with an unknown field", method: "POST", url: "/admin/backup", key: "admin", totp: "header",
				body: `{"justification":"monthly off-site backup","compress":true}`, status: 422, code: "invalid_input", fields: []string{"compress"}, doc: docRejects},
			{name: "backup without key", method: "POST", url: "/admin/backup", body: backupBody, status: 401, code: "unauthenticated"},
			{name: "snapshot with the standby key", method: "GET", url: "/replication/snapshot", headers: map[string]string{"X-Standby-Key": h.standbyKey}, status: 200,
				check: checkStandbySnapshot},
			{name: "snapshot with a wrong standby key", method: "GET", url: "/replication/snapshot", headers: map[string]string{"X-Standby-Key": "lpsb_" + strings.Repeat("0", 64)}, status: 401, code: "unauthenticated"},
			{name: "snapshot with an admin key, no standby key", method: "GET", url: "/replication/snapshot", key: "admin", status: 401, code: "unauthenticated", contains: []string{"X-Standby-Key"}},
			{name: "standby key (TOTP header)", method: "POST", url: "/admin/standby-key", key: "admin", totp: "header", body: standbyKeyBody, status: 201,
				check: checkStandbyKey},
			{name: "standby key with a tenant key", method: "POST", url: "/admin/standby-key", key: "pro", totp: "header", body: standbyKeyBody, status: 403, code: "forbidden"},
			{name: "standby key with a wrong TOTP", method: "POST", url: "/admin/standby-key", key: "admin", totp: "bad", body: standbyKeyBody, status: 403, code: "forbidden"},
			{name: "standby key without TOTP", method: "POST", url: "/admin/standby-key", key: "admin", body: standbyKeyBody, status: 422, code: "invalid_input", fields: []string{"totp"}},
			{name: "standby key without a justification", method: "POST", url: "/admin/standby-key", key: "admin", totp: "header", body: `{"justification":"x"}`,
				status: 422, code: "invalid_input", fields: []string{"justification"}, doc: docRejects},
			{name: "standby key without key", method: "POST", url: "/admin/standby-key", body: standbyKeyBody, status: 401, code: "unauthenticated"},
			{name: "malformed JSON", method: "POST", url: "/admin/keys", key: "admin", totp: "header", body: `{"tier":`, status: 400, code: "malformed_json"},
			{name: "empty body", method: "POST", url: "/admin/keys", key: "admin", totp: "header", status: 400, code: "malformed_json"},
			{name: "oversized body", method: "POST", url: "/admin/keys", key: "admin", totp: "header", body: huge, status: 413, code: "body_too_large"},
			{name: "GET admin keys", method: "GET", url: "/admin/keys", key: "admin", status: 405, code: "method_not_allowed"},
			{name: "refresh history", method: "GET", url: "/admin/towers/refreshes?limit=10", key: "admin", status: 200,
				check: func(t *testing.T, h *harness, res *response) {
					l := decodeJSON[struct {
						Refreshes []appliance.TowerRefresh `json:"refreshes"`
					}](t, res)
					if len(l.Refreshes) != 2 {
						t.Fatalf("%d records, want the 2 embedded sources", len(l.Refreshes))
					}
					if l.Refreshes[0].Seq <= l.Refreshes[1].Seq {
						t.Error("not newest first")
					}
					for _, r := range l.Refreshes {
						if !strings.HasPrefix(r.Source, "embedded:") || r.Towers == 0 || r.Error != "" {
							t.Errorf("record %+v", r)
						}
					}
				}},
			{name: "refresh history limit out of range", method: "GET", url: "/admin/towers/refreshes?limit=0", key: "admin", status: 422, code: "invalid_input", fields: []string{"limit"}, doc: docRejects},
			{name: "refresh history with a tenant key", method: "GET", url: "/admin/towers/refreshes", key: "pro", status: 403, code: "forbidden"},
		}},
		{"exports and reports", []scenario{
			{name: "export link as GeoJSON", method: "POST", url: "/exports/link?format=geojson", key: "pro", body: analyzeRio, status: 200, contains: []string{`"FeatureCollection"`, `"receiver"`}},
			{name: "export link as KML", method: "POST", url: "/exports/link?format=kml", key: "free", body: analyzeRio, status: 200, contains: []string{"<Placemark>"}},
			{name: "export link as Shapefile", method: "POST", url: "/exports/link?format=shapefile", key: "pro", body: analyzeRio, status: 200},
			{name: "export link in an unknown format", method: "POST", url: "/exports/link?format=gpx", key: "pro", body: analyzeRio, status: 422, code: "invalid_input", fields: []string{"format"}, doc: docRejects},
			{name: "export link without receiver", method: "POST", url: "/exports/link?format=kml", key: "pro", body: `{"frequency_mhz":1800}`, status: 422, code: "invalid_input", fields: []string{"receiver"}, doc: docRejects},
			{name: "export link without key", method: "POST", url: "/exports/link", body: analyzeRio, status: 401, code: "unauthenticated"},
			{name: "report link", method: "POST", url: "/reports/link", key: "pro", body: analyzeRio, status: 200, contains: []string{"%PDF-"}},
			{name: "report link of an unknown tower", method: "POST", url: "/reports/link", key: "pro",
				body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"tower_id":"anatel:0"}`, status: 404, code: "not_found", fields: []string{"tower_id"}},
			{name: "report link without a tower in range", method: "POST", url: "/reports/link", key: "pro",
				body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"max_distance_km":0.001}`, status: 422, code: "no_tower", fields: []string{"receiver"}},
			{name: "report link in an unknown language", method: "POST", url: "/reports/link", key: "pro",
				body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"language":"fr"}`, status: 422, code: "invalid_input", fields: []string{"language"}, doc: docRejects},
			// Point-to-point links (issue 25): the answer, its report and its export.
			{name: "ptp link", method: "POST", url: "/links/ptp", key: "pro", body: ptpBody(""), status: 200,
				contains: []string{`"recommended_mode"`, `"availability_pct"`, `"required_fade_margins"`}},
			{name: "ptp link without channel", method: "POST", url: "/links/ptp", key: "pro", body: `{"a":{},"b":{}}`, status: 422, code: "invalid_input",
				fields: []string{"a.lat", "a.lon", "a.height_m", "a.radio_id", "a.antenna_id", "b.lat", "b.lon", "b.height_m", "b.radio_id", "b.antenna_id", "frequency_mhz", "channel_mhz"}, doc: docRejects},
			{name: "ptp link without key", method: "POST", url: "/links/ptp", body: ptpBody(""), status: 401, code: "unauthenticated"},
			{name: "ptp report", method: "POST", url: "/reports/ptp", key: "pro", body: ptpBody(`,"language":"pt-BR","art":"123"`), status: 200, contains: []string{"%PDF-"}},
			{name: "ptp report in an unknown language", method: "POST", url: "/reports/ptp", key: "pro", body: ptpBody(`,"language":"fr"`), status: 422, code: "invalid_input", fields: []string{"language"}, doc: docRejects},
			{name: "ptp export as KML", method: "POST", url: "/exports/ptp?format=kml", key: "pro", body: ptpBody(""), status: 200, contains: []string{"<Placemark>", "Sumaré"}},
			{name: "ptp export as Shapefile", method: "POST", url: "/exports/ptp?format=shapefile", key: "pro", body: ptpBody(""), status: 422, code: "invalid_input", fields: []string{"format"}},
		}},
		{"analyze_link", []scenario{
			{name: "Rio receiver", method: "POST", url: "/analyze_link", key: "pro", body: analyzeRio, status: 200,
				headers: map[string]string{"X-Request-Id": "trace-analyze-1"},
				check: func(t *testing.T, h *harness, res *response) {
					a := decodeJSON[analysis](t, res)
					if a.BestTower == nil {
						t.Fatalf("no best tower: %s", a.Reason)
					}
					if a.EngineUsed != "fspl" || a.EngineVersion == "" || a.Reason != "" {
						t.Errorf("engine_used %q version %q reason %q", a.EngineUsed, a.EngineVersion, a.Reason)
					}
					if a.Receiver.Lat != rxLat || a.Receiver.Lon != rxLon || a.Receiver.HeightM != 10 || a.FrequencyMHz != 1800 || a.MaxDistanceKm != 20 {
						t.Errorf("request echo %+v", a.Receiver)
					}
					g, err := h.terrain.ElevationM(rio)
					if err != nil || !near(a.Receiver.GroundM, g, 0.0005) {
						t.Errorf("ground_elevation_m %g, terrain %g (%v)", a.Receiver.GroundM, g, err)
					}
					if len(a.Alternatives) == 0 || len(a.Alternatives) > 5 {
						t.Errorf("%d alternatives", len(a.Alternatives))
					}
					lb := a.LinkBudget
					if lb.RxGainDBi != 0 || lb.CableLossDB != 0 || lb.RxThresholdDBm != -95 || lb.AssumedEIRPDBm != 58 {
						t.Errorf("defaults %+v", lb)
					}
					checkAnalysis(t, h, a, rxLat, rxLon, 20, -95)
				}},
			{name: "defaults applied", method: "POST", url: "/analyze_link", key: "free", body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":900}`, status: 200,
				check: func(t *testing.T, h *harness, res *response) {
					a := decodeJSON[analysis](t, res)
					if a.Receiver.HeightM != 10 || a.MaxDistanceKm != 30 || a.LinkBudget.RxThresholdDBm != -95 || a.LinkBudget.AssumedEIRPDBm != 58 {
						t.Errorf("defaults: %+v %g %+v", a.Receiver, a.MaxDistanceKm, a.LinkBudget)
					}
					checkAnalysis(t, h, a, rxLat, rxLon, 30, -95)
				}},
			{name: "explicit values and nulls", method: "POST", url: "/analyze_link", key: "pro",
				body:   `{"receiver":{"lat":-22.95,"lon":-43.2,"height":null},"frequency_mhz":2600,"max_distance_km":15,"rx_gain_dbi":14,"cable_loss_db":1.5,"rx_threshold_dbm":-100,"assumed_eirp_dbm":null,"operator":null,"engine":"fspl","max_alternatives":0}`,
				status: 200, check: func(t *testing.T, h *harness, res *response) {
					a := decodeJSON[analysis](t, res)
					if len(a.Alternatives) != 0 || a.BestTower == nil {
						t.Errorf("max_alternatives 0: best %v, %d alternatives", a.BestTower != nil, len(a.Alternatives))
					}
					if a.Receiver.HeightM != 10 || a.LinkBudget.RxGainDBi != 14 || a.LinkBudget.CableLossDB != 1.5 || a.LinkBudget.AssumedEIRPDBm != 58 {
						t.Errorf("echo %+v %+v", a.Receiver, a.LinkBudget)
					}
					checkAnalysis(t, h, a, rxLat, rxLon, 15, -100)
				}},
			{name: "operator filter", method: "POST", url: "/analyze_link", key: "pro",
				body:   fmt.Sprintf(`{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"operator":%q}`, strings.ToUpper(rioOperator)),
				status: 200, check: func(t *testing.T, h *harness, res *response) {
					a := decodeJSON[analysis](t, res)
					if a.BestTower == nil {
						t.Fatalf("no %s tower: %s", rioOperator, a.Reason)
					}
					for _, r := range append([]linkResult{*a.BestTower}, a.Alternatives...) {
						if !strings.EqualFold(r.Operator, rioOperator) {
							t.Errorf("operator %s in a %s-only answer", r.Operator, rioOperator)
						}
					}
				}},
			{name: "no tower in range", method: "POST", url: "/analyze_link", key: "pro",
				body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"max_distance_km":0.001}`, status: 200,
				check: func(t *testing.T, h *harness, res *response) {
					a := decodeJSON[analysis](t, res)
					if a.BestTower != nil || len(a.Alternatives) != 0 || !strings.Contains(a.Reason, "no tower within") || a.Search.InRange != 0 {
						t.Errorf("answer %+v", a)
					}
				}},
			{name: "engine above the tier", method: "POST", url: "/analyze_link", key: "free",
				body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"engine":"itm"}`, status: 403, code: "forbidden", contains: []string{"Pro"}},
			{name: "asynchronous engine below its tier", method: "POST", url: "/analyze_link", key: "pro",
				body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"engine":"raytrace"}`, status: 403, code: "forbidden", contains: []string{"Enterprise"}},
			{name: "asynchronous engine without its layer", method: "POST", url: "/analyze_link", key: "enterprise",
				body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"engine":"raytrace"}`, status: 422, code: "invalid_input", fields: []string{"raytrace.layer_id"}},
			{name: "hidden engine", method: "POST", url: "/analyze_link", key: "pro",
				body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"engine":"raytrace_ml"}`, status: 422, code: "invalid_input", fields: []string{"engine"}},
			{name: "unknown engine", method: "POST", url: "/analyze_link", key: "pro",
				body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"engine":"magic"}`, status: 422, code: "invalid_input", fields: []string{"engine"}, doc: docRejects},
			{name: "auto below Pro resolves to fspl", method: "POST", url: "/analyze_link", key: "free",
				body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"max_distance_km":10,"engine":"auto"}`, status: 200,
				check: func(t *testing.T, h *harness, res *response) {
					a := decodeJSON[analysis](t, res)
					if a.EngineUsed != "fspl" || len(a.Notes) != 1 || !strings.Contains(a.Notes[0], "fspl") {
						t.Errorf("engine_used %s notes %q", a.EngineUsed, a.Notes)
					}
					checkAnalysis(t, h, a, rxLat, rxLon, 10, -95)
				}},
			{name: "itm for a Pro key", method: "POST", url: "/analyze_link", key: "pro",
				body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"max_distance_km":10,"engine":"itm","max_alternatives":2}`, status: 200,
				check: func(t *testing.T, h *harness, res *response) {
					a := decodeJSON[analysis](t, res)
					// Notes carry ITM's own warnings for Rio's rough terrain,
					// but nothing fell back to fspl.
					if a.EngineUsed != "itm" || len(a.Alternatives) > 2 {
						t.Errorf("engine_used %s, %d alternatives", a.EngineUsed, len(a.Alternatives))
					}
					for _, n := range a.Notes {
						if strings.Contains(n, "fspl") {
							t.Errorf("a path fell back: %q", n)
						}
					}
					checkAnalysis(t, h, a, rxLat, rxLon, 10, -95)
				}},
			{name: "every out-of-range field named", method: "POST", url: "/analyze_link", key: "pro",
				body:   `{"receiver":{"lat":91,"lon":-200,"height":0},"frequency_mhz":10,"max_distance_km":500,"rx_gain_dbi":100,"cable_loss_db":-1,"rx_threshold_dbm":10,"assumed_eirp_dbm":200,"max_alternatives":9,"operator":"` + strings.Repeat("o", 65) + `"}`,
				status: 422, code: "invalid_input", doc: docRejects,
				fields: []string{"receiver.lat", "receiver.lon", "receiver.height_m", "frequency_mhz", "max_distance_km", "rx_gain_dbi", "cable_loss_db", "rx_threshold_dbm", "assumed_eirp_dbm", "max_alternatives", "operator"}},
			{name: "zero radius", method: "POST", url: "/analyze_link", key: "pro", body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"max_distance_km":0}`,
				status: 422, code: "invalid_input", fields: []string{"max_distance_km"}, doc: docRejects},
			{name: "required fields missing", method: "POST", url: "/analyze_link", key: "pro", body: `{}`, status: 422, code: "invalid_input",
				fields: []string{"receiver", "frequency_mhz"}, doc: docRejects},
			{name: "receiver without position", method: "POST", url: "/analyze_link", key: "pro", body: `{"receiver":{"height":5},"frequency_mhz":1800}`,
				status: 422, code: "invalid_input", fields: []string{"receiver.lat", "receiver.lon"}, doc: docRejects},
			{name: "null body", method: "POST", url: "/analyze_link", key: "pro", body: `null`, status: 422, code: "invalid_input",
				fields: []string{"receiver", "frequency_mhz"}, doc: docRejects},
			{name: "string frequency", method: "POST", url: "/analyze_link", key: "pro", body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":"1800"}`,
				status: 422, code: "invalid_input", fields: []string{"frequency_mhz"}, doc: docRejects},
			{name: "string latitude", method: "POST", url: "/analyze_link", key: "pro", body: `{"receiver":{"lat":"-22.95","lon":-43.2},"frequency_mhz":1800}`,
				status: 422, code: "invalid_input", fields: []string{"receiver.lat"}, doc: docRejects},
			{name: "receiver not an object", method: "POST", url: "/analyze_link", key: "pro", body: `{"receiver":[1,2],"frequency_mhz":1800}`,
				status: 422, code: "invalid_input", fields: []string{"receiver"}, doc: docRejects},
			{name: "fractional max_alternatives", method: "POST", url: "/analyze_link", key: "pro", body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"max_alternatives":2.5}`,
				status: 422, code: "invalid_input", fields: []string{"max_alternatives"}, doc: docRejects},
			{name: "number overflow", method: "POST", url: "/analyze_link", key: "pro", body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1e400}`,
				status: 422, code: "invalid_input", fields: []string{"frequency_mhz"}},
			{name: "body is an array", method: "POST", url: "/analyze_link", key: "pro", body: `[]`, status: 422, code: "invalid_input", fields: []string{"(body)"}, doc: docRejects},
			{name: "unknown field", method: "POST", url: "/analyze_link", key: "pro", body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"freq":1}`,
				status: 422, code: "invalid_input", fields: []string{"freq"}, doc: docRejects},
			{name: "unknown nested field", method: "POST", url: "/analyze_link", key: "pro", body: `{"receiver":{"lat":-22.95,"lon":-43.2,"alt":3},"frequency_mhz":1800}`,
				status: 422, code: "invalid_input", fields: []string{"receiver.alt"}, doc: docRejects},
			{name: "unknown fields at two levels", method: "POST", url: "/analyze_link", key: "pro", body: `{"receiver":{"LAT":-22.95,"lon":-43.2,"alt":3},"frequency_mhz":1800,"zz":[1]}`,
				status: 422, code: "invalid_input", fields: []string{"receiver.alt", "zz"}, doc: docRejects},
			{name: "receiver outside the terrain", method: "POST", url: "/analyze_link", key: "pro",
				body:   fmt.Sprintf(`{"receiver":{"lat":%g,"lon":%g,"height":10},"frequency_mhz":1800}`, southLat, southLon),
				status: 422, code: "terrain_missing", contains: []string{missingTile}},
			{name: "malformed JSON", method: "POST", url: "/analyze_link", key: "pro", body: `{"receiver":{"lat":-22.95,`, status: 400, code: "malformed_json",
				headers: map[string]string{"X-Request-Id": "trace-400"}},
			{name: "syntax error", method: "POST", url: "/analyze_link", key: "pro", body: `{"receiver" "x"}`, status: 400, code: "malformed_json"},
			{name: "trailing data", method: "POST", url: "/analyze_link", key: "pro", body: analyzeRio + `{}`, status: 400, code: "malformed_json"},
			{name: "oversized body", method: "POST", url: "/analyze_link", key: "pro", body: huge, status: 413, code: "body_too_large"},
			{name: "GET analyze_link", method: "GET", url: "/analyze_link", key: "pro", status: 405, code: "method_not_allowed"},
		}},
		{"towers", []scenario{
			{name: "list first page", method: "GET", url: "/towers", key: "pro", status: 200, check: func(t *testing.T, h *harness, res *response) {
				p := decodeJSON[towerPage](t, res)
				if p.Total != h.index.Len() || p.Limit != 100 || p.Offset != 0 || len(p.Towers) != min(100, p.Total) {
					t.Errorf("page total %d (index %d) limit %d offset %d len %d", p.Total, h.index.Len(), p.Limit, p.Offset, len(p.Towers))
				}
				if (p.NextOffset == nil) != (p.Total <= 100) || (p.NextOffset != nil && *p.NextOffset != 100) {
					t.Errorf("next_offset %v with total %d", p.NextOffset, p.Total)
				}
				if !slices.IsSortedFunc(p.Towers, func(a, b towerJSON) int { return strings.Compare(a.ID, b.ID) }) {
					t.Error("not ordered by id")
				}
			}},
			{name: "list a box", method: "GET", url: "/towers?bbox=-43.3,-23.0,-43.1,-22.8&limit=5", key: "pro", status: 200, check: func(t *testing.T, h *harness, res *response) {
				p := decodeJSON[towerPage](t, res)
				want := len(h.index.InBox(appliance.BBox{MinLon: -43.3, MinLat: -23.0, MaxLon: -43.1, MaxLat: -22.8}))
				if p.Total != want || want == 0 || len(p.Towers) != min(5, want) {
					t.Errorf("total %d, index says %d; %d towers", p.Total, want, len(p.Towers))
				}
				for _, tw := range p.Towers {
					if tw.LatW < -23.0 || tw.LatW > -22.8 || tw.LonW < -43.3 || tw.LonW > -43.1 {
						t.Errorf("%s outside the box", tw.ID)
					}
				}
			}},
			{name: "list last page", method: "GET", url: "/towers?offset=100000&limit=1000", key: "pro", status: 200, check: func(t *testing.T, h *harness, res *response) {
				p := decodeJSON[towerPage](t, res)
				if len(p.Towers) != 0 || p.NextOffset != nil || p.Total != h.index.Len() {
					t.Errorf("past the end: %d towers, next %v", len(p.Towers), p.NextOffset)
				}
			}},
			{name: "list synthetic only", method: "GET", url: "/towers?source=synthetic&limit=1000", key: "pro", status: 200, check: func(t *testing.T, h *harness, res *response) {
				p := decodeJSON[towerPage](t, res)
				if p.Total == 0 {
					t.Error("no synthetic tower")
				}
				for _, tw := range p.Towers {
					if tw.Source != "synthetic" || !tw.Synthetic || !strings.HasPrefix(tw.ID, "synthetic:") {
						t.Errorf("%s source %s synthetic %v", tw.ID, tw.Source, tw.Synthetic)
					}
				}
			}},
			{name: "list by operator", method: "GET", url: "/towers?operator=" + url.QueryEscape(strings.ToLower(rioOperator)) + "&limit=1000", key: "free", status: 200, check: func(t *testing.T, h *harness, res *response) {
				p := decodeJSON[towerPage](t, res)
				if p.Total == 0 {
					t.Error("no tower")
				}
				for _, tw := range p.Towers {
					if !strings.EqualFold(tw.Operator, rioOperator) {
						t.Errorf("%s operator %s", tw.ID, tw.Operator)
					}
				}
			}},
			{name: "list with bad parameters", method: "GET", url: "/towers?bbox=1,2,3&limit=0&offset=-1", key: "pro", status: 422, code: "invalid_input",
				fields: []string{"bbox", "limit", "offset"}, doc: docRejects},
			{name: "list with an inverted box", method: "GET", url: "/towers?bbox=-43,-22,-44,-23", key: "pro", status: 422, code: "invalid_input", fields: []string{"bbox"}},
			{name: "list with a box off the globe", method: "GET", url: "/towers?bbox=-200,-22,-43,-21", key: "pro", status: 422, code: "invalid_input", fields: []string{"bbox"}},
			{name: "list with a huge limit", method: "GET", url: "/towers?limit=1001", key: "pro", status: 422, code: "invalid_input", fields: []string{"limit"}, doc: docRejects},
			{name: "nearest", method: "GET", url: "/towers/nearest?lat=-22.95&lon=-43.2&k=3", key: "pro", status: 200, check: func(t *testing.T, h *harness, res *response) {
				r := decodeJSON[struct {
					Towers []towerJSON `json:"towers"`
					Count  int         `json:"count"`
				}](t, res)
				if r.Count != 3 || len(r.Towers) != 3 {
					t.Fatalf("count %d, %d towers", r.Count, len(r.Towers))
				}
				if r.Towers[0].ID != nearest[0].ID {
					t.Errorf("first %s, the index's nearest is %s", r.Towers[0].ID, nearest[0].ID)
				}
				for i, tw := range r.Towers {
					d := haversineKm(rxLat, rxLon, tw.LatW, tw.LonW)
					if !near(tw.DistanceKm, d, 0.002) || d > 50 {
						t.Errorf("%s distance %g, haversine %g", tw.ID, tw.DistanceKm, d)
					}
					if i > 0 && tw.DistanceKm < r.Towers[i-1].DistanceKm {
						t.Error("not nearest first")
					}
				}
			}},
			{name: "nearest by operator within a radius", method: "GET", url: "/towers/nearest?lat=-22.95&lon=-43.2&k=100&max_km=10&operator=" + url.QueryEscape(rioOperator), key: "pro", status: 200,
				check: func(t *testing.T, h *harness, res *response) {
					m := res.json(t)
					for _, tw := range m["towers"].([]any) {
						o := tw.(map[string]any)
						if !strings.EqualFold(o["operator"].(string), rioOperator) || o["distance_km"].(float64) > 10 {
							t.Errorf("tower %v", o["id"])
						}
					}
				}},
			{name: "nearest with no candidate", method: "GET", url: "/towers/nearest?lat=0&lon=0", key: "pro", status: 200, check: func(t *testing.T, h *harness, res *response) {
				if string(res.body) != `{"towers":[],"count":0}`+"\n" {
					t.Errorf("body %s", res.body)
				}
			}},
			{name: "nearest without position", method: "GET", url: "/towers/nearest", key: "pro", status: 422, code: "invalid_input", fields: []string{"lat", "lon"}, doc: docRejects},
			{name: "terrain point in Rio (sample pack has no land cover)", method: "GET", url: "/terrain/point?lat=-22.95&lon=-43.2", key: "free", status: 200, check: func(t *testing.T, h *harness, res *response) {
				m := res.json(t)
				if e, _ := m["elevation_m"].(float64); e < 0 || e > 200 || m["clutter"] != nil || !strings.Contains(m["clutter_status"].(string), "land-cover") {
					t.Errorf("point %v", m)
				}
			}},
			{name: "tower search by street address", method: "GET", url: "/towers?q=belas%20artes", key: "pro", status: 200, contains: []string{"anatel:1000029007", "TRAVESSA BELAS ARTES, 15, CENTRO"}},
			{name: "terrain point outside every pack", method: "GET", url: "/terrain/point?lat=-25.4&lon=-49.2", key: "pro", status: 422, code: "terrain_missing", contains: []string{"S26W050"}},
			{name: "terrain point with bad coordinates", method: "GET", url: "/terrain/point?lat=-91&lon=x", key: "pro", status: 422, code: "invalid_input", fields: []string{"lat", "lon"}, doc: docRejects},
			{name: "terrain point without key", method: "GET", url: "/terrain/point?lat=-22.95&lon=-43.2", status: 401, code: "unauthenticated"},
			{name: "nearest with bad parameters", method: "GET", url: "/towers/nearest?lat=100&lon=abc&k=0&max_km=0", key: "pro", status: 422, code: "invalid_input",
				fields: []string{"lat", "lon", "k", "max_km"}, doc: docRejects},
			{name: "one tower", method: "GET", url: "/towers/" + anatelID, key: "pro", status: 200, check: func(t *testing.T, h *harness, res *response) {
				tw := decodeJSON[towerJSON](t, res)
				want, _ := h.index.Get(anatelID)
				if tw.ID != anatelID || tw.Source != "anatel" || tw.Operator != want.Operator || tw.LatW != want.Lat || tw.LonW != want.Lon || tw.Height != want.HeightM {
					t.Errorf("tower %+v, index %+v", tw, want)
				}
				if (tw.Power == nil) != !want.HasERP() {
					t.Errorf("power %v, ERP known %v", tw.Power, want.HasERP())
				}
			}},
			{name: "unknown tower", method: "GET", url: "/towers/anatel:0", key: "pro", status: 404, code: "not_found", contains: []string{"anatel:0"}},
			{name: "register a tower", method: "POST", url: "/towers", key: "pro",
				body:   `{"operator":" Vivo ","lat":-22.9519,"lon":-43.2105,"height":35,"power":60,"azimuth":360,"tilt":2,"station_number":"123","technologies":["LTE","NR"],"bands_mhz":[1800,3500]}`,
				status: 201, check: func(t *testing.T, h *harness, res *response) {
					tw := decodeJSON[towerJSON](t, res)
					if !strings.HasPrefix(tw.ID, "user:") || tw.Source != "user" || tw.Operator != "Vivo" || tw.Placement != "surveyed" || tw.Height != 35 {
						t.Errorf("tower %+v", tw)
					}
					if tw.Azimuth == nil || *tw.Azimuth != 0 {
						t.Errorf("azimuth 360 stored as %v, want 0", tw.Azimuth)
					}
					// Live in the index and stored, owned by the key; another
					// tenant cannot see it (SPEC §5.2: data is scoped by tenant).
					if r := h.do(t, "GET", "/towers/"+tw.ID, h.keys["pro"], nil, ""); r.status != 200 {
						t.Errorf("GET the new tower: %d", r.status)
					}
					if r := h.do(t, "GET", "/towers/"+tw.ID, h.keys["free"], nil, ""); r.status != 404 {
						t.Errorf("another tenant GETs the new tower: %d, want 404", r.status)
					}
					stored, err := h.db.UserTowers()
					if err != nil {
						t.Fatal(err)
					}
					found := false
					for _, s := range stored {
						found = found || (s.ID == tw.ID && s.OwnerKeyID == h.keyIDs["pro"])
					}
					if !found {
						t.Error("not stored with its owner")
					}
				}},
			{name: "register the minimum", method: "POST", url: "/towers", key: "free", body: `{"operator":"TIM","lat":-22.9,"lon":-43.1}`, status: 201,
				check: func(t *testing.T, h *harness, res *response) {
					tw := decodeJSON[towerJSON](t, res)
					if tw.Height != appliance.DefaultTowerHeightM || tw.Power != nil || tw.Azimuth != nil || tw.Tilt != nil {
						t.Errorf("defaults %+v", tw)
					}
				}},
			{name: "register with every field bad", method: "POST", url: "/towers", key: "pro",
				body:   `{"operator":"","lat":95,"lon":-200,"height":0.1,"power":200,"azimuth":400,"tilt":91,"station_number":"` + strings.Repeat("9", 33) + `","technologies":[""],"bands_mhz":[0.5]}`,
				status: 422, code: "invalid_input", doc: docRejects,
				fields: []string{"operator", "lat", "lon", "height_m", "power", "azimuth", "tilt", "station_number", "technologies[0]", "bands_mhz[0]"}},
			{name: "register too many entries", method: "POST", url: "/towers", key: "pro",
				body:   `{"operator":"Oi","lat":-22.9,"lon":-43.1,"technologies":[` + strings.TrimSuffix(strings.Repeat(`"LTE",`, 17), ",") + `]}`,
				status: 422, code: "invalid_input", fields: []string{"technologies"}, doc: docRejects},
			{name: "register nothing", method: "POST", url: "/towers", key: "pro", body: `{}`, status: 422, code: "invalid_input", fields: []string{"operator", "lat", "lon"}, doc: docRejects},
			{name: "register with a string latitude", method: "POST", url: "/towers", key: "pro", body: `{"operator":"Oi","lat":"x","lon":-43.1}`,
				status: 422, code: "invalid_input", fields: []string{"lat"}, doc: docRejects},
			{name: "register with an unknown field", method: "POST", url: "/towers", key: "pro", body: `{"operator":"Oi","lat":-22.9,"lon":-43.1,"id":"anatel:1"}`,
				status: 422, code: "invalid_input", fields: []string{"id"}, doc: docRejects},
			{name: "register malformed", method: "POST", url: "/towers", key: "pro", body: `{"operator":"Oi",`, status: 400, code: "malformed_json"},
			{name: "register oversized", method: "POST", url: "/towers", key: "pro", body: huge, status: 413, code: "body_too_large"},
			{name: "DELETE towers", method: "DELETE", url: "/towers", key: "pro", status: 405, code: "method_not_allowed"},
			{name: "PUT a tower", method: "PUT", url: "/towers/" + anatelID, key: "pro", body: `{}`, status: 405, code: "method_not_allowed"},
			{name: "POST nearest", method: "POST", url: "/towers/nearest", key: "pro", body: `{}`, status: 405, code: "method_not_allowed"},
		}},
		{"coverage and search", []scenario{
			{name: "engines for a Pro key", method: "GET", url: "/coverage/engines", key: "pro", status: 200, check: func(t *testing.T, h *harness, res *response) {
				l := decodeJSON[engineList](t, res)
				if l.Default != "fspl" || !l.allowed("fspl") || !l.allowed("itm") || !l.allowed("auto") || l.allowed("raytrace") || l.has("raytrace_ml") {
					t.Errorf("list %+v", l)
				}
			}},
			{name: "engines for a Free key", method: "GET", url: "/coverage/engines", key: "free", status: 200, check: func(t *testing.T, h *harness, res *response) {
				l := decodeJSON[engineList](t, res)
				if !l.allowed("fspl") || l.allowed("itm") || l.allowed("p1812") {
					t.Errorf("list %+v", l)
				}
			}},
			{name: "predict fspl on the terrain", method: "POST", url: "/coverage/engines/predict", key: "free", body: caseBody("fspl", ""), status: 200,
				check: func(t *testing.T, h *harness, res *response) {
					r := decodeJSON[caseResult](t, res)
					d := haversineKm(-22.9519, -43.2105, -22.95, -43.2)
					if r.UsedEngine != "fspl" || r.ProfileSource != "terrain" || !near(r.DistanceKm, d, 0.01) || r.PathLossDB <= 0 {
						t.Errorf("result %+v (haversine %g km)", r, d)
					}
				}},
			{name: "predict itm on a given profile", method: "POST", url: "/coverage/engines/predict", key: "pro",
				body: caseBody("itm", `,"profile":{"distances_m":[0,500,1000,1500,2000],"heights_m":[10,12,30,15,8]}`), status: 200,
				check: func(t *testing.T, h *harness, res *response) {
					r := decodeJSON[caseResult](t, res)
					if r.Engine != "itm" || r.ProfileSource != "case" || r.ProfilePoints != 5 || !near(r.DistanceKm, 2, 1e-9) {
						t.Errorf("result %+v", r)
					}
				}},
			{name: "predict auto below Pro", method: "POST", url: "/coverage/engines/predict", key: "free", body: caseBody("auto", ""), status: 200,
				check: func(t *testing.T, h *harness, res *response) {
					r := decodeJSON[caseResult](t, res)
					if r.UsedEngine != "fspl" || len(r.Warnings) == 0 {
						t.Errorf("result %+v", r)
					}
				}},
			{name: "predict an engine above the tier", method: "POST", url: "/coverage/engines/predict", key: "free", body: caseBody("p1812", ""), status: 403, code: "forbidden"},
			{name: "predict with required fields missing", method: "POST", url: "/coverage/engines/predict", key: "pro", body: `{}`, status: 422, code: "invalid_input",
				fields: []string{"tx", "rx", "frequency_mhz"}, doc: docRejects},
			{name: "predict with bad ranges", method: "POST", url: "/coverage/engines/predict", key: "pro",
				body:   `{"tx":{"lat":-95,"lon":-43.2,"height_m":30},"rx":{"lat":-22.95,"lon":-43.2,"height_m":-1},"frequency_mhz":5,"itm":{"climate":9}}`,
				status: 422, code: "invalid_input", fields: []string{"tx.lat", "rx.height_m", "frequency_mhz", "itm.climate"}, doc: docRejects},
			{name: "predict with unknown fields", method: "POST", url: "/coverage/engines/predict", key: "pro", body: caseBody("fspl", `,"tx_power":1,"itm":{"climat":1}`),
				status: 422, code: "invalid_input", fields: []string{"itm.climat", "tx_power"}, doc: docRejects},
			{name: "predict outside the terrain", method: "POST", url: "/coverage/engines/predict", key: "pro",
				body:   `{"engine":"fspl","tx":{"lat":-25.40,"lon":-49.20,"height_m":30},"rx":{"lat":-25.41,"lon":-49.21,"height_m":10},"frequency_mhz":900}`,
				status: 422, code: "terrain_missing", contains: []string{missingTile}},
			{name: "predict malformed", method: "POST", url: "/coverage/engines/predict", key: "pro", body: `{"tx":`, status: 400, code: "malformed_json"},
			{name: "predict trailing data", method: "POST", url: "/coverage/engines/predict", key: "pro", body: caseBody("fspl", "") + `[]`, status: 400, code: "malformed_json"},
			{name: "predict empty body", method: "POST", url: "/coverage/engines/predict", key: "pro", status: 400, code: "malformed_json"},
			{name: "predict oversized", method: "POST", url: "/coverage/engines/predict", key: "pro", body: huge, status: 413, code: "body_too_large"},
			{name: "compare for a Pro key", method: "POST", url: "/coverage/engines/compare", key: "pro", body: caseBody("", ""), status: 200,
				check: func(t *testing.T, h *harness, res *response) {
					r := decodeJSON[struct {
						Rows []struct {
							Engine string `json:"engine"`
							Error  string `json:"error"`
						} `json:"rows"`
					}](t, res)
					var got []string
					for _, row := range r.Rows {
						got = append(got, row.Engine)
						if row.Error != "" {
							t.Errorf("%s: %s", row.Engine, row.Error)
						}
					}
					if want := []string{"fspl", "p1812", "itm", "p1411", "p1812-p1411-hybrid"}; !slices.Equal(got, want) {
						t.Errorf("engines %v, want %v", got, want)
					}
				}},
			{name: "compare for a Free key", method: "POST", url: "/coverage/engines/compare", key: "free", body: caseBody("", ""), status: 403, code: "forbidden"},
			{name: "compare malformed", method: "POST", url: "/coverage/engines/compare", key: "pro", body: `nope`, status: 400, code: "malformed_json"},
			{name: "analyze a catalogue tower", method: "POST", url: "/analyze", key: "free",
				body:   fmt.Sprintf(`{"tower_id":%q,"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800}`, anatelID),
				status: 200, check: func(t *testing.T, h *harness, res *response) {
					m := res.json(t)
					if m["tower_id"] != anatelID || m["engine_used"] != "fspl" || m["confidence"] != planner.PhysicsConfidence("fspl") ||
						m["model_source"] != "physics" || m["cv_rmse_db"] != nil || m["model_version"] != nil || m["rx_threshold_dbm"] != -95.0 {
						t.Errorf("answer %v", m)
					}
				}},
			{name: "analyze an ad hoc tower with p1812", method: "POST", url: "/analyze", key: "pro",
				body:   `{"tower":{"lat":-22.9519,"lon":-43.2105,"height":30,"power":43,"azimuth":120},"receiver":{"lat":-22.95,"lon":-43.2,"height":10},"frequency_mhz":1800,"engine":"p1812","time_pct":10}`,
				status: 200, check: func(t *testing.T, h *harness, res *response) {
					m := res.json(t)
					used := appliance.EngineID(m["engine_used"].(string))
					if (used != "p1812" && used != "fspl") || m["confidence"] != planner.PhysicsConfidence(used) || m["eirp_assumed"] != false {
						t.Errorf("answer %v", m)
					}
				}},
			{name: "analyze with both towers", method: "POST", url: "/analyze", key: "pro",
				body:   fmt.Sprintf(`{"tower_id":%q,"tower":{"lat":-22.9,"lon":-43.2},"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800}`, anatelID),
				status: 422, code: "invalid_input", fields: []string{"tower"}},
			{name: "analyze without a tower", method: "POST", url: "/analyze", key: "pro", body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800}`,
				status: 422, code: "invalid_input", fields: []string{"tower_id"}},
			{name: "analyze a bad ad hoc tower", method: "POST", url: "/analyze", key: "pro",
				body:   `{"tower":{"lat":95,"height":0},"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800}`,
				status: 422, code: "invalid_input", fields: []string{"tower.lat", "tower.lon", "tower.height_m"}, doc: docRejects},
			// time_pct is checked by the planner, after the tower fields: a
			// request with both kinds of error learns of them in two rounds.
			{name: "analyze with a bad time percentage", method: "POST", url: "/analyze", key: "pro",
				body:   `{"tower":{"lat":-22.9,"lon":-43.2},"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"time_pct":100,"location_pct":-1}`,
				status: 422, code: "invalid_input", fields: []string{"time_pct", "location_pct"}, doc: docRejects},
			{name: "analyze an unknown tower", method: "POST", url: "/analyze", key: "pro", body: `{"tower_id":"anatel:0","receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800}`,
				status: 404, code: "not_found"},
			{name: "analyze with an engine above the tier", method: "POST", url: "/analyze", key: "free",
				body:   fmt.Sprintf(`{"tower_id":%q,"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"engine":"itm"}`, anatelID),
				status: 403, code: "forbidden"},
			{name: "analyze with an unknown field", method: "POST", url: "/analyze", key: "pro", body: `{"tower":{"lat":-22.9,"lon":-43.2,"operator":"x"},"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800}`,
				status: 422, code: "invalid_input", fields: []string{"tower.operator"}, doc: docRejects},
			{name: "analyze malformed", method: "POST", url: "/analyze", key: "pro", body: `{`, status: 400, code: "malformed_json"},
			{name: "analyze oversized", method: "POST", url: "/analyze", key: "pro", body: huge, status: 413, code: "body_too_large"},
			{name: "places", method: "GET", url: "/places?q=niteroi", key: "pro", status: 200, check: func(t *testing.T, h *harness, res *response) {
				l := decodeJSON[placeList](t, res)
				if l.Count == 0 || l.Count != len(l.Places) || l.Places[0].Name != "Niterói" || l.Places[0].UF != "RJ" {
					t.Errorf("places %+v", l)
				}
			}},
			{name: "places in a state", method: "GET", url: "/places?q=campinas&uf=sp&limit=3", key: "free", status: 200, check: func(t *testing.T, h *harness, res *response) {
				l := decodeJSON[placeList](t, res)
				if l.Count == 0 || l.Count > 3 || l.Places[0].Name != "Campinas" {
					t.Errorf("places %+v", l)
				}
				for _, p := range l.Places {
					if p.UF != "SP" {
						t.Errorf("%s/%s outside SP", p.Name, p.UF)
					}
				}
			}},
			{name: "places without a query", method: "GET", url: "/places", key: "pro", status: 422, code: "invalid_input", fields: []string{"q"}, doc: docRejects},
			{name: "places with bad parameters", method: "GET", url: "/places?q=rio&uf=rio&limit=0", key: "pro", status: 422, code: "invalid_input", fields: []string{"uf", "limit"}, doc: docRejects},
			{name: "places without key", method: "GET", url: "/places?q=rio", status: 401, code: "unauthenticated"},
			{name: "towers full-text", method: "GET", url: "/towers?q=" + url.QueryEscape(rioOperator) + "&limit=5", key: "pro", status: 200, check: func(t *testing.T, h *harness, res *response) {
				p := decodeJSON[towerPage](t, res)
				if p.Total == 0 || len(p.Towers) == 0 || len(p.Towers) > 5 {
					t.Errorf("page total %d, %d towers", p.Total, len(p.Towers))
				}
				for _, tw := range p.Towers {
					if !strings.EqualFold(tw.Operator, rioOperator) {
						t.Errorf("%s operator %s for q=%s", tw.ID, tw.Operator, rioOperator)
					}
				}
			}},
			{name: "towers full-text with a filter", method: "GET", url: "/towers?q=vivo&source=anatel", key: "pro", status: 422, code: "invalid_input", fields: []string{"q"}},
		}},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) { run.run(t, h, g.scs) })
	}
	t.Run("batch reports and jobs", func(t *testing.T) { run.run(t, h, jobScenarios(t, h)) })
	// The job scenarios spend the Free tier's compute window (their polls
	// move the clock a second each): the map scenarios get a minute of
	// their own, as the link-interference ones below do.
	h.clock.advance(time.Minute)
	t.Run("coverage maps", func(t *testing.T) { run.run(t, h, heatmapScenarios(t, h)) })
	t.Run("repeater plans", func(t *testing.T) { run.run(t, h, planScenarios(t, h)) })
	// The groups above poll jobs, a clock second per poll, so where the
	// Free tier's compute window stands here depends on how fast the jobs
	// ran; a new minute gives the next group a window of its own.
	h.clock.advance(time.Minute)
	t.Run("link interference", func(t *testing.T) { run.run(t, h, linkInterferenceScenarios()) })
	t.Run("observations", func(t *testing.T) { run.run(t, h, observationScenarios(t, h)) })
	t.Run("learned models", func(t *testing.T) { run.run(t, h, predictionScenarios(t, h)) })
	t.Run("tenant and platform", func(t *testing.T) { run.run(t, h, tenantScenarios(t, h)) })
	t.Run("sso, branding and billing", func(t *testing.T) { run.run(t, h, tenantFeatureScenarios(t, h)) })
	t.Run("ai", func(t *testing.T) { run.run(t, h, aiScenarios(t, h)) })
	t.Run("tenant keys and privacy", func(t *testing.T) { run.run(t, h, keyPrivacyScenarios(t, h)) })
	t.Run("admin tenants", func(t *testing.T) { run.run(t, h, tenantListScenarios(t, h)) })
	t.Run("hillshade tiles", func(t *testing.T) { run.run(t, h, tileScenarios(t, h)) })
	t.Run("building layers", func(t *testing.T) { run.run(t, h, buildingScenarios(t, h)) })
	t.Run("equipment", func(t *testing.T) { run.run(t, h, equipmentScenarios(t, h)) })
	t.Run("raytrace", func(t *testing.T) { run.run(t, h, raytraceScenarios(t, h)) })
	t.Run("calibration", func(t *testing.T) { run.run(t, h, calibrationScenarios(t, h)) })

	// Every documented operation's success status was exercised.
	for tpl, item := range obj(run.d.root, "paths") {
		for method, opv := range item.(map[string]any) {
			for st := range obj(opv, "responses") {
				key := fmt.Sprintf("%s %s %s", strings.ToUpper(method), tpl, st)
				if st[0] == '2' && !run.statuses[key] {
					t.Errorf("no happy-path scenario for %s", key)
				}
			}
		}
	}
	t.Logf("%d scenarios; error codes seen: %v", run.n, sortedKeys(run.codes))
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// planScenarios are the scenarios of POST /plan_repeater, with a finished
// plan job as fixture.
func planScenarios(t *testing.T, h *harness) []scenario {
	t.Helper()
	res := h.do(t, "POST", "/plan_repeater", h.keys["pro"], nil, planBody(5))
	if res.status != http.StatusAccepted {
		t.Fatalf("%d %s", res.status, res.body)
	}
	j := decodeInto[struct {
		Job jobAnswer `json:"job"`
	}](t, res).Job
	waitFor(t, h, h.keys["pro"], j.ID)
	return []scenario{
		{name: "plan at once", method: "POST", url: "/plan_repeater", key: "pro", body: planBody(3), status: 200, contains: []string{`"counts"`}},
		{name: "plan as a job", method: "POST", url: "/plan_repeater", key: "pro", body: planBody(4), status: 202, contains: []string{`"repeater_plan"`}},
		{name: "plan job status", method: "GET", url: "/jobs/" + j.ID, key: "pro", status: 200, contains: []string{`"found"`}},
		{name: "plan job download", method: "GET", url: "/jobs/" + j.ID + "/download", key: "pro", status: 200, contains: []string{`"counts"`}},
		{name: "plan without frequency", method: "POST", url: "/plan_repeater", key: "pro", status: 422, code: "invalid_input", fields: []string{"frequency_mhz"}, doc: docRejects,
			body: `{"from":{"lat":-22.95,"lon":-43.35,"height_m":30},"to":{"lat":-22.90,"lon":-43.17,"height_m":30}}`},
		{name: "plan from an unknown tower", method: "POST", url: "/plan_repeater", key: "pro", status: 404, code: "not_found",
			body: `{"from":{"tower_id":"anatel:nope"},"to":{"lat":-22.90,"lon":-43.17,"height_m":30},"frequency_mhz":5800}`},
	}
}

// linkInterferenceScenarios are the scenarios of POST /links/interference.
func linkInterferenceScenarios() []scenario {
	ends := `"a":{"lat":-22.93,"lon":-43.48,"height_m":30},"b":{"lat":-22.89,"lon":-43.44,"height_m":30}`
	return []scenario{
		{name: "link interference check", method: "POST", url: "/links/interference", key: "pro", status: 200, contains: []string{`"sinr_db"`, `"interferers"`},
			body: `{` + ends + `,"frequency_mhz":1800,"bandwidth_mhz":20,"required_ci_db":10,"radius_km":5}`},
		{name: "link interference without frequency", method: "POST", url: "/links/interference", key: "pro", status: 422, code: "invalid_input",
			fields: []string{"frequency_mhz"}, doc: docRejects, body: `{` + ends + `}`},
		{name: "link interference beyond the Free radius", method: "POST", url: "/links/interference", key: "free", status: 422, code: "invalid_input",
			fields: []string{"radius_km"}, body: `{` + ends + `,"frequency_mhz":1800,"radius_km":10}`},
	}
}

// heatmapScenarios are the scenarios of the coverage map routes, with a
// finished map as fixture.
func heatmapScenarios(t *testing.T, h *harness) []scenario {
	t.Helper()
	id, _, _ := startMap(t, h, h.keys["pro"], heatmapBody)
	ifID, _ := startNetMap(t, h, "/coverage/interference", h.keys["pro"], interferenceBody)
	vsID, _ := startNetMap(t, h, "/coverage/viewshed", h.keys["pro"], viewshedBody)
	near := h.index.Nearest(appliance.LatLon{Lat: -22.93, Lon: -43.30}, 2, 20000)
	if len(near) < 2 {
		t.Fatalf("%d sample towers near Tijuca", len(near))
	}
	ct := map[string]string{"Content-Type": "application/json"}
	best := `{"tower_ids":["` + near[0].ID + `","` + near[1].ID + `"],"frequency_mhz":1800,"radius_km":2,"resolution_m":250}`
	return []scenario{
		{name: "heatmap stream", method: "POST", url: "/coverage/heatmap", key: "pro", headers: ct, body: heatmapBody, status: 200, contains: []string{"event: started", "event: tile", "event: summary"}},
		{name: "best-server stream", method: "POST", url: "/coverage/best_server", key: "pro", headers: ct, body: best, status: 200, contains: []string{"event: tile", `"servers":`, "event: summary"}},
		{name: "heatmap over the Free radius cap", method: "POST", url: "/coverage/heatmap", key: "free", headers: ct, status: 422, code: "invalid_input", fields: []string{"radius_km"},
			body: `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800,"radius_km":10}`},
		{name: "best-server for Free", method: "POST", url: "/coverage/best_server", key: "free", headers: ct, body: best, status: 403, code: "forbidden"},
		{name: "map state", method: "GET", url: "/coverage/heatmap/" + id, key: "pro", status: 200, contains: []string{`"state":"done"`, `"valid_pixels"`}},
		{name: "map state of another tenant", method: "GET", url: "/coverage/heatmap/" + id, key: "internal", status: 404, code: "not_found"},
		{name: "resume a stream", method: "GET", url: "/coverage/heatmap/" + id + "/events", key: "pro", headers: map[string]string{"Last-Event-ID": "2"}, status: 200, contains: []string{"id: 3\n", "event: summary"}},
		{name: "resume after a non-number", method: "GET", url: "/coverage/heatmap/" + id + "/events?after=abc", key: "pro", status: 422, code: "invalid_input", fields: []string{"after"}},
		{name: "resume after a negative id", method: "GET", url: "/coverage/heatmap/" + id + "/events", key: "pro", headers: map[string]string{"Last-Event-ID": "-1"}, status: 422, code: "invalid_input", fields: []string{"Last-Event-ID"}},
		{name: "start a stream with a bad resume point", method: "POST", url: "/coverage/heatmap?after=1e3", key: "pro", headers: ct, body: heatmapBody, status: 422, code: "invalid_input", fields: []string{"after"}},
		{name: "raster export with thresholds", method: "GET", url: "/coverage/heatmap/" + id + "/export?format=geotiff&thresholds=abc", key: "pro", status: 422, code: "invalid_input", fields: []string{"thresholds"}},
		{name: "export GeoTIFF", method: "GET", url: "/coverage/heatmap/" + id + "/export?format=geotiff", key: "pro", status: 200},
		{name: "export contours as GeoJSON", method: "GET", url: "/coverage/heatmap/" + id + "/export?format=geojson&thresholds=-60,-80", key: "pro", status: 200, contains: []string{`"MultiPolygon"`, `"threshold_dbm"`}},
		{name: "export contours as a Shapefile", method: "GET", url: "/coverage/heatmap/" + id + "/export?format=shapefile", key: "pro", status: 200},
		{name: "export contours as KML", method: "GET", url: "/coverage/heatmap/" + id + "/export?format=kml", key: "pro", status: 200},
		{name: "export with bad thresholds", method: "GET", url: "/coverage/heatmap/" + id + "/export?format=geojson&thresholds=-75,x", key: "pro", status: 422, code: "invalid_input", fields: []string{"thresholds"}, doc: docRejects},
		{name: "export KMZ", method: "GET", url: "/coverage/heatmap/" + id + "/export?format=kmz", key: "pro", status: 200},
		{name: "export in an unknown format", method: "GET", url: "/coverage/heatmap/" + id + "/export?format=png", key: "pro", status: 422, code: "invalid_input", fields: []string{"format"}, doc: docRejects},
		// Interference maps and viewsheds (issue 26): the same registry,
		// streams and export route.
		{name: "interference map stream", method: "POST", url: "/coverage/interference", key: "pro", headers: ct, body: interferenceBody, status: 200,
			contains: []string{`"kind":"interference"`, "event: tile", `"servers":`, "event: summary", `"sinr_areas"`},
			// The Free tier's maps group (2 a minute) is spent by the two
			// Free map scenarios above: a new minute for the next one.
			check: func(t *testing.T, h *harness, res *response) { h.clock.advance(time.Minute) }},
		{name: "interference map for Free", method: "POST", url: "/coverage/interference", key: "free", headers: ct, body: interferenceBody, status: 403, code: "forbidden"},
		{name: "interference map with descending thresholds", method: "POST", url: "/coverage/interference", key: "pro", headers: ct, status: 422, code: "invalid_input",
			fields: []string{"sinr_thresholds_db[1]"}, body: strings.Replace(interferenceBody, `"engine":"fspl"`, `"engine":"fspl","sinr_thresholds_db":[10,0]`, 1)},
		{name: "interference map without frequency", method: "POST", url: "/coverage/interference", key: "pro", headers: ct, status: 422, code: "invalid_input",
			fields: []string{"frequency_mhz"}, doc: docRejects, body: `{"sites":[{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58}]}`},
		{name: "interference SINR contours", method: "GET", url: "/coverage/heatmap/" + ifID + "/export?format=geojson", key: "pro", status: 200, contains: []string{`"sinr_db"`, `"MultiPolygon"`}},
		{name: "interference GeoTIFF", method: "GET", url: "/coverage/heatmap/" + ifID + "/export?format=geotiff", key: "pro", status: 200},
		{name: "viewshed stream", method: "POST", url: "/coverage/viewshed", key: "pro", headers: ct, body: viewshedBody, status: 200,
			contains: []string{`"kind":"viewshed"`, "event: tile", "event: summary", `"visible_km2"`}},
		{name: "viewshed without site", method: "POST", url: "/coverage/viewshed", key: "pro", headers: ct, status: 422, code: "invalid_input",
			fields: []string{"tower_id"}, body: `{"frequency_mhz":5800}`},
		{name: "viewshed with a bad k-factor", method: "POST", url: "/coverage/viewshed", key: "pro", headers: ct, status: 422, code: "invalid_input",
			fields: []string{"k_factor"}, body: strings.Replace(viewshedBody, `"rx_height_m":5`, `"rx_height_m":5,"k_factor":40`, 1)},
		{name: "viewshed visible areas as KML", method: "GET", url: "/coverage/heatmap/" + vsID + "/export?format=kml", key: "pro", status: 200, contains: []string{"fresnel_60"}},
		// a transmitter on no loaded terrain: refused before the map starts
		// (it answered 200 and failed in the stream)
		{name: "heatmap off the terrain", method: "POST", url: "/coverage/heatmap", key: "pro", headers: ct, status: 422, code: "terrain_missing", contains: []string{"N10E010"},
			body: `{"site":{"lat":10.5,"lon":10.5,"height_m":30,"eirp_dbm":50},"frequency_mhz":1800,"radius_km":2,"resolution_m":200}`},
		{name: "viewshed off the terrain", method: "POST", url: "/coverage/viewshed", key: "pro", headers: ct, status: 422, code: "terrain_missing",
			body: strings.Replace(viewshedBody, `"lat":-22.93,"lon":-43.30`, `"lat":10.5,"lon":10.5`, 1)},
		{name: "interference map off the terrain", method: "POST", url: "/coverage/interference", key: "pro", headers: ct, status: 422, code: "terrain_missing",
			body: `{"sites":[{"lat":10.5,"lon":10.5,"height_m":30,"eirp_dbm":58},{"lat":10.51,"lon":10.5,"height_m":30,"eirp_dbm":58}],"frequency_mhz":1800,"radius_km":2,"resolution_m":200,"engine":"fspl"}`},
	}
}

// jobScenarios are the scenarios of the batch and job routes, with their
// fixtures: a finished job, a running one and one queued behind it (the
// harness runs one worker).
func jobScenarios(t *testing.T, h *harness) []scenario {
	t.Helper()
	rows := func(n int) string { return `{"rows":[` + batchRows(n) + `],"options":{"pdfs":false}}` }
	done := submitJob(t, h, h.keys["pro"], rows(101))
	waitFor(t, h, h.keys["pro"], done.ID)
	running := submitJob(t, h, h.keys["internal"], rows(5000))
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(2 * time.Millisecond) {
		h.clock.advance(time.Second) // a rate-limit slot per poll (appliance/quota)
		j := decodeInto[jobAnswer](t, h.do(t, "GET", "/jobs/"+running.ID, h.keys["internal"], nil, ""))
		if j.State == "running" {
			break
		}
		if j.State != "queued" || time.Now().After(deadline) {
			t.Fatalf("5,000-row job never seen running: %+v", j)
		}
	}
	queued := submitJob(t, h, h.keys["internal"], rows(150))
	csv := "nome;lat;lon;freq\nA;-22,95;-43,20;1800\n"
	return []scenario{
		{name: "cancel the queued job", method: "POST", url: "/jobs/" + queued.ID + "/cancel", key: "internal", status: 200, contains: []string{`"state":"canceled"`}},
		{name: "cancel the running job", method: "POST", url: "/jobs/" + running.ID + "/cancel", key: "internal", status: 202, contains: []string{`"cancel_requested":true`}},
		{name: "batch of 2 rows", method: "POST", url: "/batch_reports", key: "pro", body: `{"rows":[` + batchRows(2) + `]}`, status: 200, contains: []string{`"counts"`}},
		{name: "batch of 101 rows", method: "POST", url: "/batch_reports", key: "pro", body: rows(101), status: 202, contains: []string{`"state":"queued"`}},
		{name: "batch as CSV", method: "POST", url: "/batch_reports", key: "pro", headers: map[string]string{"Content-Type": "text/csv"}, body: csv, status: 200},
		{name: "batch on Free", method: "POST", url: "/batch_reports", key: "free", body: rows(2), status: 403, code: "forbidden"},
		{name: "batch over the limit", method: "POST", url: "/batch_reports", key: "pro", body: rows(2001), status: 400, code: "batch_over_limit", fields: []string{"rows"}},
		{name: "batch without rows", method: "POST", url: "/batch_reports", key: "pro", body: `{"options":{"pdfs":false}}`, status: 422, code: "invalid_input", fields: []string{"rows"}, doc: docRejects},
		{name: "batch with an unknown option", method: "POST", url: "/batch_reports", key: "pro", body: `{"rows":[` + batchRows(1) + `],"options":{"speed":1}}`, status: 422, code: "invalid_input", fields: []string{"options.speed"}, doc: docRejects},
		{name: "batch without key", method: "POST", url: "/batch_reports", body: rows(2), status: 401, code: "unauthenticated"},
		{name: "job status", method: "GET", url: "/jobs/" + done.ID, key: "pro", status: 200, contains: []string{`"state":"succeeded"`, `"download_url"`}},
		{name: "job status of another tenant", method: "GET", url: "/jobs/" + done.ID, key: "internal", status: 404, code: "not_found"},
		{name: "job bundle", method: "GET", url: "/jobs/" + done.ID + "/download", key: "pro", status: 200},
		{name: "bundle of a canceled job", method: "GET", url: "/jobs/" + queued.ID + "/download", key: "internal", status: 409, code: "conflict"},
		{name: "cancel a finished job", method: "POST", url: "/jobs/" + done.ID + "/cancel", key: "pro", status: 409, code: "conflict"},
		{name: "cancel another tenant's job", method: "POST", url: "/jobs/" + done.ID + "/cancel", key: "free", status: 404, code: "not_found"},
		{name: "ai summary of the finished job", method: "POST", url: "/ai/batch-analyze", key: "pro", body: `{"job_id":"` + done.ID + `"}`, status: 200,
			contains: []string{`"margin_classes"`, `"total":101`}},
		{name: "ai summary of a canceled job", method: "POST", url: "/ai/batch-analyze", key: "internal", body: `{"job_id":"` + queued.ID + `"}`, status: 409, code: "conflict"},
	}
}

// standbyKeyBody is a valid POST /admin/standby-key body.
const standbyKeyBody = `{"justification":"warm standby in the second rack"}`

// checkStandbyKey: the issued key is shown once, works on GET
// /replication/snapshot, revokes the previous one, and its issue is
// audited.
func checkStandbyKey(t *testing.T, h *harness, res *response) {
	t.Helper()
	m := res.json(t)
	k, _ := m["standby_key"].(string)
	if !strings.HasPrefix(k, "lpsb_") || m["key_id"] == "" {
		t.Fatalf("issued %s", res.body)
	}
	if r := h.do(t, "GET", "/replication/snapshot", "", map[string]string{"X-Standby-Key": k}, ""); r.status != 200 {
		t.Errorf("the new standby key is refused: %d %.300s", r.status, r.body)
	}
	if r := h.do(t, "GET", "/replication/snapshot", "", map[string]string{"X-Standby-Key": h.standbyKey}, ""); r.status != 401 {
		t.Errorf("the previous standby key still works: %d", r.status)
	}
	rows, err := h.db.Audit("admin", 5)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rows, func(e appliance.AuditEntry) bool {
		return e.Action == appliance.ActionAdminStandbyKey && e.Params["standby_key_id"] == m["key_id"] && e.Params["justification"] != ""
	}) {
		t.Errorf("no admin.standby_key audit row for %v in %+v", m["key_id"], rows)
	}
	// The scenarios after this one use the harness's key again.
	sk, err := h.standby.IssueKey(appliance.AuditEntry{ActorKey: "harness"})
	if err != nil {
		t.Fatal(err)
	}
	h.standbyKey = sk.StandbyKey
}

// checkStandbySnapshot: a snapshot is a verified backup file of trigger
// standby, announced by its headers.
func checkStandbySnapshot(t *testing.T, h *harness, res *response) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.lpbackup")
	if err := os.WriteFile(path, res.body, 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := backup.Verify(context.Background(), path, "", func(_ context.Context, p string) (appliance.DBCheck, error) { return store.CheckFile(p) }, store.SchemaVersion())
	if err != nil {
		t.Fatalf("the snapshot does not verify: %v", err)
	}
	if res.header.Get("X-Linkplan-Backup-Sha256") != m.DB.SHA256 || m.Trigger != appliance.BackupTriggerStandby {
		t.Errorf("headers %v, manifest %+v", res.header, m)
	}
}

// backupBody is a valid POST /admin/backup body.
const backupBody = `{"justification":"monthly off-site backup"}`

// checkBackupDownload: the answer of POST /admin/backup is a backup file
// that verifies, announced by its headers, and the backup is audited.
func checkBackupDownload(t *testing.T, h *harness, res *response) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "b.lpbackup")
	if err := os.WriteFile(path, res.body, 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := backup.Verify(context.Background(), path, "", func(_ context.Context, p string) (appliance.DBCheck, error) { return store.CheckFile(p) }, store.SchemaVersion())
	if err != nil {
		t.Fatalf("the downloaded backup does not verify: %v", err)
	}
	if res.header.Get("Content-Type") != "application/x-tar" || res.header.Get("X-Linkplan-Backup-Sha256") != m.DB.SHA256 ||
		res.header.Get("Content-Length") != strconv.Itoa(len(res.body)) || m.Trigger != "route" || m.DB.Buckets["keys"] < 5 {
		t.Errorf("headers %v, manifest %+v", res.header, m)
	}
	rows, err := h.db.Audit("admin", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || rows[0].Action != "admin.backup" || rows[0].Params["db_sha256"] != m.DB.SHA256 || rows[0].Params["justification"] == "" {
		t.Errorf("newest admin audit row %+v", rows[0])
	}
	if ents, _ := os.ReadDir(h.dataDir); slices.ContainsFunc(ents, func(e os.DirEntry) bool { return strings.Contains(e.Name(), ".lpbackup") }) {
		t.Errorf("the backup left a file in the data directory: %v", ents)
	}
}
