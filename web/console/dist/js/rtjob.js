// rtjob.js: the job view of a per-link ray trace. Engine raytrace on POST
// /analyze_link answers 202 with a raytrace_link job (Enterprise and
// Ultra); the Link screen hands the job here. The view follows it (GET
// /jobs/{id} every second: state, progress, a cancel button, POST
// /jobs/{id}/cancel) and, once it succeeded, reads its JSON result (GET
// /jobs/{id}/download) and shows the best link: the engine's caveats first
// (caveats.js: the result's, the tower's and the engine's warnings, in the
// user's language, above the received power they qualify), received power,
// path loss, margin, line of sight, RMS delay spread, engine and version,
// then every path (kind, interactions, length, delay, power) and the other
// links traced. A job that failed or was cancelled says why in the user's
// language (jobs.js).

import { caveatBox, tieTo, uniqueWarnings } from './caveats.js';
import { warningText } from './messages.js';
import { followJob, jobFailure, TERMINAL } from './jobs.js';

const STRINGS = {
  'pt-BR': {
    title: 'Traçado de raios do enlace',
    job: 'Trabalho {id}: {state}',
    progress: 'Progresso do traçado',
    cancel: 'Cancelar o trabalho',
    queued: 'na fila', running: 'em execução', succeeded: 'concluído', failed: 'falhou', canceled: 'cancelado', expired: 'expirado',
    failedTitle: 'O traçado de raios não terminou',
    detail: 'Detalhe da API: {text}',
    loadFailed: 'O resultado não pôde ser lido.',
    best: 'Melhor enlace traçado',
    none: 'Nenhum caminho alcança o receptor a partir das torres traçadas.',
    tower: 'Torre',
    rx: 'Potência recebida',
    loss: 'Perda no caminho',
    margin: 'Margem',
    los: 'Visada direta',
    yes: 'sim', no: 'não',
    delay: 'Espalhamento de atraso (RMS)',
    distance: 'Distância',
    engine: 'Motor',
    layer: 'Camada de edificações',
    freq: 'Frequência',
    traced: 'Traçado com',
    optRefl: 'reflexões até a ordem {n}', optDiff: 'difração até {m}', optNoDiff: 'sem difração',
    optGround: 'reflexão no solo', optTrans: 'transmissão pelas paredes', optScat: 'espalhamento difuso S = {s}',
    optSR: 'espalhamento também via reflexão nas paredes', optRD: 'reflexão–difração', optClutter: 'edificações presumidas além da camada',
    sum_coherent: 'soma coerente', sum_power: 'soma de potências', pol_vertical: 'polarização vertical', pol_horizontal: 'polarização horizontal',
    paths: 'Caminhos do melhor enlace ({n})',
    kind: 'Tipo', interactions: 'Interações', length: 'Comprimento', pathDelay: 'Atraso', power: 'Potência',
    los_kind: 'visada direta', reflection: 'reflexão', diffraction: 'difração', transmission: 'transmissão', scattering: 'espalhamento difuso',
    wall: 'parede', roof: 'telhado', ground: 'solo', vertical_edge: 'quina', roof_edge: 'beiral',
    links: 'Enlaces traçados ({n})',
    reachable: 'Alcança',
    download: 'Baixar o resultado (JSON)',
    caveatsCol: 'Ressalvas',
    noCaveats: 'nenhuma',
    linkCaveats: '⚠ {n}',
    figPixels: '{n} de {total} pixels',
    figBuildings: 'edificações: {ids}',
    figMore: 'e mais {n}',
    figClutter: 'obstrução de {h} além da borda, altura {how}',
    clutterAssumed: 'presumida (padrão da camada)',
    clutterKnown: 'das próprias edificações',
    figPattern: 'diagrama de {db} entre a direção mais forte e a mais fraca',
    figPaths: '{n} de {total} caminhos listados',
    figTowers: '{n} torres',
    figBuilding: 'edificação {id}',
    figFreq: 'extrapolado a {f}',
  },
  en: {
    title: 'Ray tracing of the link',
    job: 'Job {id}: {state}',
    progress: 'Tracing progress',
    cancel: 'Cancel the job',
    queued: 'queued', running: 'running', succeeded: 'succeeded', failed: 'failed', canceled: 'cancelled', expired: 'expired',
    failedTitle: 'The ray tracing did not finish',
    detail: 'API detail: {text}',
    loadFailed: 'The result could not be read.',
    best: 'Best traced link',
    none: 'No path reaches the receiver from the traced towers.',
    tower: 'Tower',
    rx: 'Received power',
    loss: 'Path loss',
    margin: 'Margin',
    los: 'Line of sight',
    yes: 'yes', no: 'no',
    delay: 'Delay spread (RMS)',
    distance: 'Distance',
    engine: 'Engine',
    layer: 'Building layer',
    freq: 'Frequency',
    traced: 'Traced with',
    optRefl: 'reflections up to order {n}', optDiff: 'diffraction within {m}', optNoDiff: 'no diffraction',
    optGround: 'ground reflection', optTrans: 'transmission through walls', optScat: 'diffuse scattering S = {s}',
    optSR: 'scattering also via wall reflections', optRD: 'reflection–diffraction', optClutter: 'assumed buildings beyond the layer',
    sum_coherent: 'coherent sum', sum_power: 'power sum', pol_vertical: 'vertical polarisation', pol_horizontal: 'horizontal polarisation',
    paths: 'Paths of the best link ({n})',
    kind: 'Kind', interactions: 'Interactions', length: 'Length', pathDelay: 'Delay', power: 'Power',
    los_kind: 'line of sight', reflection: 'reflection', diffraction: 'diffraction', transmission: 'transmission', scattering: 'diffuse scattering',
    wall: 'wall', roof: 'roof', ground: 'ground', vertical_edge: 'corner', roof_edge: 'roof edge',
    links: 'Traced links ({n})',
    reachable: 'Reaches',
    download: 'Download the result (JSON)',
    caveatsCol: 'Caveats',
    noCaveats: 'none',
    linkCaveats: '⚠ {n}',
    figPixels: '{n} of {total} pixels',
    figBuildings: 'buildings: {ids}',
    figMore: 'and {n} more',
    figClutter: 'clutter {h} tall beyond the edge, height {how}',
    clutterAssumed: 'assumed (the layer\'s default)',
    clutterKnown: 'from the buildings\' own',
    figPattern: 'a pattern spanning {db} from its strongest to its weakest bearing',
    figPaths: '{n} of {total} paths listed',
    figTowers: '{n} towers',
    figBuilding: 'building {id}',
    figFreq: 'extrapolated to {f}',
  },
};

