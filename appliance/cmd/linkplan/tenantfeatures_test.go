//go:build systemtools

package main_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"linkplan/appliance/billing"
	"linkplan/appliance/sso/ssotest"
)

// TestServeSSOAndBilling runs the binary with the SSO and billing flags:
// an OIDC issuer running in the test (discovery, JWKS over HTTP), the
// client secret and the webhook secret in files. A tenant cannot bind a
// subject by naming it (issue 20); the person signs in through the
// tenant's binding link and is bound; the bound subject's bearer token
// works; a signed checkout provisions a key that the claim delivers.
func TestServeSSOAndBilling(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dataDir, cfgDir := t.TempDir(), t.TempDir()
	iss := ssotest.New(t, "linkplan-e2e", nil)
	secretFile := filepath.Join(cfgDir, "oidc-secret")
	billingFile := filepath.Join(cfgDir, "webhook-secret")
	billingSecret := "whsec_e2e_0123456789abcdef"
	if err := os.WriteFile(secretFile, []byte(iss.ClientSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(billingFile, []byte(billingSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, bin, dataDir, "--oidc-issuer", iss.URL, "--oidc-client-id", iss.ClientID,
		"--oidc-client-secret-file", secretFile, "--oidc-redirect-url", "http://127.0.0.1/auth/oidc/callback",
		"--billing-webhook-secret-file", billingFile)

	var cred struct {
		APIKey     string `json:"api_key"`
		TOTPSecret string `json:"totp_secret"`
	}
	raw, err := os.ReadFile(filepath.Join(dataDir, "admin-credentials.json"))
	if err != nil || json.Unmarshal(raw, &cred) != nil {
		t.Fatalf("credentials: %v", err)
	}
	code, _ := totp.GenerateCode(cred.TOTPSecret, time.Now())
	r := s.call(t, "POST", "/admin/keys", map[string]string{"X-API-Key": cred.APIKey, "X-Admin-Totp": code},
		`{"tier":"Pro","email":"sso@example.com","owner":"SSO e2e","justification":"black-box test of SSO"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("issue key: %d %s", r.status, r.body)
	}
	var issued struct {
		APIKey string `json:"api_key"`
	}
	_ = json.Unmarshal(r.body, &issued)
	tenant := map[string]string{"X-API-Key": issued.APIKey}
	if r := s.call(t, "POST", "/tenant/sso/bindings", tenant, `{"subject":"e2e-user"}`); r.status != http.StatusUnprocessableEntity {
		t.Fatalf("bind by name: %d %s, want 422", r.status, r.body)
	}
	r = s.call(t, "POST", "/tenant/sso/binding_intents", tenant, `{}`)
	var link struct {
		Intent    string `json:"intent"`
		LoginPath string `json:"login_path"`
	}
	if r.status != http.StatusCreated || json.Unmarshal(r.body, &link) != nil {
		t.Fatalf("binding link: %d %s", r.status, r.body)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.Get(s.base + link.LoginPath)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound || !strings.HasPrefix(res.Header.Get("Location"), iss.URL+"/authorize?") {
		t.Fatalf("login: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	code, state := iss.Authorize(t, res.Header.Get("Location"), "e2e-user")
	r = s.call(t, "GET", "/auth/oidc/callback?state="+url.QueryEscape(state)+"&code="+url.QueryEscape(code), nil, "")
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"bound":true`) {
		t.Fatalf("callback of the binding link: %d %s", r.status, r.body)
	}
	tok := iss.Sign(t, iss.Claims("e2e-user"))
	if r := s.call(t, "GET", "/tenant/branding", map[string]string{"Authorization": "Bearer " + tok}, ""); r.status != http.StatusOK {
		t.Fatalf("bearer: %d %s", r.status, r.body)
	}
	if r := s.call(t, "GET", "/tenant/branding", map[string]string{"Authorization": "Bearer " + iss.Sign(t, iss.Claims("stranger"))}, ""); r.status != http.StatusUnauthorized {
		t.Fatalf("unbound bearer: %d %s", r.status, r.body)
	}
	if r := s.call(t, "POST", "/tenant/sso/bindings", tenant, `{"id_token":"`+iss.Sign(t, iss.Claims("e2e-user"))+`"}`); r.status != http.StatusForbidden {
		t.Fatalf("bind a bound subject: %d %s, want the one 403 refusal", r.status, r.body)
	}
	ev := `{"id":"evt_e2e","type":"checkout.session.completed","data":{"object":{"id":"cs_e2e","customer":"cus_e2e","payment_status":"paid","metadata":{"tier":"Starter"}}}}`
	r = s.call(t, "POST", "/billing/webhook", map[string]string{billing.SignatureHeader: billing.Sign([]byte(billingSecret), []byte(ev), time.Now())}, ev)
	if r.status != http.StatusOK || !strings.Contains(string(r.body), "provisioned") {
		t.Fatalf("webhook: %d %s", r.status, r.body)
	}
	r = s.call(t, "POST", "/billing/claim", nil, `{"session_id":"cs_e2e"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("claim: %d %s", r.status, r.body)
	}
	var claimed struct {
		APIKey string `json:"api_key"`
	}
	_ = json.Unmarshal(r.body, &claimed)
	if r := s.call(t, "GET", "/tenant/branding", map[string]string{"X-API-Key": claimed.APIKey}, ""); r.status != http.StatusOK {
		t.Fatalf("claimed key: %d %s", r.status, r.body)
	}
	if err := s.stop(t); err != nil {
		t.Fatalf("serve exit: %v", err)
	}
	log := s.stderr.String()
	for _, secret := range []string{claimed.APIKey, billingSecret, iss.ClientSecret, tok, link.Intent} {
		if strings.Contains(log, secret) {
			t.Errorf("the log holds a secret (%.12s…)", secret)
		}
	}
}

// TestServeSSOAirGapped runs the binary with --oidc-jwks-file: bearer
// tokens verify against the file's keys and the issuer is never asked
// (its JWKS endpoint counts no fetch); /health/ready still reports
// offline.
func TestServeSSOAirGapped(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dataDir := t.TempDir()
	iss := ssotest.New(t, "linkplan-airgap", nil)
	jwks := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(jwks, iss.JWKS(), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, bin, dataDir, "--oidc-issuer", iss.URL, "--oidc-client-id", iss.ClientID, "--oidc-jwks-file", jwks)
	var cred struct {
		APIKey     string `json:"api_key"`
		TOTPSecret string `json:"totp_secret"`
	}
	raw, err := os.ReadFile(filepath.Join(dataDir, "admin-credentials.json"))
	if err != nil || json.Unmarshal(raw, &cred) != nil {
		t.Fatalf("credentials: %v", err)
	}
	code, _ := totp.GenerateCode(cred.TOTPSecret, time.Now())
	r := s.call(t, "POST", "/admin/keys", map[string]string{"X-API-Key": cred.APIKey, "X-Admin-Totp": code},
		`{"tier":"Starter","email":"air@example.com","owner":"Air-gapped","justification":"black-box test of the JWKS file"}`)
	var issued struct {
		APIKey string `json:"api_key"`
	}
	if r.status != http.StatusCreated || json.Unmarshal(r.body, &issued) != nil {
		t.Fatalf("issue key: %d %s", r.status, r.body)
	}
	if r := s.call(t, "POST", "/tenant/sso/binding_intents", map[string]string{"X-API-Key": issued.APIKey}, `{}`); r.status != http.StatusServiceUnavailable {
		t.Fatalf("binding link without hosted login: %d %s", r.status, r.body)
	}
	// Without hosted login the person's fresh ID token is the proof.
	if r := s.call(t, "POST", "/tenant/sso/bindings", map[string]string{"X-API-Key": issued.APIKey}, `{"id_token":"`+iss.Sign(t, iss.Claims("air-user"))+`"}`); r.status != http.StatusCreated {
		t.Fatalf("bind: %d %s", r.status, r.body)
	}
	if r := s.call(t, "GET", "/tenant/branding", map[string]string{"Authorization": "Bearer " + iss.Sign(t, iss.Claims("air-user"))}, ""); r.status != http.StatusOK {
		t.Fatalf("bearer: %d %s", r.status, r.body)
	}
	if r := s.call(t, "GET", "/health/ready", nil, ""); !strings.Contains(string(r.body), `"offline":true`) {
		t.Errorf("ready: %s", r.body)
	}
	if iss.JWKSFetches() != 0 {
		t.Errorf("the issuer's JWKS was fetched %d times", iss.JWKSFetches())
	}
}
