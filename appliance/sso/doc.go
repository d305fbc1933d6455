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
// Bindings are removed by the tenant (sso.binding.delete) or by the admin
// (admin.sso.binding.delete, TOTP and justification). Admin keys cannot be
// bound: their TOTP secret is sealed under the plain admin key, which a
// bearer token does not carry, so admin routes keep needing the admin key
// and its TOTP code.
//
// # Binding with a proof (issue 20)
//
// A tenant never names a subject: a subject is bound only with a proof
// that its owner signed in moments ago, so that a tenant cannot squat a
// subject of the identity provider (whose genuine tokens would then act
// as the squatter's tenant). Two proofs, and the admin:
//
//	how                                   request                                   proof checked                              audit (tenant's log)
//	fresh ID token (Bind)                 POST /tenant/sso/bindings {id_token,      every bearer check (signature, iss, aud,   sso.binding.create, proof id_token
//	                                        key_id?}; a subject field is 422        exp, sub, token_use); iat at most
//	                                                                                MaxProofAge (5 min) ago, at most
//	                                                                                ProofSkew (1 min) ahead; each token is a
//	                                                                                proof once (SHA-256 kept in memory until
//	                                                                                it can no longer be fresh)
//	binding link (CreateIntent, then      POST /tenant/sso/binding_intents          the hosted login's ID token: every bearer  sso.binding.intent.create; then
//	  the person's hosted login)            {key_id?} -> token, login_path;         check, and the nonce of the login the      sso.binding.create, proof hosted_login
//	                                        the person opens login_path             link started (fresh by construction)       (actor: the key that made the link)
//	admin (AdminBind)                     POST /admin/sso/bindings {subject,        none: admin key, TOTP step-up and          admin.sso.binding.create, proof admin,
//	                                        key_id, justification}                  justification                              with the justification
//
// Outcomes of a tenant's binding (Bind, or the callback of a link):
//
//	condition (checked in this order)                         answer                                   audit
//	admin key as the caller                                   403 (use the admin route)                -
//	subject field, no id_token, bad key_id syntax             422 naming the field                     -
//	the proof fails a check (expired, aud, iss, alg, iat      422 naming id_token, with the reason     -
//	  older than 5 min or ahead, not a JWT ...)
//	key of another tenant, unknown, revoked, erased, admin    422 naming key_id (proof not spent)      -
//	  (a link's key that stopped being active: ErrBindRefused)
//	subject bound already, to any tenant (own included);      ErrBindRefused: 403, one message          sso.binding.refused in the appliance's
//	  proof spent before; link unknown, used, expired                                                   log (no tenant), reason = the detail
//	otherwise                                                 201 binding / 200 login (bound: true)    sso.binding.create in the tenant
//
// ErrBindRefused has one message and one status for every refusal in its
// row, so no answer tells a tenant whether another tenant holds a subject;
// the tenant's own log gets no row for it (the admin's does, with the
// detail), and its binding list shows only its own bindings. The store
// transaction reads the key and the binding whatever the outcome and every
// refusal of the row writes the same one audit row, so they cost the same
// (BenchmarkBindRefusals). Asking at all needs the subject's fresh token
// or its sign-in: whoever holds that is the person, or was given the proof
// by the person.
//
// States of a binding link (in memory, DefaultIntentTTL, at most
// MaxIntentsPerTenant per tenant and MaxPendingIntents in all, ErrQuota
// beyond):
//
//	state     trigger                                        next      effect
//	-         CreateIntent (key of the tenant, active,       waiting   random token returned once, its SHA-256 kept;
//	          not admin; hosted login configured)                      sso.binding.intent.create
//	waiting   BeginLogin with its token                      taken     removed at once (single use); the login keeps it
//	waiting   TTL passed                                     expired   refused as unknown when used; purged at the next creation
//	taken     the login's callback: token verified, nonce    bound     binding stored (sso.binding.create); login completes
//	          matches, subject unbound, key still active
//	taken     subject bound already / key no longer active   refused   ErrBindRefused; sso.binding.refused (no tenant)
//	taken     any other login refusal (code, token checks)   refused   as a login (401 with its reason)
//
// # Hosted login
//
// States of one login (kept in memory, server-side, DefaultLoginTTL):
//
//	state       trigger                              next       effect
//	-           BeginLogin                           pending    random state, nonce, PKCE verifier kept (and the
//	                                                            binding link, taken); the issuer's authorization
//	                                                            URL (S256 challenge) returned
//	pending     FinishLogin with its state           taken      removed at once (single use), whatever follows
//	taken       code exchanged with the verifier,    done       audit sso.login; the ID token and key returned
//	            token passes every check, nonce
//	            matches, subject bound (a binding
//	            link's login binds it first, above)
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
//   - A subject is bound to one key across all tenants. A person bound to
//     the wrong tenant (through a link they were sent, or by the admin) is
//     freed by that tenant (DELETE /tenant/sso/bindings) or by the admin
//     (POST /admin/sso/bindings/delete).
//   - A binding link binds whoever signs in through it: it is an
//     invitation, to be sent to that person only. An identity provider
//     that signs a user in silently (an existing session) binds them on
//     opening the link; the callback's answer names the tenant and key.
//   - Binding links and spent proofs live in memory: a restart forgets
//     waiting links (the tenant creates another) and the spent proofs (a
//     token presented before the restart could prove again while it is
//     fresh, at most 6 minutes; only for a subject still unbound).
//   - A link taken by a login whose sign-in then fails (the person gave
//     up, the code exchange failed) is spent; the tenant creates another.
//   - The console receives the ID token and sends it as a bearer token
//     until it expires (the issuer decides the lifetime); there is no
//     server-side session to revoke, removing the binding or revoking the
//     key does.
package sso
