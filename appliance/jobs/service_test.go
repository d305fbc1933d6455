package jobs_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
	"linkplan/appliance/jobs"
	"linkplan/store"
)

func openDB(t *testing.T, dir string) *store.DB {
	t.Helper()
	db, err := store.Open(dir, store.Options{LockTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func fastOpts() jobs.Options {
	return jobs.Options{Workers: 2, LeaseTTL: 3 * time.Second, PollInterval: 10 * time.Millisecond,
		Backoff: func(int) time.Duration { return time.Millisecond }}
}

// sumHandler processes Total units in chunks of chunk, one checkpoint per
// chunk; unit i's item is i*i. gate, when set, blocks after started
// chunks until closed (or the context ends).
type sumHandler struct {
	chunk   int64
	started atomic.Int64 // chunks begun, all runs
	pauseAt int64        // block before chunk number pauseAt (0: never)
	paused  chan struct{}
}

func (h *sumHandler) Run(ctx context.Context, run appliance.JobRun) (appliance.JobResult, error) {
	j := run.Job()
	next := j.Done
	for next < j.Total {
		if n := h.started.Add(1); h.pauseAt > 0 && n == h.pauseAt {
			close(h.paused)
			<-ctx.Done()
			return appliance.JobResult{}, ctx.Err()
		}
		end := min(next+h.chunk, j.Total)
		var items []appliance.JobItem
		for i := next; i < end; i++ {
			items = append(items, appliance.JobItem{Index: i, Data: binary.BigEndian.AppendUint64(nil, uint64(i*i))})
		}
		if err := run.Checkpoint(ctx, appliance.JobProgress{Done: end, Cursor: []byte(fmt.Sprint(end))}, items); err != nil {
			return appliance.JobResult{}, err
		}
		next = end
	}
	var sum, count uint64
	if err := run.Items(ctx, 0, func(it appliance.JobItem) error {
		sum += binary.BigEndian.Uint64(it.Data)
		count++
		return nil
	}); err != nil {
		return appliance.JobResult{}, err
	}
	return run.WriteResult(".txt", func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "count=%d sum=%d", count, sum)
		return err
	})
}

type funcHandler func(ctx context.Context, run appliance.JobRun) (appliance.JobResult, error)

func (f funcHandler) Run(ctx context.Context, run appliance.JobRun) (appliance.JobResult, error) {
	return f(ctx, run)
}

func waitState(t *testing.T, s *jobs.Service, tenant, id string, want ...appliance.JobState) *appliance.Job {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		j, err := s.Get(context.Background(), tenant, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if j.State == w {
				return j
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s is %s (%s), want %v", id, j.State, j.Error, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestServiceResumeAfterDrain(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const total = 1000
	h := &sumHandler{chunk: 100, pauseAt: 4, paused: make(chan struct{})}
	db := openDB(t, dir)
	s := jobs.New(db, filepath.Join(dir, "results"), fastOpts())
	s.Register(appliance.JobKindBatchReport, h)
	j := &appliance.Job{TenantID: "ta", Kind: appliance.JobKindBatchReport, Total: total}
	if err := s.Enqueue(ctx, j); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(j.ID, "job_") || len(j.ID) != 30 || j.MaxAttempts != 3 || j.MaxInterruptions != 10 || j.Lane != appliance.LaneStandard {
		t.Fatalf("defaults: %+v", j)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	<-h.paused
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := db.Get(ctx, "ta", j.ID)
	if got.State != appliance.JobQueued || got.Done != 300 || got.Attempts != 0 || got.Interruptions != 0 {
		t.Fatalf("after drain: %s done %d attempts %d interruptions %d", got.State, got.Done, got.Attempts, got.Interruptions)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = openDB(t, dir)
	defer db.Close()
	set := metrics.NewSet()
	opts := fastOpts()
	opts.Metrics = set
	s = jobs.New(db, filepath.Join(dir, "results"), opts)
	s.Register(appliance.JobKindBatchReport, h)
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	done := waitState(t, s, "ta", j.ID, appliance.JobSucceeded)
	if h.started.Load() != 4+7 {
		t.Fatalf("%d chunks began, want 11 (3 + the paused one + 7 resumed)", h.started.Load())
	}
	j2, f, err := s.Open(ctx, "ta", j.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	body, _ := io.ReadAll(f)
	var want uint64
	for i := range uint64(total) {
		want += i * i
	}
	if string(body) != fmt.Sprintf("count=%d sum=%d", total, want) {
		t.Fatalf("result %q", body)
	}
	sum := sha256.Sum256(body)
	if j2.Result.SHA256 != hex.EncodeToString(sum[:]) || j2.Result.Bytes != int64(len(body)) || done.Done != total {
		t.Fatalf("result %+v", j2.Result)
	}
	// The counters move after the verdict's commit: drain first.
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	set.WritePrometheus(&buf)
	if !strings.Contains(buf.String(), `linkplan_jobs_finished_total{kind="batch_report",state="succeeded"} 1`) ||
		!strings.Contains(buf.String(), "linkplan_jobs_queued 0") || !strings.Contains(buf.String(), "linkplan_jobs_running 0") {
		t.Fatalf("metrics:\n%s", buf.String())
	}
	// Tenant isolation of every read.
	if _, _, err := s.Open(ctx, "tb", j.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Fatalf("other tenant open: %v", err)
	}
	if _, err := s.Get(ctx, "tb", j.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Fatalf("other tenant get: %v", err)
	}
	if _, err := s.Cancel(ctx, "tb", j.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Fatalf("other tenant cancel: %v", err)
	}
	if _, err := s.Cancel(ctx, "ta", j.ID); !errors.Is(err, appliance.ErrConflict) {
		t.Fatalf("cancel succeeded job: %v", err)
	}
}

func TestServiceVerdicts(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name      string
		h         funcHandler
		wantState appliance.JobState
		wantErr   string
		attempts  int
		panics    int // recovered by the service (counted by its Recoverer)
	}{
		{"panic is a retryable internal error", func(context.Context, appliance.JobRun) (appliance.JobResult, error) {
			panic("boom")
		}, appliance.JobFailed, "internal error (reference {id}) (gave up after 3 attempts)", 3, 3},
		{"panic on a goroutine of the handler", func(ctx context.Context, _ appliance.JobRun) (res appliance.JobResult, err error) {
			// The handler's own goroutines recover their panics: the
			// service's recover sees only its goroutine's.
			done := make(chan struct{})
			go func() {
				defer close(done)
				defer (&appliance.Recoverer{}).Recover(ctx, "test.worker", &err)
				var m map[string]int
				//lint:ignore SA5000 the panic is the point
				m["x"]++ // a nil map write panics
			}()
			<-done
			return res, err
		}, appliance.JobFailed, "internal error (reference {id}) (gave up after 3 attempts)", 3, 0},
		{"permanent error", func(context.Context, appliance.JobRun) (appliance.JobResult, error) {
			return appliance.JobResult{}, fmt.Errorf("bad payload: %w", appliance.ErrInvalid)
		}, appliance.JobFailed, "bad payload: invalid input", 1, 0},
		{"executor death twice quarantines", func(context.Context, appliance.JobRun) (appliance.JobResult, error) {
			return appliance.JobResult{}, fmt.Errorf("trace: %w", &appliance.ExecutorCrashError{Executor: "raytrace worker", Detail: "signal: killed"})
		}, appliance.JobFailed, "stopped the raytrace worker twice; quarantined", 0, 0},
		{"executor death once, then success", func() funcHandler {
			var n atomic.Int64
			return func(_ context.Context, run appliance.JobRun) (appliance.JobResult, error) {
				if n.Add(1) == 1 {
					return appliance.JobResult{}, &appliance.ExecutorCrashError{Executor: "raytrace worker", Detail: "connection reset"}
				}
				if run.Job().Crashes != 1 {
					return appliance.JobResult{}, fmt.Errorf("re-leased with %d crashes, want 1", run.Job().Crashes)
				}
				return run.WriteResult(".bin", func(w io.Writer) error { _, err := w.Write([]byte("ok")); return err })
			}
		}(), appliance.JobSucceeded, "", 0, 0},
		{"retry then success", func() funcHandler {
			var n atomic.Int64
			return func(_ context.Context, run appliance.JobRun) (appliance.JobResult, error) {
				if n.Add(1) < 3 {
					return appliance.JobResult{}, errors.New("flaky")
				}
				return run.WriteResult(".bin", func(w io.Writer) error { _, err := w.Write([]byte("ok")); return err })
			}
		}(), appliance.JobSucceeded, "", 2, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db := openDB(t, dir)
			defer db.Close()
			opts := fastOpts()
			var panics atomic.Int64
			opts.Recover = &appliance.Recoverer{Count: func(c string) {
				if c != "jobs."+string(appliance.JobKindBatchReport) {
					t.Errorf("panic counted for component %q", c)
				}
				panics.Add(1)
			}}
			s := jobs.New(db, dir, opts)
			s.Register(appliance.JobKindBatchReport, tc.h)
			if err := s.Start(ctx); err != nil {
				t.Fatal(err)
			}
			defer s.Close(ctx)
			j := &appliance.Job{TenantID: "ta", Kind: appliance.JobKindBatchReport}
			if err := s.Enqueue(ctx, j); err != nil {
				t.Fatal(err)
			}
			got := waitState(t, s, "ta", j.ID, appliance.JobSucceeded, appliance.JobFailed)
			wantErr := strings.ReplaceAll(tc.wantErr, "{id}", j.ID)
			if got.State != tc.wantState || got.Error != wantErr || got.Attempts != tc.attempts {
				t.Fatalf("%s %q attempts %d; want %s %q %d", got.State, got.Error, got.Attempts, tc.wantState, wantErr, tc.attempts)
			}
			if n := panics.Load(); n != int64(tc.panics) {
				t.Errorf("service counted %d panics, want %d", n, tc.panics)
			}
			if _, _, err := s.Open(ctx, "ta", j.ID); (err == nil) != (tc.wantState == appliance.JobSucceeded) {
				t.Fatalf("open: %v", err)
			}
		})
	}
}

func TestServiceCancelRunning(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir)
	defer db.Close()
	started := make(chan struct{})
	s := jobs.New(db, dir, fastOpts())
	s.Register(appliance.JobKindBatchReport, funcHandler(func(ctx context.Context, run appliance.JobRun) (appliance.JobResult, error) {
		close(started)
		for i := int64(0); ; i++ {
			if err := run.Checkpoint(ctx, appliance.JobProgress{Done: 0}, nil); err != nil {
				return appliance.JobResult{}, err
			}
			time.Sleep(2 * time.Millisecond)
		}
	}))
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	j := &appliance.Job{TenantID: "ta", Kind: appliance.JobKindBatchReport, Total: 1}
	if err := s.Enqueue(ctx, j); err != nil {
		t.Fatal(err)
	}
	<-started
	c, err := s.Cancel(ctx, "ta", j.ID)
	if err != nil || !c.CancelRequested {
		t.Fatalf("cancel = %+v, %v", c, err)
	}
	got := waitState(t, s, "ta", j.ID, appliance.JobCanceled)
	if got.Expires.IsZero() {
		t.Fatal("canceled job without record expiry")
	}
	if _, _, err := s.Open(ctx, "ta", j.ID); !errors.Is(err, appliance.ErrConflict) {
		t.Fatalf("open canceled: %v", err)
	}
	if err := s.Enqueue(ctx, &appliance.Job{TenantID: "ta", Kind: "nope"}); !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("unknown kind: %v", err)
	}
}

func TestServiceOrphanAndExpiry(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir)
	defer db.Close()
	// A lease left by a dead process.
	j := &appliance.Job{ID: "job_orphan", TenantID: "ta", Kind: appliance.JobKindBatchReport, Lane: appliance.LaneStandard, Total: 10, MaxAttempts: 3, MaxInterruptions: 3}
	if err := db.Enqueue(ctx, j); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Lease(ctx, "dead/0", time.Hour, time.Now()); err != nil {
		t.Fatal(err)
	}
	var nowNS atomic.Int64
	nowNS.Store(time.Now().UnixNano())
	opts := fastOpts()
	opts.Clock = func() time.Time { return time.Unix(0, nowNS.Load()) }
	s := jobs.New(db, dir, opts)
	s.Register(appliance.JobKindBatchReport, &sumHandler{chunk: 3})
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	got := waitState(t, s, "ta", j.ID, appliance.JobSucceeded)
	if got.Interruptions != 1 {
		t.Fatalf("interruptions %d, want 1", got.Interruptions)
	}
	// Past the result retention, Open says the job expired.
	nowNS.Add(int64(jobs.DefaultResultRetention + time.Minute))
	if _, _, err := s.Open(ctx, "ta", j.ID); !errors.Is(err, appliance.ErrConflict) || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("open after retention: %v", err)
	}
	// The next start's sweep removes the file and expires the job.
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	s = jobs.New(db, dir, opts)
	s.Register(appliance.JobKindBatchReport, &sumHandler{chunk: 3})
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	if got, err := s.Get(ctx, "ta", j.ID); err != nil || got.State != appliance.JobExpired || got.Result != nil {
		t.Fatalf("after sweep: %+v, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, j.ID+".txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("result file after sweep: %v", err)
	}
}

func TestNewIDUnique(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id, err := jobs.NewID()
		if err != nil || seen[id] || len(id) != 30 {
			t.Fatalf("id %q, %v", id, err)
		}
		seen[id] = true
	}
}

