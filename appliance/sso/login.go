package sso

import (
	"context"
	"errors"
	"fmt"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"linkplan/appliance"
)

// LoginResult is the outcome of a hosted login: the ID token the console
// sends as a bearer token, and the key it acts with.
type LoginResult struct {
	IDToken     string
	ExpiresUnix int64 // the token's exp, epoch seconds
	Subject     string
	Key         *appliance.APIKey
	// Bound is set when the login came through a binding link and bound
	// the subject to Key.
	Bound bool
}

// BeginLogin starts a hosted login: it keeps a fresh state, PKCE verifier
// and nonce server-side for the login TTL and returns the issuer's
// authorization URL to redirect the browser to. intent, when not empty,
// is the token of a binding link (CreateIntent): it is taken at once
// (single use) and the login's callback binds the signed-in subject to
// the link's key; an unknown, used or expired one is ErrBindRefused.
func (s *Service) BeginLogin(ctx context.Context, intent string) (string, error) {
	if s.cfg.RedirectURL == "" {
		return "", fmt.Errorf("hosted login is not configured (no redirect URL): %w", appliance.ErrUnavailable)
	}
	if _, err := s.discover(ctx, true); err != nil {
		return "", err
	}
	state, err := s.randState()
	if err != nil {
		return "", fmt.Errorf("begin login: %w", err)
	}
	nonce, err := s.randState()
	if err != nil {
		return "", fmt.Errorf("begin login: %w", err)
	}
	verifier := oauth2.GenerateVerifier()
	now := s.cfg.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) >= MaxPendingLogins {
		for k, p := range s.pending {
			if now.After(p.expires) {
				delete(s.pending, k)
			}
		}
	}
	if len(s.pending) >= MaxPendingLogins {
		return "", fmt.Errorf("too many hosted logins in progress (%d); try again in a few minutes: %w", MaxPendingLogins, appliance.ErrQuota)
	}
	p := pendingLogin{verifier: verifier, nonce: nonce, expires: now.Add(s.cfg.LoginTTL)}
	if intent != "" {
		in, ok := s.takeIntentLocked(intent, now)
		if !ok {
			return "", ErrBindRefused
		}
		p.intent = &in
	}
	s.pending[state] = p
	return s.oauth.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oidc.Nonce(nonce)), nil
}

// take removes and returns the pending login of state, if it has not
// expired.
func (s *Service) take(state string) (pendingLogin, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pending[state]
	delete(s.pending, state)
	if !ok || s.cfg.Now().After(p.expires) {
		return pendingLogin{}, false
	}
	return p, true
}

// FinishLogin completes a hosted login from the issuer's redirect: the
// state must be one BeginLogin issued, unused and not expired; the code is
// exchanged server-side with the PKCE verifier; the ID token must pass
// every check of Authenticate, carry the login's nonce and be bound to a
// key. base is the audit entry's actor and client (action and tenant are
// filled in): a completed login writes sso.login, a refused one
// sso.login.refused.
//
// A login through a binding link binds the token's subject to the link's
// key first (audited sso.binding.create, proof hosted_login, actor the
// key that created the link): a subject bound already (to any tenant) or
// a key no longer active is ErrBindRefused, audited sso.binding.refused
// without a tenant (the reason stays out of the tenant's log).
func (s *Service) FinishLogin(ctx context.Context, state, code string, base appliance.AuditEntry) (*LoginResult, error) {
	res, err := s.finish(ctx, state, code, base)
	e := base
	if err != nil {
		e.Action = ActionLoginRefused
		e.Params = map[string]string{"reason": clip(err.Error())}
		d := refusalDetail(err)
		if d != "" { // a binding link's refusal: its detail, in no tenant's log
			e.Action, e.TenantID, e.Params["reason"] = ActionBindRefused, "", d
			err = ErrBindRefused
		}
		_, _ = s.store.AppendAudit(e) // refused either way
		return nil, err
	}
	e.Action, e.ActorKey, e.ActorEmail, e.TenantID = ActionLogin, res.Key.ID, res.Key.Email, res.Key.TenantID
	e.Params = map[string]string{"issuer": s.cfg.IssuerURL, "subject": res.Subject}
	if _, err := s.store.AppendAudit(e); err != nil {
		return nil, fmt.Errorf("finish login: %w", err)
	}
	return res, nil
}

func (s *Service) finish(ctx context.Context, state, code string, base appliance.AuditEntry) (*LoginResult, error) {
	if state == "" || code == "" {
		return nil, appliance.Invalid("code", "the callback needs the state and code query parameters the identity provider sends")
	}
	p, ok := s.take(state)
	if !ok {
		return nil, fmt.Errorf("unknown, used or expired login state: start the login again: %w", appliance.ErrUnauthenticated)
	}
	if _, err := s.discover(ctx, true); err != nil {
		return nil, err
	}
	s.mu.Lock()
	conf := s.oauth
	s.mu.Unlock()
	tok, err := conf.Exchange(oidc.ClientContext(ctx, s.cfg.HTTPClient), code, oauth2.VerifierOption(p.verifier))
	if err != nil {
		return nil, fmt.Errorf("the identity provider refused the authorization code: %w", appliance.ErrUnauthenticated)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, fmt.Errorf("the identity provider returned no ID token: %w", appliance.ErrUnauthenticated)
	}
	id, err := s.verify(ctx, raw)
	if err != nil {
		return nil, err
	}
	if id.Nonce != p.nonce {
		return nil, fmt.Errorf("ID token refused: its nonce is not this login's: %w", appliance.ErrUnauthenticated)
	}
	if p.intent != nil {
		if err := s.bindIntent(p.intent, id.Subject, base); err != nil {
			return nil, err
		}
	}
	k, err := s.keyFor(id.Issuer, id.Subject)
	if err != nil {
		return nil, err
	}
	return &LoginResult{IDToken: raw, ExpiresUnix: id.Expiry.Unix(), Subject: id.Subject, Key: k, Bound: p.intent != nil}, nil
}

// bindIntent binds subject, proven by the login's ID token, to the key of
// the binding link in, as the key that created the link.
func (s *Service) bindIntent(in *bindIntent, subject string, base appliance.AuditEntry) error {
	b := &appliance.SSOBinding{Issuer: s.cfg.IssuerURL, Subject: subject, KeyID: in.keyID, CreatedUnix: s.cfg.Now().Unix(), CreatedBy: in.createdBy}
	check := func(k *appliance.APIKey, bound bool) error {
		switch {
		case checkTenantKey(k, in.tenantID) != nil:
			return &refusal{detailKeyGone}
		case bound:
			return &refusal{detailBound}
		}
		return nil
	}
	e := base
	e.Action, e.ActorKey, e.ActorEmail = ActionBind, in.createdBy, in.creatorEmail
	e.Params = map[string]string{"issuer": b.Issuer, "subject": subject, "key_id": in.keyID, "proof": ProofHostedLogin}
	err := s.store.PutSSOBinding(b, check, e)
	if errors.Is(err, appliance.ErrNotFound) { // the key was deleted since
		return &refusal{detailKeyGone}
	}
	if err != nil && refusalDetail(err) == "" {
		return fmt.Errorf("bind subject: %w", err)
	}
	return err
}
