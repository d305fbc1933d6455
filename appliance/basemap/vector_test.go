package basemap_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/geojson"

	"linkplan/appliance"
	"linkplan/appliance/basemap"
	"linkplan/appliance/basemap/pmtiles"
	"linkplan/appliance/basemap/pmtiles/pmtilestest"
)

// vecTile is the test's zoom-14 tile over Copacabana.
var vecTile = basemap.TileAt(appliance.LatLon{Lat: -22.97, Lon: -43.19}, 14)

// testMVT is one MVT tile in tile coordinates (extent 4096): water over
// the west half, a major road along y = 3072 from x = 2300 to the east
// edge, a place (Copacabana) at (3000, 1000) and one in the buffer west
// of the tile (left out of the labels), and a layer the style does not
// know (pois).
func testMVT(t testing.TB, gz bool) []byte {
	t.Helper()
	feat := func(g orb.Geometry, p geojson.Properties) *geojson.Feature {
		f := geojson.NewFeature(g)
		f.Properties = p
		return f
	}
	layer := func(name string, fs ...*geojson.Feature) *mvt.Layer {
		fc := geojson.NewFeatureCollection()
		fc.Features = fs
		l := mvt.NewLayer(name, fc)
		l.Extent = 4096
		return l
	}
	ls := mvt.Layers{
		layer("water", feat(orb.Polygon{{{-64, -64}, {2048, -64}, {2048, 4160}, {-64, 4160}, {-64, -64}}}, geojson.Properties{"kind": "ocean"})),
		layer("roads", feat(orb.LineString{{2300, 3072}, {4160, 3072}}, geojson.Properties{"kind": "major_road"})),
		layer("places",
			feat(orb.Point{3000, 1000}, geojson.Properties{"name": "Copacabana", "kind": "neighbourhood"}),
			feat(orb.Point{-40, 1000}, geojson.Properties{"name": "Outside", "kind": "neighbourhood"})),
		layer("pois", feat(orb.Point{100, 100}, geojson.Properties{"name": "A café"})),
	}
	var b []byte
	var err error
	if gz {
		b, err = mvt.MarshalGzipped(ls)
	} else {
		b, err = mvt.Marshal(ls)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func vectorArchive(t testing.TB, comp pmtiles.Compression, tiles []pmtilestest.Tile) *basemap.External {
	t.Helper()
	e, err := basemap.OpenExternal(writeArchive(t, pmtiles.TileMVT, comp, tiles))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

func decodePNG(t testing.TB, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func nrgba(img image.Image, x, y int) color.NRGBA {
	return color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
}

// TestIssue27_VectorBasemapDrawn: a vector archive is drawn by the
// appliance: water pixels are the water colour, the road is drawn where
// its line is (and not beyond its end), land elsewhere is the land colour;
// the same tile gives the same bytes; the labels of the tile hold the
// place inside it and not the one in its buffer; Info says the archive is
// vector and drawn.
func TestIssue27_VectorBasemapDrawn(t *testing.T) {
	ctx := context.Background()
	for _, gz := range []bool{true, false} {
		comp := pmtiles.CompressionGzip
		if !gz {
			comp = pmtiles.CompressionNone
		}
		e := vectorArchive(t, comp, []pmtilestest.Tile{{Z: vecTile.Z, X: vecTile.X, Y: vecTile.Y, Data: testMVT(t, gz)}})
		in := e.Info()
		if !in.Drawn || !in.Rendered || in.Note != basemap.VectorNote || in.TileType != "mvt" || in.DrawnMaxZoom != 14+basemap.MaxOverzoom {
			t.Errorf("info %+v", in)
		}
		img, err := e.RenderedTile(ctx, vecTile, 1, "")
		if err != nil {
			t.Fatal(err)
		}
		p := decodePNG(t, img.PNG)
		if p.Bounds() != image.Rect(0, 0, 256, 256) {
			t.Fatalf("bounds %v", p.Bounds())
		}
		for _, c := range []struct {
			name string
			x, y int
			want color.NRGBA
		}{
			{"water", 64, 128, basemap.VectorWater},
			{"water near its edge", 126, 10, basemap.VectorWater},
			{"road", 200, 192, basemap.MajorColor},
			{"road at the east edge", 255, 192, basemap.MajorColor},
			{"land beside the water", 131, 10, basemap.LandColor},
			{"land before the road's start", 138, 192, basemap.LandColor},
			{"land above the road", 200, 180, basemap.LandColor},
			{"land below the road", 200, 204, basemap.LandColor},
		} {
			if got := nrgba(p, c.x, c.y); got != c.want {
				t.Errorf("gzip %v: %s (%d, %d): %v, want %v", gz, c.name, c.x, c.y, got, c.want)
			}
		}
		// Nothing is drawn outside the features: the north-east quarter is
		// all land.
		for y := 0; y < 170; y++ {
			for x := 132; x < 256; x++ {
				if got := nrgba(p, x, y); got != basemap.LandColor {
					t.Fatalf("pixel (%d, %d) is %v, not land", x, y, got)
				}
			}
		}
		// Deterministic: a second archive (no shared cache) gives the same bytes.
		e2 := vectorArchive(t, comp, []pmtilestest.Tile{{Z: vecTile.Z, X: vecTile.X, Y: vecTile.Y, Data: testMVT(t, gz)}})
		img2, err := e2.RenderedTile(ctx, vecTile, 1, "")
		if err != nil || !bytes.Equal(img.PNG, img2.PNG) {
			t.Errorf("the same tile gave other bytes (%v)", err)
		}
		// Cached, and revalidated without rendering.
		if _, err := e.RenderedTile(ctx, vecTile, 1, ""); err != nil || e.RenderedCacheStats().Hits != 1 {
			t.Errorf("cache %+v %v", e.RenderedCacheStats(), err)
		}
		if nm, err := e.RenderedTile(ctx, vecTile, 1, img.ETag); err != nil || !nm.NotModified || nm.PNG != nil {
			t.Errorf("revalidation %+v %v", nm, err)
		}
		// Labels: the place in the tile, at its position; not the one in
		// the buffer.
		ls, err := e.Labels(ctx, vecTile)
		if err != nil || len(ls) != 1 || ls[0].Name != "Copacabana" || ls[0].Kind != "neighbourhood" {
			t.Fatalf("labels %+v %v", ls, err)
		}
		w, s, ea, n := vecTile.Bounds()
		wantLon := w + (ea-w)*3000.0/4096
		if math.Abs(ls[0].Lon-wantLon) > 1e-5 || ls[0].Lat >= n || ls[0].Lat <= s {
			t.Errorf("label at %v, %v; want lon %v within lat %v..%v", ls[0].Lat, ls[0].Lon, wantLon, s, n)
		}
	}
}

// TestVectorOverzoom: beyond the archive's largest zoom a tile is drawn
// from its ancestor at full resolution (the road sharp and wider, at its
// place within the child), and labels follow; beyond MaxOverzoom, and
// below the archive's zooms, there is no tile.
func TestVectorOverzoom(t *testing.T) {
	ctx := context.Background()
	e := vectorArchive(t, pmtiles.CompressionGzip, []pmtilestest.Tile{{Z: vecTile.Z, X: vecTile.X, Y: vecTile.Y, Data: testMVT(t, true)}})
	// The south-east child at zoom 15 covers x, y 2048..4096 of the tile:
	// the road is along its row 128 from column 31.5; no water.
	se := basemap.Tile{Z: 15, X: 2*vecTile.X + 1, Y: 2*vecTile.Y + 1}
	img, err := e.RenderedTile(ctx, se, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	p := decodePNG(t, img.PNG)
	for _, c := range []struct {
		name string
		x, y int
		want color.NRGBA
	}{
		{"road", 100, 128, basemap.MajorColor},
		{"road, pixel centre 1.5 px off its axis (5.6 px wide at zoom 15)", 100, 129, basemap.MajorColor},
		{"road, pixel centre 1.5 px off its axis, north", 100, 126, basemap.MajorColor},
		{"land", 10, 10, basemap.LandColor},
		{"land before the road", 20, 128, basemap.LandColor},
	} {
		if got := nrgba(p, c.x, c.y); got != c.want {
			t.Errorf("%s (%d, %d): %v, want %v", c.name, c.x, c.y, got, c.want)
		}
	}
	if got := nrgba(p, 100, 125); got == basemap.LandColor || got == basemap.MajorColor {
		t.Errorf("row 125 (2.5 px off the axis: the edge of a 5.6 px road) is %v", got)
	}
	// Retina: twice the pixels.
	if img2, err := e.RenderedTile(ctx, se, 2, ""); err != nil || decodePNG(t, img2.PNG).Bounds().Dx() != 512 || img2.ETag == img.ETag {
		t.Errorf("scale 2: %v", err)
	}
	ne := basemap.Tile{Z: 15, X: 2*vecTile.X + 1, Y: 2 * vecTile.Y}
	if ls, err := e.Labels(ctx, ne); err != nil || len(ls) != 1 || ls[0].Name != "Copacabana" {
		t.Errorf("labels of the north-east child: %+v %v", ls, err)
	}
	if ls, err := e.Labels(ctx, se); err != nil || len(ls) != 0 {
		t.Errorf("labels of the south-east child: %+v %v", ls, err)
	}
	deep := basemap.Tile{Z: 14 + basemap.MaxOverzoom + 1, X: vecTile.X << (basemap.MaxOverzoom + 1), Y: vecTile.Y << (basemap.MaxOverzoom + 1)}
	for _, tl := range []basemap.Tile{deep, {Z: 13, X: vecTile.X / 2, Y: vecTile.Y / 2}, {Z: 14, X: 0, Y: 0}} {
		if _, err := e.RenderedTile(ctx, tl, 1, ""); !errors.Is(err, appliance.ErrNotFound) {
			t.Errorf("tile %s: %v, want not found", tl, err)
		}
	}
	if _, err := e.RenderedTile(ctx, se, 3, ""); !errors.Is(err, appliance.ErrInvalid) {
		t.Errorf("scale 3: %v", err)
	}
}

// TestVectorBroken: a tile that is not MVT, a gzip bomb and a truncated
// tile are unavailable (never a panic); a raster archive has no rendered
// tiles; a brotli archive is described as not drawn.
func TestVectorBroken(t *testing.T) {
	ctx := context.Background()
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	_, _ = zw.Write(make([]byte, basemap.MaxVectorTileBytes+1024))
	_ = zw.Close()
	good := testMVT(t, false)
	for _, c := range []struct {
		name string
		data []byte
		comp pmtiles.Compression
	}{
		{"garbage", []byte("this is not a vector tile, not at all"), pmtiles.CompressionNone},
		{"gzip bomb", bomb.Bytes(), pmtiles.CompressionGzip},
		{"truncated", good[:len(good)/2], pmtiles.CompressionNone},
		{"bad gzip", []byte{0x1f, 0x8b, 1, 2, 3}, pmtiles.CompressionGzip},
	} {
		e := vectorArchive(t, c.comp, []pmtilestest.Tile{{Z: 3, X: 1, Y: 1, Data: c.data}})
		if _, err := e.RenderedTile(ctx, basemap.Tile{Z: 3, X: 1, Y: 1}, 1, ""); !errors.Is(err, appliance.ErrUnavailable) {
			t.Errorf("%s: render %v, want unavailable", c.name, err)
		}
		if _, err := e.Labels(ctx, basemap.Tile{Z: 3, X: 1, Y: 1}); !errors.Is(err, appliance.ErrUnavailable) {
			t.Errorf("%s: labels %v, want unavailable", c.name, err)
		}
	}
	r, err := basemap.OpenExternal(writeArchive(t, pmtiles.TilePNG, 0, []pmtilestest.Tile{{Z: 1, X: 0, Y: 0, Data: []byte("\x89PNG")}}))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.RenderedTile(ctx, basemap.Tile{Z: 1}, 1, ""); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("raster archive: %v", err)
	}
	br := vectorArchive(t, pmtiles.CompressionBrotli, []pmtilestest.Tile{{Z: 0, Data: []byte("br")}})
	if in := br.Info(); in.Drawn || in.Note != basemap.VectorBrotliNote {
		t.Errorf("brotli info %+v", in)
	}
}

// TestVectorGeoTiles: tiles made from WGS84 features by pmtilestest
// (the archive of the binary's tests) draw the water where it is.
func TestVectorGeoTiles(t *testing.T) {
	layers := map[string][]*geojson.Feature{
		"water": {{Type: "Feature", Geometry: orb.Polygon{{{-43.25, -22.95}, {-43.10, -22.95}, {-43.10, -22.85}, {-43.25, -22.85}, {-43.25, -22.95}}},
			Properties: geojson.Properties{"kind": "water"}}},
	}
	tiles, err := pmtilestest.VectorTiles(layers, [4]float64{-43.3, -23, -43, -22.8}, 10, 12)
	if err != nil || len(tiles) == 0 {
		t.Fatalf("%d tiles, %v", len(tiles), err)
	}
	e := vectorArchive(t, pmtiles.CompressionGzip, tiles)
	at := basemap.TileAt(appliance.LatLon{Lat: -22.9, Lon: -43.17}, 12)
	img, err := e.RenderedTile(context.Background(), at, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	p := decodePNG(t, img.PNG)
	w, s, ea, n := at.Bounds()
	px := int((-43.17 - w) / (ea - w) * 256)
	py := int((n - -22.9) / (n - s) * 256) // near enough for a point well inside the water
	if got := nrgba(p, px, py); got != basemap.VectorWater {
		t.Errorf("pixel (%d, %d) %v, want water", px, py, got)
	}
}

// styleMVT is a swatch of the style in one tile (extent 4096): a band of
// each land class across the top, a lake with a river, buildings, and
// one line of each road class, rail, path and boundary below.
func styleMVT(t testing.TB) []byte {
	t.Helper()
	feat := func(g orb.Geometry, p geojson.Properties) *geojson.Feature {
		f := geojson.NewFeature(g)
		f.Properties = p
		return f
	}
	rect := func(x0, y0, x1, y1 float64) orb.Polygon {
		return orb.Polygon{{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}, {x0, y0}}}
	}
	var land []*geojson.Feature
	for i, k := range []string{"farmland", "grass", "residential", "industrial", "hospital", "sand", "wetland", "forest", "park"} {
		x := float64(i) * 4096 / 9
		land = append(land, feat(rect(x, 0, x+4096/9, 700), geojson.Properties{"kind": k}))
	}
	var buildings []*geojson.Feature
	for i := range 6 {
		x := 2300 + float64(i)*280
		buildings = append(buildings, feat(rect(x, 900, x+200, 1300), geojson.Properties{}))
	}
	var roads []*geojson.Feature
	for i, k := range []string{"highway", "major_road", "minor_road", "path"} {
		y := 1800 + float64(i)*450
		roads = append(roads, feat(orb.LineString{{200, y}, {3000, y}, {3900, y + 300}}, geojson.Properties{"kind": k}))
	}
	layer := func(name string, fs ...*geojson.Feature) *mvt.Layer {
		fc := geojson.NewFeatureCollection()
		fc.Features = fs
		l := mvt.NewLayer(name, fc)
		l.Extent = 4096
		return l
	}
	ls := mvt.Layers{
		layer("landuse", land...),
		layer("water", feat(orb.Polygon{{{200, 900}, {1900, 900}, {1900, 1500}, {200, 1500}, {200, 900}}, {{800, 1100}, {800, 1300}, {1200, 1300}, {1200, 1100}, {800, 1100}}}, geojson.Properties{"kind": "lake"}),
			feat(orb.LineString{{1900, 1200}, {2200, 1600}, {2100, 4096}}, geojson.Properties{"kind": "river"})),
		layer("buildings", buildings...),
		layer("roads", roads...),
		layer("transit", feat(orb.LineString{{0, 3700}, {4096, 3600}}, geojson.Properties{"kind": "rail"})),
		layer("boundaries", feat(orb.LineString{{0, 3950}, {4096, 3950}}, geojson.Properties{"kind": "region"})),
	}
	b, err := mvt.MarshalGzipped(ls)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVectorGolden pins the bytes of the style swatch at zoom 15
// (go test ./appliance/basemap -update rewrites it after a deliberate
// change, which must also change vectorRenderVersion); the lake's island
// (a hole) is land.
func TestVectorGolden(t *testing.T) {
	tl := basemap.Tile{Z: 15, X: 12148, Y: 18408}
	e := vectorArchive(t, pmtiles.CompressionGzip, []pmtilestest.Tile{{Z: tl.Z, X: tl.X, Y: tl.Y, Data: styleMVT(t)}})
	img, err := e.RenderedTile(context.Background(), tl, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "TestVectorGolden", "style-z15.png.golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, img.PNG, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(img.PNG, want) {
		t.Fatalf("tile %s: %d bytes differ from the golden %d bytes", tl, len(img.PNG), len(want))
	}
	p := decodePNG(t, img.PNG)
	if got := nrgba(p, 62, 75); got != basemap.LandColor { // the island, 1000/16, 1200/16
		t.Errorf("the lake's island is %v, not land", got)
	}
	if got := nrgba(p, 30, 75); got != basemap.VectorWater {
		t.Errorf("the lake is %v", got)
	}
	if got := nrgba(p, 210, 20); got != basemap.ForestColor { // the forest band, 8th of 9: x 199..227
		t.Errorf("the forest band is %v", got)
	}
}
