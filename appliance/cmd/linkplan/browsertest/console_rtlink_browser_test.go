//go:build systemtools

package browsertest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"linkplan/appliance"
	"linkplan/appliance/cmd/linkplan/internal/realbin"
	"linkplan/engines/raytrace"
)

// rtLinkResult is the downloaded result of a raytrace_link job, the parts
// the Link screen shows.
type rtLinkResult struct {
	Engine        string       `json:"engine"`
	EngineVersion string       `json:"engine_version"`
	Best          *int         `json:"best"`
	Warnings      []apiWarning `json:"warnings"`
	Options       struct {
		DiffuseScattering     float64 `json:"diffuse_scattering"`
		ReflectionDiffraction bool    `json:"reflection_diffraction"`
		ScatteringReflections bool    `json:"scattering_reflections"`
		Sum                   string  `json:"sum"`
	} `json:"options"`
	Links []struct {
		TowerID        string            `json:"tower_id"`
		LOS            bool              `json:"los"`
		PathLossDB     *float64          `json:"path_loss_db"`
		RxPowerDBm     *float64          `json:"rx_power_dbm"`
		DelaySpreadNs  *float64          `json:"rms_delay_spread_ns"`
		Paths          []json.RawMessage `json:"paths"`
		Warnings       []apiWarning      `json:"warnings"`
		EngineWarnings []apiWarning      `json:"engine_warnings"`
	} `json:"links"`
}

