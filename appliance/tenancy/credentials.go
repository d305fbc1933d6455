package tenancy

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pquerna/otp/totp"

	"linkplan/appliance"
)

// CredentialsFile is the name of the bootstrap admin credentials file in the
// data directory.
const CredentialsFile = "admin-credentials.json"

// ErrTOTPMoved means the credentials file no longer holds the TOTP secret:
// the operator moved it to an authenticator (ForgetTOTPSecret).
var ErrTOTPMoved = errors.New("the TOTP secret was moved to an authenticator and is no longer in the credentials file")

// Credentials is the content of the bootstrap credentials file.
type Credentials struct {
	APIKey     string `json:"api_key"`
	TOTPSecret string `json:"totp_secret,omitempty"` // base32; absent once moved to an authenticator
	// TOTPMovedUnix is when ForgetTOTPSecret removed the secret, epoch
	// seconds; 0 while the file holds it.
	TOTPMovedUnix int64 `json:"totp_moved_unix,omitempty"`
}

// ErrBadCredentials means admin-credentials.json exists but cannot be used:
// not JSON, or without an admin api_key (e.g. only totp_moved_unix left
// after the operator removed the key). The error never quotes the file.
var ErrBadCredentials = errors.New("admin credentials file is not usable")

// Bootstrap makes sure an admin credential exists. On a store with no key it
// issues an admin key and writes dataDir/admin-credentials.json (mode 0600),
// returning the file path and created = true. Otherwise it creates nothing,
// but seals the clear TOTP secret of an admin key stored by an older version
// when the file names that key (MigrateCredentials), and then compacts the
// database when a clear secret was sealed, now or by a first use since the
// last start (KeyStore.CompactPending), so the file no longer holds it.
//
// It runs at start-up, before the store is shared. Only store errors are
// returned; a credentials file that cannot be used is logged and skipped.
func (s *Service) Bootstrap(dataDir string) (path string, created bool, err error) {
	path = filepath.Join(dataDir, CredentialsFile)
	n, err := s.store.CountKeys()
	if err != nil {
		return path, false, fmt.Errorf("bootstrap admin: %w", err)
	}
	if n > 0 {
		if err := s.MigrateCredentials(dataDir); err != nil {
			return path, false, fmt.Errorf("bootstrap admin: %w", err)
		}
		did, err := s.store.CompactPending()
		if err != nil {
			return path, false, fmt.Errorf("bootstrap admin: %w", err)
		}
		if did {
			s.log.Info("database compacted: a sealed TOTP secret's clear bytes were removed from the file")
		}
		return path, false, nil
	}
	// The file is written before the key is stored: a crash in between
	// leaves a stale file and no key, and the next start simply repeats.
	plain, k, err := s.newKey(IssueRequest{Tier: appliance.TierUltra, Role: appliance.RoleAdmin, Owner: "appliance operator", TenantID: "admin"})
	if err != nil {
		return path, false, fmt.Errorf("bootstrap admin: %w", err)
	}
	if err := writeCredentials(path, Credentials{APIKey: plain, TOTPSecret: k.TOTPSecret}); err != nil {
		return path, false, fmt.Errorf("bootstrap admin: %w", err)
	}
	if err := s.store.PutKey(k, appliance.AuditEntry{Action: "admin.bootstrap", ActorKey: k.ID, TenantID: k.TenantID}); err != nil {
		return path, false, fmt.Errorf("bootstrap admin: %w", err)
	}
	return path, true, nil
}

// MigrateCredentials seals the stored TOTP secret of the admin key named by
// dataDir/admin-credentials.json when the store still holds it in clear (a
// data directory of a version before the secret was sealed). Without a
// usable file (missing, unreadable, not JSON, no admin api_key, a key the
// store lacks) it logs why (never the file's content) and does nothing:
// Authenticate seals the secret on the key's first use instead, and the
// next start-up compacts. Only store and sealing errors are returned.
func (s *Service) MigrateCredentials(dataDir string) error {
	c, err := ReadCredentials(dataDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		s.log.Warn("admin credentials file skipped; a clear TOTP secret of an older version is sealed on the key's first use instead",
			"path", filepath.Join(dataDir, CredentialsFile), "err", err)
		return nil
	}
	k, err := s.store.KeyByHash(Hash(c.APIKey))
	if errors.Is(err, appliance.ErrNotFound) {
		s.log.Warn("admin credentials file names no stored key (a stale file of an interrupted bootstrap?); skipped",
			"path", filepath.Join(dataDir, CredentialsFile))
		return nil
	}
	if err != nil {
		return fmt.Errorf("migrate admin credentials: %w", err)
	}
	if k.Role != appliance.RoleAdmin || k.TOTPSealed != "" {
		return nil
	}
	if err := s.openSecret(c.APIKey, k); err != nil {
		return fmt.Errorf("migrate admin credentials: %w", err)
	}
	return nil
}

