//go:build systemtools

package browsertest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"

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

// rioPlaces are neighbourhoods of Rio's south zone, close enough that
// their labels collide below zoom 14.
var rioPlaces = []struct {
	name     string
	lat, lon float64
}{
	{"Copacabana", -22.971, -43.187}, {"Ipanema", -22.984, -43.205}, {"Leblon", -22.984, -43.224}, {"Botafogo", -22.951, -43.182},
	{"Flamengo", -22.933, -43.176}, {"Lagoa", -22.972, -43.207}, {"Gávea", -22.976, -43.230}, {"Urca", -22.950, -43.165},
	{"Humaitá", -22.956, -43.197}, {"Jardim Botânico", -22.966, -43.224}, {"Laranjeiras", -22.937, -43.188}, {"Catete", -22.926, -43.177},
}

// vectorArchive writes a PMTiles archive of gzipped MVT tiles (generated
// here with orb's MVT encoder: no download) over the embedded sample's
// area at zooms 6 to 12: water (the bay and a strip of sea to the south),
// a motorway and a primary road, the neighbourhoods of rioPlaces and a
// city named as a municipality (left out of the console's labels, which
// name it already), and a layer the style skips (pois).
func vectorArchive(t testing.TB) string {
	t.Helper()
	f := func(g orb.Geometry, p geojson.Properties) *geojson.Feature {
		return &geojson.Feature{Type: "Feature", Geometry: g, Properties: p}
	}
	places := []*geojson.Feature{f(orb.Point{-43.2, -22.91}, geojson.Properties{"name": "Rio de Janeiro", "kind": "locality", "kind_detail": "city", "population_rank": 15.0})}
	for _, p := range rioPlaces {
		places = append(places, f(orb.Point{p.lon, p.lat}, geojson.Properties{"name": p.name, "kind": "neighbourhood"}))
	}
	layers := map[string][]*geojson.Feature{
		"water": {
			f(orb.Polygon{{{-43.25, -22.94}, {-43.10, -22.94}, {-43.10, -22.70}, {-43.25, -22.70}, {-43.25, -22.94}}}, geojson.Properties{"kind": "water"}),
			f(orb.Polygon{{{-44, -23}, {-43, -23}, {-43, -22.995}, {-44, -22.995}, {-44, -23}}}, geojson.Properties{"kind": "ocean"}),
		},
		"roads": {
			f(orb.LineString{{-43.7, -22.88}, {-43.45, -22.86}, {-43.26, -22.87}}, geojson.Properties{"kind": "highway"}),
			f(orb.LineString{{-43.30, -22.96}, {-43.26, -22.90}, {-43.26, -22.80}}, geojson.Properties{"kind": "major_road"}),
		},
		"places": places,
		"pois":   {f(orb.Point{-43.21, -22.95}, geojson.Properties{"name": "Cristo Redentor"})},
	}
	tiles, err := pmtilestest.VectorTiles(layers, [4]float64{-44, -23, -43, -22}, 6, 12)
	if err != nil {
		t.Fatal(err)
	}
	b, err := pmtilestest.Write(tiles, pmtilestest.Options{Type: pmtiles.TileMVT, Compression: pmtiles.CompressionGzip, Bounds: [4]float64{-44, -23, -43, -22},
		Metadata: map[string]any{"attribution": extAttribution, "name": "rio vector test extract",
			"vector_layers": []map[string]any{{"id": "places"}, {"id": "pois"}, {"id": "roads"}, {"id": "water"}}}})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "rio-vector.pmtiles")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// countColour counts the pixels of img that are exactly c.
func countColour(img image.Image, c color.NRGBA) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA) == c {
				n++
			}
		}
	}
	return n
}

