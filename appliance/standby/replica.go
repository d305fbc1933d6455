package standby

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"linkplan/appliance"
	"linkplan/appliance/telemetry"
)

// Extractor verifies a backup file and writes its database to dbOut
// (backup.Extract bound to the structural check and this binary's schema
// version).
type Extractor func(ctx context.Context, from, dbOut string) (appliance.BackupManifest, error)

// ReplicaDeps configure a Replica.
type ReplicaDeps struct {
	DataDir    string
	PrimaryURL string // the primary's root URL, e.g. https://primary.example:8080
	Key        string // the standby key the primary's admin issued
	Every      time.Duration
	Client     *http.Client // nil: a client with a 30 min overall timeout
	Extract    Extractor
	// Local lists this standby's terrain packs and tower sources by
	// SHA-256 (compared with the primary's).
	Local   func(ctx context.Context) (terrain, towers []appliance.DataFile, err error)
	Version string
	// MaxSchema is this binary's schema version: a snapshot of a newer
	// one is not ready to promote.
	MaxSchema int
	Metrics   *metrics.Set // nil: none
	Log       *slog.Logger
	Now       func() time.Time // nil: time.Now
}

// Replica is the standby side: it pulls snapshots on a schedule and
// reports the failover state.
type Replica struct {
	d      ReplicaDeps
	pullMu sync.Mutex // one pull at a time

	mu            sync.Mutex
	st            State
	localTerrain  []appliance.DataFile
	localTowers   []appliance.DataFile
	localErr      string
	pulls         map[string]int // by result
	cancel        context.CancelFunc
	done          chan struct{}
	primaryPublic string
}

// OpenReplica prepares dataDir as a standby of d.PrimaryURL: it refuses a
// data directory holding a database (a primary's, or a promoted
// standby's) or one that is the standby of another primary, removes a pull
// left in progress and writes the state file.
func OpenReplica(d ReplicaDeps) (*Replica, error) {
	if d.Every < MinEvery {
		return nil, fmt.Errorf("standby: the interval %v is under %v: %w", d.Every, MinEvery, appliance.ErrInvalid)
	}
	u, err := url.Parse(d.PrimaryURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("standby: the primary's URL %q is not an http or https URL: %w", d.PrimaryURL, appliance.ErrInvalid)
	}
	if !strings.HasPrefix(d.Key, keyPrefix) {
		return nil, fmt.Errorf("standby: a standby key (%s..., issued by POST /admin/standby-key on the primary) is required: %w", keyPrefix, appliance.ErrInvalid)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Client == nil {
		d.Client = &http.Client{Timeout: 30 * time.Minute}
	}
	// The standby key goes to the primary's URL only: a redirect (which
	// would carry X-Standby-Key to another host) is a failed pull.
	c := *d.Client
	c.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
		return fmt.Errorf("the primary redirected to %s: give --standby-of the primary's final URL (the standby key is never sent elsewhere)", req.URL.Redacted())
	}
	d.Client = &c
	pub := *u
	pub.User, pub.RawQuery, pub.Fragment = nil, "", ""
	d.PrimaryURL = strings.TrimRight(u.String(), "/")
	st, ok, err := ReadState(d.DataDir)
	if err != nil {
		return nil, err
	}
	// A promoted standby restarted with its old settings: the remedy is
	// the setting, not another directory.
	if ok && st.Role == appliance.RolePrimary {
		return nil, fmt.Errorf("standby: %s was promoted to a primary at %s (%s says so): remove --standby-of / LINKPLAN_STANDBY_OF (/etc/linkplan/linkplan.conf) and start serve as a primary: %w",
			d.DataDir, st.PromotedAt.Format(time.RFC3339), filepath.Join(Dir, StateFile), appliance.ErrConflict)
	}
	if _, err := os.Stat(filepath.Join(d.DataDir, DBFile)); err == nil {
		return nil, fmt.Errorf("standby: %s holds a database (%s): a primary's data directory is never overwritten by snapshots; give the standby an empty data directory: %w",
			d.DataDir, DBFile, appliance.ErrConflict)
	}
	if ok && st.PrimaryURL != pub.String() && st.Snapshot != nil {
		return nil, fmt.Errorf("standby: %s is the standby of %s, not of %s: give it an empty data directory: %w", d.DataDir, st.PrimaryURL, pub.String(), appliance.ErrConflict)
	}
	st.Role, st.PrimaryURL = appliance.RoleStandby, pub.String()
	if st.Snapshot != nil {
		if _, err := os.Stat(filepath.Join(d.DataDir, Dir, SnapshotFile)); err != nil {
			st.Snapshot = nil // the state names a snapshot that is gone
		}
	}
	for _, f := range []string{incomingTar, incomingDB} {
		_ = os.Remove(filepath.Join(d.DataDir, Dir, f))
	}
	if err := writeState(d.DataDir, st); err != nil {
		return nil, err
	}
	r := &Replica{d: d, st: st, primaryPublic: pub.String(), pulls: map[string]int{}}
	if d.Metrics != nil {
		d.Metrics.RegisterMetricsWriter(r.writeMetrics)
	}
	return r, nil
}

