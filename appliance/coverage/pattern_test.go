package coverage

import (
	"context"
	"math"
	"testing"

	"linkplan/appliance"
)

// centroTower is the real Anatel station 1000029007 (TIM, Rio de Janeiro
// Centro, from the embedded sample), whose ground is 15.2 m in the
// embedded SRTM pack and from which Guanabara Bay lies due east, at sea
// level (0 m), from 2.25 km to 4.5 km.
var centroTower = appliance.LatLon{Lat: -22.904417, Lon: -43.182222}

// TestIssue25_TiltedSectorMainLobe: a sector pointing east over the bay from a 70 m mast
// on the Centro tower's site, tilted 1.5° down, puts its main lobe on the
// water where the geometry says: the tilted map is below the untilted one
// by exactly the vertical pattern loss 12·((θ(D) − 1.5°)/5°)² (at most
// 20 dB) at every water pixel of the boresight radial, with θ(D) the
// angle below the horizontal from the antenna tip (15.2 m ground + 70 m)
// to a receiver 1.5 m above the water at distance D, computed here by
// hand: atan((85.2 − 1.5)/D) + D/(2·k·a). The loss vanishes where
// θ(D) = 1.5°: at d = h/tan(1.5°) = 83.7/0.026186 = 3196 m on a flat
// earth, 3219 m with the 4/3-earth term (solved below), and the pixel of
// least difference lies there. Off the water, elsewhere and behind the
// sector, the maps differ too (the tilt is everywhere); a best-server map
// of the tilted site alone is the single map, pixel for pixel.
func TestIssue25_TiltedSectorMainLobe(t *testing.T) {
	svc, ter, _ := newService(t)
	g0, err := ter.ElevationM(centroTower)
	if err != nil || math.Abs(g0-15.2) > 0.05 {
		t.Fatalf("the Centro tower's ground is %g m (%v), the test assumes 15.2", g0, err)
	}
	const mast, rxH, tilt, vbw = 70.0, 1.5, 1.5, 5.0
	base := Request{Tx: centroTower, TxHeightM: mast, EIRPDBm: 58, AzimuthDeg: 90, FreqMHz: 1800, RadiusM: 5000,
		RxHeightM: rxH, ResolutionM: 30, Engine: appliance.EngineFSPL}
	tilted := base
	rad := appliance.NewGenericRadiator(appliance.GenericSector{VBeamwidthDeg: vbw}, 90, tilt)
	tilted.Radiator = &rad
	flat, err := svc.Compute(context.Background(), base, Options{})
	if err != nil {
		t.Fatal(err)
	}
	down, err := svc.Compute(context.Background(), tilted, Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := g0 + mast - rxH
	kR := 6371000.0 * 4 / 3
	theta := func(d float64) float64 { return (math.Atan(h/d) + d/(2*kR)) * 180 / math.Pi }
	hand := func(d float64) float64 { x := (theta(d) - tilt) / vbw; return math.Min(12*x*x, 20) }
	// d*: θ(d*) = tilt, by bisection on the decreasing θ
	lo, hi := 1000.0, 6000.0
	for range 60 {
		if m := (lo + hi) / 2; theta(m) > tilt {
			lo = m
		} else {
			hi = m
		}
	}
	dStar := (lo + hi) / 2
	if flatEarth := h / math.Tan(tilt*math.Pi/180); math.Abs(flatEarth-3196) > 1 || math.Abs(dStar-3219) > 1 {
		t.Fatalf("geometry: h/tan(tilt) = %.0f m, with the earth term %.0f m", flatEarth, dStar)
	}
	r := flat.Raster
	if down.Raster.Width != r.Width || down.Raster.Height != r.Height {
		t.Fatal("the two maps have different grids")
	}
	// The boresight row: the pixels due east of the transmitter.
	row := int(math.Floor((r.North - centroTower.Lat) / r.PixelLatDeg))
	bestD, bestDiff, checked := 0.0, math.Inf(1), 0
	for col := 0; col < r.Width; col++ {
		c := r.PixelCenter(row, col)
		d := centroTower.DistanceM(c)
		if c.Lon < centroTower.Lon || d < 2400 || d > 4300 {
			continue // the water, away from its shores
		}
		if gnd, err := ter.ElevationM(c); err != nil || gnd != 0 {
			continue
		}
		// the pixel's centre is within half a pixel of the row through
		// the transmitter, so its bearing within 0.5° of east: the
		// horizontal pattern stays below 12·(0.5/65)² = 0.0007 dB
		if b := centroTower.BearingDeg(c); math.Abs(b-90) > 0.5 {
			t.Fatalf("pixel %d bears %g°", col, b)
		}
		diff := float64(flat.Raster.DBm[row*r.Width+col]) - float64(down.Raster.DBm[row*r.Width+col])
		if want := hand(d); math.Abs(diff-want) > 0.05 {
			t.Errorf("%.0f m east: the tilt takes %.3f dB, by hand %.3f dB (θ = %.3f°)", d, diff, want, theta(d))
		}
		if diff < bestDiff {
			bestD, bestDiff = d, diff
		}
		checked++
	}
	if checked < 40 {
		t.Fatalf("only %d water pixels on the boresight", checked)
	}
	if math.Abs(bestD-dStar) > 100 || bestDiff > 0.01 {
		t.Errorf("the main lobe meets the water at %.0f m (%.4f dB), the geometry says %.0f m", bestD, bestDiff, dStar)
	}
	t.Logf("main lobe on the water at %.0f m (geometry %.0f m); %d water pixels checked", bestD, dStar, checked)
	// The vertical pattern acts away from the water too: more loss near
	// the mast (steep angles) than at the lobe.
	if flat.Summary.CoveredKm2AboveThreshold <= down.Summary.CoveredKm2AboveThreshold && flat.Summary.MaxDBm <= down.Summary.MaxDBm {
		t.Errorf("the tilt changed nothing: covered %g vs %g km², max %g vs %g dBm",
			flat.Summary.CoveredKm2AboveThreshold, down.Summary.CoveredKm2AboveThreshold, flat.Summary.MaxDBm, down.Summary.MaxDBm)
	}
	if got := down.Summary.Transmitters[0].Antenna; got != "generic 65° sector, 5° vertical beamwidth, 1.5° mechanical downtilt" {
		t.Errorf("transmitter antenna %q", got)
	}
	// The best-server map of the tilted site alone is the same map.
	best, err := svc.ComputeBest(context.Background(), []Request{tilted}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range best.Raster.DBm {
		if w := down.Raster.DBm[i]; v != w && !(v != v && w != w) {
			t.Fatalf("pixel %d: best-server %g, single map %g", i, v, w)
		}
	}
}

// TestUntiltedSectorUnchanged: a Request without Radiator is the legacy
// generic sector (one loss per radial), and a Radiator without vertical
// pattern (the generic sector of a tower whose tilt is unknown) gives
// the same map bit for bit.
func TestUntiltedSectorUnchanged(t *testing.T) {
	svc, _, _ := newService(t)
	req := tijuca()
	req.RadiusM, req.ResolutionM = 2000, 90
	a, err := svc.Compute(context.Background(), req, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rad := appliance.NewGenericRadiator(appliance.GenericSector{}, req.AzimuthDeg, math.NaN())
	req.Radiator = &rad
	b, err := svc.Compute(context.Background(), req, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Raster.DBm {
		if x, y := a.Raster.DBm[i], b.Raster.DBm[i]; x != y && !(x != x && y != y) {
			t.Fatalf("pixel %d: %g vs %g", i, x, y)
		}
	}
}
