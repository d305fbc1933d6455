package jsq_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/store/jsq"
)

// TestLeaseHolderDeathByRedelivery: a lease whose holder dies (its
// connection gone, its message never acknowledged) comes back to the
// living queue after the lease TTL and counts a crash in the ledger,
// without the single-node rule of RequeueOrphans; the second holder to
// die with the job quarantines it (appliance.JobCrashLimit), audited in
// the same transaction. Holders are queue instances over one ledger, each
// with its own connection to the embedded server.
func TestLeaseHolderDeathByRedelivery(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openLedger(t, dir, time.Now)
	defer db.Close()
	s, err := jsq.StartEmbedded(jsq.EmbeddedOptions{Dir: filepath.Join(dir, "nats"), Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	cfg := jsq.Config{LeaseTTL: time.Second}
	holder := func() *queue {
		nc, err := s.Connect("holder")
		if err != nil {
			t.Fatal(err)
		}
		return newQueue(t, db, nc, cfg, nil)
	}
	j := &appliance.Job{ID: "j1", TenantID: "ta", Kind: appliance.JobKindBatchReport, Lane: appliance.LaneStandard,
		Total: 1, MaxAttempts: 3, MaxInterruptions: 10}
	if err := db.Enqueue(ctx, j); err != nil {
		t.Fatal(err)
	}
	for death := 1; death <= appliance.JobCrashLimit; death++ {
		h := holder()
		l, err := h.Lease(ctx, "w", time.Hour, time.Now())
		if err != nil {
			t.Fatalf("death %d: lease: %v", death, err)
		}
		if h.Held() != 1 || l.Job.Crashes != death-1 {
			t.Fatalf("death %d: held %d, crashes %d", death, h.Held(), l.Job.Crashes)
		}
		h.nc.Close() // the holder dies: no renewal, no verdict
		survivor := holder()
		deadline := time.Now().Add(10 * time.Second)
		for survivor.Orphans() == 0 && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
			if _, err := survivor.Requeue(ctx, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		if survivor.Orphans() != 1 {
			t.Fatalf("death %d: the survivor found %d orphans", death, survivor.Orphans())
		}
		got, err := db.Get(ctx, "ta", "j1")
		if err != nil {
			t.Fatal(err)
		}
		want := appliance.JobQueued
		if death == appliance.JobCrashLimit {
			want = appliance.JobFailed
		}
		if got.State != want || got.Crashes != death {
			t.Fatalf("death %d: %s with %d crashes, want %s", death, got.State, got.Crashes, want)
		}
		survivor.nc.Close()
	}
	got, _ := db.Get(ctx, "ta", "j1")
	if got.Error != appliance.JobQuarantineReason {
		t.Fatalf("error %q", got.Error)
	}
	es, err := db.Audit("ta", 0)
	if err != nil || len(es) == 0 || es[0].Action != appliance.ActionJobQuarantine {
		t.Fatalf("audit %+v %v", es, err)
	}
}
