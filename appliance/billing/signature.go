package billing

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"linkplan/appliance"
)

// SignatureHeader is the request header of the webhook signature, the name
// Stripe uses.
const SignatureHeader = "Stripe-Signature"

// DefaultTolerance is the largest accepted distance between the signed
// timestamp and the appliance's clock.
const DefaultTolerance = 300 * time.Second

// maxSignatureHeaderBytes bounds the signature header.
const maxSignatureHeaderBytes = 4096

// Signature is a parsed signature header: the timestamp and the v1
// signatures (several while the provider rolls its secret).
type Signature struct {
	Timestamp int64    // epoch seconds
	V1        [][]byte // HMAC-SHA256 digests
}

// ParseSignature parses "t=<epoch seconds>,v1=<hex>[,v1=<hex>...]" (other
// schemes, e.g. v0, are ignored). Exactly one t, at least one v1 of 64 hex
// digits. A malformed header is an appliance.ErrUnauthenticated error that
// says what is wrong.
func ParseSignature(h string) (Signature, error) {
	var s Signature
	if h == "" {
		return s, fmt.Errorf("the %s header is missing: %w", SignatureHeader, appliance.ErrUnauthenticated)
	}
	if len(h) > maxSignatureHeaderBytes {
		return s, fmt.Errorf("the %s header is longer than %d bytes: %w", SignatureHeader, maxSignatureHeaderBytes, appliance.ErrUnauthenticated)
	}
	seenT := false
	for _, part := range strings.Split(h, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return s, fmt.Errorf("the %s header must be t=<timestamp>,v1=<signature>: %w", SignatureHeader, appliance.ErrUnauthenticated)
		}
		switch k {
		case "t":
			if seenT {
				return s, fmt.Errorf("the %s header holds two timestamps: %w", SignatureHeader, appliance.ErrUnauthenticated)
			}
			seenT = true
			ts, err := strconv.ParseInt(v, 10, 64)
			if err != nil || ts <= 0 || strings.HasPrefix(v, "+") {
				return s, fmt.Errorf("the %s header's timestamp must be epoch seconds: %w", SignatureHeader, appliance.ErrUnauthenticated)
			}
			s.Timestamp = ts
		case "v1":
			d, err := hex.DecodeString(v)
			if err != nil || len(d) != sha256.Size {
				return s, fmt.Errorf("the %s header's v1 must be 64 hex digits: %w", SignatureHeader, appliance.ErrUnauthenticated)
			}
			s.V1 = append(s.V1, d)
		}
	}
	if !seenT || len(s.V1) == 0 {
		return s, fmt.Errorf("the %s header needs a timestamp t and a v1 signature: %w", SignatureHeader, appliance.ErrUnauthenticated)
	}
	return s, nil
}

// Sign returns the header value for body signed with secret at t (for the
// tests and for operators checking their set-up).
func Sign(secret, body []byte, t time.Time) string {
	return fmt.Sprintf("t=%d,v1=%s", t.Unix(), hex.EncodeToString(digest(secret, t.Unix(), body)))
}

func digest(secret []byte, ts int64, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(strconv.FormatInt(ts, 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Verify checks the header h for body: some v1 must equal
// HMAC-SHA256(secret, t + "." + body) (compared in constant time), and t
// must be within tolerance of now, either way. Refusals are
// appliance.ErrUnauthenticated errors naming the reason.
func Verify(h string, body, secret []byte, now time.Time, tolerance time.Duration) error {
	sig, err := ParseSignature(h)
	if err != nil {
		return err
	}
	want := digest(secret, sig.Timestamp, body)
	match := false
	for _, v := range sig.V1 {
		if hmac.Equal(v, want) {
			match = true
		}
	}
	if !match {
		return fmt.Errorf("the webhook signature does not match the body (wrong secret, or the body was changed): %w", appliance.ErrUnauthenticated)
	}
	if d := now.Sub(time.Unix(sig.Timestamp, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("the webhook timestamp is %s away from the appliance's clock, more than the %s tolerance (a replayed or delayed delivery): %w",
			d.Round(time.Second), tolerance, appliance.ErrUnauthenticated)
	}
	return nil
}
