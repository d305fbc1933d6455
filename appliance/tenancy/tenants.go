package tenancy

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"linkplan/appliance"
)

// The admin tenant listing (GET /admin/tenants). A tenant is a tenant id
// that some key carries; admin keys are not a tenant, so a tenant id held
// only by admin keys is not listed. The rules:
//
//	caller        outcome                                           audit action
//	admin key     a page of tenants sorted by tenant id             admin.tenants.list (params: limit, and after:
//	              (no TOTP step-up: a read, like GET /admin/audit)    the tenant id the cursor names), appended
//	                                                                  before the page is read; a listing that
//	                                                                  cannot be audited is not served
//	other key     ErrForbidden                                      -
//
// Each tenant's fields:
//
//   - tier: the highest tier among its live keys (active or in a
//     rotation's grace); with none live, the highest among all its keys;
//     "erased" when the tenant was erased (SPEC §3: every key's tier is).
//     A tenant's keys normally share one tier (a new key takes its
//     creator's); the highest is what the tenant pays for.
//   - keys: counts of active, revoked (a rotation's ended grace included)
//     and in-grace (rotating) keys; erased keys count as revoked.
//   - created: the creation time of its first key.
//   - erased, with the soft erase time and the scheduled hard delete of
//     its latest erase request when the store holds it.
//   - display name of its branding, observation row counts.
//
// A page cursor is opaque to clients: TenantCursor encodes the last tenant
// id of a page, ParseTenantCursor reads it back.

// ActionTenantsList is the audit action of an admin tenant listing.
const ActionTenantsList = appliance.ActionAdminTenantsList

// Tenant listing page sizes.
const (
	DefaultTenantPage = 50
	MaxTenantPage     = 200
)

// cursorVersion leads every cursor, so that its form can change.
const cursorVersion = "t1:"

// maxCursorTenant bounds the tenant id a cursor may carry.
const maxCursorTenant = 200

// TenantCursor returns the opaque cursor of the page after tenantID.
func TenantCursor(tenantID string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorVersion + tenantID))
}

// ParseTenantCursor returns the tenant id a cursor of TenantCursor names,
// or an appliance.ErrInvalid error naming the field cursor. "" is the
// first page.
func ParseTenantCursor(c string) (string, error) {
	if c == "" {
		return "", nil
	}
	bad := appliance.Invalid("cursor", "is not a cursor of this listing: pass the next_cursor of the previous page as it came")
	if len(c) > 2*maxCursorTenant {
		return "", bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", bad
	}
	s := string(raw)
	t, ok := strings.CutPrefix(s, cursorVersion)
	if !ok || t == "" || len(t) > maxCursorTenant || !utf8.ValidString(t) {
		return "", bad
	}
	return t, nil
}

// TenantQuery asks for a page of tenants: Limit (0: DefaultTenantPage; at
// most MaxTenantPage), Cursor (the previous page's next cursor, "" for the
// first page) and the client for the audit entry.
type TenantQuery struct {
	Limit  int
	Cursor string
	Client Client
}

// KeyCounts counts a tenant's keys by state.
type KeyCounts struct {
	Active  int
	Revoked int
	InGrace int
}

// TenantSummary is one tenant of the listing. It holds no key, hash or
// secret.
type TenantSummary struct {
	TenantID    string
	Tier        appliance.Tier
	Keys        KeyCounts
	CreatedUnix int64 // its first key's creation
	Erased      bool
	// ErasedUnix and HardDeleteUnix are the soft erase and the scheduled
	// hard delete of an erased tenant, 0 when unknown.
	ErasedUnix     int64
	HardDeleteUnix int64
	DisplayName    string // branding; "" when none
	Observations   appliance.ObservationCounts
	// Owner and Email are those given when the tenant's oldest key that
	// names them was issued (POST /admin/keys); "" when none does (an
	// erased tenant's keys keep neither).
	Owner string
	Email string
}

