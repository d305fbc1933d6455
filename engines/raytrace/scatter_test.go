package raytrace_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"linkplan/engines/raytrace"
)

// TestDiffuseScattering checks the walls' diffuse scattering
// (Options.DiffuseScattering, S = 0.4), without and with its reflections
// (Options.ScatteringReflections), on a 50-building scene: reciprocity
// within 0.1 dB on 60 random links, the accelerated engine equal to the
// naive baseline, a map byte-identical at 1 and 2 workers and equal to
// the point answers, and that each only adds power (S = 0 is the engine
// without scattering, the reflections add to it).
func TestDiffuseScattering(t *testing.T) {
	seed := seedFor(t, 41)
	t.Logf("seed %d (set SEED= to change)", seed)
	s := cityScene(t, seed, 50, 400)
	opt := raytrace.DefaultOptions()
	opt.DiffuseScattering = 0.4
	t.Run("scattering", func(t *testing.T) { diffuseScattering(t, s, seed, opt) })
	opt.ScatteringReflections = true
	t.Run("with its reflections", func(t *testing.T) { diffuseScattering(t, s, seed, opt) })
}

func diffuseScattering(t *testing.T, s *raytrace.Scene, seed uint64, opt raytrace.Options) {
	rng := rand.New(rand.NewPCG(seed, 3))
	worst, naiveWorst, gain := 0.0, 0.0, 0.0
	n := 0
	for i := 0; i < 60; i++ {
		a := raytrace.Antenna{Pos: streetPoint(rng, s, 400), HeightM: 1.5 + rng.Float64()*40}
		b := raytrace.Antenna{Pos: streetPoint(rng, s, 400), HeightM: 1.5 + rng.Float64()*10}
		ab, err := s.Point(context.Background(), raytrace.PointRequest{Tx: a, Rx: b, FreqMHz: 1800, TxPowerDBm: 40, Options: opt})
		if err != nil {
			t.Fatal(err)
		}
		ba, err := s.Point(context.Background(), raytrace.PointRequest{Tx: b, Rx: a, FreqMHz: 1800, TxPowerDBm: 40, Options: opt})
		if err != nil {
			t.Fatal(err)
		}
		if ab.Reachable != ba.Reachable || len(ab.Paths) != len(ba.Paths) {
			t.Fatalf("link %d: %d paths one way, %d the other", i, len(ab.Paths), len(ba.Paths))
		}
		if i < 15 {
			nv, err := s.PointNaive(context.Background(), raytrace.PointRequest{Tx: a, Rx: b, FreqMHz: 1800, TxPowerDBm: 40, Options: opt})
			if err != nil {
				t.Fatal(err)
			}
			if nv.Reachable != ab.Reachable || len(nv.Paths) != len(ab.Paths) {
				t.Fatalf("link %d: naive %d paths, accelerated %d", i, len(nv.Paths), len(ab.Paths))
			}
			if ab.Reachable {
				naiveWorst = math.Max(naiveWorst, math.Abs(nv.PathLossDB-ab.PathLossDB))
			}
		}
		if !ab.Reachable {
			continue
		}
		n++
		worst = math.Max(worst, math.Abs(ab.PathLossDB-ba.PathLossDB))
		off := opt
		if opt.ScatteringReflections {
			off.ScatteringReflections = false
		} else {
			off.DiffuseScattering = 0
		}
		r0, err := s.Point(context.Background(), raytrace.PointRequest{Tx: a, Rx: b, FreqMHz: 1800, TxPowerDBm: 40, Options: off})
		if err != nil {
			t.Fatal(err)
		}
		if r0.Reachable {
			gain = math.Max(gain, r0.PathLossDB-ab.PathLossDB)
		}
	}
	t.Logf("diffuse scattering S=0.4 (reflections %v), %d reachable links: reciprocity max %.2e dB, naive max %.2e dB, largest gain over the engine without %s %.1f dB",
		opt.ScatteringReflections, n, worst, naiveWorst, map[bool]string{false: "scattering", true: "them"}[opt.ScatteringReflections], gain)
	if worst > 0.1 {
		t.Errorf("reciprocity broken by %.3f dB", worst)
	}
	if naiveWorst > 1e-9 {
		t.Errorf("the accelerated engine differs from the naive baseline by %g dB", naiveWorst)
	}
	if !(gain > 0) {
		t.Errorf("scattering never added power")
	}
	tx := raytrace.Antenna{Pos: s.Frame().ToLatLon(3, 2), HeightM: 25}
	req := raytrace.MapRequest{Tx: tx, SouthWest: s.Frame().ToLatLon(-100, -100), StepM: 20, NX: 11, NY: 11,
		RxHeightM: 1.5, FreqMHz: 2600, TxPowerDBm: 43, Options: opt, Workers: 1}
	m1, err := s.Map(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	req.Workers = 2
	m2, err := s.Map(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < req.NY; j++ {
		for i := 0; i < req.NX; i++ {
			k := j*req.NX + i
			if math.Float32bits(m1.ReceivedPowerDBm[k]) != math.Float32bits(m2.ReceivedPowerDBm[k]) {
				t.Fatalf("pixel %d differs between 1 and 2 workers", k)
			}
			p, err := s.Point(context.Background(), raytrace.PointRequest{Tx: tx,
				Rx:      raytrace.Antenna{Pos: s.Frame().ToLatLon(-100+20*float64(i), -100+20*float64(j)), HeightM: 1.5},
				FreqMHz: 2600, TxPowerDBm: 43, Options: opt})
			if err != nil {
				t.Fatal(err)
			}
			// equal to float32 precision: the point's receiver goes through
			// WGS84 and back, 1e-10 m from the pixel's centre
			if p.Reachable && math.Abs(float64(m1.ReceivedPowerDBm[k])-p.ReceivedPowerDBm) > 1e-4 {
				t.Fatalf("pixel (%d,%d): map %g dBm, point %g dBm", i, j, m1.ReceivedPowerDBm[k], p.ReceivedPowerDBm)
			}
		}
	}
}
