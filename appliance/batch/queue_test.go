package batch_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/batch"
	"linkplan/store"
)

// storeRun is a JobRun over the bbolt queue of package store: checkpoints,
// items and fencing are the real ones (the job service of appliance/jobs
// adds leasing loops, extension and the result directory).
type storeRun struct {
	db     *store.DB
	lease  *appliance.Lease
	now    time.Time
	result bytes.Buffer
}

func (r *storeRun) Job() *appliance.Job { return r.lease.Job }

func (r *storeRun) Checkpoint(ctx context.Context, p appliance.JobProgress, items []appliance.JobItem) error {
	return r.db.Checkpoint(ctx, r.lease, p, items, r.now)
}

func (r *storeRun) Items(ctx context.Context, from int64, fn func(appliance.JobItem) error) error {
	return r.db.Items(ctx, r.lease.Job.ID, from, fn)
}

func (r *storeRun) WriteResult(ext string, write func(w io.Writer) error) (appliance.JobResult, error) {
	r.result.Reset()
	if err := write(&r.result); err != nil {
		return appliance.JobResult{}, err
	}
	sum := sha256.Sum256(r.result.Bytes())
	return appliance.JobResult{Name: r.lease.Job.ID + ext, Bytes: int64(r.result.Len()), SHA256: hex.EncodeToString(sum[:])}, nil
}

// storeJob opens a store, submits n rows through the service and returns
// both.
func storeJob(t *testing.T, n int) (*store.DB, *batch.Service, *appliance.Job, time.Time) {
	t.Helper()
	now := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC) // 20:00 in São Paulo
	db, err := store.Open(t.TempDir(), store.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	s := batch.New(batch.Deps{Analyzer: &fakeAnalyzer{}, Queue: db, Quota: db, Workers: 3, Clock: func() time.Time { return now },
		NewID: func() (string, error) { return "job-store", nil }, Terrain: "test terrain"})
	_, job, err := s.Submit(context.Background(), proKey(), rowsN(n), batch.DefaultOptions())
	if err != nil || job == nil {
		t.Fatalf("submit: %v", err)
	}
	return db, s, job, now
}

func TestHandlerOnStoreQueue(t *testing.T) {
	const n = 300
	// Uninterrupted.
	db1, s1, _, now := storeJob(t, n)
	l, err := db1.Lease(context.Background(), "w1", time.Minute, now)
	if err != nil {
		t.Fatal(err)
	}
	ref := &storeRun{db: db1, lease: l, now: now}
	if _, err := s1.Handler().Run(context.Background(), ref); err != nil {
		t.Fatal(err)
	}

	// Interrupted after the first checkpoint, released (drain), leased
	// again and resumed from the stored cursor.
	db2, s2, _, _ := storeJob(t, n)
	l, err = db2.Lease(context.Background(), "w1", time.Minute, now)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	run := &storeRun{db: db2, lease: l, now: now}
	cr := &cancelingRun{storeRun: run, after: 1, cancel: cancel}
	if _, err := s2.Handler().Run(ctx, cr); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted: %v", err)
	}
	if err := db2.Release(context.Background(), l, now); err != nil {
		t.Fatal(err)
	}
	l, err = db2.Lease(context.Background(), "w2", time.Minute, now)
	if err != nil || l.Job.Done != batch.ChunkRows {
		t.Fatalf("re-lease: %v (done %v)", err, l)
	}
	run = &storeRun{db: db2, lease: l, now: now}
	res, err := s2.Handler().Run(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(run.result.Bytes(), ref.result.Bytes()) {
		t.Fatal("the resumed bundle differs from the uninterrupted one")
	}
	if err := db2.Ack(context.Background(), l, res, time.Hour, now); err != nil {
		t.Fatal(err)
	}
	count := 0
	if err := db2.Items(context.Background(), l.Job.ID, 0, func(appliance.JobItem) error { count++; return nil }); err != nil || count != n {
		t.Fatalf("%d items, %v", count, err)
	}
	// The PDF quota counted this job once, in November (São Paulo).
	var m batch.Manifest
	if err := json.Unmarshal(unzip(t, run.result.Bytes())[batch.FileManifest], &m); err != nil {
		t.Fatal(err)
	}
	used, err := db2.PDFUsage("tn1", now)
	if err != nil || used != m.PDFsIncluded || used == 0 || m.PDFsLeftOut != 0 {
		t.Fatalf("usage %d, %v; manifest %d included, %d left out", used, err, m.PDFsIncluded, m.PDFsLeftOut)
	}

	// A cancel of the running job stops the handler at its next
	// checkpoint.
	db3, s3, job3, _ := storeJob(t, 300)
	l, err = db3.Lease(context.Background(), "w1", time.Minute, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db3.Cancel(context.Background(), "tn1", job3.ID, now); err != nil {
		t.Fatal(err)
	}
	if _, err := s3.Handler().Run(context.Background(), &storeRun{db: db3, lease: l, now: now}); !errors.Is(err, appliance.ErrJobCanceled) {
		t.Fatalf("canceled job: %v", err)
	}
}

// cancelingRun cancels the run's context after its after-th checkpoint.
type cancelingRun struct {
	*storeRun
	after, n int
	cancel   context.CancelFunc
}

func (r *cancelingRun) Checkpoint(ctx context.Context, p appliance.JobProgress, items []appliance.JobItem) error {
	err := r.storeRun.Checkpoint(ctx, p, items)
	if r.n++; r.n == r.after {
		r.cancel()
	}
	return err
}
