package api_test

import (
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
)

// tenantPageAnswer is the body of GET /admin/tenants.
type tenantPageAnswer struct {
	Tenants []struct {
		TenantID string `json:"tenant_id"`
		Tier     string `json:"tier"`
		Keys     struct {
			Active  int `json:"active"`
			Revoked int `json:"revoked"`
			InGrace int `json:"in_grace"`
		} `json:"keys"`
		CreatedAt    string  `json:"created_at"`
		Erased       bool    `json:"erased"`
		ErasedAt     *string `json:"erased_at"`
		HardDeleteAt *string `json:"hard_delete_at"`
		DisplayName  *string `json:"display_name"`
	} `json:"tenants"`
	NextCursor *string `json:"next_cursor"`
}

func (p tenantPageAnswer) ids() []string {
	out := make([]string, len(p.Tenants))
	for i, t := range p.Tenants {
		out[i] = t.TenantID
	}
	return out
}

// tenantOf returns the tenant id of the harness key name.
func tenantIDOf(t testing.TB, h *harness, name string) string {
	t.Helper()
	k, err := h.db.KeyByHash(tenancy.Hash(h.keys[name]))
	if err != nil {
		t.Fatal(err)
	}
	return k.TenantID
}

// noSecrets fails when body holds a plain key, a key hash or the admin's
// TOTP secret of the harness.
func noSecrets(t *testing.T, h *harness, body []byte) {
	t.Helper()
	s := string(body)
	for name, plain := range h.keys {
		if strings.Contains(s, plain) || strings.Contains(s, tenancy.Hash(plain)) {
			t.Errorf("the answer holds the key or hash of %s: %s", name, s)
		}
	}
	for _, bad := range []string{h.adminSecret, appliance.KeyPrefixTenant, appliance.KeyPrefixAdmin, appliance.KeyPrefixInternal, "hash", "totp", "secret"} {
		if strings.Contains(strings.ToLower(s), strings.ToLower(bad)) {
			t.Errorf("the answer holds %q: %s", bad, s)
		}
	}
}

