package admission

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
	"linkplan/appliance/telemetry"
)

// Defaults of Options (package doc, "Budget" and "Queue bounds").
const (
	DefaultMemBytes          = 768 << 20 // bytes
	DefaultMaxQueue          = 32
	DefaultMaxQueuePerTenant = 4
	// defaultMeanRun is the run time assumed before any work finished.
	defaultMeanRun = 30 * time.Second
	minRetryAfter  = time.Second
	maxRetryAfter  = 5 * time.Minute
)

// Options configure a Scheduler; zero values take the defaults.
type Options struct {
	// Workers is the number of worker slots (goroutines of heavy work in
	// all); 0 means max(1, GOMAXPROCS−1).
	Workers int
	// MaxJobWorkers is the most slots one piece of work gets; 0 means
	// ceil(Workers/2).
	MaxJobWorkers int
	// MemBytes is the memory budget, bytes; 0 means DefaultMemBytes.
	MemBytes int64
	// MaxQueue bounds the waiting work in all; 0 means DefaultMaxQueue.
	MaxQueue int
	// MaxQueuePerTenant bounds one tenant's waiting work; 0 means
	// DefaultMaxQueuePerTenant.
	MaxQueuePerTenant int
	// Metrics receives the scheduler's series; nil means none.
	Metrics *metrics.Set
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Scheduler is the appliance's admission control (package doc). It has no
// goroutine of its own: Submit, Wait and Release do the work.
type Scheduler struct {
	opts Options

	mu       sync.Mutex
	busy     int   // worker slots granted
	reserved int64 // memory granted, bytes
	waiting  []*ticket
	byID     map[string]*ticket // waiting work by id
	running  int
	vtime    float64            // tag of the work admitted last
	last     map[string]float64 // tenant → tag of its last submitted work
	seq      uint64
	meanRun  time.Duration
	refused  [2]uint64 // queue_full, over_budget
}

var _ appliance.Admitter = (*Scheduler)(nil)

// New returns a Scheduler with the budget of o.
func New(o Options) *Scheduler {
	if o.Workers <= 0 {
		o.Workers = max(1, runtime.GOMAXPROCS(0)-1)
	}
	if o.MaxJobWorkers <= 0 {
		o.MaxJobWorkers = (o.Workers + 1) / 2
	}
	o.MaxJobWorkers = min(o.MaxJobWorkers, o.Workers)
	if o.MemBytes <= 0 {
		o.MemBytes = DefaultMemBytes
	}
	if o.MaxQueue <= 0 {
		o.MaxQueue = DefaultMaxQueue
	}
	if o.MaxQueuePerTenant <= 0 {
		o.MaxQueuePerTenant = DefaultMaxQueuePerTenant
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Scheduler{opts: o, byID: map[string]*ticket{}, last: map[string]float64{}, meanRun: defaultMeanRun}
	if o.Metrics != nil {
		o.Metrics.RegisterMetricsWriter(s.writeMetrics)
	}
	return s
}

// Budget returns the worker slots and the memory budget, bytes.
func (s *Scheduler) Budget() (workers int, memBytes int64) { return s.opts.Workers, s.opts.MemBytes }

// Weight returns the fair-share weight of a tier (package doc).
func Weight(t appliance.Tier) float64 {
	switch t {
	case appliance.TierPro, appliance.TierBusiness:
		return 2
	case appliance.TierEnterprise, appliance.TierUltra:
		return 4
	}
	return 1
}

// ticket states.
const (
	stateWaiting = iota
	stateRunning
	stateDone // withdrawn or released
)

type ticket struct {
	s     *Scheduler
	w     appliance.HeavyWork
	tag   float64
	seq   uint64
	state int
	grant appliance.Grant
	start time.Time
	ready chan struct{} // closed when admitted
	moved chan struct{} // poked when the waiting list changed
}

// Submit puts w in the queue (package doc, "Queue bounds and refusals").
func (s *Scheduler) Submit(w appliance.HeavyWork) (appliance.Admission, error) {
	w.Workers = max(1, w.Workers)
	w.MemBytes = max(0, w.MemBytes)
	if w.Durable {
		w.MemBytes = min(w.MemBytes, s.opts.MemBytes) // runs alone
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.MemBytes > s.opts.MemBytes {
		s.refused[1]++
		return nil, fmt.Errorf("this work needs an estimated %d MiB of memory, more than the appliance's whole heavy-work budget of %d MiB: %w",
			mib(w.MemBytes), mib(s.opts.MemBytes), appliance.ErrInvalid)
	}
	tenantWaiting := 0
	for _, t := range s.waiting {
		if t.w.TenantID == w.TenantID && !t.w.Durable {
			tenantWaiting++
		}
	}
	switch {
	case w.Durable:
	case len(s.waiting) >= s.opts.MaxQueue:
		s.refused[0]++
		return nil, &appliance.RetryAfterError{After: s.retryAfterLocked(),
			Err: fmt.Errorf("the appliance is busy: %d heavy computations are waiting, its limit; try again later: %w", len(s.waiting), appliance.ErrUnavailable)}
	case tenantWaiting >= s.opts.MaxQueuePerTenant:
		s.refused[0]++
		return nil, &appliance.RetryAfterError{After: s.retryAfterLocked(),
			Err: fmt.Errorf("%d heavy computations of this tenant are waiting, its share of the queue; try again when one has started: %w", tenantWaiting, appliance.ErrUnavailable)}
	}
	s.seq++
	t := &ticket{s: s, w: w, seq: s.seq, ready: make(chan struct{}), moved: make(chan struct{}, 1)}
	t.tag = math.Max(s.vtime, s.last[w.TenantID]) + 1/Weight(w.Tier)
	s.last[w.TenantID] = t.tag
	i, _ := slices.BinarySearchFunc(s.waiting, t, order)
	s.waiting = slices.Insert(s.waiting, i, t)
	if w.ID != "" {
		s.byID[w.ID] = t
	}
	s.dispatchLocked()
	s.pokeLocked()
	return t, nil
}

// order sorts waiting work by tag, then submission.
func order(a, b *ticket) int {
	switch {
	case a.tag < b.tag:
		return -1
	case a.tag > b.tag:
		return 1
	case a.seq < b.seq:
		return -1
	case a.seq > b.seq:
		return 1
	}
	return 0
}

// dispatchLocked admits work from the head while it fits.
func (s *Scheduler) dispatchLocked() {
	for len(s.waiting) > 0 {
		t := s.waiting[0]
		free := s.opts.Workers - s.busy
		if free < 1 || t.w.MemBytes > s.opts.MemBytes-s.reserved {
			return
		}
		s.waiting = s.waiting[1:]
		s.removeIDLocked(t)
		t.grant = appliance.Grant{Workers: min(t.w.Workers, s.opts.MaxJobWorkers, free), MemBytes: t.w.MemBytes}
		s.busy += t.grant.Workers
		s.reserved += t.grant.MemBytes
		s.running++
		s.vtime = t.tag
		t.state = stateRunning
		t.start = s.opts.Now()
		close(t.ready)
	}
	if len(s.last) > 256 {
		for id, tag := range s.last {
			if tag <= s.vtime {
				delete(s.last, id) // max(V, tag) is V: the entry says nothing
			}
		}
	}
}

func (s *Scheduler) removeIDLocked(t *ticket) {
	if t.w.ID != "" && s.byID[t.w.ID] == t {
		delete(s.byID, t.w.ID)
	}
}

// pokeLocked wakes every waiting piece: its position may have changed.
func (s *Scheduler) pokeLocked() {
	for _, t := range s.waiting {
		select {
		case t.moved <- struct{}{}:
		default:
		}
	}
}

// Position returns the 1-based queue position of waiting work id, 0 when
// none of that id waits.
func (s *Scheduler) Position(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.byID[id]
	if !ok {
		return 0
	}
	return s.positionLocked(t)
}

func (s *Scheduler) positionLocked(t *ticket) int {
	if t.state != stateWaiting {
		return 0
	}
	i, found := slices.BinarySearchFunc(s.waiting, t, order)
	if !found {
		return 0
	}
	return i + 1
}

// Wait blocks until the work is admitted or ctx ends (appliance.Admission).
func (t *ticket) Wait(ctx context.Context, onPosition func(int)) (appliance.Grant, error) {
	s := t.s
	reported := 0
	for {
		s.mu.Lock()
		st, pos, g := t.state, s.positionLocked(t), t.grant
		s.mu.Unlock()
		switch st {
		case stateRunning:
			return g, nil
		case stateDone:
			return appliance.Grant{}, fmt.Errorf("admission: work %s was withdrawn: %w", t.w.ID, context.Canceled)
		}
		if pos != reported && pos > 0 && onPosition != nil {
			onPosition(pos)
			reported = pos
		}
		select {
		case <-t.ready:
		case <-t.moved:
		case <-ctx.Done():
			t.Release() // withdraws it, or gives back a grant made meanwhile
			return appliance.Grant{}, fmt.Errorf("admission: wait for work %s: %w", t.w.ID, ctx.Err())
		}
	}
}

// Release gives the grant back or withdraws waiting work (idempotent).
func (t *ticket) Release() {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	switch t.state {
	case stateWaiting:
		if i, found := slices.BinarySearchFunc(s.waiting, t, order); found {
			s.waiting = slices.Delete(s.waiting, i, i+1)
		}
		s.removeIDLocked(t)
	case stateRunning:
		s.busy -= t.grant.Workers
		s.reserved -= t.grant.MemBytes
		s.running--
		// An exponential average over about the last 8 runs.
		s.meanRun = (7*s.meanRun + s.opts.Now().Sub(t.start)) / 8
	default:
		return
	}
	t.state = stateDone
	s.dispatchLocked()
	s.pokeLocked()
}

// retryAfterLocked estimates when a queue place frees (package doc).
func (s *Scheduler) retryAfterLocked() time.Duration {
	d := s.meanRun / time.Duration(max(1, s.running))
	return min(max(d, minRetryAfter), maxRetryAfter).Round(time.Second)
}

// Stats is a snapshot of the scheduler.
type Stats struct {
	Waiting, Running  int
	BusyWorkers       int
	ReservedMemBytes  int64
	RefusedQueueFull  uint64
	RefusedOverBudget uint64
}

// Stats returns a snapshot of the queue and the budget in use.
func (s *Scheduler) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Waiting: len(s.waiting), Running: s.running, BusyWorkers: s.busy, ReservedMemBytes: s.reserved,
		RefusedQueueFull: s.refused[0], RefusedOverBudget: s.refused[1]}
}

func (s *Scheduler) writeMetrics(w io.Writer) {
	// Samples only: appliance/telemetry declares the families with their
	// HELP and TYPE.
	st := s.Stats()
	fmt.Fprintf(w, "%s %d\n", telemetry.AdmissionWaiting, st.Waiting)
	fmt.Fprintf(w, "%s %d\n", telemetry.AdmissionRunning, st.Running)
	fmt.Fprintf(w, "%s{state=\"busy\"} %d\n%s{state=\"total\"} %d\n", telemetry.AdmissionWorkers, st.BusyWorkers, telemetry.AdmissionWorkers, s.opts.Workers)
	fmt.Fprintf(w, "%s{state=\"reserved\"} %d\n%s{state=\"budget\"} %d\n", telemetry.AdmissionMemory, st.ReservedMemBytes, telemetry.AdmissionMemory, s.opts.MemBytes)
	fmt.Fprintf(w, "%s{reason=\"over_budget\"} %d\n%s{reason=\"queue_full\"} %d\n", telemetry.AdmissionRefused, st.RefusedOverBudget, telemetry.AdmissionRefused, st.RefusedQueueFull)
}

func mib(b int64) int64 { return (b + 1<<20 - 1) >> 20 }
