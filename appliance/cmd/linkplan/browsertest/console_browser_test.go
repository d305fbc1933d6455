//go:build systemtools

package browsertest_test

// Browser tests of the web console: the real binary (binary, startServe)
// and a real headless Chromium (Debian's chromium, installed by make
// test-deps) driven through the DevTools protocol by chromedp. One browser
// per test binary (sync.Once); each test gets its own tab, whose every
// network request is recorded and must stay on the appliance's origin.
// LINKPLAN_SKIP_BROWSER=1 skips these tests explicitly; otherwise a missing
// browser is a failure.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	"image/draw"
	"image/jpeg"
	"image/png"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/pquerna/otp/totp"

	"linkplan/appliance/sso/ssotest"
	"linkplan/appliance/tooltest"
)

var updateScreenshots = flag.Bool("update-screenshots", false, "write the console screenshots of the browser tests to docs/screenshots")

// screenshotDir is where -update-screenshots writes, relative to this
// package.
const screenshotDir = "../../../../docs/screenshots"

// axePath is the pinned axe-core build committed by make axe-fixture
// (testdata/axe/PROVENANCE); it is injected into the page, never served.
const axePath = "testdata/axe/axe.min.js"

// Viewports of the screenshots: a laptop and a phone.
var viewports = [...]struct{ w, h int64 }{{1366, 768}, {390, 844}}

// shared is the one headless browser of the test binary.
var shared struct {
	once   sync.Once
	ctx    context.Context // a browser context: tabs are its children
	cancel context.CancelFunc
	err    error
}

// chromiumPath finds the browser: $LINKPLAN_CHROMIUM, else Debian's
// chromium on the PATH.
func chromiumPath() (string, error) {
	if p := os.Getenv("LINKPLAN_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium on the PATH: run make test-deps (Debian package chromium), set LINKPLAN_CHROMIUM, or set LINKPLAN_SKIP_BROWSER=1 to skip the browser tests")
}

// browser returns the shared browser context, starting Chromium once.
func browser(t *testing.T) context.Context {
	t.Helper()
	if os.Getenv("LINKPLAN_SKIP_BROWSER") == "1" {
		t.Skip("LINKPLAN_SKIP_BROWSER=1: browser tests skipped")
	}
	tooltest.Gate(t, "chromium (Debian chromium)")
	if testing.Short() {
		t.Skip("starts the binary and a browser; skipped with -short")
	}
	shared.once.Do(func() {
		path, err := chromiumPath()
		if err != nil {
			shared.err = err
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.WindowSize(1366, 768),
			chromedp.Flag("hide-scrollbars", true), chromedp.Flag("mute-audio", true))
		if os.Geteuid() == 0 {
			opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root with its sandbox
		}
		actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
		bctx, bcancel := chromedp.NewContext(actx)
		if err := chromedp.Do(bctx); err != nil {
			bcancel()
			acancel()
			shared.err = fmt.Errorf("start %s: %w", path, err)
			return
		}
		shared.ctx = bctx
		shared.cancel = func() { bcancel(); acancel() }
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.ctx
}

// stopBrowser closes the shared browser (called by TestMain).
func stopBrowser() {
	if shared.cancel != nil {
		shared.cancel()
	}
}

// consoleEnv is a running appliance for a browser test.
type consoleEnv struct {
	srv     *server
	dataDir string
	key     string // a Pro tenant key issued for the test
	tenant  string
	admin   struct {
		APIKey     string `json:"api_key"`
		TOTPSecret string `json:"totp_secret"`
	}
	totpAt time.Time // the time step of the last admin code used
}

// startConsole starts the binary on a fresh data directory and issues a
// Pro tenant key with the admin credentials (TOTP step-up).
func startConsole(t *testing.T, extra ...string) *consoleEnv {
	t.Helper()
	browser(t)
	env := &consoleEnv{dataDir: t.TempDir()}
	env.srv = startServe(t, binary(t), env.dataDir, extra...)
	b, err := os.ReadFile(filepath.Join(env.dataDir, "admin-credentials.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &env.admin); err != nil {
		t.Fatal(err)
	}
	env.key, env.tenant = env.issueKey(t, "Pro")
	return env
}

// issueKey issues a tenant key of tier through POST /admin/keys and
// returns it with its tenant id.
func (env *consoleEnv) issueKey(t *testing.T, tier string) (key, tenant string) {
	t.Helper()
	code := env.adminTotp(t)
	r := env.srv.call(t, "POST", "/admin/keys", map[string]string{"X-API-Key": env.admin.APIKey, "X-Admin-Totp": code},
		fmt.Sprintf(`{"tier":%q,"email":"console@example.com","owner":"console browser test","justification":"browser test of the web console"}`, tier))
	if r.status != http.StatusCreated {
		t.Fatalf("issue key: %d %s", r.status, r.body)
	}
	var issued struct {
		APIKey   string `json:"api_key"`
		TenantID string `json:"tenant_id"`
	}
	if err := json.Unmarshal(r.body, &issued); err != nil || issued.APIKey == "" {
		t.Fatalf("issued %s: %v", r.body, err)
	}
	return issued.APIKey, issued.TenantID
}

// adminTotp returns an admin TOTP code not used before: the current
// step's, or the next step's (the appliance accepts one step of skew and
// each step once) when the current one was used already.
func (env *consoleEnv) adminTotp(t *testing.T) string {
	t.Helper()
	at := time.Now().Truncate(30 * time.Second)
	if !at.After(env.totpAt) {
		at = env.totpAt.Add(30 * time.Second)
	}
	if time.Until(at) > 30*time.Second {
		time.Sleep(time.Until(at) - 30*time.Second) // more than one step ahead: wait
	}
	env.totpAt = at
	code, err := totp.GenerateCode(env.admin.TOTPSecret, at)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// tab is one browser tab on the console with its request recorder.
type tab struct {
	context.Context
	env  *consoleEnv
	mu   sync.Mutex
	reqs []string // every URL the page asked for, in order
	errs []string // uncaught exceptions and CSP violations
	logs []string // console.warn and console.error calls, shown when a step fails
}

// Requests returns the URLs requested so far.
func (tb *tab) Requests() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return slices.Clone(tb.reqs)
}

// openConsole opens a new tab at 1366×768 on the console's root and
// records every request and page error; when the test ends it fails if a
// request left the appliance's origin, if the page threw an uncaught
// exception or if the CSP blocked something.
func openConsole(t *testing.T, env *consoleEnv) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser(t))
	t.Cleanup(cancel)
	tb := &tab{Context: ctx, env: env}
	if err := chromedp.Do(ctx); err != nil { // opens the tab
		t.Fatal(err)
	}
	origin, err := url.Parse(env.srv.base)
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			// Every request and every redirect hop counts.
			tb.reqs = append(tb.reqs, ev.Request.URL)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var parts []string
				for _, a := range ev.Args {
					if a.Description != "" {
						parts = append(parts, a.Description)
					} else {
						parts = append(parts, string(a.Value))
					}
				}
				tb.logs = append(tb.logs, string(ev.Type)+": "+strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			tb.errs = append(tb.errs, "uncaught: "+exceptionText(ev.ExceptionDetails))
		case *log.EventEntryAdded:
			if ev.Entry.Source == log.EntrySourceSecurity || strings.Contains(ev.Entry.Text, "Content Security Policy") {
				tb.errs = append(tb.errs, "security: "+ev.Entry.Text)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		n := 0
		for _, u := range tb.reqs {
			n++
			if !sameOrigin(u, origin) {
				t.Errorf("a request left the appliance's origin %s: %s", env.srv.base, u)
			}
		}
		for _, e := range tb.errs {
			t.Errorf("page error: %s", e)
		}
		t.Logf("%d requests, all to %s", n, env.srv.base)
	})
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(viewports[0].w, viewports[0].h), chromedp.Navigate(env.srv.base+"/")); err != nil {
		t.Fatal(err)
	}
	return tb
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil {
		return ""
	}
	s := d.Text
	if d.Exception != nil && d.Exception.Description != "" {
		s += " " + d.Exception.Description
	}
	return fmt.Sprintf("%s (%s:%d)", s, d.URL, d.LineNumber)
}

