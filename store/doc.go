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
// Records are encoded as JSON (codec.go) through explicit record types, never
// the domain types directly: the wire shape of the file is stable even when a
// domain struct gains a field, and NaN (an unknown ERP, an omnidirectional
// azimuth) is stored as an absent field.
//
// # Caveats
//
// No slow work happens inside a write transaction: callers compute first and
// write in one short Update. Derived indexes (R-tree, bleve) are rebuilt from
// here at start-up and updated only after a successful commit.
package store
