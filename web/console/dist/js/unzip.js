// unzip.js: reads one file of a zip archive held in memory (a job's
// bundle, GET /jobs/{id}/download), so that the page can show what the
// bundle holds without another route. The central directory (APPNOTE
// 4.3.12) gives each entry's method, sizes and local header offset (Go's
// archive/zip streams its entries with data descriptors, so the local
// header's sizes are zero and only the central directory's count); stored
// (0) and deflated (8) entries are read, the latter with the browser's
// DecompressionStream('deflate-raw'). No zip64 (a bundle is far below
// 4 GiB).

const EOCD = 0x06054b50;
const CDH = 0x02014b50;
const LFH = 0x04034b50;

// zipEntry returns the bytes of the entry called name in buf (an
// ArrayBuffer), or null when the archive has no such entry; a malformed
// archive or an unknown method is an Error.
export async function zipEntry(buf, name) {
  const v = new DataView(buf);
  let e = -1;
  for (let i = buf.byteLength - 22; i >= Math.max(0, buf.byteLength - 22 - 65535); i--) {
    if (v.getUint32(i, true) === EOCD) { e = i; break; }
  }
  if (e < 0) throw new Error('zip: no end of central directory');
  const count = v.getUint16(e + 10, true);
  let p = v.getUint32(e + 16, true);
  const dec = new TextDecoder();
  for (let k = 0; k < count; k++) {
    if (p + 46 > buf.byteLength || v.getUint32(p, true) !== CDH) throw new Error('zip: bad central directory');
    const method = v.getUint16(p + 10, true);
    const csize = v.getUint32(p + 20, true);
    const nlen = v.getUint16(p + 28, true);
    const xlen = v.getUint16(p + 30, true);
    const clen = v.getUint16(p + 32, true);
    const off = v.getUint32(p + 42, true);
    const n = dec.decode(new Uint8Array(buf, p + 46, nlen));
    p += 46 + nlen + xlen + clen;
    if (n !== name) continue;
    if (v.getUint32(off, true) !== LFH) throw new Error('zip: bad local header');
    const start = off + 30 + v.getUint16(off + 26, true) + v.getUint16(off + 28, true);
    if (start + csize > buf.byteLength) throw new Error('zip: entry past the end');
    const data = new Uint8Array(buf, start, csize);
    if (method === 0) return data.slice();
    if (method !== 8) throw new Error(`zip: method ${method}`);
    const out = new Blob([data]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
    return new Uint8Array(await new Response(out).arrayBuffer());
  }
  return null;
}

// parseCSV reads RFC 4180 CSV (comma separator, double-quoted cells with
// "" for a quote, CRLF or LF line ends, an optional UTF-8 BOM) into rows
// of cells.
export function parseCSV(text) {
  const rows = [];
  let row = [];
  let cell = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') { cell += '"'; i++; } else quoted = false;
      } else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(cell); cell = ''; }
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell); rows.push(row); row = []; cell = '';
    } else cell += c;
  }
  if (cell !== '' || row.length) { row.push(cell); rows.push(row); }
  return rows;
}
