// app.js: the console shell: hash router (#/link, #/batch, ...), the
// navigation, sign-in state, language, branding, toasts and the ctx every
// screen receives (see web/console/doc.go for the screen contract).

import { createClient, ApiError } from './api.js';
import { createFmt } from './fmt.js';
import { initialLang, saveLang, SHELL_STRINGS, translator, LANGS } from './i18n.js';
import * as ui from './ui.js';
import signin from './screens/signin.js';

// SCREEN_IDS lists the screens in navigation order. Each is a module
// js/screens/<id>.js; one that cannot be loaded is left out of the
// navigation (and reported on the browser console).
const SCREEN_IDS = ['link', 'towers', 'coverage', 'raytrace', 'netmaps', 'repeater', 'ptp', 'batch', 'observations', 'account', 'admin'];
const DEFAULT_SCREEN = 'link';
const CRED_KEY = 'linkplan.credential';

const state = {
  lang: initialLang(),
  cred: loadCred(),
  session: null,
  screens: new Map(),
  current: null, // {id, cleanup, abort}
  ssoAvailable: null,
  // memo: per screen id, what a screen keeps across re-renders in this
  // tab (language switch, leaving and coming back): {inputs: {id: value},
  // and whatever the screen stores, e.g. its last result}. inputs are
  // also kept in sessionStorage, so that a reload keeps them.
  memo: new Map(),
};
const INPUTS_KEY = 'linkplan.inputs';

const client = createClient(() => state.cred);

function loadCred() {
  try {
    const c = JSON.parse(sessionStorage.getItem(CRED_KEY) || 'null');
    return c && (c.apiKey || c.bearer) ? c : null;
  } catch (_) { return null; }
}
function saveCred(c) {
  try {
    if (c) sessionStorage.setItem(CRED_KEY, JSON.stringify(c));
    else sessionStorage.removeItem(CRED_KEY);
  } catch (_) { /* storage disabled: the session lasts as long as the page */ }
}

const $ = (id) => document.getElementById(id);
const shellT = () => translator(state.lang, SHELL_STRINGS);

// ---- session -------------------------------------------------------------

// loadSession reads who the credential is: GET /v1/me/quota (tier, tenant,
// metered: admin keys are not metered), then for a tenant key GET
// /tenant/keys for its role and prefix. A 401 means a bad credential.
async function loadSession(cred) {
  const api = createClient(() => cred).api;
  const q = await api('GET', '/v1/me/quota');
  const s = { tenant: q.tenant_id, tier: q.tier, role: cred.role || null, keyPrefix: null, admin: q.metered === false, sso: !!cred.bearer };
  if (s.admin) {
    s.role = 'admin';
    if (cred.apiKey) s.keyPrefix = cred.apiKey.slice(0, 12);
  } else {
    try {
      const list = await api('GET', '/tenant/keys');
      const mine = (list.keys || []).find((k) => (cred.apiKey ? cred.apiKey.startsWith(k.prefix) : k.key_id === cred.keyId));
      if (mine) { s.role = mine.tenant_role; s.keyPrefix = mine.prefix; }
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) throw err;
      // A read-only key may not list keys: the role stays unknown.
    }
  }
  return s;
}

async function signIn(cred) {
  const s = await loadSession(cred);
  state.cred = cred;
  state.session = s;
  saveCred(cred);
  await applyBranding();
  renderChrome();
  const id = currentHashId();
  if (!id || id === 'signin') location.hash = '#/' + DEFAULT_SCREEN;
  else route();
}

function signOut(message) {
  leaveScreen();
  state.memo.clear();
  try { sessionStorage.removeItem(INPUTS_KEY); } catch (_) { /* storage disabled */ }
  state.cred = null;
  state.session = null;
  saveCred(null);
  resetBranding();
  renderChrome();
  if (message) toast(message, 'info');
  if (currentHashId() !== 'signin') location.hash = '#/signin';
  else route();
}

// ---- branding --------------------------------------------------------------

const HEX = /^#[0-9a-fA-F]{6}$/;
function inkFor(hex) {
  const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  const lum = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  // The ink of higher contrast: black on light colours, white on dark.
  return (lum + 0.05) / 0.05 > 1.05 / (lum + 0.05) ? '#000000' : '#ffffff';
}

async function applyBranding() {
  resetBranding();
  if (!state.session || state.session.admin) return;
  let b;
  try {
    b = await client.api('GET', '/tenant/branding');
  } catch (_) {
    return; // no branding: the appliance's look
  }
  const root = document.documentElement;
  if (b.primary_color && HEX.test(b.primary_color)) {
    root.style.setProperty('--brand', b.primary_color);
    root.style.setProperty('--brand-ink', inkFor(b.primary_color));
  }
  if (b.display_name) {
    $('brand-name').textContent = b.display_name;
    document.title = b.display_name;
  }
  const logo = $('brand-logo');
  if (b.logo && /^image\/(png|jpeg|gif|webp|svg\+xml)$/.test(b.logo.media_type) && /^[A-Za-z0-9+/=]+$/.test(b.logo.data_base64)) {
    logo.src = `data:${b.logo.media_type};base64,${b.logo.data_base64}`;
    logo.alt = b.display_name || '';
    logo.hidden = false;
  }
}

