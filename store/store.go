package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// ErrLocked means another process holds the database file.
var ErrLocked = errors.New("database is locked by another linkplan process")

// FileName is the name of the database file inside the data directory.
const FileName = "linkplan.db"

// Options configure Open.
type Options struct {
	// LockTimeout is how long Open waits for the file lock before returning
	// ErrLocked; 0 means 2 seconds.
	LockTimeout time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// ReadOnly opens the file with a shared lock and without migrating it
	// (linkplan backup of a data directory no appliance serves): writes
	// fail, a newer schema is readable.
	ReadOnly bool
	// BeforeMigrate, when set, runs before the first migration of a file
	// that holds data of an older schema (from > 0): the appliance writes
	// a backup there (issue 21). An error stops Open; the file is left as
	// it was.
	BeforeMigrate func(db *DB, from, to int) error
}

// DB is an open linkplan database.
type DB struct {
	bolt        *bolt.DB
	path        string
	now         func() time.Time
	lockTimeout time.Duration
	crashStep   string // tests: the CompactPending step that simulates a crash
}

// maxSupersededOpens bounds how often Open follows a compaction that
// replaced the file while it waited for the lock.
const maxSupersededOpens = 3

func boltOptions(lockTimeout time.Duration) *bolt.Options {
	return &bolt.Options{Timeout: lockTimeout, FreelistType: bolt.FreelistMapType}
}

// Open opens (creating when needed) the database in dataDir and migrates it
// to the current schema version.
func Open(dataDir string, opts Options) (*DB, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = 2 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("open store: create data dir: %w", err)
	}
	path := filepath.Join(dataDir, FileName)
	if opts.ReadOnly {
		b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: opts.LockTimeout, FreelistType: bolt.FreelistMapType})
		if err != nil {
			if errors.Is(err, bolterrors.ErrTimeout) {
				return nil, fmt.Errorf("open store %s: %w", path, ErrLocked)
			}
			return nil, fmt.Errorf("open store %s: %w", path, err)
		}
		return &DB{bolt: b, path: path, now: opts.Now, lockTimeout: opts.LockTimeout}, nil
	}
	b, err := openLocked(path, opts.LockTimeout)
	if err != nil {
		return nil, err
	}
	// A copy left by a compaction that crashed before its rename; the lock
	// is ours, so no compaction is writing it now.
	if err := os.Remove(path + compactSuffix); err != nil && !errors.Is(err, os.ErrNotExist) {
		_ = b.Close()
		return nil, fmt.Errorf("open store: remove stale compaction copy: %w", err)
	}
	db := &DB{bolt: b, path: path, now: opts.Now, lockTimeout: opts.LockTimeout}
	if err := db.migrate(opts.BeforeMigrate); err != nil {
		_ = b.Close()
		return nil, err
	}
	return db, nil
}

// openLocked opens and locks the database file at path. When the file it
// locked was superseded meanwhile (CompactPending, or linkplan restore,
// renamed a new one over it), it opens the path again: the path must name
// the same file before the open and once the lock is held, and the file
// must not carry CompactPending's superseded mark.
func openLocked(path string, lockTimeout time.Duration) (*bolt.DB, error) {
	for range maxSupersededOpens {
		before, _ := os.Stat(path) // nil for a file Open creates
		b, err := bolt.Open(path, 0o600, boltOptions(lockTimeout))
		if err != nil {
			if errors.Is(err, bolterrors.ErrTimeout) {
				return nil, fmt.Errorf("open store %s: %w", path, ErrLocked)
			}
			return nil, fmt.Errorf("open store %s: %w", path, err)
		}
		if after, err := os.Stat(path); before != nil && (err != nil || !os.SameFile(before, after)) {
			_ = b.Close()
			continue
		}
		superseded := false
		if err := b.View(func(tx *bolt.Tx) error {
			if m := tx.Bucket(bucketMeta); m != nil {
				superseded = m.Get(keySuperseded) != nil
			}
			return nil
		}); err != nil {
			_ = b.Close()
			return nil, fmt.Errorf("open store %s: %w", path, err)
		}
		if !superseded {
			return b, nil
		}
		_ = b.Close()
	}
	return nil, fmt.Errorf("open store %s: the file was replaced %d times while opening: %w", path, maxSupersededOpens, ErrLocked)
}

// Path returns the database file path.
func (db *DB) Path() string { return db.path }

// Close closes the database, releasing the file lock.
func (db *DB) Close() error { return db.bolt.Close() }

// Ping checks that the database answers a read transaction.
func (db *DB) Ping() error {
	return db.bolt.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketMeta) == nil {
			return errors.New("ping store: meta bucket missing")
		}
		return nil
	})
}

// CopyTo writes a consistent copy of the database to path (mode 0600), in
// a read transaction: writers go on meanwhile. The copy holds the freed
// pages too, as the file does.
func (db *DB) CopyTo(path string) error {
	err := db.bolt.View(func(tx *bolt.Tx) error { return tx.CopyFile(path, 0o600) })
	if err != nil {
		return fmt.Errorf("copy store to %s: %w", path, err)
	}
	return nil
}
