// Package sso lets a company's identity provider sign users in (SPEC
// §5.1.2, issue 10 item 5): a bearer ID token is accepted beside
// X-API-Key, and a hosted login runs the OpenID Connect authorization-code
// flow with PKCE server-side for the console. It knows nothing of HTTP
// routes; verification is github.com/coreos/go-oidc/v3 and the code
// exchange golang.org/x/oauth2 (no hand-written JWT check).
//
// # Bearer ID tokens
//
// Authorization: Bearer <ID token>. The checks, in order; every refusal is
// appliance.ErrUnauthenticated (401) with the reason in the message:
//
//	check                                  refusal reason (message contains)
//	header value "Bearer <token68>"        the Authorization header must be ...
//	compact JWS, header alg in             signature algorithm "none" / "HS256" / ... is not accepted
//	  RS256, RS384, RS512 (read only to
//	  word the refusal; go-oidc enforces
//	  the same list)
//	signature with the issuer's keys       the signature does not verify ... (unknown kid or wrong key)
//	iss = configured issuer                the token was issued by another issuer (iss)
//	aud contains the client id             the token is not for this appliance's client id (aud)
//	exp in the future (nbf honoured)       the token expired at ... (exp)
//	sub present                            it has no subject (sub)
//	token_use = "id"                       token_use must be "id"
//	(iss, sub) bound to a key              subject ... is not bound to a tenant key
//	the key active                         401 (revoked) or 401 "API key has been erased"
//
// A token that passed every check is remembered (by its SHA-256, at most
// MaxCachedTokens) until its exp, so that a console sending the same token
// on every request pays the signature check once (measured on the 2-core
// build machine: about 150 µs a check without the cache, 28 µs with it,
// most of it the binding's read); the binding and the key are read on
// every request, so unbinding or revoking takes effect at once.
//
// The issuer's keys come from its jwks_uri (found by discovery of
// /.well-known/openid-configuration), cached in memory by go-oidc's
// RemoteKeySet and fetched again when a token names an unknown kid. An
// air-gapped site gives a JWKS file instead (Config.JWKSFile): tokens are
// verified against its keys and the issuer is never contacted for them.
// Discovery runs at start-up (Open) and, after a failure, again on use at
// most every 30 s; meanwhile bearer tokens get 503 (ErrUnavailable).
//
// # Memberships
//
// A verified token's (issuer, subject) maps to a tenant membership: a
// stored binding (appliance.SSOBinding, store bucket sso_bindings) to an
// existing API key id. The subject then acts with that key's tenant, tier
// and role; revoking or erasing the key ends the subject's access too.
// Bindings are made by the tenant (any of its active non-admin keys,
// audited sso.binding.create) or by the admin for any tenant (admin key
// plus TOTP step-up and justification, admin.sso.binding.create), and
// removed by the tenant (sso.binding.delete) or by the admin
// (admin.sso.binding.delete, TOTP and justification). Admin keys cannot be bound:
// their TOTP secret is sealed under the plain admin key, which a bearer
// token does not carry, so admin routes keep needing the admin key and
// its TOTP code.
//
// # Hosted login
//
// States of one login (kept in memory, server-side, DefaultLoginTTL):
//
//	state       trigger                              next       effect
//	-           BeginLogin                           pending    random state, nonce, PKCE verifier kept; the
//	                                                            issuer's authorization URL (S256 challenge) returned
//	pending     FinishLogin with its state           taken      removed at once (single use), whatever follows
//	taken       code exchanged with the verifier,    done       audit sso.login; the ID token and key returned
//	            token passes every check, nonce
//	            matches, subject bound
//	taken       any check fails                      refused    audit sso.login.refused with the reason
//	pending     TTL passed                           expired    refused as unknown when used; purged when full
//
// At most MaxPendingLogins logins wait at once (ErrQuota, 429, beyond).
//
// # Caveats
//
//   - Pending logins live in memory: a restart forgets them (the user
//     starts the login again).
//   - One issuer per appliance (the configured one).
//   - A subject is bound to one key across all tenants: a tenant that binds
//     a subject first holds it, and another tenant's attempt is a 409
//     (which tells it the subject is taken, not by whom). A tenant names
//     the subjects it binds without proving it holds them, so a squatted
//     subject is freed by the tenant that bound it (DELETE
//     /tenant/sso/bindings) or by the admin (POST
//     /admin/sso/bindings/delete).
//   - The console receives the ID token and sends it as a bearer token
//     until it expires (the issuer decides the lifetime); there is no
//     server-side session to revoke, removing the binding or revoking the
//     key does.
package sso
