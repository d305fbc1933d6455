package standby

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/fileowner"
)

// PromoteResult says what Promote did.
type PromoteResult struct {
	Snapshot   appliance.BackupManifest // the snapshot that became the database
	PromotedAt time.Time
	Database   string // DATA/linkplan.db
}

// Promote turns the standby data directory dataDir into a primary's: the
// last good snapshot's database (verified when it was pulled; serve checks
// it again at start) is renamed to DATA/linkplan.db, the directory
// fsynced, and the state becomes role primary. Run as root, the database
// and the state take the owner of dataDir (fileowner.LikeDir). The standby must be stopped
// (the caller checks that no process serves dataDir). A data directory
// without a snapshot, or already a primary's, is refused untouched.
func Promote(dataDir string, now time.Time) (PromoteResult, error) {
	var r PromoteResult
	st, ok, err := ReadState(dataDir)
	if err != nil {
		return r, fmt.Errorf("promote: %w", err)
	}
	if !ok {
		return r, fmt.Errorf("promote: %s is not a standby's data directory (no %s): %w", dataDir, filepath.Join(Dir, StateFile), appliance.ErrConflict)
	}
	if st.Role == appliance.RolePrimary {
		return r, fmt.Errorf("promote: %s was already promoted at %s: %w", dataDir, st.PromotedAt.Format(time.RFC3339), appliance.ErrConflict)
	}
	snap := filepath.Join(dataDir, Dir, SnapshotFile)
	if st.Snapshot == nil {
		return r, fmt.Errorf("promote: the standby %s holds no verified snapshot yet: %w", dataDir, appliance.ErrConflict)
	}
	db := filepath.Join(dataDir, DBFile)
	_, snapErr := os.Stat(snap)
	_, dbErr := os.Stat(db)
	switch {
	case snapErr != nil && dbErr == nil:
		// A promotion interrupted after its rename: finish it.
	case snapErr != nil:
		return r, fmt.Errorf("promote: the last good snapshot %s is missing: %w", snap, appliance.ErrConflict)
	case dbErr == nil:
		return r, fmt.Errorf("promote: %s already holds a database: %w", dataDir, appliance.ErrConflict)
	default:
		if err := os.Rename(snap, db); err != nil {
			return r, fmt.Errorf("promote: %w", err)
		}
	}
	// Run as root (sudo linkplan promote), the database takes the data
	// directory's owner: the primary serves as that user.
	if err := fileowner.LikeDir(db, dataDir); err != nil {
		return r, fmt.Errorf("promote: %w", err)
	}
	if err := syncDir(dataDir); err != nil {
		return r, fmt.Errorf("promote: %w", err)
	}
	st.Role, st.PromotedAt = appliance.RolePrimary, now.UTC()
	if err := writeState(dataDir, st); err != nil {
		return r, fmt.Errorf("promote: the database is in place, but the state was not written: %w", err)
	}
	return PromoteResult{Snapshot: *st.Snapshot, PromotedAt: st.PromotedAt, Database: db}, nil
}
