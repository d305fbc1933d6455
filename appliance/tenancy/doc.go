// Package tenancy issues and verifies API keys, checks tiers and roles, and
// bootstraps the appliance's first admin credential. It knows nothing of HTTP.
//
// # Basics
//
// A plain key is the role prefix (appliance.KeyPrefixTenant "lp_live_",
// KeyPrefixInternal "lp_int_", KeyPrefixAdmin "lp_adm_") followed by 40 hex
// digits (160 random bits). Only its SHA-256 hash is stored (SPEC §2.10); the
// plain key is shown once, when issued. Admin operations need the admin key
// plus a TOTP code (RFC 6238, SHA-1, 30 s steps, 6 digits, one step of clock
// skew accepted).
//
// On first start Bootstrap creates an admin key and its TOTP secret and writes
// both to DIR/admin-credentials.json (mode 0600). It never logs the secrets.
//
// # The TOTP secret at rest
//
// The store never holds the TOTP secret in clear: the key record carries it
// sealed with AES-256-GCM under a key derived by HKDF-SHA256 from the plain
// admin key (salt: the key id; the key id is also the additional data, so a
// sealed value cannot be moved to another record). As the store keeps only
// the key's hash, the database alone yields neither the key nor the secret;
// Authenticate opens the secret in memory for the request that presented the
// key.
//
// admin-credentials.json holds both the key and the secret after the first
// start, so that the operator can enrol an authenticator; it should not keep
// both for ever. The procedure (CLI in appliance/cmd/linkplan):
//
//  1. linkplan admin totp --uri --data-dir DIR prints the otpauth:// URI:
//     add it to an authenticator app (or make a QR code of it).
//  2. linkplan admin totp-forget --data-dir DIR --code CODE, with CODE the
//     6 digits the authenticator shows now: the code proves the
//     authenticator holds the secret, and the secret is removed from the file
//     (written atomically, mode 0600; the file records totp_moved_unix). A
//     wrong code changes nothing. Neither command opens the database, so both
//     work while the appliance runs.
//  3. Keep the admin key in a password manager and delete the file, or keep
//     the file (it then holds the key only).
//
// Until step 2, linkplan admin totp --data-dir DIR prints the current code
// (no oathtool needed).
//
// Data directories of earlier versions hold the secret in clear in the key
// record. Bootstrap seals it at start-up when admin-credentials.json names
// the key; otherwise the first Authenticate with that key seals it. Both
// write an admin.totp.sealed audit entry in the transaction that seals.
//
// # Step-up verification
//
// VerifyAdminFrom takes the code and the client (address, user agent,
// request id, route). Its outcomes, in the order they are checked:
//
//	state of (key, client)                        code         outcome                         audit action
//	not an admin key                              any          ErrForbidden                    -
//	admin                                         empty        ErrInvalid                      -
//	>= 5 failures from this address in 5 min,     any          ErrQuota (429), not checked     admin.totp.throttled
//	  or >= 50 for this key from all addresses
//	admin                                         wrong        ErrForbidden; failure counted   admin.totp.failed
//	step s <= last accepted step (stored)         valid        ErrForbidden (replay)           admin.totp.replayed
//	step s > last accepted step                   valid        accepted; last := s; this       - (the admin action
//	                                                           address's failures forgotten      audits itself)
//
// The last accepted step per admin key lives in the store (store.UseTOTPStep),
// so a code is accepted once per key and step, across restarts too; the
// replay's audit entry commits in the transaction that refuses it.
//
// # Caveats
//
//   - The failure counts live in memory: a restart forgets them (a guesser
//     gains one fresh window per restart, which needs the admin key anyway).
//   - The per-address throttle trusts the connection's address: behind a
//     proxy all clients share one (the API does not read X-Forwarded-For).
//   - Once the secret was moved, a lost authenticator means a lost second
//     factor: keep the authenticator's backup, or re-issue the admin
//     credential from an empty store.
//   - Quotas, SSO and privacy requests build on this package later.
package tenancy