// sameOrigin reports whether raw is on origin, or a URL that makes no
// network request (data:, blob:, about:).
func sameOrigin(raw string, origin *url.URL) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "data", "blob", "about":
		return true
	}
	return u.Scheme == origin.Scheme && u.Host == origin.Host
}

// run runs actions on the tab with a deadline, failing the test on error.
func (tb *tab) run(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, tb.state())
	}
}

// state describes the page for a failure message: the text of <main> and
// the console's warnings and errors.
func (tb *tab) state() string {
	ctx, cancel := context.WithTimeout(tb.Context, 5*time.Second)
	defer cancel()
	body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.hash + ' | ' + (document.querySelector('main') ? document.querySelector('main').innerText.slice(0, 800) : '')`))
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return fmt.Sprintf("page: %s\nconsole: %s", body, strings.Join(tb.logs, "\n"))
}

// eval evaluates a JavaScript expression (promises awaited) in the page.
func eval[T any](t *testing.T, tb *tab, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %.80s: %v", expr, err)
	}
	return v
}

// waitFor polls a JavaScript predicate until it is truthy (timeout: 30 s).
func waitFor(t *testing.T, tb *tab, what, predicate string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](predicate, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		t.Fatalf("waiting for %s: %v\n%s", what, err, tb.state())
	}
}

// signIn signs in with key on the sign-in screen and waits for the
// navigation and the default screen.
func signIn(t *testing.T, tb *tab, key string) {
	t.Helper()
	tb.run(t, "sign in",
		chromedp.WaitVisible(chromedp.ID("signin-key")),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("signin-key").value = ""`),
		chromedp.SendKeys(chromedp.ID("signin-key"), key),
		chromedp.Click(chromedp.ID("signin-submit")),
		chromedp.WaitVisible(chromedp.ID("nav")),
		chromedp.WaitVisible(chromedp.ID("signout")),
	)
	waitFor(t, tb, "a screen after sign-in", `!!document.querySelector('main section.screen') && !document.querySelector('.screen-signin')`)
}

// goScreen navigates to a screen by its hash and waits for its section.
func goScreen(t *testing.T, tb *tab, id string) {
	t.Helper()
	tb.run(t, "go to "+id, chromedp.Evaluate[chromedp.Void](`location.hash = '#/`+id+`'`))
	waitFor(t, tb, "screen "+id, `!!document.querySelector('section.screen-`+id+`')`)
}

