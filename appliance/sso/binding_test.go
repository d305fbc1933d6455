package sso_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/sso"
)

// TestBindProofOnce: an ID token proves one binding decision. A refusal
// on key_id does not spend it; a decision (bound or refused) does, even
// when its subject is unbound again afterwards.
func TestBindProofOnce(t *testing.T) {
	f := newFixture(t, true)
	ctx := t.Context()
	tok := f.proof(t, "s-once", nil)
	if _, err := f.svc.Bind(ctx, f.key, sso.BindRequest{IDToken: tok, KeyID: "0123456789ab"}, appliance.AuditEntry{}); !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("unknown key: %v", err)
	}
	if _, err := f.svc.Bind(ctx, f.key, sso.BindRequest{IDToken: tok}, appliance.AuditEntry{}); err != nil {
		t.Fatalf("the proof was spent on a refused key_id: %v", err)
	}
	if err := f.svc.Unbind(f.key, "s-once", appliance.AuditEntry{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Bind(ctx, f.key, sso.BindRequest{IDToken: tok}, appliance.AuditEntry{}); !errors.Is(err, sso.ErrBindRefused) {
		t.Fatalf("a used proof: %v, want ErrBindRefused", err)
	}
	// Past its freshness the token is refused as stale, not as used.
	f.now = f.now.Add(sso.MaxProofAge + sso.ProofSkew + time.Second)
	if _, err := f.svc.Bind(ctx, f.key, sso.BindRequest{IDToken: tok}, appliance.AuditEntry{}); !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("a stale proof: %v", err)
	}
}

