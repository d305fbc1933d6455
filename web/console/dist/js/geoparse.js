// geoparse.js: coordinates typed or pasted into a search box, in the forms
// engineers use (WGS84 degrees, latitude first):
//
//   -22.95, -43.2          decimal degrees, comma, space or semicolon
//   -22,95; -43,2          decimal commas (then ; or space between)
//   22°57'S 43°12'W        degrees, minutes, seconds with a hemisphere
//   22°57'30.5"S 43°12'W   (S/N, W/O for oeste, E/L for leste; ′ ″ ’ ” too)
//   S 22 57 30 W 43 12 0   hemisphere first, parts by spaces
//
// parseCoords returns {lat, lon} or null when the text is not one of them
// or is out of range (|lat| ≤ 90, |lon| ≤ 180).

const HEMI = { N: 1, S: -1, E: 1, L: 1, W: -1, O: -1 };

function inRange(lat, lon) {
  return Number.isFinite(lat) && Number.isFinite(lon) && Math.abs(lat) <= 90 && Math.abs(lon) <= 180 ? { lat, lon } : null;
}

// dms reads one angle: degrees, optional minutes and seconds (each given
// by a symbol or a space), with a hemisphere letter before or after.
function dms(part) {
  const s = part.trim().toUpperCase().replace(/[′’']/g, "'").replace(/[″”"]|''/g, '"').replace(/,/g, '.');
  const m = /^([NSEWLO])?\s*(\d{1,3}(?:\.\d+)?)\s*(?:°|º|D|\s|(?=[NSEWLO]$))\s*(?:(\d{1,2}(?:\.\d+)?)\s*(?:'|M|\s)?\s*)?(?:(\d{1,2}(?:\.\d+)?)\s*(?:"|S(?=\s*[NSEWLO]?$))?\s*)?([NSEWLO])?$/.exec(s);
  if (!m) return null;
  const hemi = m[1] || m[5];
  if (!hemi || (m[1] && m[5])) return null;
  const deg = Number(m[2]);
  const min = m[3] === undefined ? 0 : Number(m[3]);
  const sec = m[4] === undefined ? 0 : Number(m[4]);
  if (min >= 60 || sec >= 60) return null;
  return { v: HEMI[hemi] * (deg + min / 60 + sec / 3600), axis: 'NS'.includes(hemi) ? 'lat' : 'lon' };
}

export function parseCoords(text) {
  if (typeof text !== 'string') return null;
  const s = text.trim();
  if (!s || s.length > 80) return null;
  // Decimal degrees.
  const num = '([+-]?\\d{1,3}(?:[.,]\\d+)?)';
  let m = new RegExp(`^${num}\\s*[;\\s]\\s*${num}$`).exec(s) || new RegExp(`^([+-]?\\d{1,3}(?:\\.\\d+)?)\\s*,\\s*([+-]?\\d{1,3}(?:\\.\\d+)?)$`).exec(s);
  if (m) return inRange(Number(m[1].replace(',', '.')), Number(m[2].replace(',', '.')));
  // Degrees, minutes, seconds: the first split into two angles of
  // different axes (at a separator, or right after a hemisphere letter).
  const up = s.toUpperCase();
  let a = null;
  let b = null;
  for (let i = 1; i < up.length && !(a && b); i++) {
    if (!/[\s,;]/.test(up[i]) && !/[NSEWLO]/.test(up[i - 1])) continue;
    const x = dms(up.slice(0, i).replace(/[\s,;]+$/, ''));
    const y = x && dms(up.slice(i).replace(/^[\s,;]+/, ''));
    if (x && y && x.axis !== y.axis) { a = x; b = y; }
  }
  if (!a || !b) return null;
  return a.axis === 'lat' ? inRange(a.v, b.v) : inRange(b.v, a.v);
}
