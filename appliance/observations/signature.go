package observations

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"linkplan/appliance"
)

// Signature statuses of a batch response (SPEC §2.8).
const (
	SignatureVerified = "verified"
	SignatureUnsigned = "unsigned"
)

// Weights of signed and unsigned rows in drift metrics (SPEC §5.3).
const (
	SignedWeight   = 1.0
	UnsignedWeight = 0.1
)

// SigningSecret returns the HMAC key of a plain API key: SHA-256 of
// "obs-sign:" followed by the key (SPEC §5.3).
func SigningSecret(apiKey string) []byte {
	s := sha256.Sum256([]byte("obs-sign:" + apiKey))
	return s[:]
}

// Sign returns the X-Observation-Signature value of body for apiKey, with
// the timestamp ts ("" for none): "sha256=" + hex HMAC-SHA256 over body,
// or over ts + "." + body.
func Sign(apiKey, ts string, body []byte) string {
	m := hmac.New(sha256.New, SigningSecret(apiKey))
	if ts != "" {
		m.Write([]byte(ts))
		m.Write([]byte("."))
	}
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// sigError is a refused signature: 401, never a hint of the right value.
func sigError(format string, args ...any) error {
	return fmt.Errorf("observation signature: %s: %w", fmt.Sprintf(format, args...), appliance.ErrUnauthenticated)
}

// verify checks the signature headers of a body. It returns the status
// (SignatureVerified or SignatureUnsigned) or an error matching
// appliance.ErrUnauthenticated.
func verify(body []byte, sigHeader, tsHeader, apiKey string, require bool, maxSkew time.Duration, now time.Time) (string, error) {
	if sigHeader == "" {
		if tsHeader != "" {
			return "", sigError("X-Observation-Signature-Ts without X-Observation-Signature")
		}
		if require {
			return "", sigError("this appliance requires signed observation batches (X-Observation-Signature)")
		}
		return SignatureUnsigned, nil
	}
	if apiKey == "" {
		return "", sigError("a signed batch needs X-API-Key: the secret is derived from the key")
	}
	hexSig, ok := strings.CutPrefix(sigHeader, "sha256=")
	if !ok {
		return "", sigError("X-Observation-Signature must be sha256=<hex>")
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil || len(got) != sha256.Size {
		return "", sigError("X-Observation-Signature must be sha256= followed by 64 hex digits")
	}
	m := hmac.New(sha256.New, SigningSecret(apiKey))
	if tsHeader != "" {
		ts, err := strconv.ParseFloat(tsHeader, 64)
		if err != nil || math.IsNaN(ts) || math.IsInf(ts, 0) {
			return "", sigError("X-Observation-Signature-Ts must be epoch seconds")
		}
		skew := math.Abs(float64(now.UnixNano())/1e9 - ts)
		if skew > maxSkew.Seconds() {
			return "", sigError("X-Observation-Signature-Ts is %.0f s from the server's clock (at most %.0f s accepted)", skew, maxSkew.Seconds())
		}
		m.Write([]byte(tsHeader))
		m.Write([]byte("."))
	}
	m.Write(body)
	if !hmac.Equal(got, m.Sum(nil)) {
		return "", sigError("X-Observation-Signature does not match the body (sign the raw bytes sent, not re-serialised JSON)")
	}
	return SignatureVerified, nil
}
