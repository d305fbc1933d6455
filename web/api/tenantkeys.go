package api

import (
	"bytes"
	"context"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/privacy"
	"linkplan/appliance/tenancy"
)

// KeyManager manages a tenant's own keys (appliance/tenancy). Another
// tenant's key is appliance.ErrNotFound, like a missing one.
type KeyManager interface {
	ListKeys(caller *appliance.APIKey) ([]*appliance.APIKey, error)
	CreateKey(caller *appliance.APIKey, req tenancy.KeyRequest) (string, *appliance.APIKey, error)
	RotateKey(caller *appliance.APIKey, keyID string, req tenancy.KeyRequest) (string, *appliance.APIKey, *appliance.APIKey, error)
	RevokeKey(caller *appliance.APIKey, keyID string, req tenancy.KeyRequest) (*appliance.APIKey, error)
	Now() time.Time
}

// Privacy answers data-subject requests (appliance/privacy).
type Privacy interface {
	Export(ctx context.Context, caller *appliance.APIKey, c privacy.Client) (*privacy.Answer, error)
	Forget(ctx context.Context, caller *appliance.APIKey, confirmation string, c privacy.Client) (*privacy.Answer, error)
	AdminExport(ctx context.Context, admin *appliance.APIKey, q privacy.AdminRequest) (*privacy.Answer, error)
	AdminErase(ctx context.Context, admin *appliance.APIKey, q privacy.AdminRequest) (*privacy.Answer, error)
	Overdue(caller *appliance.APIKey) ([]privacy.OverdueRequest, error)
}

func (a *API) registerTenantKeys(r *mux.Router) {
	if a.Keys != nil {
		r.HandleFunc("/tenant/keys", a.wrap(a.authed(a.listKeys))).Methods(http.MethodGet)
		r.HandleFunc("/tenant/keys", a.wrap(a.authed(a.createKey))).Methods(http.MethodPost)
		r.HandleFunc("/tenant/keys/{key_id}/rotate", a.wrap(a.authed(a.rotateKey))).Methods(http.MethodPost)
		r.HandleFunc("/tenant/keys/{key_id}/revoke", a.wrap(a.authed(a.revokeKey))).Methods(http.MethodPost)
	}
	if a.Privacy != nil {
		r.HandleFunc("/tenant/me/data/export", a.wrap(a.authed(a.exportMyData))).Methods(http.MethodGet)
		r.HandleFunc("/tenant/me/data/forget", a.wrap(a.authed(a.forgetMe))).Methods(http.MethodPost)
	}
}

// KeyJSON is one key of a tenant as GET /tenant/keys lists it: never the
// key itself nor its hash. Times are epoch seconds; null when not
// happened.
type KeyJSON struct {
	KeyID          string  `json:"key_id"`
	Prefix         string  `json:"prefix"`
	Tier           string  `json:"tier"`
	Kind           string  `json:"kind"`        // tenant or internal
	TenantRole     string  `json:"tenant_role"` // tenant-admin, member or read-only
	State          string  `json:"state"`       // active, rotating, revoked or erased
	CreatedUnix    int64   `json:"created_unix"`
	LastUsedUnix   *int64  `json:"last_used_unix"`   // precision 5 minutes
	GraceUntilUnix *int64  `json:"grace_until_unix"` // rotated keys: accepted until then
	RotatedTo      *string `json:"rotated_to"`
	RevokedUnix    *int64  `json:"revoked_unix"`
}

