package appliance

import (
	"fmt"
	"strings"
)

// Tier is a subscription tier (SPEC §5.2). TierErased marks a key whose
// owner's data was erased (SPEC §2.10).
type Tier string

// Tiers in ascending order of entitlement.
const (
	TierFree       Tier = "Free"
	TierStarter    Tier = "Starter"
	TierPro        Tier = "Pro"
	TierBusiness   Tier = "Business"
	TierEnterprise Tier = "Enterprise"
	TierUltra      Tier = "Ultra"
	TierErased     Tier = "erased"
)

var tierRank = map[Tier]int{TierFree: 1, TierStarter: 2, TierPro: 3, TierBusiness: 4, TierEnterprise: 5, TierUltra: 6}

// ParseTier parses a tier name case-insensitively. "erased" is not a tier a
// client can ask for.
func ParseTier(s string) (Tier, error) {
	for t := range tierRank {
		if strings.EqualFold(string(t), s) {
			return t, nil
		}
	}
	return "", fmt.Errorf("unknown tier %q (want Free, Starter, Pro, Business, Enterprise or Ultra): %w", s, ErrInvalid)
}

// AtLeast reports whether t grants at least what min grants. An erased tier
// grants nothing.
func (t Tier) AtLeast(min Tier) bool {
	r, ok := tierRank[t]
	return ok && r >= tierRank[min]
}

// TowersPerKey returns the cap on user-registered towers per key (SPEC §8.1);
// -1 means no cap. Ultra is "not shown" in the SPEC: it gets Enterprise's cap.
func (t Tier) TowersPerKey() int {
	switch t {
	case TierFree:
		return 20
	case TierStarter:
		return 100
	case TierPro:
		return 500
	case TierBusiness:
		return -1
	case TierEnterprise, TierUltra:
		return 10000
	}
	return 0
}

// Role is what a key may do beyond its tier.
type Role string

// Roles.
const (
	RoleTenant   Role = "tenant"   // a customer key (prefix KeyPrefixTenant)
	RoleAdmin    Role = "admin"    // operator of the appliance; needs TOTP step-up for admin routes
	RoleInternal Role = "internal" // internal automation (prefix KeyPrefixInternal)
)

// API key prefixes (SPEC §5.1): tenant keys carry a fixed tenant prefix,
// internal automation a different one.
const (
	KeyPrefixTenant   = "lp_live_"
	KeyPrefixInternal = "lp_int_"
	KeyPrefixAdmin    = "lp_adm_"
)

// APIKey is the stored record of an API key. The plain key is never stored:
// only its SHA-256 hash (SPEC §2.10).
type APIKey struct {
	ID          string // stable id, the first 12 hex digits of the hash; used in audit and ownership
	HashHex     string // hex SHA-256 of the plain key
	Prefix      string // the first 12 characters of the plain key, for DSAR lookups and display
	Tier        Tier
	Role        Role
	Owner       string // organisation or person name
	Email       string
	TenantID    string // data is scoped by tenant id (SPEC §5.2)
	CreatedUnix int64  // epoch seconds
	RevokedUnix int64  // epoch seconds, 0 while active
	// TOTPSecret is the base32 TOTP secret of an admin key (step-up
	// authentication, SPEC §5.1.3); empty for other keys. It lives in memory
	// only: authentication opens it from TOTPSealed with the plain key. A
	// record stored before the secret was sealed carries it here until it is
	// sealed.
	TOTPSecret string
	// TOTPSealed is the stored form of the TOTP secret: AES-256-GCM under a
	// key derived from the plain API key (HKDF-SHA256), so the store alone
	// does not yield it (appliance/tenancy).
	TOTPSealed string
}

// Active reports whether the key may be used.
func (k *APIKey) Active() bool { return k.RevokedUnix == 0 && k.Tier != TierErased }

// CallsPerMonth returns the API calls a tenant of tier t may make per
// calendar month (SPEC §8.1): Free 200, Starter 3,000, Pro 25,000, Business
// 150,000, Enterprise 500,000, Ultra 1,000,000. An erased or unknown tier
// gets 0.
func (t Tier) CallsPerMonth() int {
	switch t {
	case TierFree:
		return 200
	case TierStarter:
		return 3000
	case TierPro:
		return 25000
	case TierBusiness:
		return 150000
	case TierEnterprise:
		return 500000
	case TierUltra:
		return 1000000
	}
	return 0
}

// PDFsPerMonth returns the PDF reports a tenant of tier t may produce per
// calendar month (SPEC §8.1): Free 5, Starter 50, Pro 500, Business 5,000,
// Enterprise 100,000. Ultra is "not shown" in the SPEC: it gets
// Enterprise's 100,000. An erased or unknown tier gets 0.
func (t Tier) PDFsPerMonth() int {
	switch t {
	case TierFree:
		return 5
	case TierStarter:
		return 50
	case TierPro:
		return 500
	case TierBusiness:
		return 5000
	case TierEnterprise, TierUltra:
		return 100000
	}
	return 0
}

// AICallsPerMonth returns the calls to the AI endpoints (SPEC §4.7) a
// tenant of tier t may make per calendar month. Free has no AI (SPEC §8.1);
// the SPEC does not show the other tiers' quotas, so these are the
// appliance's choice: Starter 100, Pro 1,000, Business 5,000, Enterprise
// 20,000, Ultra 50,000.
func (t Tier) AICallsPerMonth() int {
	switch t {
	case TierStarter:
		return 100
	case TierPro:
		return 1000
	case TierBusiness:
		return 5000
	case TierEnterprise:
		return 20000
	case TierUltra:
		return 50000
	}
	return 0
}

// UsageDelta is an increment of one monthly usage counter of a tenant
// (appliance/quota counts, store persists).
type UsageDelta struct {
	TenantID string
	Month    string // "YYYY-MM", the calendar month in America/Sao_Paulo
	Counter  string // counter name, e.g. "calls"
	N        uint64
}
