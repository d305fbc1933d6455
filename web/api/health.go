package api

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance/telemetry"
)

func (a *API) registerHealth(r *mux.Router) {
	r.HandleFunc("/health", a.health).Methods(http.MethodGet)
	r.HandleFunc("/health/ready", a.wrap(a.readiness)).Methods(http.MethodGet)
	r.HandleFunc("/metrics", a.metricsHandler).Methods(http.MethodGet)
}

// health is liveness: a constant body, no I/O (SPEC §4.9).
func (a *API) health(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write([]byte(`{"status":"healthy"}` + "\n"))
}

// ReadyReport is the body of GET /health/ready.
type ReadyReport struct {
	Status  string            `json:"status"` // "ready" or "not_ready"
	State   string            `json:"state"`  // starting, ready, stopping
	Checks  map[string]string `json:"checks"` // check name -> "ok" or the reason it failed
	Offline bool              `json:"offline"`
	Version string            `json:"version"`
	// Details holds the facts behind some checks, by check name (workers:
	// each worker's state and why it refuses work).
	Details map[string]any `json:"details"`
}

func (a *API) readiness(w http.ResponseWriter, r *http.Request) (any, error) {
	ctx, cancel := context.WithTimeout(r.Context(), 1500*time.Millisecond)
	defer cancel()
	rep := ReadyReport{Status: "ready", State: a.state.Load().(string), Checks: map[string]string{}, Offline: a.Offline, Version: a.Version, Details: map[string]any{}}
	ok := rep.State == StateReady
	for _, c := range a.Checks {
		if err := c.Fn(ctx); err != nil {
			rep.Checks[c.Name] = err.Error()
			ok = ok && c.Advisory
		} else {
			rep.Checks[c.Name] = "ok"
		}
		if c.Details != nil {
			rep.Details[c.Name] = c.Details()
		}
	}
	if !ok {
		rep.Status = "not_ready"
		writeJSON(w, http.StatusServiceUnavailable, rep)
		return nil, nil
	}
	return rep, nil
}

// metricsHandler writes the appliance's metrics set under the families
// declared in appliance/telemetry: every family has its HELP and TYPE from
// the start, whatever has been counted (issue 20, scope 10).
func (a *API) metricsHandler(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_ = a.exposition.Write(w, a.metrics)
}

// The HTTP metrics are written in the Prometheus text format with HELP and
// TYPE lines and le-bucket histograms (issue 7, finding 7), so promtool
// check metrics passes and histogram_quantile works. The pinned
// VictoriaMetrics library (v1.35.1) has neither: its metadata switch
// (metrics.ExposeMetadata) is process-global and writes an empty HELP, which
// promtool refuses, and its histograms use vmrange buckets. So the API keeps
// its two families itself and registers their writer on the appliance's
// metrics set (Set.RegisterMetricsWriter): one set, one /metrics, and no
// global state. Their HELP and TYPE come from the one declaration of
// appliance/telemetry, like every family's.

// Metric families of the API.
const (
	metricRequests = telemetry.HTTPRequests
	metricDuration = telemetry.HTTPRequestDuration
)

// durationBuckets are the upper bounds (seconds) of the request-duration
// histogram. They include every latency target of SPEC §8.3 (50 ms to 5 s),
// so that the share of requests within a target is exact, not interpolated.
var durationBuckets = [...]float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.6, 0.8, 1, 1.5, 2, 3, 5, 10, 30}

// seriesKey names one series by its labels. Every label value comes from a
// closed set (metricMethod, route templates, status codes).
type seriesKey struct {
	method, route string
	status        int // 0 for the histogram, which has no status label
}

// histogram is one Prometheus histogram series: cumulative bucket counts
// are computed when written.
type histogram struct {
	mu     sync.Mutex
	counts [len(durationBuckets) + 1]uint64 // the last one is +Inf
	sum    float64
}

// httpMetrics holds the request counter and duration histogram series.
type httpMetrics struct {
	mu        sync.Mutex
	requests  map[seriesKey]*atomic.Uint64
	durations map[seriesKey]*histogram
}

func newHTTPMetrics() *httpMetrics {
	return &httpMetrics{requests: map[seriesKey]*atomic.Uint64{}, durations: map[seriesKey]*histogram{}}
}

// observe counts one finished request.
func (m *httpMetrics) observe(method, route string, status int, seconds float64) {
	m.mu.Lock()
	c := m.requests[seriesKey{method, route, status}]
	if c == nil {
		c = new(atomic.Uint64)
		m.requests[seriesKey{method, route, status}] = c
	}
	h := m.durations[seriesKey{method: method, route: route}]
	if h == nil {
		h = new(histogram)
		m.durations[seriesKey{method: method, route: route}] = h
	}
	m.mu.Unlock()
	c.Add(1)
	i, _ := slices.BinarySearch(durationBuckets[:], seconds) // first bound >= seconds
	h.mu.Lock()
	h.counts[i]++
	h.sum += seconds
	h.mu.Unlock()
}

// write writes the samples of both families in the Prometheus text format,
// series sorted by their labels (appliance/telemetry adds HELP and TYPE).
func (m *httpMetrics) write(w io.Writer) {
	m.mu.Lock()
	reqKeys := slices.SortedFunc(maps.Keys(m.requests), compareSeries)
	durKeys := slices.SortedFunc(maps.Keys(m.durations), compareSeries)
	reqs := make([]uint64, len(reqKeys))
	for i, k := range reqKeys {
		reqs[i] = m.requests[k].Load()
	}
	hists := make([]*histogram, len(durKeys))
	for i, k := range durKeys {
		hists[i] = m.durations[k]
	}
	m.mu.Unlock()

	var b bytes.Buffer
	for i, k := range reqKeys {
		fmt.Fprintf(&b, "%s{method=%s,route=%s,status=\"%d\"} %d\n", metricRequests, labelValue(k.method), labelValue(k.route), k.status, reqs[i])
	}
	for i, k := range durKeys {
		h := hists[i]
		h.mu.Lock()
		counts, sum := h.counts, h.sum
		h.mu.Unlock()
		labels := "method=" + labelValue(k.method) + ",route=" + labelValue(k.route)
		var cum uint64
		for j, le := range durationBuckets {
			cum += counts[j]
			fmt.Fprintf(&b, "%s_bucket{%s,le=\"%s\"} %d\n", metricDuration, labels, strconv.FormatFloat(le, 'g', -1, 64), cum)
		}
		cum += counts[len(durationBuckets)]
		fmt.Fprintf(&b, "%s_bucket{%s,le=\"+Inf\"} %d\n", metricDuration, labels, cum)
		fmt.Fprintf(&b, "%s_sum{%s} %s\n", metricDuration, labels, strconv.FormatFloat(sum, 'g', -1, 64))
		fmt.Fprintf(&b, "%s_count{%s} %d\n", metricDuration, labels, cum)
	}
	_, _ = w.Write(b.Bytes())
}

func compareSeries(a, b seriesKey) int {
	return cmp.Or(strings.Compare(a.route, b.route), strings.Compare(a.method, b.method), cmp.Compare(a.status, b.status))
}

// labelValue quotes a label value as the text format requires (backslash,
// double quote and newline escaped).
func labelValue(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
