package p1812_test

import (
	"errors"
	"math"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/enginetest"
	"linkplan/engines/p1812"
)

// baseInput returns a valid input on the deterministic synthetic 100 km
// profile of the benchmarks (inland, 10 m clutter, trans-horizon).
func baseInput(tb testing.TB) p1812.Input {
	tb.Helper()
	in := synthetic100km()
	in.FreqGHz, in.Pol = 0.5, p1812.Horizontal
	return in
}

func TestPredictInvalid(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := []struct {
		name  string
		mut   func(in *p1812.Input)
		field string
	}{
		{"frequency NaN", func(in *p1812.Input) { in.FreqGHz = nan }, "f_ghz"},
		{"frequency below 30 MHz", func(in *p1812.Input) { in.FreqGHz = 0.0299 }, "f_ghz"},
		{"frequency above 6 GHz", func(in *p1812.Input) { in.FreqGHz = 6.01 }, "f_ghz"},
		{"time percentage below 1", func(in *p1812.Input) { in.TimePct = 0.5 }, "p_pct"},
		{"time percentage above 50", func(in *p1812.Input) { in.TimePct = 50.5 }, "p_pct"},
		{"time percentage NaN", func(in *p1812.Input) { in.TimePct = nan }, "p_pct"},
		{"location percentage 100", func(in *p1812.Input) { in.LocPct = 100 }, "pl_pct"},
		{"negative sigma", func(in *p1812.Input) { in.SigmaLdB = -1 }, "sigma_l_db"},
		{"zero tx height", func(in *p1812.Input) { in.HtgM = 0 }, "htg_m"},
		{"negative rx height", func(in *p1812.Input) { in.HrgM = -5 }, "hrg_m"},
		{"tx height NaN", func(in *p1812.Input) { in.HtgM = nan }, "htg_m"},
		{"polarization 0", func(in *p1812.Input) { in.Pol = 0 }, "pol"},
		{"latitude 91", func(in *p1812.Input) { in.PhiT = 91 }, "phi_t_deg"},
		{"longitude NaN", func(in *p1812.Input) { in.LamR = nan }, "lam_r_deg"},
		{"delta N 157", func(in *p1812.Input) { in.DeltaN = 157 }, "delta_n"},
		{"delta N zero", func(in *p1812.Input) { in.DeltaN = 0 }, "delta_n"},
		{"N0 zero", func(in *p1812.Input) { in.N0 = 0 }, "n0"},
		{"negative dct", func(in *p1812.Input) { in.DctKm = -1 }, "dct_km"},
		{"unknown diffraction method", func(in *p1812.Input) { in.Diffraction = 7 }, "diffraction"},
		{"two points", func(in *p1812.Input) {
			in.DKm, in.HMasl, in.RM, in.Zone = in.DKm[:2], in.HMasl[:2], nil, nil
		}, "profile.d_km"},
		{"distances not from zero", func(in *p1812.Input) {
			in.DKm = append([]float64(nil), in.DKm...)
			in.DKm[0] = 0.1
		}, "profile.d_km"},
		{"repeated distance", func(in *p1812.Input) {
			in.DKm = append([]float64(nil), in.DKm...)
			in.DKm[5] = in.DKm[4]
		}, "profile.d_km"},
		{"distance NaN", func(in *p1812.Input) {
			in.DKm = append([]float64(nil), in.DKm...)
			in.DKm[5] = nan
		}, "profile.d_km"},
		{"heights shorter", func(in *p1812.Input) { in.HMasl = in.HMasl[1:] }, "profile.h_masl"},
		{"height NaN", func(in *p1812.Input) {
			in.HMasl = append([]float64(nil), in.HMasl...)
			in.HMasl[3] = nan
		}, "profile.h_masl"},
		{"clutter shorter", func(in *p1812.Input) { in.RM = in.RM[1:] }, "profile.r_m"},
		{"negative clutter", func(in *p1812.Input) {
			in.RM = append([]float64(nil), in.RM...)
			in.RM[3] = -1
		}, "profile.r_m"},
		{"zone shorter", func(in *p1812.Input) { in.Zone = in.Zone[1:] }, "profile.zone"},
		{"zone 2", func(in *p1812.Input) {
			in.Zone = append([]int(nil), in.Zone...)
			in.Zone[3] = 2
		}, "profile.zone"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := baseInput(t)
			tc.mut(&in)
			_, err := p1812.Predict(in)
			if !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err %T is not a *appliance.ValidationError", err)
			}
			found := false
			for _, f := range ve.Fields {
				found = found || f.Field == tc.field
			}
			if !found {
				t.Errorf("err %v does not name field %q", err, tc.field)
			}
		})
	}
	t.Run("valid base", func(t *testing.T) {
		if _, err := p1812.Predict(baseInput(t)); err != nil {
			t.Fatal(err)
		}
	})
}

