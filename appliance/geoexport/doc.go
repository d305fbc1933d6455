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
// field width, GeoJSON and KML keep it whole. A field with a ListSep (the
// warning codes) is cut between items and ends with ListSep and
// "+N more". Non-finite numbers are written as null everywhere.
//
// # Spreadsheet safety
//
// A .dbf is opened by spreadsheets as often as by GIS, and so is every CSV
// the appliance writes (the batch bundle's results.csv, appliance/batch).
// Their text cells come from tenants (receiver ids, site names, operator
// filters) and from tower sources (operator names), so a text such as
// =HYPERLINK(…), =cmd|' /C calc'!A0, +1+1, -2+3 or @SUM(1+1) would be
// evaluated as a formula. Every text cell of those files goes through
// SpreadsheetSafe, the OWASP rule for CSV injection
// (https://owasp.org/www-community/attacks/CSV_Injection): a text that
// starts with '=', '+', '-', '@', a tab or a carriage return (or their
// full-width forms) is written with a leading single quote ('), which
// spreadsheets take as "this cell is text" and do not show; a text that
// starts with a single quote gets one more, so the change is reversible
// (SpreadsheetText). Numbers are written as numbers, never quoted or
// prefixed: a latitude of -22.9 stays the number -22.9. results.csv also
// encloses every text cell in double quotes, so that a spreadsheet that
// splits on ';' (the list separator of pt-BR Excel) cannot cut a text into
// a new cell that starts with '='. GeoJSON and KML are not spreadsheet
// formats and keep the texts as given. FORMATS.md, "Spreadsheet safety",
// says the same for the users of the files.
package geoexport
