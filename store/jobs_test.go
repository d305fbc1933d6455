package store_test

import (
	"context"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/store"
	"linkplan/store/storetest"
)

var jobT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const ttl = 30 * time.Second

func openJobs(t testing.TB) (*store.DB, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{LockTimeout: 200 * time.Millisecond, Now: func() time.Time { return jobT0 }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db, dir
}

func lease(t testing.TB, db *store.DB, now time.Time) *appliance.Lease {
	t.Helper()
	l, err := db.Lease(context.Background(), "w1", ttl, now)
	if err != nil {
		t.Fatalf("lease: %v", err)
	}
	return l
}

func state(t testing.TB, db *store.DB, tenant, id string) *appliance.Job {
	t.Helper()
	j, err := db.Get(context.Background(), tenant, id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return j
}

// TestJobQueueContract runs the contract of appliance.JobQueue
// (store/storetest) on the bbolt queue.
func TestJobQueueContract(t *testing.T) { storetest.RunJobQueue(t, bboltQueue) }

// BenchmarkJobQueue measures Enqueue and Lease+Ack of the bbolt queue.
func BenchmarkJobQueue(b *testing.B) { storetest.BenchJobQueue(b, bboltQueue) }

// bboltQueue opens the bbolt queue of dir for the contract.
var bboltQueue = storetest.JobQueueHarness{Open: func(t testing.TB, dir string, now func() time.Time) storetest.JobQueue {
	t.Helper()
	db, err := store.Open(dir, store.Options{LockTimeout: 200 * time.Millisecond, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return db
}}
