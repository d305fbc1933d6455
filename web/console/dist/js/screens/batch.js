// Batch screen: upload a CSV of receiver sites to POST /batch_reports
// (multipart: part file, options engine, language, pdfs).
//
// What it shows:
//   - up to 100 rows: the synchronous answer (200): counts by status and
//     one line per row (best tower, distance, received power, margin,
//     status and reason). The API gives a synchronous batch no bundle:
//     its rows are saved from the page as CSV, GeoJSON or KML (exports.js);
//   - the PDFs per row are off by default: they spend the monthly PDF
//     quota, whose remainder (GET /v1/me/quota) is shown by the box;
//   - more than 100 rows: the queued job (202), polled from GET /jobs/{id}
//     every second while it is queued or running: state, a progress bar of
//     rows done / total, the ETA, a cancel button (POST /jobs/{id}/cancel)
//     and, once succeeded, the bundle download (GET /jobs/{id}/download,
//     a zip of results.csv, GeoJSON, KML, Shapefile, PDFs and manifest).
//   - the rows, both ways (the synchronous answer, or a succeeded job's
//     results.csv read from its bundle in the page, unzip.js): the
//     caveats first (each warning code of the rows, in the user's
//     language, with how many rows it qualifies, above the counts it
//     qualifies), a table of the rows with each row's caveats, and a map of
//     the rows (one dot per receiver, coloured by status, a line to its
//     best tower when the row names one on the map).
// The accepted CSV layout (aliases, separators, pt-BR decimal commas) is
// the one documented for the route in web/api/openapi.json and in the
// appliance/batch package; the help text below summarises it.
import { build as buildExport, MEDIA } from '../exports.js';
import { h, fill, card, row, check, select, table, facts, meter, showError, iso, busy, confirm } from '../formkit.js';
import { caveatBox, caveatWords, tieTo, uncertainVs } from '../caveats.js';
import { warningText } from '../messages.js';
import { createMap, fitPoints, RIO } from '../map.js';
import { zipEntry, parseCSV } from '../unzip.js';

const pollMs = 1000;
const terminal = new Set(['succeeded', 'failed', 'canceled', 'expired']);

const example = [
  'nome;latitude;longitude;altura_m;frequencia_mhz;raio_km',
  'Escola 1;-22,9519;-43,2105;10;1800;20',
  'Posto 2;-22,9068;-43,1729;12;1800;20',
].join('\r\n') + '\r\n';

