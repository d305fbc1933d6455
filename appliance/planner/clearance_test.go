package planner_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/planner"
	"linkplan/engines/fspl"
	"linkplan/engines/radio"
)

// flatProfile returns n samples over lengthM metres of ground at groundM,
// with the heights of bumps (index → height) added.
func flatProfile(n int, lengthM, groundM float64, bumps map[int]float64) *appliance.PathProfile {
	p := &appliance.PathProfile{DistancesM: make([]float64, n), HeightsM: make([]float64, n)}
	for i := range n {
		p.DistancesM[i] = lengthM * float64(i) / float64(n-1)
		p.HeightsM[i] = groundM + bumps[i]
	}
	return p
}

// TestCheckPathHandComputed: a 10 km path at 1000 MHz with a 40 m obstacle
// at mid-path, tower 30 m, receiver 10 m, all on 0 m ground. By hand:
// bulge 5000²/(2·(4/3)·6 371 000) = 1.471512 m, so the effective obstacle is
// 41.471512 m; F1 = √(0.299792458·2500) = 27.376653 m; the ray is at 20 m,
// clearance −21.471512 m = −0.784300 F1. LOS needs R with (30 + R)/2 ≥
// 41.471512: R = 52.943023 → 52.95 m; 60 % F1 needs (30 + R)/2 ≥ 41.471512
// + 16.425992: R = 85.795007 → 85.80 m; the tower, with the receiver at
// 10 m, 72.943023 → 72.95 m and 105.795007 → 105.80 m.
func TestCheckPathHandComputed(t *testing.T) {
	p := flatProfile(3, 10000, 0, map[int]float64{1: 40})
	pc, err := planner.CheckPath(p, 30, 10, 1000)
	if err != nil {
		t.Fatal(err)
	}
	const eps = 1e-6
	o := pc.Obstacle
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"obstacle distance from receiver", o.DistanceFromRxM, 5000},
		{"obstacle effective ground", o.EffectiveGroundM, 41.471511536650446},
		{"obstacle F1", o.F1RadiusM, 27.376653283409205},
		{"obstacle clearance", o.ClearanceM, -21.471511536650446},
		{"obstacle clearance / F1", o.ClearanceF1, -0.7843000864412674},
		{"min receiver LOS", pc.RxMinLOS.HeightM, 52.95},
		{"min receiver 60 % F1", pc.RxMinFresnel60.HeightM, 85.80},
		{"min tower LOS", pc.TxMinLOS.HeightM, 72.95},
		{"min tower 60 % F1", pc.TxMinFresnel60.HeightM, 105.80},
		{"k factor", pc.KFactor, 4.0 / 3.0},
		{"effective earth radius", pc.EffEarthRadiusM, 4.0 / 3.0 * 6371000},
	} {
		if math.Abs(c.got-c.want) > eps {
			t.Errorf("%s = %.9f, want %.9f", c.name, c.got, c.want)
		}
	}
	if !pc.RxMinLOS.Achievable || !pc.TxMinFresnel60.Achievable || len(pc.Profile) != 3 || pc.SamplesTotal != 3 {
		t.Errorf("check %+v", pc)
	}
}

