// chart.js: the path profile chart, drawn in SVG from a PathCheck of the
// API (POST /analyze_link with include: ["profile"], POST /analyze). The
// API gives every point in one frame: effective_ground_m is the ground
// plus the earth bulge d1·d2/(2·k·a) with k = 4/3 (effective earth radius
// k·6 371 km = 8 494 667 m), so that the line of sight between the antenna
// tips (los_m) is straight. Drawn: the terrain (with that curvature), the
// line of sight, the first Fresnel zone (los ± F1 radius) and its 60 %
// line (los − 0.6·F1, the design clearance), the dominant obstacle, and
// axes with units.
//
// Draggable heights: with opts.ends.a / opts.ends.b ({ label, onChange })
// the antenna tip of that end (a: distance 0, b: the far end) is a handle
// (role slider, focusable): dragging it up or down, or the arrow keys
// (±1 m; Page Up/Down ±10 m; Home/End the bounds), changes the antenna
// height above ground, drawn at once with the new line of sight; the new
// height is handed to onChange(height_m) when the drag ends, or 0.7 s
// after the last key (Enter at once). The height of an end is its tip
// minus its ground in the profile (los_m − effective_ground_m; the bulge
// is zero at both ends).

const W = 800;
const H = 320;
const PAD = { l: 64, r: 16, t: 16, b: 48 };

const STRINGS = {
  'pt-BR': {
    chartTitle: 'Perfil do caminho da torre {tower} ao receptor',
    chartDesc: 'Terreno com curvatura da Terra (k = {k}), linha de visada, primeira zona de Fresnel e linha de 60 %. Obstáculo dominante a {d} da torre, folga {c} da zona de Fresnel.',
    xAxis: 'Distância da torre (km)',
    yAxis: 'Altura (m, acima do nível do mar)',
    terrain: 'Terreno (com curvatura)',
    los: 'Linha de visada',
    fresnel: '1ª zona de Fresnel',
    fresnel60: '60 % da 1ª zona',
    obstacle: 'Obstáculo dominante',
    tower: 'Torre',
    receiver: 'Receptor',
    curvature: 'Curvatura efetiva: k = {k}, raio efetivo da Terra {r}.',
    obstacleNote: 'Obstáculo dominante: {d} da torre, terreno {g}, folga {c} ({f} da 1ª zona de Fresnel).',
    decimated: 'Perfil com {n} de {total} amostras (as piores de cada trecho mantidas).',
    handle: 'Altura da antena: {end} (arraste ou use as setas; Enter recalcula)',
    handleValue: '{h} acima do solo',
    dragHint: 'Arraste a ponta de uma antena, ou foque-a e use as setas, para mudar a altura e recalcular.',
  },
  en: {
    chartTitle: 'Path profile from tower {tower} to the receiver',
    chartDesc: 'Terrain with earth curvature (k = {k}), line of sight, first Fresnel zone and its 60 % line. Dominant obstacle {d} from the tower, clearance {c} of the Fresnel zone.',
    xAxis: 'Distance from the tower (km)',
    yAxis: 'Height (m above sea level)',
    terrain: 'Terrain (with curvature)',
    los: 'Line of sight',
    fresnel: '1st Fresnel zone',
    fresnel60: '60 % of the 1st zone',
    obstacle: 'Dominant obstacle',
    tower: 'Tower',
    receiver: 'Receiver',
    curvature: 'Effective curvature: k = {k}, effective earth radius {r}.',
    obstacleNote: 'Dominant obstacle: {d} from the tower, ground {g}, clearance {c} ({f} of the 1st Fresnel zone).',
    decimated: 'Profile of {n} out of {total} samples (the worst of each stretch kept).',
    handle: 'Antenna height: {end} (drag or use the arrow keys; Enter recomputes)',
    handleValue: '{h} above ground',
    dragHint: 'Drag an antenna tip, or focus it and use the arrow keys, to change its height and recompute.',
  },
};

const NS = 'http://www.w3.org/2000/svg';
function s(tag, attrs, text) {
  const n = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) n.setAttribute(k, String(v));
  if (text !== undefined) n.textContent = text;
  return n;
}

