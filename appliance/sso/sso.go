package sso

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/oauth2"

	"linkplan/appliance"
)

// Audit actions of SSO.
const (
	ActionBind         = "sso.binding.create"       // a tenant bound a subject to one of its keys
	ActionAdminBind    = "admin.sso.binding.create" // the admin bound a subject to a key (TOTP, justification)
	ActionUnbind       = "sso.binding.delete"       // a tenant removed a binding
	ActionAdminUnbind  = "admin.sso.binding.delete" // the admin removed a binding (TOTP, justification)
	ActionLogin        = "sso.login"                // a hosted login completed
	ActionLoginRefused = "sso.login.refused"        // a hosted login callback was refused
)

// Defaults.
const (
	// DefaultLoginTTL is how long a hosted login's state and PKCE verifier
	// are kept.
	DefaultLoginTTL = 10 * time.Minute
	// MaxPendingLogins bounds the hosted logins in flight.
	MaxPendingLogins = 10000
	// MaxCachedTokens bounds the cache of verified ID tokens.
	MaxCachedTokens = 10000
	// DefaultHTTPTimeout bounds each call to the issuer (discovery, keys,
	// code exchange).
	DefaultHTTPTimeout = 10 * time.Second
	// discoveryRetry is the least time between two discovery attempts
	// after one failed.
	discoveryRetry = 30 * time.Second
)

// Config configures the OIDC relying party.
type Config struct {
	IssuerURL    string // the issuer, exactly as its tokens' iss claim
	ClientID     string // the expected audience, and the client of the hosted login
	ClientSecret string // the hosted login's client secret ("" for a public client)
	RedirectURL  string // the hosted login's callback URL, e.g. https://host/auth/oidc/callback
	// JWKSFile, when set, holds the issuer's JSON Web Key Set: ID tokens
	// are verified against it and the issuer is never asked for its keys
	// (air-gapped sites). Empty: keys come from the issuer's jwks_uri
	// (discovery), cached in memory and fetched again on an unknown kid.
	JWKSFile   string
	HTTPClient *http.Client     // for discovery, keys and the code exchange; nil: a client with DefaultHTTPTimeout
	Now        func() time.Time // nil: time.Now
	LoginTTL   time.Duration    // 0: DefaultLoginTTL
	IntentTTL  time.Duration    // 0: DefaultIntentTTL
}

// Store is what SSO needs from storage (store.DB).
type Store interface {
	SSOKey(issuer, subject string) (*appliance.SSOBinding, *appliance.APIKey, error)
	PutSSOBinding(b *appliance.SSOBinding, check func(k *appliance.APIKey, bound bool) error, audit ...appliance.AuditEntry) error
	KeyByID(id string) (*appliance.APIKey, error)
	SSOBindings(tenantID string) ([]appliance.SSOBinding, error)
	DeleteSSOBinding(tenantID, issuer, subject string, audit ...appliance.AuditEntry) error
	AppendAudit(e appliance.AuditEntry) (uint64, error)
}

// Service verifies ID tokens, keeps bindings and runs the hosted login.
type Service struct {
	cfg   Config
	store Store

	mu        sync.Mutex
	verifier  *oidc.IDTokenVerifier
	oauth     *oauth2.Config // nil until discovery succeeded
	lastTry   time.Time
	lastErr   error
	static    bool // keys from JWKSFile
	pending   map[string]pendingLogin
	intents   map[[32]byte]bindIntent // SHA-256 of a binding link's token -> the intent
	randState func() (string, error)

	cacheMu sync.Mutex
	cache   map[[32]byte]verifiedToken // SHA-256 of a verified token -> its claims

	proofMu sync.Mutex
	proofs  map[[32]byte]time.Time // SHA-256 of an ID token presented as a binding proof -> until when it is kept
}

type pendingLogin struct {
	verifier, nonce string
	expires         time.Time
	intent          *bindIntent // a binding link's login: the callback binds the subject
}

