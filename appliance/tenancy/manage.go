package tenancy

import (
	"fmt"
	"slices"
	"time"

	"linkplan/appliance"
)

// Key management by a tenant (/tenant/keys): list, create, rotate and
// revoke the tenant's own keys. The rules, with the key states of
// appliance.KeyState:
//
//	Operation | Caller needs                                      | Key state before | After                                               | Audit action
//	----------+---------------------------------------------------+------------------+-----------------------------------------------------+-------------------
//	list      | any tenant role                                   | any              | -                                                   | -
//	create    | tenant-admin                                      | (none)           | new key active, caller's tier, role as asked         | tenant.key.create
//	rotate    | tenant-admin (any key) or the key itself (own key) | active           | old key rotating until now+RotationGrace; new key    | tenant.key.rotate
//	          |                                                   |                  | active, same role and tier                          |
//	rotate    | as above                                          | rotating/revoked | unchanged; ErrConflict                              | -
//	revoke    | tenant-admin                                      | active/rotating  | revoked at once                                     | tenant.key.revoke
//	revoke    | tenant-admin                                      | revoked          | unchanged; ErrConflict                              | -
//	revoke    | tenant-admin                                      | last active      | unchanged; ErrConflict (the tenant would lose its    | -
//	          |                                                   | tenant-admin key | key management)                                     |
//	any       | admin key                                         | -                | ErrForbidden: a self-service route                  | -
//	any       | key of another tenant named                       | -                | ErrNotFound, as a missing key                       | -
//
// A rotating key whose grace has ended reads as revoked (StateAt) and
// Authenticate refuses it; no write is needed for that.

// RotationGrace is how long a rotated key keeps working: 24 hours, so that
// every client of the tenant can move to the new key within a day.
const RotationGrace = 24 * time.Hour

// LastUsedPrecision is the precision of APIKey.LastUsedUnix: Authenticate
// writes the last use only when the stored one is older, so a busy key
// costs at most one write per LastUsedPrecision.
const LastUsedPrecision = 5 * time.Minute

// Audit actions of key management (the names live in appliance).
const (
	ActionKeyCreate = appliance.ActionKeyCreate
	ActionKeyRotate = appliance.ActionKeyRotate
	ActionKeyRevoke = appliance.ActionKeyRevoke
)

// Authorize returns an appliance.ErrForbidden error unless k may perform
// an operation of permission p: an admin key may do everything (admin
// routes check the step-up themselves, self-service routes refuse admin
// keys); a tenant or internal key as its tenant role allows.
func Authorize(k *appliance.APIKey, p appliance.Permission) error {
	if k.Role == appliance.RoleAdmin {
		return nil
	}
	if r := k.EffectiveTenantRole(); !r.Allows(p) {
		return fmt.Errorf("this key's role %s does not allow %s operations: %w", r, p, appliance.ErrForbidden)
	}
	return nil
}

// selfService refuses admin keys on tenant self-service operations (SPEC
// §5.1.3) and checks p.
func selfService(k *appliance.APIKey, p appliance.Permission) error {
	if k.Role == appliance.RoleAdmin {
		return fmt.Errorf("tenant self-service routes do not accept admin keys: %w", appliance.ErrForbidden)
	}
	return Authorize(k, p)
}

// touch records k's use when the stored last use is older than
// LastUsedPrecision. A failed write loses only that timestamp.
func (s *Service) touch(k *appliance.APIKey, now time.Time) {
	if now.Unix()-k.LastUsedUnix < int64(LastUsedPrecision/time.Second) {
		return
	}
	if err := s.store.TouchKey(k.HashHex, now); err != nil {
		s.log.Warn("tenancy: record key use", "key_id", k.ID, "err", err)
		return
	}
	k.LastUsedUnix = now.Unix()
}

// ListKeys returns the caller's tenant's keys, oldest first.
func (s *Service) ListKeys(caller *appliance.APIKey) ([]*appliance.APIKey, error) {
	if err := selfService(caller, appliance.PermRead); err != nil {
		return nil, err
	}
	ks, err := s.store.KeysOfTenant(caller.TenantID)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	return ks, nil
}

// KeyRequest is a key-management request: the tenant role of a new key
// (empty: member) and the client for the audit entry.
type KeyRequest struct {
	TenantRole appliance.TenantRole
	Client     Client
}

func (s *Service) keyAudit(caller *appliance.APIKey, c Client, action string, params map[string]string) appliance.AuditEntry {
	e := s.entry(caller, c, action)
	e.Params = params
	return e
}

// CreateKey issues an additional key of the caller's tenant, with the
// caller's tier and kind (tenant or internal), the caller's owner and
// e-mail, and the tenant role asked (member when empty). It returns the
// plain key (shown once) and its record.
func (s *Service) CreateKey(caller *appliance.APIKey, req KeyRequest) (string, *appliance.APIKey, error) {
	if err := selfService(caller, appliance.PermManageKeys); err != nil {
		return "", nil, err
	}
	role := req.TenantRole
	if role == "" {
		role = appliance.TenantMember
	}
	if _, err := appliance.ParseTenantRole(string(role)); err != nil {
		return "", nil, appliance.Invalid("tenant_role", "must be tenant-admin, member or read-only; got %q", string(role))
	}
	plain, k, err := s.newKey(IssueRequest{Tier: caller.Tier, Role: caller.Role, Owner: caller.Owner, Email: caller.Email, TenantID: caller.TenantID})
	if err != nil {
		return "", nil, err
	}
	k.TenantRole = role
	err = s.store.UpdateTenantKeys(caller.TenantID, func([]*appliance.APIKey) (appliance.KeyChange, error) {
		return appliance.KeyChange{Add: []*appliance.APIKey{k}, Audit: []appliance.AuditEntry{
			s.keyAudit(caller, req.Client, ActionKeyCreate, map[string]string{"key_id": k.ID, "tenant_role": string(role)})}}, nil
	})
	if err != nil {
		return "", nil, fmt.Errorf("create key: %w", err)
	}
	return plain, k, nil
}

