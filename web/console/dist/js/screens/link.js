// link.js: the Link screen. Pick the receiver (search a municipality with
// GET /places, or click the map), set height, frequency and radius, and
// POST /analyze_link with include: ["profile"]. The best tower and the
// alternatives are drawn on the map and listed; the path profile chart
// (drawn here in SVG from the answer's profile), the link budget, the
// engine comparison (POST /coverage/engines/compare) and, when the
// appliance's AI routes answer for this key (GET /ai/models), the
// grounded explanation (POST /ai/chat) follow.
//
// Engine raytrace (Enterprise and Ultra: offered to those tiers only)
// traces the towers near the receiver over one of the tenant's building
// layers (GET /buildings/layers): the API answers 202 with a
// raytrace_link job, which the screen follows to its result (rtjob.js);
// the traced links are drawn on the map. The tab keeps the job, so a
// language switch or a return shows it again.

import { createMap, fitPoints, RIO } from '../map.js';
import { profileChart } from '../chart.js';
import { warningText } from '../messages.js';
import { parseCoords } from '../geoparse.js';
import { raytraceJobView } from '../rtjob.js';

const STRINGS = {
  'pt-BR': {
    title: 'Enlace',
    mapLabel: 'Mapa: clique para posicionar o receptor',
    receiver: 'Receptor',
    place: 'Buscar local, coordenadas ou torre',
    placeHint: 'Município (Niterói rj), coordenadas (-22.95, -43.2 ou 22°57\'S 43°12\'W), id ou número de estação de torre, ou uma torre própria pelo nome da operadora.',
    coordsFound: 'Coordenadas {lat}, {lon}',
    towerHit: 'Torre {id} · {operator}{where}',
    search: 'Buscar',
    noPlace: 'Nada encontrado.',
    placesFound: '{n} resultados',
    lat: 'Latitude (graus)',
    lon: 'Longitude (graus)',
    height: 'Altura da antena (m)',
    freq: 'Frequência (MHz)',
    radius: 'Raio de busca (km)',
    engine: 'Motor de propagação',
    rtLayer: 'Camada de edificações (traçado de raios)',
    rtReflections: 'Reflexões (máx.)',
    rtScattering: 'Espalhamento difuso das paredes (S, 0 a 1)',
    rtRD: 'Reflexões antes e depois das quinas difratoras',
    rtSR: 'Espalhamento também via uma reflexão nas paredes (leva a potência da rua às ruas transversais)',
    rtClutter: 'Edificações presumidas além da camada',
    rtOptionsNote: 'Padrão: o conjunto validado nos testes de campo de Dortmund (S = 0,4, reflexão–difração e entorno presumido ligados).',
    rtNoLayers: 'O tenant não tem camada de edificações: envie uma pela API (POST /buildings/layers).',
    rtLayerItem: '{name} ({n} edificações)',
    rtNote: 'O traçado de raios roda como um trabalho: as torres a até o raio de busca, dentro da área da camada, são traçadas até o receptor.',
    analyze: 'Analisar enlace',
    analyzing: 'Analisando…',
    clickHint: 'Clique no mapa ou busque um município para posicionar o receptor.',
    best: 'Melhor torre',
    none: 'Nenhuma torre alcançável: {reason}',
    towers: 'Torres avaliadas',
    tower: 'Torre',
    operator: 'Operadora',
    distance: 'Distância',
    azimuth: 'Azimute',
    margin: 'Margem',
    rx: 'Nível recebido',
    loss: 'Perda no percurso',
    engineCol: 'Motor',
    profile: 'Perfil',
    showProfile: 'Ver perfil de {id}',
    profileTitle: 'Perfil do caminho: {id}',
    budget: 'Orçamento do enlace: {id}',
    eirp: 'EIRP',
    pattern: 'Perda de diagrama da antena',
    pathLoss: 'Perda básica de transmissão',
    diffraction: 'da qual difração',
    rxGain: 'Ganho da antena receptora',
    cable: 'Perda de cabo',
    rxPower: 'Potência recebida',
    threshold: 'Limiar do receptor',
    marginRow: 'Margem do enlace',
    losClear: 'Visada direta',
    fresnelOk: '60 % da 1ª zona de Fresnel livre',
    yes: 'sim',
    no: 'não',
    assumed: '(EIRP presumida)',
    warnings: 'Avisos',
    caveats: 'Ressalvas deste resultado',
    caveatMark: 'número com {n} ressalva(s), listadas acima',
    uncertainVs: 'posição incerta em ± {u} num enlace de {d}',
    eirpWas: 'EIRP presumida: {v}',
    provenance: 'Dados: {terrain}',
    compare: 'Comparar motores',
    comparing: 'Comparando…',
    compareTitle: 'Comparação de motores: {id}',
    compareNote: 'Mesmo caminho (torre {id} → receptor) em cada motor; nível recebido calculado com o mesmo orçamento acima.',
    used: 'Respondeu',
    los: 'Visada',
    fresnel: 'Fresnel 60 %',
    fellBack: 'fallback',
    time: 'Tempo',
    error: 'Erro',
    explain: 'Explicar',
    explaining: 'Gerando explicação…',
    explainTitle: 'Explicação automática',
    explainIntro: 'Uma explicação em linguagem simples dos números calculados pelo motor.',
    explainer: 'Escrita por: {kind} ({model})',
    kindTemplate: 'modelo de texto fixo (sem IA generativa)',
    kindModel: 'modelo de linguagem',
    grounding: 'Verificação dos números: {outcome}',
    unsupported: 'Números sem respaldo: {list}',
    synthetic: 'torre sintética (dado de exemplo)',
    source: 'Fonte',
    item: 'Termo',
    value: 'Valor',
  },
  en: {
    title: 'Link',
    mapLabel: 'Map: click to place the receiver',
    receiver: 'Receiver',
    place: 'Search a place, coordinates or a tower',
    placeHint: 'Municipality (Niterói rj), coordinates (-22.95, -43.2 or 22°57\'S 43°12\'W), a tower id or station number, or an own tower by operator name.',
    coordsFound: 'Coordinates {lat}, {lon}',
    towerHit: 'Tower {id} · {operator}{where}',
    search: 'Search',
    noPlace: 'Nothing found.',
    placesFound: '{n} results',
    lat: 'Latitude (degrees)',
    lon: 'Longitude (degrees)',
    height: 'Antenna height (m)',
    freq: 'Frequency (MHz)',
    radius: 'Search radius (km)',
    engine: 'Propagation engine',
    rtLayer: 'Building layer (ray tracing)',
    rtReflections: 'Reflections (max.)',
    rtScattering: 'Diffuse scattering of the walls (S, 0 to 1)',
    rtRD: 'Reflections before and after the diffracting corners',
    rtSR: 'Scattering also via one wall reflection (carries a street\'s power into its side streets)',
    rtClutter: 'Assumed buildings beyond the layer',
    rtOptionsNote: 'Default: the set validated against the Dortmund drive tests (S = 0.4, reflection–diffraction and assumed surroundings on).',
    rtNoLayers: 'The tenant has no building layer: upload one through the API (POST /buildings/layers).',
    rtLayerItem: '{name} ({n} buildings)',
    rtNote: 'Ray tracing runs as a job: the towers within the search radius and the layer\'s area are traced to the receiver.',
    analyze: 'Analyse link',
    analyzing: 'Analysing…',
    clickHint: 'Click the map or search a municipality to place the receiver.',
    best: 'Best tower',
    none: 'No tower can be reached: {reason}',
    towers: 'Towers evaluated',
    tower: 'Tower',
    operator: 'Operator',
    distance: 'Distance',
    azimuth: 'Azimuth',
    margin: 'Margin',
    rx: 'Received level',
    loss: 'Path loss',
    engineCol: 'Engine',
    profile: 'Profile',
    showProfile: 'Show the profile of {id}',
    profileTitle: 'Path profile: {id}',
    budget: 'Link budget: {id}',
    eirp: 'EIRP',
    pattern: 'Antenna pattern loss',
    pathLoss: 'Basic transmission loss',
    diffraction: 'of which diffraction',
    rxGain: 'Receiver antenna gain',
    cable: 'Cable loss',
    rxPower: 'Received power',
    threshold: 'Receiver threshold',
    marginRow: 'Link margin',
    losClear: 'Line of sight',
    fresnelOk: '60 % of the 1st Fresnel zone clear',
    yes: 'yes',
    no: 'no',
    assumed: '(assumed EIRP)',
    warnings: 'Warnings',
    caveats: 'Caveats of this result',
    caveatMark: 'a figure with {n} caveat(s), listed above',
    uncertainVs: 'position uncertain by ± {u} on a {d} link',
    eirpWas: 'assumed EIRP: {v}',
    provenance: 'Data: {terrain}',
    compare: 'Compare engines',
    comparing: 'Comparing…',
    compareTitle: 'Engine comparison: {id}',
    compareNote: 'The same path (tower {id} → receiver) through each engine; received level from the same budget as above.',
    used: 'Answered',
    los: 'LOS',
    fresnel: 'Fresnel 60 %',
    fellBack: 'fell back',
    time: 'Time',
    error: 'Error',
    explain: 'Explain',
    explaining: 'Writing the explanation…',
    explainTitle: 'Automatic explanation',
    explainIntro: "A plain-language explanation of the engine's numbers.",
    explainer: 'Written by: {kind} ({model})',
    kindTemplate: 'fixed text template (no generative AI)',
    kindModel: 'language model',
    grounding: 'Number check: {outcome}',
    unsupported: 'Unsupported numbers: {list}',
    synthetic: 'synthetic tower (sample data)',
    source: 'Source',
    item: 'Term',
    value: 'Value',
  },
};

