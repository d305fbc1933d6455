package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/auditlog"
)

// AuditReader pages the audit log (appliance/auditlog).
type AuditReader interface {
	TenantPage(k *appliance.APIKey, q auditlog.Query) (*auditlog.Page, error)
	AdminPage(k *appliance.APIKey, q auditlog.Query) (*auditlog.Page, error)
}

// PDFReserver counts one synchronous PDF report against the monthly quota
// (appliance/quota).
type PDFReserver interface {
	ReservePDF(ctx context.Context, k *appliance.APIKey, id string) error
}

func (a *API) registerTenant(r *mux.Router) {
	if a.Quota != nil {
		r.HandleFunc("/v1/me/quota", a.wrap(a.authed(a.myQuota))).Methods(http.MethodGet)
	}
	if a.Audit != nil {
		r.HandleFunc("/tenant/audit", a.wrap(a.authed(a.tenantAudit))).Methods(http.MethodGet)
		r.HandleFunc("/admin/audit", a.wrap(a.authed(a.adminAudit))).Methods(http.MethodGet)
	}
}

// QuotaJSON is the body of GET /v1/me/quota.
type QuotaJSON struct {
	Tier     string  `json:"tier"`
	TenantID string  `json:"tenant_id"`
	Metered  bool    `json:"metered"`
	Reason   *string `json:"reason"` // why not metered; null when metered
	Month    string  `json:"month"`  // "YYYY-MM" in Timezone
	Timezone string  `json:"timezone"`
	// Counters: calls, pdfs, ai (monthly) and towers (per key).
	Counters   []QuotaCounterJSON `json:"counters"`
	RateLimits []RateLimitJSON    `json:"rate_limits"`
}

// QuotaCounterJSON is one counter. Limit and Remaining are null when there
// is no cap, and Reason says why.
type QuotaCounterJSON struct {
	Name      string  `json:"name"`
	Period    string  `json:"period"` // "month" or "key"
	Limit     *int    `json:"limit"`
	Used      int     `json:"used"`
	Remaining *int    `json:"remaining"`
	ResetAt   *string `json:"reset_at"` // RFC 3339 UTC; null for a per-key counter
	Reason    *string `json:"reason"`
}

// RateLimitJSON is one route group's rate limit.
type RateLimitJSON struct {
	Group          string `json:"group"`
	LimitPerMinute int    `json:"limit_per_minute"`
	Remaining      int    `json:"remaining"`
	ResetS         int64  `json:"reset_s"` // seconds until the whole allowance is back
}

func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (a *API) myQuota(_ http.ResponseWriter, r *http.Request) (any, error) {
	rep, err := a.Quota.Report(keyFrom(r.Context()))
	if err != nil {
		return nil, err
	}
	out := QuotaJSON{Tier: string(rep.Tier), TenantID: rep.TenantID, Metered: rep.Metered, Reason: strp(rep.Reason), Month: rep.Month,
		Timezone: "America/Sao_Paulo", Counters: []QuotaCounterJSON{}, RateLimits: []RateLimitJSON{}}
	for _, c := range rep.Counters {
		cj := QuotaCounterJSON{Name: c.Name, Period: c.Period, Limit: c.Limit, Used: c.Used, Remaining: c.Remaining, Reason: strp(c.Reason)}
		if c.ResetAt != nil {
			cj.ResetAt = timeJSON(*c.ResetAt)
		}
		out.Counters = append(out.Counters, cj)
	}
	for _, rl := range rep.Rates {
		out.RateLimits = append(out.RateLimits, RateLimitJSON{Group: string(rl.Group), LimitPerMinute: rl.LimitPerMinute,
			Remaining: rl.Remaining, ResetS: ceilSeconds(rl.Reset)})
	}
	return out, nil
}

// AuditPageJSON is the body of GET /tenant/audit and GET /admin/audit.
type AuditPageJSON struct {
	Entries []AuditEntryJSON `json:"entries"`
	// NextBefore is the before of the next page; null on the last page.
	NextBefore *uint64 `json:"next_before"`
}

