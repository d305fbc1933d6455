// Package spatial is the in-memory tower index: a tidwall/rtree R-tree over
// tower positions behind an immutable snapshot, swapped atomically.
//
// # Basics
//
// Index implements appliance.TowerIndex. Every query reads one Snapshot
// (loaded through an atomic.Pointer), so a reader never sees a half-built
// index; Replace builds a complete new snapshot and swaps it in one store,
// Upsert copies the tree lazily (rtree's copy-on-write) and swaps.
//
// Queries are exact: the R-tree filters candidates by a bounding box in
// degrees (appliance.Around), then every candidate's great-circle distance
// in metres decides; ties are broken by tower id, so results are
// deterministic whatever the insertion order.
//
// # Caveats
//
// Nearest without a distance bound grows the search radius geometrically
// (5 km, 20 km, 80 km, ... up to the half circumference) until it holds k
// towers; this is exact because every tower within the final radius is
// examined.
package spatial
