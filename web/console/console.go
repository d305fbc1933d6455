package console

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
)

// ContentSecurityPolicy is sent with every console response: no inline
// script or style, no outside origin for anything (scripts, styles,
// images, fetches, frames, forms). Images may also be data: and blob: URLs
// (heatmap tiles drawn to a canvas, downloads).
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

// Cache lifetimes: the application's own files are not content-hashed, so
// browsers revalidate them on every use (ETag, 304); vendored libraries
// change only with their pinned version, so they are kept for
// VendorMaxAge.
const (
	RevalidateCacheControl = "no-cache"
	VendorMaxAge           = 30 * 24 * time.Hour
)

// Prefixes are the URL path prefixes the console owns besides "/" and
// "/index.html"; every other path belongs to the API.
var prefixes = [...]string{"/css/", "/js/", "/vendor/", "/data/"}

// Owns reports whether the URL path p is a console path: "/", "/index.html"
// or one under /css/, /js/, /vendor/ or /data/. The composition root sends
// these to the console handler and everything else to the API; no API
// route starts with one of them.
func Owns(p string) bool {
	if p == "/" || p == "/index.html" {
		return true
	}
	for _, pre := range prefixes {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}

// contentTypes maps the file extensions the console ships to their media
// type: a fixed table, so that the answer does not depend on the host's
// mime database.
var contentTypes = map[string]string{
	".html":    "text/html; charset=utf-8",
	".css":     "text/css; charset=utf-8",
	".js":      "text/javascript; charset=utf-8",
	".json":    "application/json",
	".geojson": "application/geo+json",
	".png":     "image/png",
	".svg":     "image/svg+xml",
	".txt":     "text/plain; charset=utf-8",
}

// file is one served file, read once at start-up, with its gzip encoding
// when that is worth sending (a text file of at least minGzipBytes that
// shrinks).
type file struct {
	body        []byte
	etag        string
	contentType string
	gz          []byte // nil: always sent as is
	gzEtag      string
}

// minGzipBytes is the smallest file worth a gzip encoding.
const minGzipBytes = 1024

// compressible reports whether a media type is text that gzip shrinks
// (PNG is compressed already).
func compressible(contentType string) bool {
	return strings.HasPrefix(contentType, "text/") || strings.Contains(contentType, "json") || strings.Contains(contentType, "svg")
}

// gzipOf returns b gzipped at the best compression (deterministic: no name
// or time in the header), or nil when that does not make it smaller.
func gzipOf(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	if buf.Len() >= len(b) {
		return nil, nil
	}
	return buf.Bytes(), nil
}

// acceptsGzip reports whether the request's Accept-Encoding allows gzip
// (listed, or "*", without q=0).
func acceptsGzip(r *http.Request) bool {
	for _, h := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(h, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name != "gzip" && name != "*" {
				continue
			}
			q := 1.0
			for _, p := range strings.Split(params, ";") {
				k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
				if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
						q = f
					}
				}
			}
			if q > 0 {
				return true
			}
		}
	}
	return false
}

// Handler serves the console files. It is immutable after New and safe
// for concurrent use.
type Handler struct {
	files map[string]file // by URL path, "/" included
}

// New reads every file of fsys (the console build: Files()) into memory,
// with its strong ETag (the first 16 bytes of its SHA-256, hex). A file
// whose extension is not in the console's media type table is an error,
// so that nothing is served as a guess.
func New(fsys fs.FS) (*Handler, error) {
	h := &Handler{files: map[string]file{}}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		ct, ok := contentTypes[path.Ext(name)]
		if !ok {
			return fmt.Errorf("console file %s: no media type for its extension", name)
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		tag := hex.EncodeToString(sum[:16])
		f := file{body: b, etag: `"` + tag + `"`, contentType: ct}
		if len(b) >= minGzipBytes && compressible(ct) {
			if f.gz, err = gzipOf(b); err != nil {
				return fmt.Errorf("console file %s: gzip: %w", name, err)
			}
			f.gzEtag = `"` + tag + `-gz"`
		}
		h.files["/"+name] = f
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load console files: %w", err)
	}
	if f, ok := h.files["/index.html"]; ok {
		h.files["/"] = f
	}
	return h, nil
}

// Paths returns the URL paths served, "/" included, in no particular order.
func (h *Handler) Paths() []string {
	out := make([]string, 0, len(h.files))
	for p := range h.files {
		out = append(out, p)
	}
	return out
}

// ServeHTTP answers GET and HEAD of a console file (with If-None-Match and
// Range handled by http.ServeContent), 405 with Allow for another method,
// and a plain-text 404 for a path that is not a file (no listing).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", ContentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	f, ok := h.files[r.URL.Path]
	if !ok {
		hd.Set("Cache-Control", "no-store")
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		hd.Set("Cache-Control", "no-store")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hd.Set("Content-Type", f.contentType)
	if strings.HasPrefix(r.URL.Path, "/vendor/") {
		hd.Set("Cache-Control", fmt.Sprintf("public, max-age=%d", int(VendorMaxAge.Seconds())))
	} else {
		hd.Set("Cache-Control", RevalidateCacheControl)
	}
	body, etag := f.body, f.etag
	if f.gz != nil {
		// Two representations: caches must key on Accept-Encoding, and
		// each has its own ETag (a 304 is for the one the client holds).
		hd.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r) {
			body, etag = f.gz, f.gzEtag
			hd.Set("Content-Encoding", "gzip")
		}
	}
	hd.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}