func TestCheckPathCases(t *testing.T) {
	for _, tc := range []struct {
		name           string
		prof           *appliance.PathProfile
		tx, rx, f      float64
		wantObstacle   bool
		rxLOS, rxF60   float64 // metres; NaN: not achievable
		achievableNote string
	}{
		{name: "two samples: nothing to clear", prof: flatProfile(2, 5000, 100, nil), tx: 30, rx: 10, f: 3500,
			wantObstacle: false, rxLOS: 0, rxF60: 0},
		{name: "clear flat short path needs no height for LOS", prof: flatProfile(11, 1000, 0, nil), tx: 30, rx: 10, f: 3500,
			wantObstacle: true, rxLOS: 0, rxF60: 0},
		{name: "a 2000 m wall cannot be cleared below 500 m", prof: flatProfile(5, 4000, 0, map[int]float64{2: 2000}), tx: 30, rx: 10, f: 700,
			wantObstacle: true, rxLOS: math.NaN(), rxF60: math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc, err := planner.CheckPath(tc.prof, tc.tx, tc.rx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if (pc.Obstacle != nil) != tc.wantObstacle {
				t.Errorf("obstacle %+v", pc.Obstacle)
			}
			for _, h := range []struct {
				name string
				got  appliance.MinHeight
				want float64
			}{{"rx LOS", pc.RxMinLOS, tc.rxLOS}, {"rx F60", pc.RxMinFresnel60, tc.rxF60}} {
				if math.IsNaN(h.want) {
					if h.got.Achievable || h.got.HeightM != planner.MaxAntennaHeightM {
						t.Errorf("%s = %+v, want not achievable below %g m", h.name, h.got, planner.MaxAntennaHeightM)
					}
				} else if !h.got.Achievable || math.Abs(h.got.HeightM-h.want) > 1e-9 {
					t.Errorf("%s = %+v, want %g m", h.name, h.got, h.want)
				}
			}
		})
	}
	nan, inf := math.NaN(), math.Inf(1)
	good := func() *appliance.PathProfile { return flatProfile(5, 4000, 10, nil) }
	with := func(f func(p *appliance.PathProfile)) *appliance.PathProfile { p := good(); f(p); return p }
	for _, tc := range []struct {
		name      string
		prof      *appliance.PathProfile
		tx, rx, f float64
		fields    string // the ValidationError fields, in order
	}{
		{name: "one sample", prof: &appliance.PathProfile{DistancesM: []float64{0}, HeightsM: []float64{0}}, tx: 10, rx: 10, f: 1000, fields: "profile.distances_m"},
		{name: "zero length", prof: &appliance.PathProfile{DistancesM: []float64{0, 0}, HeightsM: []float64{0, 0}}, tx: 10, rx: 10, f: 1000, fields: "profile.distances_m"},
		{name: "height count", prof: &appliance.PathProfile{DistancesM: []float64{0, 10}, HeightsM: []float64{0}}, tx: 10, rx: 10, f: 1000, fields: "profile.heights_m"},
		{name: "non-increasing distances", prof: with(func(p *appliance.PathProfile) { p.DistancesM[2] = p.DistancesM[1] }), tx: 10, rx: 10, f: 1000, fields: "profile.distances_m"},
		{name: "decreasing distances", prof: with(func(p *appliance.PathProfile) { p.DistancesM[3] = 500 }), tx: 10, rx: 10, f: 1000, fields: "profile.distances_m"},
		{name: "not starting at 0", prof: with(func(p *appliance.PathProfile) { p.DistancesM[0] = -1 }), tx: 10, rx: 10, f: 1000, fields: "profile.distances_m"},
		{name: "NaN distance", prof: with(func(p *appliance.PathProfile) { p.DistancesM[2] = nan }), tx: 10, rx: 10, f: 1000, fields: "profile.distances_m"},
		{name: "NaN ground", prof: with(func(p *appliance.PathProfile) { p.HeightsM[2] = nan }), tx: 10, rx: 10, f: 1000, fields: "profile.heights_m"},
		{name: "infinite ground", prof: with(func(p *appliance.PathProfile) { p.HeightsM[0] = -inf }), tx: 10, rx: 10, f: 1000, fields: "profile.heights_m"},
		{name: "NaN tower height", prof: good(), tx: nan, rx: 10, f: 1000, fields: "tx_height_m"},
		{name: "negative receiver height", prof: good(), tx: 10, rx: -1, f: 1000, fields: "rx_height_m"},
		{name: "infinite receiver height", prof: good(), tx: 10, rx: inf, f: 1000, fields: "rx_height_m"},
		{name: "infinite frequency", prof: good(), tx: 10, rx: 10, f: inf, fields: "frequency_mhz"},
		{name: "NaN frequency", prof: good(), tx: 10, rx: 10, f: nan, fields: "frequency_mhz"},
		{name: "zero frequency", prof: good(), tx: 10, rx: 10, f: 0, fields: "frequency_mhz"},
		{name: "everything at once", prof: with(func(p *appliance.PathProfile) { p.HeightsM[1] = nan }), tx: nan, rx: -inf, f: -5,
			fields: "profile.heights_m,tx_height_m,rx_height_m,frequency_mhz"},
	} {
		t.Run("invalid: "+tc.name, func(t *testing.T) {
			pc, err := planner.CheckPath(tc.prof, tc.tx, tc.rx, tc.f)
			var v *appliance.ValidationError
			if !errors.Is(err, appliance.ErrInvalid) || !errors.As(err, &v) || pc != nil {
				t.Fatalf("CheckPath = %+v, %v; want a validation error", pc, err)
			}
			var got []string
			for _, f := range v.Fields {
				got = append(got, f.Field)
			}
			if strings.Join(got, ",") != tc.fields {
				t.Errorf("fields %v, want %s (%v)", got, tc.fields, err)
			}
		})
	}
}

