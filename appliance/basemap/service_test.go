package basemap_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/basemap"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

var update = flag.Bool("update", false, "rewrite the golden tiles under testdata")

// rio returns the embedded Rio de Janeiro sample terrain: SRTM3 tiles
// S23W044 and S22W043.
func rio(tb testing.TB) *terrain.Layered {
	tb.Helper()
	p, err := terrain.OpenBytes(sample.Pack())
	if err != nil {
		tb.Fatal(err)
	}
	return terrain.NewLayered(p)
}

// naive hides the terrain's GridSampler, so that the renderer asks
// ElevationM once per point.
type naive struct{ appliance.Terrain }

func newService(tb testing.TB, ter appliance.Terrain, opt basemap.Options) *basemap.Service {
	tb.Helper()
	if opt.Identity == "" {
		opt.Identity = "test terrain"
	}
	s, err := basemap.New(ter, opt)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func hillshade(tb testing.TB, s *basemap.Service, t basemap.Tile) []byte {
	tb.Helper()
	return tile(tb, s, basemap.LayerHillshade, t)
}

func tile(tb testing.TB, s *basemap.Service, l basemap.Layer, t basemap.Tile) []byte {
	tb.Helper()
	img, err := s.Tile(context.Background(), l, t, "")
	if err != nil {
		tb.Fatalf("tile %s: %v", t, err)
	}
	return img.PNG
}

func decode(tb testing.TB, b []byte) image.Image {
	tb.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		tb.Fatal(err)
	}
	if r := img.Bounds(); r.Dx() != basemap.TileSizePx || r.Dy() != basemap.TileSizePx {
		tb.Fatalf("image %v, want %d×%d", r, basemap.TileSizePx, basemap.TileSizePx)
	}
	return img
}

func alpha(img image.Image, x, y int) uint32 { _, _, _, a := img.At(x, y).RGBA(); return a }

var (
	rioZ12     = basemap.Tile{Z: 12, X: 1556, Y: 2316} // Tijuca massif, Sugarloaf, Guanabara Bay
	packEdgeZ9 = basemap.Tile{Z: 9, X: 194, Y: 288}    // holds the pack's west edge, 44° W
	outsideZ10 = basemap.Tile{Z: 10, X: 375, Y: 557}   // Brasília: no pack there
)

// TestHillshadeGolden pins the bytes of one Rio de Janeiro tile
// (go test ./appliance/basemap -update rewrites it after a deliberate
// change, which must also change renderVersion).
func TestHillshadeGolden(t *testing.T) {
	got := hillshade(t, newService(t, rio(t), basemap.Options{}), rioZ12)
	path := filepath.Join("testdata", "TestHillshadeGolden", "rio-z12-1556-2316.png.golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("tile %s: %d bytes differ from the golden %d bytes", rioZ12, len(got), len(want))
	}
	// What the golden shows: every pixel is on terrain and opaque, the
	// shade spans dark lee slopes to bright sunlit ones, and flat water
	// (Guanabara Bay, height 0) is the flat grey 181.
	img := decode(t, got)
	p, ok := img.(*image.Paletted)
	if !ok {
		t.Fatalf("image %T, want a paletted PNG", img)
	}
	lo, hi, flat := 255, 0, 0
	for _, v := range p.Pix {
		if v == 0 {
			t.Fatal("a transparent pixel inside the pack")
		}
		lo, hi = min(lo, int(v)), max(hi, int(v))
		if v == 181 {
			flat++
		}
	}
	if lo > 60 || hi < 240 || flat < 2000 {
		t.Errorf("shade range %d..%d with %d flat pixels: not a hillshade of Rio", lo, hi, flat)
	}
}

