package raytracing_test

import (
	"context"
	"errors"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/admission"
	"linkplan/appliance/raytracing"
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
