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
// bbolt does not wipe freed pages, so the sealing transaction also marks
// the database for compaction, and Bootstrap (start-up, before the store is
// shared) rewrites the file without the freed pages (store.CompactPending,
// crash-safe: a temporary copy, fsync, rename, directory fsync). A secret
// sealed at start-up leaves the file in that start-up; one sealed on first
// use (credentials file missing or unusable) stays in a freed page, unless
// a later write reuses it, until the next start-up. Backups taken from then
// on cannot yield it; older backups still can.
//
// A credentials file that cannot be used (not JSON, no admin api_key, e.g.
// only totp_moved_unix after the operator removed the key, a key the store
// lacks, unreadable) does not stop start-up: Bootstrap logs a warning with
// the path and the reason, never the content, and skips it. Only store
// errors stop start-up.
//
// # Step-up verification
//
// VerifyAdminFrom takes the code and the client (address, user agent,
// request id, route). The throttle counts failures per admin key and
// address group: an IPv4 address, or the /64 of an IPv6 address (one user
// holds a whole /64 and can rotate addresses in it). Each attempt reserves
// its failure under one lock before its code is checked (so concurrent
// attempts cannot pass a limit together) and a valid code releases it. Its
// outcomes, in the order they are checked:
//
//	state of (key, client)                        code         outcome                         audit action
//	not an admin key                              any          ErrForbidden                    -
//	admin                                         empty        ErrInvalid                      -
//	>= 5 failures from this address group in      any          ErrQuota (429), not checked     admin.totp.throttled, the first
//	  5 min, or >= 20 for this key from all                                                      of the window only (below)
//	  addresses in 5 min, or >= 100 in 24 h
//	admin                                         wrong        ErrForbidden; failure counted   admin.totp.failed
//	step s <= last accepted step (stored)         valid        ErrForbidden (replay)           admin.totp.replayed
//	step s > last accepted step                   valid        accepted; last := s; this       - (the admin action
//	                                                           group's failures forgotten        audits itself)
//
// Throttled attempts are not each written (every row is an fsync): the
// first one of a 5-minute window writes a row (params limit, address_group,
// window_s) per key and address group for the address limit, per key for
// the per-key limits (rotating addresses adds no rows); the later ones are
// counted, and once the window has ended the key's next step-up attempt
// writes one summary row (summary=1, suppressed=N). Every audit row keeps at
// most 256 bytes of the user agent, control and format characters replaced
// (appliance.CleanUserAgent).
//
// The arithmetic of a guesser (who must hold the admin key already): a
// guess succeeds with p = 3/10^6 (one step of skew accepts 3 codes). The
// per-key limits allow at most 20 guesses per 5 minutes and 100 per 24 h,
// whatever the number of addresses, so at most 100 guesses a day: 3 x 10^-4
// expected successes a day, and ln 2 / p = 231,000 guesses, 2,310 days
// (6.3 years), for a 50 % chance. Before the daily cap (50 per 5 min,
// 14,400 a day) the 50 % point was 16 days; with the 20-per-window ceiling
// alone (5,760 a day) it would be 40 days. The price is that such a guesser
// can lock the real admin key out for up to a day: re-issue the admin
// credential if the admin key leaked.
//
// The last accepted step per admin key lives in the store (store.UseTOTPStep),
// so a code is accepted once per key and step, across restarts too; the
// replay's audit entry commits in the transaction that refuses it.
//
// # Tenant roles and keys
//
// Besides its kind (appliance.Role: tenant, internal, admin), a tenant or
// internal key has a tenant role (appliance.TenantRole): tenant-admin,
// member or read-only; the table of what each may do is on
// appliance.TenantRole, Authorize checks it and web/api calls Authorize on
// every authenticated route. Keys stored before roles existed have none,
// which reads as tenant-admin, so every existing key keeps what it could
// do; POST /admin/keys issues tenant-admin keys the same way. A tenant
// manages its keys itself (manage.go: list, create, rotate with a 24 h
// grace, revoke; the state table is there); each decision and its audit
// row commit in one store transaction (UpdateTenantKeys), so two
// concurrent revocations cannot both remove the last tenant-admin key.
// Authenticate refuses a rotated key once its grace has ended and records
// each key's last use at most once per LastUsedPrecision (5 minutes).
//
// # Caveats
//
//   - The failure counts live in memory: a restart forgets them (a guesser
//     gains a fresh day per restart, which needs the admin key anyway), and
//     the summary of a throttle window that ended just before a restart.
//   - A summary row is written when the key's next attempt comes; without
//     one it stays pending in memory (the window's first row is there).
//   - The per-address throttle trusts the connection's address: behind a
//     proxy all clients share one (the API does not read X-Forwarded-For).
//   - Once the secret was moved, a lost authenticator means a lost second
//     factor: keep the authenticator's backup, or re-issue the admin
//     credential from an empty store.
//   - Quotas are appliance/quota's; privacy requests live in
//     appliance/privacy. SSO (appliance/sso) maps an identity-provider
//     subject to a key of this package; billing (appliance/billing)
//     creates keys with Mint and stores them in its own transaction.
//   - The last use of a key is written by the request that authenticates
//     (a coalesced bbolt write, once per key per 5 minutes); a write that
//     fails loses only that timestamp (logged).
package tenancy
