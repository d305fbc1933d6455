package api

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
)

func (a *API) registerAdmin(r *mux.Router) {
	r.HandleFunc("/admin/keys", a.wrap(a.authed(a.issueKey))).Methods(http.MethodPost)
	r.HandleFunc("/admin/towers/refreshes", a.wrap(a.authed(a.towerRefreshes))).Methods(http.MethodGet)
	r.HandleFunc("/admin/backup", a.wrap(a.authed(a.adminBackup))).Methods(http.MethodPost)
}

// RefreshList is the body of GET /admin/towers/refreshes.
type RefreshList struct {
	Refreshes []appliance.TowerRefresh `json:"refreshes"`
}

// towerRefreshes lists the tower source refresh history, newest first. It is
// read-only, so an admin key suffices (no TOTP step-up).
func (a *API) towerRefreshes(w http.ResponseWriter, r *http.Request) (any, error) {
	if keyFrom(r.Context()).Role != appliance.RoleAdmin {
		return nil, &httpError{status: http.StatusForbidden, code: "forbidden", msg: "an admin key is required"}
	}
	q := newQuery(r)
	limit := q.int("limit", 50, 1, 1000)
	if err := q.e.Err(); err != nil {
		return nil, err
	}
	recs, err := a.Refreshes.TowerRefreshes(limit)
	if err != nil {
		return nil, err
	}
	if recs == nil {
		recs = []appliance.TowerRefresh{}
	}
	for i := range recs { // records written before rejects were always set
		if recs[i].Rejects == nil {
			recs[i].Rejects = []appliance.RowIssue{}
		}
	}
	return RefreshList{Refreshes: recs}, nil
}

type issueKeyRequest struct {
	Tier          string  `json:"tier"`
	Email         string  `json:"email"`
	Owner         string  `json:"owner"`
	Role          *string `json:"role"` // "tenant" (default) or "internal"
	TOTP          *string `json:"totp"`
	Justification string  `json:"justification"`
}

// IssuedKey is the response of POST /admin/keys: the plain key, shown once.
type IssuedKey struct {
	APIKey   string `json:"api_key"`
	KeyID    string `json:"key_id"`
	Prefix   string `json:"prefix"`
	Tier     string `json:"tier"`
	Role     string `json:"role"`
	TenantID string `json:"tenant_id"`
	Owner    string `json:"owner"`
	Email    string `json:"email"`
	Created  int64  `json:"created_unix"`
}

func (a *API) issueKey(w http.ResponseWriter, r *http.Request) (any, error) {
	admin := keyFrom(r.Context())
	if admin.Role != appliance.RoleAdmin {
		return nil, &httpError{status: http.StatusForbidden, code: "forbidden", msg: "an admin key is required"}
	}
	var req issueKeyRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	v := &appliance.ValidationError{}
	tier, err := appliance.ParseTier(req.Tier)
	if err != nil {
		v.Add("tier", "must be one of Free, Starter, Pro, Business, Enterprise, Ultra; got %q", req.Tier)
	}
	role := appliance.RoleTenant
	if req.Role != nil {
		switch appliance.Role(*req.Role) {
		case appliance.RoleTenant, appliance.RoleInternal:
			role = appliance.Role(*req.Role)
		default:
			v.Add("role", "must be tenant or internal; got %q", *req.Role)
		}
	}
	if j := strings.TrimSpace(req.Justification); len(j) < 10 || len(j) > 1000 {
		v.Add("justification", "a justification of 10 to 1000 characters is required for admin actions")
	}
	if e := strings.TrimSpace(req.Email); e == "" || len(e) > 254 || !strings.Contains(e, "@") {
		v.Add("email", "must be an e-mail address")
	}
	if o := strings.TrimSpace(req.Owner); o == "" || len(o) > 200 {
		v.Add("owner", "must be 1 to 200 characters")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	// The TOTP code is spent only on a request that is otherwise valid, so
	// a typo in the body does not cost the admin a 30 s step.
	code := r.Header.Get("X-Admin-Totp")
	if code == "" && req.TOTP != nil {
		code = *req.TOTP
	}
	if err := a.verifyAdmin(r, admin, code, "/admin/keys"); err != nil {
		return nil, err
	}
	plain, k, err := a.Auth.Issue(tenancy.IssueRequest{Tier: tier, Role: role, Owner: strings.TrimSpace(req.Owner), Email: strings.TrimSpace(req.Email),
		Audit: &appliance.AuditEntry{Action: "admin.key.issue", ActorKey: admin.ID, ActorEmail: admin.Email, Route: "/admin/keys",
			Params: map[string]string{"justification": req.Justification},
			IP:     clientIP(r), UserAgent: r.UserAgent(), RequestID: requestID(r.Context())}})
	if err != nil {
		return nil, err
	}
	return created{IssuedKey{APIKey: plain, KeyID: k.ID, Prefix: k.Prefix, Tier: string(k.Tier), Role: string(k.Role),
		TenantID: k.TenantID, Owner: k.Owner, Email: k.Email, Created: k.CreatedUnix}}, nil
}

// verifyAdmin checks the step-up code of an admin request with the
// client's details (issue 7, finding 6).
func (a *API) verifyAdmin(r *http.Request, k *appliance.APIKey, code, route string) error {
	return a.Auth.VerifyAdminFrom(k, code, tenancy.Client{IP: clientIP(r), UserAgent: r.UserAgent(), RequestID: requestID(r.Context()), Route: route})
}

func clientIP(r *http.Request) string {
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i > 0 {
		host = host[:i]
	}
	return strings.Trim(host, "[]")
}
