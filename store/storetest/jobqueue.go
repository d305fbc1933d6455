// Package storetest holds the contract suites that every implementation
// of a storage interface runs: RunJobQueue for appliance.JobQueue (the
// bbolt queue of package store, the JetStream queue of queue/jsq).
package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
)

// JobQueue is what the contract drives: the queue interface and the
// reads the jobs service, the privacy export and the tests use.
type JobQueue interface {
	appliance.JobQueue
	// JobCounts returns how many jobs are queued and running.
	JobCounts(ctx context.Context) (queued, running int, err error)
	// JobsByTenant returns up to limit of tenant's jobs, newest first.
	JobsByTenant(ctx context.Context, tenantID string, limit int) ([]*appliance.Job, error)
	// Audit returns up to limit of tenant's audit entries, newest first.
	Audit(tenantID string, limit int) ([]appliance.AuditEntry, error)
	// Close releases the queue; its state stays in its directory.
	Close() error
}

// JobQueueHarness opens queues for the contract.
type JobQueueHarness struct {
	// Open opens the queue whose state lives in dir: an empty queue in a
	// new directory, the same queue again in the directory of a closed
	// one (what a restart of the process sees). now is the clock of
	// Enqueue (the other calls take their time as an argument).
	Open func(t testing.TB, dir string, now func() time.Time) JobQueue
}

// open opens a fresh queue whose clock stands at jobT0, closed at the
// end of the test.
func (h JobQueueHarness) open(t testing.TB) JobQueue {
	t.Helper()
	q := h.Open(t, t.TempDir(), func() time.Time { return jobT0 })
	t.Cleanup(func() { _ = q.Close() })
	return q
}

// RunJobQueue runs the whole contract of appliance.JobQueue (the state
// table of package appliance/jobs) on the queues h opens.
func RunJobQueue(t *testing.T, h JobQueueHarness) {
	for _, c := range []struct {
		name string
		fn   func(*testing.T, JobQueueHarness)
	}{
		{"Transitions", contractJobTransitions},
		{"CrashQuarantine", contractJobCrashQuarantine},
		{"Probation", contractJobProbation},
		{"FencingAndCheckpoint", contractJobFencingAndCheckpoint},
		{"CancelAndTenantIsolation", contractJobCancelAndTenantIsolation},
		{"Fairness", contractJobFairness},
		{"PersistenceAndSweep", contractJobPersistenceAndSweep},
		{"Randomized", contractJobQueueRandomized},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, h) })
	}
}

var jobT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const ttl = 30 * time.Second

func enq(t testing.TB, db JobQueue, id, tenant string, lane appliance.Lane) *appliance.Job {
	t.Helper()
	j := &appliance.Job{ID: id, TenantID: tenant, Kind: appliance.JobKindBatchReport, Lane: lane, Total: 10, MaxAttempts: 2, MaxInterruptions: 2}
	if err := db.Enqueue(context.Background(), j); err != nil {
		t.Fatalf("enqueue %s: %v", id, err)
	}
	return j
}

func lease(t testing.TB, db JobQueue, now time.Time) *appliance.Lease {
	t.Helper()
	l, err := db.Lease(context.Background(), "w1", ttl, now)
	if err != nil {
		t.Fatalf("lease: %v", err)
	}
	return l
}

