package sso_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/sso"
)

// BenchmarkAuthenticateBearer measures one bearer ID token check: header
// parse, go-oidc verification (RS256, 2048-bit key, keys from a JWKS file),
// claims and the binding lookup in a real bbolt file.
func BenchmarkAuthenticateBearer(b *testing.B) {
	f := newFixtureTB(b, true)
	tok := f.iss.Sign(b, f.iss.Claims("user-1"))
	ctx := b.Context()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := f.svc.Authenticate(ctx, tok); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBindRefusals measures POST /tenant/sso/bindings' service call
// (proof verification, the store transaction and the audit write) for each
// outcome a tenant must not tell apart — the subject bound to another
// tenant, bound to its own, the proof used before — beside a binding that
// succeeds. The tokens are signed outside the timer; time moves on 7
// minutes every 4,000 calls so that the spent-proof set never fills.
//
//	go test ./appliance/sso -run '^$' -bench BindRefusals -benchtime 2000x -count 5
func BenchmarkBindRefusals(b *testing.B) {
	f := newFixtureTB(b, true)
	other := &appliance.APIKey{ID: "dddddddddddd", HashHex: strings.Repeat("d", 64), Tier: appliance.TierPro, Role: appliance.RoleTenant, TenantID: "t_d"}
	if err := f.db.PutKey(other); err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	seq := 0
	fresh := func(subject string) string {
		seq++
		return f.proof(b, subject, func(c map[string]any) { c["jti"] = fmt.Sprint(seq) })
	}
	used := fresh("s-used")
	if _, err := f.svc.Bind(ctx, other, sso.BindRequest{IDToken: used}, appliance.AuditEntry{}); err != nil {
		b.Fatal(err)
	}
	if err := f.svc.Unbind(other, "s-used", appliance.AuditEntry{}); err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name  string
		actor *appliance.APIKey
		token func() string
		ok    bool
	}{
		{"bound to another tenant", other, func() string { return fresh("user-1") }, false},
		{"bound to this tenant", f.key, func() string { return fresh("user-1") }, false},
		{"proof used before", other, func() string { return used }, false},
		{"bound now", other, func() string { return fresh(fmt.Sprintf("s-new-%d", seq)) }, true},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if i%4000 == 3999 {
					f.now = f.now.Add(7 * time.Minute)
				}
				tok := tc.token()
				b.StartTimer()
				_, err := f.svc.Bind(ctx, tc.actor, sso.BindRequest{IDToken: tok}, appliance.AuditEntry{})
				if (err == nil) != tc.ok || err != nil && !errors.Is(err, sso.ErrBindRefused) {
					b.Fatalf("err = %v", err)
				}
			}
		})
	}
}
