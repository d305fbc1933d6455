package standby

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/fileowner"
)

// Names in the data directory.
const (
	Dir          = "standby"           // DATA/standby
	StateFile    = "state.json"        // DATA/standby/state.json
	SnapshotFile = "snapshot.db"       // DATA/standby/snapshot.db
	KeyFile      = "standby-key.json"  // DATA/standby-key.json (primary)
	DBFile       = "linkplan.db"       // the database of a primary (store.FileName)
	incomingTar  = "incoming.lpbackup" // a pull in progress
	incomingDB   = "incoming.db"       // its database, being verified
	DefaultEvery = 60 * time.Second    // --standby-every
	MinEvery     = time.Second         // the shortest interval accepted
	keyPrefix    = "lpsb_"             // standby keys start with it
	keyHeader    = "X-Standby-Key"     // documented in web/api; used by the client
	snapshotPath = "/replication/snapshot"
)

// State is DATA/standby/state.json.
type State struct {
	Role       string `json:"role"` // appliance.RoleStandby, or RolePrimary once promoted
	PrimaryURL string `json:"primary_url"`
	// Snapshot is the manifest of the last good snapshot (nil: none).
	Snapshot  *appliance.BackupManifest `json:"snapshot"`
	FetchedAt time.Time                 `json:"fetched_at"`
	// The latest attempt.
	LastAttempt time.Time `json:"last_attempt"`
	LastError   string    `json:"last_error"`
	// VerifyError is the verification failure of the latest snapshot
	// pulled ("" when it verified, or none was pulled).
	VerifyError string    `json:"verify_error"`
	PromotedAt  time.Time `json:"promoted_at"`
}

// ReadState reads DATA/standby/state.json; ok is false when there is none.
func ReadState(dataDir string) (st State, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dataDir, Dir, StateFile))
	if errors.Is(err, os.ErrNotExist) {
		return st, false, nil
	}
	if err != nil {
		return st, false, stateReadError(dataDir, err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, false, fmt.Errorf("standby state %s: %v: %w", filepath.Join(dataDir, Dir, StateFile), err, appliance.ErrCorrupt)
	}
	return st, true, nil
}

// stateReadError is ReadState's error err reading state.json. Permission
// denied names the remedy: serve reads DATA/standby/state.json on every
// start, a primary's too, so a data directory left root's (a copy or an
// older linkplan run with sudo) fails there first.
func stateReadError(dataDir string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("standby state: %w: the data directory and its files must belong to the user serve runs as (chown -R linkplan:linkplan %s for the packaged service)", err, dataDir)
	}
	return fmt.Errorf("standby state: %w", err)
}

// writeState replaces state.json atomically (temporary file, fsync,
// rename, directory fsync). Run as root (linkplan promote with sudo),
// DATA/standby and state.json take the data directory's owner.
func writeState(dataDir string, st State) error {
	dir := filepath.Join(dataDir, Dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("standby state: %w", err)
	}
	if err := fileowner.LikeDir(dir, dataDir); err != nil {
		return fmt.Errorf("standby state: %w", err)
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("standby state: %w", err)
	}
	return writeFileAtomic(filepath.Join(dir, StateFile), dataDir, append(b, '\n'))
}

// writeFileAtomic replaces the file path by b: temporary file, fsync,
// the owner of dataDir when run as root (fileowner.LikeDir), rename, directory
// fsync.
func writeFileAtomic(path, dataDir string, b []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := f.Write(b)
	if werr == nil {
		werr = f.Sync()
	}
	if err := errors.Join(werr, f.Close(), fileowner.LikeDir(tmp, dataDir)); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// CheckPrimaryStart refuses to serve a data directory as a primary while
// it is a standby that was not promoted (its database would be a new,
// empty one beside the snapshot).
func CheckPrimaryStart(dataDir string) error {
	st, ok, err := ReadState(dataDir)
	if err != nil || !ok || st.Role == appliance.RolePrimary {
		return err
	}
	return fmt.Errorf("the data directory %s is a warm standby of %s: promote it first (linkplan promote --data-dir %s), or serve it with --standby-of: %w",
		dataDir, st.PrimaryURL, dataDir, appliance.ErrConflict)
}

// Promoted reads when dataDir was promoted from a standby (zero: never).
func Promoted(dataDir string) time.Time {
	st, ok, err := ReadState(dataDir)
	if err != nil || !ok || st.Role != appliance.RolePrimary {
		return time.Time{}
	}
	return st.PromotedAt
}