// onePlace is v as the page prints it with one decimal in lang, no unit.
func onePlace(v float64, lang string) string {
	s := fmt.Sprintf("%.1f", v)
	if lang == "pt-BR" {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s
}

// TestIssue27_RaytraceLinkJob: the Link screen offers engine raytrace to
// an Enterprise key (not to Pro) with the tenant's building layers; the
// 202 job of POST /analyze_link is followed on the page to its result,
// which shows what the job's JSON result says: the engine's caveats first
// in the user's language, received power, path loss, line of sight, RMS
// delay spread, engine and version, every path of the best link; the
// traced links are drawn on the map, and the job view survives a language
// switch. A job that fails (its layer deleted after the submission) says
// why in pt-BR; the reasons the job queue gives are checked in the page
// in both languages.
func TestIssue27_RaytraceLinkJob(t *testing.T) {
	env := startConsole(t)
	ent, _ := env.issueKey(t, "Enterprise")
	env.srv.WaitRaytraceWorkerOK(t)
	layer := env.srv.UploadBlock(t, ent, 6)
	f := raytrace.NewFrame(appliance.LatLon{Lat: realbin.BlockLat, Lon: realbin.BlockLon})
	txp, rx := f.ToLatLon(-150, 140), f.ToLatLon(5, -5)
	if r := env.srv.call(t, "POST", "/towers", map[string]string{"X-API-Key": ent, "Content-Type": "application/json"},
		fmt.Sprintf(`{"operator":"Provedor Raios","lat":%.7f,"lon":%.7f,"height_m":30}`, txp.Lat, txp.Lon)); r.status != http.StatusCreated {
		t.Fatalf("POST /towers: %d %s", r.status, r.body)
	}
	// a second tower, with its ERP: the traced links' table lists both,
	// each with its own caveats
	tx2 := f.ToLatLon(120, -100)
	if r := env.srv.call(t, "POST", "/towers", map[string]string{"X-API-Key": ent, "Content-Type": "application/json"},
		fmt.Sprintf(`{"operator":"Provedor Raios","lat":%.7f,"lon":%.7f,"height_m":25,"power":50}`, tx2.Lat, tx2.Lon)); r.status != http.StatusCreated {
		t.Fatalf("POST /towers: %d %s", r.status, r.body)
	}

	tb := openConsole(t, env)
	signIn(t, tb, env.key) // Pro: no raytrace engine
	goScreen(t, tb, "link")
	if eval[bool](t, tb, `[...document.querySelectorAll('#link-engine option')].some(o => o.value === 'raytrace')`) {
		t.Error("a Pro key is offered engine raytrace")
	}
	tb.run(t, "sign out", chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("signin-key")))

	signIn(t, tb, ent)
	goScreen(t, tb, "link")
	tb.run(t, "the receiver", typeInto("link-lat", fmt.Sprintf("%.7f", rx.Lat)), typeInto("link-lon", fmt.Sprintf("%.7f", rx.Lon)),
		typeInto("link-height", "1.5"), typeInto("link-freq", "3500"), typeInto("link-radius", "0.5"),
		chromedp.SetValue(chromedp.ID("link-engine"), "raytrace"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('link-engine').dispatchEvent(new Event('change', {bubbles: true}))`))
	waitFor(t, tb, "the layer listed", `!document.getElementById('link-rt-options').hidden && [...document.querySelectorAll('#link-rt-layer option')].some(o => o.value === '`+layer+`')`)
	tb.run(t, "trace", chromedp.SetValue(chromedp.ID("link-rt-layer"), layer), chromedp.Click(chromedp.ID("link-analyze")))
	waitFor(t, tb, "the job view", `!!document.getElementById('link-rt-state') && /job_/.test(document.getElementById('link-rt-state').textContent)`)
	if !eval[bool](t, tb, `document.activeElement && document.activeElement.id === 'link-rt-title'`) {
		t.Error("the focus is not on the job view's heading")
	}
	waitLong(t, tb, "the job's end", `!!document.getElementById('link-rt-best') || !!document.getElementById('link-rt-error')`, 120*time.Second)
	if msg := eval[string](t, tb, `(document.getElementById('link-rt-error') || {}).textContent || ''`); msg != "" {
		t.Fatalf("the job failed: %s", msg)
	}
	jobID := eval[string](t, tb, `(document.getElementById('link-rt-state').textContent.match(/job_[a-z2-7]+/) || [''])[0]`)
	if st := eval[string](t, tb, `document.getElementById('link-rt-state').textContent`); st != "Trabalho "+jobID+": concluído" {
		t.Errorf("the job line reads %q", st)
	}
	r := env.srv.call(t, "GET", "/jobs/"+jobID+"/download", map[string]string{"X-API-Key": ent}, "")
	var res rtLinkResult
	if err := json.Unmarshal(r.body, &res); err != nil || r.status != http.StatusOK || res.Best == nil {
		t.Fatalf("GET /jobs/%s/download: %d %.300s (%v)", jobID, r.status, r.body, err)
	}
	best := res.Links[*res.Best]
	if best.PathLossDB == nil || best.RxPowerDBm == nil {
		t.Fatalf("the best link has no loss or power: %+v", best)
	}
	page := eval[map[string]string](t, tb, `({rx: document.getElementById('link-rt-rx').textContent, loss: document.getElementById('link-rt-loss').textContent,
		los: document.getElementById('link-rt-los').dataset.los, losText: document.getElementById('link-rt-los').textContent,
		delay: document.getElementById('link-rt-delay').textContent, engine: document.getElementById('link-rt-engine').textContent,
		tower: document.getElementById('link-rt-tower').textContent})`)
	if !strings.HasPrefix(page["rx"], onePlace(*best.RxPowerDBm, "pt-BR")+"\u00a0dBm") || !strings.HasPrefix(page["loss"], onePlace(*best.PathLossDB, "pt-BR")+"\u00a0dB") {
		t.Errorf("received power %q and path loss %q on the page, the result's %.2f dBm and %.2f dB", page["rx"], page["loss"], *best.RxPowerDBm, *best.PathLossDB)
	}
	if page["los"] != fmt.Sprint(best.LOS) || (best.LOS && page["losText"] != "sim") || (!best.LOS && page["losText"] != "não") {
		t.Errorf("line of sight %q (%s) on the page, the result's %v", page["losText"], page["los"], best.LOS)
	}
	if best.DelaySpreadNs != nil && !strings.HasPrefix(page["delay"], onePlace(*best.DelaySpreadNs, "pt-BR")+"\u00a0ns") {
		t.Errorf("delay spread %q on the page, the result's %.2f ns", page["delay"], *best.DelaySpreadNs)
	}
	if page["engine"] != res.Engine+" "+res.EngineVersion || !strings.HasPrefix(page["tower"], best.TowerID) {
		t.Errorf("engine %q and tower %q on the page, the result's %s %s and %s", page["engine"], page["tower"], res.Engine, res.EngineVersion, best.TowerID)
	}
	// the options the result was traced with, stated on the page
	traced := eval[string](t, tb, `(document.getElementById('link-rt-traced') || {}).textContent || ''`)
	if o := res.Options; o.DiffuseScattering <= 0 || !strings.Contains(traced, "espalhamento difuso S = "+strings.Replace(fmt.Sprintf("%.2f", o.DiffuseScattering), ".", ",", 1)) ||
		strings.Contains(traced, "reflexão–difração") != o.ReflectionDiffraction || !strings.Contains(traced, map[string]string{"coherent": "soma coerente", "power": "soma de potências"}[o.Sum]) ||
		!o.ScatteringReflections || !strings.Contains(traced, "espalhamento também via reflexão nas paredes") {
		t.Errorf("the page says it was traced with %q; the result's options are %+v", traced, o)
	}
	if n := eval[int](t, tb, `document.querySelectorAll('#link-rt-paths tbody tr').length`); n != len(best.Paths) || n == 0 {
		t.Errorf("%d paths on the page, %d in the result", n, len(best.Paths))
	}
	if n := eval[int](t, tb, `document.querySelectorAll('#link-map path.link-rt-line').length`); n != len(res.Links) {
		t.Errorf("%d traced links on the map, %d in the result", n, len(res.Links))
	}
	var codes, english []string
	seen := map[string]bool{}
	for _, w := range append(append(append([]apiWarning{}, res.Warnings...), best.Warnings...), best.EngineWarnings...) {
		if !seen[w.Code] {
			seen[w.Code] = true
			codes = append(codes, w.Code)
			english = append(english, w.Message)
		}
	}
	checkCaveats(t, "raytrace link", readCaveats(t, tb, "link-rt-caveats", "link-rt-rx"), codes, english, "pt-BR")
	// with no reachable link (no best) the caveat box lists every link's
	// caveats, the reason none reaches the receiver among them; it listed
	// only the answer's, so a one-link job said "no path" without why
	if got := eval[string](t, tb, `(async () => {
		const { headlineCaveats } = await import('/js/rtjob.js');
		const w = (code) => ({ code, message: code });
		const codes = (res) => headlineCaveats(res).map((x) => x.code).join(' ');
		return [
			codes({ best: null, warnings: [w('a')], links: [{ warnings: [w('synthetic_tower')], engine_warnings: [w('raytrace_rx_inside_building'), w('raytrace_no_path')] }, { warnings: [w('synthetic_tower')], engine_warnings: [w('raytrace_tx_inside_building')] }] }),
			codes({ best: 1, warnings: [w('a')], links: [{ warnings: [w('synthetic_tower')], engine_warnings: [] }, { warnings: [w('eirp_assumed')], engine_warnings: [w('raytrace_assumed_heights')] }] }),
		].join(' | ');
	})()`); got != "a synthetic_tower raytrace_rx_inside_building raytrace_no_path raytrace_tx_inside_building | a eirp_assumed raytrace_assumed_heights" {
		t.Errorf("headlineCaveats: %q", got)
	}
	// every traced link's row carries its own caveats (its tower's and
	// its engine's), not only the best one's
	if len(res.Links) < 2 {
		t.Errorf("%d traced links, want the two towers'", len(res.Links))
	} else {
		rows := eval[[]string](t, tb, `[...document.querySelectorAll('#link-rt-links tbody tr')].map(r => { const m = r.querySelector('.caveat-mark'); return m ? m.dataset.codes || '' : '-'; })`)
		if len(rows) != len(res.Links) {
			t.Errorf("%d rows of traced links, %d in the result", len(rows), len(res.Links))
		}
		t.Logf("traced links' caveat marks: %q", eval[[]string](t, tb, `[...document.querySelectorAll('#link-rt-links .caveat-mark')].map(m => m.getAttribute('aria-label'))`))
		for i := 0; i < len(rows) && i < len(res.Links); i++ {
			var want []string
			for _, w := range append(append([]apiWarning{}, res.Links[i].Warnings...), res.Links[i].EngineWarnings...) {
				if !slices.Contains(want, w.Code) {
					want = append(want, w.Code)
				}
			}
			if rows[i] != strings.Join(want, " ") && !(len(want) == 0 && rows[i] == "-") {
				t.Errorf("traced link %d: caveats %q on the page, the result's %v", i, rows[i], want)
			}
		}
	}
	t.Logf("job %s: %d links, best %s: %d paths, %.1f dB loss, caveats %v", jobID, len(res.Links), best.TowerID, len(best.Paths), *best.PathLossDB, codes)
	noLiteralText(t, tb, "raytrace link job")
	axe(t, tb)
	shot(t, tb, "v2-link-raytrace")
	switchLang(t, tb, "en")
	waitLong(t, tb, "the job view in English", `!!document.getElementById('link-rt-best') && document.getElementById('link-rt-title').textContent === 'Ray tracing of the link'`, 30*time.Second)
	if n := eval[int](t, tb, `document.querySelectorAll('#link-rt-paths tbody tr').length`); n != len(best.Paths) {
		t.Errorf("%d paths in English, %d in the result", n, len(best.Paths))
	}
	if got := eval[string](t, tb, `document.getElementById('link-rt-rx').textContent`); !strings.HasPrefix(got, onePlace(*best.RxPowerDBm, "en")+"\u00a0dBm") {
		t.Errorf("received power %q in English, the result's %.2f dBm", got, *best.RxPowerDBm)
	}
	shot(t, tb, "v2-link-raytrace")
	switchLang(t, tb, "pt-BR")

	// Another engine replaces the job view and its lines on the map.
	tb.run(t, "analyse with fspl", chromedp.SetValue(chromedp.ID("link-engine"), "fspl"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('link-engine').dispatchEvent(new Event('change', {bubbles: true}))`),
		chromedp.Click(chromedp.ID("link-analyze")))
	waitFor(t, tb, "the fspl answer", `!!document.getElementById('link-best-id') || !!document.getElementById('link-none')`)
	if eval[bool](t, tb, `!!document.getElementById('link-rt') || document.querySelectorAll('#link-map path.link-rt-line').length > 0 || !document.getElementById('link-rt-options').hidden`) {
		t.Error("the raytrace job view, its lines or its options stay after an fspl analysis")
	}
	tb.run(t, "back to raytrace", chromedp.SetValue(chromedp.ID("link-engine"), "raytrace"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('link-engine').dispatchEvent(new Event('change', {bubbles: true}))`))
	waitFor(t, tb, "the layer listed again", `[...document.querySelectorAll('#link-rt-layer option')].some(o => o.value === '`+layer+`')`)
	tb.run(t, "the layer", chromedp.SetValue(chromedp.ID("link-rt-layer"), layer))

	// The job queue's reasons, in the page, in both languages.
	fails := eval[string](t, tb, `(async () => {
		const { jobFailure } = await import('/js/jobs.js');
		const cases = [
			['pt-BR', {state: 'failed', error: 'stopped the raytrace worker twice; quarantined'}, 'parou duas vezes'],
			['en', {state: 'failed', error: 'stopped the appliance twice; quarantined'}, 'the appliance) stopped twice'],
			['pt-BR', {state: 'failed', error: 'interrupted 10 times (the worker stopped before finishing)'}, 'parou 10 vezes'],
			['pt-BR', {state: 'failed', error: 'the building layer bl_x was deleted after the job was submitted: invalid input'}, 'foi apagada'],
			['en', {state: 'failed', error: 'the scene of building layer bl_x changed since the job was submitted (scene a, now b; the terrain packs changed?): submit it again'}, 'scene changed'],
			['pt-BR', {state: 'canceled', error: null}, 'foi cancelado'],
			['pt-BR', {state: 'failed', error: 'something new'}, 'O trabalho falhou'],
		];
		const out = [];
		for (const [lang, job, want] of cases) { const got = jobFailure({ lang }, job); if (!got.text.includes(want)) out.push(lang + ': ' + JSON.stringify(job) + ' → ' + got.text); }
		return out.join('; ');
	})()`)
	if fails != "" {
		t.Errorf("job failure texts: %s", fails)
	}

	// A job whose layer is deleted after the submission fails, said in
	// pt-BR. The tenant's jobs run first-in first-out: two long jobs on
	// another layer go first (the towers within 3 km, three reflections),
	// so that the deletion comes before this job runs.
	other := env.srv.UploadBlock(t, ent, 6)
	var ahead []string
	for range 2 {
		ahead = append(ahead, env.srv.SubmitJob(t, ent, "/analyze_link", fmt.Sprintf(`{"receiver":{"lat":%.7f,"lon":%.7f,"height_m":1.5},"frequency_mhz":3500,"max_distance_km":3,`+
			`"engine":"raytrace","raytrace":{"layer_id":%q,"max_reflections":3,"diffraction_range_m":2000}}`, rx.Lat, rx.Lon, other)))
	}
	defer func() {
		for _, id := range ahead {
			env.srv.call(t, "POST", "/jobs/"+id+"/cancel", map[string]string{"X-API-Key": ent}, "")
		}
	}()
	tb.run(t, "trace again", chromedp.Click(chromedp.ID("link-analyze")))
	waitFor(t, tb, "the second job", `!!document.getElementById('link-rt-state') && /job_/.test(document.getElementById('link-rt-state').textContent) && !/`+jobID+`/.test(document.getElementById('link-rt-state').textContent)`)
	if r := env.srv.call(t, "DELETE", "/buildings/layers/"+layer, map[string]string{"X-API-Key": ent}, ""); r.status != http.StatusOK {
		t.Fatalf("DELETE /buildings/layers/%s: %d %s", layer, r.status, r.body)
	}
	waitLong(t, tb, "the second job's end", `!!document.getElementById('link-rt-best') || !!document.getElementById('link-rt-error')`, 120*time.Second)
	if eval[bool](t, tb, `!!document.getElementById('link-rt-best')`) {
		t.Logf("the second job ran before its layer was deleted (job %s ahead of it): the failure is only checked in the page's table above", ahead)
		return
	}
	msg := eval[string](t, tb, `document.getElementById('link-rt-error').innerText`)
	if !strings.Contains(msg, "O traçado de raios não terminou: A camada de edificações foi apagada") {
		t.Errorf("the failed job reads %q: want the reason in pt-BR", msg)
	}
	if st := eval[string](t, tb, `document.getElementById('link-rt-state').dataset.state`); st != "failed" {
		t.Errorf("the failed job's state on the page is %q", st)
	}
	noLiteralText(t, tb, "failed raytrace link job")
	axe(t, tb)
}
