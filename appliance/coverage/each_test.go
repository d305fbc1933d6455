package coverage

import (
	"context"
	"math"
	"slices"
	"testing"

	"linkplan/appliance"
)

// TestComputeEachMatchesBest: the rasters ComputeEach hands out, in any
// order, are those whose pixel-wise maximum is ComputeBest's map, bit for
// bit, and every pixel of a transmitter's radius is listed once.
func TestComputeEachMatchesBest(t *testing.T) {
	svc, _, _ := newService(t)
	a, b := tijuca(), tijuca()
	b.Tx = appliance.LatLon{Lat: -22.96, Lon: -43.24}
	b.AzimuthDeg = math.NaN()
	reqs := []Request{a, b}
	best, err := svc.ComputeBest(context.Background(), reqs, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	maxv := make([]float32, len(best.Raster.DBm))
	for i := range maxv {
		maxv[i] = float32(math.NaN())
	}
	grid, err := svc.ComputeEach(context.Background(), reqs, []int{1, 0}, Options{Workers: 1}, func(m EachMap) error {
		seen := map[int32]bool{}
		for _, pix := range m.Pixels {
			for _, px := range pix {
				if seen[px] {
					t.Fatalf("site %d: pixel %d listed twice", m.Index, px)
				}
				seen[px] = true
			}
		}
		if len(seen) != m.Summary.InRadiusPixels {
			t.Fatalf("site %d: %d pixels listed, %d in radius", m.Index, len(seen), m.Summary.InRadiusPixels)
		}
		for px, v := range m.Raster.DBm {
			if v == v && !seen[int32(px)] {
				t.Fatalf("site %d: valid pixel %d not listed", m.Index, px)
			}
			if v == v && (maxv[px] != maxv[px] || v > maxv[px]) {
				maxv[px] = v
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if grid.Width != best.Raster.Width || grid.Height != best.Raster.Height || grid.West != best.Raster.West {
		t.Fatalf("grid %+v, best-server grid %+v", *grid, *best.Raster)
	}
	if !slices.EqualFunc(maxv, best.Raster.DBm, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) }) {
		t.Fatal("the maximum of ComputeEach's rasters is not ComputeBest's map")
	}
}
