package api_test

import (
	"bytes"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	pathpkg "path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"

	"linkplan/appliance/basemap/pmtiles"
	"linkplan/appliance/basemap/pmtiles/pmtilestest"
	"linkplan/web/api"
)

// rioTile is the zoom-12 tile over Rio de Janeiro's centre, inside the
// embedded sample pack; brasiliaTile is outside every pack.
const (
	rioTile      = "/tiles/hillshade/12/1556/2316.png"
	brasiliaTile = "/tiles/hillshade/10/375/557.png"
	rioElevation = "/tiles/elevation/12/1556/2316.png"
)

// pngTile decodes a 256×256 tile and returns how many of its pixels are
// opaque.
func pngTile(t *testing.T, res *response) (opaque int) {
	t.Helper()
	if ct := res.header.Get("Content-Type"); ct != "image/png" {
		t.Fatalf("Content-Type %q", ct)
	}
	img, err := png.Decode(bytes.NewReader(res.body))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b != image.Rect(0, 0, 256, 256) {
		t.Fatalf("tile %v, want 256×256", b)
	}
	for y := range 256 {
		for x := range 256 {
			if _, _, _, a := img.At(x, y).RGBA(); a == 0xffff {
				opaque++
			}
		}
	}
	return opaque
}

func TestHillshadeTiles(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	newRun(t).run(t, h, tileScenarios(t, h))
	first := h.do(t, "GET", rioTile, "", nil, "")
	head := h.do(t, "HEAD", rioTile, "", nil, "")
	if head.status != 200 || len(head.body) != 0 || head.header.Get("Content-Length") != first.header.Get("Content-Length") {
		t.Errorf("HEAD: %d, %d body bytes, Content-Length %q (GET %q)", head.status, len(head.body), head.header.Get("Content-Length"), first.header.Get("Content-Length"))
	}
	for _, hd := range []string{"RateLimit-Limit", "WWW-Authenticate"} {
		if v := first.header.Get(hd); v != "" {
			t.Errorf("a public tile carries %s: %q", hd, v)
		}
	}
}

