// Package tenancy issues and verifies API keys, checks tiers and roles, and
// bootstraps the appliance's first admin credential. It knows nothing of HTTP.
//
// # Basics
//
// A plain key is the role prefix (appliance.KeyPrefixTenant "lp_live_",
// KeyPrefixInternal "lp_int_", KeyPrefixAdmin "lp_adm_") followed by 40 hex
// digits (160 random bits). Only its SHA-256 hash is stored (SPEC §2.10); the
// plain key is shown once, when issued. Admin operations need the admin key
// plus a TOTP code (RFC 6238, 30 s steps, 6 digits, one step of clock skew
// accepted); a code is accepted once per key and step, so a captured code
// cannot be replayed.
//
// On first start Bootstrap creates an admin key and its TOTP secret and writes
// them to DIR/admin-credentials.json (mode 0600). It never logs the secrets.
//
// # Caveats
//
// The replay guard lives in memory: after a restart a code of the current
// 30 s step could be used once more. Quotas, SSO and privacy requests build on
// this package later.
package tenancy
