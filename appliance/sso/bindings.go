package sso

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"linkplan/appliance"
)

// BindRequest asks to bind an identity-provider subject to a key.
type BindRequest struct {
	// Subject is the ID tokens' sub: named by the admin only (AdminBind).
	// A tenant never names it (Bind refuses the field): the subject comes
	// from the proof.
	Subject string
	// IDToken is the tenant's proof (Bind): a fresh ID token of the person
	// to bind, issued at most MaxProofAge ago.
	IDToken string
	// KeyID is the key to act with; "" means the caller's own key (tenant
	// binding only).
	KeyID string
	// Justification is required from the admin (10 to 1000 characters).
	Justification string
}

// Audit actions of binding proofs (issue 20).
const (
	ActionIntentCreate = "sso.binding.intent.create" // a tenant created a binding link
	// ActionBindRefused is a binding refused with ErrBindRefused: written
	// without a tenant (the appliance's log, read by the admin), with the
	// detail the caller is not told.
	ActionBindRefused = "sso.binding.refused"
)

// Proofs of a binding, in the audit rows' proof parameter.
const (
	ProofIDToken     = "id_token"     // a fresh ID token in the bind request
	ProofHostedLogin = "hosted_login" // the person signed in through a binding link
	ProofAdmin       = "admin"        // the admin bound it (TOTP step-up, justification)
)

// MaxProofAge is how old (by its iat) an ID token presented as a binding
// proof may be; ProofSkew is how far in the future its iat may lie (the
// issuer's clock).
const (
	MaxProofAge = 5 * time.Minute
	ProofSkew   = time.Minute
)

// ErrBindRefused is the one answer to a binding the appliance does not
// make for a reason the caller must not learn: the subject is bound
// already (to this tenant or another), the proof was used before, or the
// binding link is unknown, used, expired or its key no longer active. One
// message and one status (403) for all of them, so that no answer tells
// whether another tenant holds a subject.
var ErrBindRefused = fmt.Errorf("this identity cannot be bound: it may be bound already, or the proof (ID token or binding link) was used or has expired; "+
	"the person signs in through a new binding link, or the appliance admin binds it: %w", appliance.ErrForbidden)

// refusal is an ErrBindRefused with the detail that only the admin's
// audit row (sso.binding.refused, no tenant) keeps.
type refusal struct{ detail string }

func (r *refusal) Error() string { return ErrBindRefused.Error() }
func (r *refusal) Unwrap() error { return ErrBindRefused }

// Details of a refusal (the admin's audit row).
const (
	detailBound      = "the subject is bound already"
	detailProofUsed  = "the ID token was presented as a proof before"
	detailIntentGone = "the binding link is unknown, used or expired"
	detailKeyGone    = "the binding link's key is no longer active"
)

// refusalDetail returns the detail of a refusal, or "".
func refusalDetail(err error) string {
	var r *refusal
	if errors.As(err, &r) {
		return r.detail
	}
	return ""
}

// MaxSubjectBytes bounds a subject (OIDC Core: at most 255 ASCII
// characters).
const MaxSubjectBytes = 255

func validSubject(v *appliance.ValidationError, sub string) {
	if sub == "" || len(sub) > MaxSubjectBytes {
		v.Add("subject", "must be 1 to %d bytes (the ID token's sub claim)", MaxSubjectBytes)
		return
	}
	for _, r := range sub {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			v.Add("subject", "must not hold control or format characters")
			return
		}
	}
}

func validKeyID(v *appliance.ValidationError, id string) {
	if len(id) != 12 || strings.Trim(id, "0123456789abcdef") != "" {
		v.Add("key_id", "must be a key id: 12 lower-case hex digits")
	}
}

// checkTenantKey is the rule for the key a tenant binds to: a key of the
// tenant (another tenant's key is not found), not an admin key, active.
func checkTenantKey(k *appliance.APIKey, tenantID string) error {
	if k.TenantID != tenantID {
		return appliance.Invalid("key_id", "no key has this id")
	}
	if k.Role == appliance.RoleAdmin {
		return appliance.Invalid("key_id", "admin keys cannot be bound: the admin's TOTP step-up needs the admin key itself")
	}
	if !k.Active() {
		return appliance.Invalid("key_id", "the key is revoked or erased")
	}
	return nil
}