function words(ctx) {
  const s = STRINGS[ctx.lang] || STRINGS['pt-BR'];
  return (k, v) => (s[k] === undefined ? k : s[k].replace(/\{(\w+)\}/g, (m, x) => (v && v[x] !== undefined ? String(v[x]) : m)));
}

// rtFigures returns the detail function of caveatBox for the engine's
// warnings: the figures of a warning's API message (pixel counts of a
// map, the assumed-height buildings, the clutter's height, the pattern's
// span, the paths listed, the towers left out, the building an antenna
// is in, the frequency extrapolated to) in the user's language; null
// when the message has none.
export function rtFigures(ctx) {
  const w = words(ctx);
  const { fmt } = ctx;
  return (warning) => {
    const m = warning.message || '';
    const out = [];
    let g;
    if ((g = /clutter (?:beyond the building layer's edge, )?([\d.]+) m tall/.exec(m))) {
      out.push(w('figClutter', { h: fmt.unit(Number(g[1]), 'm', 1), how: w(/rests on heights assumed|height is an assumed one/.test(m) ? 'clutterAssumed' : 'clutterKnown') }));
    }
    if ((g = /: \[([^\]]*)\]/.exec(m)) && g[1].trim()) {
      let ids = g[1].trim();
      let more = '';
      const mm = / ?and (\d+) more$/.exec(ids);
      if (mm) { ids = ids.slice(0, mm.index); more = ` ${w('figMore', { n: fmt.int(Number(mm[1])) })}`; }
      out.push(w('figBuildings', { ids: ids.split(/\s+/).join(', ') + more }));
    }
    if ((g = /([\d.]+) dB from its strongest/.exec(m))) out.push(w('figPattern', { db: fmt.unit(Number(g[1]), 'dB', 1) }));
    if ((g = /lists the (\d+) strongest of the (\d+) paths/.exec(m))) out.push(w('figPaths', { n: fmt.int(Number(g[1])), total: fmt.int(Number(g[2])) }));
    if ((g = /^(\d+) towers within/.exec(m)) || (g = /; (\d+) farther ones/.exec(m))) out.push(w('figTowers', { n: fmt.int(Number(g[1])) }));
    if ((g = /inside building (\S+), below/.exec(m))) out.push(w('figBuilding', { id: g[1] }));
    if ((g = /extrapolated to ([\d.]+) MHz/.exec(m))) out.push(w('figFreq', { f: fmt.unit(Number(g[1]), 'MHz', 0) }));
    if ((g = /\((\d+) of (\d+) pixels\)/.exec(m))) out.push(w('figPixels', { n: fmt.int(Number(g[1])), total: fmt.int(Number(g[2])) }));
    return out.length ? out.join('; ') : null;
  };
}

// tracedWith states the options a raytrace answer was traced with (a
// job result's options member, a map summary's detail.options: each
// states every option), in the console's language.
export function tracedWith(ctx, o) { return optionsText(words(ctx), ctx.fmt, o); }

function optionsText(w, fmt, o) {
  const parts = [w('optRefl', { n: o.max_reflections }),
    o.diffraction ? w('optDiff', { m: fmt.unit(o.diffraction_range_m, 'm', 0) }) : w('optNoDiff')];
  if (o.ground_reflection) parts.push(w('optGround'));
  if (o.transmission) parts.push(w('optTrans'));
  if (o.diffuse_scattering > 0) parts.push(w('optScat', { s: fmt.num(o.diffuse_scattering, 2) }));
  if (o.scattering_reflections) parts.push(w('optSR'));
  if (o.reflection_diffraction) parts.push(w('optRD'));
  if (o.clutter_beyond_extent) parts.push(w('optClutter'));
  parts.push(w(`sum_${o.sum}`), w(`pol_${o.polarization}`));
  return parts.join(' · ');
}

// headlineCaveats is the caveat list of a link job's result res: the
// answer's warnings, then the best link's (its tower's, its engine's) or,
// when no link is reachable, every link's: why none reaches the receiver
// (inside a building, no path) and what its towers rest on. Each code once.
export function headlineCaveats(res) {
  const links = res.links || [];
  const best = res.best === null || res.best === undefined ? null : links[res.best];
  const lists = (best ? [best] : links).flatMap((l) => [l.warnings || [], l.engine_warnings || []]);
  return uniqueWarnings(res.warnings || [], ...lists);
}

// raytraceJobView follows job in host and shows its result; onResult(res)
// is called with the downloaded result (the screen draws the links on its
// map). It resolves when the job is terminal and its view drawn; signal
// ends it earlier (the screen asked for something else).
export async function raytraceJobView(ctx, host, job, { onResult, signal } = {}) {
  const { el, table } = ctx.ui;
  const w = words(ctx);
  const { fmt } = ctx;
  const title = el('h2', { id: 'link-rt-title', tabindex: '-1', text: w('title') });
  const stateLine = el('p', { id: 'link-rt-state', 'aria-live': 'polite' });
  const bar = el('progress', { max: '1', value: '0', 'aria-label': w('progress') });
  const cancel = el('button', { type: 'button', id: 'link-rt-cancel', text: w('cancel') });
  const body = el('div', { id: 'link-rt-body' });
  const card = el('div', { class: 'card', id: 'link-rt' }, title, stateLine, bar, el('div', { class: 'actions' }, cancel), body);
  host.replaceChildren(card);
  cancel.addEventListener('click', async () => {
    cancel.disabled = true;
    try { await ctx.api('POST', `/jobs/${encodeURIComponent(job.id)}/cancel`); } catch (err) { body.append(ctx.ui.errorBox(err)); }
  });

  const last = await followJob(ctx, job, (j) => {
    stateLine.textContent = w('job', { id: j.id, state: w(j.state) });
    stateLine.dataset.state = j.state;
    bar.max = String(Math.max(j.progress.total, 1));
    bar.value = String(j.progress.done);
    cancel.hidden = TERMINAL.has(j.state) || j.cancel_requested;
  }, { signal });
  bar.remove();
  if (last.state !== 'succeeded' || !last.result) {
    const why = jobFailure(ctx, last);
    body.replaceChildren(el('div', { class: 'error-box', role: 'alert', id: 'link-rt-error' },
      el('p', { class: 'error-msg', text: `${w('failedTitle')}: ${why.text}` }),
      why.detail ? el('p', { class: 'error-detail', text: w('detail', { text: why.detail }) }) : null));
    return last;
  }
  let res;
  try {
    res = await ctx.api('GET', last.result.download_url, { signal });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    body.replaceChildren(el('p', { class: 'error-msg', role: 'alert', id: 'link-rt-error', text: w('loadFailed') }), ctx.ui.errorBox(err));
    return last;
  }
  if (signal && signal.aborted) return last;
  if (onResult) onResult(res);
  const links = res.links || [];
  const best = res.best === null || res.best === undefined ? null : links[res.best];
  const list = headlineCaveats(res);
  const figures = rtFigures(ctx);
  const caveats = caveatBox(ctx, list, { id: 'link-rt-caveats', detail: figures });
  const dl = (...pairs) => el('dl', { class: 'kv' }, pairs.flat().filter(Boolean));
  const dash = (v, unit, d) => (v === null || v === undefined ? '—' : fmt.unit(v, unit, d));
  let headline = null;
  let paths = null;
  if (best) {
    const rxDd = el('dd', { id: 'link-rt-rx', text: dash(best.rx_power_dbm, 'dBm', 1) });
    headline = dl(
      [el('dt', { text: w('tower') }), el('dd', { id: 'link-rt-tower', text: `${best.tower_id || '—'}${best.operator ? ' · ' + best.operator : ''}` })],
      [el('dt', { text: w('rx') }), rxDd, tieTo(ctx, rxDd, caveats, list.length)],
      [el('dt', { text: w('loss') }), el('dd', { id: 'link-rt-loss', text: dash(best.path_loss_db, 'dB', 1) })],
      [el('dt', { text: w('margin') }), el('dd', { id: 'link-rt-margin', text: dash(best.link_margin_db, 'dB', 1) })],
      [el('dt', { text: w('los') }), el('dd', { id: 'link-rt-los', dataset: { los: String(!!best.los) }, text: best.los ? w('yes') : w('no') })],
      [el('dt', { text: w('delay') }), el('dd', { id: 'link-rt-delay', text: dash(best.rms_delay_spread_ns, 'ns', 1) })],
      [el('dt', { text: w('distance') }), el('dd', { text: dash(best.distance_m === undefined ? null : best.distance_m / 1000, 'km', 3) })],
      [el('dt', { text: w('engine') }), el('dd', { id: 'link-rt-engine', text: `${res.engine} ${res.engine_version}` })],
      [el('dt', { text: w('layer') }), el('dd', { text: res.layer_id })],
      [el('dt', { text: w('freq') }), el('dd', { text: fmt.unit(res.frequency_mhz, 'MHz', 0) })],
      res.options ? [el('dt', { text: w('traced') }), el('dd', { id: 'link-rt-traced', text: optionsText(w, fmt, res.options) })] : null,
    );
    const kind = (k) => w(k === 'los' ? 'los_kind' : k);
    const rows = (best.paths || []).map((p, i) => ({ ...p, _i: i + 1 }));
    paths = table([
      { key: '_i', label: '#', num: true },
      { key: 'kind', label: w('kind'), format: kind },
      { key: 'interactions', label: w('interactions'), format: (v) => ((v || []).length ? v.map((x) => `${kind(x.kind)} (${w(x.surface)})`).join(' → ') : '—') },
      { key: 'length_m', label: w('length'), num: true, format: (v) => fmt.unit(v, 'm', 1) },
      { key: 'delay_ns', label: w('pathDelay'), num: true, format: (v) => fmt.unit(v, 'ns', 1) },
      { key: 'power_dbm', label: w('power'), num: true, format: (v) => fmt.unit(v, 'dBm', 1) },
    ], rows, { caption: w('paths', { n: rows.length }) });
    paths.id = 'link-rt-paths';
  }
  // linkCaveats: a link's caveat mark (each code's text in the user's
  // language, with its figures, as its title and its accessible name).
  const linkCaveats = (ws) => {
    if (!ws.length) return el('span', { class: 'muted', text: w('noCaveats') });
    const texts = ws.map((x) => { const f = figures(x); return f ? `${warningText(x, ctx.lang)} (${f})` : warningText(x, ctx.lang); });
    return el('span', { class: 'caveat-mark', title: texts.join('\n'), 'aria-label': texts.join(' '), dataset: { codes: ws.map((x) => x.code).join(' ') }, text: w('linkCaveats', { n: ws.length }) });
  };
  const others = links.length > 1 ? table([
    { key: 'tower_id', label: w('tower') },
    { key: 'reachable', label: w('reachable'), format: (v) => (v ? w('yes') : w('no')) },
    { key: 'path_loss_db', label: w('loss'), num: true, format: (v) => dash(v, 'dB', 1) },
    { key: 'rx_power_dbm', label: w('rx'), num: true, format: (v) => dash(v, 'dBm', 1) },
    { key: 'link_margin_db', label: w('margin'), num: true, format: (v) => dash(v, 'dB', 1) },
    { key: '_caveats', label: w('caveatsCol'), format: (v) => linkCaveats(v) },
  ], links.map((l, i) => ({ ...l, _caveats: uniqueWarnings(l.warnings || [], l.engine_warnings || []), _class: i === res.best ? 'best' : null })),
  { caption: w('links', { n: links.length }) }) : null;
  if (others) others.id = 'link-rt-links';
  const save = el('button', { type: 'button', id: 'link-rt-download', text: w('download'),
    onclick: () => ctx.download(last.result.download_url).catch((err) => body.append(ctx.ui.errorBox(err))) });
  body.replaceChildren();
  ctx.ui.put(body, el('h3', { id: 'link-rt-best', text: w('best') }), caveats,
    headline || el('p', { id: 'link-rt-none', text: w('none') }), paths, others, el('div', { class: 'actions' }, save));
  return last;
}
