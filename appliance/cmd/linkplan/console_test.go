package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"linkplan/web/api"
	"linkplan/web/console"
)

// TestConsoleShadowsNoAPIRoute checks the composition of withConsole: every
// path of the OpenAPI document (path parameters filled in) reaches the
// API, and the console's paths reach the console.
func TestConsoleShadowsNoAPIRoute(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Paths) < 10 {
		t.Fatalf("the document lists %d paths", len(doc.Paths))
	}
	con, err := console.New(console.Files())
	if err != nil {
		t.Fatal(err)
	}
	apiH := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Header().Set("X-Handler", "api") })
	h := withConsole(apiH, con)
	param := regexp.MustCompile(`\{[^}]+\}`)
	for tpl, ops := range doc.Paths {
		p := param.ReplaceAllString(tpl, "x1")
		for method := range ops {
			r := httptest.NewRecorder()
			h.ServeHTTP(r, httptest.NewRequest(strings.ToUpper(method), p, nil))
			if r.Header().Get("X-Handler") != "api" {
				t.Errorf("%s %s (route %s) is answered by the console", strings.ToUpper(method), p, tpl)
			}
		}
	}
	for _, p := range []string{"/", "/index.html", "/js/app.js", "/css/app.css", "/vendor/leaflet/leaflet.js"} {
		r := httptest.NewRecorder()
		h.ServeHTTP(r, httptest.NewRequest(http.MethodGet, p, nil))
		if r.Header().Get("X-Handler") == "api" || r.Code != http.StatusOK {
			t.Errorf("GET %s: status %d, handler %q; want the console's 200", p, r.Code, r.Header().Get("X-Handler"))
		}
		if r.Header().Get("Content-Security-Policy") != console.ContentSecurityPolicy {
			t.Errorf("GET %s: no console CSP", p)
		}
	}
	for _, p := range []string{"/nope", "/tiles/hillshade/1/0/0.png", "/health"} {
		r := httptest.NewRecorder()
		h.ServeHTTP(r, httptest.NewRequest(http.MethodGet, p, nil))
		if r.Header().Get("X-Handler") != "api" {
			t.Errorf("GET %s went to the console", p)
		}
	}
}
