// coverage.js: the Coverage screen. Start a single-transmitter heatmap
// (POST /coverage/heatmap, for a catalogued tower or an explicit site),
// read its text/event-stream (mapstream.js, shared with the Raytrace and
// Network maps screens), and draw every tile on the map as it arrives:
// the tile's int16 little-endian centi-dBm pixels (base64) are decoded to
// a canvas with the legend palette and laid over the tile's bounds. A
// progress bar follows the radials; the summary and the export buttons
// (GET /coverage/heatmap/{id}/export?format=...) come at the end. Leaving
// the screen aborts the stream, which cancels a map still computing.

import { warningText } from '../messages.js';
import { createMap, RIO } from '../map.js';
import { drawRGBA, exportButtons, mapStream } from '../mapstream.js';

// LEGEND: received power classes, strongest first (the palette of the
// KMZ export: >= -65 dBm dark green, -75 green, -85 yellow, -95 orange,
// -105 red; weaker or no data: transparent).
export const LEGEND = [
  { min: -65, rgb: [0, 104, 55] },
  { min: -75, rgb: [49, 163, 84] },
  { min: -85, rgb: [255, 221, 0] },
  { min: -95, rgb: [253, 141, 60] },
  { min: -105, rgb: [215, 25, 28] },
];
const ALPHA = 170;
const EXPORTS = ['geotiff', 'kmz', 'geojson', 'kml', 'shapefile'];

// decodeTile turns a tile event's data into RGBA pixels with legend
// (default LEGEND; classes strongest first, each { min, rgb } in the
// tile's unit: dBm, or the SINR dB and viewshed class of network maps).
export function decodeTile(tile, nodata = -32768, scaleDb = 0.01, legend = LEGEND) {
  const bin = atob(tile.data);
  const n = tile.width * tile.height;
  if (bin.length !== 2 * n) throw new Error(`tile ${tile.id}: ${bin.length} bytes, want ${2 * n}`);
  const rgba = new Uint8ClampedArray(4 * n);
  for (let i = 0; i < n; i++) {
    let v = bin.charCodeAt(2 * i) | (bin.charCodeAt(2 * i + 1) << 8);
    if (v & 0x8000) v -= 0x10000;
    if (v === nodata) continue;
    const dbm = v * scaleDb;
    const cls = legend.find((c) => dbm >= c.min);
    if (!cls) continue;
    rgba.set([cls.rgb[0], cls.rgb[1], cls.rgb[2], ALPHA], 4 * i);
  }
  return rgba;
}

