package raytrace_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/raytrace"
)

// TestAcceleratedEqualsNaive: the pruned image tree, the hierarchy and the
// edge grid change no answer: 40 random links in a 50-building scene give
// the same paths and powers as the naive baseline (every surface sequence,
// every building, every edge), with the default options, with the
// reflection–diffraction paths and with wall transmission (whose crossed
// walls, and the assumed-height buildings that block a direct path, the
// hierarchy finds too), flags and warnings included.
func TestAcceleratedEqualsNaive(t *testing.T) {
	t.Parallel()
	seed := seedFor(t, 24)
	t.Logf("seed %d (set SEED= to change)", seed)
	s := cityScene(t, seed, 50, 400)
	tr := raytrace.DefaultOptions()
	tr.Transmission = true
	for _, c := range []struct {
		name string
		opt  raytrace.Options
	}{{optName(testOptions()[0]), testOptions()[0]}, {optName(testOptions()[1]), testOptions()[1]}, {"transmission", tr}} {
		t.Run(c.name, func(t *testing.T) { acceleratedEqualsNaive(t, s, seed, c.opt) })
	}
}

// testOptions are the default options and those with the
// reflection–diffraction paths.
func testOptions() []raytrace.Options {
	rd := raytrace.DefaultOptions()
	rd.ReflectionDiffraction = true
	return []raytrace.Options{raytrace.DefaultOptions(), rd}
}

func optName(o raytrace.Options) string {
	if o.ReflectionDiffraction {
		return "reflection_diffraction"
	}
	return "default"
}

