// map.js: the console's Leaflet map with the appliance's own offline
// basemap. Leaflet (vendor/leaflet/leaflet.js, global L) is loaded by
// index.html before the app module. Nothing here ever names another
// origin: the hillshade tiles are /tiles/hillshade/{z}/{x}/{y}.png
// (rendered by the appliance from its terrain packs), the outlines and
// municipality labels are data/outlines.json and data/municipalities.json
// (bundled with the console). A part that the appliance does not serve
// is simply left out: the map then shows no basemap, never an outside
// tile server. Over the relief, /tiles/surface/... draws water, and
// hatches void-filled ground and ground without terrain. The operator's
// own basemap (serve --basemap, a PMTiles archive described by
// GET /basemap/ext) is drawn under the relief when its tiles are raster;
// vector archives are served but not drawn (the console has no vector
// renderer, GET /basemap/ext says so in its note).

const BRAZIL = { center: [-15.8, -47.9], zoom: 4 };
// OUTLINE_MAX_ZOOM is the largest zoom at which the outlines are drawn.
const OUTLINE_MAX_ZOOM = 10;
const HILLSHADE = '/tiles/hillshade/{z}/{x}/{y}.png';
const ELEVATION = '/tiles/elevation/{z}/{x}/{y}.png';
const SURFACE = '/tiles/surface/{z}/{x}/{y}.png';
const LABEL_MIN_ZOOM = 9;
const LABEL_MAX = 250;

// Probed once per page: which basemap parts does this appliance serve?
let probe = null;
function basemapParts() {
  if (!probe) {
    const ok = (url, method = 'GET') => fetch(url, { method, credentials: 'same-origin' })
      .then((r) => (r.ok ? r : null)).catch(() => null);
    probe = Promise.all([
      ok('/tiles/hillshade/8/97/144.png', 'HEAD'), // a tile over Rio de Janeiro
      ok('/tiles/elevation/8/97/144.png', 'HEAD'),
      ok('data/outlines.json').then((r) => (r ? r.json() : null)).catch(() => null),
      ok('data/municipalities.json').then((r) => (r ? r.json() : null)).catch(() => null),
      ok('/tiles/surface/8/97/144.png', 'HEAD'),
      ok('/basemap/ext').then((r) => (r ? r.json() : null)).catch(() => null),
    ]).then(([tiles, tint, outlines, munis, surface, ext]) => ({
      tiles: !!tiles, tint: !!tint, outlines, munis: municipalityList(munis), surface: !!surface,
      ext: ext && ext.configured && ext.drawn ? ext : null,
    }));
  }
  return probe;
}

