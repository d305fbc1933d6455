package api_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"linkplan/appliance/billing"
)

// serveFuzz sends one request to the in-process API and checks that the
// answer is not a 500 and satisfies the document.
func serveFuzz(t *testing.T, h *harness, d *openAPI, req *http.Request, what string) *response {
	rec := httptest.NewRecorder()
	h.api.ServeHTTP(rec, req)
	res := rec.Result()
	b, _ := io.ReadAll(res.Body)
	r := &response{status: res.StatusCode, header: res.Header, body: b}
	if r.status == http.StatusInternalServerError {
		t.Fatalf("500 for %s", what)
	}
	for _, e := range d.checkResponse(req.Method, req.URL.Path, r) {
		t.Errorf("contract: %s (%s)", e, what)
	}
	return r
}

// FuzzBillingWebhookBody signs arbitrary bodies with the webhook secret,
// so that they reach the event parser and the processing on a real store:
// whatever the body, the answer is documented and never a 500.
func FuzzBillingWebhookBody(f *testing.F) {
	for _, s := range []string{
		checkoutEvent("evt_f1", "cs_f1", "cus_f1", "Pro"),
		checkoutEvent("evt_f2", "cs_f2", "cus_f1", "Business"),
		`{"id":"evt_f3","type":"customer.subscription.deleted","data":{"object":{"customer":"cus_f1"}}}`,
		`{"id":"evt_f4","type":"checkout.session.completed","data":{"object":{"payment_status":"paid","metadata":{"tier":"Pro","tenant_id":"t_x"}}}}`,
		`{"id":"","type":"x","data":{"object":[]}}`, `{}`, `null`, `{`, ``,
	} {
		f.Add(s)
	}
	h := newHarness(f, harnessOptions{billing: true})
	d := loadOpenAPI(f)
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest(http.MethodPost, "/billing/webhook", strings.NewReader(body))
		req.Header.Set(billing.SignatureHeader, billing.Sign(billingSecret, []byte(body), time.Now()))
		serveFuzz(t, h, d, req, "body "+body)
	})
}

// FuzzAuthorizationHeader sends arbitrary Authorization headers (bearer
// tokens of any shape) to an authenticated route: the answer is a
// documented 401 (or 200 for a token that verifies), never a 500.
func FuzzAuthorizationHeader(f *testing.F) {
	for _, s := range []string{"Bearer a.b.c", "Bearer eyJhbGciOiJub25lIn0.e30.", "bearer   x", "Basic Zm9vOmJhcg==", "Bearer " + strings.Repeat("A", 100), "Bearer a.b.c=d", "\x00"} {
		f.Add(s)
	}
	h := newHarness(f, harnessOptions{sso: true})
	d := loadOpenAPI(f)
	f.Fuzz(func(t *testing.T, hv string) {
		req := httptest.NewRequest(http.MethodGet, "/tenant/branding", nil)
		req.Header["Authorization"] = []string{hv}
		r := serveFuzz(t, h, d, req, "Authorization "+hv)
		if r.status != http.StatusUnauthorized && strings.TrimSpace(hv) != "" {
			t.Fatalf("status %d for Authorization %q", r.status, hv)
		}
	})
}

// fuzzSSOBodies runs the SSO routes of a harness with a real issuer on
// arbitrary bodies for one POST route, with the pro key: whatever the
// body, the answer is documented and never a 500. In a body, {proof}
// becomes a fresh ID token of the issuer when the request is made (the
// seeds stay the same in every fuzzing process).
func fuzzSSOBodies(f *testing.F, path string, seeds []string) {
	for _, s := range seeds {
		f.Add(s)
	}
	h := newHarness(f, harnessOptions{sso: true, unmetered: true})
	d := loadOpenAPI(f)
	f.Fuzz(func(t *testing.T, body string) {
		if strings.Contains(body, "{proof}") {
			body = strings.ReplaceAll(body, "{proof}", proofToken(t, h, "fuzz-subject"))
		}
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("X-API-Key", h.keys["pro"])
		serveFuzz(t, h, d, req, "body "+body)
	})
}

// FuzzSSOBindBody: POST /tenant/sso/bindings (proof tokens of any shape).
func FuzzSSOBindBody(f *testing.F) {
	fuzzSSOBodies(f, "/tenant/sso/bindings", []string{`{"id_token":"{proof}"}`, `{"id_token":"{proof}","key_id":"0123456789ab"}`,
		`{"subject":"x"}`, `{"id_token":"a.b.c"}`, `{"id_token":""}`, `{"id_token":1}`, `{}`, `null`, `[]`, `{`})
}

// FuzzSSOBindingIntentBody: POST /tenant/sso/binding_intents.
func FuzzSSOBindingIntentBody(f *testing.F) {
	fuzzSSOBodies(f, "/tenant/sso/binding_intents", []string{`{}`, `{"key_id":"0123456789ab"}`, `{"key_id":"XYZ"}`, `{"key_id":null}`, `null`, `{`})
}

// FuzzLoginIntentQuery: GET /auth/oidc/login with any binding link token:
// a 302 for a real link (or no link), the one 403 refusal otherwise, 429
// once MaxPendingLogins logins wait; never a 500.
func FuzzLoginIntentQuery(f *testing.F) {
	for _, s := range []string{"intent={link}", "intent=", "intent=%00", "intent=a&intent=b", "x=y", "intent=" + strings.Repeat("A", 600)} {
		f.Add(s)
	}
	h := newHarness(f, harnessOptions{sso: true, unmetered: true})
	d := loadOpenAPI(f)
	f.Fuzz(func(t *testing.T, q string) {
		if strings.Contains(q, "{link}") { // a real link, made now
			link := h.do(t, "POST", "/tenant/sso/binding_intents", h.keys["pro"], nil, `{}`)
			if link.status != http.StatusCreated { // MaxIntentsPerTenant waiting: a fresh one later
				return
			}
			q = strings.ReplaceAll(q, "{link}", link.json(t)["intent"].(string))
		}
		req := httptest.NewRequest(http.MethodGet, "/auth/oidc/login", nil)
		req.URL.RawQuery = q
		r := serveFuzz(t, h, d, req, "query "+q)
		if r.status != http.StatusFound && r.status != http.StatusForbidden && r.status != http.StatusTooManyRequests {
			t.Fatalf("status %d for query %q: %s", r.status, q, r.body)
		}
	})
}
