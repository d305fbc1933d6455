// i18n.js: language choice and the shell's own strings. Each screen keeps
// its strings in its module (strings: {'pt-BR': {...}, en: {...}}); ctx.t
// looks a key up in the current screen's strings first, then here.

export const LANGS = ['pt-BR', 'en'];
export const DEFAULT_LANG = 'pt-BR';
const STORE_KEY = 'linkplan.lang';

export function initialLang() {
  // pt-BR unless the user chose English with the switch (remembered in
  // localStorage): the appliance's users are in Brazil, whatever language
  // their browser was installed in.
  const saved = safeGet(STORE_KEY);
  return LANGS.includes(saved) ? saved : DEFAULT_LANG;
}

export function saveLang(lang) {
  try { localStorage.setItem(STORE_KEY, lang); } catch (_) { /* storage disabled */ }
}

function safeGet(k) {
  try { return localStorage.getItem(k); } catch (_) { return null; }
}

export const SHELL_STRINGS = {
  'pt-BR': {
    appName: 'linkplan',
    skip: 'Pular para o conteúdo',
    nav: 'Navegação principal',
    language: 'Idioma',
    signOut: 'Sair',
    signedInAs: 'Conectado: {tenant} · {tier}',
    adminBadge: 'administrador',
    loading: 'Carregando…',
    close: 'Fechar',
    cancel: 'Cancelar',
    confirm: 'Confirmar',
    totpTitle: 'Código de verificação',
    totpHelp: 'Digite o código de 6 dígitos do seu aplicativo autenticador.',
    totpLabel: 'Código TOTP',
    totpInvalid: 'O código tem 6 dígitos.',
    errorField: 'Campo: {field}',
    errorRequest: 'Pedido: {id}',
    notFound: 'Tela não encontrada.',
    readOnly: 'Esta chave é somente leitura: ela consulta e calcula, mas não grava. Peça a um administrador do tenant uma chave de membro para usar este formulário.',
    sessionEnded: 'A sessão terminou: entre de novo.',
    menu: 'Menu',
    mapLabel: 'Mapa',
    elevationTint: 'Cores de altitude',
    landWater: 'Água e falhas do relevo',
    basemapOperator: 'Mapa-base do operador',
    zoomIn: 'Aproximar',
    zoomOut: 'Afastar',
  },
  en: {
    appName: 'linkplan',
    skip: 'Skip to content',
    nav: 'Main navigation',
    language: 'Language',
    signOut: 'Sign out',
    signedInAs: 'Signed in: {tenant} · {tier}',
    adminBadge: 'admin',
    loading: 'Loading…',
    close: 'Close',
    cancel: 'Cancel',
    confirm: 'Confirm',
    totpTitle: 'Verification code',
    totpHelp: 'Type the 6-digit code from your authenticator app.',
    totpLabel: 'TOTP code',
    totpInvalid: 'The code has 6 digits.',
    errorField: 'Field: {field}',
    errorRequest: 'Request: {id}',
    notFound: 'Screen not found.',
    readOnly: 'This key is read-only: it reads and computes but stores nothing. Ask a tenant admin for a member key to use this form.',
    sessionEnded: 'The session ended: sign in again.',
    menu: 'Menu',
    mapLabel: 'Map',
    elevationTint: 'Elevation tint',
    landWater: 'Water and terrain gaps',
    basemapOperator: 'Operator basemap',
    zoomIn: 'Zoom in',
    zoomOut: 'Zoom out',
  },
};

// translator returns t(key, vars) over the given string tables, first
// found wins; a missing key prints itself, so that it is seen and fixed.
export function translator(lang, ...tables) {
  return (key, vars) => {
    let s;
    for (const tb of tables) {
      if (!tb) continue;
      const byLang = tb[lang] || tb[DEFAULT_LANG];
      if (byLang && Object.prototype.hasOwnProperty.call(byLang, key)) { s = byLang[key]; break; }
    }
    if (s === undefined) s = key;
    if (vars) s = s.replace(/\{(\w+)\}/g, (m, k) => (vars[k] === undefined || vars[k] === null ? m : String(vars[k])));
    return s;
  };
}
