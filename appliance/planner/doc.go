// Package planner holds linkplan's use cases that combine towers, terrain and
// engines: link analysis (which tower can this site reach, with what margin)
// and, later, repeater routes. It knows nothing of HTTP or storage.
//
// # Link budget
//
//	EIRP (dBm)      = tower ERP + 2.15 (dipole to isotropic), or the
//	                  request's assumed EIRP when the tower has no ERP
//	pattern (dB)    = min(12·(Δφ/65°)², 25) for a tower with an azimuth,
//	                  Δφ the angle between its main lobe and the receiver
//	                  (3GPP TR 36.814 sector model, 65° beamwidth, 25 dB
//	                  front-to-back); 0 for omnidirectional towers
//	Rx power (dBm)  = EIRP − pattern − path loss + Rx gain − cable loss
//	margin (dB)     = Rx power − Rx threshold
//
// # Search
//
// Every tower within the search radius gets an optimistic margin computed
// with free-space loss over the horizontal distance, which is a lower bound
// of the loss of engines that declare LossAtLeastFreeSpace (fspl). Towers are
// evaluated on terrain in order of that optimistic margin; the search stops
// when the requested number of results is known and the next optimistic
// margin cannot beat the worst of them, so the answer is exactly the one an
// exhaustive evaluation would give, at a fraction of the terrain reads. For
// engines without that property the first MaxEvaluated towers in that order
// are evaluated, and the analysis says how many were.
//
// # Caveats
//
// Antenna tilt and vertical patterns are ignored. Results are ordered by
// margin, then distance, then tower id, so they are deterministic.
package planner