func state(t testing.TB, db JobQueue, tenant, id string) *appliance.Job {
	t.Helper()
	j, err := db.Get(context.Background(), tenant, id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return j
}

func contractJobTransitions(t *testing.T, h JobQueueHarness) {
	ctx := context.Background()
	res := appliance.JobResult{Name: "j.zip", Bytes: 3, SHA256: "ab"}
	cases := []struct {
		name      string
		run       func(t *testing.T, db JobQueue, l *appliance.Lease)
		wantState appliance.JobState
		wantErr   string
	}{
		{"ack succeeds", func(t *testing.T, db JobQueue, l *appliance.Lease) {
			if err := db.Ack(ctx, l, res, time.Hour, jobT0); err != nil {
				t.Fatal(err)
			}
		}, appliance.JobSucceeded, ""},
		{"retryable fail with attempts left queues after backoff", func(t *testing.T, db JobQueue, l *appliance.Lease) {
			s, err := db.Fail(ctx, l, "boom", true, time.Minute, jobT0)
			if err != nil || s != appliance.JobQueued {
				t.Fatalf("fail = %s, %v", s, err)
			}
			if _, err := db.Lease(ctx, "w", ttl, jobT0.Add(59*time.Second)); !errors.Is(err, appliance.ErrNoJob) {
				t.Fatalf("lease during backoff: %v", err)
			}
		}, appliance.JobQueued, "boom"},
		{"permanent fail", func(t *testing.T, db JobQueue, l *appliance.Lease) {
			if s, err := db.Fail(ctx, l, "bad input", false, 0, jobT0); err != nil || s != appliance.JobFailed {
				t.Fatalf("fail = %s, %v", s, err)
			}
		}, appliance.JobFailed, "bad input"},
		{"retries exhausted", func(t *testing.T, db JobQueue, l *appliance.Lease) {
			if _, err := db.Fail(ctx, l, "boom", true, 0, jobT0); err != nil {
				t.Fatal(err)
			}
			l2 := lease(t, db, jobT0)
			if s, err := db.Fail(ctx, l2, "boom", true, 0, jobT0); err != nil || s != appliance.JobFailed {
				t.Fatalf("second fail = %s, %v", s, err)
			}
		}, appliance.JobFailed, "gave up after 2 attempts"},
		{"lease expiry requeues with an interruption", func(t *testing.T, db JobQueue, l *appliance.Lease) {
			if n, err := db.Requeue(ctx, jobT0.Add(ttl-time.Second)); err != nil || n != 0 {
				t.Fatalf("early requeue = %d, %v", n, err)
			}
			if n, err := db.Requeue(ctx, jobT0.Add(ttl+time.Second)); err != nil || n != 1 {
				t.Fatalf("requeue = %d, %v", n, err)
			}
		}, appliance.JobQueued, ""},
		{"interruptions exhausted", func(t *testing.T, db JobQueue, l *appliance.Lease) {
			now := jobT0
			for range 2 {
				now = now.Add(ttl + time.Second)
				if n, err := db.Requeue(ctx, now); err != nil || n != 1 {
					t.Fatalf("requeue = %d, %v", n, err)
				}
				if _, err := db.Lease(ctx, "w", ttl, now); err != nil && !errors.Is(err, appliance.ErrNoJob) {
					t.Fatal(err)
				}
			}
		}, appliance.JobFailed, "interrupted 2 times (the worker stopped before finishing)"},
		{"release queues without an attempt", func(t *testing.T, db JobQueue, l *appliance.Lease) {
			if err := db.Release(ctx, l, jobT0); err != nil {
				t.Fatal(err)
			}
		}, appliance.JobQueued, ""},
		{"cancel running then extend cancels", func(t *testing.T, db JobQueue, l *appliance.Lease) {
			j, err := db.Cancel(ctx, "ta", l.Job.ID, jobT0)
			if err != nil || j.State != appliance.JobRunning || !j.CancelRequested {
				t.Fatalf("cancel = %+v, %v", j, err)
			}
			if err := db.Extend(ctx, l, ttl, jobT0); !errors.Is(err, appliance.ErrJobCanceled) {
				t.Fatalf("extend: %v", err)
			}
		}, appliance.JobCanceled, "canceled"},
		{"cancel running then checkpoint writes nothing", func(t *testing.T, db JobQueue, l *appliance.Lease) {
			if _, err := db.Cancel(ctx, "ta", l.Job.ID, jobT0); err != nil {
				t.Fatal(err)
			}
			err := db.Checkpoint(ctx, l, appliance.JobProgress{Done: 1}, []appliance.JobItem{{Index: 0, Data: []byte("x")}}, jobT0)
			if !errors.Is(err, appliance.ErrJobCanceled) {
				t.Fatalf("checkpoint: %v", err)
			}
			n := 0
			_ = db.Items(ctx, l.Job.ID, 0, func(appliance.JobItem) error { n++; return nil })
			if n != 0 {
				t.Fatalf("%d items written after cancel", n)
			}
		}, appliance.JobCanceled, "canceled"},
		{"cancel running then lease expiry cancels", func(t *testing.T, db JobQueue, l *appliance.Lease) {
			if _, err := db.Cancel(ctx, "ta", l.Job.ID, jobT0); err != nil {
				t.Fatal(err)
			}
			if n, err := db.Requeue(ctx, jobT0.Add(time.Hour)); err != nil || n != 1 {
				t.Fatalf("requeue = %d, %v", n, err)
			}
		}, appliance.JobCanceled, "canceled"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := h.open(t)
			enq(t, db, "j1", "ta", appliance.LaneStandard)
			l := lease(t, db, jobT0)
			if l.Job.State != appliance.JobRunning || l.Token != 1 {
				t.Fatalf("leased %+v", l.Job)
			}
			tc.run(t, db, l)
			j := state(t, db, "ta", "j1")
			if j.State != tc.wantState || !strings.Contains(j.Error, tc.wantErr) {
				t.Fatalf("state %s error %q; want %s containing %q", j.State, j.Error, tc.wantState, tc.wantErr)
			}
			if tc.wantState.Terminal() && j.Finished.IsZero() {
				t.Fatal("terminal without Finished")
			}
		})
	}
}

