package sso

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"linkplan/appliance"
)

// MaxTokenBytes bounds the bearer token of an Authorization header.
const MaxTokenBytes = 16 << 10

// Algorithms are the accepted ID token signature algorithms (SPEC §5.1.2).
var Algorithms = []string{"RS256", "RS384", "RS512"}

// ParseBearer returns the token of an Authorization header value of the
// form "Bearer <token>" (scheme case-insensitive, RFC 6750 token68
// characters, at most MaxTokenBytes). Anything else is an
// appliance.ErrUnauthenticated error that says what is wrong.
func ParseBearer(h string) (string, error) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", fmt.Errorf("the Authorization header must be \"Bearer <ID token>\": %w", appliance.ErrUnauthenticated)
	}
	tok = strings.TrimLeft(tok, " ")
	if tok == "" {
		return "", fmt.Errorf("the bearer token is empty: %w", appliance.ErrUnauthenticated)
	}
	if len(tok) > MaxTokenBytes {
		return "", fmt.Errorf("the bearer token is longer than %d bytes: %w", MaxTokenBytes, appliance.ErrUnauthenticated)
	}
	pad := false
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		switch {
		case c == '=':
			pad = true
		case pad:
			return "", fmt.Errorf("the bearer token has characters after its padding: %w", appliance.ErrUnauthenticated)
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte("-._~+/", c) >= 0:
		default:
			return "", fmt.Errorf("the bearer token holds a character that a token may not (byte %d): %w", i, appliance.ErrUnauthenticated)
		}
	}
	return tok, nil
}

// Header is the protected header of a compact JWS, as far as refusal
// reasons need it. It is read only to word a refusal: every decision is
// go-oidc's.
type Header struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
	Typ string `json:"typ"`
}

// ParseHeader decodes the header segment of a compact JWS (three
// base64url segments separated by dots). A token that is not one is an
// appliance.ErrUnauthenticated error.
func ParseHeader(tok string) (Header, error) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return Header{}, fmt.Errorf("the ID token is not a compact JWT (three dot-separated parts, found %d): %w", len(parts), appliance.ErrUnauthenticated)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return Header{}, fmt.Errorf("the ID token's header is not base64url: %w", appliance.ErrUnauthenticated)
	}
	var h Header
	if err := json.Unmarshal(raw, &h); err != nil {
		return Header{}, fmt.Errorf("the ID token's header is not a JSON object: %w", appliance.ErrUnauthenticated)
	}
	return h, nil
}

// acceptedAlg reports whether alg is one of Algorithms.
func acceptedAlg(alg string) bool {
	for _, a := range Algorithms {
		if a == alg {
			return true
		}
	}
	return false
}
