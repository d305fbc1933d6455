package backup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/fileowner"
)

// RestoreSuffix names the verified copy while Restore writes it, beside
// the database file (same directory, so that the rename is atomic).
const RestoreSuffix = ".restore"

// Restored says what Restore did.
type Restored struct {
	Manifest appliance.BackupManifest
	// Kept is where the database that was replaced stays (a hard link
	// named <db>.before-restore-<UTC time>); "" when there was none.
	Kept string
}

// Restore replaces the database file dbPath by the database of the backup
// file from, atomically: the database is extracted and verified (Extract:
// format, schema version at most maxSchema, SHA-256, structure) into
// dbPath+RestoreSuffix and fsynced; the current file, if any, gets a second
// name (a hard link, Restored.Kept); the copy is renamed over dbPath and
// the directory fsynced. Run as root, the copy is given the owner of
// dbPath's directory first (the user the appliance serves as owns the
// data directory). At every instant dbPath names either the old
// database or the whole new one; a crash leaves at most a stale .restore
// copy beside it, which the next Restore removes first.
//
// The caller makes sure no process has the database open (the appliance
// holds an exclusive lock on it while it serves).
func Restore(ctx context.Context, from, dbPath string, check Checker, maxSchema int, now time.Time) (Restored, error) {
	var r Restored
	tmp := dbPath + RestoreSuffix
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return r, fmt.Errorf("restore: remove a stale copy: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dbPath), 0o700); err != nil {
		return r, fmt.Errorf("restore: %w", err)
	}
	m, err := Extract(ctx, from, tmp, check, maxSchema)
	if err != nil {
		return r, fmt.Errorf("restore: %w", err)
	}
	r.Manifest = m
	// Run as root (sudo linkplan restore), the copy takes the data
	// directory's owner before it gets the database's name, so that the
	// appliance, serving as that user, can open it.
	if err := fileowner.LikeDir(tmp, filepath.Dir(dbPath)); err != nil {
		_ = os.Remove(tmp)
		return r, fmt.Errorf("restore: %w", err)
	}
	if _, err := os.Stat(dbPath); err == nil {
		r.Kept = dbPath + ".before-restore-" + now.UTC().Format("20060102T150405Z")
		if err := os.Link(dbPath, r.Kept); err != nil {
			_ = os.Remove(tmp)
			return r, fmt.Errorf("restore: keep the current database: %w", err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		_ = os.Remove(tmp)
		return r, fmt.Errorf("restore: %w", err)
	}
	if err := os.Rename(tmp, dbPath); err != nil {
		_ = os.Remove(tmp)
		return r, fmt.Errorf("restore: %w", err)
	}
	if err := syncDir(filepath.Dir(dbPath)); err != nil {
		return r, fmt.Errorf("restore: the database is replaced, but the directory was not synced: %w", err)
	}
	return r, nil
}
