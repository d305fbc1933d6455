//go:build systemtools

package browsertest_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestIssue27_PtPScreen drives the PtP screen (issue 27, scope 6) on the
// real binary: both ends drawn on the map, the radios and antennas listed
// from GET /equipment/radios and /equipment/antennas (built-ins included),
// POST /links/ptp for the Sumaré → Pedra Bonita link, the caveats above
// the headline in the user's language, the per-mode budget with its
// availability and the recommended mode, the PDF and KMZ downloads
// (POST /reports/ptp, /exports/ptp?format=kmz), the result kept across a
// language switch; no uncaught exception, CSP violation or request
// leaving the origin (openConsole's cleanup) and axe-core clean.
func TestIssue27_PtPScreen(t *testing.T) {
	env := startConsole(t)
	tb := openConsole(t, env)
	signIn(t, tb, env.key)
	goScreen(t, tb, "ptp")
	waitFor(t, tb, "equipment listed", `document.querySelectorAll('#ptp-a-radio option').length > 0 && document.querySelectorAll('#ptp-b-antenna option').length > 0`)
	if got := eval[string](t, tb, `document.getElementById('ptp-a-radio').value + ' ' + document.getElementById('ptp-b-antenna').value`); got != "builtin:microwave-11-23ghz builtin:dish-38dbi" {
		t.Errorf("default equipment = %q, want the built-in licensed radio and 38 dBi dish", got)
	}
	if n := eval[int](t, tb, `document.querySelectorAll('#ptp-map .ptp-end-a, #ptp-map .ptp-end-b').length`); n != 2 {
		t.Errorf("%d end markers on the map, want 2", n)
	}
	tb.run(t, "analyse", chromedp.Click(chromedp.ID("ptp-analyse")))
	waitFor(t, tb, "result", `!!document.getElementById('ptp-headline')`)
	head := eval[string](t, tb, `document.getElementById('ptp-headline').textContent`)
	if !strings.HasPrefix(head, "Modo recomendado") && !strings.HasPrefix(head, "Nenhum modo") {
		t.Errorf("headline %q is not in Portuguese", head)
	}
	if focused := eval[string](t, tb, `document.activeElement ? document.activeElement.id : ''`); focused != "ptp-headline" {
		t.Errorf("focus on %q after analyse, want the headline", focused)
	}
	rows := eval[int](t, tb, `document.querySelectorAll('#ptp-modes tbody tr').length`)
	if rows < 2 {
		t.Errorf("%d mode rows, want the built-in radio's modes", rows)
	}
	if strings.HasPrefix(head, "Modo recomendado") && eval[int](t, tb, `document.querySelectorAll('#ptp-modes tbody tr.recommended').length`) != 1 {
		t.Errorf("the recommended mode is not marked in the table")
	}
	// The caveats, when the answer has some, come before the headline.
	if eval[bool](t, tb, `(() => { const c = document.getElementById('ptp-caveats'); return !!c && !!(c.compareDocumentPosition(document.getElementById('ptp-headline')) & Node.DOCUMENT_POSITION_PRECEDING); })()`) {
		t.Errorf("caveats drawn after the headline")
	}
	noLiteralText(t, tb, "ptp result")
	axe(t, tb)
	shot(t, tb, "v2-ptp")
	for _, b := range []struct{ id, ext string }{{"ptp-pdf", ".pdf"}, {"ptp-kmz", ".kmz"}} {
		tb.run(t, "download "+b.ext, chromedp.Evaluate[chromedp.Void](`document.getElementById('ptp-saved').textContent = ''`), chromedp.Click(chromedp.ID(b.id)))
		waitFor(t, tb, b.ext+" saved", `document.getElementById('ptp-saved').textContent.includes('`+b.ext+`') || !!document.querySelector('#ptp-saved .error')`)
		if msg := eval[string](t, tb, `document.getElementById('ptp-saved').textContent`); !strings.Contains(msg, "salvo") {
			t.Errorf("%s download: %q", b.ext, msg)
		}
	}
	var posted []string
	for _, u := range tb.Requests() {
		for _, p := range []string{"/links/ptp", "/reports/ptp", "/exports/ptp?format=kmz", "/equipment/radios", "/equipment/antennas"} {
			if strings.Contains(u, p) {
				posted = append(posted, p)
			}
		}
	}
	for _, p := range []string{"/links/ptp", "/reports/ptp", "/exports/ptp?format=kmz", "/equipment/radios", "/equipment/antennas"} {
		if !strings.Contains(strings.Join(posted, " "), p) {
			t.Errorf("no request to %s; requests: %v", p, posted)
		}
	}
	switchLang(t, tb, "en")
	waitFor(t, tb, "result kept in English", `!!document.getElementById('ptp-headline') && /^(Recommended mode|No mode)/.test(document.getElementById('ptp-headline').textContent)`)
	shot(t, tb, "v2-ptp")
}
