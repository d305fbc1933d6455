package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/cmd/linkplan/assemble"
	"linkplan/store"
)

// errNoDatabase: an offline command was given a data directory that holds
// no database (a typo in --data-dir, or an appliance never started there).
var errNoDatabase = errors.New("no database")

// offlineOptions says how an offline command opens a data directory.
type offlineOptions struct {
	// ReadOnly opens with a shared lock and never migrates (the offline
	// backup): a file of an older or a newer schema is read as it is.
	ReadOnly bool
	// LockTimeout is how long to wait for the file's lock (0: the store's
	// default).
	LockTimeout time.Duration
}

// openOffline opens the existing database of dataDir for a command that
// runs while no appliance serves it (observations consent|attest|dividends
// settle, model retrain, the offline path of backup), with serve's care
// (docs/OPERATIONS.md):
//   - a data directory without DATA/linkplan.db is refused (errNoDatabase,
//     exit status 1) and nothing is created;
//   - the file is checked first in a child process (checkIsolated, as serve's
//     checkAtStart does), so a corrupt file is refused with
//     appliance.ErrCorrupt (exit status 3) and a remedy, never a memory
//     fault of this process;
//   - unless opt.ReadOnly, a file of a newer schema is refused before it is
//     opened (appliance.ErrNewerSchema, exit status 3), and one of an older
//     schema is migrated only after the pre-migration backup serve takes
//     (assemble.PreMigrationBackup, into DATA/backups), logged on stderr.
//
// A lock held by a serving appliance is store.ErrLocked.
func openOffline(ctx context.Context, dataDir string, opt offlineOptions, stderr io.Writer) (*store.DB, error) {
	path := filepath.Join(dataDir, store.FileName)
	if _, err := os.Stat(dataDir); err != nil {
		return nil, fmt.Errorf("%w at %s: the data directory %s cannot be read (%w); give the --data-dir the appliance serves (e.g. /var/lib/linkplan); nothing was created",
			errNoDatabase, path, dataDir, err)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%w at %s: %s is not a linkplan data directory (%w); give the --data-dir the appliance serves (e.g. /var/lib/linkplan); nothing was created",
			errNoDatabase, path, dataDir, err)
	}
	rep, err := checkIsolated(ctx, path)
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	if errors.Is(err, store.ErrLocked) {
		return nil, err
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s: %w", errNoDatabase, path, err)
	}
	if err == nil && len(rep.Problems) > 0 {
		err = fmt.Errorf("%d problem(s), the first: %s: %w", len(rep.Problems), rep.Problems[0], appliance.ErrCorrupt)
	}
	if err != nil {
		return nil, fmt.Errorf("the database file %s is corrupt: %w; nothing was changed; restore a backup: linkplan restore --from FILE --data-dir %s (docs/OPERATIONS.md)", path, err, dataDir)
	}
	if !opt.ReadOnly && rep.Schema > store.SchemaVersion() {
		return nil, fmt.Errorf("%s: %w", path, &store.SchemaError{File: rep.Schema, Binary: store.SchemaVersion()})
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	db, err := store.Open(dataDir, store.Options{ReadOnly: opt.ReadOnly, LockTimeout: opt.LockTimeout,
		BeforeMigrate: assemble.PreMigrationBackup(ctx, dataDir, "", version(), checkIsolated, log.Info)})
	if err != nil {
		return nil, err
	}
	return db, nil
}
