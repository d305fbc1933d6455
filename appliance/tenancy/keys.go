package tenancy

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"linkplan/appliance"
)

// KeyStore is what tenancy needs from storage.
type KeyStore interface {
	PutKey(k *appliance.APIKey, audit ...appliance.AuditEntry) error
	KeyByHash(hashHex string) (*appliance.APIKey, error)
	CountKeys() (int, error)
	AppendAudit(e appliance.AuditEntry) (uint64, error)
}

// CredentialsFile is the name of the bootstrap admin credentials file in the
// data directory.
const CredentialsFile = "admin-credentials.json"

// Service issues and verifies keys.
type Service struct {
	store KeyStore
	now   func() time.Time

	mu       sync.Mutex
	lastStep map[string]uint64      // admin key id -> last TOTP step accepted
	failures map[string][]time.Time // admin key id -> recent failed TOTP attempts
}

// TOTP brute-force guard: after MaxTOTPFailures failed codes within
// TOTPFailureWindow, an admin key's step-up is refused (429) until the
// window has passed. Each failure is audited.
const (
	MaxTOTPFailures   = 5
	TOTPFailureWindow = 5 * time.Minute
)

// New returns a Service over store. now nil means time.Now.
func New(store KeyStore, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, now: now, lastStep: map[string]uint64{}, failures: map[string][]time.Time{}}
}

// Hash returns the hex SHA-256 of a plain key.
func Hash(plain string) string {
	h := sha256.Sum256([]byte(plain))
	return hex.EncodeToString(h[:])
}

func prefixFor(r appliance.Role) string {
	switch r {
	case appliance.RoleAdmin:
		return appliance.KeyPrefixAdmin
	case appliance.RoleInternal:
		return appliance.KeyPrefixInternal
	}
	return appliance.KeyPrefixTenant
}

// IssueRequest describes a key to issue.
type IssueRequest struct {
	Tier     appliance.Tier
	Role     appliance.Role
	Owner    string
	Email    string
	TenantID string // empty: a new tenant named after the key id
	// Audit, when set, is written in the same transaction as the key; its
	// TenantID and Params["key_id"], ["tier"], ["role"] are filled in.
	Audit *appliance.AuditEntry
}

// Issue creates a key and returns the plain key (shown once) and its record.
func (s *Service) Issue(req IssueRequest) (string, *appliance.APIKey, error) {
	plain, k, err := s.newKey(req)
	if err != nil {
		return "", nil, err
	}
	var audit []appliance.AuditEntry
	if req.Audit != nil {
		e := *req.Audit
		e.TenantID = k.TenantID
		e.Params = map[string]string{}
		for key, v := range req.Audit.Params {
			e.Params[key] = v
		}
		e.Params["key_id"], e.Params["tier"], e.Params["role"] = k.ID, string(k.Tier), string(k.Role)
		audit = append(audit, e)
	}
	if err := s.store.PutKey(k, audit...); err != nil {
		return "", nil, fmt.Errorf("issue key: %w", err)
	}
	return plain, k, nil
}

func (s *Service) newKey(req IssueRequest) (string, *appliance.APIKey, error) {
	if req.Role == "" {
		req.Role = appliance.RoleTenant
	}
	var raw [20]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", nil, fmt.Errorf("issue key: random: %w", err)
	}
	plain := prefixFor(req.Role) + hex.EncodeToString(raw[:])
	h := Hash(plain)
	k := &appliance.APIKey{
		ID: h[:12], HashHex: h, Prefix: plain[:len(prefixFor(req.Role))+6], Tier: req.Tier, Role: req.Role,
		Owner: req.Owner, Email: req.Email, TenantID: req.TenantID, CreatedUnix: s.now().Unix(),
	}
	if k.TenantID == "" {
		k.TenantID = "t_" + k.ID
	}
	if req.Role == appliance.RoleAdmin {
		sec, err := totp.Generate(totp.GenerateOpts{Issuer: "linkplan", AccountName: "admin-" + k.ID})
		if err != nil {
			return "", nil, fmt.Errorf("issue key: totp secret: %w", err)
		}
		k.TOTPSecret = sec.Secret()
	}
	return plain, k, nil
}

