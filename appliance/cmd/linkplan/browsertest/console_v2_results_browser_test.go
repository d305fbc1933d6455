//go:build systemtools

package browsertest_test

// Browser tests of issue 27's remaining result screens: caveats first on
// the repeater and batch results, the repeater's radio budget, the batch
// job's rows (table and map). Each runs on the real binary; openConsole's
// cleanup fails a test on an uncaught exception, a CSP violation or a
// request that left the origin.

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"linkplan/appliance"
	"linkplan/appliance/cmd/linkplan/internal/realbin"
	"linkplan/engines/raytrace"
)

// caveatsOnPage returns the codes and texts of the caveat box id and
// whether it comes before the element figure, which it describes.
type caveatsOnPage struct {
	Codes     []string `json:"codes"`
	Texts     []string `json:"texts"`
	Above     bool     `json:"above"`
	Described bool     `json:"described"`
}

func readCaveats(t *testing.T, tb *tab, box, figure string) caveatsOnPage {
	t.Helper()
	return eval[caveatsOnPage](t, tb, `(() => { const c = document.getElementById('`+box+`'), m = document.getElementById('`+figure+`');
		if (!c) return { codes: [], texts: [], above: false, described: false };
		const li = [...c.querySelectorAll('li')];
		return { codes: li.map(e => e.dataset.code), texts: li.map(e => e.textContent),
			above: !!m && !!(c.compareDocumentPosition(m) & Node.DOCUMENT_POSITION_FOLLOWING),
			described: !!m && (m.getAttribute('aria-describedby') || '').split(' ').includes('`+box+`') }; })()`)
}

// checkCaveats compares the page's caveats with the API's codes (in
// order) and fails on a pt-BR text that is the API's English sentence or
// shows a code.
func checkCaveats(t *testing.T, where string, got caveatsOnPage, codes, english []string, lang string) {
	t.Helper()
	if strings.Join(got.Codes, ",") != strings.Join(codes, ",") {
		t.Errorf("%s: caveats %v, the API's %v", where, got.Codes, codes)
	}
	if len(codes) > 0 && (!got.Above || !got.Described) {
		t.Errorf("%s: the caveats are not above the figure and tied to it (above %v, described %v)", where, got.Above, got.Described)
	}
	for i, txt := range got.Texts {
		if lang == "pt-BR" && i < len(english) && english[i] != "" && strings.Contains(txt, english[i]) {
			t.Errorf("%s: pt-BR caveat %d is the API's English sentence: %q", where, i, txt)
		}
		if strings.Contains(txt, "_") {
			t.Errorf("%s: caveat %d shows a code: %q", where, i, txt)
		}
	}
}

type apiWarning struct{ Code, Message string }