// TestElevationGolden pins the bytes of the same tile's elevation tint
// (-update rewrites it).
func TestElevationGolden(t *testing.T) {
	got := tile(t, newService(t, rio(t), basemap.Options{}), basemap.LayerElevation, rioZ12)
	path := filepath.Join("testdata", "TestElevationGolden", "rio-z12-1556-2316.png.golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("tile %s: %d bytes differ from the golden %d bytes", rioZ12, len(got), len(want))
	}
	// Each pixel has the colour of the height at its centre: compare the
	// terrain's own heights at a few pixel centres with the palette.
	img := decode(t, got)
	ter := rio(t)
	w, _, e, _ := rioZ12.Bounds()
	for _, px := range [][2]int{{0, 0}, {128, 128}, {40, 200}, {255, 255}, {10, 90}} {
		lon := w + (float64(px[0])+0.5)*(e-w)/basemap.TileSizePx
		h, err := ter.ElevationM(appliance.LatLon{Lat: latAtRow(rioZ12, px[1]), Lon: lon})
		if err != nil {
			t.Fatal(err)
		}
		step := (basemap.TintMaxM - basemap.TintMinM) / (basemap.TintSteps - 1)
		level := math.Round(min(max(h-basemap.TintMinM, 0), basemap.TintMaxM-basemap.TintMinM) / step)
		want := basemap.TintColor(basemap.TintMinM + level*step)
		if got := color.NRGBAModel.Convert(img.At(px[0], px[1])).(color.NRGBA); got != want {
			t.Errorf("pixel %v at %.1f m: colour %v, want %v", px, h, got, want)
		}
	}
}

func TestTintColor(t *testing.T) {
	stops := basemap.TintStops()
	for _, tc := range []struct {
		name string
		hM   float64
		want color.NRGBA
	}{
		{"below sea level takes the first colour", -30, stops[0].Color},
		{"sea level", 0, stops[0].Color},
		{"first stop above", 200, stops[1].Color},
		{"halfway between 0 and 200 m", 100, color.NRGBA{R: 0x8c, G: 0xb2, B: 0x68, A: 0xff}},
		{"a stop", 1500, stops[4].Color},
		{"the highest stop", 3000, stops[len(stops)-1].Color},
		{"above the highest stop", 8848, stops[len(stops)-1].Color},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := basemap.TintColor(tc.hM); got != tc.want {
				t.Errorf("TintColor(%g) = %v, want %v", tc.hM, got, tc.want)
			}
		})
	}
	for i := 1; i < len(stops); i++ {
		if stops[i].HeightM <= stops[i-1].HeightM || stops[i].Color.A != 0xff {
			t.Errorf("stop %d: %+v after %+v", i, stops[i], stops[i-1])
		}
	}
}

// TestHillshadeDeterministic: a fresh service gives the same bytes, and
// the grid sampler gives the bytes of one ElevationM call per point.
func TestHillshadeDeterministic(t *testing.T) {
	ter := rio(t)
	for _, tl := range []basemap.Tile{rioZ12, packEdgeZ9, {Z: 15, X: 12450, Y: 18535}, {Z: 6, X: 24, Y: 36}, {Z: 0, X: 0, Y: 0}} {
		t.Run(tl.String(), func(t *testing.T) {
			for _, l := range []basemap.Layer{basemap.LayerHillshade, basemap.LayerElevation} {
				a := tile(t, newService(t, ter, basemap.Options{}), l, tl)
				b := tile(t, newService(t, ter, basemap.Options{}), l, tl)
				c := tile(t, newService(t, naive{ter}, basemap.Options{}), l, tl)
				if !bytes.Equal(a, b) {
					t.Errorf("%s: two renders differ", l)
				}
				if !bytes.Equal(a, c) {
					t.Errorf("%s: the grid sampler and per-point ElevationM give different tiles", l)
				}
			}
		})
	}
}

// TestHillshadeMissingTerrain: pixels whose centre no pack covers are
// transparent, the others opaque; a tile without terrain is the empty
// transparent PNG.
func TestHillshadeMissingTerrain(t *testing.T) {
	ter := rio(t)
	s := newService(t, ter, basemap.Options{})
	for _, l := range []basemap.Layer{basemap.LayerHillshade, basemap.LayerElevation} {
		t.Run(string(l), func(t *testing.T) { missingTerrain(t, s, ter, l) })
	}
}

