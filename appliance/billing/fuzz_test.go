package billing_test

import (
	"errors"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/billing"
)

// FuzzParseSignature: any header is a signature with a positive timestamp
// and 32-byte digests, or an ErrUnauthenticated error.
func FuzzParseSignature(f *testing.F) {
	for _, s := range []string{"t=1,v1=" + string(make([]byte, 0)), billing.Sign([]byte("k"), []byte("b"), time.Unix(1780000000, 0)), "t=,v1=", "v1=ab,t=2", ",,,", "t=1,v1=zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		s, err := billing.ParseSignature(h)
		if err != nil {
			if !errors.Is(err, appliance.ErrUnauthenticated) {
				t.Fatalf("error %v is not ErrUnauthenticated", err)
			}
			return
		}
		if s.Timestamp <= 0 || len(s.V1) == 0 {
			t.Fatalf("accepted %q as %+v", h, s)
		}
		for _, d := range s.V1 {
			if len(d) != 32 {
				t.Fatalf("digest of %d bytes from %q", len(d), h)
			}
		}
	})
}

// FuzzParseEvent: any body is an event with id, type and an object, or an
// ErrInvalid error.
func FuzzParseEvent(f *testing.F) {
	for _, s := range []string{`{"id":"evt_1","type":"checkout.session.completed","data":{"object":{}}}`, `{}`, `[]`, `{"id":"a b"}`, `{"id":"x","type":"y","data":{"object":{}}} {}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := billing.ParseEvent(b)
		if err != nil {
			if !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("error %v is not ErrInvalid", err)
			}
			return
		}
		if e.ID == "" || e.Type == "" || len(e.Data.Object) == 0 || e.Data.Object[0] != '{' {
			t.Fatalf("accepted %q as %+v", b, e)
		}
	})
}
