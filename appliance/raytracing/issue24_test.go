package raytracing_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/admission"
	"linkplan/appliance/buildings"
	"linkplan/appliance/coverage"
	"linkplan/appliance/jobs"
	"linkplan/appliance/raytracing"
	"linkplan/engines/raytrace"
	"linkplan/engines/raytrace/worker"
	"linkplan/store"
)

// TestIssue24_SceneBuildAdmitted: a route that misses the scene cache
// builds the scene only once the scheduler admits the build: with the
// tenant's share of the queue full, SubmitLinks answers 503 +
// Retry-After (a *RetryAfterError); a job, already admitted by the job
// queue, rebuilds a lost scene under its own grant (no second admission
// that could wait on itself).
func TestIssue24_SceneBuildAdmitted(t *testing.T) {
	f := newFixture(t)
	sched := admission.New(admission.Options{Workers: 1, MaxQueuePerTenant: 1})
	f.svc.Admitter = sched
	ctx := context.Background()
	rx := at(5, -5)
	req := raytracing.LinkRequest{Route: raytracing.RouteEnginesPredict, LayerID: f.layer, FreqMHz: 3500, Options: raytracing.DefaultOptions(),
		Links: []raytracing.Link{{Tx: raytracing.Site{Lat: at(-150, 140).Lat, Lon: at(-150, 140).Lon, HeightM: 30}, Rx: raytracing.Site{Lat: rx.Lat, Lon: rx.Lon, HeightM: 1.5}}}}
	fill := func() (release func()) {
		run, err := sched.Submit(appliance.HeavyWork{TenantID: f.ent.TenantID, Tier: f.ent.Tier, Kind: "heatmap", Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := run.Wait(ctx, nil); err != nil {
			t.Fatal(err)
		}
		waiting, err := sched.Submit(appliance.HeavyWork{TenantID: f.ent.TenantID, Tier: f.ent.Tier, Kind: "heatmap", Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		return func() { waiting.Release(); run.Release() }
	}
	l, _, err := f.db.BuildingLayer(f.ent.TenantID, f.layer, false)
	if err != nil {
		t.Fatal(err)
	}
	f.index.Forget(l)
	release := fill()
	_, err = f.svc.SubmitLinks(ctx, f.ent, req)
	var ra *appliance.RetryAfterError
	if !errors.As(err, &ra) || !errors.Is(err, appliance.ErrUnavailable) {
		t.Fatalf("SubmitLinks with the scene lost and the queue full: %v, want a RetryAfterError", err)
	}
	if f.index.Cache.Len() != 0 {
		t.Fatal("a refused build entered the cache")
	}
	release()
	j, err := f.svc.SubmitLinks(ctx, f.ent, req) // admitted: builds the scene
	if err != nil {
		t.Fatal(err)
	}
	if f.index.Cache.Len() != 1 || sched.Stats().Running != 0 {
		t.Fatalf("after the admitted build: %d scenes cached, %+v", f.index.Cache.Len(), sched.Stats())
	}
	// The job runs with the scene lost again and the queue full.
	f.index.Forget(l)
	release = fill()
	defer release()
	if done := f.wait(t, j.ID); done.State != appliance.JobSucceeded {
		t.Fatalf("job %s: %s", done.State, done.Error)
	}
}

// TestIssue24_SceneBuildNoDeadlock: a route admits a scene build before
// the build starts, never inside it. With one worker held by a job (which
// rebuilds a lost scene under its own grant, as layerOf does for jobs)
// and a route waiting in the queue for the same lost scene, the job's
// build must not wait for the route's entry: before, the route's entry
// waited for the job's grant and the job for the entry, for ever.
func TestIssue24_SceneBuildNoDeadlock(t *testing.T) {
	f := newFixture(t)
	sched := admission.New(admission.Options{Workers: 1, MaxQueuePerTenant: 2})
	f.svc.Admitter = sched
	ctx := context.Background()
	l, _, err := f.db.BuildingLayer(f.ent.TenantID, f.layer, false)
	if err != nil {
		t.Fatal(err)
	}
	f.index.Forget(l)
	job, err := sched.Submit(appliance.HeavyWork{TenantID: f.ent.TenantID, Tier: f.ent.Tier, Kind: "link_job", Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := job.Wait(ctx, nil); err != nil {
		t.Fatal(err)
	}
	rx := at(5, -5)
	req := raytracing.LinkRequest{Route: raytracing.RouteEnginesPredict, LayerID: f.layer, FreqMHz: 3500, Options: raytracing.DefaultOptions(),
		Links: []raytracing.Link{{Tx: raytracing.Site{Lat: at(-150, 140).Lat, Lon: at(-150, 140).Lon, HeightM: 30}, Rx: raytracing.Site{Lat: rx.Lat, Lon: rx.Lon, HeightM: 1.5}}}}
	routeDone := make(chan error, 1)
	go func() {
		_, err := f.svc.SubmitLinks(ctx, f.ent, req)
		routeDone <- err
	}()
	for deadline := time.Now().Add(30 * time.Second); sched.Stats().Waiting == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the route never queued for its scene build")
		}
		time.Sleep(5 * time.Millisecond)
	}
	built := make(chan error, 1)
	go func() { // the job's rebuild, under its grant
		_, _, err := f.index.SceneOf(l, func() ([]appliance.Building, error) {
			_, bs, err := f.db.BuildingLayer(f.ent.TenantID, f.layer, true)
			return bs, err
		})
		built <- err
	}()
	select {
	case err := <-built:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the job's scene build waited for the route's, which waits for the job's grant: deadlock")
	}
	job.Release()
	select {
	case err := <-routeDone:
		if err != nil {
			t.Fatalf("the route after the job: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the route never finished")
	}
}

// TestIssue24_SummaryWarnings: the summary of a link job (GET /jobs/{id})
// carries the caveats of its path loss and margin: the result's, the best
// link's (its tower's) and its engine's, each warning once.
func TestIssue24_SummaryWarnings(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rx := at(5, -5)
	assumed := appliance.Warning{Code: "eirp_assumed", Message: "the tower has no EIRP; 58 dBm assumed"}
	renamed := appliance.Warning{Code: appliance.WarnDeprecatedField, Message: "freq_hz was read as frequency_mhz"}
	links := []raytracing.Link{{TowerID: "t1", Tx: raytracing.Site{Lat: at(-150, 140).Lat, Lon: at(-150, 140).Lon, HeightM: 30}, Rx: raytracing.Site{Lat: rx.Lat, Lon: rx.Lon, HeightM: 1.5},
		Budget: true, EIRPDBm: 58, RxThresholdDBm: -95, Warnings: []appliance.Warning{assumed, renamed}}}
	j, err := f.svc.SubmitLinks(ctx, f.ent, raytracing.LinkRequest{Route: raytracing.RouteAnalyze, LayerID: f.layer, FreqMHz: 3500,
		Options: raytracing.DefaultOptions(), Links: links, Warnings: []appliance.Warning{renamed}})
	if err != nil {
		t.Fatal(err)
	}
	done := f.wait(t, j.ID)
	if done.State != appliance.JobSucceeded || done.Result == nil {
		t.Fatalf("job %s: %s", done.State, done.Error)
	}
	var sum raytracing.LinkJobSummary
	if err := json.Unmarshal(done.Result.Summary, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.PathLossDB == nil || len(sum.Warnings) < 2 || sum.Warnings[0] != renamed || sum.Warnings[1] != assumed {
		t.Fatalf("summary %s: want the result's, then the tower's warnings", done.Result.Summary)
	}
	seen := map[string]bool{}
	for _, w := range sum.Warnings {
		if seen[w.Code] {
			t.Fatalf("code %s twice in %s", w.Code, done.Result.Summary)
		}
		seen[w.Code] = true
	}
	// The engine's warnings of the best link are there too (the block has
	// buildings of the layer's default height on the path).
	_, file, err := f.jobs.Open(ctx, f.ent.TenantID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var out raytracing.LinkJobResult
	if err := json.NewDecoder(file).Decode(&out); err != nil {
		t.Fatal(err)
	}
	for _, w := range out.Links[0].EngineWarnings {
		if !seen[w.Code] {
			t.Errorf("the summary lacks the engine's %s", w.Code)
		}
	}
	t.Logf("summary: %s", done.Result.Summary)
}

// TestIssue24_SummaryWarningsUnreachable: when no link reaches the
// receiver (here inside a building) the summary still says why: the
// links' own warnings (the tower's, the engine's) follow the result's,
// where the best link's would stand. They were dropped with the best link.
func TestIssue24_SummaryWarningsUnreachable(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rx := at(-35, 20) // inside a building of the block
	synth := appliance.Warning{Code: appliance.WarnSyntheticTower, Message: "the tower is synthetic"}
	links := []raytracing.Link{{TowerID: "t1", Tx: raytracing.Site{Lat: at(-150, 140).Lat, Lon: at(-150, 140).Lon, HeightM: 30}, Rx: raytracing.Site{Lat: rx.Lat, Lon: rx.Lon, HeightM: 1.5},
		Budget: true, EIRPDBm: 58, RxThresholdDBm: -95, Warnings: []appliance.Warning{synth}, Standing: "synthetic"}}
	j, err := f.svc.SubmitLinks(ctx, f.ent, raytracing.LinkRequest{Route: raytracing.RouteAnalyze, LayerID: f.layer, FreqMHz: 3500,
		Options: raytracing.DefaultOptions(), Links: links})
	if err != nil {
		t.Fatal(err)
	}
	done := f.wait(t, j.ID)
	if done.State != appliance.JobSucceeded || done.Result == nil {
		t.Fatalf("job %s: %s", done.State, done.Error)
	}
	var out raytracing.LinkJobResult
	readResult(t, f, j.ID, &out)
	if out.Best != nil || out.Links[0].Reachable {
		t.Fatalf("best %v, reachable %v: the receiver inside a building is reached", out.Best, out.Links[0].Reachable)
	}
	var sum raytracing.LinkJobSummary
	if err := json.Unmarshal(done.Result.Summary, &sum); err != nil {
		t.Fatal(err)
	}
	want := append(append([]appliance.Warning{}, out.Links[0].Warnings...), out.Links[0].EngineWarnings...)
	if !hasCode(want, appliance.WarnSyntheticTower) || !hasCode(want, "raytrace_rx_inside_building") {
		t.Fatalf("the link's warnings %v lack the tower's or the receiver's caveat", want)
	}
	for _, w := range want {
		if !hasCode(sum.Warnings, w.Code) {
			t.Errorf("the summary %s lacks the link's %s", done.Result.Summary, w.Code)
		}
	}
	t.Logf("summary: %s", done.Result.Summary)
}

// TestIssue24_FailedJobReason: a job whose layer was deleted before it ran
// fails with a sentence for the user, without the sentinel's text
// ("…: invalid input") at its end, and is not retried.
func TestIssue24_FailedJobReason(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	index := &raytrace.LayerIndex{Cache: raytrace.NewSizedCache(1 << 30)}
	ent := &appliance.APIKey{ID: "k_ent", TenantID: "t_ent", Tier: appliance.TierEnterprise}
	bl := &buildings.Service{Store: db, Index: index}
	l, _, err := bl.Upload(context.Background(), ent, buildings.UploadRequest{Name: "block"}, blockGeoJSON(lat0, lon0, 3), appliance.AuditEntry{})
	if err != nil {
		t.Fatal(err)
	}
	js := jobs.New(db, dir, jobs.Options{Workers: 1, PollInterval: 10 * time.Millisecond})
	maps := coverage.NewMaps(nil, coverage.MapsOptions{})
	t.Cleanup(maps.Close)
	svc := &raytracing.Service{Layers: db, Scenes: index, Executor: worker.LayerExecutor{X: worker.NewInProcess(2), Index: index}, Queue: js, Maps: &coverage.Starter{Maps: maps, Towers: noTowers}, NewID: jobs.NewID}
	js.Register(appliance.JobKindRaytraceLink, svc.Handler())
	rx := at(5, -5)
	j, err := svc.SubmitLinks(context.Background(), ent, raytracing.LinkRequest{Route: raytracing.RouteEnginesPredict, LayerID: l.ID, FreqMHz: 3500, Options: raytracing.DefaultOptions(),
		Links: []raytracing.Link{{Tx: raytracing.Site{Lat: at(-50, 40).Lat, Lon: at(-50, 40).Lon, HeightM: 30}, Rx: raytracing.Site{Lat: rx.Lat, Lon: rx.Lon, HeightM: 1.5}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := bl.Delete(ent, l.ID, appliance.AuditEntry{}); err != nil {
		t.Fatal(err)
	}
	if err := js.Start(context.Background()); err != nil { // the job runs only now
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = js.Close(context.Background()) })
	f := &fixture{jobs: js, ent: ent}
	done := f.wait(t, j.ID)
	want := "the building layer " + l.ID + " was deleted after the job was submitted"
	if done.State != appliance.JobFailed || done.Error != want || done.Attempts != 1 {
		t.Fatalf("job %s after %d attempts: %q, want failed once with %q", done.State, done.Attempts, done.Error, want)
	}
	if strings.Contains(done.Error, appliance.ErrInvalid.Error()) {
		t.Fatalf("reason %q carries the sentinel", done.Error)
	}
}