// TestBindingIntent runs binding links against the real issuer: the
// person who signs in through a link is bound to its key; a link is
// single use, expires, and is bounded per tenant; a subject bound already
// or a key revoked meanwhile is the one refusal, audited for the admin
// only.
func TestBindingIntent(t *testing.T) {
	f := newFixture(t, false)
	ctx := context.Background()
	other := &appliance.APIKey{ID: "dddddddddddd", HashHex: strings.Repeat("d", 64), Tier: appliance.TierPro, Role: appliance.RoleTenant, TenantID: "t_d"}
	member := &appliance.APIKey{ID: "eeeeeeeeeeee", HashHex: strings.Repeat("e", 64), Tier: appliance.TierPro, Role: appliance.RoleTenant, TenantID: "t_a"}
	for _, k := range []*appliance.APIKey{other, member} {
		if err := f.db.PutKey(k); err != nil {
			t.Fatal(err)
		}
	}
	// login signs subject in through the link of intent.
	login := func(t *testing.T, intent, subject string) (*sso.LoginResult, error) {
		t.Helper()
		u, err := f.svc.BeginLogin(ctx, intent)
		if err != nil {
			return nil, err
		}
		code, state := f.iss.Authorize(t, u, subject)
		return f.svc.FinishLogin(ctx, state, code, appliance.AuditEntry{IP: "192.0.2.7"})
	}
	create := func(t *testing.T, actor *appliance.APIKey, keyID string) *sso.Intent {
		t.Helper()
		in, err := f.svc.CreateIntent(actor, keyID, appliance.AuditEntry{ActorKey: actor.ID})
		if err != nil {
			t.Fatal(err)
		}
		return in
	}

	in := create(t, f.key, member.ID)
	if in.KeyID != member.ID || in.TenantID != "t_a" || !strings.HasPrefix(in.LoginPath, "/auth/oidc/login?intent=") ||
		in.ExpiresUnix != f.now.Add(sso.DefaultIntentTTL).Unix() {
		t.Fatalf("intent %+v", in)
	}
	if q, _ := url.ParseQuery(strings.TrimPrefix(in.LoginPath, "/auth/oidc/login?")); q.Get("intent") != in.Token {
		t.Fatalf("login path %s does not carry the token", in.LoginPath)
	}
	res, err := login(t, in.Token, "new-person")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Bound || res.Key.ID != member.ID || res.Subject != "new-person" {
		t.Fatalf("result %+v", res)
	}
	if k, err := f.svc.Authenticate(ctx, f.iss.Sign(t, f.iss.Claims("new-person"))); err != nil || k.ID != member.ID {
		t.Fatalf("the bound subject's token: %v %v", k, err)
	}
	if _, err := f.svc.BeginLogin(ctx, in.Token); !errors.Is(err, sso.ErrBindRefused) {
		t.Errorf("a used link: %v", err)
	}

	refusals := []struct {
		name    string
		intent  func(t *testing.T) string
		subject string
	}{
		{"unknown link", func(*testing.T) string { return "not-a-link" }, "p-1"},
		{"expired link", func(t *testing.T) string {
			in := create(t, f.key, "")
			f.now = f.now.Add(sso.DefaultIntentTTL + time.Second)
			return in.Token
		}, "p-2"},
		{"subject bound to this tenant", func(t *testing.T) string { return create(t, f.key, "").Token }, "user-1"},
		{"subject bound to another tenant", func(t *testing.T) string { return create(t, other, "").Token }, "user-1"},
		{"key revoked meanwhile", func(t *testing.T) string {
			in := create(t, f.key, member.ID)
			err := f.db.UpdateTenantKeys("t_a", func(keys []*appliance.APIKey) (appliance.KeyChange, error) {
				for _, k := range keys {
					if k.ID == member.ID {
						k.RevokedUnix = f.now.Unix()
						return appliance.KeyChange{Update: []*appliance.APIKey{k}}, nil
					}
				}
				return appliance.KeyChange{}, errors.New("member key not found")
			})
			if err != nil {
				t.Fatal(err)
			}
			return in.Token
		}, "p-3"},
	}
	var messages []string
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			_, err := login(t, tc.intent(t), tc.subject)
			if !errors.Is(err, sso.ErrBindRefused) || err.Error() != sso.ErrBindRefused.Error() {
				t.Fatalf("err = %v, want ErrBindRefused", err)
			}
			messages = append(messages, err.Error())
		})
	}
	for _, m := range messages {
		if m != messages[0] {
			t.Errorf("refusals differ: %q and %q", m, messages[0])
		}
	}
	all, _ := f.db.Audit("", 0)
	n := map[string]int{}
	for _, e := range all {
		n[e.Action]++
		if e.Action == sso.ActionBindRefused && (e.TenantID != "" || e.Params["reason"] == "") {
			t.Errorf("refusal row %+v: want no tenant and a reason", e)
		}
		if e.Action == sso.ActionBind && e.Params["proof"] == sso.ProofHostedLogin && (e.TenantID != "t_a" || e.ActorKey != f.key.ID || e.Params["key_id"] != member.ID) {
			t.Errorf("binding row %+v", e)
		}
	}
	// The callback refusals: subject bound twice, key revoked once (the
	// unknown and expired links are refused before the issuer is asked).
	if n[sso.ActionBindRefused] != 3 || n[sso.ActionIntentCreate] != 5 || n[sso.ActionLogin] != 1 {
		t.Errorf("audit rows %v", n)
	}
	for _, tenant := range []string{"t_a", "t_d"} {
		rows, _ := f.db.Audit(tenant, 0)
		for _, e := range rows {
			if e.Action == sso.ActionBindRefused || e.Action == sso.ActionLoginRefused {
				t.Errorf("tenant %s's log holds a refusal: %+v", tenant, e)
			}
		}
	}

	t.Run("bounds and refusals at creation", func(t *testing.T) {
		for i := 0; i < sso.MaxIntentsPerTenant; i++ {
			create(t, other, "")
		}
		if _, err := f.svc.CreateIntent(other, "", appliance.AuditEntry{}); !errors.Is(err, appliance.ErrQuota) {
			t.Errorf("link %d: %v", sso.MaxIntentsPerTenant+1, err)
		}
		create(t, f.key, "") // another tenant's links do not count
		for _, tc := range []struct {
			name  string
			actor *appliance.APIKey
			keyID string
			want  error
		}{
			{"another tenant's key", f.key, other.ID, appliance.ErrInvalid},
			{"unknown key", f.key, "0123456789ab", appliance.ErrInvalid},
			{"revoked key", f.key, member.ID, appliance.ErrInvalid},
			{"bad key id", f.key, "x", appliance.ErrInvalid},
			{"admin key", f.admin, "", appliance.ErrForbidden},
		} {
			if _, err := f.svc.CreateIntent(tc.actor, tc.keyID, appliance.AuditEntry{}); !errors.Is(err, tc.want) {
				t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
			}
		}
		noLogin, err := sso.New(sso.Config{IssuerURL: f.iss.URL, ClientID: clientID, HTTPClient: f.iss.Client()}, f.db)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := noLogin.CreateIntent(f.key, "", appliance.AuditEntry{}); !errors.Is(err, appliance.ErrUnavailable) {
			t.Errorf("without hosted login: %v", err)
		}
	})
}
