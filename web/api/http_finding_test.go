package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
	"linkplan/engines"
	"linkplan/store"
	"linkplan/web/api"
)

const validTower = `{"operator":"Finding Nove","lat":-22.9,"lon":-43.2}`

// TestFinding9_MethodsAndMediaTypes is the regression test of issue 7,
// finding 9 for the HTTP method and media type defects: a 405 lacked
// Allow, HEAD /health was a 405, and a form or text body was parsed as
// JSON.
func TestFinding9_MethodsAndMediaTypes(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	d := loadOpenAPI(t)
	ct := func(v string) map[string]string { return map[string]string{"Content-Type": v} }
	cases := []struct {
		name    string
		method  string
		url     string
		key     string
		header  map[string]string
		body    string
		status  int
		allow   string // the Allow header of a 405
		noBody  bool   // HEAD: headers only
		field   string // the field a 4xx must name
		checkOA bool   // the answer is documented (HEAD and 405 are described in info only)
	}{
		{name: "405 lists the methods of the path", method: "DELETE", url: "/towers", key: "pro", status: 405, allow: "GET, HEAD, POST"},
		{name: "405 on a GET-only path", method: "POST", url: "/health", status: 405, allow: "GET, HEAD"},
		{name: "HEAD /health", method: "HEAD", url: "/health", status: 200, noBody: true},
		{name: "HEAD of a data route keeps its status", method: "HEAD", url: "/towers/nearest?lat=-95&lon=0", key: "pro", status: 422, noBody: true},
		{name: "form body is 415", method: "POST", url: "/towers", key: "pro", header: ct("application/x-www-form-urlencoded"), body: validTower, status: 415, field: "Content-Type", checkOA: true},
		{name: "text body is 415 on the engine routes too", method: "POST", url: "/coverage/engines/compare", key: "pro", header: ct("text/plain"), body: `{}`, status: 415, field: "Content-Type", checkOA: true},
		{name: "unparseable Content-Type is 415", method: "POST", url: "/analyze_link", key: "pro", header: ct("json"), body: `{}`, status: 415, field: "Content-Type", checkOA: true},
		{name: "application/json with charset accepted", method: "POST", url: "/towers", key: "pro", header: ct("application/json; charset=utf-8"), body: validTower, status: 201, checkOA: true},
		{name: "structured +json type accepted", method: "POST", url: "/towers", key: "pro", header: ct("application/merge-patch+json"), body: validTower, status: 201, checkOA: true},
		{name: "no Content-Type is read as JSON", method: "POST", url: "/towers", key: "pro", body: validTower, status: 201, checkOA: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := h.do(t, tc.method, tc.url, h.keys[tc.key], tc.header, tc.body)
			if res.status != tc.status {
				t.Fatalf("status %d, want %d: %s", res.status, tc.status, res.body)
			}
			if got := res.header.Get("Allow"); got != tc.allow {
				t.Errorf("Allow %q, want %q", got, tc.allow)
			}
			if tc.noBody && len(res.body) != 0 {
				t.Errorf("HEAD answered a body of %d bytes", len(res.body))
			}
			if tc.noBody && res.header.Get("Content-Type") == "" {
				t.Error("HEAD lacks the Content-Type of the GET")
			}
			if tc.field != "" {
				fields := fieldNames(t, res)
				if !slices.Contains(fields, tc.field) {
					t.Errorf("fields %v do not name %s", fields, tc.field)
				}
			}
			if tc.checkOA {
				contract(t, d, tc.method, tc.url, res)
			}
		})
	}
}

func fieldNames(t *testing.T, res *response) []string {
	t.Helper()
	var e struct {
		Error struct {
			Fields []appliance.FieldError `json:"fields"`
		} `json:"error"`
	}
	if err := json.Unmarshal(res.body, &e); err != nil {
		t.Fatalf("error body: %v: %s", err, res.body)
	}
	var out []string
	for _, f := range e.Error.Fields {
		out = append(out, f.Field)
	}
	return out
}

