package sso_test

import (
	"testing"
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