export default {
  id: 'batch',
  nav: true,
  titleKey: 'title',
  strings: {
    'pt-BR': {
      title: 'Lote',
      upload: 'Enviar uma planilha CSV',
      intro: 'Analise muitos pontos de recepção de uma vez: envie uma planilha CSV com uma linha por ponto.',
      file: 'Arquivo CSV',
      fileHint: 'Colunas obrigatórias: latitude (lat, latitude, y), longitude (lon, lng, longitude, x) e frequência em MHz (frequency_mhz, freq, frequencia). Opcionais: nome (id, nome, site, cliente), altura em m (height, altura, altura_m), raio em km (max_distance_km, raio_km, distance_km), rx_gain_dbi, cable_loss_db, rx_threshold_dbm, assumed_eirp_dbm, operadora, engine. Maiúsculas, acentos e espaços nos cabeçalhos não importam. Separador vírgula, ponto e vírgula ou tabulação; com ponto e vírgula ou tabulação, vírgula decimal (-22,9519) é aceita. UTF-8 ou Windows-1252.',
      example: 'Baixar um CSV de exemplo',
      engine: 'Motor de propagação',
      engineDefault: 'Padrão de cada linha (fspl)',
      language: 'Idioma dos PDFs',
      pdfs: 'Incluir um relatório PDF por linha no pacote',
      tierRows: 'Plano {tier}: até {n} linhas por lote.',
      pdfCost: 'Só para lotes acima de 100 linhas. Cada linha com torre gasta 1 relatório PDF da cota mensal do plano.',
      pdfQuota: 'Cota de PDFs deste mês: {remaining} de {limit} restantes.',
      pdfQuotaNoCap: 'Cota de PDFs deste mês: {used} usados, sem limite.',
      downloadAs: 'Baixar resultado',
      downloaded: '{name} salvo.',
      submit: 'Enviar lote',
      noFile: 'Escolha um arquivo CSV.',
      syncNote: 'Até 100 linhas são respondidas na hora e baixadas desta página (CSV, GeoJSON, KML); acima disso o lote vira um job com pacote zip (resultados CSV, GeoJSON, KML, Shapefile, PDFs).',
      results: 'Resultado',
      ignored: 'Colunas ignoradas: {cols}',
      rowsTable: 'Resultado por linha',
      cRow: 'Linha', cId: 'Ponto', cStatus: 'Situação', cOperator: 'Operadora', cTower: 'Torre',
      cDist: 'Distância', cPower: 'Potência recebida', cMargin: 'Margem', cReason: 'Motivo',
      total: 'Total', ok: 'OK', low_margin: 'Margem baixa', no_tower: 'Sem torre', error: 'Erro',
      job: 'Job {id}',
      state: 'Estado', progress: 'Progresso', eta: 'Tempo restante', created: 'Criado', finished: 'Concluído', expires: 'Pacote disponível até',
      rows: '{done} de {total} linhas',
      queued: 'na fila', running: 'em execução', succeeded: 'concluído', failed: 'falhou', canceled: 'cancelado', expired: 'expirado',
      cancelRequested: 'cancelamento pedido',
      cancel: 'Cancelar job',
      cancelConfirm: 'Cancelar este job? As linhas já processadas são descartadas.',
      cancelYes: 'Cancelar job', cancelNo: 'Voltar',
      download: 'Baixar pacote ({size})',
      pdfsIncluded: 'PDFs incluídos', pdfsLeftOut: 'PDFs deixados de fora',
      jobError: 'Erro do job',
      cCaveats: 'Ressalvas',
      rowsMap: 'Mapa das linhas do lote: um ponto por receptor, na cor da situação',
      jobRows: 'Linhas do job',
      rowsLoading: 'Lendo as linhas do pacote…',
      rowsFailed: 'As linhas do pacote não puderam ser lidas: {error}',
    },
    en: {
      title: 'Batch',
      upload: 'Upload a CSV sheet',
      intro: 'Analyse many receiver sites at once: upload a CSV sheet with one line per site.',
      file: 'CSV file',
      fileHint: 'Required columns: latitude (lat, latitude, y), longitude (lon, lng, longitude, x) and frequency in MHz (frequency_mhz, freq, frequencia). Optional: name (id, nome, site, cliente), height in m (height, altura, altura_m), radius in km (max_distance_km, raio_km, distance_km), rx_gain_dbi, cable_loss_db, rx_threshold_dbm, assumed_eirp_dbm, operator, engine. Header case, accents and spaces do not matter. Separator comma, semicolon or tab; with semicolon or tab, decimal commas (-22,9519) are accepted. UTF-8 or Windows-1252.',
      example: 'Download an example CSV',
      engine: 'Propagation engine',
      engineDefault: 'Each row\'s default (fspl)',
      language: 'PDF language',
      pdfs: 'Include one PDF report per row in the bundle',
      tierRows: '{tier} tier: up to {n} rows a batch.',
      pdfCost: 'Only for batches over 100 rows. Each row with a tower spends 1 PDF report of the tier\'s monthly quota.',
      pdfQuota: 'PDF quota this month: {remaining} of {limit} left.',
      pdfQuotaNoCap: 'PDF quota this month: {used} used, no limit.',
      downloadAs: 'Download the result',
      downloaded: '{name} saved.',
      submit: 'Submit batch',
      noFile: 'Choose a CSV file.',
      syncNote: 'Up to 100 rows are answered at once and downloaded from this page (CSV, GeoJSON, KML); more rows run as a job with a zip bundle (CSV results, GeoJSON, KML, Shapefile, PDFs).',
      results: 'Result',
      ignored: 'Ignored columns: {cols}',
      rowsTable: 'Result per row',
      cRow: 'Row', cId: 'Site', cStatus: 'Status', cOperator: 'Operator', cTower: 'Tower',
      cDist: 'Distance', cPower: 'Received power', cMargin: 'Margin', cReason: 'Reason',
      total: 'Total', ok: 'OK', low_margin: 'Low margin', no_tower: 'No tower', error: 'Error',
      job: 'Job {id}',
      state: 'State', progress: 'Progress', eta: 'Time left', created: 'Created', finished: 'Finished', expires: 'Bundle available until',
      rows: '{done} of {total} rows',
      queued: 'queued', running: 'running', succeeded: 'succeeded', failed: 'failed', canceled: 'canceled', expired: 'expired',
      cancelRequested: 'cancel requested',
      cancel: 'Cancel job',
      cancelConfirm: 'Cancel this job? Rows already analysed are discarded.',
      cancelYes: 'Cancel job', cancelNo: 'Back',
      download: 'Download bundle ({size})',
      pdfsIncluded: 'PDFs included', pdfsLeftOut: 'PDFs left out',
      jobError: 'Job error',
      cCaveats: 'Caveats',
      rowsMap: 'Map of the batch rows: one dot per receiver, in the colour of its status',
      jobRows: 'Rows of the job',
      rowsLoading: 'Reading the rows of the bundle…',
      rowsFailed: 'The rows of the bundle could not be read: {error}',
    },
  },

  async render(root, ctx) {
    const t = ctx.t;
    const ac = new AbortController();
    let timer = null;

    const file = h('input', { type: 'file', name: 'file', accept: '.csv,.txt,text/csv', required: true });
    const engine = select([['', t('engineDefault')]], { name: 'engine' });
    const language = select([['pt-BR', 'Português (Brasil)'], ['en', 'English']], { name: 'language' }, ctx.lang === 'en' ? 'en' : 'pt-BR');
    // PDFs per row spend the monthly PDF quota: off unless asked for, with
    // the cost and what is left said next to the box.
    const pdfs = check(t('pdfs'), { name: 'pdfs' });
    const fileRows = h('p', { class: 'fk-hint', id: 'batch-rows-limit' });
    const pdfHint = h('p', { class: 'fk-hint', id: 'batch-pdf-cost' }, t('pdfCost'));
    const pdfLeft = h('p', { class: 'fk-hint', id: 'batch-pdf-quota' });
    pdfs.box.setAttribute('aria-describedby', `${pdfHint.id} ${pdfLeft.id}`);
    const submit = h('button', { type: 'submit' }, t('submit'));
    // The example is a blob URL made here: same origin, no request leaves
    // the appliance; it is revoked when the screen is left.
    const exampleUrl = URL.createObjectURL(new Blob([example], { type: 'text/csv' }));
    const exampleLink = h('a', { href: exampleUrl, class: 'fk-link', download: 'exemplo-lote.csv' }, t('example'));
    const errBox = h('div', { class: 'fk-errors', 'aria-live': 'polite' });
    const out = h('div', { class: 'fk-out' });
    // The job view is redrawn every second; only a change of state is
    // announced, through this one live line (visually hidden).
    const live = h('p', { class: 'fk-sr', 'aria-live': 'polite' });
    // Errors of the job's actions (cancel, download) outlive its redraws.
    const jobErr = h('div', { class: 'fk-errors', 'aria-live': 'polite' });
    let lastState = '';
    // A succeeded job's rows (table and map), below the job.
    const jobRowsBox = h('div', { id: 'batch-job-rows', 'aria-live': 'polite' });
    let jobRowsOf = '';

    const form = h('form', { class: 'fk-form', novalidate: true, 'data-writes': true },
      row(t('file'), file, t('fileHint')), fileRows,
      h('p', null, exampleLink),
      row(t('engine'), engine),
      row(t('language'), language),
      pdfs.el, pdfHint, pdfLeft,
      h('p', { class: 'fk-hint' }, t('syncNote')),
      h('div', { class: 'fk-actions' }, submit));

    root.append(h('p', null, t('intro')), card(t('upload'), form, errBox), live, out, jobErr, jobRowsBox);

    // The engine list says which engines the key may use; a failure leaves
    // only the default choice.
    ctx.api('GET', '/coverage/engines', { signal: ac.signal }).then((list) => {
      for (const e of list.engines) {
        if (e.status === 'available' && e.allowed_for_key) engine.append(h('option', { value: e.id }, `${e.id}: ${e.name}`));
      }
    }).catch(() => {});

    ctx.api('GET', '/v1/me/limits', { signal: ac.signal }).then((l) => {
      if (l.batch_max_rows > 0) {
        fileRows.textContent = t('tierRows', { tier: l.tier, n: ctx.fmt.num(l.batch_max_rows, 0) });
        file.setAttribute('aria-describedby', [file.getAttribute('aria-describedby'), fileRows.id].filter(Boolean).join(' '));
      }
    }).catch(() => {});
    ctx.api('GET', '/v1/me/quota', { signal: ac.signal }).then((q) => {
      const c = (q.counters || []).find((x) => x.name === 'pdfs');
      if (!c) return;
      pdfLeft.textContent = c.limit === null ? t('pdfQuotaNoCap', { used: ctx.fmt.num(c.used, 0) })
        : t('pdfQuota', { remaining: ctx.fmt.num(c.remaining, 0), limit: ctx.fmt.num(c.limit, 0) });
    }).catch(() => {});

    const statusText = (s) => t(s);

    // A synchronous answer has no bundle on the appliance: its rows are
    // saved from the page (CSV, GeoJSON, KML built here).
    const rowColumns = ['row', 'receiver_id', 'lat', 'lon', 'height_m', 'frequency_mhz', 'status', 'reason', 'operator', 'tower_id',
      'distance_km', 'azimuth_deg', 'rx_power_dbm', 'margin_db', 'eirp_assumed', 'synthetic', 'position_uncertainty_m', 'engine', 'engine_version', 'warnings'];
    const flatRow = (r) => ({ ...r, warnings: (r.warnings || []).map((w) => w.code) });
    const saveRows = (res, format) => {
      const name = `linkplan-lote.${format}`;
      const text = buildExport(format, res.rows.map(flatRow), rowColumns, 'receiver_id', t('results'));
      const url = URL.createObjectURL(new Blob([text], { type: MEDIA[format] }));
      const a = h('a', { href: url, download: name, class: 'fk-hidden' });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
      ctx.toast(t('downloaded', { name }), 'ok');
    };

    // Caveats first: every warning code of the rows, once, with how many
    // rows it qualifies (and, for a tower's position uncertainty, the row
    // where it weighs most: its uncertainty against its link length).
    const rowsCaveats = (rows, id) => {
      const by = new Map();
      for (const r of rows) {
        for (const w of r.warnings || []) {
          const e = by.get(w.code) || { w, n: 0, worst: null };
          e.n++;
          if (w.code === 'position_uncertainty' && r.position_uncertainty_m > 0 && r.distance_km > 0
            && (!e.worst || r.position_uncertainty_m / r.distance_km > e.worst.position_uncertainty_m / e.worst.distance_km)) e.worst = r;
          by.set(w.code, e);
        }
      }
      const ct = caveatWords(ctx);
      const total = rows.length;
      return caveatBox(ctx, [...by.values()].map((e) => e.w), {
        id,
        numbered: true,
        detail: (w) => {
          const e = by.get(w.code);
          const n = ct('rows', { n: ctx.fmt.num(e.n, 0), total: ctx.fmt.num(total, 0) });
          return e.worst ? `${n}; ${e.worst.receiver_id}: ${uncertainVs(ctx, e.worst.position_uncertainty_m, e.worst.distance_km)}` : n;
        },
      });
    };
    // A row's caveats: the numbers of the box's items that apply to it
    // (the full sentences as the cell's title), so that a long table stays
    // one line a row.
    const rowCaveats = (r, order) => {
      const ws = r.warnings || [];
      if (!ws.length) return '–';
      const nums = ws.map((w) => order.indexOf(w.code) + 1).filter((n) => n > 0);
      return h('span', { class: 'batch-row-caveats', title: ws.map((w) => warningText(w, ctx.lang)).join(' ') }, `⚠ ${nums.join(', ')}`);
    };
    const rowsTable = (rows, order) => table(t('rowsTable'), [
      { label: t('cRow'), cell: (r) => ctx.fmt.num(r.row, 0), num: true },
      { label: t('cId'), cell: (r) => r.receiver_id },
      { label: t('cStatus'), cell: (r) => h('span', { class: `fk-status fk-status-${r.status}` }, statusText(r.status)) },
      { label: t('cOperator'), cell: (r) => r.operator || '–' },
      { label: t('cTower'), cell: (r) => r.tower_id || '–' },
      { label: t('cDist'), cell: (r) => (r.distance_km === null ? '–' : ctx.fmt.unit(r.distance_km, 'km', 2)), num: true },
      { label: t('cPower'), cell: (r) => (r.rx_power_dbm === null ? '–' : ctx.fmt.unit(r.rx_power_dbm, 'dBm', 1)), num: true },
      { label: t('cMargin'), cell: (r) => (r.margin_db === null ? '–' : ctx.fmt.unit(r.margin_db, 'dB', 1)), num: true },
      { label: t('cCaveats'), cell: (r) => rowCaveats(r, order) },
      { label: t('cReason'), cell: (r) => [r.reason || '', (r.errors || []).map((e) => ` ${e.field}: ${e.reason}`).join(';')].join('') || '–' },
    ], rows);

    // The map of the rows: one dot per receiver with a position, in the
    // colour of its status; redrawn with the rows it shows.
    let rowsMap = null;
    const statusColour = { ok: '#17622b', low_margin: '#b26a00', no_tower: '#a4161a', error: '#6b6b6b' };
    const mapOf = (rows, id) => {
      if (rowsMap) { rowsMap.remove(); rowsMap = null; }
      const box = h('div', { id, class: 'batch-map', role: 'region', 'aria-label': t('rowsMap'), tabindex: '0' });
      // Leaflet measures the box: it is made once the box is on the page.
      queueMicrotask(() => {
        if (ac.signal.aborted || !box.isConnected) return;
        const L = window.L;
        rowsMap = createMap(box, ctx, RIO);
        const pts = [];
        for (const r of rows) {
          if (!Number.isFinite(r.lat) || !Number.isFinite(r.lon)) continue;
          L.circleMarker([r.lat, r.lon], { radius: 6, color: '#1b1f24', weight: 1, fillColor: statusColour[r.status] || '#6b6b6b', fillOpacity: 0.95, className: `batch-row batch-row-${r.status}` })
            .bindTooltip(`${r.row} · ${r.receiver_id} · ${statusText(r.status)}${r.margin_db === null ? '' : ` · ${ctx.fmt.unit(r.margin_db, 'dB', 1)}`}`).addTo(rowsMap);
          pts.push([r.lat, r.lon]);
        }
        fitPoints(rowsMap, pts, 13);
      });
      return box;
    };

    // rowsView: the caveats, the counts they qualify, the table and the map
    // of a batch's rows (prefix names the ids: batch for a synchronous
    // answer, batch-job for a job's).
    const rowsView = (rows, c, prefix) => {
      const caveats = rowsCaveats(rows, `${prefix}-caveats`);
      const okDd = h('span', { id: `${prefix}-ok` }, ctx.fmt.num(c.ok, 0));
      const mark = tieTo(ctx, okDd, caveats, caveats ? caveats.querySelectorAll('li').length : 0, 'span');
      return [caveats,
        facts([[t('total'), ctx.fmt.num(c.total, 0)], [t('ok'), mark ? [okDd, ' ', mark] : okDd], [t('low_margin'), ctx.fmt.num(c.low_margin, 0)],
          [t('no_tower'), ctx.fmt.num(c.no_tower, 0)], [t('error'), ctx.fmt.num(c.error, 0)]]),
        rowsTable(rows, caveats ? [...caveats.querySelectorAll('li')].map((li) => li.dataset.code) : []), mapOf(rows, `${prefix}-map`)];
    };

    const showSync = (res) => {
      const c = res.counts;
      live.textContent = `${t('results')}: ${t('total')} ${ctx.fmt.num(c.total, 0)}`;
      fill(out, card(t('results'),
        res.ignored_columns && res.ignored_columns.length ? h('p', null, t('ignored', { cols: res.ignored_columns.join(', ') })) : null,
        rowsView(res.rows, c, 'batch'),
        h('div', { class: 'fk-actions', role: 'group', 'aria-label': t('downloadAs') }, ['csv', 'geojson', 'kml'].map((f) => {
          const b = h('button', { type: 'button', class: 'fk-secondary', 'data-export': f }, `${t('downloadAs')}: ${f.toUpperCase()}`);
          b.addEventListener('click', () => saveRows(res, f));
          return b;
        }))));
    };

    // A succeeded job's rows: results.csv of its bundle, read in the page
    // (the bundle is fetched once per job and kept for the tab).
    const csvRows = (text) => {
      const [head, ...lines] = parseCSV(text);
      const unsafe = (v) => (/^'[=+\-@\t\r]/.test(v) ? v.slice(1) : v);
      const numOrNull = (v) => (v === '' || v === undefined ? null : Number(v));
      return lines.filter((l) => l.length === head.length).map((l) => {
        const o = Object.fromEntries(head.map((k, i) => [k, l[i]]));
        const codes = o.warnings ? unsafe(o.warnings).split(';').filter(Boolean) : [];
        const msgs = o.warning_messages ? unsafe(o.warning_messages).split(' | ') : [];
        return {
          row: Number(o.row), receiver_id: unsafe(o.receiver_id || ''), lat: numOrNull(o.lat), lon: numOrNull(o.lon),
          status: o.status, reason: unsafe(o.reason || ''), operator: unsafe(o.operator || ''), tower_id: unsafe(o.best_tower_id || ''),
          distance_km: numOrNull(o.distance_km), rx_power_dbm: numOrNull(o.rx_power_dbm), margin_db: numOrNull(o.margin_db),
          assumed_eirp_dbm: o.eirp_assumed === 'true' ? numOrNull(o.assumed_eirp_dbm) : null,
          position_uncertainty_m: numOrNull(o.position_uncertainty_m),
          warnings: codes.map((code, i) => ({ code, message: msgs[i] || '' })),
        };
      });
    };
    const loadJobRows = async (job) => {
      if (jobRowsOf === job.id) return;
      jobRowsOf = job.id;
      fill(jobRowsBox, h('p', { class: 'fk-hint' }, t('rowsLoading')));
      try {
        const res = await ctx.apiRaw('GET', job.result.download_url, { signal: ac.signal });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        const csv = await zipEntry(await res.arrayBuffer(), 'results.csv');
        if (!csv) throw new Error('results.csv');
        const rows = csvRows(new TextDecoder().decode(csv));
        fill(jobRowsBox, card(t('jobRows'), rowsView(rows, job.summary ? job.summary.counts : countsOf(rows), 'batch-job')));
      } catch (err) {
        if (ac.signal.aborted) return;
        jobRowsOf = '';
        fill(jobRowsBox, h('p', { role: 'alert', class: 'fk-error' }, t('rowsFailed', { error: err.message || String(err) })));
      }
    };
    const countsOf = (rows) => {
      const c = { total: rows.length, ok: 0, low_margin: 0, no_tower: 0, error: 0 };
      for (const r of rows) if (c[r.status] !== undefined) c[r.status]++;
      return c;
    };

    const jobView = (job, ignored) => {
      const p = job.progress;
      const state = job.cancel_requested && !terminal.has(job.state) ? `${t(job.state)} (${t('cancelRequested')})` : t(job.state);
      const pairs = [
        [t('state'), h('span', { class: `fk-state fk-state-${job.state}`, 'data-state': job.state }, state)],
        [t('progress'), [meter(p.done, p.total, t('progress')), ' ', t('rows', { done: ctx.fmt.num(p.done, 0), total: ctx.fmt.num(p.total, 0) })]],
        [t('created'), iso(ctx, job.created_at)],
      ];
      if (job.eta_seconds !== null) pairs.push([t('eta'), ctx.fmt.unit(job.eta_seconds, 's', 0)]);
      if (job.finished_at) pairs.push([t('finished'), iso(ctx, job.finished_at)]);
      if (job.error) pairs.push([t('jobError'), job.error]);
      const s = job.summary;
      if (s && s.counts) {
        for (const k of ['total', 'ok', 'low_margin', 'no_tower', 'error']) pairs.push([t(k), ctx.fmt.num(s.counts[k], 0)]);
        pairs.push([t('pdfsIncluded'), ctx.fmt.num(s.pdfs_included, 0)]);
        pairs.push([t('pdfsLeftOut'), s.pdfs_left_out_reason ? `${ctx.fmt.num(s.pdfs_left_out, 0)} (${s.pdfs_left_out_reason})` : ctx.fmt.num(s.pdfs_left_out, 0)]);
      }
      if (job.state === 'succeeded' && job.expires_at) pairs.push([t('expires'), iso(ctx, job.expires_at)]);
      const actions = h('div', { class: 'fk-actions' });
      if (!terminal.has(job.state) && !job.cancel_requested) {
        const cancel = h('button', { type: 'button', class: 'fk-danger', 'data-action': 'cancel-job' }, t('cancel'));
        cancel.addEventListener('click', async () => {
          // No redraw while the question is open: the answer's focus goes
          // back to this button, which must still be on the page.
          clearTimeout(timer);
          if (!(await confirm(ctx, t('cancelConfirm'), t('cancelYes'), t('cancelNo')))) {
            poll(job.id, ignored);
            return;
          }
          try {
            const j = await busy(cancel, () => ctx.api('POST', `/jobs/${encodeURIComponent(job.id)}/cancel`, { signal: ac.signal }));
            showJob(j, ignored);
          } catch (err) {
            showError(ctx, jobErr, err);
            timer = setTimeout(() => poll(job.id, ignored), pollMs);
          }
        });
        actions.append(cancel);
      }
      if (job.state === 'succeeded' && job.result) {
        const dl = h('button', { type: 'button', 'data-action': 'download-bundle' }, t('download', { size: ctx.fmt.bytes(job.result.bytes) }));
        dl.addEventListener('click', async () => {
          try {
            await busy(dl, () => ctx.download(job.result.download_url, `linkplan-${job.id}.zip`));
          } catch (err) {
            showError(ctx, jobErr, err);
          }
        });
        actions.append(dl);
      }
      return card(t('job', { id: job.id }), facts(pairs),
        ignored && ignored.length ? h('p', null, t('ignored', { cols: ignored.join(', ') })) : null, actions);
    };

    const showJob = (job, ignored) => {
      if (job.state !== lastState) {
        lastState = job.state;
        live.textContent = `${t('job', { id: job.id })}: ${t(job.state)}`;
      }
      // Keep the focus where it was when the view is redrawn under it: on
      // the same action when it is still offered, else on the job's heading.
      const focused = out.contains(document.activeElement) ? document.activeElement : null;
      fill(out, jobView(job, ignored));
      if (focused) {
        const same = focused.dataset.action ? out.querySelector(`[data-action="${focused.dataset.action}"]`) : null;
        const next = same || out.querySelector('button') || out.querySelector('h2');
        if (next) {
          if (next.tagName === 'H2') next.setAttribute('tabindex', '-1');
          next.focus();
        }
      }
      clearTimeout(timer);
      if (!terminal.has(job.state)) {
        timer = setTimeout(() => poll(job.id, ignored), pollMs);
      } else if (job.state === 'succeeded' && job.result) {
        loadJobRows(job);
      }
    };

    const poll = async (id, ignored) => {
      try {
        showJob(await ctx.api('GET', `/jobs/${encodeURIComponent(id)}`, { signal: ac.signal }), ignored);
      } catch (err) {
        if (ac.signal.aborted) return;
        showError(ctx, errBox, err);
        timer = setTimeout(() => poll(id, ignored), pollMs * 5);
      }
    };

    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      errBox.replaceChildren();
      if (!file.files || file.files.length === 0) {
        fill(errBox, h('p', { role: 'alert', class: 'fk-error' }, t('noFile')));
        file.focus();
        return;
      }
      const fd = new FormData();
      fd.append('file', file.files[0], file.files[0].name);
      if (engine.value) fd.append('engine', engine.value);
      fd.append('language', language.value);
      fd.append('pdfs', pdfs.box.checked ? 'true' : 'false');
      clearTimeout(timer);
      lastState = '';
      out.replaceChildren();
      jobErr.replaceChildren();
      jobRowsBox.replaceChildren();
      jobRowsOf = '';
      if (rowsMap) { rowsMap.remove(); rowsMap = null; }
      try {
        const res = await busy(submit, () => ctx.api('POST', '/batch_reports', { form: fd, signal: ac.signal }));
        if (res.id) { // the job object, as GET /jobs/{id} answers it
          ctx.memo.batch = { jobId: res.id, ignored: res.ignored_columns };
          showJob(res, res.ignored_columns);
        } else {
          ctx.memo.batch = { sync: res };
          showSync(res);
        }
        ctx.showResult(out.querySelector('h2'));
      } catch (err) {
        showError(ctx, errBox, err);
      }
    });

    // The tab's last batch comes back with the screen: the rows of a
    // synchronous answer, or the job, polled again.
    if (ctx.memo.batch && ctx.memo.batch.sync) showSync(ctx.memo.batch.sync);
    else if (ctx.memo.batch && ctx.memo.batch.jobId) poll(ctx.memo.batch.jobId, ctx.memo.batch.ignored);

    return () => {
      clearTimeout(timer);
      ac.abort();
      if (rowsMap) rowsMap.remove();
      URL.revokeObjectURL(exampleUrl);
    };
  },
};
