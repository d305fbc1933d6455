// Package packer builds and verifies linkplan terrain packs
// (terrain-packs/FORMAT.md) from SRTM .hgt tiles and GeoTIFF DEMs;
// `linkplan terrain build` and `linkplan terrain verify` call Build and
// Verify.
//
// # Basics
//
//	st, err := packer.Build(ctx, "rio.ltp", []string{"S23W044.hgt.zip", "S22W043.hgt.zip"},
//		packer.Options{SeaTiles: []string{"S24W043"}, Progress: report})
//	rep, err := packer.Verify(ctx, "rio.ltp")
//
// Inputs are SRTM .hgt files, plain, zipped (one .hgt inside) or gzipped;
// the tile comes from the file name (S23W044...). 3″ files are 1201×1201,
// 1″ files 3601×3601 int16 big-endian samples, void -32768. GeoTIFF DEMs
// (.tif/.tiff, read with terrain-packs/geotiff; any CRS that package
// projects: EPSG:4326/4674 and UTM; Options.GeoTIFFEPSG when the file does
// not say) become every tile their footprint overlaps: each pack sample is
// the bilinear interpolation of the four pixel centres around it, rounded
// to whole metres; outside the raster, or next to a NoData pixel, it is
// NoData (the tile is flagged and the reader answers "tile missing" there).
// The pack has one grid (Options.SamplesPerDegree, default: the inputs'
// grid, which must agree); a source on another grid is resampled
// bilinearly (1″ to 3″ is exact decimation).
//
// Land tiles are coded with terrain.CodecPredictive (a version-2 pack,
// about a third of the raw int16 size on real SRTM3 terrain) unless
// Options.Codec asks for the version-1 terrain.CodecZstdRaw. Sea tiles come
// from Options.SeaTiles or, with Options.AllZeroAsSea, from inputs whose
// samples are all 0 m; they cost no payload.
//
// Land cover (Options.LandCover, MapBiomas Collection 6 GeoTIFFs in any CRS
// terrain-packs/geotiff projects, SIRGAS 2000 / UTM included) adds the
// land-cover layer and makes a version-3 pack:
//
//	st, err := packer.Build(ctx, "amapa.ltp", hgts, packer.Options{LandCover: []string{"mapbiomas_AP_2020.tif"}})
//
// Each tile of the pack gets one class per height sample: the classes of
// every land-cover input whose footprint touches the tile, resampled onto
// the tile grid by clutter.ResampleTile (majority of the pixels of each
// cell; MapBiomas codes mapped by clutter.FromMapBiomas, see
// terrain-packs/clutter/MAPPING.md), the first input (in the order given)
// with a known class winning at each sample. Sea tiles are Water. A tile
// no input covers is stored explicitly as uniform class 0 (Unknown,
// counted in Stats.UncoveredTiles), never guessed; a tile with one class
// everywhere costs no payload; other tiles are one zstd frame of the class
// bytes (0.3 to 4.8 % of the 1.44 MB of the six real Amapá SRTM3 tiles of
// the tests). Land cover never adds tiles: only the height inputs and
// SeaTiles make tiles.
//
// Void filling (FillVoids): each void sample becomes the inverse-distance-
// squared mean of the nearest valid sample in each of the 8 grid
// directions (rows, columns, diagonals; distance in sample steps, √2 per
// diagonal step). Only original samples take part, so the result does not
// depend on the order of filling; the rare void that sees no valid sample on
// any of its 8 lines is filled in a second round from the first round's
// values. A tile with no valid sample at all becomes a void tile.
//
// Build is parallel (Options.Workers, default GOMAXPROCS) and streaming:
// each worker holds one tile at a time and writes it to a part file in
// out+".parts"; the parts are then copied in index order into out+".tmp",
// which is synced and renamed to out, and the manifest (bounds, tiles,
// sha256) goes to ManifestPath(out). Output is deterministic: the same
// inputs and options give the same bytes whatever their order, the worker
// count, GOMAXPROCS or an interruption. Options.Resume continues an
// interrupted build, reusing every part whose recipe (input path, size,
// modification time, grid, codec, options, and the same facts about the
// land-cover inputs touching the tile) still matches. Options.Progress is
// told about every tile.
//
// # Caveats
//
//   - Filled voids are estimates; the index records how many samples of each
//     tile were filled (Entry.Filled, Info's filled_samples).
//   - Edge samples shared by two tiles are filled per tile: at a void on a
//     shared edge two neighbouring tiles may disagree by a few metres.
//   - Distances in the fill are in sample steps, not metres: at 23°S a step
//     east is 8 % shorter than a step north; the weighting ignores that.
//   - GeoTIFF NoData inside the footprint is not filled (only .hgt voids
//     are); a GeoTIFF and an .hgt, or two GeoTIFFs, may not supply the same
//     tile (mosaicking is not implemented).
//   - Resume trusts modification times: an input rewritten within the same
//     nanosecond timestamp with the same size would not be noticed.
//   - Build needs free disk for the parts and the pack at once (about twice
//     the pack size) until the parts directory is removed.
//   - Land cover costs about 0.32 s of CPU per SRTM3 tile from the 30 m
//     MapBiomas raster (the resampling with 3×3 votes per sample, then
//     zstd; building the heights alone takes 0.08 s) plus a 1.44 MB class grid and a 16 MB
//     strip cache per worker; each worker opens the land-cover GeoTIFFs
//     again for each tile.
//   - Resume cannot see a change in terrain-packs/clutter's mapping or
//     resampling: clutterMethod must be bumped with them.
//   - Overlapping land-cover inputs are not blended: at each sample the
//     first input with a known class wins, so the order of
//     Options.LandCover matters where they overlap.
package packer
