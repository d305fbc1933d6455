package store_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
	"linkplan/store"
)

// legacySecret is the clear TOTP secret of the legacy admin record; long
// and distinctive, so bytes.Contains on the file cannot match by chance.
const legacySecret = "LEGACYCLEARTOTPSECRETJBSWY3DPEHPK3PXP"

const legacyKeyID, legacyHash = "adm000000009", "hash-of-the-legacy-admin-key"

// sealedLegacyStore returns a data directory whose admin record held the
// TOTP secret in clear (as before schema version 3) and was then sealed by
// SealKeyTOTP, with a user tower and audit rows beside it. The store is
// closed.
func sealedLegacyStore(t *testing.T) (dir string, fileHeldSecret bool) {
	t.Helper()
	dir = t.TempDir()
	db := mustOpen(t, dir)
	k := &appliance.APIKey{ID: legacyKeyID, HashHex: legacyHash, Prefix: "lp_adm_aa", Tier: appliance.TierUltra,
		Role: appliance.RoleAdmin, TenantID: "admin"}
	if err := db.PutKey(k, appliance.AuditEntry{Action: "admin.bootstrap", ActorKey: k.ID}); err != nil {
		t.Fatal(err)
	}
	tw := &appliance.Tower{ID: "user:1", Operator: "X", OwnerKeyID: "k", ERPDBm: math.NaN(), AzimuthDeg: math.NaN(), TiltDeg: math.NaN()}
	if err := db.PutUserTower(tw, 10, appliance.AuditEntry{Action: "tower.register", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := bolt.Open(filepath.Join(dir, store.FileName), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = b.Update(func(tx *bolt.Tx) error {
		keys := tx.Bucket([]byte("keys"))
		var rec map[string]any
		if err := json.Unmarshal(keys.Get([]byte(legacyHash)), &rec); err != nil {
			return err
		}
		rec["totp_secret"] = legacySecret
		raw, _ := json.Marshal(rec)
		return keys.Put([]byte(legacyHash), raw)
	})
	if err := errors.Join(err, b.Close()); err != nil {
		t.Fatal(err)
	}
	db = mustOpen(t, dir)
	if err := db.SealKeyTOTP(legacyKeyID, "v1.sealed", appliance.AuditEntry{Action: "admin.totp.sealed", ActorKey: legacyKeyID}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, fileHolds(t, dir, legacySecret)
}

func fileHolds(t *testing.T, dir, s string) bool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(raw, []byte(s))
}

// checkIntact fails unless db holds the sealed admin record, the tower and
// the three audit rows of sealedLegacyStore, and the audit sequence goes on
// after them.
func checkIntact(t *testing.T, db *store.DB) {
	t.Helper()
	k, err := db.KeyByHash(legacyHash)
	if err != nil || k.TOTPSealed != "v1.sealed" || k.TOTPSecret != "" || k.ID != legacyKeyID || k.Tier != appliance.TierUltra {
		t.Fatalf("admin record %+v, %v", k, err)
	}
	if ts, err := db.UserTowers(); err != nil || len(ts) != 1 || ts[0].ID != "user:1" {
		t.Fatalf("user towers %v, %v", ts, err)
	}
	es, err := db.Audit("", 0)
	if err != nil || len(es) != 3 || es[0].Action != "admin.totp.sealed" || es[2].Action != "admin.bootstrap" {
		t.Fatalf("audit %+v, %v", es, err)
	}
	if v, err := db.Version(); err != nil || v != store.SchemaVersion() {
		t.Fatalf("schema version %d, %v", v, err)
	}
}

// TestFinding6CompactionWipesClearSecret: bbolt does not wipe freed pages,
// so after sealing a clear TOTP secret the old bytes stayed in the file
// (and in every backup). CompactPending rewrites the file without them and
// keeps everything else, the bucket sequences included.
func TestFinding6CompactionWipesClearSecret(t *testing.T) {
	dir, before := sealedLegacyStore(t)
	t.Logf("clear secret in the file after sealing, before compaction: %v", before)
	db := mustOpen(t, dir)
	defer db.Close()
	did, err := db.CompactPending()
	if err != nil || !did {
		t.Fatalf("CompactPending = %v, %v; want a compaction", did, err)
	}
	checkIntact(t, db)
	seq, err := db.AppendAudit(appliance.AuditEntry{Action: "after"})
	if err != nil || seq != 4 {
		t.Fatalf("audit sequence after compaction: %d, %v; want 4", seq, err)
	}
	if did, err := db.CompactPending(); err != nil || did {
		t.Fatalf("second CompactPending = %v, %v; want nothing to do", did, err)
	}
	if fileHolds(t, dir, legacySecret) {
		t.Fatal("the database file still holds the clear TOTP secret after compaction")
	}
	if _, err := os.Stat(filepath.Join(dir, store.FileName+".compact")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("compaction copy left behind: %v", err)
	}
}

// TestFinding6CompactionCrashSafe stops the compaction at each step as a
// killed process would (no clean-up) and restarts: the data directory holds
// either the old file (still marked, compacted at the next call) or the new
// one, complete either way.
func TestFinding6CompactionCrashSafe(t *testing.T) {
	for _, tc := range []struct {
		name       string
		crashAt    string
		oldFile    bool // the restart finds the old file
		wantRedone bool // the next CompactPending compacts again
	}{
		{name: "crash after the copy, before the rename", crashAt: "copied", oldFile: true, wantRedone: true},
		{name: "crash after the rename, before the directory fsync", crashAt: "renamed"},
		{name: "crash after the directory fsync, before reopening", crashAt: "dir-synced"},
		{name: "no crash", crashAt: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := sealedLegacyStore(t)
			db := mustOpen(t, dir)
			store.SetCrashAt(db, tc.crashAt)
			_, err := db.CompactPending()
			if tc.crashAt != "" && !errors.Is(err, store.ErrSimulatedCrash) || tc.crashAt == "" && err != nil {
				t.Fatalf("CompactPending: %v", err)
			}
			_ = db.Close() // the process dies: its locks go
			db = mustOpen(t, dir)
			defer db.Close()
			checkIntact(t, db)
			if _, err := os.Stat(filepath.Join(dir, store.FileName+".compact")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("stale compaction copy after the restart: %v", err)
			}
			if held := fileHolds(t, dir, legacySecret); held && !tc.oldFile {
				t.Error("the restart found the old file, want the compacted one")
			}
			did, err := db.CompactPending()
			if err != nil || did != tc.wantRedone {
				t.Fatalf("CompactPending after the restart = %v, %v; want %v", did, err, tc.wantRedone)
			}
			checkIntact(t, db)
			if fileHolds(t, dir, legacySecret) {
				t.Error("the clear secret is still in the file")
			}
		})
	}
}

// TestCompactionSupersedesWaitingOpen: a process that opened the file
// before a compaction renamed the new one over it, and waited for its lock,
// opens the path again instead of serving the unlinked old file.
func TestCompactionSupersedesWaitingOpen(t *testing.T) {
	dir, _ := sealedLegacyStore(t)
	db := mustOpen(t, dir)
	type opened struct {
		db  *store.DB
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		d, err := store.Open(dir, store.Options{LockTimeout: 10 * time.Second})
		ch <- opened{d, err}
	}()
	time.Sleep(200 * time.Millisecond) // let it open the old file and wait for the lock
	if did, err := db.CompactPending(); err != nil || !did {
		t.Fatalf("CompactPending = %v, %v", did, err)
	}
	if _, err := db.AppendAudit(appliance.AuditEntry{Action: "written after the compaction"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	o := <-ch
	if o.err != nil {
		t.Fatalf("waiting open: %v", o.err)
	}
	defer o.db.Close()
	es, err := o.db.Audit("", 1)
	if err != nil || len(es) != 1 || es[0].Action != "written after the compaction" {
		t.Fatalf("the waiting open serves %+v, %v; want the compacted file with the later row", es, err)
	}
}
