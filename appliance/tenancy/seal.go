package tenancy

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"linkplan/appliance/seal"
)

// sealVersion prefixes a sealed TOTP secret; a new scheme gets a new prefix.
const sealVersion = "v1."

// sealInfo is the HKDF info string of the TOTP sealing key.
const sealInfo = "linkplan admin totp secret v1"

// ErrSealed means a sealed TOTP secret could not be opened with the plain key
// given: a corrupted record or a plain key that is not this key's.
var ErrSealed = errors.New("sealed TOTP secret cannot be opened")

// sealTOTP seals secret under plain: "v1." + base64url(appliance/seal's
// nonce | AES-256-GCM ciphertext, key HKDF-SHA256 of the plain key, salt
// the key id), the key id as additional data so a sealed value cannot be
// moved to another key record.
func sealTOTP(plain, keyID, secret string) (string, error) {
	out, err := seal.Seal(plain, keyID, sealInfo, []byte(secret))
	if err != nil {
		return "", fmt.Errorf("seal totp secret: %w", err)
	}
	return sealVersion + base64.RawURLEncoding.EncodeToString(out), nil
}

// openTOTP opens a value of sealTOTP; ErrSealed when it does not open.
func openTOTP(plain, keyID, sealed string) (string, error) {
	body, ok := strings.CutPrefix(sealed, sealVersion)
	if !ok {
		return "", fmt.Errorf("open totp secret of key %s: unknown scheme: %w", keyID, ErrSealed)
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return "", fmt.Errorf("open totp secret of key %s: %w", keyID, ErrSealed)
	}
	secret, err := seal.Open(plain, keyID, sealInfo, raw)
	if errors.Is(err, seal.ErrOpen) {
		return "", fmt.Errorf("open totp secret of key %s: %w", keyID, ErrSealed)
	}
	if err != nil {
		return "", fmt.Errorf("open totp secret of key %s: %w", keyID, err)
	}
	return string(secret), nil
}
