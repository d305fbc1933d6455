package itur_test

import (
	"errors"
	"math"
	"sync"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/itur"
)

var (
	mapsOnce sync.Once
	maps     *itur.Maps
	mapsErr  error
)

func loadMaps(t testing.TB) *itur.Maps {
	t.Helper()
	mapsOnce.Do(func() { maps, mapsErr = itur.LoadMaps() })
	if mapsErr != nil {
		t.Fatal(mapsErr)
	}
	return maps
}

// TestGridBilinear: the interpolation returns the node values at the nodes,
// the mean of two nodes half-way between them, refuses points outside the
// embedded windows and NaN.
func TestGridBilinear(t *testing.T) {
	t.Parallel()
	m := loadMaps(t)
	g := m.MT[0] // nodes at odd multiples of 0.125°: (−34.375 + 0.25·i, −75.375 + 0.25·j)
	lat0, lon0 := -22.875, -43.125
	v00, err := g.At(lat0, lon0)
	if err != nil {
		t.Fatal(err)
	}
	v01, _ := g.At(lat0, lon0+0.25)
	v10, _ := g.At(lat0+0.25, lon0)
	v11, _ := g.At(lat0+0.25, lon0+0.25)
	mid, _ := g.At(lat0+0.125, lon0+0.125)
	if want := (v00 + v01 + v10 + v11) / 4; math.Abs(mid-want) > 1e-9*want {
		t.Errorf("centre %v, want the mean of the four nodes %v", mid, want)
	}
	edge, _ := g.At(lat0, lon0+0.0625)
	if want := 0.75*v00 + 0.25*v01; math.Abs(edge-want) > 1e-9*want {
		t.Errorf("quarter along the edge %v, want %v", edge, want)
	}
	for _, c := range []struct {
		name     string
		lat, lon float64
		want     error
	}{
		{"Atlantic east of the box", -10, -20, appliance.ErrOutsideEnvelope},
		{"north of the box", 10, -60, appliance.ErrOutsideEnvelope},
		{"NaN", math.NaN(), -43, appliance.ErrInvalid},
		{"Inf", -22, math.Inf(-1), appliance.ErrInvalid},
	} {
		if _, err := g.At(c.lat, c.lon); !errors.Is(err, c.want) {
			t.Errorf("%s: err %v, want %v", c.name, err, c.want)
		}
	}
	// The corners of the Brazil box are covered by every map.
	for _, gr := range []*itur.Grid{m.MT[5], m.T[5], m.TAnnual, m.DN1, m.DN50, m.Sa} {
		for _, p := range [][2]float64{{itur.BrazilMinLatDeg, itur.BrazilMinLonDeg}, {itur.BrazilMaxLatDeg, itur.BrazilMaxLonDeg}} {
			if _, err := gr.At(p[0], p[1]); err != nil {
				t.Errorf("%s at %v: %v", gr.Name, p, err)
			}
		}
	}
}

// TestRainRateIsTheRootOfStep8: P.837-7 Annex 1 step 8 defines R_p as the
// rain rate whose annual exceedance P(R > R_p) (the sum of the monthly
// log-normal terms) equals p. At Brazilian points from the Amazon to the
// semi-arid north-east and the south, the product's R_p meets that equation
// to 1e-10 relative for every p of P.530's range (the reason it differs
// from ITU-R's own sheet, see the package doc), and P0_annual is the
// exceedance at R → 0.
func TestRainRateIsTheRootOfStep8(t *testing.T) {
	t.Parallel()
	m := loadMaps(t)
	for _, pt := range []struct {
		name     string
		lat, lon float64
	}{
		{"Manaus", -3.1, -60.0}, {"Petrolina", -9.39, -40.5}, {"Rio de Janeiro", -22.9, -43.2},
		{"Porto Alegre", -30.03, -51.2}, {"Tabatinga", -4.25, -69.94},
	} {
		c, err := m.RainClimate(pt.lat, pt.lon)
		if err != nil {
			t.Fatal(err)
		}
		d := itur.NewRainDistribution(c.MTmm, c.TK)
		for _, p := range []float64{0.001, 0.01, 0.1, 1} {
			if p >= d.P0AnnualPct {
				continue // R_p = 0 (TestRainRateProperties)
			}
			r, err := d.RateMMH(p)
			if err != nil || !(r > 0) {
				t.Fatalf("%s R_%v = %v, %v", pt.name, p, r, err)
			}
			if miss := math.Abs(d.ExceedancePct(r)-p) / p; miss > 1e-10 {
				t.Errorf("%s: R_%v = %v mm/h misses step 8 by %.2g relative", pt.name, p, r, miss)
			}
		}
		if got := d.ExceedancePct(1e-9); math.Abs(got-d.P0AnnualPct) > 1e-6*d.P0AnnualPct {
			t.Errorf("%s: P(R > 0) = %v %%, P0_annual %v %%", pt.name, got, d.P0AnnualPct)
		}
	}
}

