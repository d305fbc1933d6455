//go:build systemtools

package browsertest_test

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// pageNumber reads a figure the console printed in pt-BR or English
// ("12,34 km²", "1.234" or "12.34 km²", "1,234"): the text before the
// unit's no-break space, with the language's grouping removed.
func pageNumber(t *testing.T, text, lang string) float64 {
	t.Helper()
	s, _, _ := strings.Cut(strings.TrimSpace(text), "\u00a0")
	if lang == "pt-BR" {
		s = strings.ReplaceAll(strings.ReplaceAll(s, ".", ""), ",", ".")
	} else {
		s = strings.ReplaceAll(s, ",", "")
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, "−", "-"), 64)
	if err != nil {
		t.Fatalf("%q is not a number on the page: %v", text, err)
	}
	return v
}

// clickMapCentre clicks the centre of the map element id as a user would.
func clickMapCentre(id string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		box, err := chromedp.Run(ctx, chromedp.Dimensions(chromedp.ID(id)))
		if err != nil {
			return err
		}
		q := box.Content
		return chromedp.Do(ctx, chromedp.MouseClickXY((q[0]+q[2])/2, (q[1]+q[5])/2))
	})
}

// netmapState is GET /coverage/heatmap/{id}'s summary of a network map.
type netmapState struct {
	Summary struct {
		InRadiusPixels int          `json:"in_radius_pixels"`
		Warnings       []apiWarning `json:"warnings"`
		Detail         struct {
			Kind             string `json:"kind"`
			ValidPixels      int    `json:"valid_pixels"`
			InterferedPixels int    `json:"interfered_pixels"`
			SINRAreas        []struct {
				ThresholdDB float64 `json:"threshold_db"`
				AreaKm2     float64 `json:"area_km2"`
			} `json:"sinr_areas"`
			VisibleKm2      float64 `json:"visible_km2"`
			VisiblePct      float64 `json:"visible_pct"`
			FresnelClearKm2 float64 `json:"fresnel_clear_km2"`
		} `json:"detail"`
	} `json:"summary"`
}

// netmapOnPage waits for the Network maps screen's summary and returns
// the API's own state of the map the page names.
func netmapOnPage(t *testing.T, env *consoleEnv, tb *tab, key string) netmapState {
	t.Helper()
	waitLong(t, tb, "the summary", `!!document.getElementById('nm-summary-card') || !!document.querySelector('#nm-status .error-box')`, 180*time.Second)
	if msg := eval[string](t, tb, `(document.querySelector('#nm-status .error-box') || {}).innerText || ''`); msg != "" {
		t.Fatalf("the map failed: %s", msg)
	}
	if n := eval[int](t, tb, `document.querySelectorAll('#nm-map img.nm-tile').length`); n == 0 {
		t.Error("no tile drawn")
	}
	if !eval[bool](t, tb, `document.activeElement && document.activeElement.id === 'nm-summary-title'`) {
		t.Error("the focus is not on the summary's heading")
	}
	mapID := eval[string](t, tb, `(document.getElementById('nm-map-id').textContent.match(/\S+(?= \()/) || [''])[0].replace(/^Mapa /, '')`)
	r := env.srv.call(t, "GET", "/coverage/heatmap/"+mapID, map[string]string{"X-API-Key": key}, "")
	var st netmapState
	if err := json.Unmarshal(r.body, &st); err != nil || r.status != 200 {
		t.Fatalf("GET /coverage/heatmap/%s: %d %s", mapID, r.status, r.body)
	}
	return st
}

// checkNetmapCaveats: every caveat of the API's summary is on the page,
// above the figure and tied to it, never the API's English sentence in
// pt-BR.
func checkNetmapCaveats(t *testing.T, tb *tab, st netmapState, figure string) {
	t.Helper()
	got := readCaveats(t, tb, "nm-caveats", figure)
	for _, w := range st.Summary.Warnings {
		if !strings.Contains(","+strings.Join(got.Codes, ",")+",", ","+w.Code+",") {
			t.Errorf("the summary's caveat %s is not on the page (%v)", w.Code, got.Codes)
		}
		for i, txt := range got.Texts {
			if w.Message != "" && strings.Contains(txt, w.Message) {
				t.Errorf("pt-BR caveat %d is the API's English sentence: %q", i, txt)
			}
		}
	}
	if len(got.Codes) > 0 && (!got.Above || !got.Described) {
		t.Errorf("the caveats are not above the figure and tied to it: %+v", got)
	}
}

