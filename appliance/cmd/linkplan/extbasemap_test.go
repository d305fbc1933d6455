package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/basemap"
	"linkplan/appliance/basemap/pmtiles"
	"linkplan/appliance/basemap/pmtiles/pmtilestest"
)

// extAttribution is the test archive's attribution: HTML, as in
// OpenStreetMap extracts, with a link to another origin that the console
// must show as text.
const extAttribution = `<a href="https://www.openstreetmap.org/copyright">© Test OSM contributors</a>`

// extTile is a 256×256 PNG of one colour with a darker cross, the tile of
// the test raster archive.
func extTile(t testing.TB, c color.NRGBA) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 256, 256))
	for y := range 256 {
		for x := range 256 {
			p := c
			if x == 128 || y == 128 {
				p = color.NRGBA{R: c.R / 2, G: c.G / 2, B: c.B / 2, A: 255}
			}
			img.SetNRGBA(x, y, p)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rasterArchive writes a PMTiles archive of PNG tiles over the embedded
// sample's area (44–43° W, 23–22° S) at zooms 8 to 11 (generated here:
// no download) and returns its path and its tiles.
func rasterArchive(t testing.TB) (string, map[basemap.Tile][]byte) {
	t.Helper()
	var tiles []pmtilestest.Tile
	want := map[basemap.Tile][]byte{}
	for z := 8; z <= 11; z++ {
		nw := basemap.TileAt(appliance.LatLon{Lat: -22, Lon: -44}, z)
		se := basemap.TileAt(appliance.LatLon{Lat: -23, Lon: -43}, z)
		for x := nw.X; x <= se.X; x++ {
			for y := nw.Y; y <= se.Y; y++ {
				b := extTile(t, color.NRGBA{R: 0xf2, G: 0xef, B: uint8(0xa0 + 0x10*(z-8)), A: 255})
				tiles = append(tiles, pmtilestest.Tile{Z: z, X: x, Y: y, Data: b})
				want[basemap.Tile{Z: z, X: x, Y: y}] = b
			}
		}
	}
	b, err := pmtilestest.Write(tiles, pmtilestest.Options{Type: pmtiles.TilePNG, Bounds: [4]float64{-44, -23, -43, -22},
		Metadata: map[string]any{"attribution": extAttribution, "name": "rio test extract"}})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "rio.pmtiles")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p, want
}

// extInfo is the answer of GET /basemap/ext.
type extInfo struct {
	Configured      bool      `json:"configured"`
	TileType        string    `json:"tile_type"`
	ContentEncoding string    `json:"content_encoding"`
	Drawn           bool      `json:"drawn"`
	Note            string    `json:"note"`
	Tiles           string    `json:"tiles"`
	MinZoom         int       `json:"min_zoom"`
	MaxZoom         int       `json:"max_zoom"`
	BoundsDeg       []float64 `json:"bounds_deg"`
	Attribution     string    `json:"attribution"`
	VectorLayers    []string  `json:"vector_layers"`
}

// TestIssue27_OperatorBasemap: serve --basemap FILE on the real binary
// serves the archive's tiles same-origin without a key (the bytes as
// stored, their media type, an ETag that revalidates with 304, 404 for a
// tile the archive lacks, 400 for a bad address) and describes it at
// GET /basemap/ext; a vector archive is served (with its gzip encoding)
// but described as not drawn; without the flag the route says
// configured false; a file that is not an archive stops serve with an
// error naming --basemap.
func TestIssue27_OperatorBasemap(t *testing.T) {
	bin := binary(t)
	raster, tiles := rasterArchive(t)
	t.Run("raster", func(t *testing.T) {
		s := startServe(t, bin, t.TempDir(), "--basemap", raster)
		defer s.stop(t)
		var in extInfo
		r := s.call(t, "GET", "/basemap/ext", nil, "")
		if r.status != 200 || json.Unmarshal(r.body, &in) != nil {
			t.Fatalf("GET /basemap/ext: %d %s", r.status, r.body)
		}
		if !in.Configured || in.TileType != "png" || !in.Drawn || in.Note != "" || in.MinZoom != 8 || in.MaxZoom != 11 ||
			fmt.Sprint(in.BoundsDeg) != "[-44 -23 -43 -22]" || in.Attribution != extAttribution || in.Tiles != "/basemap/ext/{z}/{x}/{y}" {
			t.Errorf("info %s", r.body)
		}
		n := 0
		for tl, want := range tiles {
			if n++; n > 12 {
				break
			}
			r := s.call(t, "GET", fmt.Sprintf("/basemap/ext/%d/%d/%d", tl.Z, tl.X, tl.Y), nil, "")
			if r.status != 200 || r.header.Get("Content-Type") != "image/png" || !bytes.Equal(r.body, want) || r.header.Get("Content-Encoding") != "" {
				t.Fatalf("tile %s: %d %s, %d bytes", tl, r.status, r.header.Get("Content-Type"), len(r.body))
			}
			etag := r.header.Get("ETag")
			if !strings.HasPrefix(etag, `"ext-`) || !strings.Contains(r.header.Get("Cache-Control"), "max-age=3600") {
				t.Errorf("tile %s: ETag %q, Cache-Control %q", tl, etag, r.header.Get("Cache-Control"))
			}
			if r := s.call(t, "GET", fmt.Sprintf("/basemap/ext/%d/%d/%d", tl.Z, tl.X, tl.Y), map[string]string{"If-None-Match": etag}, ""); r.status != 304 || len(r.body) != 0 {
				t.Errorf("revalidation of %s: %d", tl, r.status)
			}
		}
		for _, c := range []struct {
			url, code string
			status    int
		}{
			{"/basemap/ext/10/0/0", "not_found", 404},       // outside the archive's area
			{"/basemap/ext/12/1556/2316", "not_found", 404}, // beyond its zooms
			{"/basemap/ext/31/0/0", "invalid_tile", 400},
			{"/basemap/ext/3/8/0", "invalid_tile", 400},
			{"/basemap/ext/3/1/x.png", "invalid_tile", 400},
		} {
			r := s.call(t, "GET", c.url, nil, "")
			var e struct {
				Error struct {
					Code string `json:"code"`
				} `json:"error"`
			}
			_ = json.Unmarshal(r.body, &e)
			if r.status != c.status || e.Error.Code != c.code {
				t.Errorf("%s: %d %s, want %d %s", c.url, r.status, r.body, c.status, c.code)
			}
		}
		// The surface layer is served beside it.
		if r := s.call(t, "GET", "/tiles/surface/11/778/1158.png", nil, ""); r.status != 200 || r.header.Get("Content-Type") != "image/png" {
			t.Errorf("surface tile: %d", r.status)
		}
	})
	t.Run("vector", func(t *testing.T) {
		b, err := pmtilestest.Write([]pmtilestest.Tile{{Z: 0, X: 0, Y: 0, Data: []byte("\x1f\x8b\x08\x00 an MVT tile")}}, pmtilestest.Options{
			Type: pmtiles.TileMVT, Compression: pmtiles.CompressionGzip, Metadata: map[string]any{"attribution": "x", "vector_layers": []map[string]any{{"id": "roads"}}}})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "v.pmtiles")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		s := startServe(t, bin, t.TempDir(), "--basemap", p)
		defer s.stop(t)
		var in extInfo
		r := s.call(t, "GET", "/basemap/ext", nil, "")
		if json.Unmarshal(r.body, &in) != nil || !in.Configured || in.Drawn || in.TileType != "mvt" || in.Note != basemap.VectorNote || in.ContentEncoding != "gzip" || fmt.Sprint(in.VectorLayers) != "[roads]" {
			t.Errorf("vector info %s", r.body)
		}
		if r := s.call(t, "GET", "/basemap/ext/0/0/0", map[string]string{"Accept-Encoding": "gzip"}, ""); r.status != 200 || r.header.Get("Content-Encoding") != "gzip" ||
			r.header.Get("Content-Type") != "application/vnd.mapbox-vector-tile" {
			t.Errorf("vector tile: %d %v", r.status, r.header)
		}
	})
	t.Run("none", func(t *testing.T) {
		s := startServe(t, bin, t.TempDir())
		defer s.stop(t)
		if r := s.call(t, "GET", "/basemap/ext", nil, ""); r.status != 200 || strings.TrimSpace(string(r.body)) != `{"configured":false,"drawn":false,"attribution":""}` {
			t.Errorf("GET /basemap/ext without --basemap: %d %s", r.status, r.body)
		}
		if r := s.call(t, "GET", "/basemap/ext/0/0/0", nil, ""); r.status != 404 {
			t.Errorf("tile without --basemap: %d", r.status)
		}
	})
	t.Run("bad file", func(t *testing.T) {
		for _, c := range []struct{ name, content string }{
			{"text", strings.Repeat("not an archive ", 20)},
			{"truncated", "PMTiles\x03"},
		} {
			p := filepath.Join(t.TempDir(), c.name+".pmtiles")
			if err := os.WriteFile(p, []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, stderr, code := runFor(t, time.Minute, bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--basemap", p)
			if code == 0 || !strings.Contains(stderr, "--basemap") || !strings.Contains(stderr, p) || strings.Contains(stderr, "panic") {
				t.Errorf("%s: exit %d, stderr %s", c.name, code, stderr)
			}
		}
	})
}

// TestIssue27_OperatorBasemapBrowser: in Chromium, the console's map over
// the sample area draws the operator's raster archive (its tiles load
// from /basemap/ext/ and are decoded images), shows its attribution as
// text (no link to another origin), draws the surface layer, and no
// request leaves the origin and no CSP violation happens (openConsole
// fails the test on either).
func TestIssue27_OperatorBasemapBrowser(t *testing.T) {
	raster, _ := rasterArchive(t)
	env := startConsole(t, "--basemap", raster)
	tb := openConsole(t, env)
	signIn(t, tb, env.key)
	goScreen(t, tb, "link")
	waitFor(t, tb, "the operator's basemap tiles", `[...document.querySelectorAll('#link-map .basemap-ext img')].filter(i => i.complete && i.naturalWidth === 256 && i.src.includes('/basemap/ext/')).length >= 2`)
	waitFor(t, tb, "the surface tiles", `[...document.querySelectorAll('#link-map .surface img')].filter(i => i.complete && i.naturalWidth === 256).length >= 1`)
	got := eval[struct {
		Text  string   `json:"text"`
		Links []string `json:"links"`
	}](t, tb, `(() => { const a = document.querySelector('#link-map .leaflet-control-attribution');
		return { text: a ? a.textContent : '', links: a ? [...a.querySelectorAll('a')].map(e => e.href) : [] }; })()`)
	if !strings.Contains(got.Text, "© Test OSM contributors") || strings.Contains(got.Text, "<a") {
		t.Errorf("attribution %q", got.Text)
	}
	for _, l := range got.Links {
		if strings.Contains(l, "openstreetmap.org") {
			t.Errorf("the attribution links to another origin: %s", l)
		}
	}
	var ext int
	for _, u := range tb.Requests() {
		if strings.Contains(u, "/basemap/ext/") {
			ext++
		}
	}
	if ext == 0 {
		t.Error("no request for the operator's tiles")
	}
}
