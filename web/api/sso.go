package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/sso"
)

// SSO verifies bearer ID tokens, runs the hosted login and keeps the
// subject bindings (appliance/sso).
type SSO interface {
	Authenticate(ctx context.Context, token string) (*appliance.APIKey, error)
	BeginLogin(ctx context.Context, intent string) (string, error)
	FinishLogin(ctx context.Context, state, code string, base appliance.AuditEntry) (*sso.LoginResult, error)
	Bind(ctx context.Context, actor *appliance.APIKey, req sso.BindRequest, base appliance.AuditEntry) (*appliance.SSOBinding, error)
	CreateIntent(actor *appliance.APIKey, keyID string, base appliance.AuditEntry) (*sso.Intent, error)
	AdminBind(admin *appliance.APIKey, req sso.BindRequest, base appliance.AuditEntry) (*appliance.SSOBinding, error)
	Bindings(actor *appliance.APIKey) ([]appliance.SSOBinding, error)
	Unbind(actor *appliance.APIKey, subject string, base appliance.AuditEntry) error
	AdminUnbind(admin *appliance.APIKey, subject, justification string, base appliance.AuditEntry) error
}

func (a *API) registerSSO(r *mux.Router) {
	r.HandleFunc("/auth/oidc/config", a.wrap(a.ssoConfig)).Methods(http.MethodGet)
	r.HandleFunc("/auth/oidc/login", a.wrap(a.ssoLogin)).Methods(http.MethodGet)
	r.HandleFunc("/auth/oidc/callback", a.wrap(a.ssoCallback)).Methods(http.MethodGet)
	r.HandleFunc("/tenant/sso/bindings", a.wrap(a.authed(a.ssoBindings))).Methods(http.MethodGet)
	r.HandleFunc("/tenant/sso/bindings", a.wrap(a.authed(a.ssoBind))).Methods(http.MethodPost)
	r.HandleFunc("/tenant/sso/bindings", a.wrap(a.authed(a.ssoUnbind))).Methods(http.MethodDelete)
	r.HandleFunc("/tenant/sso/binding_intents", a.wrap(a.authed(a.ssoIntent))).Methods(http.MethodPost)
	r.HandleFunc("/admin/sso/bindings", a.wrap(a.authed(a.ssoAdminBind))).Methods(http.MethodPost)
	r.HandleFunc("/admin/sso/bindings/delete", a.wrap(a.authed(a.ssoAdminUnbind))).Methods(http.MethodPost)
}

// credential authenticates a request: X-API-Key when present, else an
// Authorization: Bearer ID token (SPEC §5.1.2).
func (a *API) credential(r *http.Request) (*appliance.APIKey, error) {
	key, authz := r.Header.Get("X-API-Key"), r.Header.Get("Authorization")
	if key != "" || authz == "" {
		return a.Auth.Authenticate(key)
	}
	tok, err := sso.ParseBearer(authz)
	if err != nil {
		return nil, err
	}
	if a.SSO == nil {
		return nil, fmt.Errorf("bearer ID tokens are not accepted: single sign-on is not configured on this appliance (use X-API-Key): %w", appliance.ErrUnauthenticated)
	}
	return a.SSO.Authenticate(r.Context(), tok)
}

// errNoSSO answers the SSO routes of an appliance without an issuer.
var errNoSSO = fmt.Errorf("single sign-on is not configured on this appliance (linkplan serve --oidc-issuer): %w", appliance.ErrUnavailable)

// auditBase is the actor and client part of the audit rows of a request.
func auditBase(r *http.Request, k *appliance.APIKey, route string) appliance.AuditEntry {
	e := appliance.AuditEntry{Route: route, IP: clientIP(r), UserAgent: r.UserAgent(), RequestID: requestID(r.Context())}
	if k != nil {
		e.ActorKey, e.ActorEmail = k.ID, k.Email
	}
	return e
}

