// ui.js: small DOM helpers. Text always goes in through textContent (never
// innerHTML with data), and no element gets an inline style attribute from
// HTML (the CSP has no 'unsafe-inline'); styles set from JS through
// el.style are allowed.

import { message } from './messages.js';

let uid = 0;
// nextId returns a document-unique id with the given prefix.
export function nextId(prefix = 'lp') {
  uid += 1;
  return `${prefix}-${uid}`;
}

// el(tag, attrs, ...children): attrs keys: class, text, on<Event>
// (functions), dataset (object), hidden/disabled/checked/... (booleans),
// anything else as an attribute. Children: nodes, strings, arrays, null.
export function el(tag, attrs, ...children) {
  const svg = tag.startsWith('svg:');
  const node = svg ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4)) : document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') node.setAttribute('class', Array.isArray(v) ? v.filter(Boolean).join(' ') : v);
      else if (k === 'text') node.textContent = String(v);
      else if (k === 'dataset') Object.assign(node.dataset, v);
      else if (k === 'style') throw new Error('el: no style attribute (CSP); set el.style from JS');
      else if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2).toLowerCase(), v);
      else if (v === true) node.setAttribute(k, '');
      else if (!svg && k in node && typeof v !== 'string' && typeof v !== 'number') node[k] = v;
      else node.setAttribute(k, String(v));
    }
  }
  append(node, children);
  return node;
}

// put appends children to node as el does (nodes, strings, arrays; null,
// undefined and false skipped). Element.append would write null as the
// text "null".
export function put(node, ...children) {
  append(node, children);
  return node;
}

function append(node, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(node, c);
    else if (c instanceof Node) node.append(c);
    else node.append(document.createTextNode(String(c)));
  }
}

// field(labelText, inputEl, hintText): a form row whose label is linked
// to the input (for/id) and whose hint is the input's description.
export function field(labelText, inputEl, hintText) {
  if (!inputEl.id) inputEl.id = nextId('f');
  const label = el('label', { for: inputEl.id, text: labelText });
  const row = el('div', { class: 'field' }, label, inputEl);
  if (hintText) {
    const hint = el('p', { class: 'hint', id: nextId('h'), text: hintText });
    inputEl.setAttribute('aria-describedby', hint.id);
    row.append(hint);
  }
  return row;
}

// table(columns, rows): columns are {key, label, num?, format?(v, row)};
// rows are objects. Numeric columns are right-aligned.
export function table(columns, rows, opts = {}) {
  const thead = el('thead', null, el('tr', null, columns.map((c) => el('th', { scope: 'col', class: c.num ? 'num' : null, text: c.label }))));
  const tbody = el('tbody', null, rows.map((r) => el('tr', { class: r._class || null }, columns.map((c) => {
    const v = c.format ? c.format(r[c.key], r) : r[c.key];
    return el('td', { class: c.num ? 'num' : null }, v instanceof Node ? v : (v === null || v === undefined ? '—' : String(v)));
  }))));
  const t = el('table', { class: 'data' }, opts.caption ? el('caption', { text: opts.caption }) : null, thead, tbody);
  return el('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': opts.caption || opts.label || null }, t);
}

