package api_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
)

// hostedLogin plays a hosted login from path (/auth/oidc/login, with or
// without a binding link) for subject at the harness's issuer and returns
// the callback's answer. A login refused before the issuer is asked
// returns that answer.
func hostedLogin(t *testing.T, h *harness, path, subject string) *response {
	t.Helper()
	// The 302 to the issuer is read, not followed (the harness's client,
	// for the rest of the test too, as TestHostedLoginHTTP does).
	h.srv.Client().CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	start := h.do(t, "GET", path, "", nil, "")
	if start.status != http.StatusFound {
		return start
	}
	code, state := h.issuer.Authorize(t, start.header.Get("Location"), subject)
	return h.do(t, "GET", "/auth/oidc/callback?state="+url.QueryEscape(state)+"&code="+url.QueryEscape(code), "", nil, "")
}

// bindingLink creates a binding link with key (the harness role) for
// keyID ("" for the key itself) and returns its login path.
func bindingLink(t *testing.T, h *harness, role, keyID string) string {
	t.Helper()
	body := `{}`
	if keyID != "" {
		body = `{"key_id":"` + keyID + `"}`
	}
	res := h.do(t, "POST", "/tenant/sso/binding_intents", h.keys[role], nil, body)
	if res.status != http.StatusCreated {
		t.Fatalf("binding link: %d %s", res.status, res.body)
	}
	return res.json(t)["login_path"].(string)
}

// TestIssue20_SSOSquattingRefusedWithoutProof: a tenant admin can no
// longer bind a subject of the identity provider without that person's
// proof. Before: POST /tenant/sso/bindings {"subject":"victim@corp"} was
// 201, and the victim's genuine ID token then acted as the squatter's
// tenant. Now naming a subject is a 422, a stale token of the victim is
// a 422, and the victim is bound only when they sign in through a link
// (or present a fresh token); the admin may still bind by name with TOTP
// and a justification, audited with proof admin.
func TestIssue20_SSOSquattingRefusedWithoutProof(t *testing.T) {
	h := newHarness(t, harnessOptions{sso: true})
	d := loadOpenAPI(t)
	const victim = "victim@corp.example"
	victimToken := func() map[string]string { return bearer(h.issuer.Sign(t, h.issuer.Claims(victim))) }
	stale := h.issuer.Claims(victim)
	stale["iat"] = time.Now().Add(-10 * time.Minute).Unix()
	for _, tc := range []struct{ name, body, field string }{
		{"by name", `{"subject":"` + victim + `"}`, "subject"},
		{"by name, for another of its keys", `{"subject":"` + victim + `","key_id":"` + h.keyIDs["free"] + `"}`, "subject"},
		{"with a token of the victim issued 10 minutes ago", `{"id_token":"` + h.issuer.Sign(t, stale) + `"}`, "id_token"},
	} {
		t.Run("squat "+tc.name, func(t *testing.T) {
			res := h.do(t, "POST", "/tenant/sso/bindings", h.keys["free"], nil, tc.body)
			contract(t, d, "POST", "/tenant/sso/bindings", res)
			if res.status != http.StatusUnprocessableEntity || !strings.Contains(string(res.body), `"field":"`+tc.field+`"`) {
				t.Fatalf("status %d, want 422 naming %s: %s", res.status, tc.field, res.body)
			}
		})
	}
	if res := h.do(t, "GET", "/tenant/sso/bindings", h.keys["free"], nil, ""); strings.Contains(string(res.body), victim) {
		t.Fatalf("the squatter holds the victim: %s", res.body)
	}
	if res := h.do(t, "GET", "/tenant/branding", "", victimToken(), ""); res.status != http.StatusUnauthorized {
		t.Fatalf("the victim's genuine token after the squat attempts: %d %s", res.status, res.body)
	}

	// The squatter's own binding link binds only whoever signs in: the
	// squatter itself.
	res := hostedLogin(t, h, bindingLink(t, h, "free", ""), "squatter@corp.example")
	if res.status != http.StatusOK || res.json(t)["subject"] != "squatter@corp.example" || res.json(t)["bound"] != true {
		t.Fatalf("the squatter's own link: %d %s", res.status, res.body)
	}
	// The victim's tenant invites the victim; the victim signs in.
	res = hostedLogin(t, h, bindingLink(t, h, "pro", ""), victim)
	contract(t, d, "GET", "/auth/oidc/callback", res)
	if res.status != http.StatusOK || res.json(t)["key_id"] != h.keyIDs["pro"] || res.json(t)["bound"] != true {
		t.Fatalf("the victim through its tenant's link: %d %s", res.status, res.body)
	}
	res = h.do(t, "GET", "/v1/me/quota", "", victimToken(), "")
	if res.status != http.StatusOK || res.json(t)["tenant_id"] != "t_"+h.keyIDs["pro"] {
		t.Fatalf("the victim's token acts as %d %s, want its own tenant", res.status, res.body)
	}

	// The admin still binds by name, with TOTP and a justification.
	const why = "contractor onboarding, ticket 7781"
	res = h.do(t, "POST", "/admin/sso/bindings", h.adminKey, map[string]string{"X-Admin-Totp": h.freshTOTP(t)},
		`{"subject":"contractor@corp.example","key_id":"`+h.keyIDs["free"]+`","justification":"`+why+`"}`)
	contract(t, d, "POST", "/admin/sso/bindings", res)
	if res.status != http.StatusCreated {
		t.Fatalf("admin binding: %d %s", res.status, res.body)
	}
	rows, err := h.db.Audit("", 0)
	if err != nil {
		t.Fatal(err)
	}
	proofs := map[string]string{}
	for _, e := range rows {
		if e.Action == "sso.binding.create" || e.Action == "admin.sso.binding.create" {
			proofs[e.Params["subject"]] = e.Action + "/" + e.Params["proof"]
			if e.Action == "admin.sso.binding.create" && e.Params["justification"] != why {
				t.Errorf("admin binding row %+v", e)
			}
		}
	}
	want := map[string]string{"squatter@corp.example": "sso.binding.create/hosted_login", victim: "sso.binding.create/hosted_login",
		"contractor@corp.example": "admin.sso.binding.create/admin"}
	for sub, w := range want {
		if proofs[sub] != w {
			t.Errorf("binding of %s audited %q, want %q", sub, proofs[sub], w)
		}
	}
	if len(proofs) != len(want) {
		t.Errorf("bindings audited: %v", proofs)
	}
}

