package jobs_test

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/admission"
	"linkplan/appliance/jobs"
)

// TestIssue20_HeavyJobWaitsForAdmission: a leased heavy job waits for its
// grant with a visible queue position (Job.QueuePosition), then runs on
// the granted workers; a light job (Cost false) runs at once; a cancel
// ends the wait.
func TestIssue20_HeavyJobWaitsForAdmission(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir)
	defer db.Close()
	sched := admission.New(admission.Options{Workers: 4, MaxJobWorkers: 3, MemBytes: 100 << 20})
	hold, err := sched.Submit(appliance.HeavyWork{ID: "map_x", TenantID: "tx", Workers: 4, MemBytes: 90 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hold.Wait(ctx, nil); err != nil {
		t.Fatal(err)
	}
	opts := fastOpts()
	opts.Admission = sched
	opts.Cost = func(j *appliance.Job) (appliance.HeavyWork, bool) {
		if j.Kind != appliance.JobKindBatchReport {
			return appliance.HeavyWork{}, false
		}
		return appliance.HeavyWork{Tier: appliance.TierPro, Workers: 8, MemBytes: 50 << 20}, true
	}
	s := jobs.New(db, filepath.Join(dir, "results"), opts)
	workers := make(chan int, 2)
	h := funcHandler(func(ctx context.Context, run appliance.JobRun) (appliance.JobResult, error) {
		workers <- appliance.WorkersFrom(ctx, -1)
		return run.WriteResult(".txt", func(w io.Writer) error { _, err := io.WriteString(w, "ok"); return err })
	})
	s.Register(appliance.JobKindBatchReport, h)
	s.Register(appliance.JobKindRepeaterPlan, h)
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)

	heavy := &appliance.Job{TenantID: "ta", Kind: appliance.JobKindBatchReport, Total: 1}
	if err := s.Enqueue(ctx, heavy); err != nil {
		t.Fatal(err)
	}
	var j *appliance.Job
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if j, err = s.Get(ctx, "ta", heavy.ID); err != nil {
			t.Fatal(err)
		}
		if j.QueuePosition == 1 || time.Now().After(deadline) {
			break
		}
	}
	if j.State != appliance.JobRunning || j.QueuePosition != 1 {
		t.Fatalf("heavy job over budget: %s at queue position %d, want running at 1", j.State, j.QueuePosition)
	}
	light := &appliance.Job{TenantID: "tb", Kind: appliance.JobKindRepeaterPlan, Total: 1}
	if err := s.Enqueue(ctx, light); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "tb", light.ID, appliance.JobSucceeded)
	if w := <-workers; w != -1 {
		t.Errorf("a light job's context carries a grant of %d workers", w)
	}
	hold.Release()
	done := waitState(t, s, "ta", heavy.ID, appliance.JobSucceeded)
	if w := <-workers; w != 3 {
		t.Errorf("the heavy job ran with a grant of %d workers, want 3 (MaxJobWorkers)", w)
	}
	if done.QueuePosition != 0 {
		t.Errorf("finished job at queue position %d", done.QueuePosition)
	}

	// A cancel ends the wait: the job never runs.
	hold, err = sched.Submit(appliance.HeavyWork{ID: "map_y", TenantID: "tx", Workers: 4, MemBytes: 90 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hold.Wait(ctx, nil); err != nil {
		t.Fatal(err)
	}
	defer hold.Release()
	waiting := &appliance.Job{TenantID: "ta", Kind: appliance.JobKindBatchReport, Total: 1}
	if err := s.Enqueue(ctx, waiting); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); sched.Position(waiting.ID) != 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the job never waited for admission")
		}
	}
	if _, err := s.Cancel(ctx, "ta", waiting.ID); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, "ta", waiting.ID, appliance.JobCanceled)
	for deadline := time.Now().Add(5 * time.Second); sched.Stats().Waiting != 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond) // the wait ends right after the cancel is seen
	}
	if st := sched.Stats(); st.Waiting != 0 || len(workers) != 0 {
		t.Errorf("after the cancel: %+v, %d runs", st, len(workers))
	}
}
