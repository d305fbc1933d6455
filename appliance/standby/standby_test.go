package standby_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/standby"
)

// The backup file itself is appliance/backup's (tested there and on the
// binary, TestIssue21_StandbyDrill); here a snapshot is an opaque body
// whose "extraction" writes it as the database, so that the replica's
// states can be driven: good, corrupt (Extract fails), older, primary down.

func sum(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

// primary serves GET /replication/snapshot with body(n) for the n-th pull;
// status(n) != 200 answers that status instead.
type primary struct {
	key    string
	pulls  atomic.Int32
	status func(n int) int
	body   func(n int) []byte
}

func (p *primary) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(p.pulls.Add(1))
	if r.URL.Path != "/replication/snapshot" || r.Header.Get("X-Standby-Key") != p.key {
		http.Error(w, "no", http.StatusUnauthorized)
		return
	}
	if st := p.status(n); st == http.StatusTemporaryRedirect {
		http.Redirect(w, r, "http://elsewhere.invalid/steal", st)
		return
	} else if st != http.StatusOK {
		http.Error(w, "down", st)
		return
	}
	b := p.body(n)
	w.Header().Set("X-Linkplan-Backup-Sha256", sum(b))
	_, _ = w.Write(b)
}

// extract reads the "snapshot" body: "<unix ms> <content>"; content
// "corrupt" fails verification.
func extract(_ context.Context, from, dbOut string) (appliance.BackupManifest, error) {
	b, err := os.ReadFile(from)
	if err != nil {
		return appliance.BackupManifest{}, err
	}
	var ms int64
	var content string
	if _, err := fmt.Sscanf(string(b), "%d %s", &ms, &content); err != nil || content == "corrupt" {
		return appliance.BackupManifest{}, fmt.Errorf("bad snapshot: %w", appliance.ErrCorrupt)
	}
	if err := os.WriteFile(dbOut, b, 0o600); err != nil {
		return appliance.BackupManifest{}, err
	}
	return appliance.BackupManifest{Schema: 13, CreatedAt: time.UnixMilli(ms).UTC(), DB: appliance.DBSnapshot{SHA256: sum(b), TxID: uint64(ms)},
		TerrainPacks: []appliance.DataFile{{Name: "/srv/a/rio.ltp", SHA256: "aa"}}, TowerSources: []appliance.DataFile{{Name: "embedded:x.csv", SHA256: "bb"}}}, nil
}