// crashAt is a process death while the job l holds runs: the next start
// finds the lease orphaned.
func crashAt(t *testing.T, db JobQueue, now time.Time) (int, []*appliance.Job) {
	t.Helper()
	n, q, err := db.RequeueOrphans(context.Background(), now)
	if err != nil {
		t.Fatalf("requeue orphans: %v", err)
	}
	return n, q
}

// TestJobCrashQuarantine: a job running when the process died is leased
// again once; a second death while it runs quarantines it (issue 20). A
// lease that expires in a live process and a graceful release are not
// deaths.
func contractJobCrashQuarantine(t *testing.T, h JobQueueHarness) {
	ctx := context.Background()
	cases := []struct {
		name        string
		run         func(t *testing.T, db JobQueue, l *appliance.Lease)
		wantState   appliance.JobState
		wantErr     string
		wantCrashes int
	}{
		{"one death requeues on probation", func(t *testing.T, db JobQueue, l *appliance.Lease) {
			if n, q := crashAt(t, db, jobT0); n != 1 || len(q) != 0 {
				t.Fatalf("requeue orphans = %d, %v", n, q)
			}
		}, appliance.JobQueued, "", 1},
		{"two deaths quarantine", func(t *testing.T, db JobQueue, l *appliance.Lease) {
			crashAt(t, db, jobT0)
			lease(t, db, jobT0.Add(time.Second))
			n, q := crashAt(t, db, jobT0.Add(2*time.Second))
			if n != 1 || len(q) != 1 || q[0].ID != "j1" || q[0].Crashes != 2 {
				t.Fatalf("requeue orphans = %d, %+v", n, q)
			}
			if _, err := db.Lease(ctx, "w", ttl, jobT0.Add(time.Hour)); !errors.Is(err, appliance.ErrNoJob) {
				t.Fatalf("a quarantined job was leased again: %v", err)
			}
			es, err := db.Audit("ta", 0)
			if err != nil || len(es) == 0 || es[0].Action != appliance.ActionJobQuarantine || es[0].Params["job_id"] != "j1" {
				t.Fatalf("newest audit entry %+v, %v; want %s of j1", es, err, appliance.ActionJobQuarantine)
			}
		}, appliance.JobFailed, appliance.JobQuarantineReason, 2},
		{"a drain between two deaths does not reset the count", func(t *testing.T, db JobQueue, l *appliance.Lease) {
			crashAt(t, db, jobT0)
			l2 := lease(t, db, jobT0)
			if err := db.Release(ctx, l2, jobT0); err != nil {
				t.Fatal(err)
			}
			lease(t, db, jobT0)
			if _, q := crashAt(t, db, jobT0); len(q) != 1 {
				t.Fatalf("quarantined %v", q)
			}
		}, appliance.JobFailed, appliance.JobQuarantineReason, 2},
		{"drains are not deaths", func(t *testing.T, db JobQueue, l *appliance.Lease) {
			for range 5 {
				if err := db.Release(ctx, l, jobT0); err != nil {
					t.Fatal(err)
				}
				l = lease(t, db, jobT0)
			}
			if err := db.Ack(ctx, l, appliance.JobResult{Name: "j1.zip"}, time.Hour, jobT0); err != nil {
				t.Fatal(err)
			}
		}, appliance.JobSucceeded, "", 0},
		{"an expired lease in a live process is no death", func(t *testing.T, db JobQueue, l *appliance.Lease) {
			if n, err := db.Requeue(ctx, jobT0.Add(ttl+time.Second)); err != nil || n != 1 {
				t.Fatalf("requeue = %d, %v", n, err)
			}
		}, appliance.JobQueued, "", 0},
		{"a requested cancel wins over the quarantine", func(t *testing.T, db JobQueue, l *appliance.Lease) {
			crashAt(t, db, jobT0)
			lease(t, db, jobT0)
			if _, err := db.Cancel(ctx, "ta", "j1", jobT0); err != nil {
				t.Fatal(err)
			}
			if _, q := crashAt(t, db, jobT0); len(q) != 0 {
				t.Fatalf("quarantined %v", q)
			}
		}, appliance.JobCanceled, "canceled", 1},
		{"a death after the work succeeded changes nothing", func(t *testing.T, db JobQueue, l *appliance.Lease) {
			crashAt(t, db, jobT0)
			l2 := lease(t, db, jobT0)
			if err := db.Ack(ctx, l2, appliance.JobResult{Name: "j1.zip"}, time.Hour, jobT0); err != nil {
				t.Fatal(err)
			}
			if n, _ := crashAt(t, db, jobT0); n != 0 {
				t.Fatalf("%d jobs moved", n)
			}
		}, appliance.JobSucceeded, "", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := h.open(t)
			j := &appliance.Job{ID: "j1", TenantID: "ta", Kind: appliance.JobKindBatchReport, Lane: appliance.LaneStandard,
				Total: 10, MaxAttempts: 3, MaxInterruptions: 10}
			if err := db.Enqueue(ctx, j); err != nil {
				t.Fatal(err)
			}
			tc.run(t, db, lease(t, db, jobT0))
			got := state(t, db, "ta", "j1")
			if got.State != tc.wantState || !strings.Contains(got.Error, tc.wantErr) || got.Crashes != tc.wantCrashes {
				t.Fatalf("state %s error %q crashes %d; want %s containing %q, %d crashes",
					got.State, got.Error, got.Crashes, tc.wantState, tc.wantErr, tc.wantCrashes)
			}
		})
	}
}

