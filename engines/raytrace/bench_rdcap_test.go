package raytrace_test

import (
	"context"
	"testing"

	"linkplan/engines/raytrace"
)

// BenchmarkMapRDCap sizes the raytrace service's pixel cap for a map with
// the reflection–diffraction paths (appliance/raytracing
// MapRDCostFactor = 80: 40 000 / 80 = 500 pixels): the 25×20 pixels
// around the transmitter with the reflection–diffraction paths against
// the default map (capBench); measured: 43.9 against 75.9 CPU-s on the
// shared 2-core machine.
func BenchmarkMapRDCap(b *testing.B) {
	capBench(b, "reflection–diffraction", 25, 20, func(o *raytrace.Options) { o.ReflectionDiffraction = true })
}

// BenchmarkMapSRCap sizes the raytrace service's pixel cap for a map with
// the scattering's reflections (appliance/raytracing MapSRCostFactor =
// 8: 40 000 / 8 = 5 000 pixels): the 70×70 = 4 900 pixels around the
// transmitter with ScatteringReflections against the default map
// (capBench); measured: 40.8 against 57.6 CPU-s (8.33 against 1.44 ms a
// pixel), and at 100×100 = 10 000 pixels, the cap ÷ 4, 76.5 against
// 57.4 CPU-s.
func BenchmarkMapSRCap(b *testing.B) {
	capBench(b, "the scattering's reflections", 70, 70, func(o *raytrace.Options) { o.ScatteringReflections = true })
}

// capBench computes benchMap's 200×200 map with the service's map
// defaults (power sum, scattering at S = 0.4, clutter beyond the extent)
// and nx×ny pixels around the transmitter with edit applied to those
// options, reports the CPU seconds of each, and fails if the second
// costs more than the first: a map at the reduced cap must cost no more
// than a default map at the full cap.
func capBench(b *testing.B, name string, nx, ny int, edit func(*raytrace.Options)) {
	s := benchScene(b)
	f := s.Frame()
	full := benchMap(s, 0)
	full.Options.Sum = raytrace.SumPower
	full.Options.DiffuseScattering = 0.4
	full.Options.ClutterBeyondExtent = true
	small := full
	small.NX, small.NY = nx, ny
	// centred on the transmitter at (7, −3)
	small.SouthWest = f.ToLatLon(7-5*float64(nx)/2+2.5, -3-5*float64(ny)/2+2.5)
	edit(&small.Options)
	var cpuFull, cpuSmall float64
	for i := 0; i < b.N; i++ {
		c0 := cpuSeconds()
		if _, err := s.Map(context.Background(), full); err != nil {
			b.Fatal(err)
		}
		c1 := cpuSeconds()
		if _, err := s.Map(context.Background(), small); err != nil {
			b.Fatal(err)
		}
		cpuFull += c1 - c0
		cpuSmall += cpuSeconds() - c1
	}
	n := float64(b.N)
	px := float64(nx * ny)
	b.ReportMetric(cpuFull/n, "cpu-s/default-map")
	b.ReportMetric(cpuSmall/n, "cpu-s/capped-map")
	b.Logf("default map 200×200: %.1f CPU-s (%.2f ms a pixel); with %s, %d×%d around the transmitter: %.1f CPU-s (%.2f ms a pixel)",
		cpuFull/n, 1000*cpuFull/n/40000, name, nx, ny, cpuSmall/n, 1000*cpuSmall/n/px)
	if cpuSmall > cpuFull {
		b.Errorf("the map with %s at the reduced cap costs %.1f CPU-s, more than the default map at the full cap (%.1f)", name, cpuSmall/n, cpuFull/n)
	}
}
