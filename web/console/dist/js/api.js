// api.js: the console's only door to the appliance's HTTP API. Every
// request goes to this origin, with the session's credential: X-API-Key,
// or Authorization: Bearer <ID token> after single sign-on.

// ApiError is a non-2xx answer, parsed from the API's structured error
// body {"error": {code, message, request_id, fields: [{field, reason}]}}.
export class ApiError extends Error {
  constructor(status, body, fallback) {
    const e = (body && body.error) || {};
    super(e.message || fallback || `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = e.code || (status === 0 ? 'network' : 'http_' + status);
    const f = Array.isArray(e.fields) && e.fields.length ? e.fields[0] : null;
    this.field = f ? f.field : null;
    this.reason = f ? f.reason : null;
    this.fields = Array.isArray(e.fields) ? e.fields : [];
    this.requestId = e.request_id || null;
    this.body = body;
  }
}

// createClient returns {api, apiRaw, download} bound to getCredential, a
// function answering {apiKey} or {bearer} (or null before sign-in).
export function createClient(getCredential) {
  function buildRequest(method, path, opts = {}) {
    if (typeof path !== 'string' || !path.startsWith('/') || path.startsWith('//')) {
      throw new TypeError('api paths are absolute paths of this origin: ' + path);
    }
    let url = path;
    if (opts.query) {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(opts.query)) {
        if (v === undefined || v === null || v === '') continue;
        if (Array.isArray(v)) v.forEach((x) => q.append(k, String(x)));
        else q.append(k, String(v));
      }
      const s = q.toString();
      if (s) url += (url.includes('?') ? '&' : '?') + s;
    }
    const headers = new Headers(opts.headers || {});
    const cred = getCredential();
    if (cred && cred.apiKey && !headers.has('X-API-Key')) headers.set('X-API-Key', cred.apiKey);
    else if (cred && cred.bearer && !headers.has('Authorization')) headers.set('Authorization', 'Bearer ' + cred.bearer);
    let body;
    if (opts.json !== undefined) {
      headers.set('Content-Type', 'application/json');
      body = JSON.stringify(opts.json);
    } else if (opts.form !== undefined) {
      body = opts.form; // FormData: the browser sets the multipart boundary
    } else if (opts.body !== undefined) {
      body = opts.body;
    }
    if (!headers.has('Accept')) headers.set('Accept', 'application/json');
    return new Request(url, { method, headers, body, signal: opts.signal, credentials: 'same-origin', redirect: opts.redirect || 'follow' });
  }

  async function apiRaw(method, path, opts = {}) {
    try {
      return await fetch(buildRequest(method, path, opts));
    } catch (err) {
      if (err && err.name === 'AbortError') throw err;
      throw new ApiError(0, null, 'network error: ' + (err && err.message ? err.message : String(err)));
    }
  }

  async function errorOf(res) {
    let body = null;
    const ct = res.headers.get('Content-Type') || '';
    try {
      body = ct.includes('json') ? await res.json() : { error: { message: (await res.text()).trim() } };
    } catch (_) {
      body = null;
    }
    return new ApiError(res.status, body, res.statusText);
  }

  async function api(method, path, opts = {}) {
    const res = await apiRaw(method, path, opts);
    if (!res.ok) throw await errorOf(res);
    if (res.status === 204) return null;
    const ct = res.headers.get('Content-Type') || '';
    if (!ct.includes('json')) return await res.text();
    const text = await res.text();
    return text ? JSON.parse(text) : null;
  }

  // download fetches path with the credential and saves the answer under
  // filename (or the server's Content-Disposition name) via an object URL.
  async function download(path, filename, opts = {}) {
    const res = await apiRaw(opts.method || 'GET', path, opts);
    if (!res.ok) throw await errorOf(res);
    const blob = await res.blob();
    let name = filename;
    const cd = res.headers.get('Content-Disposition') || '';
    const m = /filename="?([^";]+)"?/i.exec(cd);
    if (!name && m) name = m[1];
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = name || 'download';
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    return { name: a.download, size: blob.size, type: blob.type };
  }

  return { api, apiRaw, download, errorOf };
}

// readSSE reads a text/event-stream Response body (fetch + ReadableStream,
// because EventSource cannot send the API key) and calls onEvent({event,
// data, id}) for each event; it resolves when the stream ends.
export async function readSSE(res, onEvent, signal) {
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let buf = '';
  let ev = { event: 'message', data: [], id: null };
  const flush = () => {
    if (ev.data.length) onEvent({ event: ev.event, data: ev.data.join('\n'), id: ev.id });
    ev = { event: 'message', data: [], id: null };
  };
  try {
    for (;;) {
      if (signal && signal.aborted) break;
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let nl;
      while ((nl = buf.search(/\r?\n/)) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf[nl] === '\r' ? 2 : 1));
        if (line === '') { flush(); continue; }
        if (line.startsWith(':')) continue;
        const i = line.indexOf(':');
        const field = i < 0 ? line : line.slice(0, i);
        let val = i < 0 ? '' : line.slice(i + 1);
        if (val.startsWith(' ')) val = val.slice(1);
        if (field === 'event') ev.event = val;
        else if (field === 'data') ev.data.push(val);
        else if (field === 'id') ev.id = val;
      }
    }
    flush();
  } finally {
    try { reader.releaseLock(); } catch (_) { /* already released */ }
  }
}