// TestRainRateProperties: R_p decreases with p, is 0 above P0_annual
// (a desert climate of 0.1 mm a month), and p outside (0, 100] is refused.
func TestRainRateProperties(t *testing.T) {
	t.Parallel()
	m := loadMaps(t)
	prev := math.Inf(1)
	for _, p := range []float64{0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 2} {
		r, err := m.RainRateMMH(-22.9, -43.2, p)
		if err != nil || !(r < prev) || !(r > 0) {
			t.Errorf("Rio R_%v = %v (%v), previous %v", p, r, err, prev)
		}
		prev = r
	}
	var mt, tk [12]float64
	for i := range mt {
		mt[i], tk[i] = 0.1, 300
	}
	dry := itur.NewRainDistribution(mt, tk)
	if r, err := dry.RateMMH(0.01); err != nil || r != 0 || !(dry.P0AnnualPct < 0.01) {
		t.Errorf("desert R0.01 = %v, %v with P0_annual %v %%; want 0 (p > P0_annual)", r, err, dry.P0AnnualPct)
	}
	for _, p := range []float64{0, -1, 101, math.NaN()} {
		if _, err := m.RainRateMMH(-22.9, -43.2, p); !errors.Is(err, appliance.ErrInvalid) {
			t.Errorf("p = %v: err %v, want ErrInvalid", p, err)
		}
	}
}

