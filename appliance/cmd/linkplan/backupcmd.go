package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/backup"
	"linkplan/store"
)

const backupUsage = `usage:
  linkplan backup [--data-dir DIR] --out FILE [--json]
      write a verified backup of DIR's database to FILE (replaced atomically).
      While an appliance serves DIR, it is asked over its admin socket
      (DIR/admin.sock; run as the appliance's user or root); otherwise the
      database file is read directly. The copy comes from one read
      transaction (writers go on), and is verified (SHA-256, structure,
      schema) before this command reports success.
  linkplan verify [--json] FILE
      verify a backup file: its manifest, the database's SHA-256 and length,
      its structure (the checks of "bbolt check") and schema version.
  linkplan restore --from FILE [--data-dir DIR]
      replace DIR's database by the one in FILE, atomically, after verifying
      it; refuses a file that fails verification or comes from a newer schema,
      and refuses while an appliance serves DIR (stop it first). The replaced
      database is kept as DIR/linkplan.db.before-restore-<UTC time>.
See docs/OPERATIONS.md.
`

func backupCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("backup", stderr)
	fs.Usage = func() { fmt.Fprint(stderr, backupUsage); fs.PrintDefaults() }
	dataDir := fs.String("data-dir", defaultDataDir(), "state directory of the appliance")
	out := fs.String("out", "", "backup file to write (required)")
	asJSON := fs.Bool("json", false, "print the manifest as JSON")
	if err := fs.Parse(args); err != nil {
		return parseErr("backup", err) // the flag package printed the usage
	}
	if fs.NArg() != 0 || *out == "" {
		fmt.Fprint(stderr, backupUsage)
		return fmt.Errorf("backup: --out FILE is required: %w", errUsage)
	}
	m, via, err := takeBackup(ctx, *dataDir, *out)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if *asJSON {
		return printJSON(stdout, struct {
			File     string                   `json:"file"`
			Via      string                   `json:"via"`
			Manifest appliance.BackupManifest `json:"manifest"`
		}{*out, via, m})
	}
	fmt.Fprintf(stdout, "backup written and verified: %s\n  via: %s\n", *out, via)
	printManifest(stdout, m)
	return nil
}

// takeBackup writes the backup of dataDir to out, through the serving
// appliance when there is one.
func takeBackup(ctx context.Context, dataDir, out string) (appliance.BackupManifest, string, error) {
	res, err := askAppliance(ctx, dataDir, http.MethodPost, "/backup")
	if err == nil {
		defer res.Body.Close()
		m, err := receiveBackup(ctx, res, out)
		return m, "the admin socket of the appliance serving " + dataDir, err
	}
	if !errors.Is(err, errNoAppliance) {
		return appliance.BackupManifest{}, "", err
	}
	dbPath := filepath.Join(dataDir, store.FileName)
	// Checked first in a child process (openOffline): a corrupt file is
	// refused (exit status 3) before bbolt maps it, so no memory fault can
	// end this command with the backup's scratch file left behind.
	db, oerr := openOffline(ctx, dataDir, offlineOptions{ReadOnly: true, LockTimeout: 500 * time.Millisecond}, io.Discard)
	if errors.Is(oerr, store.ErrLocked) {
		return appliance.BackupManifest{}, "", fmt.Errorf("an appliance holds %s but does not answer on its admin socket (%v); run this command as the appliance's user or root, or see docs/OPERATIONS.md", dbPath, err)
	}
	if oerr != nil {
		return appliance.BackupManifest{}, "", oerr
	}
	defer db.Close()
	w := &backup.Writer{DB: db, Check: checkIsolated, Version: version(),
		Inputs: func(context.Context) ([]appliance.DataFile, []appliance.DataFile, error) {
			srcs, err := hashTowerSources(dataDir)
			return nil, srcs, err
		}}
	m, werr := w.Write(ctx, out, appliance.BackupTriggerCLI)
	return m, "the database file (no appliance serves " + dataDir + ")", werr
}

// receiveBackup writes the backup streamed by the appliance to out: into a
// partial file beside it, fsynced, verified (checkIsolated), then renamed.
func receiveBackup(ctx context.Context, res *http.Response, out string) (appliance.BackupManifest, error) {
	if res.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		return appliance.BackupManifest{}, fmt.Errorf("the appliance could not take the backup (%s): %s", res.Status, strings.TrimSpace(string(msg)))
	}
	dir, base := filepath.Dir(out), filepath.Base(out)
	partial := filepath.Join(dir, "."+base+".download.partial")
	f, err := os.OpenFile(partial, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return appliance.BackupManifest{}, err
	}
	_, err = io.Copy(f, res.Body)
	if err == nil {
		err = f.Sync()
	}
	if err := errors.Join(err, f.Close()); err != nil {
		_ = os.Remove(partial)
		return appliance.BackupManifest{}, fmt.Errorf("receive the backup: %w", err)
	}
	m, err := backup.Verify(ctx, partial, scratchBeside(partial), checkIsolated, store.SchemaVersion())
	if err == nil && m.DB.SHA256 != res.Header.Get("X-Linkplan-Backup-Sha256") {
		err = fmt.Errorf("the appliance announced database SHA-256 %s, the file received holds %s: %w", res.Header.Get("X-Linkplan-Backup-Sha256"), m.DB.SHA256, appliance.ErrCorrupt)
	}
	if err == nil {
		err = os.Rename(partial, out)
	}
	if err != nil {
		_ = os.Remove(partial)
		return m, fmt.Errorf("the received backup failed verification: %w", err)
	}
	d, err := os.Open(dir)
	if err == nil {
		err = errors.Join(d.Sync(), d.Close())
	}
	return m, err
}