// TestPredictDefaults checks the nil-slice and zero-value defaults: nil RM
// equals zero clutter, nil Zone equals all inland and LocPct 0 equals 50.
func TestPredictDefaults(t *testing.T) {
	t.Parallel()
	in := baseInput(t)
	in.LocPct, in.SigmaLdB = 50, 6
	in.RM = make([]float64, len(in.DKm))
	in.Zone = make([]int, len(in.DKm))
	for i := range in.Zone {
		in.Zone[i] = p1812.ZoneInland
	}
	want, err := p1812.Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	in.RM, in.Zone, in.LocPct = nil, nil, 0
	got, err := p1812.Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("defaults differ:\n got %+v\nwant %+v", got, want)
	}
}

// TestLocationVariability checks Lloc = −I(pL/100)·σL (§4.8): pL = 10 %
// with σL = 5.5 dB lowers Lb by 1.2816·5.5 dB (to the 4.5e-4 accuracy of
// the Attachment 2 approximation), and a receiver at sea has no location
// variability.
func TestLocationVariability(t *testing.T) {
	t.Parallel()
	in := baseInput(t)
	in.TimePct = 50
	med, err := p1812.Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	in.LocPct, in.SigmaLdB = 10, 5.5
	low, err := p1812.Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	if d := med.LbDB - low.LbDB; math.Abs(d-1.2815516*5.5) > 4.5e-4*5.5 {
		t.Errorf("Lb(pL=50) − Lb(pL=10) = %.6f dB, want %.6f", d, 1.2815516*5.5)
	}
	in.Zone = make([]int, len(in.DKm))
	for i := range in.Zone {
		in.Zone[i] = p1812.ZoneInland
	}
	in.Zone[len(in.Zone)-1] = p1812.ZoneSea
	sea, err := p1812.Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	if sea.LlocDB != 0 || sea.DcrKm != 0 {
		t.Errorf("receiver at sea: Lloc = %g dB, dcr = %g km, want 0 and 0", sea.LlocDB, sea.DcrKm)
	}
}

func TestLocationSigmaDB(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		f, h, r, w, want float64
	}{
		{"below clutter", 0.6, 1.5, 10, 100, (0.52 + 0.024*0.6) * math.Pow(100, 0.28)},
		{"10 m above clutter", 0.6, 20, 10, 100, 0},
		{"half way", 2, 15, 10, 500, 0.5 * (0.52 + 0.048) * math.Pow(500, 0.28)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := p1812.LocationSigmaDB(tc.f, tc.h, tc.r, tc.w); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("got %v want %v", got, tc.want)
			}
		})
	}
}

// validationInputs returns the inputs of every p1812 validation case.
func validationInputs(tb testing.TB) []p1812Case {
	tb.Helper()
	cases, errs := loadP1812Cases(tb)
	for _, err := range errs {
		tb.Error(err)
	}
	if len(cases) == 0 {
		tb.Skip("no p1812 validation case")
	}
	return cases
}

