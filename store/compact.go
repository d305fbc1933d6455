package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"
)

// Meta keys of the compaction (bucket meta).
var (
	// keyCompactPending is set, in the transaction that dropped it, when a
	// record lost a clear secret (SealKeyTOTP): bbolt does not wipe freed
	// pages, so the old bytes stay in the file until CompactPending
	// rewrites it.
	keyCompactPending = []byte("compact_pending")
	// keySuperseded is written into the old file after CompactPending
	// renamed the new one over it: a process that opened the old file
	// before the rename and got its lock after learns that the path now
	// names another file, and opens again (Open).
	keySuperseded = []byte("superseded")
)

// compactSuffix names the new file while CompactPending writes it, beside
// the database file (same directory, so the rename is atomic).
const compactSuffix = ".compact"

// compactTxMaxSize bounds the bytes copied per write transaction of the
// compaction (bbolt.Compact), so a large audit log does not sit in memory.
const compactTxMaxSize = 16 << 20

// errSimulatedCrash is what a test's crash point returns: the compaction
// stops where it is, without any clean-up, as a killed process would.
var errSimulatedCrash = errors.New("simulated crash")

// CompactPending rewrites the database into a fresh file when a change left
// secret bytes in freed pages (compact_pending, set by SealKeyTOTP when it
// dropped a clear TOTP secret), and reports whether it did. The copy holds
// only live keys and values (bbolt.Compact, bucket sequences kept), so the
// old bytes are gone from the file afterwards; backups taken later cannot
// yield them.
//
// Steps, each crash-safe: write DIR/linkplan.db.compact (a stale one is
// removed first) and fsync it; rename it over linkplan.db; fsync the
// directory; open the new file; mark the old one superseded and close it.
// A crash before the rename leaves the old file, still marked pending (the
// next start compacts again; Open removes the stale copy); a crash after it
// leaves the complete new file. The lock of the old file is held until the
// new one is locked.
//
// It swaps the DB's file under the other methods, so it must not run
// concurrently with them: call it at start-up, before the DB is shared
// (tenancy.Service.Bootstrap does).
func (db *DB) CompactPending() (bool, error) {
	pending := false
	if err := db.bolt.View(func(tx *bolt.Tx) error {
		pending = tx.Bucket(bucketMeta).Get(keyCompactPending) != nil
		return nil
	}); err != nil {
		return false, fmt.Errorf("compact store: %w", err)
	}
	if !pending {
		return false, nil
	}
	if err := db.compact(); err != nil {
		return false, fmt.Errorf("compact store %s: %w", db.path, err)
	}
	return true, nil
}

func (db *DB) compact() error {
	tmp := db.path + compactSuffix
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove stale copy: %w", err)
	}
	if err := db.writeCopy(tmp); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if db.crashAt("copied") {
		return errSimulatedCrash
	}
	if err := os.Rename(tmp, db.path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("rename copy: %w", err)
	}
	if db.crashAt("renamed") {
		return errSimulatedCrash
	}
	// From here on the path names the new file: a failure leaves it
	// complete for the next start, and closes the old one, so that no
	// write can go to the unlinked file (the DB answers
	// bbolt.ErrDatabaseNotOpen until it is opened again).
	if err := syncDir(filepath.Dir(db.path)); err != nil {
		_ = db.bolt.Close()
		return err
	}
	if db.crashAt("dir-synced") {
		return errSimulatedCrash
	}
	nb, err := bolt.Open(db.path, 0o600, boltOptions(db.lockTimeout))
	if err != nil {
		_ = db.bolt.Close()
		return fmt.Errorf("open compacted file: %w", err)
	}
	// The old file is unlinked: the marker only tells a process that
	// waited for its lock to open the path again.
	_ = db.bolt.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keySuperseded, []byte{1}) })
	_ = db.bolt.Close()
	db.bolt = nb
	return nil
}

// writeCopy writes the live content of the database to path, without the
// compact_pending mark, and fsyncs it.
func (db *DB) writeCopy(path string) error {
	dst, err := bolt.Open(path, 0o600, boltOptions(db.lockTimeout))
	if err != nil {
		return fmt.Errorf("create copy: %w", err)
	}
	cerr := bolt.Compact(dst, db.bolt, compactTxMaxSize)
	if cerr == nil {
		cerr = dst.Update(func(tx *bolt.Tx) error {
			return tx.Bucket(bucketMeta).Delete(keyCompactPending)
		})
	}
	if err := errors.Join(cerr, dst.Close()); err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	// bbolt fsyncs every commit; this also covers the file's size and
	// metadata before the rename makes it the database.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("sync copy: %w", err)
	}
	if err := errors.Join(f.Sync(), f.Close()); err != nil {
		return fmt.Errorf("sync copy: %w", err)
	}
	return nil
}

func (db *DB) crashAt(step string) bool {
	return db.crashStep != "" && db.crashStep == step
}

// syncDir fsyncs a directory, making a rename in it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync dir: %w", err)
	}
	if err := errors.Join(d.Sync(), d.Close()); err != nil {
		return fmt.Errorf("sync dir %s: %w", dir, err)
	}
	return nil
}
