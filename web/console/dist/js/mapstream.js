// mapstream.js: the streamed maps of the Coverage, Raytrace and Network
// maps screens, one code path. A map is asked for with a POST whose answer
// is a text/event-stream (fetch + readSSE: EventSource cannot send the API
// key) of started, queued, progress, tile, summary and error events. The
// stream draws the progress bar, the map's id line and the tile count in
// the screen's status box, each tile on the screen's tile layer as it
// arrives, the summary at the end (its heading then gets the focus), and
// keeps the map in the screen's memo (the started event, up to KEEP_TILES
// tiles, the summary), so that a language switch or a return redraws it.
// Leaving the screen (ctx.signal) or the cancel button aborts the stream,
// which cancels a map still computing.
//
// The screen gives its words through ctx.t (keys mapId, queued, tiles,
// progress, failed, canceled) and the element ids of its status lines.

import { ApiError, readSSE } from './api.js';

// KEEP_TILES bounds the tiles a tab keeps of its last map (about 130 KB of
// base64 each at 256 px).
export const KEEP_TILES = 200;

// mapBounds is the [[south, west], [north, east]] of a started event.
export function mapBounds(d) {
  return [[d.north - d.height * d.pixel_lat_deg, d.west], [d.north, d.west + d.width * d.pixel_lon_deg]];
}

// drawRGBA lays the tile's RGBA pixels over its bounds on layer, as an
// image of class className.
export function drawRGBA(layer, tile, rgba, className) {
  const canvas = document.createElement('canvas');
  canvas.width = tile.width;
  canvas.height = tile.height;
  canvas.getContext('2d').putImageData(new ImageData(rgba, tile.width, tile.height), 0, 0);
  window.L.imageOverlay(canvas.toDataURL('image/png'), [[tile.south, tile.west], [tile.north, tile.east]], { opacity: 1, className, alt: '' }).addTo(layer);
}

// exportButtons are the export buttons of map mapId (GET
// /coverage/heatmap/{id}/export?format=...): a toast names the file saved,
// a refusal is shown in errorHost.
export function exportButtons(ctx, mapId, formats, errorHost) {
  const { el, errorBox } = ctx.ui;
  return formats.map((f) => el('button', {
    type: 'button', text: f, dataset: { format: f },
    onclick: async () => {
      try {
        const got = await ctx.download(`/coverage/heatmap/${encodeURIComponent(mapId)}/export`, null, { query: { format: f } });
        ctx.toast(ctx.t('exported', { name: got.name, size: ctx.fmt.bytes(got.size) }), 'ok');
      } catch (err) { errorHost.append(errorBox(err, ctx.t)); }
    },
  }));
}

// mapStream returns the stream of one screen:
//
//	map, tiles   the Leaflet map and the layer the tiles go on
//	status       the box of the id line, the progress bar and the tile count
//	cancelBtn    shown while a map streams; a click aborts it
//	ids          { mapLine, tiles }: the ids of the id line and tile count
//	memoKey      the key of ctx.memo that keeps the last map
//	drawTile(tile, started)          draws one tile
//	showSummary(summary, mapId, started)  draws the summary
//	summaryTitle the id of the summary's heading (focused when it is drawn)
//	onStarted(started)               optional: more to do on the started event
//
// start(path, body, { form, startBtn, allowed }) streams a map; stop()
// aborts the one streaming; restore() redraws the memo's map (true when
// there was one).
export function mapStream(ctx, o) {
  const { el, errorBox, progress } = ctx.ui;
  const { t, fmt } = ctx;
  let run = null;
  const stop = () => { if (run) { run.abort(); run = null; } };
  o.cancelBtn.addEventListener('click', () => { stop(); o.status.replaceChildren(el('p', { text: t('canceled') })); });

  const start = async (path, body, { form, startBtn, allowed = true }) => {
    stop();
    const abort = new AbortController();
    ctx.signal.addEventListener('abort', () => abort.abort());
    run = abort;
    startBtn.disabled = true;
    o.cancelBtn.hidden = false;
    const bar = progress(0, 1, t('progress'));
    const mapLine = el('p', { class: 'note', id: o.ids.mapLine });
    const tileCount = el('p', { id: o.ids.tiles });
    o.status.append(mapLine, bar, tileCount);
    let started = null;
    let mapId = null;
    let tiles = 0;
    const kept = { started: null, tiles: [], summary: null, mapId: null };
    ctx.memo[o.memoKey] = kept;
    try {
      const res = await ctx.apiRaw('POST', path, { json: body, signal: abort.signal, headers: { Accept: 'text/event-stream' } });
      if (!res.ok) throw new ApiError(res.status, await res.json().catch(() => null), res.statusText);
      mapId = res.headers.get('X-Map-Id');
      await readSSE(res, (ev) => {
        const data = JSON.parse(ev.data);
        if (ev.event === 'started') {
          started = data;
          mapId = data.map_id;
          kept.started = data;
          kept.mapId = data.map_id;
          if (o.onStarted) o.onStarted(data);
          o.map.fitBounds(mapBounds(data), { padding: [12, 12] });
          mapLine.textContent = t('mapId', { id: data.map_id, engine: data.engine });
          tileCount.textContent = t('tiles', { n: 0, total: data.tiles });
        } else if (ev.event === 'queued') {
          mapLine.textContent = t('queued', { n: data.queue_position !== undefined ? data.queue_position : '?' });
        } else if (ev.event === 'progress') {
          const p = bar.querySelector('progress');
          if (data.total_radials) { p.max = data.total_radials; p.value = data.done_radials; }
          bar.querySelector('.progress-text').textContent = `${t('progress')}: ${fmt.num((data.fraction || 0) * 100, 0)} %`;
        } else if (ev.event === 'tile' && started) {
          o.drawTile(data, started);
          if (kept.tiles.length < KEEP_TILES) kept.tiles.push(data);
          tiles += 1;
          tileCount.textContent = t('tiles', { n: tiles, total: started.tiles });
        } else if (ev.event === 'summary') {
          kept.summary = data;
          o.showSummary(data, mapId || '', started);
          ctx.showResult(document.getElementById(o.summaryTitle));
        } else if (ev.event === 'error') {
          o.status.append(errorBox({ message: t('failed', { msg: data.message }), code: data.code, field: null }, t));
        }
      }, abort.signal);
    } catch (err) {
      if (err && err.name !== 'AbortError') o.status.append(errorBox(err, t, form));
    } finally {
      if (run === abort) run = null;
      startBtn.disabled = !allowed;
      o.cancelBtn.hidden = true;
    }
  };

  const restore = () => {
    const again = ctx.memo[o.memoKey];
    if (!again || !again.started || !again.summary) return false;
    const d = again.started;
    o.map.fitBounds(mapBounds(d), { padding: [12, 12] });
    if (o.onStarted) o.onStarted(d);
    for (const tile of again.tiles) o.drawTile(tile, d);
    o.showSummary(again.summary, again.mapId || d.map_id, d);
    return true;
  };

  return { start, stop, restore };
}
