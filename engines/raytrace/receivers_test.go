package raytrace_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"linkplan/engines/raytrace"
)

// TestReceiversEqualPoint: Receivers answers each receiver as Point does
// (paths aside) and, for a few receivers, builds an image tree of only
// the last-order reflections that reach one of them: 20 receivers alone
// give exactly the answers they get among 300 more (whose request builds
// the whole tree), with the default options, with those of linkplan
// raytrace eval (scattering, its reflections, reflection–diffraction)
// and with 3 reflections, and each is within 1e-9 dB of Point's, flags
// and warnings alike; the 20 receivers' tree is smaller than the whole.
func TestReceiversEqualPoint(t *testing.T) {
	t.Parallel()
	seed := seedFor(t, 77)
	t.Logf("seed %d (set SEED= to change)", seed)
	s := cityScene(t, seed, 30, 300)
	eval := raytrace.DefaultOptions()
	eval.DiffuseScattering, eval.ScatteringReflections, eval.ReflectionDiffraction = 0.4, true, true
	order3 := raytrace.DefaultOptions()
	order3.MaxReflections = 3
	for _, c := range []struct {
		name string
		opt  raytrace.Options
	}{{"default", raytrace.DefaultOptions()}, {"eval options", eval}, {"3 reflections", order3}} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 3))
			tx := raytrace.Antenna{Pos: streetPoint(rng, s, 300), HeightM: 25}
			var rx []raytrace.Antenna
			for range 20 + 300 {
				rx = append(rx, raytrace.Antenna{Pos: streetPoint(rng, s, 300), HeightM: 1.5})
			}
			req := raytrace.ReceiversRequest{Tx: tx, FreqMHz: 2600, TxPowerDBm: 40, Options: c.opt}
			req.Rx = rx[:20]
			few, err := s.Receivers(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			req.Rx = rx
			all, err := s.Receivers(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			worst, reached := 0.0, 0
			for i, a := range few {
				if b := all[i]; fmt.Sprintf("%+v", a) != fmt.Sprintf("%+v", b) {
					t.Fatalf("receiver %d: alone %+v\namong 320 %+v", i, a, b)
				}
				p, err := s.Point(context.Background(), raytrace.PointRequest{Tx: tx, Rx: rx[i], FreqMHz: 2600, TxPowerDBm: 40, Options: c.opt})
				if err != nil {
					t.Fatal(err)
				}
				if a.Reachable != p.Reachable || a.LOS != p.LOS || a.Flags != p.Flags || fmt.Sprint(a.Warnings) != fmt.Sprint(p.Warnings) {
					t.Fatalf("receiver %d: Receivers reachable %v los %v flags %b %v; Point %v %v %b %v", i, a.Reachable, a.LOS, a.Flags, a.Warnings, p.Reachable, p.LOS, p.Flags, p.Warnings)
				}
				if a.Reachable {
					reached++
					worst = max(worst, math.Abs(a.PathLossDB-p.PathLossDB), math.Abs(a.RMSDelaySpreadNs-p.RMSDelaySpreadNs))
				}
			}
			built, whole := s.TreeNodes(tx, c.opt, rx[:20])
			t.Logf("%d of 20 receivers reached; max |Receivers − Point| = %.1e (dB, ns); image tree %d nodes of %d", reached, worst, built, whole)
			if !(built > 0 && built < whole) {
				t.Errorf("the image tree for 20 receivers has %d nodes, the whole tree %d: not pruned", built, whole)
			}
			if reached == 0 || worst > 1e-9 {
				t.Errorf("%d reached, Receivers differs from Point by %g", reached, worst)
			}
		})
	}
}
