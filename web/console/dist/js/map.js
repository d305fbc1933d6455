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
// GET /basemap/ext) is drawn under the relief: raster tiles as stored,
// vector (MVT) tiles as the PNG tiles the appliance draws from them
// (drawn_tiles), whose place names (GET /basemap/ext/labels/...) join the
// municipality labels and their collision avoidance.

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
      // The operator's basemap, under the relief: a raster archive's tiles,
      // or the appliance's drawing of a vector one ({r}: @2x tiles on a
      // high-density screen); Leaflet scales tiles beyond drawn_max_zoom.
      const [w, s, e, n] = ext.bounds_deg;
      const url = ext.rendered ? ext.drawn_tiles.replace('{y}', '{y}{r}') : (ext.drawn_tiles || ext.tiles);
      L.tileLayer(url, {
        minZoom: 3, maxZoom: 17, minNativeZoom: ext.min_zoom, maxNativeZoom: ext.drawn_max_zoom !== undefined ? ext.drawn_max_zoom : ext.max_zoom, bounds: [[s, w], [n, e]],
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
    const places = ext && ext.labels ? extPlaces(ext) : null;
    if (parts.munis.length || places) addLabels(map, parts.munis, places);
  });
  // Leaving a screen removes its map: stop any pan animation first.
  const remove = map.remove.bind(map);
  map.remove = () => { removed = true; map.stop(); return remove(); };
  return map;
}

// addLabels draws the municipality labels in view from LABEL_MIN_ZOOM,
// then the place names of the operator's vector basemap (places, by
// rank; a name already shown as a municipality is left out), without
// collisions: capitals first, then by name, a label is placed only
// when its box (measured by the canvas font metrics of the label style,
// 11 px, padded by LABEL_GAP px) overlaps no label already placed.
function addLabels(map, munis, places) {
  const L = window.L;
  const layer = L.layerGroup().addTo(map);
  const order = [...munis].sort((a, b) => (a.capital === b.capital ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.capital ? -1 : 1));
  const measure = document.createElement('canvas').getContext('2d');
  measure.font = '11px system-ui, sans-serif';
  let pending = 0;
  let gone = false; // the map was removed (its screen left)
  const redraw = () => {
    pending = 0;
    if (gone) return;
    layer.clearLayers();
    const all = map.getZoom() >= LABEL_MIN_ZOOM ? [...order] : [];
    if (places) {
      const seen = new Set(all.map((m) => m.name.toLowerCase()));
      for (const p of places.inView(map, later)) {
        if (!seen.has(p.name.toLowerCase())) { seen.add(p.name.toLowerCase()); all.push(p); }
      }
    }
    const placed = labelBoxes(all, map.getBounds(), (m) => map.latLngToContainerPoint([m.lat, m.lon]), (m) => measure.measureText(m.name).width);
    for (const m of placed) {
      const span = document.createElement('span');
      span.textContent = m.name;
      L.marker([m.lat, m.lon], { icon: L.divIcon({ className: m.kind !== undefined ? 'muni-label ext-label' : 'muni-label', html: span, iconSize: null }), interactive: false, keyboard: false }).addTo(layer);
    }
  };
  // Labels of the basemap arrive tile by tile: draw again once they settle.
  function later() { if (!pending && !gone) pending = setTimeout(redraw, 60); }
  map.on('moveend zoomend', redraw);
  map.on('unload', () => { gone = true; if (pending) clearTimeout(pending); pending = 0; });
  redraw();
}

const PLACE_TILES_MAX = 64; // label tiles asked for one view
const PLACE_CACHE_MAX = 512; // label tiles kept

// extPlaces returns the place labels of the operator's vector basemap:
// inView(map, onLoad) gives those known for the tiles in view (at the
// map's zoom, at most the archive's largest, and within its bounds), fetching
// the missing tiles once (same origin) and calling onLoad when one
// arrives; most important (lowest rank) first.
function extPlaces(ext) {
  const cache = new Map(); // 'z/x/y' → labels (an empty array while loading)
  const [w, s, e, n] = ext.bounds_deg;
  return {
    inView(map, onLoad) {
      const z = Math.round(map.getZoom());
      if (z < ext.min_zoom) return [];
      const tz = Math.min(z, ext.max_zoom); // deeper tiles would repeat their ancestor's places
      const b = map.getBounds();
      const nw = map.project([Math.min(b.getNorth(), n), Math.max(b.getWest(), w)], tz).divideBy(256).floor();
      const se = map.project([Math.max(b.getSouth(), s), Math.min(b.getEast(), e)], tz).divideBy(256).floor();
      const out = [];
      let asked = 0;
      for (let x = nw.x; x <= se.x; x++) {
        for (let y = nw.y; y <= se.y; y++) {
          if (asked++ >= PLACE_TILES_MAX) break;
          const key = `${tz}/${x}/${y}`;
          if (!cache.has(key)) {
            cache.set(key, []);
            if (cache.size > PLACE_CACHE_MAX) cache.delete(cache.keys().next().value);
            fetch(ext.labels.replace('{z}', tz).replace('{x}', x).replace('{y}', y), { credentials: 'same-origin' })
              .then((r) => (r.ok ? r.json() : null))
              .then((j) => { if (j && Array.isArray(j.labels)) { cache.set(key, j.labels.filter((l) => typeof l.name === 'string' && Number.isFinite(l.lat) && Number.isFinite(l.lon))); onLoad(); } })
              .catch(() => {});
          }
          out.push(...cache.get(key));
        }
      }
      return out.sort((a, b2) => a.rank - b2.rank);
    },
  };
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
