package sso_test

import (
	"errors"
	"fmt"
	"slices"
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
// tenant ("elsewhere"), bound to its own ("here"), the proof used before
// ("spent") — beside a binding that succeeds ("bound"). Each iteration
// runs the four in turn, so that the load of a shared machine falls on
// all of them alike; the median of each is reported (µs). Tokens are
// signed and the clock moved outside the measured calls: every 1,000
// iterations the clock jumps past every proof's freshness, so that the
// spent-proof set never fills, and a new spent proof is made.
//
//	go test ./appliance/sso -run '^$' -bench BindRefusals -benchtime 500x -count 3
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
	var used string
	reset := func() {
		f.now = f.now.Add(sso.MaxProofAge + sso.ProofSkew + time.Minute)
		used = fresh("s-used")
		if _, err := f.svc.Bind(ctx, other, sso.BindRequest{IDToken: used}, appliance.AuditEntry{}); err != nil {
			b.Fatal(err)
		}
		if err := f.svc.Unbind(other, "s-used", appliance.AuditEntry{}); err != nil {
			b.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		actor *appliance.APIKey
		token func() string
		ok    bool
	}{
		{"elsewhere", other, func() string { return fresh("user-1") }, false},
		{"here", f.key, func() string { return fresh("user-1") }, false},
		// The spent proof is signed once; one is signed and dropped here
		// so that every case leaves the same garbage before its call.
		{"spent", other, func() string { _ = fresh("unused"); return used }, false},
		{"bound", other, func() string { return fresh(fmt.Sprintf("s-new-%d", seq)) }, true},
	}
	took := make([][]time.Duration, len(cases))
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		if i%1000 == 0 {
			reset()
		}
		for c, tc := range cases {
			tok := tc.token()
			b.StartTimer()
			t0 := time.Now()
			_, err := f.svc.Bind(ctx, tc.actor, sso.BindRequest{IDToken: tok}, appliance.AuditEntry{})
			took[c] = append(took[c], time.Since(t0))
			b.StopTimer()
			if (err == nil) != tc.ok || err != nil && !errors.Is(err, sso.ErrBindRefused) {
				b.Fatalf("%s: err = %v", tc.name, err)
			}
		}
	}
	for c, tc := range cases {
		d := took[c]
		slices.Sort(d)
		b.ReportMetric(float64(d[len(d)/2].Microseconds()), "µs-median-"+tc.name)
	}
}
