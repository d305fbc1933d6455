package raytrace_test

import (
	"context"
	"errors"
	"math"
	"math/cmplx"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/radio"
	"linkplan/engines/raytrace"
)

// TestAntennaPatternsBothEnds: the transmitting pattern is read at the
// departure direction and the receiving one at the arrival direction, and
// both gains add to the direct path's gain.
func TestAntennaPatternsBothEnds(t *testing.T) {
	t.Parallel()
	s := emptyScene(t, "")
	opt := raytrace.DefaultOptions()
	opt.GroundReflection = false
	var txAz, rxAz float64
	txPat := func(az, el float64) float64 { txAz = az; return 6 }
	rxPat := func(az, el float64) float64 { rxAz = az; return 3 }
	r, err := s.Point(context.Background(), raytrace.PointRequest{
		Tx: raytrace.Antenna{Pos: rio, HeightM: 20, Pattern: txPat}, Rx: raytrace.Antenna{Pos: east(s.Frame(), 1000), HeightM: 20, Pattern: rxPat},
		FreqMHz: 1800, TxPowerDBm: 30, Options: opt})
	if err != nil {
		t.Fatal(err)
	}
	want := radio.FreeSpaceLossExactDB(1800, 1) - 9
	if math.Abs(r.PathLossDB-want) > 1e-6 || math.Abs(txAz-90) > 1e-6 || math.Abs(rxAz-270) > 1e-6 {
		t.Fatalf("path loss %.4f dB (want %.4f), departure azimuth %g (want 90), arrival pattern read at %g (want 270)", r.PathLossDB, want, txAz, rxAz)
	}
	p := r.Paths[0]
	if math.Abs(p.DepartureAzDeg-90) > 1e-6 || math.Abs(p.ArrivalAzDeg-270) > 1e-6 || math.Abs(p.DelayNs-1000/radio.SpeedOfLightMS*1e9) > 1e-9 {
		t.Fatalf("path %+v", p)
	}
}

// TestWallTransmission: with transmission on, a building between the
// antennas leaves a direct path attenuated by its two walls, each a
// P.2040 slab of the material's thickness at normal incidence.
func TestWallTransmission(t *testing.T) {
	t.Parallel()
	f := raytrace.NewFrame(rio)
	b := appliance.Building{ID: "block", HeightM: 40, HeightSource: appliance.HeightTagged,
		Footprints: []appliance.Footprint{{Outer: []appliance.LatLon{f.ToLatLon(400, -50), f.ToLatLon(420, -50), f.ToLatLon(420, 50), f.ToLatLon(400, 50)}}}}
	s, err := raytrace.NewScene(raytrace.SceneInput{Buildings: []appliance.Building{b}, Origin: rio, Material: "brick"})
	if err != nil {
		t.Fatal(err)
	}
	opt := raytrace.DefaultOptions()
	opt.MaxReflections, opt.Diffraction, opt.GroundReflection, opt.Transmission = 0, false, false, true
	req := raytrace.PointRequest{Tx: raytrace.Antenna{Pos: rio, HeightM: 10}, Rx: raytrace.Antenna{Pos: f.ToLatLon(800, 0), HeightM: 10},
		FreqMHz: 2400, TxPowerDBm: 0, Options: opt}
	r, err := s.Point(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	brick := raytrace.MaterialBrick
	tTE, _ := raytrace.SlabTransmission(brick.Permittivity(2.4), 1, brick.ThicknessM, radio.SpeedOfLightMS/2.4e9)
	want := radio.FreeSpaceLossExactDB(2400, 0.8) - 40*math.Log10(cmplx.Abs(tTE))
	if len(r.Paths) != 1 || r.Paths[0].Kind != "transmission" || r.LOS || math.Abs(r.PathLossDB-want) > 0.01 {
		t.Fatalf("got %.3f dB over %d paths (LOS %v), want %.3f dB (two brick walls of %.2f dB each)", r.PathLossDB, len(r.Paths), r.LOS, want, -20*math.Log10(cmplx.Abs(tTE)))
	}
	opt.Transmission = false
	req.Options = opt
	if r, err = s.Point(context.Background(), req); err != nil || r.Reachable {
		t.Fatalf("without transmission the block stops the only path: reachable %v, %v", r.Reachable, err)
	}
}

// TestThirdOrderTreeBounded: three reflections over a 144-building scene
// would make about two million reflection sequences (7 s and 400 MB per
// transmitter); the trace refuses it with a validation error naming
// max_reflections, and a cancelled context stops the tree's construction.
func TestThirdOrderTreeBounded(t *testing.T) {
	t.Parallel()
	s := cityScene(t, 500, 144, 1000)
	l := benchLinks(s, 1)[0]
	l.Options.MaxReflections = 3
	_, err := s.Point(context.Background(), l)
	var v *appliance.ValidationError
	if !errors.As(err, &v) || !strings.Contains(err.Error(), "max_reflections") {
		t.Fatalf("third order over 144 buildings: %v, want a validation error naming max_reflections", err)
	}
	l.Options.MaxReflections = 2
	if _, err := s.Point(context.Background(), l); err != nil {
		t.Fatalf("second order: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	l.Options.MaxReflections = 3
	if _, err := s.Point(ctx, l); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}