// TestIssue20_SSONoExistenceOracle: no answer a tenant gets tells
// whether another tenant holds a subject. Before: binding another
// tenant's subject answered 409 "already bound" and a free one 201, an
// oracle for every tenant. Now naming a subject is the same 422 whatever
// the subject; a proof of a subject bound elsewhere, bound in the
// caller's own tenant, or already spent gets one 403 with one body; a
// binding link's login refused for a subject bound elsewhere reads the
// same as one refused for a revoked key or an unknown link; the tenant's
// own audit log holds no refusal, the admin's holds each with its reason.
// (The refusals also cost the same: BenchmarkBindRefusals in
// appliance/sso.)
func TestIssue20_SSONoExistenceOracle(t *testing.T) {
	h := newHarness(t, harnessOptions{sso: true})
	d := loadOpenAPI(t)
	const held = "held@corp.example" // the pro tenant's
	bindSubject(t, h, "pro", held)
	rid := regexp.MustCompile(`"request_id":"[^"]*"`)
	body := func(res *response) string { return rid.ReplaceAllString(string(res.body), `"request_id":""`) }
	same := func(t *testing.T, what string, got []*response) {
		t.Helper()
		for i, r := range got {
			if r.status != got[0].status || body(r) != body(got[0]) {
				t.Errorf("%s: answer %d differs:\n%d %s\n%d %s", what, i, got[0].status, got[0].body, r.status, r.body)
			}
			if strings.Contains(string(r.body), held) {
				t.Errorf("%s: answer %d names the subject: %s", what, i, r.body)
			}
		}
	}
	bind := func(role, b string) *response {
		res := h.do(t, "POST", "/tenant/sso/bindings", h.keys[role], nil, b)
		contract(t, d, "POST", "/tenant/sso/bindings", res)
		return res
	}

	t.Run("naming a subject", func(t *testing.T) {
		got := []*response{bind("free", `{"subject":"`+held+`"}`), bind("free", `{"subject":"nobody@corp.example"}`)}
		if got[0].status != http.StatusUnprocessableEntity {
			t.Fatalf("%d %s", got[0].status, got[0].body)
		}
		same(t, "bound elsewhere vs unbound", got)
	})
	t.Run("a proof", func(t *testing.T) {
		spent := proofToken(t, h, "temp@corp.example")
		if res := bind("free", `{"id_token":"`+spent+`"}`); res.status != http.StatusCreated {
			t.Fatalf("bind temp: %d %s", res.status, res.body)
		}
		if res := h.do(t, "DELETE", "/tenant/sso/bindings?subject=temp@corp.example", h.keys["free"], nil, ""); res.status != http.StatusOK {
			t.Fatalf("unbind temp: %d %s", res.status, res.body)
		}
		got := []*response{
			bind("free", `{"id_token":"`+proofToken(t, h, held)+`"}`), // bound to another tenant
			bind("pro", `{"id_token":"`+proofToken(t, h, held)+`"}`),  // bound to the caller's own
			bind("free", `{"id_token":"`+spent+`"}`),                  // unbound, the proof spent
		}
		if got[0].status != http.StatusForbidden || !strings.Contains(string(got[0].body), "cannot be bound") {
			t.Fatalf("%d %s", got[0].status, got[0].body)
		}
		same(t, "bound elsewhere vs bound here vs proof spent", got)
	})
	t.Run("a binding link", func(t *testing.T) {
		owner, err := h.auth.Authenticate(h.keys["free"])
		if err != nil {
			t.Fatal(err)
		}
		_, member, err := h.auth.CreateKey(owner, tenancy.KeyRequest{TenantRole: appliance.TenantMember})
		if err != nil {
			t.Fatal(err)
		}
		revokedLink := bindingLink(t, h, "free", member.ID)
		if _, err := h.auth.RevokeKey(owner, member.ID, tenancy.KeyRequest{}); err != nil {
			t.Fatal(err)
		}
		used := bindingLink(t, h, "free", "")
		if res := hostedLogin(t, h, used, "first@corp.example"); res.status != http.StatusOK {
			t.Fatalf("first use: %d %s", res.status, res.body)
		}
		got := []*response{
			hostedLogin(t, h, bindingLink(t, h, "free", ""), held), // bound to another tenant
			hostedLogin(t, h, revokedLink, "fresh@corp.example"),   // the link's key revoked meanwhile
			hostedLogin(t, h, used, "second@corp.example"),         // the link used before
			hostedLogin(t, h, "/auth/oidc/login?intent=not-a-link", "third@corp.example"),
		}
		for _, r := range got {
			contract(t, d, "GET", "/auth/oidc/callback", r)
		}
		if got[0].status != http.StatusForbidden {
			t.Fatalf("%d %s", got[0].status, got[0].body)
		}
		same(t, "bound elsewhere vs key revoked vs link used vs unknown link", got)
	})
	t.Run("the tenant's own log", func(t *testing.T) {
		res := h.do(t, "GET", "/tenant/audit?limit=1000", h.keys["free"], nil, "")
		if res.status != http.StatusOK {
			t.Fatalf("%d %s", res.status, res.body)
		}
		for _, leak := range []string{held, "refused", "t_" + h.keyIDs["pro"]} {
			if strings.Contains(string(res.body), leak) {
				t.Errorf("the tenant's audit log holds %q", leak)
			}
		}
		rows, err := h.db.Audit("", 0)
		if err != nil {
			t.Fatal(err)
		}
		reasons := map[string]int{}
		for _, e := range rows {
			if e.Action == "sso.binding.refused" {
				if e.TenantID != "" {
					t.Errorf("refusal in tenant %s's log: %+v", e.TenantID, e)
				}
				reasons[e.Params["reason"]]++
			}
		}
		raw, _ := json.Marshal(reasons)
		// Bound (free, pro and the link), the spent proof, the revoked key.
		if reasons["the subject is bound already"] != 3 || reasons["the ID token was presented as a proof before"] != 1 ||
			reasons["the binding link's key is no longer active"] != 1 {
			t.Errorf("the admin's refusal rows: %s", raw)
		}
	})
}