// tileScenarios are the exchanges of GET /tiles/hillshade/{z}/{x}/{y}.png
// (TestHillshadeTiles and TestScenarios).
func tileScenarios(t *testing.T, h *harness) []scenario {
	first := h.do(t, "GET", rioTile, "", nil, "")
	etag := first.header.Get("ETag")
	elevETag := h.do(t, "GET", rioElevation, "", nil, "").header.Get("ETag")
	if first.status != http.StatusOK || !strings.HasPrefix(etag, `"hillshade-`) {
		t.Fatalf("status %d, ETag %q", first.status, etag)
	}
	opaque := func(want int) func(t *testing.T, h *harness, res *response) {
		return func(t *testing.T, h *harness, res *response) {
			if got := pngTile(t, res); got != want {
				t.Errorf("%d opaque pixels, want %d", got, want)
			}
			if res.header.Get("Cache-Control") != "public, max-age=3600" || res.header.Get("ETag") != etag {
				t.Errorf("Cache-Control %q, ETag %q", res.header.Get("Cache-Control"), res.header.Get("ETag"))
			}
		}
	}
	sameBytes := func(t *testing.T, h *harness, res *response) {
		if !bytes.Equal(res.body, first.body) {
			t.Errorf("%d bytes, the first answer had %d", len(res.body), len(first.body))
		}
	}
	return []scenario{
		{name: "Rio tile without a key", method: "GET", url: rioTile, status: 200, check: opaque(256 * 256)},
		{name: "the same bytes again", method: "GET", url: rioTile, status: 200, check: sameBytes},
		{name: "with a tenant key", method: "GET", url: rioTile, key: "free", status: 200, check: sameBytes},
		{name: "with an unknown key: the key is not read", method: "GET", url: rioTile, key: "unknown", status: 200, check: sameBytes},
		{name: "outside every pack: transparent PNG", method: "GET", url: brasiliaTile, status: 200, check: opaque(0)},
		{name: "the world at zoom 0", method: "GET", url: "/tiles/hillshade/0/0/0.png", status: 200},
		{name: "last tile of zoom 15", method: "GET", url: "/tiles/hillshade/15/32767/32767.png", status: 200, check: opaque(0)},
		{name: "revalidation with the ETag", method: "GET", url: rioTile, headers: map[string]string{"If-None-Match": etag}, status: 304,
			check: func(t *testing.T, h *harness, res *response) {
				if len(res.body) != 0 || res.header.Get("ETag") != etag {
					t.Errorf("%d body bytes, ETag %q", len(res.body), res.header.Get("ETag"))
				}
			}},
		{name: "revalidation with a stale ETag", method: "GET", url: rioTile, headers: map[string]string{"If-None-Match": `"hillshade-r0-00000000000000000000"`}, status: 200, check: sameBytes},
		{name: "elevation tile without a key", method: "GET", url: rioElevation, status: 200,
			check: func(t *testing.T, h *harness, res *response) {
				if got := pngTile(t, res); got != 256*256 {
					t.Errorf("%d opaque pixels", got)
				}
				if e := res.header.Get("ETag"); !strings.HasPrefix(e, `"elevation-`) || bytes.Equal(res.body, first.body) {
					t.Errorf("ETag %q; same bytes as the hillshade: %v", e, bytes.Equal(res.body, first.body))
				}
			}},
		{name: "elevation revalidated with the hillshade's ETag", method: "GET", url: rioElevation, headers: map[string]string{"If-None-Match": etag}, status: 200},
		{name: "elevation revalidated with its ETag", method: "GET", url: rioElevation, headers: map[string]string{"If-None-Match": elevETag}, status: 304},
		{name: "elevation tile outside every pack", method: "GET", url: "/tiles/elevation/10/375/557.png", status: 200, check: func(t *testing.T, h *harness, res *response) {
			if got := pngTile(t, res); got != 0 {
				t.Errorf("%d opaque pixels", got)
			}
		}},
		{name: "elevation zoom 16", method: "GET", url: "/tiles/elevation/16/0/0.png", status: 400, code: "invalid_tile", fields: []string{"z"}},
		{name: "elevation as JPEG", method: "GET", url: "/tiles/elevation/1/0/0.jpeg", status: 400, code: "invalid_tile", fields: []string{"y"}},
		{name: "an unknown layer", method: "GET", url: "/tiles/contours/1/0/0.png", status: 404, code: "not_found"},
		{name: "zoom 16", method: "GET", url: "/tiles/hillshade/16/0/0.png", status: 400, code: "invalid_tile", fields: []string{"z"}},
		{name: "x past the last column", method: "GET", url: "/tiles/hillshade/3/8/0.png", status: 400, code: "invalid_tile", fields: []string{"x"}},
		{name: "y past the last row", method: "GET", url: "/tiles/hillshade/3/0/8.png", status: 400, code: "invalid_tile", fields: []string{"y"}},
		{name: "negative x and a fractional y", method: "GET", url: "/tiles/hillshade/3/-1/1.5.png", status: 400, code: "invalid_tile", fields: []string{"x", "y"}},
		{name: "words", method: "GET", url: "/tiles/hillshade/z/x/y.png", status: 400, code: "invalid_tile", fields: []string{"z", "x", "y"}},
		{name: "a JPEG suffix", method: "GET", url: "/tiles/hillshade/12/1556/2316.jpg", status: 400, code: "invalid_tile", fields: []string{"y"},
			contains: []string{"followed by .png"}},
		{name: "no suffix", method: "GET", url: "/tiles/hillshade/12/1556/2316", status: 400, code: "invalid_tile", fields: []string{"y"}},
		{name: "POST", method: "POST", url: rioTile, status: 405, code: "method_not_allowed"},
		{name: "a missing row", method: "GET", url: "/tiles/hillshade/12/1556", status: 404, code: "not_found"},
		{name: "surface tile over the Rio coast", method: "GET", url: "/tiles/surface/11/778/1158.png", status: 200, check: func(t *testing.T, h *harness, res *response) {
			if got := pngTile(t, res); got == 0 || got == 256*256 || !strings.HasPrefix(res.header.Get("ETag"), `"surface-`) {
				t.Errorf("%d opaque pixels (water and hatches, not all), ETag %q", got, res.header.Get("ETag"))
			}
		}},
		{name: "operator basemap description", method: "GET", url: "/basemap/ext", status: 200,
			contains: []string{`"configured":true`, `"tile_type":"mvt"`, `"drawn":true`, `"rendered":true`, `"attribution":"© test"`, `"min_zoom":0`, `"max_zoom":11`,
				`"drawn_tiles":"/basemap/ext/raster/{z}/{x}/{y}"`, `"labels":"/basemap/ext/labels/{z}/{x}/{y}"`, `"drawn_max_zoom":17`,
				`"drawn_layers":["water","places"]`, `"skipped_layers":["pois"]`}},
		{name: "operator basemap tile, as stored", method: "GET", url: "/basemap/ext/11/778/1158", status: 200, check: func(t *testing.T, h *harness, res *response) {
			// (The client decompresses the gzip encoding; the binary's test checks it.)
			if res.header.Get("Content-Type") != "application/vnd.mapbox-vector-tile" || !strings.HasPrefix(res.header.Get("ETag"), `"ext-`) {
				t.Errorf("%v", res.header)
			}
		}},
		{name: "operator basemap: a tile it lacks", method: "GET", url: "/basemap/ext/11/0/0", status: 404, code: "not_found"},
		{name: "operator basemap: zoom 31", method: "GET", url: "/basemap/ext/31/0/0", status: 400, code: "invalid_tile", fields: []string{"z"}},
		{name: "operator basemap: a suffix", method: "GET", url: "/basemap/ext/0/0/0.png", status: 400, code: "invalid_tile", fields: []string{"y"}},
		{name: "operator basemap drawn", method: "GET", url: "/basemap/ext/raster/11/778/1158", status: 200, check: func(t *testing.T, h *harness, res *response) {
			if got := pngTile(t, res); got != 256*256 || !strings.HasPrefix(res.header.Get("ETag"), `"extv-`) || res.header.Get("Cache-Control") != "public, max-age=3600" {
				t.Errorf("%d opaque pixels (want all), ETag %q", got, res.header.Get("ETag"))
			}
		}},
		{name: "operator basemap drawn at 2x", method: "GET", url: "/basemap/ext/raster/11/778/1158@2x", status: 200, check: func(t *testing.T, h *harness, res *response) {
			img, err := png.Decode(bytes.NewReader(res.body))
			if err != nil || img.Bounds().Dx() != 512 || !strings.HasSuffix(res.header.Get("ETag"), `-2x"`) {
				t.Errorf("%v, ETag %q", err, res.header.Get("ETag"))
			}
		}},
		{name: "operator basemap drawn beyond its zooms", method: "GET", url: "/basemap/ext/raster/13/3113/4634", status: 200},
		{name: "operator basemap labels", method: "GET", url: "/basemap/ext/labels/11/778/1158", status: 200,
			contains: []string{`"tile":"11/778/1158"`, `"name":"Copacabana"`, `"kind":"neighbourhood"`}},
		{name: "operator basemap labels at zoom 0 (the place on the tile's coarse grid)", method: "GET", url: "/basemap/ext/labels/0/0/0", status: 200,
			contains: []string{`"name":"Copacabana","lat":-22.917923,"lon":-43.242188`}},
		{name: "operator basemap: no drawn tile beyond 6 zooms more", method: "GET", url: "/basemap/ext/raster/18/0/0", status: 404, code: "not_found"},
		{name: "operator basemap: no labels where it has no tile", method: "GET", url: "/basemap/ext/labels/11/0/0", status: 404, code: "not_found"},
		{name: "operator basemap drawn tile: @3x", method: "GET", url: "/basemap/ext/raster/11/778/1158@3x", status: 400, code: "invalid_tile", fields: []string{"y"}},
		{name: "operator basemap drawn tile: x past the last column", method: "GET", url: "/basemap/ext/raster/3/8/0", status: 400, code: "invalid_tile", fields: []string{"x"}},
		{name: "operator basemap labels: zoom 31", method: "GET", url: "/basemap/ext/labels/31/0/0", status: 400, code: "invalid_tile", fields: []string{"z"}},
		{name: "operator basemap labels: a suffix", method: "GET", url: "/basemap/ext/labels/1/0/0.json", status: 400, code: "invalid_tile", fields: []string{"y"}},
	}
}

