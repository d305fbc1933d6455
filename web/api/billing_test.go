package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
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

// TestIssue20_BillingWebhookOnErasedTenant: signed events of every kind
// for a customer whose tenant was erased (by its own forget and by the
// admin's erase, then again after the hard delete) answer 200 ignored
// with no tenant id, change no tier, provision no key and no claim, store
// nothing of the customer, and write one audit row per event that holds
// only the event id and type. Before: "upgraded"/"downgraded" with
// audit rows carrying the customer id into the erased tenant, and after
// the hard delete the old customer's checkout provisioned a new tenant.
func TestIssue20_BillingWebhookOnErasedTenant(t *testing.T) {
	h := newHarness(t, harnessOptions{billing: true})
	d := loadOpenAPI(t)
	post := func(t *testing.T, ev string) *response {
		t.Helper()
		res := call(t, h, d, "POST", "/billing/webhook", "", signed(ev, time.Now()), ev)
		if res.status != http.StatusOK {
			t.Fatalf("webhook: %d %s", res.status, res.body)
		}
		return res
	}
	// provision buys a tenant for customer and claims its key.
	provision := func(t *testing.T, n int, customer, email string) (plain, tenantID string) {
		t.Helper()
		ev := strings.Replace(checkoutEvent(fmt.Sprintf("evt_e%d", n), fmt.Sprintf("cs_e%d", n), customer, "Pro"), "buyer@example.com", email, 1)
		if res := post(t, ev); !strings.Contains(string(res.body), `"outcome":"provisioned"`) {
			t.Fatalf("provision: %s", res.body)
		}
		res := call(t, h, d, "POST", "/billing/claim", "", nil, fmt.Sprintf(`{"session_id":"cs_e%d"}`, n))
		if res.status != http.StatusCreated {
			t.Fatalf("claim: %d %s", res.status, res.body)
		}
		m := res.json(t)
		return m["api_key"].(string), m["tenant_id"].(string)
	}
	erasures := []struct {
		name  string
		erase func(t *testing.T, plain, email string)
	}{
		{"self-service forget", func(t *testing.T, plain, _ string) {
			wantStatus(t, call(t, h, d, "POST", "/tenant/me/data/forget", plain, nil, `{"confirmation":"DELETE MY DATA"}`), 200, "")
		}},
		{"admin erase", func(t *testing.T, plain, email string) {
			prefix := plain[:len(appliance.KeyPrefixTenant)+6]
			wantStatus(t, call(t, h, d, "POST", "/admin/dsar/"+prefix+"/erase", h.adminKey, map[string]string{"X-Admin-Totp": h.freshTOTP(t)},
				dsarBody("", "data subject request, ticket 5150", email)), 200, "")
		}},
	}
	seq := 0
	for i, er := range erasures {
		customer, email := fmt.Sprintf("cus_erased_%d", i), fmt.Sprintf("person%d@buyer.example", i)
		plain, tenant := provision(t, 10*i, customer, email)
		er.erase(t, plain, email)
		for _, phase := range []string{"after the soft erase", "after the hard delete"} {
			if phase == "after the hard delete" {
				h.clock.advance(appliance.DSARHardDeleteAfter + time.Hour)
				if _, err := h.privacy.HardDeleteDue(t.Context(), h.clock.Now()); err != nil {
					t.Fatal(err)
				}
			}
			events := []struct{ name, body string }{
				{"checkout by the same customer", checkoutEvent("", "cs_again", customer, "Ultra")},
				{"checkout naming the tenant", strings.Replace(checkoutEvent("", "cs_ref", "cus_brand_new", "Ultra"), `"metadata":{`, `"metadata":{"tenant_id":"`+tenant+`",`, 1)},
				{"checkout referencing the tenant", strings.Replace(checkoutEvent("", "cs_cref", "cus_brand_new2", "Ultra"), `"payment_status"`, `"client_reference_id":"`+tenant+`","payment_status"`, 1)},
				{"subscription deleted", `{"id":"","type":"customer.subscription.deleted","data":{"object":{"id":"sub_h","customer":"` + customer + `"}}}`},
			}
			for _, ev := range events {
				t.Run(er.name+", "+phase+", "+ev.name, func(t *testing.T) {
					seq++
					id := fmt.Sprintf("evt_erased_%d", seq)
					body := strings.Replace(ev.body, `"id":""`, `"id":"`+id+`"`, 1)
					if !strings.Contains(body, id) {
						body = strings.Replace(body, `{"id":`, `{"id":"`+id+`","x":`, 1)
					}
					keysBefore, _ := h.db.CountKeys()
					auditBefore, _ := h.db.Audit("", 0)
					res := post(t, body)
					m := res.json(t)
					if m["outcome"] != "ignored" || m["reason"] != billing.ReasonErased || m["tenant_id"] != nil {
						t.Fatalf("answer %s, want outcome ignored for an erased customer, no tenant id", res.body)
					}
					if n, _ := h.db.CountKeys(); n != keysBefore {
						t.Errorf("%d keys, was %d: a key was provisioned for an erased customer", n, keysBefore)
					}
					keys, _ := h.db.KeysOfTenant(tenant)
					for _, k := range keys {
						if k.Tier != appliance.TierErased {
							t.Errorf("key %s of the erased tenant has tier %s", k.ID, k.Tier)
						}
					}
					if a, err := h.db.BillingAccountByCustomer(customer); err == nil && (a.Email != "" && !strings.HasPrefix(a.Email, "erased-") || a.Tier != appliance.TierPro) {
						t.Errorf("the erased tenant's account changed: %+v", a)
					}
					if _, err := h.db.BillingAccountByCustomer("cus_brand_new"); err == nil {
						t.Error("an account was stored for a checkout naming the erased tenant")
					}
					after, _ := h.db.Audit("", 0)
					newRows := after[:len(after)-len(auditBefore)]
					if len(newRows) != 1 || newRows[0].Action != billing.ActionIgnoredErased || newRows[0].TenantID != appliance.SystemTenantID ||
						newRows[0].Params["event_id"] != id || len(newRows[0].Params) != 2 {
						t.Fatalf("audit rows of the event: %+v, want one %s row with event id and type only", newRows, billing.ActionIgnoredErased)
					}
					raw, _ := json.Marshal(newRows[0])
					for _, personal := range []string{customer, email, tenant, "cus_brand_new", "buyer@example.com"} {
						if strings.Contains(string(raw), personal) {
							t.Errorf("the audit row holds %q: %s", personal, raw)
						}
					}
					// A replay stays a duplicate and writes nothing.
					if res := post(t, body); !strings.Contains(string(res.body), `"outcome":"duplicate"`) {
						t.Errorf("replay: %s", res.body)
					}
				})
			}
		}
	}
	// A customer nobody erased is still served.
	if plain, _ := provision(t, 99, "cus_alive", "alive@buyer.example"); plain == "" {
		t.Fatal("no key for a live customer")
	}
}
