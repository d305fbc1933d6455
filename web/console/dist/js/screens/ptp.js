// ptp.js: the PtP screen (issue 27, scope 6): the engineer's own
// point-to-point or AP-to-CPE link. Both ends on the map (click for A then
// B, or type them), the height of each antenna, the radio and antenna of
// each end from the tenant's catalogue and the built-in ones (GET
// /equipment/radios, /equipment/antennas), frequency, channel,
// polarisation and availability target; POST /links/ptp. The answer shows
// its caveats first, in the user's language, above the headline (the
// recommended mode, its fade margin and availability), then the budget of
// every mode both ways with its availability, the fade margins the
// availability classes need, the path check and the profile chart. PDF
// (POST /reports/ptp, in the console's language) and KMZ (POST
// /exports/ptp?format=kmz) are downloaded for the same body.

import { createMap, fitPoints, RIO } from '../map.js';
import { profileChart } from '../chart.js';
import { caveatBox, uniqueWarnings } from '../caveats.js';
import { equipmentLabel, loadEquipment, radioOptions } from '../equipment.js';

// The default link: Sumaré to Pedra Bonita (Rio de Janeiro), 6.1 km at
// 18.7 GHz with the built-in licensed radio and 38 dBi dishes.
const DEFAULTS = {
  a: { name: 'Sumaré', lat: '-22.9517', lon: '-43.2371', height: '30' },
  b: { name: 'Pedra Bonita', lat: '-22.9877', lon: '-43.2826', height: '20' },
  radio: 'builtin:microwave-11-23ghz',
  antenna: 'builtin:dish-38dbi',
  freq: '18700',
  channel: '28',
};