func optUnix(v int64) *int64 {
	if v == 0 {
		return nil
	}
	return &v
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func keyJSON(k *appliance.APIKey, now time.Time) KeyJSON {
	revoked := k.RevokedUnix
	st := k.StateAt(now.Unix())
	if st == appliance.KeyRevoked && revoked == 0 { // a rotation's grace ended
		revoked = k.GraceUntilUnix
	}
	return KeyJSON{KeyID: k.ID, Prefix: k.Prefix, Tier: string(k.Tier), Kind: string(k.Role), TenantRole: string(k.EffectiveTenantRole()),
		State: string(st), CreatedUnix: k.CreatedUnix, LastUsedUnix: optUnix(k.LastUsedUnix), GraceUntilUnix: optUnix(k.GraceUntilUnix),
		RotatedTo: optString(k.RotatedTo), RevokedUnix: optUnix(revoked)}
}

// KeyList is the body of GET /tenant/keys.
type KeyList struct {
	Keys  []KeyJSON `json:"keys"`
	Count int       `json:"count"`
}

// NewKey is the body of POST /tenant/keys and of a rotation: the plain key,
// shown once, and its record; Previous is the rotated key.
type NewKey struct {
	APIKey   string   `json:"api_key"`
	Key      KeyJSON  `json:"key"`
	Previous *KeyJSON `json:"previous,omitempty"`
}

// RevokedKey is the body of a revocation.
type RevokedKey struct {
	Key KeyJSON `json:"key"`
}

func (a *API) keyClient(r *http.Request) tenancy.KeyRequest {
	route, _ := mux.CurrentRoute(r).GetPathTemplate()
	return tenancy.KeyRequest{Client: tenancy.Client{IP: clientIP(r), UserAgent: r.UserAgent(), RequestID: requestID(r.Context()), Route: route}}
}

func (a *API) listKeys(w http.ResponseWriter, r *http.Request) (any, error) {
	ks, err := a.Keys.ListKeys(keyFrom(r.Context()))
	if err != nil {
		return nil, err
	}
	now := a.Keys.Now()
	out := KeyList{Keys: make([]KeyJSON, len(ks)), Count: len(ks)}
	for i, k := range ks {
		out.Keys[i] = keyJSON(k, now)
	}
	return out, nil
}

type createKeyRequest struct {
	TenantRole *string `json:"tenant_role"`
}

func (a *API) createKey(w http.ResponseWriter, r *http.Request) (any, error) {
	var body createKeyRequest
	raw, err := readBody(r)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(raw)) > 0 { // no body: a member key
		if err := decodeBytes(raw, &body, maxArrayElements); err != nil {
			return nil, err
		}
	}
	req := a.keyClient(r)
	if body.TenantRole != nil {
		req.TenantRole = appliance.TenantRole(*body.TenantRole)
		if req.TenantRole == "" {
			return nil, appliance.Invalid("tenant_role", "must be tenant-admin, member or read-only; got \"\"")
		}
	}
	plain, k, err := a.Keys.CreateKey(keyFrom(r.Context()), req)
	if err != nil {
		return nil, err
	}
	return created{NewKey{APIKey: plain, Key: keyJSON(k, a.Keys.Now())}}, nil
}

func (a *API) rotateKey(w http.ResponseWriter, r *http.Request) (any, error) {
	if err := decodeEmpty(r); err != nil {
		return nil, err
	}
	plain, k, old, err := a.Keys.RotateKey(keyFrom(r.Context()), mux.Vars(r)["key_id"], a.keyClient(r))
	if err != nil {
		return nil, err
	}
	now := a.Keys.Now()
	prev := keyJSON(old, now)
	return created{NewKey{APIKey: plain, Key: keyJSON(k, now), Previous: &prev}}, nil
}

func (a *API) revokeKey(w http.ResponseWriter, r *http.Request) (any, error) {
	if err := decodeEmpty(r); err != nil {
		return nil, err
	}
	k, err := a.Keys.RevokeKey(keyFrom(r.Context()), mux.Vars(r)["key_id"], a.keyClient(r))
	if err != nil {
		return nil, err
	}
	return RevokedKey{Key: keyJSON(k, a.Keys.Now())}, nil
}

func privacyClient(r *http.Request) privacy.Client {
	route, _ := mux.CurrentRoute(r).GetPathTemplate()
	return privacy.Client{IP: clientIP(r), UserAgent: r.UserAgent(), RequestID: requestID(r.Context()), Route: route}
}

// IdentityJSON is the identity section of a data bundle: the subject key's
// record with its personal columns.
type IdentityJSON struct {
	KeyJSON
	TenantID string `json:"tenant_id"`
	Owner    string `json:"owner"`
	Email    string `json:"email"`
}

// BillingJSON holds the payment provider's references of the tenant.
type BillingJSON struct {
	PaymentCustomerIDs []string `json:"payment_customer_ids"`
	SubscriptionIDs    []string `json:"subscription_ids"`
}

