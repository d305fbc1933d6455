// netmaps.js: the Network maps screen, two modes of one map. Interference
// (POST /coverage/interference): the tenant's sites typed or placed on the
// map and/or the public towers inside the map's view (optionally one
// operator's), one channel (frequency, bandwidth, noise figure); each site
// may name a radio of the tenant's catalogue (equipment.js: the receivers
// it serves then take that radio's adjacent-channel selectivity; a radio
// the API does not know is its 422, the site's radio field marked); its tiles
// carry the SINR, drawn with the SINR legend, and the best server, whose
// boundaries are drawn as dark pixels. Viewshed (POST /coverage/viewshed):
// a site and its height (or a tower id), the receiver height, the
// frequency of the Fresnel zone and the k-factor; its tiles carry the
// class (blocked, line of sight, 60 % of F1 clear). Both stream as the
// Coverage and Raytrace screens do (started, queued, progress, tile,
// summary, error: mapstream.js); the summary puts the caveats first
// (caveats.js), then the kind's figures (detail), then the exports of GET
// /coverage/heatmap/{id}/export. Free keys cannot start interference maps
// (403): that form is shown disabled with the reason. Leaving the screen
// aborts the stream.

import { createMap, RIO } from '../map.js';
import { decodeTile } from './coverage.js';
import { caveatBox, tieTo, uniqueWarnings } from '../caveats.js';
import { drawRGBA, exportButtons, mapStream } from '../mapstream.js';
import { loadEquipment, radioOptions } from '../equipment.js';

// SINR classes, best first (dB); below the last or no data: transparent.
const SINR_LEGEND = [
  { min: 20, rgb: [0, 104, 55] },
  { min: 10, rgb: [49, 163, 84] },
  { min: 5, rgb: [255, 221, 0] },
  { min: 0, rgb: [253, 141, 60] },
  { min: -5, rgb: [215, 25, 28] },
];
// Viewshed classes (value/100): 2 Fresnel clear, 1 line of sight, 0 blocked.
const VIEW_LEGEND = [
  { min: 2, rgb: [0, 104, 55], key: 'clsFresnel' },
  { min: 1, rgb: [255, 221, 0], key: 'clsLos' },
  { min: 0, rgb: [120, 120, 120], key: 'clsBlocked' },
];
const EXPORTS = {
  interference: ['geotiff', 'geojson', 'kmz'],
  viewshed: ['geotiff', 'geojson', 'kmz'],
};
const MAX_SITES = 16;

