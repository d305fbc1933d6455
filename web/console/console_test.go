package console_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"linkplan/web/console"
)

func newServer(t *testing.T) (*httptest.Server, *console.Handler) {
	t.Helper()
	h, err := console.New(console.Files())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, h
}

func do(t *testing.T, method, url string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

// TestHeaders checks status, media type, caching and security headers of
// the console's kinds of file and of the refusals.
func TestHeaders(t *testing.T) {
	srv, _ := newServer(t)
	cases := []struct {
		name, method, path string
		status             int
		contentType        string
		cache              string // "" : not checked
		body               string // a substring of the body, "" : not checked
	}{
		{"root is index.html", "GET", "/", 200, "text/html; charset=utf-8", "no-cache", `<script type="module" src="js/app.js">`},
		{"index.html", "GET", "/index.html", 200, "text/html; charset=utf-8", "no-cache", "<main"},
		{"app module", "GET", "/js/app.js", 200, "text/javascript; charset=utf-8", "no-cache", "import"},
		{"stylesheet", "GET", "/css/app.css", 200, "text/css; charset=utf-8", "no-cache", "--brand"},
		{"screen module", "GET", "/js/screens/signin.js", 200, "text/javascript; charset=utf-8", "no-cache", "export default"},
		{"vendored leaflet", "GET", "/vendor/leaflet/leaflet.js", 200, "text/javascript; charset=utf-8", "public, max-age=2592000", "Leaflet"},
		{"vendored image", "GET", "/vendor/leaflet/images/marker-icon.png", 200, "image/png", "public, max-age=2592000", "\x89PNG"},
		{"head", "HEAD", "/js/api.js", 200, "text/javascript; charset=utf-8", "no-cache", ""},
		{"unknown file", "GET", "/js/nope.js", 404, "text/plain; charset=utf-8", "no-store", "404"},
		{"directory", "GET", "/js/", 404, "text/plain; charset=utf-8", "no-store", "404"},
		{"dot dot", "GET", "/js/../index.html", 404, "", "", ""},
		{"post", "POST", "/index.html", 405, "text/plain; charset=utf-8", "no-store", "405"},
		{"delete root", "DELETE", "/", 405, "text/plain; charset=utf-8", "no-store", "405"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, body := do(t, tc.method, srv.URL+tc.path, nil)
			if tc.name == "dot dot" {
				// The client cleans the path; whatever the answer, it is
				// never a file outside the console.
				if res.StatusCode != 200 && res.StatusCode != 404 {
					t.Errorf("status %d", res.StatusCode)
				}
				return
			}
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", res.StatusCode, tc.status)
			}
			if got := res.Header.Get("Content-Security-Policy"); got != console.ContentSecurityPolicy {
				t.Errorf("CSP = %q", got)
			}
			for _, want := range []string{"default-src 'self'", "script-src 'self'", "object-src 'none'", "frame-ancestors 'none'", "base-uri 'none'"} {
				if !strings.Contains(res.Header.Get("Content-Security-Policy"), want) {
					t.Errorf("CSP lacks %s", want)
				}
			}
			if strings.Contains(res.Header.Get("Content-Security-Policy"), "unsafe") {
				t.Error("CSP allows unsafe-*")
			}
			if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options = %q", got)
			}
			if tc.contentType != "" && res.Header.Get("Content-Type") != tc.contentType {
				t.Errorf("Content-Type = %q, want %q", res.Header.Get("Content-Type"), tc.contentType)
			}
			if tc.cache != "" && res.Header.Get("Cache-Control") != tc.cache {
				t.Errorf("Cache-Control = %q, want %q", res.Header.Get("Cache-Control"), tc.cache)
			}
			if tc.status == 200 && !regexp.MustCompile(`^"[0-9a-f]{32}(-gz)?"$`).MatchString(res.Header.Get("ETag")) {
				t.Errorf("ETag = %q", res.Header.Get("ETag"))
			}
			if tc.status == 405 && res.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow = %q", res.Header.Get("Allow"))
			}
			if tc.method == "HEAD" && len(body) != 0 {
				t.Errorf("HEAD body of %d bytes", len(body))
			}
			if tc.body != "" && !strings.Contains(string(body), tc.body) {
				t.Errorf("body lacks %q", tc.body)
			}
		})
	}
}

