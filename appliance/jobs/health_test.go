package jobs_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/jobs"
	"linkplan/store"
)

// TestIssue21_QueueHealth: the queue check of GET /health/ready (issue 21,
// scope 3) on a real bbolt queue, through the Service's states: not
// started, running (workers alive, ready jobs counted with their wait, a
// job in backoff not ready), stalled (a ready job that nobody leases while
// nothing runs) and stopping.
func TestIssue21_QueueHealth(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	now := time.Date(2030, 1, 2, 3, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	// The queue and the Service read the same clock.
	db, err := store.Open(t.TempDir(), store.Options{LockTimeout: 500 * time.Millisecond, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The pool polls once at start and then every hour: a job queued by
	// another Service on the same queue (no wake-up) waits for the poll.
	opts := jobs.Options{Workers: 2, PollInterval: time.Hour, Clock: clock}
	s := jobs.New(db, t.TempDir(), opts)
	s.Register(appliance.JobKindBatchReport, &sumHandler{chunk: 3})
	other := jobs.New(db, t.TempDir(), opts)
	other.Register(appliance.JobKindBatchReport, &sumHandler{chunk: 3})

	h, err := s.Health(ctx)
	if err != nil || h.Problem != "the job workers have not started" || h.WorkersAlive != 0 || h.Workers != 2 || h.Queued != 0 || h.Ready != 0 {
		t.Fatalf("before Start: %+v, %v", h, err)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	h, err = s.Health(ctx)
	if err != nil || h.Problem != "" || h.WorkersAlive != 2 || h.Running != 0 || h.OldestWait != 0 {
		t.Fatalf("started, empty queue: %+v, %v", h, err)
	}
	// Let the workers make their first poll (an empty queue) before the
	// jobs arrive.
	time.Sleep(100 * time.Millisecond)
	for _, tenant := range []string{"ta", "tb"} {
		if err := other.Enqueue(ctx, &appliance.Job{TenantID: tenant, Kind: appliance.JobKindBatchReport, Total: 1}); err != nil {
			t.Fatal(err)
		}
		advance(10 * time.Second)
	}
	h, err = s.Health(ctx)
	if err != nil || h.Problem != "" || h.Queued != 2 || h.Ready != 2 || h.OldestWait != 20*time.Second {
		t.Fatalf("two ready jobs, 20 s and 10 s old: %+v, %v", h, err)
	}
	advance(s.StallAfter())
	h, err = s.Health(ctx)
	if err != nil || !strings.Contains(h.Problem, "the workers are not taking jobs") || h.OldestWait != 20*time.Second+s.StallAfter() {
		t.Fatalf("a ready job past StallAfter with nothing running: %+v, %v", h, err)
	}
	t.Logf("stalled: %s", h.Problem)
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	h, err = s.Health(ctx)
	if err != nil || h.Problem != "the job workers are stopping" || h.WorkersAlive != 0 {
		t.Fatalf("after Close: %+v, %v", h, err)
	}
}

// TestJobWaitsSkipsBackoff: a queued job whose retry backoff (NotBefore)
// is not over is queued but not ready, and its wait is not counted.
func TestJobWaitsSkipsBackoff(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	defer db.Close()
	t0 := time.Date(2030, 1, 2, 3, 0, 0, 0, time.UTC)
	ready := &appliance.Job{ID: "job_ready", TenantID: "ta", Kind: appliance.JobKindBatchReport, Lane: appliance.LaneStandard, MaxAttempts: 3, MaxInterruptions: 3}
	if err := db.Enqueue(ctx, ready); err != nil {
		t.Fatal(err)
	}
	later := &appliance.Job{ID: "job_later", TenantID: "tb", Kind: appliance.JobKindBatchReport, Lane: appliance.LanePriority, MaxAttempts: 3, MaxInterruptions: 3,
		NotBefore: t0.Add(time.Hour)}
	if err := db.Enqueue(ctx, later); err != nil {
		t.Fatal(err)
	}
	q, r, since, err := db.JobWaits(ctx, t0)
	if err != nil || q != 2 || r != 1 || !since.Equal(ready.Updated) {
		t.Fatalf("JobWaits = %d queued, %d ready, since %v, %v; want 2, 1, %v", q, r, since, err, ready.Updated)
	}
	q, r, since, err = db.JobWaits(ctx, t0.Add(2*time.Hour))
	if err != nil || q != 2 || r != 2 || !since.Equal(ready.Updated) {
		t.Fatalf("after the backoff: %d queued, %d ready, since %v, %v", q, r, since, err)
	}
}
