package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
)

// TenantLister pages the appliance's tenants for the admin
// (appliance/tenancy).
type TenantLister interface {
	ListTenants(caller *appliance.APIKey, q tenancy.TenantQuery) (*tenancy.TenantPage, error)
}

func (a *API) registerTenants(r *mux.Router) {
	if a.Tenants != nil {
		r.HandleFunc("/admin/tenants", a.wrap(a.authed(a.adminTenants))).Methods(http.MethodGet)
	}
}

// TenantPageJSON is the body of GET /admin/tenants.
type TenantPageJSON struct {
	Tenants []TenantJSON `json:"tenants"`
	// NextCursor is the cursor of the next page; null on the last page.
	NextCursor *string `json:"next_cursor"`
}

// TenantJSON is one tenant of the admin listing: never a key, hash or
// secret.
type TenantJSON struct {
	TenantID  string        `json:"tenant_id"`
	Tier      string        `json:"tier"`
	Keys      KeyCountsJSON `json:"keys"`
	CreatedAt string        `json:"created_at"` // RFC 3339 UTC: its first key's creation
	Erased    bool          `json:"erased"`
	ErasedAt  *string       `json:"erased_at"`      // soft erase; null when not erased or unknown
	HardAt    *string       `json:"hard_delete_at"` // scheduled hard delete; null when not erased or unknown
	Display   *string       `json:"display_name"`   // branding; null when none
	Obs       ObsCountsJSON `json:"observations"`
	Owner     *string       `json:"owner"` // the owner named when its oldest such key was issued; null when none
	Email     *string       `json:"email"` // that key's e-mail; null when none
}

// KeyCountsJSON counts a tenant's keys by state.
type KeyCountsJSON struct {
	Active  int `json:"active"`
	Revoked int `json:"revoked"`
	InGrace int `json:"in_grace"`
}

// ObsCountsJSON counts a tenant's stored observation rows.
type ObsCountsJSON struct {
	LinkObservations  int `json:"link_observations"`
	CellSignalSamples int `json:"cell_signal_samples"`
}

func unixJSON(s int64) *string {
	if s == 0 {
		return nil
	}
	return timeJSON(time.Unix(s, 0))
}

// adminTenants pages the tenants (GET /admin/tenants, admin key; no TOTP
// step-up, like GET /admin/audit).
func (a *API) adminTenants(_ http.ResponseWriter, r *http.Request) (any, error) {
	k := keyFrom(r.Context())
	if k.Role != appliance.RoleAdmin { // before reading the query, as GET /admin/audit
		return nil, &httpError{status: http.StatusForbidden, code: "forbidden", msg: "an admin key is required"}
	}
	q := newQuery(r)
	tq := tenancy.TenantQuery{Limit: q.int("limit", tenancy.DefaultTenantPage, 1, tenancy.MaxTenantPage),
		Cursor: strings.TrimSpace(q.v.Get("cursor")), Client: a.keyClient(r).Client}
	if q.e.Len() > 0 { // every bad field at once: the service's checks too
		q.e.Merge(tq.Validate())
	}
	if err := q.e.Err(); err != nil {
		return nil, err
	}
	p, err := a.Tenants.ListTenants(k, tq)
	if err != nil {
		return nil, err
	}
	out := TenantPageJSON{Tenants: make([]TenantJSON, len(p.Tenants)), NextCursor: strp(p.NextCursor)}
	for i, t := range p.Tenants {
		out.Tenants[i] = TenantJSON{TenantID: t.TenantID, Tier: string(t.Tier),
			Keys:      KeyCountsJSON{Active: t.Keys.Active, Revoked: t.Keys.Revoked, InGrace: t.Keys.InGrace},
			CreatedAt: *timeJSON(time.Unix(t.CreatedUnix, 0)), Erased: t.Erased, ErasedAt: unixJSON(t.ErasedUnix),
			HardAt: unixJSON(t.HardDeleteUnix), Display: strp(t.DisplayName), Owner: strp(t.Owner), Email: strp(t.Email),
			Obs: ObsCountsJSON{LinkObservations: t.Observations.LinkObservations, CellSignalSamples: t.Observations.CellSignalSamples}}
	}
	return out, nil
}
