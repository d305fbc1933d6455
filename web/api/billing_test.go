package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"linkplan/appliance/billing"
)

// billingSecret is the harness's webhook signing secret.
var billingSecret = []byte("whsec_harness_0123456789abcdef")

func checkoutEvent(id, session, customer, tier string) string {
	return fmt.Sprintf(`{"id":%q,"type":"checkout.session.completed","created":1780000000,"data":{"object":{"id":%q,"customer":%q,"subscription":"sub_h","payment_status":"paid","customer_details":{"email":"buyer@example.com","name":"Buyer"},"metadata":{"tier":%q}}}}`,
		id, session, customer, tier)
}

func signed(body string, at time.Time) map[string]string {
	return map[string]string{billing.SignatureHeader: billing.Sign(billingSecret, []byte(body), at)}
}

// TestBillingWebhook: bad signature, stale timestamp and replay are
// refused; a good event provisions exactly once; the key is claimed once
// and works; cancellation moves the tenant to Free.
func TestBillingWebhook(t *testing.T) {
	h := newHarness(t, harnessOptions{billing: true})
	d := loadOpenAPI(t)
	ev := checkoutEvent("evt_h1", "cs_h_secret", "cus_h1", "Pro")
	keysBefore, _ := h.db.CountKeys()
	steps := []struct {
		name   string
		url    string
		header map[string]string
		body   string
		status int
		want   string
	}{
		{"no signature", "/billing/webhook", nil, ev, 401, "Stripe-Signature"},
		{"wrong secret", "/billing/webhook", map[string]string{billing.SignatureHeader: billing.Sign([]byte("whsec_wrong_wrong_wrong"), []byte(ev), time.Now())}, ev, 401, "does not match"},
		{"stale timestamp", "/billing/webhook", signed(ev, time.Now().Add(-10*time.Minute)), ev, 401, "tolerance"},
		{"claim before the event", "/billing/claim", nil, `{"session_id":"cs_h_secret"}`, 404, "retry"},
		{"good event", "/billing/webhook", signed(ev, time.Now()), ev, 200, `"outcome":"provisioned"`},
		{"replayed delivery", "/billing/webhook", signed(ev, time.Now()), ev, 200, `"outcome":"duplicate"`},
		{"bad tier", "/billing/webhook", signed(checkoutEvent("evt_h2", "cs_2", "cus_2", "Gold"), time.Now()), checkoutEvent("evt_h2", "cs_2", "cus_2", "Gold"), 422, "data.object.metadata.tier"},
		{"not JSON", "/billing/webhook", signed("{", time.Now()), "{", 422, "body"},
		{"claim", "/billing/claim", nil, `{"session_id":"cs_h_secret"}`, 201, `"api_key":"lp_live_`},
		{"claim again", "/billing/claim", nil, `{"session_id":"cs_h_secret"}`, 409, "already claimed"},
		{"claim without session", "/billing/claim", nil, `{}`, 422, "session_id"},
	}
	var plain string
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			res := h.do(t, "POST", st.url, "", st.header, st.body)
			contract(t, d, "POST", st.url, res)
			if res.status != st.status || !strings.Contains(string(res.body), st.want) {
				t.Fatalf("status %d, want %d with %q: %s", res.status, st.status, st.want, res.body)
			}
			if st.name == "claim" {
				plain = res.json(t)["api_key"].(string)
				if res.header.Get("Cache-Control") != "no-store" {
					t.Error("claim answer may be cached")
				}
			}
		})
	}
	if n, _ := h.db.CountKeys(); n != keysBefore+1 {
		t.Fatalf("%d keys, want %d: one event provisions exactly one key", n, keysBefore+1)
	}
	res := h.do(t, "GET", "/tenant/branding", plain, nil, "")
	if res.status != http.StatusOK {
		t.Fatalf("the claimed key: %d %s", res.status, res.body)
	}
	k, err := h.auth.Authenticate(plain)
	if err != nil {
		t.Fatal(err)
	}
	cancel := `{"id":"evt_h3","type":"customer.subscription.deleted","data":{"object":{"id":"sub_h","customer":"cus_h1"}}}`
	res = h.do(t, "POST", "/billing/webhook", "", signed(cancel, time.Now()), cancel)
	contract(t, d, "POST", "/billing/webhook", res)
	if res.status != 200 || !strings.Contains(string(res.body), `"outcome":"downgraded"`) {
		t.Fatalf("cancel: %d %s", res.status, res.body)
	}
	if k2, err := h.auth.Authenticate(plain); err != nil || k2.Tier != "Free" || k2.ID != k.ID {
		t.Fatalf("after cancel: %+v %v", k2, err)
	}
}

// TestBillingNotConfigured: without a secret the routes answer 503.
func TestBillingNotConfigured(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	d := loadOpenAPI(t)
	for _, u := range []string{"/billing/webhook", "/billing/claim"} {
		res := h.do(t, "POST", u, "", nil, `{"session_id":"x"}`)
		contract(t, d, "POST", u, res)
		if res.status != http.StatusServiceUnavailable {
			t.Errorf("%s: %d %s", u, res.status, res.body)
		}
	}
}
