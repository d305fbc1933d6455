package api_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"linkplan/appliance/sso/ssotest"
)

// bindSubject binds subject to the key of the harness role name through
// the tenant route, with a fresh ID token of the subject as the proof,
// and returns a good ID token of it.
func bindSubject(t *testing.T, h *harness, role, subject string) string {
	t.Helper()
	res := h.do(t, "POST", "/tenant/sso/bindings", h.keys[role], nil, `{"id_token":"`+proofToken(t, h, subject)+`"}`)
	if res.status != http.StatusCreated {
		t.Fatalf("bind %s: %d %s", subject, res.status, res.body)
	}
	return h.issuer.Sign(t, h.issuer.Claims(subject))
}

// proofToken returns a fresh ID token of subject, distinct from every
// other (a proof is spent once).
func proofToken(t testing.TB, h *harness, subject string) string {
	t.Helper()
	c := h.issuer.Claims(subject)
	var n [8]byte
	_, _ = rand.Read(n[:])
	c["jti"] = fmt.Sprintf("%x", n)
	return h.issuer.Sign(t, c)
}

func bearer(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }

// TestBearerIDTokens sends bearer ID tokens of a real issuer (discovery,
// JWKS, RSA key made now, real signatures) to authenticated routes: every
// bad token is a 401 with its reason, a good one acts with the bound key.
func TestBearerIDTokens(t *testing.T) {
	h := newHarness(t, harnessOptions{sso: true})
	d := loadOpenAPI(t)
	good := bindSubject(t, h, "pro", "okta|pro-user")
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, _ := x509.MarshalPKIXPublicKey(&h.issuer.Key.PublicKey)
	claims := func(mod func(c map[string]any)) map[string]any {
		c := h.issuer.Claims("okta|pro-user")
		if mod != nil {
			mod(c)
		}
		return c
	}
	tests := []struct {
		name   string
		header map[string]string
		status int
		reason string
	}{
		{"good", bearer(good), 200, ""},
		{"scheme in lower case", map[string]string{"Authorization": "bearer " + good}, 200, ""},
		{"expired", bearer(h.issuer.Sign(t, claims(func(c map[string]any) { c["exp"] = time.Now().Add(-time.Minute).Unix() }))), 401, "expired"},
		{"wrong audience", bearer(h.issuer.Sign(t, claims(func(c map[string]any) { c["aud"] = "other-app" }))), 401, "(aud)"},
		{"wrong issuer", bearer(h.issuer.Sign(t, claims(func(c map[string]any) { c["iss"] = "https://idp.evil.example" }))), 401, "(iss)"},
		{"alg none", bearer(ssotest.Unsigned(t, claims(nil))), 401, `algorithm \"none\"`},
		{"HS256 keyed with the public key", bearer(ssotest.SignWith(t, jose.HS256, pubDER, h.issuer.KeyID, claims(nil))), 401, `algorithm \"HS256\"`},
		{"unknown kid", bearer(ssotest.SignWith(t, jose.RS256, other, "kid-nobody-has", claims(nil))), 401, "unknown kid"},
		{"access token", bearer(h.issuer.Sign(t, claims(func(c map[string]any) { c["token_use"] = "access" }))), 401, "token_use"},
		{"unbound subject", bearer(h.issuer.Sign(t, h.issuer.Claims("okta|stranger"))), 401, "not bound"},
		{"not bearer", map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}, 401, "Bearer"},
		{"garbage token", bearer("not a token"), 401, "character"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := h.do(t, "GET", "/tenant/sso/bindings", "", tc.header, "")
			contract(t, d, "GET", "/tenant/sso/bindings", res)
			if res.status != tc.status {
				t.Fatalf("status %d, want %d: %s", res.status, tc.status, res.body)
			}
			if tc.reason == "" {
				if !strings.Contains(string(res.body), "okta|pro-user") {
					t.Errorf("the pro tenant's bindings are missing: %s", res.body)
				}
				return
			}
			if !strings.Contains(string(res.body), tc.reason) || errorCode(t, res) != "unauthenticated" {
				t.Errorf("body %s, want code unauthenticated and reason %q", res.body, tc.reason)
			}
		})
	}
	t.Run("the bound key's tier applies", func(t *testing.T) {
		// The free key's subject gets the free tier's refusals, the pro
		// key's subject not.
		free := bindSubject(t, h, "free", "okta|free-user")
		body := `{"rows":[{"receiver":{"lat":-22.9419,"lon":-43.2105,"height":10},"frequency_mhz":1800,"max_distance_km":1.5}]}`
		if res := h.do(t, "POST", "/batch_reports", "", bearer(free), body); res.status != http.StatusForbidden && res.status != http.StatusBadRequest {
			t.Errorf("free subject's batch: %d %s", res.status, res.body)
		}
		if res := h.do(t, "POST", "/batch_reports", "", bearer(good), body); res.status != http.StatusOK {
			t.Errorf("pro subject's batch: %d %s", res.status, res.body)
		}
	})
	t.Run("X-API-Key wins", func(t *testing.T) {
		res := h.do(t, "GET", "/tenant/sso/bindings", h.keys["unknown"], bearer(good), "")
		if res.status != http.StatusUnauthorized {
			t.Errorf("status %d with an unknown key beside a good token", res.status)
		}
	})
}