// niceStep returns a round tick step (1, 2 or 5 × 10^n) for span/target.
export function niceStep(span, target = 6) {
  if (!(span > 0)) return 1;
  const raw = span / target;
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

// profileChart(path, ctx, {tower}) returns a <figure> with the SVG chart,
// its legend and notes. path is an API PathCheck.
export function profileChart(path, ctx, opts = {}) {
  const lang = STRINGS[ctx.lang] ? ctx.lang : 'pt-BR';
  const tt = (k, v) => STRINGS[lang][k].replace(/\{(\w+)\}/g, (m, x) => (v && v[x] !== undefined ? String(v[x]) : m));
  const { fmt } = ctx;
  const pts = path.profile;
  const dMax = pts[pts.length - 1].distance_m;
  let yMin = Infinity;
  let yMax = -Infinity;
  for (const p of pts) {
    yMin = Math.min(yMin, p.effective_ground_m, p.los_m - p.f1_radius_m);
    yMax = Math.max(yMax, p.effective_ground_m, p.los_m + p.f1_radius_m);
  }
  const yStep = niceStep(yMax - yMin, 5);
  yMin = Math.floor(yMin / yStep) * yStep;
  yMax = Math.ceil(yMax / yStep) * yStep;
  if (yMax === yMin) yMax = yMin + yStep;
  const x = (d) => PAD.l + ((W - PAD.l - PAD.r) * d) / (dMax || 1);
  const y = (h) => H - PAD.b - ((H - PAD.t - PAD.b) * (h - yMin)) / (yMax - yMin);
  const line = (f) => pts.map((p, i) => `${i ? 'L' : 'M'}${x(p.distance_m).toFixed(1)},${y(f(p)).toFixed(1)}`).join(' ');

  const ob = path.dominant_obstacle;
  const titleId = `chart-t-${Math.random().toString(36).slice(2, 8)}`;
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-labelledby': `${titleId} ${titleId}-d`, id: 'profile-chart' });
  svg.append(s('title', { id: titleId }, tt('chartTitle', { tower: opts.tower || '' })));
  svg.append(s('desc', { id: `${titleId}-d` }, tt('chartDesc', {
    k: fmt.num(path.k_factor, 3),
    d: ob ? fmt.unit(ob.distance_from_tower_m / 1000, 'km', 2) : '—',
    c: ob ? fmt.num(ob.clearance_f1_fraction * 100, 0) + ' %' : '—',
  })));

  // Grid and axes.
  const grid = s('g', { class: 'grid-lines' });
  for (let h = yMin; h <= yMax + 1e-9; h += yStep) {
    grid.append(s('line', { class: 'grid', x1: PAD.l, x2: W - PAD.r, y1: y(h), y2: y(h) }));
    grid.append(s('text', { x: PAD.l - 6, y: y(h) + 4, 'text-anchor': 'end' }, fmt.num(h, 0)));
  }
  const xStep = niceStep(dMax / 1000, 8);
  for (let d = 0; d <= dMax / 1000 + 1e-9; d += xStep) {
    grid.append(s('line', { class: 'grid', x1: x(d * 1000), x2: x(d * 1000), y1: PAD.t, y2: H - PAD.b }));
    grid.append(s('text', { x: x(d * 1000), y: H - PAD.b + 16, 'text-anchor': 'middle' }, fmt.num(d, xStep < 1 ? 1 : 0)));
  }
  svg.append(grid);
  svg.append(s('line', { class: 'axis', x1: PAD.l, x2: W - PAD.r, y1: H - PAD.b, y2: H - PAD.b }));
  svg.append(s('line', { class: 'axis', x1: PAD.l, x2: PAD.l, y1: PAD.t, y2: H - PAD.b }));
  svg.append(s('text', { x: (PAD.l + W - PAD.r) / 2, y: H - 8, 'text-anchor': 'middle' }, tt('xAxis')));
  svg.append(s('text', { x: 14, y: (PAD.t + H - PAD.b) / 2, 'text-anchor': 'middle', transform: `rotate(-90 14 ${(PAD.t + H - PAD.b) / 2})` }, tt('yAxis')));

  // Terrain (a filled area down to the axis), Fresnel zone, 60 % line, LOS.
  const ground = `${line((p) => p.effective_ground_m)} L${x(dMax).toFixed(1)},${y(yMin).toFixed(1)} L${x(0).toFixed(1)},${y(yMin).toFixed(1)} Z`;
  svg.append(s('path', { class: 'terrain', d: ground }));
  svg.append(s('path', { class: 'fresnel', d: line((p) => p.los_m + p.f1_radius_m) }));
  svg.append(s('path', { class: 'fresnel', d: line((p) => p.los_m - p.f1_radius_m) }));
  svg.append(s('path', { class: 'fresnel60', d: line((p) => p.los_m - 0.6 * p.f1_radius_m) }));
  svg.append(s('path', { class: 'los', d: line((p) => p.los_m) }));
  svg.append(s('text', { x: x(0) + 4, y: y(pts[0].los_m) - 6 }, tt('tower')));
  svg.append(s('text', { x: x(dMax) - 4, y: y(pts[pts.length - 1].los_m) - 6, 'text-anchor': 'end' }, tt('receiver')));
  if (ob) {
    const c = s('circle', { class: 'obstacle', cx: x(ob.distance_from_tower_m), cy: y(ob.effective_ground_m), r: 6 });
    c.append(s('title', {}, tt('obstacle')));
    svg.append(c);
    svg.append(s('line', { class: 'fresnel', x1: x(ob.distance_from_tower_m), x2: x(ob.distance_from_tower_m), y1: y(ob.effective_ground_m), y2: y(ob.los_m) }));
  }

  const legendItem = (cls, label) => {
    const li = document.createElement('li');
    const sw = document.createElement('span');
    sw.className = `sw ${cls}`;
    sw.setAttribute('aria-hidden', 'true');
    li.append(sw, label);
    return li;
  };
  const legend = document.createElement('ul');
  legend.className = 'chart-legend';
  legend.append(legendItem('sw-terrain', tt('terrain')), legendItem('sw-los', tt('los')), legendItem('sw-fresnel', tt('fresnel')),
    legendItem('sw-fresnel60', tt('fresnel60')));
  if (ob) legend.append(legendItem('sw-obstacle', tt('obstacle')));

  const fig = document.createElement('figure');
  fig.className = 'profile-figure';
  const notes = [tt('curvature', { k: fmt.num(path.k_factor, 3), r: fmt.unit(path.effective_earth_radius_m / 1000, 'km', 1) })];
  if (ob) {
    notes.push(tt('obstacleNote', {
      d: fmt.unit(ob.distance_from_tower_m / 1000, 'km', 2), g: fmt.unit(ob.ground_m, 'm', 1),
      c: fmt.unit(ob.clearance_m, 'm', 1), f: `${fmt.num(ob.clearance_f1_fraction * 100, 0)} %`,
    }));
  }
  if (path.profile_decimated) notes.push(tt('decimated', { n: pts.length, total: path.profile_samples }));
  const ends = opts.ends || {};
  if (ends.a || ends.b) {
    notes.push(tt('dragHint'));
    // A chart with controls is a group (an img's children are hidden).
    svg.setAttribute('role', 'group');
    const first = pts[0];
    const last = pts[pts.length - 1];
    const tip = { a: first.los_m, b: last.los_m };
    const ground = { a: first.effective_ground_m, b: last.effective_ground_m };
    const preview = s('line', { class: 'los-preview', x1: x(0), y1: y(tip.a), x2: x(dMax), y2: y(tip.b) });
    preview.setAttribute('visibility', 'hidden');
    svg.append(preview);
    for (const key of ['a', 'b']) {
      const end = ends[key];
      if (!end || typeof end.onChange !== 'function') continue;
      const h0 = Math.max(0.1, Math.round((tip[key] - ground[key]) * 10) / 10);
      let h = h0;
      let timer = null;
      const cx = key === 'a' ? x(0) : x(dMax);
      const stem = s('line', { class: 'height-stem', x1: cx, x2: cx, y1: y(ground[key]), y2: y(tip[key]) });
      const knob = s('circle', {
        class: 'height-handle', 'data-end': key, cx, cy: y(tip[key]), r: 9, tabindex: '0', role: 'slider',
        'aria-label': tt('handle', { end: end.label || tt(key === 'a' ? 'tower' : 'receiver') }), 'aria-orientation': 'vertical',
        'aria-valuemin': '0.1', 'aria-valuemax': '500',
      });
      const show = () => {
        const tipNow = ground[key] + h;
        const yy = Math.max(PAD.t, Math.min(H - PAD.b, y(tipNow)));
        knob.setAttribute('cy', yy.toFixed(1));
        stem.setAttribute('y2', yy.toFixed(1));
        knob.setAttribute('aria-valuenow', String(h));
        knob.setAttribute('aria-valuetext', tt('handleValue', { h: fmt.unit(h, 'm', 1) }));
        preview.setAttribute(key === 'a' ? 'y1' : 'y2', yy.toFixed(1));
        preview.setAttribute('visibility', h === h0 ? 'hidden' : 'visible');
      };
      const set = (v) => { h = Math.round(Math.min(500, Math.max(0.1, v)) * 10) / 10; show(); };
      const commit = () => { clearTimeout(timer); timer = null; if (h !== h0) end.onChange(h); };
      knob.addEventListener('keydown', (e) => {
        const step = { ArrowUp: 1, ArrowRight: 1, ArrowDown: -1, ArrowLeft: -1, PageUp: 10, PageDown: -10 }[e.key];
        if (step !== undefined) set(h + step);
        else if (e.key === 'Home') set(0.1);
        else if (e.key === 'End') set(500);
        else if (e.key === 'Enter') { e.preventDefault(); commit(); return; } else return;
        e.preventDefault();
        clearTimeout(timer);
        timer = setTimeout(commit, 700);
      });
      // Drag: the pointer's height in the chart's frame is the new tip.
      const heightAt = (ev) => {
        const m = svg.getScreenCTM();
        if (!m) return h;
        const pt = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
        return yMin + ((H - PAD.b - pt.y) * (yMax - yMin)) / (H - PAD.t - PAD.b) - ground[key];
      };
      let dragging = false;
      knob.addEventListener('pointerdown', (ev) => { dragging = true; knob.setPointerCapture(ev.pointerId); knob.focus(); ev.preventDefault(); });
      knob.addEventListener('pointermove', (ev) => { if (dragging) set(heightAt(ev)); });
      const stop = (ev) => { if (!dragging) return; dragging = false; if (knob.hasPointerCapture(ev.pointerId)) knob.releasePointerCapture(ev.pointerId); commit(); };
      knob.addEventListener('pointerup', stop);
      knob.addEventListener('pointercancel', stop);
      show();
      svg.append(stem, knob);
    }
  }
  const cap = document.createElement('figcaption');
  for (const n of notes) {
    const p = document.createElement('p');
    p.className = 'note';
    p.textContent = n;
    cap.append(p);
  }
  fig.append(svg, legend, cap);
  return fig;
}
