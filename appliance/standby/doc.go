// Package standby is the warm standby of issue 21 (scope 2): replication by
// verified snapshots, not a consensus cluster. A standby pulls a verified
// backup file (appliance/backup) from its primary every interval, verifies
// it again, and keeps the last good one; promotion makes its data directory
// a primary's. It imports appliance only: appliance/cmd/linkplan gives it
// the backup service's Take (primary), backup.Extract bound to the
// structural check (standby) and the standby's own data files.
//
// # Credential
//
// A standby cannot type a TOTP code, so it does not use the admin route.
// An admin issues a standby key (POST /admin/standby-key: admin key, TOTP,
// justification; audited admin.standby_key). Its SHA-256 is kept in
// DATA/standby-key.json (mode 0600); issuing a new key revokes the previous
// one. The key allows one thing: GET /replication/snapshot with
// X-Standby-Key, which streams a verified backup (trigger "standby"), each
// one audited as standby.snapshot with the key id and the client address.
// It reads every tenant's data, so it is as secret as the admin key:
// keep it in the standby's configuration (mode 0600) and use HTTPS.
//
// # Files of a standby's data directory
//
//	DATA/standby/state.json     State: role, primary URL, the last good snapshot's manifest, when
//	                            it was fetched, the latest attempt, promoted_at
//	DATA/standby/snapshot.db    the last good snapshot's database (verified: SHA-256, structure,
//	                            transaction id, schema, bucket counts)
//	DATA/standby/incoming.*     a pull in progress (removed at the next start)
//	DATA/linkplan.db            absent until promotion
//
// # States (Replica on the standby; Promote; Source on the primary)
//
//	State      | Trigger                                 | Next      | Effects
//	-----------+-----------------------------------------+-----------+------------------------------------------------------
//	(none)     | serve --standby-of, empty data dir       | empty     | state.json written: role standby
//	any        | serve --standby-of, DATA/linkplan.db or  | refused   | a primary's or promoted data directory is never
//	           | role primary                            |           | overwritten by another primary's snapshots
//	empty,     | tick (at start, then every Every)       | same      | GET /replication/snapshot into incoming.lpbackup; Extract
//	current    |                                         |           | (verify) into incoming.db; ok: renamed over snapshot.db,
//	           |                                         |           | state.json (current); failed: the last good one stays,
//	           |                                         |           | LastError set, retried at the next tick
//	current    | linkplan promote (standby stopped)      | primary   | snapshot.db renamed to DATA/linkplan.db, directory fsynced,
//	           |                                         |           | role primary, promoted_at; serve (no --standby-of) starts;
//	           |                                         |           | run as root, linkplan.db and state.json take DATA's owner
//	empty      | linkplan promote                        | empty     | refused: no snapshot yet
//	standby    | serve without --standby-of              | refused   | "a warm standby: promote it first"
//	primary    | Source.Snapshot with the standby key    | primary   | Take (a verified backup), audited, streamed
//	primary    | Source.Snapshot, wrong or no key        | primary   | 401, logged; no key issued: 503
//
// The standby sends the key to --standby-of only: a redirect is a failed
// pull, never followed.
//
// # Failover report (GET /health/failover)
//
// Role, the last good snapshot's time (the primary's read transaction) and
// age, lag, the latest attempt, the verification result, whether terrain
// packs and tower sources match the primary's by SHA-256 (as sets: file
// names may differ), and ready_to_promote: true on a standby with a good
// snapshot of a schema this binary knows, whose data files match. A
// failing pull (the primary is down, which is when one promotes) does not
// make it false: lag_s says how much a promotion would lose.
//
// The same facts are metrics on a standby (declared in appliance/telemetry):
// linkplan_standby_pulls_total{result}, linkplan_standby_lag_seconds,
// linkplan_standby_last_pull_ok, linkplan_standby_ready_to_promote.
//
// # RPO
//
// What a promotion loses is what the primary committed after the read
// transaction of the last good snapshot: at most Every plus one pull's
// duration (backup, transfer, verification), more only while pulls fail.
package standby
