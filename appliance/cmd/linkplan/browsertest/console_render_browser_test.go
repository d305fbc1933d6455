//go:build systemtools

package browsertest_test

import (
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestIssue27_RenderFigures prints the console's render figures on the
// real binary, one line per screen (make bench-console runs it):
//
//	screen=<id> fcp_ms= render_ms= switch_ms=
//
// fcp_ms is the first contentful paint of a cold load of the screen's
// address (a reload, the session kept in the tab), render_ms when the
// screen's render finished after that load (the shell's lp-screen-<id>
// mark, from the navigation's start), switch_ms the time from a hash
// change to that mark when the screen is opened from another one. The
// goal (issue 27: under 1 s on a quiet machine) is measured here and
// quoted, not asserted: a loaded test machine says nothing of it. Every
// screen is measured with LINKPLAN_BENCH_CONSOLE=1 (make bench-console);
// make test measures the default screen and the admin screen (the two
// sign-ins), which keeps the measurement itself working.
func TestIssue27_RenderFigures(t *testing.T) {
	all := os.Getenv("LINKPLAN_BENCH_CONSOLE") == "1"
	env := startConsole(t)
	tb := openConsole(t, env)
	signIn(t, tb, env.key)
	measure := func(id string) {
		t.Helper()
		tb.run(t, "to "+id, chromedp.Evaluate[chromedp.Void](`location.hash = '#/`+id+`'`))
		waitFor(t, tb, "screen "+id, `!!document.querySelector('section.screen-`+id+`')`)
		tb.run(t, "reload "+id, chromedp.Reload())
		waitFor(t, tb, id+" after the reload", `performance.getEntriesByName('lp-screen-`+id+`').length > 0`)
		// The paint entry may come after the mark: wait for it (3 s at most).
		cold := eval[map[string]float64](t, tb, `new Promise((ok) => {
			const m = performance.getEntriesByName('lp-screen-`+id+`');
			const done = (fcp) => ok({fcp: fcp ? fcp.startTime : -1, render: m[m.length - 1].startTime});
			const now = performance.getEntriesByName('first-contentful-paint')[0];
			if (now) return done(now);
			new PerformanceObserver((l) => { const e = l.getEntriesByName('first-contentful-paint')[0]; if (e) done(e); }).observe({type: 'paint', buffered: true});
			setTimeout(() => done(performance.getEntriesByName('first-contentful-paint')[0]), 3000);
		})`)
		// From another screen: the time the router takes to the mark.
		other := "link"
		if id == "link" {
			other = "towers"
		}
		tb.run(t, "to "+other, chromedp.Evaluate[chromedp.Void](`location.hash = '#/`+other+`'`))
		waitFor(t, tb, "screen "+other, `performance.getEntriesByName('lp-screen-`+other+`').length > 0`)
		sw := eval[float64](t, tb, `new Promise((ok) => {
			const before = performance.getEntriesByName('lp-screen-`+id+`').length;
			const t0 = performance.now();
			location.hash = '#/`+id+`';
			const poll = () => { const m = performance.getEntriesByName('lp-screen-`+id+`'); if (m.length > before) ok(m[m.length - 1].startTime - t0); else setTimeout(poll, 5); };
			poll();
		})`)
		t.Logf("screen=%s fcp_ms=%.0f render_ms=%.0f switch_ms=%.0f", id, cold["fcp"], cold["render"], sw)
	}
	for _, id := range screenModules(t) {
		if id != "admin" && (all || id == "link") {
			measure(id)
		}
	}
	// The admin screen, for the appliance's admin key.
	tb.run(t, "sign out", chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("signin-key")))
	signIn(t, tb, env.admin.APIKey)
	measure("admin")
	tb.run(t, "settle", chromedp.Sleep(200*time.Millisecond))
}
