package api_test

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"linkplan/web/api"
)

// TestOpenAPIDocument checks the document itself: JSON, OpenAPI 3.1.x,
// complete operations, and a response description of every status with the
// X-Request-Id header.
func TestOpenAPIDocument(t *testing.T) {
	d := loadOpenAPI(t)
	if v, _ := d.root["openapi"].(string); !strings.HasPrefix(v, "3.1.") {
		t.Fatalf("openapi = %q, want 3.1.x", v)
	}
	if obj(d.root, "info")["title"] == nil || obj(d.root, "info")["version"] == nil {
		t.Error("info needs title and version")
	}
	if !json.Valid(api.OpenAPI()) {
		t.Fatal("invalid JSON")
	}
	// OpenAPI returns a copy: modifying it must not change what is served.
	b := api.OpenAPI()
	b[0] = 'x'
	if api.OpenAPI()[0] == 'x' {
		t.Error("OpenAPI returns the embedded bytes themselves")
	}

	ids := map[string]string{}
	for tpl, item := range obj(d.root, "paths") {
		for method, opv := range item.(map[string]any) {
			op := opv.(map[string]any)
			loc := strings.ToUpper(method) + " " + tpl
			t.Run(loc, func(t *testing.T) {
				id, _ := op["operationId"].(string)
				if id == "" {
					t.Error("no operationId")
				} else if other, dup := ids[id]; dup {
					t.Errorf("operationId %s also used by %s", id, other)
				}
				ids[id] = loc
				if op["summary"] == nil || op["description"] == nil {
					t.Error("summary and description are required")
				}
				params := anySlice(op["parameters"])
				hasRID := false
				for _, p := range params {
					if p.(map[string]any)["$ref"] == "#/components/parameters/X-Request-Id" {
						hasRID = true
					}
				}
				if !hasRID {
					t.Error("X-Request-Id parameter missing")
				}
				for _, seg := range strings.Split(tpl, "/") {
					if strings.HasPrefix(seg, "{") {
						name := strings.Trim(seg, "{}")
						found := false
						for _, p := range params {
							pm := p.(map[string]any)
							found = found || (pm["in"] == "path" && pm["name"] == name && pm["required"] == true)
						}
						if !found {
							t.Errorf("path parameter %s not declared as required", name)
						}
					}
				}
				sec, hasSec := op["security"].([]any)
				if !hasSec {
					t.Error("security must be explicit ([] for public routes)")
				}
				resps := obj(op, "responses")
				if obj(resps, "500") == nil {
					t.Error("500 is not documented")
				}
				if len(sec) > 0 && obj(resps, "401") == nil {
					t.Error("authenticated route without 401")
				}
				// Every authenticated request is metered (appliance/quota):
				// a 429 may come, and each answer may carry RateLimit-*.
				if len(sec) > 0 && obj(resps, "429") == nil {
					t.Error("authenticated route without 429 (quotas and rate limits)")
				}
				for st, rv := range resps {
					r, err := d.resolve(rv.(map[string]any))
					if err != nil || len(sec) == 0 || st == "500" {
						continue
					}
					for _, hname := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
						if h := obj(r, "headers", hname); h == nil || h["$ref"] != "#/components/headers/"+hname {
							t.Errorf("%s: header %s not documented on an authenticated route", st, hname)
						}
					}
				}
				if op["requestBody"] != nil && obj(resps, "400") == nil {
					t.Error("route with a body without 400")
				}
				if op["requestBody"] != nil && obj(resps, "413") == nil {
					t.Error("route with a body without 413")
				}
				for st, rv := range resps {
					r, err := d.resolve(rv.(map[string]any))
					if err != nil {
						t.Errorf("%s: %v", st, err)
						continue
					}
					if r["description"] == nil {
						t.Errorf("%s: no description", st)
					}
					h := obj(r, "headers", "X-Request-Id")
					if h == nil || h["$ref"] != "#/components/headers/X-Request-Id" {
						t.Errorf("%s: X-Request-Id header not documented", st)
					}
					if len(obj(r, "content")) == 0 && st != "304" { // 304 Not Modified has no body
						t.Errorf("%s: no content", st)
					}
				}
				// Examples must satisfy their own schemas.
				for ct, m := range obj(op, "requestBody", "content") {
					if ex, ok := m.(map[string]any)["example"]; ok {
						if errs := d.validate(obj(m, "schema"), ex, "example"); len(errs) > 0 {
							t.Errorf("request example (%s): %v", ct, errs)
						}
					}
				}
			})
		}
	}
	for name := range obj(d.root, "components", "securitySchemes") {
		if !slices.Contains([]string{"ApiKey", "AdminTotp", "BearerIdToken"}, name) {
			t.Errorf("unexpected security scheme %s", name)
		}
	}
}

// TestOpenAPIRoutes checks that every route registered in the router is in
// the document and that the document describes no other.
func TestOpenAPIRoutes(t *testing.T) {
	d := loadOpenAPI(t)
	h := newHarness(t, harnessOptions{})
	var served, documented []string
	for _, r := range h.api.Routes() {
		if r.Method == "" {
			t.Errorf("route %s accepts any method: document its methods", r.Path)
			continue
		}
		served = append(served, r.Method+" "+r.Path)
	}
	for tpl, item := range obj(d.root, "paths") {
		for method := range item.(map[string]any) {
			documented = append(documented, strings.ToUpper(method)+" "+tpl)
		}
	}
	sort.Strings(served)
	sort.Strings(documented)
	if len(served) < 10 {
		t.Errorf("the router lists only %d routes: %v", len(served), served)
	}
	for _, r := range served {
		if !slices.Contains(documented, r) {
			t.Errorf("served but not documented: %s", r)
		}
	}
	for _, r := range documented {
		if !slices.Contains(served, r) {
			t.Errorf("documented but not served: %s", r)
		}
	}
	t.Logf("routes: %s", strings.Join(served, ", "))
}

// TestErrorCodesDocumented checks that the per-status error schemas hold
// exactly the codes of the ErrorCode list, each under one status.
func TestErrorCodesDocumented(t *testing.T) {
	d := loadOpenAPI(t)
	all := anySlice(obj(d.root, "components", "schemas", "ErrorCode")["enum"])
	seen := map[string]string{}
	for name, s := range obj(d.root, "components", "schemas") {
		if !strings.HasPrefix(name, "Error") || name == "ErrorCode" || name == "Error" {
			continue
		}
		for _, c := range anySlice(obj(s, "properties", "error", "properties", "code")["enum"]) {
			if prev, dup := seen[c.(string)]; dup {
				t.Errorf("code %s under %s and %s", c, prev, name)
			}
			seen[c.(string)] = name
			if !slices.Contains(all, c) {
				t.Errorf("%s: code %s is not in ErrorCode", name, c)
			}
		}
	}
	if len(seen) != len(all) {
		t.Errorf("per-status schemas hold %d codes, ErrorCode %d", len(seen), len(all))
	}
}