// shot takes a full-page screenshot of the tab at each viewport
// (1366×768 and 390×844) in the current language and checks that it holds
// the whole page at the viewport's width; with -update-screenshots it
// writes it to docs/screenshots/<name>-<lang>-<w>x<h>.png (reduced to the
// image's 256 most frequent colours, so that the committed files stay
// small). Toasts are dismissed first; the tab is left at 1366×768.
func shot(t *testing.T, tb *tab, name string) {
	t.Helper()
	lang := eval[string](t, tb, `document.documentElement.lang`)
	for _, vp := range viewports {
		tb.run(t, "viewport", chromedp.EmulateViewport(vp.w, vp.h), chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0); document.getElementById('toasts').replaceChildren()`),
			chromedp.Sleep(300*time.Millisecond))
		height := eval[float64](t, tb, `Math.min(8000, Math.max(document.documentElement.scrollHeight, document.body.scrollHeight, innerHeight))`)
		ctx, cancel := context.WithTimeout(tb, 30*time.Second)
		params := page.CaptureScreenshotParams{
			CaptureBeyondViewport: ptrTo(true), FromSurface: ptrTo(true),
			Clip: &page.Viewport{X: 0, Y: 0, Width: float64(vp.w), Height: height, Scale: 1},
		}
		if !*updateScreenshots {
			// Not kept: the page must render whole at the viewport, which a
			// JPEG shows as well as a PNG at a fraction of the browser's
			// encoding time (and none of shrinkPNG's).
			params.Format, params.Quality, params.OptimizeForSpeed = page.CaptureScreenshotFormatJpeg, ptrTo[int64](40), ptrTo(true)
		}
		buf, err := chromedp.Run(ctx, chromedp.Action[[]byte](func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
			r, err := cdp.Call(ctx, tg, page.CaptureScreenshot, params)
			if err != nil {
				return nil, err
			}
			return r.Data, nil
		}))
		cancel()
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if !*updateScreenshots {
			cfg, err := jpeg.DecodeConfig(bytes.NewReader(buf))
			if err != nil || cfg.Width != int(vp.w) || math.Abs(float64(cfg.Height)-height) > 1 {
				t.Fatalf("screenshot %s at %dx%d: %dx%d (%v), want the page's %.0f px", name, vp.w, vp.h, cfg.Width, cfg.Height, err, height)
			}
			t.Logf("screenshot %s (%s, %dx%d): %.0f px high", name, lang, vp.w, vp.h, height)
			continue
		}
		small, err := shrinkPNG(buf)
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		file := fmt.Sprintf("%s-%s-%dx%d.png", name, lang, vp.w, vp.h)
		if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(screenshotDir, file), small, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot %s: %d bytes, %.0f px high", file, len(small), height)
	}
	tb.run(t, "viewport", chromedp.EmulateViewport(viewports[0].w, viewports[0].h), chromedp.Sleep(200*time.Millisecond))
}

func ptrTo[T any](v T) *T { return &v }

// shrinkPNG re-encodes a screenshot for docs/screenshots
// (-update-screenshots) with the image's 256 most frequent colours
// (popularPalette) and the best compression.
func shrinkPNG(b []byte) ([]byte, error) {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	p := toPaletted(img, popularPalette(img))
	var out bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&out, p); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// popularPalette is the image's own 256 most frequent colours (ties by
// colour value, so the same screenshot gives the same file): a console
// screenshot is mostly flat panels, text and a few map tints, which a
// fixed palette such as Plan 9's turned into greys (sea and land alike).
// A rarer colour then takes its nearest frequent one (toPaletted).
func popularPalette(img image.Image) color.Palette {
	count := make(map[uint32]int)
	forEachPixel(img, func(_ int, k uint32, _ color.Color) { count[k]++ })
	keys := make([]uint32, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, c uint32) int {
		if d := count[c] - count[a]; d != 0 {
			return d
		}
		return cmp.Compare(a, c)
	})
	pal := make(color.Palette, 0, 256)
	for _, k := range keys[:min(len(keys), 256)] {
		pal = append(pal, keyColor(img, k))
	}
	return pal
}

// forEachPixel calls f with each pixel's offset in a w×h raster, a key
// that is the same for the same colour, and the colour itself (nil for
// the decoded screenshot's *image.RGBA and *image.NRGBA, whose key is
// the pixel's four bytes: keyColor turns it back). Reading Pix directly
// instead of At per pixel keeps a 1366×4000 screenshot well under a
// second.
func forEachPixel(img image.Image, f func(off int, key uint32, c color.Color)) {
	b := img.Bounds()
	w := b.Dx()
	var pix []uint8
	var stride int
	switch m := img.(type) {
	case *image.RGBA:
		pix, stride = m.Pix, m.Stride
	case *image.NRGBA:
		pix, stride = m.Pix, m.Stride
	default:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				c := img.At(x, y)
				r, g, bl, a := c.RGBA()
				f((y-b.Min.Y)*w+x-b.Min.X, r>>8<<24|g>>8<<16|bl>>8<<8|a>>8, c)
			}
		}
		return
	}
	for y := 0; y < b.Dy(); y++ {
		row := pix[y*stride : y*stride+4*w]
		for x := 0; x < w; x++ {
			q := row[4*x : 4*x+4]
			f(y*w+x, uint32(q[0])<<24|uint32(q[1])<<16|uint32(q[2])<<8|uint32(q[3]), nil)
		}
	}
}

// keyColor is the colour of forEachPixel's key k in img's colour model.
func keyColor(img image.Image, k uint32) color.Color {
	r, g, b, a := uint8(k>>24), uint8(k>>16), uint8(k>>8), uint8(k)
	switch img.(type) {
	case *image.RGBA:
		return color.RGBA{r, g, b, a}
	case *image.NRGBA:
		return color.NRGBA{r, g, b, a}
	}
	// Other models: the key holds 8-bit premultiplied channels.
	return color.RGBA{r, g, b, a}
}

// toPaletted is draw.Draw(dst, r, img, min, draw.Src) onto an image with
// palette pal, pixel for pixel the same (nearest palette colour by
// color.Palette.Index, the metric and tie-break draw uses), with each
// distinct colour looked up once: a screenshot has a few thousand colours
// and millions of pixels, and draw's search of the 256 colours for every
// pixel took 3 to 14 s per screenshot, most of the browser tests' time.
func toPaletted(img image.Image, pal color.Palette) *image.Paletted {
	p := image.NewPaletted(img.Bounds(), pal)
	index := make(map[uint32]uint8)
	forEachPixel(img, func(off int, k uint32, c color.Color) {
		i, ok := index[k]
		if !ok {
			if c == nil {
				c = keyColor(img, k)
			}
			i = uint8(p.Palette.Index(c))
			index[k] = i
		}
		p.Pix[off] = i
	})
	return p
}

// axeViolation is one rule axe-core found broken.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// axe injects the pinned axe-core (testdata/axe) into the
// page through the DevTools protocol, runs it on the document (WCAG 2.1 A
// and AA rules and best practices) and fails the test on every serious or
// critical violation, listing them; minor and moderate ones are logged.
func axe(t *testing.T, tb *tab) {
	t.Helper()
	src, err := os.ReadFile(axePath)
	if err != nil {
		t.Fatalf("axe-core fixture missing (%v): make axe-fixture writes it", err)
	}
	if !eval[bool](t, tb, `typeof window.axe === 'object'`) { // injected once per page load
		eval[chromedp.Void](t, tb, string(src)+"\n;void 0")
	}
	res := eval[[]axeViolation](t, tb, `axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}, resultTypes: ['violations']})
		.then(r => r.violations.map(v => ({id: v.id, impact: v.impact || '', help: v.help, nodes: v.nodes.slice(0, 5).map(n => n.target.join(' '))})))`)
	for _, v := range res {
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Errorf("axe %s (%s): %s: %s", v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "; "))
		} else {
			t.Logf("axe %s (%s): %s: %s", v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "; "))
		}
	}
}

// screenModules lists the screen modules of the embedded console (their
// ids), the sign-in screen excepted.
func screenModules(t *testing.T) []string {
	t.Helper()
	m, err := filepath.Glob("../../../../web/console/dist/js/screens/*.js")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range m {
		id := strings.TrimSuffix(filepath.Base(p), ".js")
		if id != "signin" {
			ids = append(ids, id)
		}
	}
	return ids
}

// TestConsoleSignIn: the sign-in screen refuses a wrong key with the
// API's message, accepts a tenant key, shows the tenant and the
// navigation of every screen module, and moves the focus to the screen's
// heading; signing out returns to the sign-in screen.
func TestConsoleSignIn(t *testing.T) {
	env := startConsole(t)
	tb := openConsole(t, env)
	tb.run(t, "sign-in screen", chromedp.WaitVisible(chromedp.ID("signin-key")))
	shot(t, tb, "signin")
	axe(t, tb)
	if eval[bool](t, tb, `(async () => { await new Promise(r => setTimeout(r, 300)); return document.getElementById('signin-sso').offsetParent !== null; })()`) {
		t.Error("the SSO button shows on an appliance without single sign-on")
	}

	tb.run(t, "wrong key",
		chromedp.SendKeys(chromedp.ID("signin-key"), "lp_live_not-a-key"),
		chromedp.Click(chromedp.ID("signin-submit")))
	waitFor(t, tb, "the error of a wrong key", `!!document.querySelector('.screen-signin .error-box')`)
	if msg := eval[string](t, tb, `document.querySelector('.screen-signin .error-box').innerText`); msg == "" {
		t.Error("the wrong key gave an empty error box")
	}

	signIn(t, tb, env.key)
	who := eval[string](t, tb, `document.getElementById('who').innerText`)
	if !strings.Contains(who, env.tenant) || !strings.Contains(who, "Pro") {
		t.Errorf("header says %q, want tenant %s and tier Pro", who, env.tenant)
	}
	nav := eval[[]string](t, tb, `[...document.querySelectorAll('#nav-list a')].map(a => a.dataset.screen)`)
	for _, id := range screenModules(t) {
		if id == "admin" {
			continue // shown to admin keys only
		}
		if !slices.Contains(nav, id) {
			t.Errorf("nav %v lacks screen %s", nav, id)
		}
	}
	if focused := eval[string](t, tb, `document.activeElement ? document.activeElement.id : ''`); focused != "screen-title" {
		t.Errorf("focus on %q after sign-in, want the screen heading", focused)
	}
	if lang := eval[string](t, tb, `document.documentElement.lang`); lang != "pt-BR" {
		t.Errorf("html lang %q, want pt-BR by default", lang)
	}

	tb.run(t, "sign out", chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("signin-key")))
	if n := eval[int](t, tb, `sessionStorage.length`); n != 0 {
		t.Errorf("%d items left in sessionStorage after sign-out", n)
	}
}

// linkBody is the Link screen's request for the sample data's receiver
// (Rio de Janeiro).
const linkBody = `{"receiver":{"lat":-22.95,"lon":-43.2,"height":10},"frequency_mhz":1800,"max_distance_km":20,"engine":"fspl","include":["profile"]}`

// TestConsoleLink: the Link screen's first paint, a link analysis whose
// best tower is the API's, the profile chart with terrain, line of sight,
// Fresnel zone, 60 % line and obstacle, the engine comparison and the
// explanation panel (the built-in template explainer answers).
func TestConsoleLink(t *testing.T) {
	env := startConsole(t)
	tb := openConsole(t, env)
	signIn(t, tb, env.key)
	goScreen(t, tb, "link")

	// First paint of the Link screen: reload (the session is kept in the
	// tab) and read the Performance API.
	tb.run(t, "reload", chromedp.Reload())
	waitFor(t, tb, "the Link screen after reload", `performance.getEntriesByName('lp-screen-link').length > 0`)
	paint := eval[map[string]float64](t, tb, `(() => {
		const fcp = performance.getEntriesByName('first-contentful-paint')[0];
		const nav = performance.getEntriesByType('navigation')[0];
		return {fcp: fcp ? fcp.startTime : -1, screen: performance.getEntriesByName('lp-screen-link')[0].startTime, dcl: nav ? nav.domContentLoadedEventEnd : -1};
	})()`)
	t.Logf("Link screen: first contentful paint %.0f ms, screen rendered %.0f ms, DOMContentLoaded %.0f ms after navigation (goal: first paint <= 1000 ms)",
		paint["fcp"], paint["screen"], paint["dcl"])
	if paint["fcp"] < 0 || paint["fcp"] > 5000 || paint["screen"] > 8000 {
		t.Errorf("first paint %.0f ms, screen %.0f ms: far beyond the 1 s goal", paint["fcp"], paint["screen"])
	}

	// What the API answers for the same body.
	r := env.srv.call(t, "POST", "/analyze_link", map[string]string{"X-API-Key": env.key, "Content-Type": "application/json"}, linkBody)
	if r.status != http.StatusOK {
		t.Fatalf("analyze_link: %d %s", r.status, r.body)
	}
	var want struct {
		Best struct {
			TowerID  string `json:"tower_id"`
			Operator string `json:"operator"`
		} `json:"best_tower"`
	}
	if err := json.Unmarshal(r.body, &want); err != nil || want.Best.TowerID == "" {
		t.Fatalf("analyze_link answer %s: %v", r.body, err)
	}

	// A municipality from /places moves the receiver there.
	tb.run(t, "search a place", chromedp.SendKeys(chromedp.ID("link-place"), "Niterói"), chromedp.Click(chromedp.ID("link-place-search")),
		chromedp.WaitVisible(chromedp.CSS("#link-places button")))
	if first := eval[string](t, tb, `document.querySelector('#link-places button').textContent`); !strings.HasPrefix(first, "Niterói (RJ)") {
		t.Errorf("first place %q, want Niterói (RJ)", first)
	}
	tb.run(t, "pick the place", chromedp.Click(chromedp.CSS("#link-places button")))
	if lat := eval[string](t, tb, `document.getElementById('link-lat').value`); !strings.HasPrefix(lat, "-22.8") && !strings.HasPrefix(lat, "-22.9") {
		t.Errorf("receiver latitude %q after picking Niterói", lat)
	}

	set := func(id, v string) chromedp.Action[chromedp.Void] {
		return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const e = document.getElementById(%q); e.value = %q; e.dispatchEvent(new Event('change')); })()`, id, v))
	}
	tb.run(t, "fill the form", set("link-lat", "-22.95"), set("link-lon", "-43.20"), set("link-height", "10"), set("link-freq", "1800"),
		set("link-radius", "20"), set("link-engine", "fspl"), chromedp.Click(chromedp.ID("link-analyze")))
	waitFor(t, tb, "the best tower", `!!document.getElementById('link-best-id')`)
	if got := eval[string](t, tb, `document.getElementById('link-best-id').textContent`); got != want.Best.TowerID {
		t.Errorf("the page's best tower is %q, the API's %q", got, want.Best.TowerID)
	}
	if got := eval[string](t, tb, `document.getElementById('link-best-operator').textContent`); got != want.Best.Operator {
		t.Errorf("the page's operator is %q, the API's %q", got, want.Best.Operator)
	}
	if n := eval[int](t, tb, `document.querySelectorAll('#link-towers tbody tr').length`); n < 2 {
		t.Errorf("%d towers listed, want the best and alternatives", n)
	}
	if n := eval[int](t, tb, `document.querySelectorAll('#link-map path.leaflet-interactive').length`); n < 2 {
		t.Errorf("%d vector layers on the map, want the receiver, towers and paths", n)
	}
	if got := eval[string](t, tb, `document.getElementById('link-best-margin').textContent`); !strings.Contains(got, "dB") || !strings.Contains(got, ",") {
		t.Errorf("margin %q: want a pt-BR number with its unit", got)
	}

	// The profile chart, open with the result (issue 27).
	tb.run(t, "the open profile", chromedp.WaitVisible(chromedp.ID("profile-chart")))
	chart := eval[map[string]int](t, tb, `(() => {
		const svg = document.getElementById('profile-chart');
		const vis = (sel) => [...svg.querySelectorAll(sel)].filter(e => { const b = e.getBBox(); return b.width > 0 || b.height > 0; }).length;
		const pts = (sel) => { const e = svg.querySelector(sel); return e ? (e.getAttribute('d').match(/[ML]/g) || []).length : 0; };
		return {terrain: vis('path.terrain'), los: vis('path.los'), fresnel: vis('path.fresnel'), fresnel60: vis('path.fresnel60'),
			obstacle: vis('circle.obstacle'), terrainPoints: pts('path.terrain'), losPoints: pts('path.los'), labels: svg.querySelectorAll('text').length};
	})()`)
	for _, k := range []string{"terrain", "los", "fresnel60", "obstacle"} {
		if chart[k] < 1 {
			t.Errorf("profile chart: no visible %s (%v)", k, chart)
		}
	}
	if chart["fresnel"] < 2 || chart["terrainPoints"] < 10 || chart["losPoints"] < 10 || chart["labels"] < 6 {
		t.Errorf("profile chart incomplete: %v", chart)
	}

	// Engine comparison and the explanation.
	tb.run(t, "compare engines", chromedp.Click(chromedp.ID("link-compare")))
	waitFor(t, tb, "the engine comparison", `!!document.getElementById('link-compare-table') || !!document.querySelector('#link-compare-host .error-box')`)
	if n := eval[int](t, tb, `document.querySelectorAll('#link-compare-table tbody tr').length`); n != 5 {
		t.Errorf("engine comparison has %d rows, want 5 (%s)", n, tb.state())
	}
	waitFor(t, tb, "the explanation panel", `!!document.getElementById('link-explain')`)
	tb.run(t, "explain", chromedp.Click(chromedp.ID("link-explain")))
	waitFor(t, tb, "the explanation", `!!document.getElementById('link-explain-text') && document.getElementById('link-explain-text').textContent.length > 40`)
	if txt := eval[string](t, tb, `document.getElementById('link-explain-text').textContent`); !strings.Contains(txt, want.Best.TowerID) {
		t.Errorf("the explanation does not name the best tower %s: %.200s", want.Best.TowerID, txt)
	}
	shot(t, tb, "link")
	axe(t, tb)
}