// TestIssue27_InterferenceScreen: the Network maps screen's interference
// mode streams POST /coverage/interference for two sites typed in (a Pro
// key): SINR tiles drawn with the SINR legend and the best-server
// boundaries, the summary's SINR areas, valid and interfered pixels equal
// to the API's own summary of the same map, caveats first, three
// exports; a Free key sees the form disabled with the reason.
func TestIssue27_InterferenceScreen(t *testing.T) {
	env := startConsole(t)
	free, _ := env.issueKey(t, "Free")
	env.srv.WaitRaytraceWorkerOK(t)

	tb := openConsole(t, env)
	signIn(t, tb, free)
	goScreen(t, tb, "netmaps")
	waitFor(t, tb, "the tier note", `!document.getElementById('nm-if-tier').hidden && /Free/.test(document.getElementById('nm-if-tier').textContent)`)
	if n := eval[int](t, tb, `[...document.querySelectorAll('#nm-if-form input, #nm-if-form select, #nm-if-form button')].filter(c => !c.disabled).length`); n != 0 {
		t.Errorf("a Free key has %d enabled controls on the interference form", n)
	}
	axe(t, tb)
	tb.run(t, "sign out", chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("signin-key")))

	signIn(t, tb, env.key) // Pro
	goScreen(t, tb, "netmaps")
	// One site from the map (a click on its centre), one from the button.
	tb.run(t, "a site from the map", clickMapCentre("nm-map"))
	waitFor(t, tb, "the site row of the click", `!!document.getElementById('nm-site-0-lat') && document.getElementById('nm-site-0-lat').value !== ''`)
	tb.run(t, "two sites", chromedp.Click(chromedp.ID("nm-add-site")),
		typeInto("nm-site-0-lat", "-22.93"), typeInto("nm-site-0-lon", "-43.30"), typeInto("nm-site-0-azimuth_deg", "90"),
		typeInto("nm-site-1-lat", "-22.95"), typeInto("nm-site-1-lon", "-43.27"), typeInto("nm-site-1-azimuth_deg", "270"),
		typeInto("nm-if-radius", "3"), typeInto("nm-if-freq", "1800"), typeInto("nm-bandwidth", "20"), typeInto("nm-noise-figure", "7"))
	if n := eval[int](t, tb, `document.querySelectorAll('#nm-map .nm-site').length`); n != 2 {
		t.Errorf("%d site markers on the map, want 2", n)
	}
	tb.run(t, "compute", chromedp.Click(chromedp.ID("nm-if-start")))
	st := netmapOnPage(t, env, tb, env.key)
	d := st.Summary.Detail
	if d.Kind != "interference" || len(d.SINRAreas) == 0 {
		t.Fatalf("the API's summary: %+v", st.Summary)
	}
	if got := eval[string](t, tb, `document.getElementById('nm-valid').textContent`); !strings.HasPrefix(strings.ReplaceAll(got, ".", ""), strconv.Itoa(d.ValidPixels)+" / "+strconv.Itoa(st.Summary.InRadiusPixels)) {
		t.Errorf("valid pixels %q on the page, %d / %d in the API's summary", got, d.ValidPixels, st.Summary.InRadiusPixels)
	}
	if got := pageNumber(t, eval[string](t, tb, `document.getElementById('nm-interfered').textContent`), "pt-BR"); got != float64(d.InterferedPixels) {
		t.Errorf("interfered pixels %g on the page, %d in the API's summary", got, d.InterferedPixels)
	}
	areas := eval[[]string](t, tb, `[...document.querySelectorAll('#nm-sinr-areas td.nm-area')].map(e => e.textContent)`)
	if len(areas) != len(d.SINRAreas) {
		t.Fatalf("%d SINR areas on the page, %d in the API's summary", len(areas), len(d.SINRAreas))
	}
	for i, a := range d.SINRAreas {
		if got := pageNumber(t, areas[i], "pt-BR"); math.Abs(got-a.AreaKm2) > 0.0051 {
			t.Errorf("SINR ≥ %g dB: %g km² on the page, %g km² in the API's summary", a.ThresholdDB, got, a.AreaKm2)
		}
	}
	if !eval[bool](t, tb, `/SINR/.test(document.getElementById('nm-legend').textContent) && document.querySelectorAll('#nm-legend .swatch').length === 6`) {
		t.Error("the SINR legend (five classes and the boundary) is not on the map")
	}
	checkNetmapCaveats(t, tb, st, "nm-valid")
	if got := eval[string](t, tb, `[...document.querySelectorAll('#nm-summary-card [data-format]')].map(b => b.dataset.format).join(',')`); got != "geotiff,geojson,kmz" {
		t.Errorf("export buttons %q, want geotiff,geojson,kmz", got)
	}
	tb.run(t, "export GeoJSON", chromedp.Click(chromedp.CSS(`#nm-summary-card button[data-format="geojson"]`)))
	waitFor(t, tb, "the export", `[...document.querySelectorAll('#toasts .toast')].some(e => /\.geojson/.test(e.textContent)) || !!document.querySelector('#nm-summary .error-box')`)
	if msg := eval[string](t, tb, `(document.querySelector('#nm-summary .error-box') || {}).innerText || ''`); msg != "" {
		t.Errorf("the GeoJSON export failed: %s", msg)
	}
	noLiteralText(t, tb, "interference summary")
	axe(t, tb)
	shot(t, tb, "v2-netmaps-interference")
	switchLang(t, tb, "en")
	waitFor(t, tb, "the map kept in English", `!!document.getElementById('nm-summary-title') && document.getElementById('nm-summary-title').textContent === 'Map summary' && document.querySelectorAll('#nm-map img.nm-tile').length > 0`)
	if n := eval[int](t, tb, `document.querySelectorAll('#nm-sites .nm-site-row').length`); n != 2 {
		t.Errorf("%d site rows after the language switch, want 2", n)
	}
	shot(t, tb, "v2-netmaps-interference")
}