// scratchBeside is where a verification extracts a database: the file's
// directory when it is writable (same disk, room for it), else the
// system's temporary directory.
func scratchBeside(path string) string {
	d, err := os.MkdirTemp(filepath.Dir(path), ".linkplan-probe-")
	if err != nil {
		return ""
	}
	_ = os.Remove(d)
	return filepath.Dir(path)
}

func verifyCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("verify", stderr)
	fs.Usage = func() { fmt.Fprint(stderr, backupUsage); fs.PrintDefaults() }
	asJSON := fs.Bool("json", false, "print the manifest as JSON")
	if err := fs.Parse(args); err != nil {
		return parseErr("verify", err)
	}
	if fs.NArg() != 1 {
		fmt.Fprint(stderr, backupUsage)
		return fmt.Errorf("verify: one backup FILE is required: %w", errUsage)
	}
	path := fs.Arg(0)
	m, err := backup.Verify(ctx, path, scratchBeside(path), checkIsolated, store.SchemaVersion())
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if *asJSON {
		return printJSON(stdout, m)
	}
	fmt.Fprintf(stdout, "backup verified: %s\n", path)
	printManifest(stdout, m)
	return nil
}

func restoreCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("restore", stderr)
	fs.Usage = func() { fmt.Fprint(stderr, backupUsage); fs.PrintDefaults() }
	from := fs.String("from", "", "backup file to restore (required)")
	dataDir := fs.String("data-dir", defaultDataDir(), "state directory of the appliance")
	if err := fs.Parse(args); err != nil {
		return parseErr("restore", err)
	}
	if fs.NArg() != 0 || *from == "" {
		fmt.Fprint(stderr, backupUsage)
		return fmt.Errorf("restore: --from FILE is required: %w", errUsage)
	}
	if _, err := os.Stat(*from); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	serving := fmt.Errorf("restore: an appliance is serving %s: stop it first (systemctl stop linkplan), then restore", *dataDir)
	if res, err := askAppliance(ctx, *dataDir, http.MethodGet, "/status"); err == nil {
		res.Body.Close()
		return serving
	} else if !errors.Is(err, errNoAppliance) {
		return fmt.Errorf("restore: %w", err)
	}
	release, err := store.LockFile(*dataDir)
	if errors.Is(err, store.ErrLocked) {
		return serving
	}
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer release()
	// a warm standby serving the directory holds DATA/standby/lock, not
	// the database's lock
	relSB, err := lockStandbyDir("restore", *dataDir)
	if err != nil {
		return err
	}
	defer func() { _ = relSB() }()
	r, err := backup.Restore(ctx, *from, filepath.Join(*dataDir, store.FileName), checkIsolated, store.SchemaVersion(), time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "restored %s from %s\n", filepath.Join(*dataDir, store.FileName), *from)
	printManifest(stdout, r.Manifest)
	if r.Manifest.Schema < store.SchemaVersion() {
		fmt.Fprintf(stdout, "  the next start migrates it from schema version %d to %d (a pre-migration backup is taken first)\n", r.Manifest.Schema, store.SchemaVersion())
	}
	if r.Kept != "" {
		fmt.Fprintf(stdout, "  the previous database is kept as %s: delete it once the restored appliance is checked\n", r.Kept)
	}
	return nil
}

func printManifest(w io.Writer, m appliance.BackupManifest) {
	fmt.Fprintf(w, "  taken: %s by linkplan %s (%s)\n", m.CreatedAt.Format(time.RFC3339), m.Version, m.Trigger)
	fmt.Fprintf(w, "  database: %d bytes, schema version %d, transaction %d, sha256 %s\n", m.DB.Bytes, m.Schema, m.DB.TxID, m.DB.SHA256)
	for _, f := range m.TerrainPacks {
		fmt.Fprintf(w, "  terrain pack in use (not in the backup): %s sha256 %s\n", f.Name, f.SHA256)
	}
	for _, f := range m.TowerSources {
		fmt.Fprintf(w, "  tower source in use (not in the backup): %s sha256 %s\n", f.Name, f.SHA256)
	}
}

// parseErr is the error of a command line the flag package refused (it
// printed the usage): -h and --help stay flag.ErrHelp.
func parseErr(cmd string, err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return fmt.Errorf("%s: %v: %w", cmd, err, errUsage)
}