func missingTerrain(t *testing.T, s *basemap.Service, ter appliance.Terrain, l basemap.Layer) {
	t.Run("tile across the pack's edge", func(t *testing.T) {
		img := decode(t, tile(t, s, l, packEdgeZ9))
		w, _, e, n := packEdgeZ9.Bounds()
		_, sLat, _, _ := packEdgeZ9.Bounds()
		opaque, clear := 0, 0
		for y := range basemap.TileSizePx {
			for x := range basemap.TileSizePx {
				lon := w + (float64(x)+0.5)*(e-w)/basemap.TileSizePx
				// Rows are not linear in latitude: ask the terrain at the
				// tile pixel's own centre instead of guessing.
				lat := latAtRow(packEdgeZ9, y)
				_, err := ter.ElevationM(appliance.LatLon{Lat: lat, Lon: lon})
				a := alpha(img, x, y)
				switch {
				case errors.Is(err, appliance.ErrTerrainMissing) && a != 0:
					t.Fatalf("pixel (%d, %d) at %.5f, %.5f has no terrain but alpha %d", x, y, lat, lon, a)
				case err == nil && a != 0xffff:
					t.Fatalf("pixel (%d, %d) at %.5f, %.5f has terrain but alpha %d", x, y, lat, lon, a)
				case err != nil && !errors.Is(err, appliance.ErrTerrainMissing):
					t.Fatal(err)
				}
				if a == 0 {
					clear++
				} else {
					opaque++
				}
			}
		}
		if opaque == 0 || clear == 0 {
			t.Errorf("%d opaque and %d transparent pixels (tile %g..%g N): want both", opaque, clear, sLat, n)
		}
	})
	for _, tc := range []struct {
		name string
		tile basemap.Tile
	}{
		{"Brasília", outsideZ10},
		{"the north-east of the world", basemap.Tile{Z: 1, X: 1, Y: 0}},
		{"last tile of zoom 15", basemap.Tile{Z: 15, X: 32767, Y: 32767}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tile(t, s, l, tc.tile)
			img := decode(t, b)
			for y := range basemap.TileSizePx {
				for x := range basemap.TileSizePx {
					if a := alpha(img, x, y); a != 0 {
						t.Fatalf("pixel (%d, %d) alpha %d", x, y, a)
					}
				}
			}
			if len(b) > 200 {
				t.Errorf("empty tile is %d bytes", len(b))
			}
		})
	}
}

// latAtRow is the latitude of the centre of pixel row y of t, degrees.
func latAtRow(t basemap.Tile, y int) float64 {
	// The centre of row y of tile t is the north edge of row 2y+1 of the
	// same place at the next zoom, in pixel terms: tile (2^8·2t.Y + 2y+1)
	// at zoom t.Z+9 has its north edge there.
	sub := basemap.Tile{Z: t.Z + 9, X: 0, Y: (t.Y<<9 + 2*y + 1)}
	_, _, _, n := sub.Bounds()
	return n
}

// failing answers like the Rio terrain but fails with a corrupt-tile
// error south of 22.95° S, like a pack whose checksum does not match.
type failing struct{ appliance.Terrain }

var errCorrupt = errors.New("tile S23W044: checksum mismatch")

func (f failing) ElevationM(p appliance.LatLon) (float64, error) {
	if p.Lat < -22.95 {
		return 0, errCorrupt
	}
	return f.Terrain.ElevationM(p)
}

func TestHillshadeTerrainError(t *testing.T) {
	s := newService(t, failing{rio(t)}, basemap.Options{})
	_, err := s.Tile(context.Background(), basemap.LayerHillshade, rioZ12, "")
	if !errors.Is(err, errCorrupt) {
		t.Fatalf("error %v, want the terrain's", err)
	}
	if st := s.CacheStats(); st.Entries != 0 {
		t.Errorf("a failed render was cached: %+v", st)
	}
}