// TestJobProbation: jobs on probation (a crash each) run one at a time,
// so that a second death is blamed on one of them only; other jobs run
// beside them as usual.
func contractJobProbation(t *testing.T, h JobQueueHarness) {
	ctx := context.Background()
	db := h.open(t)
	for _, id := range []string{"a", "b"} {
		enq(t, db, id, "t"+id, appliance.LaneStandard)
	}
	lease(t, db, jobT0)
	lease(t, db, jobT0)
	if n, q := crashAt(t, db, jobT0); n != 2 || len(q) != 0 {
		t.Fatalf("requeue orphans = %d, %v", n, q)
	}
	first := lease(t, db, jobT0)
	if first.Job.Crashes != 1 {
		t.Fatalf("leased %s with %d crashes", first.Job.ID, first.Job.Crashes)
	}
	enq(t, db, "c", "tc", appliance.LaneStandard)
	second := lease(t, db, jobT0)
	if second.Job.ID != "c" {
		t.Fatalf("second lease %s, want c: the other job on probation waits", second.Job.ID)
	}
	if _, err := db.Lease(ctx, "w", ttl, jobT0); !errors.Is(err, appliance.ErrNoJob) {
		t.Fatalf("third lease: %v, want no job while %s is on probation", err, first.Job.ID)
	}
	// The process dies again: the suspect running is quarantined, c (its
	// first crash) and the waiting suspect are not.
	n, q := crashAt(t, db, jobT0)
	if n != 2 || len(q) != 1 || q[0].ID != first.Job.ID {
		t.Fatalf("requeue orphans = %d, %+v; want %s quarantined", n, q, first.Job.ID)
	}
	other := map[string]string{"a": "b", "b": "a"}[first.Job.ID]
	for _, id := range []string{other, "c"} {
		l := lease(t, db, jobT0)
		if l.Job.ID != id {
			t.Fatalf("leased %s, want %s", l.Job.ID, id)
		}
		if err := db.Ack(ctx, l, appliance.JobResult{Name: id}, time.Hour, jobT0); err != nil {
			t.Fatal(err)
		}
	}
	if j := state(t, db, "t"+other, other); j.State != appliance.JobSucceeded || j.Crashes != 1 {
		t.Fatalf("%s: %s with %d crashes", other, j.State, j.Crashes)
	}
}

