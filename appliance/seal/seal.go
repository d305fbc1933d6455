// Package seal is the one AES-256-GCM sealing of the appliance: a value
// encrypted under a key derived from a secret the store never holds
// (billing: the checkout session id; tenancy: the plain API key), bound
// to the record it belongs to.
//
//	key    = HKDF-SHA256(secret, salt = id, info, 32 bytes)
//	sealed = nonce (12 random bytes) | AES-256-GCM(key, nonce, plain, additional data = id)
//
// The id as additional data means a sealed value moved to another record
// does not open. Encoding the bytes (base64, a version prefix) is the
// caller's: the stored formats of billing and tenancy differ and stay as
// they are.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
)

// ErrOpen means a sealed value did not open: corrupted, too short, sealed
// for another id, or under another secret or info.
var ErrOpen = errors.New("sealed value cannot be opened")

func aead(secret, id, info string) (cipher.AEAD, error) {
	key, err := hkdf.Key(sha256.New, []byte(secret), []byte(id), info, 32)
	if err != nil {
		return nil, fmt.Errorf("derive sealing key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("sealing cipher: %w", err)
	}
	g, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("sealing cipher: %w", err)
	}
	return g, nil
}

// Seal encrypts plain under the key of (secret, id, info): nonce |
// ciphertext, id as additional data.
func Seal(secret, id, info string, plain []byte) ([]byte, error) {
	g, err := aead(secret, id, info)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, g.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("seal: random nonce: %w", err)
	}
	return g.Seal(nonce, nonce, plain, []byte(id)), nil
}

// Open decrypts a value of Seal; ErrOpen when it does not open.
func Open(secret, id, info string, sealed []byte) ([]byte, error) {
	g, err := aead(secret, id, info)
	if err != nil {
		return nil, err
	}
	if len(sealed) < g.NonceSize()+g.Overhead() {
		return nil, fmt.Errorf("open: %d bytes, too short: %w", len(sealed), ErrOpen)
	}
	plain, err := g.Open(nil, sealed[:g.NonceSize()], sealed[g.NonceSize():], []byte(id))
	if err != nil {
		return nil, fmt.Errorf("open: %w", ErrOpen)
	}
	return plain, nil
}