// TestCheckPathMinimumHeightsAreTight: on random rough profiles, the stated
// minimum heights meet their rule at every sample exactly (no tolerance), 2
// cm less does not, and
// fspl (the same geometry) agrees on los_clear and fresnel_ok.
func TestCheckPathMinimumHeightsAreTight(t *testing.T) {
	r := rand.New(rand.NewPCG(seed(t), 11))
	eng := fspl.New()
	for trial := range 200 {
		n := 3 + r.IntN(400)
		p := flatProfile(n, 500+r.Float64()*40000, 0, nil)
		for i := range p.HeightsM {
			p.HeightsM[i] = 50 + 150*r.Float64()
		}
		f := []float64{700, 1800, 3500, 5800}[trial%4]
		tx, rx := 1+60*r.Float64(), 1+30*r.Float64()
		pc, err := planner.CheckPath(p, tx, rx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name    string
			h       appliance.MinHeight
			q       float64
			moveTx  bool
			fsplLOS bool
		}{
			{"rx LOS", pc.RxMinLOS, 0, false, true}, {"rx F60", pc.RxMinFresnel60, 0.6, false, false},
			{"tx LOS", pc.TxMinLOS, 0, true, true}, {"tx F60", pc.TxMinFresnel60, 0.6, true, false},
		} {
			if !c.h.Achievable {
				continue
			}
			th, rh := tx, c.h.HeightM
			if c.moveTx {
				th, rh = c.h.HeightM, rx
			}
			if worst := minRatio(p, th, rh, f); worst < c.q {
				t.Fatalf("trial %d %s: at %g m the worst clearance is %g F1, want ≥ %g", trial, c.name, c.h.HeightM, worst, c.q)
			}
			if c.h.HeightM >= 0.02 {
				th2, rh2 := th, rh-0.02
				if c.moveTx {
					th2, rh2 = th-0.02, rh
				}
				if worst := minRatio(p, th2, rh2, f); worst >= c.q {
					t.Fatalf("trial %d %s: 2 cm below %g m still clears (%g F1): not the minimum", trial, c.name, c.h.HeightM, worst)
				}
			}
			pred := eng.Compute(p, th, rh, f)
			if c.fsplLOS && !pred.LOSClear && c.h.HeightM > 0 {
				// Only an exactly grazing ray (clearance 0) may differ.
				if math.Abs(minClear(p, th, rh)) > 1e-6 {
					t.Fatalf("trial %d %s: fspl says no LOS at %g m", trial, c.name, c.h.HeightM)
				}
			}
			if !c.fsplLOS && !pred.FresnelOK {
				t.Fatalf("trial %d %s: fspl says fresnel not ok at %g m (ratio %g)", trial, c.name, c.h.HeightM, pred.MinClearanceRatio)
			}
		}
	}
}

// minRatio and minClear recompute the clearance independently.
func minRatio(p *appliance.PathProfile, tx, rx, f float64) float64 {
	d := p.LengthM()
	n := p.Len()
	lambda := 299.792458 / f
	ka := 4.0 / 3.0 * 6371000
	best := math.Inf(1)
	for i := 1; i < n-1; i++ {
		d1 := p.DistancesM[i]
		d2 := d - d1
		ray := p.HeightsM[0] + tx + (p.HeightsM[n-1]+rx-p.HeightsM[0]-tx)*d1/d
		c := ray - p.HeightsM[i] - d1*d2/(2*ka)
		best = math.Min(best, c/math.Sqrt(lambda*d1*d2/d))
	}
	return best
}

func minClear(p *appliance.PathProfile, tx, rx float64) float64 {
	d := p.LengthM()
	n := p.Len()
	ka := 4.0 / 3.0 * 6371000
	best := math.Inf(1)
	for i := 1; i < n-1; i++ {
		d1 := p.DistancesM[i]
		ray := p.HeightsM[0] + tx + (p.HeightsM[n-1]+rx-p.HeightsM[0]-tx)*d1/d
		best = math.Min(best, ray-p.HeightsM[i]-d1*(d-d1)/(2*ka))
	}
	return best
}

func TestCheckPathDecimation(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n, peak int
		want    int
	}{
		{"short path kept whole", 100, 50, 100},
		{"exactly 512 kept whole", 512, 300, 512},
		{"513 samples decimated", 513, 7, 512},
		{"200 km at 90 m", 2224, 1733, 512},
		{"peak next to the receiver", 5000, 4998, 512},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := flatProfile(tc.n, 90*float64(tc.n-1), 20, map[int]float64{tc.peak: 300})
			for i := range p.HeightsM { // some rolling ground, deterministic
				p.HeightsM[i] += 10 * math.Sin(float64(i)/7)
			}
			pc, err := planner.CheckPath(p, 30, 10, 3500)
			if err != nil {
				t.Fatal(err)
			}
			if len(pc.Profile) != tc.want || pc.SamplesTotal != tc.n {
				t.Fatalf("%d points of %d samples, want %d", len(pc.Profile), pc.SamplesTotal, tc.want)
			}
			first, last := pc.Profile[0], pc.Profile[len(pc.Profile)-1]
			if first.DistanceM != 0 || last.DistanceM != p.LengthM() {
				t.Errorf("ends %g and %g m, want 0 and %g", first.DistanceM, last.DistanceM, p.LengthM())
			}
			kept := false
			for i, pt := range pc.Profile {
				kept = kept || pt.DistanceM == pc.Obstacle.DistanceFromTxM
				if i > 0 && !(pt.DistanceM > pc.Profile[i-1].DistanceM) {
					t.Fatalf("point %d not after point %d", i, i-1)
				}
			}
			if !kept || pc.Obstacle.DistanceFromTxM != p.DistancesM[tc.peak] {
				t.Errorf("dominant obstacle at %g m (peak at %g m) kept %v", pc.Obstacle.DistanceFromTxM, p.DistancesM[tc.peak], kept)
			}
			again, _ := planner.CheckPath(p, 30, 10, 3500)
			for i := range again.Profile {
				if again.Profile[i] != pc.Profile[i] {
					t.Fatal("decimation is not deterministic")
				}
			}
		})
	}
}

