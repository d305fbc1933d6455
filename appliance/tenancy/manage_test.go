package tenancy_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
	"linkplan/store"
)

func TestAuthorizeRoles(t *testing.T) {
	perms := []appliance.Permission{appliance.PermRead, appliance.PermWrite, appliance.PermRotateOwnKey, appliance.PermManageKeys,
		appliance.PermPrivacy, appliance.PermTenantSettings}
	for _, tc := range []struct {
		name    string
		key     appliance.APIKey
		allowed []appliance.Permission
	}{
		{"key stored before roles is tenant-admin", appliance.APIKey{Role: appliance.RoleTenant}, perms},
		{"tenant-admin", appliance.APIKey{Role: appliance.RoleTenant, TenantRole: appliance.TenantAdmin}, perms},
		{"member", appliance.APIKey{Role: appliance.RoleTenant, TenantRole: appliance.TenantMember},
			[]appliance.Permission{appliance.PermRead, appliance.PermWrite, appliance.PermRotateOwnKey}},
		{"read-only", appliance.APIKey{Role: appliance.RoleTenant, TenantRole: appliance.TenantReadOnly},
			[]appliance.Permission{appliance.PermRead, appliance.PermRotateOwnKey}},
		{"internal read-only", appliance.APIKey{Role: appliance.RoleInternal, TenantRole: appliance.TenantReadOnly},
			[]appliance.Permission{appliance.PermRead, appliance.PermRotateOwnKey}},
		{"admin", appliance.APIKey{Role: appliance.RoleAdmin}, perms},
		{"unknown role", appliance.APIKey{Role: appliance.RoleTenant, TenantRole: "owner"}, nil},
	} {
		for _, p := range perms {
			t.Run(tc.name+"/"+string(p), func(t *testing.T) {
				want := false
				for _, a := range tc.allowed {
					want = want || a == p
				}
				err := tenancy.Authorize(&tc.key, p)
				if (err == nil) != want || (err != nil && !errors.Is(err, appliance.ErrForbidden)) {
					t.Errorf("Authorize = %v, want allowed %v", err, want)
				}
			})
		}
	}
}

// TestLastTenantAdminConcurrent revokes two tenant-admin keys of one
// tenant at once, many times: exactly one revocation wins each time, the
// other is refused as the tenant's last tenant-admin key.
func TestLastTenantAdminConcurrent(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := tenancy.New(db, func() time.Time { return now })
	for i := range 20 {
		_, a, err := svc.Issue(tenancy.IssueRequest{Tier: appliance.TierPro, Owner: "o", Email: "o@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		_, b, err := svc.CreateKey(a, tenancy.KeyRequest{TenantRole: appliance.TenantAdmin})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for j, pair := range [][2]*appliance.APIKey{{a, b}, {b, a}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[j] = svc.RevokeKey(pair[0], pair[1].ID, tenancy.KeyRequest{})
			}()
		}
		wg.Wait()
		ok := 0
		for _, e := range errs {
			switch {
			case e == nil:
				ok++
			case !errors.Is(e, appliance.ErrConflict):
				t.Fatalf("round %d: %v", i, e)
			}
		}
		if ok != 1 {
			t.Fatalf("round %d: %d revocations succeeded (%v)", i, ok, errs)
		}
	}
}

// TestRotationGrace checks the rotated key's states at the edges of its
// grace period through Authenticate.
func TestRotationGrace(t *testing.T) {
	cur := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := tenancy.New(db, func() time.Time { return cur })
	oldPlain, k, err := svc.Issue(tenancy.IssueRequest{Tier: appliance.TierFree, Owner: "o", Email: "o@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	newPlain, fresh, old, err := svc.RotateKey(k, k.ID, tenancy.KeyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if fresh.TenantID != k.TenantID || fresh.Tier != k.Tier || old.RotatedTo != fresh.ID || fresh.EffectiveTenantRole() != appliance.TenantAdmin {
		t.Fatalf("rotation: %+v %+v", fresh, old)
	}
	for _, tc := range []struct {
		name  string
		after time.Duration
		ok    bool
	}{
		{"at once", 0, true},
		{"a second before the end", tenancy.RotationGrace - time.Second, true},
		{"at the end", tenancy.RotationGrace, false},
		{"a day later", 2 * tenancy.RotationGrace, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).Add(tc.after)
			_, err := svc.Authenticate(oldPlain)
			if (err == nil) != tc.ok || (err != nil && !errors.Is(err, appliance.ErrUnauthenticated)) {
				t.Errorf("old key: %v, want ok %v", err, tc.ok)
			}
			if _, err := svc.Authenticate(newPlain); err != nil {
				t.Errorf("new key: %v", err)
			}
		})
	}
}
