// repeater.js: the Repeater screen. Pick the two ends (click the map for
// A then B, or type a tower id), the maximum number of hops and the
// frequency, and POST /plan_repeater. A plan of fewer than 4 hops comes
// back at once (200); 4 or more are queued as a job (202): the screen then
// polls GET /jobs/{id} for its progress and, once it succeeded, reads the
// plan from GET /jobs/{id}/download. The route is drawn hop by hop, the
// bottleneck hop highlighted, and listed with each hop's distance, loss
// and margin.
//
// Radio budget (the fields of PlanRepeaterRequest that make a hop's
// margin: eirp_dbm, rx_gain_dbi, rx_threshold_dbm, min_margin_db, and the
// route's limits max_hop_m, relay_height_m, engine): edited in the form;
// an empty field is left to the API's default, which the answer's
// radio_budget reports as assumed. The budget every hop was computed with
// (radio_budget) is shown with the route, each assumed value marked.
// Caveats first: the plan's warnings (eirp_assumed, the route's hop
// warnings, engine_resolved) head the route, in the user's language, tied
// to its least margin (caveats.js).

import { ApiError } from '../api.js';
import { createMap, fitPoints, RIO } from '../map.js';
import { marginColour } from './link.js';
import { caveatBox, tieTo, uniqueWarnings, uncertainVs, caveatWords } from '../caveats.js';

const POLL_MS = 1000;