// TestCheckPathRoundsUpExactly: issue 7, finding 2 review. The minimum
// height is rounded up to the centimetre without tolerance: an exact bound
// a few nanometres above a centimetre goes to the next one, and the stated
// height meets the rule exactly (CheckPath at that height finds no negative
// clearance).
func TestCheckPathRoundsUpExactly(t *testing.T) {
	bulge := radio.EarthBulgeM(5000, 5000, planner.KFactor)
	for _, tc := range []struct {
		name   string
		target float64 // exact receiver LOS bound wanted, metres (tower 30 m, flat 0 m ground)
		want   float64 // stated height, metres
	}{
		{name: "4e-9 m above 52.95 m", target: 52.95 + 4e-9, want: 52.96},
		{name: "4e-9 m below 52.95 m", target: 52.95 - 4e-9, want: 52.95},
		{name: "a whole centimetre", target: 52.95, want: 52.95},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// LOS at mid-path needs (30 + R)/2 ≥ obstacle + bulge.
			p := flatProfile(3, 10000, 0, map[int]float64{1: (30+tc.target)/2 - bulge})
			pc, err := planner.CheckPath(p, 30, 10, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if got := pc.RxMinLOS; !got.Achievable || math.Abs(got.HeightM-tc.want) > 1e-12 {
				t.Fatalf("min receiver LOS %+v, want %.2f m", got, tc.want)
			}
			at, err := planner.CheckPath(p, 30, pc.RxMinLOS.HeightM, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if at.Obstacle.ClearanceM < 0 {
				t.Errorf("at the stated %.2f m the clearance is %g m", pc.RxMinLOS.HeightM, at.Obstacle.ClearanceM)
			}
		})
	}
}

// TestClearanceRuleHandComputed: the path of TestCheckPathHandComputed at
// k = 2/3 and 30 % of F1. By hand: bulge 5000²/(2·(2/3)·6 371 000) =
// 2.943023 m, effective obstacle 42.943023 m; the ray at 20 m leaves
// −22.943023 m = −0.838052 F1. 30 % F1 needs (30 + R)/2 ≥ 42.943023 +
// 8.212996: R = 72.312038 → 72.32 m; the tower, with the receiver at 10 m,
// 92.312038 → 92.32 m. At k = 4/3 and 60 % the rule gives CheckPath's
// figures.
func TestClearanceRuleHandComputed(t *testing.T) {
	p := flatProfile(3, 10000, 0, map[int]float64{1: 40})
	r, err := planner.ClearanceRule(p, 30, 10, 1000, 2.0/3, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.ClearanceF1-(-22.943023073300893/27.376653283409205)) > 1e-9 || r.MinRx.HeightM != 72.32 || r.MinTx.HeightM != 92.32 ||
		!r.MinRx.Achievable || !r.MinTx.Achievable {
		t.Errorf("rule %+v", r)
	}
	pc, err := planner.CheckPath(p, 30, 10, 1000)
	if err != nil {
		t.Fatal(err)
	}
	r, err = planner.ClearanceRule(p, 30, 10, 1000, planner.KFactor, planner.FresnelRule)
	if err != nil {
		t.Fatal(err)
	}
	if r.ClearanceF1 != pc.Obstacle.ClearanceF1 || r.MinRx != pc.RxMinFresnel60 || r.MinTx != pc.TxMinFresnel60 {
		t.Errorf("rule %+v, path check %+v", r, pc)
	}
	for _, bad := range [][2]float64{{0, 0.6}, {math.Inf(1), 0.6}, {4.0 / 3, -1}, {4.0 / 3, math.NaN()}} {
		if _, err := planner.ClearanceRule(p, 30, 10, 1000, bad[0], bad[1]); !errors.Is(err, appliance.ErrInvalid) {
			t.Errorf("k %g, fraction %g: %v", bad[0], bad[1], err)
		}
	}
}
