// Package registry registers user towers (POST /towers): it owns the rules
// the HTTP handler used to hold — field validation, the tower id, ownership,
// the per-key cap, the audit entry and the live index update — so that the
// handler only decodes, calls Register and encodes.
//
// # Basics
//
//	reg := registry.New(db, live, nil) // live adds a committed tower to the R-tree and search index
//	t, err := reg.Register(ctx, key, in, registry.Client{IP: ip, UserAgent: ua, RequestID: rid})
//
// # Rules
//
//   - Fields: operator 1..64 characters (trimmed); lat -90..90 and lon
//     -180..180 required; height 0.5..500 m (default
//     appliance.DefaultTowerHeightM); power (ERP) -30..100 dBm; azimuth
//     0..360 degrees (360 stored as 0; absent: omnidirectional); tilt
//     -90..90 degrees (the antenna's mechanical downtilt); gain_dbi
//     -30..70 with power (the record then keeps the transmitter power
//     power + 2.15 − gain_dbi and the gain: Tower.HasTx), beamwidth_deg
//     0.1..360 and front_back_db 0.1..100 (the generic antenna's figures,
//     when no antenna_id); station_number
//     at most 32 characters; at most 16 technologies of 1..16 characters;
//     at most 32 bands of 1..100000 MHz; antenna_id a catalogue antenna of
//     the key's tenant or a built-in (CheckAntenna, through WithAntennas),
//     which needs an azimuth when it is directional. Every bad field is
//     reported in one appliance.ValidationError.
//   - The tower is "user:" + 16 random hex digits, source user, placement
//     surveyed with a 10 m uncertainty, provenance ProvenanceRegistered
//     (stamped by Register; Validate, shared with the ad hoc towers of
//     /coverage/link, stamps none), owned by the key and its tenant
//     (visible to that tenant only; appliance.Tower.VisibleTo).
//   - Cap: appliance.Tier.TowersPerKey of the key's tier, none for admin
//     keys; counted inside the write transaction, so concurrent
//     registrations cannot exceed it (appliance.ErrQuota).
//   - The tower and its audit entry (action tower.register, tower id, client
//     address, user agent, request id) commit in one transaction; the live
//     indexes are updated only after the commit.
//
// # States
//
//	state              event                        next state        effect
//	(none)             Register, invalid fields     (none)            ErrInvalid, nothing written
//	(none)             Register, cap reached        (none)            ErrQuota, nothing written
//	(none)             Register, store fails        (none)            "register tower: " + the store's error, nothing written
//	(none)             Register, committed          stored + indexed  tower and audit row stored; live(t)
//
// # Caveats
//
//   - A crash between the commit and live(t) loses nothing: the next
//     catalogue load reads user towers from the store.
//   - Registered towers cannot be changed or deleted yet.
//   - A tower names its antenna by id: changing the catalogue antenna
//     changes what the tower radiates from then on (the planner reads it
//     at each analysis); a mounted antenna cannot be deleted.
package registry