// SSOConfig is the body of GET /auth/oidc/config: whether a hosted login
// is offered, so that a sign-in page can show its button without starting
// a login (which keeps server-side state).
type SSOConfig struct {
	Enabled   bool   `json:"enabled"`
	LoginPath string `json:"login_path,omitempty"` // set when Enabled
}

func (a *API) ssoConfig(w http.ResponseWriter, r *http.Request) (any, error) {
	w.Header().Set("Cache-Control", "no-store")
	if a.SSO == nil {
		return SSOConfig{}, nil
	}
	return SSOConfig{Enabled: true, LoginPath: "/auth/oidc/login"}, nil
}

// LoginStart is the body of GET /auth/oidc/login (a 302 to the URL).
type LoginStart struct {
	AuthorizationURL string `json:"authorization_url"`
}

func (a *API) ssoLogin(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.SSO == nil {
		return nil, errNoSSO
	}
	u, err := a.SSO.BeginLogin(r.Context(), r.URL.Query().Get("intent"))
	if err != nil {
		return nil, err
	}
	w.Header().Set("Location", u)
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusFound, LoginStart{AuthorizationURL: u})
	return nil, nil
}

// LoginResult is the body of GET /auth/oidc/callback.
type LoginResult struct {
	IDToken     string `json:"id_token"`
	TokenType   string `json:"token_type"` // always "Bearer"
	ExpiresUnix int64  `json:"expires_unix"`
	Subject     string `json:"subject"`
	KeyID       string `json:"key_id"`
	TenantID    string `json:"tenant_id"`
	Tier        string `json:"tier"`
	Role        string `json:"role"`
	// Bound: this login came through a binding link and bound the
	// subject to key_id.
	Bound bool `json:"bound,omitempty"`
}

func (a *API) ssoCallback(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.SSO == nil {
		return nil, errNoSSO
	}
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		return nil, fmt.Errorf("the identity provider refused the sign-in: %s: %w", truncate(e+" "+q.Get("error_description"), 200), appliance.ErrUnauthenticated)
	}
	res, err := a.SSO.FinishLogin(r.Context(), q.Get("state"), q.Get("code"), auditBase(r, nil, "/auth/oidc/callback"))
	if err != nil {
		return nil, err
	}
	w.Header().Set("Cache-Control", "no-store")
	return LoginResult{IDToken: res.IDToken, TokenType: "Bearer", ExpiresUnix: res.ExpiresUnix, Subject: res.Subject,
		KeyID: res.Key.ID, TenantID: res.Key.TenantID, Tier: string(res.Key.Tier), Role: string(res.Key.Role), Bound: res.Bound}, nil
}

// SSOBindingList is the body of GET /tenant/sso/bindings.
type SSOBindingList struct {
	Bindings []appliance.SSOBinding `json:"bindings"`
}

type bindRequest struct {
	Subject       string  `json:"subject"`
	IDToken       string  `json:"id_token"`
	KeyID         string  `json:"key_id"`
	TOTP          *string `json:"totp"`
	Justification string  `json:"justification"`
}

type intentRequest struct {
	KeyID string `json:"key_id"`
}

// BindingIntent is the body of POST /tenant/sso/binding_intents: a
// binding link, shown once.
type BindingIntent struct {
	Intent      string `json:"intent"`     // the link's secret token
	LoginPath   string `json:"login_path"` // /auth/oidc/login?intent=...: the person opens it on this appliance
	KeyID       string `json:"key_id"`
	TenantID    string `json:"tenant_id"`
	ExpiresUnix int64  `json:"expires_unix"` // epoch seconds
}

func (a *API) ssoBindings(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.SSO == nil {
		return nil, errNoSSO
	}
	list, err := a.SSO.Bindings(keyFrom(r.Context()))
	if err != nil {
		return nil, err
	}
	return SSOBindingList{Bindings: list}, nil
}

