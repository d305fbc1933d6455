package basemap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/mvt"
	"github.com/paulmach/orb/geojson"
	"golang.org/x/image/vector"

	"linkplan/appliance/basemap/pmtiles"
	"linkplan/appliance/basemap/pmtiles/pmtilestest"
)

// benchMVT is a dense synthetic city tile (seeded, so the same tile every
// run): a water polygon, landuse, 400 roads of 20 vertices, 1 500
// buildings, and the layers a real tile carries that the style does not
// draw (3 000 POIs, 5 000 house numbers), as in an OpenMapTiles zoom-14
// tile of a city centre.
func benchMVT(tb testing.TB, seed uint64) []byte {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, seed))
	tb.Logf("benchMVT seed %d", seed)
	fc := func(fs []*geojson.Feature) *mvt.Layer {
		c := geojson.NewFeatureCollection()
		c.Features = fs
		l := mvt.NewLayer("", c)
		l.Extent = 4096
		return l
	}
	feat := func(g orb.Geometry, p geojson.Properties) *geojson.Feature {
		f := geojson.NewFeature(g)
		f.Properties = p
		return f
	}
	pt := func() orb.Point { return orb.Point{float64(rng.IntN(4096)), float64(rng.IntN(4096))} }
	var water, landuse, roads, buildings, pois, housenumbers []*geojson.Feature
	water = append(water, feat(orb.Polygon{{{-64, -64}, {1500, -64}, {1200, 4160}, {-64, 4160}, {-64, -64}}}, geojson.Properties{"class": "ocean"}))
	for range 40 {
		p := pt()
		landuse = append(landuse, feat(orb.Polygon{{p, {p[0] + 300, p[1]}, {p[0] + 300, p[1] + 200}, {p[0], p[1] + 200}, p}}, geojson.Properties{"class": []string{"residential", "park", "wood", "industrial"}[rng.IntN(4)]}))
	}
	for range 400 {
		p := pt()
		ls := orb.LineString{p}
		for range 19 {
			p = orb.Point{p[0] + float64(rng.IntN(200)-100), p[1] + float64(rng.IntN(200)-100)}
			ls = append(ls, p)
		}
		roads = append(roads, feat(ls, geojson.Properties{"class": []string{"minor", "minor", "minor", "secondary", "primary", "motorway", "path"}[rng.IntN(7)]}))
	}
	for range 1500 {
		p := pt()
		w, h := float64(10+rng.IntN(40)), float64(10+rng.IntN(40))
		buildings = append(buildings, feat(orb.Polygon{{p, {p[0] + w, p[1]}, {p[0] + w, p[1] + h}, {p[0], p[1] + h}, p}}, geojson.Properties{}))
	}
	for i := range 3000 {
		pois = append(pois, feat(pt(), geojson.Properties{"name": fmt.Sprintf("Place %d", i), "class": "shop"}))
	}
	for i := range 5000 {
		housenumbers = append(housenumbers, feat(pt(), geojson.Properties{"housenumber": fmt.Sprint(i)}))
	}
	ls := mvt.Layers{fc(water), fc(landuse), fc(roads), fc(buildings), fc(pois), fc(housenumbers)}
	for i, n := range []string{"water", "landuse", "transportation", "building", "poi", "housenumber"} {
		ls[i].Name = n
	}
	b, err := mvt.Marshal(ls)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func benchRenderVector(b *testing.B, decodeAll bool) {
	raw := benchMVT(b, 27)
	enc := png.Encoder{BufferPool: &encoderPool{}}
	t := Tile{Z: 14, X: 6074, Y: 9204}
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		img, _, err := renderVector(raw, vectorRender{src: t, t: t, scale: 1, decodeAll: decodeAll})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := encodePNG(&enc, img); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderVectorTile: one dense zoom-14 tile decoded (the drawn
// layers only), drawn and encoded: the cost of a cache miss.
func BenchmarkRenderVectorTile(b *testing.B) { benchRenderVector(b, false) }

// BenchmarkRenderVectorTileNaive: the same, decoding every layer of the
// tile (the POIs and house numbers the style does not draw included).
func BenchmarkRenderVectorTileNaive(b *testing.B) { benchRenderVector(b, true) }

// BenchmarkRenderVectorTileCached: the same tile answered by
// External.RenderedTile from its cache.
func BenchmarkRenderVectorTileCached(b *testing.B) {
	raw := benchMVT(b, 27)
	t := Tile{Z: 14, X: 6074, Y: 9204}
	arch, err := pmtilestest.Write([]pmtilestest.Tile{{Z: t.Z, X: t.X, Y: t.Y, Data: raw}}, pmtilestest.Options{Type: pmtiles.TileMVT})
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "bench.pmtiles")
	if err := os.WriteFile(p, arch, 0o600); err != nil {
		b.Fatal(err)
	}
	e, err := OpenExternal(p)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	if _, err := e.RenderedTile(context.Background(), t, 1, ""); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.RenderedTile(context.Background(), t, 1, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRenderVectorBounds: a tile over the feature bound is refused before
// it is decoded; lines far outside the tile (overzoom, or coordinates at
// a billion) are clipped, so they cost no time.
func TestRenderVectorBounds(t *testing.T) {
	fc := geojson.NewFeatureCollection()
	for range MaxVectorFeatures + 1 {
		fc.Append(geojson.NewFeature(orb.Point{1, 1}))
	}
	l := mvt.NewLayer("buildings", fc)
	l.Extent = 4096
	b, err := mvt.Marshal(mvt.Layers{l})
	if err != nil {
		t.Fatal(err)
	}
	tl := Tile{Z: 14, X: 1, Y: 1}
	if _, _, err := renderVector(b, vectorRender{src: tl, t: tl, scale: 1}); !errors.Is(err, ErrVectorTile) {
		t.Errorf("too many features: %v", err)
	}
	far := geojson.NewFeatureCollection()
	f := geojson.NewFeature(orb.LineString{{-1e9, -1e9}, {1e9, 1e9}, {-1e9, 1e9}})
	f.Properties = geojson.Properties{"kind": "highway"}
	far.Append(f)
	l = mvt.NewLayer("roads", far)
	l.Extent = 4096
	if b, err = mvt.Marshal(mvt.Layers{l}); err != nil {
		t.Fatal(err)
	}
	img, st, err := renderVector(b, vectorRender{src: tl, t: tl, scale: 1})
	if err != nil || st.Features != 1 || img.Bounds().Dx() != 256 {
		t.Errorf("far line: %+v %v", st, err)
	}
}

// FuzzRenderVectorTile: any bytes give a 256-pixel image or an error
// matching ErrVectorTile, never a panic (the decoders also run under
// recover, which would turn one into such an error: a panic reaching the
// fuzzer is a bug of this file).
func FuzzRenderVectorTile(f *testing.F) {
	f.Add(benchMVT(f, 1)[:2000])
	for _, l := range []string{"water", "roads", "places", "buildings"} {
		fc := geojson.NewFeatureCollection()
		g := geojson.NewFeature(orb.Polygon{{{0, 0}, {4096, 0}, {4096, 4096}, {0, 0}}})
		g.Properties = geojson.Properties{"kind": "park", "name": "P"}
		fc.Append(g)
		fc.Append(geojson.NewFeature(orb.LineString{{0, 0}, {100, 4000}}))
		fc.Append(geojson.NewFeature(orb.Point{10, 10}))
		ml := mvt.NewLayer(l, fc)
		ml.Extent = 4096
		b, err := mvt.Marshal(mvt.Layers{ml})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0x1a, 0x05, 0x0a, 0x03, 'a', 'b', 'c'})
	f.Add([]byte{})
	tl := Tile{Z: 14, X: 3, Y: 5}
	f.Fuzz(func(t *testing.T, b []byte) {
		img, _, err := renderVector(b, vectorRender{src: tl, t: Tile{Z: 15, X: 7, Y: 10}, scale: 1})
		if err != nil {
			if !errors.Is(err, ErrVectorTile) {
				t.Fatalf("error %v does not match ErrVectorTile", err)
			}
		} else if img.Bounds().Dx() != 256 || img.Bounds().Dy() != 256 {
			t.Fatalf("image %v", img.Bounds())
		}
		if _, err := vectorLabels(b, vectorRender{src: tl, t: tl}); err != nil && !errors.Is(err, ErrVectorTile) {
			t.Fatalf("labels error %v does not match ErrVectorTile", err)
		}
		if err == nil {
			var buf bytes.Buffer
			if e := png.Encode(&buf, img); e != nil {
				t.Fatal(e)
			}
		}
	})
}

// TestVectorStyleSchemas: the style draws the common classes of the
// Protomaps basemap, OpenMapTiles and Shortbread schemas with the paint
// their meaning asks, from the paint's zoom, and skips what it does not
// know.
func TestVectorStyleSchemas(t *testing.T) {
	poly := orb.Polygon{{{0, 0}, {10, 0}, {10, 10}, {0, 0}}}
	line := orb.LineString{{0, 0}, {10, 10}}
	pt := orb.Point{1, 1}
	for _, c := range []struct {
		name  string
		layer string
		props geojson.Properties
		g     orb.Geometry
		z     int
		want  paint
		ok    bool
	}{
		{"Protomaps ocean", "water", geojson.Properties{"kind": "ocean"}, poly, 5, pWater, true},
		{"Protomaps river line", "water", geojson.Properties{"kind": "river"}, line, 12, pWaterway, true},
		{"Protomaps earth", "earth", geojson.Properties{"kind": "earth"}, poly, 3, pEarth, true},
		{"Protomaps park", "landuse", geojson.Properties{"kind": "park"}, poly, 12, pPark, true},
		{"Protomaps landcover forest", "landcover", geojson.Properties{"kind": "forest"}, poly, 6, pForest, true},
		{"Protomaps highway", "roads", geojson.Properties{"kind": "highway", "kind_detail": "motorway"}, line, 6, pHighway, true},
		{"Protomaps medium road", "roads", geojson.Properties{"kind": "medium_road"}, line, 12, pMajor, true},
		{"Protomaps minor road at 12", "roads", geojson.Properties{"kind": "minor_road"}, line, 12, pMinor, true},
		{"Protomaps minor road at 11", "roads", geojson.Properties{"kind": "minor_road"}, line, 11, 0, false},
		{"Protomaps rail", "transit", geojson.Properties{"kind": "rail"}, line, 12, pRail, true},
		{"Protomaps ferry", "transit", geojson.Properties{"kind": "ferry"}, line, 12, 0, false},
		{"Protomaps country boundary", "boundaries", geojson.Properties{"kind": "country"}, line, 4, pBoundaryCountry, true},
		{"Protomaps building at 14", "buildings", geojson.Properties{"kind": "building"}, poly, 14, pBuilding, true},
		{"Protomaps building at 13", "buildings", geojson.Properties{"kind": "building"}, poly, 13, 0, false},
		{"OpenMapTiles wood", "landcover", geojson.Properties{"class": "wood", "subclass": "forest"}, poly, 10, pForest, true},
		{"OpenMapTiles landuse subclass only", "landcover", geojson.Properties{"class": "x", "subclass": "wetland"}, poly, 10, pWetland, true},
		{"OpenMapTiles national park", "park", geojson.Properties{"class": "national_park"}, poly, 8, pPark, true},
		{"OpenMapTiles park of another class", "park", geojson.Properties{"class": "aboriginal_lands"}, poly, 8, pPark, true},
		{"OpenMapTiles motorway", "transportation", geojson.Properties{"class": "motorway"}, line, 8, pHighway, true},
		{"OpenMapTiles primary", "transportation", geojson.Properties{"class": "primary"}, line, 9, pMajor, true},
		{"OpenMapTiles minor", "transportation", geojson.Properties{"class": "minor"}, line, 14, pMinor, true},
		{"OpenMapTiles path at 14", "transportation", geojson.Properties{"class": "path"}, line, 14, pPath, true},
		{"OpenMapTiles pedestrian area polygon", "transportation", geojson.Properties{"class": "path"}, poly, 14, 0, false},
		{"OpenMapTiles state boundary", "boundary", geojson.Properties{"admin_level": 4.0}, line, 6, pBoundaryRegion, true},
		{"OpenMapTiles city boundary", "boundary", geojson.Properties{"admin_level": 8.0}, line, 12, 0, false},
		{"OpenMapTiles building", "building", geojson.Properties{}, poly, 14, pBuilding, true},
		{"Shortbread ocean", "ocean", geojson.Properties{}, poly, 4, pWater, true},
		{"Shortbread water lines", "water_lines", geojson.Properties{"kind": "stream"}, line, 14, pWaterway, true},
		{"Shortbread streets", "streets", geojson.Properties{"kind": "residential"}, line, 14, pMinor, true},
		{"Shortbread subway (underground)", "streets", geojson.Properties{"kind": "subway"}, line, 14, 0, false},
		{"Shortbread land", "land", geojson.Properties{"kind": "bog"}, poly, 12, pWetland, true},
		{"Shortbread boundary as a string", "boundaries", geojson.Properties{"admin_level": "2"}, line, 4, pBoundaryCountry, true},
		{"a point in a drawn layer", "water", geojson.Properties{}, pt, 10, 0, false},
		{"an unknown landuse", "landuse", geojson.Properties{"kind": "moonbase"}, poly, 10, 0, false},
		{"an unknown layer", "pois", geojson.Properties{"kind": "park"}, poly, 14, 0, false},
		{"places are labels, not drawn", "places", geojson.Properties{"kind": "locality"}, pt, 10, 0, false},
	} {
		got, ok := classify(c.layer, c.props, c.g, c.z)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("%s: paint %d %v, want %d %v", c.name, got, ok, c.want, c.ok)
		}
	}
	for name, want := range map[string]string{"water": "drawn", "places": "labels", "place_labels": "labels", "poi": "", "housenumber": ""} {
		if got := VectorLayerDrawn(name); got != want {
			t.Errorf("VectorLayerDrawn(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestVectorLabelsRank: labels are ordered by class, then by the archive's
// own order (OpenMapTiles' rank, lower first; Protomaps' population_rank,
// higher first), then by name; unnamed points and places shown from a
// larger zoom are left out.
func TestVectorLabelsRank(t *testing.T) {
	fc := geojson.NewFeatureCollection()
	add := func(x, y float64, p geojson.Properties) {
		f := geojson.NewFeature(orb.Point{x, y})
		f.Properties = p
		fc.Append(f)
	}
	add(100, 100, geojson.Properties{"name": "Bairro B", "kind": "neighbourhood"})
	add(200, 100, geojson.Properties{"name": "Bairro A", "kind": "neighbourhood"})
	add(300, 100, geojson.Properties{"name": "Small town", "kind": "locality", "kind_detail": "town", "population_rank": 3.0})
	add(400, 100, geojson.Properties{"name": "Big town", "kind": "locality", "kind_detail": "town", "population_rank": 9.0})
	add(500, 100, geojson.Properties{"name": "Capital", "class": "city", "rank": 1.0})
	add(600, 100, geojson.Properties{"name": "Later", "kind": "locality", "kind_detail": "city", "min_zoom": 15.0})
	add(700, 100, geojson.Properties{"kind": "neighbourhood"})
	add(800, 100, geojson.Properties{"name": "  ", "kind": "neighbourhood"})
	add(900, 100, geojson.Properties{"name": "Somewhere", "kind": "farm"})
	l := mvt.NewLayer("places", fc)
	l.Extent = 4096
	b, err := mvt.Marshal(mvt.Layers{l})
	if err != nil {
		t.Fatal(err)
	}
	tl := Tile{Z: 14, X: 6074, Y: 9204}
	ls, err := vectorLabels(b, vectorRender{src: tl, t: tl})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range ls {
		names = append(names, fmt.Sprintf("%s:%s:%d", l.Name, l.Kind, l.Rank))
	}
	want := "[Capital:city:201 Big town:town:390 Small town:town:396 Bairro A:neighbourhood:650 Bairro B:neighbourhood:650 Somewhere:farm:950]"
	if got := fmt.Sprint(names); got != want {
		t.Errorf("labels %s\nwant   %s", got, want)
	}
}

// TestStrokeNoHoles: a wide line with a turn is solid along its axis, at
// its vertices and ends included (the joins wound against the segments
// would cancel them and leave holes there).
func TestStrokeNoHoles(t *testing.T) {
	for _, w := range []float64{2, 6, 13} {
		c := &canvas{z: vector.NewRasterizer(64, 64), v: view{side: 64, k: 1}}
		pts := [][2]float32{{8.5, 8.5}, {40.5, 8.5}, {40.5, 50.5}, {10.5, 30.5}}
		if err := c.stroke(pts, w); err != nil {
			t.Fatal(err)
		}
		dst := image.NewAlpha(image.Rect(0, 0, 64, 64))
		c.z.Draw(dst, dst.Bounds(), image.Opaque, image.Point{})
		for i := 1; i < len(pts); i++ {
			a, b := pts[i-1], pts[i]
			for s := 0; s <= 20; s++ {
				f := float32(s) / 20
				x, y := int(a[0]+(b[0]-a[0])*f), int(a[1]+(b[1]-a[1])*f)
				if got := dst.AlphaAt(x, y).A; got < 250 {
					t.Errorf("width %g: pixel (%d, %d) on the axis has coverage %d", w, x, y, got)
				}
			}
		}
	}
}