// TestConsoleMapScreens: the Towers screen (clustered layer, filters,
// uncertainty circles, own-tower registration), the Coverage screen (a
// 5 km heatmap at 250 m whose tiles are drawn on the map as they arrive,
// the summary and the export buttons) and the Repeater screen (a route
// drawn hop by hop with its bottleneck), each with screenshots and
// axe-core.
func TestConsoleMapScreens(t *testing.T) {
	env := startConsole(t)
	tb := openConsole(t, env)
	signIn(t, tb, env.key)

	t.Run("towers", func(t *testing.T) {
		goScreen(t, tb, "towers")
		waitFor(t, tb, "towers on the map", `document.querySelectorAll('#tw-map .tw-marker, #tw-map .tw-cluster').length > 0`)
		if n := eval[int](t, tb, `document.querySelectorAll('#tw-list tbody tr').length`); n < 1 {
			t.Errorf("the tower list is empty")
		}
		tb.run(t, "zoom in", chromedp.Evaluate[chromedp.Void](`document.querySelector('#tw-map .leaflet-control-zoom-in').click()`))
		waitFor(t, tb, "single towers with their uncertainty circles", `document.querySelectorAll('#tw-map path.tw-uncertainty').length > 0 && document.querySelectorAll('#tw-map path.tw-marker').length > 0`)
		shot(t, tb, "towers")
		axe(t, tb)
		tb.run(t, "register a tower",
			chromedp.SendKeys(chromedp.ID("tw-reg-operator"), "Console Test"),
			chromedp.SendKeys(chromedp.ID("tw-reg-lat"), "-22.9"),
			chromedp.SendKeys(chromedp.ID("tw-reg-lon"), "-43.25"),
			chromedp.Click(chromedp.ID("tw-reg-save")))
		waitFor(t, tb, "the registered tower", `!!document.getElementById('tw-reg-done') || !!document.querySelector('#tw-register .error-box')`)
		done := eval[string](t, tb, `(document.getElementById('tw-reg-done') || document.querySelector('#tw-register .error-box')).textContent`)
		if !strings.Contains(done, "user:") {
			t.Fatalf("registration: %s", done)
		}
		id := done[strings.Index(done, "user:"):]
		id = strings.Fields(id)[0]
		r := env.srv.call(t, "GET", "/towers/"+id, map[string]string{"X-API-Key": env.key}, "")
		if r.status != http.StatusOK {
			t.Errorf("GET /towers/%s after the console registered it: %d %s", id, r.status, r.body)
		}
		waitFor(t, tb, "the registered tower in the list", fmt.Sprintf(`[...document.querySelectorAll('#tw-list td')].some(td => td.textContent === %q)`, id))
		tb.run(t, "filter synthetic only", chromedp.SetValue(chromedp.ID("tw-synthetic"), "only"),
			chromedp.Evaluate[chromedp.Void](`document.getElementById('tw-synthetic').dispatchEvent(new Event('change'))`))
		if n := eval[int](t, tb, fmt.Sprintf(`[...document.querySelectorAll('#tw-list td')].filter(td => td.textContent === %q).length`, id)); n != 0 {
			t.Errorf("the synthetic-only filter still lists the user tower %s", id)
		}
		tb.run(t, "filter all", chromedp.SetValue(chromedp.ID("tw-synthetic"), "all"),
			chromedp.Evaluate[chromedp.Void](`document.getElementById('tw-synthetic').dispatchEvent(new Event('change'))`))
	})

	t.Run("coverage", func(t *testing.T) {
		goScreen(t, tb, "coverage")
		tb.run(t, "start a heatmap",
			chromedp.SetValue(chromedp.ID("cov-radius"), "5"),
			chromedp.SetValue(chromedp.ID("cov-resolution"), "250"),
			chromedp.Click(chromedp.ID("cov-start")))
		waitFor(t, tb, "a tile drawn on the map", `document.querySelectorAll('#cov-map img.cov-tile').length > 0 || !!document.querySelector('#cov-status .error-box')`)
		if n := eval[int](t, tb, `document.querySelectorAll('#cov-map img.cov-tile').length`); n < 1 {
			t.Fatalf("no tile drawn: %s", tb.state())
		}
		// The tile's image holds painted pixels.
		painted := eval[int](t, tb, `new Promise((ok) => {
			const img = document.querySelector('#cov-map img.cov-tile');
			const draw = () => { const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
				const g = c.getContext('2d'); g.drawImage(img, 0, 0); const d = g.getImageData(0, 0, c.width, c.height).data;
				let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++; ok(n); };
			img.complete ? draw() : img.addEventListener('load', draw);
		})`)
		if painted == 0 {
			t.Error("the first tile has no painted pixel")
		}
		waitFor(t, tb, "the summary", `!!document.getElementById('cov-summary-card')`)
		if n := eval[int](t, tb, `document.querySelectorAll('#cov-summary-card button[data-format]').length`); n != 5 {
			t.Errorf("%d export buttons, want 5", n)
		}
		if txt := eval[string](t, tb, `document.getElementById('cov-covered').textContent`); !strings.Contains(txt, "km²") {
			t.Errorf("covered area %q without its unit", txt)
		}
		tb.run(t, "export GeoJSON", chromedp.Click(chromedp.CSS(`#cov-summary-card button[data-format="geojson"]`)))
		waitFor(t, tb, "the export", `[...document.querySelectorAll('#toasts .toast')].some(e => /coverage-.*\.geojson/.test(e.textContent)) || !!document.querySelector('#cov-summary .error-box')`)
		if eval[bool](t, tb, `!!document.querySelector('#cov-summary .error-box')`) {
			t.Errorf("export failed: %s", tb.state())
		}
		shot(t, tb, "coverage")
		axe(t, tb)

		// Leaving the screen while a map computes cancels it (the stream
		// is the map's last).
		tb.run(t, "start a larger map", chromedp.SetValue(chromedp.ID("cov-radius"), "30"),
			chromedp.SetValue(chromedp.ID("cov-resolution"), "90"), chromedp.Click(chromedp.ID("cov-start")))
		waitFor(t, tb, "the map id", `/^(Mapa|Map) \S+/.test(document.getElementById('cov-map-id') ? document.getElementById('cov-map-id').textContent : '')`)
		id := strings.Fields(eval[string](t, tb, `document.getElementById('cov-map-id').textContent`))[1]
		goScreen(t, tb, "link")
		deadline := time.Now().Add(15 * time.Second)
		for {
			r := env.srv.call(t, "GET", "/coverage/heatmap/"+id, map[string]string{"X-API-Key": env.key}, "")
			var m struct {
				State string `json:"state"`
			}
			_ = json.Unmarshal(r.body, &m)
			if m.State == "canceled" {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("map %s is %q (%d) 15 s after the screen was left, want canceled", id, m.State, r.status)
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	})

	t.Run("repeater", func(t *testing.T) {
		goScreen(t, tb, "repeater")
		tb.run(t, "plan", chromedp.Click(chromedp.ID("rp-plan")))
		waitFor(t, tb, "a route", `!!document.getElementById('rp-route') || !!document.getElementById('rp-none') || !!document.querySelector('#rp-status .error-box')`)
		if eval[bool](t, tb, `!!document.getElementById('rp-route')`) {
			if n := eval[int](t, tb, `document.querySelectorAll('#rp-hops-table tbody tr').length`); n < 1 {
				t.Error("a route without hops")
			}
			if n := eval[int](t, tb, `document.querySelectorAll('#rp-hops-table tbody tr.bottleneck').length`); n != 1 {
				t.Errorf("%d bottleneck rows, want 1", n)
			}
			if n := eval[int](t, tb, `document.querySelectorAll('#rp-map path.rp-bottleneck').length`); n != 1 {
				t.Errorf("%d bottleneck lines on the map, want 1", n)
			}
		} else {
			t.Errorf("no route drawn: %s", tb.state())
		}
		shot(t, tb, "repeater")
		axe(t, tb)

		// Four hops or more: a 202 job, followed to its result.
		tb.run(t, "plan as a job", chromedp.SetValue(chromedp.ID("rp-hops"), "4"), chromedp.Click(chromedp.ID("rp-plan")))
		waitFor(t, tb, "the job", `!!document.getElementById('rp-job')`)
		waitFor(t, tb, "the job's route", `!!document.getElementById('rp-route') || !!document.getElementById('rp-none') || !!document.querySelector('#rp-status .error-box')`)
		if job := eval[string](t, tb, `document.getElementById('rp-job').textContent`); !strings.Contains(job, "job_") || !strings.Contains(job, "succeeded") {
			t.Errorf("job line %q, want the job id and succeeded", job)
		}
		if !eval[bool](t, tb, `!!document.getElementById('rp-route')`) {
			t.Errorf("the job's plan has no route: %s", tb.state())
		}
	})
}

// TestConsoleShell: the tenant's branding (name, colour, logo) applied
// after sign-in, the language switch (pt-BR by default, English with the
// switch: strings and number format), the phone layout's menu button, and
// the console's own parsers run in the page against randomized input: the
// SSE reader over random splits of a stream into chunks and the heatmap
// tile decoder (seeded; SEED= replays a run); and the number formats.
func TestConsoleShell(t *testing.T) {
	env := startConsole(t)
	var logo bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 24, 24))
	draw.Draw(img, img.Bounds(), image.NewUniform(palette.Plan9[200]), image.Point{}, draw.Src)
	if err := png.Encode(&logo, img); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"display_name": "Provedor Exemplo", "primary_color": "#7a1f5c",
		"logo": map[string]string{"media_type": "image/png", "data_base64": base64.StdEncoding.EncodeToString(logo.Bytes())}})
	if r := env.srv.call(t, "PUT", "/tenant/branding", map[string]string{"X-API-Key": env.key, "Content-Type": "application/json"}, string(body)); r.status != http.StatusOK {
		t.Fatalf("PUT /tenant/branding: %d %s", r.status, r.body)
	}
	tb := openConsole(t, env)
	signIn(t, tb, env.key)
	brand := eval[map[string]string](t, tb, `({name: document.getElementById('brand-name').textContent,
		colour: getComputedStyle(document.documentElement).getPropertyValue('--brand').trim(),
		ink: getComputedStyle(document.documentElement).getPropertyValue('--brand-ink').trim(),
		bar: getComputedStyle(document.querySelector('.topbar')).backgroundColor,
		logo: document.getElementById('brand-logo').hidden ? '' : document.getElementById('brand-logo').src.slice(0, 22)})`)
	if brand["name"] != "Provedor Exemplo" || brand["colour"] != "#7a1f5c" || brand["ink"] != "#ffffff" || brand["bar"] != "rgb(122, 31, 92)" || brand["logo"] != "data:image/png;base64," {
		t.Errorf("branding not applied: %v", brand)
	}
	shot(t, tb, "branding")

	// Language: pt-BR by default, English with the switch.
	goScreen(t, tb, "link")
	tb.run(t, "analyse", chromedp.Click(chromedp.ID("link-analyze")))
	waitFor(t, tb, "the best tower", `!!document.getElementById('link-best-margin')`)
	pt := eval[string](t, tb, `document.getElementById('link-best-margin').textContent`)
	tb.run(t, "switch to English", chromedp.SetValue(chromedp.ID("lang"), "en"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('lang').dispatchEvent(new Event('change'))`))
	waitFor(t, tb, "the English Link screen", `document.getElementById('screen-title').textContent === 'Link' && document.documentElement.lang === 'en'`)
	tb.run(t, "analyse", chromedp.Click(chromedp.ID("link-analyze")))
	waitFor(t, tb, "the best tower", `!!document.getElementById('link-best-margin')`)
	en := eval[string](t, tb, `document.getElementById('link-best-margin').textContent`)
	if strings.Replace(pt, ",", ".", 1) != en || !strings.Contains(en, ".") || !strings.HasSuffix(en, "dB") {
		t.Errorf("margin in pt-BR %q, in English %q: want the same number with a decimal comma, then a point, and the unit", pt, en)
	}
	if nav := eval[string](t, tb, `document.querySelector('#nav-list a[data-screen="coverage"]').textContent`); nav != "Coverage" {
		t.Errorf("English nav says %q", nav)
	}
	tb.run(t, "back to pt-BR", chromedp.SetValue(chromedp.ID("lang"), "pt-BR"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('lang').dispatchEvent(new Event('change'))`))
	waitFor(t, tb, "the pt-BR Link screen", `document.getElementById('screen-title').textContent === 'Enlace'`)

	// Keyboard: from the header (a click on the brand sets where the
	// focus navigation starts), Tab reaches the first screen of the
	// navigation and Shift+Tab the skip link, whose Enter moves the focus
	// to the screen's heading; Tab and Enter on the next link open it.
	clickBrand := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		box, err := chromedp.Run(ctx, chromedp.Dimensions(chromedp.ID("brand-name")))
		if err != nil {
			return err
		}
		return chromedp.Do(ctx, chromedp.MouseClickXY(box.Content[0]+2, box.Content[1]+2))
	})
	tb.run(t, "tab from the header", clickBrand, chromedp.KeyEvent(kb.Tab))
	if s := eval[string](t, tb, `document.activeElement.dataset.screen || document.activeElement.id`); s != "link" {
		t.Errorf("Tab after the brand focuses %q, want the first screen of the navigation", s)
	}
	tb.run(t, "shift-tab to the skip link", clickBrand, chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift)))
	if id := eval[string](t, tb, `document.activeElement.id`); id != "skip" {
		t.Errorf("Shift+Tab before the brand focuses %q, want the skip link", id)
	}
	tb.run(t, "skip", chromedp.KeyEvent(kb.Enter))
	if id := eval[string](t, tb, `document.activeElement.id`); id != "screen-title" {
		t.Errorf("the skip link moved the focus to %q, want the screen heading", id)
	}
	tb.run(t, "open Towers by keyboard", clickBrand, chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Enter))
	waitFor(t, tb, "the Towers screen by keyboard", `!!document.querySelector('section.screen-towers') && document.activeElement.id === 'screen-title'`)
	goScreen(t, tb, "link")

	// Phone layout: the navigation is behind the menu button.
	tb.run(t, "phone viewport", chromedp.EmulateViewport(390, 844), chromedp.Sleep(200*time.Millisecond))
	if eval[bool](t, tb, `document.getElementById('nav').offsetParent !== null`) {
		t.Error("at 390 px the navigation shows without the menu")
	}
	tb.run(t, "open the menu", chromedp.Click(chromedp.ID("nav-toggle")), chromedp.WaitVisible(chromedp.CSS(`#nav-list a[data-screen="towers"]`)))
	if v := eval[string](t, tb, `document.getElementById('nav-toggle').getAttribute('aria-expanded')`); v != "true" {
		t.Errorf("menu button aria-expanded = %s", v)
	}
	tb.run(t, "go by the menu", chromedp.Click(chromedp.CSS(`#nav-list a[data-screen="towers"]`)))
	waitFor(t, tb, "the Towers screen", `!!document.querySelector('section.screen-towers') && document.activeElement.id === 'screen-title'`)
	if wide := eval[int](t, tb, `document.documentElement.scrollWidth`); wide > 390 {
		t.Errorf("the page is %d px wide at a 390 px viewport", wide)
	}
	tb.run(t, "desktop viewport", chromedp.EmulateViewport(viewports[0].w, viewports[0].h))

	// A Free key: the AI routes refuse Free, so the Link screen shows no
	// explanation panel.
	free, _ := env.issueKey(t, "Free")
	ftb := openConsole(t, env)
	signIn(t, ftb, free)
	goScreen(t, ftb, "link")
	ftb.run(t, "analyse", chromedp.Click(chromedp.ID("link-analyze")))
	waitFor(t, ftb, "the best tower", `!!document.getElementById('link-best-id') || !!document.querySelector('#link-form .error-box')`)
	if eval[bool](t, ftb, `(async () => { await new Promise(r => setTimeout(r, 500)); return !!document.getElementById('link-explain-panel'); })()`) {
		t.Error("a Free key sees the explanation panel")
	}

	// The parsers, in the page, against randomized input.
	seed := time.Now().UnixNano()
	if s := os.Getenv("SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	t.Logf("SEED=%d", seed)
	res := eval[map[string]any](t, tb, fmt.Sprintf(`(async () => {
		const { readSSE } = await import('/js/api.js');
		const { decodeTile, LEGEND } = await import('/js/screens/coverage.js');
		let s = %d %% 2147483647; if (s <= 0) s += 2147483646;
		const rnd = () => (s = s * 16807 %% 2147483647) / 2147483647;
		const enc = new TextEncoder();
		const fails = [];
		for (let round = 0; round < 200; round++) {
			const want = [];
			let text = ': hello\n\n';
			const n = 1 + Math.floor(rnd() * 6);
			for (let i = 0; i < n; i++) {
				const ev = ['started', 'progress', 'tile', 'summary'][Math.floor(rnd() * 4)];
				const data = JSON.stringify({ i, s: 'ção\u2028' + 'x'.repeat(Math.floor(rnd() * 50)) });
				const nl = rnd() < 0.5 ? '\n' : '\r\n';
				text += 'id: ' + (i + 1) + nl + 'event: ' + ev + nl + 'data: ' + data + nl + nl;
				if (rnd() < 0.3) text += ': heartbeat' + nl + nl;
				want.push(ev + '|' + data + '|' + (i + 1));
			}
			const bytes = enc.encode(text);
			const chunks = [];
			for (let at = 0; at < bytes.length;) { const k = 1 + Math.floor(rnd() * 17); chunks.push(bytes.slice(at, at + k)); at += k; }
			const body = new ReadableStream({ start(c) { chunks.forEach((x) => c.enqueue(x)); c.close(); } });
			const got = [];
			await readSSE(new Response(body), (e) => got.push(e.event + '|' + e.data + '|' + e.id));
			if (JSON.stringify(got) !== JSON.stringify(want)) { fails.push({ round, got, want }); break; }
		}
		// decodeTile: every value class, no data, and a wrong length.
		const vals = [-32768, -6400, -6600, -7600, -8600, -9600, -10600, -12000, 0, 32767];
		for (let i = 0; i < 50; i++) vals.push(Math.floor(rnd() * 65535) - 32767);
		const buf = new Uint8Array(vals.length * 2);
		vals.forEach((v, i) => { buf[2 * i] = v & 255; buf[2 * i + 1] = (v >> 8) & 255; });
		const data = btoa(String.fromCharCode(...buf));
		const rgba = decodeTile({ id: 't', width: vals.length, height: 1, data });
		vals.forEach((v, i) => {
			const cls = v === -32768 ? null : LEGEND.find((c) => v / 100 >= c.min);
			const a = rgba[4 * i + 3];
			if (cls ? (a === 0 || rgba[4 * i] !== cls.rgb[0] || rgba[4 * i + 1] !== cls.rgb[1]) : a !== 0) fails.push({ tile: v, rgba: [...rgba.slice(4 * i, 4 * i + 4)] });
		});
		let threw = false;
		try { decodeTile({ id: 't', width: 3, height: 1, data: btoa('abcd') }); } catch (_) { threw = true; }
		if (!threw) fails.push('a tile of the wrong length was accepted');
		// fmt: the unit always printed, the locale's decimal mark, no -0.
		const { createFmt } = await import('/js/fmt.js');
		const pt = createFmt('pt-BR'); const en = createFmt('en');
		const fmtCases = [[pt.unit(-72.44, 'dBm', 1), '-72,4\u00a0dBm'], [en.unit(-72.44, 'dBm', 1), '-72.4\u00a0dBm'],
			[pt.num(-0.04, 1), '0,0'], [pt.num(1234567, 0), '1.234.567'], [en.num(1234567, 0), '1,234,567'],
			[pt.bytes(2048), '2,0\u00a0KiB'], [pt.num(null), '—']];
		for (const [got, want] of fmtCases) if (got !== want) fails.push({ fmt: got, want });
		return { fails: JSON.stringify(fails), rounds: 200 };
	})()`, seed))
	if res["fails"] != "[]" {
		t.Errorf("parser checks failed (SEED=%d): %v", seed, res["fails"])
	}
}

