// fmt.js: numbers, units, dates and sizes per the console's language.
// Units are always printed: -72,4 dBm in pt-BR, -72.4 dBm in English.

export function createFmt(lang) {
  const cache = new Map();
  const nf = (digits) => {
    const d = Number.isInteger(digits) ? digits : 1;
    if (!cache.has(d)) cache.set(d, new Intl.NumberFormat(lang, { minimumFractionDigits: d, maximumFractionDigits: d, signDisplay: 'negative' }));
    return cache.get(d);
  };
  const num = (x, digits) => {
    if (x === null || x === undefined || Number.isNaN(Number(x))) return '—';
    return nf(digits).format(Number(x));
  };
  const unit = (x, u, digits) => `${num(x, digits)}\u00a0${u}`;
  const dateFmt = new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'medium' });
  const date = (iso) => {
    if (iso === null || iso === undefined || iso === '') return '—';
    const d = typeof iso === 'number' ? new Date(iso * 1000) : new Date(iso);
    return Number.isNaN(d.getTime()) ? String(iso) : dateFmt.format(d);
  };
  const bytes = (n) => {
    if (n === null || n === undefined) return '—';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let v = Number(n);
    let i = 0;
    while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return unit(v, units[i], i === 0 ? 0 : 1);
  };
  const int = (x) => num(x, 0);
  return { num, unit, date, bytes, int, lang };
}
