package billing_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/billing"
	"linkplan/appliance/tenancy"
	"linkplan/store"
)

var secret = []byte("whsec_test_0123456789abcdef")

type fixture struct {
	db   *store.DB
	auth *tenancy.Service
	svc  *billing.Service
	now  time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	f.db = db
	clock := func() time.Time { return f.now }
	f.auth = tenancy.New(db, clock)
	mint := func(tier appliance.Tier, owner, email string) (string, *appliance.APIKey, error) {
		return f.auth.Mint(tenancy.IssueRequest{Tier: tier, Owner: owner, Email: email})
	}
	f.svc, err = billing.New(billing.Config{Secret: secret, Now: clock}, db, mint)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func checkout(eventID, session, customer, tier string) []byte {
	return fmt.Appendf(nil, `{"id":%q,"type":"checkout.session.completed","created":1780000000,"data":{"object":{"id":%q,"customer":%q,
"subscription":"sub_1","payment_status":"paid","customer_details":{"email":"buyer@example.com","name":"Buyer Ltda"},"metadata":{"tier":%q}}}}`,
		eventID, session, customer, tier)
}

func (f *fixture) deliver(t *testing.T, body []byte) (*billing.Result, error) {
	t.Helper()
	return f.svc.HandleWebhook(billing.Sign(secret, body, f.now), body, appliance.AuditEntry{IP: "192.0.2.9"})
}

func countKeys(t *testing.T, db *store.DB) int {
	t.Helper()
	n, err := db.CountKeys()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestProvisionClaimReplay: a good checkout provisions exactly once, its
// key is claimed once and works, and replays change nothing.
func TestProvisionClaimReplay(t *testing.T) {
	f := newFixture(t)
	body := checkout("evt_1", "cs_test_secret_session", "cus_1", "Pro")
	res, err := f.deliver(t, body)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != billing.OutcomeProvisioned || res.TenantID == "" {
		t.Fatalf("result %+v", res)
	}
	if n := countKeys(t, f.db); n != 1 {
		t.Fatalf("%d keys after the event, want 1", n)
	}
	for i := range 3 { // the provider retries; an attacker replays a captured delivery
		f.now = f.now.Add(time.Duration(i+1) * time.Second)
		again, err := f.deliver(t, body)
		if err != nil || again.Outcome != billing.OutcomeDuplicate || again.TenantID != res.TenantID {
			t.Fatalf("replay %d: %+v, %v", i, again, err)
		}
	}
	if n := countKeys(t, f.db); n != 1 {
		t.Fatalf("%d keys after replays, want 1", n)
	}
	if _, err := f.svc.Claim("cs_other", appliance.AuditEntry{}); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("claim of another session: %v", err)
	}
	got, err := f.svc.Claim("cs_test_secret_session", appliance.AuditEntry{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.APIKey, appliance.KeyPrefixTenant) || got.Tier != appliance.TierPro || got.TenantID != res.TenantID {
		t.Fatalf("claimed %+v", got)
	}
	k, err := f.auth.Authenticate(got.APIKey)
	if err != nil || k.ID != got.KeyID || k.Tier != appliance.TierPro || k.Email != "buyer@example.com" {
		t.Fatalf("claimed key authenticates as %+v, %v", k, err)
	}
	if _, err := f.svc.Claim("cs_test_secret_session", appliance.AuditEntry{}); !errors.Is(err, appliance.ErrConflict) {
		t.Errorf("second claim: %v, want conflict", err)
	}
	c, err := f.db.KeyClaim(billing.ClaimID("cs_test_secret_session"))
	if err != nil || c.Sealed != "" || c.State != appliance.ClaimClaimed {
		t.Errorf("claim record after delivery: %+v, %v", c, err)
	}
	entries, _ := f.db.Audit(res.TenantID, 0)
	n := map[string]int{}
	for _, e := range entries {
		n[e.Action]++
		for _, v := range e.Params {
			if strings.Contains(v, got.APIKey) {
				t.Errorf("audit row %s holds the plain key", e.Action)
			}
		}
	}
	if n[billing.ActionProvision] != 1 || n[billing.ActionClaim] != 1 {
		t.Errorf("audit %v", n)
	}
}

// TestSignature: bad signature, stale or future timestamp, missing or
// malformed header are refused and change nothing.
func TestSignature(t *testing.T) {
	f := newFixture(t)
	body := checkout("evt_s", "cs_s", "cus_s", "Pro")
	tests := []struct {
		name   string
		header string
		body   []byte
		reason string
	}{
		{"wrong secret", billing.Sign([]byte("whsec_another_secret_xx"), body, f.now), body, "does not match"},
		{"body changed", billing.Sign(secret, body, f.now), append(append([]byte{}, body[:len(body)-2]...), ' ', '}'), "does not match"},
		{"stale", billing.Sign(secret, body, f.now.Add(-301*time.Second)), body, "tolerance"},
		{"future", billing.Sign(secret, body, f.now.Add(301*time.Second)), body, "tolerance"},
		{"missing", "", body, "missing"},
		{"no v1", fmt.Sprintf("t=%d,v0=abc", f.now.Unix()), body, "needs a timestamp"},
		{"short v1", fmt.Sprintf("t=%d,v1=abcd", f.now.Unix()), body, "64 hex"},
		{"two timestamps", fmt.Sprintf("t=1,t=%d,v1=%s", f.now.Unix(), strings.Repeat("0", 64)), body, "two timestamps"},
		{"not a timestamp", "t=yesterday,v1=" + strings.Repeat("0", 64), body, "epoch seconds"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.HandleWebhook(tc.header, tc.body, appliance.AuditEntry{})
			if !errors.Is(err, appliance.ErrUnauthenticated) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("err = %v, want 401 with %q", err, tc.reason)
			}
		})
	}
	if n := countKeys(t, f.db); n != 0 {
		t.Fatalf("%d keys after refused deliveries", n)
	}
	// Inside the tolerance either way is accepted; a second v1 (secret
	// roll-over) too.
	h := billing.Sign(secret, body, f.now.Add(-299*time.Second)) + ",v1=" + strings.Repeat("1", 64)
	if _, err := f.svc.HandleWebhook(h, body, appliance.AuditEntry{}); err != nil {
		t.Fatal(err)
	}
}

