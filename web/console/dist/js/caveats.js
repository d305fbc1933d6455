// caveats.js: "caveats first" for the results that have no room of their
// own for them (repeater routes, batches): the warnings of an answer, each
// code once, in the user's language (messages.js), in a box drawn above
// the number they qualify and tied to it (aria-describedby), with the
// figures that make a caveat concrete (a tower's position uncertainty
// against the length of its link, the EIRP that was assumed). The Link,
// Coverage and PtP screens draw the same box (class caveats) themselves.

import { warningText } from './messages.js';

const STRINGS = {
  'pt-BR': {
    title: 'Ressalvas deste resultado',
    mark: 'número com {n} ressalva(s), listadas acima',
    uncertainVs: 'posição incerta em ± {u} num enlace de {d}',
    eirpWas: 'EIRP presumida: {v}',
    rows: '{n} de {total} linhas',
    hop: 'salto {n}',
  },
  en: {
    title: 'Caveats of this result',
    mark: 'a figure with {n} caveat(s), listed above',
    uncertainVs: 'position uncertain by ± {u} on a {d} link',
    eirpWas: 'assumed EIRP: {v}',
    rows: '{n} of {total} rows',
    hop: 'hop {n}',
  },
};

// caveatWords returns the module's translator for ctx.lang.
export function caveatWords(ctx) {
  const s = STRINGS[ctx.lang] || STRINGS['pt-BR'];
  return (k, v) => s[k].replace(/\{(\w+)\}/g, (m, x) => (v && v[x] !== undefined ? String(v[x]) : m));
}

// uniqueWarnings returns the warnings of lists, each code once (the first
// one seen), in order.
export function uniqueWarnings(...lists) {
  const seen = new Set();
  return lists.flat().filter((w) => w && w.code && !seen.has(w.code) && seen.add(w.code));
}

// uncertainVs is the figure of a position_uncertainty caveat: the
// uncertainty (metres) against the link length (km).
export function uncertainVs(ctx, uncertaintyM, distanceKm) {
  const tt = caveatWords(ctx);
  return tt('uncertainVs', { u: ctx.fmt.unit(uncertaintyM / 1000, 'km', 2), d: ctx.fmt.unit(distanceKm, 'km', 2) });
}

// caveatBox returns the box of the caveats list (null when empty): one
// <li data-code> per warning, its text warningText plus detail(w) in
// brackets when detail answers one; the API's English message stays as
// the item's title. numbered: an ordered list, for tables that refer to
// its items by number.
export function caveatBox(ctx, list, { id, detail, numbered } = {}) {
  if (!list.length) return null;
  const tt = caveatWords(ctx);
  const box = document.createElement('div');
  box.className = 'caveats';
  box.id = id;
  const h = document.createElement('h3');
  h.textContent = tt('title');
  const ul = document.createElement(numbered ? 'ol' : 'ul');
  for (const w of list) {
    const li = document.createElement('li');
    li.dataset.code = w.code;
    if (w.message) li.title = w.message;
    const extra = detail ? detail(w) : null;
    li.textContent = extra ? `${warningText(w, ctx.lang)} (${extra})` : warningText(w, ctx.lang);
    ul.append(li);
  }
  box.append(h, ul);
  return box;
}

// tieTo marks the element holding the qualified number as described by
// the box and returns the short mark to put next to it ("a figure with n
// caveats, listed above"), or null when there is no box.
export function tieTo(ctx, figure, box, n, tag = 'dd') {
  if (!box) return null;
  figure.setAttribute('aria-describedby', box.id);
  const mark = document.createElement(tag);
  mark.className = 'caveat-mark';
  mark.textContent = `⚠ ${caveatWords(ctx)('mark', { n })}`;
  return mark;
}