// errorBox(err, t, {lang, form}): the error in the user's language (the
// console's text for its code, messages.js; the API's English message
// follows as the detail), the fields it names, the quota it hit and the
// request id, announced to screen readers. With form, the control of each
// field the error names (an element whose data-field is the API's field
// path, or whose name or id is) is marked aria-invalid and described by
// the box, and the first one gets the focus; the marks go at the next
// input.
export function errorBox(err, t, opts = {}) {
  const tr = t || ((k, v) => (k === 'errorField' ? `Field: ${v.field}` : `Request: ${v.id}`));
  const lang = opts.lang || 'en';
  const raw = err && err.message ? err.message : String(err);
  const own = err && err.code ? message('error', err.code, lang) : null;
  const fields = err && Array.isArray(err.fields) && err.fields.length ? err.fields : (err && err.field ? [{ field: err.field, reason: err.reason }] : []);
  const q = err && err.body && err.body.error && err.body.error.quota;
  let quota = null;
  if (q) {
    quota = q.kind === 'rate'
      ? message('ui', 'quotaRate', lang, { limit: q.limit, group: message('group', q.group, lang) || q.group, tier: q.tier })
      : message('ui', 'quotaMonthly', lang, { counter: message('counter', q.counter, lang) || q.counter, tier: q.tier, used: q.used, limit: q.limit, reset: q.reset_at ? new Date(q.reset_at).toLocaleDateString(lang) : '' });
  }
  const controls = [];
  const form = opts.form || null;
  const labelOf = (f) => {
    if (!form) return null;
    const c = form.querySelector(`[data-field="${CSS.escape(f)}"]`) || form.querySelector(`[name="${CSS.escape(f)}"]`);
    if (!c) return null;
    controls.push(c);
    const l = c.id ? form.querySelector(`label[for="${CSS.escape(c.id)}"]`) : null;
    return l ? l.textContent : null;
  };
  const box = el('div', { class: 'error-box', role: 'alert', id: nextId('err') },
    el('p', { class: 'error-msg', text: own || raw }),
    fields.map((f) => el('p', { class: 'error-field', text: tr('errorField', { field: labelOf(f.field) || f.field }) + (f.reason && own ? ` (${f.reason})` : '') })),
    quota ? el('p', { class: 'error-quota', text: quota }) : null,
    own && raw && raw !== own && !fields.length ? el('p', { class: 'error-detail', text: message('ui', 'detail', lang, { text: raw }) }) : null,
    err && err.requestId ? el('p', { class: 'error-rid', text: tr('errorRequest', { id: err.requestId }) }) : null);
  for (const c of controls) {
    c.setAttribute('aria-invalid', 'true');
    c.setAttribute('aria-errormessage', box.id);
    c.classList.add('invalid');
    const clearMark = () => { c.removeAttribute('aria-invalid'); c.removeAttribute('aria-errormessage'); c.classList.remove('invalid'); };
    c.addEventListener('input', clearMark, { once: true });
    c.addEventListener('change', clearMark, { once: true });
  }
  if (controls.length) setTimeout(() => { if (controls[0].isConnected) controls[0].focus(); }, 0);
  return box;
}

// progress(value, max, label): a labelled native progress bar.
export function progress(value, max, label) {
  const p = el('progress', { max: String(max || 1), value: String(value || 0) });
  p.setAttribute('aria-label', label || '');
  const pct = max ? Math.round((100 * (value || 0)) / max) : 0;
  return el('div', { class: 'progress' }, p, el('span', { class: 'progress-text', text: `${label ? label + ': ' : ''}${pct} %` }));
}

// clear removes every child of node.
export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
}

// modal opens an accessible dialog (role dialog, aria-modal, labelled by
// its title, focus trapped, Escape cancels) around body; resolve(value)
// closes it. Returns a Promise that rejects with an AbortError on cancel.
export function modal({ title, body, actions, onOpen, t }) {
  return new Promise((resolve, reject) => {
    const prev = document.activeElement;
    const titleId = nextId('dlg');
    const box = el('div', { class: 'modal', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': titleId },
      el('h2', { id: titleId, text: title }), body, el('div', { class: 'modal-actions' }, actions));
    const backdrop = el('div', { class: 'modal-backdrop' }, box);
    const done = (fn, v) => {
      backdrop.remove();
      document.removeEventListener('keydown', onKey, true);
      if (prev && prev.focus) prev.focus();
      fn(v);
    };
    const close = (v) => done(resolve, v);
    const cancel = () => done(reject, Object.assign(new Error(t ? t('cancel') : 'cancelled'), { name: 'AbortError' }));
    function onKey(e) {
      if (e.key === 'Escape') { e.preventDefault(); cancel(); return; }
      if (e.key === 'Tab') {
        const f = [...box.querySelectorAll('button, input, select, textarea, [href], [tabindex]:not([tabindex="-1"])')].filter((x) => !x.disabled);
        if (!f.length) return;
        const first = f[0];
        const last = f[f.length - 1];
        if (e.shiftKey && document.activeElement === first) { e.preventDefault(); last.focus(); }
        else if (!e.shiftKey && document.activeElement === last) { e.preventDefault(); first.focus(); }
      }
    }
    document.addEventListener('keydown', onKey, true);
    document.body.append(backdrop);
    if (onOpen) onOpen({ close, cancel, box });
  });
}

// download of a canvas or text: saveBlob(blob, name).
export function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