function resetBranding() {
  const root = document.documentElement;
  root.style.removeProperty('--brand');
  root.style.removeProperty('--brand-ink');
  $('brand-name').textContent = 'linkplan';
  document.title = 'linkplan';
  const logo = $('brand-logo');
  logo.hidden = true;
  logo.removeAttribute('src');
}

// ---- chrome: header, navigation, language ----------------------------------

function visibleScreens() {
  const out = [];
  for (const id of SCREEN_IDS) {
    const m = state.screens.get(id);
    if (!m || m.nav === false) continue;
    if (typeof m.visible === 'function' && state.session && !m.visible(state.session)) continue;
    out.push(m);
  }
  return out;
}

function renderChrome() {
  const t = shellT();
  document.documentElement.lang = state.lang;
  $('skip').textContent = t('skip');
  const nav = $('nav');
  nav.setAttribute('aria-label', t('nav'));
  const list = $('nav-list');
  ui.clear(list);
  const signedIn = !!state.session;
  $('nav-toggle').hidden = !signedIn;
  $('nav-toggle').textContent = t('menu');
  nav.hidden = !signedIn;
  if (signedIn) {
    const cur = currentHashId();
    for (const m of visibleScreens()) {
      const tt = translator(state.lang, m.strings, SHELL_STRINGS);
      const a = ui.el('a', { href: '#/' + m.id, text: tt(m.titleKey || 'title'), dataset: { screen: m.id } });
      if (m.id === cur) a.setAttribute('aria-current', 'page');
      list.append(ui.el('li', null, a));
    }
  }
  const who = $('who');
  who.textContent = signedIn ? t('signedInAs', { tenant: state.session.tenant || '—', tier: state.session.tier || '—' }) : '';
  if (signedIn && state.session.admin) who.append(' ', ui.el('span', { class: 'badge', text: t('adminBadge') }));
  $('signout').hidden = !signedIn;
  $('signout').textContent = t('signOut');
  $('lang-label').textContent = t('language');
  const sel = $('lang');
  sel.value = state.lang;
}

// ---- toasts and the TOTP step-up ------------------------------------------

function toast(msg, kind = 'info') {
  const box = ui.el('div', { class: ['toast', 'toast-' + kind], role: kind === 'error' ? 'alert' : null, text: msg });
  $('toasts').append(box);
  setTimeout(() => box.remove(), kind === 'error' ? 10000 : 6000);
}

function adminTotp() {
  const t = shellT();
  const input = ui.el('input', { type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9]{6}', maxlength: '6', required: true, class: 'totp' });
  const err = ui.el('p', { class: 'error-msg', role: 'alert', hidden: true });
  const form = ui.el('form', { class: 'totp-form', novalidate: true }, ui.el('p', { text: t('totpHelp') }), ui.field(t('totpLabel'), input), err);
  const ok = ui.el('button', { type: 'submit', class: 'primary', text: t('confirm') });
  ok.setAttribute('form', form.id = ui.nextId('totp'));
  const cancelBtn = ui.el('button', { type: 'button', text: t('cancel') });
  return ui.modal({
    title: t('totpTitle'), body: form, actions: [cancelBtn, ok], t,
    onOpen: ({ close, cancel }) => {
      cancelBtn.addEventListener('click', cancel);
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        const v = input.value.trim();
        if (!/^[0-9]{6}$/.test(v)) { err.textContent = t('totpInvalid'); err.hidden = false; input.focus(); return; }
        close(v);
      });
      input.focus();
    },
  });
}

// ---- router ----------------------------------------------------------------

function currentHashId() {
  const m = /^#\/([a-z0-9-]+)/.exec(location.hash);
  return m ? m[1] : '';
}

function leaveScreen() {
  const cur = state.current;
  state.current = null;
  if (!cur) return;
  cur.abort.abort();
  if (typeof cur.cleanup === 'function') {
    try { cur.cleanup(); } catch (err) { console.error('screen cleanup', cur.id, err); }
  }
}

// memoOf returns the screen's memo, its inputs read from sessionStorage the
// first time.
function memoOf(id) {
  let m = state.memo.get(id);
  if (!m) {
    let inputs = {};
    try { inputs = (JSON.parse(sessionStorage.getItem(INPUTS_KEY) || '{}') || {})[id] || {}; } catch (_) { inputs = {}; }
    m = { inputs };
    state.memo.set(id, m);
  }
  return m;
}

