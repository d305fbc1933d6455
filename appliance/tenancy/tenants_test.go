package tenancy_test

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
	"linkplan/store"
)

// TestListTenants stores keys of many tenants in every state, with admin
// keys among them, and walks the listing with small pages: every tenant
// once, sorted, with the rules' tier, counts, erasure and branding.
func TestListTenants(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := tenancy.New(db, func() time.Time { return now })
	n := 0
	put := func(tenant string, tier appliance.Tier, role appliance.Role, created int64, edit func(k *appliance.APIKey)) {
		n++
		h := fmt.Sprintf("%064x", n)
		k := &appliance.APIKey{ID: h[52:], HashHex: h, Prefix: "lp_live_" + h[:4], Tier: tier, Role: role, TenantID: tenant,
			Owner: "o", Email: "o@example.com", CreatedUnix: created}
		if edit != nil {
			edit(k)
		}
		if err := db.PutKey(k); err != nil {
			t.Fatal(err)
		}
	}
	base := now.Add(-time.Hour).Unix()
	var want []string
	for i := range 23 {
		id := fmt.Sprintf("t_%03d", 22-i) // stored in reverse order
		put(id, appliance.TierStarter, appliance.RoleTenant, base+int64(i), nil)
		want = append(want, id)
	}
	sort.Strings(want)
	// t_mix: a revoked Ultra key, an active Pro one, a rotating Business
	// one and a rotated one whose grace ended.
	put("t_mix", appliance.TierUltra, appliance.RoleTenant, base-50, func(k *appliance.APIKey) { k.RevokedUnix = base; k.Owner = "Provedor Mix"; k.Email = "noc@mix.example" })
	put("t_mix", appliance.TierPro, appliance.RoleTenant, base-40, nil)
	put("t_mix", appliance.TierBusiness, appliance.RoleTenant, base-30, func(k *appliance.APIKey) { k.GraceUntilUnix = now.Unix() + 60 })
	put("t_mix", appliance.TierEnterprise, appliance.RoleTenant, base-20, func(k *appliance.APIKey) { k.GraceUntilUnix = now.Unix() - 60 })
	// t_dead: revoked only, highest tier among all; t_gone: erased.
	put("t_dead", appliance.TierFree, appliance.RoleTenant, base, func(k *appliance.APIKey) { k.RevokedUnix = base })
	put("t_dead", appliance.TierPro, appliance.RoleTenant, base, func(k *appliance.APIKey) { k.RevokedUnix = base })
	put("t_gone", appliance.TierErased, appliance.RoleTenant, base, nil)
	if err := db.PutDSAR(&appliance.DSARRequest{ID: "dsar_1", Type: appliance.DSARErase, Status: appliance.DSARCompleted, TenantID: "t_gone",
		CreatedUnix: base + 5, AnsweredUnix: base + 6, EraseScheduledUnix: base + 1000}); err != nil {
		t.Fatal(err)
	}
	// Admin keys are nobody's tenant, whatever tenant id they carry.
	put("t_adm", appliance.TierUltra, appliance.RoleAdmin, base, nil)
	put("t_000", appliance.TierUltra, appliance.RoleAdmin, base-1000, nil)
	if err := db.PutBranding(&appliance.Branding{TenantID: "t_mix", DisplayName: "Mista"}); err != nil {
		t.Fatal(err)
	}
	want = append(want, "t_dead", "t_gone", "t_mix")
	sort.Strings(want)

	admin := &appliance.APIKey{ID: "adm", Role: appliance.RoleAdmin}
	var got []tenancy.TenantSummary
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 30 {
			t.Fatal("paging does not end")
		}
		p, err := svc.ListTenants(admin, tenancy.TenantQuery{Limit: 4, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Tenants) > 4 || (p.NextCursor != "" && len(p.Tenants) != 4) {
			t.Fatalf("page of %d, next %q", len(p.Tenants), p.NextCursor)
		}
		got = append(got, p.Tenants...)
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
	}
	var ids []string
	by := map[string]tenancy.TenantSummary{}
	for _, s := range got {
		ids = append(ids, s.TenantID)
		by[s.TenantID] = s
	}
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Fatalf("tenants\n%v, want\n%v", ids, want)
	}
	if m := by["t_mix"]; m.Tier != appliance.TierBusiness || m.Keys != (tenancy.KeyCounts{Active: 1, Revoked: 2, InGrace: 1}) ||
		m.CreatedUnix != base-50 || m.DisplayName != "Mista" || m.Erased || m.Owner != "Provedor Mix" || m.Email != "noc@mix.example" {
		t.Errorf("t_mix: %+v", m)
	}
	if d := by["t_dead"]; d.Tier != appliance.TierPro || d.Keys != (tenancy.KeyCounts{Revoked: 2}) || d.DisplayName != "" {
		t.Errorf("t_dead: %+v", d)
	}
	if g := by["t_gone"]; g.Tier != appliance.TierErased || !g.Erased || g.ErasedUnix != base+6 || g.HardDeleteUnix != base+1000 {
		t.Errorf("t_gone: %+v", g)
	}
	if s := by["t_000"]; s.Tier != appliance.TierStarter || s.CreatedUnix != base+22 {
		t.Errorf("t_000 (its admin key left out): %+v", s)
	}

	// One page of everything, the default limit.
	p, err := svc.ListTenants(admin, tenancy.TenantQuery{})
	if err != nil || len(p.Tenants) != len(want) || p.NextCursor != "" {
		t.Errorf("default page: %d tenants, next %q, %v", len(p.Tenants), p.NextCursor, err)
	}
	// Exactly a page's worth: no next cursor.
	if p, err := svc.ListTenants(admin, tenancy.TenantQuery{Limit: len(want)}); err != nil || p.NextCursor != "" {
		t.Errorf("a full page: next %q, %v", p.NextCursor, err)
	}
	// Refusals.
	for _, k := range []*appliance.APIKey{{Role: appliance.RoleTenant}, {Role: appliance.RoleInternal}, {Role: appliance.RoleTenant, TenantRole: appliance.TenantAdmin}} {
		if _, err := svc.ListTenants(k, tenancy.TenantQuery{}); !errors.Is(err, appliance.ErrForbidden) {
			t.Errorf("%+v: %v, want forbidden", k, err)
		}
	}
	for _, q := range []tenancy.TenantQuery{{Limit: -1}, {Limit: tenancy.MaxTenantPage + 1}, {Cursor: "x"}, {Cursor: "t_001"}} {
		var ve *appliance.ValidationError
		if _, err := svc.ListTenants(admin, q); !errors.As(err, &ve) {
			t.Errorf("%+v: %v, want invalid", q, err)
		}
	}
}

// FuzzParseTenantCursor: never a panic; a cursor that parses names a
// tenant id whose own cursor parses back to it; TenantCursor round-trips.
func FuzzParseTenantCursor(f *testing.F) {
	for _, s := range []string{"", "x", tenancy.TenantCursor("t_abc"), tenancy.TenantCursor("t_\x00"), "dDE6", "dDE6dF9h", "%%%", strings.Repeat("A", 401)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, c string) {
		id, err := tenancy.ParseTenantCursor(c)
		if err != nil {
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) || len(ve.Fields) != 1 || ve.Fields[0].Field != "cursor" {
				t.Fatalf("%q: %v, want a validation error naming cursor", c, err)
			}
		} else if c != "" {
			if back, err := tenancy.ParseTenantCursor(tenancy.TenantCursor(id)); err != nil || back != id {
				t.Fatalf("%q names %q, which round-trips to %q, %v", c, id, back, err)
			}
		}
		if c != "" && len(c) <= 200 && !strings.ContainsRune(c, '\uFFFD') {
			if back, err := tenancy.ParseTenantCursor(tenancy.TenantCursor(c)); err == nil && back != c {
				t.Fatalf("TenantCursor(%q) parses to %q", c, back)
			}
		}
	})
}
