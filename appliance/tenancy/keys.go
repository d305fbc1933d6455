package tenancy

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"linkplan/appliance"
)

// KeyStore is what tenancy needs from storage (store.DB).
type KeyStore interface {
	PutKey(k *appliance.APIKey, audit ...appliance.AuditEntry) error
	KeyByHash(hashHex string) (*appliance.APIKey, error)
	CountKeys() (int, error)
	AppendAudit(e appliance.AuditEntry) (uint64, error)
	// SealKeyTOTP stores the sealed TOTP secret of a key, dropping a clear
	// one, with the audit entries in the same transaction.
	SealKeyTOTP(keyID, sealed string, audit ...appliance.AuditEntry) error
	// UseTOTPStep records the last accepted TOTP step of a key; false (and
	// replay appended to the audit log) when that step or a later one was
	// accepted before.
	UseTOTPStep(keyID string, step uint64, replay appliance.AuditEntry) (bool, error)
	// CompactPending rewrites the database file when sealing left clear
	// secrets in freed pages; true when it did. Start-up only: the store
	// must not be in use meanwhile.
	CompactPending() (bool, error)
	// KeysOfTenant returns every key of a tenant, oldest first.
	KeysOfTenant(tenantID string) ([]*appliance.APIKey, error)
	// UpdateTenantKeys applies decide's change to a tenant's keys in one
	// transaction (manage.go).
	UpdateTenantKeys(tenantID string, decide func(keys []*appliance.APIKey) (appliance.KeyChange, error)) error
	// TenantsPage returns the tenants after a tenant id, at most limit,
	// sorted by tenant id, and whether more follow (tenants.go).
	TenantsPage(after string, limit int) ([]appliance.TenantRecord, bool, error)
	// TouchKey records the last use of the key with hash hashHex.
	TouchKey(hashHex string, now time.Time) error
}

// Client describes where a step-up attempt comes from, for the throttle and
// the audit log. The zero value is an unknown client.
type Client struct {
	IP        string // client address, no port
	UserAgent string
	RequestID string
	Route     string // route template, e.g. "/admin/keys"
}

// Audit actions of the TOTP step-up (SPEC §6 naming).
const (
	ActionTOTPFailed    = "admin.totp.failed"    // a wrong code
	ActionTOTPThrottled = "admin.totp.throttled" // refused unchecked: too many failures from this client
	ActionTOTPReplayed  = "admin.totp.replayed"  // a valid code of an already used step
	ActionTOTPSealed    = "admin.totp.sealed"    // a clear stored secret was sealed (migration)
)

// Service issues and verifies keys.
type Service struct {
	store    KeyStore
	now      func() time.Time
	log      *slog.Logger
	throttle *throttle // TOTP failure counts per admin key and address group
}

// anyAddress is the address group of the per-key limits' audit rows; no
// client address looks so.
const anyAddress = "\x00any"

// totpOpts returns the RFC 6238 parameters of admin step-up codes.
func totpOpts() totp.ValidateOpts {
	return totp.ValidateOpts{Period: 30, Skew: 1, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}
}

// New returns a Service over store. now nil means time.Now.
func New(store KeyStore, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, now: now, log: slog.New(slog.DiscardHandler), throttle: newThrottle()}
}