// keepInputs restores the values the user gave the screen's fields (by id)
// and records every later change. A restored field gets input and change
// events, so that the screen follows it (a marker, a mode). File inputs
// and passwords are never kept; neither is a field marked data-no-keep.
const keepable = (e) => e && e.id && /^(INPUT|SELECT|TEXTAREA)$/.test(e.tagName) && !['file', 'password', 'hidden'].includes(e.type) && !e.closest('[data-no-keep]');
function keepInputs(id, root) {
  const m = memoOf(id);
  for (const [fid, v] of Object.entries(m.inputs)) {
    const e = document.getElementById(fid);
    if (!keepable(e) || !root.contains(e)) continue;
    if (e.type === 'checkbox' || e.type === 'radio') {
      if (e.checked === v) continue;
      e.checked = v;
    } else {
      if (e.value === v) continue;
      e.value = v;
    }
    e.dispatchEvent(new Event('input', { bubbles: true }));
    e.dispatchEvent(new Event('change', { bubbles: true }));
  }
  const save = (ev) => {
    const e = ev.target;
    if (!keepable(e)) return;
    if (e.type === 'radio') {
      for (const r of root.querySelectorAll(`input[type=radio][name="${CSS.escape(e.name)}"]`)) if (r.id) m.inputs[r.id] = r.checked;
    } else {
      m.inputs[e.id] = e.type === 'checkbox' ? e.checked : e.value;
    }
    try {
      const all = JSON.parse(sessionStorage.getItem(INPUTS_KEY) || '{}') || {};
      all[id] = m.inputs;
      sessionStorage.setItem(INPUTS_KEY, JSON.stringify(all));
    } catch (_) { /* storage disabled or full: memory only */ }
  };
  root.addEventListener('input', save);
  root.addEventListener('change', save);
}

// showResult brings a screen's new result into view: scrolled to, with the
// focus on its heading (screen readers announce it; keyboard users go on
// from there).
function showResultHeading(h) {
  if (!h) return;
  if (!h.hasAttribute('tabindex')) h.setAttribute('tabindex', '-1');
  h.focus({ preventScroll: true });
  h.scrollIntoView({ block: 'start' });
}

function makeCtx(mod, abort) {
  const t = translator(state.lang, mod.strings, SHELL_STRINGS);
  // A screen's requests end with the screen: they carry its signal (with
  // the caller's own, if any), and once the user has left, an awaiting
  // screen never resumes (the promise stays pending and is collected)
  // instead of drawing into removed elements or a removed map. opts is the
  // third argument of api, apiRaw and download alike.
  const gone = () => new Promise(() => {});
  const guard = (fn) => async (a, b, opts = {}) => {
    const signal = opts.signal ? AbortSignal.any([opts.signal, abort.signal]) : abort.signal;
    try {
      const v = await fn(a, b, { ...opts, signal });
      return abort.signal.aborted ? gone() : v;
    } catch (err) {
      if (abort.signal.aborted) return gone();
      if (err instanceof ApiError && err.status === 401 && state.session) checkSession();
      throw err;
    }
  };
  return {
    api: guard(client.api),
    apiRaw: guard(client.apiRaw),
    download: guard(client.download),
    adminTotp,
    t,
    lang: state.lang,
    fmt: createFmt(state.lang),
    session: state.session ? { ...state.session } : null,
    toast,
    go: (id) => { location.hash = '#/' + id; },
    // errorBox speaks the user's language and marks the form's fields.
    ui: { ...ui, errorBox: (err, tt, form) => ui.errorBox(err, tt || t, { lang: state.lang, form: form || null }) },
    signal: abort.signal,
    memo: memoOf(mod.id),
    showResult: showResultHeading,
    signIn,
    ssoAvailable,
  };
}

// checkSession signs out when the credential itself is no longer accepted
// (a 401 on a screen may be a wrong TOTP code rather than a dead key).
async function checkSession() {
  try {
    await client.api('GET', '/v1/me/quota');
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) signOut(shellT()('sessionEnded'));
  }
}

