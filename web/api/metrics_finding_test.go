package api_test

import (
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"linkplan/appliance/tooltest"
)

// scrapeAfterTraffic answers a few requests of several routes, statuses
// and methods through the harness, then returns its live /metrics.
func scrapeAfterTraffic(t *testing.T) []byte {
	t.Helper()
	h := newHarness(t, harnessOptions{})
	for _, c := range []struct{ method, url, key, body string }{
		{"GET", "/health", "", ""},
		{"HEAD", "/health", "", ""},
		{"GET", "/towers/nearest?lat=-22.95&lon=-43.2&k=3", "pro", ""},
		{"GET", "/towers/nearest?lat=-95&lon=-43.2", "pro", ""},
		{"GET", "/towers", "", ""},
		{"POST", "/analyze_link", "pro", `{"receiver":{"lat":-22.95,"lon":-43.2,"height":10},"frequency_mhz":1800,"max_distance_km":20}`},
		{"DELETE", "/towers", "pro", ""},
		{"GET", "/nope", "", ""},
		{"FOO", "/health", "", ""},
	} {
		h.do(t, c.method, c.url, h.keys[c.key], nil, c.body)
	}
	// A queued batch job, so that the job queue's series are scraped too.
	j := submitJob(t, h, h.keys["pro"], `{"rows":[`+batchRows(101)+`],"options":{"pdfs":false}}`)
	waitFor(t, h, h.keys["pro"], j.ID)
	// The worker counts a finished job just after the commit that a
	// client sees as succeeded (appliance/jobs): on a loaded machine a
	// scrape can fall in between, so the series get a few seconds.
	wants := []string{"linkplan_jobs_enqueued_total{", "linkplan_jobs_finished_total{", "linkplan_jobs_queued ", "linkplan_jobs_running "}
	var res *response
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		res = h.do(t, "GET", "/metrics", "", nil, "")
		missing := 0
		for _, want := range wants {
			if !bytes.Contains(res.body, []byte(want)) {
				missing++
			}
		}
		if missing == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range wants {
		if !bytes.Contains(res.body, []byte(want)) {
			t.Errorf("/metrics has no %s series", want)
		}
	}
	if res.status != 200 {
		t.Fatalf("/metrics: %d", res.status)
	}
	return res.body
}

// TestFinding7_MetricsArePrometheusHistograms is the format half of issue 7,
// finding 7 (it needs no promtool): every family has HELP and TYPE, the
// duration histogram has le buckets ending in +Inf whose last bucket equals
// _count, and no VictoriaMetrics vmrange bucket is left.
func TestFinding7_MetricsArePrometheusHistograms(t *testing.T) {
	body := string(scrapeAfterTraffic(t))
	for _, want := range []string{
		"# HELP linkplan_http_requests_total ",
		"# TYPE linkplan_http_requests_total counter\n",
		"# HELP linkplan_http_request_duration_seconds ",
		"# TYPE linkplan_http_request_duration_seconds histogram\n",
		`linkplan_http_request_duration_seconds_bucket{method="GET",route="/health",le="0.05"} `,
		`linkplan_http_request_duration_seconds_bucket{method="GET",route="/health",le="+Inf"} 1` + "\n",
		`linkplan_http_request_duration_seconds_count{method="GET",route="/health"} 1` + "\n",
		`linkplan_http_requests_total{method="HEAD",route="/health",status="200"} 1` + "\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if strings.Contains(body, "vmrange") {
		t.Error("metrics still hold vmrange buckets")
	}
	// Buckets are cumulative: each le count is at least the previous one.
	bucket := regexp.MustCompile(`(?m)^linkplan_http_request_duration_seconds_bucket\{(method="[^"]*",route="[^"]*"),le="([^"]+)"\} (\d+)$`)
	prev := map[string]int{}
	for _, m := range bucket.FindAllStringSubmatch(body, -1) {
		n := 0
		for _, c := range m[3] {
			n = n*10 + int(c-'0')
		}
		if n < prev[m[1]] {
			t.Errorf("bucket le=%s of {%s} is %d, below the previous %d", m[2], m[1], n, prev[m[1]])
		}
		prev[m[1]] = n
	}
	if len(prev) < 4 {
		t.Errorf("histogram series of %d label sets, want at least 4:\n%s", len(prev), body)
	}
}

// TestFinding7_PromtoolCheckMetrics is the regression test of issue 7,
// finding 7: promtool check metrics (Debian package prometheus) accepts a
// live /metrics scraped from the in-process server. Without promtool it
// fails in CI (CI=true; make test-deps installs it) and skips elsewhere.
func TestFinding7_PromtoolCheckMetrics(t *testing.T) {
	promtool := tooltest.Need(t, "promtool", "prometheus")
	body := scrapeAfterTraffic(t)
	cmd := exec.CommandContext(t.Context(), promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("promtool check metrics: %v\n%s\n--- scraped /metrics:\n%s", err, out, body)
	}
}