// TestConditional checks revalidation: the ETag of a file gives 304 with
// no body, another ETag the whole file.
func TestConditional(t *testing.T) {
	srv, _ := newServer(t)
	for _, p := range []string{"/", "/js/app.js", "/vendor/leaflet/leaflet.css"} {
		t.Run(p, func(t *testing.T) {
			res, body := do(t, "GET", srv.URL+p, nil)
			etag := res.Header.Get("ETag")
			res2, body2 := do(t, "GET", srv.URL+p, map[string]string{"If-None-Match": etag})
			if res2.StatusCode != http.StatusNotModified || len(body2) != 0 {
				t.Errorf("If-None-Match %s: status %d, %d bytes", etag, res2.StatusCode, len(body2))
			}
			res3, body3 := do(t, "GET", srv.URL+p, map[string]string{"If-None-Match": `"0000"`})
			if res3.StatusCode != 200 || !bytes.Equal(body3, body) {
				t.Errorf("stale ETag: status %d, %d bytes (want %d)", res3.StatusCode, len(body3), len(body))
			}
		})
	}
}

// TestEmbeddedFiles checks the committed build: every file the shell's
// contract names is embedded and served byte for byte, and the HTML and
// scripts hold nothing the CSP would block or that leaves the origin.
func TestEmbeddedFiles(t *testing.T) {
	srv, h := newServer(t)
	fsys := console.Files()
	for _, p := range []string{"index.html", "css/app.css", "css/forms.css", "js/app.js", "js/api.js", "js/i18n.js", "js/fmt.js",
		"js/ui.js", "js/map.js", "js/screens/signin.js", "vendor/leaflet/leaflet.js", "vendor/leaflet/leaflet.css", "vendor/leaflet/LICENSE.txt"} {
		want, err := fs.ReadFile(fsys, p)
		if err != nil {
			t.Errorf("%s is not embedded: %v", p, err)
			continue
		}
		_, got := do(t, "GET", srv.URL+"/"+p, nil)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: served %d bytes, embedded %d", p, len(got), len(want))
		}
	}
	inlineScript := regexp.MustCompile(`<script(?:\s[^>]*)?>\s*[^<\s]`)
	styleAttr := regexp.MustCompile(`\sstyle\s*=`)
	inlineHandler := regexp.MustCompile(`\son[a-z]+\s*=\s*["']`)
	outside := regexp.MustCompile(`(?i)(?:src|href)\s*=\s*["']?(?:https?:)?//`)
	fetchOutside := regexp.MustCompile(`(?i)(?:fetch|import|tileLayer)\(\s*['"\x60](?:https?:)?//`)
	for _, p := range h.Paths() {
		if strings.HasPrefix(p, "/vendor/") || p == "/" {
			continue
		}
		b, err := fs.ReadFile(fsys, strings.TrimPrefix(p, "/"))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		switch path.Ext(p) {
		case ".html":
			if inlineScript.MatchString(s) {
				t.Errorf("%s: inline script", p)
			}
			if styleAttr.MatchString(s) {
				t.Errorf("%s: style attribute", p)
			}
			if inlineHandler.MatchString(s) {
				t.Errorf("%s: inline event handler", p)
			}
			if outside.MatchString(s) {
				t.Errorf("%s: a URL of another origin", p)
			}
		case ".js":
			if fetchOutside.MatchString(s) {
				t.Errorf("%s: fetches from another origin", p)
			}
			if strings.Contains(s, "style=\"") || strings.Contains(s, "style='") {
				t.Errorf("%s: builds a style attribute in HTML", p)
			}
		case ".css":
			if strings.Contains(s, "@import url(http") || regexp.MustCompile(`url\(\s*['"]?(?:https?:)?//`).MatchString(s) {
				t.Errorf("%s: loads from another origin", p)
			}
		}
	}
}