async function route() {
  let id = currentHashId();
  if (!state.session) id = 'signin';
  else if (!id || id === 'signin') { location.hash = '#/' + DEFAULT_SCREEN; return; }
  const mod = id === 'signin' ? signin : state.screens.get(id);
  leaveScreen();
  renderChrome();
  $('nav').classList.remove('open');
  $('nav-toggle').setAttribute('aria-expanded', 'false');
  const main = $('main');
  ui.clear(main);
  const abort = new AbortController();
  state.current = { id, cleanup: null, abort };
  if (!mod || (typeof mod.visible === 'function' && !mod.visible(state.session))) {
    const h = ui.el('h1', { id: 'screen-title', tabindex: '-1', text: shellT()('notFound') });
    main.append(h);
    h.focus();
    return;
  }
  const ctx = makeCtx(mod, abort);
  const title = ui.el('h1', { id: 'screen-title', tabindex: '-1', text: ctx.t(mod.titleKey || 'title') });
  const root = ui.el('section', { class: ['screen', 'screen-' + id], 'aria-labelledby': 'screen-title', dataset: { screen: id } });
  main.append(title, root);
  document.title = `${ctx.t(mod.titleKey || 'title')} · ${$('brand-name').textContent}`;
  title.focus({ preventScroll: false });
  try {
    const cleanup = await mod.render(root, ctx);
    if (!abort.signal.aborted && id !== 'signin') keepInputs(id, root);
    if (state.session && state.session.role === 'read-only') readOnlyForms(root, ctx.t);
    // For the browser tests' first-paint figure (Performance API).
    performance.mark(`lp-screen-${id}`);
    if (state.current && state.current.abort === abort) state.current.cleanup = cleanup;
    else if (typeof cleanup === 'function') cleanup(); // left while rendering
  } catch (err) {
    if (err && err.name === 'AbortError') return;
    console.error('render', id, err);
    root.append(ctx.ui.errorBox(err, ctx.t));
  }
}

// readOnlyForms turns the forms a screen marks data-writes (they store
// something: POST routes that need write permission) into read-only ones
// for a read-only key: every control disabled and a note saying why, so
// the user does not learn it from a 403 after filling them in.
function readOnlyForms(root, t) {
  for (const f of root.querySelectorAll('form[data-writes]')) {
    if (f.dataset.readOnly === 'true') continue;
    f.dataset.readOnly = 'true';
    f.setAttribute('aria-disabled', 'true');
    for (const c of f.querySelectorAll('input, select, textarea, button')) c.disabled = true;
    f.prepend(ui.el('p', { class: 'readonly-note', role: 'note', text: t('readOnly') }));
  }
}

// ---- single sign-on ----------------------------------------------------------

// ssoAvailable asks the API whether hosted login is configured (GET
// /auth/oidc/config, {enabled}). Asked once per page.
function ssoAvailable() {
  if (state.ssoAvailable === null) {
    // GET /auth/oidc/config answers without starting a login (which would
    // keep a server-side state for every page load).
    state.ssoAvailable = fetch('/auth/oidc/config', { credentials: 'same-origin' })
      .then((r) => (r.ok ? r.json() : null))
      .then((c) => !!(c && c.enabled))
      .catch(() => false);
  }
  return state.ssoAvailable;
}

// finishSSO completes a hosted login whose redirect URL is the console
// (the operator registers https://host/ as --oidc-redirect-url): the
// issuer sends the browser back with ?code=&state=, which the console
// exchanges at GET /auth/oidc/callback for an ID token.
async function finishSSO() {
  const p = new URLSearchParams(location.search);
  if (!p.has('state') || !(p.has('code') || p.has('error'))) return false;
  history.replaceState(null, '', location.pathname + '#/signin');
  try {
    const res = await client.api('GET', '/auth/oidc/callback', { query: { state: p.get('state'), code: p.get('code'), error: p.get('error'), error_description: p.get('error_description') } });
    await signIn({ bearer: res.id_token, role: res.role, keyId: res.key_id });
  } catch (err) {
    toast(err.message, 'error');
  }
  return true;
}

// ---- start -----------------------------------------------------------------

async function loadScreens() {
  const results = await Promise.allSettled(SCREEN_IDS.map((id) => import(`./screens/${id}.js`)));
  results.forEach((r, i) => {
    if (r.status === 'fulfilled' && r.value && r.value.default) state.screens.set(SCREEN_IDS[i], r.value.default);
    else console.warn('screen not loaded:', SCREEN_IDS[i], r.reason);
  });
}

async function start() {
  $('skip').addEventListener('click', (e) => { e.preventDefault(); const h = $('screen-title') || $('main'); h.focus(); });
  $('signout').addEventListener('click', () => signOut());
  const sel = $('lang');
  for (const l of LANGS) sel.append(ui.el('option', { value: l, text: l === 'en' ? 'English' : 'Português (Brasil)' }));
  sel.addEventListener('change', () => { state.lang = sel.value; saveLang(state.lang); route(); });
  $('nav-toggle').addEventListener('click', () => {
    const open = $('nav').classList.toggle('open');
    $('nav-toggle').setAttribute('aria-expanded', String(open));
  });
  window.addEventListener('hashchange', route);
  renderChrome();
  await loadScreens();
  if (await finishSSO()) return;
  if (state.cred) {
    try {
      state.session = await loadSession(state.cred);
      await applyBranding();
    } catch (_) {
      state.cred = null;
      saveCred(null);
    }
  }
  route();
}

start();
