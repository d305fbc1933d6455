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

// RequireTier returns nil when k may use what min grants: an admin key,
// or a tier at least min; else an ErrForbidden naming both tiers.
func (k *APIKey) RequireTier(min Tier) error {
	if k.Role == RoleAdmin || k.Tier.AtLeast(min) {
		return nil
	}
	return fmt.Errorf("tier %s or higher is required, this key is %s: %w", min, k.Tier, ErrForbidden)
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

// EquipmentPerTenant returns the cap on a tenant's catalogue radios, and
// separately on its antennas (appliance/equipment, issue 25); -1 means no
// cap. The catalogue is the tenant's, shared by its keys, so it is counted
// per tenant rather than per key like towers. The caps leave room for a
// WISP's whole product range at Starter and an integrator's library at
// Business; an antenna with full pattern cuts takes about 10–300 kB of the
// store, so Enterprise's 5000 stay under about 1.5 GB in the worst case.
//
//	tier        radios  antennas
//	Free        10      10
//	Starter     50      50
//	Pro         200     200
//	Business    1000    1000
//	Enterprise  5000    5000 (Ultra: the same)
func (t Tier) EquipmentPerTenant() int {
	switch t {
	case TierFree:
		return 10
	case TierStarter:
		return 50
	case TierPro:
		return 200
	case TierBusiness:
		return 1000
	case TierEnterprise, TierUltra:
		return 5000
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

// TenantRole is what a tenant key may do inside its tenant (SPEC §5.2
// leaves the roles open). It is independent of Role, which says what kind
// of key it is (tenant, internal automation, admin); admin keys have no
// tenant role. A key stored before roles existed has none, which reads as
// TenantAdmin (APIKey.EffectiveTenantRole): every existing key kept what it
// could do.
//
//	role          read  write  rotate own key  manage keys  tenant settings  privacy (export, forget)
//	tenant-admin  yes   yes    yes             yes          yes              yes
//	member        yes   yes    yes             no           no               no
//	read-only     yes   no     yes             no           no               no
type TenantRole string

// Tenant roles.
const (
	TenantAdmin    TenantRole = "tenant-admin" // everything the tier allows, keys and privacy requests included
	TenantMember   TenantRole = "member"       // reads and writes the tenant's data; manages no key but its own rotation
	TenantReadOnly TenantRole = "read-only"    // reads and computes; stores nothing
)

// ParseTenantRole parses a tenant role name (exact, lower case).
func ParseTenantRole(s string) (TenantRole, error) {
	switch r := TenantRole(s); r {
	case TenantAdmin, TenantMember, TenantReadOnly:
		return r, nil
	}
	return "", fmt.Errorf("unknown tenant role %q (want tenant-admin, member or read-only): %w", s, ErrInvalid)
}

// Permission is a class of operation that a tenant role allows or not.
// Every authenticated route needs one (web/api assigns them).
type Permission string

// Permissions.
const (
	// PermRead reads the tenant's data or computes without storing
	// anything (GET routes, link analyses, exports, PDF reports, AI
	// explanations).
	PermRead Permission = "read"
	// PermWrite stores tenant data: towers, batch jobs, coverage maps,
	// repeater plans, job cancels.
	PermWrite Permission = "write"
	// PermRotateOwnKey rotates the calling key itself.
	PermRotateOwnKey Permission = "rotate-own-key"
	// PermManageKeys creates, rotates and revokes any key of the tenant.
	PermManageKeys Permission = "manage-keys"
	// PermPrivacy exports the tenant's data bundle or erases the tenant
	// (SPEC §4.10).
	PermPrivacy Permission = "privacy"
	// PermTenantSettings changes what holds for the whole tenant: its
	// white-label branding and its SSO bindings (a binding lets an
	// identity act with a key).
	PermTenantSettings Permission = "tenant-settings"
)

// Allows reports whether role r grants p.
func (r TenantRole) Allows(p Permission) bool {
	switch r {
	case TenantAdmin:
		return true
	case TenantMember:
		return p == PermRead || p == PermWrite || p == PermRotateOwnKey
	case TenantReadOnly:
		return p == PermRead || p == PermRotateOwnKey
	}
	return false
}

// KeyState is the life-cycle state of a key, derived from its record.
type KeyState string

// Key states. A rotated key works until its grace period ends, then reads
// as revoked.
const (
	KeyActive   KeyState = "active"
	KeyRotating KeyState = "rotating" // rotated, still accepted until GraceUntilUnix
	KeyRevoked  KeyState = "revoked"
	KeyErased   KeyState = "erased"
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
	// TenantRole is the key's role inside its tenant; empty (keys stored
	// before roles existed) reads as TenantAdmin.
	TenantRole TenantRole
	// LastUsedUnix is when the key last authenticated a request, epoch
	// seconds, to the precision of appliance/tenancy.LastUsedPrecision; 0
	// when never.
	LastUsedUnix int64
	// GraceUntilUnix is set when the key was rotated: it keeps working
	// until then (epoch seconds), then reads as revoked.
	GraceUntilUnix int64
	// RotatedTo is the id of the key that replaced this one.
	RotatedTo string
}

// Active reports whether the key may be used (ignoring a rotation's grace
// period: see StateAt).
func (k *APIKey) Active() bool { return k.RevokedUnix == 0 && k.Tier != TierErased }

// EffectiveTenantRole returns the key's tenant role, TenantAdmin for a key
// stored before roles existed.
func (k *APIKey) EffectiveTenantRole() TenantRole {
	if k.TenantRole == "" {
		return TenantAdmin
	}
	return k.TenantRole
}

// StateAt returns the key's state at now (epoch seconds).
func (k *APIKey) StateAt(now int64) KeyState {
	switch {
	case k.Tier == TierErased:
		return KeyErased
	case k.RevokedUnix != 0:
		return KeyRevoked
	case k.GraceUntilUnix != 0 && now >= k.GraceUntilUnix:
		return KeyRevoked
	case k.GraceUntilUnix != 0:
		return KeyRotating
	}
	return KeyActive
}

// KeyChange is what a decision about a tenant's keys writes in one
// transaction: changed records of existing keys, new keys, and the audit
// entries.
type KeyChange struct {
	Update []*APIKey
	Add    []*APIKey
	Audit  []AuditEntry
}

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

// TenantRecord is what the store holds about one tenant, for the admin
// tenant listing (GET /admin/tenants, appliance/tenancy ListTenants): its
// keys and the few records kept by tenant id. Admin keys are not a
// tenant's: they are left out.
type TenantRecord struct {
	TenantID string
	// Keys are the tenant's keys (revoked and erased ones too), oldest
	// first; never an admin key.
	Keys []*APIKey
	// DisplayName is the display name of the tenant's white-label
	// branding; "" when it has none.
	DisplayName string
	// Erase is the tenant's latest erase request (SPEC §3); nil when
	// there is none.
	Erase *DSARRequest
	// Observations are the tenant's stored observation rows.
	Observations ObservationCounts
}
