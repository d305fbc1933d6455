package tenancy

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// sealVersion prefixes a sealed TOTP secret; a new scheme gets a new prefix.
const sealVersion = "v1."

// sealInfo is the HKDF info string of the TOTP sealing key.
const sealInfo = "linkplan admin totp secret v1"

// ErrSealed means a sealed TOTP secret could not be opened with the plain key
// given: a corrupted record or a plain key that is not this key's.
var ErrSealed = errors.New("sealed TOTP secret cannot be opened")

// sealingKey derives the AES-256 key that seals the TOTP secret of the key
// keyID from its plain API key: HKDF-SHA256, salt the key id.
func sealingKey(plain, keyID string) ([]byte, error) {
	k, err := hkdf.Key(sha256.New, []byte(plain), []byte(keyID), sealInfo, 32)
	if err != nil {
		return nil, fmt.Errorf("derive totp sealing key: %w", err)
	}
	return k, nil
}

func gcmFor(plain, keyID string) (cipher.AEAD, error) {
	k, err := sealingKey(plain, keyID)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(k)
	if err != nil {
		return nil, fmt.Errorf("totp sealing cipher: %w", err)
	}
	g, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("totp sealing cipher: %w", err)
	}
	return g, nil
}

// sealTOTP seals secret under plain: "v1." + base64url(nonce | AES-256-GCM
// ciphertext), the key id as additional data so a sealed value cannot be
// moved to another key record.
func sealTOTP(plain, keyID, secret string) (string, error) {
	g, err := gcmFor(plain, keyID)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, g.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("seal totp secret: random: %w", err)
	}
	out := g.Seal(nonce, nonce, []byte(secret), []byte(keyID))
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
	g, err := gcmFor(plain, keyID)
	if err != nil {
		return "", err
	}
	if len(raw) < g.NonceSize()+g.Overhead() {
		return "", fmt.Errorf("open totp secret of key %s: too short: %w", keyID, ErrSealed)
	}
	secret, err := g.Open(nil, raw[:g.NonceSize()], raw[g.NonceSize():], []byte(keyID))
	if err != nil {
		return "", fmt.Errorf("open totp secret of key %s: %w", keyID, ErrSealed)
	}
	return string(secret), nil
}