// BundleJSON is a data-subject bundle (SPEC §4.11).
type BundleJSON struct {
	GeneratedUnix int64                   `json:"generated_unix"`
	Identity      IdentityJSON            `json:"identity"`
	Keys          []KeyJSON               `json:"keys"`
	AuditLog      []appliance.AuditEntry  `json:"audit_log"`
	BatchJobs     []JobJSON               `json:"batch_jobs"`
	Observations  []appliance.Observation `json:"observations"`
	// ObservationCounts are the tenant's stored rows of each kind; the
	// list holds at most privacy.ObservationsInBundle of them.
	ObservationCounts appliance.ObservationCounts `json:"observation_counts"`
	// DividendEvents are the data dividend events of the tenant's
	// observations (SPEC §2.13).
	DividendEvents []appliance.DividendEvent `json:"dividend_events"`
	Towers         []TowerJSON               `json:"towers"`
	Billing        BillingJSON               `json:"billing"`
}

// ExportJSON is the body of a data export.
type ExportJSON struct {
	DSARRequestID string     `json:"dsar_request_id"`
	Bundle        BundleJSON `json:"bundle"`
}

func bundleJSON(b *privacy.Bundle) BundleJSON {
	now := b.GeneratedAt
	out := BundleJSON{GeneratedUnix: now.Unix(),
		Identity:          IdentityJSON{KeyJSON: keyJSON(b.Identity, now), TenantID: b.Identity.TenantID, Owner: b.Identity.Owner, Email: b.Identity.Email},
		Keys:              make([]KeyJSON, len(b.Keys)),
		AuditLog:          b.AuditLog,
		BatchJobs:         make([]JobJSON, len(b.Jobs)),
		Observations:      b.Observations,
		ObservationCounts: b.ObservationCounts,
		DividendEvents:    b.DividendEvents,
		Towers:            make([]TowerJSON, len(b.Towers)),
		Billing:           BillingJSON{PaymentCustomerIDs: b.Billing.PaymentCustomerIDs, SubscriptionIDs: b.Billing.SubscriptionIDs}}
	if out.DividendEvents == nil {
		out.DividendEvents = []appliance.DividendEvent{}
	}
	if out.Observations == nil {
		out.Observations = []appliance.Observation{}
	}
	if out.AuditLog == nil {
		out.AuditLog = []appliance.AuditEntry{}
	}
	for i, k := range b.Keys {
		out.Keys[i] = keyJSON(k, now)
	}
	for i, j := range b.Jobs {
		out.BatchJobs[i] = jobJSON(j, now)
	}
	for i, t := range b.Towers {
		out.Towers[i] = towerJSON(t)
	}
	return out
}

func (a *API) exportMyData(w http.ResponseWriter, r *http.Request) (any, error) {
	ans, err := a.Privacy.Export(r.Context(), keyFrom(r.Context()), privacyClient(r))
	if err != nil {
		return nil, err
	}
	return ExportJSON{DSARRequestID: ans.Request.ID, Bundle: bundleJSON(ans.Bundle)}, nil
}

// ErasureJSON is the body of an erase request's answer: the request id and
// its deadlines (epoch seconds).
type ErasureJSON struct {
	DSARRequestID    string `json:"dsar_request_id"`
	Status           string `json:"status"`
	Tier             string `json:"tier"`
	DueBy            int64  `json:"due_by"`
	EraseScheduledAt int64  `json:"erase_scheduled_at"`
}

func erasureJSON(r *appliance.DSARRequest) ErasureJSON {
	return ErasureJSON{DSARRequestID: r.ID, Status: string(r.Status), Tier: string(appliance.TierErased), DueBy: r.DueByUnix, EraseScheduledAt: r.EraseScheduledUnix}
}

type forgetRequest struct {
	Confirmation *string `json:"confirmation"`
}

func (a *API) forgetMe(w http.ResponseWriter, r *http.Request) (any, error) {
	var body forgetRequest
	if err := decode(r, &body); err != nil {
		return nil, err
	}
	if body.Confirmation == nil {
		return nil, appliance.Invalid("confirmation", "is required: the literal text %q", privacy.ForgetConfirmation)
	}
	ans, err := a.Privacy.Forget(r.Context(), keyFrom(r.Context()), *body.Confirmation, privacyClient(r))
	if err != nil {
		return nil, err
	}
	return erasureJSON(ans.Request), nil
}
