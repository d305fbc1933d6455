package terrain_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"linkplan/appliance"
	"linkplan/terrain-packs/terrain"
)

// TestElevationGridM: every height of a grid is, bit for bit, the one
// ElevationM gives at that point, and a point ElevationM calls missing is
// ok false, on random grids over the sample pack and beyond it (seed
// printed), including points on tile edges.
func TestElevationGridM(t *testing.T) {
	second, err := terrain.OpenBytes(mustRead(t, "testdata/v4-voids-crop.ltp"))
	if err != nil {
		t.Fatal(err)
	}
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 11))
	for _, tc := range []struct {
		name string
		l    *terrain.Layered
	}{
		{"one pack", terrain.NewLayered(openSample(t))},
		{"two packs", terrain.NewLayered(second, openSample(t))},
		{"no pack", terrain.NewLayered()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for n := range 30 {
				rows, cols := 1+rng.IntN(40), 1+rng.IntN(40)
				lat0, lon0 := -24+3*rng.Float64(), -45+4*rng.Float64()
				step := 0.2 * rng.Float64() / float64(max(rows, cols))
				lats, lons := make([]float64, rows), make([]float64, cols)
				for i := range lats {
					lats[i] = lat0 + float64(i)*step
				}
				for j := range lons {
					lons[j] = lon0 + float64(j)*step
				}
				if n%3 == 0 { // whole degrees: points on tile edges and corners
					lats[0], lons[0] = math.Round(lat0), math.Round(lon0)
				}
				hs, ok := make([]float64, rows*cols), make([]bool, rows*cols)
				if err := tc.l.ElevationGridM(lats, lons, hs, ok); err != nil {
					t.Fatal(err)
				}
				for i, lat := range lats {
					for j, lon := range lons {
						k := i*cols + j
						h, err := tc.l.ElevationM(appliance.LatLon{Lat: lat, Lon: lon})
						switch {
						case errors.Is(err, appliance.ErrTerrainMissing):
							if ok[k] {
								t.Fatalf("(%g, %g): grid has %g m, ElevationM says missing", lat, lon, hs[k])
							}
						case err != nil:
							t.Fatal(err)
						case !ok[k] || math.Float64bits(h) != math.Float64bits(hs[k]):
							t.Fatalf("(%g, %g): grid %g m (ok %v), ElevationM %g m", lat, lon, hs[k], ok[k], h)
						}
					}
				}
			}
		})
	}
	t.Run("short output", func(t *testing.T) {
		err := terrain.NewLayered(openSample(t)).ElevationGridM([]float64{-22.9, -22.8}, []float64{-43.2}, make([]float64, 1), make([]bool, 2))
		if !errors.Is(err, appliance.ErrInvalid) {
			t.Fatalf("error %v, want ErrInvalid", err)
		}
	})
	t.Run("invalid position", func(t *testing.T) {
		err := terrain.NewLayered(openSample(t)).ElevationGridM([]float64{91}, []float64{-43.2}, make([]float64, 1), make([]bool, 1))
		if !errors.Is(err, appliance.ErrInvalid) {
			t.Fatalf("error %v, want ErrInvalid", err)
		}
	})
}

func mustRead(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
