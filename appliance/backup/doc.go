// Package backup writes, verifies and restores backups of the appliance's
// database (issue 21), and schedules them. It imports appliance only:
// appliance/cmd/linkplan gives it the database (store.DB.Snapshot) and the
// structural check (store.CheckFile, run in a child process).
//
// # The backup file
//
// A POSIX tar (PAX headers) of two regular members, in this order:
//
//	manifest.json  appliance.BackupManifest: format "linkplan-backup", format_version 1,
//	               linkplan_version, schema_version, created_at (UTC), trigger, database
//	               {bytes, sha256, txid, schema_version, buckets: key counts of the
//	               top-level buckets}, terrain_packs and tower_sources [{name, sha256, bytes}]
//	linkplan.db    the database, as bbolt's Tx.WriteTo writes it from one read
//	               transaction: a complete bbolt file consistent at txid
//
// `tar -xf FILE` yields a linkplan.db that bbolt and linkplan open as is.
// The manifest comes first, so that ReadManifest reads only it.
//
// # Writing (Writer.Write)
//
// The database is copied from one read transaction (writers go on) into a
// scratch file beside the target, hashed as it is written and fsynced; the
// structural check runs on it (bbolt's Tx.Check and linkplan's meta and
// length checks) and its transaction id, schema version and bucket counts
// must equal the snapshot's; then the tar is written under a temporary
// name, the copy's bytes hashed again to the same SHA-256, fsynced,
// renamed to the target and the directory fsynced. Only a verified backup
// ever has its final name.
//
// # Verifying and restoring (Extract, Verify, Restore)
//
// In order, each failure naming what is wrong: the first member is a
// manifest of this format (a newer format_version: appliance.ErrNewerSchema);
// its schema version is at most this binary's (else ErrNewerSchema, before
// anything is extracted); the second member is linkplan.db of the
// manifest's length, whose SHA-256 is the manifest's; nothing follows;
// the extracted file passes the structural check with the manifest's
// transaction id, schema version and bucket counts (else ErrCorrupt).
// Restore extracts beside the database (<db>.restore), keeps the current
// file under a second name (a hard link, <db>.before-restore-<UTC time>)
// and renames the copy over the database: the path names the old or the
// new database at every instant. Run as root (sudo linkplan restore), the
// copy takes the owner (uid, gid) of the database's directory before the
// rename, so that the appliance's user, who owns the data directory, can
// open it; run as any other user, the file is that user's.
//
// # States of the schedule (Service)
//
//	State     | Trigger                                  | Next      | Effects
//	----------+------------------------------------------+-----------+---------------------------------------------------------------
//	off       | New without Dir                          | off       | Take only (route, admin socket); no /health/ready detail
//	idle      | New with Dir                             | idle      | Dir created (0700); partial files removed; newest scheduled
//	          |                                          |           | backup's manifest read: next = its time + Every, else now
//	idle      | Start                                    | running   | a tick every min(Every, 10 s)
//	running   | tick, now >= next                        | running   | RunScheduled: write linkplan-<UTC ms>.lpbackup and verify it;
//	          |                                          |           | ok: next = start + Every, rotation to the newest Keep;
//	          |                                          |           | failed: next = start + min(Every, 5 min), error logged
//	running   | Take (any state)                         | same      | a verified file in Scratch, unlinked, returned open
//	running   | Close                                    | closed    | a running backup's context ends; it removes its partial files
//
// Freshness (appliance.BackupStatus.Freshness, in /health/ready's details):
// failed when the latest attempt failed; pending before the first backup
// within two intervals of the start; stale when the newest good backup
// (or the start, without one) is more than two intervals old; else ok. It
// is advisory: readiness (serving traffic) does not depend on it; the
// metrics (metrics.go; families declared in appliance/telemetry) carry the
// same facts for alerting.
//
// # Caveats
//
// A backup holds the database only. Terrain packs and tower source files
// are named in the manifest by SHA-256 (reinstall the same files); the
// admin credentials file, the finished job bundles and the derived search
// index stay out (docs/OPERATIONS.md). A long read transaction keeps
// bbolt from reusing the pages freed meanwhile: the database file may grow
// by what is written during a backup.
package backup
