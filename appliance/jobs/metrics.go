package jobs

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"linkplan/appliance"
)

// Metric names (Prometheus text format, with HELP and TYPE).
const (
	metricEnqueued = "linkplan_jobs_enqueued_total"
	metricFinished = "linkplan_jobs_finished_total"
	metricQueued   = "linkplan_jobs_queued"
	metricRunning  = "linkplan_jobs_running"
)

// jobMetrics counts jobs by kind and lane (enqueued) and by kind and
// terminal state (finished). Label values come from closed sets (kinds,
// lanes, states), so the series are bounded.
type jobMetrics struct {
	mu       sync.Mutex
	enqueued map[[2]string]*atomic.Uint64 // kind, lane
	finished map[[2]string]*atomic.Uint64 // kind, state
}

func newJobMetrics() *jobMetrics {
	return &jobMetrics{enqueued: map[[2]string]*atomic.Uint64{}, finished: map[[2]string]*atomic.Uint64{}}
}

func (m *jobMetrics) inc(set map[[2]string]*atomic.Uint64, k [2]string) {
	m.mu.Lock()
	c := set[k]
	if c == nil {
		c = new(atomic.Uint64)
		set[k] = c
	}
	m.mu.Unlock()
	c.Add(1)
}

// writeMetrics writes the job series; the queued gauge only when the queue
// can count its jobs.
func (s *Service) writeMetrics(w io.Writer) {
	m := s.metrics
	var b bytes.Buffer
	family := func(name, help, typ, label string, set map[[2]string]*atomic.Uint64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
		m.mu.Lock()
		keys := make([][2]string, 0, len(set))
		for k := range set {
			keys = append(keys, k)
		}
		m.mu.Unlock()
		slices.SortFunc(keys, func(a, b [2]string) int {
			if a[0] != b[0] {
				return cmp.Compare(a[0], b[0])
			}
			return cmp.Compare(a[1], b[1])
		})
		for _, k := range keys {
			m.mu.Lock()
			v := set[k].Load()
			m.mu.Unlock()
			fmt.Fprintf(&b, "%s{kind=%q,%s=%q} %d\n", name, k[0], label, k[1], v)
		}
	}
	family(metricEnqueued, "Jobs enqueued, by kind and lane.", "counter", "lane", m.enqueued)
	family(metricFinished, "Jobs that reached a terminal state, by kind and state.", "counter", "state", m.finished)
	fmt.Fprintf(&b, "# HELP %s Jobs running on this appliance's workers.\n# TYPE %s gauge\n%s %d\n", metricRunning, metricRunning, metricRunning, s.running.Load())
	if c, ok := s.queue.(counter); ok {
		if q, _, err := c.JobCounts(context.Background()); err == nil {
			fmt.Fprintf(&b, "# HELP %s Jobs waiting in the queue (both lanes).\n# TYPE %s gauge\n%s %d\n", metricQueued, metricQueued, metricQueued, q)
		}
	}
	_, _ = w.Write(b.Bytes())
}

func (s *Service) countEnqueued(j *appliance.Job) {
	s.metrics.inc(s.metrics.enqueued, [2]string{string(j.Kind), string(j.Lane)})
}

func (s *Service) countFinished(kind appliance.JobKind, st appliance.JobState) {
	s.metrics.inc(s.metrics.finished, [2]string{string(kind), string(st)})
}
