package raytrace_test

import (
	"context"
	"math"
	"strings"
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

// TestClutterBeyondExtentWarning: with the clutter on, a path that leaves
// the extent is not "not traced" (raytrace_scene_truncated) but crosses
// the modelled clutter: raytrace_clutter_beyond_extent states its height
// and whether it rests on assumed heights; when the clutter decides a
// path's loss and its height is an assumed one, the receiver carries
// FlagAssumedHeight (raytrace_assumed_heights) though no building of the
// layer lies on its path. Without the clutter the old warning stays; a
// map warns as its pixels do.
func TestClutterBeyondExtentWarning(t *testing.T) {
	t.Parallel()
	bs := []appliance.Building{
		rect("a", -100, -100, -60, -60, 9), rect("b", -20, 40, 20, 100, 9), rect("c", 60, -100, 95, -40, 30),
	}
	bs[0].HeightSource, bs[1].HeightSource = appliance.HeightDefault, appliance.HeightDefault // median 9 m, assumed
	known := append([]appliance.Building(nil), bs...)
	known[0].HeightSource, known[1].HeightSource = appliance.HeightTagged, appliance.HeightTagged
	opt := raytrace.DefaultOptions()
	opt.MaxReflections, opt.Diffraction, opt.GroundReflection = 0, false, false
	clut := opt
	clut.ClutterBeyondExtent = true
	codes := func(ws []appliance.Warning) map[string]string {
		m := map[string]string{}
		for _, w := range ws {
			m[w.Code] = w.Message
		}
		return m
	}
	for _, c := range []struct {
		name        string
		bs          []appliance.Building
		opt         raytrace.Options
		hTx         float64
		wantCode    string
		wantAssumed bool   // FlagAssumedHeight
		wantText    string // in the extent warning's message
	}{
		{"clutter off", bs, opt, 30, raytrace.WarnSceneTruncated, false, "were not traced"},
		{"clutter decides, assumed median", bs, clut, 30, raytrace.WarnClutterBeyondExtent, true, "9.0 m tall, the layer's median building height, which rests on heights assumed"},
		{"ray far above the clutter", bs, clut, 300, raytrace.WarnClutterBeyondExtent, false, "rests on heights assumed"},
		{"clutter decides, known median", known, clut, 30, raytrace.WarnClutterBeyondExtent, false, "rests on buildings' own heights"},
	} {
		s, err := raytrace.NewScene(raytrace.SceneInput{Buildings: c.bs, Origin: rio, GroundHeightM: 0})
		if err != nil {
			t.Fatal(err)
		}
		f := s.Frame()
		tx := raytrace.Antenna{Pos: f.ToLatLon(600, -20), HeightM: c.hTx}
		rx := raytrace.Antenna{Pos: f.ToLatLon(0, -20), HeightM: 1.5}
		r, err := s.Point(context.Background(), raytrace.PointRequest{Tx: tx, Rx: rx, FreqMHz: 1800, Options: c.opt})
		if err != nil {
			t.Fatal(err)
		}
		got := codes(r.Warnings)
		t.Logf("%s: flags %08b, warnings %v", c.name, r.Flags, r.Warnings)
		msg, ok := got[c.wantCode]
		if !ok || !strings.Contains(msg, c.wantText) {
			t.Errorf("%s: warning %s %q, want one saying %q", c.name, c.wantCode, msg, c.wantText)
		}
		if other := raytrace.WarnSceneTruncated; c.wantCode != other && got[other] != "" {
			t.Errorf("%s: also warns %s: %q", c.name, other, got[other])
		}
		if a := r.Flags&raytrace.FlagAssumedHeight != 0; a != c.wantAssumed {
			t.Errorf("%s: FlagAssumedHeight %v, want %v", c.name, a, c.wantAssumed)
		}
		if _, a := got[raytrace.WarnAssumedHeights]; a != c.wantAssumed {
			t.Errorf("%s: raytrace_assumed_heights %v, want %v", c.name, a, c.wantAssumed)
		}
		if c.wantAssumed && !strings.Contains(got[raytrace.WarnAssumedHeights], "clutter beyond the building layer's edge, 9.0 m tall") {
			t.Errorf("%s: the assumed-height warning does not name the clutter: %q", c.name, got[raytrace.WarnAssumedHeights])
		}
		// a map of receivers west of the extent: the same codes, counted
		m, err := s.Map(context.Background(), raytrace.MapRequest{Tx: tx, SouthWest: f.ToLatLon(-10, -30), StepM: 10, NX: 3, NY: 3,
			RxHeightM: 1.5, FreqMHz: 1800, Options: c.opt})
		if err != nil {
			t.Fatal(err)
		}
		mw := codes(m.Warnings)
		if !strings.Contains(mw[c.wantCode], c.wantText) || !strings.Contains(mw[c.wantCode], "(9 of 9 pixels)") {
			t.Errorf("%s: map warning %s %q", c.name, c.wantCode, mw[c.wantCode])
		}
		if c.opt.ClutterBeyondExtent && (m.Clutter.HeightM != 9 || m.Clutter.Assumed != (c.bs[0].HeightSource == appliance.HeightDefault)) {
			t.Errorf("%s: map clutter %+v", c.name, m.Clutter)
		}
		if mo := raytrace.MapWarnings(m.Flags, m.AssumedBuildings, m.Clutter); len(mo) != len(m.Warnings)-len(m.RequestWarnings) {
			t.Errorf("%s: MapWarnings of the parts %v, the map's %v", c.name, mo, m.Warnings)
		}
	}
}
