// Package datamanifest lists the data files the appliance serves, terrain
// packs and tower sources, each by SHA-256 with its size and dates, for GET
// /platform/maturity (data_manifest). An operator checks them against the
// checksums of the files copied to the site (INSTALL.md): the SHA-256 of a
// tower source is that of the file downloaded from Anatel or OpenCelliD
// (linkplan towers import installs the bytes unchanged), the SHA-256 of a
// terrain pack that of the file linkplan terrain build wrote.
//
// # Basics
//
// The composition root gives Deps.Inputs, which lists the data in use at
// each call: the --terrain packs in priority order (or the embedded sample),
// then the tower sources (--towers files and the files installed in the
// data directory, or the embedded samples). Start begins hashing them in one
// background goroutine; Manifest answers at once from what is known, and
// Wait blocks until nothing is pending (for a caller that needs every hash,
// such as a backup manifest). A tower source also carries its newest
// refresh record (Deps.Refreshes): what the catalogue last read from it,
// when, and the SHA-256 of those bytes, which differs from the file's when
// the file changed after that refresh.
//
// Each file entry moves through these states (appliance.DataFile*):
//
//	state    meaning                                      next
//	pending  new, or its size or modification time        ok: hashed, and the file did not change
//	         changed since its last hash: queued or        while it was read
//	         being hashed                                  failing: the read failed
//	                                                       pending: it changed while it was read
//	                                                       (hashed again under its new size and time)
//	ok       SHA-256 known for this size and               pending: its size or modification time
//	         modification time                             changes
//	failing  cannot be stat'ed or read (Detail says       pending: it reappears, or changes
//	         why)                                          ok: never directly
//
// Embedded data (the sample pack and towers) is hashed from memory on the
// first call and is always ok.
//
// # Caveats
//
// A change is noticed by size and modification time, as make does: a file
// rewritten in place with the same length within the file system's time
// resolution keeps its old hash until the next start. Hashing reads every
// byte once per start (a national terrain pack of a few GB: seconds of one
// core, in the background). Hashes are kept in memory only; old keys of
// changed files stay until the process ends (a few bytes each).
package datamanifest