// WithLog sets the logger of start-up warnings (a credentials file that
// cannot be used); none by default. It returns s.
func (s *Service) WithLog(log *slog.Logger) *Service {
	if log != nil {
		s.log = log
	}
	return s
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

// Mint creates a tenant or internal key and returns the plain key (shown
// once) and its record without storing it, for a caller that stores the
// record in its own transaction (billing provisioning). Admin keys are
// only issued by Bootstrap.
func (s *Service) Mint(req IssueRequest) (string, *appliance.APIKey, error) {
	if req.Role == appliance.RoleAdmin {
		return "", nil, fmt.Errorf("mint key: admin keys are not minted: %w", appliance.ErrForbidden)
	}
	return s.newKey(req)
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
		if k.TOTPSealed, err = sealTOTP(plain, k.ID, k.TOTPSecret); err != nil {
			return "", nil, fmt.Errorf("issue key: %w", err)
		}
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
	now := s.now()
	if k.StateAt(now.Unix()) == appliance.KeyRevoked {
		return nil, fmt.Errorf("API key was rotated and its grace period has ended: use the new key: %w", appliance.ErrUnauthenticated)
	}
	s.touch(k, now)
	if k.Role == appliance.RoleAdmin {
		if err := s.openSecret(plain, k); err != nil {
			return nil, fmt.Errorf("authenticate: %w", err)
		}
	}
	return k, nil
}

// openSecret fills k.TOTPSecret from the sealed secret; a record still
// holding the clear secret (stored before sealing existed) is sealed now,
// with an audit entry.
func (s *Service) openSecret(plain string, k *appliance.APIKey) error {
	if k.TOTPSealed != "" {
		sec, err := openTOTP(plain, k.ID, k.TOTPSealed)
		if err != nil {
			return err
		}
		k.TOTPSecret = sec
		return nil
	}
	if k.TOTPSecret == "" {
		return nil // VerifyAdmin refuses: no second factor to check
	}
	sealed, err := sealTOTP(plain, k.ID, k.TOTPSecret)
	if err != nil {
		return err
	}
	if err := s.store.SealKeyTOTP(k.ID, sealed, appliance.AuditEntry{Action: ActionTOTPSealed, ActorKey: k.ID,
		ActorEmail: k.Email, TenantID: k.TenantID}); err != nil {
		return err
	}
	k.TOTPSealed = sealed
	return nil
}

// RequireTier returns an appliance.ErrForbidden error unless k's tier is at
// least min. Admin keys pass every tier check.
func RequireTier(k *appliance.APIKey, min appliance.Tier) error {
	return k.RequireTier(min)
}

// VerifyAdmin is VerifyAdminFrom with an unknown client.
func (s *Service) VerifyAdmin(k *appliance.APIKey, code string) error {
	return s.VerifyAdminFrom(k, code, Client{})
}

// VerifyAdminFrom checks that k is an admin key and code a fresh TOTP code
// for it, coming from client c. Refusals: a missing code is ErrInvalid; an
// attempt over a throttle limit (throttle.go) is ErrQuota (audited at most
// once per window, the code is not checked); a wrong code is ErrForbidden
// (audited, counted); a code of a time step already accepted for k, before
// or after a restart, is ErrForbidden (audited). k.TOTPSecret must have been
// opened by Authenticate.
func (s *Service) VerifyAdminFrom(k *appliance.APIKey, code string, c Client) error {
	if k.Role != appliance.RoleAdmin {
		return fmt.Errorf("an admin key is required: %w", appliance.ErrForbidden)
	}
	code = strings.TrimSpace(code)
	if code == "" {
		return appliance.Invalid("totp", "a TOTP code is required (header X-Admin-Totp or body field totp)")
	}
	if k.TOTPSecret == "" {
		return fmt.Errorf("admin key %s has no TOTP secret", k.ID)
	}
	now := s.now()
	group := addressGroup(c.IP)
	s.writeSummaries(k, c, now)
	res, d, ok := s.throttle.reserve(k.ID, group, now)
	if !ok {
		if d.writeRow {
			e := s.entry(k, c, ActionTOTPThrottled)
			e.Params = map[string]string{"limit": d.limit, "address_group": group, "window_s": itoa(int(TOTPFailureWindow / time.Second))}
			s.audit(e)
		}
		wait := retryAfter(d.limit)
		return &appliance.RetryAfterError{After: wait,
			Err: fmt.Errorf("too many failed TOTP codes for this admin key (limit %s); wait up to %v: %w", d.limit, wait, appliance.ErrQuota)}
	}
	step, ok := matchStep(k.TOTPSecret, code, now)
	if !ok {
		// The reservation stays: it is this failure's count.
		s.audit(s.entry(k, c, ActionTOTPFailed))
		return fmt.Errorf("TOTP code is not valid: %w", appliance.ErrForbidden)
	}
	accepted, err := s.store.UseTOTPStep(k.ID, step, s.entry(k, c, ActionTOTPReplayed))
	if err != nil {
		s.throttle.release(res, false)
		return fmt.Errorf("verify admin: %w", err)
	}
	if !accepted {
		s.throttle.release(res, false)
		return fmt.Errorf("TOTP code was already used, or is older than the last accepted code: wait for the next code: %w", appliance.ErrForbidden)
	}
	s.throttle.release(res, true)
	return nil
}

func retryAfter(limit string) time.Duration {
	if limit == limitKeyDay {
		return TOTPFailureDay
	}
	return TOTPFailureWindow
}

// writeSummaries writes a summary row (admin.totp.throttled with
// params summary=1 and suppressed=N) for each ended throttle window of k in
// which attempts were refused without a row of their own.
func (s *Service) writeSummaries(k *appliance.APIKey, c Client, now time.Time) {
	for group, n := range s.throttle.pendingSummaries(k.ID, now) {
		e := appliance.AuditEntry{Action: ActionTOTPThrottled, ActorKey: k.ID, ActorEmail: k.Email, TenantID: k.TenantID, Route: c.Route,
			Params: map[string]string{"summary": "1", "suppressed": itoa(n), "window_s": itoa(int(TOTPFailureWindow / time.Second))}}
		if group != anyAddress {
			e.Params["address_group"] = group
		}
		s.audit(e)
	}
}

// matchStep returns the 30 s time step (Unix time / 30) whose code equals
// code, among the steps around now that the skew allows.
func matchStep(secret, code string, now time.Time) (uint64, bool) {
	ok, err := totp.ValidateCustom(code, secret, now, totpOpts())
	if err != nil || !ok {
		return 0, false
	}
	step := uint64(now.Unix() / 30)
	for _, cand := range []uint64{step - 1, step, step + 1} {
		if c, err := totp.GenerateCodeCustom(secret, time.Unix(int64(cand)*30, 0), totpOpts()); err == nil && c == code {
			return cand, true
		}
	}
	return 0, false
}

func (s *Service) entry(k *appliance.APIKey, c Client, action string) appliance.AuditEntry {
	return appliance.AuditEntry{Action: action, ActorKey: k.ID, ActorEmail: k.Email, TenantID: k.TenantID,
		Route: c.Route, IP: c.IP, UserAgent: c.UserAgent, RequestID: c.RequestID}
}

// audit appends a refusal entry. The request is refused whether or not the
// entry could be written; a store that cannot write fails the next write
// that matters too.
func (s *Service) audit(e appliance.AuditEntry) {
	_, _ = s.store.AppendAudit(e)
}