// TestIssue27_RepeaterBudget: the Repeater screen edits the radio budget
// of POST /plan_repeater (EIRP, receive gain, sensitivity, least margin,
// longest hop, relay height, engine), shows the budget every hop was
// computed with (each value left to the API's default marked assumed),
// and heads the route with the plan's caveats in the user's language,
// tied to the least margin (caveats first): with no EIRP given the
// assumed EIRP leads; with one given it is gone.
func TestIssue27_RepeaterBudget(t *testing.T) {
	env := startConsole(t)
	// What the API says of the same plan (the screen's defaults, the
	// sensitivity edited to -90 dBm).
	body := `{"from":{"lat":-22.9519,"lon":-43.2105,"height_m":30},"to":{"lat":-22.88,"lon":-43.1,"height_m":30},"frequency_mhz":5800,"max_hops":3,"min_margin_db":10,"rx_threshold_dbm":-90}`
	r := env.srv.call(t, "POST", "/plan_repeater", map[string]string{"X-API-Key": env.key, "Content-Type": "application/json"}, body)
	var plan struct {
		Warnings []apiWarning `json:"warnings"`
		Budget   struct {
			Assumed []string `json:"assumed"`
		} `json:"radio_budget"`
	}
	if err := json.Unmarshal(r.body, &plan); err != nil || r.status != 200 {
		t.Fatalf("POST /plan_repeater: %d %s", r.status, r.body)
	}
	var codes, english []string
	for _, w := range plan.Warnings {
		if !strings.Contains(strings.Join(codes, ","), w.Code) {
			codes = append(codes, w.Code)
			english = append(english, w.Message)
		}
	}
	if len(codes) == 0 || codes[0] != "eirp_assumed" {
		t.Fatalf("the plan without EIRP has warnings %v: the test needs eirp_assumed first", codes)
	}

	tb := openConsole(t, env)
	signIn(t, tb, env.key)
	goScreen(t, tb, "repeater")
	waitFor(t, tb, "the engines listed", `document.querySelectorAll('#rp-engine option').length > 1`)
	tb.run(t, "edit the sensitivity and plan", typeInto("rp-rx-threshold", "-90"), chromedp.Click(chromedp.ID("rp-plan")))
	waitFor(t, tb, "the route", `!!document.getElementById('rp-route-title') || !!document.getElementById('rp-none')`)
	waitFor(t, tb, "the budget used", `!!document.getElementById('rp-budget-used')`)
	hasRoute := eval[bool](t, tb, `!!document.getElementById('rp-min-margin')`)
	got := readCaveats(t, tb, "rp-caveats", "rp-min-margin")
	if !hasRoute {
		got.Above, got.Described = true, true // no route: no margin to tie to
	}
	checkCaveats(t, "repeater", got, codes, english, "pt-BR")
	if len(got.Texts) > 0 && !strings.Contains(got.Texts[0], "EIRP presumida") || len(got.Texts) > 0 && !strings.Contains(got.Texts[0], "58") {
		t.Errorf("the assumed EIRP caveat reads %q: want the pt-BR text with the 58 dBm assumed", got.Texts)
	}
	budget := func() map[string]string {
		return eval[map[string]string](t, tb, `Object.fromEntries([...document.querySelectorAll('#rp-budget-used tbody tr')].map(r => [r.dataset.field, r.cells[1].textContent]))`)
	}
	b := budget()
	if !strings.Contains(b["rx_threshold_dbm"], "90") || strings.Contains(b["rx_threshold_dbm"], "presumido") {
		t.Errorf("the budget's sensitivity reads %q: want the edited -90 dBm, not assumed", b["rx_threshold_dbm"])
	}
	if !strings.Contains(b["eirp_dbm"], "58") || !strings.Contains(b["eirp_dbm"], "presumido") {
		t.Errorf("the budget's EIRP reads %q: want 58 dBm assumed", b["eirp_dbm"])
	}
	sort.Strings(plan.Budget.Assumed)
	var marked []string
	for k, v := range b {
		if strings.Contains(v, "presumido") {
			marked = append(marked, k)
		}
	}
	sort.Strings(marked)
	if strings.Join(marked, ",") != strings.Join(plan.Budget.Assumed, ",") {
		t.Errorf("assumed on the page %v, the API's %v", marked, plan.Budget.Assumed)
	}
	noLiteralText(t, tb, "repeater result")
	axe(t, tb)
	shot(t, tb, "v2-repeater")

	// The EIRP given: no assumed EIRP, the budget shows the value.
	tb.run(t, "give the EIRP and plan again", typeInto("rp-eirp", "62"), chromedp.Click(chromedp.ID("rp-plan")))
	waitFor(t, tb, "the new budget", `!!document.querySelector('#rp-budget-used tbody tr[data-field=eirp_dbm]') && /62/.test(document.querySelector('#rp-budget-used tbody tr[data-field=eirp_dbm]').textContent)`)
	b = budget()
	if strings.Contains(b["eirp_dbm"], "presumido") {
		t.Errorf("the given EIRP is marked assumed: %q", b["eirp_dbm"])
	}
	if c := readCaveats(t, tb, "rp-caveats", "rp-min-margin"); strings.Contains(strings.Join(c.Codes, ","), "eirp_assumed") {
		t.Errorf("the EIRP was given and the caveats still say it was assumed: %v", c.Codes)
	}
	switchLang(t, tb, "en")
	waitFor(t, tb, "the budget in English", `!!document.getElementById('rp-budget-used') && /Value/.test(document.getElementById('rp-budget-used').textContent)`)
	shot(t, tb, "v2-repeater")
}