// Bind binds the subject of req.IDToken, a fresh ID token of the person
// (the proof), to one of the tenant's keys on behalf of the tenant key
// actor. The token passes every bearer check (signature, iss, aud, exp,
// sub, token_use) and was issued at most MaxProofAge ago; a token is a
// proof once. The key must belong to the actor's tenant (another
// tenant's key is not found), be active and not an admin key. A tenant
// never names a subject (422 on subject). A subject bound already (to any
// tenant) or a proof used before is ErrBindRefused, after the same reads
// and the same audit write as any refusal of that kind. Audited
// sso.binding.create (proof id_token) in the tenant; a refusal
// sso.binding.refused in the appliance's log only.
func (s *Service) Bind(ctx context.Context, actor *appliance.APIKey, req BindRequest, base appliance.AuditEntry) (*appliance.SSOBinding, error) {
	if actor.Role == appliance.RoleAdmin {
		return nil, fmt.Errorf("tenant self-service refuses admin keys: use POST /admin/sso/bindings: %w", appliance.ErrForbidden)
	}
	if req.KeyID == "" {
		req.KeyID = actor.ID
	}
	v := &appliance.ValidationError{}
	if req.Subject != "" {
		v.Add("subject", "a tenant does not name a subject: send the person's fresh ID token as id_token, or create a binding link (POST /tenant/sso/binding_intents) for the person to sign in through")
	}
	switch {
	case req.IDToken == "":
		v.Add("id_token", "is required: the fresh ID token (issued at most %d minutes ago) of the person to bind, or create a binding link (POST /tenant/sso/binding_intents)", int(MaxProofAge/time.Minute))
	case len(req.IDToken) > MaxTokenBytes:
		v.Add("id_token", "must be at most %d bytes", MaxTokenBytes)
	}
	validKeyID(v, req.KeyID)
	if err := v.Err(); err != nil {
		return nil, err
	}
	tok, err := s.verify(ctx, req.IDToken)
	if errors.Is(err, appliance.ErrUnauthenticated) {
		// The caller's key is fine; its proof is not: a bad input.
		return nil, appliance.Invalid("id_token", "%s", strings.TrimSuffix(err.Error(), ": "+appliance.ErrUnauthenticated.Error()))
	}
	if err != nil {
		return nil, err
	}
	now := s.cfg.Now()
	switch {
	case tok.IssuedAt.IsZero():
		return nil, appliance.Invalid("id_token", "has no issue time (iat): a binding needs a fresh token")
	case now.Sub(tok.IssuedAt) > MaxProofAge:
		return nil, appliance.Invalid("id_token", "was issued at %s, more than %d minutes ago (iat): a binding needs a fresh token; sign in again",
			tok.IssuedAt.UTC().Format(time.RFC3339), int(MaxProofAge/time.Minute))
	case tok.IssuedAt.Sub(now) > ProofSkew:
		return nil, appliance.Invalid("id_token", "is issued in the future (iat %s): check the clocks", tok.IssuedAt.UTC().Format(time.RFC3339))
	}
	proof, until := sha256.Sum256([]byte(req.IDToken)), tok.IssuedAt.Add(MaxProofAge+ProofSkew)
	b := &appliance.SSOBinding{Issuer: s.cfg.IssuerURL, Subject: tok.Subject, KeyID: req.KeyID, CreatedUnix: now.Unix(), CreatedBy: actor.ID}
	check := func(k *appliance.APIKey, bound bool) error {
		if err := checkTenantKey(k, actor.TenantID); err != nil {
			return err // the proof is not spent on a wrong key_id
		}
		// Spent here, inside the store's write transaction: two requests
		// with one token are decided one after the other.
		used := s.spendProof(proof, until)
		switch {
		case bound:
			return &refusal{detailBound}
		case used:
			return &refusal{detailProofUsed}
		}
		return nil
	}
	e := base
	e.Action = ActionBind
	e.Params = map[string]string{"issuer": b.Issuer, "subject": b.Subject, "key_id": b.KeyID, "proof": ProofIDToken}
	if err := s.put(b, check, base, e); err != nil {
		return nil, err
	}
	return b, nil
}

// put stores a binding whose check may refuse it with a refusal: the
// refusal is audited sso.binding.refused in the appliance's log (no
// tenant: the tenant's own log must not tell it apart from any other
// outcome it cannot see) with its detail.
func (s *Service) put(b *appliance.SSOBinding, check func(k *appliance.APIKey, bound bool) error, base, e appliance.AuditEntry) error {
	err := s.store.PutSSOBinding(b, check, e)
	if errors.Is(err, appliance.ErrNotFound) {
		return appliance.Invalid("key_id", "no key has this id")
	}
	if d := refusalDetail(err); d != "" {
		s.auditRefusal(base, d)
		return ErrBindRefused
	}
	if err != nil {
		return fmt.Errorf("bind subject: %w", err)
	}
	return nil
}

// auditRefusal writes the admin-only row of a refused binding. Its
// failure does not change the answer (refused either way).
func (s *Service) auditRefusal(base appliance.AuditEntry, detail string) {
	e := base
	e.Action, e.TenantID = ActionBindRefused, ""
	e.Params = map[string]string{"reason": detail}
	_, _ = s.store.AppendAudit(e)
}

// spendProof marks a proof token (by its SHA-256) used until it can no
// longer be fresh, and reports whether it was used before. Entries past
// their time are dropped when the set is full.
func (s *Service) spendProof(id [32]byte, until time.Time) bool {
	s.proofMu.Lock()
	defer s.proofMu.Unlock()
	now := s.cfg.Now()
	if t, ok := s.proofs[id]; ok && now.Before(t) {
		return true
	}
	if len(s.proofs) >= MaxCachedTokens {
		for k, t := range s.proofs {
			if !now.Before(t) {
				delete(s.proofs, k)
			}
		}
	}
	if len(s.proofs) >= MaxCachedTokens {
		// Every entry is younger than MaxProofAge: refuse new proofs
		// rather than forget a used one.
		return true
	}
	s.proofs[id] = until
	return false
}

