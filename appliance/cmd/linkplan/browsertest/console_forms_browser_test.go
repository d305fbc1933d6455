//go:build systemtools

package browsertest_test

// Browser tests of the console's forms screens (batch, observations,
// account, admin) with the harness of console_browser_test.go: the real
// binary, a real headless Chromium, every request kept on the appliance's
// origin, axe-core on each screen and screenshots at 1366×768 and 390×844.

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"linkplan/appliance"
	"linkplan/appliance/tenancy"
	"linkplan/store"
)

// batchCSV writes a batch of n receiver sites as a Brazilian spreadsheet
// exports it (';' separator, decimal commas, Portuguese headers) and
// returns its path.
func batchCSV(t *testing.T, dir, name string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("nome;latitude;longitude;altura_m;frequencia_mhz;raio_km\r\n")
	for i := range n {
		lat := -22.95 + float64(i%10)*0.004
		lon := -43.21 + float64(i/10)*0.004
		fmt.Fprintf(&b, "site %d;%s;%s;10;1800;20\r\n", i+1,
			strings.Replace(fmt.Sprintf("%.4f", lat), ".", ",", 1), strings.Replace(fmt.Sprintf("%.4f", lon), ".", ",", 1))
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// allowDownloads makes the browser save downloads into a new temporary
// directory and returns it.
func allowDownloads(t *testing.T, tb *tab) string {
	t.Helper()
	dir := t.TempDir()
	c := chromedp.FromContext(tb)
	ctx, cancel := context.WithTimeout(tb, 10*time.Second)
	defer cancel()
	if _, err := cdp.Call(ctx, c.Browser, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir, BrowserContextID: c.BrowserContextID,
	}); err != nil {
		t.Fatalf("set download behaviour: %v", err)
	}
	return dir
}

// downloaded waits until dir holds the finished file name and returns its
// bytes.
func downloaded(t *testing.T, tb *tab, dir, name string) []byte {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil && len(b) > 0 {
			if _, err := os.Stat(filepath.Join(dir, name+".crdownload")); os.IsNotExist(err) {
				return b
			}
		}
		if time.Now().After(deadline) {
			entries, _ := os.ReadDir(dir)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Fatalf("download %s not finished within 30 s (directory: %v)\n%s", name, names, tb.state())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitLong polls a JavaScript predicate like waitFor, for up to d.
func waitLong(t *testing.T, tb *tab, what, predicate string, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb, d)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](predicate, chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
		t.Fatalf("waiting for %s: %v\n%s", what, err, tb.state())
	}
}

// fitsPhone checks that the screen needs no horizontal scrolling at 390 px
// (wide tables scroll inside their own region; a map clips its own tiles),
// naming what sticks out.
func fitsPhone(t *testing.T, tb *tab, screen string) {
	t.Helper()
	tb.run(t, "phone viewport", chromedp.EmulateViewport(390, 844), chromedp.Sleep(200*time.Millisecond))
	out := eval[[]string](t, tb, `[...document.querySelectorAll('.screen-`+screen+` *')]
		.filter(e => !e.closest('.fk-scroll') && !e.closest('.leaflet-container') && e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
		.slice(0, 5).map(e => e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).split(' ').join('.') : '') + ' ' + Math.round(e.getBoundingClientRect().right) + ' px')`)
	if len(out) > 0 {
		t.Errorf("%s at 390 px: elements past the right edge: %v", screen, out)
	}
	if w := eval[int](t, tb, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("%s at 390 px: the page is %d px wide", screen, w)
	}
	tb.run(t, "laptop viewport", chromedp.EmulateViewport(viewports[0].w, viewports[0].h), chromedp.Sleep(200*time.Millisecond))
}

// statusWith calls GET path with key and returns the status code.
func statusWith(t *testing.T, env *consoleEnv, path, key string) (int, []byte) {
	t.Helper()
	r := env.srv.call(t, "GET", path, map[string]string{"X-API-Key": key}, "")
	return r.status, r.body
}

// TestConsoleBatch uploads a 3-row CSV (answered at once, one table row per
// site) and a 101-row CSV (a job): the progress is polled to succeeded and
// the bundle downloaded by the browser is a zip with the documented
// entries and one results.csv line per site.
func TestConsoleBatch(t *testing.T) {
	env := startConsole(t)
	tb := openConsole(t, env)
	signIn(t, tb, env.key)
	goScreen(t, tb, "batch")
	dir := t.TempDir()

	tb.run(t, "upload a small batch",
		chromedp.SetUploadFiles(chromedp.CSS(`.screen-batch input[name=file]`), []string{batchCSV(t, dir, "pequeno.csv", 3)}),
		chromedp.Click(chromedp.CSS(`.screen-batch form button[type=submit]`)))
	waitFor(t, tb, "the rows of the small batch", `document.querySelectorAll('.screen-batch .fk-out tbody tr').length === 3`)
	statuses := eval[[]string](t, tb, `[...document.querySelectorAll('.screen-batch .fk-out tbody .fk-status')].map(e => e.className.replace('fk-status fk-status-', ''))`)
	for i, s := range statuses {
		if s != "ok" && s != "low_margin" {
			t.Errorf("row %d: status %q, want a best tower (ok or low_margin)\n%s", i+1, s, tb.state())
		}
	}
	if cells := eval[string](t, tb, `document.querySelector('.screen-batch .fk-out tbody tr').innerText`); !strings.Contains(cells, "dBm") || !strings.Contains(cells, "km") {
		t.Errorf("first row %q lacks its units (dBm, km)", cells)
	}
	axe(t, tb)

	// Issue 27: the synchronous answer is downloaded from the page, and
	// the PDFs per row are off by default with their quota cost shown.
	downloads := allowDownloads(t, tb)
	for _, f := range []string{"csv", "geojson", "kml"} {
		tb.run(t, "download "+f, chromedp.Click(chromedp.CSS(`.screen-batch [data-export=`+f+`]`)))
		got := string(downloaded(t, tb, downloads, "linkplan-lote."+f))
		if n := strings.Count(got, "site ") / map[string]int{"csv": 1, "geojson": 1, "kml": 2}[f]; n != 3 { // KML: the name and the receiver_id
			t.Errorf("the %s download names %d sites, want 3:\n%.400s", f, n, got)
		}
		switch f {
		case "csv":
			if !strings.Contains(got, "rx_power_dbm") || strings.Count(strings.TrimSpace(got), "\n") != 3 {
				t.Errorf("CSV: want a header with rx_power_dbm and 3 rows:\n%s", got)
			}
		case "geojson":
			var fc struct {
				Features []struct {
					Geometry struct {
						Coordinates []float64 `json:"coordinates"`
					} `json:"geometry"`
				} `json:"features"`
			}
			if err := json.Unmarshal([]byte(got), &fc); err != nil || len(fc.Features) != 3 || fc.Features[0].Geometry.Coordinates[0] > -43 {
				t.Errorf("GeoJSON: %v, %d features, want 3 at lon ≈ -43.2: %.300s", err, len(fc.Features), got)
			}
		case "kml":
			if strings.Count(got, "<Placemark>") != 3 || !strings.Contains(got, "<coordinates>-43.2") {
				t.Errorf("KML: want 3 placemarks at lon -43.2…: %.300s", got)
			}
		}
	}
	if eval[bool](t, tb, `document.querySelector('.screen-batch input[name=pdfs]').checked`) {
		t.Error("the PDFs per row are on by default")
	}
	waitFor(t, tb, "the PDF quota line", `/500/.test(document.getElementById('batch-pdf-quota').textContent)`)

	tb.run(t, "upload a batch job",
		chromedp.SetUploadFiles(chromedp.CSS(`.screen-batch input[name=file]`), []string{batchCSV(t, dir, "grande.csv", 101)}),
		chromedp.Click(chromedp.CSS(`.screen-batch form button[type=submit]`)))
	waitFor(t, tb, "the job's progress bar", `!!document.querySelector('.screen-batch .fk-out progress')`)
	waitLong(t, tb, "the job to succeed", `!!document.querySelector('.screen-batch [data-action=download-bundle]') || !!document.querySelector('.screen-batch [data-state=failed]')`, 90*time.Second)
	jobID := eval[string](t, tb, `(document.querySelector('.screen-batch .fk-out h2').innerText.match(/job_[a-z2-7]+/) || [''])[0]`)
	if jobID == "" {
		t.Fatalf("no job id on the page\n%s", tb.state())
	}
	progress := eval[string](t, tb, `document.querySelector('.screen-batch .fk-out progress').getAttribute('value') + '/' + document.querySelector('.screen-batch .fk-out progress').getAttribute('max')`)
	if progress != "101/101" {
		t.Errorf("progress bar at %s, want 101/101", progress)
	}
	tb.run(t, "download the bundle", chromedp.Click(chromedp.CSS(`.screen-batch [data-action=download-bundle]`)))
	bundle := downloaded(t, tb, downloads, "linkplan-"+jobID+".zip")

	z, err := zip.NewReader(bytes.NewReader(bundle), int64(len(bundle)))
	if err != nil {
		t.Fatalf("the downloaded bundle (%d bytes) is not a zip: %v", len(bundle), err)
	}
	var names []string
	for _, f := range z.File {
		names = append(names, f.Name)
	}
	for _, want := range []string{"results.csv", "results.geojson", "results.kml", "results.shp", "results.shx", "results.dbf",
		"results.prj", "results.cpg", "summary.pdf", "manifest.json"} {
		if !slices.Contains(names, want) {
			t.Errorf("bundle entries %v lack %s", names, want)
		}
	}
	f, err := z.Open("results.csv")
	if err != nil {
		t.Fatal(err)
	}
	csv, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(strings.TrimRight(string(csv), "\r\n"), "\n") + 1; lines != 102 {
		t.Errorf("results.csv has %d lines, want a header and 101 rows", lines)
	}
	if !strings.Contains(string(csv), "site 101") {
		t.Errorf("results.csv lacks the last site's name (pt-BR header nome)")
	}
	eval[chromedp.Void](t, tb, `document.querySelector('.screen-batch .fk-out').scrollIntoView()`)
	shot(t, tb, "batch")
	fitsPhone(t, tb, "batch")
	axe(t, tb)

	// A job of the Pro tier's 2,000 rows is canceled from the page while
	// it runs (or before it starts).
	tb.run(t, "upload a long batch job",
		chromedp.SetUploadFiles(chromedp.CSS(`.screen-batch input[name=file]`), []string{batchCSV(t, dir, "longo.csv", 2000)}),
		chromedp.Click(chromedp.CSS(`.screen-batch form button[type=submit]`)),
		chromedp.Click(chromedp.CSS(`.screen-batch [data-action=cancel-job]`)),
		chromedp.Click(chromedp.CSS(`dialog[open] [data-confirm=yes]`)))
	waitLong(t, tb, "the job to be canceled", `!!document.querySelector('.screen-batch [data-state=canceled]')`, 60*time.Second)
	if n := eval[int](t, tb, `document.querySelectorAll('.screen-batch [data-action=download-bundle], .screen-batch [data-action=cancel-job]').length`); n != 0 {
		t.Errorf("a canceled job offers %d actions", n)
	}
}

// TestConsoleObservations: a drive test without the RX height is refused
// with the field named; with it, the rows are stored and the counts on the
// page are the API's. No residual map is drawn before a residual report
// is made (TestIssue27_Residuals makes one).
func TestConsoleObservations(t *testing.T) {
	env := startConsole(t)
	tb := openConsole(t, env)
	signIn(t, tb, env.key)
	goScreen(t, tb, "observations")
	waitFor(t, tb, "the stored counts", `!!document.querySelector('.screen-observations .fk-facts')`)

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
	tb.run(t, "fill the drive-test form without the RX height",
		chromedp.SetUploadFiles(chromedp.CSS(`.screen-observations input[name=csv_file]`), []string{p}),
		set("device", "TEMS"), set("tx_power_dbm", "43"), set("tx_gain_dbi", "15"), set("rx_gain_dbi", "0"),
		set("cable_loss_db", "1"), set("tx_lat", "-22.95"), set("tx_lon", "-43.23"), set("tx_height_m", "30"),
		chromedp.Click(chromedp.CSS(`.screen-observations form button[type=submit]`)))
	waitFor(t, tb, "the refusal", `!!document.querySelector('.screen-observations .error-box')`)
	// Issue 27: the refusal names the field by its label in pt-BR (not
	// the wire name) and the field is marked invalid and focused.
	if msg := eval[string](t, tb, `document.querySelector('.screen-observations .error-box').innerText`); !strings.Contains(msg, "Altura da antena RX (m)") {
		t.Errorf("the refusal %q does not name the RX height by its label", msg)
	}
	waitFor(t, tb, "the RX height marked and focused", `document.querySelector('.screen-observations input[name=rx_height_m]').getAttribute('aria-invalid') === 'true' && document.activeElement === document.querySelector('.screen-observations input[name=rx_height_m]')`)

	tb.run(t, "upload with the RX height", set("rx_height_m", "1.5"),
		chromedp.Click(chromedp.CSS(`.screen-observations form button[type=submit]`)))
	waitFor(t, tb, "the upload result", `document.querySelectorAll('.screen-observations .fk-out dd').length > 0`)
	got := eval[[]string](t, tb, `[...document.querySelectorAll('.screen-observations .fk-out dd')].map(d => d.innerText)`)
	if len(got) < 2 || got[0] != "5" || got[1] != "5" {
		t.Errorf("upload result %v, want 5 received and 5 stored", got)
	}
	status, body := statusWith(t, env, "/coverage/observations/stats", env.key)
	var stats struct {
		CellSignalSamples int `json:"cell_signal_samples"`
	}
	if err := json.Unmarshal(body, &stats); status != http.StatusOK || err != nil || stats.CellSignalSamples != 5 {
		t.Fatalf("stats: %d %s", status, body)
	}
	waitFor(t, tb, "the refreshed counts", `[...document.querySelectorAll('.screen-observations [data-part=stats] dd')].some(d => d.innerText === '5')`)
	if n := eval[int](t, tb, `document.querySelectorAll('.screen-observations .leaflet-container').length`); n != 0 {
		t.Errorf("%d maps drawn before any residual report", n)
	}
	// The models card shows what GET /coverage/model/info says: the
	// residual engine's version and grade, and the local model's version.
	status, body = statusWith(t, env, "/coverage/model/info", env.key)
	var info struct {
		LocalModel *struct {
			Version string `json:"version"`
		} `json:"local_model"`
		ResidualEngine struct {
			Loaded        bool    `json:"loaded"`
			ModelVersion  *string `json:"model_version"`
			AccuracyGrade string  `json:"accuracy_grade"`
		} `json:"residual_engine"`
	}
	if err := json.Unmarshal(body, &info); status != http.StatusOK || err != nil {
		t.Fatalf("model info: %d %s", status, body)
	}
	var want []string
	if info.LocalModel != nil {
		want = append(want, info.LocalModel.Version)
	}
	if info.ResidualEngine.Loaded && info.ResidualEngine.ModelVersion != nil {
		want = append(want, *info.ResidualEngine.ModelVersion)
	}
	if len(want) == 0 {
		t.Fatalf("model info names no model: %s", body)
	}
	waitFor(t, tb, "the models card", `document.querySelectorAll('.screen-observations [data-part=models] dd').length > 0`)
	card := eval[string](t, tb, `document.querySelector('.screen-observations [data-part=models]').innerText`)
	for _, v := range want {
		if !strings.Contains(card, v) {
			t.Errorf("models card %q lacks the model %q of GET /coverage/model/info", card, v)
		}
	}
	eval[chromedp.Void](t, tb, `document.querySelector('.screen-observations .fk-out').scrollIntoView()`)
	shot(t, tb, "observations")
	fitsPhone(t, tb, "observations")
	axe(t, tb)

	tb.run(t, "switch to English", chromedp.SetValue(chromedp.ID("lang"), "en"))
	waitFor(t, tb, "the English screen with its counts", `document.getElementById('screen-title').innerText === 'Observations' && (document.querySelector('.screen-observations [data-part=stats]') || {innerText: ''}).innerText.includes('Drive-test samples (CSV)')`)
	if n := eval[string](t, tb, `document.querySelector('.screen-observations [data-part=stats]').innerText`); !strings.Contains(n, "5") {
		t.Errorf("English stats %q lack the 5 stored samples", n)
	}
	axe(t, tb)
}

// TestConsoleKeyRotation: the account screen shows the quota without the
// word unlimited; a key created there is rotated (the new key is shown
// once, the old one keeps its 24-hour grace) and then revoked: the old key
// gets 401 and the new one works. The audit log filter finds the rotation.
func TestConsoleKeyRotation(t *testing.T) {
	env := startConsole(t)
	tb := openConsole(t, env)
	signIn(t, tb, env.key)
	goScreen(t, tb, "account")
	waitFor(t, tb, "the quota and the keys", `!!document.querySelector('.screen-account [data-counter=calls] progress') && !!document.querySelector('.screen-account [data-action=rotate]')`)
	if text := eval[string](t, tb, `document.querySelector('main').innerText.toLowerCase()`); strings.Contains(text, "unlimited") || strings.Contains(text, "ilimitad") {
		t.Error("the account screen says unlimited")
	}
	shot(t, tb, "account")
	fitsPhone(t, tb, "account")
	axe(t, tb)

	secretJS := `((document.querySelector('.screen-account [data-secret=api-key]') || {}).value || '')`
	tb.run(t, "create a key", chromedp.Click(chromedp.CSS(`.screen-account [data-action=create-key]`)))
	waitFor(t, tb, "the new key", secretJS+`.startsWith('lp_live_')`)
	old := eval[string](t, tb, secretJS)
	sum := sha256.Sum256([]byte(old))
	id := hex.EncodeToString(sum[:])[:12]

	tb.run(t, "rotate it",
		chromedp.Click(chromedp.CSS(`.screen-account [data-action=rotate][data-key-id="`+id+`"]`)),
		chromedp.Click(chromedp.CSS(`dialog[open] [data-confirm=yes]`)))
	waitFor(t, tb, "the rotated key", secretJS+`.startsWith('lp_live_') && `+secretJS+` !== '`+old+`'`)
	rotated := eval[string](t, tb, secretJS)
	if s, _ := statusWith(t, env, "/v1/me/quota", old); s != http.StatusOK {
		t.Errorf("the rotated key during its grace: %d, want 200", s)
	}
	waitFor(t, tb, "the rotating state", `!!document.querySelector('.screen-account [data-action=revoke][data-key-id="`+id+`"]') && !document.querySelector('.screen-account [data-action=rotate][data-key-id="`+id+`"]')`)

	tb.run(t, "open the revocation and leave it with Escape",
		chromedp.Click(chromedp.CSS(`.screen-account [data-action=revoke][data-key-id="`+id+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`dialog[open] [data-confirm=yes]`)),
		chromedp.KeyEvent(kb.Escape))
	waitFor(t, tb, "the dialog to close", `!document.querySelector('dialog[open]')`)
	if s, _ := statusWith(t, env, "/v1/me/quota", old); s != http.StatusOK {
		t.Errorf("the rotated key after a cancelled revocation: %d, want 200", s)
	}
	if focused := eval[string](t, tb, `document.activeElement.dataset.action || ''`); focused != "revoke" {
		t.Errorf("focus on %q after the dialog closed, want back on the revoke button", focused)
	}

	tb.run(t, "revoke the old key",
		chromedp.Click(chromedp.CSS(`.screen-account [data-action=revoke][data-key-id="`+id+`"]`)),
		chromedp.Click(chromedp.CSS(`dialog[open] [data-confirm=yes]`)))
	waitFor(t, tb, "the revoked state", `!document.querySelector('.screen-account [data-key-id="`+id+`"]')`)
	if s, b := statusWith(t, env, "/v1/me/quota", old); s != http.StatusUnauthorized {
		t.Errorf("the old key after revocation: %d %s, want 401", s, b)
	}
	if s, b := statusWith(t, env, "/v1/me/quota", rotated); s != http.StatusOK {
		t.Errorf("the new key: %d %s, want 200", s, b)
	}

	tb.run(t, "filter the audit log",
		chromedp.SendKeys(chromedp.CSS(`.screen-account input[name=action]`), "tenant.key.rotate"),
		chromedp.Click(chromedp.CSS(`.screen-account form[role=search] button[type=submit]`)))
	waitFor(t, tb, "the filtered audit log", `[...document.querySelectorAll('.screen-account [data-part=audit] tbody code')].some(c => c.innerText === 'tenant.key.rotate')`)
	if actions := eval[[]string](t, tb, `[...document.querySelectorAll('.screen-account [data-part=audit] tbody code')].map(c => c.innerText)`); slices.ContainsFunc(actions, func(a string) bool { return a != "tenant.key.rotate" }) {
		t.Errorf("audit rows under the filter tenant.key.rotate: %v", actions)
	}

	// The new key is a member key: its session may rotate only itself, and
	// is offered neither key creation, revocation nor privacy requests.
	member := openConsole(t, env)
	signIn(t, member, rotated)
	goScreen(t, member, "account")
	waitFor(t, member, "the member's keys", `document.querySelectorAll('.screen-account [data-action=rotate]').length === 1`)
	sum = sha256.Sum256([]byte(rotated))
	if got := eval[string](t, member, `document.querySelector('.screen-account [data-action=rotate]').dataset.keyId`); got != hex.EncodeToString(sum[:])[:12] {
		t.Errorf("a member may rotate key %s, want only its own", got)
	}
	if n := eval[int](t, member, `document.querySelectorAll('.screen-account [data-action=revoke], .screen-account [data-action=create-key], .screen-account [data-action=export]').length`); n != 0 {
		t.Errorf("a member session is offered %d tenant-admin actions", n)
	}
}

// TestConsoleAdminTOTP: the admin screen (admin key) shows readiness and
// issues a key after the TOTP step-up typed into the shell's modal; the
// issued key works.
func TestConsoleAdminTOTP(t *testing.T) {
	env := startConsole(t)
	tb := openConsole(t, env)
	signIn(t, tb, env.admin.APIKey)
	goScreen(t, tb, "admin")
	waitFor(t, tb, "readiness", `document.querySelector('.screen-admin [data-ready]') && document.querySelector('.screen-admin [data-ready]').innerText === 'ready'`)
	// The tenants card lists what GET /admin/tenants answers for the
	// same page (the console asks for 20), in the same order.
	listStatus, listBody := statusWith(t, env, "/admin/tenants?limit=20", env.admin.APIKey)
	var listed struct {
		Tenants []struct {
			TenantID string `json:"tenant_id"`
		} `json:"tenants"`
	}
	if err := json.Unmarshal(listBody, &listed); listStatus != http.StatusOK || err != nil || len(listed.Tenants) == 0 {
		t.Fatalf("admin tenants: %d %s", listStatus, listBody)
	}
	var wantIDs []string
	for _, tn := range listed.Tenants {
		wantIDs = append(wantIDs, tn.TenantID)
	}
	if !slices.Contains(wantIDs, env.tenant) {
		t.Errorf("the API's tenants %v miss the console's tenant %s", wantIDs, env.tenant)
	}
	cells := `document.querySelectorAll('.screen-admin [data-part=tenants] [data-tenant-id]')`
	waitFor(t, tb, "the tenant list", cells+`.length > 0 || !!document.querySelector('.screen-admin [data-part=tenants] .error-box')`)
	if got := eval[string](t, tb, `[...`+cells+`].map((e) => e.innerText).join(',')`); got != strings.Join(wantIDs, ",") {
		t.Errorf("the tenant list shows %q, the API answers %q\n%s", got, strings.Join(wantIDs, ","), tb.state())
	}
	shot(t, tb, "admin")
	fitsPhone(t, tb, "admin")
	axe(t, tb)
	// Choosing a tenant fills the branding form's tenant id.
	tb.run(t, "choose a tenant for branding",
		chromedp.Click(chromedp.CSS(`.screen-admin [data-action=choose-tenant][data-tenant="`+env.tenant+`"]`)))
	if got := eval[string](t, tb, `document.querySelector('.screen-admin form[data-form=branding] input[name=tenant_id]').value`); got != env.tenant {
		t.Errorf("the branding form's tenant id is %q after choosing %s", got, env.tenant)
	}

	form := `.screen-admin form[data-form=issue-key] `
	tb.run(t, "fill the issue form",
		chromedp.SetValue(chromedp.CSS(form+`select[name=tier]`), "Business"),
		chromedp.SendKeys(chromedp.CSS(form+`input[name=owner]`), "Provedor Exemplo"),
		chromedp.SendKeys(chromedp.CSS(form+`input[name=email]`), "noc@exemplo.com.br"),
		chromedp.SendKeys(chromedp.CSS(form+`textarea[name=justification]`), "browser test of the admin TOTP flow"),
		chromedp.Click(chromedp.CSS(form+`button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`.modal input.totp`)),
		chromedp.SendKeys(chromedp.CSS(`.modal input.totp`), env.adminTotp(t)),
		chromedp.Click(chromedp.CSS(`.modal button.primary`)))
	secretJS := `((document.querySelector('.screen-admin [data-secret=api-key]') || {}).value || '')`
	waitFor(t, tb, "the issued key", secretJS+`.startsWith('lp_live_') || !!document.querySelector('.screen-admin .error-box')`)
	key := eval[string](t, tb, secretJS)
	if key == "" {
		t.Fatalf("no key issued\n%s", tb.state())
	}
	status, body := statusWith(t, env, "/v1/me/quota", key)
	var q struct {
		Tier string `json:"tier"`
	}
	if err := json.Unmarshal(body, &q); status != http.StatusOK || err != nil || q.Tier != "Business" {
		t.Errorf("the issued key: %d %s, want 200 and tier Business", status, body)
	}

	// An admin key is not metered: every counter has no cap, and the
	// account screen shows the API's reason instead of a bar.
	status, body = statusWith(t, env, "/v1/me/quota", env.admin.APIKey)
	var aq struct {
		Counters []struct {
			Name   string  `json:"name"`
			Limit  *int    `json:"limit"`
			Reason *string `json:"reason"`
		} `json:"counters"`
	}
	if err := json.Unmarshal(body, &aq); status != http.StatusOK || err != nil || len(aq.Counters) == 0 {
		t.Fatalf("admin quota: %d %s", status, body)
	}
	goScreen(t, tb, "account")
	waitFor(t, tb, "the admin's counters", `document.querySelectorAll('.screen-account [data-counter]').length === `+fmt.Sprint(len(aq.Counters)))
	for _, c := range aq.Counters {
		if c.Limit != nil || c.Reason == nil {
			t.Fatalf("admin counter %s: limit %v reason %v, want no cap with a reason", c.Name, c.Limit, c.Reason)
		}
		text := eval[string](t, tb, `document.querySelector('.screen-account [data-counter=`+c.Name+`]').innerText`)
		if !strings.Contains(text, *c.Reason) || strings.Contains(strings.ToLower(text), "ilimitad") {
			t.Errorf("counter %s shows %q, want the reason %q", c.Name, text, *c.Reason)
		}
	}
	if n := eval[int](t, tb, `document.querySelectorAll('.screen-account [data-counter] progress').length`); n != 0 {
		t.Errorf("%d quota bars for counters without a cap", n)
	}
	axe(t, tb)
}

// TestConsoleAdminTenantPages: with more tenants than one page of the
// console (20), the tenants card pages by the API's cursor: each page
// shows the tenant ids the API answers for the same call, "next" and
// "first" move between them, and a tenant of the second page can be
// chosen for the branding form. The tenants are stored before the first
// start (store.Open on the data directory), as issuing 25 keys through
// POST /admin/keys would spend 25 TOTP steps.
func TestConsoleAdminTenantPages(t *testing.T) {
	browser(t)
	env := &consoleEnv{dataDir: t.TempDir()}
	db, err := store.Open(env.dataDir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tenancy.New(db, nil).Bootstrap(env.dataDir); err != nil {
		t.Fatal(err)
	}
	for i := range 25 {
		plain := fmt.Sprintf("%s%040x", appliance.KeyPrefixTenant, i+1)
		hash := tenancy.Hash(plain)
		k := &appliance.APIKey{ID: hash[:12], HashHex: hash, Prefix: plain[:14], Tier: appliance.TierStarter, Role: appliance.RoleTenant,
			Owner: fmt.Sprintf("Provedor %02d", 24-i), Email: fmt.Sprintf("noc%02d@example.com", 24-i), TenantID: fmt.Sprintf("t_page%02d", 24-i), CreatedUnix: time.Now().Unix()}
		if err := db.PutKey(k); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	env.srv = startServe(t, binary(t), env.dataDir)
	b, err := os.ReadFile(filepath.Join(env.dataDir, "admin-credentials.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &env.admin); err != nil {
		t.Fatal(err)
	}
	type page struct {
		Tenants []struct {
			TenantID string `json:"tenant_id"`
		} `json:"tenants"`
		NextCursor *string `json:"next_cursor"`
	}
	apiPage := func(cursor string) (ids string, next string) {
		t.Helper()
		path := "/admin/tenants?limit=20"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		status, body := statusWith(t, env, path, env.admin.APIKey)
		var p page
		if err := json.Unmarshal(body, &p); status != http.StatusOK || err != nil {
			t.Fatalf("%s: %d %s", path, status, body)
		}
		var out []string
		for _, tn := range p.Tenants {
			out = append(out, tn.TenantID)
		}
		if p.NextCursor != nil {
			next = *p.NextCursor
		}
		return strings.Join(out, ","), next
	}
	first, cursor := apiPage("")
	second, last := apiPage(cursor)
	if cursor == "" || last != "" || strings.Count(first, ",") != 19 || strings.Count(second, ",") != 4 || !strings.HasPrefix(first, "t_page00,") {
		t.Fatalf("the API's pages: %q then %q (next %q)", first, second, last)
	}

	tb := openConsole(t, env)
	signIn(t, tb, env.admin.APIKey)
	goScreen(t, tb, "admin")
	cells := `[...document.querySelectorAll('.screen-admin [data-part=tenants] [data-tenant-id]')].map((e) => e.innerText).join(',')`
	waitFor(t, tb, "the first page", cells+` === '`+first+`'`)
	// Issue 27: the list names each tenant's owner and e-mail.
	if got := eval[string](t, tb, `document.querySelector('.screen-admin [data-owner=t_page03]').innerText + ' ' + document.querySelector('.screen-admin [data-email=t_page03]').innerText`); got != "Provedor 03 noc03@example.com" {
		t.Errorf("tenant t_page03's owner and e-mail show as %q", got)
	}
	if n := eval[int](t, tb, `document.querySelectorAll('.screen-admin [data-action=tenants-first], .screen-admin [data-action=tenants-previous]').length`); n != 0 {
		t.Errorf("the first page offers %d backward buttons", n)
	}
	tb.run(t, "next page", chromedp.Click(chromedp.CSS(`.screen-admin [data-action=tenants-next]`)))
	waitFor(t, tb, "the second page", cells+` === '`+second+`'`)
	if n := eval[int](t, tb, `document.querySelectorAll('.screen-admin [data-action=tenants-next]').length`); n != 0 {
		t.Errorf("the last page offers a next button")
	}
	axe(t, tb)
	tb.run(t, "choose a tenant of the second page",
		chromedp.Click(chromedp.CSS(`.screen-admin [data-action=choose-tenant][data-tenant="t_page24"]`)))
	if got := eval[string](t, tb, `document.querySelector('.screen-admin form[data-form=branding] input[name=tenant_id]').value`); got != "t_page24" {
		t.Errorf("the branding form's tenant id is %q, want t_page24", got)
	}
	tb.run(t, "first page", chromedp.Click(chromedp.CSS(`.screen-admin [data-action=tenants-first]`)))
	waitFor(t, tb, "the first page again", cells+` === '`+first+`'`)
}

// TestConsoleAdminDSARExport: the admin exports a tenant's data by its
// key prefix from the privacy card (justification, subject e-mail, TOTP);
// the page names the request and the two audit rows carry its id.
func TestConsoleAdminDSARExport(t *testing.T) {
	env := startConsole(t)
	status, body := statusWith(t, env, "/tenant/keys", env.key)
	var keys struct {
		Keys []struct {
			Prefix string `json:"prefix"`
		} `json:"keys"`
	}
	if err := json.Unmarshal(body, &keys); status != http.StatusOK || err != nil || len(keys.Keys) != 1 {
		t.Fatalf("tenant keys: %d %s", status, body)
	}
	tb := openConsole(t, env)
	signIn(t, tb, env.admin.APIKey)
	goScreen(t, tb, "admin")
	waitFor(t, tb, "the overdue list", `!!document.querySelector('.screen-admin [data-part=overdue] p')`)

	form := `.screen-admin form[data-form=dsar] `
	tb.run(t, "ask for the export",
		chromedp.SendKeys(chromedp.CSS(form+`input[name=api_key_prefix]`), keys.Keys[0].Prefix),
		chromedp.SendKeys(chromedp.CSS(form+`input[name=confirm_subject_email]`), "console@example.com"),
		chromedp.SendKeys(chromedp.CSS(form+`textarea[name=justification]`), "data subject request, browser test"),
		chromedp.Click(chromedp.CSS(form+`[data-action=dsar-export]`)),
		chromedp.WaitVisible(chromedp.CSS(`.modal input.totp`)),
		chromedp.SendKeys(chromedp.CSS(`.modal input.totp`), env.adminTotp(t)),
		chromedp.Click(chromedp.CSS(`.modal button.primary`)))
	waitFor(t, tb, "the export's answer", `!!document.querySelector('.screen-admin [data-part=dsar-out] [role=status]') || !!document.querySelector('.screen-admin .error-box')`)
	msg := eval[string](t, tb, `(document.querySelector('.screen-admin [data-part=dsar-out] [role=status]') || {innerText: ''}).innerText`)
	id := ""
	for _, w := range strings.Fields(msg) {
		if strings.HasPrefix(w, "dsar_") {
			id = strings.TrimRight(w, ":.,")
		}
	}
	if id == "" {
		t.Fatalf("no request id on the page: %q\n%s", msg, tb.state())
	}
	status, body = statusWith(t, env, "/admin/audit?action=admin.dsar.export.served", env.admin.APIKey)
	if status != http.StatusOK || !strings.Contains(string(body), id) {
		t.Errorf("admin audit of the export: %d %s, want a row with %s", status, body, id)
	}
}

// TestConsoleForget: the data export is downloaded as JSON; the erase
// button stays disabled until the literal confirmation text is typed; then
// the tenant is erased and its key gets 401 key_erased.
func TestConsoleForget(t *testing.T) {
	env := startConsole(t)
	tb := openConsole(t, env)
	signIn(t, tb, env.key)
	goScreen(t, tb, "account")

	// The data export first, saved by the browser as a JSON file.
	downloads := allowDownloads(t, tb)
	day := eval[string](t, tb, `new Date().toISOString().slice(0, 10)`)
	tb.run(t, "export my data", chromedp.Click(chromedp.CSS(`.screen-account [data-action=export]`)))
	var export struct {
		DSARRequestID string `json:"dsar_request_id"`
		Bundle        struct {
			Identity struct {
				TenantID string `json:"tenant_id"`
			} `json:"identity"`
		} `json:"bundle"`
	}
	if err := json.Unmarshal(downloaded(t, tb, downloads, "linkplan-meus-dados-"+day+".json"), &export); err != nil ||
		!strings.HasPrefix(export.DSARRequestID, "dsar_") || export.Bundle.Identity.TenantID != env.tenant {
		t.Errorf("the downloaded export: %+v, %v; want a dsar request of tenant %s", export, err, env.tenant)
	}

	confirmBox := `.screen-account input[name=confirmation]`
	forget := `document.querySelector('.screen-account [data-action=forget]')`
	tb.run(t, "type a near miss", chromedp.SendKeys(chromedp.CSS(confirmBox), "delete my data"))
	if !eval[bool](t, tb, forget+`.disabled`) {
		t.Fatal("the erase button is enabled by a text other than DELETE MY DATA")
	}
	tb.run(t, "type the confirmation and erase",
		// chromedp's SetValue and Clear cannot empty a field here: the page does it.
		chromedp.Evaluate[chromedp.Void](`(i => { i.value = ''; i.dispatchEvent(new Event('input', {bubbles: true})); })(document.querySelector('`+confirmBox+`'))`),
		chromedp.SendKeys(chromedp.CSS(confirmBox), "DELETE MY DATA"),
		chromedp.Click(chromedp.CSS(`.screen-account [data-action=forget]`)))
	waitFor(t, tb, "the erasure's answer", `/dsar_[a-z2-7]+/.test((document.querySelector('.screen-account [data-part=forget-out]') || {innerText: ''}).innerText)`)
	status, body := statusWith(t, env, "/v1/me/quota", env.key)
	if status != http.StatusUnauthorized || !strings.Contains(string(body), "key_erased") {
		t.Errorf("the erased tenant's key: %d %s, want 401 key_erased", status, body)
	}
}