// TestLbNonDecreasingInTime checks, on every validation profile and the
// synthetic one, several frequencies and both diffraction methods, that Lb
// never decreases as p grows from 1 to 50 % (tolerance 1e-9 dB).
func TestLbNonDecreasingInTime(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	all := append(validationInputs(t), p1812Case{id: "synthetic100km", in: synthetic100km()})
	for _, c := range all {
		key := filepath.Base(c.id)
		if i := len(key) - 2; i > 0 && key[i] == '#' {
			key = key[:i]
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		for _, m := range []p1812.DiffractionMethod{p1812.DeltaBullingtonMethod, p1812.DeygoutMethod} {
			for _, f := range []float64{0.03, 0.1, 0.6, 2.4, 6} {
				in := c.in
				in.FreqGHz, in.Diffraction = f, m
				prev := math.Inf(-1)
				for p := 1.0; p <= 50; p += 0.5 {
					in.TimePct = p
					r, err := p1812.Predict(in)
					if err != nil {
						t.Fatalf("%s: %v", key, err)
					}
					if r.LbDB < prev-1e-9 {
						t.Errorf("%s %v f=%g GHz: Lb(p=%g) = %.9f < Lb(p=%g) = %.9f", key, m, f, p, r.LbDB, p-0.5, prev)
						break
					}
					prev = r.LbDB
				}
			}
		}
	}
	if len(seen) < 4 {
		t.Errorf("only %d profiles checked", len(seen))
	}
}

// TestDeterministic checks that repeated predictions are bit-identical,
// sequentially and from concurrent goroutines under GOMAXPROCS 1 and 4.
func TestDeterministic(t *testing.T) {
	t.Parallel()
	cases := validationInputs(t)
	ref := make([]p1812.Result, len(cases))
	for i, c := range cases {
		r, err := p1812.Predict(c.in)
		if err != nil {
			t.Fatal(err)
		}
		ref[i] = r
	}
	same := func(a, b p1812.Result) bool {
		return math.Float64bits(a.LbDB) == math.Float64bits(b.LbDB) && a == b
	}
	for _, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		var wg sync.WaitGroup
		errs := make(chan string, len(cases)*4)
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i, c := range cases {
					r, err := p1812.Predict(c.in)
					if err != nil || !same(r, ref[i]) {
						errs <- c.id
					}
				}
			}()
		}
		wg.Wait()
		runtime.GOMAXPROCS(old)
		close(errs)
		for id := range errs {
			t.Errorf("GOMAXPROCS=%d: case %s differs from the first run", procs, id)
		}
	}
}

func TestKnifeEdgeJ(t *testing.T) {
	t.Parallel()
	path := filepath.Join(enginetest.Fixtures("p526_p525_formula"), "knife_edge_J_nu.csv")
	rows, err := enginetest.ReadCSV(path)
	if err != nil {
		t.Skipf("no knife-edge table: %v", err)
	}
	for _, row := range rows {
		nu, err1 := row.Float("nu")
		want, err2 := row.Float("J_approx_eq31_dB")
		if err1 != nil || err2 != nil {
			t.Fatalf("%v %v", err1, err2)
		}
		// The table prints 6 decimals.
		if got := p1812.KnifeEdgeJ(nu); math.Abs(got-want) > 6e-7 {
			t.Errorf("J(%g) = %.7f want %.6f", nu, got, want)
		}
	}
}

// TestDeygout checks the three-edge construction on flat-Earth geometries
// whose ν can be written down by hand.
func TestDeygout(t *testing.T) {
	t.Parallel()
	const (
		f      = 1.0 // GHz
		flatAp = 1e12
	)
	lam := p1812.SpeedOfLightMps / 1e9
	nu := func(h, d1, d2 float64) float64 { return h * math.Sqrt(0.002*(d1+d2)/(lam*d1*d2)) }
	tests := []struct {
		name string
		d, h []float64
		want float64
	}{
		{
			name: "no obstacle",
			d:    []float64{0, 5, 10},
			h:    []float64{0, -50, 0},
			want: 0,
		},
		{
			name: "single edge",
			d:    []float64{0, 4, 10},
			h:    []float64{0, 20, 0},
			want: func() float64 {
				j := p1812.KnifeEdgeJ(nu(20, 4, 6))
				return j + (1-math.Exp(-j/6))*(10+0.04*10)
			}(),
		},
		{
			name: "main edge with one subsidiary edge on each side",
			d:    []float64{0, 2, 5, 8, 10},
			h:    []float64{0, 10, 30, 12, 0},
			want: func() float64 {
				jp := p1812.KnifeEdgeJ(nu(30, 5, 5))
				// Sub-paths: 0–5 km from 0 m to 30 m and 5–10 km from 30 m to 0 m.
				jt := p1812.KnifeEdgeJ(nu(10-30*2.0/5, 2, 3))
				jr := p1812.KnifeEdgeJ(nu(12-30*2.0/5, 3, 2))
				return jp + (1-math.Exp(-jp/6))*(jt+jr+10+0.04*10)
			}(),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := p1812.Deygout(p1812.DiffractionInput{DKm: tc.d, HM: tc.h, FreqGHz: f, ApKm: flatAp})
			// The Earth bulge of ap = 1e12 km moves ν by about 1e-8.
			if math.Abs(got-tc.want) > 1e-6 {
				t.Errorf("got %.9f dB want %.9f dB", got, tc.want)
			}
		})
	}
}

