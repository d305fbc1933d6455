package api_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"linkplan/appliance"
)

// The mixed-load harness: concurrent clients of several tenants and tiers
// send a seeded mix of the API's surfaces (reads, analyses, exports,
// registrations, batches, quota and audit reads) to the real API over
// loopback, while the harness clock moves on (so that rate limits both
// refuse and refill). Every answer must be documented, and none may be a
// 5xx (SPEC §8.3: mixed-surface 5xx at most 0.1 %; the appliance's bar
// is none). TestMixedLoad is the short run of go test; BenchmarkMixedLoad
// the longer run of make bench.

// loadRequest is one request of the mix.
type loadRequest struct {
	method, url, body string
}

// loadMix returns a request of the mix, drawn from r; i numbers it.
func loadMix(r *rand.Rand, i int) loadRequest {
	lat := -22.97 + r.Float64()*0.06
	lon := -43.28 + r.Float64()*0.1
	rx := fmt.Sprintf(`{"receiver":{"lat":%.5f,"lon":%.5f,"height":10},"frequency_mhz":1800,"max_distance_km":10}`, lat, lon)
	switch r.IntN(13) {
	case 0:
		return loadRequest{"GET", "/health", ""}
	case 1:
		return loadRequest{"GET", fmt.Sprintf("/towers/nearest?lat=%.5f&lon=%.5f&k=5&max_km=20", lat, lon), ""}
	case 2:
		return loadRequest{"POST", "/analyze_link", rx}
	case 3:
		return loadRequest{"GET", "/places?q=" + url.QueryEscape([]string{"rio", "niteroi", "sao paulo", "campinas"}[r.IntN(4)]) + "&limit=3", ""}
	case 4:
		return loadRequest{"GET", "/v1/me/quota", ""}
	case 5:
		return loadRequest{"GET", "/tenant/audit?limit=5", ""}
	case 6:
		return loadRequest{"POST", "/towers", fmt.Sprintf(`{"operator":"Carga %d","lat":%.5f,"lon":%.5f,"height":25}`, i, lat, lon)}
	case 7:
		return loadRequest{"POST", "/batch_reports", `{"rows":[` + batchRows(2) + `]}`}
	case 8:
		return loadRequest{"GET", "/jobs/job_doesnotexist", ""}
	case 9:
		return loadRequest{"POST", "/exports/link?format=geojson", rx}
	case 10:
		return loadRequest{"GET", fmt.Sprintf("/terrain/point?lat=%.5f&lon=%.5f", lat, lon), ""}
	case 11:
		return loadRequest{"GET", "/platform/maturity", ""}
	}
	return loadRequest{"GET", "/towers?limit=5", ""}
}

// loadSeed is SEED when set, else a random seed; the test prints it.
func loadSeed(tb testing.TB) uint64 {
	if s := os.Getenv("SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			tb.Fatalf("SEED=%q: %v", s, err)
		}
		return n
	}
	return rand.Uint64()
}

// mixedLoad runs clients goroutines of perClient requests each, spread
// over the harness's tenants, and returns the count of each status. A 5xx
// or an undocumented answer fails tb.
func mixedLoad(tb testing.TB, h *harness, d *openAPI, seed uint64, clients, perClient int) map[int]int {
	tb.Helper()
	keys := []string{"pro", "free", "internal", "starter", "business", "ultra"}
	var (
		mu     sync.Mutex
		counts = map[int]int{}
		wg     sync.WaitGroup
	)
	one := func(c int, q loadRequest) {
		key := h.keys[keys[c%len(keys)]]
		res := h.do(tb, q.method, q.url, key, nil, q.body)
		u, _ := url.Parse(q.url)
		errs := d.checkResponse(q.method, u.Path, res)
		mu.Lock()
		counts[res.status]++
		mu.Unlock()
		if res.status >= 500 {
			tb.Errorf("seed %d: %s %s as %s: %d %.300s", seed, q.method, q.url, keys[c%len(keys)], res.status, res.body)
		}
		for _, e := range errs {
			tb.Errorf("seed %d: contract: %s", seed, e)
		}
	}
	// Phase 1: the mix, the clock moving on 50 ms a request (limits
	// refill). Phase 2: every client bursts 15 analyses at one instant, in
	// which the Free clients meet their rate (10 a minute).
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(c)))
			for i := range perClient {
				h.clock.advance(50 * time.Millisecond)
				one(c, loadMix(r, c*perClient+i))
			}
		}()
	}
	wg.Wait()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 15 {
				one(c, loadRequest{"POST", "/analyze_link", `{"receiver":{"lat":-22.95,"lon":-43.2,"height":10},"frequency_mhz":1800,"max_distance_km":5}`})
			}
		}()
	}
	wg.Wait()
	return counts
}

func newLoadHarness(tb testing.TB) *harness {
	h := newHarness(tb, harnessOptions{})
	h.issue(tb, "starter", appliance.TierStarter, appliance.RoleTenant)
	h.issue(tb, "business", appliance.TierBusiness, appliance.RoleTenant)
	h.issue(tb, "ultra", appliance.TierUltra, appliance.RoleTenant)
	return h
}

func statusSummary(counts map[int]int) string {
	var sts []int
	for st := range counts {
		sts = append(sts, st)
	}
	sort.Ints(sts)
	s := ""
	for _, st := range sts {
		s += fmt.Sprintf(" %d:%d", st, counts[st])
	}
	return s
}

// TestMixedLoad is the short mixed-load run: 12 clients of 20 requests.
func TestMixedLoad(t *testing.T) {
	seed := loadSeed(t)
	t.Logf("seed %d (SEED=%d replays it)", seed, seed)
	h := newLoadHarness(t)
	counts := mixedLoad(t, h, loadOpenAPI(t), seed, 12, 20)
	t.Logf("statuses:%s", statusSummary(counts))
	if counts[http.StatusOK]+counts[http.StatusCreated] == 0 || counts[http.StatusTooManyRequests] == 0 {
		t.Errorf("the mix exercised neither success nor refusal: %v", counts)
	}
}

// BenchmarkMixedLoad is the longer run (make bench): per iteration, 24
// clients of 50 requests; it reports the 5xx per request (0) and the
// share of 429s.
func BenchmarkMixedLoad(b *testing.B) {
	seed := loadSeed(b)
	b.Logf("seed %d (SEED=%d replays it)", seed, seed)
	h := newLoadHarness(b)
	d := loadOpenAPI(b)
	total := map[int]int{}
	for b.Loop() {
		for st, n := range mixedLoad(b, h, d, seed, 24, 50) {
			total[st] += n
		}
		seed++
	}
	n, fails, refused := 0, 0, 0
	for st, c := range total {
		n += c
		if st >= 500 {
			fails += c
		}
		if st == http.StatusTooManyRequests {
			refused += c
		}
	}
	b.ReportMetric(float64(fails)/float64(n), "5xx/req")
	b.ReportMetric(float64(refused)/float64(n), "429/req")
	b.Logf("statuses:%s", statusSummary(total))
}
