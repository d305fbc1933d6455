package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"linkplan/appliance/cmd/linkplan/assemble"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
	"linkplan/appliance/backup"
	"linkplan/appliance/sampledata"
	"linkplan/appliance/standby"
	"linkplan/store"
	"linkplan/terrain-packs/sample"
	"linkplan/web"
	"linkplan/web/api"
)

// standbyConfig configures the warm standby (serve --standby-*).
type standbyConfig struct {
	Of    string        // the primary's URL; "" = this appliance is a primary
	Key   string        // the standby key issued on the primary
	Every time.Duration // pull interval
}

// serveStandby runs the warm standby of issue 21: it pulls a verified
// snapshot from the primary every interval, keeps the last good one in
// DATA/standby, and serves /health, /health/ready (503: a standby takes no
// traffic), /health/failover and /metrics; every other route answers 409
// standby. It holds DATA/standby/lock while it runs (linkplan promote
// takes it).
func serveStandby(ctx context.Context, addr, dataDir string, sc standbyConfig, packs, towerFiles []string, log *slog.Logger) error {
	if err := os.MkdirAll(filepath.Join(dataDir, standby.Dir), 0o700); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	release, err := store.LockPath(filepath.Join(dataDir, standby.Dir, "lock"))
	if errors.Is(err, store.ErrLocked) {
		return fmt.Errorf("serve: a standby already runs on %s: %w", dataDir, appliance.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer release()
	mset := metrics.NewSet()
	rep, err := standby.OpenReplica(standby.ReplicaDeps{DataDir: dataDir, PrimaryURL: sc.Of, Key: sc.Key, Every: sc.Every,
		Extract: func(ctx context.Context, from, dbOut string) (appliance.BackupManifest, error) {
			return backup.Extract(ctx, from, dbOut, checkIsolated, store.SchemaVersion())
		},
		Local: func(context.Context) ([]appliance.DataFile, []appliance.DataFile, error) {
			return localDataFiles(dataDir, packs, towerFiles)
		},
		Version: version(), MaxSchema: store.SchemaVersion(), Metrics: mset, Log: log})
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	primary := rep.Failover().PrimaryURL
	a := api.New(api.Deps{PlatformDeps: api.PlatformDeps{Log: log, Version: version(), StandbyOf: primary, Metrics: mset,
		OfflineReason: "a warm standby: it calls its primary " + primary,
		Checks: []api.Check{{Name: "role", Fn: func(context.Context) error {
			return fmt.Errorf("a warm standby of %s: it serves no traffic until promoted (GET /health/failover)", primary)
		}}}},
		OperationsDeps: api.OperationsDeps{Failover: rep}})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: listen %s: %w", addr, err)
	}
	if err := rep.Start(ctx); err != nil {
		return err
	}
	defer func() {
		c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := rep.Close(c); err != nil {
			log.Warn("standby schedule did not stop", "err", err)
		}
	}()
	a.SetState(api.StateReady)
	log.Info("linkplan serving", "addr", ln.Addr().String(), "version", version(), "role", appliance.RoleStandby, "primary", primary, "every", sc.Every.String())
	err = web.New(a, log).Serve(ctx, ln, func() { a.SetState(api.StateStopping) })
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	log.Info("linkplan stopped")
	return err
}

// localDataFiles names and hashes the terrain packs and tower sources the
// standby would serve once promoted, as the primary's data manifest names
// them: the --terrain packs (or the embedded sample), the --towers files
// and those installed in the data directory (or the embedded samples).
func localDataFiles(dataDir string, packs, towerFiles []string) (terrain, towers []appliance.DataFile, err error) {
	embedded := func(name string, b []byte) appliance.DataFile {
		h := sha256.Sum256(b)
		return appliance.DataFile{Name: name, SHA256: hex.EncodeToString(h[:]), Bytes: int64(len(b))}
	}
	terrain, towers = []appliance.DataFile{}, []appliance.DataFile{}
	if len(packs) == 0 {
		terrain = append(terrain, embedded("embedded:rio.ltp", sample.Pack()))
	}
	for _, p := range packs {
		d, err := hashFile(p)
		if err != nil {
			return nil, nil, err
		}
		terrain = append(terrain, d)
	}
	installed, err := assemble.InstalledSources(dataDir)
	if err != nil {
		return nil, nil, err
	}
	files := append(append([]string(nil), towerFiles...), installed...)
	if len(files) == 0 {
		towers = append(towers, embedded("embedded:anatel_erbs_sample.csv", sampledata.AnatelERBs()),
			embedded("embedded:opencellid_724_sample.csv", sampledata.OpenCelliD()))
	}
	for _, f := range files {
		d, err := hashFile(f)
		if err != nil {
			return nil, nil, err
		}
		towers = append(towers, d)
	}
	return terrain, towers, nil
}

// lockStandbyDir holds DATA/standby/lock, the lock a running warm standby
// holds, for a command (cmd: "restore") that must not change a data
// directory a standby serves, as it must not one a primary serves (the
// admin socket and the database lock tell those; a standby has neither).
// A data directory where no standby ever ran (no lock file) has nothing
// to hold. Release unlocks.
func lockStandbyDir(cmd, dataDir string) (release func() error, err error) {
	path := filepath.Join(dataDir, standby.Dir, "lock")
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return func() error { return nil }, nil
	}
	release, err = store.LockPath(path)
	if errors.Is(err, store.ErrLocked) {
		return nil, fmt.Errorf("%s: a warm standby is serving %s (it holds %s): stop it first (systemctl stop linkplan), then %s: %w",
			cmd, dataDir, path, cmd, appliance.ErrConflict)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	return release, nil
}

const promoteUsage = `usage:
  linkplan promote --data-dir DIR [--json]
      turn a stopped warm standby into a primary: its last good snapshot
      becomes DIR/linkplan.db; then start linkplan serve without --standby-of
`

// promoteCmd is `linkplan promote`.
func promoteCmd(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("promote", stderr)
	dataDir := fs.String("data-dir", defaultDataDir(), "data directory of the warm standby")
	asJSON := fs.Bool("json", false, "print the promoted snapshot's manifest as JSON")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), promoteUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return parseErr("promote", err)
	}
	if fs.NArg() != 0 {
		fmt.Fprint(stderr, promoteUsage)
		return fmt.Errorf("promote: unexpected arguments: %w", errUsage)
	}
	if _, err := os.Stat(filepath.Join(*dataDir, standby.Dir)); err != nil {
		return fmt.Errorf("promote: %s is not a warm standby's data directory (no %s): %w", *dataDir, standby.Dir, appliance.ErrConflict)
	}
	release, err := store.LockPath(filepath.Join(*dataDir, standby.Dir, "lock"))
	if errors.Is(err, store.ErrLocked) {
		return fmt.Errorf("promote: the standby is running on %s: stop it first (systemctl stop linkplan), then promote: %w", *dataDir, appliance.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("promote: %w", err)
	}
	defer release()
	r, err := standby.Promote(*dataDir, time.Now())
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(stdout, r.Snapshot)
	}
	fmt.Fprintf(stdout, "promoted %s: %s is the snapshot of %s (transaction %d); start linkplan serve on it without --standby-of\n",
		*dataDir, r.Database, r.Snapshot.CreatedAt.UTC().Format(time.RFC3339Nano), r.Snapshot.DB.TxID)
	printManifest(stdout, r.Snapshot)
	return nil
}
