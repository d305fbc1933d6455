package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"runtime/debug"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"linkplan/appliance"
)

// maxCheckProblems bounds the problems CheckFile lists (bbolt check can
// report one per page of a badly damaged file).
const maxCheckProblems = 20

// bbolt's on-disk meta page (go.etcd.io/bbolt internal/common, file format
// version 2): a 16-byte page header, then magic, version, page size, flags
// (4 bytes each), the root bucket (root page id, sequence), the freelist
// page id, the high-water mark, the transaction id (8 bytes each) and the
// FNV-64a checksum of the bytes from magic to the transaction id. Numbers
// are in the machine's byte order (little-endian on every platform linkplan
// ships for).
const (
	boltMagic       = 0xED0CDAED
	boltVersion     = 2
	metaOffset      = 16 // the page header
	metaChecksumOff = metaOffset + 56
	metaLen         = metaOffset + 64
)

// metaPage is one decoded meta page.
type metaPage struct {
	pageSize       int
	freelist, hwm  uint64
	txid, rootPage uint64
}

// decodeMeta decodes and validates the meta page in b (metaLen bytes), as
// bbolt's Meta.Validate does.
func decodeMeta(b []byte) (metaPage, error) {
	le := binary.LittleEndian
	switch {
	case len(b) < metaLen:
		return metaPage{}, errors.New("cut short")
	case le.Uint32(b[metaOffset:]) != boltMagic:
		return metaPage{}, fmt.Errorf("wrong magic %#x (a bbolt file has %#x)", le.Uint32(b[metaOffset:]), uint32(boltMagic))
	case le.Uint32(b[metaOffset+4:]) != boltVersion:
		return metaPage{}, fmt.Errorf("file format version %d (want %d)", le.Uint32(b[metaOffset+4:]), boltVersion)
	}
	h := fnv.New64a()
	h.Write(b[metaOffset:metaChecksumOff])
	if sum := le.Uint64(b[metaChecksumOff:]); sum != h.Sum64() {
		return metaPage{}, errors.New("checksum mismatch")
	}
	return metaPage{
		pageSize: int(le.Uint32(b[metaOffset+8:])),
		rootPage: le.Uint64(b[metaOffset+16:]),
		freelist: le.Uint64(b[metaOffset+32:]),
		hwm:      le.Uint64(b[metaOffset+40:]),
		txid:     le.Uint64(b[metaOffset+48:]),
	}, nil
}

// checkMetas reads both meta pages of f (size bytes) and returns the newer
// one. bbolt opens a file whose other meta page is damaged by falling back
// to the previous transaction, silently; a linkplan check refuses it
// instead, so that a damaged file is never reported sound.
func checkMetas(f *os.File, size int64) (metaPage, error) {
	if size < metaLen {
		return metaPage{}, fmt.Errorf("the file is %d bytes, too short to hold a database", size)
	}
	buf := make([]byte, metaLen)
	if _, err := f.ReadAt(buf, 0); err != nil {
		return metaPage{}, fmt.Errorf("read meta page 0: %w", err)
	}
	m0, err := decodeMeta(buf)
	if err != nil {
		return metaPage{}, fmt.Errorf("meta page 0: %v", err)
	}
	if m0.pageSize < 512 || m0.pageSize > 1<<20 || m0.pageSize&(m0.pageSize-1) != 0 {
		return metaPage{}, fmt.Errorf("meta page 0: page size %d is not a power of two in [512, 1 MiB]", m0.pageSize)
	}
	if size < 2*int64(m0.pageSize) {
		return metaPage{}, fmt.Errorf("truncated: the file is %d bytes, shorter than its two meta pages (%d bytes)", size, 2*m0.pageSize)
	}
	if _, err := f.ReadAt(buf, int64(m0.pageSize)); err != nil {
		return metaPage{}, fmt.Errorf("read meta page 1: %w", err)
	}
	m1, err := decodeMeta(buf)
	if err != nil {
		return metaPage{}, fmt.Errorf("meta page 1: %v", err)
	}
	if m1.pageSize != m0.pageSize {
		return metaPage{}, fmt.Errorf("meta pages disagree on the page size (%d, %d)", m0.pageSize, m1.pageSize)
	}
	m := m0
	if m1.txid > m0.txid {
		m = m1
	}
	switch {
	case m.hwm < 4:
		return metaPage{}, fmt.Errorf("high-water mark %d is below the 4 pages of an empty database", m.hwm)
	case m.rootPage < 2 || m.rootPage >= m.hwm:
		return metaPage{}, fmt.Errorf("root page %d is outside [2, %d)", m.rootPage, m.hwm)
	case m.freelist != ^uint64(0) && (m.freelist < 2 || m.freelist >= m.hwm):
		return metaPage{}, fmt.Errorf("freelist page %d is outside [2, %d)", m.freelist, m.hwm)
	}
	if need := int64(m.hwm) * int64(m.pageSize); size < need {
		return metaPage{}, fmt.Errorf("truncated: the file is %d bytes, its %d pages need %d", size, m.hwm, need)
	}
	return m, nil
}

