// Package basemap renders the console's offline basemap from the
// appliance's own terrain: XYZ tiles of three layers, hillshade (shaded
// relief in greys), elevation (height in colours) and surface (water,
// void-filled ground and ground without terrain), so that a map is useful
// on an air-gapped site with no tile server. It also serves an
// operator-supplied PMTiles archive (External, below), and draws it when
// its tiles are vector (MVT) tiles.
//
// # Basics
//
// Tiles are numbered as Leaflet and OpenStreetMap number them (Web
// Mercator, EPSG:3857, on a sphere of radius EarthRadiusM): zoom z in
// MinZoom..MaxZoom (0–15), column x from 180° W eastwards and row y from
// the north edge (±85.0511°) southwards, 0 <= x, y < 2^z. Each tile is a
// 256×256 PNG (8-bit palette):
//
//	svc, err := basemap.New(ter, basemap.Options{Identity: digest})
//	t, err := basemap.ParseTile("12", "1556", "2316")  // *AddressError naming z, x or y
//	img, err := svc.Tile(ctx, basemap.LayerHillshade, t, r.Header.Get("If-None-Match"))
//	// img.PNG, img.ETag, img.MaxAge; img.NotModified: answer 304
//
// # What it renders
//
// The terrain is sampled at the tile's pixel centres plus a one-pixel
// border (258×258 points: a pixel row has one latitude, a column one
// longitude); terrain that implements appliance.GridSampler samples the
// grid in one call, other terrain answers one ElevationM per point (the
// same heights, bit for bit, and so the same bytes; BenchmarkRenderZ12 and
// BenchmarkRenderZ12Naive compare them, see Cost). Horn's method gives each pixel's
// slope from its 3×3 window, with the pixel's ground size (2π·R·cos φ /
// (256·2^z) metres) and the vertical exaggeration of the zoom
// (Exaggeration: 1 from zoom 12, 2^((12−z)/2) below, at most 8); the
// shade is the cosine between the surface normal and the sun at azimuth
// SunAzimuthDeg (315°, the north-west) and altitude SunAltitudeDeg (45°),
// clamped to 0..1, written as grey 1 + round(254·shade) (flat ground is
// grey 181).
//
// The elevation layer colours each pixel by the height at its centre
// (TintStops: green lowlands at 0 m through yellow, tan and browns to grey
// at 2 700 m and white at 3 000 m, interpolated linearly in RGB, in
// TintSteps levels of about 11.8 m; lower heights take the first colour,
// higher the last). It is opaque where there is terrain; the console lays
// the hillshade over it, or shows either alone.
//
// Where the terrain has no height (no pack covers the point: a
// *appliance.TileMissingError) the pixel is transparent, never sea level;
// a missing neighbour takes the height of the pixel it surrounds, so the
// edge of the terrain is shaded as flat. A tile without any terrain is a
// valid, fully transparent 256×256 PNG (a 1-bit image of a few dozen
// bytes), answered with 200 like any tile rather than 204: Leaflet draws
// an <img> from it, where an empty answer would be a broken image. Sea
// tiles of a pack have height 0 and are shaded flat.
//
// The surface layer (surface.go, SurfaceAt) is an overlay, transparent
// over measured land. A pixel whose height is exactly 0 m is water
// (WaterColor, opaque): the packs' sea tiles answer 0 m and SRTM v2.1 set
// the ocean to 0 m, and a bilinear height is exactly 0 only where every
// sample around it is. A pixel of land whose height the pack's void mask
// (appliance.VoidMap) says was interpolated across a void of the source
// DEM is hatched (VoidColor, diagonal lines two pixels wide every
// VoidHatchPx world pixels). A pixel no pack covers is cross-hatched
// (NoDataColor, every NoDataHatchPx): the packs cannot tell sea from land
// there, so it is neither drawn as water nor as land. Hatches are laid on
// the world's pixel grid of the zoom, so they join across tiles. The
// void mask is asked only for pixels on a hatch line (a quarter of them).
// Lakes flattened to a height other than 0 m, and land at exactly 0 m,
// are not told apart: the packs carry no water mask of their own.
//
// # The operator's basemap
//
// External (external.go) serves the tiles of a PMTiles archive given to
// serve --basemap FILE (read by package pmtiles, which checks the header,
// root directory and metadata at start-up): each tile as stored, with its
// media type, its Content-Encoding (vector tiles are often gzipped), an
// ETag (the archive's identity and a digest of the tile) and MaxAge; a
// tile the archive lacks is appliance.ErrNotFound; a defect of the
// archive at a tile is appliance.ErrUnavailable. At most 4·GOMAXPROCS
// tiles are read at once. Info describes the archive for the console:
// raster archives (PNG, JPEG, WebP, AVIF) are drawn as stored; vector
// (MVT) archives are drawn by the appliance (RenderedTile and Labels,
// below, VectorNote), except those whose tiles are brotli-compressed
// (no decoder in the binary: served, not drawn, VectorBrotliNote).
//
//	state          event                               next
//	no archive     serve without --basemap             not configured (Info: Configured false, tiles 404)
//	no archive     serve --basemap FILE, file good     serving
//	no archive     serve --basemap FILE, file bad      serve exits with an error naming --basemap
//	serving        tile held                           serving (200, or 304 on a matching ETag)
//	serving        tile not held                       serving (404)
//	serving        tile damaged in the file            serving (503 for that tile)
//	serving        vector tile drawn                   serving (200 PNG, cached; 304 on the rendered ETag)
//	serving        vector tile broken or over a bound  serving (503 for that tile, ErrVectorTile; nothing cached)
//
// # Vector archives
//
// A browser could draw MVT tiles itself, but only with a vector renderer
// (MapLibre GL JS, the usual one, is some 800 KB minified and over 200 KB
// gzipped: with the console's ~400 KB it would pass the 600 KB budget,
// and it needs WebGL and a blob: worker the CSP would have to allow). So
// the appliance draws them (vector.go: decoding and drawing;
// vectorstyle.go: the style; vectorlabels.go: labels) and the console keeps drawing
// plain raster tiles from the same origin:
//
//	img, err := ext.RenderedTile(ctx, t, 1, r.Header.Get("If-None-Match")) // 256 px PNG; scale 2: 512 px
//	labels, err := ext.Labels(ctx, t)                                       // place names in t, rank first
//
// Decoding. The stored tile is decompressed (gzip, zstd or none; a gzip
// header on a tile marked uncompressed is honoured) to at most
// MaxVectorTileBytes (4 MiB). Its layers are scanned without decoding
// their features (github.com/paulmach/protoscan) and only the layers the
// style draws are handed to orb's MVT decoder
// (github.com/paulmach/orb/encoding/mvt): the POIs and house numbers of
// a real tile, often most of its bytes, are never decoded (the skipped
// layers are named in VectorStats and in Info.SkippedLayers). The kept
// layers may hold at most MaxVectorFeatures (100 000) features, counted
// before decoding; at most MaxVectorVertices (2 000 000) vertices are
// drawn, stroke outlines and dashes included. A panic of a decoder on a
// broken tile is recovered into ErrVectorTile (FuzzRenderVectorTile).
//
// Drawing. Geometry is mapped from the tile's extent to the pixels of the
// drawn tile, clipped (orb/clip) to the tile plus the widest line's half
// width when it reaches beyond, and filled with golang.org/x/image/vector
// (anti-aliased; a pixel's coverage is its absolute winding clamped to
// 1, so MVT holes, wound the other way, stay empty; its
// arithmetic is bit-exact across architectures, so the bytes are the same
// everywhere). Lines are stroked as one quadrilateral per segment plus an
// octagon at every vertex from 1.5 px wide (round joins and caps), all
// wound alike so that overlaps do not cancel; dashes are cut along the
// line. The background is LandColor, opaque; then, in this order, one
// pass per paint (its features of all layers at once):
//
//	paint              layers (schema)                                     classes (kind, class, kind_detail, subclass)
//	earth              earth (Protomaps)                                    all polygons, LandColor
//	farmland .. park   landuse, landcover, park, land, natural              farmland, grass, residential, industrial,
//	                                                                        institution, barren, wetland, forest, park
//	                                                                        (landKinds); OpenMapTiles' park layer is park
//	water              water, ocean, water_polygons, waterway, water_lines  polygons: VectorWater
//	waterway           the same layers                                      lines, 0.6 px at zoom 8 to 6 px at 18
//	building           buildings, building                                  polygons from zoom 14, BuildingColor
//	boundaries         boundaries, boundary                                 country (admin_level 2) and region (3–4), dashed
//	rail, path         roads, transportation, streets, transit              rail from zoom 10; paths dashed from zoom 14
//	casings, roads     roads, transportation, streets                       minor (from zoom 12, MinorColor), major
//	                                                                        (from 7, MajorColor), highway (from 4,
//	                                                                        HighwayColor): casings of all three first
//
// Line widths are given at a few zooms (styles) and interpolated
// exponentially between them, doubled at scale 2. Every other layer is
// skipped and counted; a feature of a drawn layer whose class the style
// does not know is skipped too. Labels are never drawn into the tiles
// (they would be cut at tile edges and collide across them).
//
// Labels. Labels returns the named points of the place layers (places,
// place, place_labels) that lie inside the tile's extent (the buffer is
// left out, so each place comes from one tile only), with their WGS84
// position, class and a rank: the class (country 0, state 1, city 2,
// town 3, village 4, suburb 5, neighbourhood 6, hamlet 7, isolated
// dwelling 8, other 9) times 100 plus the archive's own order within it
// (OpenMapTiles' rank, or 99 minus Protomaps' population_rank). Protomaps
// places with a min_zoom beyond the tile's zoom are left out. The console
// merges them with the municipality labels and places both with one
// collision test.
//
// Overzoom. A tile beyond the archive's largest zoom (at most MaxOverzoom,
// 6, deeper) is drawn from its ancestor at that zoom, at full resolution:
// lines stay sharp where a raster would be scaled. Below the archive's
// smallest zoom there is no tile.
//
// Rendered tiles share the LRU cache type of the terrain layers (their own
// instance, DefaultExternalCacheBytes, 32 MiB), keyed by tile and scale;
// their ETag is the same for every tile of one archive, renderer version
// (vectorRenderVersion) and scale, so a revalidation answers 304 without
// reading or rendering once the tile is cached (or after a read that
// finds the tile, before rendering). At most GOMAXPROCS tiles render at
// once; a render checks its context between passes.
//
// Cost: one dense synthetic zoom-14 city tile (vector_internal_test.go:
// 400 roads of 20 vertices, 1 500 buildings, 40 landuse polygons, water,
// and 8 000 points in two skipped layers), measured as user CPU time of
// 100 renders with -test.cpu 1 on the shared 2-core VM (load average
// 12–16, three runs): BenchmarkRenderVectorTile 24.8 ms per tile and
// 2.3 MB allocated (about a third in the PNG encoder), against 32 ms and
// 7.9 MB for BenchmarkRenderVectorTileNaive, which decodes every layer;
// a cached tile (BenchmarkRenderVectorTileCached) 0.3–1.6 µs. Wall times
// under that load were 4–5 times the CPU time.
//
// The same tile gives the same bytes (the renderer and image/png are
// deterministic); golden tests pin one Rio de Janeiro tile of each layer.
//
// # Cache rules
//
// Rendered tiles live in an in-memory LRU cache bounded in bytes
// (Options.CacheBytes, default DefaultCacheBytes, 32 MiB, shared by both
// layers, each entry counted as its PNG plus 128 bytes); nothing is
// written to disk. Terrain is immutable for a running binary, so an entry
// never goes stale: it only leaves the cache when less recently used
// tiles need the room. The ETag is the same for every tile of a layer: a
// digest of the layer, the renderer version and Options.Identity (which
// the composition root derives from the loaded packs' indexes); it
// changes when the packs or the renderer change. Clients may keep a tile
// for MaxAge (one hour) and then revalidate: an If-None-Match holding the
// layer's ETag is answered NotModified without rendering. At most
// Options.MaxRenders tiles (default GOMAXPROCS) render at once; further
// requests wait for a slot or their context.
//
// A tile in the cache goes through these states:
//
//	state      event                              next
//	absent     request (cache miss)               rendering
//	rendering  render succeeds                    cached
//	rendering  render fails, or context ends      absent (the error is returned, nothing stored)
//	cached     request (cache hit)                cached (moved to the front)
//	cached     other tiles need the room          absent (evicted, least recently used first)
//
// Two concurrent misses on one tile may both render it; both get the same
// bytes and the cache keeps one copy.
//
// # Cost
//
// One zoom-12 Rio tile (render_internal_test.go, no tile cache), on the
// shared 2-core development VM under load (load average 9–12), five runs
// each: BenchmarkRenderZ12 a median 6.1 ms (5.5–16.8 ms) and about 113 KB
// allocated, BenchmarkRenderZ12Naive (one ElevationM per point) 25.5 ms
// (24–32 ms); the sampling alone (BenchmarkSampleZ12, 258×258 heights)
// 1.4 ms (0.9–3.3 ms) against 9.0 ms (7.7–11.6 ms). The rest is Horn's
// method and the PNG encoder, whose compressor is reused between tiles.
//
// # Caveats
//
// The bytes are the same for the same tile on one architecture; Go may
// fuse multiply-adds on some (arm64), which can move a pixel by one grey
// level there, so the golden tiles are those of amd64.
//
// The hillshade is only as sharp as the terrain: SRTM3 packs (90 m) look
// smooth beyond zoom 13. Tiles are rendered for any position; only the
// loaded packs decide where there is terrain. The elevation palette is
// made for Brazil's range of heights (0–3 000 m): higher ground elsewhere
// is all white.
package basemap