// TestLifecycle: upgrade of the customer's tenant, downgrade on
// cancellation, events ignored and bad events refused.
func TestLifecycle(t *testing.T) {
	f := newFixture(t)
	res, err := f.deliver(t, checkout("evt_a", "cs_a", "cus_a", "Starter"))
	if err != nil {
		t.Fatal(err)
	}
	tenant := res.TenantID
	claimed, err := f.svc.Claim("cs_a", appliance.AuditEntry{})
	if err != nil {
		t.Fatal(err)
	}
	tierOf := func() appliance.Tier {
		k, err := f.auth.Authenticate(claimed.APIKey)
		if err != nil {
			t.Fatal(err)
		}
		return k.Tier
	}
	steps := []struct {
		name    string
		body    string
		outcome string
		tier    appliance.Tier
		field   string // a 422 naming it
	}{
		{name: "upgrade", body: string(checkout("evt_b", "cs_b", "cus_a", "Business")), outcome: billing.OutcomeUpgraded, tier: appliance.TierBusiness},
		{name: "unpaid checkout", body: strings.Replace(string(checkout("evt_c", "cs_c", "cus_a", "Ultra")), `"paid"`, `"unpaid"`, 1), outcome: billing.OutcomeIgnored, tier: appliance.TierBusiness},
		{name: "other event type", body: `{"id":"evt_d","type":"invoice.paid","data":{"object":{}}}`, outcome: billing.OutcomeIgnored, tier: appliance.TierBusiness},
		{name: "cancel another customer", body: `{"id":"evt_e","type":"customer.subscription.deleted","data":{"object":{"id":"sub_x","customer":"cus_x"}}}`, outcome: billing.OutcomeIgnored, tier: appliance.TierBusiness},
		{name: "cancel", body: `{"id":"evt_f","type":"customer.subscription.deleted","data":{"object":{"id":"sub_1","customer":"cus_a"}}}`, outcome: billing.OutcomeDowngraded, tier: appliance.TierFree},
		{name: "cancel replayed", body: `{"id":"evt_f","type":"customer.subscription.deleted","data":{"object":{"id":"sub_1","customer":"cus_a"}}}`, outcome: billing.OutcomeDuplicate, tier: appliance.TierFree},
		{name: "upgrade referencing the tenant", body: strings.Replace(string(checkout("evt_g", "cs_g", "cus_new", "Pro")), `"tier":"Pro"`, `"tier":"Pro","tenant_id":"`+tenant+`"`, 1), outcome: billing.OutcomeUpgraded, tier: appliance.TierPro},
		{name: "unknown tier", body: string(checkout("evt_h", "cs_h", "cus_h", "Gold")), field: "data.object.metadata.tier"},
		{name: "no customer", body: string(checkout("evt_i", "cs_i", "", "Pro")), field: "data.object.customer"},
		{name: "unknown referenced tenant", body: strings.Replace(string(checkout("evt_j", "cs_j", "cus_j", "Pro")), `"tier":"Pro"`, `"tier":"Pro","tenant_id":"t_nobody"`, 1), field: "data.object.metadata.tenant_id"},
		{name: "not JSON", body: `{"id":`, field: "body"},
		{name: "no id", body: `{"type":"x","data":{"object":{}}}`, field: "id"},
		{name: "object not an object", body: `{"id":"evt_k","type":"x","data":{"object":[1]}}`, field: "data.object"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			f.now = f.now.Add(time.Second)
			res, err := f.deliver(t, []byte(st.body))
			if st.field != "" {
				var ve *appliance.ValidationError
				if !errors.As(err, &ve) || ve.Fields[0].Field != st.field {
					t.Fatalf("err = %v, want 422 naming %s", err, st.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != st.outcome {
				t.Errorf("outcome %s (%s), want %s", res.Outcome, res.Reason, st.outcome)
			}
			if got := tierOf(); got != st.tier {
				t.Errorf("tier %s, want %s", got, st.tier)
			}
		})
	}
	if n := countKeys(t, f.db); n != 1 {
		t.Errorf("%d keys, want 1: upgrades and downgrades mint none", n)
	}
	// An ignored event is recorded too: its replay is a duplicate.
	if ev, err := f.db.BillingEventByID("evt_d"); err != nil || ev.Outcome != billing.OutcomeIgnored {
		t.Errorf("ignored event record %+v, %v", ev, err)
	}
	a, err := f.db.BillingAccount(tenant)
	if err != nil || a.Tier != appliance.TierPro || a.Status != appliance.BillingActive {
		t.Errorf("account %+v, %v", a, err)
	}
}

// TestClaimExpires: a claim not made within the TTL is refused.
func TestClaimExpires(t *testing.T) {
	f := newFixture(t)
	if _, err := f.deliver(t, checkout("evt_x", "cs_x", "cus_x", "Pro")); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(billing.DefaultClaimTTL + time.Second)
	if _, err := f.svc.Claim("cs_x", appliance.AuditEntry{}); !errors.Is(err, appliance.ErrConflict) || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("expired claim: %v", err)
	}
	if _, err := f.svc.Claim("", appliance.AuditEntry{}); !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("empty session: %v", err)
	}
}

func TestNewRefusesShortSecret(t *testing.T) {
	if _, err := billing.New(billing.Config{Secret: []byte("short")}, nil, nil); !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("err = %v", err)
	}
}