export default {
  id: 'coverage',
  nav: true,
  titleKey: 'title',
  strings: {
    'pt-BR': {
      title: 'Cobertura',
      mapLabel: 'Mapa da cobertura: clique para posicionar o transmissor',
      transmitter: 'Transmissor',
      mode: 'Origem do transmissor',
      modeTower: 'Torre do catálogo',
      modeSite: 'Local informado',
      towerId: 'Id da torre',
      towerHint: 'Ex.: ocid:724-11-45221-7956687 (veja a tela Torres).',
      lat: 'Latitude (graus)',
      lon: 'Longitude (graus)',
      siteHeight: 'Altura da antena (m)',
      eirp: 'EIRP (dBm)',
      freq: 'Frequência (MHz)',
      radius: 'Raio (km)',
      tierLimits: 'Plano {tier}: raio até {r}, resolução a partir de {m}.',
      resolution: 'Resolução (m)',
      rxHeight: 'Altura do receptor (m)',
      engine: 'Motor',
      start: 'Gerar mapa',
      cancel: 'Cancelar',
      progress: 'Radiais calculadas',
      tiles: 'Blocos recebidos: {n} de {total}',
      summary: 'Resumo',
      caveats: 'Ressalvas deste mapa',
      eirpWas: 'EIRP presumida: {v}',
      covered: 'Área coberta (≥ {t})',
      valid: 'Pixels com valor',
      range: 'Faixa',
      elapsed: 'Tempo de cálculo',
      engineUsed: 'Motor',
      missing: 'Pixels sem terreno',
      exports: 'Exportar',
      mapId: 'Mapa {id} ({engine})',
      exported: 'Arquivo salvo: {name} ({size}).',
      legend: 'Potência recebida',
      below: 'abaixo de {v}: transparente',
      canceled: 'Mapa cancelado.',
      failed: 'O mapa falhou: {msg}',
      clickHint: 'Clique no mapa para usar um local informado como transmissor.',
    },
    en: {
      title: 'Coverage',
      mapLabel: 'Coverage map: click to place the transmitter',
      transmitter: 'Transmitter',
      mode: 'Transmitter',
      modeTower: 'Catalogued tower',
      modeSite: 'Given site',
      towerId: 'Tower id',
      towerHint: 'E.g. ocid:724-11-45221-7956687 (see the Towers screen).',
      lat: 'Latitude (degrees)',
      lon: 'Longitude (degrees)',
      siteHeight: 'Antenna height (m)',
      eirp: 'EIRP (dBm)',
      freq: 'Frequency (MHz)',
      radius: 'Radius (km)',
      tierLimits: '{tier} tier: radius up to {r}, resolution from {m}.',
      resolution: 'Resolution (m)',
      rxHeight: 'Receiver height (m)',
      engine: 'Engine',
      start: 'Compute map',
      cancel: 'Cancel',
      progress: 'Radials computed',
      tiles: 'Tiles received: {n} of {total}',
      summary: 'Summary',
      caveats: 'Caveats of this map',
      eirpWas: 'assumed EIRP: {v}',
      covered: 'Covered area (≥ {t})',
      valid: 'Pixels with a value',
      range: 'Range',
      elapsed: 'Computation time',
      engineUsed: 'Engine',
      missing: 'Pixels without terrain',
      exports: 'Export',
      mapId: 'Map {id} ({engine})',
      exported: 'File saved: {name} ({size}).',
      legend: 'Received power',
      below: 'below {v}: transparent',
      canceled: 'Map cancelled.',
      failed: 'The map failed: {msg}',
      clickHint: 'Click the map to use a given site as the transmitter.',
    },
  },
  render(root, ctx) {
    const { el, field } = ctx.ui;
    const { t, fmt } = ctx;
    const num = (attrs) => el('input', { type: 'number', inputmode: 'decimal', step: 'any', ...attrs });
    const modeTower = el('input', { type: 'radio', name: 'cov-mode', value: 'tower', id: 'cov-mode-tower' });
    const modeSite = el('input', { type: 'radio', name: 'cov-mode', value: 'site', id: 'cov-mode-site', checked: true });
    const towerId = el('input', { type: 'text', id: 'cov-tower', 'data-field': 'tower_id', autocomplete: 'off', spellcheck: 'false' });
    const lat = num({ id: 'cov-lat', 'data-field': 'site.lat', value: '-22.9519', min: '-90', max: '90' });
    const lon = num({ id: 'cov-lon', 'data-field': 'site.lon', value: '-43.2105', min: '-180', max: '180' });
    const siteH = num({ id: 'cov-site-height', 'data-field': 'site.height_m', value: '30', min: '0', max: '1000' });
    const eirp = num({ id: 'cov-eirp', 'data-field': 'site.eirp_dbm', value: '58', min: '-50', max: '100' });
    const freq = num({ id: 'cov-freq', 'data-field': 'frequency_mhz', value: '1800', min: '30', max: '100000' });
    const radius = num({ id: 'cov-radius', 'data-field': 'radius_km', value: '5', min: '0.1', max: '100' });
    const resolution = num({ id: 'cov-resolution', 'data-field': 'resolution_m', value: '250', min: '30', max: '5000' });
    const rxH = num({ id: 'cov-rx-height', 'data-field': 'rx_height_m', value: '10', min: '0.1', max: '500' });
    const engine = el('select', { id: 'cov-engine' }, ['fspl', 'p1812', 'itm', 'auto'].map((e) => el('option', { value: e, text: e })));
    const startBtn = el('button', { type: 'submit', class: 'primary', id: 'cov-start', text: t('start') });
    const cancelBtn = el('button', { type: 'button', id: 'cov-cancel', text: t('cancel'), hidden: true });
    const towerBox = el('div', { hidden: true }, field(t('towerId'), towerId, t('towerHint')));
    const siteBox = el('div', null,
      el('div', { class: 'row' }, field(t('lat'), lat), field(t('lon'), lon)),
      el('div', { class: 'row' }, field(t('siteHeight'), siteH), field(t('eirp'), eirp)));
    const status = el('div', { id: 'cov-status', 'aria-live': 'polite' });
    // The tier's caps, shown before the map is asked for (GET
    // /v1/me/limits) and set as the fields' bounds.
    const limitsNote = el('p', { class: 'note', id: 'cov-limits' });
    ctx.api('GET', '/v1/me/limits').then((l) => {
      const c = l.coverage;
      if (!c || !(c.max_radius_km > 0)) return;
      radius.max = String(c.max_radius_km);
      resolution.min = String(c.min_resolution_m);
      limitsNote.textContent = t('tierLimits', { tier: l.tier, r: fmt.unit(c.max_radius_km, 'km', 0), m: fmt.unit(c.min_resolution_m, 'm', 0) });
      for (const i of [radius, resolution]) i.setAttribute('aria-describedby', limitsNote.id);
    }).catch(() => {});
    const form = el('form', { class: 'card', id: 'cov-form', novalidate: true, 'data-writes': true },
      el('h2', { text: t('transmitter') }),
      el('fieldset', null, el('legend', { text: t('mode') }),
        el('div', { class: 'check' }, modeSite, el('label', { for: modeSite.id, text: t('modeSite') })),
        el('div', { class: 'check' }, modeTower, el('label', { for: modeTower.id, text: t('modeTower') }))),
      towerBox, siteBox,
      el('div', { class: 'row' }, field(t('freq'), freq), field(t('radius'), radius)),
      el('div', { class: 'row' }, field(t('resolution'), resolution), field(t('rxHeight'), rxH)),
      field(t('engine'), engine),
      limitsNote,
      el('div', { class: 'actions' }, startBtn, cancelBtn),
      status);
    const syncMode = () => { towerBox.hidden = !modeTower.checked; siteBox.hidden = modeTower.checked; };
    modeTower.addEventListener('change', syncMode);
    modeSite.addEventListener('change', syncMode);

    const mapBox = el('div', { id: 'cov-map', role: 'region', 'aria-label': t('mapLabel'), tabindex: '0' });
    const summaryBox = el('div', { id: 'cov-summary', 'aria-live': 'polite' });
    root.append(el('div', { class: 'split' },
      el('div', { class: 'panel' }, form, el('p', { class: 'note', text: t('clickHint') })),
      el('div', { class: 'panel' }, mapBox, summaryBox)));

    const L = window.L;
    const map = createMap(mapBox, ctx, RIO);
    const tilesLayer = L.layerGroup().addTo(map);
    let txMarker = null;
    // The marker follows the transmitter: typed coordinates (as they are
    // typed), a map click, the tower chosen by id (GET /towers/{id}), and
    // finally the transmitter the map's started event names.
    const placeTx = (la, lo) => {
      if (ctx.signal.aborted || !Number.isFinite(la) || !Number.isFinite(lo) || Math.abs(la) > 90 || Math.abs(lo) > 180) return;
      if (txMarker) txMarker.remove();
      txMarker = L.circleMarker([la, lo], { radius: 8, color: '#000', weight: 2, fillColor: '#0b5394', fillOpacity: 1, className: 'cov-tx' }).bindTooltip(t('transmitter')).addTo(map);
    };
    const typedTx = () => {
      if (lat.value.trim() === '' || lon.value.trim() === '') return;
      placeTx(Number(lat.value), Number(lon.value));
    };
    typedTx();
    for (const inp of [lat, lon]) for (const ev of ['input', 'change']) inp.addEventListener(ev, () => { if (modeSite.checked) typedTx(); });
    let towerSeq = 0;
    const towerTx = async () => {
      const id = towerId.value.trim();
      const seq = ++towerSeq;
      if (!id || !modeTower.checked) return;
      try {
        const tw = await ctx.api('GET', `/towers/${encodeURIComponent(id)}`);
        if (seq === towerSeq && modeTower.checked) placeTx(tw.lat, tw.lon);
      } catch (_) { /* an unknown id: the map request reports it */ }
    };
    towerId.addEventListener('change', towerTx);
    modeTower.addEventListener('change', towerTx);
    modeSite.addEventListener('change', typedTx);
    map.on('click', (e) => {
      modeSite.checked = true;
      syncMode();
      lat.value = e.latlng.lat.toFixed(6);
      lon.value = e.latlng.lng.toFixed(6);
      placeTx(e.latlng.lat, e.latlng.lng);
    });

    // The legend, as a Leaflet control.
    const legend = L.control({ position: 'bottomright' });
    legend.onAdd = () => {
      const box = el('div', { class: 'legend', id: 'cov-legend' }, el('strong', { text: t('legend') }));
      for (const c of LEGEND) {
        const sw = el('span', { class: 'swatch', 'aria-hidden': 'true' });
        sw.style.background = `rgb(${c.rgb.join(',')})`;
        box.append(el('div', null, sw, `≥ ${fmt.unit(c.min, 'dBm', 0)}`));
      }
      box.append(el('div', { class: 'muted', text: t('below', { v: fmt.unit(LEGEND[LEGEND.length - 1].min, 'dBm', 0) }) }));
      return box;
    };
    legend.addTo(map);

    // drawTile draws one tile of a map whose started event is started.
    const drawTile = (tile, started) => drawRGBA(tilesLayer, tile,
      decodeTile(tile, started ? started.nodata_value : -32768, started ? started.value_scale_db : 0.01), 'cov-tile');
    const stream = mapStream(ctx, {
      map, tiles: tilesLayer, status, cancelBtn, ids: { mapLine: 'cov-map-id', tiles: 'cov-tiles' }, memoKey: 'coverage',
      drawTile, showSummary, summaryTitle: 'cov-summary-title',
      // The marker goes to the transmitter the map names.
      onStarted: (d) => { if (Array.isArray(d.transmitters) && d.transmitters.length) placeTx(d.transmitters[0].lat, d.transmitters[0].lon); },
    });

    form.addEventListener('submit', (e) => {
      e.preventDefault();
      stream.stop();
      status.replaceChildren();
      summaryBox.replaceChildren();
      tilesLayer.clearLayers();
      const body = { frequency_mhz: Number(freq.value), radius_km: Number(radius.value), resolution_m: Number(resolution.value), rx_height_m: Number(rxH.value), engine: engine.value };
      if (modeTower.checked) body.tower_id = towerId.value.trim();
      else body.site = { lat: Number(lat.value), lon: Number(lon.value), height_m: Number(siteH.value), eirp_dbm: Number(eirp.value) };
      stream.start('/coverage/heatmap', body, { form, startBtn });
    });

    // showSummary draws the summary with the map's caveats first (those the
    // started event knew and those the summary adds), in the user's
    // language, next to the covered area they qualify.
    function showSummary(s, mapId, startedData) {
      const st = startedData || (ctx.memo.coverage && ctx.memo.coverage.started) || {};
      const seen = new Set();
      const list = [...(st.warnings || []), ...(s.warnings || [])].filter((w) => !seen.has(w.code) && seen.add(w.code));
      const text = (w) => (w.code === 'eirp_assumed' && Number.isFinite(st.eirp_dbm) ? `${warningText(w, ctx.lang)} (${t('eirpWas', { v: fmt.unit(st.eirp_dbm, 'dBm', 1) })})` : warningText(w, ctx.lang));
      const caveats = list.length ? el('div', { class: 'caveats', id: 'cov-caveats' }, el('h3', { text: t('caveats') }),
        el('ul', null, list.map((w) => el('li', { dataset: { code: w.code }, title: w.message || '', text: text(w) })))) : null;
      const dl = el('dl', { class: 'kv' },
        el('dt', { text: t('covered', { t: fmt.unit(s.threshold_dbm, 'dBm', 0) }) }), el('dd', { id: 'cov-covered', 'aria-describedby': caveats ? 'cov-caveats' : null, text: fmt.unit(s.covered_km2_above_threshold, 'km²', 2) }),
        el('dt', { text: t('valid') }), el('dd', { text: `${fmt.int(s.valid_pixels)} / ${fmt.int(s.in_radius_pixels)}` }),
        el('dt', { text: t('range') }), el('dd', { text: s.min_dbm === null ? '—' : `${fmt.unit(s.min_dbm, 'dBm', 1)} … ${fmt.unit(s.max_dbm, 'dBm', 1)}` }),
        el('dt', { text: t('missing') }), el('dd', { text: fmt.int(s.nodata_missing_terrain_pixels) }),
        el('dt', { text: t('engineUsed') }), el('dd', { text: `${s.engine} ${s.engine_version}` }),
        el('dt', { text: t('elapsed') }), el('dd', { text: fmt.unit(s.elapsed_ms / 1000, 's', 1) }));
      const buttons = exportButtons(ctx, mapId, EXPORTS, summaryBox);
      summaryBox.replaceChildren(el('div', { class: 'card', id: 'cov-summary-card' }, el('h2', { id: 'cov-summary-title', tabindex: '-1', text: t('summary') }), caveats, dl,
        el('h3', { text: t('exports') }), el('div', { class: 'actions' }, buttons)));
    }

    stream.restore();

    return () => { stream.stop(); map.remove(); };
  },
};