export default {
  id: 'repeater',
  nav: true,
  titleKey: 'title',
  strings: {
    'pt-BR': {
      title: 'Repetidora',
      mapLabel: 'Mapa da rota: clique para marcar A e depois B',
      ends: 'Extremos',
      end: 'Ponto {name}',
      towerId: 'Id da torre (opcional)',
      towerHint: 'Preenchido: usa a torre do catálogo no lugar da posição.',
      lat: 'Latitude (graus)',
      lon: 'Longitude (graus)',
      height: 'Altura da antena (m)',
      params: 'Parâmetros',
      freq: 'Frequência (MHz)',
      maxHops: 'Máximo de saltos',
      maxHopsHint: '4 ou mais: calculado como tarefa em segundo plano.',
      minMargin: 'Margem mínima por salto (dB)',
      plan: 'Planejar rota',
      planning: 'Planejando…',
      pickNext: 'Próximo clique no mapa: ponto {name}.',
      route: 'Rota: {hops} saltos, margem mínima {m}',
      noRoute: 'Nenhuma rota atende às restrições: {reason}',
      hop: 'Salto',
      from: 'De',
      to: 'Para',
      distance: 'Distância',
      loss: 'Perda',
      penalty: 'Penalidade Fresnel',
      margin: 'Margem',
      los: 'Visada',
      bottleneck: 'gargalo',
      yes: 'sim',
      no: 'não',
      job: 'Tarefa {id}: {state}',
      jobProgress: 'Progresso da tarefa',
      jobFailed: 'A tarefa terminou em {state}: {error}',
      counts: '{c} candidatos, {e} enlaces avaliados.',
      alternatives: 'Rotas alternativas: {n}',
      budget: 'Orçamento de rádio',
      budgetHint: 'Campo vazio: o padrão da API, marcado como presumido no resultado.',
      eirp: 'EIRP de cada salto (dBm)',
      eirpHint: 'Vazio: 58 dBm presumidos (ressalva no resultado).',
      rxGain: 'Ganho da antena receptora menos perdas (dBi)',
      rxThreshold: 'Sensibilidade do receptor (dBm)',
      maxHop: 'Salto mais longo (km)',
      relayHeight: 'Altura das repetidoras (m)',
      relayHeightHint: 'Vazio: a altura de cada torre.',
      engine: 'Motor de propagação',
      engineDefault: 'Padrão (fspl)',
      used: 'Orçamento usado em cada salto',
      maxLoss: 'Perda máxima por salto',
      fresnelCost: 'Custo de Fresnel < 60 % (fora da margem)',
      assumed: 'presumido',
      leastMargin: 'Margem mínima',
      bottleneckHop: 'Salto gargalo',
      totalLoss: 'Perda total',
      engineUsed: 'Motor',
      eirpWasRp: 'EIRP presumida: {v}',
      param: 'Parâmetro',
      value: 'Valor',
    },
    en: {
      title: 'Repeater',
      mapLabel: 'Route map: click to mark A, then B',
      ends: 'Ends',
      end: 'Point {name}',
      towerId: 'Tower id (optional)',
      towerHint: 'When filled in, the catalogued tower is used instead of the position.',
      lat: 'Latitude (degrees)',
      lon: 'Longitude (degrees)',
      height: 'Antenna height (m)',
      params: 'Parameters',
      freq: 'Frequency (MHz)',
      maxHops: 'Maximum hops',
      maxHopsHint: '4 or more: computed as a background job.',
      minMargin: 'Least margin per hop (dB)',
      plan: 'Plan route',
      planning: 'Planning…',
      pickNext: 'Next click on the map: point {name}.',
      route: 'Route: {hops} hops, least margin {m}',
      noRoute: 'No route meets the constraints: {reason}',
      hop: 'Hop',
      from: 'From',
      to: 'To',
      distance: 'Distance',
      loss: 'Loss',
      penalty: 'Fresnel penalty',
      margin: 'Margin',
      los: 'LOS',
      bottleneck: 'bottleneck',
      yes: 'yes',
      no: 'no',
      job: 'Job {id}: {state}',
      jobProgress: 'Job progress',
      jobFailed: 'The job ended {state}: {error}',
      counts: '{c} candidates, {e} links evaluated.',
      alternatives: 'Alternative routes: {n}',
      budget: 'Radio budget',
      budgetHint: 'An empty field takes the API\'s default, marked as assumed in the result.',
      eirp: 'EIRP of every hop (dBm)',
      eirpHint: 'Empty: 58 dBm assumed (a caveat of the result).',
      rxGain: 'Receive antenna gain less losses (dBi)',
      rxThreshold: 'Receiver sensitivity (dBm)',
      maxHop: 'Longest hop (km)',
      relayHeight: 'Relay antenna height (m)',
      relayHeightHint: 'Empty: each tower\'s own height.',
      engine: 'Propagation engine',
      engineDefault: 'Default (fspl)',
      used: 'Budget every hop was computed with',
      maxLoss: 'Largest loss a hop may have',
      fresnelCost: 'Cost of Fresnel < 60 % (not in the margin)',
      assumed: 'assumed',
      leastMargin: 'Least margin',
      bottleneckHop: 'Bottleneck hop',
      totalLoss: 'Total loss',
      engineUsed: 'Engine',
      eirpWasRp: 'assumed EIRP: {v}',
      param: 'Parameter',
      value: 'Value',
    },
  },
  render(root, ctx) {
    const { el, field, table, errorBox, progress } = ctx.ui;
    const { t, fmt } = ctx;
    const num = (attrs) => el('input', { type: 'number', inputmode: 'decimal', step: 'any', ...attrs });
    const end = (name, la, lo) => {
      const f = {
        tower: el('input', { type: 'text', id: `rp-${name}-tower`, autocomplete: 'off', spellcheck: 'false' }),
        lat: num({ id: `rp-${name}-lat`, value: la, min: '-90', max: '90' }),
        lon: num({ id: `rp-${name}-lon`, value: lo, min: '-180', max: '180' }),
        height: num({ id: `rp-${name}-height`, value: '30', min: '0.1', max: '500' }),
      };
      f.box = el('fieldset', null, el('legend', { text: t('end', { name: name.toUpperCase() }) }),
        field(t('towerId'), f.tower, t('towerHint')),
        el('div', { class: 'row' }, field(t('lat'), f.lat), field(t('lon'), f.lon)),
        field(t('height'), f.height));
      f.body = () => (f.tower.value.trim() ? { tower_id: f.tower.value.trim() }
        : { lat: Number(f.lat.value), lon: Number(f.lon.value), height_m: Number(f.height.value) });
      return f;
    };
    const A = end('a', '-22.9519', '-43.2105');
    const B = end('b', '-22.88', '-43.1');
    const freq = num({ id: 'rp-freq', value: '5800', min: '30', max: '100000' });
    const hops = el('select', { id: 'rp-hops' }, [1, 2, 3, 4, 5, 6, 7, 8].map((n) => el('option', { value: String(n), text: String(n), selected: n === 3 })));
    const minMargin = num({ id: 'rp-margin', value: '10', min: '-50', max: '100', 'data-field': 'min_margin_db' });
    // The radio budget: empty fields are left to the API's defaults.
    const eirp = num({ id: 'rp-eirp', min: '-30', max: '100', placeholder: '58', 'data-field': 'eirp_dbm' });
    const rxGain = num({ id: 'rp-rx-gain', min: '-20', max: '70', placeholder: '0', 'data-field': 'rx_gain_dbi' });
    const rxThreshold = num({ id: 'rp-rx-threshold', min: '-150', max: '0', placeholder: '-95', 'data-field': 'rx_threshold_dbm' });
    const maxHop = num({ id: 'rp-max-hop', min: '0.1', max: '500', placeholder: '50', 'data-field': 'max_hop_m' });
    const relayHeight = num({ id: 'rp-relay-height', min: '0', max: '500', placeholder: '—', 'data-field': 'relay_height_m' });
    const engine = el('select', { id: 'rp-engine', 'data-field': 'engine' }, el('option', { value: '', text: t('engineDefault') }));
    ctx.api('GET', '/coverage/engines', { signal: ctx.signal }).then((list) => {
      for (const e of list.engines || []) {
        if (e.status === 'available' && e.allowed_for_key) engine.append(el('option', { value: e.id, text: `${e.id}: ${e.name}` }));
      }
      if (ctx.memo.engine) engine.value = ctx.memo.engine;
    }).catch(() => {});
    engine.addEventListener('change', () => { ctx.memo.engine = engine.value; });
    const submit = el('button', { type: 'submit', class: 'primary', id: 'rp-plan', text: t('plan') });
    const out = el('div', { id: 'rp-status', 'aria-live': 'polite' });
    const pickNote = el('p', { class: 'note', id: 'rp-pick', 'aria-live': 'polite' });
    const form = el('form', { class: 'card', id: 'rp-form', novalidate: true, 'data-writes': true },
      el('h2', { text: t('ends') }), A.box, B.box,
      el('h2', { text: t('params') }),
      el('div', { class: 'row' }, field(t('freq'), freq), field(t('maxHops'), hops)),
      el('p', { class: 'note', text: t('maxHopsHint') }),
      el('fieldset', { id: 'rp-budget' }, el('legend', { text: t('budget') }),
        el('p', { class: 'note', text: t('budgetHint') }),
        field(t('eirp'), eirp, t('eirpHint')), field(t('minMargin'), minMargin),
        field(t('rxGain'), rxGain), field(t('rxThreshold'), rxThreshold),
        field(t('maxHop'), maxHop), field(t('relayHeight'), relayHeight, t('relayHeightHint')),
        field(t('engine'), engine)),
      el('div', { class: 'actions' }, submit), out);
    const mapBox = el('div', { id: 'rp-map', role: 'region', 'aria-label': t('mapLabel'), tabindex: '0' });
    const results = el('div', { id: 'rp-results', 'aria-live': 'polite' });
    root.append(el('div', { class: 'split' },
      el('div', { class: 'panel' }, form),
      el('div', { class: 'panel' }, mapBox, pickNote, results)));

    const L = window.L;
    const map = createMap(mapBox, ctx, RIO);
    const ends = L.layerGroup().addTo(map);
    const route = L.layerGroup().addTo(map);
    let next = 'a';
    const drawEnds = () => {
      if (ctx.signal.aborted) return; // a change event while the screen is taken down
      ends.clearLayers();
      for (const [f, name] of [[A, 'A'], [B, 'B']]) {
        const la = Number(f.lat.value); const lo = Number(f.lon.value);
        if (!f.tower.value.trim() && Number.isFinite(la) && Number.isFinite(lo)) {
          L.circleMarker([la, lo], { radius: 9, color: '#000', weight: 2, fillColor: '#ffd400', fillOpacity: 1 }).bindTooltip(name, { permanent: true, direction: 'top' }).addTo(ends);
        }
      }
    };
    drawEnds();
    pickNote.textContent = t('pickNext', { name: 'A' });
    map.on('click', (e) => {
      const f = next === 'a' ? A : B;
      f.tower.value = '';
      f.lat.value = e.latlng.lat.toFixed(6);
      f.lon.value = e.latlng.lng.toFixed(6);
      next = next === 'a' ? 'b' : 'a';
      pickNote.textContent = t('pickNext', { name: next.toUpperCase() });
      drawEnds();
    });
    for (const f of [A, B]) for (const k of ['lat', 'lon', 'tower']) f[k].addEventListener('change', drawEnds);

    let pollTimer = null;
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      clearTimeout(pollTimer);
      out.replaceChildren();
      results.replaceChildren();
      route.clearLayers();
      const body = { from: A.body(), to: B.body(), frequency_mhz: Number(freq.value), max_hops: Number(hops.value) };
      const given = (input) => input.value.trim() !== '' && Number.isFinite(Number(input.value));
      for (const [k, input] of [['min_margin_db', minMargin], ['eirp_dbm', eirp], ['rx_gain_dbi', rxGain], ['rx_threshold_dbm', rxThreshold], ['relay_height_m', relayHeight]]) {
        if (given(input)) body[k] = Number(input.value);
      }
      if (given(maxHop)) body.max_hop_m = Number(maxHop.value) * 1000;
      if (engine.value) body.engine = engine.value;
      submit.disabled = true;
      submit.textContent = t('planning');
      try {
        const res = await ctx.apiRaw('POST', '/plan_repeater', { json: body, signal: ctx.signal });
        const data = await res.json().catch(() => null);
        if (res.status === 202 && data && data.id) {
          await followJob(data); // the job object, as GET /jobs/{id} answers it
        } else if (res.ok) {
          showPlan(data);
        } else {
          throw new ApiError(res.status, data, res.statusText);
        }
      } catch (err) {
        if (err.name !== 'AbortError') out.append(errorBox(err, t, form));
      } finally {
        submit.disabled = false;
        submit.textContent = t('plan');
      }
    });

    async function followJob(job) {
      const line = el('p', { id: 'rp-job', text: t('job', { id: job.id, state: job.state }) });
      const barHost = el('div');
      out.append(line, barHost);
      for (;;) {
        barHost.replaceChildren(progress(job.progress.done, Math.max(job.progress.total, 1), t('jobProgress')));
        line.textContent = t('job', { id: job.id, state: job.state });
        if (job.state === 'succeeded') {
          showPlan(await ctx.api('GET', `/jobs/${encodeURIComponent(job.id)}/download`, { signal: ctx.signal }));
          return;
        }
        if (['failed', 'canceled', 'expired'].includes(job.state)) {
          out.append(errorBox({ message: t('jobFailed', { state: job.state, error: job.error || '' }) }, t));
          return;
        }
        await new Promise((r) => { pollTimer = setTimeout(r, POLL_MS); });
        job = await ctx.api('GET', `/jobs/${encodeURIComponent(job.id)}`, { signal: ctx.signal });
      }
    }

    // showPlan draws a plan and brings it into view (focus on its
    // heading); the tab keeps it for the screen's next render.
    function showPlan(plan) {
      ctx.memo.plan = plan;
      drawPlan(plan);
      ctx.showResult(document.getElementById('rp-route-title') || document.getElementById('rp-none'));
    }

    // planCaveats: the plan's warnings, each code once, with the figures
    // that make them concrete: the assumed EIRP, and for a tower's
    // position uncertainty the hop that raised it (its uncertainty against
    // the hop's length).
    function planCaveats(plan) {
      const list = uniqueWarnings(plan.warnings || []);
      const hops = (plan.route && plan.route.hops) || [];
      const ct = caveatWords(ctx);
      const detail = (w) => {
        const rb = plan.radio_budget;
        if (w.code === 'eirp_assumed' && rb && rb.eirp_assumed) return t('eirpWasRp', { v: fmt.unit(rb.eirp_dbm, 'dBm', 1) });
        const i = hops.findIndex((h) => (h.warnings || []).some((x) => x.code === w.code));
        if (i < 0) return null;
        const h = hops[i];
        if (w.code === 'position_uncertainty') {
          const u = Math.max(h.from.position_uncertainty_m || 0, h.to.position_uncertainty_m || 0);
          if (u > 0) return `${ct('hop', { n: i + 1 })}: ${uncertainVs(ctx, u, h.distance_m / 1000)}`;
        }
        return ct('hop', { n: i + 1 });
      };
      return caveatBox(ctx, list, { id: 'rp-caveats', detail });
    }

    // budgetTable: the radio budget every hop was computed with, each
    // value the request left to its default marked as assumed.
    function budgetTable(rb) {
      if (!rb) return null;
      const assumed = new Set(rb.assumed || []);
      const rowsB = [
        ['frequency_mhz', t('freq'), fmt.unit(rb.frequency_mhz, 'MHz', 0)],
        ['eirp_dbm', t('eirp'), fmt.unit(rb.eirp_dbm, 'dBm', 1)],
        ['rx_gain_dbi', t('rxGain'), fmt.unit(rb.rx_gain_dbi, 'dBi', 1)],
        ['rx_threshold_dbm', t('rxThreshold'), fmt.unit(rb.rx_threshold_dbm, 'dBm', 1)],
        ['min_margin_db', t('minMargin'), fmt.unit(rb.min_margin_db, 'dB', 1)],
        ['fresnel_penalty_db', t('fresnelCost'), fmt.unit(rb.fresnel_penalty_db, 'dB', 1)],
        ['max_path_loss_db', t('maxLoss'), fmt.unit(rb.max_path_loss_db, 'dB', 1)],
      ].map(([k, label, v]) => ({ k, label, v: assumed.has(k) || (k === 'eirp_dbm' && rb.eirp_assumed) ? `${v} (${t('assumed')})` : v }));
      const tbl = table([
        { key: 'label', label: t('param') },
        { key: 'v', label: t('value'), num: true },
      ], rowsB, { caption: t('used') });
      tbl.id = 'rp-budget-used';
      for (const [i, r] of rowsB.entries()) tbl.querySelectorAll('tbody tr')[i].dataset.field = r.k;
      return tbl;
    }

    function drawPlan(plan) {
      const caveats = planCaveats(plan);
      if (!plan.route) {
        results.append(el('div', { class: 'card' }, caveats, el('p', { id: 'rp-none', text: t('noRoute', { reason: plan.reason || (plan.fail_reasons || []).join('; ') }) }), budgetTable(plan.radio_budget)));
        return;
      }
      const r = plan.route;
      const pts = [];
      r.hops.forEach((h, i) => {
        const bottleneck = i === r.bottleneck_hop;
        const c = marginColour(h.margin_db);
        L.polyline([[h.from.lat, h.from.lon], [h.to.lat, h.to.lon]], { color: bottleneck ? '#b3261e' : c, weight: bottleneck ? 7 : 4, opacity: 0.9, dashArray: bottleneck ? '10 6' : null, className: bottleneck ? 'rp-bottleneck' : 'rp-hop' })
          .bindTooltip(`${t('hop')} ${i + 1}: ${fmt.unit(h.distance_m / 1000, 'km', 2)}, ${fmt.unit(h.margin_db, 'dB', 1)}${bottleneck ? ' (' + t('bottleneck') + ')' : ''}`).addTo(route);
        for (const n of [h.from, h.to]) {
          L.circleMarker([n.lat, n.lon], { radius: 6, color: '#1b1f24', weight: 1.5, fillColor: n.kind === 'tower' ? '#0b5394' : '#ffd400', fillOpacity: 1 }).bindTooltip(n.tower_id || n.kind).addTo(route);
          pts.push([n.lat, n.lon]);
        }
      });
      fitPoints(map, pts, 14);
      const name = (n) => n.tower_id || (n.kind === 'from' ? 'A' : n.kind === 'to' ? 'B' : `${n.kind} ${n.site !== undefined ? n.site : ''}`);
      const rows = r.hops.map((h, i) => ({ ...h, n: i + 1, _class: i === r.bottleneck_hop ? 'bottleneck' : null }));
      const tbl = table([
        { key: 'n', label: t('hop'), num: true, format: (v, row) => (row._class ? `${v} (${t('bottleneck')})` : String(v)) },
        { key: 'from', label: t('from'), format: (v) => name(v) },
        { key: 'to', label: t('to'), format: (v) => name(v) },
        { key: 'distance_m', label: t('distance'), num: true, format: (v) => fmt.unit(v / 1000, 'km', 2) },
        { key: 'path_loss_db', label: t('loss'), num: true, format: (v) => fmt.unit(v, 'dB', 1) },
        { key: 'fresnel_penalty_db', label: t('penalty'), num: true, format: (v) => fmt.unit(v, 'dB', 0) },
        { key: 'margin_db', label: t('margin'), num: true, format: (v) => fmt.unit(v, 'dB', 1) },
        { key: 'los_clear', label: t('los'), format: (v) => (v ? t('yes') : t('no')) },
      ], rows, { caption: t('route', { hops: r.hops.length, m: fmt.unit(r.min_margin_db, 'dB', 1) }) });
      tbl.id = 'rp-hops-table';
      const marginDd = el('dd', { id: 'rp-min-margin', text: fmt.unit(r.min_margin_db, 'dB', 1) });
      const mark = tieTo(ctx, marginDd, caveats, caveats ? caveats.querySelectorAll('li').length : 0);
      const bn = r.hops[r.bottleneck_hop];
      results.append(el('div', { class: 'card', id: 'rp-route' },
        el('h2', { id: 'rp-route-title', tabindex: '-1', text: t('route', { hops: r.hops.length, m: fmt.unit(r.min_margin_db, 'dB', 1) }) }),
        caveats,
        el('dl', { class: 'kv', id: 'rp-headline' },
          el('dt', { text: t('leastMargin') }), marginDd, mark,
          el('dt', { text: t('bottleneckHop') }), el('dd', { text: bn ? `${r.bottleneck_hop + 1} (${fmt.unit(bn.distance_m / 1000, 'km', 2)}, ${fmt.unit(r.bottleneck_loss_db, 'dB', 1)})` : '—' }),
          el('dt', { text: t('totalLoss') }), el('dd', { text: fmt.unit(r.total_loss_db, 'dB', 1) }),
          el('dt', { text: t('engineUsed') }), el('dd', { text: plan.engine || '—' })),
        tbl, budgetTable(plan.radio_budget),
        el('p', { class: 'note', text: t('counts', { c: fmt.int(plan.counts.candidates), e: fmt.int(plan.counts.edges_evaluated) }) }),
        plan.alternatives && plan.alternatives.length ? el('p', { class: 'note', text: t('alternatives', { n: plan.alternatives.length }) }) : null));
    }

    if (ctx.memo.plan) drawPlan(ctx.memo.plan);

    return () => { clearTimeout(pollTimer); map.remove(); };
  },
};