// TestIssue27_ViewshedScreen: the Network maps screen's viewshed mode
// streams POST /coverage/viewshed for a site typed in: class tiles drawn
// with their legend (blocked, line of sight, Fresnel clear), the visible
// km², % and Fresnel-clear km² equal to the API's own summary, caveats
// first, three exports.
func TestIssue27_ViewshedScreen(t *testing.T) {
	env := startConsole(t)
	env.srv.WaitRaytraceWorkerOK(t)
	tb := openConsole(t, env)
	signIn(t, tb, env.key) // Pro
	goScreen(t, tb, "netmaps")
	tb.run(t, "viewshed mode", chromedp.Click(chromedp.ID("nm-mode-viewshed")))
	waitFor(t, tb, "the viewshed form", `!document.getElementById('nm-vs-form').hidden && document.getElementById('nm-if-form').hidden`)
	tb.run(t, "the site from the map", clickMapCentre("nm-map"))
	waitFor(t, tb, "the site of the click", `document.getElementById('nm-vs-lat').value !== '' && document.getElementById('nm-vs-lon').value !== ''`)
	tb.run(t, "site and compute", typeInto("nm-vs-lat", "-22.93"), typeInto("nm-vs-lon", "-43.30"), typeInto("nm-vs-height", "30"),
		typeInto("nm-vs-rx-height", "5"), typeInto("nm-vs-freq", "5800"), typeInto("nm-vs-k", "1.333"), typeInto("nm-vs-radius", "3"))
	if n := eval[int](t, tb, `document.querySelectorAll('#nm-map .nm-site').length`); n != 1 {
		t.Errorf("%d site markers on the map, want 1", n)
	}
	tb.run(t, "compute", chromedp.Click(chromedp.ID("nm-vs-start")))
	st := netmapOnPage(t, env, tb, env.key)
	d := st.Summary.Detail
	if d.Kind != "viewshed" || !(d.VisibleKm2 > 0) {
		t.Fatalf("the API's summary: %+v", st.Summary)
	}
	for _, c := range []struct {
		id   string
		want float64
		tol  float64
	}{{"nm-visible", d.VisibleKm2, 0.0051}, {"nm-visible-pct", d.VisiblePct, 0.051}, {"nm-fresnel", d.FresnelClearKm2, 0.0051}} {
		if got := pageNumber(t, eval[string](t, tb, `document.getElementById('`+c.id+`').textContent`), "pt-BR"); math.Abs(got-c.want) > c.tol {
			t.Errorf("%s: %g on the page, %g in the API's summary", c.id, got, c.want)
		}
	}
	if n := eval[int](t, tb, `document.querySelectorAll('#nm-legend .swatch').length`); n != 3 {
		t.Errorf("%d viewshed classes in the legend, want 3", n)
	}
	checkNetmapCaveats(t, tb, st, "nm-visible")
	if n := eval[int](t, tb, `document.querySelectorAll('#nm-summary-card [data-format]').length`); n != 3 {
		t.Errorf("%d export buttons, want 3", n)
	}
	tb.run(t, "export GeoTIFF", chromedp.Click(chromedp.CSS(`#nm-summary-card button[data-format="geotiff"]`)))
	waitFor(t, tb, "the export", `[...document.querySelectorAll('#toasts .toast')].some(e => /\.tif/.test(e.textContent)) || !!document.querySelector('#nm-summary .error-box')`)
	if msg := eval[string](t, tb, `(document.querySelector('#nm-summary .error-box') || {}).innerText || ''`); msg != "" {
		t.Errorf("the GeoTIFF export failed: %s", msg)
	}
	noLiteralText(t, tb, "viewshed summary")
	axe(t, tb)
	shot(t, tb, "v2-netmaps-viewshed")
	switchLang(t, tb, "en")
	waitFor(t, tb, "the map kept in English", `!!document.getElementById('nm-summary-title') && document.getElementById('nm-summary-title').textContent === 'Map summary' && document.querySelectorAll('#nm-map img.nm-tile').length > 0`)
	if got := pageNumber(t, eval[string](t, tb, `document.getElementById('nm-visible').textContent`), "en"); math.Abs(got-d.VisibleKm2) > 0.0051 {
		t.Errorf("visible area in English %g, the API's %g", got, d.VisibleKm2)
	}
	shot(t, tb, "v2-netmaps-viewshed")
}

