// Package billing provisions tenants from the payment provider (SPEC
// §4.12, issue 10 item 7): a signed inbound webhook creates a tenant and
// its key on a successful checkout, changes an existing tenant's tier, and
// moves a tenant to Free when its subscription is cancelled; the new key
// reaches the buyer once, through a claim. It knows nothing of HTTP.
//
// # Signature (Stripe-compatible)
//
// POST /billing/webhook with header
//
//	Stripe-Signature: t=<epoch seconds>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>
//
// The secret is the provider's endpoint signing secret (Stripe: whsec_...),
// used as the HMAC key byte for byte; the appliance reads it from a file
// (linkplan serve --billing-webhook-secret-file). Several v1 values are
// accepted (secret roll-over), v0 and other schemes are ignored. The
// digests are compared in constant time (hmac.Equal); then the timestamp
// must be within 300 s of the appliance's clock, either way. Any failure
// is 401 with the reason, before the body is parsed.
//
// # Event processing
//
// Events are Stripe's envelope {id, type, data.object}. Each verified
// event id is processed at most once: its record (store bucket
// billing_events) commits in the transaction that applies its effects,
// so a retry or a replayed delivery is answered "duplicate" and changes
// nothing.
//
//	event                               condition                                       outcome      effects (one transaction)                 audit action
//	any                                 signature wrong or timestamp > 300 s off        401          none                                      -
//	any                                 body not an event (id, type, data.object)       422          none                                      -
//	any                                 event id stored before                          duplicate    none                                      -
//	checkout.session.completed          payment_status not paid / no_payment_required   ignored      event recorded                            -
//	checkout.session.completed          metadata.tier not a tier, no customer           422          none (not recorded)                       -
//	checkout.session.completed          the customer, or metadata.tenant_id /           ignored      event recorded (no tenant); no tier       billing.event.ignored_erased
//	                                      client_reference_id, belongs to an erased                    change, no account, no key, no claim      (tenant _system; params event_id
//	                                      tenant (soft-erased, or hard-deleted: the                                                              and type only)
//	                                      erase request's ErasedRefs)
//	checkout.session.completed          metadata.tenant_id / client_reference_id       422          none (not recorded)                       -
//	                                      names no tenant
//	checkout.session.completed          the customer has an account, or                 upgraded     every active key of the tenant gets the   billing.tier.upgrade
//	                                      metadata.tenant_id / client_reference_id                     tier; account stored
//	                                      names an existing tenant
//	checkout.session.completed          new customer                                    provisioned  new tenant key (tier), account, claim     billing.tenant.provision
//	customer.subscription.deleted       the customer belongs to an erased tenant        ignored      event recorded (no tenant); no tier       billing.event.ignored_erased
//	                                                                                                   change, account unchanged               (as above)
//	customer.subscription.deleted       the customer has an account                     downgraded   every active key of the tenant -> Free;   billing.tier.downgrade
//	                                                                                                   account canceled
//	customer.subscription.deleted       unknown customer                                ignored      event recorded                            -
//	other types                         -                                               ignored      event recorded                            -
//
// Every processed delivery answers 200 with {event_id, type, outcome},
// duplicates included, so that the provider stops retrying.
//
// # Key delivery (claim)
//
// The checkout's success page receives the checkout session id (Stripe:
// success_url ...?session_id={CHECKOUT_SESSION_ID}) and posts it to
// POST /billing/claim {session_id}. The plain key is never stored in
// clear nor logged: at provisioning it is sealed with AES-256-GCM under a
// key derived by HKDF-SHA256 from the session id, and the claim is stored
// under ClaimID (a SHA-256 of the session id), so the database alone
// cannot open it.
//
//	claim state   trigger                                   next      effect
//	-             checkout provisions a tenant              pending   sealed key stored, expires after 7 days
//	pending       claim with the session id, in time        claimed   key returned once; sealed copy dropped; billing.key.claim
//	pending       claim after expiry                        pending   409 (ask support for a new key)
//	claimed       claim again                               claimed   409
//	-             claim before the event arrived            -         404 (retry shortly)
//
// # Caveats
//
//   - The session id is the claim's only secret: whoever holds the success
//     page URL first gets the key (once; the rightful buyer then sees 409
//     and asks support, who revokes it).
//   - A checkout naming a tenant (metadata.tenant_id) with a new customer
//     re-points the tenant's account to that customer; the older customer
//     id still maps to the tenant, so its cancellation also downgrades.
//   - A cancellation moves the tenant to Free; data are kept (erasure is a
//     separate privacy request).
//   - Erased customers (issue 20): the erase request keeps a one-way hash
//     (store.ErasedRef, SHA-256) of the tenant id and of each customer id
//     of the tenant, never the ids, and an event is checked against them
//     (and against the keys' erased tier) before its account is read.
//     Every later event naming them is
//     ignored, also after the hard delete: a person who erased their data
//     and buys again checks out as a new customer of the provider (the
//     operator deletes the old customer at the provider as part of the
//     erasure). Tenants erased before the hashes were kept are recognised
//     until their hard delete only (their keys are erased).
package billing
