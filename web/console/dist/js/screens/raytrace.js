// raytrace.js: the Raytrace screen. A small-area radio map of one
// transmitter over one of the tenant's building layers (POST
// /coverage/raytrace, Enterprise and Ultra), streamed as the Coverage
// screen's heatmap is (started, queued, progress, tile, summary, error
// events: mapstream.js): each tile drawn as it arrives with
// the coverage legend, the layer's outline on the map, then the summary
// with its caveats first (the engine's warnings, in the user's language,
// above the figures they qualify) and the exports of GET
// /coverage/heatmap/{id}/export. The layers come from GET
// /buildings/layers; below Enterprise the screen says the tier cannot and
// offers no form to submit. Leaving the screen aborts the stream.

import { createMap, fitPoints, RIO } from '../map.js';
import { decodeTile, LEGEND } from './coverage.js';
import { caveatBox, tieTo, uniqueWarnings } from '../caveats.js';
import { drawRGBA, exportButtons, mapStream } from '../mapstream.js';
import { rtFigures, tracedWith } from '../rtjob.js';

const TIERS = new Set(['Enterprise', 'Ultra']);
const EXPORTS = ['geotiff', 'kmz', 'geojson'];

export default {
  id: 'raytrace',
  nav: true,
  titleKey: 'title',
  strings: {
    'pt-BR': {
      title: 'Traçado de raios',
      intro: 'Mapa de sinal de uma área pequena calculado por traçado de raios sobre uma camada de edificações do tenant: visada direta, reflexões nas paredes, nos telhados e no solo, difração nas quinas e beirais, espalhamento difuso das paredes e edificações presumidas além da camada; a transmissão pelas paredes só quando marcada abaixo.',
      tierNote: 'Plano {tier}: o traçado de raios é dos planos Enterprise e Ultra.',
      caps: 'Limites: Enterprise 1 km² (lado até 2 km, pixel de 5 m ou mais, 40.000 pixels); Ultra 4 km² (4 km, 2 m, 160.000 pixels).',
      layer: 'Camada de edificações',
      noLayers: 'O tenant não tem camada de edificações: envie uma pela API (POST /buildings/layers).',
      layerItem: '{name} ({n} edificações)',
      transmitter: 'Transmissor',
      lat: 'Latitude (graus)',
      lon: 'Longitude (graus)',
      height: 'Altura da antena (m)',
      eirp: 'EIRP (dBm)',
      freq: 'Frequência (MHz)',
      radius: 'Meio lado do quadrado (m)',
      resolution: 'Pixel (m)',
      rxHeight: 'Altura do receptor (m)',
      reflections: 'Reflexões (máx.)',
      scattering: 'Espalhamento difuso das paredes (S, 0 a 1)',
      rd: 'Reflexões antes e depois das quinas difratoras (perto do transmissor custa cerca de 50 vezes mais por pixel: o limite de pixels do plano fica dividido por 80)',
      clutter: 'Edificações presumidas além da camada',
      transmission: 'Transmissão pelas paredes (perdas ITU-R P.2040; desligada por padrão)',
      sr: 'Espalhamento também via uma reflexão nas paredes (perto do transmissor cerca de 5 vezes o custo por pixel: o limite de pixels do plano fica dividido por 8)',
      start: 'Calcular mapa',
      cancel: 'Cancelar',
      canceled: 'Mapa cancelado.',
      mapLabel: 'Mapa do traçado de raios: clique para pôr o transmissor',
      clickHint: 'Clique no mapa para pôr o transmissor.',
      queued: 'Na fila: posição {n}.',
      progress: 'Progresso',
      mapId: 'Mapa {id} ({engine})',
      tiles: 'Blocos: {n} de {total}',
      failed: 'O mapa falhou: {msg}',
      summary: 'Resumo do mapa',
      valid: 'Pixels com caminho',
      range: 'Faixa de sinal',
      engineUsed: 'Motor',
      traced: 'Traçado com',
      elapsed: 'Tempo',
      exports: 'Exportar',
      exported: '{name} salvo ({size}).',
      legend: 'Sinal recebido',
      below: 'abaixo de {v} ou sem caminho: transparente',
    },
    en: {
      title: 'Ray tracing',
      intro: 'A small-area signal map computed by ray tracing over one of the tenant\'s building layers: line of sight, reflections off walls, roofs and the ground, diffraction at corners and roof edges, the walls\' diffuse scattering and assumed buildings beyond the layer; transmission through walls only when ticked below.',
      tierNote: '{tier} tier: ray tracing belongs to the Enterprise and Ultra tiers.',
      caps: 'Caps: Enterprise 1 km² (sides up to 2 km, pixels of 5 m or more, 40,000 pixels); Ultra 4 km² (4 km, 2 m, 160,000 pixels).',
      layer: 'Building layer',
      noLayers: 'The tenant has no building layer: upload one through the API (POST /buildings/layers).',
      layerItem: '{name} ({n} buildings)',
      transmitter: 'Transmitter',
      lat: 'Latitude (degrees)',
      lon: 'Longitude (degrees)',
      height: 'Antenna height (m)',
      eirp: 'EIRP (dBm)',
      freq: 'Frequency (MHz)',
      radius: 'Half side of the square (m)',
      resolution: 'Pixel (m)',
      rxHeight: 'Receiver height (m)',
      reflections: 'Reflections (max.)',
      scattering: 'Diffuse scattering of the walls (S, 0 to 1)',
      rd: 'Reflections before and after the diffracting corners (near the transmitter about 50 times the cost per pixel: the tier\'s pixel cap is divided by 80)',
      clutter: 'Assumed buildings beyond the layer',
      transmission: 'Transmission through walls (ITU-R P.2040 losses; off by default)',
      sr: 'Scattering also via one wall reflection (near the transmitter about 5 times the cost per pixel: the tier\'s pixel cap is divided by 8)',
      start: 'Compute map',
      cancel: 'Cancel',
      canceled: 'Map cancelled.',
      mapLabel: 'Ray-tracing map: click to place the transmitter',
      clickHint: 'Click the map to place the transmitter.',
      queued: 'Queued: position {n}.',
      progress: 'Progress',
      mapId: 'Map {id} ({engine})',
      tiles: 'Tiles: {n} of {total}',
      failed: 'The map failed: {msg}',
      summary: 'Map summary',
      valid: 'Pixels with a path',
      range: 'Signal range',
      engineUsed: 'Engine',
      traced: 'Traced with',
      elapsed: 'Time',
      exports: 'Export',
      exported: '{name} saved ({size}).',
      legend: 'Received signal',
      below: 'below {v} or no path: transparent',
    },
  },
  render(root, ctx) {
    const { el, field, errorBox } = ctx.ui;
    const { t, fmt } = ctx;
    const num = (attrs) => el('input', { type: 'number', inputmode: 'decimal', step: 'any', ...attrs });
    const tier = ctx.session ? ctx.session.tier : '';
    const allowed = TIERS.has(tier) || (ctx.session && ctx.session.admin);

    const layer = el('select', { id: 'rt-layer', 'data-field': 'layer_id' });
    const lat = num({ id: 'rt-lat', min: '-90', max: '90', 'data-field': 'site.lat' });
    const lon = num({ id: 'rt-lon', min: '-180', max: '180', 'data-field': 'site.lon' });
    const height = num({ id: 'rt-height', value: '30', min: '0.1', max: '500', 'data-field': 'site.height_m' });
    const eirp = num({ id: 'rt-eirp', value: '55', min: '-30', max: '100', 'data-field': 'site.eirp_dbm' });
    const freq = num({ id: 'rt-freq', value: '3500', min: '30', max: '100000', 'data-field': 'frequency_mhz' });
    const radius = num({ id: 'rt-radius', value: '100', min: '10', max: '2000', 'data-field': 'radius_m' });
    const resolution = num({ id: 'rt-resolution', value: '5', min: '2', max: '100', 'data-field': 'resolution_m' });
    const rxH = num({ id: 'rt-rx-height', value: '1.5', min: '0.1', max: '100', 'data-field': 'rx_height_m' });
    const reflections = el('select', { id: 'rt-reflections', 'data-field': 'max_reflections' },
      [0, 1, 2, 3].map((n) => el('option', { value: String(n), text: String(n), selected: n === 2 }))); // 2: the service's default
    const scattering = num({ id: 'rt-scattering', value: '0.4', min: '0', max: '1', step: '0.05', 'data-field': 'diffuse_scattering' });
    const rd = el('input', { type: 'checkbox', id: 'rt-rd', 'data-field': 'reflection_diffraction' });
    const clutter = el('input', { type: 'checkbox', id: 'rt-clutter', 'data-field': 'clutter_beyond_extent', checked: true });
    const sr = el('input', { type: 'checkbox', id: 'rt-sr', 'data-field': 'scattering_reflections' });
    const trans = el('input', { type: 'checkbox', id: 'rt-transmission', 'data-field': 'transmission' });
    const startBtn = el('button', { type: 'submit', class: 'primary', id: 'rt-start', text: t('start') });
    const cancelBtn = el('button', { type: 'button', id: 'rt-cancel', text: t('cancel'), hidden: true });
    const status = el('div', { id: 'rt-status', 'aria-live': 'polite' });
    const layerNote = el('p', { class: 'note', id: 'rt-layer-note' });
    const form = el('form', { class: 'card', id: 'rt-form', novalidate: true, 'data-writes': true },
      el('p', { text: t('intro') }),
      el('p', { class: 'note', id: 'rt-caps', text: allowed ? t('caps') : t('tierNote', { tier }) }),
      field(t('layer'), layer), layerNote,
      el('fieldset', null, el('legend', { text: t('transmitter') }),
        el('div', { class: 'row' }, field(t('lat'), lat), field(t('lon'), lon)),
        el('div', { class: 'row' }, field(t('height'), height), field(t('eirp'), eirp))),
      el('div', { class: 'row' }, field(t('freq'), freq), field(t('radius'), radius)),
      el('div', { class: 'row' }, field(t('resolution'), resolution), field(t('rxHeight'), rxH)),
      el('div', { class: 'row' }, field(t('reflections'), reflections), field(t('scattering'), scattering)),
      el('div', null, el('label', { for: 'rt-rd' }, rd, ` ${t('rd')}`)),
      el('div', null, el('label', { for: 'rt-clutter' }, clutter, ` ${t('clutter')}`)),
      el('div', null, el('label', { for: 'rt-sr' }, sr, ` ${t('sr')}`)),
      el('div', null, el('label', { for: 'rt-transmission' }, trans, ` ${t('transmission')}`)),
      el('div', { class: 'actions' }, startBtn, cancelBtn), status);
    const mapBox = el('div', { id: 'rt-map', role: 'region', 'aria-label': t('mapLabel'), tabindex: '0' });
    const summaryBox = el('div', { id: 'rt-summary', 'aria-live': 'polite' });
    root.append(el('div', { class: 'split' },
      el('div', { class: 'panel' }, form, el('p', { class: 'note', text: t('clickHint') })),
      el('div', { class: 'panel' }, mapBox, summaryBox)));

    const L = window.L;
    const map = createMap(mapBox, ctx, RIO);
    const outline = L.layerGroup().addTo(map);
    const tilesLayer = L.layerGroup().addTo(map);
    let txMarker = null;
    const placeTx = () => {
      if (ctx.signal.aborted) return;
      const la = Number(lat.value);
      const lo = Number(lon.value);
      if (txMarker) { txMarker.remove(); txMarker = null; }
      if (lat.value === '' || lon.value === '' || !Number.isFinite(la) || !Number.isFinite(lo)) return;
      txMarker = L.circleMarker([la, lo], { radius: 8, color: '#000', weight: 2, fillColor: '#0b5394', fillOpacity: 1, className: 'rt-tx' }).bindTooltip(t('transmitter')).addTo(map);
    };
    for (const i of [lat, lon]) i.addEventListener('input', placeTx);
    map.on('click', (e) => {
      lat.value = e.latlng.lat.toFixed(7);
      lon.value = e.latlng.lng.toFixed(7);
      lat.dispatchEvent(new Event('change', { bubbles: true }));
      placeTx();
    });

    // The layers: each one's bounds outlined; choosing one puts the
    // transmitter at its centre when none is placed yet.
    let layers = [];
    const showLayer = () => {
      outline.clearLayers();
      const l = layers.find((x) => x.id === layer.value);
      if (!l || !Array.isArray(l.bounds)) return;
      const [w, s, e, n] = l.bounds;
      L.rectangle([[s, w], [n, e]], { color: '#0b5394', weight: 2, fill: false, dashArray: '6 4', className: 'rt-layer' }).addTo(outline);
      if (lat.value === '' || lon.value === '') {
        lat.value = ((s + n) / 2).toFixed(7);
        lon.value = ((w + e) / 2).toFixed(7);
      }
      placeTx();
      fitPoints(map, [[s, w], [n, e]], 17);
    };
    layer.addEventListener('change', showLayer);
    if (allowed) {
      ctx.api('GET', '/buildings/layers', { signal: ctx.signal }).then((r) => {
        layers = r.layers || [];
        layer.replaceChildren(...layers.map((l) => el('option', { value: l.id, text: t('layerItem', { name: l.name || l.id, n: fmt.int(l.buildings) }) })));
        if (ctx.memo.layer && layers.some((l) => l.id === ctx.memo.layer)) layer.value = ctx.memo.layer;
        if (!layers.length) layerNote.textContent = t('noLayers');
        showLayer();
      }).catch((err) => { if (err.name !== 'AbortError') status.append(errorBox(err, t)); });
    } else {
      // The tier cannot: a form it could not submit is shown read-only.
      for (const c of form.querySelectorAll('input, select, button')) c.disabled = true;
    }
    placeTx();

    const legend = L.control({ position: 'bottomright' });
    legend.onAdd = () => {
      const box = el('div', { class: 'legend', id: 'rt-legend' }, el('strong', { text: t('legend') }));
      for (const c of LEGEND) {
        const sw = el('span', { class: 'swatch', 'aria-hidden': 'true' });
        sw.style.background = `rgb(${c.rgb.join(',')})`;
        box.append(el('div', null, sw, `≥ ${fmt.unit(c.min, 'dBm', 0)}`));
      }
      box.append(el('div', { class: 'muted', text: t('below', { v: fmt.unit(LEGEND[LEGEND.length - 1].min, 'dBm', 0) }) }));
      return box;
    };
    legend.addTo(map);

    const drawTile = (tile, started) => drawRGBA(tilesLayer, tile, decodeTile(tile, started.nodata_value, started.value_scale_db), 'rt-tile');

    // showSummary: the engine's caveats first, tied to the pixels with a
    // path, then the figures and the exports.
    const showSummary = (s, mapId, started) => {
      const list = uniqueWarnings((started && started.warnings) || [], s.warnings || []);
      const caveats = caveatBox(ctx, list, { id: 'rt-caveats', detail: rtFigures(ctx) });
      const validDd = el('dd', { id: 'rt-valid', text: `${fmt.int(s.valid_pixels)} / ${fmt.int(s.in_radius_pixels)}` });
      const mark = tieTo(ctx, validDd, caveats, list.length);
      const buttons = exportButtons(ctx, mapId, EXPORTS, summaryBox);
      summaryBox.replaceChildren(el('div', { class: 'card', id: 'rt-summary-card' },
        el('h2', { id: 'rt-summary-title', tabindex: '-1', text: t('summary') }), caveats,
        el('dl', { class: 'kv' },
          el('dt', { text: t('valid') }), validDd, mark,
          el('dt', { text: t('range') }), el('dd', { text: s.min_dbm === null ? '—' : `${fmt.unit(s.min_dbm, 'dBm', 1)} … ${fmt.unit(s.max_dbm, 'dBm', 1)}` }),
          el('dt', { text: t('engineUsed') }), el('dd', { text: `${s.engine} ${s.engine_version}` }),
          ...(s.detail && s.detail.options ? [el('dt', { text: t('traced') }), el('dd', { id: 'rt-traced', text: tracedWith(ctx, s.detail.options) })] : []),
          el('dt', { text: t('elapsed') }), el('dd', { text: fmt.unit(s.elapsed_ms / 1000, 's', 1) })),
        el('h3', { text: t('exports') }), el('div', { class: 'actions' }, buttons)));
    };

    const stream = mapStream(ctx, {
      map, tiles: tilesLayer, status, cancelBtn, ids: { mapLine: 'rt-map-id', tiles: 'rt-tiles' }, memoKey: 'map',
      drawTile, showSummary, summaryTitle: 'rt-summary-title',
    });

    form.addEventListener('submit', (e) => {
      e.preventDefault();
      stream.stop();
      status.replaceChildren();
      summaryBox.replaceChildren();
      tilesLayer.clearLayers();
      ctx.memo.layer = layer.value;
      const body = {
        layer_id: layer.value,
        site: { lat: Number(lat.value), lon: Number(lon.value), height_m: Number(height.value), eirp_dbm: Number(eirp.value) },
        frequency_mhz: Number(freq.value), radius_m: Number(radius.value), resolution_m: Number(resolution.value),
        rx_height_m: Number(rxH.value), max_reflections: Number(reflections.value),
        reflection_diffraction: rd.checked, clutter_beyond_extent: clutter.checked,
      };
      if (sr.checked) body.scattering_reflections = true; // off: the service's default for maps
      if (trans.checked) body.transmission = true; // off: the engine's default
      if (scattering.value.trim() !== '') body.diffuse_scattering = Number(scattering.value); // empty: the service's default
      stream.start('/coverage/raytrace', body, { form, startBtn, allowed });
    });

    stream.restore();

    return () => { stream.stop(); map.remove(); };
  },
};