func TestHillshadeCache(t *testing.T) {
	ctx := context.Background()
	ter := rio(t)
	one := len(hillshade(t, newService(t, ter, basemap.Options{}), rioZ12))
	// Room for two Rio tiles and some empty ones, not three Rio tiles.
	s := newService(t, ter, basemap.Options{CacheBytes: int64(2*one + 2*one/3)})
	near := []basemap.Tile{rioZ12, {Z: 12, X: 1555, Y: 2316}, {Z: 12, X: 1556, Y: 2315}}

	steps := []struct {
		name         string
		tile         basemap.Tile
		ifNoneMatch  string
		notModified  bool
		hits, misses uint64
	}{
		{"first request renders", near[0], "", false, 0, 1},
		{"second request hits", near[0], "", false, 1, 1},
		{"another tile renders", near[1], "", false, 1, 2},
		{"revalidation with the ETag renders nothing", near[2], s.ETag(basemap.LayerHillshade), true, 1, 2},
		{"revalidation with a weak ETag", near[2], "W/" + s.ETag(basemap.LayerHillshade), true, 1, 2},
		{"revalidation with another ETag renders", near[2], `"hs0-old"`, false, 1, 3},
		{"the first tile was evicted", near[0], "", false, 1, 4},
		{"the third tile is still cached", near[2], "", false, 2, 4},
	}
	for _, st := range steps {
		img, err := s.Tile(ctx, basemap.LayerHillshade, st.tile, st.ifNoneMatch)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if img.NotModified != st.notModified || (img.PNG == nil) != st.notModified {
			t.Errorf("%s: NotModified %v with %d bytes", st.name, img.NotModified, len(img.PNG))
		}
		if img.ETag != s.ETag(basemap.LayerHillshade) || img.MaxAge != basemap.MaxAge {
			t.Errorf("%s: ETag %s max-age %s", st.name, img.ETag, img.MaxAge)
		}
		if cs := s.CacheStats(); cs.Hits != st.hits || cs.Misses != st.misses {
			t.Errorf("%s: %d hits %d misses, want %d and %d", st.name, cs.Hits, cs.Misses, st.hits, st.misses)
		}
	}
	cs := s.CacheStats()
	if cs.Entries != 2 || cs.Evictions != 2 || cs.Bytes > int64(2*one+2*one/3) {
		t.Errorf("cache %+v: want 2 entries after 2 evictions within the bound", cs)
	}

	t.Run("layers are cached apart", func(t *testing.T) {
		s := newService(t, ter, basemap.Options{})
		hs, el := tile(t, s, basemap.LayerHillshade, rioZ12), tile(t, s, basemap.LayerElevation, rioZ12)
		if bytes.Equal(hs, el) || s.CacheStats().Entries != 2 {
			t.Errorf("hillshade and elevation of one tile: equal %v, cache %+v", bytes.Equal(hs, el), s.CacheStats())
		}
		if !bytes.Equal(tile(t, s, basemap.LayerElevation, rioZ12), el) || s.CacheStats().Hits != 1 {
			t.Errorf("elevation again: cache %+v", s.CacheStats())
		}
		if s.ETag(basemap.LayerHillshade) == s.ETag(basemap.LayerElevation) {
			t.Error("both layers have one ETag")
		}
		img, err := s.Tile(ctx, basemap.LayerElevation, rioZ12, s.ETag(basemap.LayerHillshade))
		if err != nil || img.NotModified {
			t.Errorf("the hillshade ETag revalidated an elevation tile: %+v %v", img.NotModified, err)
		}
	})
	t.Run("ETag follows the terrain identity", func(t *testing.T) {
		a := newService(t, ter, basemap.Options{Identity: "pack A"})
		b := newService(t, ter, basemap.Options{Identity: "pack B"})
		if a.ETag(basemap.LayerHillshade) == b.ETag(basemap.LayerHillshade) || a.ETag(basemap.LayerHillshade) != newService(t, ter, basemap.Options{Identity: "pack A"}).ETag(basemap.LayerHillshade) {
			t.Errorf("ETags %s %s", a.ETag(basemap.LayerHillshade), b.ETag(basemap.LayerHillshade))
		}
	})
	t.Run("a request waiting for a render slot gives up with its context", func(t *testing.T) {
		gate := &blocking{Terrain: ter, entered: make(chan struct{}), release: make(chan struct{})}
		s := newService(t, gate, basemap.Options{MaxRenders: 1})
		done := make(chan error, 1)
		go func() { _, err := s.Tile(ctx, basemap.LayerHillshade, near[0], ""); done <- err }()
		<-gate.entered // the only slot is taken
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := s.Tile(cctx, basemap.LayerHillshade, near[1], ""); !errors.Is(err, context.Canceled) {
			t.Errorf("waiting request: %v, want context.Canceled", err)
		}
		close(gate.release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if _, err := s.Tile(ctx, basemap.LayerHillshade, near[1], ""); err != nil {
			t.Fatalf("after the slot is free: %v", err)
		}
	})
}

// blocking is terrain whose first ElevationM call says so on entered and
// waits for release.
type blocking struct {
	appliance.Terrain
	once             sync.Once
	entered, release chan struct{}
}

func (b *blocking) ElevationM(p appliance.LatLon) (float64, error) {
	b.once.Do(func() { close(b.entered); <-b.release })
	return b.Terrain.ElevationM(p)
}

func TestNewRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		ter  appliance.Terrain
		opt  basemap.Options
	}{
		{"no terrain", nil, basemap.Options{Identity: "x"}},
		{"no identity", rio(t), basemap.Options{}},
		{"blank identity", rio(t), basemap.Options{Identity: "  "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := basemap.New(tc.ter, tc.opt); !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("error %v, want ErrInvalid", err)
			}
		})
	}
	s := newService(t, rio(t), basemap.Options{})
	if _, err := s.Tile(context.Background(), basemap.LayerHillshade, basemap.Tile{Z: 16}, ""); !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("zoom 16: %v", err)
	}
	if _, err := s.Tile(context.Background(), "contours", rioZ12, ""); !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("unknown layer: %v", err)
	}
}