// TestOwns checks the split between console and API paths.
func TestOwns(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"/", true}, {"/index.html", true}, {"/js/app.js", true}, {"/css/app.css", true}, {"/vendor/leaflet/leaflet.js", true},
		{"/data/outlines.json", true}, {"/js", false}, {"/health", false}, {"/openapi.json", false}, {"/towers", false},
		{"/tiles/hillshade/1/0/0.png", false}, {"/index.htm", false}, {"/jsx/a", false}, {"", false},
	} {
		if got := console.Owns(tc.path); got != tc.want {
			t.Errorf("Owns(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

// TestNewRefusesUnknownMediaType checks that a file whose type would be a
// guess stops the start-up.
func TestNewRefusesUnknownMediaType(t *testing.T) {
	_, err := console.New(fstest.MapFS{"index.html": {Data: []byte("<!doctype html>")}, "x.exe": {Data: []byte("MZ")}})
	if err == nil || !strings.Contains(err.Error(), "x.exe") {
		t.Fatalf("err = %v, want one naming x.exe", err)
	}
	h, err := console.New(fstest.MapFS{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Paths()) != 0 {
		t.Errorf("empty build serves %v", h.Paths())
	}
}

// TestBundleSize logs the console's size, each served file gzipped, and
// checks it against the goal of 600 KB.
func TestBundleSize(t *testing.T) {
	_, h := newServer(t)
	fsys := console.Files()
	total, raw := 0, 0
	for _, p := range h.Paths() {
		if p == "/" {
			continue
		}
		b, err := fs.ReadFile(fsys, strings.TrimPrefix(p, "/"))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(b)
		_ = zw.Close()
		total += buf.Len()
		raw += len(b)
	}
	t.Logf("console bundle: %d files, %d bytes, %d bytes gzip (goal: 600 KB)", len(h.Paths())-1, raw, total)
	if total > 600_000 {
		t.Errorf("console bundle is %d bytes gzip, over the 600 KB goal", total)
	}
}

// TestGzip: a text file is sent gzipped to a client that accepts gzip
// (with its own ETag and Vary: Accept-Encoding) and as is otherwise; the
// decoded body is the file; an image is never re-encoded.
func TestGzip(t *testing.T) {
	srv, _ := newServer(t)
	_, plain := do(t, "GET", srv.URL+"/data/outlines.json", map[string]string{"Accept-Encoding": "identity"})
	cases := []struct {
		name, path, accept string
		gzipped            bool
	}{
		{"gzip accepted", "/data/outlines.json", "gzip, deflate, br", true},
		{"any encoding", "/data/outlines.json", "*", true},
		{"gzip refused with q=0", "/data/outlines.json", "gzip;q=0, br", false},
		{"no Accept-Encoding", "/data/outlines.json", "", false},
		{"identity only", "/data/outlines.json", "identity", false},
		{"image is not re-encoded", "/vendor/leaflet/images/layers.png", "gzip", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A transport that neither adds Accept-Encoding nor decodes.
			client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
			req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.accept != "" {
				req.Header.Set("Accept-Encoding", tc.accept)
			}
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, err := io.ReadAll(res.Body)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Header.Get("Content-Encoding") == "gzip"; got != tc.gzipped {
				t.Fatalf("Content-Encoding %q, want gzip: %v", res.Header.Get("Content-Encoding"), tc.gzipped)
			}
			if !tc.gzipped {
				return
			}
			if !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") || !strings.HasSuffix(res.Header.Get("ETag"), `-gz"`) {
				t.Errorf("Vary %q, ETag %q", res.Header.Get("Vary"), res.Header.Get("ETag"))
			}
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			dec, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(dec, plain) || len(body) >= len(plain) {
				t.Errorf("decoded %d bytes from %d, want the %d-byte file, smaller", len(dec), len(body), len(plain))
			}
			// The gzip representation revalidates with its own ETag.
			req2, _ := http.NewRequestWithContext(t.Context(), "GET", srv.URL+tc.path, nil)
			req2.Header.Set("Accept-Encoding", tc.accept)
			req2.Header.Set("If-None-Match", res.Header.Get("ETag"))
			res2, err := client.Do(req2)
			if err != nil {
				t.Fatal(err)
			}
			res2.Body.Close()
			if res2.StatusCode != http.StatusNotModified {
				t.Errorf("revalidation: %d, want 304", res2.StatusCode)
			}
		})
	}
}