// extInfo is the answer of GET /basemap/ext.
type extInfo struct {
	Configured      bool      `json:"configured"`
	TileType        string    `json:"tile_type"`
	ContentEncoding string    `json:"content_encoding"`
	Drawn           bool      `json:"drawn"`
	Rendered        bool      `json:"rendered"`
	Note            string    `json:"note"`
	Tiles           string    `json:"tiles"`
	DrawnTiles      string    `json:"drawn_tiles"`
	Labels          string    `json:"labels"`
	DrawnMaxZoom    int       `json:"drawn_max_zoom"`
	DrawnLayers     []string  `json:"drawn_layers"`
	SkippedLayers   []string  `json:"skipped_layers"`
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
// and drawn by the appliance (PNG tiles with water where the archive has
// it, at 2x and beyond its zooms, place labels as JSON); without the flag the route says
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
		s := startServe(t, bin, t.TempDir(), "--basemap", vectorArchive(t))
		defer s.stop(t)
		var in extInfo
		r := s.call(t, "GET", "/basemap/ext", nil, "")
		if json.Unmarshal(r.body, &in) != nil || !in.Configured || !in.Drawn || !in.Rendered || in.TileType != "mvt" || in.Note != basemap.VectorNote ||
			in.ContentEncoding != "gzip" || in.DrawnTiles != "/basemap/ext/raster/{z}/{x}/{y}" || in.Labels != "/basemap/ext/labels/{z}/{x}/{y}" ||
			in.DrawnMaxZoom != 12+basemap.MaxOverzoom || fmt.Sprint(in.DrawnLayers) != "[places roads water]" || fmt.Sprint(in.SkippedLayers) != "[pois]" {
			t.Errorf("vector info %s", r.body)
		}
		// The stored tiles are still served as they are.
		bay := basemap.TileAt(appliance.LatLon{Lat: -22.90, Lon: -43.17}, 12)
		if r := s.call(t, "GET", "/basemap/ext/"+bay.String(), map[string]string{"Accept-Encoding": "gzip"}, ""); r.status != 200 || r.header.Get("Content-Encoding") != "gzip" ||
			r.header.Get("Content-Type") != "application/vnd.mapbox-vector-tile" {
			t.Errorf("vector tile: %d %v", r.status, r.header)
		}
		// Drawn: the bay's tile holds water-coloured pixels; at 2x it is
		// 512 pixels; an overzoomed tile is drawn too; revalidation.
		for _, c := range []struct {
			url  string
			side int
		}{{"/basemap/ext/raster/" + bay.String(), 256}, {"/basemap/ext/raster/" + bay.String() + "@2x", 512},
			{fmt.Sprintf("/basemap/ext/raster/15/%d/%d", bay.X*8+3, bay.Y*8+3), 256}} {
			r := s.call(t, "GET", c.url, nil, "")
			if r.status != 200 || r.header.Get("Content-Type") != "image/png" || !strings.HasPrefix(r.header.Get("ETag"), `"extv-`) {
				t.Fatalf("%s: %d %s %v", c.url, r.status, r.body, r.header)
			}
			img, err := png.Decode(bytes.NewReader(r.body))
			if err != nil || img.Bounds().Dx() != c.side {
				t.Fatalf("%s: %v %v", c.url, err, img.Bounds())
			}
			if n := countColour(img, basemap.VectorWater); n < c.side*c.side/10 {
				t.Errorf("%s: %d water pixels", c.url, n)
			}
			if r2 := s.call(t, "GET", c.url, map[string]string{"If-None-Match": r.header.Get("ETag")}, ""); r2.status != 304 {
				t.Errorf("%s: revalidation %d", c.url, r2.status)
			}
		}
		// Labels: Copacabana's tile names it.
		cop := basemap.TileAt(appliance.LatLon{Lat: -22.971, Lon: -43.187}, 12)
		r = s.call(t, "GET", "/basemap/ext/labels/"+cop.String(), nil, "")
		var ls struct {
			Tile   string `json:"tile"`
			Labels []struct {
				Name string  `json:"name"`
				Lat  float64 `json:"lat"`
				Lon  float64 `json:"lon"`
				Kind string  `json:"kind"`
			} `json:"labels"`
		}
		if r.status != 200 || json.Unmarshal(r.body, &ls) != nil || ls.Tile != cop.String() {
			t.Fatalf("labels: %d %s", r.status, r.body)
		}
		found := false
		for _, l := range ls.Labels {
			if l.Name == "Copacabana" && l.Kind == "neighbourhood" && math.Abs(l.Lat+22.971) < 1e-3 && math.Abs(l.Lon+43.187) < 1e-3 {
				found = true
			}
		}
		if !found {
			t.Errorf("labels of %s: %s", cop, r.body)
		}
		for _, c := range []struct {
			url, code string
			status    int
		}{
			{"/basemap/ext/raster/12/0/0", "not_found", 404},  // outside the archive's area
			{"/basemap/ext/raster/19/0/0", "not_found", 404},  // beyond the overzoom
			{"/basemap/ext/labels/5/11/17", "not_found", 404}, // below the archive's zooms
			{"/basemap/ext/raster/3/1/1@3x", "invalid_tile", 400},
			{"/basemap/ext/labels/31/0/0", "invalid_tile", 400},
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

// TestIssue27_OperatorVectorBasemapBrowser: in Chromium, the console's map
// over the sample area draws the operator's vector archive as the PNG
// tiles the appliance renders (decoded images from /basemap/ext/raster/
// holding the archive's water colour), shows its attribution, places its
// neighbourhood names with the municipality labels without overlaps (and
// fewer than all of them where they crowd; a screenshot at zoom 12,
// v2-basemap-vector), and axe-core finds no serious
// violation; no request leaves the origin and no CSP violation happens
// (openConsole fails the test on either).
func TestIssue27_OperatorVectorBasemapBrowser(t *testing.T) {
	env := startConsole(t, "--basemap", vectorArchive(t))
	tb := openConsole(t, env)
	signIn(t, tb, env.key)
	goScreen(t, tb, "link")
	waitFor(t, tb, "the drawn vector tiles", `[...document.querySelectorAll('#link-map .basemap-ext img')].filter(i => i.complete && i.naturalWidth === 256 && i.src.includes('/basemap/ext/raster/')).length >= 2`)
	water := eval[int](t, tb, `(() => { let n = 0; const c = document.createElement('canvas'); c.width = c.height = 256; const g = c.getContext('2d');
		for (const i of document.querySelectorAll('#link-map .basemap-ext img')) { if (!i.complete || !i.naturalWidth) continue;
			g.clearRect(0, 0, 256, 256); g.drawImage(i, 0, 0); const d = g.getImageData(0, 0, 256, 256).data;
			for (let k = 0; k < d.length; k += 4) if (d[k] === 0xaa && d[k + 1] === 0xd3 && d[k + 2] === 0xdf) n++; }
		return n; })()`)
	if water < 1000 {
		t.Errorf("%d water-coloured pixels in the drawn tiles", water)
	}
	attr := eval[string](t, tb, `(document.querySelector('#link-map .leaflet-control-attribution') || {}).textContent || ''`)
	if !strings.Contains(attr, "© Test OSM contributors") {
		t.Errorf("attribution %q", attr)
	}
	for _, zoom := range []int{11, 12} { // from the sample view (zoom 10), the south zone stays in view
		tb.run(t, "zoom in", chromedp.Evaluate[chromedp.Void](`document.querySelector('#link-map .leaflet-control-zoom-in').click()`), chromedp.Sleep(700*time.Millisecond))
		waitFor(t, tb, "the basemap's place labels", `document.querySelectorAll('#link-map .ext-label span').length > 0`)
		got := eval[struct {
			N       int      `json:"n"`
			Ext     []string `json:"ext"`
			Overlap []string `json:"overlap"`
		}](t, tb, `(() => { const s = [...document.querySelectorAll('#link-map .muni-label span')];
			const r = s.map(e => e.getBoundingClientRect()); const out = [];
			for (let i = 0; i < r.length; i++) for (let j = i + 1; j < r.length; j++)
				if (r[i].left < r[j].right && r[j].left < r[i].right && r[i].top < r[j].bottom && r[j].top < r[i].bottom) out.push(s[i].textContent + ' / ' + s[j].textContent);
			return { n: s.length, ext: [...document.querySelectorAll('#link-map .ext-label span')].map(e => e.textContent), overlap: out.slice(0, 10) }; })()`)
		t.Logf("zoom %d: %d labels, of the basemap: %v", zoom, got.N, got.Ext)
		if len(got.Overlap) > 0 {
			t.Errorf("zoom %d: overlapping labels: %v", zoom, got.Overlap)
		}
		if slices.Contains(got.Ext, "Rio de Janeiro") {
			t.Errorf("zoom %d: the basemap's Rio de Janeiro is drawn beside the municipality's label", zoom)
		}
		if zoom == 11 && len(got.Ext) >= len(rioPlaces) {
			t.Errorf("zoom 11: all %d crowded neighbourhoods placed: %v", len(rioPlaces), got.Ext)
		}
		if zoom == 12 {
			shot(t, tb, "v2-basemap-vector")
		}
	}
	axe(t, tb)
	var drawn, labels int
	for _, u := range tb.Requests() {
		if strings.Contains(u, "/basemap/ext/raster/") {
			drawn++
		}
		if strings.Contains(u, "/basemap/ext/labels/") {
			labels++
		}
	}
	if drawn == 0 || labels == 0 {
		t.Errorf("%d drawn tile and %d label requests", drawn, labels)
	}
}
