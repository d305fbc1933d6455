package tenancy_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
	"linkplan/store"
)

func setup(t *testing.T, now func() time.Time) (*tenancy.Service, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return tenancy.New(db, now), dir
}

func TestBootstrapWritesCredentialsOnce(t *testing.T) {
	svc, dir := setup(t, nil)
	path, created, err := svc.Bootstrap(dir)
	if err != nil || !created {
		t.Fatalf("bootstrap: %v created=%v", err, created)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 || filepath.Base(path) != "admin-credentials.json" {
		t.Fatalf("credentials file: %v %v", st, err)
	}
	var c tenancy.Credentials
	raw, _ := os.ReadFile(path)
	if err := json.Unmarshal(raw, &c); err != nil || c.APIKey == "" || c.TOTPSecret == "" {
		t.Fatalf("credentials: %s %v", raw, err)
	}
	k, err := svc.Authenticate(c.APIKey)
	if err != nil || k.Role != appliance.RoleAdmin {
		t.Fatalf("admin key does not authenticate: %v", err)
	}
	if _, created, _ := svc.Bootstrap(dir); created {
		t.Fatal("second bootstrap created another admin")
	}
}

func TestAuthenticateAndTiers(t *testing.T) {
	svc, _ := setup(t, nil)
	plain, k, err := svc.Issue(tenancy.IssueRequest{Tier: appliance.TierStarter, Email: "x@y.z"})
	if err != nil {
		t.Fatal(err)
	}
	if k.HashHex == plain || k.HashHex != tenancy.Hash(plain) || plain[:8] != appliance.KeyPrefixTenant {
		t.Fatalf("key record %+v for %q", k, plain)
	}
	for _, tc := range []struct {
		name string
		key  string
		want error
	}{
		{"valid", plain, nil},
		{"empty", "", appliance.ErrUnauthenticated},
		{"unknown", plain + "0", appliance.ErrUnauthenticated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := svc.Authenticate(tc.key)
			if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("got %v want %v", err, tc.want)
			}
		})
	}
	if err := tenancy.RequireTier(k, appliance.TierPro); !errors.Is(err, appliance.ErrForbidden) {
		t.Fatalf("starter passed a Pro check: %v", err)
	}
	if err := tenancy.RequireTier(k, appliance.TierStarter); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyAdminTOTP(t *testing.T) {
	now := time.Unix(1_790_000_000, 0)
	svc, dir := setup(t, func() time.Time { return now })
	path, _, err := svc.Bootstrap(dir)
	if err != nil {
		t.Fatal(err)
	}
	var c tenancy.Credentials
	raw, _ := os.ReadFile(path)
	_ = json.Unmarshal(raw, &c)
	admin, _ := svc.Authenticate(c.APIKey)
	code, _ := totp.GenerateCode(c.TOTPSecret, now)
	stale, _ := totp.GenerateCode(c.TOTPSecret, now.Add(-5*time.Minute))
	_, tenant, _ := svc.Issue(tenancy.IssueRequest{Tier: appliance.TierUltra})
	for _, tc := range []struct {
		name string
		key  *appliance.APIKey
		code string
		want error
	}{
		{"missing code", admin, "", appliance.ErrInvalid},
		{"stale code", admin, stale, appliance.ErrForbidden},
		{"tenant key", tenant, code, appliance.ErrForbidden},
		{"valid", admin, code, nil},
		{"replayed", admin, code, appliance.ErrForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := svc.VerifyAdmin(tc.key, tc.code)
			if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("got %v want %v", err, tc.want)
			}
		})
	}
}

func TestTOTPFailuresAreThrottled(t *testing.T) {
	now := time.Unix(1_790_000_000, 0)
	svc, dir := setup(t, func() time.Time { return now })
	path, _, _ := svc.Bootstrap(dir)
	var c tenancy.Credentials
	raw, _ := os.ReadFile(path)
	_ = json.Unmarshal(raw, &c)
	admin, _ := svc.Authenticate(c.APIKey)
	for i := 0; i < tenancy.MaxTOTPFailures; i++ {
		if err := svc.VerifyAdmin(admin, "000000"); !errors.Is(err, appliance.ErrForbidden) {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	good, _ := totp.GenerateCode(c.TOTPSecret, now)
	if err := svc.VerifyAdmin(admin, good); !errors.Is(err, appliance.ErrQuota) {
		t.Fatalf("a valid code after %d failures: %v, want ErrQuota", tenancy.MaxTOTPFailures, err)
	}
	now = now.Add(tenancy.TOTPFailureWindow + time.Minute)
	good, _ = totp.GenerateCode(c.TOTPSecret, now)
	if err := svc.VerifyAdmin(admin, good); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

// TestMint: a minted key is not stored, authenticates once stored, and
// admin keys are never minted.
func TestMint(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := tenancy.New(db, nil)
	plain, k, err := svc.Mint(tenancy.IssueRequest{Tier: appliance.TierStarter, Owner: "o", Email: "o@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(plain); !errors.Is(err, appliance.ErrUnauthenticated) {
		t.Fatalf("a minted key authenticates before it is stored: %v", err)
	}
	if err := db.PutKey(k); err != nil {
		t.Fatal(err)
	}
	if got, err := svc.Authenticate(plain); err != nil || got.ID != k.ID || got.Tier != appliance.TierStarter || got.TenantID != "t_"+k.ID {
		t.Fatalf("stored minted key: %+v, %v", got, err)
	}
	if _, _, err := svc.Mint(tenancy.IssueRequest{Tier: appliance.TierUltra, Role: appliance.RoleAdmin}); !errors.Is(err, appliance.ErrForbidden) {
		t.Fatalf("admin mint: %v", err)
	}
}
