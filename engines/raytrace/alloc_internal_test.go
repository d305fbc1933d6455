package raytrace

import (
	"context"
	"math"
	"testing"

	"linkplan/appliance"
)

// TestHotPathAllocatesNothing: tracing one receiver of a map (visibility
// tests, reflection chains of the tree, diffraction over the edge grid)
// allocates nothing once the request's tree and the worker's scratch
// exist, with and without the reflection–diffraction paths, and with the
// walls' scattering and its reflections.
func TestHotPathAllocatesNothing(t *testing.T) {
	origin := appliance.LatLon{Lat: -22.9068, Lon: -43.1729}
	f := NewFrame(origin)
	var bs []appliance.Building
	for k := 0; k < 30; k++ {
		x0, y0 := float64(k%6)*60-180, float64(k/6)*60-150
		fp := appliance.Footprint{Outer: []appliance.LatLon{f.ToLatLon(x0, y0), f.ToLatLon(x0+40, y0), f.ToLatLon(x0+40, y0+35), f.ToLatLon(x0, y0+35)}}
		bs = append(bs, appliance.Building{ID: "b", Footprints: []appliance.Footprint{fp}, HeightM: 10 + float64(k%4)*5, HeightSource: appliance.HeightDefault})
	}
	s, err := NewScene(SceneInput{Buildings: bs, Origin: origin})
	if err != nil {
		t.Fatal(err)
	}
	rd := DefaultOptions()
	rd.ReflectionDiffraction = true
	sr := DefaultOptions()
	sr.DiffuseScattering = 0.4
	sr.ScatteringReflections = true
	for _, opt := range []Options{DefaultOptions(), rd, sr} {
		c, _, _ := s.newCtx(context.Background(), Antenna{Pos: f.ToLatLon(5, 5), HeightM: 25}, nil, 2600, opt, everywhere(1.5), false, false)
		hotPath(t, c, opt)
	}
}

func hotPath(t *testing.T, c *traceCtx, opt Options) {
	w := newWorker(c)
	rxs := []vec3{{-150, 50, 1.5}, {20, -20, 1.5}, {190, 150, 1.5}, {-10, 140, 1.5}}
	for _, rx := range rxs { // warm the worker's growable lists
		var a accum
		w.receiver(rx, &a)
	}
	paths := 0
	allocs := testing.AllocsPerRun(50, func() {
		for _, rx := range rxs {
			var a accum
			w.receiver(rx, &a)
			paths += a.n
		}
	})
	t.Logf("reflection–diffraction %v, scattering reflections %v: %d tree nodes, %d paths per run of 4 receivers: %.0f allocations", opt.ReflectionDiffraction, opt.ScatteringReflections, len(c.tree.nodes), paths/51, allocs)
	if allocs != 0 || math.IsNaN(allocs) {
		t.Errorf("%.0f allocations per run", allocs)
	}
}

// everywhere is the bounds of receivers anywhere at height z (metres in
// the frame).
func everywhere(z float64) rxBounds {
	return rxBounds{lo: vec3{math.Inf(-1), math.Inf(-1), z}, hi: vec3{math.Inf(1), math.Inf(1), z}}
}