// attributionText returns the archive's attribution (often HTML with
// links) as escaped plain text: DOMParser loads nothing, and the map shows
// no link to another origin.
function attributionText(html) {
  if (typeof html !== 'string' || !html) return '';
  const text = new DOMParser().parseFromString(html, 'text/html').body.textContent || '';
  return text.trim().replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

// municipalityList accepts the label file as an array of {name, lat, lon}
// objects or as a GeoJSON FeatureCollection of points.
function municipalityList(doc) {
  if (!doc) return [];
  const rows = Array.isArray(doc) ? doc : (doc.features || doc.municipalities || []);
  const out = [];
  for (const r of rows) {
    let name; let lat; let lon; let uf;
    if (r && r.type === 'Feature' && r.geometry && Array.isArray(r.geometry.coordinates)) {
      [lon, lat] = r.geometry.coordinates;
      name = r.properties && (r.properties.name || r.properties.nome);
      uf = r.properties && (r.properties.uf || r.properties.state);
    } else if (r) {
      name = r.name || r.nome; lat = r.lat; lon = r.lon !== undefined ? r.lon : r.lng; uf = r.uf || r.state;
    }
    if (typeof name === 'string' && Number.isFinite(lat) && Number.isFinite(lon)) out.push({ name, lat, lon, uf });
  }
  return out;
}

// createMap(container, ctx, {center, zoom}) returns a Leaflet map with the
// offline basemap layers added as they become available. The map element
// is a labelled, keyboard-operable region (arrows pan, +/- zoom).
export function createMap(container, ctx, opts = {}) {
  const L = window.L;
  if (!L) throw new Error('Leaflet is not loaded (vendor/leaflet/leaflet.js)');
  container.classList.add('map');
  if (!container.hasAttribute('aria-label')) container.setAttribute('aria-label', ctx && ctx.t ? ctx.t('mapLabel') : 'Map');
  if (!container.hasAttribute('role')) container.setAttribute('role', 'region');
  const map = L.map(container, {
    center: opts.center || BRAZIL.center,
    zoom: opts.zoom !== undefined ? opts.zoom : BRAZIL.zoom,
    minZoom: 3,
    maxZoom: 17,
    worldCopyJump: false,
    // No zoom animation: Leaflet's zoom transition ends on a timer that
    // fails when the screen (and its map) is left mid-animation, and a
    // jump is easier on a phone's CPU anyway.
    zoomAnimation: false,
    attributionControl: true,
    zoomControl: false,
  });
  const tr = (k, d) => (ctx && ctx.t && ctx.t(k) !== k ? ctx.t(k) : d);
  L.control.zoom({ zoomInTitle: tr('zoomIn', 'Zoom in'), zoomOutTitle: tr('zoomOut', 'Zoom out') }).addTo(map);
  map.attributionControl.setPrefix('Leaflet');
  L.control.scale({ imperial: false }).addTo(map);
  let removed = false;
  basemapParts().then((parts) => {
    if (removed) return; // the screen was left meanwhile: no panes to add layers to
    const overlays = {};
    const ext = parts.ext;
    if (ext) {
      // The operator's raster basemap, under the relief; Leaflet scales
      // its tiles beyond the archive's zooms.
      const [w, s, e, n] = ext.bounds_deg;
      L.tileLayer(ext.tiles, {
        minZoom: 3, maxZoom: 17, minNativeZoom: ext.min_zoom, maxNativeZoom: ext.max_zoom, bounds: [[s, w], [n, e]],
        attribution: attributionText(ext.attribution) || tr('basemapOperator', 'Operator basemap'), className: 'basemap-ext', zIndex: 1,
      }).addTo(map);
    }
    if (parts.tiles) {
      L.tileLayer(HILLSHADE, { minZoom: 3, maxZoom: 17, maxNativeZoom: 15, attribution: 'SRTM via linkplan', className: 'hillshade', opacity: ext ? 0.4 : 1, zIndex: 2 })
        .addTo(map);
    }
    if (parts.surface) {
      overlays[tr('landWater', 'Water and terrain gaps')] = L.tileLayer(SURFACE, { minZoom: 3, maxZoom: 17, maxNativeZoom: 15, opacity: ext ? 0.5 : 1, className: 'surface', zIndex: 4 })
        .addTo(map);
    }
    if (parts.tint) {
      overlays[tr('elevationTint', 'Elevation tint')] = L.tileLayer(ELEVATION, { minZoom: 3, maxZoom: 17, maxNativeZoom: 15, opacity: 0.45, className: 'elevation', zIndex: 3 });
    }
    if (parts.outlines) {
      // The outlines are generalised to about 1 km (data/NOTICE.txt): past
      // OUTLINE_MAX_ZOOM they would visibly cut across land and water, so
      // they are shown only at country and state scales.
      const outlines = L.geoJSON(parts.outlines, {
        interactive: false,
        attribution: typeof parts.outlines.attribution === 'string' ? parts.outlines.attribution : null,
        style: (f) => ({ color: '#4a4a4a', weight: f && f.properties && f.properties.kind === 'country' ? 1.5 : 0.8, fill: false, opacity: 0.7 }),
      });
      const toggle = () => {
        const show = map.getZoom() <= OUTLINE_MAX_ZOOM;
        if (show && !map.hasLayer(outlines)) outlines.addTo(map);
        if (!show && map.hasLayer(outlines)) map.removeLayer(outlines);
      };
      map.on('zoomend', toggle);
      toggle();
    }
    if (Object.keys(overlays).length) L.control.layers(null, overlays, { position: 'topright' }).addTo(map);
    if (parts.munis.length) addLabels(map, parts.munis);
  });
  // Leaving a screen removes its map: stop any pan animation first.
  const remove = map.remove.bind(map);
  map.remove = () => { removed = true; map.stop(); return remove(); };
  return map;
}

// addLabels draws the municipality labels in view from LABEL_MIN_ZOOM,
// without collisions: capitals first, then by name, a label is placed only
// when its box (measured by the canvas font metrics of the label style,
// 11 px, padded by LABEL_GAP px) overlaps no label already placed.
function addLabels(map, munis) {
  const L = window.L;
  const layer = L.layerGroup().addTo(map);
  const order = [...munis].sort((a, b) => (a.capital === b.capital ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.capital ? -1 : 1));
  const measure = document.createElement('canvas').getContext('2d');
  measure.font = '11px system-ui, sans-serif';
  const redraw = () => {
    layer.clearLayers();
    if (map.getZoom() < LABEL_MIN_ZOOM) return;
    const placed = labelBoxes(order, map.getBounds(), (m) => map.latLngToContainerPoint([m.lat, m.lon]), (m) => measure.measureText(m.name).width);
    for (const m of placed) {
      const span = document.createElement('span');
      span.textContent = m.name;
      L.marker([m.lat, m.lon], { icon: L.divIcon({ className: 'muni-label', html: span, iconSize: null }), interactive: false, keyboard: false }).addTo(layer);
    }
  };
  map.on('moveend zoomend', redraw);
  redraw();
}

const LABEL_GAP = 4; // pixels between two labels
const LABEL_HEIGHT = 14; // pixels of an 11 px label

// labelBoxes returns the labels of ordered (already in priority order)
// that fit in bounds without overlapping, at most LABEL_MAX: each label is
// a box of width widthOf(m) and LABEL_HEIGHT centred on pointOf(m).
export function labelBoxes(ordered, bounds, pointOf, widthOf) {
  const boxes = [];
  const out = [];
  for (const m of ordered) {
    if (!bounds.contains([m.lat, m.lon])) continue;
    const p = pointOf(m);
    const w = widthOf(m) / 2 + LABEL_GAP;
    const h = LABEL_HEIGHT / 2 + LABEL_GAP;
    const box = [p.x - w, p.y - h, p.x + w, p.y + h];
    if (boxes.some((o) => box[0] < o[2] && o[0] < box[2] && box[1] < o[3] && o[1] < box[3])) continue;
    boxes.push(box);
    out.push(m);
    if (out.length >= LABEL_MAX) break;
  }
  return out;
}

// fitPoints fits the map to [lat, lon] pairs with some padding.
export function fitPoints(map, points, maxZoom = 13) {
  const pts = points.filter((p) => p && Number.isFinite(p[0]) && Number.isFinite(p[1]));
  if (!pts.length) return;
  if (pts.length === 1) { map.setView(pts[0], Math.min(maxZoom, 12)); return; }
  map.fitBounds(window.L.latLngBounds(pts), { padding: [24, 24], maxZoom });
}

// RIO is the sample data's area (the embedded terrain pack and towers).
export const RIO = { center: [-22.93, -43.3], zoom: 10 };
