// Package sample embeds the small real terrain pack that lets linkplan run
// offline out of the box: Rio de Janeiro, built from the two NASA SRTM3
// tiles S23W044 (the city, Guanabara Bay, Petrópolis, Serra dos Órgãos) and
// S22W043 (the interior of the state).
//
// # Basics
//
//	p, err := terrain.OpenBytes(sample.Pack())
//
// Pack returns the pack bytes (3″ grid, 1200 samples per degree, heights in
// metres above mean sea level); Name is its file name in the manifest at
// terrain-packs/manifests. The pack is rebuilt from terrain-packs/testdata
// with
//
//	go test ./terrain-packs/sample -run TestPackUpToDate -update
//
// # Caveats
//
// The two tiles touch only at the corner (-22, -43): a point in S22W044 or
// S23W043 is a *appliance.TileMissingError, as it is for any tile outside
// the pack. SRTM v2.1 voids (3 789 + 160 samples, among them the summits of
// Pão de Açúcar, Dois Irmãos, Corcovado and Pico da Tijuca) are filled by
// interpolation, so heights there are estimates, often far below the real
// ground (Pão de Açúcar, 396 m, reads 9 m); the pack is format version 4
// and its void mask marks them (VoidFilledAt, PathProfile.VoidFilled).
//
// The pack has no land-cover (clutter) layer: there is no land-cover
// raster of Rio in the repository, and
// ClutterAt answers with an error matching terrain.ErrNoClutterLayer and
// appliance.ErrUnavailable instead of guessing a class.
package sample
