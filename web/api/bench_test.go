package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// The benchmarks run real HTTP requests through the in-process harness (real
// store, embedded Rio terrain and sample towers, search index, engines) over
// loopback, so they include routing, authentication, JSON and the network
// stack. Each has a /health baseline: the floor of any request.

func benchRoute(b *testing.B, method, url, body string) {
	h := newHarness(b, harnessOptions{})
	key := h.keys["pro"]
	if r := h.do(b, method, url, key, nil, body); r.status != http.StatusOK {
		b.Fatalf("%s %s: %d %s", method, url, r.status, r.body)
	}
	b.ReportAllocs()
	for b.Loop() {
		var rd *strings.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, _ := http.NewRequest(method, h.srv.URL+url, nil)
		if rd != nil {
			req, _ = http.NewRequest(method, h.srv.URL+url, rd)
		}
		req.Header.Set("X-API-Key", key)
		res, err := h.srv.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatalf("status %d", res.StatusCode)
		}
	}
}

func BenchmarkHealthHTTP(b *testing.B) { benchRoute(b, "GET", "/health", "") }

func BenchmarkTowersNearestHTTP(b *testing.B) {
	benchRoute(b, "GET", "/towers/nearest?lat=-22.95&lon=-43.2&k=10&max_km=50", "")
}

func BenchmarkPlacesSearchHTTP(b *testing.B) {
	benchRoute(b, "GET", "/places?q=sao%20paulo&limit=10", "")
}

func BenchmarkAnalyzeLinkHTTP(b *testing.B) {
	benchRoute(b, "POST", "/analyze_link", `{"receiver":{"lat":-22.95,"lon":-43.2,"height":10},"frequency_mhz":1800,"max_distance_km":20}`)
}

// BenchmarkEnginesCompareHTTP runs every engine side by side on a real
// 15.6 km Rio terrain path (terrain read from the embedded pack).
func BenchmarkEnginesCompareHTTP(b *testing.B) {
	benchRoute(b, "POST", "/coverage/engines/compare", `{"tx":{"lat":-22.9519,"lon":-43.2367,"height_m":50},"rx":{"lat":-22.8833,"lon":-43.1036,"height_m":10},"frequency_mhz":3500}`)
}