// ReadCredentials reads dataDir/admin-credentials.json. A missing file is an
// error wrapping os.ErrNotExist; a file that is not JSON or names no admin
// key is ErrBadCredentials (the message gives the byte offset of a syntax
// error, never the content).
func ReadCredentials(dataDir string) (Credentials, error) {
	path := filepath.Join(dataDir, CredentialsFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return Credentials{}, fmt.Errorf("read admin credentials: %w", err)
	}
	var c Credentials
	if err := json.Unmarshal(raw, &c); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return Credentials{}, fmt.Errorf("read admin credentials %s: not JSON (syntax error at byte %d): %w", path, syn.Offset, ErrBadCredentials)
		}
		return Credentials{}, fmt.Errorf("read admin credentials %s: a field has the wrong JSON type: %w", path, ErrBadCredentials)
	}
	if !strings.HasPrefix(c.APIKey, appliance.KeyPrefixAdmin) {
		return Credentials{}, fmt.Errorf("read admin credentials %s: no admin api_key: %w", path, ErrBadCredentials)
	}
	return c, nil
}

// writeCredentials writes c to path atomically: a temporary file (mode
// 0600), fsync, rename, fsync of the directory.
func writeCredentials(path string, c Credentials) error {
	raw, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("write credentials: %w", err)
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("write credentials: %w", err)
	}
	_, werr := f.Write(append(raw, '\n'))
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write credentials: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write credentials: %w", err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// Code returns the TOTP code of the credentials file's secret at t, and how
// long it stays the current one. ErrTOTPMoved once the secret was moved.
func (c Credentials) Code(t time.Time) (string, time.Duration, error) {
	if c.TOTPSecret == "" {
		return "", 0, ErrTOTPMoved
	}
	code, err := totp.GenerateCodeCustom(c.TOTPSecret, t, totpOpts())
	if err != nil {
		return "", 0, fmt.Errorf("totp code: %w", err)
	}
	left := 30*time.Second - time.Duration(t.UnixNano()%int64(30*time.Second))
	return code, left, nil
}

// URI returns the otpauth:// URI of the credentials file's secret, the form
// authenticator apps import (as text, or as a QR code made from it).
// ErrTOTPMoved once the secret was moved.
func (c Credentials) URI() (string, error) {
	if c.TOTPSecret == "" {
		return "", ErrTOTPMoved
	}
	label := "linkplan:admin-" + Hash(c.APIKey)[:12]
	v := url.Values{}
	v.Set("secret", c.TOTPSecret)
	v.Set("issuer", "linkplan")
	v.Set("algorithm", "SHA1")
	v.Set("digits", "6")
	v.Set("period", "30")
	return "otpauth://totp/" + url.PathEscape(label) + "?" + v.Encode(), nil
}

// ForgetTOTPSecret removes the TOTP secret from dataDir/admin-credentials.json
// once the operator proves an authenticator holds it: code must be a current
// code of that secret (one step of skew either way), read from the
// authenticator. The API key stays in the file. It needs no database access,
// so it works while the appliance runs. A wrong code is ErrForbidden and
// changes nothing; ErrTOTPMoved when already done.
func ForgetTOTPSecret(dataDir, code string, now time.Time) error {
	c, err := ReadCredentials(dataDir)
	if err != nil {
		return err
	}
	if c.TOTPSecret == "" {
		return ErrTOTPMoved
	}
	if _, ok := matchStep(c.TOTPSecret, strings.TrimSpace(code), now); !ok {
		return fmt.Errorf("forget totp secret: the code does not match the secret at %s (is the authenticator's clock right?): %w",
			now.UTC().Format(time.RFC3339), appliance.ErrForbidden)
	}
	c.TOTPSecret, c.TOTPMovedUnix = "", now.Unix()
	if err := writeCredentials(filepath.Join(dataDir, CredentialsFile), c); err != nil {
		return fmt.Errorf("forget totp secret: %w", err)
	}
	return nil
}
