// towers.js: the Towers screen. The towers of the map's view (GET /towers
// with bbox, operator and source; the synthetic flag filtered here), drawn
// with a grid clustering of our own (towers closer than CLUSTER_PX on the
// screen become one numbered marker; a click zooms in), each single tower
// with its position uncertainty as a circle of position_uncertainty_m
// metres. Below the map, a list of the towers in view, and the form that
// registers an own tower (POST /towers).

import { createMap, RIO } from '../map.js';

const CLUSTER_PX = 48;
const PAGE = 1000;
const MAX_PAGES = 5;

// clusterPoints groups items (with a .pt {x, y} in pixels) by a square
// grid of cell pixels; returns [{items, x, y}] with the mean position.
export function clusterPoints(items, cell) {
  const cells = new Map();
  for (const it of items) {
    const key = `${Math.floor(it.pt.x / cell)}:${Math.floor(it.pt.y / cell)}`;
    let c = cells.get(key);
    if (!c) { c = { items: [], x: 0, y: 0 }; cells.set(key, c); }
    c.items.push(it);
    c.x += it.pt.x;
    c.y += it.pt.y;
  }
  return [...cells.values()].map((c) => ({ items: c.items, x: c.x / c.items.length, y: c.y / c.items.length }));
}

const SOURCE_COLOURS = { anatel: '#0b5394', ocid: '#6a3d9a', user: '#176b2c', synthetic: '#8a5a00' };

