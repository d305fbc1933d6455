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
// # Caveats
//
// No Shapefile library is reachable through the module proxy, so the .shp
// and .dbf readers are written here from the ESRI technical description
// (polygons only; WGS84 only: a .prj of another system is refused with a
// request to reproject). Multipolygon relations whose members are missing
// from an OSM extract are refused ("members missing").
package buildings