// AuditEntryJSON is one audit entry (SPEC §2.11).
type AuditEntryJSON struct {
	Seq        uint64            `json:"seq"`
	Time       string            `json:"time"` // RFC 3339 UTC
	Action     string            `json:"action"`
	ActorKey   *string           `json:"actor_key"`
	ActorEmail *string           `json:"actor_email"`
	TenantID   *string           `json:"tenant_id"`
	Route      *string           `json:"route"`
	Params     map[string]string `json:"params"`
	IP         *string           `json:"ip"`
	UserAgent  *string           `json:"user_agent"`
	RequestID  *string           `json:"request_id"`
}

// auditQuery reads the filters of an audit page: action, from and to (RFC
// 3339), before (a sequence number) and limit; admin adds tenant_id.
func auditQuery(r *http.Request, admin bool) (auditlog.Query, error) {
	q := newQuery(r)
	out := auditlog.Query{Action: strings.TrimSpace(q.v.Get("action")), Limit: q.int("limit", auditlog.DefaultLimit, 1, auditlog.MaxLimit),
		IP: clientIP(r), UserAgent: r.UserAgent(), RequestID: requestID(r.Context())}
	if rt := mux.CurrentRoute(r); rt != nil {
		out.Route, _ = rt.GetPathTemplate()
	}
	for _, tf := range []struct {
		name string
		dst  *time.Time
	}{{"from", &out.From}, {"to", &out.To}} {
		if s := q.v.Get(tf.name); s != "" {
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				q.e.Add(tf.name, "must be an RFC 3339 time such as 2026-03-01T00:00:00-03:00")
			}
			*tf.dst = t
		}
	}
	if s := q.v.Get("before"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || n == 0 {
			q.e.Add("before", "must be a positive integer: the next_before of the previous page")
		}
		out.BeforeSeq = n
	}
	if admin {
		out.TenantID = strings.TrimSpace(q.v.Get("tenant_id"))
		if len(out.TenantID) > 100 {
			q.e.Add("tenant_id", "must be at most 100 characters")
		}
	} else if q.v.Has("tenant_id") {
		q.e.Add("tenant_id", "is for the admin route only: a tenant sees its own entries")
	}
	if q.e.Len() > 0 { // every bad field at once: the service's checks too
		q.e.Merge(out.Validate())
	}
	return out, q.e.Err()
}

func auditPageJSON(p *auditlog.Page) AuditPageJSON {
	out := AuditPageJSON{Entries: make([]AuditEntryJSON, 0, len(p.Entries))}
	if p.NextBefore != 0 {
		n := p.NextBefore
		out.NextBefore = &n
	}
	for _, e := range p.Entries {
		params := e.Params
		if params == nil {
			params = map[string]string{}
		}
		sec, frac := int64(e.TimeUnix), e.TimeUnix-float64(int64(e.TimeUnix))
		t := time.Unix(sec, int64(frac*1e9)).UTC().Format(time.RFC3339Nano)
		out.Entries = append(out.Entries, AuditEntryJSON{Seq: e.Seq, Time: t, Action: e.Action, ActorKey: strp(e.ActorKey), ActorEmail: strp(e.ActorEmail),
			TenantID: strp(e.TenantID), Route: strp(e.Route), Params: params, IP: strp(e.IP), UserAgent: strp(e.UserAgent), RequestID: strp(e.RequestID)})
	}
	return out
}

// tenantAudit pages the caller's tenant's audit log (GET /tenant/audit).
func (a *API) tenantAudit(_ http.ResponseWriter, r *http.Request) (any, error) {
	q, err := auditQuery(r, false)
	if err != nil {
		return nil, err
	}
	p, err := a.Audit.TenantPage(keyFrom(r.Context()), q)
	if err != nil {
		return nil, err
	}
	return auditPageJSON(p), nil
}

// adminAudit pages every tenant's audit log (GET /admin/audit, admin key).
func (a *API) adminAudit(_ http.ResponseWriter, r *http.Request) (any, error) {
	k := keyFrom(r.Context())
	if k.Role != appliance.RoleAdmin { // before reading the query: a tenant learns nothing of the admin filters
		return nil, &httpError{status: http.StatusForbidden, code: "forbidden", msg: "an admin key is required"}
	}
	q, err := auditQuery(r, true)
	if err != nil {
		return nil, err
	}
	p, err := a.Audit.AdminPage(k, q)
	if err != nil {
		return nil, err
	}
	return auditPageJSON(p), nil
}
