package tenancy_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	bolt "go.etcd.io/bbolt"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
	"linkplan/store"
)

// appliance6 is a data directory with its store and service, reopenable as
// a restart would.
type appliance6 struct {
	dir string
	now *time.Time
	db  *store.DB
	svc *tenancy.Service
}

func open6(t *testing.T, dir string, now *time.Time) *appliance6 {
	t.Helper()
	db, err := store.Open(dir, store.Options{Now: func() time.Time { return *now }})
	if err != nil {
		t.Fatal(err)
	}
	a := &appliance6{dir: dir, now: now, db: db, svc: tenancy.New(db, func() time.Time { return *now })}
	t.Cleanup(func() { _ = a.db.Close() })
	return a
}

// restart closes the store and opens the data directory again, with a new
// service (its in-memory state gone), as a process restart does.
func (a *appliance6) restart(t *testing.T) {
	t.Helper()
	if err := a.db.Close(); err != nil {
		t.Fatal(err)
	}
	b := open6(t, a.dir, a.now)
	a.db, a.svc = b.db, b.svc
	if _, _, err := a.svc.Bootstrap(a.dir); err != nil {
		t.Fatal(err)
	}
}

func (a *appliance6) creds(t *testing.T) tenancy.Credentials {
	t.Helper()
	c, err := tenancy.ReadCredentials(a.dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (a *appliance6) admin(t *testing.T, plain string) *appliance.APIKey {
	t.Helper()
	k, err := a.svc.Authenticate(plain)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// lastAudit returns the newest audit entry with the action.
func (a *appliance6) lastAudit(t *testing.T, action string) (appliance.AuditEntry, bool) {
	t.Helper()
	es, err := a.db.Audit("", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.Action == action {
			return e, true
		}
	}
	return appliance.AuditEntry{}, false
}

func bootstrap6(t *testing.T) (*appliance6, tenancy.Credentials) {
	t.Helper()
	now := time.Unix(1_790_000_000, 0)
	a := open6(t, t.TempDir(), &now)
	if _, created, err := a.svc.Bootstrap(a.dir); err != nil || !created {
		t.Fatalf("bootstrap: %v %v", created, err)
	}
	return a, a.creds(t)
}

var client6 = tenancy.Client{IP: "203.0.113.7", UserAgent: "drill/1.0", RequestID: "rid-6", Route: "/admin/keys"}

// TestFinding6ReplayRefusedAfterRestart is the regression test of issue 7,
// finding 6: the replay guard lived in memory, so after a restart a used
// code worked again. The last accepted step is now in the store.
func TestFinding6ReplayRefusedAfterRestart(t *testing.T) {
	a, c := bootstrap6(t)
	code, _ := totp.GenerateCode(c.TOTPSecret, *a.now)
	if err := a.svc.VerifyAdminFrom(a.admin(t, c.APIKey), code, client6); err != nil {
		t.Fatalf("first use: %v", err)
	}
	a.restart(t)
	err := a.svc.VerifyAdminFrom(a.admin(t, c.APIKey), code, client6)
	if !errors.Is(err, appliance.ErrForbidden) || !strings.Contains(err.Error(), "already used") {
		t.Fatalf("replay after restart: %v, want ErrForbidden (already used)", err)
	}
	e, ok := a.lastAudit(t, tenancy.ActionTOTPReplayed)
	if !ok || e.IP != client6.IP || e.UserAgent != client6.UserAgent || e.RequestID != client6.RequestID || e.Route != client6.Route || e.ActorKey == "" {
		t.Errorf("replay audit entry %+v (found %v), want the client's details", e, ok)
	}
	// An earlier step is a replay too; the next step is fresh.
	prev, _ := totp.GenerateCode(c.TOTPSecret, a.now.Add(-30*time.Second))
	if err := a.svc.VerifyAdminFrom(a.admin(t, c.APIKey), prev, client6); !errors.Is(err, appliance.ErrForbidden) {
		t.Errorf("code of the previous step after a later one: %v, want ErrForbidden", err)
	}
	*a.now = a.now.Add(30 * time.Second)
	next, _ := totp.GenerateCode(c.TOTPSecret, *a.now)
	if err := a.svc.VerifyAdminFrom(a.admin(t, c.APIKey), next, client6); err != nil {
		t.Errorf("next step: %v", err)
	}
}

// TestFinding6ThrottlePerClient: the failure throttle refused valid codes
// from everyone for 5 minutes and was not audited. It now counts per admin
// key and client address (with a per-key ceiling for distributed guessing),
// and audits failed, throttled and replayed attempts with the client's
// address, user agent and request id.
func TestFinding6ThrottlePerClient(t *testing.T) {
	a, c := bootstrap6(t)
	k := a.admin(t, c.APIKey)
	attacker := tenancy.Client{IP: "198.51.100.9", UserAgent: "guesser", RequestID: "rid-bad", Route: "/admin/keys"}
	for i := range tenancy.MaxTOTPFailures {
		if err := a.svc.VerifyAdminFrom(k, "000000", attacker); !errors.Is(err, appliance.ErrForbidden) {
			t.Fatalf("guess %d: %v", i, err)
		}
	}
	if e, ok := a.lastAudit(t, tenancy.ActionTOTPFailed); !ok || e.IP != attacker.IP || e.UserAgent != "guesser" || e.RequestID != "rid-bad" {
		t.Errorf("failed attempt audit %+v", e)
	}
	step := 0
	fresh := func() string {
		step++
		*a.now = a.now.Add(30 * time.Second)
		code, _ := totp.GenerateCode(c.TOTPSecret, *a.now)
		return code
	}
	tests := []struct {
		name   string
		client tenancy.Client
		want   error
		audit  string // action of the audit entry the attempt leaves, "" none
	}{
		{name: "throttled address refused with a valid code", client: attacker, want: appliance.ErrQuota, audit: tenancy.ActionTOTPThrottled},
		{name: "another address is not throttled", client: client6, want: nil},
		// Refused again in the same window: counted, not written (one row
		// per key, address group and window; see TestFinding6ThrottledRowsBounded).
		{name: "same address other user agent still throttled", client: tenancy.Client{IP: attacker.IP, UserAgent: "other"}, want: appliance.ErrQuota},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := a.db.Audit("", 0)
			err := a.svc.VerifyAdminFrom(k, fresh(), tc.client)
			if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			after, _ := a.db.Audit("", 0)
			if tc.audit == "" {
				if len(after) != len(before) {
					t.Errorf("accepted attempt left audit entries %+v", after[:len(after)-len(before)])
				}
				return
			}
			if len(after) != len(before)+1 || after[0].Action != tc.audit || after[0].IP != tc.client.IP || after[0].UserAgent != tc.client.UserAgent {
				t.Errorf("audit entry %+v, want %s from %s", after[0], tc.audit, tc.client.IP)
			}
		})
	}
	// The window passes: the attacker's address may try again.
	*a.now = a.now.Add(tenancy.TOTPFailureWindow + time.Minute)
	if err := a.svc.VerifyAdminFrom(k, fresh(), attacker); err != nil {
		t.Errorf("after the window: %v", err)
	}
	// A distributed guess: MaxTOTPFailuresPerKey failures from many
	// addresses throttle the key everywhere until the window passes.
	for i := range tenancy.MaxTOTPFailuresPerKey {
		ip := fmt.Sprintf("192.0.2.%d", i)
		if err := a.svc.VerifyAdminFrom(k, "000000", tenancy.Client{IP: ip}); !errors.Is(err, appliance.ErrForbidden) {
			t.Fatalf("distributed guess %d: %v", i, err)
		}
	}
	if err := a.svc.VerifyAdminFrom(k, fresh(), tenancy.Client{IP: "203.0.113.200"}); !errors.Is(err, appliance.ErrQuota) {
		t.Errorf("after %d failures from many addresses: %v, want ErrQuota", tenancy.MaxTOTPFailuresPerKey, err)
	}
}

// TestFinding6SecretSealedAtRest: the store keeps the TOTP secret sealed
// under the admin key (only its hash is stored), never in clear.
func TestFinding6SecretSealedAtRest(t *testing.T) {
	a, c := bootstrap6(t)
	k, err := a.db.KeyByHash(tenancy.Hash(c.APIKey))
	if err != nil {
		t.Fatal(err)
	}
	if k.TOTPSecret != "" || !strings.HasPrefix(k.TOTPSealed, "v1.") {
		t.Fatalf("stored record: clear %q, sealed %q", k.TOTPSecret, k.TOTPSealed)
	}
	if err := a.db.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(a.dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(c.TOTPSecret)) || bytes.Contains(raw, []byte(c.APIKey)) {
		t.Fatal("the database file holds the TOTP secret or the plain admin key")
	}
	a.restart(t)
	code, _ := totp.GenerateCode(c.TOTPSecret, *a.now)
	if err := a.svc.VerifyAdminFrom(a.admin(t, c.APIKey), code, client6); err != nil {
		t.Fatalf("verify with the sealed secret: %v", err)
	}
}

// writeLegacyAdmin rewrites the admin key record as a version before
// sealing stored it: the TOTP secret in clear beside the hash.
func writeLegacyAdmin(t *testing.T, dir, plain, secret string) {
	t.Helper()
	b, err := bolt.Open(filepath.Join(dir, store.FileName), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	err = b.Update(func(tx *bolt.Tx) error {
		keys := tx.Bucket([]byte("keys"))
		h := []byte(tenancy.Hash(plain))
		var rec map[string]any
		if err := json.Unmarshal(keys.Get(h), &rec); err != nil {
			return err
		}
		delete(rec, "totp_sealed")
		rec["totp_secret"] = secret
		raw, _ := json.Marshal(rec)
		return keys.Put(h, raw)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFinding6MigrationFromClearLayout: data directories of earlier versions
// keep working. Their admin record holds the secret in clear; it is sealed
// at start-up when admin-credentials.json names the key, else on the key's
// first authentication, each with an audit entry; codes keep working.
func TestFinding6MigrationFromClearLayout(t *testing.T) {
	for _, tc := range []struct {
		name         string
		removeFile   bool
		sealedAtBoot bool
	}{
		{name: "credentials file present: sealed at start-up", sealedAtBoot: true},
		{name: "credentials file deleted: sealed on first use", removeFile: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, c := bootstrap6(t)
			if err := a.db.Close(); err != nil {
				t.Fatal(err)
			}
			writeLegacyAdmin(t, a.dir, c.APIKey, c.TOTPSecret)
			if tc.removeFile {
				if err := os.Remove(filepath.Join(a.dir, tenancy.CredentialsFile)); err != nil {
					t.Fatal(err)
				}
			}
			b := open6(t, a.dir, a.now)
			if k, err := b.db.KeyByHash(tenancy.Hash(c.APIKey)); err != nil || k.TOTPSecret != c.TOTPSecret {
				t.Fatalf("legacy record not read: %+v %v", k, err)
			}
			if _, created, err := b.svc.Bootstrap(b.dir); err != nil || created {
				t.Fatalf("bootstrap over legacy data: created %v, %v", created, err)
			}
			k, _ := b.db.KeyByHash(tenancy.Hash(c.APIKey))
			if sealed := k.TOTPSealed != "" && k.TOTPSecret == ""; sealed != tc.sealedAtBoot {
				t.Fatalf("after start-up: sealed %v, want %v", sealed, tc.sealedAtBoot)
			}
			// bbolt does not wipe freed pages: the sealed record's old page
			// kept the clear secret until Bootstrap compacted the file.
			if tc.sealedAtBoot && b.fileHolds(t, c.TOTPSecret) {
				t.Fatal("after start-up the database file still holds the clear TOTP secret it sealed")
			}
			code, _ := totp.GenerateCode(c.TOTPSecret, *b.now)
			if err := b.svc.VerifyAdminFrom(b.admin(t, c.APIKey), code, client6); err != nil {
				t.Fatalf("verify after migration: %v", err)
			}
			k, _ = b.db.KeyByHash(tenancy.Hash(c.APIKey))
			if k.TOTPSecret != "" || k.TOTPSealed == "" {
				t.Fatalf("after first use: clear %q sealed %q", k.TOTPSecret, k.TOTPSealed)
			}
			if e, ok := b.lastAudit(t, tenancy.ActionTOTPSealed); !ok || e.ActorKey != k.ID {
				t.Errorf("no %s audit entry: %+v", tenancy.ActionTOTPSealed, e)
			}
			// A secret sealed on first use stays in a freed page (unless a
			// later write reused it) until the next start-up compacts.
			t.Logf("after first use the file holds the clear secret: %v", b.fileHolds(t, c.TOTPSecret))
			b.restart(t)
			if b.fileHolds(t, c.TOTPSecret) {
				t.Fatal("after the next start-up the database file still holds the clear TOTP secret")
			}
			*b.now = b.now.Add(30 * time.Second)
			code, _ = totp.GenerateCode(c.TOTPSecret, *b.now)
			if err := b.svc.VerifyAdminFrom(b.admin(t, c.APIKey), code, client6); err != nil {
				t.Fatalf("verify after compaction: %v", err)
			}
		})
	}
}

// fileHolds reports whether the database file contains s; the store stays
// open (bbolt writes every commit to the file).
func (a *appliance6) fileHolds(t *testing.T, s string) bool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(a.dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(raw, []byte(s))
}

// TestFinding2BadCredentialsFileDoesNotStopStartUp: a credentials file that
// cannot be used (left half-edited by an operator, or only
// totp_moved_unix after the key was removed) refused start-up. Only store
// errors stop it now; the file is logged, without its content, and skipped.
func TestFinding2BadCredentialsFileDoesNotStopStartUp(t *testing.T) {
	tests := []struct {
		name    string
		content string // "" with dir: a directory instead of a file
		dir     bool
		warns   bool
	}{
		{name: "only totp_moved_unix", content: `{"totp_moved_unix":1}`, warns: true},
		{name: "not JSON", content: `{"api_key": "lp_adm_SECRETPART`, warns: true},
		{name: "wrong field type", content: `{"api_key": 42}`, warns: true},
		{name: "empty file", content: ``, warns: true},
		{name: "a tenant key", content: `{"api_key":"lp_live_0123456789abcdef0123456789abcdef01234567"}`, warns: true},
		{name: "an admin key the store lacks", content: `{"api_key":"lp_adm_0123456789abcdef0123456789abcdef01234567","totp_secret":"JBSWY3DPEHPK3PXP"}`, warns: true},
		{name: "a directory in its place", dir: true, warns: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, c := bootstrap6(t)
			if err := a.db.Close(); err != nil {
				t.Fatal(err)
			}
			writeLegacyAdmin(t, a.dir, c.APIKey, c.TOTPSecret)
			path := filepath.Join(a.dir, tenancy.CredentialsFile)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if tc.dir {
				if err := os.Mkdir(path, 0o700); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			var logged bytes.Buffer
			b := open6(t, a.dir, a.now)
			b.svc.WithLog(slog.New(slog.NewTextHandler(&logged, nil)))
			if _, created, err := b.svc.Bootstrap(b.dir); err != nil || created {
				t.Fatalf("start-up with a bad credentials file: created %v, %v; want it to go on", created, err)
			}
			out := logged.String()
			if tc.warns != strings.Contains(out, "level=WARN") || !strings.Contains(out, tenancy.CredentialsFile) {
				t.Errorf("log %q, want a warning naming the file", out)
			}
			if strings.Contains(out, "SECRETPART") || strings.Contains(out, "JBSWY3DPEHPK3PXP") || strings.Contains(out, "0123456789abcdef") {
				t.Errorf("log quotes the file: %q", out)
			}
			// The legacy secret is sealed on first use instead.
			code, _ := totp.GenerateCode(c.TOTPSecret, *b.now)
			if err := b.svc.VerifyAdminFrom(b.admin(t, c.APIKey), code, client6); err != nil {
				t.Fatalf("verify: %v", err)
			}
			if k, _ := b.db.KeyByHash(tenancy.Hash(c.APIKey)); k.TOTPSecret != "" || k.TOTPSealed == "" {
				t.Errorf("not sealed on first use: %+v", k)
			}
		})
	}
}

// TestFinding6ForgetTOTPSecret: the operator moves the TOTP secret to an
// authenticator and deletes it from admin-credentials.json, proving the move
// with a code the authenticator shows.
func TestFinding6ForgetTOTPSecret(t *testing.T) {
	a, c := bootstrap6(t)
	path := filepath.Join(a.dir, tenancy.CredentialsFile)
	before, _ := os.ReadFile(path)
	code, left, err := c.Code(*a.now)
	if err != nil || len(code) != 6 || left <= 0 || left > 30*time.Second {
		t.Fatalf("Code: %q %v %v", code, left, err)
	}
	uri, err := c.URI()
	if err != nil || !strings.HasPrefix(uri, "otpauth://totp/linkplan:admin-") || !strings.Contains(uri, "secret="+c.TOTPSecret) {
		t.Fatalf("URI %q %v", uri, err)
	}
	wrong := fmt.Sprintf("%06d", (atoi(code)+1)%1000000)
	tests := []struct {
		name string
		code string
		want error
	}{
		{name: "wrong code changes nothing", code: wrong, want: appliance.ErrForbidden},
		{name: "empty code", code: "", want: appliance.ErrForbidden},
		{name: "code from the authenticator", code: code, want: nil},
		{name: "again", code: code, want: tenancy.ErrTOTPMoved},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tenancy.ForgetTOTPSecret(a.dir, tc.code, *a.now)
			if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if now, _ := os.ReadFile(path); tc.want == appliance.ErrForbidden && !bytes.Equal(now, before) {
				t.Error("a refused forget changed the file")
			}
		})
	}
	after := a.creds(t)
	raw, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	if after.APIKey != c.APIKey || after.TOTPSecret != "" || after.TOTPMovedUnix != a.now.Unix() || bytes.Contains(raw, []byte(c.TOTPSecret)) || st.Mode().Perm() != 0o600 {
		t.Fatalf("file after forget (mode %v): %s", st.Mode().Perm(), raw)
	}
	if _, _, err := after.Code(*a.now); !errors.Is(err, tenancy.ErrTOTPMoved) {
		t.Errorf("Code after forget: %v", err)
	}
	// The appliance still verifies codes from the authenticator, also after
	// a restart.
	a.restart(t)
	*a.now = a.now.Add(30 * time.Second)
	next, _ := totp.GenerateCode(c.TOTPSecret, *a.now)
	if err := a.svc.VerifyAdminFrom(a.admin(t, c.APIKey), next, client6); err != nil {
		t.Fatalf("verify after forget: %v", err)
	}
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}
