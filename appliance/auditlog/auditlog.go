package auditlog

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	"linkplan/appliance"
)

// Store is what the audit reader needs (store.DB).
type Store interface {
	AuditPage(f appliance.AuditFilter) ([]appliance.AuditEntry, uint64, error)
	KeyTenant(keyID string) (string, error)
	AppendAudit(e appliance.AuditEntry) (uint64, error)
}

// Page bounds.
const (
	DefaultLimit = 50
	MaxLimit     = 1000
)

// Query is a page request.
type Query struct {
	TenantID  string    // admin only: one tenant; "" every tenant
	Action    string    // exact action name; "" any
	From, To  time.Time // zero: no bound; From inclusive, To exclusive
	BeforeSeq uint64    // 0: newest
	Limit     int       // 0: DefaultLimit
	RequestID string    // for the admin.audit.read row
	IP        string
	UserAgent string
	Route     string
}

// Page is one page of entries, newest first.
type Page struct {
	Entries    []appliance.AuditEntry
	NextBefore uint64 // 0: no more
}

// Service pages the audit log.
type Service struct{ store Store }

// New returns a Service over st.
func New(st Store) *Service { return &Service{store: st} }

var actionRE = regexp.MustCompile(`^[a-z0-9_]+(\.[a-z0-9_]+)*$`)

// Validate names every bad field of q (action, limit, to); nil when
// none. The HTTP layer merges them with its own parse errors.
func (q Query) Validate() *appliance.ValidationError {
	v := &appliance.ValidationError{}
	if q.Action != "" && (len(q.Action) > 100 || !actionRE.MatchString(q.Action)) {
		v.Add("action", "must be an action name such as tower.register (lower-case words joined by dots)")
	}
	if q.Limit != 0 && (q.Limit < 1 || q.Limit > MaxLimit) {
		v.Add("limit", "must be 1 to %d; got %d", MaxLimit, q.Limit)
	}
	if !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To) {
		v.Add("to", "must be after from")
	}
	if v.Len() == 0 {
		return nil
	}
	return v
}

// filter validates q into a store filter.
func filter(q Query) (appliance.AuditFilter, error) {
	if v := q.Validate(); v != nil {
		return appliance.AuditFilter{}, v
	}
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	f := appliance.AuditFilter{TenantID: q.TenantID, Action: q.Action, BeforeSeq: q.BeforeSeq, Limit: q.Limit}
	if !q.From.IsZero() {
		f.FromUnix = float64(q.From.UnixNano()) / 1e9
	}
	if !q.To.IsZero() {
		f.ToUnix = float64(q.To.UnixNano()) / 1e9
	}
	return f, nil
}

// TenantPage returns a page of the caller's own tenant's entries (q's
// TenantID is ignored). Admin keys are refused (tenant self-service).
// Entries whose actor is not a key of the tenant (an operator) lose their
// actor's e-mail, address and user agent, and name the actor "operator".
func (s *Service) TenantPage(k *appliance.APIKey, q Query) (*Page, error) {
	if k.Role == appliance.RoleAdmin {
		return nil, fmt.Errorf("tenant audit log: admin keys use GET /admin/audit: %w", appliance.ErrForbidden)
	}
	q.TenantID = k.TenantID
	f, err := filter(q)
	if err != nil {
		return nil, err
	}
	entries, next, err := s.store.AuditPage(f)
	if err != nil {
		return nil, fmt.Errorf("tenant audit log: %w", err)
	}
	own := map[string]bool{k.ID: true}
	for i := range entries {
		e := &entries[i]
		if e.ActorKey == "" {
			continue
		}
		mine, seen := own[e.ActorKey]
		if !seen {
			t, err := s.store.KeyTenant(e.ActorKey)
			mine = err == nil && t == k.TenantID // a deleted key is not the tenant's to show
			own[e.ActorKey] = mine
		}
		if !mine {
			e.ActorKey, e.ActorEmail, e.IP, e.UserAgent = "operator", "", "", ""
		}
	}
	return &Page{Entries: entries, NextBefore: next}, nil
}

// AdminPage returns a page of every tenant's entries (or q.TenantID's) to
// an admin key, after appending an admin.audit.read row naming the
// filters; other keys are refused.
func (s *Service) AdminPage(k *appliance.APIKey, q Query) (*Page, error) {
	if k.Role != appliance.RoleAdmin {
		return nil, fmt.Errorf("an admin key is required: %w", appliance.ErrForbidden)
	}
	f, err := filter(q)
	if err != nil {
		return nil, err
	}
	params := map[string]string{"limit": strconv.Itoa(f.Limit)}
	for name, val := range map[string]string{"tenant_id": q.TenantID, "action": q.Action} {
		if val != "" {
			params[name] = val
		}
	}
	if !q.From.IsZero() {
		params["from"] = q.From.UTC().Format(time.RFC3339)
	}
	if !q.To.IsZero() {
		params["to"] = q.To.UTC().Format(time.RFC3339)
	}
	if q.BeforeSeq != 0 {
		params["before"] = strconv.FormatUint(q.BeforeSeq, 10)
	}
	if _, err := s.store.AppendAudit(appliance.AuditEntry{Action: appliance.ActionAdminAuditRead, ActorKey: k.ID, ActorEmail: k.Email, TenantID: k.TenantID,
		Route: q.Route, Params: params, IP: q.IP, UserAgent: q.UserAgent, RequestID: q.RequestID}); err != nil {
		return nil, fmt.Errorf("admin audit log: %w", err)
	}
	entries, next, err := s.store.AuditPage(f)
	if err != nil {
		return nil, fmt.Errorf("admin audit log: %w", err)
	}
	return &Page{Entries: entries, NextBefore: next}, nil
}
