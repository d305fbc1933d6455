package api_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"linkplan/appliance/billing"
)

// tenantFeatureScenarios are the scenarios of the SSO, branding and
// billing routes (the harness runs with sso and billing). The hosted
// login's callback needs a login started and played at the issuer first.
func tenantFeatureScenarios(t *testing.T, h *harness) []scenario {
	t.Helper()
	if h.issuer == nil {
		t.Fatal("the scenarios need harnessOptions{sso: true, billing: true}")
	}
	bindSubject(t, h, "pro", "scenario-login")
	noFollow := &http.Client{Transport: h.srv.Client().Transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	// login plays a hosted login (from path) of subject at the issuer and
	// returns the callback URL the issuer redirects to.
	login := func(path, subject string) string {
		resp, err := noFollow.Get(h.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		code, state := h.issuer.Authorize(t, resp.Header.Get("Location"), subject)
		return "/auth/oidc/callback?state=" + url.QueryEscape(state) + "&code=" + url.QueryEscape(code)
	}
	callback := login("/auth/oidc/login", "scenario-login")
	link := h.do(t, "POST", "/tenant/sso/binding_intents", h.keys["free"], nil, `{}`)
	if link.status != http.StatusCreated {
		t.Fatalf("binding link: %d %s", link.status, link.body)
	}
	linkCallback := login(link.json(t)["login_path"].(string), "scenario-invited")
	ev := checkoutEvent("evt_scn", "cs_scn", "cus_scn", "Starter")
	now := time.Now()
	proTenant := "t_" + h.keyIDs["pro"]
	return []scenario{
		{name: "hosted login callback", method: "GET", url: callback, status: 200, contains: []string{`"token_type":"Bearer"`}},
		{name: "callback replayed", method: "GET", url: callback, status: 401, code: "unauthenticated"},
		{name: "binding link's callback", method: "GET", url: linkCallback, status: 200, contains: []string{`"bound":true`, `"subject":"scenario-invited"`}},
		{name: "bind a subject with its proof", method: "POST", url: "/tenant/sso/bindings", key: "free", body: `{"id_token":"` + proofToken(t, h, "scenario-free") + `"}`, status: 201},
		{name: "bind without proof", method: "POST", url: "/tenant/sso/bindings", key: "free", body: `{}`, status: 422, code: "invalid_input", fields: []string{"id_token"}, doc: docRejects},
		{name: "bind by naming a subject", method: "POST", url: "/tenant/sso/bindings", key: "free", body: `{"subject":"scenario-victim"}`, status: 422, code: "invalid_input",
			fields: []string{"subject", "id_token"}, doc: docRejects},
		{name: "bind without key", method: "POST", url: "/tenant/sso/bindings", body: `{"id_token":"x"}`, status: 401, code: "unauthenticated"},
		{name: "create a binding link", method: "POST", url: "/tenant/sso/binding_intents", key: "free", body: `{}`, status: 201, contains: []string{`"login_path":"/auth/oidc/login?intent=`}},
		{name: "list bindings", method: "GET", url: "/tenant/sso/bindings", key: "free", status: 200, contains: []string{"scenario-free"}},
		{name: "unbind", method: "DELETE", url: "/tenant/sso/bindings?subject=scenario-free", key: "free", status: 200},
		{name: "admin binds", method: "POST", url: "/admin/sso/bindings", key: "admin", totp: "header", status: 201,
			body: `{"subject":"scenario-admin","key_id":"` + h.keyIDs["free"] + `","justification":"scenario of the admin binding"}`},
		{name: "admin binds with a wrong code", method: "POST", url: "/admin/sso/bindings", key: "admin", totp: "bad", status: 403, code: "forbidden",
			body: `{"subject":"scenario-admin2","key_id":"` + h.keyIDs["free"] + `","justification":"scenario of the admin binding"}`},
		{name: "admin unbinds", method: "POST", url: "/admin/sso/bindings/delete", key: "admin", totp: "header", status: 200,
			body: `{"subject":"scenario-admin","justification":"scenario of the admin unbinding"}`},
		{name: "admin unbinds, no such subject", method: "POST", url: "/admin/sso/bindings/delete", key: "admin", totp: "header", status: 404, code: "not_found",
			body: `{"subject":"scenario-nobody","justification":"scenario of the admin unbinding"}`},
		{name: "read branding", method: "GET", url: "/tenant/branding", key: "free", status: 200},
		{name: "set branding", method: "PUT", url: "/tenant/branding", key: "free", body: `{"display_name":"Free Net","primary_color":"#112233"}`, status: 200},
		{name: "set branding, unknown field", method: "PUT", url: "/tenant/branding", key: "free", body: `{"name":"x"}`, status: 422, code: "invalid_input", fields: []string{"name"}, doc: docRejects},
		{name: "admin sets branding", method: "PUT", url: "/admin/tenants/" + proTenant + "/branding", key: "admin", totp: "body", status: 200,
			body: `{"display_name":"Pro by admin","totp":"{{totp}}","justification":"scenario of the admin branding"}`},
		{name: "webhook", method: "POST", url: "/billing/webhook", headers: signed(ev, now), body: ev, status: 200, contains: []string{`"outcome":"provisioned"`}},
		{name: "webhook unsigned", method: "POST", url: "/billing/webhook", headers: map[string]string{billing.SignatureHeader: "t=1,v1=00"}, body: ev, status: 401, code: "unauthenticated"},
		{name: "claim", method: "POST", url: "/billing/claim", body: `{"session_id":"cs_scn"}`, status: 201, contains: []string{`"tier":"Starter"`}},
		{name: "claim twice", method: "POST", url: "/billing/claim", body: `{"session_id":"cs_scn"}`, status: 409, code: "conflict"},
	}
}
