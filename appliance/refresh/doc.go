// Package refresh builds the tower catalogue from its configured sources and
// keeps it fresh: it imports every source (regulator and crowd-sourced
// formats, detected from the bytes), places regulator towers, snaps
// centroid-placed ones onto crowd-sourced towers of the same operator, and
// hands the complete list to an apply function that swaps the live index
// atomically. Every refresh of every source is recorded (rows, towers,
// rejects with line numbers and reasons, sha256, duration) for admins.
//
// # Basics
//
// Refreshes are idempotent: a source whose bytes did not change is recorded
// with changed=false and, when no source changed, the index is not rebuilt.
// Start runs a refresh every Interval (default 6 h: four times a day, SPEC
// §8.6) until Close; a failing source keeps the previous catalogue and is
// recorded with its error, so a bad file never empties the index.
//
// It depends on appliance/catalog, the service that parses, places and
// snaps: refresh is the scheduler and bookkeeper around it, kept apart so
// that catalog stays a pure function of its inputs (no clock, no store).
//
// # Caveats
//
// The whole catalogue is rebuilt in memory on a change (about 1 s for
// 140,000 towers); readers keep the old snapshot until the swap.
package refresh