func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		name    string
		attempt int
		want    time.Duration
	}{{"first", 1, 5 * time.Second}, {"second", 2, 30 * time.Second}, {"capped", 9, 2 * time.Minute}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := jobs.Backoff(tc.attempt); got != tc.want {
				t.Fatalf("Backoff(%d) = %v", tc.attempt, got)
			}
		})
	}
}

// TestServiceQuarantine: a job that was running at two process deaths is
// failed at the next start without running, and another tenant's job
// runs (issue 20).
func TestServiceQuarantine(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir)
	defer db.Close()
	poison := &appliance.Job{ID: "job_poison", TenantID: "ta", Kind: appliance.JobKindBatchReport, Lane: appliance.LaneStandard, Total: 10, MaxAttempts: 3, MaxInterruptions: 10}
	if err := db.Enqueue(ctx, poison); err != nil {
		t.Fatal(err)
	}
	// It runs, the process dies; the next process leases it again and
	// dies too.
	for i := range 2 {
		if _, err := db.Lease(ctx, fmt.Sprintf("dead%d/0", i), time.Hour, time.Now()); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if _, _, err := db.RequeueOrphans(ctx, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
	}
	h := &sumHandler{chunk: 3}
	set := metrics.NewSet()
	opts := fastOpts()
	opts.Metrics = set
	s := jobs.New(db, dir, opts)
	s.Register(appliance.JobKindBatchReport, h)
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	got, err := s.Get(ctx, "ta", poison.ID)
	if err != nil || got.State != appliance.JobFailed || got.Error != appliance.JobQuarantineReason || got.Crashes != 2 {
		t.Fatalf("after the start: %+v, %v; want failed %q with 2 crashes", got, err, appliance.JobQuarantineReason)
	}
	other := &appliance.Job{TenantID: "tb", Kind: appliance.JobKindBatchReport, Total: 9}
	if err := s.Enqueue(ctx, other); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "tb", other.ID, appliance.JobSucceeded)
	if n := h.started.Load(); n != 3 {
		t.Fatalf("handler ran %d chunks, want 3 (the other job's only)", n)
	}
	var b bytes.Buffer
	set.WritePrometheus(&b)
	if want := `linkplan_jobs_finished_total{kind="batch_report",state="failed"} 1`; !strings.Contains(b.String(), want) {
		t.Errorf("metrics lack %s:\n%s", want, b.String())
	}
}
