package billing

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"linkplan/appliance"
	sealbox "linkplan/appliance/seal"
)

// Audit actions of billing.
const (
	ActionProvision = "billing.tenant.provision" // a checkout created a tenant and its key
	ActionUpgrade   = "billing.tier.upgrade"     // a checkout moved an existing tenant's tier
	ActionDowngrade = "billing.tier.downgrade"   // a cancelled subscription moved the tenant to Free
	ActionClaim     = "billing.key.claim"        // the provisioned key was delivered
	// ActionIgnoredErased: an event named an erased customer or tenant and
	// was not applied; the row (tenant appliance.SystemTenantID) holds the
	// event id and type only, no customer id, e-mail or tenant id.
	ActionIgnoredErased = "billing.event.ignored_erased"
)

// ReasonErased is the reason of an event ignored because it names an
// erased customer or tenant.
const ReasonErased = "the customer's tenant was erased (privacy request): the event is not applied"

// Outcomes of a webhook delivery (BillingEvent.Outcome and the response).
const (
	OutcomeProvisioned = "provisioned"
	OutcomeUpgraded    = "upgraded"
	OutcomeDowngraded  = "downgraded"
	OutcomeIgnored     = "ignored"   // a verified event the appliance does not act on (recorded)
	OutcomeDuplicate   = "duplicate" // an event id processed before: nothing done
)

// DefaultClaimTTL is how long a provisioned key waits for its claim.
const DefaultClaimTTL = 7 * 24 * time.Hour

// webhookRoute is the route the audit rows name.
const webhookRoute = "/billing/webhook"

// Store is what billing needs from storage (store.DB).
type Store interface {
	ApplyBillingEvent(ch *appliance.BillingChange) (bool, error)
	BillingEventByID(id string) (*appliance.BillingEvent, error)
	BillingAccountByCustomer(customerID string) (*appliance.BillingAccount, error)
	// BillingErased reports whether the customer or the tenant ("" for
	// none) belongs to an erased tenant, before or after its hard delete.
	BillingErased(customerID, tenantID string) (bool, error)
	TenantExists(tenantID string) (bool, error)
	KeyClaim(id string) (*appliance.KeyClaim, error)
	MarkKeyClaimed(id string, nowUnix int64, audit ...appliance.AuditEntry) error
}

// MintFunc creates (without storing) a tenant key of tier for a new
// tenant, returning the plain key and its record (tenancy.Service.Mint).
type MintFunc func(tier appliance.Tier, owner, email string) (string, *appliance.APIKey, error)

// Config configures the webhook.
type Config struct {
	Secret    []byte        // the provider's signing secret (e.g. Stripe's whsec_...), used as the HMAC key as is
	Tolerance time.Duration // 0: DefaultTolerance
	ClaimTTL  time.Duration // 0: DefaultClaimTTL
	Now       func() time.Time
}

// Service processes payment webhooks and delivers provisioned keys.
type Service struct {
	cfg   Config
	store Store
	mint  MintFunc
}

