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
// Inputs are in priority order: when several inputs supply the same tile
// (an SRTM v2.1 tile, then a void-filled DEM or a survey as GeoTIFF), each
// sample comes from the first input that measured it; later inputs fill
// the voids and NoData of earlier ones (Stats.MeasuredFromLower counts
// those samples, which are measured, not void-filled). The same input
// twice, or an input and a sea tile for one tile, is an error.
//
//	st, err := packer.Build(ctx, "rio.ltp", []string{"S23W044.hgt.zip", "rio-survey.tif"}, packer.Options{})
//
// Voids no input measured (in tiles with an .hgt input) are filled by
// interpolation (FillVoids) and recorded in the pack's void mask (format
// version 4): one bit per sample, so readers can say which heights are
// interpolated (terrain.Pack.VoidFilledAt, PathProfile.VoidFilled).
// Options.NoVoidMask leaves it out for readers older than version 4.
//
// Land tiles are coded with terrain.CodecPredictive (about a third of the
// raw int16 size on real SRTM3 terrain) unless Options.Codec asks for
// terrain.CodecZstdRaw; without the void mask and land cover the pack is
// then version 2 or 1. Sea tiles come
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
// Void filling (FillVoids): a membrane (Laplace) fill per 4-connected void
// region, held by its land border: each filled sample is the mean of its
// non-sea 4-neighbours, the measured land samples touching the region (its
// land border) fixed, solved by successive over-relaxation in a fixed
// order (deterministic). Sea samples on the border (SRTM writes 0 m over
// the sea; 0 m or below counts as sea) are a no-flux (Neumann) boundary,
// like the tile's edge: they neither pull the void toward sea level nor
// hold it. Only a void with no land border at all (sea all round) is held
// by its sea border and reads about 0 m. A tile with no valid sample at
// all becomes a void tile.
//
// Why not let the sea hold the void too: SRTM voids are not random. They
// form on steep ground (radar shadow and layover on peaks and cliffs),
// where the truth lies above the border, so any fill reads them low, and a
// sea-pinned fill reads a coastal peak lowest of all: the unsafe direction
// for link planning (a hidden obstruction makes a link look clear), where
// a high bias is conservative. The fill was chosen on the void-like
// figures below, and on the direction of the bias.
//
// Measured error (TestFillError, seed 20240601, real tile S23W044): discs
// of known-good samples of the size of real SRTM voids (radius 2 to 6
// samples, 13 to 113 samples, 300 discs per row; only land samples are
// masked) are masked, filled and compared with the truth. Void-like discs
// are centred on steep ground: a sample in the top decile of the tile's
// land slope (central differences) or a local maximum (highest of its 7×7
// window, above 50 m); coastal ones have a sea sample within one sample
// of the disc, inland ones no sea within 8 samples. Random discs are
// centred anywhere: inland with relief ≥ 150 m, coastal with at least a
// quarter of the disc over the sea and land ≥ 40 m. Bias is the mean of
// (filled − true): negative reads low. Peak deficit is the mean of (true
// disc maximum − filled disc maximum).
//
//	RMSE / max |error| / bias / peak deficit, metres
//	                     membrane land-only     membrane with sea      old 8-direction IDW²
//	                     (this fill)            (format 4 until now)   (before format 4)
//	steep, inland        38.9 / 182 / −8.0 / 27.0   38.9 / 182 / −8.0 / 27.0   38.1 / 190 / −8.5 / 13.0
//	steep, coastal       41.9 / 157 / −3.3 / 36.1   40.9 / 177 / −16.7 / 38.3  39.7 / 181 / −17.1 / 22.6
//	peak, inland         31.6 / 195 / −12.5 / 30.0  31.6 / 195 / −12.5 / 30.0  32.8 / 199 / −12.8 / 22.8
//	peak, coastal        33.1 / 150 / −14.5 / 41.7  37.2 / 176 / −21.2 / 42.8  38.1 / 180 / −21.5 / 35.6
//	random, inland       36.6 / 180 / −3.2 / 25.7   36.6 / 180 / −3.2 / 25.7   37.3 / 211 / −3.5 / 11.3
//	random, coastal      33.9 / 141 / +14.5 / 11.2  22.9 / 165 / −5.5 / 17.2   23.0 / 176 / −5.4 / 7.1
//
// Inland the two membranes are the same fill (no sea on the border). On
// the coastal void-like discs the land-only border cuts the low bias from
// −16.7 to −3.3 m (steep) and from −21.2 to −14.5 m (peaks), with the
// lowest RMSE on coastal peaks and 1 m more on steep coastal ground. On
// random coastal discs, which are mostly low shore land that really does
// slope to the sea, it reads high (+14.5 m, RMSE 33.9 m against 22.9 m):
// a conservative error for link planning, on ground where SRTM rarely has
// voids. The old inverse-distance fill flattens peaks least (smaller peak
// deficit) but is biased low like the sea-pinned membrane on the coast.
//
// Every fill under-reads summits: the highest filled sample of a void-like
// disc is 27 to 42 m below the true top on average. No interpolation
// invents a peak: the Sugarloaf (396 m) is one void of 172 samples ringed
// by 83 sea samples and 9 land samples of at most 14 m; the land-only fill
// reads it 9 m at the summit point (the sea-pinned fill 0 m). That
// is why the pack keeps the void mask, answers say void_filled, and a
// second DEM can be layered over the voids.
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
//     tile were filled (Entry.Filled, Info's filled_samples) and the void
//     mask which ones.
//   - A sample is measured by the first input (in the order given) that has
//     it; inputs are not blended, so a later DEM with a vertical offset
//     from the first leaves steps at the edges of the voids it fills.
//   - An .hgt input resampled to another grid (1″ to 3″) is resampled
//     before its voids are filled: a pack sample is a void when a source
//     sample it takes weight from is.
//   - Edge samples shared by two tiles are filled per tile: at a void on a
//     shared edge two neighbouring tiles may disagree by a few metres.
//   - The membrane works in sample steps, not metres: at 23°S a step east is
//     8 % shorter than a step north; the fill ignores that.
//   - GeoTIFF NoData is not filled in a tile that no .hgt input supplies
//     (the tile keeps NoData outside the rasters and is flagged).
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