// Authenticate returns the key record for a plain key. A missing or unknown
// key is appliance.ErrUnauthenticated; an erased key is appliance.ErrErased
// (SPEC §5.1.4).
func (s *Service) Authenticate(plain string) (*appliance.APIKey, error) {
	plain = strings.TrimSpace(plain)
	if plain == "" {
		return nil, fmt.Errorf("missing X-API-Key header: %w", appliance.ErrUnauthenticated)
	}
	k, err := s.store.KeyByHash(Hash(plain))
	if errors.Is(err, appliance.ErrNotFound) {
		return nil, fmt.Errorf("unknown API key: %w", appliance.ErrUnauthenticated)
	}
	if err != nil {
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	if k.Tier == appliance.TierErased {
		return nil, appliance.ErrErased
	}
	if k.RevokedUnix != 0 {
		return nil, fmt.Errorf("API key was revoked: %w", appliance.ErrUnauthenticated)
	}
	return k, nil
}

// RequireTier returns an appliance.ErrForbidden error unless k's tier is at
// least min. Admin keys pass every tier check.
func RequireTier(k *appliance.APIKey, min appliance.Tier) error {
	if k.Role == appliance.RoleAdmin || k.Tier.AtLeast(min) {
		return nil
	}
	return fmt.Errorf("tier %s or higher is required, this key is %s: %w", min, k.Tier, appliance.ErrForbidden)
}

// VerifyAdmin checks that k is an admin key and code a fresh TOTP code for it.
func (s *Service) VerifyAdmin(k *appliance.APIKey, code string) error {
	if k.Role != appliance.RoleAdmin {
		return fmt.Errorf("an admin key is required: %w", appliance.ErrForbidden)
	}
	code = strings.TrimSpace(code)
	if code == "" {
		return appliance.Invalid("totp", "a TOTP code is required (header X-Admin-Totp or body field totp)")
	}
	now := s.now()
	if s.recentFailures(k.ID, now) >= MaxTOTPFailures {
		return fmt.Errorf("too many failed TOTP codes for this admin key; wait %v: %w", TOTPFailureWindow, appliance.ErrQuota)
	}
	ok, err := totp.ValidateCustom(code, k.TOTPSecret, now, totp.ValidateOpts{Period: 30, Skew: 1, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil || !ok {
		s.mu.Lock()
		s.failures[k.ID] = append(s.failures[k.ID], now)
		s.mu.Unlock()
		_, _ = s.store.AppendAudit(appliance.AuditEntry{Action: "admin.totp.failed", ActorKey: k.ID, ActorEmail: k.Email, TenantID: k.TenantID})
		return fmt.Errorf("TOTP code is not valid: %w", appliance.ErrForbidden)
	}
	// Find which step matched, to refuse replays of the same code.
	step := uint64(now.Unix() / 30)
	for _, cand := range []uint64{step - 1, step, step + 1} {
		if c, _ := totp.GenerateCodeCustom(k.TOTPSecret, time.Unix(int64(cand)*30, 0), totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}); c == code {
			step = cand
			break
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if last, seen := s.lastStep[k.ID]; seen && step <= last {
		return fmt.Errorf("TOTP code was already used: %w", appliance.ErrForbidden)
	}
	s.lastStep[k.ID] = step
	return nil
}

// recentFailures counts failed TOTP attempts of a key within the window,
// forgetting older ones.
func (s *Service) recentFailures(keyID string, now time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	fs := s.failures[keyID]
	i := 0
	for i < len(fs) && now.Sub(fs[i]) > TOTPFailureWindow {
		i++
	}
	s.failures[keyID] = fs[i:]
	return len(fs) - i
}

// Credentials is the content of the bootstrap credentials file.
type Credentials struct {
	APIKey     string `json:"api_key"`
	TOTPSecret string `json:"totp_secret"` // base32
}

// Bootstrap makes sure an admin credential exists. On a store with no key it
// issues an admin key and writes dataDir/admin-credentials.json (mode 0600),
// returning the file path and created = true. Otherwise it changes nothing.
func (s *Service) Bootstrap(dataDir string) (path string, created bool, err error) {
	path = filepath.Join(dataDir, CredentialsFile)
	n, err := s.store.CountKeys()
	if err != nil {
		return path, false, fmt.Errorf("bootstrap admin: %w", err)
	}
	if n > 0 {
		return path, false, nil
	}
	// The file is written before the key is stored: a crash in between
	// leaves a stale file and no key, and the next start simply repeats.
	plain, k, err := s.newKey(IssueRequest{Tier: appliance.TierUltra, Role: appliance.RoleAdmin, Owner: "appliance operator", TenantID: "admin"})
	if err != nil {
		return path, false, fmt.Errorf("bootstrap admin: %w", err)
	}
	raw, _ := json.MarshalIndent(Credentials{APIKey: plain, TOTPSecret: k.TOTPSecret}, "", "  ")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o600); err != nil {
		return path, false, fmt.Errorf("bootstrap admin: write credentials: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return path, false, fmt.Errorf("bootstrap admin: write credentials: %w", err)
	}
	if err := s.store.PutKey(k, appliance.AuditEntry{Action: "admin.bootstrap", ActorKey: k.ID, TenantID: k.TenantID}); err != nil {
		return path, false, fmt.Errorf("bootstrap admin: %w", err)
	}
	return path, true, nil
}
