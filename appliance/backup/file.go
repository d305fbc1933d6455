package backup

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"linkplan/appliance"
)

// Member names of a backup file, in this order.
const (
	ManifestName = "manifest.json"
	DBName       = "linkplan.db"
)

// maxManifestBytes bounds the manifest member a reader accepts.
const maxManifestBytes = 1 << 20

// Snapshotter copies the database from one read transaction
// (store.DB.Snapshot).
type Snapshotter interface {
	Snapshot(w io.Writer) (appliance.DBSnapshot, error)
}

// Checker checks a database file's structure (store.CheckFile; the
// appliance runs it in a child process, which survives any file). It
// returns the report of a file it could read, Problems listing what is
// wrong, and an error wrapping appliance.ErrCorrupt for a file it could
// not read as a database at all.
type Checker func(ctx context.Context, path string) (appliance.DBCheck, error)

// Writer writes verified backup files.
type Writer struct {
	DB      Snapshotter
	Check   Checker
	Version string // the linkplan release, for the manifest
	// Inputs lists the terrain packs and tower sources in use, by hash;
	// nil: none recorded.
	Inputs func(ctx context.Context) (terrain, towers []appliance.DataFile, err error)
	Now    func() time.Time // nil: time.Now
}

func (w *Writer) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

// Write writes a backup file at path and verifies it before it returns:
// the database is copied from one read transaction into a scratch file
// beside path (hashed while written, fsynced), checked by w.Check, then
// written into path's temporary name as a tar of the manifest and the copy
// (hashed again, the same SHA-256 required), fsynced and renamed to path;
// the directory is fsynced. On any error nothing is left at path and the
// scratch files are removed.
func (w *Writer) Write(ctx context.Context, path, trigger string) (m appliance.BackupManifest, err error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	scratch := filepath.Join(dir, "."+base+".db.partial")
	partial := filepath.Join(dir, "."+base+".partial")
	var made []string // the files this call created, removed at the end
	defer func() {
		for _, f := range made {
			if f != partial || err != nil {
				_ = os.Remove(f)
			}
		}
	}()
	m = appliance.BackupManifest{Format: appliance.BackupFormat, FormatVersion: appliance.BackupFormatVersion,
		Version: w.Version, Trigger: trigger, TerrainPacks: []appliance.DataFile{}, TowerSources: []appliance.DataFile{}}
	if w.Inputs != nil {
		t, s, err := w.Inputs(ctx)
		if err != nil {
			return m, fmt.Errorf("backup: list the data files in use: %w", err)
		}
		m.TerrainPacks, m.TowerSources = append(m.TerrainPacks, t...), append(m.TowerSources, s...)
	}
	f, err := os.OpenFile(scratch, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return m, fmt.Errorf("backup: %w", err)
	}
	made = append(made, scratch)
	h := sha256.New()
	m.CreatedAt = w.now().UTC()
	m.DB, err = w.DB.Snapshot(io.MultiWriter(f, h))
	if err == nil {
		err = f.Sync()
	}
	if err := errors.Join(err, f.Close()); err != nil {
		return m, fmt.Errorf("backup: copy the database: %w", err)
	}
	m.DB.SHA256 = hex.EncodeToString(h.Sum(nil))
	m.Schema = m.DB.Schema
	if err := ctx.Err(); err != nil {
		return m, fmt.Errorf("backup: %w", err)
	}
	if err := verifyDB(ctx, w.Check, scratch, m); err != nil {
		return m, fmt.Errorf("backup: the copy failed verification: %w", err)
	}
	out, err := os.OpenFile(partial, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return m, fmt.Errorf("backup: %w", err)
	}
	made = append(made, partial)
	if err := writeTar(out, scratch, m); err != nil {
		return m, fmt.Errorf("backup: %w", err)
	}
	if err := os.Rename(partial, path); err != nil {
		return m, fmt.Errorf("backup: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return m, fmt.Errorf("backup: %w", err)
	}
	return m, nil
}

// writeTar writes the backup file into out (and closes it) from the
// checked copy at db, requiring the copy's bytes to hash to m.DB.SHA256
// again.
func writeTar(out *os.File, db string, m appliance.BackupManifest) error {
	man, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return errors.Join(err, out.Close())
	}
	src, err := os.Open(db)
	if err != nil {
		return errors.Join(err, out.Close())
	}
	defer src.Close()
	tw := tar.NewWriter(out)
	hdr := func(name string, size int64) *tar.Header {
		return &tar.Header{Name: name, Mode: 0o600, Size: size, ModTime: m.CreatedAt, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	}
	h := sha256.New()
	err = tw.WriteHeader(hdr(ManifestName, int64(len(man))))
	if err == nil {
		_, err = tw.Write(man)
	}
	if err == nil {
		err = tw.WriteHeader(hdr(DBName, m.DB.Bytes))
	}
	if err == nil {
		var n int64
		n, err = io.Copy(tw, io.TeeReader(src, h))
		if err == nil && n != m.DB.Bytes {
			err = fmt.Errorf("the copy is %d bytes, the manifest says %d", n, m.DB.Bytes)
		}
	}
	if err == nil && hex.EncodeToString(h.Sum(nil)) != m.DB.SHA256 {
		err = fmt.Errorf("the copy changed on disk after it was checked (SHA-256 differs): %w", appliance.ErrCorrupt)
	}
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = out.Sync()
	}
	return errors.Join(err, out.Close())
}

