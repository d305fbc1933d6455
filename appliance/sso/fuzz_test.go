package sso_test

import (
	"errors"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/sso"
)

// FuzzParseBearer: any header value is either a token of token68
// characters that ParseBearer returns unchanged when re-wrapped, or an
// ErrUnauthenticated error; never a panic.
func FuzzParseBearer(f *testing.F) {
	for _, s := range []string{"Bearer abc.def.ghi", "bearer  x", "Basic dXNlcg==", "Bearer", "Bearer a=b", "Bearer ab==", "Bearer \x00", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		tok, err := sso.ParseBearer(h)
		if err != nil {
			if !errors.Is(err, appliance.ErrUnauthenticated) {
				t.Fatalf("error %v is not ErrUnauthenticated", err)
			}
			return
		}
		if tok == "" || len(tok) > sso.MaxTokenBytes || strings.ContainsAny(tok, " \t\r\n") {
			t.Fatalf("accepted token %q", tok)
		}
		if again, err := sso.ParseBearer("Bearer " + tok); err != nil || again != tok {
			t.Fatalf("round trip of %q: %q, %v", tok, again, err)
		}
	})
}

// FuzzParseHeader: any token is either a header or an
// ErrUnauthenticated error.
func FuzzParseHeader(f *testing.F) {
	for _, s := range []string{"eyJhbGciOiJub25lIn0.e30.", "a.b.c", "....", "eyJhbGciOiJSUzI1NiIsImtpZCI6IngifQ.e30.sig"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		if _, err := sso.ParseHeader(tok); err != nil && !errors.Is(err, appliance.ErrUnauthenticated) {
			t.Fatalf("error %v is not ErrUnauthenticated", err)
		}
	})
}