func acceleratedEqualsNaive(t *testing.T, s *raytrace.Scene, seed uint64, opt raytrace.Options) {
	rng := rand.New(rand.NewPCG(seed, 1))
	worst := 0.0
	paths := 0
	links := 40
	if opt.ReflectionDiffraction {
		links = 12 // the naive reflection–diffraction pairs every wall with every edge
	}
	for i := 0; i < links; i++ {
		req := raytrace.PointRequest{
			Tx:      raytrace.Antenna{Pos: streetPoint(rng, s, 400), HeightM: 1.5 + rng.Float64()*40},
			Rx:      raytrace.Antenna{Pos: streetPoint(rng, s, 400), HeightM: 1.5 + rng.Float64()*10},
			FreqMHz: 2600, TxPowerDBm: 40, Options: opt}
		a, err := s.Point(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.PointNaive(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Paths) != len(b.Paths) || a.Reachable != b.Reachable || a.LOS != b.LOS || a.Flags != b.Flags {
			t.Fatalf("link %d: accelerated %d paths (reachable %v, flags %b), naive %d (reachable %v, flags %b)", i, len(a.Paths), a.Reachable, a.Flags, len(b.Paths), b.Reachable, b.Flags)
		}
		if fmt.Sprint(a.Warnings) != fmt.Sprint(b.Warnings) {
			t.Fatalf("link %d: accelerated warnings %v, naive %v", i, a.Warnings, b.Warnings)
		}
		paths += len(a.Paths)
		if a.Reachable {
			if e := math.Abs(a.PathLossDB - b.PathLossDB); e > worst {
				worst = e
			}
		}
	}
	t.Logf("accelerated vs naive, %d links, %d paths: max |Δ path loss| = %.2e dB", links, paths, worst)
	if worst > 1e-9 {
		t.Errorf("the accelerated engine differs from the naive baseline by %g dB", worst)
	}
}

// TestReciprocity: swapping transmitter and receiver changes the path loss
// by at most 0.1 dB on 200 random links of a 50-building scene (coherent
// sum, every interaction on; the default options and the
// reflection–diffraction paths).
func TestReciprocity(t *testing.T) {
	t.Parallel()
	seed := seedFor(t, 2024)
	t.Logf("seed %d (set SEED= to change)", seed)
	s := cityScene(t, seed, 50, 400)
	for _, opt := range testOptions() {
		t.Run(optName(opt), func(t *testing.T) { reciprocity(t, s, seed, opt) })
	}
}

func reciprocity(t *testing.T, s *raytrace.Scene, seed uint64, base raytrace.Options) {
	rng := rand.New(rand.NewPCG(seed, 2))
	worst := 0.0
	var sum float64
	n := 0
	for i := 0; i < 200; i++ {
		a := raytrace.Antenna{Pos: streetPoint(rng, s, 400), HeightM: 1.5 + rng.Float64()*40}
		b := raytrace.Antenna{Pos: streetPoint(rng, s, 400), HeightM: 1.5 + rng.Float64()*10}
		for _, pol := range []raytrace.Polarization{raytrace.PolVertical, raytrace.PolHorizontal} {
			opt := base
			opt.Polarization = pol
			ab, err := s.Point(context.Background(), raytrace.PointRequest{Tx: a, Rx: b, FreqMHz: 1800, TxPowerDBm: 40, Options: opt})
			if err != nil {
				t.Fatal(err)
			}
			ba, err := s.Point(context.Background(), raytrace.PointRequest{Tx: b, Rx: a, FreqMHz: 1800, TxPowerDBm: 40, Options: opt})
			if err != nil {
				t.Fatal(err)
			}
			if ab.Reachable != ba.Reachable || len(ab.Paths) != len(ba.Paths) {
				t.Fatalf("link %d %s: %d paths one way, %d the other", i, pol, len(ab.Paths), len(ba.Paths))
			}
			if !ab.Reachable {
				continue
			}
			e := math.Abs(ab.PathLossDB - ba.PathLossDB)
			sum += e
			n++
			if e > worst {
				worst = e
			}
		}
	}
	t.Logf("reciprocity, 200 links × 2 polarisations (%d reachable): max |L(a→b) − L(b→a)| = %.2e dB, mean %.2e dB", n, worst, sum/float64(n))
	if worst > 0.1 {
		t.Errorf("reciprocity broken by %.3f dB", worst)
	}
}

// TestAddingBuildingNeverIncreasesLOSPower: with only the direct path
// traced, adding any building to a scene never raises the received power.
func TestAddingBuildingNeverIncreasesLOSPower(t *testing.T) {
	t.Parallel()
	seed := seedFor(t, 7)
	t.Logf("seed %d (set SEED= to change)", seed)
	bs := randomCity(seed, 50, 400)
	rng := rand.New(rand.NewPCG(seed, 3))
	opt := raytrace.DefaultOptions()
	opt.MaxReflections, opt.Diffraction, opt.GroundReflection = 0, false, false
	checked, dropped := 0, 0
	for k := 1; k <= len(bs); k += 7 {
		with, err := raytrace.NewScene(raytrace.SceneInput{Buildings: bs[:k], Origin: rio, GroundHeightM: 10})
		if err != nil {
			t.Fatal(err)
		}
		without, err := raytrace.NewScene(raytrace.SceneInput{Buildings: bs[:k-1], Origin: rio, GroundHeightM: 10})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 30; i++ {
			req := raytrace.PointRequest{
				Tx: raytrace.Antenna{Pos: streetPoint(rng, with, 400), HeightM: 1.5 + rng.Float64()*30},
				Rx: raytrace.Antenna{Pos: streetPoint(rng, with, 400), HeightM: 1.5}, FreqMHz: 3500, TxPowerDBm: 30, Options: opt}
			a, err := with.Point(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			b, err := without.Point(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			pa, pb := math.Inf(-1), math.Inf(-1)
			if a.Reachable {
				pa = a.ReceivedPowerDBm
			}
			if b.Reachable {
				pb = b.ReceivedPowerDBm
			}
			if pa > pb {
				t.Fatalf("adding building %d raised the LOS-only power from %g to %g dBm", k-1, pb, pa)
			}
			if pa < pb {
				dropped++
			}
		}
	}
	t.Logf("LOS-only power over %d links: never raised by a building; lowered (blocked) in %d", checked, dropped)
}

// TestMapEqualsPoint: every pixel of a map equals the point answer at its
// centre, and the map is byte-identical at 1 and 2 workers (the default
// options and the reflection–diffraction paths).
func TestMapEqualsPoint(t *testing.T) {
	t.Parallel()
	s := cityScene(t, 11, 50, 400)
	for _, opt := range testOptions() {
		t.Run(optName(opt), func(t *testing.T) { mapEqualsPoint(t, s, opt) })
	}
}

func mapEqualsPoint(t *testing.T, s *raytrace.Scene, opt raytrace.Options) {
	tx := raytrace.Antenna{Pos: s.Frame().ToLatLon(3, 2), HeightM: 25}
	req := raytrace.MapRequest{Tx: tx, SouthWest: s.Frame().ToLatLon(-150, -150), StepM: 10, NX: 31, NY: 31,
		RxHeightM: 1.5, FreqMHz: 2600, TxPowerDBm: 43, Options: opt, Workers: 1}
	if opt.ReflectionDiffraction { // every receiver lists its own walls: a coarser map
		req.StepM, req.NX, req.NY = 20, 16, 16
	}
	m1, err := s.Map(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	req.Workers = 2
	m2, err := s.Map(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m1.ReceivedPowerDBm {
		if math.Float32bits(m1.ReceivedPowerDBm[i]) != math.Float32bits(m2.ReceivedPowerDBm[i]) || m1.Flags[i] != m2.Flags[i] {
			t.Fatalf("pixel %d differs between 1 and 2 workers", i)
		}
	}
	checked := 0
	for j := 0; j < req.NY; j += 3 {
		for i := 0; i < req.NX; i += 3 {
			p, err := s.Point(context.Background(), raytrace.PointRequest{Tx: tx,
				Rx:      raytrace.Antenna{Pos: s.Frame().ToLatLon(-150+req.StepM*float64(i), -150+req.StepM*float64(j)), HeightM: 1.5},
				FreqMHz: 2600, TxPowerDBm: 43, Options: opt})
			if err != nil {
				t.Fatal(err)
			}
			got := m1.ReceivedPowerDBm[j*req.NX+i]
			if !p.Reachable {
				if !math.IsNaN(float64(got)) {
					t.Fatalf("pixel (%d,%d): map %g, point unreachable", i, j, got)
				}
				continue
			}
			if got != float32(p.ReceivedPowerDBm) {
				t.Fatalf("pixel (%d,%d): map %g dBm, point %g dBm", i, j, got, p.ReceivedPowerDBm)
			}
			checked++
		}
	}
	t.Logf("map %d×%d: 1 and 2 workers byte-identical; %d sampled pixels equal the point answers", req.NX, req.NY, checked)
}

var _ = appliance.LatLon{}
