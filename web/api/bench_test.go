package api_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
	"linkplan/store/spatial"
)

// The benchmarks run real HTTP requests through the in-process harness (real
// store, embedded Rio terrain and sample towers, search index, engines) over
// loopback, so they include routing, authentication, JSON and the network
// stack. Each has a /health baseline: the floor of any request.

// proKeys hands out Pro keys for the benchmarks' requests: metering stays
// on (its cost is part of a request), but the harness clock moves 2 s a
// request (no rate limit of appliance/quota is met) and a fresh tenant's
// key comes every 10,000 requests (nor is the monthly cap of SPEC §8.1).
type proKeys struct {
	h   *harness
	n   int
	key string
}

func (k *proKeys) next(b *testing.B) string {
	if k.n%10000 == 0 {
		k.key = k.h.issue(b, fmt.Sprintf("bench-pro-%d", k.n), appliance.TierPro, appliance.RoleTenant)
	}
	k.n++
	k.h.clock.advance(2 * time.Second)
	return k.key
}

func benchRoute(b *testing.B, method, url, body string) {
	h := newHarness(b, harnessOptions{})
	keys := &proKeys{h: h}
	if r := h.do(b, method, url, keys.next(b), nil, body); r.status != http.StatusOK {
		b.Fatalf("%s %s: %d %s", method, url, r.status, r.body)
	}
	b.ReportAllocs()
	for b.Loop() {
		key := keys.next(b)
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

// BenchmarkPTPHTTP is one point-to-point answer over HTTP (issue 25: a
// PtP answer with its availability in 20 ms or less): the 6.1 km 18.7 GHz
// Sumaré → Pedra Bonita link, 8 modes, each with its P.530
// availability, the required margins and the whole profile, encoded.
func BenchmarkPTPHTTP(b *testing.B) {
	benchRoute(b, "POST", "/links/ptp", ptpBody(""))
}

// nationalIndex replaces the sample catalogue by the 140,000-tower
// synthetic national set (Rio de Janeiro is among its densest areas).
func nationalIndex(appliance.TowerIndex) appliance.TowerIndex {
	syn := catalog.SyntheticNational(140000, 1)
	ts := make([]*appliance.Tower, len(syn))
	for i := range syn {
		ts[i] = &syn[i]
	}
	return spatial.New(ts)
}

// benchBatchRows is n receivers over Rio, 30 km radius (the default).
func benchBatchRows(n int) string {
	rng := rand.New(rand.NewPCG(7, 7))
	var b strings.Builder
	b.WriteString(`{"rows":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"b%d","receiver":{"lat":%.5f,"lon":%.5f,"height":10},"frequency_mhz":1800}`, i+1, -22.99+0.25*rng.Float64(), -43.70+0.70*rng.Float64())
	}
	b.WriteString(`]}`)
	return b.String()
}

// BenchmarkBatchSync100National: POST /batch_reports with 100 rows,
// answered synchronously, over the 140,000-tower national set (SPEC §8.3
// p50 1 s; goal 200 ms). BenchmarkBatchSync100NationalSerial is the
// baseline: the same 100 rows as 100 POST /analyze_link calls in a row.
func BenchmarkBatchSync100National(b *testing.B) {
	h := newHarness(b, harnessOptions{towers: nationalIndex})
	keys := &proKeys{h: h}
	body := benchBatchRows(100)
	b.ResetTimer()
	for b.Loop() {
		if r := h.do(b, "POST", "/batch_reports", keys.next(b), nil, body); r.status != http.StatusOK {
			b.Fatalf("%d %s", r.status, r.body)
		}
	}
}

func BenchmarkBatchSync100NationalSerial(b *testing.B) {
	h := newHarness(b, harnessOptions{towers: nationalIndex})
	keys := &proKeys{h: h}
	var q struct {
		Rows []json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal([]byte(benchBatchRows(100)), &q); err != nil {
		b.Fatal(err)
	}
	bodies := make([]string, len(q.Rows))
	for i, r := range q.Rows {
		var m map[string]any
		json.Unmarshal(r, &m)
		delete(m, "id")
		x, _ := json.Marshal(m)
		bodies[i] = string(x)
	}
	b.ResetTimer()
	for b.Loop() {
		for _, body := range bodies {
			if r := h.do(b, "POST", "/analyze_link", keys.next(b), nil, body); r.status != http.StatusOK {
				b.Fatalf("%d %s", r.status, r.body)
			}
		}
	}
}
