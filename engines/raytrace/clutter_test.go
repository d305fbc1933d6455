package raytrace_test

import (
	"context"
	"math"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/radio"
	"linkplan/engines/raytrace"
)

// TestClutterBeyondExtent: with Options.ClutterBeyondExtent the ground
// beyond the building layer's extent carries clutter of the layer's
// median building height. A link inside the extent is unchanged bit for
// bit; a transmitter outside it loses exactly the knife-edge loss J(ν) of
// the clutter edge at the extent's boundary (the most obstructing sample
// for a direct ray rising away from a low receiver), nothing when its ray
// clears the clutter by far, and the loss is the same both ways.
func TestClutterBeyondExtent(t *testing.T) {
	t.Parallel()
	// three buildings (median 12 m) spanning x ∈ [-100, 95], y ∈ [-100, 100]
	bs := []appliance.Building{
		rect("a", -100, -100, -60, -60, 12), rect("b", -20, 40, 20, 100, 12), rect("c", 60, -100, 95, -40, 30),
	}
	bs[2].HeightM = 8 // heights 12, 12, 8: median 12 m
	s, err := raytrace.NewScene(raytrace.SceneInput{Buildings: bs, Origin: rio, GroundHeightM: 0})
	if err != nil {
		t.Fatal(err)
	}
	f := s.Frame()
	opt := raytrace.DefaultOptions()
	opt.MaxReflections, opt.Diffraction, opt.GroundReflection = 0, false, false
	clut := opt
	clut.ClutterBeyondExtent = true
	const freq = 1800.0
	point := func(o raytrace.Options, tx, rx raytrace.Antenna) raytrace.Result {
		r, err := s.Point(context.Background(), raytrace.PointRequest{Tx: tx, Rx: rx, FreqMHz: freq, TxPowerDBm: 0, Options: o})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	rx := raytrace.Antenna{Pos: f.ToLatLon(0, -20), HeightM: 1.5}
	// inside the extent: unchanged
	in := raytrace.Antenna{Pos: f.ToLatLon(-30, 10), HeightM: 20}
	if a, b := point(opt, in, rx), point(clut, in, rx); a.PathLossDB != b.PathLossDB {
		t.Errorf("a link inside the extent changed: %v → %v dB", a.PathLossDB, b.PathLossDB)
	}
	// a transmitter 600 m east at 30 m: the ray to the receiver crosses
	// the boundary x = 95 at 1.5 + 28.5·95/600 ≈ 6 m, below 12 m
	lambda := radio.SpeedOfLightMS / (freq * 1e6)
	for _, c := range []struct {
		name string
		hTx  float64
		want float64 // extra loss, dB; -1: J(ν) of the boundary sample
	}{
		{"30 m mast, ray below the clutter at the boundary", 30, -1},
		{"300 m mast, ray far above the clutter", 300, 0},
	} {
		tx := raytrace.Antenna{Pos: f.ToLatLon(600, -20), HeightM: c.hTx}
		a, b := point(opt, tx, rx), point(clut, tx, rx)
		back := point(clut, rx, tx)
		extra := b.PathLossDB - a.PathLossDB
		want := c.want
		if want < 0 { // the boundary sample: 10 m sampling from the transmitter
			const d = 600.0
			// the nearest sample outside the extent (10 m steps from the
			// transmitter) at d1 from the receiver: x = 100
			d1 := 0.0
			for i := 1; ; i++ {
				x := d - float64(i)*10
				if x <= 95 {
					break
				}
				d1 = x
			}
			ray := 1.5 + (c.hTx-1.5)*d1/d
			nu := (12 - ray) * math.Sqrt(2/lambda*(1/d1+1/(d-d1)))
			want = radio.KnifeEdgeLossApproxDB(nu)
		}
		t.Logf("%s: extra loss %.2f dB (J(ν) %.2f dB), reverse link %.2e dB apart", c.name, extra, want, math.Abs(back.PathLossDB-b.PathLossDB))
		if math.Abs(extra-want) > 1e-6 {
			t.Errorf("%s: extra loss %.3f dB, want %.3f", c.name, extra, want)
		}
		if math.Abs(back.PathLossDB-b.PathLossDB) > 1e-9 {
			t.Errorf("%s: not reciprocal: %.6f vs %.6f dB", c.name, b.PathLossDB, back.PathLossDB)
		}
	}
}
