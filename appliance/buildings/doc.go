// Package buildings imports tenants' building layers for the raytrace
// engine and keeps them: the importers (GeoJSON, zipped Shapefile,
// OpenStreetMap XML and PBF, each optionally gzip-compressed) and the
// layer service (upload, list, inspect, delete; quotas; the cached scene
// index).
//
// # Importing
//
// Parse detects the format from the bytes (gzip magic, zip magic,
// "OSMHeader" in a PBF's first blob header, '{' for GeoJSON, '<' for OSM
// XML) and keeps every Polygon or MultiPolygon feature (OpenStreetMap:
// closed ways and multipolygon relations tagged building or
// building:part, assembled by github.com/paulmach/osm's osmgeojson) that
// passes validation. A feature that fails is refused alone, with a reason
// (appliance.FeatureRefusal); the file fails as a whole only when it is
// not a supported format, is malformed as a whole (invalid JSON, a
// damaged zip or gzip), exceeds the size limit or holds no usable
// building. A decoder panic refuses the file; it never stops the process.
//
// Validation of one feature: every position finite and on the globe;
// rings of at least three distinct vertices and at most MaxRingVertices;
// the outer ring and each hole simple (no two non-adjacent edges meet);
// every hole inside the outer ring and not touching it; no two holes
// touching, crossing or nested (the scene's even-odd rule would make
// their overlap solid again); the parts of a multipolygon neither
// touching, crossing nor lying inside one another (a part standing in
// another's courtyard is fine; duplicated parts would duplicate walls);
// an area of at least MinFootprintAreaM2 and a span of at most
// MaxFootprintSpanM; a tagged height of at most MaxHeightM. The checks
// between edges sweep them in x behind a bounding-box prefilter
// (geometry.go), so the largest feature the caps below admit (an outer
// ring and 4 holes of 3999 vertices) validates in about 0.03 s where the
// pairwise tests took 1.5 s (BenchmarkIssue24_ValidateBigPolygon).
//
// Size limits (limits.go, osmread.go, pbf.go; before them the tier's
// file cap):
//
//   - Decompression: gzip, the zip of a Shapefile and the zlib blobs of a
//     PBF may together expand to at most MaxExpansion (20) × the uploaded
//     size and MaxBytes × MaxExpansion, but always to MinExpansionBytes
//     (1 MiB); a gzipped zip counts both layers.
//   - OpenStreetMap XML is streamed (osmxml.Scanner) and PBF decoded block
//     by block (pbf.go), with nodes kept as 24-byte records: at most
//     MaxOSMNodes (4 Mi) nodes, MaxOSMWays (1 Mi) ways, MaxOSMRelations
//     (256 Ki) relations, MaxOSMWayNodes (4 Mi) node references in all
//     ways, MaxOSMTags (4 Mi) tags on ways and relations and
//     MaxOSMMembers (1 Mi) relation members per file (filter an extract
//     to its buildings). The PBF decoder checks each count before it
//     allocates for it.
//   - Per feature (refused alone): at most MaxPartsPerFeature (64)
//     polygons, MaxRingsPerPolygon (64) rings per polygon,
//     MaxRingVertices (4000) per ring and MaxFeatureVertices (20 000) in
//     all, which bounds the pairwise edge checks to about 0.1 s per
//     feature; the context is looked at every 16 Ki vertices.
//   - Per layer (the file refused, 422 naming file, with the figure): at
//     most MaxBuildings buildings (further ones refused one by one),
//     appliance.BuildingLayerMaxVertices (1 Mi) ring vertices,
//     appliance.BuildingLayerMaxWallTiles (32 Mi) scattering tiles of
//     3 m × 3 m (Σ ⌈wall length/3 m⌉ × ⌈wall height/3 m⌉; a district of
//     20 000 buildings of 20 m × 20 m × 30 m has 5.6 M, the TU Dortmund
//     campus 40 572), and half the bounds' diagonal at most
//     appliance.RaytraceMaxFrameM (20 km: the scene's frame is centred on
//     the bounds, and its grids and terrain grow with the square of the
//     extent). engines/raytrace.NewScene asserts the same bounds. A
//     maximal layer's scene costs about 0.6 GB for its tiles alone
//     (64 bytes each, plus 4 per tile in the tile grid).
//
// # OpenStreetMap PBF
//
// PBF is decoded by our own decoder (pbf.go), not by
// github.com/paulmach/osm/osmpbf: osmpbf decodes blocks in goroutines of
// its own, where a panic on a hostile file (a raw_size that overflows
// its buffer arithmetic, a string index past the table, a plain Node, a
// field sent with another wire type) cannot be recovered and stops the
// serve process; a pre-check of the bytes osmpbf would read kept missing
// such inputs, since it had to predict another decoder's reading. Ours
// runs in the caller's goroutine under Parse's recover, reads with
// protowire's strict primitives (google.golang.org/protobuf) and checks,
// refusing the file (422 naming file, with the byte offset of the blob
// and the reason) otherwise:
//
//   - framing: each BlobHeader's length under 64 KiB, its type and
//     datasize present, datasize under 32 MiB and within the file; the
//     first block an OSMHeader whose required_features are among
//     OsmSchema-V0.6, DenseNodes, HistoricalInformation and
//     LocationsOnWays; blobs other than OSMHeader and OSMData skipped;
//   - blobs raw or zlib (lzma, bzip2, lz4 and zstd refused by name), not
//     both, raw_size within 0..32 MiB, taken from the decompression
//     budget before inflating and equal to what the zlib data expands to;
//   - every field read has the wire type osmformat.proto gives it; group
//     wire types and the invalid types 6 and 7 are refused anywhere;
//     packed arrays are length-delimited, end on a varint boundary,
//     appear once per element and have no varint over 10 bytes;
//   - one string table per block, of at most 1 Mi strings (kept as Go
//     strings, invalid UTF-8 replaced by U+FFFD); granularity positive (lat_offset and
//     lon_offset read; date_granularity, info and denseinfo not used);
//   - plain Nodes (id, lat, lon required) and DenseNodes (ids, lats and
//     lons of one length, delta-coded; keys_vals, when present, one
//     0-terminated list of index pairs per node) are decoded; node tags
//     are checked but not kept;
//   - Ways need an id; keys and vals of one length; refs delta-coded;
//     with LocationsOnWays, lats and lons as long as refs (osmgeojson uses
//     them where the file has no node);
//   - Relations need an id; roles_sid, memids (delta-coded) and types of
//     one length, types 0 (node), 1 (way) or 2 (relation);
//   - every string index (keys, values, roles, dense keys_vals) within
//     the block's table; ChangeSets skipped; the context looked at
//     between blocks.
//
// pbf_test.go compares the decoder with osmpbf and with the XML of the
// same extract (read by osmxml) on the real files of testdata, and the
// building layers imported from each PBF with those from the XML;
// pbf_osmium_test.go (systemtools) does the same on random extracts that
// osmium-tool writes in each of its PBF encodings. On the TU Dortmund
// file the decoder takes 4.3 ms and 3.6 MB where osmpbf took 9.6 ms and
// 38 MB (BenchmarkPBFDecode).
//
// OpenStreetMap relations and parts: every multipolygon relation tagged
// building or building:part that assembles into no feature (an extract
// cut one of its outer ways away, or its outer ways do not join into a
// closed ring) is refused by name with the reason, never dropped
// silently. Outlines and parts follow Simple 3D Buildings: the outline of
// a building described by building:part shapes is only its footprint, so
// it is dropped and the parts (which carry the heights and min_height)
// stand in its place: the outline member of a type=building relation
// whose part members were kept, and any building way or multipolygon
// inside which a kept building:part lies (every vertex of the part inside
// the outline or within 0.5 m of its edge). The layer's warning
// buildings_outlines_replaced_by_parts counts the outlines dropped and
// the parts replacing them. A building:part tagged indoor=* (other than
// no) maps a room or shaft (Simple Indoor Tagging), not the outer shape:
// it is refused with that reason. The TU Dortmund export's only two
// building:part ways are such indoor elevator shafts: they were two 9 m
// buildings inside their building (402 buildings); now 400 buildings and
// those 2 refused, no outline replaced.
//
// A way tagged building that is an outer member of a building
// multipolygon that assembled is merged into the relation (warning
// buildings_outer_ways_merged): the relation is the building, with its
// own tags, or, where it has one such outer way and no height tag of its
// own, the way's height tags. Keeping both stood two buildings in one
// place, walls inside walls: the TU Dortmund export's DELTA synchrotron is
// tagged on its relation and on its outer way (399 buildings now).
//
// osmgeojson leaves out, silently, two kinds of member way of a building
// multipolygon it does assemble: an inner way that lies in none of
// several outer rings, and an outer way that joins into no closed ring
// while the others do (an extract cut it). The building is kept as
// assembled (a courtyard then solid, or a part missing) and the warning
// buildings_rings_dropped counts such ways and names up to five
// relations (rings.go: a member way is kept when one of its vertices is a
// vertex of a ring of its role in the assembled geometry).
//
// Heights, in this order: height or building:height (metres, bare or
// with m, metre(s), meter(s) in any case; feet with ', ft or feet), which
// includes the roof; else building:levels × StoreyHeightM (3 m) plus the
// roof as Simple 3D Buildings counts it (building:levels are the storeys
// below the roof): roof:height, else roof:levels × StoreyHeightM; else
// DefaultHeightM (9 m, three storeys), marked appliance.HeightDefault so
// that every answer the building shapes carries a warning. A height below
// MinBuildingHeightM (2 m; zero and negative included) is treated as
// unknown and the next rule applies, as is an unreadable value ("12
// stories", "NaN"); the layer's warning buildings_unusable_height_tags
// counts such tags (a tagged height above MaxHeightM refuses the
// feature). So building=roof with building:levels=0 (a roof on pillars)
// and no roof:levels or height gets the flagged 9 m default, modelled as
// a solid block from the ground (or from min_height); with roof:levels=1
// it is 3 m. min_height (or building:min_level × StoreyHeightM; the
// level-numbering key min_level is not read) lifts the building's base;
// a base at or above the roof (min_height ≥ height, the assumed height
// included) refuses the feature with both figures. On the TU Dortmund
// export the roof rule lifts the 11 buildings tagged building:levels=3
// and roof:levels=1 from 9 to 12 m, and FB Informatik's min_level=-1 (a
// basement) no longer counts. Shapefile attribute names laundered by GDAL (building_l, building_h)
// are read too.
//
// Materials: building:material (or a material attribute) names a P.2040
// material (concrete, brick, glass, wood, metal; steel and aluminium are
// metal, stone and plaster concrete); otherwise the layer's per-class
// material (by building=*), otherwise the layer's default (concrete).
//
// # Layers
//
// A layer belongs to one tenant. Uploading one is Enterprise or Ultra
// only (the raytrace engine's tiers, appliance.RaytraceTier; other tiers
// get appliance.ErrForbidden, 403); listing, inspecting and deleting the
// tenant's own layers is allowed at any tier, so that a tenant that moved
// below Enterprise still sees and erases what it keeps (its list shows
// limits of zero); tracing a layer stays Enterprise or Ultra
// (appliance/raytracing):
//
//	state      trigger                      condition                                   next       effects
//	(none)     CheckUpload (before the      tier allows; Content-Length ≤ the tier's    (none)     the tier's file cap, which
//	           body is read)                file cap (Enterprise 32 MiB, Ultra 128                 bounds the read; else 403, 413,
//	                                        MiB); name, materials, heights valid;                  422, 429 before a byte is read
//	                                        the tenant below its layer and byte caps
//	                                        (Enterprise 20 / 256 MiB, Ultra 100 / 1 GiB)
//	(none)     Upload                       the same on the bytes read; ≥ 1 building    stored     quota checked before the parse;
//	                                                                                               parse and index (built and
//	                                                                                               cached) under admission;
//	                                                                                               layer + buildings + audit
//	                                                                                               buildings.layer.upload in one
//	                                                                                               store transaction (the quota
//	                                                                                               checked again inside it)
//	(none)     Upload                       any condition fails                         (none)     413 (file cap), 429 (quota,
//	                                                                                               before any parse), 422 (file
//	                                                                                               or parameters), 503 +
//	                                                                                               Retry-After (queue full)
//	stored     List                         any tier                                    stored     the tenant's layers and usage
//	stored     Get                          the tenant's own layer, any tier            stored     the record only when the scene
//	                                                                                               is cached; else buildings read
//	                                                                                               and index rebuilt under
//	                                                                                               admission (503 + Retry-After
//	                                                                                               when the queue is full; 422
//	                                                                                               when the scene refuses the
//	                                                                                               layer)
//	stored     Delete                       the tenant's own layer, any tier            (none)     layer, buildings and cached
//	                                                                                               index gone; audit
//	                                                                                               buildings.layer.delete
//	stored     the tenant's hard delete     DSAR                                        (none)     store/privacy.go purges both
//	                                                                                               buckets
//
// # Uploads
//
// web/api calls CheckUpload with the request's Content-Length before it
// reads a byte of the body, and reads the body under the key's own file
// cap (a chunked body past it is a 413 at the cap), so that a key that may
// not upload, or a file over its tier's cap, never holds memory. The body
// is charged to the uploads' own decode budget (128 MiB, the Ultra cap;
// web/api, appliance/decodebudget), not to the appliance-wide one: an
// upload at the Ultra cap is read when no other upload holds that budget
// (503 + Retry-After while one does), and no upload takes the memory of
// another route's body. A body is charged exactly its Content-Length.
//
// Another tenant's layer id is answered as a missing one (ErrNotFound,
// 404). The scene cache (engines/raytrace.Cache behind the Indexer) holds
// scenes keyed by tenant, layer id, file hash and materials, bounded by
// their estimated bytes (assemble.SceneCacheBytes, 1 GiB, for all
// tenants: a 40 000-building layer's scene is about 806 MiB), so a
// layer's index is built once however many requests use it.
//
// # Heavy work
//
// An upload's parse and index build, and a scene rebuilt on a cache miss
// (Get), run on the request's goroutine but only once the appliance's
// scheduler (appliance/admission, Service.Admitter) admits them, as
// appliance.HeavyWork of kind KindUpload (memory: 100 bytes per file
// byte) or KindSceneBuild (Indexer.EstimateBytes); a full queue refuses
// them with 503 + Retry-After. Work estimated over the whole budget runs
// alone (appliance.AdmitNow). A Get of a cached layer reads the layer's
// record only (1.5 ms on a 40 000-building layer, where reading every
// building took 164–235 ms: BenchmarkIssue24_GetCached).
//
// # Caveats
//
// No Shapefile library is reachable through the module proxy, so the .shp
// and .dbf readers are written here from the ESRI technical description
// (polygons only; WGS84 longitude/latitude: a .prj of another system,
// any projected one such as UTM included, is refused with a request to
// reproject). SIRGAS 2000 longitude/latitude (EPSG:4674, Brazil's
// official datum and IBGE's default, a GEOGCS whose datum is SIRGAS_2000
// or Sistema_de_Referencia_Geocentrico_para_las_AmericaS_2000) is read as
// WGS84, which it matches within about 1 m, with the warning
// buildings_sirgas2000_as_wgs84. Attribute text is decoded to UTF-8 by
// the .cpg (UTF-8, ISO-8859-1/Latin-1, 8859-15, Windows 1252, DOS 437 and
// 850), else by the dBase language driver byte (0x01 437, 0x02 850, 0x03
// 1252, 0x57 ISO-8859-1 as GDAL reads it), else as UTF-8; bytes that are
// not valid UTF-8 where UTF-8 is declared or assumed are read as Latin-1
// (golang.org/x/text/encoding/charmap). Multipolygon relations whose members are missing
// from an OSM extract are refused ("members missing"), including those
// whose outer ring could not be assembled at all.
package buildings