// findKey returns the key id of keys, or ErrNotFound (another tenant's key
// reads as missing).
func findKey(keys []*appliance.APIKey, id string) (*appliance.APIKey, error) {
	i := slices.IndexFunc(keys, func(k *appliance.APIKey) bool { return k.ID == id })
	if i < 0 {
		return nil, fmt.Errorf("key %q: %w", id, appliance.ErrNotFound)
	}
	return keys[i], nil
}

// RotateKey replaces the key keyID of the caller's tenant by a new one of
// the same tier, kind and tenant role. The old key keeps working for
// RotationGrace, then reads as revoked. It returns the plain new key (shown
// once), the new record and the old one.
func (s *Service) RotateKey(caller *appliance.APIKey, keyID string, req KeyRequest) (string, *appliance.APIKey, *appliance.APIKey, error) {
	perm := appliance.PermManageKeys
	if keyID == caller.ID {
		perm = appliance.PermRotateOwnKey
	}
	if err := selfService(caller, perm); err != nil {
		return "", nil, nil, err
	}
	now := s.now()
	var plain string
	var fresh, old *appliance.APIKey
	err := s.store.UpdateTenantKeys(caller.TenantID, func(keys []*appliance.APIKey) (appliance.KeyChange, error) {
		k, err := findKey(keys, keyID)
		if err != nil {
			return appliance.KeyChange{}, err
		}
		if st := k.StateAt(now.Unix()); st != appliance.KeyActive {
			return appliance.KeyChange{}, fmt.Errorf("key %s is %s: only an active key can be rotated: %w", k.ID, st, appliance.ErrConflict)
		}
		p, n, err := s.newKey(IssueRequest{Tier: k.Tier, Role: k.Role, Owner: k.Owner, Email: k.Email, TenantID: k.TenantID})
		if err != nil {
			return appliance.KeyChange{}, err
		}
		n.TenantRole = k.TenantRole
		o := *k
		o.GraceUntilUnix, o.RotatedTo = now.Add(RotationGrace).Unix(), n.ID
		plain, fresh, old = p, n, &o
		return appliance.KeyChange{Update: []*appliance.APIKey{&o}, Add: []*appliance.APIKey{n}, Audit: []appliance.AuditEntry{
			s.keyAudit(caller, req.Client, ActionKeyRotate, map[string]string{"key_id": k.ID, "new_key_id": n.ID,
				"grace_until_unix": fmt.Sprint(o.GraceUntilUnix)})}}, nil
	})
	if err != nil {
		return "", nil, nil, fmt.Errorf("rotate key: %w", err)
	}
	return plain, fresh, old, nil
}

// RevokeKey revokes the key keyID of the caller's tenant at once. The last
// active tenant-admin key of the tenant cannot be revoked.
func (s *Service) RevokeKey(caller *appliance.APIKey, keyID string, req KeyRequest) (*appliance.APIKey, error) {
	if err := selfService(caller, appliance.PermManageKeys); err != nil {
		return nil, err
	}
	now := s.now()
	var out *appliance.APIKey
	err := s.store.UpdateTenantKeys(caller.TenantID, func(keys []*appliance.APIKey) (appliance.KeyChange, error) {
		k, err := findKey(keys, keyID)
		if err != nil {
			return appliance.KeyChange{}, err
		}
		if st := k.StateAt(now.Unix()); st != appliance.KeyActive && st != appliance.KeyRotating {
			return appliance.KeyChange{}, fmt.Errorf("key %s is already %s: %w", k.ID, st, appliance.ErrConflict)
		}
		if k.EffectiveTenantRole() == appliance.TenantAdmin && k.StateAt(now.Unix()) == appliance.KeyActive {
			admins := 0
			for _, o := range keys {
				if o.EffectiveTenantRole() == appliance.TenantAdmin && o.StateAt(now.Unix()) == appliance.KeyActive {
					admins++
				}
			}
			if admins <= 1 {
				return appliance.KeyChange{}, fmt.Errorf("key %s is the tenant's last active tenant-admin key: create or rotate another first: %w", k.ID, appliance.ErrConflict)
			}
		}
		o := *k
		o.RevokedUnix = now.Unix()
		out = &o
		return appliance.KeyChange{Update: []*appliance.APIKey{&o}, Audit: []appliance.AuditEntry{
			s.keyAudit(caller, req.Client, ActionKeyRevoke, map[string]string{"key_id": k.ID})}}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("revoke key: %w", err)
	}
	return out, nil
}

// Now returns the service's current time (for key states on the wire).
func (s *Service) Now() time.Time { return s.now() }