// Start begins the schedule: a pull at once, then one every Every. The
// local data files are hashed first (a national pack takes a while).
func (r *Replica) Start(ctx context.Context) error {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel, r.done = cancel, make(chan struct{})
	go func() {
		defer close(r.done)
		r.hashLocal(ctx)
		t := time.NewTicker(r.d.Every)
		defer t.Stop()
		for {
			if err := r.safePull(ctx); err != nil && ctx.Err() == nil {
				r.d.Log.Warn("standby: pull failed; the last good snapshot stays", "primary", r.primaryPublic, "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return nil
}

// safePull is Pull with a panic (a bug, e.g. on a snapshot the checks let
// through) turned into a failed pull, logged with its stack: the last good
// snapshot stays and the schedule goes on.
func (r *Replica) safePull(ctx context.Context) (err error) {
	defer func() {
		if p := recover(); p != nil {
			r.d.Log.Error("standby: pull panicked", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = fmt.Errorf("standby pull: panic: %v", p)
		}
	}()
	return r.Pull(ctx)
}

// Close stops the schedule; a pull in progress is cancelled and removes
// its partial files.
func (r *Replica) Close(ctx context.Context) error {
	if r.cancel == nil {
		return nil
	}
	r.cancel()
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *Replica) hashLocal(ctx context.Context) {
	if r.d.Local == nil {
		return
	}
	ter, tow, err := r.d.Local(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.localTerrain, r.localTowers = ter, tow
	if err != nil {
		r.localErr = err.Error()
	}
}

// Pull fetches one snapshot, verifies it and makes it the last good one.
// On any failure the last good snapshot stays and the failure is recorded.
func (r *Replica) Pull(ctx context.Context) error {
	r.pullMu.Lock()
	defer r.pullMu.Unlock()
	start := r.d.Now()
	m, verr, err := r.pull(ctx)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	r.mu.Lock()
	st := r.st
	st.LastAttempt = start
	st.LastError = ""
	if err != nil {
		st.LastError = err.Error()
	}
	if verr != nil {
		st.VerifyError = verr.Error()
	} else if err == nil {
		st.VerifyError = ""
		st.Snapshot, st.FetchedAt = &m, r.d.Now()
	}
	r.st = st
	if err != nil {
		r.pulls["failed"]++
	} else {
		r.pulls["ok"]++
	}
	r.mu.Unlock()
	if werr := writeState(r.d.DataDir, st); werr != nil {
		return errors.Join(err, werr)
	}
	if err == nil {
		r.d.Log.Info("standby: snapshot pulled and verified", "primary", r.primaryPublic, "txid", m.DB.TxID,
			"bytes", m.DB.Bytes, "snapshot_at", m.CreatedAt.Format(time.RFC3339Nano), "took", r.d.Now().Sub(start).Round(time.Millisecond).String())
	}
	return err
}

// pull returns the manifest of a verified snapshot, now in snapshot.db;
// verr is set when the file arrived but failed verification.
func (r *Replica) pull(ctx context.Context) (m appliance.BackupManifest, verr, err error) {
	dir := filepath.Join(r.d.DataDir, Dir)
	tarPath, dbPath := filepath.Join(dir, incomingTar), filepath.Join(dir, incomingDB)
	defer os.Remove(tarPath)
	defer os.Remove(dbPath)
	_ = os.Remove(dbPath)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.d.PrimaryURL+snapshotPath, nil)
	if err != nil {
		return m, nil, fmt.Errorf("pull: %w", err)
	}
	req.Header.Set(keyHeader, r.d.Key)
	req.Header.Set("User-Agent", "linkplan-standby/"+r.d.Version)
	res, err := r.d.Client.Do(req)
	if err != nil {
		return m, nil, fmt.Errorf("pull from the primary: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 2048))
		return m, nil, fmt.Errorf("pull from the primary: %s: %s", res.Status, strings.TrimSpace(string(b)))
	}
	f, err := os.OpenFile(tarPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return m, nil, fmt.Errorf("pull: %w", err)
	}
	n, cerr := io.Copy(f, res.Body)
	if cerr == nil {
		cerr = f.Sync()
	}
	if err := errors.Join(cerr, f.Close()); err != nil {
		return m, nil, fmt.Errorf("pull: received %d bytes: %w", n, err)
	}
	if res.ContentLength >= 0 && n != res.ContentLength {
		return m, nil, fmt.Errorf("pull: received %d of %d bytes", n, res.ContentLength)
	}
	m, err = r.d.Extract(ctx, tarPath, dbPath)
	if err == nil && m.DB.SHA256 != res.Header.Get("X-Linkplan-Backup-Sha256") {
		err = fmt.Errorf("the primary announced database SHA-256 %s, the snapshot received holds %s: %w", res.Header.Get("X-Linkplan-Backup-Sha256"), m.DB.SHA256, appliance.ErrCorrupt)
	}
	r.mu.Lock()
	prev := r.st.Snapshot
	r.mu.Unlock()
	if err == nil && prev != nil && m.CreatedAt.Before(prev.CreatedAt) {
		err = fmt.Errorf("the snapshot is older (%s) than the last good one (%s): %w", m.CreatedAt.Format(time.RFC3339Nano), prev.CreatedAt.Format(time.RFC3339Nano), appliance.ErrConflict)
	}
	if err != nil {
		return m, err, fmt.Errorf("the snapshot failed verification: %w", err)
	}
	if err := os.Rename(dbPath, filepath.Join(dir, SnapshotFile)); err != nil {
		return m, nil, fmt.Errorf("pull: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return m, nil, fmt.Errorf("pull: %w", err)
	}
	return m, nil, nil
}

// writeMetrics writes the standby's samples (declared in
// appliance/telemetry).
func (r *Replica) writeMetrics(w io.Writer) {
	f := r.Failover()
	r.mu.Lock()
	ok, failed := r.pulls["ok"], r.pulls["failed"]
	r.mu.Unlock()
	bit := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	fmt.Fprintf(w, "%s{result=\"failed\"} %d\n%s{result=\"ok\"} %d\n", telemetry.StandbyPulls, failed, telemetry.StandbyPulls, ok)
	if f.LagS != nil {
		fmt.Fprintf(w, "%s %s\n", telemetry.StandbyLag, strconv.FormatFloat(*f.LagS, 'f', 3, 64))
	}
	if f.LastAttemptResult != "none" {
		fmt.Fprintf(w, "%s %d\n", telemetry.StandbyLastPullOK, bit(f.LastAttemptResult == "ok"))
	}
	fmt.Fprintf(w, "%s %d\n", telemetry.StandbyReadyToPromote, bit(f.ReadyToPromote))
}

// Failover reports the standby's state (GET /health/failover).
func (r *Replica) Failover() appliance.FailoverStatus {
	maxSchema := r.d.MaxSchema
	now := r.d.Now()
	r.mu.Lock()
	st, ter, tow, lerr := r.st, r.localTerrain, r.localTowers, r.localErr
	r.mu.Unlock()
	out := appliance.FailoverStatus{Role: appliance.RoleStandby, Version: r.d.Version, PrimaryURL: st.PrimaryURL,
		EveryS: r.d.Every.Seconds(), LastAttemptResult: "none", Reasons: []string{}}
	if !st.LastAttempt.IsZero() {
		t := st.LastAttempt.UTC()
		out.LastAttemptAt, out.LastAttemptResult = &t, "ok"
		if st.LastError != "" {
			out.LastAttemptResult, out.LastAttemptError = "failed", st.LastError
		}
	}
	out.Verification = appliance.SnapshotVerification{Status: "none"}
	switch {
	case st.VerifyError != "":
		out.Verification.Status, out.Verification.Reason = "failed", st.VerifyError
	case st.Snapshot != nil:
		out.Verification.Status = "ok"
	}
	if st.Snapshot == nil {
		out.TerrainPacks, out.TowerSources = compare(nil, ter, false), compare(nil, tow, false)
		out.Reasons = append(out.Reasons, "no verified snapshot yet")
		if st.LastError != "" {
			out.Reasons = append(out.Reasons, "the latest pull failed: "+st.LastError)
		}
		return out
	}
	m := st.Snapshot
	at := m.CreatedAt.UTC()
	age := now.Sub(at).Seconds()
	out.LastSnapshotAt, out.LastSnapshotAgeS, out.LagS = &at, &age, &age
	out.Verification.SHA256, out.Verification.TxID, out.Verification.Schema = m.DB.SHA256, m.DB.TxID, m.DB.Schema
	out.TerrainPacks, out.TowerSources = compare(m.TerrainPacks, ter, true), compare(m.TowerSources, tow, true)
	if maxSchema > 0 && m.Schema > maxSchema {
		out.Reasons = append(out.Reasons, fmt.Sprintf("the snapshot has schema version %d, newer than this linkplan's %d: upgrade the standby first", m.Schema, maxSchema))
	}
	if lerr != "" {
		out.Reasons = append(out.Reasons, "this standby's data files could not be hashed: "+lerr)
	} else if ter == nil && tow == nil && r.d.Local != nil {
		out.Reasons = append(out.Reasons, "this standby's data files are still being hashed")
	}
	if out.TerrainPacks.Match != nil && !*out.TerrainPacks.Match {
		out.Reasons = append(out.Reasons, "the terrain packs differ from the primary's: "+strings.Join(out.TerrainPacks.Differences, ", "))
	}
	if out.TowerSources.Match != nil && !*out.TowerSources.Match {
		out.Reasons = append(out.Reasons, "the tower sources differ from the primary's: "+strings.Join(out.TowerSources.Differences, ", "))
	}
	out.ReadyToPromote = len(out.Reasons) == 0
	return out
}

// compare matches the primary's files with the local ones by SHA-256, as
// sets (the paths may differ between the machines).
func compare(primary, local []appliance.DataFile, known bool) appliance.DataMatch {
	out := appliance.DataMatch{Primary: base(primary), Local: base(local), Differences: []string{}}
	if !known || local == nil {
		return out
	}
	in := func(fs []appliance.DataFile, h string) bool {
		return slices.ContainsFunc(fs, func(f appliance.DataFile) bool { return f.SHA256 == h })
	}
	for _, f := range out.Primary {
		if !in(out.Local, f.SHA256) {
			out.Differences = append(out.Differences, "the primary's "+f.Name+" (sha256 "+short(f.SHA256)+") is not here")
		}
	}
	for _, f := range out.Local {
		if !in(out.Primary, f.SHA256) {
			out.Differences = append(out.Differences, "this standby's "+f.Name+" (sha256 "+short(f.SHA256)+") is not on the primary")
		}
	}
	match := len(out.Differences) == 0
	out.Match = &match
	return out
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// base names files by their base name only (no paths of either machine).
func base(fs []appliance.DataFile) []appliance.DataFile {
	out := make([]appliance.DataFile, len(fs))
	for i, f := range fs {
		if !strings.HasPrefix(f.Name, "embedded:") {
			f.Name = filepath.Base(f.Name)
		}
		out[i] = f
	}
	return out
}
