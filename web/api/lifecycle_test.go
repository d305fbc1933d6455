package api_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
	"linkplan/web/api"
)

// contract fails t for every way res departs from the document.
func contract(t *testing.T, d *openAPI, method, rawURL string, res *response) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	if res.header.Get("X-Request-Id") == "" {
		t.Errorf("%s %s: no X-Request-Id", method, rawURL)
	}
	for _, e := range d.checkResponse(method, u.Path, res) {
		t.Errorf("contract: %s", e)
	}
}

func errorCode(t *testing.T, res *response) string {
	t.Helper()
	e, _ := res.json(t)["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func TestReadinessStates(t *testing.T) {
	d := loadOpenAPI(t)
	for _, state := range []string{api.StateStarting, api.StateStopping} {
		t.Run(state, func(t *testing.T) {
			h := newHarness(t, harnessOptions{state: state})
			res := h.do(t, "GET", "/health/ready", "", nil, "")
			contract(t, d, "GET", "/health/ready", res)
			if res.status != http.StatusServiceUnavailable {
				t.Fatalf("ready: %d", res.status)
			}
			m := res.json(t)
			if m["status"] != "not_ready" || m["state"] != state {
				t.Errorf("report %v", m)
			}
			// Liveness and the public routes answer whatever the state.
			for _, p := range []string{"/health", "/metrics", "/openapi.json"} {
				if r := h.do(t, "GET", p, "", nil, ""); r.status != 200 {
					t.Errorf("%s: %d", p, r.status)
				}
			}
			// Data routes are gated, before authentication.
			for _, c := range []struct{ method, url, key, body string }{
				{"GET", "/towers", "pro", ""},
				{"GET", "/towers", "", ""},
				{"GET", "/towers/nearest?lat=-22.9&lon=-43.2", "pro", ""},
				{"GET", "/towers/anatel:0", "pro", ""},
				{"POST", "/towers", "pro", `{"operator":"Oi","lat":-22.9,"lon":-43.1}`},
				{"POST", "/analyze_link", "pro", `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800}`},
			} {
				r := h.do(t, c.method, c.url, h.keys[c.key], nil, c.body)
				contract(t, d, c.method, c.url, r)
				if r.status != http.StatusServiceUnavailable || errorCode(t, r) != "unavailable" {
					t.Errorf("%s %s: %d %s", c.method, c.url, r.status, r.body)
				}
			}
			h.api.SetState(api.StateReady)
			res = h.do(t, "GET", "/health/ready", "", nil, "")
			contract(t, d, "GET", "/health/ready", res)
			if res.status != http.StatusOK {
				t.Errorf("after SetState(ready): %d %s", res.status, res.body)
			}
			if r := h.do(t, "GET", "/towers?limit=1", h.keys["pro"], nil, ""); r.status != 200 {
				t.Errorf("towers after ready: %d", r.status)
			}
		})
	}
}

// TestReadinessFailingCheck closes the real database under a ready API:
// readiness must turn 503 and name the reason.
func TestReadinessFailingCheck(t *testing.T) {
	d := loadOpenAPI(t)
	h := newHarness(t, harnessOptions{})
	if err := h.db.Close(); err != nil {
		t.Fatal(err)
	}
	res := h.do(t, "GET", "/health/ready", "", nil, "")
	contract(t, d, "GET", "/health/ready", res)
	if res.status != http.StatusServiceUnavailable {
		t.Fatalf("status %d", res.status)
	}
	m := res.json(t)
	checks := m["checks"].(map[string]any)
	if m["status"] != "not_ready" || m["state"] != "ready" || checks["database"] == "ok" || checks["database"] == "" || checks["terrain"] != "ok" {
		t.Errorf("report %v", m)
	}
}

// failingTowerDB and failingIssuer are fakes that simulate a broken store
// (the tower or key and its audit entry are written in one transaction, so
// the store is where such a failure happens): the error matches no
// appliance sentinel, so it is an internal error, which must give the
// plain-text 500.
type failingTowerDB struct{}

func (failingTowerDB) PutUserTower(*appliance.Tower, int, ...appliance.AuditEntry) error {
	return errors.New("store unavailable (injected by the test)")
}

type failingIssuer struct{ api.Authenticator }

func (failingIssuer) Issue(tenancy.IssueRequest) (string, *appliance.APIKey, error) {
	return "", nil, errors.New("store unavailable (injected by the test)")
}

// panickingIndex is a fake tower index that panics on every query: it
// simulates a programming bug below the handlers.
type panickingIndex struct{ appliance.TowerIndex }

func (panickingIndex) Within(appliance.LatLon, float64) []*appliance.Tower {
	panic("injected: Within")
}
func (panickingIndex) Nearest(appliance.LatLon, int, float64) []*appliance.Tower {
	panic("injected: Nearest")
}
func (panickingIndex) InBox(appliance.BBox) []*appliance.Tower { panic("injected: InBox") }
func (panickingIndex) Get(string) (*appliance.Tower, bool)     { panic("injected: Get") }

func TestInternalErrors(t *testing.T) {
	d := loadOpenAPI(t)
	towerStoreFails := harnessOptions{towerDB: func(api.TowerStore) api.TowerStore { return failingTowerDB{} }}
	keyStoreFails := harnessOptions{auth: func(real api.Authenticator) api.Authenticator { return failingIssuer{real} }}
	indexPanics := harnessOptions{towers: func(real appliance.TowerIndex) appliance.TowerIndex { return panickingIndex{real} }}
	for _, c := range []struct {
		name   string
		opt    harnessOptions
		method string
		url    string
		key    string
		totp   bool
		body   string
	}{
		{"store fails while registering a tower", towerStoreFails, "POST", "/towers", "pro", false, `{"operator":"Oi","lat":-22.9,"lon":-43.1}`},
		{"store fails while issuing a key", keyStoreFails, "POST", "/admin/keys", "admin", true, issueBody("Pro", "")},
		{"index panics on list", indexPanics, "GET", "/towers", "pro", false, ""},
		{"index panics on nearest", indexPanics, "GET", "/towers/nearest?lat=-22.9&lon=-43.2", "pro", false, ""},
		{"index panics on get", indexPanics, "GET", "/towers/anatel:1", "pro", false, ""},
		{"index panics under the planner", indexPanics, "POST", "/analyze_link", "pro", false, `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.opt)
			hdr := map[string]string{"X-Request-Id": "trace-500-" + strings.ReplaceAll(c.name, " ", "-")}
			if c.totp {
				hdr["X-Admin-Totp"] = h.freshTOTP(t)
			}
			res := h.do(t, c.method, c.url, h.keys[c.key], hdr, c.body)
			contract(t, d, c.method, c.url, res)
			if res.status != http.StatusInternalServerError || string(res.body) != "Internal Server Error\n" {
				t.Fatalf("status %d body %q", res.status, res.body)
			}
			if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("Content-Type %q", ct)
			}
			if rid := res.header.Get("X-Request-Id"); rid != hdr["X-Request-Id"] {
				t.Errorf("X-Request-Id %q, want %q", rid, hdr["X-Request-Id"])
			}
			// The server survives and counts the 500.
			if r := h.do(t, "GET", "/health", "", nil, ""); r.status != 200 {
				t.Errorf("health after the failure: %d", r.status)
			}
			m := h.do(t, "GET", "/metrics", "", nil, "")
			u, _ := url.Parse(c.url)
			want := fmt.Sprintf(`linkplan_http_requests_total{method=%q,route=%q,status="500"} 1`, c.method, d.templateFor(u.Path))
			if !strings.Contains(string(m.body), want) {
				t.Errorf("metrics lack %s", want)
			}
		})
	}
}

func TestMetrics(t *testing.T) {
	d := loadOpenAPI(t)
	h := newHarness(t, harnessOptions{})
	id := h.index.Nearest(appliance.LatLon{Lat: -22.95, Lon: -43.2}, 1, 50000)[0].ID
	for _, c := range []struct{ method, url, key string }{
		{"GET", "/towers/" + id, "pro"},
		{"GET", "/towers/" + id, "free"},
		{"GET", "/towers/anatel:0", "pro"},
		{"GET", "/towers/" + id, ""},
		{"GET", "/nope/" + id, ""},
		{"DELETE", "/towers", "pro"},
	} {
		h.do(t, c.method, c.url, h.keys[c.key], nil, "")
	}
	res := h.do(t, "GET", "/metrics", "", nil, "")
	contract(t, d, "GET", "/metrics", res)
	body := string(res.body)
	for _, want := range []string{
		`linkplan_http_requests_total{method="GET",route="/towers/{id}",status="200"} 2`,
		`linkplan_http_requests_total{method="GET",route="/towers/{id}",status="404"} 1`,
		`linkplan_http_requests_total{method="GET",route="/towers/{id}",status="401"} 1`,
		`linkplan_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
		`linkplan_http_requests_total{method="DELETE",route="unmatched",status="405"} 1`,
		`linkplan_http_request_duration_seconds_count{method="GET",route="/towers/{id}"} 4`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("metrics lack %s", want)
		}
	}
	// Label values come from closed sets: never a path or an id.
	if strings.Contains(body, id) || strings.Contains(body, "/nope") {
		t.Error("a request path leaked into a metric label")
	}
}

// TestTowerQuotaFreeKey fills a Free key's towers-per-key cap (SPEC §8.1:
// 20) and checks that the next registration is a 429 that stores nothing.
func TestTowerQuotaFreeKey(t *testing.T) {
	d := loadOpenAPI(t)
	h := newHarness(t, harnessOptions{})
	capN := appliance.TierFree.TowersPerKey()
	if capN != 20 {
		t.Fatalf("Free cap %d, SPEC §8.1 says 20", capN)
	}
	body := func(i int) string {
		return fmt.Sprintf(`{"operator":"Claro","lat":%.4f,"lon":-43.2,"height":20}`, -22.9-float64(i)/1000)
	}
	for i := 0; i < capN; i++ {
		// Free may register 10 towers a minute (appliance/quota): the
		// harness clock moves 30 s between registrations.
		h.clock.nextStep()
		res := h.do(t, "POST", "/towers", h.keys["free"], nil, body(i))
		if res.status != http.StatusCreated {
			t.Fatalf("tower %d: %d %s", i+1, res.status, res.body)
		}
	}
	before := h.index.Len()
	h.clock.nextStep()
	res := h.do(t, "POST", "/towers", h.keys["free"], nil, body(capN))
	contract(t, d, "POST", "/towers", res)
	if res.status != http.StatusTooManyRequests || errorCode(t, res) != "quota_exceeded" {
		t.Fatalf("tower %d: %d %s", capN+1, res.status, res.body)
	}
	if !strings.Contains(string(res.body), "20") {
		t.Errorf("the message does not name the cap: %s", res.body)
	}
	stored, err := h.db.UserTowers()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range stored {
		if s.OwnerKeyID == h.keyIDs["free"] {
			n++
		}
	}
	if n != capN || h.index.Len() != before {
		t.Errorf("stored %d towers for the key (want %d); index %d -> %d", n, capN, before, h.index.Len())
	}
	// The owner sees its towers; another tenant sees none of them.
	list := h.do(t, "GET", "/towers?source=user&limit=1000", h.keys["free"], nil, "")
	if p := decodeJSON[towerPage](t, list); p.Total != capN {
		t.Errorf("GET /towers?source=user total %d, want %d", p.Total, capN)
	}
	other := h.do(t, "GET", "/towers?source=user&limit=1000", h.keys["pro"], nil, "")
	if p := decodeJSON[towerPage](t, other); p.Total != 0 {
		t.Errorf("another tenant lists %d of the Free key's towers, want 0", p.Total)
	}
	// The cap is per key: another key still registers.
	if r := h.do(t, "POST", "/towers", h.keys["pro"], nil, body(0)); r.status != http.StatusCreated {
		t.Errorf("a Pro key after the Free key's cap: %d", r.status)
	}
}

// TestCancelledRequestIsNotA500: a client that goes away (or a shutdown
// past its grace period) cancels the request context; that is not a bug and
// must not count as a 5xx.
func TestCancelledRequestIsNotA500(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest("POST", "/analyze_link", strings.NewReader(`{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800}`)).WithContext(ctx)
	req.Header.Set("X-API-Key", h.keys["pro"])
	rec := httptest.NewRecorder()
	h.api.ServeHTTP(rec, req)
	if rec.Code != 499 || rec.Header().Get("X-Request-Id") == "" {
		t.Fatalf("status %d, X-Request-Id %q", rec.Code, rec.Header().Get("X-Request-Id"))
	}
}

// TestMetricsMethodLabelIsClosed: invented methods must not mint series.
func TestMetricsMethodLabelIsClosed(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	for _, m := range []string{"FOO0", "FOO1", "FOO2"} {
		h.do(t, m, "/health", "", nil, "")
	}
	body := string(h.do(t, "GET", "/metrics", "", nil, "").body)
	if strings.Contains(body, "FOO") || !strings.Contains(body, `method="other"`) {
		t.Fatalf("method label not normalised:\n%s", body)
	}
}