const key = "lpsb_" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func newReplica(t *testing.T, dir, url string, local []appliance.DataFile) *standby.Replica {
	t.Helper()
	r, err := standby.OpenReplica(standby.ReplicaDeps{DataDir: dir, PrimaryURL: url, Key: key, Every: time.Second, Extract: extract, MaxSchema: 13,
		Local: func(context.Context) ([]appliance.DataFile, []appliance.DataFile, error) {
			return local[:1], local[1:], nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil { // hashes the local files, pulls once
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	return r
}

func TestReplicaStates(t *testing.T) {
	base := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC).UnixMilli()
	match := []appliance.DataFile{{Name: "/other/path/rio.ltp", SHA256: "aa"}, {Name: "embedded:x.csv", SHA256: "bb"}}
	cases := []struct {
		name   string
		status func(n int) int
		body   func(n int) []byte
		local  []appliance.DataFile
		pulls  int // Pull calls after the first
		// want
		ready       bool
		verify      string
		attempt     string
		txid        uint64
		reasonParts []string
	}{
		{name: "good snapshots", local: match, pulls: 1,
			status: func(int) int { return 200 }, body: func(n int) []byte { return fmt.Appendf(nil, "%d db%d", base+int64(n), n) },
			ready: true, verify: "ok", attempt: "ok", txid: uint64(base + 2)},
		{name: "corrupt after a good one keeps the good one", local: match, pulls: 1,
			status: func(int) int { return 200 },
			body: func(n int) []byte {
				if n == 2 {
					return fmt.Appendf(nil, "%d corrupt", base+2)
				}
				return fmt.Appendf(nil, "%d db%d", base+int64(n), n)
			},
			ready: true, verify: "failed", attempt: "failed", txid: uint64(base + 1)},
		{name: "primary down after a good one: still ready", local: match, pulls: 2,
			status: func(n int) int {
				if n > 1 {
					return 502
				}
				return 200
			}, body: func(n int) []byte { return fmt.Appendf(nil, "%d db", base+int64(n)) },
			ready: true, verify: "ok", attempt: "failed", txid: uint64(base + 1)},
		{name: "an older snapshot is refused", local: match, pulls: 1,
			status: func(int) int { return 200 }, body: func(n int) []byte { return fmt.Appendf(nil, "%d db", base-int64(n)) },
			ready: true, verify: "failed", attempt: "failed", txid: uint64(base - 1)},
		{name: "never a snapshot", local: match, pulls: 0,
			status: func(int) int { return 503 }, body: nil,
			ready: false, verify: "none", attempt: "failed", reasonParts: []string{"no verified snapshot yet", "503"}},
		{name: "a redirect is not followed", local: match, pulls: 0,
			status: func(int) int { return 307 }, body: nil,
			ready: false, verify: "none", attempt: "failed", reasonParts: []string{"redirected"}},
		{name: "terrain differs", local: []appliance.DataFile{{Name: "rio.ltp", SHA256: "cc"}, {Name: "embedded:x.csv", SHA256: "bb"}}, pulls: 0,
			status: func(int) int { return 200 }, body: func(n int) []byte { return fmt.Appendf(nil, "%d db", base) },
			ready: false, verify: "ok", attempt: "ok", txid: uint64(base), reasonParts: []string{"terrain packs differ", "rio.ltp (sha256 aa)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &primary{key: key, status: c.status, body: c.body}
			srv := httptest.NewServer(p)
			defer srv.Close()
			dir := t.TempDir()
			r := newReplica(t, dir, srv.URL, c.local)
			deadline := time.Now().Add(10 * time.Second)
			for r.Failover().LastAttemptResult == "none" {
				if time.Now().After(deadline) {
					t.Fatal("no first pull")
				}
				time.Sleep(10 * time.Millisecond)
			}
			for range c.pulls {
				_ = r.Pull(context.Background())
			}
			// The standby hashes its own data files in the background:
			// under load the first pull can finish before that.
			for c.local != nil && slices.Contains(r.Failover().Reasons, "this standby's data files are still being hashed") {
				if time.Now().After(deadline) {
					t.Fatal("the local data files were never hashed")
				}
				time.Sleep(10 * time.Millisecond)
			}
			f := r.Failover()
			if f.ReadyToPromote != c.ready || f.Verification.Status != c.verify || f.LastAttemptResult != c.attempt || f.Verification.TxID != c.txid {
				t.Errorf("failover %+v", f)
			}
			for _, part := range c.reasonParts {
				if !strings.Contains(strings.Join(f.Reasons, "; "), part) {
					t.Errorf("reasons %q lack %q", f.Reasons, part)
				}
			}
			if f.Role != appliance.RoleStandby || f.PrimaryURL != srv.URL {
				t.Errorf("role %q primary %q", f.Role, f.PrimaryURL)
			}
			// The snapshot file on disk is the last good one.
			if c.txid != 0 {
				b, err := os.ReadFile(filepath.Join(dir, standby.Dir, standby.SnapshotFile))
				if err != nil || !bytes.HasPrefix(b, fmt.Appendf(nil, "%d ", c.txid)) {
					t.Errorf("snapshot.db %q %v, want txid %d", b, err, c.txid)
				}
			}
			// The schedule pulls every second: under load one can be in
			// flight now, with its partial file. Close cancels it and
			// removes that file, as it does when serve stops.
			if err := r.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			want := 1 // state.json
			if c.txid != 0 {
				want++ // snapshot.db
			}
			if ents, _ := os.ReadDir(filepath.Join(dir, standby.Dir)); len(ents) != want {
				t.Errorf("standby directory holds %d entries, want %d (state.json, snapshot.db; no partial pull)", len(ents), want)
			}
		})
	}
}

func TestOpenReplicaRefuses(t *testing.T) {
	dir := func(setup func(d string)) string {
		d := t.TempDir()
		if setup != nil {
			setup(d)
		}
		return d
	}
	cases := []struct {
		name, dir, url, key, want string
		every                     time.Duration
	}{
		{name: "a primary's data directory", dir: dir(func(d string) { _ = os.WriteFile(filepath.Join(d, "linkplan.db"), []byte("x"), 0o600) }),
			url: "http://p:8080", key: key, every: time.Second, want: "holds a database"},
		{name: "not a URL", dir: dir(nil), url: "primary:8080", key: key, every: time.Second, want: "not an http or https URL"},
		{name: "no key", dir: dir(nil), url: "http://p:8080", key: "", every: time.Second, want: "standby key"},
		{name: "an admin key", dir: dir(nil), url: "http://p:8080", key: "lp_adm_x", every: time.Second, want: "standby key"},
		{name: "interval too short", dir: dir(nil), url: "http://p:8080", key: key, every: time.Millisecond, want: "under"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := standby.OpenReplica(standby.ReplicaDeps{DataDir: c.dir, PrimaryURL: c.url, Key: c.key, Every: c.every, Extract: extract})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want %q", err, c.want)
			}
		})
	}
}

func TestPromote(t *testing.T) {
	base := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC).UnixMilli()
	p := &primary{key: key, status: func(int) int { return 200 }, body: func(int) []byte { return fmt.Appendf(nil, "%d db", base) }}
	srv := httptest.NewServer(p)
	defer srv.Close()

	// Without a snapshot: refused, untouched.
	empty := t.TempDir()
	if _, err := standby.Promote(empty, time.Now()); !errors.Is(err, appliance.ErrConflict) {
		t.Errorf("promote a directory that is no standby: %v", err)
	}
	down := t.TempDir()
	r, err := standby.OpenReplica(standby.ReplicaDeps{DataDir: down, PrimaryURL: "http://127.0.0.1:1", Key: key, Every: time.Second, Extract: extract})
	noErr(t, err)
	_ = r.Pull(context.Background())
	if _, err := standby.Promote(down, time.Now()); err == nil || !strings.Contains(err.Error(), "no verified snapshot") {
		t.Errorf("promote without a snapshot: %v", err)
	}

	dir := t.TempDir()
	r, err = standby.OpenReplica(standby.ReplicaDeps{DataDir: dir, PrimaryURL: srv.URL, Key: key, Every: time.Second, Extract: extract})
	noErr(t, err)
	noErr(t, r.Pull(context.Background()))
	if err := standby.CheckPrimaryStart(dir); !errors.Is(err, appliance.ErrConflict) {
		t.Errorf("a standby served as a primary: %v", err)
	}
	at := time.Date(2026, 11, 28, 13, 0, 0, 0, time.UTC)
	res, err := standby.Promote(dir, at)
	noErr(t, err)
	b, err := os.ReadFile(filepath.Join(dir, "linkplan.db"))
	if err != nil || !bytes.HasPrefix(b, fmt.Appendf(nil, "%d ", base)) || res.Snapshot.DB.TxID != uint64(base) {
		t.Errorf("promoted database %q %v, result %+v", b, err, res)
	}
	noErr(t, standby.CheckPrimaryStart(dir))
	if !standby.Promoted(dir).Equal(at) {
		t.Errorf("promoted at %v", standby.Promoted(dir))
	}
	if _, err := standby.Promote(dir, at); err == nil || !strings.Contains(err.Error(), "already promoted") {
		t.Errorf("second promote: %v", err)
	}
	// A promoted directory never becomes a standby again.
	// Its message says to drop --standby-of, not to find an empty directory.
	if _, err := standby.OpenReplica(standby.ReplicaDeps{DataDir: dir, PrimaryURL: srv.URL, Key: key, Every: time.Second, Extract: extract}); err == nil ||
		!strings.Contains(err.Error(), "remove --standby-of") || strings.Contains(err.Error(), "empty data directory") {
		t.Errorf("a promoted data directory reopened as a standby: %v", err)
	}
	// The primary side reports the promotion.
	src := standby.NewSource(standby.SourceDeps{DataDir: dir})
	if f := src.Failover(); f.Role != appliance.RolePrimary || f.PromotedAt == nil || !f.PromotedAt.Equal(at) || f.ReadyToPromote {
		t.Errorf("source failover %+v", f)
	}
}

