// h3ref.mjs answers questions about H3 cells with the pinned h3-js, the
// reference that engines/ml/h3 is checked against (its tests and its table
// generator run this script; see engines/ml/h3/doc.go).
//
//   node h3ref.mjs cells    stdin: "lat lon res" per line (degrees);
//                           stdout: the cell's 15-hex-digit string per line
//   node h3ref.mjs centres  stdin: one cell string per line;
//                           stdout: "lat lon" of its centre (degrees)
//   node h3ref.mjs res0     stdout: JSON list of the 122 resolution-0 cells
//                           with base cell number, pentagon flag, the
//                           icosahedron faces they touch and their centre
//
// Numbers are written with JavaScript's shortest round-trip formatting, so
// Go's strconv.ParseFloat reads back the exact binary64 values.
import { readFileSync } from 'node:fs';
import * as h3 from 'h3-js';

const mode = process.argv[2];
const lines = () => readFileSync(0, 'utf8').split('\n').filter((l) => l.trim() !== '');
const out = [];
switch (mode) {
  case 'cells':
    for (const l of lines()) {
      const [lat, lon, res] = l.trim().split(/\s+/);
      out.push(h3.latLngToCell(Number(lat), Number(lon), Number(res)));
    }
    break;
  case 'centres':
    for (const l of lines()) {
      const [lat, lon] = h3.cellToLatLng(l.trim());
      out.push(`${lat} ${lon}`);
    }
    break;
  case 'res0':
    out.push(JSON.stringify(h3.getRes0Cells().map((c) => {
      const [lat, lon] = h3.cellToLatLng(c);
      return { cell: c, base: h3.getBaseCellNumber(c), pentagon: h3.isPentagon(c), faces: h3.getIcosahedronFaces(c), lat, lon };
    })));
    break;
  default:
    process.stderr.write(`usage: node h3ref.mjs cells|centres|res0 (got ${mode})\n`);
    process.exit(2);
}
process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