// New returns a Service. An empty secret is an error: an unsigned webhook
// would let anyone mint keys.
func New(cfg Config, st Store, mint MintFunc) (*Service, error) {
	if len(cfg.Secret) < 16 {
		return nil, fmt.Errorf("billing: the webhook secret must be at least 16 bytes: %w", appliance.ErrInvalid)
	}
	if cfg.Tolerance <= 0 {
		cfg.Tolerance = DefaultTolerance
	}
	if cfg.ClaimTTL <= 0 {
		cfg.ClaimTTL = DefaultClaimTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Service{cfg: cfg, store: st, mint: mint}, nil
}

// Result is the outcome of one webhook delivery.
type Result struct {
	EventID  string
	Type     string
	Outcome  string
	TenantID string
	Reason   string // why an event was ignored
}

// HandleWebhook verifies and processes one delivery: the signature header
// over the raw body (ErrUnauthenticated when wrong or stale), the event
// (ErrInvalid naming the field), then at most once per event id. base is
// the audit entries' client fields.
func (s *Service) HandleWebhook(sigHeader string, body []byte, base appliance.AuditEntry) (*Result, error) {
	if err := Verify(sigHeader, body, s.cfg.Secret, s.cfg.Now(), s.cfg.Tolerance); err != nil {
		return nil, err
	}
	ev, err := ParseEvent(body)
	if err != nil {
		return nil, err
	}
	res := &Result{EventID: ev.ID, Type: ev.Type}
	if prev, err := s.store.BillingEventByID(ev.ID); err == nil {
		res.Outcome, res.TenantID = OutcomeDuplicate, prev.TenantID
		return res, nil
	} else if !errors.Is(err, appliance.ErrNotFound) {
		return nil, fmt.Errorf("billing webhook: %w", err)
	}
	base.Route = webhookRoute
	ch := &appliance.BillingChange{Event: appliance.BillingEvent{ID: ev.ID, Type: ev.Type, ReceivedUnix: s.cfg.Now().Unix()}}
	switch ev.Type {
	case EventCheckoutCompleted:
		err = s.checkout(ev, ch, res, base)
	case EventSubscriptionDeleted:
		err = s.cancel(ev, ch, res, base)
	default:
		res.Outcome, res.Reason = OutcomeIgnored, "the appliance does not act on this event type"
	}
	if err != nil {
		return nil, err
	}
	ch.Event.Outcome, ch.Event.TenantID = res.Outcome, res.TenantID
	applied, err := s.store.ApplyBillingEvent(ch)
	if err != nil {
		return nil, fmt.Errorf("billing webhook: %w", err)
	}
	if !applied { // a concurrent delivery of the same event won
		res.Outcome, res.Reason = OutcomeDuplicate, ""
	}
	return res, nil
}

// checkout fills ch for a completed checkout: an upgrade of the
// customer's (or the referenced) tenant, else a new tenant with a key
// waiting for its claim.
func (s *Service) checkout(ev *Event, ch *appliance.BillingChange, res *Result, base appliance.AuditEntry) error {
	var cs CheckoutSession
	if err := decodeObject(ev, &cs); err != nil {
		return err
	}
	if cs.PaymentStatus != "paid" && cs.PaymentStatus != "no_payment_required" {
		res.Outcome, res.Reason = OutcomeIgnored, "the checkout is not paid yet (payment_status "+clip(cs.PaymentStatus)+")"
		return nil
	}
	v := &appliance.ValidationError{}
	checkID(v, "data.object.id", cs.ID, true)
	checkID(v, "data.object.customer", cs.Customer, true)
	checkID(v, "data.object.subscription", cs.Subscription, false)
	tier, err := appliance.ParseTier(cs.Metadata.Tier)
	if err != nil {
		v.Add("data.object.metadata.tier", "must name the tier bought (Free, Starter, Pro, Business, Enterprise or Ultra); got %q", clip(cs.Metadata.Tier))
	}
	if err := v.Err(); err != nil {
		return err
	}
	ref := firstNonEmpty(cs.Metadata.TenantID, cs.ClientReferenceID)
	if erased, err := s.store.BillingErased(cs.Customer, ref); err != nil {
		return fmt.Errorf("checkout: %w", err)
	} else if erased {
		ignoreErased(ev, ch, res, base)
		return nil
	}
	email := cs.CustomerDetails.Email
	if email == "" {
		email = cs.CustomerEmail
	}
	now := s.cfg.Now().Unix()
	acct := &appliance.BillingAccount{CustomerID: cs.Customer, SubscriptionID: cs.Subscription, Tier: tier, Status: appliance.BillingActive,
		Email: email, UpdatedUnix: now}
	audit := base
	audit.Params = map[string]string{"event_id": ev.ID, "customer": cs.Customer, "tier": string(tier)}

	tenantID := ""
	if a, err := s.store.BillingAccountByCustomer(cs.Customer); err == nil {
		tenantID = a.TenantID
	} else if !errors.Is(err, appliance.ErrNotFound) {
		return fmt.Errorf("checkout: %w", err)
	} else if ref != "" {
		ok, err := s.store.TenantExists(ref)
		if err != nil {
			return fmt.Errorf("checkout: %w", err)
		}
		if !ok {
			return appliance.Invalid("data.object.metadata.tenant_id", "no tenant has the id %q", clip(ref))
		}
		tenantID = ref
		ch.NewCustomer = true
	}
	if tenantID != "" { // upgrade (or a tier change) of an existing tenant
		acct.TenantID = tenantID
		ch.Account = acct
		ch.SetTier.TenantID, ch.SetTier.Tier = tenantID, tier
		audit.Action, audit.TenantID = ActionUpgrade, tenantID
		ch.Audit = append(ch.Audit, audit)
		res.Outcome, res.TenantID = OutcomeUpgraded, tenantID
		return nil
	}
	owner := firstNonEmpty(cs.CustomerDetails.Name, email, cs.Customer)
	plain, k, err := s.mint(tier, owner, email)
	if err != nil {
		return fmt.Errorf("checkout: %w", err)
	}
	claimID := ClaimID(cs.ID)
	sealed, err := seal(plain, cs.ID, claimID)
	if err != nil {
		return fmt.Errorf("checkout: %w", err)
	}
	acct.TenantID = k.TenantID
	ch.NewKey, ch.Account, ch.NewCustomer = k, acct, true
	ch.Claim = &appliance.KeyClaim{ID: claimID, TenantID: k.TenantID, KeyID: k.ID, Tier: tier, Sealed: sealed, State: appliance.ClaimPending,
		CreatedUnix: now, ExpiresUnix: now + int64(s.cfg.ClaimTTL/time.Second)}
	audit.Action, audit.TenantID = ActionProvision, k.TenantID
	audit.Params["key_id"] = k.ID
	ch.Audit = append(ch.Audit, audit)
	res.Outcome, res.TenantID = OutcomeProvisioned, k.TenantID
	return nil
}

// cancel fills ch for a deleted subscription: the customer's tenant moves
// to Free. An unknown customer is ignored.
func (s *Service) cancel(ev *Event, ch *appliance.BillingChange, res *Result, base appliance.AuditEntry) error {
	var sub Subscription
	if err := decodeObject(ev, &sub); err != nil {
		return err
	}
	v := &appliance.ValidationError{}
	checkID(v, "data.object.customer", sub.Customer, true)
	if err := v.Err(); err != nil {
		return err
	}
	if erased, err := s.store.BillingErased(sub.Customer, ""); err != nil {
		return fmt.Errorf("cancel: %w", err)
	} else if erased {
		ignoreErased(ev, ch, res, base)
		return nil
	}
	a, err := s.store.BillingAccountByCustomer(sub.Customer)
	if errors.Is(err, appliance.ErrNotFound) {
		res.Outcome, res.Reason = OutcomeIgnored, "no tenant has this customer"
		return nil
	}
	if err != nil {
		return fmt.Errorf("cancel: %w", err)
	}
	a.Tier, a.Status, a.UpdatedUnix = appliance.TierFree, appliance.BillingCanceled, s.cfg.Now().Unix()
	ch.Account = a
	ch.SetTier.TenantID, ch.SetTier.Tier = a.TenantID, appliance.TierFree
	e := base
	e.Action, e.TenantID = ActionDowngrade, a.TenantID
	e.Params = map[string]string{"event_id": ev.ID, "customer": sub.Customer, "subscription": sub.ID, "tier": string(appliance.TierFree)}
	ch.Audit = append(ch.Audit, e)
	res.Outcome, res.TenantID = OutcomeDowngraded, a.TenantID
	return nil
}

// ignoreErased fills ch for an event that names an erased customer or
// tenant: nothing changes but the event record (so that a replay is a
// duplicate) and one audit row of the appliance (tenant
// appliance.SystemTenantID) that holds the event id and type only: no
// customer id, e-mail or tenant id is written again after an erasure.
func ignoreErased(ev *Event, ch *appliance.BillingChange, res *Result, base appliance.AuditEntry) {
	res.Outcome, res.Reason, res.TenantID = OutcomeIgnored, ReasonErased, ""
	e := base
	e.Action, e.TenantID = ActionIgnoredErased, appliance.SystemTenantID
	e.Params = map[string]string{"event_id": ev.ID, "type": ev.Type}
	ch.Audit = append(ch.Audit, e)
}

// Claimed is a delivered key.
type Claimed struct {
	APIKey   string // the plain key, shown this once
	KeyID    string
	TenantID string
	Tier     appliance.Tier
}

// Claim delivers the key a checkout provisioned, once: sessionID is the
// checkout session id the provider hands the success page. No claim (the
// event has not arrived yet, or another session) is ErrNotFound; a claim
// already made or expired is ErrConflict. Audited billing.key.claim.
func (s *Service) Claim(sessionID string, base appliance.AuditEntry) (*Claimed, error) {
	v := &appliance.ValidationError{}
	checkID(v, "session_id", sessionID, true)
	if err := v.Err(); err != nil {
		return nil, err
	}
	id := ClaimID(sessionID)
	c, err := s.store.KeyClaim(id)
	if err != nil {
		if errors.Is(err, appliance.ErrNotFound) {
			return nil, fmt.Errorf("no key waits for this checkout session (the payment event may still be on its way: retry in a minute): %w", appliance.ErrNotFound)
		}
		return nil, fmt.Errorf("claim key: %w", err)
	}
	now := s.cfg.Now().Unix()
	switch {
	case c.State != appliance.ClaimPending:
		return nil, fmt.Errorf("the key of this checkout was already claimed; ask support for a new key if it was lost: %w", appliance.ErrConflict)
	case now > c.ExpiresUnix:
		return nil, fmt.Errorf("the claim of this checkout expired; ask support for a new key: %w", appliance.ErrConflict)
	}
	plain, err := open(c.Sealed, sessionID, id)
	if err != nil {
		return nil, fmt.Errorf("claim key: %w", err)
	}
	e := base
	e.Action, e.TenantID, e.ActorKey = ActionClaim, c.TenantID, c.KeyID
	e.Params = map[string]string{"key_id": c.KeyID}
	if err := s.store.MarkKeyClaimed(id, now, e); err != nil {
		return nil, err
	}
	return &Claimed{APIKey: plain, KeyID: c.KeyID, TenantID: c.TenantID, Tier: c.Tier}, nil
}

// ClaimID is the stored id of the claim of a checkout session: the hex
// SHA-256 of the session id (the store never holds the session id).
func ClaimID(sessionID string) string {
	h := sha256.Sum256([]byte("linkplan claim:" + sessionID))
	return hex.EncodeToString(h[:])
}

// claimInfo is the HKDF info string of the claim sealing key.
const claimInfo = "linkplan key claim v1"

// seal encrypts the plain key with appliance/seal (AES-256-GCM under a key
// derived by HKDF-SHA256 from the session id; salt and additional data:
// the claim id): the store, which holds only the claim id, cannot open it.
func seal(plain, sessionID, claimID string) (string, error) {
	out, err := sealbox.Seal(sessionID, claimID, claimInfo, []byte(plain))
	if err != nil {
		return "", fmt.Errorf("seal key: %w", err)
	}
	return base64.RawStdEncoding.EncodeToString(out), nil
}

func open(sealed, sessionID, claimID string) (string, error) {
	raw, err := base64.RawStdEncoding.DecodeString(sealed)
	if err != nil {
		return "", fmt.Errorf("open sealed key: %w", err)
	}
	out, err := sealbox.Open(sessionID, claimID, claimInfo, raw)
	if err != nil {
		return "", fmt.Errorf("open sealed key: %w", err)
	}
	return string(out), nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
