// ui.js: small DOM helpers. Text always goes in through textContent (never
// innerHTML with data), and no element gets an inline style attribute from
// HTML (the CSP has no 'unsafe-inline'); styles set from JS through
// el.style are allowed.

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

// errorBox(err, t): the ApiError's message, the field it names and the
// request id, announced to screen readers.
export function errorBox(err, t) {
  const tr = t || ((k, v) => (k === 'errorField' ? `Field: ${v.field}` : `Request: ${v.id}`));
  const msg = err && err.message ? err.message : String(err);
  return el('div', { class: 'error-box', role: 'alert' },
    el('p', { class: 'error-msg', text: msg }),
    err && err.field ? el('p', { class: 'error-field', text: tr('errorField', { field: err.field }) }) : null,
    err && err.requestId ? el('p', { class: 'error-rid', text: tr('errorRequest', { id: err.requestId }) }) : null);
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
