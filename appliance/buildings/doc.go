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
// every hole inside the outer ring and not crossing it; an area of at
// least MinFootprintAreaM2 and a span of at most MaxFootprintSpanM; a
// tagged height of at most MaxHeightM.
//
// Heights, in this order: height or building:height (metres, or feet
// with ' or ft); else building:levels × StoreyHeightM (3 m); else
// DefaultHeightM (9 m, three storeys), marked appliance.HeightDefault so
// that every answer the building shapes carries a warning. min_height
// (or building:min_level × StoreyHeightM) lifts the building's base.
// Shapefile attribute names laundered by GDAL (building_l, building_h)
// are read too.
//
// Materials: building:material (or a material attribute) names a P.2040
// material (concrete, brick, glass, wood, metal; steel and aluminium are
// metal, stone and plaster concrete); otherwise the layer's per-class
// material (by building=*), otherwise the layer's default (concrete).
//
// # Layers
//
// A layer belongs to one tenant and is Enterprise or Ultra only (the
// raytrace engine's tiers; other tiers get appliance.ErrForbidden, 403):
//
//	state      trigger                      condition                                   next       effects
//	(none)     Upload                       tier allows; file ≤ the tier's file cap     stored     parse; index built and cached;
//	                                        (Enterprise 32 MiB, Ultra 128 MiB); name,              layer + buildings + audit
//	                                        materials, heights valid; ≥ 1 building;                buildings.layer.upload in one
//	                                        the tenant below its layer and byte caps               store transaction (the quota
//	                                        (Enterprise 20 / 256 MiB, Ultra 100 / 1 GiB)           is checked inside it)
//	(none)     Upload                       any condition fails                         (none)     413 (file cap), 429 (quota),
//	                                                                                               422 (file or parameters)
//	stored     Get                          the tenant's own layer                      stored     index rebuilt from the stored
//	                                                                                               buildings if the cache lost it
//	stored     Delete                       the tenant's own layer                      (none)     layer, buildings and cached
//	                                                                                               index gone; audit
//	                                                                                               buildings.layer.delete
//	stored     the tenant's hard delete     DSAR                                        (none)     store/privacy.go purges both
//	                                                                                               buckets
//
// Another tenant's layer id is answered as a missing one (ErrNotFound,
// 404). The scene cache (engines/raytrace.Cache behind the Indexer) holds
// a bounded number of scenes keyed by tenant, layer id, file hash and
// materials, so a layer's index is built once however many requests use
// it.
//
// # Caveats
//
// No Shapefile library is reachable through the module proxy, so the .shp
// and .dbf readers are written here from the ESRI technical description
// (polygons only; WGS84 only: a .prj of another system is refused with a
// request to reproject). Multipolygon relations whose members are missing
// from an OSM extract are refused ("members missing").
package buildings
