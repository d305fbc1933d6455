package basemap_test

import (
	"errors"
	"image"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/basemap"
)

// lonAtCol is the longitude of the centre of pixel column x of t, degrees.
func lonAtCol(t basemap.Tile, x int) float64 {
	world := float64(basemap.TileSizePx) * float64(uint(1)<<t.Z)
	return (float64(t.X*basemap.TileSizePx+x)+0.5)/world*360 - 180
}

// TestIssue27_SurfaceRioCoast: the surface layer over the coast of Rio de
// Janeiro (the embedded sample's S23W044: Guanabara Bay, the ocean off
// Copacabana, the Tijuca massif, and no terrain south of 23° S) draws
// water, void-filled ground and ground without terrain where the terrain
// says so: every pixel is checked against the terrain's own answer
// at its centre (ElevationM and VoidFilledAt, one call each, not the
// renderer's grid), named places have their class, and each class is
// present.
func TestIssue27_SurfaceRioCoast(t *testing.T) {
	ter := rio(t)
	s := newService(t, ter, basemap.Options{Identity: "rio"})
	tl := basemap.TileAt(appliance.LatLon{Lat: -22.95, Lon: -43.2}, 11)
	img, ok := decode(t, tile(t, s, basemap.LayerSurface, tl)).(*image.Paletted)
	if !ok {
		t.Fatal("the surface tile is not a paletted PNG")
	}
	counts, n := map[uint8]int{}, basemap.TileSizePx*basemap.TileSizePx
	for py := 0; py < basemap.TileSizePx; py++ {
		lat := latAtRow(tl, py)
		for px := 0; px < basemap.TileSizePx; px++ {
			p := appliance.LatLon{Lat: lat, Lon: lonAtCol(tl, px)}
			h, err := ter.ElevationM(p)
			has := err == nil
			if err != nil && !errors.Is(err, appliance.ErrTerrainMissing) {
				t.Fatal(err)
			}
			void := false
			if has {
				if void, err = ter.VoidFilledAt(p); err != nil {
					t.Fatal(err)
				}
			}
			want := basemap.SurfaceAt(has, h, void, tl.X*basemap.TileSizePx+px, tl.Y*basemap.TileSizePx+py)
			got := img.ColorIndexAt(px, py)
			if got != want {
				t.Fatalf("pixel (%d, %d) at %v: class %d, the terrain says %d (height %v m, terrain %v, void-filled %v)", px, py, p, got, want, h, has, void)
			}
			counts[got]++
		}
	}
	t.Logf("classes of %d checked pixels: land %d, water %d, void hatch %d, no-data hatch %d", n,
		counts[basemap.SurfaceLand], counts[basemap.SurfaceWater], counts[basemap.SurfaceVoid], counts[basemap.SurfaceNoData])
	if counts[basemap.SurfaceWater] < n/5 || counts[basemap.SurfaceLand] < n/5 || counts[basemap.SurfaceVoid] == 0 || counts[basemap.SurfaceNoData] == 0 {
		t.Errorf("expected water, land, void-filled and no-data pixels on the coast tile: %v", counts)
	}
	// Named places, at zoom 13: their pixel has the class the map should
	// show.
	for _, c := range []struct {
		name string
		p    appliance.LatLon
		want uint8
	}{
		{"Guanabara Bay", appliance.LatLon{Lat: -22.82, Lon: -43.16}, basemap.SurfaceWater},
		{"the ocean off Copacabana", appliance.LatLon{Lat: -22.99, Lon: -43.17}, basemap.SurfaceWater},
		{"Corcovado", appliance.LatLon{Lat: -22.9519, Lon: -43.2105}, basemap.SurfaceLand},
		{"Petrópolis", appliance.LatLon{Lat: -22.505, Lon: -43.178}, basemap.SurfaceLand},
	} {
		z := basemap.TileAt(c.p, 13)
		im := decode(t, tile(t, s, basemap.LayerSurface, z)).(*image.Paletted)
		// The pixel of the point.
		w, _, e, _ := z.Bounds()
		px := int((c.p.Lon - w) / (e - w) * basemap.TileSizePx)
		py := 0
		for py < basemap.TileSizePx-1 && latAtRow(z, py+1) > c.p.Lat {
			py++
		}
		if got := im.ColorIndexAt(px, py); got != c.want {
			t.Errorf("%s: class %d, want %d", c.name, got, c.want)
		}
	}
	// Outside every pack: only the no-data cross-hatch.
	far := decode(t, tile(t, s, basemap.LayerSurface, basemap.TileAt(appliance.LatLon{Lat: -15.8, Lon: -47.9}, 10))).(*image.Paletted)
	for py := range basemap.TileSizePx {
		for px := range basemap.TileSizePx {
			if c := far.ColorIndexAt(px, py); c != basemap.SurfaceLand && c != basemap.SurfaceNoData {
				t.Fatalf("Brasília (no pack): pixel (%d, %d) class %d", px, py, c)
			}
		}
	}
}

// TestSurfaceAt: the classes of SurfaceAt, by case.
func TestSurfaceAt(t *testing.T) {
	for _, c := range []struct {
		name   string
		ok     bool
		h      float64
		void   bool
		gx, gy int
		want   uint8
	}{
		{"measured land", true, 12, false, 0, 0, basemap.SurfaceLand},
		{"sea level is water", true, 0, false, 5, 3, basemap.SurfaceWater},
		{"water even if void-filled", true, 0, true, 0, 0, basemap.SurfaceWater},
		{"void-filled on a hatch line", true, 800, true, 4, 5, basemap.SurfaceVoid},
		{"void-filled between hatch lines", true, 800, true, 4, 6, basemap.SurfaceLand},
		{"no terrain on the / line", false, 0, false, 5, 7, basemap.SurfaceNoData},
		{"no terrain on the \\ line", false, 0, false, 19, 7, basemap.SurfaceNoData},
		{"no terrain between lines", false, 0, false, 1, 2, basemap.SurfaceLand},
		{"below sea level is land", true, -2, false, 0, 0, basemap.SurfaceLand},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := basemap.SurfaceAt(c.ok, c.h, c.void, c.gx, c.gy); got != c.want {
				t.Errorf("got %d, want %d", got, c.want)
			}
		})
	}
}