func contractJobFencingAndCheckpoint(t *testing.T, h JobQueueHarness) {
	ctx := context.Background()
	db := h.open(t)
	enq(t, db, "j1", "ta", appliance.LaneStandard)
	old := lease(t, db, jobT0)
	if _, err := db.Requeue(ctx, jobT0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	now := jobT0.Add(time.Hour)
	cur := lease(t, db, now)
	if cur.Token != old.Token+1 {
		t.Fatalf("token %d after %d", cur.Token, old.Token)
	}
	item := []appliance.JobItem{{Index: 0, Data: []byte("a")}}
	stale := []struct {
		name string
		call func() error
	}{
		{"checkpoint", func() error { return db.Checkpoint(ctx, old, appliance.JobProgress{Done: 1}, item, now) }},
		{"extend", func() error { return db.Extend(ctx, old, ttl, now) }},
		{"ack", func() error { return db.Ack(ctx, old, appliance.JobResult{}, time.Hour, now) }},
		{"fail", func() error { _, err := db.Fail(ctx, old, "x", true, 0, now); return err }},
		{"release", func() error { return db.Release(ctx, old, now) }},
		{"expired lease", func() error { return db.Extend(ctx, cur, ttl, now.Add(ttl+time.Second)) }},
	}
	for _, tc := range stale {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, appliance.ErrLeaseLost) {
				t.Fatalf("stale %s: %v, want ErrLeaseLost", tc.name, err)
			}
		})
	}
	// Idempotent checkpoints: the same index twice is one item.
	for i := range 2 {
		it := []appliance.JobItem{{Index: 0, Data: []byte(fmt.Sprint("v", i))}, {Index: 1, Data: []byte("b")}}
		if err := db.Checkpoint(ctx, cur, appliance.JobProgress{Done: 2, Cursor: []byte("2")}, it, now); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	if err := db.Items(ctx, "j1", 0, func(it appliance.JobItem) error {
		got = append(got, fmt.Sprint(it.Index, string(it.Data)))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "0v1,1b" {
		t.Fatalf("items %v", got)
	}
	if j := state(t, db, "ta", "j1"); j.Done != 2 || string(j.Cursor) != "2" || j.Interruptions != 1 {
		t.Fatalf("job %+v", j)
	}
}

func contractJobCancelAndTenantIsolation(t *testing.T, h JobQueueHarness) {
	ctx := context.Background()
	db := h.open(t)
	enq(t, db, "q", "ta", appliance.LaneStandard)
	enq(t, db, "r", "ta", appliance.LaneStandard)
	enq(t, db, "done", "ta", appliance.LaneStandard)
	cases := []struct {
		name, tenant, id string
		want             error
		wantState        appliance.JobState
	}{
		{"other tenant get-cancel", "tb", "q", appliance.ErrNotFound, ""},
		{"missing", "ta", "nope", appliance.ErrNotFound, ""},
		{"queued", "ta", "q", nil, appliance.JobCanceled},
		{"terminal", "ta", "q", appliance.ErrConflict, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == appliance.ErrNotFound {
				if _, err := db.Get(ctx, tc.tenant, tc.id); !errors.Is(err, tc.want) {
					t.Fatalf("get: %v", err)
				}
			}
			j, err := db.Cancel(ctx, tc.tenant, tc.id, jobT0)
			if !errors.Is(err, tc.want) || (err == nil && j.State != tc.wantState) {
				t.Fatalf("cancel = %+v, %v; want %v %s", j, err, tc.want, tc.wantState)
			}
		})
	}
	// The canceled queued job is not leased.
	l := lease(t, db, jobT0)
	if l.Job.ID != "r" {
		t.Fatalf("leased %s, want r", l.Job.ID)
	}
	list, err := db.JobsByTenant(ctx, "ta", 2)
	if err != nil || len(list) != 2 || list[0].ID != "done" || list[1].ID != "r" {
		t.Fatalf("list = %v, %v", list, err)
	}
	if list, _ := db.JobsByTenant(ctx, "tb", 0); len(list) != 0 {
		t.Fatalf("tb sees %d jobs", len(list))
	}
}

func contractJobFairness(t *testing.T, h JobQueueHarness) {
	ctx := context.Background()
	t.Run("tenant round robin", func(t *testing.T) {
		db := h.open(t)
		for i := range 100 {
			enq(t, db, fmt.Sprint("a", i), "ta", appliance.LaneStandard)
		}
		enq(t, db, "b0", "tb", appliance.LaneStandard)
		var got []string
		for range 4 {
			got = append(got, lease(t, db, jobT0).Job.ID)
		}
		if got[0] != "a0" || got[1] != "b0" || got[2] != "a1" || got[3] != "a2" {
			t.Fatalf("lease order %v", got)
		}
	})
	t.Run("priority at most 3 of 4 under contention", func(t *testing.T) {
		db := h.open(t)
		for i := range 40 {
			enq(t, db, fmt.Sprint("p", i), "tp", appliance.LanePriority)
			enq(t, db, fmt.Sprint("s", i), "ts", appliance.LaneStandard)
		}
		pri := 0
		var order strings.Builder
		for range 40 {
			id := lease(t, db, jobT0).Job.ID
			order.WriteByte(id[0])
			if id[0] == 'p' {
				pri++
			}
		}
		if pri != 30 || !strings.HasPrefix(order.String(), "pppspppsppps") {
			t.Fatalf("priority %d of 40, order %s", pri, order.String())
		}
	})
	t.Run("not before respected", func(t *testing.T) {
		db := h.open(t)
		enq(t, db, "x", "ta", appliance.LaneStandard)
		enq(t, db, "y", "ta", appliance.LaneStandard)
		l := lease(t, db, jobT0)
		if _, err := db.Fail(ctx, l, "boom", true, time.Minute, jobT0); err != nil {
			t.Fatal(err)
		}
		if id := lease(t, db, jobT0).Job.ID; id != "y" {
			t.Fatalf("leased %s during x's backoff", id)
		}
		if _, err := db.Lease(ctx, "w", ttl, jobT0.Add(30*time.Second)); !errors.Is(err, appliance.ErrNoJob) {
			t.Fatalf("lease: %v", err)
		}
		if id := lease(t, db, jobT0.Add(time.Minute)).Job.ID; id != "x" {
			t.Fatalf("leased %s after backoff", id)
		}
	})
}

func contractJobPersistenceAndSweep(t *testing.T, h JobQueueHarness) {
	ctx := context.Background()
	dir := t.TempDir()
	db := h.Open(t, dir, func() time.Time { return jobT0 })
	enq(t, db, "q", "ta", appliance.LaneStandard)
	enq(t, db, "r", "ta", appliance.LaneStandard)
	enq(t, db, "s", "ta", appliance.LaneStandard)
	enq(t, db, "f", "ta", appliance.LaneStandard)
	ls := []*appliance.Lease{lease(t, db, jobT0), lease(t, db, jobT0), lease(t, db, jobT0), lease(t, db, jobT0)}
	_ = db.Checkpoint(ctx, ls[2], appliance.JobProgress{Done: 1}, []appliance.JobItem{{Index: 0, Data: []byte("x")}}, jobT0)
	if err := db.Ack(ctx, ls[2], appliance.JobResult{Name: "s.zip"}, time.Hour, jobT0); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Fail(ctx, ls[3], "bad", false, 0, jobT0); err != nil {
		t.Fatal(err)
	}
	if err := db.Release(ctx, ls[0], jobT0); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = h.Open(t, dir, func() time.Time { return jobT0 })
	defer db.Close()
	if j := state(t, db, "ta", "r"); j.State != appliance.JobRunning {
		t.Fatalf("r is %s after reopen", j.State)
	}
	// A restart requeues the orphaned lease, counting a crash.
	if n, q, err := db.RequeueOrphans(ctx, jobT0.Add(time.Second)); err != nil || n != 1 || len(q) != 0 {
		t.Fatalf("requeue orphans = %d, %v, %v", n, q, err)
	}
	if j := state(t, db, "ta", "r"); j.State != appliance.JobQueued || j.Crashes != 1 || j.Interruptions != 1 {
		t.Fatalf("r after the restart: %s, %d crashes, %d interruptions", j.State, j.Crashes, j.Interruptions)
	}
	if q, r, err := db.JobCounts(ctx); err != nil || q != 2 || r != 0 {
		t.Fatalf("counts %d %d %v", q, r, err)
	}
	cases := []struct {
		name    string
		now     time.Time
		files   int
		s, f    appliance.JobState // "" = deleted
		sweepRR time.Duration
	}{
		{"nothing due", jobT0.Add(time.Minute), 0, appliance.JobSucceeded, appliance.JobFailed, 24 * time.Hour},
		{"result expires", jobT0.Add(2 * time.Hour), 1, appliance.JobExpired, appliance.JobFailed, 24 * time.Hour},
		{"records deleted", jobT0.Add(25 * time.Hour), 0, "", "", 24 * time.Hour},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files, err := db.Sweep(ctx, tc.now, tc.sweepRR)
			if err != nil || len(files) != tc.files {
				t.Fatalf("sweep = %v, %v", files, err)
			}
			for id, want := range map[string]appliance.JobState{"s": tc.s, "f": tc.f} {
				j, err := db.Get(ctx, "ta", id)
				if want == "" {
					if !errors.Is(err, appliance.ErrNotFound) {
						t.Fatalf("%s: %v, want deleted", id, err)
					}
					continue
				}
				if err != nil || j.State != want {
					t.Fatalf("%s: %v %v, want %s", id, j, err, want)
				}
			}
		})
	}
	n := 0
	_ = db.Items(ctx, "s", 0, func(appliance.JobItem) error { n++; return nil })
	if n != 0 {
		t.Fatalf("expired job keeps %d items", n)
	}
}