// writeExtArchive writes the harness's operator basemap into dir: a
// vector archive (gzipped MVT, made here with orb's encoder) of two tiles,
// 0/0/0 and 11/778/1158 over Rio, holding water (-43.2..-43.1° E,
// -23.0..-22.95° N) and one place, Copacabana. Raster archives are driven
// by appliance/basemap's tests and TestIssue27_OperatorBasemap.
func writeExtArchive(tb testing.TB, dir string) string {
	tb.Helper()
	layers := map[string][]*geojson.Feature{
		"water":  {{Type: "Feature", Geometry: orb.Polygon{{{-43.2, -23.0}, {-43.1, -23.0}, {-43.1, -22.95}, {-43.2, -22.95}, {-43.2, -23.0}}}, Properties: geojson.Properties{"kind": "water"}}},
		"places": {{Type: "Feature", Geometry: orb.Point{-43.187, -22.971}, Properties: geojson.Properties{"name": "Copacabana", "kind": "neighbourhood"}}},
	}
	var tiles []pmtilestest.Tile
	for _, t := range [][3]int{{0, 0, 0}, {11, 778, 1158}} {
		b, ok, err := pmtilestest.VectorTile(layers, t[0], t[1], t[2])
		if err != nil || !ok {
			tb.Fatalf("tile %v: %v %v", t, ok, err)
		}
		tiles = append(tiles, pmtilestest.Tile{Z: t[0], X: t[1], Y: t[2], Data: b})
	}
	b, err := pmtilestest.Write(tiles, pmtilestest.Options{Type: pmtiles.TileMVT, Compression: pmtiles.CompressionGzip, Bounds: [4]float64{-44, -23, -43, -22},
		Metadata: map[string]any{"attribution": "© test", "vector_layers": []map[string]any{{"id": "water"}, {"id": "places"}, {"id": "pois"}}}})
	if err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(dir, "basemap.pmtiles")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

// TestHillshadeTilesUnmetered: public tiles are not charged to a key that
// sends itself along: neither the monthly calls nor the read rate move.
func TestHillshadeTilesUnmetered(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	type usage struct {
		Counters []struct {
			Name string `json:"name"`
			Used int    `json:"used"`
		} `json:"counters"`
		RateLimits []struct {
			Group     string `json:"group"`
			Remaining int    `json:"remaining"`
		} `json:"rate_limits"`
	}
	read := func() (calls, readLeft int) {
		u := decodeInto[usage](t, h.do(t, "GET", "/v1/me/quota", h.keys["pro"], nil, ""))
		for _, c := range u.Counters {
			if c.Name == "calls" {
				calls = c.Used
			}
		}
		for _, r := range u.RateLimits {
			if r.Group == "read" {
				readLeft = r.Remaining
			}
		}
		return calls, readLeft
	}
	calls, left := read()
	for range 5 {
		if res := h.do(t, "GET", rioTile, h.keys["pro"], nil, ""); res.status != 200 {
			t.Fatalf("status %d", res.status)
		}
	}
	if c, l := read(); c != calls || l != left {
		t.Errorf("tiles were metered: calls used %d → %d, read rate left %d → %d", calls, c, left, l)
	}
	// The check can fail: a metered read route moves the read rate.
	if res := h.do(t, "GET", "/towers?limit=1", h.keys["pro"], nil, ""); res.status != 200 {
		t.Fatalf("towers: %d", res.status)
	}
	if _, l := read(); l != left-1 {
		t.Errorf("a read route left the read rate at %d, want %d", l, left-1)
	}
}

// FuzzHillshadeTilePath runs GET /tiles/hillshade/{z}/{x}/{y} on arbitrary
// path segments: never a 500, always a documented answer (a PNG, or 400
// naming the bad part, or 404 for a path that is no tile route).
func FuzzHillshadeTilePath(f *testing.F) {
	for _, s := range [][3]string{{"12", "1556", "2316.png"}, {"0", "0", "0.png"}, {"16", "0", "0.png"}, {"3", "-1", "1.5.png"},
		{"15", "32767", "32767.png"}, {"1", "1", "1.jpg"}, {"", "x", ".png"}, {"12", "1556", "2316.png.png"}, {"%", "٣", "\x00.png"}} {
		f.Add(s[0], s[1], s[2])
	}
	h := newHarness(f, harnessOptions{unmetered: true})
	d := loadOpenAPI(f)
	f.Fuzz(func(t *testing.T, z, x, y string) {
		path := "/tiles/hillshade/" + url.PathEscape(z) + "/" + url.PathEscape(x) + "/" + url.PathEscape(y)
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if p := req.URL.Path; pathpkg.Clean(p) != p {
			return // the router redirects to the clean path, whatever the route
		}
		rec := httptest.NewRecorder()
		h.api.ServeHTTP(rec, req)
		res := &response{status: rec.Code, header: rec.Result().Header, body: rec.Body.Bytes()}
		if res.status == http.StatusInternalServerError {
			t.Fatalf("500 for %q", path)
		}
		for _, e := range d.checkResponse(http.MethodGet, req.URL.Path, res) {
			t.Errorf("contract: %s (path %q)", e, path)
		}
		if res.status == http.StatusOK {
			if _, err := png.Decode(bytes.NewReader(res.body)); err != nil {
				t.Errorf("200 without a PNG for %q: %v", path, err)
			}
		}
	})
}

// TestTilesWithoutBasemap: an API built without the basemap service
// answers the tile routes with 503, documented.
func TestTilesWithoutBasemap(t *testing.T) {
	a := api.New(api.Deps{})
	a.SetState(api.StateReady)
	d := loadOpenAPI(t)
	for _, p := range []string{rioTile, rioElevation} {
		rec := httptest.NewRecorder()
		a.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
		res := &response{status: rec.Code, header: rec.Result().Header, body: rec.Body.Bytes()}
		if res.status != http.StatusServiceUnavailable || !strings.Contains(string(res.body), `"unavailable"`) {
			t.Errorf("%s: %d %s", p, res.status, res.body)
		}
		for _, e := range d.checkResponse(http.MethodGet, p, res) {
			t.Errorf("contract: %s", e)
		}
	}
}
