package raytrace_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"syscall"
	"testing"

	"linkplan/engines/raytrace"
)

// benchScene is the speed benchmark's scene: 1 km × 1 km, 500 buildings.
func benchScene(b testing.TB) *raytrace.Scene { return cityScene(b, 500, 500, 1000) }

// benchMap is the 5 m radio map of the whole block: 200 × 200 = 40 000
// receivers at 1.5 m, a rooftop transmitter at 30 m near the centre, 2
// reflections and first-order diffraction.
func benchMap(s *raytrace.Scene, workers int) raytrace.MapRequest {
	return raytrace.MapRequest{Tx: raytrace.Antenna{Pos: s.Frame().ToLatLon(7, -3), HeightM: 30},
		SouthWest: s.Frame().ToLatLon(-497.5, -497.5), StepM: 5, NX: 200, NY: 200, RxHeightM: 1.5,
		FreqMHz: 3500, TxPowerDBm: 43, Options: raytrace.DefaultOptions(), Workers: workers}
}

func mapHash(m raytrace.MapResult) [32]byte {
	h := sha256.New()
	var buf [4]byte
	for i := range m.ReceivedPowerDBm {
		binary.LittleEndian.PutUint32(buf[:], math.Float32bits(m.ReceivedPowerDBm[i]))
		h.Write(buf[:])
		binary.LittleEndian.PutUint32(buf[:], math.Float32bits(m.RMSDelaySpreadNs[i]))
		h.Write(buf[:])
		h.Write([]byte{m.Flags[i]})
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// BenchmarkMap40k is the 40 000-receiver map (goal: ≤ 60 s on the 2-core
// machine) at GOMAXPROCS workers; it also checks the map is byte-identical
// with one worker.
//
// It reports the wall time per map and the CPU seconds the process used
// (on a shared machine the wall time includes waiting for a core), and
// after the timed runs computes the map once more on one worker and fails
// unless it is byte-identical.
func BenchmarkMap40k(b *testing.B) {
	s := benchScene(b)
	st := s.Stats()
	b.Logf("scene: %d buildings, %d walls, %d roofs, %d edges", st.Buildings, st.Walls, st.Roofs, st.Edges)
	var first [32]byte
	var reachable, los int
	cpu0 := cpuSeconds()
	for i := 0; i < b.N; i++ {
		m, err := s.Map(context.Background(), benchMap(s, 0))
		if err != nil {
			b.Fatal(err)
		}
		h := mapHash(m)
		if i == 0 {
			first = h
			for _, f := range m.Flags {
				if f&raytrace.FlagNoPath == 0 {
					reachable++
				}
				if f&raytrace.FlagLOS != 0 {
					los++
				}
			}
		} else if h != first {
			b.Fatal("the map changed between runs")
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/map")
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/map")
	b.StopTimer()
	one, err := s.Map(context.Background(), benchMap(s, 1))
	if err != nil {
		b.Fatal(err)
	}
	if mapHash(one) != first {
		b.Fatal("the map on one worker differs from the map on GOMAXPROCS workers")
	}
	b.Logf("40 000 pixels: %d reachable, %d LOS; 1 worker and %d workers byte-identical (sha256 %x)", reachable, los, runtime.GOMAXPROCS(0), first[:8])
}

// cpuSeconds is the user+system CPU time of the process, seconds.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// benchLinks are point-to-point requests in the benchmark scene.
func benchLinks(s *raytrace.Scene, n int) []raytrace.PointRequest {
	rng := rand.New(rand.NewPCG(500, 9))
	out := make([]raytrace.PointRequest, n)
	for i := range out {
		out[i] = raytrace.PointRequest{Tx: raytrace.Antenna{Pos: s.Frame().ToLatLon(7, -3), HeightM: 30},
			Rx: raytrace.Antenna{Pos: streetPoint(rng, s, 1000), HeightM: 1.5}, FreqMHz: 3500, TxPowerDBm: 43,
			Options: raytrace.DefaultOptions()}
	}
	return out
}

// BenchmarkPoint is one point-to-point answer (goal: ≤ 200 ms), tree
// built from scratch each time.
func BenchmarkPoint(b *testing.B) {
	s := benchScene(b)
	links := benchLinks(s, 16)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := s.Point(context.Background(), links[i%len(links)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPointNaive is BenchmarkPoint without the acceleration
// structures (the baseline: goal ≥ 20× slower).
func BenchmarkPointNaive(b *testing.B) {
	s := benchScene(b)
	links := benchLinks(s, 16)
	for i := 0; i < b.N; i++ {
		if _, err := s.PointNaive(context.Background(), links[i%len(links)]); err != nil {
			b.Fatal(err)
		}
	}
}

func TestBenchTreeSize(t *testing.T) {
	t.Parallel()
	s := benchScene(t)
	r := benchMap(s, 1)
	t.Logf("tree nodes per order: %v", s.TreeSize(r.Tx, r.Options, 11.5))
}

// BenchmarkPointReflDiffraction is BenchmarkPoint with the
// reflection–diffraction paths and the walls' scattering at S = 0.4 with
// its reflections (the options of linkplan raytrace eval and of link
// jobs; SR=0 in the environment leaves the reflections out).
func BenchmarkPointReflDiffraction(b *testing.B) {
	s := benchScene(b)
	links := benchLinks(s, 16)
	for i := range links {
		links[i].Options.ReflectionDiffraction = true
		links[i].Options.DiffuseScattering = 0.4
		links[i].Options.ScatteringReflections = os.Getenv("SR") != "0"
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := s.Point(context.Background(), links[i%len(links)]); err != nil {
			b.Fatal(err)
		}
	}
}
