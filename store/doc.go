// Package store is linkplan's source of truth: one bbolt file in the data
// directory holding API keys, user-registered towers, the audit log and
// appliance metadata.
//
// # Basics
//
// Open takes an exclusive file lock; a second process gets ErrLocked within
// Options.LockTimeout instead of hanging. The schema has a version number in
// the meta bucket and an ordered list of migrations (migrate.go); Open runs
// every migration above the stored version in one transaction each, so a
// crash mid-migration leaves the file at the previous version.
//
// Keys and towers are encoded as JSON (codec.go) through explicit record
// types, not the domain types: the shape of the file stays stable when a
// domain struct changes, and NaN (an unknown ERP, an omnidirectional
// azimuth) is stored as an absent field. The append-only logs (audit
// entries, tower refreshes) are encoded from their domain types, whose JSON
// tags are declared stable in appliance: they hold no NaN and only gain
// fields, so a record type would be a field-for-field copy.
//
// Admin keys: the record holds the TOTP secret only sealed (totp_sealed,
// appliance/tenancy); records of schema versions before 3 may hold it in
// clear (totp_secret), which is read but never written, and SealKeyTOTP
// replaces it. The last accepted TOTP time step per admin key (bucket
// totp_steps, schema version 3) makes the replay guard survive restarts:
// UseTOTPStep accepts a step only above the stored one, and writes the audit
// entry of a refused replay in the same transaction.
//
// Compaction: bbolt does not wipe freed pages, so a value replaced or
// deleted stays in the file (and in every copy of it) until the page is
// reused. When SealKeyTOTP drops a clear secret it marks the file
// (meta compact_pending) in the same transaction; CompactPending, run at
// start-up before the DB is shared, then copies the live keys and values
// (bbolt.Compact, bucket sequences kept) into linkplan.db.compact, fsyncs
// it, renames it over linkplan.db, fsyncs the directory and reopens. A
// crash before the rename leaves the old, still marked file (Open removes
// the stale copy; the next start compacts again); after it, the complete
// new file. The old file, locked until the new one is, is marked
// superseded, so that a process that opened it and waited for its lock
// opens the path again instead of writing to an unlinked file.
//
// SSO, branding and billing (schema version 7, issue 10): sso_bindings
// ((issuer, subject) -> bound key id and tenant), branding (tenant id ->
// branding, logo included), billing_accounts (tenant id -> payment
// customer, subscription, tier), billing_customers (customer id -> tenant
// id), billing_events (processed payment event ids: ApplyBillingEvent
// stores the event with all its effects in one transaction, so an event
// applies once) and key_claims (hash of a checkout session id -> the
// provisioned key sealed under the session id, dropped by MarkKeyClaimed).
// Every record of these buckets but billing_events without a tenant
// carries a tenant_id (billing_customers: its value): all are per-tenant
// data.
//
// Audit rows store at most 256 bytes of the client's user agent, control
// and format characters replaced (appliance.CleanUserAgent). AuditPage
// reads the log newest first with filters (tenant, action, time range)
// and a sequence cursor; its cost is the entries scanned.
//
// Usage counters (bucket usage, schema version 7, usage.go) hold the
// monthly counts of appliance/quota per tenant, month and counter, written
// in batches (AddUsage, one transaction per flush). They are per-tenant
// data: every key starts with the tenant id and a NUL byte
// (usageKey), like the PDF counters of pdf_usage (pdfquota.go), so a
// tenant's erasure deletes the keys under that prefix in both buckets.
//
// Tenants and privacy (schema version 8): a tenant's keys are found by
// scanning the keys bucket (a few thousand records at most);
// UpdateTenantKeys applies a key decision of appliance/tenancy and its
// audit rows in one transaction. The dsar_requests bucket holds the
// data-subject requests. SoftEraseTenant pseudonymises a tenant's keys and
// scrubs its audit rows; HardDeleteTenant deletes every row of a tenant in
// every bucket classified per-tenant in privacy.go (tenantBuckets, each
// with the function that finds its rows), in one transaction. Every bucket
// must be classified there as per-tenant or global: a test opens a fresh
// file and fails for a bucket in neither list, so a migration that adds a
// per-tenant bucket must add its purge function too. Both erasures mark
// the file for CompactPending (the old bytes stay in freed pages until the
// next start-up).
//
// Checks and snapshots (issue 21, check.go): CheckFile checks a file
// without changing it (both meta pages, since bbolt silently falls back to
// the other one; the length against the high-water mark; bbolt's Tx.Check;
// the schema version and top-level bucket key counts), recovering bbolt's
// panics; a fault of bbolt's checker goroutine on a wild page address is
// not recoverable, so the appliance runs it in a child process. Snapshot
// copies the database from one read transaction (Tx.WriteTo) with the
// same facts. Open with Options.ReadOnly takes a shared lock and does not
// migrate; Options.BeforeMigrate runs before the first migration of an
// older file (the appliance's pre-migration backup); a file of a newer
// schema is refused before anything is written to it (SchemaError, which
// matches appliance.ErrNewerSchema). LockFile takes the serving lock
// without opening the file as a database (restore). Open reopens when the
// path names another file once the lock is held (a restore renamed a new
// one over it while it waited).
//
// # Caveats
//
// No slow work happens inside a write transaction: callers compute first and
// write in one short Update. Derived indexes (R-tree, bleve) are rebuilt from
// here at start-up and updated only after a successful commit.
package store
