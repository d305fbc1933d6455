// equipment.js: the tenant's equipment catalogue as the screens list it
// (GET /equipment/radios and GET /equipment/antennas: the tenant's own
// radios and antennas and the appliance's built-in generic examples). The
// PtP screen picks the radio and antenna of each end from it; the Network
// maps screen the radio of each interference site (whose adjacent-channel
// selectivity the map then takes).

const STRINGS = {
  'pt-BR': {
    builtin: 'embutido',
    acs: 'ACS {v}',
    noAcs: 'ACS não informada',
    unknown: '{id} (fora do catálogo)',
  },
  en: {
    builtin: 'built-in',
    acs: 'ACS {v}',
    noAcs: 'ACS not stated',
    unknown: '{id} (not in the catalogue)',
  },
};

function words(ctx) {
  const s = STRINGS[ctx.lang] || STRINGS['pt-BR'];
  return (k, v) => s[k].replace(/\{(\w+)\}/g, (m, x) => (v && v[x] !== undefined ? String(v[x]) : m));
}

// loadEquipment reads the catalogue: { radios, antennas } (kinds: which
// lists to read, default both).
export async function loadEquipment(ctx, kinds = ['radios', 'antennas']) {
  const got = await Promise.all(kinds.map((k) => ctx.api('GET', `/equipment/${k}`, { signal: ctx.signal })));
  const out = { radios: [], antennas: [] };
  kinds.forEach((k, i) => { out[k] = (got[i] && got[i][k]) || []; });
  return out;
}

// equipmentLabel is an item's name, extra in brackets, and a mark on the
// built-in examples.
export function equipmentLabel(ctx, x, extra) {
  return `${x.name}${extra ? ` (${extra})` : ''}${x.builtin ? ` · ${words(ctx)('builtin')}` : ''}`;
}

// radioOptions fills select with the radios (each labelled with its
// adjacent-channel selectivity when withAcs), after a first option
// none ({ value: '', text }) when given, selecting selected; a selected id
// the list lacks (a radio deleted since) stays as an option of its own, so
// that the API's answer names it.
export function radioOptions(ctx, select, radios, selected, { none, withAcs } = {}) {
  const w = words(ctx);
  const opt = (value, text) => {
    const o = document.createElement('option');
    o.value = value;
    o.textContent = text;
    if (value === selected) o.selected = true;
    return o;
  };
  const opts = [];
  if (none) opts.push(opt('', none));
  for (const r of radios) {
    const acs = withAcs ? (r.acs_db === null || r.acs_db === undefined ? w('noAcs') : w('acs', { v: ctx.fmt.unit(r.acs_db, 'dB', 0) })) : '';
    opts.push(opt(r.id, equipmentLabel(ctx, r, acs)));
  }
  if (selected && !radios.some((r) => r.id === selected)) opts.push(opt(selected, w('unknown', { id: selected })));
  select.replaceChildren(...opts);
  select.value = selected || '';
}