// New checks cfg and returns a Service. With JWKSFile the keys are loaded
// now (a bad file is an error); otherwise discovery runs on first use (or
// Open).
func New(cfg Config, st Store) (*Service, error) {
	u, err := url.Parse(cfg.IssuerURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("sso: issuer URL %q must be an absolute http(s) URL: %w", cfg.IssuerURL, appliance.ErrInvalid)
	}
	if cfg.ClientID == "" {
		return nil, fmt.Errorf("sso: a client id is required (the ID tokens' audience): %w", appliance.ErrInvalid)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.LoginTTL <= 0 {
		cfg.LoginTTL = DefaultLoginTTL
	}
	if cfg.IntentTTL <= 0 {
		cfg.IntentTTL = DefaultIntentTTL
	}
	if cfg.HTTPClient == nil {
		// A bounded client: discovery runs under the service's lock, and
		// a hanging issuer must not hold every bearer request.
		cfg.HTTPClient = &http.Client{Timeout: DefaultHTTPTimeout}
	}
	s := &Service{cfg: cfg, store: st, pending: map[string]pendingLogin{}, intents: map[[32]byte]bindIntent{}, randState: randomToken,
		cache: map[[32]byte]verifiedToken{}, proofs: map[[32]byte]time.Time{}}
	if cfg.JWKSFile != "" {
		keys, err := loadJWKS(cfg.JWKSFile)
		if err != nil {
			return nil, err
		}
		s.static = true
		s.verifier = oidc.NewVerifier(cfg.IssuerURL, &oidc.StaticKeySet{PublicKeys: keys}, s.oidcConfig())
	}
	return s, nil
}

// Issuer returns the configured issuer URL.
func (s *Service) Issuer() string { return s.cfg.IssuerURL }

func (s *Service) oidcConfig() *oidc.Config {
	return &oidc.Config{ClientID: s.cfg.ClientID, SupportedSigningAlgs: Algorithms, Now: s.cfg.Now}
}

// loadJWKS reads the RSA public keys of a JWKS file.
func loadJWKS(path string) ([]crypto.PublicKey, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sso: read JWKS file: %w", err)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(raw, &set); err != nil {
		return nil, fmt.Errorf("sso: JWKS file %s is not a JSON Web Key Set: %v: %w", path, err, appliance.ErrInvalid)
	}
	var keys []crypto.PublicKey
	for _, k := range set.Keys {
		if !k.Valid() || !k.IsPublic() {
			continue
		}
		keys = append(keys, k.Key)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("sso: JWKS file %s holds no public key: %w", path, appliance.ErrInvalid)
	}
	return keys, nil
}

// Open runs the issuer discovery (OpenID Connect discovery document) so
// that a misconfigured issuer shows at start-up. A failure is returned
// but not final: the next use tries again (at most every 30 s).
func (s *Service) Open(ctx context.Context) error {
	_, err := s.discover(ctx, true)
	return err
}

// discover returns the verifier, running discovery when needed. login
// asks for the hosted login's endpoints too.
func (s *Service) discover(ctx context.Context, login bool) (*oidc.IDTokenVerifier, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.verifier != nil && (!login || s.oauth != nil) {
		return s.verifier, nil
	}
	now := s.cfg.Now()
	if s.lastErr != nil && now.Sub(s.lastTry) < discoveryRetry {
		return nil, s.lastErr
	}
	s.lastTry = now
	// The provider's key set outlives this request: its fetches use a
	// context without the request's cancellation.
	pctx := oidc.ClientContext(context.WithoutCancel(ctx), s.cfg.HTTPClient)
	p, err := oidc.NewProvider(pctx, s.cfg.IssuerURL)
	if err != nil {
		s.lastErr = fmt.Errorf("the identity provider %s cannot be reached or its discovery document is wrong: %v: %w", s.cfg.IssuerURL, err, appliance.ErrUnavailable)
		return nil, s.lastErr
	}
	s.lastErr = nil
	if s.verifier == nil {
		s.verifier = p.VerifierContext(pctx, s.oidcConfig())
	}
	s.oauth = &oauth2.Config{ClientID: s.cfg.ClientID, ClientSecret: s.cfg.ClientSecret, Endpoint: p.Endpoint(),
		RedirectURL: s.cfg.RedirectURL, Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}
	return s.verifier, nil
}

// Authenticate verifies a bearer ID token and returns the API key its
// subject is bound to. Every refusal is an appliance.ErrUnauthenticated
// error whose message gives the reason (expired, wrong audience, wrong
// issuer, algorithm, signature, token_use, no binding); an erased key is
// appliance.ErrErased; an unreachable issuer appliance.ErrUnavailable.
func (s *Service) Authenticate(ctx context.Context, raw string) (*appliance.APIKey, error) {
	id := sha256.Sum256([]byte(raw))
	if v, ok := s.recall(id); ok {
		return s.keyFor(v.Issuer, v.Subject)
	}
	tok, err := s.verify(ctx, raw)
	if err != nil {
		return nil, err
	}
	s.remember(id, tok)
	return s.keyFor(tok.Issuer, tok.Subject)
}

// verifiedToken is what the cache keeps of a token that passed verify.
type verifiedToken struct {
	Issuer, Subject string
	Expiry          time.Time
}

