package store

// SetCrashAt makes the next CompactPending stop at step ("copied",
// "renamed", "dir-synced") as a killed process would: no clean-up, the old
// file still open and locked until Close.
func SetCrashAt(db *DB, step string) { db.crashStep = step }

// ErrSimulatedCrash is what CompactPending wraps when it stopped at the
// step given to SetCrashAt.
var ErrSimulatedCrash = errSimulatedCrash
