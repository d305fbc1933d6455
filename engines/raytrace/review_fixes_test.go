package raytrace_test

import (
	"context"
	"errors"
	"math"
	"math/cmplx"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/raytrace"
)

// pointAt traces one link at 900 MHz between antennas given in the
// scene's frame (x, y, height above the ground, metres).
func pointAt(t *testing.T, s *raytrace.Scene, tx, rx [3]float64, opt raytrace.Options) (raytrace.Result, error) {
	t.Helper()
	f := s.Frame()
	return s.Point(context.Background(), raytrace.PointRequest{
		Tx:      raytrace.Antenna{Pos: f.ToLatLon(tx[0], tx[1]), HeightM: tx[2]},
		Rx:      raytrace.Antenna{Pos: f.ToLatLon(rx[0], rx[1]), HeightM: rx[2]},
		FreqMHz: 900, Options: opt})
}

func sceneOf(t *testing.T, in raytrace.SceneInput) *raytrace.Scene {
	t.Helper()
	if in.Origin == (appliance.LatLon{}) {
		in.Origin = rio
	}
	s, err := raytrace.NewScene(in)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRoofLevelAndFacadeAntennas: an antenna given its building's own
// height stands on the roof (it was inside, below its roof: the link had
// no path and the warning told to raise it), and a receiver on a façade
// line is in front of it whichever side of the footprint it is (the
// half-open point-in-polygon test made the west and south façades
// inside, the east and north ones outside).
func TestRoofLevelAndFacadeAntennas(t *testing.T) {
	s := sceneOf(t, raytrace.SceneInput{Buildings: []appliance.Building{rect("a", 0, 0, 20, 20, 15)}})
	opt := raytrace.DefaultOptions()
	for _, c := range []struct {
		name   string
		tx, rx [3]float64
		los    bool
		reach  bool
	}{
		{"transmitter at the roof's height", [3]float64{10, 10, 15}, [3]float64{100, 10, 30}, true, true},
		{"receiver on the west façade", [3]float64{-50, 10, 10}, [3]float64{0, 10, 1.5}, true, true},
		{"receiver on the east façade", [3]float64{70, 10, 10}, [3]float64{20, 10, 1.5}, true, true},
		{"receiver on the south façade", [3]float64{10, -50, 10}, [3]float64{10, 0, 1.5}, true, true},
		{"receiver on the north façade", [3]float64{10, 70, 10}, [3]float64{10, 20, 1.5}, true, true},
		// behind the building: two roof edges or corners apart, beyond
		// first-order diffraction; unreachable, but not inside
		{"receiver on the west façade, transmitter behind the building", [3]float64{70, 10, 10}, [3]float64{0, 10, 1.5}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := pointAt(t, s, c.tx, c.rx, opt)
			if err != nil {
				t.Fatal(err)
			}
			if r.Reachable != c.reach || r.LOS != c.los || r.Flags&raytrace.FlagInside != 0 {
				t.Errorf("reachable %v (want %v), LOS %v (want %v), flags %b, warnings %v", r.Reachable, c.reach, r.LOS, c.los, r.Flags, r.Warnings)
			}
			for _, w := range r.Warnings {
				if w.Code == raytrace.WarnTxInsideBuilding || w.Code == raytrace.WarnRxInsideBuilding {
					t.Errorf("warning %v", w)
				}
			}
			t.Logf("%.2f dB, %d paths, LOS %v", r.PathLossDB, len(r.Paths), r.LOS)
		})
	}
	// A millimetre below the roof, or inside the footprint, is inside.
	r, err := pointAt(t, s, [3]float64{10, 10, 14.999}, [3]float64{100, 10, 30}, opt)
	if err != nil || r.Reachable || !hasWarning(r.Warnings, raytrace.WarnTxInsideBuilding) {
		t.Errorf("transmitter 1 mm under the roof: %v, reachable %v, warnings %v", err, r.Reachable, r.Warnings)
	}
	if !s.Inside(s.Frame().ToLatLon(0.001, 10), 1.5) || s.Inside(s.Frame().ToLatLon(0, 10), 1.5) || s.Inside(s.Frame().ToLatLon(20, 10), 1.5) {
		t.Error("Inside: the interior is inside, both façades outside")
	}
}

func hasWarning(ws []appliance.Warning, code string) bool {
	for _, w := range ws {
		if w.Code == code {
			return true
		}
	}
	return false
}

