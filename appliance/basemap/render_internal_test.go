package basemap

import (
	"testing"

	"linkplan/appliance"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

// rio returns the embedded Rio de Janeiro sample terrain.
func rio(tb testing.TB) *terrain.Layered {
	tb.Helper()
	p, err := terrain.OpenBytes(sample.Pack())
	if err != nil {
		tb.Fatal(err)
	}
	return terrain.NewLayered(p)
}

// naive hides the terrain's GridSampler: the renderer then asks
// ElevationM once per point.
type naive struct{ appliance.Terrain }

// rioZ12 is the zoom-12 tile over the Tijuca massif and Sugarloaf.
var rioZ12 = TileAt(appliance.LatLon{Lat: -22.95, Lon: -43.21}, 12)

func benchRender(b *testing.B, ter appliance.Terrain) {
	r, err := newRenderer(ter)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := r.render(LayerHillshade, rioZ12); err != nil { // warm the pack's decoded-tile cache
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.render(LayerHillshade, rioZ12); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderZ12 renders one zoom-12 Rio tile (no tile cache),
// sampling the grid through appliance.GridSampler.
func BenchmarkRenderZ12(b *testing.B) { benchRender(b, rio(b)) }

// BenchmarkRenderZ12Naive is the baseline: the same tile with one
// ElevationM call per point.
func BenchmarkRenderZ12Naive(b *testing.B) { benchRender(b, naive{rio(b)}) }

func benchSample(b *testing.B, ter appliance.Terrain) {
	r, err := newRenderer(ter)
	if err != nil {
		b.Fatal(err)
	}
	s := r.pool.Get().(*scratch)
	world := float64(TileSizePx) * float64(uint(1)<<rioZ12.Z)
	for i := range gridSide {
		s.lons[i] = wrapLon(lonOfX((float64(rioZ12.X*TileSizePx+i-1) + 0.5) / world))
		s.lats[i] = latOfY((float64(rioZ12.Y*TileSizePx+i-1) + 0.5) / world)
	}
	if err := r.sample(s); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := r.sample(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSampleZ12 is the part of BenchmarkRenderZ12 that differs from
// the baseline: the 258×258 heights of the tile through GridSampler.
func BenchmarkSampleZ12(b *testing.B) { benchSample(b, rio(b)) }

// BenchmarkSampleZ12Naive samples the same grid with one ElevationM call
// per point.
func BenchmarkSampleZ12Naive(b *testing.B) { benchSample(b, naive{rio(b)}) }