// verifyDB checks the database file at path against m: its structure
// (check), and the transaction id, schema version and bucket counts the
// manifest records.
func verifyDB(ctx context.Context, check Checker, path string, m appliance.BackupManifest) error {
	rep, err := check(ctx, path)
	if err != nil {
		return err
	}
	if len(rep.Problems) > 0 {
		return fmt.Errorf("the database's structural check found %d problem(s), the first: %s: %w", len(rep.Problems), rep.Problems[0], appliance.ErrCorrupt)
	}
	switch {
	case rep.TxID != m.DB.TxID:
		return fmt.Errorf("the database is at transaction %d, the manifest says %d: %w", rep.TxID, m.DB.TxID, appliance.ErrCorrupt)
	case rep.Schema != m.Schema:
		return fmt.Errorf("the database has schema version %d, the manifest says %d: %w", rep.Schema, m.Schema, appliance.ErrCorrupt)
	}
	for _, name := range slices.Sorted(maps.Keys(m.DB.Buckets)) {
		if rep.Buckets[name] != m.DB.Buckets[name] {
			return fmt.Errorf("bucket %s holds %d keys, the manifest says %d: %w", name, rep.Buckets[name], m.DB.Buckets[name], appliance.ErrCorrupt)
		}
	}
	if len(rep.Buckets) != len(m.DB.Buckets) {
		return fmt.Errorf("the database has %d top-level buckets, the manifest lists %d: %w", len(rep.Buckets), len(m.DB.Buckets), appliance.ErrCorrupt)
	}
	return nil
}

// ReadManifest reads the manifest of the backup file at path, checking its
// format only (not the database); cheap: the manifest is the first member.
func ReadManifest(path string) (appliance.BackupManifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return appliance.BackupManifest{}, fmt.Errorf("read backup: %w", err)
	}
	defer f.Close()
	m, _, err := readManifest(tar.NewReader(f))
	if err != nil {
		return m, fmt.Errorf("read backup %s: %w", path, err)
	}
	return m, nil
}

func readManifest(tr *tar.Reader) (appliance.BackupManifest, *tar.Header, error) {
	var m appliance.BackupManifest
	hdr, err := tr.Next()
	if err != nil {
		return m, nil, fmt.Errorf("not a linkplan backup (no tar member: %v): %w", err, appliance.ErrCorrupt)
	}
	if hdr.Name != ManifestName || hdr.Typeflag != tar.TypeReg || hdr.Size > maxManifestBytes {
		return m, nil, fmt.Errorf("not a linkplan backup (its first member is %q, %d bytes; want %s): %w", hdr.Name, hdr.Size, ManifestName, appliance.ErrCorrupt)
	}
	raw, err := io.ReadAll(tr)
	if err != nil {
		return m, nil, fmt.Errorf("read %s: %v: %w", ManifestName, err, appliance.ErrCorrupt)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, nil, fmt.Errorf("%s is not valid JSON: %v: %w", ManifestName, err, appliance.ErrCorrupt)
	}
	switch {
	case m.Format != appliance.BackupFormat:
		return m, nil, fmt.Errorf("%s has format %q, want %q: %w", ManifestName, m.Format, appliance.BackupFormat, appliance.ErrCorrupt)
	case m.FormatVersion > appliance.BackupFormatVersion:
		return m, nil, fmt.Errorf("the backup file's format version %d is newer than this linkplan's %d (written by linkplan %s): %w",
			m.FormatVersion, appliance.BackupFormatVersion, m.Version, appliance.ErrNewerSchema)
	case m.FormatVersion < 1 || m.DB.Bytes <= 0 || len(m.DB.SHA256) != 64:
		return m, nil, fmt.Errorf("%s lacks the database's length or SHA-256: %w", ManifestName, appliance.ErrCorrupt)
	}
	return m, hdr, nil
}

