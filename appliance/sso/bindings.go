package sso

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"linkplan/appliance"
)

// BindRequest asks to bind an identity-provider subject to a key.
type BindRequest struct {
	Subject string // the ID tokens' sub
	// KeyID is the key to act with; "" means the caller's own key (tenant
	// binding only).
	KeyID string
	// Justification is required from the admin (10 to 1000 characters).
	Justification string
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

// Bind binds req.Subject of the configured issuer to one of the tenant's
// keys, on behalf of the tenant key actor. The key must belong to the
// actor's tenant (another tenant's key is not found), be active and not an
// admin key. Audited sso.binding.create with base's client fields.
func (s *Service) Bind(actor *appliance.APIKey, req BindRequest, base appliance.AuditEntry) (*appliance.SSOBinding, error) {
	if actor.Role == appliance.RoleAdmin {
		return nil, fmt.Errorf("tenant self-service refuses admin keys: use POST /admin/sso/bindings: %w", appliance.ErrForbidden)
	}
	if req.KeyID == "" {
		req.KeyID = actor.ID
	}
	return s.bind(actor, req, false, base)
}

// AdminBind binds req.Subject to any active non-admin key. The caller
// (web/api) has verified the admin's TOTP step-up. Audited
// admin.sso.binding.create with the justification.
func (s *Service) AdminBind(admin *appliance.APIKey, req BindRequest, base appliance.AuditEntry) (*appliance.SSOBinding, error) {
	if admin.Role != appliance.RoleAdmin {
		return nil, fmt.Errorf("an admin key is required: %w", appliance.ErrForbidden)
	}
	return s.bind(admin, req, true, base)
}

// ValidateAdminBind checks an admin binding request's fields, so that the
// TOTP code is spent only on an otherwise valid request.
func ValidateAdminBind(req BindRequest) error {
	v := &appliance.ValidationError{}
	validSubject(v, req.Subject)
	validKeyID(v, req.KeyID)
	if j := strings.TrimSpace(req.Justification); len(j) < 10 || len(j) > 1000 {
		v.Add("justification", "a justification of 10 to 1000 characters is required for admin actions")
	}
	return v.Err()
}

func (s *Service) bind(actor *appliance.APIKey, req BindRequest, asAdmin bool, base appliance.AuditEntry) (*appliance.SSOBinding, error) {
	v := &appliance.ValidationError{}
	validSubject(v, req.Subject)
	validKeyID(v, req.KeyID)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if asAdmin {
		if err := ValidateAdminBind(req); err != nil {
			return nil, err
		}
	}
	b := &appliance.SSOBinding{Issuer: s.cfg.IssuerURL, Subject: req.Subject, KeyID: req.KeyID,
		CreatedUnix: s.cfg.Now().Unix(), CreatedBy: actor.ID}
	check := func(k *appliance.APIKey) error {
		if !asAdmin && k.TenantID != actor.TenantID {
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
	e := base
	e.Action = ActionBind
	e.Params = map[string]string{"issuer": b.Issuer, "subject": b.Subject, "key_id": b.KeyID}
	if asAdmin {
		e.Action = ActionAdminBind
		e.Params["justification"] = strings.TrimSpace(req.Justification)
	}
	err := s.store.PutSSOBinding(b, check, e)
	if errors.Is(err, appliance.ErrNotFound) {
		return nil, appliance.Invalid("key_id", "no key has this id")
	}
	if err != nil {
		return nil, fmt.Errorf("bind subject: %w", err)
	}
	return b, nil
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