// TestIssue27_BatchRows: the batch result heads its counts with the rows'
// caveats (each warning code of the rows once, in the user's language,
// with how many rows it qualifies, tied to the OK count), lists each
// row's caveats in the table, and draws the rows on a map; a batch job
// (over 100 rows) shows, once it succeeded, the same table and map of its
// rows, read from its bundle in the page.
func TestIssue27_BatchRows(t *testing.T) {
	env := startConsole(t)
	dir := t.TempDir()
	small := batchCSV(t, dir, "lote.csv", 5)
	tb := openConsole(t, env)
	signIn(t, tb, env.key)
	goScreen(t, tb, "batch")
	tb.run(t, "a small batch", chromedp.SetUploadFiles(chromedp.CSS(`.screen-batch input[name=file]`), []string{small}),
		chromedp.Click(chromedp.CSS(`.screen-batch form button[type=submit]`)))
	waitFor(t, tb, "the rows", `document.querySelectorAll('.screen-batch .fk-out tbody tr').length === 5`)

	// The API's warnings of the same rows.
	var sync struct {
		Rows []struct {
			Lat      *float64     `json:"lat"`
			Warnings []apiWarning `json:"warnings"`
		} `json:"rows"`
	}
	csv := "nome,latitude,longitude,altura_m,frequencia_mhz,raio_km\r\n"
	for i := range 5 {
		csv += "site " + string(rune('1'+i)) + "," + []string{"-22.9500", "-22.9460", "-22.9420", "-22.9380", "-22.9340"}[i] + ",-43.2100,10,1800,20\r\n"
	}
	r := env.srv.call(t, "POST", "/batch_reports?pdfs=false", map[string]string{"X-API-Key": env.key, "Content-Type": "text/csv"}, csv)
	if err := json.Unmarshal(r.body, &sync); err != nil || r.status != 200 {
		t.Fatalf("POST /batch_reports: %d %s", r.status, r.body)
	}
	var codes, english []string
	for _, row := range sync.Rows {
		for _, w := range row.Warnings {
			if !strings.Contains(","+strings.Join(codes, ",")+",", ","+w.Code+",") {
				codes = append(codes, w.Code)
				english = append(english, w.Message)
			}
		}
	}
	got := readCaveats(t, tb, "batch-caveats", "batch-ok")
	checkCaveats(t, "batch", got, codes, english, "pt-BR")
	for _, txt := range got.Texts {
		if !strings.Contains(txt, "de 5 linhas") {
			t.Errorf("the batch caveat %q does not say how many rows it qualifies", txt)
		}
	}
	if n := eval[int](t, tb, `document.querySelectorAll('#batch-map .batch-row').length`); n != 5 {
		t.Errorf("%d rows on the map, want 5", n)
	}
	axe(t, tb)

	tb.run(t, "a batch job", chromedp.SetUploadFiles(chromedp.CSS(`.screen-batch input[name=file]`), []string{batchCSV(t, dir, "grande.csv", 101)}),
		chromedp.Click(chromedp.CSS(`.screen-batch form button[type=submit]`)))
	waitLong(t, tb, "the job's rows", `document.querySelectorAll('#batch-job-rows tbody tr').length > 0 || !!document.querySelector('#batch-job-rows .fk-error') || !!document.querySelector('.screen-batch [data-state=failed]')`, 120*time.Second)
	if msg := eval[string](t, tb, `(document.querySelector('#batch-job-rows .fk-error') || {}).textContent || ''`); msg != "" {
		t.Fatalf("the job's rows: %s", msg)
	}
	if n := eval[int](t, tb, `document.querySelectorAll('#batch-job-rows tbody tr').length`); n != 101 {
		t.Errorf("the job's table has %d rows, want 101", n)
	}
	waitFor(t, tb, "the job's map", `document.querySelectorAll('#batch-job-map .batch-row').length > 0`)
	if n := eval[int](t, tb, `document.querySelectorAll('#batch-job-map .batch-row').length`); n != 101 {
		t.Errorf("%d job rows on the map, want 101", n)
	}
	last := eval[string](t, tb, `[...document.querySelectorAll('#batch-job-rows tbody tr')].pop().innerText`)
	if !strings.Contains(last, "site 101") || !strings.Contains(last, "km") {
		t.Errorf("the job's last row reads %q: want site 101 with its distance", last)
	}
	noLiteralText(t, tb, "batch job rows")
	axe(t, tb)
	shot(t, tb, "v2-batch-job")
	switchLang(t, tb, "en")
	waitFor(t, tb, "the job's rows in English", `document.querySelectorAll('#batch-job-rows tbody tr').length === 101`)
	shot(t, tb, "v2-batch-job")
}