// TestConsoleSSO: with single sign-on configured, the sign-in screen offers
// the SSO button; the issuer's redirect back to the console's root with
// ?code=&state= signs the browser in with the ID token (bound to the
// tenant's key), and the query is removed from the address bar. The issuer
// is played by ssotest (its authorization step runs in the test; the
// browser itself never leaves the appliance's origin).
func TestConsoleSSO(t *testing.T) {
	iss := ssotest.New(t, "linkplan-console", nil)
	secretFile := filepath.Join(t.TempDir(), "oidc-secret")
	if err := os.WriteFile(secretFile, []byte(iss.ClientSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := startConsole(t, "--oidc-issuer", iss.URL, "--oidc-client-id", iss.ClientID,
		"--oidc-client-secret-file", secretFile, "--oidc-redirect-url", "http://127.0.0.1/")
	if r := env.srv.call(t, "POST", "/tenant/sso/bindings", map[string]string{"X-API-Key": env.key}, `{"id_token":"`+iss.Sign(t, iss.Claims("console-user"))+`"}`); r.status != http.StatusCreated {
		t.Fatalf("bind: %d %s", r.status, r.body)
	}
	tb := openConsole(t, env)
	tb.run(t, "the SSO button", chromedp.WaitVisible(chromedp.ID("signin-sso")))

	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.Get(env.srv.base + "/auth/oidc/login")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	code, state := iss.Authorize(t, res.Header.Get("Location"), "console-user")
	tb.run(t, "back from the issuer", chromedp.Navigate(env.srv.base+"/?state="+url.QueryEscape(state)+"&code="+url.QueryEscape(code)))
	waitFor(t, tb, "signed in by SSO", `!!document.querySelector('main section.screen') && !document.querySelector('.screen-signin') && !document.getElementById('signout').hidden`)
	who := eval[string](t, tb, `document.getElementById('who').innerText`)
	if !strings.Contains(who, env.tenant) {
		t.Errorf("header says %q, want tenant %s", who, env.tenant)
	}
	cred := eval[string](t, tb, `sessionStorage.getItem('linkplan.credential') || ''`)
	if !strings.Contains(cred, `"bearer":"ey`) || strings.Contains(cred, "apiKey") {
		t.Errorf("stored credential %.60s…: want an ID token, no API key", cred)
	}
	if loc := eval[string](t, tb, `location.search`); loc != "" {
		t.Errorf("the code stays in the address bar: %q", loc)
	}
	// The console works with the bearer token.
	goScreen(t, tb, "link")
	tb.run(t, "analyse", chromedp.Click(chromedp.ID("link-analyze")))
	waitFor(t, tb, "the best tower", `!!document.getElementById('link-best-id')`)
}

// TestToPalettedMatchesDraw: the screenshots' quantizer gives draw.Draw's
// pixels on an image of many colours, semi-transparent ones included,
// with a fixed palette and with the image's own popular colours (which
// then keeps every colour of an image of at most 256).
func TestToPalettedMatchesDraw(t *testing.T) {
	img := image.NewNRGBA(image.Rect(3, 5, 3+97, 5+61))
	for i := range img.Pix {
		img.Pix[i] = uint8((i*7919 + i*i*31) % 256)
	}
	want := image.NewPaletted(img.Bounds(), palette.Plan9)
	draw.Draw(want, want.Rect, img, img.Bounds().Min, draw.Src)
	got := toPaletted(img, palette.Plan9)
	if got.Rect != want.Rect || !bytes.Equal(got.Pix, want.Pix) {
		t.Fatal("toPaletted differs from draw.Draw")
	}
	pal := popularPalette(img)
	want = image.NewPaletted(img.Bounds(), pal)
	draw.Draw(want, want.Rect, img, img.Bounds().Min, draw.Src)
	if got := toPaletted(img, pal); !bytes.Equal(got.Pix, want.Pix) {
		t.Fatal("toPaletted with the popular palette differs from draw.Draw")
	}
	// The decoded screenshots are *image.RGBA (opaque PNGs).
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Rect, img, img.Bounds().Min, draw.Src)
	for _, pl := range []color.Palette{palette.Plan9, popularPalette(rgba)} {
		want = image.NewPaletted(rgba.Bounds(), pl)
		draw.Draw(want, want.Rect, rgba, rgba.Bounds().Min, draw.Src)
		if got := toPaletted(rgba, pl); !bytes.Equal(got.Pix, want.Pix) {
			t.Fatal("toPaletted of an RGBA image differs from draw.Draw")
		}
	}
	// A flat image of a few tints (water, land, text) keeps them exactly.
	few := image.NewNRGBA(image.Rect(0, 0, 40, 30))
	tints := []color.NRGBA{{170, 211, 223, 255}, {242, 239, 233, 255}, {34, 34, 34, 255}}
	for i := 0; i < len(few.Pix); i += 4 {
		c := tints[(i/4)%len(tints)]
		copy(few.Pix[i:i+4], []uint8{c.R, c.G, c.B, c.A})
	}
	fp := toPaletted(few, popularPalette(few))
	for i, pix := range fp.Pix {
		if got := color.NRGBAModel.Convert(fp.Palette[pix]).(color.NRGBA); got != tints[i%len(tints)] {
			t.Fatalf("pixel %d: %v, want %v", i, got, tints[i%len(tints)])
		}
	}
}
