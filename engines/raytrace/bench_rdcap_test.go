package raytrace_test

import (
	"context"
	"testing"

	"linkplan/engines/raytrace"
)

// BenchmarkMapRDCap sizes the raytrace service's pixel cap for a map with
// the reflection–diffraction paths (appliance/raytracing
// MapRDCostFactor = 80: 40 000 / 80 = 500 pixels): it
// computes benchMap's 200×200 map with the service's map defaults
// (power sum, scattering at S = 0.4, clutter beyond the extent) and the
// 25×20 pixels around the transmitter with the reflection–diffraction
// paths added, and reports the CPU seconds of each; the second must not
// exceed the first (measured: 43.9 against 75.9 CPU-s on the shared
// 2-core machine).
func BenchmarkMapRDCap(b *testing.B) {
	s := benchScene(b)
	f := s.Frame()
	full := benchMap(s, 0)
	full.Options.Sum = raytrace.SumPower
	full.Options.DiffuseScattering = 0.4
	full.Options.ClutterBeyondExtent = true
	rd := full
	rd.NX, rd.NY = 25, 20
	rd.SouthWest = f.ToLatLon(7-5*12.5+2.5, -3-5*10+2.5) // centred on the transmitter at (7, −3)
	rd.Options.ReflectionDiffraction = true
	var cpuFull, cpuRD float64
	for i := 0; i < b.N; i++ {
		c0 := cpuSeconds()
		if _, err := s.Map(context.Background(), full); err != nil {
			b.Fatal(err)
		}
		c1 := cpuSeconds()
		if _, err := s.Map(context.Background(), rd); err != nil {
			b.Fatal(err)
		}
		cpuFull += c1 - c0
		cpuRD += cpuSeconds() - c1
	}
	n := float64(b.N)
	b.ReportMetric(cpuFull/n, "cpu-s/default-map")
	b.ReportMetric(cpuRD/n, "cpu-s/rd-map")
	b.Logf("default map 200×200: %.1f CPU-s (%.2f ms a pixel); reflection–diffraction 25×20 around the transmitter: %.1f CPU-s (%.1f ms a pixel)",
		cpuFull/n, 1000*cpuFull/n/40000, cpuRD/n, 1000*cpuRD/n/500)
	if cpuRD > cpuFull {
		b.Errorf("the reflection–diffraction map at the reduced cap costs %.1f CPU-s, more than the default map at the full cap (%.1f)", cpuRD/n, cpuFull/n)
	}
}

// srCapSide is the side of BenchmarkMapSRCap's map: 70×70 = 4 900
// pixels, within 40 000 / MapSRCostFactor (8) = 5 000.
const srCapSide = 70

// BenchmarkMapSRCap sizes the raytrace service's pixel cap for a map with
// the scattering's reflections (appliance/raytracing MapSRCostFactor =
// 8): it computes benchMap's 200×200 map with the service's map defaults
// and srCapSide² pixels around the transmitter with ScatteringReflections
// added, and reports the CPU seconds of each; the second must not exceed
// the first (measured at 100×100 = 10 000 pixels, the cap ÷ 4: 76.5
// against 57.4 CPU-s, 7.65 against 1.44 ms a pixel).
func BenchmarkMapSRCap(b *testing.B) {
	s := benchScene(b)
	f := s.Frame()
	full := benchMap(s, 0)
	full.Options.Sum = raytrace.SumPower
	full.Options.DiffuseScattering = 0.4
	full.Options.ClutterBeyondExtent = true
	sr := full
	sr.NX, sr.NY = srCapSide, srCapSide
	sr.SouthWest = f.ToLatLon(7-5*float64(srCapSide)/2+2.5, -3-5*float64(srCapSide)/2+2.5) // centred on the transmitter at (7, −3)
	sr.Options.ScatteringReflections = true
	var cpuFull, cpuSR float64
	for i := 0; i < b.N; i++ {
		c0 := cpuSeconds()
		if _, err := s.Map(context.Background(), full); err != nil {
			b.Fatal(err)
		}
		c1 := cpuSeconds()
		if _, err := s.Map(context.Background(), sr); err != nil {
			b.Fatal(err)
		}
		cpuFull += c1 - c0
		cpuSR += cpuSeconds() - c1
	}
	n := float64(b.N)
	px := float64(srCapSide * srCapSide)
	b.ReportMetric(cpuFull/n, "cpu-s/default-map")
	b.ReportMetric(cpuSR/n, "cpu-s/sr-map")
	b.Logf("default map 200×200: %.1f CPU-s (%.2f ms a pixel); with the scattering's reflections %d×%d around the transmitter: %.1f CPU-s (%.2f ms a pixel)",
		cpuFull/n, 1000*cpuFull/n/40000, srCapSide, srCapSide, cpuSR/n, 1000*cpuSR/n/px)
	if cpuSR > cpuFull {
		b.Errorf("the map with the scattering's reflections at the reduced cap costs %.1f CPU-s, more than the default map at the full cap (%.1f)", cpuSR/n, cpuFull/n)
	}
}
