package sso_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"linkplan/appliance"
	"linkplan/appliance/sso"
	"linkplan/appliance/sso/ssotest"
	"linkplan/store"
)

const clientID = "linkplan-console"

// fixture is a real issuer, a real bbolt store with one tenant key and one
// admin key, and the SSO service over them.
type fixture struct {
	iss   *ssotest.Issuer
	db    *store.DB
	svc   *sso.Service
	key   *appliance.APIKey // tenant key, Pro
	admin *appliance.APIKey
	now   time.Time
}

func newFixture(t *testing.T, jwksFile bool) *fixture { return newFixtureTB(t, jwksFile) }

func newFixtureTB(t testing.TB, jwksFile bool) *fixture {
	t.Helper()
	f := &fixture{now: time.Now()}
	f.iss = ssotest.New(t, clientID, func() time.Time { return f.now })
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	f.db = db
	f.key = &appliance.APIKey{ID: "aaaaaaaaaaaa", HashHex: strings.Repeat("a", 64), Prefix: "lp_live_aaaa", Tier: appliance.TierPro,
		Role: appliance.RoleTenant, TenantID: "t_a", Email: "a@example.com"}
	f.admin = &appliance.APIKey{ID: "bbbbbbbbbbbb", HashHex: strings.Repeat("b", 64), Prefix: "lp_adm_bbbbb", Tier: appliance.TierUltra,
		Role: appliance.RoleAdmin, TenantID: "admin"}
	for _, k := range []*appliance.APIKey{f.key, f.admin} {
		if err := db.PutKey(k); err != nil {
			t.Fatal(err)
		}
	}
	cfg := sso.Config{IssuerURL: f.iss.URL, ClientID: clientID, ClientSecret: f.iss.ClientSecret,
		RedirectURL: "https://console.example/auth/oidc/callback", HTTPClient: f.iss.Client(), Now: func() time.Time { return f.now }}
	if jwksFile {
		cfg.JWKSFile = filepath.Join(t.TempDir(), "jwks.json")
		if err := os.WriteFile(cfg.JWKSFile, f.iss.JWKS(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f.svc, err = sso.New(cfg, db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Bind(t.Context(), f.key, sso.BindRequest{IDToken: f.iss.Sign(t, f.iss.Claims("user-1"))}, appliance.AuditEntry{ActorKey: f.key.ID}); err != nil {
		t.Fatal(err)
	}
	return f
}

// proof returns a fresh ID token of subject (iat now), changed by mod.
func (f *fixture) proof(t testing.TB, subject string, mod func(c map[string]any)) string {
	t.Helper()
	c := f.iss.Claims(subject)
	if mod != nil {
		mod(c)
	}
	return f.iss.Sign(t, c)
}

// TestAuthenticate runs every refusal of SPEC §5.1.2 against a real
// issuer (discovery and JWKS over HTTP, and the air-gapped JWKS file),
// each with its reason, and a good token.
func TestAuthenticate(t *testing.T) {
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []struct {
		name  string
		jwks  bool
		fetch bool // keys come over HTTP
	}{{"discovery", false, true}, {"jwks file", true, false}} {
		f := newFixture(t, mode.jwks)
		pubDER, err := x509.MarshalPKIXPublicKey(&f.iss.Key.PublicKey)
		if err != nil {
			t.Fatal(err)
		}
		with := func(sub string, mod func(c map[string]any)) map[string]any {
			c := f.iss.Claims(sub)
			if mod != nil {
				mod(c)
			}
			return c
		}
		tests := []struct {
			name   string
			token  func(t *testing.T) string
			reason string // "" = accepted
		}{
			{"good", func(t *testing.T) string { return f.iss.Sign(t, with("user-1", nil)) }, ""},
			{"good RS512", func(t *testing.T) string {
				return ssotest.SignWith(t, jose.RS512, f.iss.Key, f.iss.KeyID, with("user-1", nil))
			}, ""},
			{"expired", func(t *testing.T) string {
				return f.iss.Sign(t, with("user-1", func(c map[string]any) { c["exp"] = f.now.Add(-time.Minute).Unix() }))
			}, "expired"},
			{"wrong audience", func(t *testing.T) string {
				return f.iss.Sign(t, with("user-1", func(c map[string]any) { c["aud"] = "another-client" }))
			}, "client id (aud)"},
			{"wrong issuer", func(t *testing.T) string {
				return f.iss.Sign(t, with("user-1", func(c map[string]any) { c["iss"] = "https://evil.example" }))
			}, "another issuer (iss)"},
			{"alg none", func(t *testing.T) string { return ssotest.Unsigned(t, with("user-1", nil)) }, `algorithm "none" is not accepted`},
			{"HS256 keyed with the public key", func(t *testing.T) string {
				return ssotest.SignWith(t, jose.HS256, pubDER, f.iss.KeyID, with("user-1", nil))
			}, `algorithm "HS256" is not accepted`},
			{"unknown kid, another key", func(t *testing.T) string {
				return ssotest.SignWith(t, jose.RS256, other, "nobody-knows", with("user-1", nil))
			}, "unknown kid or wrong key"},
			{"known kid, another key", func(t *testing.T) string {
				return ssotest.SignWith(t, jose.RS256, other, f.iss.KeyID, with("user-1", nil))
			}, "unknown kid or wrong key"},
			{"PS256 is not accepted", func(t *testing.T) string {
				return ssotest.SignWith(t, jose.PS256, f.iss.Key, f.iss.KeyID, with("user-1", nil))
			}, `algorithm "PS256" is not accepted`},
			{"no token_use", func(t *testing.T) string {
				return f.iss.Sign(t, with("user-1", func(c map[string]any) { delete(c, "token_use") }))
			}, "token_use"},
			{"access token", func(t *testing.T) string {
				return f.iss.Sign(t, with("user-1", func(c map[string]any) { c["token_use"] = "access" }))
			}, "token_use"},
			{"no subject", func(t *testing.T) string {
				return f.iss.Sign(t, with("", nil))
			}, "no subject"},
			{"unbound subject", func(t *testing.T) string { return f.iss.Sign(t, with("user-2", nil)) }, "not bound"},
			{"not a JWT", func(*testing.T) string { return "abc.def" }, "not a compact JWT"},
		}
		for _, tc := range tests {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				k, err := f.svc.Authenticate(t.Context(), tc.token(t))
				if tc.reason == "" {
					if err != nil {
						t.Fatalf("refused: %v", err)
					}
					if k.ID != f.key.ID || k.TenantID != "t_a" || k.Tier != appliance.TierPro {
						t.Fatalf("got key %+v, want the bound one", k)
					}
					return
				}
				if !errors.Is(err, appliance.ErrUnauthenticated) {
					t.Fatalf("err = %v, want ErrUnauthenticated", err)
				}
				if !strings.Contains(err.Error(), tc.reason) {
					t.Errorf("err = %q, want the reason %q", err, tc.reason)
				}
			})
		}
		if got := f.iss.JWKSFetches() > 0; got != mode.fetch {
			t.Errorf("%s: JWKS fetched %d times", mode.name, f.iss.JWKSFetches())
		}
	}
}

// TestAuthenticateErasedAndRevoked checks that a binding follows its key's
// state.
func TestAuthenticateErasedAndRevoked(t *testing.T) {
	f := newFixture(t, true)
	k := &appliance.APIKey{ID: "cccccccccccc", HashHex: strings.Repeat("c", 64), Tier: appliance.TierFree, Role: appliance.RoleTenant, TenantID: "t_a"}
	if err := f.db.PutKey(k); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Bind(t.Context(), f.key, sso.BindRequest{IDToken: f.proof(t, "user-3", nil), KeyID: k.ID}, appliance.AuditEntry{}); err != nil {
		t.Fatal(err)
	}
	got, err := f.svc.Authenticate(t.Context(), f.iss.Sign(t, f.iss.Claims("user-3")))
	if err != nil || got.ID != k.ID || got.Tier != appliance.TierFree {
		t.Fatalf("got %+v, %v", got, err)
	}
}

// TestBind covers the binding rules: a tenant binds with a fresh ID
// token of the person (its proof), never by naming a subject; the admin
// names the subject.
func TestBind(t *testing.T) {
	f := newFixture(t, true)
	otherTenant := &appliance.APIKey{ID: "dddddddddddd", HashHex: strings.Repeat("d", 64), Tier: appliance.TierPro, Role: appliance.RoleTenant, TenantID: "t_d"}
	if err := f.db.PutKey(otherTenant); err != nil {
		t.Fatal(err)
	}
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	at := func(d time.Duration) func(c map[string]any) {
		return func(c map[string]any) { c["iat"] = f.now.Add(d).Unix() }
	}
	tests := []struct {
		name    string
		actor   *appliance.APIKey
		admin   bool
		req     func(t *testing.T) sso.BindRequest
		wantErr error
		field   string
		reason  string
	}{
		{name: "own key by default", actor: f.key, req: func(t *testing.T) sso.BindRequest { return sso.BindRequest{IDToken: f.proof(t, "s-own", nil)} }},
		{name: "subject bound already", actor: f.key, req: func(t *testing.T) sso.BindRequest { return sso.BindRequest{IDToken: f.proof(t, "user-1", nil)} },
			wantErr: sso.ErrBindRefused},
		{name: "subject bound to another tenant", actor: otherTenant, req: func(t *testing.T) sso.BindRequest { return sso.BindRequest{IDToken: f.proof(t, "user-1", nil)} },
			wantErr: sso.ErrBindRefused},
		{name: "subject named without proof", actor: f.key, req: func(*testing.T) sso.BindRequest { return sso.BindRequest{Subject: "victim"} },
			wantErr: appliance.ErrInvalid, field: "subject"},
		{name: "subject named beside a proof", actor: f.key, req: func(t *testing.T) sso.BindRequest {
			return sso.BindRequest{Subject: "victim", IDToken: f.proof(t, "s-mine", nil)}
		}, wantErr: appliance.ErrInvalid, field: "subject"},
		{name: "no proof", actor: f.key, req: func(*testing.T) sso.BindRequest { return sso.BindRequest{} }, wantErr: appliance.ErrInvalid, field: "id_token"},
		{name: "another tenant's key", actor: f.key, req: func(t *testing.T) sso.BindRequest {
			return sso.BindRequest{IDToken: f.proof(t, "s-x", nil), KeyID: otherTenant.ID}
		}, wantErr: appliance.ErrInvalid, field: "key_id"},
		{name: "unknown key", actor: f.key, req: func(t *testing.T) sso.BindRequest {
			return sso.BindRequest{IDToken: f.proof(t, "s-y", nil), KeyID: "0123456789ab"}
		}, wantErr: appliance.ErrInvalid, field: "key_id"},
		{name: "bad key id", actor: f.key, req: func(t *testing.T) sso.BindRequest {
			return sso.BindRequest{IDToken: f.proof(t, "s-y", nil), KeyID: "XYZ"}
		}, wantErr: appliance.ErrInvalid, field: "key_id"},
		{name: "proof expired", actor: f.key, req: func(t *testing.T) sso.BindRequest {
			return sso.BindRequest{IDToken: f.proof(t, "s-e", func(c map[string]any) { c["exp"] = f.now.Add(-time.Second).Unix() })}
		}, wantErr: appliance.ErrInvalid, field: "id_token", reason: "expired"},
		{name: "proof issued 6 minutes ago", actor: f.key, req: func(t *testing.T) sso.BindRequest {
			return sso.BindRequest{IDToken: f.proof(t, "s-old", at(-6*time.Minute))}
		}, wantErr: appliance.ErrInvalid, field: "id_token", reason: "more than 5 minutes ago"},
		{name: "proof issued in the future", actor: f.key, req: func(t *testing.T) sso.BindRequest {
			return sso.BindRequest{IDToken: f.proof(t, "s-fut", at(2*time.Minute))}
		}, wantErr: appliance.ErrInvalid, field: "id_token", reason: "future"},
		{name: "proof without iat", actor: f.key, req: func(t *testing.T) sso.BindRequest {
			return sso.BindRequest{IDToken: f.proof(t, "s-noiat", func(c map[string]any) { delete(c, "iat") })}
		}, wantErr: appliance.ErrInvalid, field: "id_token", reason: "iat"},
		{name: "proof for another client", actor: f.key, req: func(t *testing.T) sso.BindRequest {
			return sso.BindRequest{IDToken: f.proof(t, "s-aud", func(c map[string]any) { c["aud"] = "another-client" })}
		}, wantErr: appliance.ErrInvalid, field: "id_token", reason: "(aud)"},
		{name: "proof of another issuer", actor: f.key, req: func(t *testing.T) sso.BindRequest {
			return sso.BindRequest{IDToken: f.proof(t, "s-iss", func(c map[string]any) { c["iss"] = "https://evil.example" })}
		}, wantErr: appliance.ErrInvalid, field: "id_token", reason: "(iss)"},
		{name: "proof signed by another key", actor: f.key, req: func(t *testing.T) sso.BindRequest {
			return sso.BindRequest{IDToken: ssotest.SignWith(t, jose.RS256, other, f.iss.KeyID, f.iss.Claims("s-sig"))}
		}, wantErr: appliance.ErrInvalid, field: "id_token", reason: "signature"},
		{name: "proof not a token", actor: f.key, req: func(*testing.T) sso.BindRequest { return sso.BindRequest{IDToken: "abc"} },
			wantErr: appliance.ErrInvalid, field: "id_token", reason: "compact JWT"},
		{name: "an access token as proof", actor: f.key, req: func(t *testing.T) sso.BindRequest {
			return sso.BindRequest{IDToken: f.proof(t, "s-at", func(c map[string]any) { c["token_use"] = "access" })}
		}, wantErr: appliance.ErrInvalid, field: "id_token", reason: "token_use"},
		{name: "admin key as tenant", actor: f.admin, req: func(t *testing.T) sso.BindRequest { return sso.BindRequest{IDToken: f.proof(t, "s-z", nil)} },
			wantErr: appliance.ErrForbidden},
		{name: "admin binds any tenant", actor: f.admin, admin: true, req: func(*testing.T) sso.BindRequest {
			return sso.BindRequest{Subject: "s-adm", KeyID: otherTenant.ID, Justification: "onboarding ticket 42"}
		}},
		{name: "admin binds a bound subject", actor: f.admin, admin: true, req: func(*testing.T) sso.BindRequest {
			return sso.BindRequest{Subject: "user-1", KeyID: otherTenant.ID, Justification: "onboarding ticket 42"}
		}, wantErr: appliance.ErrConflict},
		{name: "admin without justification", actor: f.admin, admin: true, req: func(*testing.T) sso.BindRequest {
			return sso.BindRequest{Subject: "s-adm2", KeyID: otherTenant.ID}
		}, wantErr: appliance.ErrInvalid, field: "justification"},
		{name: "admin key cannot be bound", actor: f.admin, admin: true, req: func(*testing.T) sso.BindRequest {
			return sso.BindRequest{Subject: "s-adm3", KeyID: f.admin.ID, Justification: "onboarding ticket 42"}
		}, wantErr: appliance.ErrInvalid, field: "key_id"},
		{name: "tenant key on the admin path", actor: f.key, admin: true, req: func(*testing.T) sso.BindRequest {
			return sso.BindRequest{Subject: "s-adm4", KeyID: f.key.ID, Justification: "onboarding ticket 42"}
		}, wantErr: appliance.ErrForbidden},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.admin {
				_, err = f.svc.AdminBind(tc.actor, tc.req(t), appliance.AuditEntry{ActorKey: tc.actor.ID})
			} else {
				_, err = f.svc.Bind(t.Context(), tc.actor, tc.req(t), appliance.AuditEntry{ActorKey: tc.actor.ID})
			}
			if tc.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			var ve *appliance.ValidationError
			if tc.field != "" && (!errors.As(err, &ve) || ve.Fields[0].Field != tc.field) {
				t.Errorf("err = %v, want field %s", err, tc.field)
			}
			if !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("err = %v, want the reason %q", err, tc.reason)
			}
		})
	}
	list, err := f.svc.Bindings(f.key)
	if err != nil || len(list) != 2 {
		t.Fatalf("tenant t_a bindings = %+v, %v; want user-1 and s-own", list, err)
	}
	list, err = f.svc.Bindings(otherTenant)
	if err != nil || len(list) != 1 || list[0].Subject != "s-adm" {
		t.Fatalf("tenant t_d bindings = %+v, %v", list, err)
	}
	// A verified token is cached; the binding is still read each time.
	if _, err := f.svc.Authenticate(t.Context(), f.iss.Sign(t, f.iss.Claims("user-1"))); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Unbind(otherTenant, "user-1", appliance.AuditEntry{}); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("another tenant unbinds user-1: %v, want not found", err)
	}
	if err := f.svc.Unbind(f.key, "user-1", appliance.AuditEntry{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Authenticate(t.Context(), f.iss.Sign(t, f.iss.Claims("user-1"))); !errors.Is(err, appliance.ErrUnauthenticated) || !strings.Contains(err.Error(), "not bound") {
		t.Errorf("after unbind: %v", err)
	}
	if err := f.svc.AdminUnbind(f.key, "s-adm", "not an admin key", appliance.AuditEntry{}); !errors.Is(err, appliance.ErrForbidden) {
		t.Errorf("tenant key on admin unbind: %v", err)
	}
	if err := f.svc.AdminUnbind(f.admin, "s-adm", "short", appliance.AuditEntry{}); !errors.Is(err, appliance.ErrInvalid) {
		t.Errorf("admin unbind without justification: %v", err)
	}
	if err := f.svc.AdminUnbind(f.admin, "s-adm", "bound by mistake, ticket 9", appliance.AuditEntry{}); err != nil {
		t.Fatal(err)
	}
	if list, _ := f.svc.Bindings(otherTenant); len(list) != 0 {
		t.Errorf("t_d bindings after admin unbind: %+v", list)
	}
	if rows, _ := f.db.Audit("t_d", 0); len(rows) == 0 || rows[0].Action != sso.ActionAdminUnbind {
		t.Errorf("admin unbind audit row not in the binding's tenant: %+v", rows)
	}
	entries, err := f.db.Audit("", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{sso.ActionBind: 2, sso.ActionAdminBind: 1, sso.ActionUnbind: 1, sso.ActionAdminUnbind: 1, sso.ActionBindRefused: 2}
	got := map[string]int{}
	for _, e := range entries {
		got[e.Action]++
	}
	for a, n := range want {
		if got[a] != n {
			t.Errorf("audit %s: %d rows, want %d", a, got[a], n)
		}
	}
}

// TestHostedLogin runs the authorization-code flow with PKCE against the
// real issuer: the state is single use and expires; the code exchange
// checks the verifier.
func TestHostedLogin(t *testing.T) {
	f := newFixture(t, false)
	ctx := context.Background()
	authURL, err := f.svc.BeginLogin(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(authURL, f.iss.URL+"/authorize?") {
		t.Fatalf("auth URL %s", authURL)
	}
	code, state := f.iss.Authorize(t, authURL, "user-1")
	res, err := f.svc.FinishLogin(ctx, state, code, appliance.AuditEntry{IP: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Key.ID != f.key.ID || res.Subject != "user-1" || res.IDToken == "" {
		t.Fatalf("result %+v", res)
	}
	if k, err := f.svc.Authenticate(ctx, res.IDToken); err != nil || k.ID != f.key.ID {
		t.Fatalf("the login's ID token as bearer: %v", err)
	}
	if _, err := f.svc.FinishLogin(ctx, state, code, appliance.AuditEntry{}); !errors.Is(err, appliance.ErrUnauthenticated) {
		t.Errorf("state reused: %v", err)
	}

	t.Run("expired state", func(t *testing.T) {
		u, _ := f.svc.BeginLogin(ctx, "")
		code, state := f.iss.Authorize(t, u, "user-1")
		f.now = f.now.Add(sso.DefaultLoginTTL + time.Second)
		defer func() { f.now = f.now.Add(-sso.DefaultLoginTTL - time.Second) }()
		if _, err := f.svc.FinishLogin(ctx, state, code, appliance.AuditEntry{}); !errors.Is(err, appliance.ErrUnauthenticated) {
			t.Errorf("expired: %v", err)
		}
	})
	t.Run("unbound subject", func(t *testing.T) {
		u, _ := f.svc.BeginLogin(ctx, "")
		code, state := f.iss.Authorize(t, u, "stranger")
		if _, err := f.svc.FinishLogin(ctx, state, code, appliance.AuditEntry{}); err == nil || !strings.Contains(err.Error(), "not bound") {
			t.Errorf("unbound: %v", err)
		}
	})
	t.Run("code of another login", func(t *testing.T) {
		u1, _ := f.svc.BeginLogin(ctx, "")
		u2, _ := f.svc.BeginLogin(ctx, "")
		code1, _ := f.iss.Authorize(t, u1, "user-1")
		_, state2 := f.iss.Authorize(t, u2, "user-1")
		// The verifier of login 2 does not match the challenge of code 1.
		if _, err := f.svc.FinishLogin(ctx, state2, code1, appliance.AuditEntry{}); !errors.Is(err, appliance.ErrUnauthenticated) {
			t.Errorf("swapped code: %v", err)
		}
	})
	entries, _ := f.db.Audit("t_a", 0)
	logins := 0
	for _, e := range entries {
		if e.Action == sso.ActionLogin {
			logins++
		}
	}
	if logins != 1 {
		t.Errorf("%d sso.login rows, want 1", logins)
	}
	all, _ := f.db.Audit("", 0)
	refused := 0
	for _, e := range all {
		if e.Action == sso.ActionLoginRefused {
			refused++
		}
	}
	if refused != 4 {
		t.Errorf("%d sso.login.refused rows, want 4", refused)
	}
}

// TestNewConfig checks configuration refusals.
func TestNewConfig(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, []byte(`{"keys":[]}`), 0o600)
	tests := []struct {
		name string
		cfg  sso.Config
	}{
		{"no issuer", sso.Config{ClientID: "x"}},
		{"relative issuer", sso.Config{IssuerURL: "/x", ClientID: "x"}},
		{"no client id", sso.Config{IssuerURL: "https://idp.example"}},
		{"empty JWKS file", sso.Config{IssuerURL: "https://idp.example", ClientID: "x", JWKSFile: bad}},
		{"missing JWKS file", sso.Config{IssuerURL: "https://idp.example", ClientID: "x", JWKSFile: filepath.Join(dir, "none.json")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := sso.New(tc.cfg, nil); err == nil {
				t.Error("accepted")
			}
		})
	}
}

// TestUnreachableIssuer: discovery failing is a 503-class error, retried
// at most every 30 s.
func TestUnreachableIssuer(t *testing.T) {
	svc, err := sso.New(sso.Config{IssuerURL: "http://127.0.0.1:1", ClientID: "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	iss := ssotest.New(t, "x", nil)
	_, err = svc.Authenticate(t.Context(), iss.Sign(t, iss.Claims("s")))
	if !errors.Is(err, appliance.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
}

// TestVerifiedTokenCache: a cached token stops working when it expires.
func TestVerifiedTokenCache(t *testing.T) {
	f := newFixture(t, true)
	c := f.iss.Claims("user-1")
	c["exp"] = f.now.Add(2 * time.Minute).Unix()
	tok := f.iss.Sign(t, c)
	for range 2 {
		if _, err := f.svc.Authenticate(t.Context(), tok); err != nil {
			t.Fatal(err)
		}
	}
	f.now = f.now.Add(3 * time.Minute)
	if _, err := f.svc.Authenticate(t.Context(), tok); !errors.Is(err, appliance.ErrUnauthenticated) || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("expired cached token: %v", err)
	}
}
