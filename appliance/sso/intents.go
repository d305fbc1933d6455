package sso

import (
	"crypto/sha256"
	"fmt"
	"net/url"
	"time"

	"linkplan/appliance"
)

// Binding links (issue 20): a tenant that wants a person's subject bound
// creates a binding intent; the person opens its login path, signs in at
// the identity provider, and the callback binds the subject of that
// sign-in's ID token (fresh: it carries the login's nonce) to the
// intent's key. The tenant never names the subject.

// Defaults of binding intents.
const (
	// DefaultIntentTTL is how long a binding link can be opened.
	DefaultIntentTTL = 15 * time.Minute
	// MaxIntentsPerTenant bounds the unopened links of one tenant.
	MaxIntentsPerTenant = 20
	// MaxPendingIntents bounds the unopened links of the appliance.
	MaxPendingIntents = 10000
)

// Intent is a created binding link. Token is its secret, shown once: the
// appliance keeps only its SHA-256.
type Intent struct {
	Token       string
	KeyID       string
	TenantID    string
	ExpiresUnix int64  // epoch seconds
	LoginPath   string // /auth/oidc/login?intent=<Token>
}

// bindIntent is what the appliance keeps of an intent.
type bindIntent struct {
	tenantID, keyID         string
	createdBy, creatorEmail string
	expires                 time.Time
}

// CreateIntent creates a binding link for one of the tenant's keys (keyID
// "": the actor's own), on behalf of the tenant key actor: single use,
// valid DefaultIntentTTL (Config.IntentTTL), kept in memory by the
// SHA-256 of its token. The key must belong to the actor's tenant, be
// active and not an admin key (422 key_id). At most MaxIntentsPerTenant
// links of a tenant and MaxPendingIntents in all wait at once (ErrQuota).
// Hosted login must be configured (ErrUnavailable). Audited
// sso.binding.intent.create in the tenant (the token is not written).
func (s *Service) CreateIntent(actor *appliance.APIKey, keyID string, base appliance.AuditEntry) (*Intent, error) {
	if actor.Role == appliance.RoleAdmin {
		return nil, fmt.Errorf("tenant self-service refuses admin keys: use POST /admin/sso/bindings: %w", appliance.ErrForbidden)
	}
	if s.cfg.RedirectURL == "" {
		return nil, fmt.Errorf("binding links need the hosted login, which is not configured (--oidc-redirect-url): send the person's fresh ID token as id_token to POST /tenant/sso/bindings instead: %w", appliance.ErrUnavailable)
	}
	if keyID == "" {
		keyID = actor.ID
	}
	v := &appliance.ValidationError{}
	validKeyID(v, keyID)
	if err := v.Err(); err != nil {
		return nil, err
	}
	k, err := s.store.KeyByID(keyID)
	if err != nil {
		return nil, appliance.Invalid("key_id", "no key has this id")
	}
	if err := checkTenantKey(k, actor.TenantID); err != nil {
		return nil, err
	}
	token, err := s.randState()
	if err != nil {
		return nil, fmt.Errorf("create binding link: %w", err)
	}
	now := s.cfg.Now()
	in := bindIntent{tenantID: actor.TenantID, keyID: keyID, createdBy: actor.ID, creatorEmail: actor.Email, expires: now.Add(s.cfg.IntentTTL)}
	if err := s.addIntent(sha256.Sum256([]byte(token)), in, now); err != nil {
		return nil, err
	}
	e := base
	e.Action, e.TenantID = ActionIntentCreate, actor.TenantID
	e.Params = map[string]string{"key_id": keyID, "expires_unix": fmt.Sprint(in.expires.Unix())}
	if _, err := s.store.AppendAudit(e); err != nil {
		s.dropIntent(sha256.Sum256([]byte(token)))
		return nil, fmt.Errorf("create binding link: %w", err)
	}
	return &Intent{Token: token, KeyID: keyID, TenantID: actor.TenantID, ExpiresUnix: in.expires.Unix(),
		LoginPath: "/auth/oidc/login?intent=" + url.QueryEscape(token)}, nil
}

// addIntent keeps an intent, within the bounds.
func (s *Service) addIntent(id [32]byte, in bindIntent, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, p := range s.intents {
		switch {
		case now.After(p.expires):
			delete(s.intents, k)
		case p.tenantID == in.tenantID:
			n++
		}
	}
	if n >= MaxIntentsPerTenant {
		return fmt.Errorf("the tenant has %d binding links waiting (at most %d); each expires %d minutes after its creation: %w",
			n, MaxIntentsPerTenant, int(s.cfg.IntentTTL/time.Minute), appliance.ErrQuota)
	}
	if len(s.intents) >= MaxPendingIntents {
		return fmt.Errorf("too many binding links waiting (%d); try again in a few minutes: %w", MaxPendingIntents, appliance.ErrQuota)
	}
	s.intents[id] = in
	return nil
}

func (s *Service) dropIntent(id [32]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.intents, id)
}

// takeIntentLocked removes and returns the intent of token if it has not
// expired. The caller holds s.mu.
func (s *Service) takeIntentLocked(token string, now time.Time) (bindIntent, bool) {
	id := sha256.Sum256([]byte(token))
	in, ok := s.intents[id]
	delete(s.intents, id)
	if !ok || now.After(in.expires) {
		return bindIntent{}, false
	}
	return in, true
}