// TestRainDistanceFactorCap: P.530-17 §2.4.1 step 3 caps r at 2.5 "if the
// denominator of eq. (32) is less than 0.4", which includes a negative
// denominator. For a 100 km path at 1 GHz with R0.01 = 0.5 mm/h the
// denominator is −1.3: ITU-Rpy's min(r, 2.5) would keep r = −0.79 and a
// negative attenuation; the text gives r = 2.5.
func TestRainDistanceFactorCap(t *testing.T) {
	t.Parallel()
	rp, err := itur.NewRainPath(0.5, 1, 100, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rp.R != 2.5 || !(rp.A001DB > 0) {
		t.Errorf("r = %v, A0.01 = %v dB; want r = 2.5 and a positive attenuation", rp.R, rp.A001DB)
	}
	// A common case is unaffected: 18 GHz, 5 km, 80 mm/h gives r = 1/den.
	rp, _ = itur.NewRainPath(80, 18, 5, 0, 90)
	den := 0.477*math.Pow(5, 0.633)*math.Pow(80, 0.073*rp.Alpha)*math.Pow(18, 0.123) - 10.579*(1-math.Exp(-0.024*5))
	if math.Abs(rp.R-1/den) > 1e-15 || rp.R > 2.5 {
		t.Errorf("r = %v, want 1/%v", rp.R, den)
	}
}

// TestRainInverse: ExceedancePct inverts eq. (34) inside 0.001–1 % and
// reports the side outside it.
func TestRainInverse(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{5.8, 11, 23, 38, 80, 300} {
		rp, err := itur.NewRainPath(90, f, 4, 0.3, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []float64{0.001, 0.0023, 0.01, 0.05, 0.3, 1} {
			a, err := rp.AttenuationDB(p)
			if err != nil {
				t.Fatal(err)
			}
			got, rg := rp.ExceedancePct(a)
			if rg != itur.InRange || math.Abs(got-p) > 1e-12*p {
				t.Errorf("%v GHz p = %v: A = %v dB → p = %v (%s)", f, p, a, got, rg)
			}
		}
		a0, _ := rp.AttenuationDB(0.001)
		a1, _ := rp.AttenuationDB(1)
		if p, rg := rp.ExceedancePct(a0 * 1.01); rg != itur.BelowRange || p != 0.001 {
			t.Errorf("%v GHz beyond A(0.001 %%): %v %s", f, p, rg)
		}
		if p, rg := rp.ExceedancePct(a1 * 0.99); rg != itur.AboveRange || p != 1 {
			t.Errorf("%v GHz under A(1 %%): %v %s", f, p, rg)
		}
		if _, err := rp.AttenuationDB(0.0009); !errors.Is(err, appliance.ErrOutsideEnvelope) {
			t.Errorf("p = 0.0009 %%: %v", err)
		}
	}
}

// TestMultipathFadeDistribution: the §2.3.2 distribution is continuous at
// A_t, equals eq. (7) in the deep-fading tail, decreases with depth, and
// both inverses give back the fade depth.
func TestMultipathFadeDistribution(t *testing.T) {
	t.Parallel()
	mp, err := itur.NewMultipath(-288.84, 234.9, 24, 7.5, 820, 905, -23.5)
	if err != nil {
		t.Fatal(err)
	}
	below, above := mp.WorstMonthPct(mp.AtDB-1e-9), mp.WorstMonthPct(mp.AtDB+1e-9)
	if math.Abs(below-above) > 1e-6*above {
		t.Errorf("discontinuity at A_t = %v dB: %v vs %v", mp.AtDB, below, above)
	}
	if got, want := mp.WorstMonthPct(40), mp.DeepFadePct(40); got != want {
		t.Errorf("deep tail %v, eq. 7 %v", got, want)
	}
	prev := math.Inf(1)
	for a := 0.0; a <= 60; a += 0.25 {
		pw := mp.WorstMonthPct(a)
		if !(pw < prev) {
			t.Fatalf("p_w(%v) = %v not below p_w(%v) = %v", a, pw, a-0.25, prev)
		}
		prev = pw
		if a == 0 {
			continue
		}
		if got, rg := mp.FadeMarginForWorstMonthDB(pw); rg != itur.InRange || math.Abs(got-a) > 1e-6 {
			t.Errorf("worst month: A = %v → p_w = %v → A = %v (%s)", a, pw, got, rg)
		}
		pa := mp.AnnualPct(a)
		if got, rg := mp.FadeMarginForAnnualDB(pa); rg != itur.InRange || math.Abs(got-a) > 1e-6 {
			t.Errorf("year: A = %v → p = %v → A = %v (%s)", a, pa, got, rg)
		}
		if a >= mp.AtDB+1 {
			if r := pa / pw; math.Abs(r-math.Pow(10, -mp.DeltaGDB/10)) > 1e-12 {
				t.Errorf("deep tail: annual/worst month = %v, want 10^(−ΔG/10) with ΔG = %v dB", r, mp.DeltaGDB)
			}
		}
	}
	if a, rg := mp.FadeMarginForWorstMonthDB(70); a != 0 || rg != itur.AboveRange {
		t.Errorf("p_w 70 %% (above p_w(0)): %v %s", a, rg)
	}
}

// TestDeltaG: the §2.3.4 conversion factor for a Brazilian path, checked by
// hand: ξ = −23.5°, d = 24 km, |εp| = 85/24 mrad:
// ΔG = 10.5 − 5.6·log10(1.1 + |cos 47°|^0.7) − 2.7·log10 24 + 1.7·log10(1 + 3.5417)
//
//	= 10.5 − 5.6·0.2707 − 2.7·1.3802 + 1.7·0.6572 = 6.375 dB.
func TestDeltaG(t *testing.T) {
	t.Parallel()
	mp, err := itur.NewMultipath(-288.84, 234.9, 24, 7.5, 820, 905, -23.5)
	if err != nil {
		t.Fatal(err)
	}
	c := math.Pow(math.Abs(math.Cos(47*math.Pi/180)), 0.7) // 0.7654
	want := 10.5 - 5.6*math.Log10(1.1+c) - 2.7*math.Log10(24) + 1.7*math.Log10(1+85.0/24)
	if math.Abs(mp.DeltaGDB-want) > 1e-12 || math.Abs(want-6.375) > 1e-3 {
		t.Errorf("ΔG = %v dB, want %v (≈ 6.375)", mp.DeltaGDB, want)
	}
	// Very short paths hit the 10.8 dB ceiling (11.68 dB uncapped at 100 m).
	short, _ := itur.NewMultipath(-288.84, 234.9, 0.1, 7.5, 820, 820, -23.5)
	if short.DeltaGDB != 10.8 {
		t.Errorf("0.1 km path: ΔG = %v, want the 10.8 dB ceiling", short.DeltaGDB)
	}
}

// links are Brazilian paths of several bands for the availability tests.
var links = []itur.LinkInput{
	{LatDeg: -22.95, LonDeg: -43.2, DistKm: 12, FreqGHz: 18, PolTiltDeg: 90, HTxAmslM: 320, HRxAmslM: 60},            // Rio
	{LatDeg: -3.1, LonDeg: -60.0, DistKm: 30, FreqGHz: 7.5, PolTiltDeg: 0, HTxAmslM: 95, HRxAmslM: 110},              // Manaus
	{LatDeg: -15.77, LonDeg: -47.93, DistKm: 2.5, FreqGHz: 23, PolTiltDeg: 0, HTxAmslM: 1130, HRxAmslM: 1175},        // Brasília
	{LatDeg: -30.03, LonDeg: -51.2, DistKm: 0.9, FreqGHz: 80, PolTiltDeg: 90, HTxAmslM: 40, HRxAmslM: 70},            // Porto Alegre, E-band
	{LatDeg: -8.76, LonDeg: -63.9, DistKm: 45, FreqGHz: 6.2, PolTiltDeg: 90, HTxAmslM: 140, HRxAmslM: 180},           // Porto Velho
	{LatDeg: -23.5, LonDeg: -46.6, DistKm: 5, FreqGHz: 5.8, PolTiltDeg: 90, HTxAmslM: 780, HRxAmslM: 810},            // São Paulo WISP
	{LatDeg: -12.97, LonDeg: -38.5, DistKm: 8, FreqGHz: 11, PolTiltDeg: 45, HTxAmslM: 60, HRxAmslM: 10, R001MMH: 95}, // Salvador, measured R0.01
}

// TestOutageMonotoneInMargin: availability never decreases as the fade
// margin grows, on every path, across the whole range (rain below, in and
// above P.530's range), and the bound follows the rain side.
func TestOutageMonotoneInMargin(t *testing.T) {
	t.Parallel()
	m := loadMaps(t)
	for _, in := range links {
		l, err := m.PrepareLink(in)
		if err != nil {
			t.Fatal(err)
		}
		prev := itur.Outage{AvailabilityPct: -1}
		for fm := -5.0; fm <= 120; fm += 0.1 {
			o := l.Outage(fm)
			if o.AvailabilityPct < prev.AvailabilityPct-1e-12 {
				t.Fatalf("%v GHz %v km: availability %v %% at %v dB below %v %% at %v dB", in.FreqGHz, in.DistKm, o.AvailabilityPct, fm, prev.AvailabilityPct, prev.FadeMarginDB)
			}
			if !(o.AvailabilityPct >= 0 && o.AvailabilityPct <= 100) || math.Abs(o.OutageMinutesPerYear-o.UnavailabilityPct/100*itur.MinutesPerYear) > 1e-9 {
				t.Fatalf("%+v", o)
			}
			want := map[itur.Range]itur.Bound{itur.InRange: itur.Exact, itur.BelowRange: itur.AtLeast, itur.AboveRange: itur.AtMost}[o.RainRange]
			if fm > 0 && o.Bound != want {
				t.Fatalf("fm %v: bound %s with rain %s", fm, o.Bound, o.RainRange)
			}
			prev = o
		}
	}
}

// TestRequiredFadeMargin: the margin found for a target gives that target
// back through Outage when it is exact, and 99.999 % (which leaves rain at
// most 0.001 %, the end of P.530's range) is a necessary margin (AtLeast).
func TestRequiredFadeMargin(t *testing.T) {
	t.Parallel()
	m := loadMaps(t)
	for _, in := range links {
		l, err := m.PrepareLink(in)
		if err != nil {
			t.Fatal(err)
		}
		prev := 0.0
		for _, target := range itur.StandardTargets {
			r, err := l.RequiredFadeMargin(target)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%5.1f GHz %5.1f km %.3f %%: rain-only %6.2f dB (%s), multipath-only %6.2f dB, combined %6.2f dB (%s)",
				in.FreqGHz, in.DistKm, target, r.RainOnlyDB, r.RainOnlyRange, r.MultipathOnlyDB, r.CombinedDB, r.CombinedBound)
			if !(r.CombinedDB >= prev) || !(r.CombinedDB >= r.MultipathOnlyDB-1e-9) || (r.RainOnlyRange == itur.InRange && !(r.CombinedDB >= r.RainOnlyDB-1e-9)) {
				t.Errorf("%v %%: combined %v dB below a part or the previous target (%v)", target, r.CombinedDB, prev)
			}
			prev = r.CombinedDB
			o := l.Outage(r.CombinedDB)
			switch r.CombinedBound {
			case itur.Exact:
				if math.Abs(o.AvailabilityPct-target) > 1e-7 {
					t.Errorf("%v %%: Outage(%v dB) gives %v %%", target, r.CombinedDB, o.AvailabilityPct)
				}
			case itur.AtMost:
				if o.AvailabilityPct < target-1e-7 {
					t.Errorf("%v %%: Outage(%v dB) gives %v %%", target, r.CombinedDB, o.AvailabilityPct)
				}
			}
			if target == 99.999 && r.CombinedBound != itur.AtLeast {
				t.Errorf("99.999 %%: bound %s, want at_least", r.CombinedBound)
			}
			if target == 99.999 {
				if a, _ := l.Rain.AttenuationDB(0.001); r.CombinedDB < a {
					t.Errorf("99.999 %%: %v dB below A_rain(0.001 %%) = %v", r.CombinedDB, a)
				}
			}
		}
	}
	l, _ := m.PrepareLink(links[0])
	for _, bad := range []float64{100, 49, math.NaN()} {
		if _, err := l.RequiredFadeMargin(bad); !errors.Is(err, appliance.ErrInvalid) {
			t.Errorf("target %v: %v", bad, err)
		}
	}
}

// TestPrepareLinkInputs: bad inputs get ErrInvalid, points outside the maps
// ErrOutsideEnvelope; a measured R0.01 replaces the map's and drops the
// Annex 1 warning.
func TestPrepareLinkInputs(t *testing.T) {
	t.Parallel()
	m := loadMaps(t)
	ok := links[0]
	for _, c := range []struct {
		name string
		mod  func(*itur.LinkInput)
		want error
	}{
		{"zero distance", func(in *itur.LinkInput) { in.DistKm = 0 }, appliance.ErrInvalid},
		{"NaN distance", func(in *itur.LinkInput) { in.DistKm = math.NaN() }, appliance.ErrInvalid},
		{"0.5 GHz", func(in *itur.LinkInput) { in.FreqGHz = 0.5 }, appliance.ErrOutsideEnvelope},
		{"NaN tilt", func(in *itur.LinkInput) { in.PolTiltDeg = math.NaN() }, appliance.ErrInvalid},
		{"negative R0.01", func(in *itur.LinkInput) { in.R001MMH = -1 }, appliance.ErrInvalid},
		{"height 20 km", func(in *itur.LinkInput) { in.HTxAmslM = 20000 }, appliance.ErrInvalid},
		{"Lisbon", func(in *itur.LinkInput) { in.LatDeg, in.LonDeg = 38.7, -9.1 }, appliance.ErrOutsideEnvelope},
		{"Kuala Lumpur", func(in *itur.LinkInput) { in.LatDeg, in.LonDeg = 3.133, 101.7 }, appliance.ErrOutsideEnvelope},
		{"22.9° N, 43.23° W (Rio's coordinates with a positive latitude)", func(in *itur.LinkInput) { in.LatDeg, in.LonDeg = 22.9, -43.23 }, appliance.ErrOutsideEnvelope},
		{"400 GHz (P.676 Annex 2 ends at 350)", func(in *itur.LinkInput) { in.FreqGHz = 400 }, appliance.ErrOutsideEnvelope},
	} {
		in := ok
		c.mod(&in)
		if _, err := m.PrepareLink(in); !errors.Is(err, c.want) {
			t.Errorf("%s: err %v, want %v", c.name, err, c.want)
		}
	}
	l, err := m.PrepareLink(ok)
	if err != nil {
		t.Fatal(err)
	}
	if !contains(l.Warnings, itur.WarnR001Annex1) || l.Rain.R001MMH < 40 || l.Rain.R001MMH > 120 {
		t.Errorf("R0.01 %v mm/h, warnings %v", l.Rain.R001MMH, l.Warnings)
	}
	given := ok
	given.R001MMH = 100
	lg, _ := m.PrepareLink(given)
	if contains(lg.Warnings, itur.WarnR001Annex1) || lg.Rain.R001MMH != 100 || lg.Rain.A001DB <= l.Rain.A001DB {
		t.Errorf("given R0.01: %v mm/h, A0.01 %v dB (maps: %v), warnings %v", lg.Rain.R001MMH, lg.Rain.A001DB, l.Rain.A001DB, lg.Warnings)
	}
	if len(l.Sources) == 0 || l.R001Source == "" {
		t.Error("no sources")
	}
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// TestDefaultAtmosphere: the default air follows P.835 (1013.25 hPa total
// at sea level, wetter air in the tropics, thinner and drier at 1150 m), and
// a prepared link's gaseous absorption is (γo + γw)·d.
func TestDefaultAtmosphere(t *testing.T) {
	t.Parallel()
	m := loadMaps(t)
	sea := itur.DefaultAtmosphere(-3, 0, 300)
	if e := sea.WaterVapourGM3 * 300 / 216.7; math.Abs(sea.DryPressureHPa+e-1013.25) > 1e-9 || math.Abs(sea.WaterVapourGM3-19.6542) > 1e-9 {
		t.Errorf("tropical sea level: %+v", sea)
	}
	south := itur.DefaultAtmosphere(-30, 0, 290)
	if math.Abs(south.WaterVapourGM3-(14.3542+3.4742)/2) > 1e-9 {
		t.Errorf("mid-latitude sea level: %+v", south)
	}
	high := itur.DefaultAtmosphere(-15.8, 1.15, 295)
	if !(high.DryPressureHPa < 900 && high.WaterVapourGM3 < sea.WaterVapourGM3) {
		t.Errorf("1150 m: %+v", high)
	}
	l, err := m.PrepareLink(links[2])
	if err != nil {
		t.Fatal(err)
	}
	if want := (l.GammaOxygenDBPerKm + l.GammaWaterDBPerKm) * links[2].DistKm; l.GasAttenuationDB != want || !(l.GasAttenuationDB > 0.1 && l.GasAttenuationDB < 1) {
		t.Errorf("23 GHz 2.5 km at Brasília: %v dB", l.GasAttenuationDB)
	}
}

// std is the ITU-R reference atmosphere of the P.676 examples (1013.25 hPa
// dry air, 15 °C, 7.5 g/m³), humid a Brazilian summer coast (1013.25 hPa
// total, 30 °C, 20 g/m³).
var (
	std   = itur.Atmosphere{DryPressureHPa: 1013.25, TemperatureK: 288.15, WaterVapourGM3: 7.5}
	humid = itur.Atmosphere{DryPressureHPa: 1013.25 - 20*303.15/216.7, TemperatureK: 303.15, WaterVapourGM3: 20}
)

func gas(t *testing.T, f float64, a itur.Atmosphere) (o, w float64) {
	t.Helper()
	o, w, err := itur.GasSpecificAttenuation(f, a)
	if err != nil {
		t.Fatalf("%v GHz %+v: %v", f, a, err)
	}
	return o, w
}

// argmax returns the frequency, searched from lo to hi GHz in steps of
// step, where pick(γo, γw) is largest.
func argmax(t *testing.T, a itur.Atmosphere, lo, hi, step float64, pick func(o, w float64) float64) float64 {
	best, fBest := math.Inf(-1), 0.0
	for f := lo; f <= hi+1e-9; f += step {
		if v := pick(gas(t, f, a)); v > best {
			best, fBest = v, f
		}
	}
	return fBest
}

// TestGasAnnex2AtReferenceConditions evaluates the closed forms by hand
// where rp = rt = 1 (total pressure 1013 hPa, 15 °C), so that every fitted
// factor φ and ξ is 1, in each dry-air band and for water vapour:
//
//	12 GHz:  (7.2/(12² + 0.34) + 0.62/(42^1.16 + 0.83))·12²·1e-3          = 0.008339394541
//	57 GHz:  exp(ln 2.192·3/24 + ln 12.59·9/8 − ln 15·3/12)               = 9.685258138
//	61 GHz:  15 + (14.28 − 15)/2                                          = 14.64
//	64 GHz:  γ64                                                          = 6.819
//	100 GHz: (3.02e-4 + 0.283/(18.75² + 2.91) + 0.502·(1 − 0.0163·34)/(34^1.4346 + 1.15))·10 = 0.02511681319
//	200 GHz: (3.02e-4/(1 + 1.9e-5·200^1.5) + 0.283/(81.25² + 2.91))·40 − 0.00306 = 0.01011791726
//
// and for ρ = 7.5 g/m³ (η1 = 1, η2 = 0.99975) the nine-line water-vapour
// sum, 0.1788807092 dB/km at 22.235 GHz and 0.006623243027 at 10 GHz.
func TestGasAnnex2AtReferenceConditions(t *testing.T) {
	t.Parallel()
	dry := itur.Atmosphere{DryPressureHPa: 1013, TemperatureK: 288.15}
	for _, c := range []struct{ f, want float64 }{
		{12, 0.008339394541}, {57, 9.685258138}, {61, 14.64}, {64, 6.819}, {100, 0.02511681319}, {200, 0.01011791726},
	} {
		if o, w := gas(t, c.f, dry); math.Abs(o-c.want) > 1e-9*c.want || w != 0 {
			t.Errorf("%v GHz: γo %.12g γw %v, want %.12g and 0", c.f, o, w, c.want)
		}
	}
	wet := itur.Atmosphere{DryPressureHPa: 1013 - 7.5*288.15/216.7, TemperatureK: 288.15, WaterVapourGM3: 7.5}
	for _, c := range []struct{ f, want float64 }{{22.235, 0.1788807092}, {10, 0.006623243027}} {
		if _, w := gas(t, c.f, wet); math.Abs(w-c.want) > 1e-9*c.want {
			t.Errorf("%v GHz: γw %.12g, want %.12g", c.f, w, c.want)
		}
	}
}

// TestGasAttenuationPhysics: what any correct P.676 answer shows, for the
// standard and the humid atmosphere: positive everywhere from 1 to 350 GHz;
// the 22.235 GHz water-vapour line; the 60 GHz oxygen complex (over 10
// dB/km at sea level); the 118.75 GHz oxygen line; water-vapour absorption
// nearly proportional to ρ (a little more than proportional in the line
// wings, a little less at the line centre, from self-broadening); dry-air
// absorption falling as the air warms at constant pressure; no jump larger
// than 2 % where the dry-air fit changes band (54, 60, 62, 66, 120 GHz).
func TestGasAttenuationPhysics(t *testing.T) {
	t.Parallel()
	for _, at := range []struct {
		name string
		a    itur.Atmosphere
	}{{"standard", std}, {"humid", humid}} {
		t.Run(at.name, func(t *testing.T) {
			for f := 1.0; f <= 350; f += 0.25 {
				if o, w := gas(t, f, at.a); !(o > 0 && w > 0) {
					t.Fatalf("%v GHz: γo %v γw %v", f, o, w)
				}
			}
			oxygen := func(o, _ float64) float64 { return o }
			// The line shape γw/f² peaks at the line; γw itself a little
			// above it (the f² factor on a line ~3 GHz wide at 1 atm).
			if f := argmax(t, at.a, 15, 30, 0.005, func(_, w float64) float64 { return w }); f < 22.235 || f > 23 {
				t.Errorf("water-vapour absorption peaks at %v GHz, want just above 22.235", f)
			}
			var f0 float64
			best := math.Inf(-1)
			for f := 15.0; f <= 30; f += 0.005 {
				if _, w := gas(t, f, at.a); w/(f*f) > best {
					best, f0 = w/(f*f), f
				}
			}
			if math.Abs(f0-22.235) > 0.05 {
				t.Errorf("water-vapour line shape peaks at %v GHz, want 22.235", f0)
			}
			_, w22 := gas(t, 22.235, at.a)
			_, w15 := gas(t, 15, at.a)
			_, w30 := gas(t, 30, at.a)
			if !(w22 > 4*w15 && w22 > 1.5*w30) {
				t.Errorf("γw 15/22.235/30 GHz = %v/%v/%v: no water line", w15, w22, w30)
			}
			if f := argmax(t, at.a, 40, 80, 0.05, oxygen); f < 58 || f > 62 {
				t.Errorf("oxygen peak at %v GHz, want inside the 60 GHz complex", f)
			}
			o60, _ := gas(t, 60, at.a)
			o30, _ := gas(t, 30, at.a)
			if !(o60 > 10 && o60 > 100*o30) {
				t.Errorf("γo 30/60 GHz = %v/%v", o30, o60)
			}
			if f := argmax(t, at.a, 100, 140, 0.01, oxygen); math.Abs(f-118.75) > 0.1 {
				t.Errorf("oxygen line at %v GHz, want 118.75", f)
			}
			o119, _ := gas(t, 118.75, at.a)
			o100, _ := gas(t, 100, at.a)
			o140, _ := gas(t, 140, at.a)
			if !(o119 > 10*o100 && o119 > 10*o140) {
				t.Errorf("γo 100/118.75/140 GHz = %v/%v/%v: no 119 GHz line", o100, o119, o140)
			}
			for _, e := range []float64{54, 60, 62, 66, 120} {
				lo, _ := gas(t, e-1e-9, at.a)
				hi, _ := gas(t, e+1e-9, at.a)
				if math.Abs(hi/lo-1) > 0.02 {
					t.Errorf("dry-air fit jumps %.2g relative at %v GHz (%v → %v)", hi/lo-1, e, lo, hi)
				}
			}
		})
	}
	t.Run("water vapour scales with density", func(t *testing.T) {
		// Nearly proportional (within 5 %) in dry air (1 → 2 g/m³); doubling humid air
		// (10 → 20 g/m³) gives 1.8–2.7 times: self-broadening adds a ρ² part
		// in the wings (the continuum) and flattens the line centre.
		at := func(rho float64) itur.Atmosphere {
			return itur.Atmosphere{DryPressureHPa: 1000, TemperatureK: 295, WaterVapourGM3: rho}
		}
		for _, f := range []float64{5, 10, 22.235, 38, 80} {
			_, w0 := gas(t, f, at(0))
			_, w1 := gas(t, f, at(1))
			_, w2 := gas(t, f, at(2))
			_, w10 := gas(t, f, at(10))
			_, w20 := gas(t, f, at(20))
			if r := w2 / w1; w0 != 0 || r < 1.9 || r > 2.1 {
				t.Errorf("%v GHz: γw(2 g/m³)/γw(1 g/m³) = %v (γw(0) = %v), want 2 within 5 %%", f, r, w0)
			}
			if r := w20 / w10; r < 1.8 || r > 2.7 {
				t.Errorf("%v GHz: γw(20 g/m³)/γw(10 g/m³) = %v, want 1.8–2.7", f, r)
			}
		}
	})
	t.Run("dry air falls with temperature", func(t *testing.T) {
		for _, f := range []float64{5, 12, 30, 57, 60, 64, 80, 118.75, 200} {
			prev := math.Inf(1)
			for _, T := range []float64{263.15, 278.15, 288.15, 303.15, 313.15} {
				o, _ := gas(t, f, itur.Atmosphere{DryPressureHPa: 1013.25, TemperatureK: T})
				if !(o < prev) {
					t.Errorf("%v GHz: γo(%v K) = %v not below %v", f, T, o, prev)
				}
				prev = o
			}
		}
	})
	t.Run("envelope", func(t *testing.T) {
		for _, c := range []struct {
			name string
			f    float64
			a    itur.Atmosphere
			want error
		}{
			{"0.9 GHz", 0.9, std, appliance.ErrOutsideEnvelope},
			{"351 GHz", 351, std, appliance.ErrOutsideEnvelope},
			{"NaN GHz", math.NaN(), std, appliance.ErrOutsideEnvelope},
			{"zero pressure", 20, itur.Atmosphere{TemperatureK: 288}, appliance.ErrInvalid},
			{"negative vapour", 20, itur.Atmosphere{DryPressureHPa: 1000, TemperatureK: 288, WaterVapourGM3: -1}, appliance.ErrInvalid},
			{"infinite temperature", 20, itur.Atmosphere{DryPressureHPa: 1000, TemperatureK: math.Inf(1)}, appliance.ErrInvalid},
		} {
			if _, _, err := itur.GasSpecificAttenuation(c.f, c.a); !errors.Is(err, c.want) {
				t.Errorf("%s: err %v, want %v", c.name, err, c.want)
			}
		}
	})
}

// TestXPDClearAir: P_XP grows with the required C0/I and shrinks with
// XPIC, and equals P0·10^(−M/10) by hand for one case.
func TestXPDClearAir(t *testing.T) {
	t.Parallel()
	mp, err := itur.NewMultipath(-175.5, 262.3, 20, 18, 30, 60, -27.6)
	if err != nil {
		t.Fatal(err)
	}
	p := mp.XPDClearAirPct(30, 20, 0)
	if !(mp.XPDClearAirPct(30, 25, 0) > p && mp.XPDClearAirPct(30, 20, 15) < p) {
		t.Error("P_XP not monotone in C0/I or XPIF")
	}
	eta := 1 - math.Exp(-0.2*math.Pow(mp.P0Pct, 0.75))
	q := -10 * math.Log10(0.7*eta/mp.P0Pct)
	want := mp.P0Pct * math.Pow(10, -(35+q-20)/10)
	if math.Abs(p-want) > 1e-12*want {
		t.Errorf("P_XP %v, want %v", p, want)
	}
}

// BenchmarkLoadMaps measures the one-time decoding of the embedded maps.
func BenchmarkLoadMaps(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := itur.LoadMaps(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAvailability is the availability part of one PtP answer after
// the maps are loaded: PrepareLink, the outage at 12 modulations and the
// margin for the three standard targets. Goal: well under 1 ms (the whole
// PtP answer has 20 ms).
func BenchmarkAvailability(b *testing.B) {
	m := loadMaps(b)
	in := links[0]
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		l, err := m.PrepareLink(in)
		if err != nil {
			b.Fatal(err)
		}
		for k := 0; k < 12; k++ {
			_ = l.Outage(5 + 3*float64(k))
		}
		for _, tg := range itur.StandardTargets {
			if _, err := l.RequiredFadeMargin(tg); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkPrepareLink isolates the map look-ups, R0.01 and P.676.
func BenchmarkPrepareLink(b *testing.B) {
	m := loadMaps(b)
	for i := 0; i < b.N; i++ {
		if _, err := m.PrepareLink(links[1]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOutage is one modulation's availability on a prepared link.
func BenchmarkOutage(b *testing.B) {
	m := loadMaps(b)
	l, err := m.PrepareLink(links[1])
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		_ = l.Outage(30)
	}
}

// BenchmarkRequiredFadeMargin is one availability target on a prepared link.
func BenchmarkRequiredFadeMargin(b *testing.B) {
	m := loadMaps(b)
	l, err := m.PrepareLink(links[0])
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if _, err := l.RequiredFadeMargin(99.99); err != nil {
			b.Fatal(err)
		}
	}
}