func ExampleService_Tile() {
	p, _ := terrain.OpenBytes(sample.Pack())
	svc, _ := basemap.New(terrain.NewLayered(p), basemap.Options{Identity: "embedded sample"})
	t, _ := basemap.ParseTile("12", "1556", "2316")
	img, _ := svc.Tile(context.Background(), basemap.LayerHillshade, t, "")
	fmt.Println(len(img.PNG) > 1000, img.MaxAge)
	// Output: true 1h0m0s
}

// TestTileConcurrent: many goroutines asking for overlapping tiles of both
// layers through a small cache get the bytes of a serial render, and the
// cache stays within its bound (run with -race).
func TestTileConcurrent(t *testing.T) {
	ter := rio(t)
	serial := newService(t, ter, basemap.Options{})
	var tiles []basemap.Tile
	for dx := range 3 {
		for dy := range 2 {
			tiles = append(tiles, basemap.Tile{Z: 12, X: rioZ12.X - 1 + dx, Y: rioZ12.Y + dy})
		}
	}
	layers := []basemap.Layer{basemap.LayerHillshade, basemap.LayerElevation}
	want := map[string][]byte{}
	for _, l := range layers {
		for _, tl := range tiles {
			want[string(l)+tl.String()] = tile(t, serial, l, tl)
		}
	}
	const bound = 120 << 10 // a handful of tiles: evictions happen
	s := newService(t, ter, basemap.Options{CacheBytes: bound, MaxRenders: 2})
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 24 {
				l, tl := layers[(g+i)%2], tiles[(g*5+i)%len(tiles)]
				img, err := s.Tile(context.Background(), l, tl, "")
				if err != nil {
					errs <- err.Error()
					return
				}
				if !bytes.Equal(img.PNG, want[string(l)+tl.String()]) {
					errs <- fmt.Sprintf("%s %s: bytes differ from the serial render", l, tl)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if st := s.CacheStats(); st.Bytes > bound || st.Evictions == 0 || st.Hits == 0 {
		t.Errorf("cache %+v: want hits and evictions within %d bytes", st, bound)
	}
}
