// formkit.js: the small DOM helpers shared by the forms screens (batch,
// observations, account, admin). Text is always set through text nodes,
// never innerHTML; no element gets a style attribute (the console's CSP
// forbids inline styles), classes come from css/forms.css.

let seq = 0;

/** uid returns an id unique in the page, for label/for and aria links. */
export function uid(prefix) {
  seq += 1;
  return `${prefix}-${seq}`;
}

/**
 * h builds an element. attrs: class, plain attributes (true sets an empty
 * attribute; false, null and undefined set none), onX functions become
 * event listeners. children: nodes or text (null and false are skipped).
 */
export function h(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') {
      e.addEventListener(k.slice(2), v);
    } else if (k === 'class') {
      e.className = v;
    } else if (v === true) {
      e.setAttribute(k, '');
    } else {
      e.setAttribute(k, String(v));
    }
  }
  put(e, children);
  return e;
}

/** put appends children (nodes or text) to e. */
export function put(e, children) {
  for (const c of [children].flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/**
 * fill replaces the children of e (null, false and undefined are skipped:
 * the DOM's own replaceChildren would print them as text).
 */
export function fill(e, ...children) {
  e.replaceChildren();
  return put(e, children);
}

/** row is a labelled form row: label, control and an optional hint linked by aria-describedby. */
export function row(label, control, hint) {
  if (!control.id) control.id = uid('fk');
  const kids = [h('label', { for: control.id }, label), control];
  if (hint) {
    const hid = uid('fk-hint');
    control.setAttribute('aria-describedby', hid);
    kids.push(h('p', { class: 'fk-hint', id: hid }, hint));
  }
  return h('div', { class: 'fk-row' }, kids);
}

/** check is a checkbox with its label after it. */
export function check(label, attrs) {
  const box = h('input', { type: 'checkbox', id: uid('fk'), ...attrs });
  return { box, el: h('div', { class: 'fk-check' }, box, h('label', { for: box.id }, label)) };
}

/** select builds a <select> of [value, text] pairs. */
export function select(options, attrs, selected) {
  const s = h('select', attrs);
  for (const [value, text] of options) {
    s.append(h('option', { value, selected: value === selected }, text));
  }
  return s;
}

/** card is a titled block of a screen (h2 heading, region labelled by it). */
export function card(title, ...children) {
  const hid = uid('fk-h');
  return h('section', { class: 'fk-card', 'aria-labelledby': hid }, h('h2', { id: hid }, title), children);
}

/**
 * table builds a table inside a focusable scroll region (keyboard users can
 * scroll it at 390 px). columns: [{label, cell(row) → text or node, num}].
 */
export function table(caption, columns, rows) {
  const thead = h('thead', null, h('tr', null, columns.map((c) => h('th', { scope: 'col', class: c.num ? 'fk-num' : null }, c.label))));
  const tbody = h('tbody', null, rows.map((r) => h('tr', null, columns.map((c) => h('td', { class: c.num ? 'fk-num' : null }, c.cell(r))))));
  return h('div', { class: 'fk-scroll', tabindex: '0', role: 'region', 'aria-label': caption },
    h('table', { class: 'fk-table' }, h('caption', null, caption), thead, tbody));
}

/** facts is a definition list of [term, value] pairs (values: text or nodes). */
export function facts(pairs) {
  return h('dl', { class: 'fk-facts' }, pairs.map(([k, v]) => [h('dt', null, k), h('dd', null, v)]));
}

/** meter is a labelled <progress> (an accessible name is required by axe). */
export function meter(value, max, label) {
  const p = h('progress', { 'aria-label': label, max: String(Math.max(max, 1)), value: String(Math.min(value, Math.max(max, 1))) });
  return p;
}

/** showError puts err into box (the shell's errorBox when it has one). */
export function showError(ctx, box, err, form) {
  if (err && err.name === 'AbortError') return;
  const view = ctx.ui && ctx.ui.errorBox ? ctx.ui.errorBox(err, ctx.t, form) : h('p', { role: 'alert', class: 'fk-error' }, String(err && err.message ? err.message : err));
  fill(box, view);
}

/** epoch formats epoch seconds as a date through ctx.fmt ('–' when null). */
export function epoch(ctx, s) {
  if (s === null || s === undefined) return '–';
  return ctx.fmt.date(new Date(s * 1000).toISOString());
}

/** iso formats an RFC 3339 string through ctx.fmt ('–' when null). */
export function iso(ctx, s) {
  return s ? ctx.fmt.date(s) : '–';
}

/**
 * busy disables button while fn runs and re-enables it after; it returns
 * fn's promise.
 */
export async function busy(button, fn) {
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    return await fn();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

/**
 * confirm asks a yes/no question in a modal <dialog> (Escape cancels, focus
 * goes to Cancel first and back to the opener after). Resolves true on
 * confirm.
 */
export function confirm(ctx, message, confirmLabel, cancelLabel) {
  const opener = document.activeElement;
  return new Promise((resolve) => {
    const title = uid('fk-dlg');
    const cancel = h('button', { type: 'button', class: 'fk-secondary' }, cancelLabel);
    const ok = h('button', { type: 'button', class: 'fk-danger', 'data-confirm': 'yes' }, confirmLabel);
    const dlg = h('dialog', { class: 'fk-dialog', 'aria-labelledby': title },
      h('p', { id: title }, message), h('div', { class: 'fk-actions' }, cancel, ok));
    let answer = false;
    const close = (v) => { answer = v; dlg.close(); };
    cancel.addEventListener('click', () => close(false));
    ok.addEventListener('click', () => close(true));
    dlg.addEventListener('close', () => {
      dlg.remove();
      if (opener && opener.isConnected && opener.focus) opener.focus();
      resolve(answer);
    });
    document.body.append(dlg);
    dlg.showModal();
    cancel.focus();
  });
}

/**
 * secret shows a value that is displayed once (a new API key): a read-only
 * field with a copy button and a note. The field carries data-secret for
 * tests and scripts.
 */
export function secret(ctx, label, value, note, copyLabel, copiedMsg) {
  const input = h('input', { type: 'text', readonly: true, class: 'fk-secret', 'data-secret': 'api-key', spellcheck: 'false', autocomplete: 'off' });
  input.value = value;
  const copy = h('button', { type: 'button' }, copyLabel);
  copy.addEventListener('click', async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(value);
      ctx.toast(copiedMsg, 'ok');
    } catch {
      // Clipboard access can be refused (no secure context): the text is
      // selected, so Ctrl+C copies it.
      ctx.toast(copiedMsg, 'info');
    }
  });
  return h('div', { class: 'fk-secret-box', role: 'status' }, row(label, input, note), h('div', { class: 'fk-actions' }, copy));
}

/** saveJSON offers obj as a downloaded JSON file (object URL, same origin). */
export function saveJSON(obj, filename) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(obj, null, 2)], { type: 'application/json' }));
  const a = h('a', { href: url, download: filename, class: 'fk-hidden' });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// auditPager returns load(before): one page of an audit route (GET path
// with limit, the filters() query and before) drawn into box as a table,
// with "newest" and "older" buttons. The tenant's and the admin's audit
// logs page the same way (next_before of the answer).
export function auditPager(ctx, { box, path, opt, pageSize, filters, caption, columns, empty, newest, older }) {
  const load = async (before) => {
    const query = { limit: String(pageSize), ...filters() };
    if (before) query.before = String(before);
    try {
      const page = await ctx.api('GET', path, { ...opt, query });
      const nav = h('div', { class: 'fk-actions' });
      if (before) {
        const first = h('button', { type: 'button', class: 'fk-secondary' }, newest);
        first.addEventListener('click', () => load(null));
        nav.append(first);
      }
      if (page.next_before !== null) {
        const more = h('button', { type: 'button', class: 'fk-secondary', 'data-action': 'audit-older' }, older);
        more.addEventListener('click', () => load(page.next_before));
        nav.append(more);
      }
      fill(box, page.entries.length === 0 ? h('p', null, empty) : table(caption, columns, page.entries), nav);
    } catch (err) {
      showError(ctx, box, err);
    }
  };
  return load;
}