// Extract verifies the backup file at from and writes its database to
// dbOut (created, mode 0600; it must not exist), fsynced: the manifest's
// format, then its schema version against maxSchema (a newer one is
// appliance.ErrNewerSchema, refused before anything is written), the
// database's length and SHA-256 against the manifest, then its structure
// (check) and the manifest's transaction id, schema and bucket counts. On
// an error dbOut is removed. It returns the manifest.
func Extract(ctx context.Context, from, dbOut string, check Checker, maxSchema int) (m appliance.BackupManifest, err error) {
	f, err := os.Open(from)
	if err != nil {
		return m, fmt.Errorf("verify backup: %w", err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	m, _, err = readManifest(tr)
	if err != nil {
		return m, fmt.Errorf("verify backup %s: %w", from, err)
	}
	if m.Schema > maxSchema {
		return m, fmt.Errorf("verify backup %s: its database has schema version %d, newer than this linkplan's schema version %d (the backup was written by linkplan %s): restore it with that release or a later one: %w",
			from, m.Schema, maxSchema, m.Version, appliance.ErrNewerSchema)
	}
	hdr, err := tr.Next()
	if err != nil {
		return m, fmt.Errorf("verify backup %s: the database member is missing (%v): the file is cut short: %w", from, err, appliance.ErrCorrupt)
	}
	if hdr.Name != DBName || hdr.Typeflag != tar.TypeReg || hdr.Size != m.DB.Bytes {
		return m, fmt.Errorf("verify backup %s: second member %q of %d bytes, want %s of %d bytes: %w", from, hdr.Name, hdr.Size, DBName, m.DB.Bytes, appliance.ErrCorrupt)
	}
	out, err := os.OpenFile(dbOut, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return m, fmt.Errorf("verify backup: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(dbOut)
		}
	}()
	h := sha256.New()
	n, cerr := io.Copy(io.MultiWriter(out, h), tr)
	if cerr == nil {
		cerr = out.Sync()
	}
	if err := errors.Join(cerr, out.Close()); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return m, fmt.Errorf("verify backup %s: the database member is cut short at %d of %d bytes: %w", from, n, m.DB.Bytes, appliance.ErrCorrupt)
		}
		return m, fmt.Errorf("verify backup %s: %w", from, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != m.DB.SHA256 {
		return m, fmt.Errorf("verify backup %s: the database's SHA-256 is %s, the manifest says %s: the file was damaged after it was written: %w", from, got, m.DB.SHA256, appliance.ErrCorrupt)
	}
	if _, err := tr.Next(); !errors.Is(err, io.EOF) {
		return m, fmt.Errorf("verify backup %s: unexpected data after the database member: %w", from, appliance.ErrCorrupt)
	}
	if err := verifyDB(ctx, check, dbOut, m); err != nil {
		return m, fmt.Errorf("verify backup %s: %w", from, err)
	}
	return m, nil
}

// Verify verifies the backup file at path as Extract does, extracting the
// database into a scratch file in scratchDir ("": the system's temporary
// directory) that it removes.
func Verify(ctx context.Context, path, scratchDir string, check Checker, maxSchema int) (appliance.BackupManifest, error) {
	d, err := os.MkdirTemp(scratchDir, ".linkplan-verify-")
	if err != nil {
		return appliance.BackupManifest{}, fmt.Errorf("verify backup: %w", err)
	}
	defer os.RemoveAll(d)
	return Extract(ctx, path, filepath.Join(d, DBName), check, maxSchema)
}

// syncDir fsyncs a directory, making a rename or removal in it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
