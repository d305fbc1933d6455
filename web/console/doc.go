// Package console serves linkplan's built-in web console: plain ES modules,
// CSS and a vendored Leaflet, committed under web/console/dist and embedded
// in the binary with go:embed (a headless build, go build -tags noconsole,
// embeds nothing and answers 404 on every console path). There is no
// bundler and no build step for the console's own code: what is committed
// is what is served, readable as written.
//
// # Basics
//
// The composition root (appliance/cmd/linkplan) sends the paths Owns
// reports, "/", "/index.html" and everything under /css/, /js/, /vendor/
// and /data/, to Handler and every other path to the API; no API route
// starts with one of them (a test checks each path of the OpenAPI
// document). Handler serves GET and HEAD of the files read at New, 404 for
// any other path (no directory listing, no SPA fallback: the console routes
// with the URL hash, /#/link, /#/batch, ...), and 405 with Allow for other
// methods.
//
// Every answer carries the Content-Security-Policy ContentSecurityPolicy
// (no inline script or style, no outside origin: scripts, styles, fetches
// and images come from the appliance only; images may also be data: and
// blob: URLs), X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer
// and X-Frame-Options: DENY. The media type comes from a fixed table by
// extension (New refuses a file whose extension is not in it). index.html,
// the JS, CSS and data files are not content-hashed, so they are sent with
// Cache-Control: no-cache and a strong ETag (SHA-256): browsers revalidate
// and get a 304 when nothing changed. Files under /vendor/ change only with
// their pinned npm version and are cached for VendorMaxAge.
// Text files of 1 KiB or more (HTML, JS, CSS, JSON) are also kept gzipped
// (best compression, computed once at New) and sent so to a client whose
// Accept-Encoding allows gzip, with Vary: Accept-Encoding and an ETag of
// their own (suffix -gz): the basemap data is 923 KB as is and about
// 220 KB gzipped, which matters to a field engineer on a phone link.
//
// # Layout of dist
//
//	index.html              the page: header, nav, <main>; loads
//	                        vendor/leaflet/leaflet.js (global L) then js/app.js
//	css/app.css             shell and map screens; css/forms.css: form screens
//	js/app.js               router, navigation, sign-in state, language,
//	                        branding, toasts, the TOTP modal, ctx
//	js/api.js               fetch wrapper: credential, ApiError, SSE reader
//	js/i18n.js js/fmt.js    languages (pt-BR default, en) and number/unit
//	                        formatting per locale
//	js/ui.js                DOM helpers (el, field, table, errorBox,
//	                        progress, modal)
//	js/map.js               createMap: Leaflet with the offline basemap
//	js/chart.js             the path profile chart (SVG); its end heights are
//	                        draggable handles (role slider: arrows, Enter)
//	js/caveats.js           the caveats box (warnings first, translated,
//	                        tied to the figure they qualify) of repeater,
//	                        batch, raytrace, network-map and residual results
//	js/mapstream.js         the streamed maps of the Coverage, Raytrace and
//	                        Network maps screens (SSE events, tiles drawn as
//	                        they arrive, summary, cancel, the tab's memo)
//	js/equipment.js         the equipment catalogue as the PtP and Network
//	                        maps screens list it (radios, antennas)
//	js/jobs.js              following a job (GET /jobs/{id}) and its failure
//	                        in the user's language
//	js/rtjob.js             the job view of a per-link ray trace (engine
//	                        raytrace on the Link screen)
//	js/unzip.js             reads one file of a job's zip bundle in the page
//	                        (batch job rows, residual report)
//	js/formkit.js           DOM helpers shared by the form screens (batch,
//	                        observations, account, admin)
//	js/screens/<id>.js      one module per screen (signin, link, towers,
//	                        coverage, raytrace, netmaps, repeater, ptp: the
//	                        shell's; batch, observations, account, admin:
//	                        the forms')
//	vendor/leaflet/         Leaflet 1.9.4, copied from build/console's pinned
//	                        npm package by make console-vendor (committed)
//	data/                   bundled basemap data: outlines.json,
//	                        municipalities.json
//
// # Screens
//
// A screen is a module js/screens/<id>.js whose default export is
//
//	{ id: 'batch', nav: true, titleKey: 'title',
//	  strings: { 'pt-BR': {title: 'Lote', ...}, en: {title: 'Batch', ...} },
//	  visible(session) { return true },   // optional: hide from nav
//	  render(root, ctx) { ...; return cleanup } }
//
// The shell puts the screen's title in an h1 (focused on navigation, so
// that screen readers and keyboard users start there) and calls render
// with an empty <section> below it: a screen's own headings start at h2.
// render may be async and may return a cleanup function, called when the
// user leaves (close streams, abort fetches; ctx.signal is also aborted
// then). Strings live in the module; ctx.t looks a key up in the screen's
// strings, then in the shell's.
//
// ctx holds: api(method, path, {json, form, query, headers, signal}) →
// the parsed JSON (null for 204), throwing ApiError {status, code,
// message, field, body} on a non-2xx answer; apiRaw (the fetch Response,
// for streams); download(path, filename, opts); adminTotp() → a 6-digit
// code from an accessible modal (rejects on cancel); t(key, vars); lang
// ('pt-BR' or 'en'); fmt.num, fmt.unit (always prints the unit), fmt.date,
// fmt.bytes; session {tenant, tier, role, keyPrefix, admin, sso};
// toast(msg, kind); go(screenId); ui (js/ui.js); signal; memo (the
// screen's memory in this tab: a screen stores its last result there and
// draws it again at render, so that a language switch or a return keeps
// it); showResult(heading) (scrolls a new result into view and focuses its
// heading). The shell also keeps the values of a screen's fields (by id,
// in memory and sessionStorage; not files, passwords or anything inside
// data-no-keep) and restores them after render with input and change
// events.
// The requests of api, apiRaw and download carry the screen's signal:
// leaving a screen aborts them, and a screen awaiting one never resumes
// (it cannot draw into removed elements or a removed map).
//
// A form that stores something (a route needing write permission) carries
// the attribute data-writes; for a read-only key the shell disables its
// controls after render and puts a note at its top saying why.
//
// The shell marks the Performance API with "lp-screen-<id>" when a
// screen's render has returned (the browser tests' first-paint figure).
//
// To add a screen: write js/screens/<id>.js as above, add its id to
// SCREEN_IDS in js/app.js (navigation order), style it in a CSS file
// linked from index.html, and give it a browser test (screenshots at
// 1366×768 and 390×844, axe-core clean) in appliance/cmd/linkplan.
//
// # Map
//
// js/map.js createMap(container, ctx, {center, zoom}) gives a Leaflet map
// (no zoom animation: a screen left mid-animation would make Leaflet throw;
// remove() stops pans first) with the appliance's own basemap, each part
// added only when the appliance serves it (probed once per page): the
// hillshade tiles /tiles/hillshade/{z}/{x}/{y}.png, the outlines
// data/outlines.json and the municipality labels data/municipalities.json
// (shown from zoom 9, at most 250 in view, capitals first and none drawn
// over another: labelBoxes). There is never an outside tile server.
//
// # Search
//
// The Link screen's search box finds, in this order: coordinates
// (js/geoparse.js, parsed in the page: decimal degrees with a point or a
// decimal comma, and degrees-minutes-seconds with S/N/W/O/E/L), a tower by
// its id (GET /towers/{id}), municipalities (GET /places: names of the 5,571
// IBGE municipalities, no neighbourhoods or streets: the appliance has no
// such data), then the towers' full text (GET /towers?q=: station numbers,
// operators, municipalities, addresses and the tenant's own registered
// towers, which are the tenant's own sites).
//
// # Caveats
//
// Rules every file follows, because the CSP enforces them or the appliance
// runs air-gapped: no inline <script> or style="" attribute (set el.style
// from JS instead); text goes into the DOM through textContent, never
// innerHTML with data; every request goes to the appliance's own origin (no
// CDN, no web font, no outside tile server). The API key is kept in the
// tab's sessionStorage (gone when the tab closes) and sent as X-API-Key;
// after single sign-on the ID token is sent as Authorization: Bearer.
// The sign-in screen shows its SSO button when GET /auth/oidc/config
// answers enabled: true (that route keeps no state, unlike starting a
// login).
// Single sign-on from the console needs the console's root URL registered
// as the OIDC redirect URL (--oidc-redirect-url https://host/): the issuer
// sends the browser back to the console with ?code=&state=, which the
// console exchanges at /auth/oidc/callback.
package console
