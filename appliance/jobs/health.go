package jobs

import (
	"context"
	"fmt"
	"time"
)

// waiter is implemented by queues that can say how long their ready jobs
// have waited (store.DB): Health reads it.
type waiter interface {
	JobWaits(ctx context.Context, now time.Time) (queued, ready int, since time.Time, err error)
}

// Health is the state of the queue and its workers for GET /health/ready
// (issue 21, scope 3).
type Health struct {
	// Workers is the size of the pool; WorkersAlive how many of its
	// goroutines are running their loop (all of them between Start and
	// Close).
	Workers, WorkersAlive int
	// Running is the jobs this process runs now (leased, including those
	// waiting for their heavy-work grant).
	Running int
	// Queued is the jobs waiting in the queue; Ready those of them whose
	// retry backoff is over. -1 when the queue cannot count them.
	Queued, Ready int
	// OldestWait is how long the longest-waiting ready job has waited,
	// since it was queued or its backoff ended; 0 when none is ready.
	OldestWait time.Duration
	// Problem is why the queue is not working, "" when it is (the
	// Service's states, package doc).
	Problem string
}

// StallAfter is how long a ready job may wait while this process runs no
// job before the queue counts as stalled: the workers poll every
// PollInterval (1 s by default), so a ready job that nobody leases for a
// minute means they are not leasing.
func (s *Service) StallAfter() time.Duration {
	return max(time.Minute, 10*s.opts.PollInterval)
}

// Health reports the queue's state at now. Its Problem is, in this order:
// not started; stopping; a worker not running its loop; a ready job that
// waited more than StallAfter while no job runs in this process and no
// worker asked the queue for a job for StallAfter either (the workers do
// not lease). A ready job waiting behind running ones is not a problem:
// jobs are durable work that waits its turn; nor is the instant between
// two jobs, when nothing runs but a worker is about to lease.
func (s *Service) Health(ctx context.Context) (Health, error) {
	h := Health{Workers: s.opts.Workers, WorkersAlive: int(s.alive.Load()), Running: int(s.running.Load()), Queued: -1, Ready: -1}
	if w, ok := s.queue.(waiter); ok {
		now := s.now()
		q, r, since, err := w.JobWaits(ctx, now)
		if err != nil {
			return h, fmt.Errorf("jobs: health: %w", err)
		}
		h.Queued, h.Ready = q, r
		if r > 0 {
			h.OldestWait = max(0, now.Sub(since))
		}
	}
	s.mu.Lock()
	started, stopping := s.started && s.cancel != nil, s.stopping
	s.mu.Unlock()
	switch {
	case !started:
		h.Problem = "the job workers have not started"
	case stopping:
		h.Problem = "the job workers are stopping"
	case h.WorkersAlive < h.Workers:
		h.Problem = fmt.Sprintf("%d of %d job workers are running", h.WorkersAlive, h.Workers)
	case h.Running == 0 && h.OldestWait > s.StallAfter() && s.now().Sub(time.Unix(0, s.polled.Load())) > s.StallAfter():
		h.Problem = fmt.Sprintf("a ready job has waited %.0f s, no job runs and no worker has asked for one for %.0f s: the workers are not taking jobs",
			h.OldestWait.Seconds(), s.now().Sub(time.Unix(0, s.polled.Load())).Seconds())
	}
	return h, nil
}
