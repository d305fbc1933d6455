package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"linkplan/appliance/ai"
	"linkplan/appliance/telemetry"
	"linkplan/appliance/tooltest"
)

// promtoolCheck runs promtool check metrics (Debian package prometheus) on
// body; without promtool it fails in CI and skips elsewhere.
func promtoolCheck(t *testing.T, body []byte) {
	t.Helper()
	promtool := tooltest.Need(t, "promtool", "prometheus")
	cmd := exec.CommandContext(t.Context(), promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("promtool check metrics: %v\n%s\n--- scraped /metrics:\n%s", err, out, body)
	}
}

// checkDeclared fails for each family of appliance/telemetry whose HELP or
// TYPE line /metrics lacks, and for each sample whose family has no HELP
// line before it.
func checkDeclared(t *testing.T, body []byte) {
	t.Helper()
	text := string(body)
	for _, f := range telemetry.Families() {
		if !strings.Contains(text, "# HELP "+f.Name+" ") || !strings.Contains(text, "# TYPE "+f.Name+" "+string(f.Type)+"\n") {
			t.Errorf("/metrics does not declare %s", f.Name)
		}
	}
	helped := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		if name, ok := strings.CutPrefix(line, "# HELP "); ok {
			name, _, _ = strings.Cut(name, " ")
			helped[name] = true
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name := line[:strings.IndexAny(line, "{ ")]
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
		if !helped[name] && !helped[base] {
			t.Errorf("sample without HELP: %s", line)
		}
	}
}

// TestIssue20_MetricsDeclaredAtStart is the first half of issue 20's
// metrics finding: before any request has counted anything, /metrics
// declares every family with HELP and TYPE, with every closed label tuple
// at 0, and promtool accepts it.
func TestIssue20_MetricsDeclaredAtStart(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	res := h.do(t, "GET", "/metrics", "", nil, "")
	if res.status != http.StatusOK {
		t.Fatalf("/metrics: %d", res.status)
	}
	checkDeclared(t, res.body)
	for _, want := range []string{
		"# HELP coverage_observations_total ", "# TYPE coverage_observations_total counter\n",
		`linkplan_recovered_panics_total{component="batch.row"} 0` + "\n", `linkplan_recovered_panics_total{component="http"} 0` + "\n",
		`linkplan_recovered_panics_total{component="jobs.batch_report"} 0` + "\n",
		`linkplan_jobs_finished_total{kind="batch_report",state="failed"} 0` + "\n",
	} {
		if !bytes.Contains(res.body, []byte(want)) {
			t.Errorf("/metrics at start lacks %q", want)
		}
	}
	promtoolCheck(t, res.body)
}

// TestIssue20_MetricsPromtoolAfterEveryRoute is the regression test of
// issue 20's metrics finding (promtool check metrics failed after one POST
// /coverage/observations: "coverage_observations_total no help text"). It
// calls every route the router serves once, then every route that creates
// a series of its own with a body that succeeds (an observation, a batch
// of them, a drive test, an async batch job, a repeater plan, an AI chat
// through a language model), and checks the live /metrics with promtool.
// The language model is a mock HTTP server (no model can be installed on
// the test machines).
func TestIssue20_MetricsPromtoolAfterEveryRoute(t *testing.T) {
	var calls atomic.Int32
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": "O enlace fecha."}}}})
	}))
	t.Cleanup(llm.Close)
	cl, err := ai.NewClient(llm.URL, "qwen2.5-7b-instruct", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, harnessOptions{aiProvider: cl})
	pro := h.keys["pro"]

	// Every route once, with a path parameter that names nothing and an
	// empty JSON object: most answer 4xx, and each adds its HTTP series.
	param := regexp.MustCompile(`\{[^}]+\}`)
	routes := h.api.Routes()
	if len(routes) < 50 {
		t.Fatalf("the router lists %d routes", len(routes))
	}
	for _, rt := range routes {
		method := rt.Method
		if method == "" {
			method = http.MethodGet
		}
		body := ""
		if method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
			body = "{}"
		}
		h.clock.advance(time.Second) // stay under the per-second rate limits
		h.do(t, method, param.ReplaceAllString(rt.Path, "1"), pro, nil, body)
	}

	// The routes that create series of their own, with bodies that succeed.
	dt, ct := driveTestBody(t, "lat,lon,rsrp,cellFreq\n-22.93,-43.2,-95,1800\n-22.94,-43.2,-97,1800\n", dtForm)
	for _, c := range []struct {
		method, url, body string
		header            map[string]string
		status            int
	}{
		{"POST", "/coverage/observations", obsRow(-22.905), nil, http.StatusOK},
		{"POST", "/coverage/observations/batch", obsBatch("true", -22.91, -22.92), nil, http.StatusOK},
		{"POST", "/coverage/observations/drivetest", dt, map[string]string{"Content-Type": ct}, http.StatusOK},
		{"POST", "/ai/chat", aiChatRio, nil, http.StatusOK},
	} {
		h.clock.advance(time.Second)
		res := h.do(t, c.method, c.url, pro, c.header, c.body)
		if res.status != c.status {
			t.Fatalf("%s %s: %d %s", c.method, c.url, res.status, res.body)
		}
	}
	j := submitJob(t, h, pro, `{"rows":[`+batchRows(101)+`],"options":{"pdfs":false}}`)
	waitFor(t, h, pro, j.ID)

	wants := []string{
		`coverage_observations_total{source="api"} `, `coverage_observations_total{source="drive_test"} `,
		`linkplan_jobs_enqueued_total{kind="batch_report",lane="standard"} 1`,
		`linkplan_jobs_finished_total{kind="batch_report",state="succeeded"} 1`,
		// every call the mock model answered (the explainer may call it more than once)
		fmt.Sprintf(`LLM_EGRESS_TOTAL{provider="openai_compatible",outcome="ok"} %d`+"\n", calls.Load()),
		`linkplan_http_requests_total{method="POST",route="/coverage/observations",status="200"} 1`,
	}
	// The worker counts a finished job just after the commit that a client
	// sees as succeeded (appliance/jobs): the series get a few seconds.
	var res *response
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		res = h.do(t, "GET", "/metrics", "", nil, "")
		if bytes.Contains(res.body, []byte(wants[3])) || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range wants {
		if !bytes.Contains(res.body, []byte(want)) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	for _, rt := range routes {
		if rt.Method != "" && !bytes.Contains(res.body, []byte(`linkplan_http_requests_total{method="`+rt.Method+`",route="`+rt.Path+`",`)) {
			t.Errorf("no request series of %s %s", rt.Method, rt.Path)
		}
	}
	checkDeclared(t, res.body)
	promtoolCheck(t, res.body)
}
