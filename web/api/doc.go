// Package api is linkplan's HTTP contract: gorilla/mux routes (one file per
// resource), the middleware chain (request id, panic recovery, body limit,
// metrics, authentication, metering), JSON decoding and validation, and the single
// function that maps errors to HTTP status codes (errors.go).
//
// The services come in api.Deps, split by area (PlatformDeps, AccessDeps,
// CatalogueDeps, LinkDeps, JobDeps, PlanningDeps, ModelDeps, TenantDeps,
// OperationsDeps; each group's doc names the handler files that read it),
// filled by the one assembly, appliance/cmd/linkplan/assemble. A request
// body is declared once: the body of /analyze_link is LinkFieldsJSON,
// embedded by every route built on it. Numbers on the wire are rounded by
// appliance.Round (r3, r6 are its shorthands). A new route: the rule in
// its service, the handler and its wire types in one file here, the
// service in a Deps group, openapi.json, isolation_table_test.go
// (docs/ARCHITECTURE.md).
//
// # Basics
//
// Handlers return error; wrap adapts them, writes JSON on success and the
// structured error body otherwise:
//
//	{"error": {"code": "invalid_input", "message": "...", "request_id": "...",
//	           "fields": [{"field": "receiver.lat", "reason": "..."}],
//	           "more_errors": 12}}
//
// An error body stays small whatever the request held: at most
// appliance.MaxFieldErrors (50) fields are named, more_errors counts the
// rest, the message names the first 10, and every echoed text (message,
// field, reason) goes through one sanitiser, clean: invalid UTF-8 becomes
// U+FFFD, control and bidirectional control characters are written as
// \uXXXX, and each text is cut to a fixed length. The message comes from
// the typed error that carries the meaning (httpError, ValidationError,
// or the innermost wrapper of the sentinel that decided the status), never
// from the operation names of the wrapped chain.
//
// Every response, errors included, carries X-Request-Id (the client's value
// when it sent a sane one, else a new random id). An unexpected error or a
// panic is a bug: the body is the plain text "Internal Server Error" (SPEC
// §7) and the request id goes to the log with the error (a panic through
// Deps.Recover: logged once at ERROR with its stack, counted in
// linkplan_recovered_panics_total{component="http"}). Each request
// writes one access log record (component "access": request_id, key_id,
// route template, method, status, duration_ms, bytes; never the key), so a
// request id a client reports can be found.
//
// Request bodies (decode.go, body.go): each route has a size limit (413,
// refused before reading when Content-Length says so), and every request
// holds a lease on the appliance-wide decode budget
// (appliance/decodebudget, Deps.Decode) for what it buffers: the body
// (readBody), a multipart file part, and, charged by the service, a gzip
// stream. A charge the budget cannot hold now is a 503 with Retry-After
// naming the budget, a body larger than the whole budget a 413 (no retry
// could pass it); the middleware gives the lease back when the request
// ends, whatever its answer. POST /buildings/layers is charged to a budget
// of its own (API.uploads, the Ultra file cap of 128 MiB), never to the
// appliance-wide one, and its body is read only once the key's tier, its
// file cap (from Content-Length), the parameters and the quota pass
// (buildings.Service.CheckUpload), under that key's own cap.
//
// Authentication (authed): X-API-Key, or, when it is absent, an
// Authorization: Bearer ID token of the configured OIDC issuer
// (appliance/sso), which acts with the API key its subject is bound to.
// Admin keys cannot be bound, so every admin route keeps needing the admin
// key and its TOTP code. Public exceptions besides health and the
// document: the hosted login (/auth/oidc/login, /auth/oidc/callback) and
// the payment webhook and key claim (/billing/webhook, authenticated by
// its Stripe-Signature; /billing/claim, by the checkout session id); and
// the console map's tiles (GET /tiles/hillshade/{z}/{x}/{y}.png,
// /tiles/elevation/... and /tiles/surface/..., tiles.go, appliance/basemap)
// and the operator's basemap archive (GET /basemap/ext,
// /basemap/ext/{z}/{x}/{y}, and for a vector archive the tiles the
// appliance draws, /basemap/ext/raster/{z}/{x}/{y}, and their place
// labels, /basemap/ext/labels/{z}/{x}/{y}; serve --basemap), which an <img> loads
// without a key and which show public terrain or the operator's chosen
// map only: not metered, not gated by readiness, 400 invalid_tile naming
// z, x or y for an address that is not a tile.
//
// Request bodies are JSON: a POST, PUT or PATCH with another Content-Type
// is a 415 naming Content-Type (checked before readiness and
// authentication); a request without Content-Type is read as JSON, so that
// curl -d and short scripts work. String values must be clean text (valid
// UTF-8, no control or bidirectional control character): 422 naming the
// field. Every GET route answers HEAD; a 405 carries Allow.
//
// One name per concept (issue 20): heights are height_m, frequencies
// frequency_mhz. Old member names stay readable (renames.go): a field
// tagged deprecated:"new" is moved to the new one at decode (freq_hz
// divided by 1e6), so the rules read one name; the answer carries one
// deprecated_field warning per old name; an old and a new name that
// disagree are a 422 naming the old one. Validation errors name the new
// member.
//
// Metrics (GET /metrics) are the Prometheus text format with HELP and TYPE
// and le-bucket histograms (health.go), checked by promtool in the tests.
// Every family is declared once, in appliance/telemetry, with its help text
// (and, for counters over closed label sets, every tuple at 0), so the
// exposition is complete from the start; sources write samples only.
//
// The OpenAPI 3.1 document (openapi.json) describes every route and is
// served at /openapi.json; tests check real responses against it.
//
// Files: geo exports are POST /exports/{subject}?format=geojson|kml|kmz|
// shapefile, whose body is that of the JSON route they export (exports.go:
// /exports/link takes the /analyze_link body, ptp.go: /exports/ptp the
// /links/ptp body, GeoJSON, KML and KMZ only; the coverage heatmap and the
// repeater search are to join as /exports/coverage and /exports/repeater
// with the same parameter and the writers of appliance/geoexport); an
// unknown format is a 422 naming format. PDF reports are POST
// /reports/{subject} (reports.go: /reports/link; ptp.go: /reports/ptp,
// the /links/ptp body with language, art, engineer_name and
// engineer_registration). Both run the same
// analysis as the JSON route, tenant scope included, and answer the whole
// file with its media type and a Content-Disposition file name, or the
// usual JSON error body.
//
// Tenant roles (appliance.TenantRole) are enforced on every authenticated
// route in one place: authed asks tenancy.Authorize for the permission the
// route needs (roles.go: a table of the exceptions, else GET and HEAD need
// read and every other method write, so a new route is closed to a
// read-only key by default). Tenant self-service routes (/tenant/...)
// refuse admin keys with 403; the services check the finer rules (another
// key's rotation needs manage-keys). Tenant keys (/tenant/keys, tenant.go)
// and privacy requests (/tenant/me/data/..., /admin/dsar/..., tenant.go
// and dsar.go) call appliance/tenancy and appliance/privacy.
//
// AI routes (ai.go, appliance/ai): GET /ai/models, POST /ai/chat,
// /ai/suggest-height, /ai/compare and /ai/batch-analyze decode the body,
// reuse the request mapping of the route they explain (the /analyze_link
// body in "analysis", the /analyze body in "link", the engine case of
// /coverage/engines/compare as the body itself, a job id) and call one
// Explainer method; tier, AI quota, engine runs, fact sheets and the
// grounding check are the service's. Bodies are capped at MaxAIBodyBytes
// (64 KiB, 413). A language model that fails or times out is never an
// error: the template answers (grounding.outcome provider_unavailable).
//
// # Design notes
//
// The interfaces this package consumes are declared here (Engines,
// Searcher, LinkAnalyzer, ...). Their method signatures use the result
// types of two leaves, linkplan/engines (Info, Case, CaseResult,
// CompareRow) and linkplan/store/search (TowerHits, PlaceHit): those are
// already wire-shaped, JSON-tagged values, and wrapping them in API-owned
// copies would only duplicate fields. The concrete registry and index are
// still only met in the composition root.
//
// Metering: authed, after the key is known, calls the metering service
// (Deps.Quota, appliance/quota) once per request with the route's group
// (routeGroup in ratelimit.go: the group table is in appliance/quota's
// doc), sets RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset,
// and refuses a spent quota or rate with a 429 (quota_exceeded or
// rate_limited, Retry-After, and the error body's quota object). It then
// puts the key and the audit actor (appliance.Actor: key, e-mail, tenant,
// route template, address, user agent, request id) in the request's
// context, so that services write audit entries with the caller's details
// in the transaction of the change.
//
// The middleware lives here rather than in package web (as the starting
// layout proposed) because the request id and the error body are part of
// the same wire contract as the handlers: one package owns all of it, and
// web only runs the server (lifecycle, timeouts, graceful shutdown).
package api
