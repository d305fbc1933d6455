package api

import (
	"net/http"

	"github.com/gorilla/mux"

	"linkplan/appliance"
	"linkplan/appliance/billing"
)

// Billing processes payment webhooks and key claims (appliance/billing).
type Billing interface {
	HandleWebhook(sigHeader string, body []byte, base appliance.AuditEntry) (*billing.Result, error)
	Claim(sessionID string, base appliance.AuditEntry) (*billing.Claimed, error)
}

func (a *API) registerBilling(r *mux.Router) {
	r.HandleFunc("/billing/webhook", a.wrap(a.billingWebhook)).Methods(http.MethodPost)
	r.HandleFunc("/billing/claim", a.wrap(a.billingClaim)).Methods(http.MethodPost)
}

// errNoBilling answers the billing routes of an appliance without a
// webhook secret.
var errNoBilling = &httpError{status: http.StatusServiceUnavailable, code: "unavailable",
	msg: "payment provisioning is not configured on this appliance (linkplan serve --billing-webhook-secret-file)"}

// WebhookResult is the body of POST /billing/webhook.
type WebhookResult struct {
	EventID  string `json:"event_id"`
	Type     string `json:"type"`
	Outcome  string `json:"outcome"`
	TenantID string `json:"tenant_id,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// billingWebhook is POST /billing/webhook: the raw body is verified
// against the Stripe-Signature header before it is parsed.
func (a *API) billingWebhook(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Billing == nil {
		return nil, errNoBilling
	}
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	res, err := a.Billing.HandleWebhook(r.Header.Get(billing.SignatureHeader), body, auditBase(r, nil, "/billing/webhook"))
	if err != nil {
		return nil, err
	}
	return WebhookResult{EventID: res.EventID, Type: res.Type, Outcome: res.Outcome, TenantID: res.TenantID, Reason: res.Reason}, nil
}

type claimRequest struct {
	SessionID string `json:"session_id"`
}

// ClaimedKey is the body of POST /billing/claim: the plain key, shown
// once.
type ClaimedKey struct {
	APIKey   string `json:"api_key"`
	KeyID    string `json:"key_id"`
	TenantID string `json:"tenant_id"`
	Tier     string `json:"tier"`
}

func (a *API) billingClaim(w http.ResponseWriter, r *http.Request) (any, error) {
	if a.Billing == nil {
		return nil, errNoBilling
	}
	var q claimRequest
	if err := decode(r, &q); err != nil {
		return nil, err
	}
	c, err := a.Billing.Claim(q.SessionID, auditBase(r, nil, "/billing/claim"))
	if err != nil {
		return nil, err
	}
	w.Header().Set("Cache-Control", "no-store")
	return created{ClaimedKey{APIKey: c.APIKey, KeyID: c.KeyID, TenantID: c.TenantID, Tier: string(c.Tier)}}, nil
}