const ENGINES = ['fspl', 'p1812', 'itm', 'p1411', 'p1812-p1411-hybrid', 'auto'];
// RAYTRACE_TIERS may ask for engine raytrace.
const RAYTRACE_TIERS = new Set(['Enterprise', 'Ultra']);

// marginColour: green at 10 dB and more, amber from 0, red below.
export function marginColour(m) {
  if (m >= 10) return '#176b2c';
  if (m >= 0) return '#b26a00';
  return '#b3261e';
}

export default {
  id: 'link',
  nav: true,
  titleKey: 'title',
  strings: STRINGS,
  render(root, ctx) {
    const { el, field, table, errorBox } = ctx.ui;
    const { fmt, t } = ctx;
    const num = (attrs) => el('input', { type: 'number', inputmode: 'decimal', step: 'any', required: true, ...attrs });
    const lat = num({ id: 'link-lat', 'data-field': 'receiver.lat', min: '-90', max: '90', value: '-22.95' });
    const lon = num({ id: 'link-lon', 'data-field': 'receiver.lon', min: '-180', max: '180', value: '-43.2' });
    const height = num({ id: 'link-height', 'data-field': 'receiver.height_m', min: '0.1', max: '500', value: '10' });
    const freq = num({ id: 'link-freq', 'data-field': 'frequency_mhz', min: '30', max: '100000', value: '1800' });
    const radius = num({ id: 'link-radius', 'data-field': 'max_distance_km', min: '0.1', max: '200', value: '20' });
    const rtAllowed = !!ctx.session && (RAYTRACE_TIERS.has(ctx.session.tier) || ctx.session.admin);
    const engine = el('select', { id: 'link-engine', 'data-field': 'engine' },
      [...ENGINES, ...(rtAllowed ? ['raytrace'] : [])].map((e) => el('option', { value: e, text: e })));
    const rtLayer = el('select', { id: 'link-rt-layer', 'data-field': 'raytrace.layer_id' });
    const rtReflections = el('select', { id: 'link-rt-reflections', 'data-field': 'raytrace.max_reflections' },
      [0, 1, 2, 3].map((n) => el('option', { value: String(n), text: String(n), selected: n === 2 })));
    const rtScattering = el('input', { type: 'number', inputmode: 'decimal', step: '0.05', min: '0', max: '1', value: '0.4',
      id: 'link-rt-scattering', 'data-field': 'raytrace.diffuse_scattering' });
    const rtRD = el('input', { type: 'checkbox', id: 'link-rt-rd', 'data-field': 'raytrace.reflection_diffraction', checked: true });
    const rtClutter = el('input', { type: 'checkbox', id: 'link-rt-clutter', 'data-field': 'raytrace.clutter_beyond_extent', checked: true });
    const rtSR = el('input', { type: 'checkbox', id: 'link-rt-sr', 'data-field': 'raytrace.scattering_reflections', checked: true });
    const rtLayerNote = el('p', { class: 'note', id: 'link-rt-note', text: t('rtNote') });
    const rtBox = el('div', { id: 'link-rt-options', hidden: true },
      el('div', { class: 'row' }, field(t('rtLayer'), rtLayer), field(t('rtReflections'), rtReflections)),
      el('div', { class: 'row' }, field(t('rtScattering'), rtScattering, t('rtOptionsNote'))),
      el('div', { class: 'row' }, el('label', { for: 'link-rt-rd' }, rtRD, ` ${t('rtRD')}`), el('label', { for: 'link-rt-clutter' }, rtClutter, ` ${t('rtClutter')}`)),
      el('div', { class: 'row' }, el('label', { for: 'link-rt-sr' }, rtSR, ` ${t('rtSR')}`)),
      rtLayerNote);
    const placeQ = el('input', { type: 'search', id: 'link-place', autocomplete: 'off' });
    const placeBtn = el('button', { type: 'button', id: 'link-place-search', text: t('search') });
    const placeList = el('ul', { class: 'places', id: 'link-places', 'aria-live': 'polite' });
    const submit = el('button', { type: 'submit', class: 'primary', id: 'link-analyze', text: t('analyze') });
    const formErr = el('div', { 'aria-live': 'assertive' });
    const form = el('form', { class: 'card', id: 'link-form', novalidate: true },
      el('h2', { text: t('receiver') }),
      el('div', { class: 'row' }, field(t('place'), placeQ, t('placeHint')), el('div', { class: 'field' }, placeBtn)),
      placeList,
      el('div', { class: 'row' }, field(t('lat'), lat), field(t('lon'), lon)),
      el('div', { class: 'row' }, field(t('height'), height), field(t('freq'), freq)),
      el('div', { class: 'row' }, field(t('radius'), radius), field(t('engine'), engine)),
      rtBox,
      el('div', { class: 'actions' }, submit),
      formErr);
    const mapBox = el('div', { id: 'link-map', role: 'region', 'aria-label': t('mapLabel'), tabindex: '0' });
    const results = el('div', { class: 'results', id: 'link-results', 'aria-live': 'polite' });
    root.append(el('div', { class: 'split' },
      el('div', { class: 'panel' }, form, el('p', { class: 'note', text: t('clickHint') })),
      el('div', { class: 'panel' }, mapBox)), results);

    // The building layers, read the first time engine raytrace is chosen.
    let layersRead = false;
    const syncEngine = () => {
      rtBox.hidden = engine.value !== 'raytrace';
      if (rtBox.hidden || layersRead) return;
      layersRead = true;
      ctx.api('GET', '/buildings/layers', { signal: ctx.signal }).then((r) => {
        const layers = r.layers || [];
        const want = rtLayer.value || ctx.memo.rtLayer;
        rtLayer.replaceChildren(...layers.map((l) => el('option', { value: l.id, text: t('rtLayerItem', { name: l.name || l.id, n: fmt.int(l.buildings) }), selected: l.id === want })));
        if (!layers.length) rtLayerNote.textContent = t('rtNoLayers');
      }).catch((err) => { if (err.name !== 'AbortError') formErr.append(errorBox(err, t)); });
    };
    engine.addEventListener('change', syncEngine);
    rtLayer.addEventListener('change', () => { ctx.memo.rtLayer = rtLayer.value; });

    const map = createMap(mapBox, ctx, RIO);
    const L = window.L;
    const drawn = L.layerGroup().addTo(map);
    let rxMarker = null;
    // placeReceiver is a no-op once the screen is left: removing a focused
    // field whose typed value was not committed fires its change event
    // while the screen is taken down, after the map was removed.
    const placeReceiver = (la, lo) => {
      if (ctx.signal.aborted) return;
      if (rxMarker) rxMarker.remove();
      rxMarker = L.circleMarker([la, lo], { radius: 8, color: '#000', weight: 2, fillColor: '#ffd400', fillOpacity: 1 })
        .bindTooltip(t('receiver')).addTo(map);
    };
    placeReceiver(Number(lat.value), Number(lon.value));
    map.on('click', (e) => {
      lat.value = e.latlng.lat.toFixed(6);
      lon.value = e.latlng.lng.toFixed(6);
      placeReceiver(e.latlng.lat, e.latlng.lng);
    });
    for (const inp of [lat, lon]) {
      inp.addEventListener('change', () => {
        const la = Number(lat.value); const lo = Number(lon.value);
        if (Number.isFinite(la) && Number.isFinite(lo)) placeReceiver(la, lo);
      });
    }

    // Search: coordinates (parsed here, geoparse.js), then in parallel the
    // municipalities (GET /places), a tower by id (GET /towers/{id}) and
    // the towers' full text (GET /towers?q=: station numbers, operators,
    // addresses, and the tenant's own registered towers).
    const pick = (la, lo, zoom) => {
      lat.value = la.toFixed(6); lon.value = lo.toFixed(6);
      lat.dispatchEvent(new Event('change', { bubbles: true }));
      lon.dispatchEvent(new Event('change', { bubbles: true }));
      placeReceiver(la, lo);
      map.setView([la, lo], zoom);
      placeList.replaceChildren();
      lat.focus();
    };
    const hit = (text, la, lo, zoom, kind) => el('li', { dataset: { kind } }, el('button', { type: 'button', class: 'linklike', text, onclick: () => pick(la, lo, zoom) }));
    const searchPlaces = async () => {
      const q = placeQ.value.trim();
      placeList.replaceChildren();
      if (!q) return;
      const c = parseCoords(q);
      if (c) {
        placeList.append(hit(t('coordsFound', { lat: fmt.num(c.lat, 5), lon: fmt.num(c.lon, 5) }), c.lat, c.lon, 14, 'coords'));
        placeList.setAttribute('aria-label', t('placesFound', { n: 1 }));
        return;
      }
      const soft = (p) => p.catch((err) => { if (err.name === 'AbortError') throw err; return null; });
      try {
        const [places, byId, towers] = await Promise.all([
          soft(ctx.api('GET', '/places', { query: { q, limit: 8 }, signal: ctx.signal })),
          /^[a-z]+:\S+$/i.test(q) ? soft(ctx.api('GET', `/towers/${encodeURIComponent(q)}`, { signal: ctx.signal })) : Promise.resolve(null),
          soft(ctx.api('GET', '/towers', { query: { q, limit: 6 }, signal: ctx.signal })),
        ]);
        const items = [];
        const seen = new Set();
        const towerItem = (tw) => {
          if (seen.has(tw.id)) return;
          seen.add(tw.id);
          const where = [tw.station_number ? `#${tw.station_number}` : '', tw.municipality ? `${tw.municipality}${tw.uf ? ' (' + tw.uf + ')' : ''}` : ''].filter(Boolean).join(' · ');
          items.push(hit(t('towerHit', { id: tw.id, operator: tw.operator, where: where ? ' · ' + where : '' }), tw.lat, tw.lon, 15, tw.source === 'user' ? 'own-tower' : 'tower'));
        };
        if (byId) towerItem(byId);
        for (const p of (places && places.places) || []) items.push(hit(`${p.name} (${p.uf})`, p.lat, p.lon, 11, 'place'));
        for (const tw of (towers && towers.towers) || []) towerItem(tw);
        if (!items.length) { placeList.append(el('li', { text: t('noPlace') })); return; }
        placeList.setAttribute('aria-label', t('placesFound', { n: items.length }));
        placeList.append(...items);
      } catch (err) {
        if (err.name !== 'AbortError') placeList.append(el('li', null, errorBox(err, t)));
      }
    };
    placeBtn.addEventListener('click', searchPlaces);
    placeQ.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); searchPlaces(); } });

    let aiOn = null; // Promise<boolean>: do the AI routes answer this key?
    const aiEnabled = () => {
      if (aiOn === null) {
        aiOn = ctx.session && ctx.session.tier === 'Free' ? Promise.resolve(false)
          : ctx.api('GET', '/ai/models', { signal: ctx.signal }).then((r) => Array.isArray(r.models) && r.models.length > 0).catch(() => false);
      }
      return aiOn;
    };

    let refocusEnd = null; // the chart handle that asked for this run
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      formErr.replaceChildren();
      const body = {
        receiver: { lat: Number(lat.value), lon: Number(lon.value), height_m: Number(height.value) },
        frequency_mhz: Number(freq.value),
        max_distance_km: Number(radius.value),
        engine: engine.value,
        include: ['profile'],
      };
      if (engine.value === 'raytrace') {
        delete body.include;
        // an empty S takes the service's default; reflection–diffraction
        // needs a reflection, so with none it is left to the service
        body.raytrace = { layer_id: rtLayer.value, max_reflections: Number(rtReflections.value), clutter_beyond_extent: rtClutter.checked };
        if (rtScattering.value.trim() !== '') body.raytrace.diffuse_scattering = Number(rtScattering.value);
        if (Number(rtReflections.value) >= 1 || !rtRD.checked) body.raytrace.reflection_diffraction = rtRD.checked;
        // the scattering's reflections need scattering: with S = 0 they are
        // left to the service
        if (rtScattering.value.trim() === '' || Number(rtScattering.value) > 0 || !rtSR.checked) body.raytrace.scattering_reflections = rtSR.checked;
      }
      submit.disabled = true;
      submit.textContent = t('analyzing');
      results.replaceChildren();
      drawn.clearLayers();
      ctx.memo.rtJob = null;
      if (rtRun) { rtRun.abort(); rtRun = null; }
      try {
        const res = await ctx.api('POST', '/analyze_link', { json: body, signal: ctx.signal });
        if (res && res.kind === 'raytrace_link') {
          // 202: the job, followed here to its result.
          ctx.memo.result = null;
          ctx.memo.rtJob = res.id;
          submit.disabled = false;
          submit.textContent = t('analyze');
          showRaytraceJob(res, true);
          return;
        }
        ctx.memo.result = { res, body };
        showResult(res, body);
        const knob = refocusEnd ? document.querySelector(`#profile-chart .height-handle[data-end="${refocusEnd}"]`) : null;
        if (knob) {
          knob.focus({ preventScroll: true });
          knob.scrollIntoView({ block: 'center' });
        } else ctx.showResult(document.getElementById('link-result-title') || document.getElementById('link-none'));
      } catch (err) {
        if (err.name !== 'AbortError') formErr.append(errorBox(err, t, form));
      } finally {
        refocusEnd = null;
        submit.disabled = false;
        submit.textContent = t('analyze');
      }
    });

    function showResult(res, body) {
      const all = res.best_tower ? [res.best_tower, ...res.alternatives] : [];
      placeReceiver(res.receiver.lat, res.receiver.lon);
      if (!res.best_tower) {
        results.append(el('div', { class: 'card' }, el('p', { id: 'link-none', text: t('none', { reason: res.reason || '' }) })));
        return;
      }
      // Map: a line from the receiver to each tower, the best one thicker.
      all.forEach((r, i) => {
        const c = marginColour(r.link_margin_db);
        L.polyline([[res.receiver.lat, res.receiver.lon], [r.tower_lat, r.tower_lon]], { color: c, weight: i === 0 ? 5 : 2, opacity: i === 0 ? 0.95 : 0.6, dashArray: i === 0 ? null : '6 6' }).addTo(drawn);
        L.circleMarker([r.tower_lat, r.tower_lon], { radius: i === 0 ? 9 : 6, color: '#1b1f24', weight: 1.5, fillColor: c, fillOpacity: 0.95 })
          .bindTooltip(`${r.tower_id} · ${r.operator} · ${fmt.unit(r.link_margin_db, 'dB', 1)}`).addTo(drawn);
      });
      fitPoints(map, [[res.receiver.lat, res.receiver.lon], ...all.map((r) => [r.tower_lat, r.tower_lon])]);

      const b = res.best_tower;
      // Caveats first: what qualifies the headline number, in the user's
      // language, above it and tied to it (best_tower_caveats, the best
      // tower's own warnings, then the answer's), each code once.
      const seen = new Set();
      const caveatList = [...(res.best_tower_caveats || []), ...(b.warnings || []), ...(res.warnings || [])].filter((w) => !seen.has(w.code) && seen.add(w.code));
      const caveatText = (w) => {
        const base = warningText(w, ctx.lang);
        // The figures only when they are the best tower's (a warning of
        // the answer may be about an alternative).
        if (w.code === 'position_uncertainty' && b.position_uncertainty_m > 100 * b.distance_km) return `${base} (${t('uncertainVs', { u: fmt.unit(b.position_uncertainty_m / 1000, 'km', 2), d: fmt.unit(b.distance_km, 'km', 2) })})`;
        if (w.code === 'eirp_assumed' && b.eirp_assumed) return `${base} (${t('eirpWas', { v: fmt.unit(b.eirp_dbm, 'dBm', 1) })})`;
        return base;
      };
      const caveats = caveatList.length
        ? el('div', { class: 'caveats', id: 'link-caveats' }, el('h3', { text: t('caveats') }),
          el('ul', null, caveatList.map((w) => el('li', { dataset: { code: w.code }, title: w.message || '', text: caveatText(w) }))))
        : null;
      const marginDd = el('dd', { id: 'link-best-margin', text: fmt.unit(b.link_margin_db, 'dB', 1) });
      const marginNote = caveats ? el('dd', { class: 'caveat-mark', id: 'link-margin-caveat', text: `⚠ ${t('caveatMark', { n: caveatList.length })}` }) : null;
      if (caveats) marginDd.setAttribute('aria-describedby', 'link-caveats');
      const summary = el('div', { class: 'card', id: 'link-summary' },
        el('h2', { id: 'link-result-title', tabindex: '-1', text: t('best') }),
        caveats,
        el('dl', { class: 'kv' },
          el('dt', { text: t('tower') }), el('dd', { id: 'link-best-id', text: b.tower_id }),
          el('dt', { text: t('operator') }), el('dd', { id: 'link-best-operator', text: b.operator }),
          el('dt', { text: t('distance') }), el('dd', { text: fmt.unit(b.distance_km, 'km', 2) }),
          el('dt', { text: t('azimuth') }), el('dd', { text: fmt.unit(b.azimuth_deg, '°', 1) }),
          el('dt', { text: t('margin') }), marginDd, marginNote,
          el('dt', { text: t('rx') }), el('dd', { text: fmt.unit(b.rx_power_dbm, 'dBm', 1) }),
          el('dt', { text: t('engineCol') }), el('dd', { text: `${b.engine}${res.engine_version ? ' ' + res.engine_version : ''}` })),
        b.synthetic ? el('p', { class: 'note', text: t('synthetic') }) : null,
        el('p', { class: 'note', text: t('provenance', { terrain: res.data_provenance.terrain }) }));

      const rows = all.map((r, i) => ({ ...r, _class: i === 0 ? 'best' : null }));
      const profileHost = el('div', { id: 'link-profile-host' });
      const budgetHost = el('div', { id: 'link-budget-host' });
      const showTower = (r) => {
        profileHost.replaceChildren(profileSection(r));
        budgetHost.replaceChildren(budgetSection(r, res));
      };
      const list = table([
        { key: 'tower_id', label: t('tower') },
        { key: 'operator', label: t('operator') },
        { key: 'distance_km', label: t('distance'), num: true, format: (v) => fmt.unit(v, 'km', 2) },
        { key: 'link_margin_db', label: t('margin'), num: true, format: (v) => fmt.unit(v, 'dB', 1) },
        { key: 'rx_power_dbm', label: t('rx'), num: true, format: (v) => fmt.unit(v, 'dBm', 1) },
        { key: 'path_loss_db', label: t('loss'), num: true, format: (v) => fmt.unit(v, 'dB', 1) },
        { key: 'engine', label: t('engineCol') },
        { key: 'source', label: t('source'), format: (v, r) => (r.synthetic ? `${v} *` : v) },
        { key: '_p', label: t('profile'), format: (v, r) => el('button', { type: 'button', class: 'linklike', text: t('profile'), 'aria-label': t('showProfile', { id: r.tower_id }), onclick: () => { showTower(r); profileHost.querySelector('details').open = true; } }) },
      ], rows, { caption: t('towers') });
      list.id = 'link-towers';

      const compareHost = el('div', { id: 'link-compare-host' });
      const compareBtn = el('button', { type: 'button', id: 'link-compare', text: t('compare') });
      compareBtn.addEventListener('click', () => runCompare(b, res, body, compareBtn, compareHost));
      const explainHost = el('div', { id: 'link-explain-host' });

      const warnings = null; // shown first, with the headline (caveats)

      ctx.ui.put(results, summary, el('div', { class: 'card' }, list), profileHost, budgetHost,
        el('div', { class: 'card' }, el('div', { class: 'actions' }, compareBtn), compareHost), explainHost, warnings);
      showTower(b);
      aiEnabled().then((on) => { if (on && results.contains(explainHost)) explainHost.append(explainSection(body)); });
    }

    function profileSection(r) {
      const det = el('details', { class: 'card', id: 'link-profile', open: true },
        el('summary', { id: 'link-profile-summary', text: t('profileTitle', { id: r.tower_id }) }));
      // The receiver's antenna height is draggable on the chart: a new
      // height re-runs the analysis, the focus back on the handle.
      const ends = { b: { onChange: (h) => {
        height.value = String(h);
        height.dispatchEvent(new Event('change', { bubbles: true }));
        refocusEnd = 'b';
        form.requestSubmit();
      } } };
      if (r.path) det.append(profileChart(r.path, ctx, { tower: r.tower_id, ends }));
      return det;
    }

    function budgetSection(r, res) {
      const lb = res.link_budget;
      const yn = (v) => (v ? t('yes') : t('no'));
      const rows = [
        [t('eirp'), `${fmt.unit(r.eirp_dbm, 'dBm', 1)}${r.eirp_assumed ? ' ' + t('assumed') : ''}`],
        [t('pattern'), fmt.unit(-r.antenna_pattern_loss_db, 'dB', 1)],
        [t('pathLoss'), fmt.unit(-r.path_loss_db, 'dB', 1)],
        [t('diffraction'), fmt.unit(r.diffraction_db, 'dB', 1)],
        [t('rxGain'), fmt.unit(lb.rx_gain_dbi, 'dBi', 1)],
        [t('cable'), fmt.unit(-lb.cable_loss_db, 'dB', 1)],
        [t('rxPower'), fmt.unit(r.rx_power_dbm, 'dBm', 1)],
        [t('threshold'), fmt.unit(lb.rx_threshold_dbm, 'dBm', 1)],
        [t('marginRow'), fmt.unit(r.link_margin_db, 'dB', 1)],
        [t('losClear'), yn(r.los_clear)],
        [t('fresnelOk'), yn(r.fresnel_ok)],
      ];
      return el('div', { class: 'card', id: 'link-budget' }, el('h2', { text: t('budget', { id: r.tower_id }) }),
        table([{ key: 'k', label: t('item') }, { key: 'v', label: t('value'), num: true }], rows.map(([k, v]) => ({ k, v })), { label: t('budget', { id: r.tower_id }) }));
    }

    async function runCompare(b, res, body, btn, host) {
      host.replaceChildren();
      btn.disabled = true;
      btn.textContent = t('comparing');
      const lb = res.link_budget;
      try {
        const cmp = await ctx.api('POST', '/coverage/engines/compare', {
          json: { tx: { lat: b.tower_lat, lon: b.tower_lon, height_m: b.tower_height_m }, rx: { lat: res.receiver.lat, lon: res.receiver.lon, height_m: res.receiver.height_m }, frequency_mhz: body.frequency_mhz },
          signal: ctx.signal,
        });
        const rx = (loss) => b.eirp_dbm - b.antenna_pattern_loss_db - loss + lb.rx_gain_dbi - lb.cable_loss_db;
        host.append(el('h2', { text: t('compareTitle', { id: b.tower_id }) }), el('p', { class: 'note', text: t('compareNote', { id: b.tower_id }) }),
          table([
            { key: 'engine', label: t('engineCol') },
            { key: 'used_engine', label: t('used'), format: (v, r) => (r.fell_back ? `${v} (${t('fellBack')})` : v || '—') },
            { key: 'path_loss_db', label: t('loss'), num: true, format: (v, r) => (r.error ? '—' : fmt.unit(v, 'dB', 1)) },
            { key: 'diffraction_db', label: t('diffraction'), num: true, format: (v, r) => (r.error ? '—' : fmt.unit(v, 'dB', 1)) },
            { key: '_rx', label: t('rx'), num: true, format: (v, r) => (r.error ? '—' : fmt.unit(rx(r.path_loss_db), 'dBm', 1)) },
            { key: '_m', label: t('margin'), num: true, format: (v, r) => (r.error ? '—' : fmt.unit(rx(r.path_loss_db) - lb.rx_threshold_dbm, 'dB', 1)) },
            { key: 'los_clear', label: t('los'), format: (v) => (v ? t('yes') : t('no')) },
            { key: 'fresnel_ok', label: t('fresnel'), format: (v) => (v ? t('yes') : t('no')) },
            { key: 'elapsed_us', label: t('time'), num: true, format: (v) => fmt.unit(v / 1000, 'ms', 1) },
            { key: 'error', label: t('error'), format: (v) => v || '' },
          ], cmp.rows, { caption: t('compareTitle', { id: b.tower_id }) }));
        host.querySelector('table').id = 'link-compare-table';
      } catch (err) {
        if (err.name !== 'AbortError') host.append(errorBox(err, t));
      } finally {
        btn.disabled = false;
        btn.textContent = t('compare');
      }
    }

    function explainSection(body) {
      const out = el('div', { 'aria-live': 'polite' });
      const btn = el('button', { type: 'button', id: 'link-explain', text: t('explain') });
      btn.addEventListener('click', async () => {
        out.replaceChildren();
        btn.disabled = true;
        btn.textContent = t('explaining');
        try {
          const r = await ctx.api('POST', '/ai/chat', { json: { analysis: { ...body, include: undefined }, language: ctx.lang }, signal: ctx.signal });
          ctx.ui.put(out,
            el('p', { class: 'explain', id: 'link-explain-text', text: r.answer }),
            el('p', { class: 'note', text: t('explainer', { kind: r.explainer.kind === 'template' ? t('kindTemplate') : t('kindModel'), model: r.explainer.model }) }),
            el('p', { class: 'note', text: t('grounding', { outcome: r.grounding.outcome }) }),
            r.grounding.unsupported_numbers && r.grounding.unsupported_numbers.length ? el('p', { class: 'note', text: t('unsupported', { list: r.grounding.unsupported_numbers.join(', ') }) }) : null);
        } catch (err) {
          if (err.name !== 'AbortError') out.append(errorBox(err, t));
        } finally {
          btn.disabled = false;
          btn.textContent = t('explain');
        }
      });
      return el('div', { class: 'card', id: 'link-explain-panel' }, el('h2', { text: t('explainTitle') }), el('p', { class: 'note', text: t('explainIntro') }), btn, out);
    }

    // showRaytraceJob follows a raytrace_link job in the results and draws
    // its traced links on the map (each tower to the receiver, the best
    // one thicker); focus: the job's heading when it was just submitted.
    let rtRun = null; // the job view's AbortController
    async function showRaytraceJob(job, focus) {
      const host = el('div', { id: 'link-rt-host' });
      results.replaceChildren(host);
      if (rtRun) rtRun.abort();
      rtRun = new AbortController();
      const view = raytraceJobView(ctx, host, job, {
        signal: rtRun.signal,
        onResult: (r) => {
          if (ctx.signal.aborted) return;
          drawn.clearLayers();
          const pts = [];
          (r.links || []).forEach((l, i) => {
            const best = i === r.best;
            L.polyline([[l.tx.lat, l.tx.lon], [l.rx.lat, l.rx.lon]], { color: l.reachable ? marginColour(l.link_margin_db) : '#5f6368', weight: best ? 5 : 2, dashArray: best ? null : '6 6', className: 'link-rt-line' }).addTo(drawn);
            L.circleMarker([l.tx.lat, l.tx.lon], { radius: best ? 9 : 6, color: '#1b1f24', weight: 1.5, fillColor: '#0b5394', fillOpacity: 0.95 })
              .bindTooltip(`${l.tower_id || ''}`).addTo(drawn);
            pts.push([l.tx.lat, l.tx.lon], [l.rx.lat, l.rx.lon]);
          });
          if (r.links && r.links.length) placeReceiver(r.links[0].rx.lat, r.links[0].rx.lon);
          if (pts.length) fitPoints(map, pts, 17);
        },
      });
      if (focus) ctx.showResult(document.getElementById('link-rt-title'));
      try { await view; } catch (err) { if (err.name !== 'AbortError') results.append(errorBox(err, t)); }
    }

    // The last result of this tab comes back with the screen (after a
    // language switch, or leaving and returning), drawn in the new language.
    syncEngine();
    if (ctx.memo.result) showResult(ctx.memo.result.res, ctx.memo.result.body);
    else if (ctx.memo.rtJob) {
      ctx.api('GET', `/jobs/${encodeURIComponent(ctx.memo.rtJob)}`, { signal: ctx.signal })
        .then((j) => showRaytraceJob(j, false)).catch((err) => { if (err.name !== 'AbortError') results.append(errorBox(err, t)); });
    }

    return () => map.remove();
  },
};