// recall returns the cached verification of a token (by its SHA-256)
// while the token has not expired.
func (s *Service) recall(id [32]byte) (verifiedToken, bool) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	v, ok := s.cache[id]
	if !ok || !s.cfg.Now().Before(v.Expiry) {
		return verifiedToken{}, false
	}
	return v, true
}

// remember caches a verified token until its expiry; a full cache drops
// its expired entries, then everything if none had expired.
func (s *Service) remember(id [32]byte, tok *oidc.IDToken) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	if len(s.cache) >= MaxCachedTokens {
		now := s.cfg.Now()
		for k, v := range s.cache {
			if !now.Before(v.Expiry) {
				delete(s.cache, k)
			}
		}
		if len(s.cache) >= MaxCachedTokens {
			clear(s.cache)
		}
	}
	s.cache[id] = verifiedToken{Issuer: tok.Issuer, Subject: tok.Subject, Expiry: tok.Expiry}
}

// verify checks the token itself: algorithm, signature, iss, aud, exp,
// sub and token_use.
func (s *Service) verify(ctx context.Context, raw string) (*oidc.IDToken, error) {
	h, err := ParseHeader(raw)
	if err != nil {
		return nil, fmt.Errorf("ID token refused: %w", err)
	}
	if !acceptedAlg(h.Alg) {
		return nil, fmt.Errorf("ID token refused: signature algorithm %q is not accepted (RS256, RS384 or RS512 only): %w", clip(h.Alg), appliance.ErrUnauthenticated)
	}
	v, err := s.discover(ctx, false)
	if err != nil {
		return nil, err
	}
	tok, err := v.Verify(ctx, raw)
	if err != nil {
		return nil, fmt.Errorf("ID token refused: %s: %w", reason(err), appliance.ErrUnauthenticated)
	}
	if tok.Subject == "" {
		return nil, fmt.Errorf("ID token refused: it has no subject (sub): %w", appliance.ErrUnauthenticated)
	}
	var c struct {
		TokenUse *string `json:"token_use"`
	}
	if err := tok.Claims(&c); err != nil || c.TokenUse == nil || *c.TokenUse != "id" {
		return nil, fmt.Errorf("ID token refused: token_use must be \"id\" (an access token is not accepted): %w", appliance.ErrUnauthenticated)
	}
	return tok, nil
}

// keyFor returns the key the subject is bound to, read on every request
// (an unbound subject or a revoked key is refused at once).
func (s *Service) keyFor(issuer, subject string) (*appliance.APIKey, error) {
	_, k, err := s.store.SSOKey(issuer, subject)
	if errors.Is(err, appliance.ErrNotFound) {
		return nil, fmt.Errorf("ID token refused: subject %q is not bound to a tenant key (ask the tenant for a binding link, or the admin to bind it): %w", clip(subject), appliance.ErrUnauthenticated)
	}
	if err != nil {
		return nil, fmt.Errorf("sso authenticate: %w", err)
	}
	switch {
	case k.Tier == appliance.TierErased:
		return nil, appliance.ErrErased
	case k.RevokedUnix != 0:
		return nil, fmt.Errorf("the API key bound to this subject was revoked: %w", appliance.ErrUnauthenticated)
	case k.Role == appliance.RoleAdmin: // bindings refuse admin keys; an older record must not pass either
		return nil, fmt.Errorf("ID token refused: admin keys cannot be used through SSO: %w", appliance.ErrUnauthenticated)
	}
	return k, nil
}

// reason words a go-oidc refusal for the client. go-oidc types only the
// expiry; the other checks are told apart by their messages (pinned by
// the tests against a real issuer).
func reason(err error) string {
	var exp *oidc.TokenExpiredError
	if errors.As(err, &exp) {
		return "the token expired at " + exp.Expiry.UTC().Format(time.RFC3339) + " (exp)"
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "issued by a different provider"):
		return "the token was issued by another issuer (iss)"
	case strings.Contains(msg, "expected audience"):
		return "the token is not for this appliance's client id (aud)"
	case strings.Contains(msg, "failed to verify signature"):
		return "the signature does not verify with the issuer's keys (unknown kid or wrong key)"
	case strings.Contains(msg, "malformed jwt"):
		return "the token is not a well-formed signed JWT"
	case strings.Contains(msg, "nbf"):
		return "the token is not valid yet (nbf)"
	case strings.Contains(msg, "unmarshal claims"):
		return "the token's claims are malformed"
	}
	return "the token could not be verified"
}

// clip cuts s to 80 bytes for a message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

func randomToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}