// TestJobQueueRandomized drives the queue with random enqueues, leases and
// verdicts and checks that no job is leased twice at once, that the
// counts match a model, and that every job ends terminal.
func contractJobQueueRandomized(t *testing.T, h JobQueueHarness) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	ctx := context.Background()
	db := h.open(t)
	now := jobT0
	live := map[string]*appliance.Lease{}
	queued, enqueued := 0, 0
	for step := range 600 {
		now = now.Add(time.Duration(rng.IntN(2000)) * time.Millisecond)
		switch op := rng.IntN(10); {
		case op < 3:
			lane := appliance.LaneStandard
			if rng.IntN(2) == 0 {
				lane = appliance.LanePriority
			}
			j := &appliance.Job{ID: fmt.Sprint("j", step), TenantID: fmt.Sprint("t", rng.IntN(5)), Kind: "k", Lane: lane, Total: 1, MaxAttempts: 2, MaxInterruptions: 2}
			if err := db.Enqueue(ctx, j); err != nil {
				t.Fatal(err)
			}
			queued++
			enqueued++
		case op < 6:
			l, err := db.Lease(ctx, "w", time.Hour, now)
			if errors.Is(err, appliance.ErrNoJob) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, dup := live[l.Job.ID]; dup {
				t.Fatalf("seed %d: %s leased twice", seed, l.Job.ID)
			}
			live[l.Job.ID] = l
			queued--
			probation := 0
			for id := range live {
				j, err := db.Get(ctx, live[id].Job.TenantID, id)
				if err != nil {
					t.Fatal(err)
				}
				if j.Crashes > 0 {
					probation++
				}
			}
			if probation > 1 {
				t.Fatalf("seed %d step %d: %d jobs on probation run at once", seed, step, probation)
			}
		case op == 6:
			// The process dies: every live lease is orphaned.
			if _, _, err := db.RequeueOrphans(ctx, now); err != nil {
				t.Fatal(err)
			}
			for id, l := range live {
				delete(live, id)
				j, err := db.Get(ctx, l.Job.TenantID, id)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case j.State == appliance.JobQueued:
					queued++
				case j.State == appliance.JobFailed && j.Crashes >= appliance.JobCrashLimit && j.Error != appliance.JobQuarantineReason:
					t.Fatalf("seed %d step %d: %s failed at its second crash with %q", seed, step, id, j.Error)
				case j.State != appliance.JobFailed:
					t.Fatalf("seed %d step %d: %s is %s after a crash", seed, step, id, j.State)
				}
			}
		default:
			for id, l := range live {
				delete(live, id)
				switch rng.IntN(3) {
				case 0:
					if err := db.Ack(ctx, l, appliance.JobResult{Name: id}, time.Hour, now); err != nil {
						t.Fatal(err)
					}
				case 1:
					s, err := db.Fail(ctx, l, "x", true, 0, now)
					if err != nil {
						t.Fatal(err)
					}
					if s == appliance.JobQueued {
						queued++
					}
				default:
					if err := db.Release(ctx, l, now); err != nil {
						t.Fatal(err)
					}
					queued++
				}
				break
			}
		}
		q, r, err := db.JobCounts(ctx)
		if err != nil || q != queued || r != len(live) {
			t.Fatalf("seed %d step %d: counts %d %d, model %d %d (%v)", seed, step, q, r, queued, len(live), err)
		}
	}
	// Drain: ack everything.
	for id, l := range live {
		if err := db.Ack(ctx, l, appliance.JobResult{Name: id}, time.Hour, now); err != nil {
			t.Fatal(err)
		}
	}
	for {
		l, err := db.Lease(ctx, "w", time.Hour, now)
		if errors.Is(err, appliance.ErrNoJob) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Ack(ctx, l, appliance.JobResult{Name: l.Job.ID}, time.Hour, now); err != nil {
			t.Fatal(err)
		}
	}
	terminal := 0
	for tn := range 5 {
		list, err := db.JobsByTenant(ctx, fmt.Sprint("t", tn), 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range list {
			if !j.State.Terminal() {
				t.Fatalf("seed %d: %s is %s after drain", seed, j.ID, j.State)
			}
			terminal++
		}
	}
	if terminal != enqueued {
		t.Fatalf("seed %d: %d terminal of %d enqueued", seed, terminal, enqueued)
	}
}

