// Package terrain reads linkplan terrain packs (terrain-packs/FORMAT.md)
// and answers elevation queries: it implements appliance.Terrain.
//
// # Basics
//
// A pack holds one-degree tiles on one grid (SamplesPerDegree: 1200 for
// SRTM3's 3″, 3600 for SRTM1's 1″), each tile (SamplesPerDegree+1)² int16
// heights in metres above mean sea level, compressed and checksummed
// separately, behind a small index, so that any tile is read with one
// positioned read and decoded without touching the others.
//
//	p, err := terrain.Open("/var/lib/linkplan/brazil.ltp", terrain.WithCacheBytes(512<<20))
//	h, err := p.ElevationM(appliance.LatLon{Lat: -22.9436, Lon: -43.2858}) // metres AMSL
//	prof, err := p.Profile(a, b, 90)                                       // every 90 m
//	info := p.Info()                                                       // tiles, bounds, sizes
//
// Version-3 packs may carry the land-cover (clutter) layer: per tile, one
// class per sample on the same grid as the heights (0 unknown, 1…10 the
// classes of terrain-packs/clutter), stored uniform (no payload) or as one
// zstd frame, with its own offset, length, CRC32C and class counts in a
// second index:
//
//	c, err := p.ClutterAt(q)        // appliance.ClutterInfo{Class: 1, Label: "Forest", HeightM: 20}
//	ok := p.HasClutter()            // false: ClutterAt says ErrNoClutterLayer
//	prof.ClutterClass, prof.ClutterHeightsM // filled by Profile when the layer exists
//
// Version-4 packs may carry the void mask: per tile, one bit per sample
// saying whether the packer interpolated it across a void of its source
// DEM (SRTM voids on steep peaks: such heights can be hundreds of metres
// low). A point is void-filled when any sample with a non-zero bilinear
// weight there is; Layered asks the pack that answered the height:
//
//	v, err := p.VoidFilledAt(q)     // appliance.VoidMap; false on packs without the mask
//	prof.VoidFilled                 // nil unless a sample of the path is void-filled
//	n, spanM := prof.VoidStats()
//
// Tiles are coded with CodecPredictive (version-2 packs: planar
// prediction, zig-zag, byte planes, zstd; about a third of the raw int16
// size) or CodecZstdRaw (version 1, still read). Encoder and
// MarshalHeaderIndex are the writer's side, used by terrain-packs/packer.
//
// OpenBytes opens a pack held in memory (the embedded sample pack,
// terrain-packs/sample). Layered stacks several packs, the first that can
// answer a point wins (for land cover: the first pack with the layer that
// knows a class there); Layered.ElevationGridM (appliance.GridSampler)
// samples a latitude × longitude grid in one call, bit for bit the
// heights of ElevationM, for the map tiles of appliance/basemap. Decoded
// tiles, heights and land cover alike, live
// in one bounded LRU cache (WithCacheBytes, default DefaultCacheBytes)
// shared by all goroutines; concurrent misses on one tile decode it once.
//
// Profiles sample their great circle through appliance.ProfilePath (the
// distance, step count and trigonometry of the path computed once). For
// the planner's sparse bounds, ProfileEvery and ProfileEveryFrom
// (appliance.SparseProfiler, SparseRefiner) return every n-th sample of a
// profile, and SamplePath the heights of any samples of a path in any
// order, each bit for bit the full profile's; CoversPath says,
// conservatively, that no sample of a path can fail (every tile around
// it held as sea or as land without NoData), so that the planner may stop
// sampling it at the sample that proves a tower out.
//
// Heights are bilinear between the four samples around the point. Sample
// (r, c) of tile (lat0, lon0) lies at latitude lat0+1 - r/SamplesPerDegree
// and longitude lon0 + c/SamplesPerDegree degrees (SRTM's pixel-is-point
// convention: tile edges are shared by neighbours).
//
// # Caveats
//
//   - Packs older than version 4 know no voids: their interpolated heights
//     read as measured (VoidFilledAt false, Profile.VoidFilled nil).
//   - There is no fallback: a point in a tile no pack holds, in a void tile,
//     or next to a NoData sample (a tile only partly covered by its
//     source) returns a *appliance.TileMissingError naming the SRTM tile
//     (for example "S24W047"), never sea level (SPEC §8.6).
//   - Sea tiles answer 0 m and set PathProfile.Sea. Land tiles do not know
//     where the sea is: their 0 m samples are reported as land (Sea false).
//   - A point on a tile edge is answered by the tile north/east of it (the
//     tile TileOf names), or by the tile south/west when only that one is in
//     the pack; both hold the same edge row in SRTM data.
//   - A tile whose payload fails its CRC32C is an error matching ErrCorrupt,
//     never garbage heights; the failure is not cached, so a repaired file
//     can be retried after reopening.
//   - The cache bound counts decoded samples (2 bytes per height, 1 per
//     land-cover class): an SRTM3 tile is 2.9 MB of heights and 1.4 MB of
//     land cover, an SRTM1 tile 25.9 MB and 13 MB. One tile is always kept.
//   - Land cover is the nearest sample, not interpolated: on an SRTM3 pack
//     a class stands for a 3″ cell (about 92 m), itself the majority vote
//     of the 30 m MapBiomas pixels in it (terrain-packs/clutter). Class 0
//     "Unknown" (0 m) means no land-cover source covered the point or it
//     was not observed; it is reported as such, never guessed. A pack
//     without the layer (versions 1 and 2, or built without land-cover
//     inputs) answers ClutterAt with an error matching ErrNoClutterLayer
//     and appliance.ErrUnavailable, and Profile leaves ClutterClass and
//     ClutterHeightsM nil; a Layered profile fills them only when every
//     sample's height came from a pack with the layer.
//   - Land cover is answered wherever the pack holds the tile, void tiles
//     included (the heights there are still "tile missing"); sea tiles are
//     Water.
//   - Profile distances are great-circle metres on the mean sphere
//     (appliance.EarthRadiusM); sample i lies at i*stepM metres, the last at
//     the full distance.
package terrain