// TestBearerAdminRoutes: a bearer token never passes an admin route, with
// or without a TOTP code, and admin keys cannot be bound.
func TestBearerAdminRoutes(t *testing.T) {
	h := newHarness(t, harnessOptions{sso: true})
	d := loadOpenAPI(t)
	tok := bindSubject(t, h, "internal", "okta|automation")
	for _, tc := range []struct{ name, method, url, body string }{
		{"issue key", "POST", "/admin/keys", issueBody("Free", "")},
		{"refresh history", "GET", "/admin/towers/refreshes", ""},
		{"admin binding", "POST", "/admin/sso/bindings", `{"subject":"x","key_id":"` + h.keyIDs["pro"] + `","justification":"a justification here"}`},
		{"admin branding", "PUT", "/admin/tenants/t_x/branding", `{"justification":"a justification here"}`},
		{"admin unbinding", "POST", "/admin/sso/bindings/delete", `{"subject":"okta|automation","justification":"a justification here"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := bearer(tok)
			hdr["X-Admin-Totp"] = h.freshTOTP(t)
			res := h.do(t, tc.method, tc.url, "", hdr, tc.body)
			contract(t, d, tc.method, tc.url, res)
			if res.status != http.StatusForbidden {
				t.Fatalf("status %d, want 403: %s", res.status, res.body)
			}
		})
	}
	adminID := tenantOf(t, h, "admin")
	body := `{"subject":"okta|root","key_id":"` + adminID + `","justification":"try to bind the admin key"}`
	res := h.do(t, "POST", "/admin/sso/bindings", h.adminKey, map[string]string{"X-Admin-Totp": h.freshTOTP(t)}, body)
	contract(t, d, "POST", "/admin/sso/bindings", res)
	if res.status != http.StatusUnprocessableEntity || !strings.Contains(string(res.body), "key_id") {
		t.Fatalf("binding the admin key: %d %s", res.status, res.body)
	}
}

// tenantOf returns the key id of a harness role (the admin's from the
// store).
func tenantOf(t *testing.T, h *harness, role string) string {
	t.Helper()
	if id, ok := h.keyIDs[role]; ok {
		return id
	}
	k, err := h.auth.Authenticate(h.keys[role])
	if err != nil {
		t.Fatal(err)
	}
	return k.ID
}

// TestSSOBindingRoutes covers the binding routes and their audit rows. In
// bodies, {proof:S} is a fresh ID token of subject S, {free} the free
// key's id.
func TestSSOBindingRoutes(t *testing.T) {
	h := newHarness(t, harnessOptions{sso: true})
	d := loadOpenAPI(t)
	stale := h.issuer.Claims("s-9")
	stale["iat"] = time.Now().Add(-6 * time.Minute).Unix()
	steps := []struct {
		name, method, url, key, body string
		totp                         bool
		status                       int
		want                         string
	}{
		{"bind own key", "POST", "/tenant/sso/bindings", "pro", `{"id_token":"{proof:s-1}"}`, false, 201, `"subject":"s-1"`},
		{"bind twice", "POST", "/tenant/sso/bindings", "pro", `{"id_token":"{proof:s-1}"}`, false, 403, "cannot be bound"},
		{"bind by naming the subject", "POST", "/tenant/sso/bindings", "pro", `{"subject":"s-2"}`, false, 422, `"field":"subject"`},
		{"bind without proof", "POST", "/tenant/sso/bindings", "pro", `{}`, false, 422, `"field":"id_token"`},
		{"bind with a stale proof", "POST", "/tenant/sso/bindings", "pro", `{"id_token":"` + h.issuer.Sign(t, stale) + `"}`, false, 422, "more than 5 minutes ago"},
		{"bind with a bad proof", "POST", "/tenant/sso/bindings", "pro", `{"id_token":"a.b.c"}`, false, 422, `"field":"id_token"`},
		{"bind another tenant's key", "POST", "/tenant/sso/bindings", "pro", `{"id_token":"{proof:s-2}","key_id":"{free}"}`, false, 422, "key_id"},
		{"unknown field", "POST", "/tenant/sso/bindings", "pro", `{"id_token":"{proof:s-2}","tenant_id":"x"}`, false, 422, "tenant_id"},
		{"admin field", "POST", "/tenant/sso/bindings", "pro", `{"id_token":"{proof:s-2}","justification":"x"}`, false, 422, "totp"},
		{"admin key on tenant route", "POST", "/tenant/sso/bindings", "admin", `{"id_token":"{proof:s-3}"}`, false, 403, "forbidden"},
		{"binding link", "POST", "/tenant/sso/binding_intents", "pro", `{}`, false, 201, `"login_path":"/auth/oidc/login?intent=`},
		{"binding link for another tenant's key", "POST", "/tenant/sso/binding_intents", "pro", `{"key_id":"{free}"}`, false, 422, "key_id"},
		{"binding link, unknown field", "POST", "/tenant/sso/binding_intents", "pro", `{"subject":"s-2"}`, false, 422, "subject"},
		{"binding link by the admin key", "POST", "/tenant/sso/binding_intents", "admin", `{}`, false, 403, "forbidden"},
		{"admin binds without TOTP", "POST", "/admin/sso/bindings", "admin", `{"subject":"s-4","key_id":"{free}","justification":"support ticket 991"}`, false, 422, "totp"},
		{"admin binds", "POST", "/admin/sso/bindings", "admin", `{"subject":"s-4","key_id":"{free}","justification":"support ticket 991"}`, true, 201, `"subject":"s-4"`},
		{"admin binds a bound subject", "POST", "/admin/sso/bindings", "admin", `{"subject":"s-4","key_id":"{free}","justification":"support ticket 991"}`, true, 409, "conflict"},
		{"admin without justification", "POST", "/admin/sso/bindings", "admin", `{"subject":"s-5","key_id":"{free}"}`, true, 422, "justification"},
		{"tenant key on admin route", "POST", "/admin/sso/bindings", "pro", `{"subject":"s-5","key_id":"{free}","justification":"support ticket 991"}`, true, 403, "forbidden"},
		{"list", "GET", "/tenant/sso/bindings", "pro", "", false, 200, `"s-1"`},
		{"delete another tenant's", "DELETE", "/tenant/sso/bindings?subject=s-4", "pro", "", false, 404, "not_found"},
		{"delete", "DELETE", "/tenant/sso/bindings?subject=s-1", "pro", "", false, 200, `"deleted":true`},
		{"delete again", "DELETE", "/tenant/sso/bindings?subject=s-1", "pro", "", false, 404, "not_found"},
		{"delete without subject", "DELETE", "/tenant/sso/bindings", "pro", "", false, 422, "subject"},
		{"admin unbinds without justification", "POST", "/admin/sso/bindings/delete", "admin", `{"subject":"s-4"}`, true, 422, "justification"},
		{"tenant key on admin unbind", "POST", "/admin/sso/bindings/delete", "pro", `{"subject":"s-4","justification":"wrong tenant bound it"}`, true, 403, "forbidden"},
		{"admin unbinds", "POST", "/admin/sso/bindings/delete", "admin", `{"subject":"s-4","justification":"wrong tenant bound it"}`, true, 200, `"deleted":true`},
		{"admin unbinds again", "POST", "/admin/sso/bindings/delete", "admin", `{"subject":"s-4","justification":"wrong tenant bound it"}`, true, 404, "not_found"},
	}
	proof := regexp.MustCompile(`\{proof:([^}]+)\}`)
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			body := strings.ReplaceAll(st.body, "{free}", h.keyIDs["free"])
			body = proof.ReplaceAllStringFunc(body, func(m string) string { return proofToken(t, h, proof.FindStringSubmatch(m)[1]) })
			var hdr map[string]string
			if st.totp {
				hdr = map[string]string{"X-Admin-Totp": h.freshTOTP(t)}
			}
			res := h.do(t, st.method, st.url, h.keys[st.key], hdr, body)
			contract(t, d, st.method, st.url, res)
			if res.status != st.status || !strings.Contains(string(res.body), st.want) {
				t.Fatalf("status %d, want %d with %q: %s", res.status, st.status, st.want, res.body)
			}
		})
	}
	rows, err := h.db.Audit("", 0)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, e := range rows {
		n[e.Action]++
	}
	if n["sso.binding.create"] != 1 || n["admin.sso.binding.create"] != 1 || n["sso.binding.delete"] != 1 || n["admin.sso.binding.delete"] != 1 ||
		n["sso.binding.refused"] != 1 || n["sso.binding.intent.create"] != 1 {
		t.Errorf("audit rows %v", n)
	}
}