export default {
  id: 'towers',
  nav: true,
  titleKey: 'title',
  strings: {
    'pt-BR': {
      title: 'Torres',
      mapLabel: 'Mapa das torres',
      filters: 'Filtros',
      operator: 'Operadora',
      operatorHint: 'Vazio: todas.',
      source: 'Fonte',
      all: 'todas',
      synthetic: 'Torres sintéticas',
      synAll: 'mostrar todas',
      synHide: 'só torres reais',
      synOnly: 'só sintéticas',
      apply: 'Aplicar filtros',
      shown: '{n} torres nesta área (de {total} encontradas pela API).',
      truncated: 'Mostrando as primeiras {n}: aproxime o mapa para ver as demais.',
      list: 'Torres na área',
      id: 'Id',
      height: 'Altura',
      power: 'ERP',
      uncertainty: 'Incerteza de posição',
      placement: 'Posicionamento',
      cluster: '{n} torres: clique para aproximar',
      register: 'Registrar torre própria',
      registerHint: 'Clique no mapa para preencher a posição.',
      lat: 'Latitude (graus)',
      lon: 'Longitude (graus)',
      regHeight: 'Altura da antena (m)',
      regPower: 'ERP (dBm)',
      regAzimuth: 'Azimute (graus)',
      optional: 'Opcional.',
      save: 'Registrar',
      saved: 'Torre {id} registrada.',
      syntheticMark: 'sintética',
      more: 'e mais {n}…',
    },
    en: {
      title: 'Towers',
      mapLabel: 'Tower map',
      filters: 'Filters',
      operator: 'Operator',
      operatorHint: 'Empty: all.',
      source: 'Source',
      all: 'all',
      synthetic: 'Synthetic towers',
      synAll: 'show all',
      synHide: 'real towers only',
      synOnly: 'synthetic only',
      apply: 'Apply filters',
      shown: '{n} towers in this area (of {total} found by the API).',
      truncated: 'Showing the first {n}: zoom in to see the others.',
      list: 'Towers in the area',
      id: 'Id',
      height: 'Height',
      power: 'ERP',
      uncertainty: 'Position uncertainty',
      placement: 'Placement',
      cluster: '{n} towers: click to zoom in',
      register: 'Register an own tower',
      registerHint: 'Click the map to fill in the position.',
      lat: 'Latitude (degrees)',
      lon: 'Longitude (degrees)',
      regHeight: 'Antenna height (m)',
      regPower: 'ERP (dBm)',
      regAzimuth: 'Azimuth (degrees)',
      optional: 'Optional.',
      save: 'Register',
      saved: 'Tower {id} registered.',
      syntheticMark: 'synthetic',
      more: 'and {n} more…',
    },
  },
  render(root, ctx) {
    const { el, field, table, errorBox } = ctx.ui;
    const { t, fmt } = ctx;
    const operator = el('input', { type: 'text', id: 'tw-operator', autocomplete: 'off' });
    const source = el('select', { id: 'tw-source' }, ['', 'anatel', 'ocid', 'user', 'synthetic'].map((s) => el('option', { value: s, text: s || t('all') })));
    const syn = el('select', { id: 'tw-synthetic' }, [['all', t('synAll')], ['hide', t('synHide')], ['only', t('synOnly')]].map(([v, l]) => el('option', { value: v, text: l })));
    const filters = el('form', { class: 'card', id: 'tw-filters', novalidate: true },
      el('h2', { text: t('filters') }),
      field(t('operator'), operator, t('operatorHint')),
      el('div', { class: 'row' }, field(t('source'), source), field(t('synthetic'), syn)),
      el('div', { class: 'actions' }, el('button', { type: 'submit', class: 'primary', id: 'tw-apply', text: t('apply') })));

    const num = (attrs) => el('input', { type: 'number', inputmode: 'decimal', step: 'any', ...attrs });
    const rOp = el('input', { type: 'text', id: 'tw-reg-operator', required: true, maxlength: '64' });
    const rLat = num({ id: 'tw-reg-lat', min: '-90', max: '90', required: true });
    const rLon = num({ id: 'tw-reg-lon', min: '-180', max: '180', required: true });
    const rH = num({ id: 'tw-reg-height', min: '0.5', max: '500', value: '30' });
    const rP = num({ id: 'tw-reg-power', min: '-30', max: '100' });
    const rAz = num({ id: 'tw-reg-azimuth', min: '0', max: '360' });
    const regOut = el('div', { 'aria-live': 'polite' });
    const reg = el('form', { class: 'card', id: 'tw-register', novalidate: true, 'data-writes': true },
      el('h2', { text: t('register') }), el('p', { class: 'note', text: t('registerHint') }),
      field(t('operator'), rOp),
      el('div', { class: 'row' }, field(t('lat'), rLat), field(t('lon'), rLon)),
      el('div', { class: 'row' }, field(t('regHeight'), rH), field(t('regPower'), rP, t('optional'))),
      field(t('regAzimuth'), rAz, t('optional')),
      el('div', { class: 'actions' }, el('button', { type: 'submit', class: 'primary', id: 'tw-reg-save', text: t('save') })),
      regOut);

    const mapBox = el('div', { id: 'tw-map', role: 'region', 'aria-label': t('mapLabel'), tabindex: '0' });
    const info = el('p', { id: 'tw-info', class: 'note', 'aria-live': 'polite' });
    const listHost = el('div', { id: 'tw-list' });
    root.append(el('div', { class: 'split' },
      el('div', { class: 'panel' }, filters, reg),
      el('div', { class: 'panel' }, mapBox, info, listHost)));

    const L = window.L;
    const map = createMap(mapBox, ctx, { center: RIO.center, zoom: 12 });
    const layer = L.layerGroup().addTo(map);
    let towers = [];
    let loadSeq = 0;

    map.on('click', (e) => { rLat.value = e.latlng.lat.toFixed(6); rLon.value = e.latlng.lng.toFixed(6); });

    const visible = () => towers.filter((tw) => (syn.value === 'all' ? true : syn.value === 'hide' ? !tw.synthetic : tw.synthetic));

    function draw() {
      if (gone) return;
      layer.clearLayers();
      const items = visible().map((tw) => ({ tw, pt: map.latLngToLayerPoint([tw.lat, tw.lon]) }));
      for (const c of clusterPoints(items, CLUSTER_PX)) {
        if (c.items.length === 1) {
          const tw = c.items[0].tw;
          const colour = SOURCE_COLOURS[tw.source] || '#333';
          if (tw.position_uncertainty_m > 0) {
            L.circle([tw.lat, tw.lon], { radius: tw.position_uncertainty_m, color: colour, weight: 1, fillOpacity: 0.08, interactive: false, className: 'tw-uncertainty' }).addTo(layer);
          }
          const m = L.circleMarker([tw.lat, tw.lon], { radius: 7, color: '#1b1f24', weight: 1.5, fillColor: colour, fillOpacity: 0.95, dashArray: tw.synthetic ? '3 2' : null, className: 'tw-marker' });
          m.bindPopup(() => popup(tw));
          m.bindTooltip(`${tw.id} · ${tw.operator}`);
          m.addTo(layer);
        } else {
          const ll = map.layerPointToLatLng([c.x, c.y]);
          const label = document.createElement('span');
          label.textContent = String(c.items.length);
          const mk = L.marker(ll, { icon: L.divIcon({ className: 'tw-cluster', html: label, iconSize: [36, 36] }), title: t('cluster', { n: c.items.length }), alt: t('cluster', { n: c.items.length }), riseOnHover: true });
          mk.on('click keypress', () => {
            const b = L.latLngBounds(c.items.map((i) => [i.tw.lat, i.tw.lon]));
            map.fitBounds(b.pad(0.3), { maxZoom: Math.min(map.getZoom() + 3, 17) });
          });
          mk.addTo(layer);
        }
      }
      const shown = visible();
      listHost.replaceChildren();
      ctx.ui.put(listHost, table([
        { key: 'id', label: t('id') },
        { key: 'operator', label: t('operator') },
        { key: 'source', label: t('source'), format: (v, r) => (r.synthetic ? `${v} (${t('syntheticMark')})` : v) },
        { key: 'height', label: t('height'), num: true, format: (v) => fmt.unit(v, 'm', 0) },
        { key: 'power', label: t('power'), num: true, format: (v) => (v === null ? '—' : fmt.unit(v, 'dBm', 1)) },
        { key: 'position_uncertainty_m', label: t('uncertainty'), num: true, format: (v) => fmt.unit(v, 'm', 0) },
      ], shown.slice(0, 50), { caption: t('list') }), shown.length > 50 ? el('p', { class: 'note', text: t('more', { n: shown.length - 50 }) }) : null);
    }

    function popup(tw) {
      return el('div', { class: 'tw-popup' },
        el('strong', { text: tw.id }),
        el('dl', { class: 'kv' },
          el('dt', { text: t('operator') }), el('dd', { text: tw.operator }),
          el('dt', { text: t('source') }), el('dd', { text: tw.synthetic ? `${tw.source} (${t('syntheticMark')})` : tw.source }),
          el('dt', { text: t('placement') }), el('dd', { text: tw.placement }),
          el('dt', { text: t('height') }), el('dd', { text: fmt.unit(tw.height_m, 'm', 0) }),
          el('dt', { text: t('power') }), el('dd', { text: tw.power === null ? '—' : fmt.unit(tw.power, 'dBm', 1) }),
          el('dt', { text: t('uncertainty') }), el('dd', { text: fmt.unit(tw.position_uncertainty_m, 'm', 0) })));
    }

    let gone = false; // the screen was left: the map is removed
    async function load() {
      if (gone) return;
      const seq = ++loadSeq;
      const b = map.getBounds();
      const bbox = [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].map((v, i) => Math.max(i % 2 ? -90 : -180, Math.min(i % 2 ? 90 : 180, v)).toFixed(5)).join(',');
      const got = [];
      let total = 0;
      try {
        for (let page = 0, offset = 0; page < MAX_PAGES; page++) {
          const res = await ctx.api('GET', '/towers', { query: { bbox, limit: PAGE, offset, operator: operator.value.trim(), source: source.value }, signal: ctx.signal });
          got.push(...res.towers);
          total = res.total;
          if (res.next_offset === null) break;
          offset = res.next_offset;
        }
      } catch (err) {
        if (err.name !== 'AbortError' && seq === loadSeq) info.replaceChildren(errorBox(err, t));
        return;
      }
      if (seq !== loadSeq || gone) return;
      towers = got;
      info.textContent = t('shown', { n: fmt.int(visible().length), total: fmt.int(total) }) + (total > got.length ? ' ' + t('truncated', { n: fmt.int(got.length) }) : '');
      draw();
    }

    let timer = null;
    map.on('moveend', () => { clearTimeout(timer); timer = setTimeout(load, 250); });
    map.on('zoomend', draw);
    filters.addEventListener('submit', (e) => { e.preventDefault(); load(); });
    syn.addEventListener('change', draw);

    reg.addEventListener('submit', async (e) => {
      e.preventDefault();
      regOut.replaceChildren();
      const opt = (inp) => (inp.value.trim() === '' ? undefined : Number(inp.value));
      const body = { operator: rOp.value.trim(), lat: Number(rLat.value), lon: Number(rLon.value), height_m: opt(rH), power: opt(rP), azimuth: opt(rAz) };
      if (rLat.value.trim() === '') body.lat = undefined;
      if (rLon.value.trim() === '') body.lon = undefined;
      try {
        const tw = await ctx.api('POST', '/towers', { json: body, signal: ctx.signal });
        regOut.append(el('p', { id: 'tw-reg-done', text: t('saved', { id: tw.id }) }));
        ctx.toast(t('saved', { id: tw.id }), 'ok');
        map.setView([tw.lat, tw.lon], Math.max(map.getZoom(), 14));
        load();
      } catch (err) {
        if (err.name !== 'AbortError') regOut.append(errorBox(err, t));
      }
    });

    load();
    return () => { gone = true; clearTimeout(timer); map.remove(); };
  },
};
