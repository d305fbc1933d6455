package appliance

// BillingAccount links a tenant to its payment-provider customer and
// subscription (SPEC §2.10: payment-customer references).
type BillingAccount struct {
	TenantID       string `json:"tenant_id"`
	CustomerID     string `json:"customer_id"`
	SubscriptionID string `json:"subscription_id,omitempty"`
	Tier           Tier   `json:"tier"`   // the tier the subscription pays for
	Status         string `json:"status"` // BillingActive or BillingCanceled
	Email          string `json:"email,omitempty"`
	UpdatedUnix    int64  `json:"updated_unix"` // epoch seconds
}

// Statuses of a BillingAccount.
const (
	BillingActive   = "active"
	BillingCanceled = "canceled"
)

// BillingEvent is the stored record of one processed payment-provider
// event: the event id makes processing idempotent.
type BillingEvent struct {
	ID           string `json:"id"`
	Type         string `json:"type"`
	ReceivedUnix int64  `json:"received_unix"` // epoch seconds
	Outcome      string `json:"outcome"`       // what processing did (appliance/billing)
	TenantID     string `json:"tenant_id,omitempty"`
}

// KeyClaim is the one-time delivery of a key provisioned by a checkout
// (appliance/billing): the key sealed under the checkout session id, which
// the store holds only as a hash.
type KeyClaim struct {
	ID          string `json:"id"` // hex SHA-256 of the checkout session id
	TenantID    string `json:"tenant_id"`
	KeyID       string `json:"key_id"`
	Tier        Tier   `json:"tier"`
	Sealed      string `json:"sealed,omitempty"` // the plain key sealed; dropped once claimed
	State       string `json:"state"`            // ClaimPending or ClaimClaimed
	CreatedUnix int64  `json:"created_unix"`
	ExpiresUnix int64  `json:"expires_unix"`
	ClaimedUnix int64  `json:"claimed_unix,omitempty"`
}

// States of a KeyClaim.
const (
	ClaimPending = "pending"
	ClaimClaimed = "claimed"
)

// BillingChange is everything one payment event changes, applied in one
// transaction together with the event record, so that an event is
// processed exactly once.
type BillingChange struct {
	Event BillingEvent
	// NewKey is a key to store (a provisioned tenant); nil for none.
	NewKey *APIKey
	// Account is stored (and indexed by customer id) when set.
	Account *BillingAccount
	// NewCustomer: the change is refused with ErrConflict when the
	// account's customer already has an account (a concurrent event).
	NewCustomer bool
	// SetTier moves every key of SetTier.TenantID but erased and admin
	// ones to SetTier.Tier when SetTier.TenantID is not empty.
	SetTier struct {
		TenantID string
		Tier     Tier
	}
	Claim *KeyClaim // stored when set
	Audit []AuditEntry
}
