// Package packer builds and verifies linkplan terrain packs
// (terrain-packs/FORMAT.md) from SRTM .hgt tiles; `linkplan terrain build`
// and `linkplan terrain verify` call Build and Verify.
//
// # Basics
//
//	st, err := packer.Build(ctx, "rio.ltp", []string{"S23W044.hgt.zip", "S22W043.hgt.zip"},
//		packer.Options{SeaTiles: []string{"S24W043"}, Progress: report})
//	rep, err := packer.Verify(ctx, "rio.ltp")
//
// Inputs are SRTM .hgt files, plain, zipped (one .hgt inside) or gzipped;
// the tile comes from the file name (S23W044...). 3″ files are 1201×1201,
// 1″ files 3601×3601 int16 big-endian samples, void -32768. The pack has
// one grid (Options.SamplesPerDegree, default: the inputs' grid); a source
// on another grid is resampled bilinearly (1″ to 3″ is exact decimation).
//
// Void filling (FillVoids): each void sample becomes the inverse-distance-
// squared mean of the nearest valid sample in each of the 8 grid
// directions (rows, columns, diagonals; distance in sample steps, √2 per
// diagonal step). Only original samples take part, so the result does not
// depend on the order of filling; the rare void that sees no valid sample on
// any of its 8 lines is filled in a second round from the first round's
// values. A tile with no valid sample at all becomes a void tile.
//
// Build writes out+".tmp" and renames it, then writes the manifest (bounds,
// tiles, sha256) to ManifestPath(out). Output is deterministic: the same
// inputs and options give the same bytes, whatever their order.
//
// # Caveats
//
//   - Filled voids are estimates; the index records how many samples of each
//     tile were filled (Entry.Filled, Info's filled_samples).
//   - Edge samples shared by two tiles are filled per tile: at a void on a
//     shared edge two neighbouring tiles may disagree by a few metres.
//   - Distances in the fill are in sample steps, not metres: at 23°S a step
//     east is 8 % shorter than a step north; the weighting ignores that.
package packer