// TestPredictDeygout checks that the Deygout option changes only the
// diffraction part: on a line-of-sight path with ample clearance both
// methods give the same Lb, and on the trans-horizon synthetic path both
// give a positive loss that shrinks with the larger radius ab.
func TestPredictDeygout(t *testing.T) {
	t.Parallel()
	in := baseInput(t)
	in.Diffraction = p1812.DeygoutMethod
	r, err := p1812.Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	in.Diffraction = p1812.DeltaBullingtonMethod
	rb, err := p1812.Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	// A larger effective Earth radius (ab > ae) lowers the obstacles, so
	// Ldβ ≤ Ld50, with either method.
	for _, x := range []p1812.Result{r, rb} {
		if x.Ld50DB <= 0 || x.LdbDB > x.Ld50DB {
			t.Errorf("trans-horizon: Ld50 %.3f dB, Ldβ %.3f dB", x.Ld50DB, x.LdbDB)
		}
	}
	if r.Lbulla50DB != 0 || r.LbfsDB != rb.LbfsDB || r.LbsDB != rb.LbsDB {
		t.Errorf("Deygout changed more than the diffraction part")
	}

	// 20 km over flat ground with 100 m masts: clear line of sight.
	n := 201
	flat := p1812.Input{FreqGHz: 0.9, TimePct: 50, HtgM: 100, HrgM: 100, Pol: p1812.Vertical,
		PhiT: -22.9, LamT: -43.2, PhiR: -22.9, LamR: -43.0, DeltaN: p1812.DefaultDeltaN, N0: p1812.DefaultN0,
		DctKm: 500, DcrKm: 500}
	for i := 0; i < n; i++ {
		flat.DKm = append(flat.DKm, 0.1*float64(i))
		flat.HMasl = append(flat.HMasl, 5)
	}
	a, err := p1812.Predict(flat)
	if err != nil {
		t.Fatal(err)
	}
	flat.Diffraction = p1812.DeygoutMethod
	b, err := p1812.Predict(flat)
	if err != nil {
		t.Fatal(err)
	}
	if a.Ld50DB != 0 || b.Ld50DB != 0 || a.LbDB != b.LbDB {
		t.Errorf("clear LoS: Ld50 %g / %g dB, Lb %g / %g dB", a.Ld50DB, b.Ld50DB, a.LbDB, b.LbDB)
	}
}

// TestDiffractionHeightsFlat checks that a flat profile below the ray has
// hstd = hsrd = ground height.
func TestDiffractionHeightsFlat(t *testing.T) {
	t.Parallel()
	d := []float64{0, 1, 2, 3, 4}
	h := []float64{12, 12, 12, 12, 12}
	hstd, hsrd := p1812.DiffractionHeights(d, h, 40, 30)
	if math.Abs(hstd-12) > 1e-9 || math.Abs(hsrd-12) > 1e-9 {
		t.Errorf("hstd, hsrd = %g, %g, want 12, 12", hstd, hsrd)
	}
}

func TestEpFromLb(t *testing.T) {
	t.Parallel()
	in := baseInput(t)
	r, err := p1812.Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := p1812.EpFromLb(r.LbDB, in.FreqGHz); got != r.EpDBuVm {
		t.Errorf("EpFromLb = %v, Result.EpDBuVm = %v", got, r.EpDBuVm)
	}
}
