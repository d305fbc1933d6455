package assemble

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/billing"
	"linkplan/appliance/branding"
	"linkplan/appliance/sso"
	"linkplan/appliance/tenancy"
	"linkplan/store"
)

// SSOConfig is the OIDC relying party's configuration (serve --oidc-*).
type SSOConfig struct {
	Issuer           string
	ClientID         string
	ClientSecretFile string // file holding the client secret ("" for a public client)
	RedirectURL      string
	JWKSFile         string // air-gapped: the issuer's keys
	// HTTPClient reaches the issuer; nil: http.DefaultClient (tests: the
	// client of a local issuer with its own certificate).
	HTTPClient *http.Client
}

// Offline reports whether SSO leaves the appliance without outbound
// calls: no issuer, or an air-gapped one (JWKS file) without hosted login.
func (sc SSOConfig) Offline() bool {
	return sc.Issuer == "" || sc.JWKSFile != "" && sc.RedirectURL == ""
}

// tenantServices are the SSO, branding and billing services; SSO
// and billing are nil when not configured.
type tenantServices struct {
	sso      *sso.Service
	branding *branding.Service
	billing  *billing.Service
}

// readSecretFile returns the trimmed content of a secret file.
func readSecretFile(flag, path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return []byte(strings.TrimSpace(string(raw))), nil
}

// newTenantServices builds the SSO, branding and billing services. A
// configured issuer that cannot be reached at start-up is logged, not
// fatal: bearer tokens get 503 until discovery succeeds (retried on use).
func newTenantServices(ctx context.Context, db *store.DB, auth *tenancy.Service, sc SSOConfig, billingSecretFile string, now func() time.Time, log *slog.Logger) (*tenantServices, error) {
	ts := &tenantServices{branding: branding.New(db, now)}
	if sc.Issuer != "" {
		cfg := sso.Config{IssuerURL: sc.Issuer, ClientID: sc.ClientID, RedirectURL: sc.RedirectURL, JWKSFile: sc.JWKSFile, HTTPClient: sc.HTTPClient}
		if sc.ClientSecretFile != "" {
			sec, err := readSecretFile("--oidc-client-secret-file", sc.ClientSecretFile)
			if err != nil {
				return nil, err
			}
			cfg.ClientSecret = string(sec)
		}
		s, err := sso.New(cfg, db)
		if err != nil {
			return nil, err
		}
		// Air-gapped (JWKS file): no call to the issuer at start-up; only
		// a hosted login, when configured, asks it for its endpoints.
		if sc.JWKSFile == "" {
			octx, cancel := context.WithTimeout(ctx, 10*time.Second)
			if err := s.Open(octx); err != nil {
				log.Warn("identity provider discovery failed; bearer tokens answer 503 until it succeeds", "issuer", sc.Issuer, "err", err)
			}
			cancel()
		}
		ts.sso = s
	}
	if billingSecretFile != "" {
		sec, err := readSecretFile("--billing-webhook-secret-file", billingSecretFile)
		if err != nil {
			return nil, err
		}
		mint := func(tier appliance.Tier, owner, email string) (string, *appliance.APIKey, error) {
			return auth.Mint(tenancy.IssueRequest{Tier: tier, Owner: owner, Email: email})
		}
		b, err := billing.New(billing.Config{Secret: sec}, db, mint)
		if err != nil {
			return nil, err
		}
		ts.billing = b
	}
	return ts, nil
}
