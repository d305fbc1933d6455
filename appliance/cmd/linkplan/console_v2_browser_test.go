package main_test

// Browser tests of issue 27 (console v2): each bug the issue lists, with
// the test that would have caught it, and the flow points. They reuse the
// helpers of console_browser_test.go (startConsole, openConsole, whose
// cleanup fails a test on an uncaught exception, a CSP violation or a
// request that left the origin).

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// noLiteralText fails the test when a text node of the page reads like a
// JavaScript value that leaked into the DOM: "null", "undefined", "NaN" or
// "[object Object]" (Element.append(null) writes the text "null").
func noLiteralText(t *testing.T, tb *tab, where string) {
	t.Helper()
	bad := eval[[]string](t, tb, `(() => {
		const out = [];
		const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
		for (let n = w.nextNode(); n; n = w.nextNode()) {
			const s = n.textContent;
			if (/(^|[^\w-])(null|undefined|NaN)([^\w-]|$)|\[object Object\]/.test(s)) {
				const p = n.parentElement;
				out.push((p ? p.tagName.toLowerCase() + (p.id ? '#' + p.id : '') : '?') + ': ' + s.trim().slice(0, 80));
			}
		}
		return out;
	})()`)
	for _, b := range bad {
		t.Errorf("%s: a JavaScript value shows as text: %s", where, b)
	}
}

// typeInto clears an input and types s into it as a user would (input
// events, no change event until the field is left).
func typeInto(id, s string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const e = document.getElementById(%q); e.focus(); e.value = ''; })()`, id)),
		chromedp.SendKeys(chromedp.ID(id), s),
	)
}

// TestIssue27_NoNullText: the Link screen's results (towers table, budget,
// engine comparison and the AI explanation) and the Towers screen's table
// show no "null" (the bug: a literal "null" under every AI explanation and
// under the towers table each time it was drawn).
func TestIssue27_NoNullText(t *testing.T) {
	env := startConsole(t)
	tb := openConsole(t, env)
	signIn(t, tb, env.key)
	goScreen(t, tb, "link")
	tb.run(t, "analyse", chromedp.Click(chromedp.ID("link-analyze")))
	waitFor(t, tb, "the best tower", `!!document.getElementById('link-best-id')`)
	waitFor(t, tb, "the explanation panel", `!!document.getElementById('link-explain')`)
	tb.run(t, "explain", chromedp.Click(chromedp.ID("link-explain")))
	waitFor(t, tb, "the explanation", `!!document.getElementById('link-explain-text')`)
	noLiteralText(t, tb, "Link after Explain")

	goScreen(t, tb, "towers")
	waitFor(t, tb, "the towers table", `document.querySelectorAll('#tw-list tbody tr').length > 0`)
	noLiteralText(t, tb, "Towers table")
	tb.run(t, "redraw by the filter", chromedp.SetValue(chromedp.ID("tw-synthetic"), "hide"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('tw-synthetic').dispatchEvent(new Event('change'))`))
	noLiteralText(t, tb, "Towers table redrawn")
}