// BenchJobQueue measures the queue calls a job makes on the queues h
// opens: Enqueue (1 KiB payload, 10 tenants), and one Lease with its Ack.
// Each reports its latency percentiles (p50-us, p99-us) besides ns/op.
func BenchJobQueue(b *testing.B, h JobQueueHarness) {
	b.Run("Enqueue", func(b *testing.B) {
		db := h.open(b)
		ctx := context.Background()
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := range b.N {
			j := &appliance.Job{ID: fmt.Sprint("j", i), TenantID: fmt.Sprint("t", i%10), Kind: appliance.JobKindBatchReport,
				Lane: appliance.LaneStandard, Payload: make([]byte, 1024), Total: 100}
			t0 := time.Now()
			if err := db.Enqueue(ctx, j); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		reportLatency(b, lat)
	})
	b.Run("LeaseAck", func(b *testing.B) {
		db := h.open(b)
		ctx := context.Background()
		for i := range b.N {
			j := &appliance.Job{ID: fmt.Sprint("j", i), TenantID: fmt.Sprint("t", i%10), Kind: appliance.JobKindBatchReport,
				Lane: appliance.LaneStandard, Total: 100}
			if err := db.Enqueue(ctx, j); err != nil {
				b.Fatal(err)
			}
		}
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for range b.N {
			t0 := time.Now()
			l, err := db.Lease(ctx, "w", ttl, jobT0)
			if err != nil {
				b.Fatal(err)
			}
			if err := db.Ack(ctx, l, appliance.JobResult{Name: l.Job.ID}, time.Hour, jobT0); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		reportLatency(b, lat)
	})
}

// reportLatency reports the 50th and 99th percentiles of lat, µs.
func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	at := func(p float64) float64 { return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) }
	b.ReportMetric(at(0.50), "p50-us")
	b.ReportMetric(at(0.99), "p99-us")
}