func tenantListScenarios(t *testing.T, h *harness) []scenario {
	return []scenario{
		{name: "admin tenant list", method: "GET", url: "/admin/tenants?limit=200", key: "admin", status: 200, check: func(t *testing.T, h *harness, res *response) {
			p := decodeJSON[tenantPageAnswer](t, res)
			ids := p.ids()
			if !sort.StringsAreSorted(ids) || p.NextCursor != nil {
				t.Errorf("not one page sorted by tenant id: %s", res.body)
			}
			admin, _ := h.db.KeyByHash(tenancy.Hash(h.keys["admin"]))
			for _, name := range []string{"pro", "free", "internal", "revoked", "erased"} {
				if !containsString(ids, tenantIDOf(t, h, name)) {
					t.Errorf("tenant of %s missing: %s", name, res.body)
				}
			}
			if admin != nil && containsString(ids, admin.TenantID) {
				t.Errorf("the admin key's tenant %s is listed: %s", admin.TenantID, res.body)
			}
			noSecrets(t, h, res.body)
			a := decodeJSON[auditAnswer](t, h.do(t, "GET", "/admin/audit?limit=2&action="+appliance.ActionAdminTenantsList, h.keys["admin"], nil, ""))
			if len(a.Entries) == 0 || a.Entries[0].Params["limit"] != "200" {
				t.Errorf("the listing is not audited: %+v", a.Entries)
			}
		}},
		{name: "admin tenant list first page", method: "GET", url: "/admin/tenants?limit=1", key: "admin", status: 200, check: func(t *testing.T, h *harness, res *response) {
			if p := decodeJSON[tenantPageAnswer](t, res); len(p.Tenants) != 1 || p.NextCursor == nil {
				t.Errorf("want one tenant and a next cursor: %s", res.body)
			}
		}},
		{name: "admin tenant list bad limit and cursor", method: "GET", url: "/admin/tenants?limit=201&cursor=nope", key: "admin", status: 422, code: "invalid_input",
			fields: []string{"limit", "cursor"}, doc: docRejects},
		{name: "admin tenant list bad limit", method: "GET", url: "/admin/tenants?limit=0", key: "admin", status: 422, code: "invalid_input", fields: []string{"limit"}, doc: docRejects},
		{name: "admin tenant list refuses tenant keys", method: "GET", url: "/admin/tenants", key: "pro", status: 403, code: "forbidden"},
		{name: "admin tenant list refuses free keys", method: "GET", url: "/admin/tenants?cursor=nope", key: "free", status: 403, code: "forbidden"},
		{name: "admin tenant list without key", method: "GET", url: "/admin/tenants", status: 401, code: "unauthenticated"},
	}
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestAdminTenantsPaging walks the listing page by page and checks each
// tenant's fields: tier, key counts by state, erasure, branding.
func TestAdminTenantsPaging(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	all := decodeJSON[tenantPageAnswer](t, h.do(t, "GET", "/admin/tenants?limit=200", h.keys["admin"], nil, ""))
	if len(all.Tenants) < 5 {
		t.Fatalf("want at least 5 tenants: %+v", all)
	}
	var walked []string
	u := "/admin/tenants?limit=2"
	for pages := 0; ; pages++ {
		if pages > len(all.Tenants) {
			t.Fatal("paging does not end")
		}
		res := h.do(t, "GET", u, h.keys["admin"], nil, "")
		if res.status != http.StatusOK {
			t.Fatalf("%s: %d %s", u, res.status, res.body)
		}
		noSecrets(t, h, res.body)
		p := decodeJSON[tenantPageAnswer](t, res)
		walked = append(walked, p.ids()...)
		if p.NextCursor == nil {
			break
		}
		u = "/admin/tenants?limit=2&cursor=" + url.QueryEscape(*p.NextCursor)
	}
	if strings.Join(walked, ",") != strings.Join(all.ids(), ",") {
		t.Errorf("pages %v, one page %v", walked, all.ids())
	}
	by := map[string]int{}
	for i, tn := range all.Tenants {
		by[tn.TenantID] = i
	}
	get := func(name string) int {
		i, ok := by[tenantIDOf(t, h, name)]
		if !ok {
			t.Fatalf("tenant of %s missing", name)
		}
		return i
	}
	pro, rev, er := all.Tenants[get("pro")], all.Tenants[get("revoked")], all.Tenants[get("erased")]
	if pro.Tier != "Pro" || pro.Keys.Active != 1 || pro.Keys.Revoked != 0 || pro.Erased || pro.CreatedAt == "" || pro.DisplayName != nil {
		t.Errorf("pro: %+v", pro)
	}
	if rev.Tier != "Pro" || rev.Keys.Active != 0 || rev.Keys.Revoked != 1 || rev.Erased {
		t.Errorf("revoked: %+v", rev)
	}
	if er.Tier != "erased" || !er.Erased || er.Keys.Revoked != 1 || er.ErasedAt != nil {
		t.Errorf("erased (no erase request stored): %+v", er)
	}
	if free := all.Tenants[get("free")]; free.Tier != "Free" {
		t.Errorf("free: %+v", free)
	}

	// A second key, rotated: one active, one in grace; a branding name.
	res := h.do(t, "POST", "/tenant/keys/"+h.keyIDs["pro"]+"/rotate", h.keys["pro"], nil, "")
	if res.status != http.StatusCreated {
		t.Fatalf("rotate: %d %s", res.status, res.body)
	}
	res = h.do(t, "PUT", "/admin/tenants/"+tenantIDOf(t, h, "pro")+"/branding", h.keys["admin"], map[string]string{"X-Admin-Totp": h.freshTOTP(t)},
		`{"display_name":"Rede Sul","justification":"tenant listing test branding"}`)
	if res.status/100 != 2 {
		t.Fatalf("branding: %d %s", res.status, res.body)
	}
	again := decodeJSON[tenantPageAnswer](t, h.do(t, "GET", "/admin/tenants?limit=200", h.keys["admin"], nil, ""))
	pro = again.Tenants[by[tenantIDOf(t, h, "pro")]]
	if pro.Keys.Active != 1 || pro.Keys.InGrace != 1 || pro.DisplayName == nil || *pro.DisplayName != "Rede Sul" {
		t.Errorf("pro after a rotation and a branding: %+v", pro)
	}
}

// FuzzAdminTenantsQuery runs GET /admin/tenants on arbitrary query
// strings: never a 500, always a documented answer.
func FuzzAdminTenantsQuery(f *testing.F) {
	fuzzQueryContract(f, "/admin/tenants", "admin", "limit=2", "cursor="+tenancy.TenantCursor("t_a"), "cursor=dDE6",
		"limit=0&cursor=%00", "limit=1e9", "cursor="+strings.Repeat("A", 500))
}