// TestCoincidentAntennasRefused: a receiver within one wavelength of the
// transmitter is refused by Point (rx.pos), where the far-field ray model
// does not hold; the direct path was dropped and the reflections alone
// answered, a finite "reachable" loss. A map's receiver there has no path.
func TestCoincidentAntennasRefused(t *testing.T) {
	s := sceneOf(t, raytrace.SceneInput{Buildings: []appliance.Building{rect("a", 0, 0, 20, 20, 15)}})
	_, err := pointAt(t, s, [3]float64{-10, 10, 5}, [3]float64{-10, 10, 5}, raytrace.DefaultOptions())
	var ve *appliance.ValidationError
	if !errors.Is(err, appliance.ErrInvalid) || !errors.As(err, &ve) || !strings.Contains(err.Error(), "rx.pos") || !strings.Contains(err.Error(), "wavelength") {
		t.Fatalf("coincident antennas: %v", err)
	}
	if r, err := pointAt(t, s, [3]float64{-10, 10, 5}, [3]float64{-10, 10, 5.5}, raytrace.DefaultOptions()); err != nil || !r.Reachable {
		t.Errorf("antennas 0.5 m apart at 900 MHz (λ = 0.33 m): %v, %+v", err, r)
	}
	t.Logf("%v", err)
}

// TestSceneHashCoversAnswers: everything that changes an answer changes
// the scene's hash (the worker caches scenes by it): the heightfield's
// shape (a 3×2 and a 2×3 grid of the same heights hashed alike) and a
// building's assumed height (tagged or default, same metres: the flags and
// warnings differ).
func TestSceneHashCoversAnswers(t *testing.T) {
	z := []float64{0, 0, 0, 50, 50, 50}
	terrain := func(nx, ny int) *raytrace.Heightfield {
		return &raytrace.Heightfield{Origin: rio, MinX: -300, MinY: -300, StepM: 200, NX: nx, NY: ny, Z: z}
	}
	b := rect("a", 0, 0, 20, 20, 9)
	assumed := b
	assumed.HeightSource = appliance.HeightDefault
	void := terrain(3, 2)
	void.Void = []bool{false, true, false, false, false, false}
	base := raytrace.SceneInput{Terrain: terrain(3, 2), Buildings: []appliance.Building{b}}
	h0 := sceneOf(t, base).Hash()
	for _, c := range []struct {
		name string
		in   raytrace.SceneInput
	}{
		{"the grid's shape", raytrace.SceneInput{Terrain: terrain(2, 3), Buildings: []appliance.Building{b}}},
		{"a void sample", raytrace.SceneInput{Terrain: void, Buildings: []appliance.Building{b}}},
		{"an assumed height", raytrace.SceneInput{Terrain: terrain(3, 2), Buildings: []appliance.Building{assumed}}},
	} {
		if sceneOf(t, c.in).Hash() == h0 {
			t.Errorf("%s does not change the scene's hash", c.name)
		}
	}
	if sceneOf(t, base).Hash() != h0 {
		t.Error("the same input hashes differently")
	}
}

// TestReflectionBoundaryWithScattering: with diffuse scattering the
// walls' specular reflections keep √(1 − S²) of their field, and so do
// the corner's UTD reflection terms now: the field across the wall's
// reflection shadow boundary is continuous (it jumped by 0.04 dB at
// S = 0.4 and 0.09 dB at S = 0.6), up to S = 1, where walls reflect
// nothing.
func TestReflectionBoundaryWithScattering(t *testing.T) {
	s := sceneOf(t, raytrace.SceneInput{Buildings: []appliance.Building{rect("b", 0, 0, 20, 20, 200)}})
	for _, sc := range []float64{0, 0.4, 0.6, 1} {
		opt := raytrace.DefaultOptions()
		opt.GroundReflection = false
		opt.MaxReflections = 1
		opt.DiffuseScattering = sc
		field := func(y float64) float64 {
			r, err := pointAt(t, s, [3]float64{-50, 10, 10}, [3]float64{-100, y, 10}, opt)
			if err != nil {
				t.Fatal(err)
			}
			var f complex128
			for _, p := range r.Paths {
				if p.Kind != "scattering" {
					f += complex(p.FieldRe, p.FieldIm)
				}
			}
			return 20 * math.Log10(cmplx.Abs(f))
		}
		// the reflection shadow boundary of the corner (0, 20) on x = −100
		across := field(40.001) - field(39.999)
		away := field(39.902) - field(39.9)
		t.Logf("S=%.1f: the ray field across the boundary (2 mm) %+.4f dB, a 2 mm step beside it %+.4f dB", sc, across, away)
		if math.Abs(across) > 0.01 {
			t.Errorf("S=%.1f: the field jumps by %.3f dB across the reflection shadow boundary", sc, across)
		}
	}
}