export default {
  id: 'ptp',
  nav: true,
  titleKey: 'title',
  strings: {
    'pt-BR': {
      title: 'Enlace PtP',
      mapLabel: 'Mapa do enlace: clique para marcar A e depois B',
      ends: 'Extremos',
      end: 'Ponto {name}',
      name: 'Nome do local',
      lat: 'Latitude (graus)',
      lon: 'Longitude (graus)',
      height: 'Altura da antena (m)',
      radio: 'Rádio',
      antenna: 'Antena',
      cable: 'Perda de cabo (dB)',
      params: 'Parâmetros',
      freq: 'Frequência (MHz)',
      channel: 'Largura do canal (MHz)',
      polarization: 'Polarização',
      vertical: 'vertical',
      horizontal: 'horizontal',
      dual: 'dupla',
      target: 'Disponibilidade desejada (%)',
      analyse: 'Calcular enlace',
      analysing: 'Calculando…',
      pickNext: 'Próximo clique no mapa: ponto {name}.',
      headline: 'Modo recomendado {mode}: margem {m}, disponibilidade {av}',
      noMode: 'Nenhum modo atinge a disponibilidade desejada de {target} %.',
      summary: 'Resumo do caminho',
      distance: 'Distância',
      pathLoss: 'Perda no caminho',
      gas: 'Absorção gasosa',
      los: 'Visada direta',
      fresnel: 'Fresnel (60 %) livre',
      yes: 'sim',
      no: 'não',
      modes: 'Orçamento por modo (MCS)',
      mode: 'Modo',
      throughput: 'Vazão',
      rxAB: 'Recepção A→B',
      rxBA: 'Recepção B→A',
      margin: 'Margem',
      availability: 'Disponibilidade',
      outage: 'Indisponibilidade (min/ano)',
      meets: 'Atinge a meta',
      recommended: 'recomendado',
      required: 'Margem necessária por classe de disponibilidade',
      class: 'Disponibilidade',
      needed: 'Margem necessária',
      notComputed: 'não calculada',
      pdf: 'Relatório PDF',
      kmz: 'KMZ (Google Earth)',
      saved: '{name} salvo.',
      equipmentError: 'Não foi possível ler o catálogo de equipamentos.',
    },
    en: {
      title: 'PtP link',
      mapLabel: 'Link map: click to mark A, then B',
      ends: 'Ends',
      end: 'Point {name}',
      name: 'Site name',
      lat: 'Latitude (degrees)',
      lon: 'Longitude (degrees)',
      height: 'Antenna height (m)',
      radio: 'Radio',
      antenna: 'Antenna',
      cable: 'Cable loss (dB)',
      params: 'Parameters',
      freq: 'Frequency (MHz)',
      channel: 'Channel width (MHz)',
      polarization: 'Polarisation',
      vertical: 'vertical',
      horizontal: 'horizontal',
      dual: 'dual',
      target: 'Availability target (%)',
      analyse: 'Analyse link',
      analysing: 'Analysing…',
      pickNext: 'Next click on the map: point {name}.',
      headline: 'Recommended mode {mode}: margin {m}, availability {av}',
      noMode: 'No mode meets the availability target of {target} %.',
      summary: 'Path summary',
      distance: 'Distance',
      pathLoss: 'Path loss',
      gas: 'Gaseous absorption',
      los: 'Line of sight',
      fresnel: 'Fresnel (60 %) clear',
      yes: 'yes',
      no: 'no',
      modes: 'Budget per mode (MCS)',
      mode: 'Mode',
      throughput: 'Throughput',
      rxAB: 'Received A→B',
      rxBA: 'Received B→A',
      margin: 'Margin',
      availability: 'Availability',
      outage: 'Outage (min/year)',
      meets: 'Meets target',
      recommended: 'recommended',
      required: 'Fade margin each availability class needs',
      class: 'Availability',
      needed: 'Margin needed',
      notComputed: 'not computed',
      pdf: 'PDF report',
      kmz: 'KMZ (Google Earth)',
      saved: '{name} saved.',
      equipmentError: 'The equipment catalogue could not be read.',
    },
  },
  render(root, ctx) {
    const { el, field, table, errorBox } = ctx.ui;
    const { t, fmt } = ctx;
    const num = (attrs) => el('input', { type: 'number', inputmode: 'decimal', step: 'any', ...attrs });
    const memo = ctx.memo;
    const inputs = memo.inputs || {};
    const end = (key) => {
      const d = { ...DEFAULTS[key], ...(inputs[key] || {}) };
      const f = {
        name: el('input', { type: 'text', id: `ptp-${key}-name`, value: d.name, maxlength: '100', autocomplete: 'off' }),
        lat: num({ id: `ptp-${key}-lat`, value: d.lat, min: '-90', max: '90', 'data-field': `${key}.lat` }),
        lon: num({ id: `ptp-${key}-lon`, value: d.lon, min: '-180', max: '180', 'data-field': `${key}.lon` }),
        height: num({ id: `ptp-${key}-height`, value: d.height, min: '0.1', max: '500', 'data-field': `${key}.height_m` }),
        radio: el('select', { id: `ptp-${key}-radio`, 'data-field': `${key}.radio_id` }),
        antenna: el('select', { id: `ptp-${key}-antenna`, 'data-field': `${key}.antenna_id` }),
        cable: num({ id: `ptp-${key}-cable`, value: d.cable || '0', min: '0', max: '100', 'data-field': `${key}.cable_loss_db` }),
        want: { radio: d.radio || DEFAULTS.radio, antenna: d.antenna || DEFAULTS.antenna },
      };
      f.box = el('fieldset', null, el('legend', { text: t('end', { name: key.toUpperCase() }) }),
        field(t('name'), f.name),
        el('div', { class: 'row' }, field(t('lat'), f.lat), field(t('lon'), f.lon)),
        el('div', { class: 'row' }, field(t('height'), f.height), field(t('cable'), f.cable)),
        field(t('radio'), f.radio), field(t('antenna'), f.antenna));
      f.body = () => ({
        name: f.name.value.trim() || key.toUpperCase(),
        lat: Number(f.lat.value), lon: Number(f.lon.value), height_m: Number(f.height.value),
        radio_id: f.radio.value, antenna_id: f.antenna.value, cable_loss_db: Number(f.cable.value) || 0,
      });
      f.keep = () => ({ name: f.name.value, lat: f.lat.value, lon: f.lon.value, height: f.height.value, cable: f.cable.value, radio: f.radio.value, antenna: f.antenna.value });
      return f;
    };
    const A = end('a');
    const B = end('b');
    const freq = num({ id: 'ptp-freq', value: inputs.freq || DEFAULTS.freq, min: '30', max: '100000', 'data-field': 'frequency_mhz' });
    const channel = num({ id: 'ptp-channel', value: inputs.channel || DEFAULTS.channel, min: '0.01', max: '2000', 'data-field': 'channel_mhz' });
    const pol = el('select', { id: 'ptp-pol', 'data-field': 'polarization' },
      ['vertical', 'horizontal', 'dual'].map((p) => el('option', { value: p, text: t(p), selected: p === (inputs.pol || 'vertical') })));
    const target = num({ id: 'ptp-target', value: inputs.target || '99.99', min: '90', max: '99.9999', 'data-field': 'availability_target_pct' });
    const submit = el('button', { type: 'submit', class: 'primary', id: 'ptp-analyse', text: t('analyse') });
    const out = el('div', { id: 'ptp-status', 'aria-live': 'polite' });
    const pickNote = el('p', { class: 'note', id: 'ptp-pick', 'aria-live': 'polite' });
    const form = el('form', { class: 'card', id: 'ptp-form', novalidate: true },
      el('h2', { text: t('ends') }), A.box, B.box,
      el('h2', { text: t('params') }),
      el('div', { class: 'row' }, field(t('freq'), freq), field(t('channel'), channel)),
      el('div', { class: 'row' }, field(t('polarization'), pol), field(t('target'), target)),
      el('div', { class: 'actions' }, submit), out);
    const mapBox = el('div', { id: 'ptp-map', role: 'region', 'aria-label': t('mapLabel'), tabindex: '0' });
    const results = el('div', { id: 'ptp-results', 'aria-live': 'polite' });
    root.append(el('div', { class: 'split' },
      el('div', { class: 'panel' }, form),
      el('div', { class: 'panel' }, mapBox, pickNote, results)));

    const keepInputs = () => {
      memo.inputs = { a: A.keep(), b: B.keep(), freq: freq.value, channel: channel.value, pol: pol.value, target: target.value };
    };
    form.addEventListener('change', keepInputs);

    // Equipment: the tenant's catalogue with the built-ins, one list for
    // both ends; the option keeps the id the API takes.
    const fillEquipment = async () => {
      try {
        const { radios, antennas } = await loadEquipment(ctx);
        for (const f of [A, B]) {
          radioOptions(ctx, f.radio, radios, f.want.radio);
          f.antenna.replaceChildren(...antennas.map((a) => el('option', { value: a.id, text: equipmentLabel(ctx, a, fmt.unit(a.gain_dbi, 'dBi', 1)), selected: a.id === f.want.antenna })));
        }
      } catch (err) {
        if (err.name !== 'AbortError') out.append(errorBox(err, t));
      }
    };
    const equipment = fillEquipment();

    const L = window.L;
    const map = createMap(mapBox, ctx, RIO);
    const ends = L.layerGroup().addTo(map);
    let next = 'a';
    const drawEnds = (fit) => {
      if (ctx.signal.aborted) return;
      ends.clearLayers();
      const pts = [];
      for (const [f, name] of [[A, 'A'], [B, 'B']]) {
        const la = Number(f.lat.value); const lo = Number(f.lon.value);
        if (f.lat.value !== '' && f.lon.value !== '' && Number.isFinite(la) && Number.isFinite(lo)) {
          L.circleMarker([la, lo], { radius: 9, color: '#000', weight: 2, fillColor: '#ffd400', fillOpacity: 1, className: `ptp-end-${name.toLowerCase()}` })
            .bindTooltip(`${name}: ${f.name.value}`, { permanent: true, direction: 'top' }).addTo(ends);
          pts.push([la, lo]);
        }
      }
      if (pts.length === 2) L.polyline(pts, { color: '#0b5394', weight: 3, dashArray: '6 6' }).addTo(ends);
      if (fit && pts.length) fitPoints(map, pts, 14);
    };
    drawEnds(true);
    pickNote.textContent = t('pickNext', { name: 'A' });
    map.on('click', (e) => {
      const f = next === 'a' ? A : B;
      f.lat.value = e.latlng.lat.toFixed(6);
      f.lon.value = e.latlng.lng.toFixed(6);
      next = next === 'a' ? 'b' : 'a';
      pickNote.textContent = t('pickNext', { name: next.toUpperCase() });
      keepInputs();
      drawEnds(false);
    });
    for (const f of [A, B]) for (const k of ['lat', 'lon', 'name']) f[k].addEventListener('change', () => drawEnds(false));

    const body = () => ({
      a: A.body(), b: B.body(),
      frequency_mhz: Number(freq.value), channel_mhz: Number(channel.value),
      polarization: pol.value, availability_target_pct: Number(target.value),
    });

    let refocusEnd = null; // the chart handle that asked for this run
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      await equipment;
      keepInputs();
      out.replaceChildren();
      results.replaceChildren();
      const req = body();
      submit.disabled = true;
      submit.textContent = t('analysing');
      try {
        const res = await ctx.api('POST', '/links/ptp', { json: req, signal: ctx.signal });
        memo.result = { req, res };
        draw(req, res);
        const knob = refocusEnd ? document.querySelector(`#profile-chart .height-handle[data-end="${refocusEnd}"]`) : null;
        if (knob) {
          knob.focus({ preventScroll: true });
          knob.scrollIntoView({ block: 'center' });
        } else ctx.showResult(document.getElementById('ptp-headline'));
      } catch (err) {
        if (err.name !== 'AbortError') out.append(errorBox(err, t, form));
      } finally {
        refocusEnd = null;
        submit.disabled = false;
        submit.textContent = t('analyse');
      }
    });

    const pct = (v) => (v === null || v === undefined ? t('notComputed') : `${fmt.num(v, 4)} %`);

    function draw(req, res) {
      // Caveats first: every warning of the answer and of its modes'
      // availability, each code once, in the user's language, above the
      // headline they qualify.
      const caveats = caveatBox(ctx, uniqueWarnings(res.warnings || [], (res.modes || []).flatMap((m) => (m.availability && m.availability.warnings) || [])), { id: 'ptp-caveats' });
      const rec = res.recommended_index >= 0 && res.modes ? res.modes[res.recommended_index] : null;
      const headline = rec
        ? t('headline', { mode: rec.name, m: fmt.unit(rec.fade_margin_db, 'dB', 1), av: pct(rec.availability && rec.availability.availability_pct) })
        : t('noMode', { target: fmt.num(res.availability_target_pct, 4) });
      const summary = el('dl', { class: 'kv', id: 'ptp-summary' },
        el('dt', { text: t('distance') }), el('dd', { text: fmt.unit(res.distance_km, 'km', 2) }),
        el('dt', { text: t('pathLoss') }), el('dd', { text: fmt.unit(res.path_loss_db, 'dB', 1) }),
        el('dt', { text: t('gas') }), el('dd', { text: fmt.unit(res.gas_attenuation_db, 'dB', 2) }),
        el('dt', { text: t('los') }), el('dd', { text: res.los_clear ? t('yes') : t('no') }),
        el('dt', { text: t('fresnel') }), el('dd', { text: res.fresnel_ok ? t('yes') : t('no') }));
      const rows = (res.modes || []).map((m, i) => ({ ...m, _class: i === res.recommended_index ? 'recommended' : null }));
      const modes = table([
        { key: 'name', label: t('mode'), format: (v, r) => (r._class ? `${v} (${t('recommended')})` : v) },
        { key: 'throughput_mbps', label: t('throughput'), num: true, format: (v) => fmt.unit(v, 'Mbit/s', 1) },
        { key: 'a_to_b', label: t('rxAB'), num: true, format: (v) => fmt.unit(v.rx_level_dbm, 'dBm', 1) },
        { key: 'b_to_a', label: t('rxBA'), num: true, format: (v) => fmt.unit(v.rx_level_dbm, 'dBm', 1) },
        { key: 'fade_margin_db', label: t('margin'), num: true, format: (v) => fmt.unit(v, 'dB', 1) },
        { key: 'availability', label: t('availability'), num: true, format: (v) => pct(v && v.availability_pct) },
        { key: 'availability', label: t('outage'), num: true, format: (v) => (v ? fmt.num(v.outage_minutes_per_year, 1) : t('notComputed')) },
        { key: 'availability', label: t('meets'), format: (v) => (v ? (v.meets_target ? t('yes') : t('no')) : '—') },
      ], rows, { caption: t('modes') });
      modes.id = 'ptp-modes';
      const required = (res.required_fade_margins || []).length
        ? table([
          { key: 'availability_pct', label: t('class'), num: true, format: (v) => `${fmt.num(v, 3)} %` },
          { key: 'fade_margin_db', label: t('needed'), num: true, format: (v) => fmt.unit(v, 'dB', 1) },
        ], res.required_fade_margins, { caption: t('required') })
        : null;
      if (required) required.id = 'ptp-required';
      const pdf = el('button', { type: 'button', id: 'ptp-pdf', text: t('pdf') });
      const kmz = el('button', { type: 'button', id: 'ptp-kmz', text: t('kmz') });
      const saved = el('p', { class: 'note', id: 'ptp-saved', 'aria-live': 'polite' });
      const save = async (btn, path, opts, name) => {
        btn.disabled = true;
        try {
          const r = await ctx.download(path, name, { method: 'POST', signal: ctx.signal, ...opts });
          saved.textContent = t('saved', { name: r.name });
        } catch (err) {
          if (err.name !== 'AbortError') saved.replaceChildren(errorBox(err, t));
        } finally {
          btn.disabled = false;
        }
      };
      pdf.addEventListener('click', () => save(pdf, '/reports/ptp', { json: { ...req, language: ctx.lang === 'en' ? 'en' : 'pt-BR' } }, 'linkplan-ptp.pdf'));
      kmz.addEventListener('click', () => save(kmz, '/exports/ptp', { query: { format: 'kmz' }, json: req }, 'linkplan-ptp.kmz'));
      let chart = null;
      if (res.path && res.path.profile) {
        // Both antenna heights are draggable on the chart (a: distance 0);
        // a new height re-runs the analysis, the focus back on the handle.
        const ends = {};
        for (const [key, f] of [['a', A], ['b', B]]) {
          ends[key] = { label: `${key.toUpperCase()} (${f.name.value || key.toUpperCase()})`, onChange: (h) => {
            f.height.value = String(h);
            keepInputs();
            refocusEnd = key;
            form.requestSubmit();
          } };
        }
        try { chart = profileChart(res.path, ctx, { ends }); } catch (err) { console.warn('profile chart', err); }
      }
      results.append(el('div', { class: 'card', id: 'ptp-result' },
        caveats,
        el('h2', { id: 'ptp-headline', tabindex: '-1', text: headline }),
        el('div', { class: 'actions' }, pdf, kmz), saved,
        el('h3', { text: t('summary') }), summary,
        modes, required, chart));
      drawEnds(true);
    }

    if (memo.result) draw(memo.result.req, memo.result.res);

    return () => { map.remove(); };
  },
};