// AdminBind binds req.Subject to any active non-admin key: the admin
// names the subject without a proof. The caller (web/api) has verified
// the admin's TOTP step-up. A subject bound already is ErrConflict (the
// admin sees every binding). Audited admin.sso.binding.create with the
// justification and proof admin.
func (s *Service) AdminBind(admin *appliance.APIKey, req BindRequest, base appliance.AuditEntry) (*appliance.SSOBinding, error) {
	if admin.Role != appliance.RoleAdmin {
		return nil, fmt.Errorf("an admin key is required: %w", appliance.ErrForbidden)
	}
	if err := ValidateAdminBind(req); err != nil {
		return nil, err
	}
	b := &appliance.SSOBinding{Issuer: s.cfg.IssuerURL, Subject: req.Subject, KeyID: req.KeyID,
		CreatedUnix: s.cfg.Now().Unix(), CreatedBy: admin.ID}
	check := func(k *appliance.APIKey, _ bool) error {
		if k.Role == appliance.RoleAdmin {
			return appliance.Invalid("key_id", "admin keys cannot be bound: the admin's TOTP step-up needs the admin key itself")
		}
		if !k.Active() {
			return appliance.Invalid("key_id", "the key is revoked or erased")
		}
		return nil
	}
	e := base
	e.Action = ActionAdminBind
	e.Params = map[string]string{"issuer": b.Issuer, "subject": b.Subject, "key_id": b.KeyID, "proof": ProofAdmin,
		"justification": strings.TrimSpace(req.Justification)}
	err := s.store.PutSSOBinding(b, check, e)
	if errors.Is(err, appliance.ErrNotFound) {
		return nil, appliance.Invalid("key_id", "no key has this id")
	}
	if err != nil {
		return nil, fmt.Errorf("bind subject: %w", err)
	}
	return b, nil
}

// ValidateAdminBind checks an admin binding request's fields, so that the
// TOTP code is spent only on an otherwise valid request.
func ValidateAdminBind(req BindRequest) error {
	v := &appliance.ValidationError{}
	validSubject(v, req.Subject)
	validKeyID(v, req.KeyID)
	if req.IDToken != "" {
		v.Add("id_token", "is a tenant field: the admin names the subject")
	}
	if j := strings.TrimSpace(req.Justification); len(j) < 10 || len(j) > 1000 {
		v.Add("justification", "a justification of 10 to 1000 characters is required for admin actions")
	}
	return v.Err()
}

// Bindings lists the bindings of the actor's tenant.
func (s *Service) Bindings(actor *appliance.APIKey) ([]appliance.SSOBinding, error) {
	if actor.Role == appliance.RoleAdmin {
		return nil, fmt.Errorf("tenant self-service refuses admin keys: %w", appliance.ErrForbidden)
	}
	return s.store.SSOBindings(actor.TenantID)
}

// Unbind removes the binding of subject (configured issuer) from the
// actor's tenant. Audited sso.binding.delete.
func (s *Service) Unbind(actor *appliance.APIKey, subject string, base appliance.AuditEntry) error {
	if actor.Role == appliance.RoleAdmin {
		return fmt.Errorf("tenant self-service refuses admin keys: %w", appliance.ErrForbidden)
	}
	v := &appliance.ValidationError{}
	validSubject(v, subject)
	if err := v.Err(); err != nil {
		return err
	}
	e := base
	e.Action, e.TenantID = ActionUnbind, actor.TenantID
	e.Params = map[string]string{"issuer": s.cfg.IssuerURL, "subject": subject}
	return s.store.DeleteSSOBinding(actor.TenantID, s.cfg.IssuerURL, subject, e)
}

// ValidateAdminUnbind checks an admin unbind request's fields, so that the
// TOTP code is spent only on an otherwise valid request.
func ValidateAdminUnbind(subject, justification string) error {
	v := &appliance.ValidationError{}
	validSubject(v, subject)
	if j := strings.TrimSpace(justification); len(j) < 10 || len(j) > 1000 {
		v.Add("justification", "a justification of 10 to 1000 characters is required for admin actions")
	}
	return v.Err()
}

// AdminUnbind removes the binding of subject (configured issuer) whatever
// its tenant, on behalf of the admin, whose TOTP step-up the caller
// verified (e.g. to free a subject another tenant bound). Audited
// admin.sso.binding.delete with the justification, in the binding's
// tenant.
func (s *Service) AdminUnbind(admin *appliance.APIKey, subject, justification string, base appliance.AuditEntry) error {
	if admin.Role != appliance.RoleAdmin {
		return fmt.Errorf("an admin key is required: %w", appliance.ErrForbidden)
	}
	if err := ValidateAdminUnbind(subject, justification); err != nil {
		return err
	}
	e := base
	e.Action = ActionAdminUnbind
	e.Params = map[string]string{"issuer": s.cfg.IssuerURL, "subject": subject, "justification": strings.TrimSpace(justification)}
	return s.store.DeleteSSOBinding("", s.cfg.IssuerURL, subject, e)
}
