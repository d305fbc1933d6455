package raytrace_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/p1411"
	"linkplan/engines/raytrace"
)

// rect is a building with a rectangular footprint in the frame of rio.
func rect(id string, x0, y0, x1, y1, h float64) appliance.Building {
	f := raytrace.NewFrame(rio)
	fp := appliance.Footprint{Outer: []appliance.LatLon{f.ToLatLon(x0, y0), f.ToLatLon(x1, y0), f.ToLatLon(x1, y1), f.ToLatLon(x0, y1)}}
	return appliance.Building{ID: id, Footprints: []appliance.Footprint{fp}, HeightM: h, HeightSource: appliance.HeightTagged}
}

// TestStreetCanyonAgainstP1411 compares an ideal street canyon (a 20 m
// main street along x between 25 m concrete blocks, crossed at x = 200 m
// by a 20 m side street; transmitter 10 m above the street at x = 0,
// receivers at 1.5 m, 2.6 GHz, power sum) with P.1411's site-specific
// models and prints every figure.
//
// Line of sight: within §4.1.2's stated bounds to 150 m. Farther, the
// perfectly smooth, continuous walls of the ideal canyon guide the power
// (28 paths of order ≤ 2, grazing |R| ≈ 1): the loss falls up to about
// 3 dB below the lower bound, which is free space − 6 dB (the two-ray
// maximum, walls left out); the test holds it within 4 dB of it. Neither
// a grid of 100 m blocks with cross streets every 120 m nor antennas on
// the pavements changes that (−2.1 to −3.3 dB at 600 m), and no sum can:
// the direct ray and the ground's alone reach the bound, and every wall
// image adds to them. Beyond P.1411's own breakpoint (520 m) no scene
// can: the two-ray sum over the bare ground already passes the bound
// there (TestP1411LowerBoundBeyondBreakpoint).
//
// Around the corner (§4.1.3.2), with the engine's defaults (first-order
// corner diffraction and its ground-reflected variants) the loss is 12
// to 19 dB above the median and 0.3 to 7.4 dB above the upper bound. The
// options of linkplan raytrace eval and of link jobs bring it within the
// stated spread at every distance (2 to 6 dB under the upper bound): the
// walls' diffuse scattering at S = 0.4, the reflection–diffraction paths
// (the main street's walls feeding the corner away from grazing
// incidence, the side street's walls guiding the diffracted wave) and
// above all the scattering's reflections: the end walls of the side
// street, at the corner, face the main street square on and are lit by
// the transmitter's images in the main street's walls (Tx–wall–tile–Rx
// and the reverse; Options.ScatteringReflections). Without those the
// corner stays 0.7 to 2.0 dB above the upper bound from 45 to 100 m. The
// test asserts the spread at every distance with those options, holds
// that scattering, the reflection–diffraction paths and the scattering's
// reflections only add power, and prints the variants (reflection order
// 3, polarisation, S = 0.6, wall materials).
func TestStreetCanyonAgainstP1411(t *testing.T) {
	t.Parallel()
	const x0, w, h, f = 200.0, 20.0, 25.0, 2600.0
	bs := []appliance.Building{
		rect("nw", -60, w/2, x0-w/2, 400, h), rect("ne", x0+w/2, w/2, 700, 400, h),
		rect("sw", -60, -400, x0-w/2, -w/2, h), rect("se", x0+w/2, -400, 700, -w/2, h),
	}
	scene := func(material string) *raytrace.Scene {
		s, err := raytrace.NewScene(raytrace.SceneInput{Buildings: bs, Origin: rio, GroundHeightM: 5, Material: material})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := scene("")
	opt := raytrace.DefaultOptions()
	opt.Sum = raytrace.SumPower
	point := func(s *raytrace.Scene, opt raytrace.Options, x, y float64) raytrace.Result {
		tx := raytrace.Antenna{Pos: s.Frame().ToLatLon(0, 0), HeightM: 10}
		r, err := s.Point(context.Background(), raytrace.PointRequest{Tx: tx, Rx: raytrace.Antenna{Pos: s.Frame().ToLatLon(x, y), HeightM: 1.5},
			FreqMHz: f, TxPowerDBm: 0, Options: opt})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	scat := opt
	scat.DiffuseScattering = 0.4
	rdNoSR := scat
	rdNoSR.ReflectionDiffraction = true
	rdScat := rdNoSR // the options of linkplan raytrace eval
	rdScat.ScatteringReflections = true
	losIn, losN := 0, 0
	for _, d := range []float64{20, 30, 50, 75, 100, 150, 250, 300, 400, 500, 600} {
		r := point(s, opt, d, 0)
		re := point(s, rdScat, d, 0)
		ref, err := p1411.StreetCanyonLoS(f, d, 10, 1.5)
		if err != nil {
			t.Fatal(err)
		}
		losN++
		ok := re.PathLossDB >= ref.LowerDB && re.PathLossDB <= ref.UpperDB
		if ok {
			losIn++
		}
		t.Logf("LOS  d=%3.0f m: raytrace %.1f dB (coherent %.1f), with the options of raytrace eval %.1f dB (%d paths); P.1411 §4.1.2 lower %.1f median %.1f upper %.1f: within=%v",
			d, r.PathLossDB, -r.CoherentPowerDBm, re.PathLossDB, len(re.Paths), ref.LowerDB, ref.MedianDB, ref.UpperDB, ok)
		if !r.LOS || !re.LOS {
			t.Errorf("d=%g: the main street is line of sight", d)
		}
		checkCanyon(t, true, d, r.PathLossDB, ref.LowerDB, ref.MedianDB, ref.UpperDB)
		checkCanyon(t, true, d, re.PathLossDB, ref.LowerDB, ref.MedianDB, ref.UpperDB)
	}
	nlosIn, nlosN := 0, 0
	for _, x2 := range []float64{45, 60, 80, 100, 130, 160, 200, 250} {
		r := point(s, opt, x0, x2)
		rs := point(s, scat, x0, x2)
		rn := point(s, rdNoSR, x0, x2)
		rr := point(s, rdScat, x0, x2)
		ref, err := p1411.StreetCanyonNLoSCorner(f, x0, x2, w, 10, 1.5)
		if err != nil {
			t.Fatal(err)
		}
		nlosN++
		ok := rr.Reachable && rr.PathLossDB >= ref.LowerDB && rr.PathLossDB <= ref.UpperDB
		if ok {
			nlosIn++
		}
		t.Logf("NLOS x2=%3.0f m: raytrace %.1f dB (%d paths), with scattering S=0.4 %.1f dB, and reflection–diffraction %.1f dB, and the scattering's reflections %.1f dB (%d paths, %+.1f dB from the upper bound); P.1411 §4.1.3.2 lower %.1f median %.1f upper %.1f: within=%v",
			x2, r.PathLossDB, len(r.Paths), rs.PathLossDB, rn.PathLossDB, rr.PathLossDB, len(rr.Paths), rr.PathLossDB-ref.UpperDB, ref.LowerDB, ref.MedianDB, ref.UpperDB, ok)
		if r.LOS || !r.Reachable {
			t.Errorf("x2=%g: the side street is reachable but not line of sight", x2)
		}
		for _, step := range []struct {
			name          string
			before, after float64
		}{{"scattering", r.PathLossDB, rs.PathLossDB}, {"the reflection–diffraction paths", rs.PathLossDB, rn.PathLossDB}, {"the scattering's reflections", rn.PathLossDB, rr.PathLossDB}} {
			if step.after > step.before+1e-9 {
				t.Errorf("x2=%g: %s lowered the received power (%.2f > %.2f dB)", x2, step.name, step.after, step.before)
			}
		}
		for _, v := range []float64{r.PathLossDB, rs.PathLossDB, rn.PathLossDB, rr.PathLossDB} {
			checkCanyon(t, false, x2, v, ref.LowerDB, ref.MedianDB, ref.UpperDB)
		}
		// the stated spread, with the options of raytrace eval
		if !ok {
			t.Errorf("NLOS x2=%g: %.1f dB outside P.1411's spread [%.1f, %.1f]", x2, rr.PathLossDB, ref.LowerDB, ref.UpperDB)
		}
	}
	t.Logf("street canyon, the options of raytrace eval: LOS %d/%d and one-corner NLOS %d/%d within P.1411's stated spread", losIn, losN, nlosIn, nlosN)
	// what the corner gap depends on: loss above §4.1.3.2's upper bound, dB
	rd := opt
	rd.ReflectionDiffraction = true
	rd3 := rdScat
	rd3.MaxReflections = 3
	rdH := rdScat
	rdH.Polarization = raytrace.PolHorizontal
	rd6 := rdScat
	rd6.DiffuseScattering = 0.6
	hpol, order3 := opt, opt
	hpol.Polarization = raytrace.PolHorizontal
	order3.MaxReflections = 3
	for _, v := range []struct {
		name string
		s    *raytrace.Scene
		opt  raytrace.Options
	}{
		{"default", s, opt}, {"scattering S=0.4", s, scat}, {"3 reflections", s, order3},
		{"refl-diffraction", s, rd}, {"refl-diffraction + S=0.4", s, rdNoSR}, {"the eval options (+ scatt. refl.)", s, rdScat}, {"the eval options, order 3", s, rd3}, {"the eval options, horizontal", s, rdH}, {"the eval options, S=0.6", s, rd6},
		{"horizontal polarisation", s, hpol}, {"metal walls", scene("metal"), opt},
		{"glass walls", scene("glass"), opt}, {"brick walls", scene("brick"), opt},
	} {
		line := ""
		for _, x2 := range []float64{45, 80, 130, 250} {
			ref, _ := p1411.StreetCanyonNLoSCorner(f, x0, x2, w, 10, 1.5)
			line += fmt.Sprintf(" x2=%g: %+.1f", x2, point(v.s, v.opt, x0, x2).PathLossDB-ref.UpperDB)
		}
		t.Logf("corner, %-32s above the upper bound:%s dB", v.name, line)
	}
	// the line-of-sight tail: loss above §4.1.2's lower bound (negative:
	// more optimistic) beyond 150 m, where the smooth walls guide the power
	for _, v := range []struct {
		name string
		opt  raytrace.Options
	}{{"default", opt}, {"scattering S=0.4", scat}, {"the eval options", rdScat}, {"the eval options, S=0.6", rd6}} {
		line := ""
		for _, d := range []float64{250, 400, 500, 600} {
			ref, _ := p1411.StreetCanyonLoS(f, d, 10, 1.5)
			line += fmt.Sprintf(" d=%g: %+.1f", d, point(s, v.opt, d, 0).PathLossDB-ref.LowerDB)
		}
		t.Logf("LOS tail, %-25s above the lower bound:%s dB", v.name, line)
	}
}

func checkCanyon(t *testing.T, los bool, d, got float64, lower, median, upper float64) {
	t.Helper()
	switch {
	case los && d <= 150 && (got < lower || got > upper):
		t.Errorf("LOS d=%g: %.1f dB outside P.1411's bounds [%.1f, %.1f]", d, got, lower, upper)
	case los && (got < lower-4 || got > upper):
		t.Errorf("LOS d=%g: %.1f dB more than 4 dB below P.1411's lower bound %.1f or above %.1f", d, got, lower, upper)
	case !los && got < lower:
		t.Errorf("NLOS x2=%g: %.1f dB is more optimistic than P.1411's lower bound %.1f", d, got, lower)
	case !los:
		t.Logf("NLOS x2=%g: %.1f dB above P.1411's median", d, got-median)
	}
	_ = math.Pi
}

// TestP1411LowerBoundBeyondBreakpoint shows why no scene can sit within
// §4.1.2's lower bound far beyond its breakpoint: in an empty scene (flat
// P.527 ground, no building) the exact two-ray sum of the direct and the
// ground-reflected rays, for the canyon test's stations (10 m and 1.5 m,
// 2.6 GHz, breakpoint 520 m), is itself more optimistic than the bound
// beyond about 560 m (horizontal) and 580 m (vertical polarisation), by up to 3.9 dB far out (the bound falls 40 dB a
// decade from the two-ray maximum at the breakpoint, while the two-ray
// sum reaches that slope only asymptotically: 20·log10(π/2)·2 = 3.9 dB
// apart, the closed form printed beside). Walls can only add power to
// that in a power sum, so the street canyon's tail is held to within 4 dB
// of the bound (TestStreetCanyonAgainstP1411), not to the bound.
func TestP1411LowerBoundBeyondBreakpoint(t *testing.T) {
	t.Parallel()
	const f, h1, h2 = 2600.0, 10.0, 1.5
	s, err := raytrace.NewScene(raytrace.SceneInput{Origin: rio, GroundHeightM: 5})
	if err != nil {
		t.Fatal(err)
	}
	lambda := 299792458 / (f * 1e6)
	rbp := 4 * h1 * h2 / lambda
	for _, pol := range []raytrace.Polarization{raytrace.PolVertical, raytrace.PolHorizontal} {
		opt := raytrace.DefaultOptions()
		opt.Polarization = pol
		opt.Sum = raytrace.SumCoherent
		line := ""
		for _, d := range []float64{rbp, 600, 800, 1000, 2000, 5000} {
			r, err := s.Point(context.Background(), raytrace.PointRequest{
				Tx: raytrace.Antenna{Pos: s.Frame().ToLatLon(0, 0), HeightM: h1}, Rx: raytrace.Antenna{Pos: s.Frame().ToLatLon(d, 0), HeightM: h2},
				FreqMHz: f, Options: opt})
			if err != nil {
				t.Fatal(err)
			}
			ref, err := p1411.StreetCanyonLoS(f, d, h1, h2)
			if err != nil {
				t.Fatal(err)
			}
			// the two-ray sum with Γ = −1, relative to the bound: the bound's
			// power over free space is (2·Rbp/d)², the sum's 4·sin²(π·Rbp/2d)
			closed := -20 * math.Log10(math.Sin(math.Pi*rbp/(2*d))/(rbp/d))
			got := r.PathLossDB - ref.LowerDB
			line += fmt.Sprintf(" d=%.0f m: %+.1f (Γ=−1: %+.1f)", d, got, closed)
			if d >= 800 && got >= 0 {
				t.Errorf("%v d=%g: the two-ray sum is %.1f dB above the lower bound; expected below it", pol, d, got)
			}
			if d >= 800 && math.Abs(got-closed) > 1 {
				t.Errorf("%v d=%g: %.1f dB from the bound, the closed form says %.1f", pol, d, got, closed)
			}
		}
		t.Logf("empty scene, %v: two-ray loss above P.1411's LOS lower bound (breakpoint %.0f m):%s dB", pol, rbp, line)
	}
}
