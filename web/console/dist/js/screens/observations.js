// Observations screen: upload a drive-test CSV to POST
// /coverage/observations/drivetest (multipart: csv_file and the
// transmitter and receiver context) and read GET
// /coverage/observations/stats. Tier Pro or higher (the API answers 403
// below, shown as is).
//
// What it shows: the form with the explicit gains, cable loss and RX
// height that drive-test rows need (SPEC §8.2), the ingest answer
// (submitted, ingested, deduplicated, consent accounting, signature
// status) and the tenant's stored row counts.
//
// It also shows the served models as GET /coverage/model/info describes
// them (SPEC §2.6): the local ridge model and the residual engine, each
// with its version, cross-validated RMSE, training rows, data provenance,
// accuracy grade and whether it may claim field accuracy, the residual
// engine's 90 % band and the envelope it is calibrated on. Every value is
// the API's; a field the API gives as null shows a dash.
//
// Measured versus predicted: POST /coverage/observations/residuals
// queues a report job over the tenant's consented observations; the
// screen polls GET /jobs/{id}, then reads report.json and
// residuals.geojson from the job's bundle in the page (unzip.js) and
// shows the report's caveats first (its warnings, in the user's
// language), each engine's n, RMSE, bias and MAE (the engine of least
// RMSE marked), that engine's residuals by distance, and a map of the
// receivers coloured by that engine's residual (observed − predicted,
// dB; a fixed diverging scale, its legend beside it). No map before a
// report: nothing rather than a made-up colour scale.
//
// Calibration (GET and PUT /coverage/calibration, POST
// /coverage/calibration/fit): the tenant's opt-in calibration of the
// predictions from its consented observations. The card shows whether it
// is on (and since when), the last fit job (followed every second while it
// runs, its failure in the user's language) and the fitted calibration:
// each engine's cross-validated RMSE without and with it, whether it is
// applied and by which method, and the band offsets (dB at 1 km, slope per
// decade) with theirs. The switch turns it on (a fit is queued) or off (the
// fitted calibration is deleted at once); it is the tenant-admin's (other
// roles see the card read-only, with the reason).
import { h, fill, card, row, check, facts, showError, busy, epoch, iso, table, meter, select } from '../formkit.js';
import { zipEntry } from '../unzip.js';
import { jobFailure } from '../jobs.js';
import { caveatBox, tieTo } from '../caveats.js';
import { createMap, fitPoints, RIO } from '../map.js';

// The numeric form parts of the route, in form order: [name, required,
// min, max, step]; the label is the string of the same name.
const numbers = [
  ['tx_power_dbm', false, '0', '80', 'any'], // or the record of the tower
  ['tx_gain_dbi', false, null, null, 'any'],
  ['rx_gain_dbi', true, null, null, 'any'],
  ['cable_loss_db', true, '0', '20', 'any'],
  ['rx_height_m', true, '0', '500', 'any'],
  ['tx_lat', false, '-90', '90', 'any'],
  ['tx_lon', false, '-180', '180', 'any'],
  ['tx_height_m', false, '0', '500', 'any'],
  ['frequency_mhz', false, '1', '100000', 'any'],
];

