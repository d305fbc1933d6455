//go:build unix

package backup_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/backup"
	"linkplan/store"
)

// TestRestoreTakesDataDirOwner: linkplan restore run as root (sudo, as
// docs/OPERATIONS.md showed it) left linkplan.db root's, mode 0600, and
// the appliance, serving as the data directory's owner, could not open it.
// Run as root, the restored file takes the owner of the data directory.
func TestRestoreTakesDataDirOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the owner is only given when restore runs as root")
	}
	const uid, gid = 65534, 65534 // nobody, nogroup
	ctx := context.Background()
	db, _ := openStore(t)
	addAudit(t, db, 5)
	from := filepath.Join(t.TempDir(), "b.lpbackup")
	_, err := writer(db).Write(ctx, from, appliance.BackupTriggerCLI)
	must(t, err)
	for _, c := range []struct {
		name     string
		existing bool // a database (root's) is already there
	}{
		{"empty data directory", false},
		{"data directory with a database", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.existing {
				_, dir = openStoreClosed(t, 2)
			}
			must(t, os.Chown(dir, uid, gid))
			dbPath := filepath.Join(dir, store.FileName)
			r, err := backup.Restore(ctx, from, dbPath, check, store.SchemaVersion(), time.Now())
			must(t, err)
			fi, err := os.Stat(dbPath)
			must(t, err)
			st := fi.Sys().(*syscall.Stat_t)
			if st.Uid != uid || st.Gid != gid {
				t.Errorf("%s owned by %d:%d, want the data directory's %d:%d", dbPath, st.Uid, st.Gid, uid, gid)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("%s mode %v, want 0600", dbPath, fi.Mode().Perm())
			}
			if c.existing && r.Kept == "" {
				t.Error("the replaced database was not kept")
			}
		})
	}
}
