// Package pmtiles reads PMTiles version 3 archives (the single-file tile
// archive of github.com/protomaps/PMTiles, spec v3): a 127-byte header, a
// root directory, JSON metadata, leaf directories and tile data, read
// with ReadAt from a local file. The console's operator-supplied basemap
// (serve --basemap FILE, appliance/basemap.External) serves its tiles.
//
//	a, err := pmtiles.Open("/var/lib/linkplan/rj.pmtiles") // every defect is an error, never a panic
//	info := a.Info()                                        // tile type, zooms, bounds, attribution
//	b, ok, err := a.Tile(14, 6135, 9262)                    // ok false: the archive has no such tile
//
// # Why not github.com/protomaps/go-pmtiles
//
// Its package pmtiles links the cloud buckets it can read from (AWS S3,
// Azure Blob, Google Cloud Storage through gocloud.dev), a SQLite engine
// and Prometheus: a program that only calls ZxyToID is a 49.6 MB binary
// with 88 modules (measured with go 1.26.8, CGO_ENABLED=0), for an
// appliance that must never reach a cloud. Its directory decoder also
// trusts the archive (an entry count read from the file sizes an
// allocation; an unknown compression panics), where a basemap file
// handed in by an operator must fail with an error. This reader is
// written from the spec; the tests of package gopmcheck read archives
// written by go-pmtiles' own serialisers and check it against go-pmtiles'
// look-up, so the two agree on the format (go-pmtiles is a test-only
// dependency, linked by gopmcheck's tests alone).
//
// # What it accepts, and the bounds
//
//   - Magic "PMTiles", version 3; every section inside the file.
//   - Internal compression (directories and metadata) none, gzip or zstd;
//     brotli is refused (no decoder in the binary).
//   - Tile types MVT, PNG, JPEG, WebP and AVIF; tile compression none,
//     unknown (read as none) for raster tiles, and any for MVT (the bytes
//     are served as stored, with their Content-Encoding).
//   - Zooms 0..MaxZoom (30); bounds within ±180°, ±90°.
//   - A directory is at most MaxDirectoryBytes stored and
//     MaxDirectoryBytes·8 decoded; its entry count is checked against its
//     length before anything is allocated; entries must be sorted by tile
//     id. Metadata is at most MaxMetadataBytes decoded and must be a JSON
//     object (or empty). A tile is at most MaxTileBytes.
//   - Leaf directories nest at most MaxDepth levels below the root; the
//     decoded leaves are kept in an LRU cache of LeafCacheEntries.
//
// Open reads the header, the root directory and the metadata: a defect
// there is an error naming what is wrong. A defect in a leaf directory
// or a tile's range is found when a tile needs it: an error matching
// ErrCorrupt (never a panic), and the tile is not served.
//
// # Tile ids
//
// A tile (z, x, y) is the id (4^z − 1)/3 + d, d its distance along the
// Hilbert curve of order z (x from the west, y from the north, as XYZ
// tiles are numbered).
package pmtiles