func (a *API) ssoBind(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.SSO == nil {
		return nil, errNoSSO
	}
	var q bindRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	if q.TOTP != nil || q.Justification != "" {
		return nil, appliance.Invalid("totp", "is an admin field: tenants bind without TOTP or justification")
	}
	k := keyFrom(r.Context())
	b, err := a.SSO.Bind(r.Context(), k, sso.BindRequest{Subject: q.Subject, IDToken: q.IDToken, KeyID: q.KeyID}, auditBase(r, k, "/tenant/sso/bindings"))
	if err != nil {
		return nil, err
	}
	return created{b}, nil
}

func (a *API) ssoIntent(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.SSO == nil {
		return nil, errNoSSO
	}
	var q intentRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	k := keyFrom(r.Context())
	in, err := a.SSO.CreateIntent(k, q.KeyID, auditBase(r, k, "/tenant/sso/binding_intents"))
	if err != nil {
		return nil, err
	}
	w.Header().Set("Cache-Control", "no-store")
	return created{BindingIntent{Intent: in.Token, LoginPath: in.LoginPath, KeyID: in.KeyID, TenantID: in.TenantID, ExpiresUnix: in.ExpiresUnix}}, nil
}

// SSOUnbound is the body of DELETE /tenant/sso/bindings.
type SSOUnbound struct {
	Subject string `json:"subject"`
	Deleted bool   `json:"deleted"`
}

func (a *API) ssoUnbind(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.SSO == nil {
		return nil, errNoSSO
	}
	sub := r.URL.Query().Get("subject")
	k := keyFrom(r.Context())
	if err := a.SSO.Unbind(k, sub, auditBase(r, k, "/tenant/sso/bindings")); err != nil {
		return nil, err
	}
	return SSOUnbound{Subject: sub, Deleted: true}, nil
}

func (a *API) ssoAdminBind(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.SSO == nil {
		return nil, errNoSSO
	}
	admin := keyFrom(r.Context())
	if admin.Role != appliance.RoleAdmin {
		return nil, &httpError{status: http.StatusForbidden, code: "forbidden", msg: "an admin key is required"}
	}
	var q bindRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	req := sso.BindRequest{Subject: q.Subject, IDToken: q.IDToken, KeyID: q.KeyID, Justification: strings.TrimSpace(q.Justification)}
	if err := sso.ValidateAdminBind(req); err != nil {
		return nil, err
	}
	code := r.Header.Get("X-Admin-Totp")
	if code == "" && q.TOTP != nil {
		code = *q.TOTP
	}
	if err := a.verifyAdmin(r, admin, code, "/admin/sso/bindings"); err != nil {
		return nil, err
	}
	b, err := a.SSO.AdminBind(admin, req, auditBase(r, admin, "/admin/sso/bindings"))
	if err != nil {
		return nil, err
	}
	return created{b}, nil
}

type adminUnbindRequest struct {
	Subject       string  `json:"subject"`
	TOTP          *string `json:"totp"`
	Justification string  `json:"justification"`
}

func (a *API) ssoAdminUnbind(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.SSO == nil {
		return nil, errNoSSO
	}
	admin := keyFrom(r.Context())
	if admin.Role != appliance.RoleAdmin {
		return nil, &httpError{status: http.StatusForbidden, code: "forbidden", msg: "an admin key is required"}
	}
	var q adminUnbindRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	if err := sso.ValidateAdminUnbind(q.Subject, q.Justification); err != nil {
		return nil, err
	}
	code := r.Header.Get("X-Admin-Totp")
	if code == "" && q.TOTP != nil {
		code = *q.TOTP
	}
	const route = "/admin/sso/bindings/delete"
	if err := a.verifyAdmin(r, admin, code, route); err != nil {
		return nil, err
	}
	if err := a.SSO.AdminUnbind(admin, q.Subject, q.Justification, auditBase(r, admin, route)); err != nil {
		return nil, err
	}
	return SSOUnbound{Subject: q.Subject, Deleted: true}, nil
}
