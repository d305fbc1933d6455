package training_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/training"
	"linkplan/engines/ml"
)

// plainRows are n consented rows that are only counted, never trained on.
func plainRows(prefix string, n int) ([]appliance.Observation, []string) {
	rows := make([]appliance.Observation, n)
	keys := make([]string, n)
	for i := range rows {
		rows[i] = appliance.Observation{ID: fmt.Sprintf("%s_%06d", prefix, i), TenantID: "t_a", Source: "api", Consent: appliance.ConsentConsented}
		keys[i] = rows[i].ID
	}
	return rows, keys
}

// TestCountTrigger: 999 new consented rows queue nothing, the 1,000th
// queues one retrain, and further checks, the monitor and more rows while
// it is queued queue no second one.
func TestCountTrigger(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	s := e.service(training.Options{})
	rows, keys := plainRows("a", 999)
	if _, err := e.db.PutObservations("t_a", appliance.KindLinkObservation, rows, keys, nil); err != nil {
		t.Fatal(err)
	}
	if id, err := s.Check(ctx); err != nil || id != "" {
		t.Fatalf("999 new rows: queued %q, %v; want nothing", id, err)
	}
	rows, keys = plainRows("b", 1)
	if _, err := e.db.PutObservations("t_a", appliance.KindLinkObservation, rows, keys, nil); err != nil {
		t.Fatal(err)
	}
	id, err := s.Check(ctx)
	if err != nil || id != training.RetrainJobID(0) {
		t.Fatalf("1,000 new rows: queued %q, %v", id, err)
	}
	j, err := e.queue.Get(ctx, appliance.SystemTenantID, id)
	if err != nil || j.State != appliance.JobQueued || j.Kind != appliance.JobKindModelRetrain {
		t.Fatalf("job %+v, %v", j, err)
	}
	// One in flight: the monitor, another check and a manual trigger all
	// answer the same job.
	if got, err := s.MonitorFired(ctx, "effective band widened"); err != nil || got != id {
		t.Fatalf("monitor: %q, %v; want %q", got, err, id)
	}
	rows, keys = plainRows("c", 1500)
	if _, err := e.db.PutObservations("t_a", appliance.KindLinkObservation, rows, keys, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Check(ctx); err != nil || got != id {
		t.Fatalf("check while queued: %q, %v; want %q", got, err, id)
	}
	if got, queued, err := s.Trigger(ctx, "cli", ""); err != nil || got != id || queued {
		t.Fatalf("trigger while queued: %q %v %v", got, queued, err)
	}
	jobsOf := 0
	all, err := e.db.JobsByTenant(ctx, appliance.SystemTenantID, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range all {
		if j.Kind == appliance.JobKindModelRetrain {
			jobsOf++
		}
	}
	if jobsOf != 1 {
		t.Fatalf("%d retrain jobs queued, want 1", jobsOf)
	}
}

// TestMonitorTriggerAfterFinish: once the job in flight is finished, the
// next trigger queues the next id.
func TestMonitorTriggerAfterFinish(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	e.put(t, "t_a", synth(t, 300)[:40], appliance.ConsentRefused, "api") // the retrain fails for good: a consent state
	s := e.service(training.Options{})
	id, err := s.MonitorFired(ctx, "drift")
	if err != nil || id != training.RetrainJobID(0) {
		t.Fatalf("first: %q %v", id, err)
	}
	j := runQueue(t, e, id)
	if j.State != appliance.JobFailed || !strings.Contains(j.Error, "consent state") || j.Attempts != 1 {
		t.Fatalf("job %s %q after %d attempts; want failed once with the consent message", j.State, j.Error, j.Attempts)
	}
	next, err := s.MonitorFired(ctx, "drift again")
	if err != nil || next != training.RetrainJobID(1) {
		t.Fatalf("after a finished job: %q, %v; want the next id", next, err)
	}
}

// runQueue starts the queue's workers until job id is terminal.
func runQueue(t *testing.T, e *env, id string) *appliance.Job {
	t.Helper()
	ctx := context.Background()
	if err := e.queue.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.queue.Close(ctx)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		j, err := e.queue.Get(ctx, appliance.SystemTenantID, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.State.Terminal() {
			return j
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("job %s did not finish", id)
	return nil
}

// TestRetrainJobAndRerun: the queued job trains, promotes and succeeds; a
// second run of the same job id (a re-leased job) records and audits
// nothing again; a run that died between the decision and the swap
// finishes the swap.
func TestRetrainJobAndRerun(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	e.put(t, "t_a", synth(t, 300), appliance.ConsentConsented, "synthetic")
	s := e.service(training.Options{})
	id, _, err := s.Trigger(ctx, "cli", "")
	if err != nil {
		t.Fatal(err)
	}
	j := runQueue(t, e, id)
	if j.State != appliance.JobSucceeded || j.Result == nil || !strings.Contains(string(j.Result.Summary), `"promoted":true`) {
		t.Fatalf("job %+v", j)
	}
	dir := training.ModelDir{Root: e.models}
	if dir.CurrentJob() != id || e.reloads != 1 {
		t.Fatalf("current %q, reloads %d", dir.CurrentJob(), e.reloads)
	}
	again, err := s.Retrain(ctx, id, "cli")
	if err != nil || !again.Repeated || !again.Decision.Promoted {
		t.Fatalf("re-run: %+v, %v", again, err)
	}
	// Simulate a crash after the decision, before the swap: the served
	// directory goes back to staging.
	if err := os.Rename(dir.Current(), dir.Staging(id)); err != nil {
		t.Fatal(err)
	}
	again, err = s.Retrain(ctx, id, "cli")
	if err != nil || !again.Repeated || dir.CurrentJob() != id {
		t.Fatalf("re-run after a crash before the swap: %+v, %v, current %q", again, err, dir.CurrentJob())
	}
	ds, err := e.db.ModelDecisions()
	if err != nil || len(ds) != 1 {
		t.Fatalf("decisions %d, %v; want 1", len(ds), err)
	}
	es, _ := e.db.Audit(appliance.SystemTenantID, 0)
	n := 0
	for _, x := range es {
		if x.Action == appliance.ActionModelPromoted || x.Action == appliance.ActionModelKept {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d decision audit entries, want 1", n)
	}
}

// TestSwapKeepsThree: five swaps leave current and the three newest
// previous directories; a re-swap of the current job changes nothing.
func TestSwapKeepsThree(t *testing.T) {
	root := t.TempDir()
	now := time.Unix(1_800_000_000, 0)
	d := training.ModelDir{Root: root, Now: func() time.Time { return now }}
	art := &ml.Artifact{Kind: ml.KindRidge, ModelVersion: "ridge-v1", Schema: ml.FeatureSchema{Version: 1, Names: []string{"a"}},
		Ridge: &ml.Ridge{Lambda: 1, Mean: []float64{0}, Scale: []float64{1}, Coef: []float64{2}}}
	for i := range 5 {
		job := fmt.Sprintf("job_%d", i)
		if _, err := d.WriteStaging(job, map[string]*ml.Artifact{training.FileRidge: art}); err != nil {
			t.Fatal(err)
		}
		if err := d.Swap(job); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			now = now.Add(time.Second) // two swaps in one second get a suffix
		}
		if err := d.Swap(job); err != nil || d.CurrentJob() != job {
			t.Fatalf("re-swap of %s: %v, current %q", job, err, d.CurrentJob())
		}
	}
	prev, err := d.Previous()
	if err != nil {
		t.Fatal(err)
	}
	if len(prev) != training.KeepPrevious {
		t.Fatalf("previous %v; want %d", prev, training.KeepPrevious)
	}
	var jobs []string
	for _, p := range prev {
		b, err := os.ReadFile(filepath.Join(root, p, training.FileJob))
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, strings.TrimSpace(string(b)))
	}
	if want := []string{"job_1", "job_2", "job_3"}; !slices.Equal(jobs, want) {
		t.Fatalf("previous hold %v, want %v (oldest first)", jobs, want)
	}
	if err := d.Swap("job_missing"); err == nil {
		t.Fatal("swap without a staging directory succeeded")
	}
	served, err := training.Served(os.DirFS(d.Current()))
	if err != nil || len(served) != 1 || served[training.FileRidge] == nil {
		t.Fatalf("served %v, %v", served, err)
	}
}