// knobState reads the height handle of end on the profile chart: its
// value (metres above ground), whether it has the focus, and its centre
// in the viewport (after scrolling it to the middle).
type knobState struct {
	Value   float64 `json:"value"`
	Focused bool    `json:"focused"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
}

func readKnob(t *testing.T, tb *tab, end string) knobState {
	t.Helper()
	return eval[knobState](t, tb, `(() => { const k = document.querySelector('#profile-chart .height-handle[data-end=`+end+`]');
		if (!k) return { value: -1, focused: false, x: 0, y: 0 };
		k.scrollIntoView({ block: 'center' }); const r = k.getBoundingClientRect();
		return { value: Number(k.getAttribute('aria-valuenow')), focused: document.activeElement === k, x: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2 }; })()`)
}

// dragUp drags the handle of end dy pixels up with the mouse.
func dragUp(t *testing.T, tb *tab, end string, dy float64) {
	t.Helper()
	k := readKnob(t, tb, end)
	tb.run(t, "drag the "+end+" handle",
		chromedp.MouseEvent(chromedp.MouseMoved, k.X, k.Y),
		chromedp.MouseEvent(chromedp.MousePressed, k.X, k.Y, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent(chromedp.MouseMoved, k.X, k.Y-dy/2, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseMoved, k.X, k.Y-dy, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseReleased, k.X, k.Y-dy, chromedp.ButtonLeft, chromedp.ClickCount(1)))
}

// TestIssue27_DragHeights: on the Link and PtP profile charts an end's
// antenna height is a handle: dragged with the mouse, or moved with the
// arrow keys and Enter (the keyboard alternative), it re-runs the
// analysis with the new height (the form's height field follows, the new
// chart's end stands at that height above its ground, which only the
// API's new profile can say) and the focus comes back to the handle.
func TestIssue27_DragHeights(t *testing.T) {
	env := startConsole(t)
	tb := openConsole(t, env)
	signIn(t, tb, env.key)

	goScreen(t, tb, "link")
	tb.run(t, "analyse", typeInto("link-height", "10"), chromedp.Click(chromedp.ID("link-analyze")))
	waitFor(t, tb, "the receiver's handle", `!!document.querySelector('#profile-chart .height-handle[data-end=b]')`)
	if k := readKnob(t, tb, "b"); abs(k.Value-10) > 0.05 {
		t.Fatalf("the receiver's handle stands at %.1f m, want the 10 m asked for", k.Value)
	}
	if eval[bool](t, tb, `!!document.querySelector('#profile-chart .height-handle[data-end=a]')`) {
		t.Error("the tower's height is draggable on Link, where the request cannot set it")
	}
	axe(t, tb)
	// Keyboard: five steps up, then Enter.
	tb.run(t, "focus the handle", chromedp.Evaluate[chromedp.Void](`document.querySelector('#profile-chart .height-handle[data-end=b]').focus()`))
	for range 5 {
		tb.run(t, "arrow up", chromedp.KeyEvent(kb.ArrowUp))
	}
	tb.run(t, "enter", chromedp.KeyEvent(kb.Enter))
	waitFor(t, tb, "the re-run at 15 m", `document.getElementById('link-height').value === '15' && !!document.querySelector('#profile-chart .height-handle[data-end=b]') && document.querySelector('#profile-chart .height-handle[data-end=b]').getAttribute('aria-valuenow') === '15'`)
	if k := readKnob(t, tb, "b"); !k.Focused {
		t.Error("after the keyboard re-run the focus is not back on the handle")
	}
	// Mouse: drag the receiver's tip up.
	dragUp(t, tb, "b", 40)
	waitFor(t, tb, "the re-run after the drag", `Number(document.getElementById('link-height').value) > 15.5 && !!document.querySelector('#profile-chart .height-handle[data-end=b]') && document.querySelector('#profile-chart .height-handle[data-end=b]').getAttribute('aria-valuenow') === document.getElementById('link-height').value`)
	if k := readKnob(t, tb, "b"); !k.Focused {
		t.Error("after the drag the focus is not back on the handle")
	}
	noLiteralText(t, tb, "Link after the drag")

	goScreen(t, tb, "ptp")
	waitFor(t, tb, "equipment listed", `document.querySelectorAll('#ptp-a-radio option').length > 0`)
	tb.run(t, "analyse", chromedp.Click(chromedp.ID("ptp-analyse")))
	waitFor(t, tb, "both handles", `document.querySelectorAll('#profile-chart .height-handle').length === 2`)
	a0 := eval[string](t, tb, `document.getElementById('ptp-a-height').value`)
	b0 := eval[float64](t, tb, `Number(document.getElementById('ptp-b-height').value)`)
	if k := readKnob(t, tb, "b"); abs(k.Value-b0) > 0.05 {
		t.Errorf("B's handle stands at %.1f m, the form says %.1f m", k.Value, b0)
	}
	dragUp(t, tb, "a", 30)
	waitFor(t, tb, "A re-run after the drag", `document.getElementById('ptp-a-height').value !== '`+a0+`' && !!document.querySelector('#profile-chart .height-handle[data-end=a]') && document.querySelector('#profile-chart .height-handle[data-end=a]').getAttribute('aria-valuenow') === document.getElementById('ptp-a-height').value`)
	tb.run(t, "focus B", chromedp.Evaluate[chromedp.Void](`document.querySelector('#profile-chart .height-handle[data-end=b]').focus()`))
	for range 3 {
		tb.run(t, "arrow down", chromedp.KeyEvent(kb.ArrowDown))
	}
	tb.run(t, "enter", chromedp.KeyEvent(kb.Enter))
	want := strconv.FormatFloat(b0-3, 'f', -1, 64)
	waitFor(t, tb, "B re-run 3 m lower", `document.getElementById('ptp-b-height').value === '`+want+`' && document.querySelector('#profile-chart .height-handle[data-end=b]') && document.querySelector('#profile-chart .height-handle[data-end=b]').getAttribute('aria-valuenow') === '`+want+`'`)
	if k := readKnob(t, tb, "b"); !k.Focused {
		t.Error("PtP: after the keyboard re-run the focus is not back on the handle")
	}
	axe(t, tb)
	shot(t, tb, "v2-ptp-heights")
}

// TestIssue27_Residuals: the Observations screen makes the measured-
// versus-predicted report of POST /coverage/observations/residuals (a
// job) over the drive test just uploaded with consent, and shows what the
// job's report.json says (each engine's n and RMSE, the report's caveats
// first) and a map of the receivers coloured by their residual, read from
// the bundle's residuals.geojson in the page.
func TestIssue27_Residuals(t *testing.T) {
	env := startConsole(t)
	tb := openConsole(t, env)
	signIn(t, tb, env.key)
	goScreen(t, tb, "observations")
	if n := eval[int](t, tb, `document.querySelectorAll('.screen-observations .leaflet-container').length`); n != 0 {
		t.Errorf("%d maps before any report: nothing may be drawn without residuals", n)
	}
	p := filepath.Join(t.TempDir(), "drive.csv")
	var b strings.Builder
	b.WriteString("lat,lon,rsrp,freq_hz\n")
	for i := range 5 {
		fmt.Fprintf(&b, "%.5f,%.5f,%d,1800000000\n", -22.96+float64(i)*0.002, -43.20+float64(i)*0.001, -80-i)
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	set := func(name, v string) chromedp.Action[chromedp.Void] {
		return chromedp.SetValue(chromedp.CSS(`.screen-observations input[name=`+name+`]`), v)
	}
	tb.run(t, "upload a consented drive test",
		chromedp.SetUploadFiles(chromedp.CSS(`.screen-observations input[name=csv_file]`), []string{p}),
		set("tx_power_dbm", "43"), set("tx_gain_dbi", "15"), set("rx_gain_dbi", "0"), set("cable_loss_db", "1"), set("rx_height_m", "1.5"),
		set("tx_lat", "-22.95"), set("tx_lon", "-43.23"), set("tx_height_m", "30"),
		chromedp.Click(chromedp.CSS(`.screen-observations input[name=consent_for_training]`)),
		chromedp.Click(chromedp.CSS(`.screen-observations form button[type=submit]`)))
	waitFor(t, tb, "the upload result", `document.querySelectorAll('.screen-observations .fk-out dd').length > 0`)

	tb.run(t, "make the report", chromedp.SetValue(chromedp.ID("res-engines"), "fspl"), chromedp.Click(chromedp.ID("res-submit")))
	waitLong(t, tb, "the report", `!!document.getElementById('res-engines-table') || !!document.querySelector('#res-form ~ .fk-errors .fk-error, .screen-observations .fk-errors .error-box')`, 120*time.Second)
	if !eval[bool](t, tb, `!!document.getElementById('res-engines-table')`) {
		t.Fatalf("no report: %s", tb.state())
	}
	if !eval[bool](t, tb, `document.activeElement && document.activeElement.id === 'res-title'`) {
		t.Error("the focus is not on the report's heading")
	}
	jobID := eval[string](t, tb, `(document.getElementById('res-state').textContent.match(/job_[a-z2-7]+/) || [''])[0]`)
	r := env.srv.call(t, "GET", "/jobs/"+jobID+"/download", map[string]string{"X-API-Key": env.key}, "")
	z, err := zip.NewReader(bytes.NewReader(r.body), int64(len(r.body)))
	if err != nil {
		t.Fatalf("GET /jobs/%s/download: %d, %v", jobID, r.status, err)
	}
	f, err := z.Open("report.json")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Rows     int          `json:"rows"`
		Warnings []apiWarning `json:"warnings"`
		Engines  []struct {
			Engine string  `json:"engine"`
			N      int     `json:"n"`
			RMSE   float64 `json:"rmse_db"`
		} `json:"engines"`
	}
	if err := json.NewDecoder(f).Decode(&rep); err != nil || len(rep.Engines) != 1 {
		t.Fatalf("report.json: %v %+v", err, rep)
	}
	row := eval[[]string](t, tb, `[...document.querySelectorAll('#res-engines-table tbody tr')[0].cells].map(c => c.textContent)`)
	wantRMSE := strings.Replace(strconv.FormatFloat(rep.Engines[0].RMSE, 'f', 2, 64), ".", ",", 1)
	if len(row) < 3 || !strings.HasPrefix(row[0], rep.Engines[0].Engine) || row[1] != strconv.Itoa(rep.Engines[0].N) || !strings.HasPrefix(row[2], wantRMSE) {
		t.Errorf("the page's engine row %q, report.json %+v", row, rep.Engines[0])
	}
	var codes, english []string
	for _, w := range rep.Warnings {
		codes = append(codes, w.Code)
		english = append(english, w.Message)
	}
	checkCaveats(t, "residuals", readCaveats(t, tb, "res-caveats", "res-best"), codes, english, "pt-BR")
	waitFor(t, tb, "the residual map", `document.querySelectorAll('#res-map .res-point').length > 0`)
	if n := eval[int](t, tb, `document.querySelectorAll('#res-map .res-point').length`); n != rep.Engines[0].N {
		t.Errorf("%d receivers on the residual map, report.json has n = %d", n, rep.Engines[0].N)
	}
	noLiteralText(t, tb, "residual report")
	axe(t, tb)
	shot(t, tb, "v2-observations-residuals")
	switchLang(t, tb, "en")
	waitFor(t, tb, "the report in English", `!!document.getElementById('res-engines-table') && /Residuals per engine/.test(document.getElementById('res-engines-table').textContent)`)
	shot(t, tb, "v2-observations-residuals")
}

// TestIssue27_RaytraceScreen: the Raytrace screen streams POST
// /coverage/raytrace for an Enterprise key over its building layer (the
// layer listed from GET /buildings/layers and outlined on the map): tiles
// drawn as they arrive, the summary with the engine's caveats first in
// the user's language (the API's own summary compared), the exports
// offered; a Pro key sees why it cannot, with no form to submit.
func TestIssue27_RaytraceScreen(t *testing.T) {
	env := startConsole(t)
	ent, _ := env.issueKey(t, "Enterprise")
	env.srv.WaitRaytraceWorkerOK(t)
	layer := env.srv.UploadBlock(t, ent, 6)
	site := raytrace.NewFrame(appliance.LatLon{Lat: realbin.BlockLat, Lon: realbin.BlockLon}).ToLatLon(-35, 20)

	tb := openConsole(t, env)
	signIn(t, tb, env.key) // Pro
	goScreen(t, tb, "raytrace")
	waitFor(t, tb, "the tier note", `/Enterprise e Ultra/.test(document.getElementById('rt-caps').textContent)`)
	if n := eval[int](t, tb, `[...document.querySelectorAll('#rt-form input, #rt-form select, #rt-form button')].filter(c => !c.disabled).length`); n != 0 {
		t.Errorf("a Pro key has %d enabled controls on the Raytrace form", n)
	}
	axe(t, tb)
	tb.run(t, "sign out", chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("signin-key")))

	signIn(t, tb, ent)
	goScreen(t, tb, "raytrace")
	waitFor(t, tb, "the layer listed", `[...document.querySelectorAll('#rt-layer option')].some(o => o.value === '`+layer+`')`)
	if n := eval[int](t, tb, `document.querySelectorAll('#rt-map .rt-layer').length`); n != 1 {
		t.Errorf("%d layer outlines on the map, want 1", n)
	}
	tb.run(t, "place and compute", typeInto("rt-lat", fmt.Sprintf("%.7f", site.Lat)), typeInto("rt-lon", fmt.Sprintf("%.7f", site.Lon)),
		chromedp.SetValue(chromedp.ID("rt-layer"), layer), chromedp.Click(chromedp.ID("rt-start")))
	waitLong(t, tb, "the summary", `!!document.getElementById('rt-summary-card') || !!document.querySelector('#rt-status .error-box')`, 120*time.Second)
	if msg := eval[string](t, tb, `(document.querySelector('#rt-status .error-box') || {}).innerText || ''`); msg != "" {
		t.Fatalf("the map failed: %s", msg)
	}
	if n := eval[int](t, tb, `document.querySelectorAll('#rt-map img.rt-tile').length`); n == 0 {
		t.Error("no tile drawn")
	}
	if !eval[bool](t, tb, `document.activeElement && document.activeElement.id === 'rt-summary-title'`) {
		t.Error("the focus is not on the summary's heading")
	}
	// The API's own summary of the same map.
	mapID := eval[string](t, tb, `(document.getElementById('rt-map-id').textContent.match(/\S+(?= \()/) || [''])[0].replace(/^Mapa /, '')`)
	r := env.srv.call(t, "GET", "/coverage/heatmap/"+mapID, map[string]string{"X-API-Key": ent}, "")
	var state struct {
		Summary struct {
			ValidPixels int          `json:"valid_pixels"`
			Warnings    []apiWarning `json:"warnings"`
			Detail      struct {
				Options struct {
					MaxReflections        int     `json:"max_reflections"`
					Transmission          bool    `json:"transmission"`
					DiffuseScattering     float64 `json:"diffuse_scattering"`
					ReflectionDiffraction bool    `json:"reflection_diffraction"`
					ScatteringReflections bool    `json:"scattering_reflections"`
					Sum                   string  `json:"sum"`
				} `json:"options"`
			} `json:"detail"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(r.body, &state); err != nil || r.status != 200 {
		t.Fatalf("GET /coverage/heatmap/%s: %d %s", mapID, r.status, r.body)
	}
	// the options the map was traced with, as the API's summary states them
	traced := eval[string](t, tb, `(document.getElementById('rt-traced') || {}).textContent || ''`)
	if o := state.Summary.Detail.Options; o.Sum == "" || !strings.Contains(traced, map[string]string{"coherent": "soma coerente", "power": "soma de potências"}[o.Sum]) ||
		strings.Contains(traced, "reflexão–difração") != o.ReflectionDiffraction ||
		strings.Contains(traced, "espalhamento também via reflexão nas paredes") != o.ScatteringReflections ||
		(o.DiffuseScattering > 0) != strings.Contains(traced, "espalhamento difuso S = "+strings.Replace(fmt.Sprintf("%.2f", o.DiffuseScattering), ".", ",", 1)) {
		t.Errorf("the summary says the map was traced with %q; the API's summary states %+v", traced, o)
	}
	if got := eval[string](t, tb, `document.getElementById('rt-valid').textContent`); !strings.HasPrefix(strings.ReplaceAll(got, ".", ""), strconv.Itoa(state.Summary.ValidPixels)+" ") {
		t.Errorf("pixels with a path %q on the page, %d in the API's summary", got, state.Summary.ValidPixels)
	}
	var codes, english []string
	for _, w := range state.Summary.Warnings {
		if !strings.Contains(","+strings.Join(codes, ",")+",", ","+w.Code+",") {
			codes = append(codes, w.Code)
			english = append(english, w.Message)
		}
	}
	got := readCaveats(t, tb, "rt-caveats", "rt-valid")
	for _, c := range codes { // the page adds the started event's warnings, if any
		if !strings.Contains(","+strings.Join(got.Codes, ",")+",", ","+c+",") {
			t.Errorf("the summary's caveat %s is not on the page (%v)", c, got.Codes)
		}
	}
	// the figures of the API's message ("n of N pixels") are on the page,
	// in pt-BR
	pixels := regexp.MustCompile(`\((\d+) of (\d+) pixels\)`)
	figures := 0
	for i, c := range codes {
		m := pixels.FindStringSubmatch(english[i])
		if m == nil {
			continue
		}
		figures++
		k := slices.Index(got.Codes, c)
		if want := m[1] + " de " + m[2] + " pixels"; k < 0 || !strings.Contains(strings.ReplaceAll(got.Texts[k], ".", ""), want) {
			t.Errorf("caveat %s: the page lacks its figures %q: %v", c, want, got.Texts)
		}
	}
	if figures == 0 {
		t.Errorf("no warning of the map counts its pixels: %v", english)
	}
	t.Logf("caveats on the page: %q", got.Texts)
	// the figures of the engine's other messages, as the engine words them
	figs := eval[string](t, tb, `(async () => {
		const { rtFigures } = await import('/js/rtjob.js');
		const fmt = { unit: (v, u, d) => v.toFixed(d).replace('.', ',') + '\u00a0' + u, int: (v) => String(v) };
		const f = rtFigures({ lang: 'pt-BR', fmt });
		const cases = [
			['Buildings with an assumed height (no height or storey count in the source) block or shape the paths: [w1 w2 and 3 more]. (7 of 40 pixels)', 'edificações: w1, w2 e mais 3; 7 de 40 pixels'],
			['The clutter beyond the building layer\'s edge, 9.0 m tall (the layer\'s median building), attenuates a path and that height is an assumed one.', 'obstrução de 9,0\u00a0m além da borda, altura presumida (padrão da camada)'],
			['The path leaves the building layer\'s extent; the unknown buildings beyond its edge were modelled as clutter 12.0 m tall, the layer\'s median building height, which rests on buildings\' own heights or storey counts. (3 of 9 pixels)', 'obstrução de 12,0\u00a0m além da borda, altura das próprias edificações; 3 de 9 pixels'],
			['The transmitter\'s antenna pattern (main lobe toward 45°), 25.0 dB from its strongest to its weakest bearing, is applied along each pixel\'s direct bearing.', 'diagrama de 25,0\u00a0dB entre a direção mais forte e a mais fraca'],
			['The receiver is inside a building, below its roof.', null],
		];
		const out = [];
		for (const [message, want] of cases) { const got = f({ code: 'x', message }); if (got !== want) out.push(JSON.stringify(got) + ' want ' + JSON.stringify(want)); }
		return out.join('; ');
	})()`)
	if figs != "" {
		t.Errorf("rtFigures: %s", figs)
	}
	// the form sends the service's default order of reflections (2) and
	// the intro says what is traced by default: transmission only ticked
	if o := state.Summary.Detail.Options; o.MaxReflections != 2 || o.Transmission {
		t.Errorf("the form traced max_reflections %d, transmission %v; want the service's defaults 2 and false", o.MaxReflections, o.Transmission)
	}
	if intro := eval[string](t, tb, `document.querySelector('#rt-form p').textContent`); !strings.Contains(intro, "transmissão pelas paredes só quando marcada") ||
		strings.Contains(intro, "(reflexões, difração, transmissão)") || !eval[bool](t, tb, `!!document.getElementById('rt-transmission') && !document.getElementById('rt-transmission').checked`) {
		t.Errorf("the intro %q (or the transmission control) does not say what is traced by default", intro)
	}
	if len(got.Codes) > 0 && (!got.Above || !got.Described) {
		t.Errorf("the caveats are not above the figure and tied to it: %+v", got)
	}
	for i, txt := range got.Texts {
		for _, e := range english {
			if e != "" && strings.Contains(txt, e) {
				t.Errorf("pt-BR caveat %d is the API's English sentence: %q", i, txt)
			}
		}
	}
	if n := eval[int](t, tb, `document.querySelectorAll('#rt-summary-card [data-format]').length`); n != 3 {
		t.Errorf("%d export buttons, want 3", n)
	}
	noLiteralText(t, tb, "raytrace summary")
	axe(t, tb)
	shot(t, tb, "v2-raytrace")
	switchLang(t, tb, "en")
	waitFor(t, tb, "the map kept in English", `!!document.getElementById('rt-summary-title') && document.getElementById('rt-summary-title').textContent === 'Map summary' && document.querySelectorAll('#rt-map img.rt-tile').length > 0`)
	shot(t, tb, "v2-raytrace")
}
