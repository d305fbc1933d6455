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
	"linkplan/appliance/telemetry"
)

// Metric names; their HELP and TYPE are declared in appliance/telemetry.
const (
	metricEnqueued = telemetry.JobsEnqueued
	metricFinished = telemetry.JobsFinished
	metricQueued   = telemetry.JobsQueued
	metricRunning  = telemetry.JobsRunning
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

// writeMetrics writes the samples of the job series (appliance/telemetry
// adds HELP and TYPE); the queued gauge only when the queue can count its
// jobs.
func (s *Service) writeMetrics(w io.Writer) {
	m := s.metrics
	var b bytes.Buffer
	family := func(name, label string, set map[[2]string]*atomic.Uint64) {
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
	family(metricEnqueued, "lane", m.enqueued)
	family(metricFinished, "state", m.finished)
	fmt.Fprintf(&b, "%s %d\n", metricRunning, s.running.Load())
	if c, ok := s.queue.(counter); ok {
		if q, _, err := c.JobCounts(context.Background()); err == nil {
			fmt.Fprintf(&b, "%s %d\n", metricQueued, q)
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