// CheckFile checks the database file at path without changing it: both
// meta pages (magic, version, checksum; bbolt itself would silently fall
// back to the other one), the file's length against the high-water mark,
// then bbolt's own consistency check (Tx.Check, the checks of `bbolt
// check`: every page reachable once or free, in bounds, of a valid type,
// keys in order) in one read-only transaction, and reads the schema
// version and the key counts of the top-level buckets.
//
// A file that fails is reported with a nil error and its Problems, or with
// an error wrapping appliance.ErrCorrupt when it cannot be opened as a
// database at all; ErrLocked when a process holds it. Its cost is one pass
// over every page in use (see docs/OPERATIONS.md for measured figures).
//
// A panic of bbolt while opening or reading the file is recovered and
// reported. But bbolt's checker runs on its own goroutine, where a page
// reference far outside the file faults on an address Go cannot recover
// (a fatal error): a caller that must survive any file runs CheckFile in a
// child process (linkplan db check, appliance/cmd/linkplan).
func CheckFile(path string) (rep appliance.DBCheck, err error) {
	start := time.Now()
	defer func() { rep.DurationS = time.Since(start).Seconds() }()
	rep.Buckets = map[string]int{}
	rep.Problems = []string{}
	f, err := os.Open(path)
	if err != nil {
		return rep, fmt.Errorf("check %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return rep, fmt.Errorf("check %s: %w", path, err)
	}
	rep.Bytes = st.Size()
	m, merr := checkMetas(f, st.Size())
	_ = f.Close()
	if merr != nil {
		return rep, fmt.Errorf("check %s: %v: %w", path, merr, appliance.ErrCorrupt)
	}
	rep.PageSize, rep.Pages, rep.TxID = m.pageSize, int64(m.hwm), m.txid
	b, err := openForCheck(path)
	if err != nil {
		return rep, err
	}
	defer func() {
		if cerr := closeForCheck(b); cerr != nil && err == nil {
			err = fmt.Errorf("check %s: %v: %w", path, cerr, appliance.ErrCorrupt)
		}
	}()
	err = protect(func() error {
		return b.View(func(tx *bolt.Tx) error {
			n := 0
			for e := range tx.Check() {
				if n < maxCheckProblems {
					rep.Problems = append(rep.Problems, e.Error())
				}
				n++
			}
			if n > maxCheckProblems {
				rep.Problems = append(rep.Problems, fmt.Sprintf("... and %d more", n-maxCheckProblems))
			}
			if n > 0 {
				return nil // reading the buckets of a broken tree can fault
			}
			if mb := tx.Bucket(bucketMeta); mb != nil {
				if raw := mb.Get(keySchemaVersion); len(raw) == 8 {
					rep.Schema = int(binary.BigEndian.Uint64(raw))
				}
			}
			return tx.ForEach(func(name []byte, bk *bolt.Bucket) error {
				rep.Buckets[string(name)] = bk.Stats().KeyN
				return nil
			})
		})
	})
	if err != nil {
		return rep, fmt.Errorf("check %s: %v: %w", path, err, appliance.ErrCorrupt)
	}
	return rep, nil
}

// openForCheck opens path read-only (a shared lock: a serving appliance's
// exclusive lock makes it ErrLocked), recovering a panic of bbolt's open.
func openForCheck(path string) (*bolt.DB, error) {
	var b *bolt.DB
	err := protect(func() error {
		var err error
		b, err = bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second, FreelistType: bolt.FreelistMapType})
		return err
	})
	switch {
	case errors.Is(err, bolterrors.ErrTimeout):
		return nil, fmt.Errorf("check %s: %w", path, ErrLocked)
	case err != nil:
		return nil, fmt.Errorf("check %s: %v: %w", path, err, appliance.ErrCorrupt)
	}
	return b, nil
}

func closeForCheck(b *bolt.DB) error { return protect(b.Close) }

// protect runs fn, turning a panic (and, on this goroutine, a memory fault
// while reading the mapped file) into an error.
func protect(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bbolt panicked: %v", r)
		}
	}()
	return fn()
}

// Snapshot writes a consistent copy of the database to w from one read
// transaction (bbolt's Tx.WriteTo: writers go on meanwhile) and returns
// what the copy holds: its length, transaction id, schema version and the
// key counts of the top-level buckets, all read in that transaction.
// SHA256 is left to the caller, who sees the bytes.
func (db *DB) Snapshot(w io.Writer) (appliance.DBSnapshot, error) {
	var s appliance.DBSnapshot
	err := db.bolt.View(func(tx *bolt.Tx) error {
		s = appliance.DBSnapshot{Bytes: tx.Size(), TxID: uint64(tx.ID()), Buckets: map[string]int{}}
		if mb := tx.Bucket(bucketMeta); mb != nil {
			if raw := mb.Get(keySchemaVersion); len(raw) == 8 {
				s.Schema = int(binary.BigEndian.Uint64(raw))
			}
		}
		if err := tx.ForEach(func(name []byte, bk *bolt.Bucket) error {
			s.Buckets[string(name)] = bk.Stats().KeyN
			return nil
		}); err != nil {
			return err
		}
		n, err := tx.WriteTo(w)
		if err != nil {
			return err
		}
		if n != s.Bytes {
			return fmt.Errorf("wrote %d bytes, the transaction spans %d", n, s.Bytes)
		}
		return nil
	})
	if err != nil {
		return appliance.DBSnapshot{}, fmt.Errorf("snapshot store: %w", err)
	}
	return s, nil
}