export default {
  id: 'netmaps',
  nav: true,
  titleKey: 'title',
  strings: {
    'pt-BR': {
      title: 'Mapas de rede',
      intro: 'Interferência (melhor servidor, C/I e SINR de vários transmissores) ou visada (linha de visada e zona de Fresnel de um site).',
      mode: 'Tipo de mapa',
      modeInterference: 'Interferência (SINR)',
      modeViewshed: 'Visada',
      tierNote: 'Plano {tier}: mapas de interferência não estão no plano Free (a visada está).',
      sites: 'Sites do tenant',
      siteN: 'Site {n}',
      lat: 'Latitude (graus)',
      lon: 'Longitude (graus)',
      height: 'Altura da antena (m)',
      eirp: 'EIRP (dBm)',
      azimuth: 'Azimute (graus, vazio: omni)',
      radio: 'Rádio do catálogo (seletividade de canal adjacente)',
      noRadio: 'Nenhum: ACS do mapa',
      addSite: 'Adicionar site',
      removeSite: 'Remover site {n}',
      towers: 'Torres públicas na área visível do mapa',
      operator: 'Operadora (opcional)',
      freq: 'Frequência (MHz)',
      bandwidth: 'Largura de banda (MHz)',
      noiseFigure: 'Figura de ruído (dB)',
      radius: 'Raio (km)',
      resolution: 'Pixel (m)',
      rxHeight: 'Altura do receptor (m)',
      site: 'Site',
      towerId: 'Ou id de torre (no lugar do site)',
      kFactor: 'Fator k (raio efetivo da Terra)',
      start: 'Calcular mapa',
      cancel: 'Cancelar',
      canceled: 'Mapa cancelado.',
      mapLabel: 'Mapa de rede: clique para pôr um site',
      clickHintInterference: 'Clique no mapa para adicionar um site.',
      clickHintViewshed: 'Clique no mapa para pôr o site.',
      queued: 'Na fila: posição {n}.',
      progress: 'Progresso',
      mapId: 'Mapa {id} ({engine})',
      tiles: 'Blocos: {n} de {total}',
      failed: 'O mapa falhou: {msg}',
      summary: 'Resumo do mapa',
      valid: 'Pixels com melhor servidor',
      interfered: 'Pixels com interferente',
      sinrRange: 'Faixa de SINR',
      sinrAreas: 'Área com SINR de pelo menos',
      threshold: 'SINR',
      area: 'Área',
      served: 'Pixels servidos por transmissor',
      txN: 'transmissor {n}',
      channels: 'Canais',
      noiseUsed: 'Figura de ruído',
      visible: 'Área visível',
      visiblePct: 'Fração visível do raio',
      fresnel: 'Área com 60 % de F1 livre',
      inRadius: 'Área no raio',
      engineUsed: 'Motor',
      elapsed: 'Tempo',
      exports: 'Exportar',
      exported: '{name} salvo ({size}).',
      legendSinr: 'SINR',
      belowSinr: 'abaixo de {v} ou sem dado: transparente',
      boundary: 'fronteira entre melhores servidores',
      legendView: 'Visada',
      clsFresnel: 'visada com 60 % de F1 livre',
      clsLos: 'visada, Fresnel obstruída',
      clsBlocked: 'sem visada',
    },
    en: {
      title: 'Network maps',
      intro: 'Interference (best server, C/I and SINR of several transmitters) or viewshed (line of sight and Fresnel zone from one site).',
      mode: 'Map kind',
      modeInterference: 'Interference (SINR)',
      modeViewshed: 'Viewshed',
      tierNote: '{tier} tier: interference maps are not in the Free tier (viewsheds are).',
      sites: 'Tenant sites',
      siteN: 'Site {n}',
      lat: 'Latitude (degrees)',
      lon: 'Longitude (degrees)',
      height: 'Antenna height (m)',
      eirp: 'EIRP (dBm)',
      azimuth: 'Azimuth (degrees, empty: omni)',
      radio: 'Catalogue radio (adjacent-channel selectivity)',
      noRadio: 'None: the map\'s ACS',
      addSite: 'Add site',
      removeSite: 'Remove site {n}',
      towers: 'Public towers in the map\'s visible area',
      operator: 'Operator (optional)',
      freq: 'Frequency (MHz)',
      bandwidth: 'Bandwidth (MHz)',
      noiseFigure: 'Noise figure (dB)',
      radius: 'Radius (km)',
      resolution: 'Pixel (m)',
      rxHeight: 'Receiver height (m)',
      site: 'Site',
      towerId: 'Or a tower id (instead of the site)',
      kFactor: 'k-factor (effective Earth radius)',
      start: 'Compute map',
      cancel: 'Cancel',
      canceled: 'Map cancelled.',
      mapLabel: 'Network map: click to place a site',
      clickHintInterference: 'Click the map to add a site.',
      clickHintViewshed: 'Click the map to place the site.',
      queued: 'Queued: position {n}.',
      progress: 'Progress',
      mapId: 'Map {id} ({engine})',
      tiles: 'Tiles: {n} of {total}',
      failed: 'The map failed: {msg}',
      summary: 'Map summary',
      valid: 'Pixels with a best server',
      interfered: 'Pixels with an interferer',
      sinrRange: 'SINR range',
      sinrAreas: 'Area with SINR of at least',
      threshold: 'SINR',
      area: 'Area',
      served: 'Pixels served per transmitter',
      txN: 'transmitter {n}',
      channels: 'Channels',
      noiseUsed: 'Noise figure',
      visible: 'Visible area',
      visiblePct: 'Visible share of the radius',
      fresnel: 'Area with 60 % of F1 clear',
      inRadius: 'Area within the radius',
      engineUsed: 'Engine',
      elapsed: 'Time',
      exports: 'Export',
      exported: '{name} saved ({size}).',
      legendSinr: 'SINR',
      belowSinr: 'below {v} or no data: transparent',
      boundary: 'boundary between best servers',
      legendView: 'Viewshed',
      clsFresnel: 'line of sight, 60 % of F1 clear',
      clsLos: 'line of sight, Fresnel obstructed',
      clsBlocked: 'no line of sight',
    },
  },
  render(root, ctx) {
    const { el, field } = ctx.ui;
    const { t, fmt } = ctx;
    const num = (attrs) => el('input', { type: 'number', inputmode: 'decimal', step: 'any', ...attrs });
    const tier = ctx.session ? ctx.session.tier : '';
    const ifAllowed = tier !== 'Free' || (ctx.session && ctx.session.admin);
    const memo = ctx.memo;
    let mode = memo.mode === 'viewshed' ? 'viewshed' : 'interference';

    const modeIf = el('input', { type: 'radio', name: 'nm-mode', id: 'nm-mode-interference', value: 'interference', checked: mode === 'interference' });
    const modeVs = el('input', { type: 'radio', name: 'nm-mode', id: 'nm-mode-viewshed', value: 'viewshed', checked: mode === 'viewshed' });
    const modeBox = el('fieldset', { class: 'card', id: 'nm-mode' }, el('legend', { text: t('mode') }),
      el('label', { for: 'nm-mode-interference' }, modeIf, ` ${t('modeInterference')}`), ' ',
      el('label', { for: 'nm-mode-viewshed' }, modeVs, ` ${t('modeViewshed')}`));

    // Interference form: site rows, the towers of the visible area, the channel.
    const siteRows = el('div', { id: 'nm-sites' });
    const addBtn = el('button', { type: 'button', id: 'nm-add-site', text: t('addSite') });
    const towersOn = el('input', { type: 'checkbox', id: 'nm-towers' });
    const operator = el('input', { type: 'text', id: 'nm-operator', maxlength: '64', 'data-field': 'operator' });
    const ifFreq = num({ id: 'nm-if-freq', value: '1800', min: '30', max: '100000', 'data-field': 'frequency_mhz' });
    const bandwidth = num({ id: 'nm-bandwidth', value: '20', min: '0.01', max: '2000', 'data-field': 'bandwidth_mhz' });
    const noiseFig = num({ id: 'nm-noise-figure', value: '7', min: '0', max: '30', 'data-field': 'noise_figure_db' });
    const ifRadius = num({ id: 'nm-if-radius', value: '4', min: '0.1', max: '100', 'data-field': 'radius_km' });
    const ifRes = num({ id: 'nm-if-resolution', value: '90', min: '2', max: '1000', 'data-field': 'resolution_m' });
    const ifRx = num({ id: 'nm-if-rx-height', value: '1.5', min: '0.1', max: '100', 'data-field': 'rx_height_m' });
    const ifStart = el('button', { type: 'submit', class: 'primary', id: 'nm-if-start', text: t('start') });
    const ifForm = el('form', { class: 'card', id: 'nm-if-form', novalidate: true, 'data-writes': true },
      el('p', { text: t('intro') }),
      el('p', { class: 'note', id: 'nm-if-tier', text: ifAllowed ? '' : t('tierNote', { tier }), hidden: ifAllowed }),
      el('fieldset', null, el('legend', { text: t('sites') }), siteRows, el('div', { class: 'actions' }, addBtn)),
      el('div', { class: 'row' }, el('label', { for: 'nm-towers' }, towersOn, ` ${t('towers')}`), field(t('operator'), operator)),
      el('div', { class: 'row' }, field(t('freq'), ifFreq), field(t('bandwidth'), bandwidth)),
      el('div', { class: 'row' }, field(t('noiseFigure'), noiseFig), field(t('radius'), ifRadius)),
      el('div', { class: 'row' }, field(t('resolution'), ifRes), field(t('rxHeight'), ifRx)),
      el('div', { class: 'actions' }, ifStart));

    // Viewshed form.
    const vsLat = num({ id: 'nm-vs-lat', min: '-90', max: '90', 'data-field': 'site.lat' });
    const vsLon = num({ id: 'nm-vs-lon', min: '-180', max: '180', 'data-field': 'site.lon' });
    const vsHeight = num({ id: 'nm-vs-height', value: '30', min: '0', max: '1000', 'data-field': 'site.height_m' });
    const towerId = el('input', { type: 'text', id: 'nm-vs-tower', maxlength: '64', 'data-field': 'tower_id' });
    const vsRx = num({ id: 'nm-vs-rx-height', value: '10', min: '0.1', max: '100', 'data-field': 'rx_height_m' });
    const vsFreq = num({ id: 'nm-vs-freq', value: '5800', min: '30', max: '100000', 'data-field': 'frequency_mhz' });
    const kFactor = num({ id: 'nm-vs-k', value: '1.333', min: '0.5', max: '10', 'data-field': 'k_factor' });
    const vsRadius = num({ id: 'nm-vs-radius', value: '4', min: '0.1', max: '100', 'data-field': 'radius_km' });
    const vsRes = num({ id: 'nm-vs-resolution', value: '90', min: '2', max: '1000', 'data-field': 'resolution_m' });
    const vsStart = el('button', { type: 'submit', class: 'primary', id: 'nm-vs-start', text: t('start') });
    const vsForm = el('form', { class: 'card', id: 'nm-vs-form', novalidate: true, 'data-writes': true },
      el('p', { text: t('intro') }),
      el('fieldset', null, el('legend', { text: t('site') }),
        el('div', { class: 'row' }, field(t('lat'), vsLat), field(t('lon'), vsLon)),
        el('div', { class: 'row' }, field(t('height'), vsHeight), field(t('towerId'), towerId))),
      el('div', { class: 'row' }, field(t('rxHeight'), vsRx), field(t('freq'), vsFreq)),
      el('div', { class: 'row' }, field(t('kFactor'), kFactor), field(t('radius'), vsRadius)),
      field(t('resolution'), vsRes),
      el('div', { class: 'actions' }, vsStart));

    const cancelBtn = el('button', { type: 'button', id: 'nm-cancel', text: t('cancel'), hidden: true });
    const status = el('div', { id: 'nm-status', 'aria-live': 'polite' });
    const hint = el('p', { class: 'note', id: 'nm-hint' });
    const mapBox = el('div', { id: 'nm-map', role: 'region', 'aria-label': t('mapLabel'), tabindex: '0' });
    const summaryBox = el('div', { id: 'nm-summary', 'aria-live': 'polite' });
    root.append(el('div', { class: 'split' },
      el('div', { class: 'panel' }, modeBox, el('div', { class: 'actions' }, cancelBtn), status, ifForm, vsForm, hint),
      el('div', { class: 'panel' }, mapBox, summaryBox)));

    const L = window.L;
    const map = createMap(mapBox, ctx, RIO);
    const markers = L.layerGroup().addTo(map);
    const tilesLayer = L.layerGroup().addTo(map);

    // Site rows of the interference form, kept in the tab's memo (a
    // language switch or a return finds them).
    if (!Array.isArray(memo.sites)) memo.sites = [];
    const sites = memo.sites;
    const drawMarkers = () => {
      if (ctx.signal.aborted) return;
      markers.clearLayers();
      const pts = mode === 'interference' ? sites : [{ lat: vsLat.value, lon: vsLon.value }];
      pts.forEach((s, i) => {
        const la = Number(s.lat);
        const lo = Number(s.lon);
        if (s.lat === '' || s.lon === '' || s.lat === undefined || !Number.isFinite(la) || !Number.isFinite(lo)) return;
        L.circleMarker([la, lo], { radius: 8, color: '#000', weight: 2, fillColor: '#0b5394', fillOpacity: 1, className: 'nm-site' })
          .bindTooltip(mode === 'interference' ? t('siteN', { n: i + 1 }) : t('site')).addTo(markers);
      });
    };
    const drawRows = () => {
      siteRows.replaceChildren(...sites.map((s, i) => {
        const inp = (key, label, attrs) => {
          const x = num({ id: `nm-site-${i}-${key}`, value: s[key] === undefined ? '' : String(s[key]), 'data-field': `sites[${i}].${key}`, ...attrs });
          x.addEventListener('input', () => { s[key] = x.value; drawMarkers(); });
          return field(label, x);
        };
        const rm = el('button', { type: 'button', class: 'nm-remove', 'aria-label': t('removeSite', { n: i + 1 }), text: '×',
          onclick: () => { sites.splice(i, 1); drawRows(); drawMarkers(); } });
        const radio = el('select', { id: `nm-site-${i}-radio_id`, class: 'nm-radio', 'data-field': `sites[${i}].radio_id`, disabled: !ifAllowed });
        radioOptions(ctx, radio, radios, s.radio_id || '', { none: t('noRadio'), withAcs: true });
        radio.addEventListener('change', () => { s.radio_id = radio.value; });
        return el('div', { class: 'nm-site-row' }, el('strong', { text: t('siteN', { n: i + 1 }) }),
          el('div', { class: 'row' }, inp('lat', t('lat')), inp('lon', t('lon'))),
          el('div', { class: 'row' }, inp('height_m', t('height')), inp('eirp_dbm', t('eirp'))),
          field(t('radio'), radio),
          el('div', { class: 'row' }, inp('azimuth_deg', t('azimuth')), rm));
      }));
      addBtn.disabled = !ifAllowed || sites.length >= MAX_SITES;
    };
    // The catalogue's radios (the tenant's and the built-ins), read once;
    // the site rows are filled again when they arrive.
    let radios = [];
    if (ifAllowed) {
      loadEquipment(ctx, ['radios']).then((eq) => {
        radios = eq.radios;
        for (const [i, s] of sites.entries()) {
          const sel = document.getElementById(`nm-site-${i}-radio_id`);
          if (sel) radioOptions(ctx, sel, radios, s.radio_id || '', { none: t('noRadio'), withAcs: true });
        }
      }).catch((err) => { if (err.name !== 'AbortError') status.append(ctx.ui.errorBox(err, t)); });
    }
    const addSite = (lat, lon) => {
      if (sites.length >= MAX_SITES) return;
      sites.push({ lat, lon, height_m: '30', eirp_dbm: '55', azimuth_deg: '', radio_id: '' });
      drawRows();
      drawMarkers();
    };
    addBtn.addEventListener('click', () => { const c = map.getCenter(); addSite(c.lat.toFixed(7), c.lng.toFixed(7)); });
    for (const i of [vsLat, vsLon]) i.addEventListener('input', drawMarkers);
    map.on('click', (e) => {
      if (mode === 'interference') {
        if (ifAllowed) addSite(e.latlng.lat.toFixed(7), e.latlng.lng.toFixed(7));
        return;
      }
      vsLat.value = e.latlng.lat.toFixed(7);
      vsLon.value = e.latlng.lng.toFixed(7);
      drawMarkers();
    });

    let legend = null;
    const showLegend = () => {
      if (legend) legend.remove();
      legend = L.control({ position: 'bottomright' });
      legend.onAdd = () => {
        const box = el('div', { class: 'legend', id: 'nm-legend' });
        const row = (rgb, text) => {
          const sw = el('span', { class: 'swatch', 'aria-hidden': 'true' });
          sw.style.background = `rgb(${rgb.join(',')})`;
          return el('div', null, sw, text);
        };
        if (mode === 'interference') {
          box.append(el('strong', { text: t('legendSinr') }));
          for (const c of SINR_LEGEND) box.append(row(c.rgb, `≥ ${fmt.unit(c.min, 'dB', 0)}`));
          box.append(row([0, 0, 0], t('boundary')));
          box.append(el('div', { class: 'muted', text: t('belowSinr', { v: fmt.unit(SINR_LEGEND[SINR_LEGEND.length - 1].min, 'dB', 0) }) }));
        } else {
          box.append(el('strong', { text: t('legendView') }));
          for (const c of VIEW_LEGEND) box.append(row(c.rgb, t(c.key)));
        }
        return box;
      };
      legend.addTo(map);
    };

    const setMode = (m) => {
      mode = m;
      memo.mode = m;
      ifForm.hidden = m !== 'interference';
      vsForm.hidden = m !== 'viewshed';
      hint.textContent = m === 'interference' ? t('clickHintInterference') : t('clickHintViewshed');
      showLegend();
      drawMarkers();
    };
    for (const r of [modeIf, modeVs]) r.addEventListener('change', () => { if (r.checked && r.value !== mode) { stop(); clearResult(); setMode(r.value); } });

    if (!ifAllowed) {
      // The tier cannot: the interference form is shown read-only.
      for (const c of ifForm.querySelectorAll('input, select, button')) c.disabled = true;
    }

    // drawTile: the tile's classes; on an interference map the pixels
    // whose best server differs from their east or south neighbour's are
    // drawn dark (the best-server boundaries).
    const drawTile = (tile, started) => {
      const view = started.kind === 'viewshed';
      const rgba = decodeTile(tile, started.nodata_value, started.value_scale_db, view ? VIEW_LEGEND : SINR_LEGEND);
      if (!view && tile.servers) {
        const bin = atob(tile.servers);
        const w = tile.width;
        const n = w * tile.height;
        if (bin.length === 2 * n) {
          const srv = new Int16Array(n);
          for (let i = 0; i < n; i++) srv[i] = bin.charCodeAt(2 * i) | (bin.charCodeAt(2 * i + 1) << 8);
          for (let i = 0; i < n; i++) {
            if (srv[i] < 0) continue;
            const east = (i % w) < w - 1 ? srv[i + 1] : srv[i];
            const south = i + w < n ? srv[i + w] : srv[i];
            if ((east >= 0 && east !== srv[i]) || (south >= 0 && south !== srv[i])) rgba.set([0, 0, 0, 230], 4 * i);
          }
        }
      }
      drawRGBA(tilesLayer, tile, rgba, 'nm-tile');
    };

    const dl = (...pairs) => el('dl', { class: 'kv' }, pairs.flat().filter(Boolean));
    // showSummary: caveats first, tied to the headline area, then the
    // kind's figures and the exports.
    const showSummary = (s, mapId, started) => {
      const d = s.detail || {};
      const list = uniqueWarnings((started && started.warnings) || [], s.warnings || []);
      const caveats = caveatBox(ctx, list, { id: 'nm-caveats' });
      let body;
      if (d.kind === 'viewshed') {
        const visDd = el('dd', { id: 'nm-visible', text: fmt.unit(d.visible_km2, 'km²', 2) });
        body = [dl(
          [el('dt', { text: t('visible') }), visDd, tieTo(ctx, visDd, caveats, list.length)],
          [el('dt', { text: t('visiblePct') }), el('dd', { id: 'nm-visible-pct', text: `${fmt.num(d.visible_pct, 1)}\u00a0%` })],
          [el('dt', { text: t('fresnel') }), el('dd', { id: 'nm-fresnel', text: fmt.unit(d.fresnel_clear_km2, 'km²', 2) })],
          [el('dt', { text: t('inRadius') }), el('dd', { id: 'nm-in-radius', text: fmt.unit(d.in_radius_km2, 'km²', 2) })],
          [el('dt', { text: t('kFactor') }), el('dd', { text: fmt.num(d.k_factor, 3) })],
          [el('dt', { text: t('height') }), el('dd', { text: fmt.unit(d.height_m, 'm', 1) })],
          [el('dt', { text: t('rxHeight') }), el('dd', { text: fmt.unit(d.rx_height_m, 'm', 1) })],
          [el('dt', { text: t('freq') }), el('dd', { text: fmt.unit(d.frequency_mhz, 'MHz', 0) })],
        )];
      } else {
        const areas = d.sinr_areas || [];
        const table = el('table', { id: 'nm-sinr-areas', class: 'data' },
          el('caption', { text: t('sinrAreas') }),
          el('thead', null, el('tr', null, el('th', { scope: 'col', text: t('threshold') }), el('th', { scope: 'col', text: t('area') }))),
          el('tbody', null, areas.map((a) => el('tr', null,
            el('th', { scope: 'row', text: `≥ ${fmt.unit(a.threshold_db, 'dB', 1)}` }),
            el('td', { class: 'nm-area', text: fmt.unit(a.area_km2, 'km²', 2) })))));
        if (caveats) table.setAttribute('aria-describedby', caveats.id);
        const validDd = el('dd', { id: 'nm-valid', text: `${fmt.int(d.valid_pixels)} / ${fmt.int(s.in_radius_pixels)}` });
        body = [dl(
          [el('dt', { text: t('valid') }), validDd, tieTo(ctx, validDd, caveats, list.length)],
          [el('dt', { text: t('interfered') }), el('dd', { id: 'nm-interfered', text: fmt.int(d.interfered_pixels) })],
          [el('dt', { text: t('sinrRange') }), el('dd', { id: 'nm-sinr-range', text: d.min_sinr_db === null || d.min_sinr_db === undefined ? '—' : `${fmt.unit(d.min_sinr_db, 'dB', 1)} … ${fmt.unit(d.max_sinr_db, 'dB', 1)}` })],
          [el('dt', { text: t('noiseUsed') }), el('dd', { text: fmt.unit(d.noise_figure_db, 'dB', 1) })],
          [el('dt', { text: t('channels') }), el('dd', { text: (d.channels || []).map((c) => `${fmt.unit(c.frequency_mhz, 'MHz', 1)} / ${fmt.unit(c.bandwidth_mhz, 'MHz', 1)}`).join('; ') })],
          [el('dt', { text: t('served') }), el('dd', { id: 'nm-served', text: (d.served_pixels || []).map((n, i) => `${t('txN', { n: i + 1 })}: ${fmt.int(n)}`).join('; ') })],
        ), table];
      }
      const buttons = exportButtons(ctx, mapId, EXPORTS[d.kind] || [], summaryBox);
      summaryBox.replaceChildren(el('div', { class: 'card', id: 'nm-summary-card', dataset: { kind: d.kind || '' } },
        el('h2', { id: 'nm-summary-title', tabindex: '-1', text: t('summary') }), caveats, ...body,
        dl([el('dt', { text: t('engineUsed') }), el('dd', { text: `${s.engine} ${s.engine_version}` })],
          [el('dt', { text: t('elapsed') }), el('dd', { text: fmt.unit(s.elapsed_ms / 1000, 's', 1) })]),
        el('h3', { text: t('exports') }), el('div', { class: 'actions' }, buttons)));
    };

    const stream = mapStream(ctx, {
      map, tiles: tilesLayer, status, cancelBtn, ids: { mapLine: 'nm-map-id', tiles: 'nm-tiles' }, memoKey: 'map',
      drawTile, showSummary, summaryTitle: 'nm-summary-title',
    });
    const stop = stream.stop;
    const clearResult = () => { status.replaceChildren(); summaryBox.replaceChildren(); tilesLayer.clearLayers(); memo.map = null; };
    const opt = (input) => (input.value === '' ? undefined : Number(input.value));
    const startMap = (path, body, form, startBtn, allowed) => {
      stop();
      clearResult();
      stream.start(path, body, { form, startBtn, allowed });
    };

    ifForm.addEventListener('submit', (e) => {
      e.preventDefault();
      const body = {
        frequency_mhz: Number(ifFreq.value), bandwidth_mhz: opt(bandwidth), noise_figure_db: opt(noiseFig),
        radius_km: opt(ifRadius), resolution_m: opt(ifRes), rx_height_m: opt(ifRx),
      };
      if (sites.length) {
        body.sites = sites.map((s) => {
          const o = { lat: Number(s.lat), lon: Number(s.lon), height_m: Number(s.height_m), eirp_dbm: Number(s.eirp_dbm) };
          if (s.azimuth_deg !== '' && s.azimuth_deg !== undefined) o.azimuth_deg = Number(s.azimuth_deg);
          if (s.radio_id) o.radio_id = s.radio_id;
          return o;
        });
      }
      if (towersOn.checked) {
        const b = map.getBounds();
        body.bbox = { min_lat: b.getSouth(), min_lon: b.getWest(), max_lat: b.getNorth(), max_lon: b.getEast() };
        if (operator.value.trim()) body.operator = operator.value.trim();
      }
      startMap('/coverage/interference', body, ifForm, ifStart, ifAllowed);
    });
    vsForm.addEventListener('submit', (e) => {
      e.preventDefault();
      const body = { frequency_mhz: Number(vsFreq.value), rx_height_m: opt(vsRx), k_factor: opt(kFactor), radius_km: opt(vsRadius), resolution_m: opt(vsRes) };
      if (towerId.value.trim()) body.tower_id = towerId.value.trim();
      else body.site = { lat: Number(vsLat.value), lon: Number(vsLon.value), height_m: Number(vsHeight.value) };
      startMap('/coverage/viewshed', body, vsForm, vsStart, true);
    });

    drawRows();
    setMode(mode);
    stream.restore();

    return () => { stop(); map.remove(); };
  },
};
