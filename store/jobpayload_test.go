package store_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
	"linkplan/store"
)

// A job's payload is kept out of its record: status reads and checkpoints
// do not carry it, the lease does, and a terminal job drops it.
func TestJobPayloadStoredApart(t *testing.T) {
	ctx := context.Background()
	db, dir := openJobs(t)
	payload := bytes.Repeat([]byte("row,"), 4096)
	j := &appliance.Job{ID: "p1", TenantID: "t", Kind: appliance.JobKindBatchReport, Lane: appliance.LaneStandard,
		Payload: payload, Total: 10, MaxAttempts: 2, MaxInterruptions: 2}
	if err := db.Enqueue(ctx, j); err != nil {
		t.Fatal(err)
	}
	if got := state(t, db, "t", "p1"); got.Payload != nil {
		t.Errorf("Get carries the payload (%d bytes); status reads must not", len(got.Payload))
	}
	l := lease(t, db, jobT0)
	if !bytes.Equal(l.Job.Payload, payload) {
		t.Fatalf("leased payload %d bytes, want %d", len(l.Job.Payload), len(payload))
	}
	if err := db.Checkpoint(ctx, l, appliance.JobProgress{Done: 5}, nil, jobT0); err != nil {
		t.Fatal(err)
	}
	if err := db.Release(ctx, l, jobT0); err != nil {
		t.Fatal(err)
	}
	l = lease(t, db, jobT0.Add(time.Second))
	if !bytes.Equal(l.Job.Payload, payload) {
		t.Fatalf("payload after checkpoint and release: %d bytes, want %d", len(l.Job.Payload), len(payload))
	}
	if err := db.Ack(ctx, l, appliance.JobResult{Name: "p1.zip"}, time.Hour, jobT0.Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	raw := rawBucket(t, dir, "job_payloads", "p1")
	if raw != nil {
		t.Errorf("a succeeded job kept its payload (%d bytes)", len(raw))
	}
	if rec := rawBucket(t, dir, "jobs", "p1"); bytes.Contains(rec, []byte(`"payload"`)) {
		t.Errorf("job record holds the payload: %.200s", rec)
	}
}

// Schema version 6 moves the payloads of version 5 records into
// job_payloads, dropping those of terminal jobs.
func TestMigrateJobPayloads(t *testing.T) {
	ctx := context.Background()
	db, dir := openJobs(t)
	for _, id := range []string{"live", "gone"} {
		j := &appliance.Job{ID: id, TenantID: "t", Kind: appliance.JobKindBatchReport, Lane: appliance.LaneStandard,
			Payload: []byte(`{"rows":["` + id + `"]}`), Total: 1, MaxAttempts: 2, MaxInterruptions: 2}
		if err := db.Enqueue(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Cancel(ctx, "t", "gone", jobT0); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Rewrite the file as version 5 wrote it: payload inside the record,
	// no job_payloads bucket.
	b, err := bolt.Open(filepath.Join(dir, store.FileName), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = b.Update(func(tx *bolt.Tx) error {
		jobs := tx.Bucket([]byte("jobs"))
		for _, id := range []string{"live", "gone"} {
			var rec map[string]any
			if err := json.Unmarshal(jobs.Get([]byte(id)), &rec); err != nil {
				return err
			}
			rec["payload"] = []byte(`{"rows":["` + id + `"]}`)
			raw, _ := json.Marshal(rec)
			if err := jobs.Put([]byte(id), raw); err != nil {
				return err
			}
		}
		if err := tx.DeleteBucket([]byte("job_payloads")); err != nil {
			return err
		}
		var v [8]byte
		binary.BigEndian.PutUint64(v[:], 5)
		return tx.Bucket([]byte("meta")).Put([]byte("schema_version"), v[:])
	})
	if err := errors.Join(err, b.Close()); err != nil {
		t.Fatal(err)
	}
	db2, err := store.Open(dir, store.Options{LockTimeout: 200 * time.Millisecond, Now: func() time.Time { return jobT0 }})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := db2.Version(); err != nil || v != store.SchemaVersion() {
		t.Fatalf("version %d, %v", v, err)
	}
	l := lease(t, db2, jobT0)
	if l.Job.ID != "live" || string(l.Job.Payload) != `{"rows":["live"]}` {
		t.Fatalf("leased %s with payload %q", l.Job.ID, l.Job.Payload)
	}
	if err := db2.Close(); err != nil {
		t.Fatal(err)
	}
	if raw := rawBucket(t, dir, "job_payloads", "gone"); raw != nil {
		t.Errorf("canceled job's payload migrated: %q", raw)
	}
	for _, id := range []string{"live", "gone"} {
		if rec := rawBucket(t, dir, "jobs", id); bytes.Contains(rec, []byte(`"payload"`)) {
			t.Errorf("record %s still holds the payload", id)
		}
	}
}

// rawBucket reads key from bucket of the closed store in dir (nil when
// absent).
func rawBucket(t *testing.T, dir, bucket, key string) []byte {
	t.Helper()
	b, err := bolt.Open(filepath.Join(dir, store.FileName), 0o600, &bolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var out []byte
	err = b.View(func(tx *bolt.Tx) error {
		if bk := tx.Bucket([]byte(bucket)); bk != nil {
			if v := bk.Get([]byte(key)); v != nil {
				out = append([]byte{}, v...)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
