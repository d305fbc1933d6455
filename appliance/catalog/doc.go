// Package catalog is the tower catalogue's data path: it reads the real
// tower formats (Anatel registries and OpenCelliD), normalises operators,
// resolves municipalities, places and snaps towers (SPEC §2.1) and generates
// clearly marked synthetic tower sets. It imports only linkplan/appliance and
// the standard library; the store, the spatial index and the HTTP API call it.
//
// # Basics
//
// Import a file:
//
//	g, err := catalog.EmbeddedGazetteer()            // 5 571 municipalities, embedded
//	res, stats, err := catalog.Import(catalog.FormatAnatelERBs, f, catalog.NewPlacer(g))
//	towers := res.Towers()                           // []appliance.Tower, ids "anatel:<station>"
//	for _, r := range res.Rejects { log(r.Line, r.Reason) }
//
// or let DetectFormat/ParseAuto pick the format from the first bytes. Each
// parser streams its io.Reader, never panics and drops nothing silently:
// every data row ends up in a Station (or one of its Sectors) or in
// Result.Rejects with its 1-based line number and a reason; fields that were
// ignored are listed in Result.Warnings. Only an unreadable input or a header
// without the required columns makes a parser return an error.
//
// The six formats are described in FORMATS.md next to this file:
// "anatel-erbs", "anatel-licenciadas", "mosaico-licenciamento",
// "mosaico-smp", "mosaico-json", "opencellid". Per-emission formats are
// grouped into one tower per station with a Sector per emission; the tower
// keeps the strongest emission's ERP (dBm), the highest antenna (m) and a
// common azimuth (degrees) only when every sector shares it (else NaN =
// omnidirectional).
//
// Placement (Placer.Place): regulator coordinates inside Brazil and within
// max(60 km, 1.5 × the municipality's seat spacing) of the seat are
// "surveyed" (±30 m); missing or implausible ones (flagged in Station.Flags)
// are replaced by the seat plus a deterministic offset of 600–1000 m (mean
// 800 m) whose bearing and distance come from the FNV-1a hash of the tower
// id ("centroid", uncertainty 1 000 m + half the seat spacing, capped).
// Snap then moves each centroid tower onto the nearest OpenCelliD tower of the
// same operator within 5 km (configurable), keeping its id ("snapped",
// uncertainty of the crowd tower), using a grid (no O(n²) search) with ties
// broken by the smaller id.
//
// Synthetic sets (SyntheticNational, SyntheticInBox, WriteERBs) follow the
// same regulator rule over real municipality seats and are always marked:
// Source "synthetic", Synthetic true, ids "synthetic:<station>", provenance
// starting with "synthetic". They are pure functions of their arguments.
//
// Units: positions in WGS84 degrees, heights and distances in metres, ERP in
// dBm, gains in dBi, powers in watts, frequencies and bands in MHz,
// azimuths in degrees clockwise from north, tilts in degrees down.
//
// # Caveats
//
//   - ERP is 10·log10(P_W·1000) + G_dBi − 2.15: feeder and cable losses are
//     not in the Anatel records, so the value is an upper bound (typically by
//     1–3 dB). AnguloElevacao is read as downtilt (positive down).
//   - The municipality positions are seats (sede), not area centroids; SPEC
//     §2.1 calls them centroids. SpacingM (distance to the nearest other seat)
//     stands in for municipality size, which the embedded table lacks.
//   - A tower whose coordinates contradict its municipality code is placed at
//     the stated municipality's seat and flagged; the flag names the nearest
//     seat to the given coordinates (often the real municipality), but the
//     catalogue does not guess which of the two fields is wrong.
//   - Several regulator towers may snap onto the same crowd tower.
//   - OpenCelliD rows are cells, not sites: sectors of one site are separate
//     towers "ocid:724-<net>-<area>-<cell>"; their "range" is the spread of
//     the measurements, used (clamped to 100–5 000 m) as the uncertainty.
//   - The MOSAICO Licenciamento column order is inferred (no verbatim header
//     was found); its column 10 holds a municipality name, which is resolved
//     by name and UF.
//   - Station numbers lose leading zeros in ids; a station number claimed by
//     two operators keeps the first and rejects the other's rows.
//   - The embedded tables are parsed once per process (sync.OnceValues) and
//     never modified afterwards.
package catalog