// TestIssue27_SiteRadio: each interference site of the Network maps
// screen names a radio of the tenant's catalogue (GET /equipment/radios,
// listed with its adjacent-channel selectivity): the map is computed with
// it (the request carries sites[i].radio_id), and once that radio is
// deleted the API's 422 naming sites[0].radio_id is shown in pt-BR with
// the field's label, the site's radio control marked invalid and focused.
func TestIssue27_SiteRadio(t *testing.T) {
	env := startConsole(t)
	env.srv.WaitRaytraceWorkerOK(t)
	hdr := map[string]string{"X-API-Key": env.key, "Content-Type": "application/json"}
	r := env.srv.call(t, "POST", "/equipment/radios", hdr,
		`{"name":"Radio do provedor","acs_db":45,"bands":[{"min_mhz":1700,"max_mhz":1900}],"channels":[{"width_mhz":20,"modes":[{"name":"QPSK","tx_power_dbm":25,"sensitivity_dbm":-90,"throughput_mbps":20}]}]}`)
	var radio struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(r.body, &radio); err != nil || radio.ID == "" {
		t.Fatalf("POST /equipment/radios: %d %s", r.status, r.body)
	}

	tb := openConsole(t, env)
	signIn(t, tb, env.key)
	goScreen(t, tb, "netmaps")
	tb.run(t, "two sites", chromedp.Click(chromedp.ID("nm-add-site")), chromedp.Click(chromedp.ID("nm-add-site")),
		typeInto("nm-site-0-lat", "-22.93"), typeInto("nm-site-0-lon", "-43.30"),
		typeInto("nm-site-1-lat", "-22.95"), typeInto("nm-site-1-lon", "-43.27"),
		typeInto("nm-if-radius", "3"), typeInto("nm-if-freq", "1800"))
	waitFor(t, tb, "the catalogue's radio in the site's list", `[...document.querySelectorAll('#nm-site-0-radio_id option')].some(o => o.value === '`+radio.ID+`')`)
	if label := eval[string](t, tb, `[...document.querySelectorAll('#nm-site-0-radio_id option')].find(o => o.value === '`+radio.ID+`').textContent`); !strings.Contains(label, "Radio do provedor") || !strings.Contains(label, "ACS 45") {
		t.Errorf("the radio's option reads %q: want its name and its ACS", label)
	}
	if got := eval[string](t, tb, `document.getElementById('nm-site-1-radio_id').value`); got != "" {
		t.Errorf("a new site names radio %q, want none (the map's ACS)", got)
	}
	// What the page sends: the request bodies of the interference route.
	eval[chromedp.Void](t, tb, `(() => { window.__sent = []; const f = window.fetch;
		window.fetch = (r, ...a) => { if (r instanceof Request && r.url.endsWith('/coverage/interference')) r.clone().text().then(b => window.__sent.push(b)); return f(r, ...a); }; })()`)
	tb.run(t, "pick the radio and compute", chromedp.SetValue(chromedp.ID("nm-site-0-radio_id"), radio.ID),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('nm-site-0-radio_id').dispatchEvent(new Event('change', {bubbles: true}))`),
		chromedp.Click(chromedp.ID("nm-if-start")))
	st := netmapOnPage(t, env, tb, env.key)
	if st.Summary.Detail.Kind != "interference" {
		t.Fatalf("the API's summary: %+v", st.Summary)
	}
	var sent struct {
		Sites []struct {
			RadioID *string `json:"radio_id"`
		} `json:"sites"`
	}
	if err := json.Unmarshal([]byte(eval[string](t, tb, `window.__sent[0] || ''`)), &sent); err != nil || len(sent.Sites) != 2 {
		t.Fatalf("the page's request: %v %+v", err, sent)
	}
	if sent.Sites[0].RadioID == nil || *sent.Sites[0].RadioID != radio.ID || sent.Sites[1].RadioID != nil {
		t.Errorf("the request's sites name radios %v and %v, want %s and none", sent.Sites[0].RadioID, sent.Sites[1].RadioID, radio.ID)
	}
	noLiteralText(t, tb, "interference with a radio")

	// The radio deleted meanwhile: the API refuses the site's radio.
	if r := env.srv.call(t, "DELETE", "/equipment/radios/"+radio.ID, hdr, ""); r.status/100 != 2 {
		t.Fatalf("DELETE /equipment/radios/%s: %d %s", radio.ID, r.status, r.body)
	}
	tb.run(t, "compute again", chromedp.Click(chromedp.ID("nm-if-start")))
	waitFor(t, tb, "the refusal", `!!document.querySelector('#nm-status .error-box')`)
	msg := eval[string](t, tb, `document.querySelector('#nm-status .error-box').innerText`)
	if !strings.Contains(msg, "Um valor do formulário não é aceito") || !strings.Contains(msg, "Rádio do catálogo") || strings.Contains(msg, "sites[0].radio_id") {
		t.Errorf("the refusal reads %q: want the pt-BR text and the radio field's label, not its wire name", msg)
	}
	waitFor(t, tb, "the site's radio marked and focused", `document.getElementById('nm-site-0-radio_id').getAttribute('aria-invalid') === 'true' && document.activeElement.id === 'nm-site-0-radio_id'`)
	// A long radio name does not widen the sites past their form.
	if over := eval[float64](t, tb, `document.getElementById('nm-sites').closest('fieldset').getBoundingClientRect().right - document.getElementById('nm-if-form').getBoundingClientRect().right`); over > 1 {
		t.Errorf("the site rows stick out of the form by %.0f px", over)
	}
	fitsPhone(t, tb, "netmaps")
	axe(t, tb)
	shot(t, tb, "v2-netmaps-radio")
	switchLang(t, tb, "en")
	waitFor(t, tb, "the site rows in English", `!!document.getElementById('nm-site-0-radio_id') && document.getElementById('nm-site-0-radio_id').value === '`+radio.ID+`'`)
	if label := eval[string](t, tb, `document.getElementById('nm-site-0-radio_id').selectedOptions[0].textContent`); !strings.Contains(label, "not in the catalogue") {
		t.Errorf("the deleted radio reads %q in English: want it marked not in the catalogue", label)
	}
	shot(t, tb, "v2-netmaps-radio")
}