// TestSSONotConfigured: without an issuer the SSO routes answer 503 and a
// bearer token 401.
func TestSSONotConfigured(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	d := loadOpenAPI(t)
	for _, tc := range []struct {
		method, url, key string
		hdr              map[string]string
		status           int
	}{
		{"GET", "/auth/oidc/config", "", nil, 200},
		{"GET", "/auth/oidc/login", "", nil, 503},
		{"GET", "/auth/oidc/callback?state=a&code=b", "", nil, 503},
		{"GET", "/tenant/sso/bindings", "pro", nil, 503},
		{"GET", "/tenant/sso/bindings", "", bearer("a.b.c"), 401},
	} {
		res := h.do(t, tc.method, tc.url, h.keys[tc.key], tc.hdr, "")
		contract(t, d, tc.method, tc.url, res)
		if res.status != tc.status {
			t.Errorf("%s %s: %d, want %d: %s", tc.method, tc.url, res.status, tc.status, res.body)
		}
	}
}

// TestHostedLoginHTTP runs the console's login through the routes: 302 to
// the issuer, the issuer's redirect back with code and state, the ID
// token of the answer used as a bearer token.
func TestHostedLoginHTTP(t *testing.T) {
	h := newHarness(t, harnessOptions{sso: true})
	d := loadOpenAPI(t)
	bindSubject(t, h, "pro", "okta|console-user")
	client := h.srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res := h.do(t, "GET", "/auth/oidc/login", "", nil, "")
	contract(t, d, "GET", "/auth/oidc/login", res)
	if res.status != http.StatusFound || res.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("login: %d %v %s", res.status, res.header, res.body)
	}
	code, state := h.issuer.Authorize(t, res.header.Get("Location"), "okta|console-user")
	cb := "/auth/oidc/callback?state=" + url.QueryEscape(state) + "&code=" + url.QueryEscape(code)
	res = h.do(t, "GET", cb, "", nil, "")
	contract(t, d, "GET", cb, res)
	if res.status != http.StatusOK {
		t.Fatalf("callback: %d %s", res.status, res.body)
	}
	m := res.json(t)
	if m["tenant_id"] == "" || m["token_type"] != "Bearer" || m["key_id"] != h.keyIDs["pro"] {
		t.Fatalf("callback body %v", m)
	}
	if r := h.do(t, "GET", "/tenant/branding", "", bearer(m["id_token"].(string)), ""); r.status != http.StatusOK {
		t.Errorf("the login's token as bearer: %d %s", r.status, r.body)
	}
	for _, bad := range []string{cb, "/auth/oidc/callback?error=access_denied&error_description=user+said+no", "/auth/oidc/callback"} {
		r := h.do(t, "GET", bad, "", nil, "")
		contract(t, d, "GET", bad, r)
		if r.status != http.StatusUnauthorized && r.status != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s", bad, r.status, r.body)
		}
	}
}

// TestSSOConfigRoute: GET /auth/oidc/config says whether a hosted login is
// offered, without starting one (no login state is kept).
func TestSSOConfigRoute(t *testing.T) {
	d := loadOpenAPI(t)
	for _, tc := range []struct {
		name string
		sso  bool
		want string
	}{
		{"not configured", false, `{"enabled":false}`},
		{"configured", true, `{"enabled":true,"login_path":"/auth/oidc/login"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOptions{sso: tc.sso})
			res := h.do(t, "GET", "/auth/oidc/config", "", nil, "")
			contract(t, d, "GET", "/auth/oidc/config", res)
			if res.status != 200 || strings.TrimSpace(string(res.body)) != tc.want {
				t.Fatalf("%d %s, want 200 %s", res.status, res.body, tc.want)
			}
		})
	}
}
