package api_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fuzzRaytraceBodies fuzzes the bodies of path as an Enterprise key that
// holds a building layer (the raytrace routes refuse lower tiers before
// they decode): no 500, and every answer within the document. Seeds are
// built by seeds from the layer's id.
func fuzzRaytraceBodies(f *testing.F, path string, seeds func(layer string) []string) {
	h := newHarness(f, harnessOptions{unmetered: true})
	layer := uploadBlock(f, h, h.keys["enterprise"])
	fuzzKeyRoute(f, h, http.MethodPost, path, "enterprise", seeds(layer))
}

// fuzzKeyRoute fuzzes the bodies of method path as h's key: no 500, and
// every answer within the document.
func fuzzKeyRoute(f *testing.F, h *harness, method, path, key string, seeds []string) {
	for _, s := range seeds {
		f.Add(s)
	}
	d := loadOpenAPI(f)
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("X-API-Key", h.keys[key])
		rec := httptest.NewRecorder()
		h.api.ServeHTTP(rec, req)
		res := rec.Result()
		b, _ := io.ReadAll(res.Body)
		r := &response{status: res.StatusCode, header: res.Header, body: b}
		if r.status == http.StatusInternalServerError {
			t.Fatalf("500 for %q: %s", body, b)
		}
		for _, e := range d.checkResponse(method, strings.SplitN(path, "?", 2)[0], r) {
			t.Errorf("contract: %s (body %q)", e, body)
		}
	})
}

// FuzzRaytraceMapBody: POST /coverage/raytrace (RaytraceMapRequest).
func FuzzRaytraceMapBody(f *testing.F) {
	fuzzRaytraceBodies(f, "/coverage/raytrace", func(layer string) []string {
		ok := raytraceMapOn(layer)
		return []string{ok,
			strings.Replace(ok, `"radius_m":60`, `"bbox":{"min_lat":-22.9526,"min_lon":-43.2112,"max_lat":-22.9512,"max_lon":-43.2098}`, 1),
			strings.Replace(ok, `"max_reflections":1`, `"max_reflections":9,"sum":"power","polarization":"h"`, 1),
			strings.Replace(ok, `"resolution_m":10`, `"resolution_m":1e308`, 1),
			`{"layer_id":"` + layer + `","tower_id":"nope","frequency_mhz":3500}`,
			`{"layer_id":7}`, `{}`, `[]`, `null`, `{`, ``,
		}
	})
}

// FuzzRaytraceEngineBody: the raytrace member of the analysis routes
// (POST /analyze with engine raytrace: the job is queued for a valid
// body).
func FuzzRaytraceEngineBody(f *testing.F) {
	fuzzRaytraceBodies(f, "/analyze", func(layer string) []string {
		ok := raytracePairOn(layer)
		return []string{ok,
			strings.Replace(ok, `"max_reflections":1`, `"max_reflections":-1,"diffraction":true,"diffraction_range_m":0`, 1),
			strings.Replace(ok, `"max_reflections":1`, `"transmission":true,"sum":"x","ground_reflection":null`, 1),
			strings.Replace(ok, `"raytrace":{`, `"raytrace":{"extra":[1],`, 1),
			strings.Replace(ok, `"engine":"raytrace",`, ``, 1),
			strings.Replace(ok, layer, "bl_0000000000000000", 1),
			`{"engine":"raytrace","raytrace":null}`, `{"engine":"raytrace","raytrace":[]}`,
		}
	})
}