export default {
  id: 'observations',
  nav: true,
  titleKey: 'title',
  strings: {
    'pt-BR': {
      title: 'Observações',
      intro: 'Envie medições de campo (drive test) para calibrar os modelos. As medições ficam com o seu tenant; só entram no treino global com o seu consentimento.',
      upload: 'Enviar drive test',
      csv_file: 'Arquivo CSV do drive test',
      csvHint: 'Colunas: latitude (lat, Latitude), longitude (lon, lng, Longitude), um sinal (signal_dbm, rsrp, rscp ou rxlev), frequência opcional (frequency_mhz, freq_mhz, band_mhz, "Frequência (MHz)" ou freq_hz em Hz), transmissor por linha opcional (tx_lat/cellLat, tx_lon/cellLon), horário opcional (ts ou timestamp: segundos epoch ou ISO 8601 com fuso, ex. 2026-03-01T08:59:00-03:00). Separador vírgula, ponto e vírgula ou tab; vírgula decimal; UTF-8 ou Windows-1252 (CSV do Excel). CSV simples ou gzip, até 10.000 linhas.',
      tower_id: 'Torre (id)', towerHint: 'Informe a torre OU a latitude, longitude e altura do transmissor abaixo (ou colunas por linha no CSV). Se o registro da torre tiver potência e ganho (licenças da Anatel), eles são usados quando os campos abaixo ficam vazios.',
      device: 'Equipamento de medição', deviceHint: 'Ex.: TEMS, G-NetTrack, QualiPoc.',
      tx_power_dbm: 'Potência do transmissor (dBm)', tx_gain_dbi: 'Ganho da antena TX (dBi)', rx_gain_dbi: 'Ganho da antena RX (dBi)',
      cable_loss_db: 'Perda de cabo (dB)', rx_height_m: 'Altura da antena RX (m)', tx_lat: 'Latitude do transmissor (graus)',
      tx_lon: 'Longitude do transmissor (graus)', tx_height_m: 'Altura do transmissor (m)', frequency_mhz: 'Frequência (MHz)',
      freqHint: 'Só quando o CSV não tem coluna de frequência. Ex.: 1800.',
      required: 'Obrigatório para drive test: ganhos, perda de cabo e altura RX explícitos.',
      consent: 'Autorizo o uso destas medições no treino do modelo global',
      submit: 'Enviar',
      noFile: 'Escolha um arquivo CSV.',
      result: 'Resultado do envio',
      submitted: 'Linhas recebidas', ingested: 'Linhas gravadas', deduped_intra_batch: 'Duplicadas no próprio envio',
      deduped_existing: 'Já gravadas antes', granted_for_training: 'Com consentimento para treino', refused_for_training: 'Sem consentimento para treino',
      signature_status: 'Assinatura', verified: 'verificada', unsigned: 'sem assinatura',
      stats: 'Observações gravadas do tenant',
      link_observations: 'Observações de enlace (API JSON)', cell_signal_samples: 'Amostras de drive test (CSV)',
      mapNote: 'O mapa de resíduos aparece com um relatório medido × previsto (abaixo).',
      resTitle: 'Medido × previsto (resíduos)',
      resReport: 'Resultado do relatório',
      resIntro: 'Prediz cada observação consentida do tenant com cada motor, no terreno do equipamento, e compara com o medido: resíduo = medido − previsto (dB; positivo: o motor prevê sinal fraco demais).',
      resEngines: 'Motores', resAll: 'Todos os motores',
      resSubmit: 'Gerar relatório',
      resJob: 'Relatório {id}: {state}', resProgress: 'Progresso do relatório',
      resFailed: 'O relatório terminou em {state}: {error}',
      resLoadFailed: 'O relatório não pôde ser lido: {error}',
      resRows: 'Observações lidas', resAvailable: 'Observações consentidas do tenant', resSkipped: 'Sem predição',
      resTable: 'Resíduos por motor (dB)', resEngine: 'Motor', resN: 'n', resRmse: 'RMSE', resBias: 'Viés', resMae: 'MAE', resRefused: 'Recusadas',
      resBest: 'menor RMSE', resBestRmse: 'Menor RMSE ({engine})',
      resByDistance: 'Resíduos de {engine} por distância (dB)', resBin: 'Distância',
      resMap: 'Mapa dos receptores na cor do resíduo de {engine}',
      resLegend: 'Resíduo de {engine} (medido − previsto): azul, o motor prevê sinal forte demais; vermelho, fraco demais; cinza, sem predição.',
      queued: 'na fila', running: 'em execução', succeeded: 'concluído', failed: 'falhou', canceled: 'cancelado', expired: 'expirado',
      models: 'Modelos em uso', localModel: 'Modelo local (ridge)', residualEngine: 'Motor residual',
      noModel: 'Nenhum modelo carregado: as predições usam a física (FSPL).',
      version: 'Versão', cvRmse: 'RMSE de validação cruzada (dB)', nTrain: 'Linhas de treino', trainedAt: 'Treinado em',
      provenance: 'Origem dos dados', grade: 'Grau de precisão', claim: 'Afirma precisão de campo', yes: 'sim', no: 'não',
      band: 'Faixa de 90 % (± dB)', bandCoverage: 'Cobertura medida da faixa', envelope: 'Calibrado para',
      synthetic: 'sintética', real: 'real', mixed: 'mista', unknown: 'desconhecida', none: 'nenhuma',
      pipeline_validation_only: 'só validação do pipeline', planejamento: 'planejamento', triagem: 'triagem', screening: 'screening',
      calTitle: 'Calibração das predições',
      calIntro: 'Ajusta as predições do tenant (enlaces, lotes, mapas de cobertura) às suas medições consentidas: um desvio por transmissor e faixa, validado em dobras espaciais; um ajuste que não melhora o erro fora da amostra fica recusado e nunca é aplicado.',
      calOn: 'Ligada desde {date}', calOff: 'Desligada',
      calState: 'Estado', calSwitchOn: 'Ligar a calibração', calSwitchOff: 'Desligar a calibração', calRefit: 'Ajustar de novo agora',
      calAdminOnly: 'Só uma chave tenant-admin liga ou desliga a calibração.',
      calOffNote: 'Desligar apaga na hora a calibração ajustada.',
      calJob: 'Ajuste {id}: {state}', calJobProgress: 'Progresso do ajuste', calJobFailed: 'O ajuste terminou {state}: {reason}',
      calFitted: 'Ajustada em', calNone: 'Nenhuma calibração ajustada ainda.',
      calEngines: 'Verdito por motor (validação cruzada)', calEngine: 'Motor', calN: 'Medições', calNVal: 'Validadas',
      calBefore: 'RMSE sem', calAfter: 'RMSE com', calApplied: 'Aplicada', calMethod: 'Método', calCells: 'Transmissores',
      calBands: 'Desvio por faixa', calBand: 'Faixa', calOffset: 'Desvio (a 1 km)', calSlope: 'Inclinação (por década)',
      calYes: 'sim', calNo: 'não (recusada)',
    },
    en: {
      title: 'Observations',
      intro: 'Upload field measurements (drive tests) to calibrate the models. Measurements stay with your tenant; they join global training only with your consent.',
      upload: 'Upload a drive test',
      csv_file: 'Drive-test CSV file',
      csvHint: 'Columns: latitude (lat, Latitude), longitude (lon, lng, Longitude), one signal (signal_dbm, rsrp, rscp or rxlev), optional frequency (frequency_mhz, freq_mhz, band_mhz, "Frequency [MHz]" or freq_hz in Hz), optional per-row transmitter (tx_lat/cellLat, tx_lon/cellLon), optional time (ts or timestamp: epoch seconds or ISO 8601 with its offset, e.g. 2026-03-01T08:59:00-03:00). Comma, semicolon or tab separators; decimal commas; UTF-8 or Windows-1252 (Excel CSV). Plain or gzip CSV, up to 10,000 rows.',
      tower_id: 'Tower (id)', towerHint: 'Give the tower OR the transmitter latitude, longitude and height below (or per-row columns in the CSV). When the tower\'s record has its power and gain (Anatel licences), they are used where the fields below are left empty.',
      device: 'Measuring tool', deviceHint: 'E.g. TEMS, G-NetTrack, QualiPoc.',
      tx_power_dbm: 'Transmitter power (dBm)', tx_gain_dbi: 'TX antenna gain (dBi)', rx_gain_dbi: 'RX antenna gain (dBi)',
      cable_loss_db: 'Cable loss (dB)', rx_height_m: 'RX antenna height (m)', tx_lat: 'Transmitter latitude (degrees)',
      tx_lon: 'Transmitter longitude (degrees)', tx_height_m: 'Transmitter height (m)', frequency_mhz: 'Frequency (MHz)',
      freqHint: 'Only when the CSV has no frequency column. E.g. 1800.',
      required: 'Required for drive tests: explicit gains, cable loss and RX height.',
      consent: 'I allow these measurements to be used to train the global model',
      submit: 'Upload',
      noFile: 'Choose a CSV file.',
      result: 'Upload result',
      submitted: 'Rows received', ingested: 'Rows stored', deduped_intra_batch: 'Duplicates within the upload',
      deduped_existing: 'Already stored', granted_for_training: 'Consented for training', refused_for_training: 'Not consented for training',
      signature_status: 'Signature', verified: 'verified', unsigned: 'unsigned',
      stats: 'Stored observations of the tenant',
      link_observations: 'Link observations (JSON API)', cell_signal_samples: 'Drive-test samples (CSV)',
      mapNote: 'The residual map comes with a measured-versus-predicted report (below).',
      resTitle: 'Measured versus predicted (residuals)',
      resReport: 'Report result',
      resIntro: 'Predicts every consented observation of the tenant with each engine on the appliance\'s terrain and compares it with the measurement: residual = observed − predicted (dB; positive: the engine predicts too weak a signal).',
      resEngines: 'Engines', resAll: 'All engines',
      resSubmit: 'Make the report',
      resJob: 'Report {id}: {state}', resProgress: 'Report progress',
      resFailed: 'The report ended {state}: {error}',
      resLoadFailed: 'The report could not be read: {error}',
      resRows: 'Observations read', resAvailable: 'Consented observations of the tenant', resSkipped: 'Not predicted',
      resTable: 'Residuals per engine (dB)', resEngine: 'Engine', resN: 'n', resRmse: 'RMSE', resBias: 'Bias', resMae: 'MAE', resRefused: 'Refused',
      resBest: 'least RMSE', resBestRmse: 'Least RMSE ({engine})',
      resByDistance: 'Residuals of {engine} by distance (dB)', resBin: 'Distance',
      resMap: 'Map of the receivers in the colour of the {engine} residual',
      resLegend: 'Residual of {engine} (observed − predicted): blue, the engine predicts too strong a signal; red, too weak; grey, not predicted.',
      queued: 'queued', running: 'running', succeeded: 'succeeded', failed: 'failed', canceled: 'canceled', expired: 'expired',
      models: 'Models in use', localModel: 'Local model (ridge)', residualEngine: 'Residual engine',
      noModel: 'No model loaded: predictions use physics (FSPL).',
      version: 'Version', cvRmse: 'Cross-validated RMSE (dB)', nTrain: 'Training rows', trainedAt: 'Trained at',
      provenance: 'Data provenance', grade: 'Accuracy grade', claim: 'Claims field accuracy', yes: 'yes', no: 'no',
      band: '90 % band (± dB)', bandCoverage: 'Measured band coverage', envelope: 'Calibrated for',
      synthetic: 'synthetic', real: 'real', mixed: 'mixed', unknown: 'unknown', none: 'none',
      pipeline_validation_only: 'pipeline validation only', planejamento: 'planejamento (planning)', triagem: 'triagem (triage)', screening: 'screening',
      calTitle: 'Calibration of the predictions',
      calIntro: 'Fits the tenant\'s predictions (links, batches, coverage maps) to its consented measurements: an offset per transmitter and band, validated on spatial folds; a fit that does not lower the out-of-sample error is refused and never applied.',
      calOn: 'On since {date}', calOff: 'Off',
      calState: 'State', calSwitchOn: 'Turn calibration on', calSwitchOff: 'Turn calibration off', calRefit: 'Fit again now',
      calAdminOnly: 'Only a tenant-admin key turns the calibration on or off.',
      calOffNote: 'Turning it off deletes the fitted calibration at once.',
      calJob: 'Fit {id}: {state}', calJobProgress: 'Fit progress', calJobFailed: 'The fit ended {state}: {reason}',
      calFitted: 'Fitted at', calNone: 'No fitted calibration yet.',
      calEngines: 'Verdict per engine (cross-validated)', calEngine: 'Engine', calN: 'Measurements', calNVal: 'Validated',
      calBefore: 'RMSE without', calAfter: 'RMSE with', calApplied: 'Applied', calMethod: 'Method', calCells: 'Transmitters',
      calBands: 'Offset per band', calBand: 'Band', calOffset: 'Offset (at 1 km)', calSlope: 'Slope (per decade)',
      calYes: 'yes', calNo: 'no (refused)',
    },
  },

  async render(root, ctx) {
    const t = ctx.t;
    const ac = new AbortController();

    const file = h('input', { type: 'file', name: 'csv_file', accept: '.csv,.txt,.gz,text/csv', required: true });
    const tower = h('input', { type: 'text', name: 'tower_id', maxlength: '128', autocomplete: 'off' });
    const device = h('input', { type: 'text', name: 'device', maxlength: '128' });
    const inputs = {};
    const rows = numbers.map(([name, required, min, max, step]) => {
      const i = h('input', { type: 'number', name, min, max, step, required, inputmode: 'decimal' });
      inputs[name] = i;
      return row(t(name), i, name === 'frequency_mhz' ? t('freqHint') : null);
    });
    const consent = check(t('consent'), { name: 'consent_for_training' });
    const submit = h('button', { type: 'submit' }, t('submit'));
    const errBox = h('div', { class: 'fk-errors', 'aria-live': 'polite' });
    const out = h('div', { class: 'fk-out', 'aria-live': 'polite' });
    const statsBox = h('div', { 'data-part': 'stats' });
    const modelsBox = h('div', { 'data-part': 'models' });

    const form = h('form', { class: 'fk-form', novalidate: true, 'data-writes': true },
      row(t('csv_file'), file, t('csvHint')),
      row(t('device'), device, t('deviceHint')),
      h('fieldset', { class: 'fk-fieldset' }, h('legend', null, t('required')), rows.slice(0, 5)),
      h('fieldset', { class: 'fk-fieldset' }, h('legend', null, t('towerHint')), row(t('tower_id'), tower), rows.slice(5, 8)),
      rows[8],
      consent.el,
      h('div', { class: 'fk-actions' }, submit));

    // The measured-versus-predicted report.
    const engineChoice = select([['', t('resAll')], ['fspl', 'fspl'], ['p1812', 'p1812'], ['itm', 'itm'], ['p1812-p1411-hybrid', 'p1812-p1411-hybrid'], ['auto', 'auto']], { name: 'engines', id: 'res-engines' });
    const resSubmit = h('button', { type: 'submit', id: 'res-submit' }, t('resSubmit'));
    const resForm = h('form', { class: 'fk-form', novalidate: true, 'data-writes': true, id: 'res-form' },
      h('p', null, t('resIntro')), row(t('resEngines'), engineChoice), h('div', { class: 'fk-actions' }, resSubmit));
    const resErr = h('div', { class: 'fk-errors', 'aria-live': 'polite' });
    const resJob = h('div', { id: 'res-job', 'aria-live': 'polite' });
    const resOut = h('div', { id: 'res-out' });

    // The calibration: its state and the switch, the fit job, the fitted
    // figures.
    const role = ctx.session ? ctx.session.role : null;
    const mayLead = role === 'tenant-admin' || role === 'admin' || role === null;
    const calSwitch = h('button', { type: 'submit', id: 'cal-switch', disabled: true }, t('calSwitchOn'));
    const calRefit = h('button', { type: 'button', id: 'cal-refit', hidden: true }, t('calRefit'));
    const calStateBox = h('div', { id: 'cal-state-box' });
    const calForm = h('form', { class: 'fk-form', novalidate: true, 'data-writes': true, id: 'cal-form' },
      h('p', null, t('calIntro')), calStateBox,
      mayLead || role === 'read-only' ? null : h('p', { class: 'readonly-note', role: 'note', id: 'cal-admin-only' }, t('calAdminOnly')),
      h('div', { class: 'fk-actions' }, calSwitch, calRefit));
    const calErr = h('div', { class: 'fk-errors', 'aria-live': 'polite' });
    const calJob = h('div', { id: 'cal-job', 'aria-live': 'polite' });
    const calOut = h('div', { id: 'cal-out' });

    root.append(h('p', null, t('intro')),
      card(t('upload'), form, errBox), out, card(t('stats'), statsBox), card(t('models'), modelsBox),
      card(t('resTitle'), resForm, resErr, resJob, resOut),
      h('p', { class: 'fk-hint' }, t('mapNote')),
      card(t('calTitle'), calForm, calErr, calJob, calOut));

    // A number the API may give as null: a dash, never a made-up value.
    const num = (v, digits) => (v === null || v === undefined ? '–' : ctx.fmt.num(v, digits));
    const word = (v) => (v === null || v === undefined || v === '' ? '–' : t(v));
    const modelFacts = (m, extra) => facts([
      [t('version'), m.version || m.model_version || '–'],
      [t('cvRmse'), num(m.cv_rmse_db, 2)],
      [t('nTrain'), num(m.n_train, 0)],
      [t('trainedAt'), m.trained_at ? epoch(ctx, m.trained_at) : '–'],
      [t('provenance'), word(m.data_provenance)],
      [t('grade'), word(m.accuracy_grade)],
      [t('claim'), m.field_accuracy_claim ? t('yes') : t('no')],
      ...extra,
    ]);
    const loadModels = async () => {
      try {
        const info = await ctx.api('GET', '/coverage/model/info', { signal: ac.signal });
        const parts = [];
        if (info.local_model) {
          parts.push(h('h3', null, t('localModel')), modelFacts(info.local_model, []));
        }
        const re = info.residual_engine;
        if (re && re.loaded) {
          const c = re.conformal;
          parts.push(h('h3', null, t('residualEngine')), modelFacts(re, [
            [t('band'), c ? num(c.q_abs_db, 1) : '–'],
            [t('bandCoverage'), c ? ctx.fmt.num(100 * c.empirical_coverage, 1) + ' %' : '–'],
            [t('envelope'), re.envelope ? re.envelope.description : '–'],
          ]));
        }
        fill(modelsBox, ...(parts.length ? parts : [h('p', null, t('noModel'))]));
      } catch (err) {
        showError(ctx, modelsBox, err);
      }
    };

    const loadStats = async () => {
      try {
        const s = await ctx.api('GET', '/coverage/observations/stats', { signal: ac.signal });
        fill(statsBox, facts([
          [t('link_observations'), ctx.fmt.num(s.link_observations, 0)],
          [t('cell_signal_samples'), ctx.fmt.num(s.cell_signal_samples, 0)],
        ]));
      } catch (err) {
        showError(ctx, statsBox, err);
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
      fd.append('csv_file', file.files[0], file.files[0].name);
      if (tower.value.trim()) fd.append('tower_id', tower.value.trim());
      if (device.value.trim()) fd.append('device', device.value.trim());
      // Only the numbers typed are sent: an empty part would be "not a
      // number", and a missing required one is the API's 422 naming it.
      // A number input's value always uses '.' whatever the locale.
      for (const [name] of numbers) {
        if (inputs[name].value !== '') fd.append(name, inputs[name].value);
      }
      if (consent.box.checked) fd.append('consent_for_training', 'true');
      try {
        const res = await busy(submit, () => ctx.api('POST', '/coverage/observations/drivetest', { form: fd, signal: ac.signal }));
        fill(out, card(t('result'), facts([
          [t('submitted'), ctx.fmt.num(res.submitted, 0)],
          [t('ingested'), ctx.fmt.num(res.ingested, 0)],
          [t('deduped_intra_batch'), ctx.fmt.num(res.deduped_intra_batch, 0)],
          [t('deduped_existing'), ctx.fmt.num(res.deduped_existing, 0)],
          [t('granted_for_training'), ctx.fmt.num(res.granted_for_training, 0)],
          [t('refused_for_training'), ctx.fmt.num(res.refused_for_training, 0)],
          [t('signature_status'), t(res.signature_status)],
        ])));
        loadStats();
      } catch (err) {
        showError(ctx, errBox, err, form);
      }
    });

    let resTimer = null;
    let resMap = null;
    const terminal = ['succeeded', 'failed', 'canceled', 'expired'];
    const followReport = async (job) => {
      ctx.memo.residualJob = job.id;
      for (;;) {
        fill(resJob, h('p', { id: 'res-state' }, t('resJob', { id: job.id, state: t(job.state) })),
          meter(job.progress.done, Math.max(job.progress.total, 1), t('resProgress')));
        if (job.state === 'succeeded') {
          await showReport(job);
          return;
        }
        if (terminal.includes(job.state)) {
          fill(resErr, h('p', { role: 'alert', class: 'fk-error' }, t('resFailed', { state: t(job.state), error: job.error || '' })));
          return;
        }
        await new Promise((r) => { resTimer = setTimeout(r, 1000); });
        job = await ctx.api('GET', `/jobs/${encodeURIComponent(job.id)}`, { signal: ac.signal });
      }
    };

    // The colour of a residual (dB) on a fixed diverging scale: blue
    // below -10, white at 0, red above +10.
    const residualColour = (r) => {
      if (r === null || r === undefined || !Number.isFinite(r)) return '#8c8c8c';
      const x = Math.max(-1, Math.min(1, r / 10));
      const mix = (a, b, f) => Math.round(a + (b - a) * f);
      return x < 0 ? `rgb(${mix(255, 33, -x)},${mix(255, 102, -x)},${mix(255, 172, -x)})` : `rgb(${mix(255, 178, x)},${mix(255, 24, x)},${mix(255, 43, x)})`;
    };

    const showReport = async (job) => {
      let rep;
      let geo;
      try {
        const res = await ctx.apiRaw('GET', job.result.download_url, { signal: ac.signal });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        const buf = await res.arrayBuffer();
        const dec = new TextDecoder();
        const r = await zipEntry(buf, 'report.json');
        if (!r) throw new Error('report.json');
        rep = JSON.parse(dec.decode(r));
        const g = await zipEntry(buf, 'residuals.geojson');
        geo = g ? JSON.parse(dec.decode(g)) : { features: [] };
      } catch (err) {
        if (!ac.signal.aborted) fill(resErr, h('p', { role: 'alert', class: 'fk-error' }, t('resLoadFailed', { error: err.message || String(err) })));
        return;
      }
      if (ac.signal.aborted) return;
      const engines = (rep.engines || []).filter((e) => e.n > 0);
      const best = engines.reduce((b, e) => (!b || e.rmse_db < b.rmse_db ? e : b), null);
      const db = (v) => ctx.fmt.unit(v, 'dB', 2);
      const caveats = caveatBox(ctx, rep.warnings || [], { id: 'res-caveats' });
      const bestDd = h('span', { id: 'res-best' }, best ? db(best.rmse_db) : '–');
      const mark = tieTo(ctx, bestDd, caveats, (rep.warnings || []).length, 'span');
      const skipped = Object.entries(rep.skipped || {}).map(([k, n]) => `${k}: ${ctx.fmt.num(n, 0)}`).join(', ') || '0';
      const perEngine = table(t('resTable'), [
        { label: t('resEngine'), cell: (e) => (e === best ? `${e.engine} (${t('resBest')})` : e.engine) },
        { label: t('resN'), cell: (e) => ctx.fmt.num(e.n, 0), num: true },
        { label: t('resRmse'), cell: (e) => (e.n ? db(e.rmse_db) : '–'), num: true },
        { label: t('resBias'), cell: (e) => (e.n ? db(e.bias_db) : '–'), num: true },
        { label: t('resMae'), cell: (e) => (e.n ? db(e.mae_db) : '–'), num: true },
        { label: t('resRefused'), cell: (e) => ctx.fmt.num(e.refused, 0), num: true },
      ], rep.engines || []);
      perEngine.id = 'res-engines-table';
      const byDist = best && (best.by_distance || []).length ? table(t('resByDistance', { engine: best.engine }), [
        { label: t('resBin'), cell: (g) => g.key },
        { label: t('resN'), cell: (g) => ctx.fmt.num(g.n, 0), num: true },
        { label: t('resRmse'), cell: (g) => db(g.rmse_db), num: true },
        { label: t('resBias'), cell: (g) => db(g.bias_db), num: true },
      ], best.by_distance) : null;
      const field = best ? `${best.engine}_residual_db` : '';
      const mapBox = best ? h('div', { id: 'res-map', class: 'res-map', role: 'region', tabindex: '0', 'aria-label': t('resMap', { engine: best.engine }) }) : null;
      if (resMap) { resMap.remove(); resMap = null; }
      fill(resOut, h('h3', { id: 'res-title', tabindex: '-1' }, t('resReport')), caveats,
        facts([[t('resRows'), ctx.fmt.num(rep.rows, 0)], [t('resAvailable'), ctx.fmt.num(rep.rows_available, 0)], [t('resSkipped'), skipped],
          [t('resBestRmse', { engine: best ? best.engine : '–' }), mark ? [bestDd, ' ', mark] : bestDd]]),
        perEngine, byDist, mapBox, best ? h('p', { class: 'fk-hint', id: 'res-legend' }, t('resLegend', { engine: best.engine })) : null);
      if (mapBox) {
        const L = window.L;
        resMap = createMap(mapBox, ctx, RIO);
        const pts = [];
        for (const f of geo.features || []) {
          const c = f.geometry && f.geometry.coordinates;
          if (!c || !Number.isFinite(c[0]) || !Number.isFinite(c[1])) continue;
          const r = f.properties ? f.properties[field] : null;
          L.circleMarker([c[1], c[0]], { radius: 6, color: '#1b1f24', weight: 1, fillColor: residualColour(r), fillOpacity: 0.95, className: 'res-point' })
            .bindTooltip(`${f.properties.observation_id || ''} · ${r === null || r === undefined ? '–' : db(r)}`).addTo(resMap);
          pts.push([c[1], c[0]]);
        }
        fitPoints(resMap, pts, 15);
      }
    };

    resForm.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      clearTimeout(resTimer);
      resErr.replaceChildren();
      resOut.replaceChildren();
      if (resMap) { resMap.remove(); resMap = null; }
      const body = engineChoice.value ? { engines: [engineChoice.value] } : {};
      try {
        const job = await busy(resSubmit, () => ctx.api('POST', '/coverage/observations/residuals', { json: body, signal: ac.signal }));
        await followReport(job);
        ctx.showResult(document.getElementById('res-title'));
      } catch (err) {
        if (!ac.signal.aborted) showError(ctx, resErr, err, resForm);
      }
    });

    let calTimer = null;
    const calTerminal = (j) => !j || terminal.includes(j.state);
    const showCalibration = (st) => {
      const db = (v) => ctx.fmt.unit(v, 'dB', 2);
      calSwitch.textContent = st.enabled ? t('calSwitchOff') : t('calSwitchOn');
      calSwitch.dataset.enabled = String(st.enabled);
      calSwitch.disabled = !mayLead || calForm.dataset.readOnly === 'true';
      calRefit.hidden = !st.enabled;
      calRefit.disabled = calSwitch.disabled || !calTerminal(st.fit_job);
      fill(calStateBox, facts([[t('calState'), h('span', { id: 'cal-state', 'data-enabled': String(st.enabled) },
        st.enabled ? t('calOn', { date: iso(ctx, st.changed_at) }) : t('calOff'))]]),
      st.enabled ? h('p', { class: 'fk-hint' }, t('calOffNote')) : null);
      const j = st.fit_job;
      fill(calJob, j ? [h('p', { id: 'cal-job-state', 'data-state': j.state }, t('calJob', { id: j.id, state: t(j.state) })),
        calTerminal(j) ? null : meter(j.progress.done, Math.max(j.progress.total, 1), t('calJobProgress')),
        j.state === 'failed' || j.state === 'canceled' || j.state === 'expired'
          ? h('p', { role: 'alert', class: 'fk-error', id: 'cal-job-error', title: jobFailure(ctx, j).detail || null }, t('calJobFailed', { state: t(j.state), reason: jobFailure(ctx, j).text })) : null] : null);
      const c = st.calibration;
      if (!c) { fill(calOut, st.enabled ? h('p', { id: 'cal-none' }, t('calNone')) : null); return; }
      const engines = c.engines || [];
      const verdict = (x) => h('span', { title: x.reason || null, 'data-applied': String(!!x.applied) }, x.applied ? t('calYes') : t('calNo'));
      const perEngine = table(t('calEngines'), [
        { label: t('calEngine'), cell: (e) => e.engine },
        { label: t('calN'), cell: (e) => ctx.fmt.num(e.n, 0), num: true },
        { label: t('calNVal'), cell: (e) => ctx.fmt.num(e.n_validated, 0), num: true },
        { label: t('calBefore'), cell: (e) => db(e.cv_rmse_before_db), num: true },
        { label: t('calAfter'), cell: (e) => db(e.cv_rmse_after_db), num: true },
        { label: t('calApplied'), cell: verdict },
        { label: t('calMethod'), cell: (e) => e.method || '–' },
        { label: t('calCells'), cell: (e) => ctx.fmt.num((e.cells || []).filter((x) => x.applied).length, 0) + ' / ' + ctx.fmt.num((e.cells || []).length, 0), num: true },
      ], engines);
      perEngine.id = 'cal-engines';
      const bands = engines.flatMap((e) => (e.bands || []).map((b) => ({ ...b, engine: e.engine })));
      const perBand = bands.length ? table(t('calBands'), [
        { label: t('calEngine'), cell: (b) => b.engine },
        { label: t('calBand'), cell: (b) => ctx.fmt.unit(b.band_mhz, 'MHz', 0) },
        { label: t('calOffset'), cell: (b) => db(b.offset_db), num: true },
        { label: t('calSlope'), cell: (b) => db(b.slope_db_per_decade), num: true },
        { label: t('calN'), cell: (b) => ctx.fmt.num(b.n, 0), num: true },
        // A band level no held-out transmitter tested has no figures.
        { label: t('calBefore'), cell: (b) => (b.n_validated ? db(b.cv_rmse_before_db) : '–'), num: true },
        { label: t('calAfter'), cell: (b) => (b.n_validated ? db(b.cv_rmse_after_db) : '–'), num: true },
        { label: t('calApplied'), cell: verdict },
      ], bands) : null;
      if (perBand) perBand.id = 'cal-bands';
      fill(calOut, facts([[t('calFitted'), h('span', { id: 'cal-fitted-at' }, epoch(ctx, c.fitted_at))]]), perEngine, perBand);
    };
    const loadCalibration = async () => {
      clearTimeout(calTimer);
      try {
        const st = await ctx.api('GET', '/coverage/calibration', { signal: ac.signal });
        showCalibration(st);
        if (!calTerminal(st.fit_job)) calTimer = setTimeout(loadCalibration, 1000);
      } catch (err) {
        showError(ctx, calErr, err);
      }
    };
    calForm.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      calErr.replaceChildren();
      const on = calSwitch.dataset.enabled !== 'true';
      try {
        const st = await busy(calSwitch, () => ctx.api('PUT', '/coverage/calibration', { json: { enabled: on }, signal: ac.signal }));
        showCalibration(st);
        if (!calTerminal(st.fit_job)) calTimer = setTimeout(loadCalibration, 1000);
      } catch (err) {
        showError(ctx, calErr, err, calForm);
        loadCalibration();
      }
    });
    calRefit.addEventListener('click', async () => {
      calErr.replaceChildren();
      try {
        await busy(calRefit, () => ctx.api('POST', '/coverage/calibration/fit', { json: {}, signal: ac.signal }));
        loadCalibration();
      } catch (err) {
        showError(ctx, calErr, err, calForm);
      }
    });

    loadStats();
    loadModels();
    loadCalibration();
    // The tab's last report comes back with the screen.
    if (ctx.memo.residualJob) {
      ctx.api('GET', `/jobs/${encodeURIComponent(ctx.memo.residualJob)}`, { signal: ac.signal }).then(followReport).catch(() => {});
    }
    return () => { ac.abort(); clearTimeout(resTimer); clearTimeout(calTimer); if (resMap) resMap.remove(); };
  },
};
