// Package geoexport writes the appliance's vector and raster exports:
// GeoJSON (RFC 7946), KML 2.2 and KMZ, ESRI Shapefile sets (with a dBase
// III table, a WGS 84 .prj and a UTF-8 .cpg) and single-band Float32
// GeoTIFFs, all in WGS 84 degrees (EPSG:4326), with the schemas of link
// results and link analyses. FORMATS.md, next to this file, documents
// every export format and schema the appliance writes (fields, units, CRS,
// encodings), those of appliance/coverage and appliance/batch included.
//
// # Basics
//
// A Schema (a geometry kind and typed fields) and a Source of Features go
// to one writer (WriteGeoJSON, WriteKML, WriteKMZ, WriteShapefile,
// WriteShapefileZip, or Export by Format). Writers stream: memory is
// bounded by one feature (a Shapefile zip by one set). Output is
// deterministic: dates come from the caller or FixedDate.
//
// # Caveats
//
// dBase names are at most 10 bytes (ShortNames); dBase text is cut at its
// field width, GeoJSON and KML keep it whole. Non-finite numbers are
// written as null everywhere.
package geoexport