func TestSourceKey(t *testing.T) {
	dir := t.TempDir()
	var audited []appliance.AuditEntry
	taken := 0
	src := standby.NewSource(standby.SourceDeps{DataDir: dir,
		Take: func(_ context.Context, trigger string, audit *appliance.AuditEntry) (*appliance.BackupFile, error) {
			taken++
			if trigger != appliance.BackupTriggerStandby || audit == nil || audit.Action != appliance.ActionStandbySnapshot {
				t.Errorf("take %q %+v", trigger, audit)
			}
			return &appliance.BackupFile{Body: io.NopCloser(strings.NewReader("x"))}, nil
		},
		Audit: func(e appliance.AuditEntry) (uint64, error) { audited = append(audited, e); return 1, nil }})
	if _, err := src.Snapshot(context.Background(), key, standby.Client{}); !errors.Is(err, appliance.ErrUnavailable) {
		t.Errorf("snapshot before a key is issued: %v", err)
	}
	k1, err := src.IssueKey(appliance.AuditEntry{ActorKey: "adm1"})
	noErr(t, err)
	k2, err := src.IssueKey(appliance.AuditEntry{ActorKey: "adm1"})
	noErr(t, err)
	for _, c := range []struct {
		name, key string
		want      error
	}{
		{"the current key", k2.StandbyKey, nil},
		{"the revoked key", k1.StandbyKey, appliance.ErrUnauthenticated},
		{"no key", "", appliance.ErrUnauthenticated},
		{"the current key's hash", sum([]byte(k2.StandbyKey)), appliance.ErrUnauthenticated},
	} {
		f, err := src.Snapshot(context.Background(), c.key, standby.Client{IP: "10.0.0.2"})
		if !errors.Is(err, c.want) || (c.want == nil) != (f != nil) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if taken != 1 || len(audited) != 2 || audited[1].Action != appliance.ActionAdminStandbyKey || audited[1].Params["standby_key_id"] != k2.KeyID {
		t.Errorf("taken %d, audited %+v", taken, audited)
	}
	raw, err := os.ReadFile(filepath.Join(dir, standby.KeyFile))
	noErr(t, err)
	if strings.Contains(string(raw), k2.StandbyKey) {
		t.Error("the key file holds the plain key")
	}
	if fi, _ := os.Stat(filepath.Join(dir, standby.KeyFile)); fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v", fi.Mode())
	}
	if f := src.Failover(); !f.StandbyKeyIssued || f.SnapshotsServed != 1 || f.LastSnapshotServedAt == nil {
		t.Errorf("source failover %+v", f)
	}
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
