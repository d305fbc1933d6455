package store_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"linkplan/store"
)

// TestEveryBucketClassified fails when a migration creates a bucket that
// is neither per-tenant (with a purge function: the privacy hard delete
// deletes its rows) nor global: a new per-tenant bucket must be added to
// the hard delete, or an erased tenant's rows would stay behind.
func TestEveryBucketClassified(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := bolt.Open(filepath.Join(dir, store.FileName), 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tenant, global := store.TenantBucketNames(), store.GlobalBucketNames()
	var names []string
	if err := b.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, _ *bolt.Bucket) error { names = append(names, string(name)); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			in, gl := slices.Contains(tenant, n), slices.Contains(global, n)
			if in == gl {
				t.Errorf("bucket %s: per-tenant %v, global %v: classify it exactly once (store/privacy.go)", n, in, gl)
			}
		})
	}
	for _, n := range append(append([]string{}, tenant...), global...) {
		if !slices.Contains(names, n) {
			t.Errorf("classified bucket %s does not exist", n)
		}
	}
}
