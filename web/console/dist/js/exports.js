// exports.js: files built in the browser from an answer already on the
// page (a synchronous batch of at most 100 rows has no bundle on the
// appliance): CSV, GeoJSON and KML of the rows, saved through an object
// URL (same origin, no request).
//
// rows are objects; columns is the ordered list of keys to write (values:
// strings, numbers, booleans, null, or arrays, written joined by "; ").
// Points need numeric lat and lon (WGS84 degrees); a row without them is
// left out of GeoJSON and KML (its CSV line stays).

// csvCell quotes a value for RFC 4180 CSV and defuses spreadsheet
// formulas: a text starting with =, +, -, @, tab or CR is prefixed with an
// apostrophe unless it is a plain number.
export function csvCell(v) {
  if (v === null || v === undefined) return '';
  let s = Array.isArray(v) ? v.map(String).join('; ') : String(v);
  if (/^[=+\-@\t\r]/.test(s) && !/^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(s)) s = "'" + s;
  return /[",\r\n;']/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

// toCSV writes a header and one line per row, CRLF line ends, UTF-8 BOM
// (Excel reads the accents right).
export function toCSV(rows, columns) {
  const lines = [columns.map(csvCell).join(',')];
  for (const r of rows) lines.push(columns.map((c) => csvCell(r[c])).join(','));
  return '\ufeff' + lines.join('\r\n') + '\r\n';
}

const hasPoint = (r) => Number.isFinite(r.lat) && Number.isFinite(r.lon);

// toGeoJSON writes a FeatureCollection of points (RFC 7946: lon, lat).
export function toGeoJSON(rows, columns) {
  return JSON.stringify({
    type: 'FeatureCollection',
    features: rows.filter(hasPoint).map((r) => ({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [r.lon, r.lat] },
      properties: Object.fromEntries(columns.map((c) => [c, r[c] === undefined ? null : r[c]])),
    })),
  }, null, 1);
}

const xml = (s) => String(s).replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' }[c]));

// toKML writes a KML 2.2 document with one Placemark per row, its name from
// nameKey and every column as ExtendedData.
export function toKML(rows, columns, nameKey, title) {
  const marks = rows.filter(hasPoint).map((r) => [
    '<Placemark>',
    `<name>${xml(r[nameKey] === null || r[nameKey] === undefined ? '' : r[nameKey])}</name>`,
    '<ExtendedData>',
    ...columns.map((c) => `<Data name="${xml(c)}"><value>${r[c] === null || r[c] === undefined ? '' : xml(Array.isArray(r[c]) ? r[c].join('; ') : r[c])}</value></Data>`),
    '</ExtendedData>',
    `<Point><coordinates>${r.lon},${r.lat}</coordinates></Point>`,
    '</Placemark>',
  ].join(''));
  return ['<?xml version="1.0" encoding="UTF-8"?>', '<kml xmlns="http://www.opengis.net/kml/2.2"><Document>',
    `<name>${xml(title || '')}</name>`, ...marks, '</Document></kml>', ''].join('\n');
}

export const MEDIA = { csv: 'text/csv;charset=utf-8', geojson: 'application/geo+json', kml: 'application/vnd.google-earth.kml+xml' };

// build returns the file text of format ('csv', 'geojson' or 'kml').
export function build(format, rows, columns, nameKey, title) {
  if (format === 'csv') return toCSV(rows, columns);
  if (format === 'geojson') return toGeoJSON(rows, columns);
  if (format === 'kml') return toKML(rows, columns, nameKey, title);
  throw new Error('unknown export format ' + format);
}
