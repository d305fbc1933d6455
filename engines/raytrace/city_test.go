package raytrace_test

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/raytrace"
)

// seedFor returns SEED from the environment, or def; tests print it.
func seedFor(t testing.TB, def uint64) uint64 {
	if v := os.Getenv("SEED"); v != "" {
		if s, err := strconv.ParseUint(v, 10, 64); err == nil {
			return s
		}
	}
	return def
}

// randomCity places n buildings on a sizeM × sizeM block around origin:
// one per cell of a square grid (cells of sizeM/⌈√n⌉ metres, a street of
// at least 8 m between neighbours), rectangles and L shapes of random
// size, 6–40 m tall, every fifth one with an assumed height.
func randomCity(seed uint64, n int, sizeM float64) []appliance.Building {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	f := raytrace.NewFrame(rio)
	cols := 1
	for cols*cols < n {
		cols++
	}
	cell := sizeM / float64(cols)
	var out []appliance.Building
	for k := 0; k < n; k++ {
		i, j := k%cols, k/cols
		x0 := -sizeM/2 + float64(i)*cell + 4 + rng.Float64()*cell*0.2
		y0 := -sizeM/2 + float64(j)*cell + 4 + rng.Float64()*cell*0.2
		w := (cell - 8 - (x0 - (-sizeM/2 + float64(i)*cell + 4))) * (0.5 + 0.5*rng.Float64())
		h := (cell - 8 - (y0 - (-sizeM/2 + float64(j)*cell + 4))) * (0.5 + 0.5*rng.Float64())
		var ring [][2]float64
		if rng.IntN(3) == 0 { // an L
			ring = [][2]float64{{x0, y0}, {x0 + w, y0}, {x0 + w, y0 + h/2}, {x0 + w/2, y0 + h/2}, {x0 + w/2, y0 + h}, {x0, y0 + h}}
		} else {
			ring = [][2]float64{{x0, y0}, {x0 + w, y0}, {x0 + w, y0 + h}, {x0, y0 + h}}
		}
		fp := appliance.Footprint{}
		for _, p := range ring {
			fp.Outer = append(fp.Outer, f.ToLatLon(p[0], p[1]))
		}
		b := appliance.Building{ID: "b/" + strconv.Itoa(k), Footprints: []appliance.Footprint{fp},
			HeightM: 6 + rng.Float64()*34, HeightSource: appliance.HeightTagged}
		if k%5 == 0 {
			b.HeightSource = appliance.HeightDefault
		}
		out = append(out, b)
	}
	return out
}

func cityScene(t testing.TB, seed uint64, n int, sizeM float64) *raytrace.Scene {
	t.Helper()
	s, err := raytrace.NewScene(raytrace.SceneInput{Buildings: randomCity(seed, n, sizeM), Origin: rio, GroundHeightM: 10})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// streetPoint returns a random point in a street (outside every building)
// of a randomCity block.
func streetPoint(rng *rand.Rand, s *raytrace.Scene, sizeM float64) appliance.LatLon {
	for {
		x := (rng.Float64() - 0.5) * sizeM
		y := (rng.Float64() - 0.5) * sizeM
		p := s.Frame().ToLatLon(x, y)
		if !s.Inside(p, 1.5) {
			return p
		}
	}
}