// TestFinding9_TextFieldsRejectedNotEchoed is the regression test of issue
// 7, finding 9 for text input: invalid UTF-8 and control characters were
// accepted and echoed raw into messages. They are a 422 naming the field,
// and no answer carries U+202E or U+0000 raw, wherever the client put them.
func TestFinding9_TextFieldsRejectedNotEchoed(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	d := loadOpenAPI(t)
	cases := []struct {
		name   string
		method string
		url    string
		body   string
		status int
		field  string
	}{
		{name: "right-to-left override in a name", method: "POST", url: "/towers", body: `{"operator":"Vivo\u202egnp.exe","lat":-22.9,"lon":-43.2}`, status: 422, field: "operator"},
		{name: "NUL in a name", method: "POST", url: "/towers", body: `{"operator":"Vi\u0000vo","lat":-22.9,"lon":-43.2}`, status: 422, field: "operator"},
		{name: "newline in an array element", method: "POST", url: "/towers", body: `{"operator":"Vivo","lat":-22.9,"lon":-43.2,"technologies":["LTE","5G\nNR"]}`, status: 422, field: "technologies[1]"},
		{name: "invalid UTF-8 in a name", method: "POST", url: "/towers", body: "{\"operator\":\"Vi\xff\xfevo\",\"lat\":-22.9,\"lon\":-43.2}", status: 422, field: "operator"},
		{name: "override in an unknown member name", method: "POST", url: "/towers", body: `{"operator":"Vivo","lat":-22.9,"lon":-43.2,"x\u202e\u0000y":1}`, status: 422},
		{name: "override in an engine case", method: "POST", url: "/coverage/engines/predict", body: `{"engine":"fspl\u202e","tx":{"lat":-22.95,"lon":-43.23,"height_m":50},"rx":{"lat":-22.88,"lon":-43.10,"height_m":10},"frequency_mhz":3500}`, status: 422, field: "engine"},
		{name: "unknown engine case member with an override", method: "POST", url: "/coverage/engines/predict", body: `{"tx":{"lat":-22.95,"lon":-43.23,"height_m":50},"rx":{"lat":-22.88,"lon":-43.10,"height_m":10},"frequency_mhz":3500,"x\u202e":1}`, status: 422},
		{name: "override in a query parameter", method: "GET", url: "/towers/nearest?lat=%E2%80%AE%00&lon=1", status: 422, field: "lat"},
		{name: "override in a path parameter", method: "GET", url: "/towers/anatel:%E2%80%AE%00", status: 404},
		{name: "override in the request id header is replaced", method: "GET", url: "/towers/nearest?lat=-22.9&lon=-43.2", status: 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hdr := map[string]string{"X-Request-Id": "a\u202eb"}
			res := h.do(t, tc.method, tc.url, h.keys["pro"], hdr, tc.body)
			if res.status != tc.status {
				t.Fatalf("status %d, want %d: %s", res.status, tc.status, res.body)
			}
			for _, raw := range []string{"\u202e", "\x00"} {
				if bytes.Contains(res.body, []byte(raw)) || strings.Contains(res.header.Get("X-Request-Id"), raw) || decodedHolds(res.body, raw) {
					t.Errorf("answer echoes %q raw: %s", raw, res.body)
				}
			}
			if tc.field != "" && !slices.Contains(fieldNames(t, res), tc.field) {
				t.Errorf("fields %v do not name %s", fieldNames(t, res), tc.field)
			}
			contract(t, d, tc.method, tc.url, res)
		})
	}
}

// decodedHolds reports whether a string of the JSON body holds sub once
// decoded (a NUL travels JSON-escaped as \u0000).
func decodedHolds(body []byte, sub string) bool {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	var walk func(v any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case string:
			return strings.Contains(x, sub)
		case []any:
			return slices.ContainsFunc(x, walk)
		case map[string]any:
			for k, e := range x {
				if strings.Contains(k, sub) || walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

// TestFinding9_AccessLog is the regression test of issue 7, finding 9 for
// tracing: there was no access log, so an X-Request-Id a client reported
// could not be found. Each request writes one record (component access)
// with the request id, the key id, the route template, method, status,
// duration and bytes, and never the API key.
func TestFinding9_AccessLog(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	auth := tenancy.New(db, nil)
	plain, key, err := auth.Issue(tenancy.IssueRequest{Tier: appliance.TierPro, Role: appliance.RoleTenant, Owner: "log test", Email: "log@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := engines.New(engines.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var logBuf bytes.Buffer
	a := api.New(api.Deps{AccessDeps: api.AccessDeps{Auth: auth}, LinkDeps: api.LinkDeps{Engines: reg},
		PlatformDeps: api.PlatformDeps{Log: slog.New(slog.NewJSONHandler(&logBuf, nil))}})
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)

	cases := []struct {
		name, method, path, key, rid string
		status                       int
		route, keyID                 string
	}{
		{name: "authenticated route", method: "GET", path: "/coverage/engines", key: plain, rid: "trace-me-1", status: 200, route: "/coverage/engines", keyID: key.ID},
		{name: "refused key", method: "GET", path: "/coverage/engines", key: plain + "x", rid: "trace-me-2", status: 401, route: "/coverage/engines"},
		{name: "unknown path", method: "GET", path: "/nope/secret-path", rid: "trace-me-3", status: 404, route: "unmatched"},
		{name: "HEAD", method: "HEAD", path: "/health", rid: "trace-me-4", status: 200, route: "/health"},
	}
	for _, tc := range cases {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		req.Header.Set("X-Request-Id", tc.rid)
		if tc.key != "" {
			req.Header.Set("X-API-Key", tc.key)
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	records := map[string]map[string]any{}
	sc := bufio.NewScanner(&logBuf)
	for sc.Scan() {
		if strings.Contains(sc.Text(), plain) {
			t.Errorf("a log line holds the API key: %s", sc.Text())
		}
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("log line is not JSON: %v: %s", err, sc.Text())
		}
		if rec["component"] == "access" {
			records[rec[api.LogKeyRequestID].(string)] = rec
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec, ok := records[tc.rid]
			if !ok {
				t.Fatalf("no access record for request id %s", tc.rid)
			}
			for k, want := range map[string]any{api.LogKeyKeyID: tc.keyID, api.LogKeyRoute: tc.route, api.LogKeyMethod: tc.method, api.LogKeyStatus: float64(tc.status)} {
				if rec[k] != want {
					t.Errorf("%s = %v, want %v (record %v)", k, rec[k], want, rec)
				}
			}
			if d, ok := rec[api.LogKeyDuration].(float64); !ok || d < 0 {
				t.Errorf("%s = %v", api.LogKeyDuration, rec[api.LogKeyDuration])
			}
			if b, ok := rec[api.LogKeyBytes].(float64); !ok || (tc.method == "GET" && b <= 0) {
				t.Errorf("%s = %v", api.LogKeyBytes, rec[api.LogKeyBytes])
			}
		})
	}
}