// TenantPage is a page of tenants; NextCursor is "" on the last page.
type TenantPage struct {
	Tenants    []TenantSummary
	NextCursor string
}

// Validate returns every bad field of q (limit, cursor); nil when none.
func (q TenantQuery) Validate() *appliance.ValidationError {
	v := &appliance.ValidationError{}
	if q.Limit != 0 && (q.Limit < 1 || q.Limit > MaxTenantPage) {
		v.Add("limit", "must be an integer between 1 and %d, got %d", MaxTenantPage, q.Limit)
	}
	if _, err := ParseTenantCursor(q.Cursor); err != nil {
		var ve *appliance.ValidationError
		if errors.As(err, &ve) {
			v.Merge(ve)
		}
	}
	if v.Len() == 0 {
		return nil
	}
	return v
}

// ListTenants returns a page of the appliance's tenants, sorted by tenant
// id, to an admin key, after appending the admin.tenants.list audit row.
func (s *Service) ListTenants(caller *appliance.APIKey, q TenantQuery) (*TenantPage, error) {
	if caller.Role != appliance.RoleAdmin {
		return nil, fmt.Errorf("an admin key is required: %w", appliance.ErrForbidden)
	}
	if err := q.Validate().Err(); err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit == 0 {
		limit = DefaultTenantPage
	}
	after, _ := ParseTenantCursor(q.Cursor)
	params := map[string]string{"limit": strconv.Itoa(limit)}
	if after != "" {
		params["after"] = after
	}
	e := s.entry(caller, q.Client, ActionTenantsList)
	e.Params = params
	if _, err := s.store.AppendAudit(e); err != nil {
		return nil, fmt.Errorf("list tenants: %w", err)
	}
	recs, more, err := s.store.TenantsPage(after, limit)
	if err != nil {
		return nil, fmt.Errorf("list tenants: %w", err)
	}
	now := s.now().Unix()
	out := &TenantPage{Tenants: make([]TenantSummary, len(recs))}
	for i := range recs {
		out.Tenants[i] = summarize(&recs[i], now)
	}
	if more && len(recs) > 0 {
		out.NextCursor = TenantCursor(recs[len(recs)-1].TenantID)
	}
	return out, nil
}

// summarize applies the listing's rules to one tenant's records.
func summarize(r *appliance.TenantRecord, now int64) TenantSummary {
	out := TenantSummary{TenantID: r.TenantID, DisplayName: r.DisplayName, Observations: r.Observations}
	var live, any appliance.Tier
	higher := func(t, than appliance.Tier) bool { return than == "" || (t.AtLeast(than) && t != than) }
	ownerAt := int64(0)
	for i, k := range r.Keys {
		if i == 0 || k.CreatedUnix < out.CreatedUnix {
			out.CreatedUnix = k.CreatedUnix
		}
		if (k.Owner != "" || k.Email != "") && (out.Owner == "" && out.Email == "" || k.CreatedUnix < ownerAt) {
			out.Owner, out.Email, ownerAt = k.Owner, k.Email, k.CreatedUnix
		}
		switch k.StateAt(now) {
		case appliance.KeyActive:
			out.Keys.Active++
		case appliance.KeyRotating:
			out.Keys.InGrace++
		case appliance.KeyRevoked:
			out.Keys.Revoked++
		case appliance.KeyErased:
			out.Keys.Revoked++
			out.Erased = true
		}
		if k.Tier == appliance.TierErased {
			continue
		}
		if higher(k.Tier, any) {
			any = k.Tier
		}
		if st := k.StateAt(now); (st == appliance.KeyActive || st == appliance.KeyRotating) && higher(k.Tier, live) {
			live = k.Tier
		}
	}
	switch {
	case out.Erased:
		out.Tier = appliance.TierErased
	case live != "":
		out.Tier = live
	default:
		out.Tier = any
	}
	if out.Erased && r.Erase != nil {
		out.ErasedUnix, out.HardDeleteUnix = r.Erase.AnsweredUnix, r.Erase.EraseScheduledUnix
	}
	return out
}
