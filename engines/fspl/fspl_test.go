package fspl_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/enginetest"
	"linkplan/engines/fspl"
)

// k as printed in the CSV (1.333333) stands for the exact rational.
func exactK(k float64) float64 {
	for _, r := range []float64{4.0 / 3.0, 1, 2.0 / 3.0} {
		if math.Abs(k-r) < 1e-5 {
			return r
		}
	}
	return k
}

// TestValidationSingleKnifeEdge runs every geometry of the P.526/P.525
// formula suite through the engine: a three-point profile (terminals on
// ground 0 m with the antenna tips as heights, one obstacle).
func TestValidationSingleKnifeEdge(t *testing.T) {
	t.Parallel()
	rows, err := enginetest.ReadCSV(enginetest.Dir("p526_p525_formula") + "/single_knife_edge_geometry.csv")
	if err != nil {
		t.Fatal(err)
	}
	s := enginetest.NewSuite(t, "fspl_single_knife_edge")
	for i, r := range rows {
		var v [9]float64
		for j, col := range []string{"f_MHz", "d_km", "k_factor", "tx_h_amsl_m", "rx_h_amsl_m", "obstacle_d1_km", "obstacle_h_amsl_m", "Ltotal_fs_plus_Japprox_dB", "J_approx_eq31_dB"} {
			if v[j], err = r.Float(col); err != nil {
				s.Fail(r["f_MHz"], err)
				continue
			}
		}
		e := fspl.New()
		e.K = exactK(v[2])
		p := &appliance.PathProfile{DistancesM: []float64{0, v[5] * 1000, v[1] * 1000}, HeightsM: []float64{0, v[6], 0}}
		got := e.Compute(p, v[3], v[4], v[0])
		tol := 1e-6 * math.Max(1, math.Abs(v[7]))
		id := fmt.Sprintf("row%d", i+2)
		s.Check(id+"/total", got.PathLossDB, v[7], tol)
		s.Check(id+"/J", got.DiffractionDB, math.Min(v[8], 40), 1e-6*math.Max(1, v[8]))
	}
	s.Done()
}

func TestFlatPathIsFreeSpaceAndClear(t *testing.T) {
	t.Parallel()
	n := 101
	p := &appliance.PathProfile{DistancesM: make([]float64, n), HeightsM: make([]float64, n)}
	for i := range n {
		p.DistancesM[i] = float64(i) * 100
	}
	got, err := fspl.New().Predict(context.Background(), appliance.LinkInput{Profile: p, TxHeightM: 30, RxHeightM: 30, FreqMHz: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if !got.LOSClear || !got.FresnelOK || got.DiffractionDB != 0 {
		t.Fatalf("flat 10 km path at 30 m masts: %+v", got)
	}
	want := 20 * math.Log10(4*math.Pi*10000/(299792458.0/1e9))
	if math.Abs(got.PathLossDB-want) > 1e-9 {
		t.Fatalf("loss %.9f want %.9f", got.PathLossDB, want)
	}
}

func TestBlockedPathCapsAt40dB(t *testing.T) {
	t.Parallel()
	p := &appliance.PathProfile{DistancesM: []float64{0, 5000, 10000}, HeightsM: []float64{0, 3000, 0}}
	got := fspl.New().Compute(p, 10, 10, 3500)
	if got.LOSClear || got.FresnelOK || got.DiffractionDB != 40 {
		t.Fatalf("mountain in the way: %+v", got)
	}
}

func TestMonotonicInDistanceAndFrequency(t *testing.T) {
	t.Parallel()
	e := fspl.New()
	prev := 0.0
	for d := 1000.0; d <= 100000; d *= 1.5 {
		p := &appliance.PathProfile{DistancesM: []float64{0, d / 2, d}, HeightsM: []float64{0, 0, 0}}
		l := e.Compute(p, 1000, 1000, 900).PathLossDB // high masts: free space only
		if l <= prev {
			t.Fatalf("loss not increasing with distance at %g m: %g <= %g", d, l, prev)
		}
		prev = l
	}
	prev = 0
	for f := 30.0; f <= 100000; f *= 1.7 {
		p := &appliance.PathProfile{DistancesM: []float64{0, 5000, 10000}, HeightsM: []float64{0, 0, 0}}
		l := e.Compute(p, 1000, 1000, f).PathLossDB
		if l <= prev {
			t.Fatalf("loss not increasing with frequency at %g MHz", f)
		}
		prev = l
	}
}

func TestValidateNamesFields(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		in    appliance.LinkInput
		field string
	}{
		{"nan frequency", appliance.LinkInput{FreqMHz: math.NaN(), Profile: &appliance.PathProfile{DistancesM: []float64{0, 1}, HeightsM: []float64{0, 0}}}, "frequency_mhz"},
		{"negative height", appliance.LinkInput{FreqMHz: 900, TxHeightM: -1, Profile: &appliance.PathProfile{DistancesM: []float64{0, 1}, HeightsM: []float64{0, 0}}}, "tx_height_m"},
		{"no profile", appliance.LinkInput{FreqMHz: 900}, "profile"},
		{"non-increasing", appliance.LinkInput{FreqMHz: 900, Profile: &appliance.PathProfile{DistancesM: []float64{0, 2, 1}, HeightsM: []float64{0, 0, 0}}}, "profile.distances_m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fspl.New().Predict(context.Background(), tc.in)
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) || ve.Fields[0].Field != tc.field {
				t.Fatalf("got %v, want a field error on %s", err, tc.field)
			}
		})
	}
}

func BenchmarkCompute50km(b *testing.B) {
	n := 556
	p := &appliance.PathProfile{DistancesM: make([]float64, n), HeightsM: make([]float64, n)}
	for i := range n {
		p.DistancesM[i] = float64(i) * 90
		p.HeightsM[i] = 100 + 80*math.Sin(float64(i)/17)
	}
	e := fspl.New()
	b.ReportAllocs()
	for b.Loop() {
		e.Compute(p, 30, 10, 1800)
	}
}

// xorshift returns a deterministic generator of floats in [0, 1) (no new
// dependency; the cases are the same on every run).
func xorshift(seed uint64) func() float64 {
	return func() float64 {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return float64(seed>>11) / (1 << 53)
	}
}

// randomLink is a random link over rough terrain: 2 to 401 samples 10 to
// 210 m apart, heights up to 1,500 m, antennas up to 100 and 30 m, 30 MHz
// to 20 GHz.
func randomLink(next func() float64) appliance.LinkInput {
	n := 2 + int(next()*400)
	p := &appliance.PathProfile{DistancesM: make([]float64, n), HeightsM: make([]float64, n)}
	step := 10 + 200*next()
	for i := range n {
		p.DistancesM[i] = float64(i) * step
		p.HeightsM[i] = 1500 * next() * next()
	}
	return appliance.LinkInput{TxHeightM: 100 * next(), RxHeightM: 30 * next(), FreqMHz: 30 + 20000*next(), Profile: p}
}

// TestPredictLossDBIsPredictsLoss: the loss-only path of the planner's
// sparse bounds gives Predict's PathLossDB bit for bit, and its errors.
func TestPredictLossDBIsPredictsLoss(t *testing.T) {
	t.Parallel()
	e := fspl.New()
	next := xorshift(20261126)
	for k := range 3000 {
		in := randomLink(next)
		if k%50 == 0 {
			in.FreqMHz = -1 // invalid: both refuse it
		}
		pred, perr := e.Predict(context.Background(), in)
		got, err := e.PredictLossDB(context.Background(), in)
		if (perr == nil) != (err == nil) || perr != nil && perr.Error() != err.Error() {
			t.Fatalf("case %d: error %v, Predict's %v", k, err, perr)
		}
		if perr == nil && math.Float64bits(got) != math.Float64bits(pred.PathLossDB) {
			t.Fatalf("case %d: %v dB, Predict's %v", k, got, pred.PathLossDB)
		}
	}
}

// TestSampleLossBoundIsPredictsLoss: the planner's sample-by-sample bound
// gives Predict's PathLossDB bit for bit from the largest ν of the
// interior samples, whatever their order, and Predict's errors for the
// ends; a subset of the samples never gives more loss than all of them.
func TestSampleLossBoundIsPredictsLoss(t *testing.T) {
	t.Parallel()
	e := fspl.New()
	next := xorshift(20261127)
	for k := range 3000 {
		in := randomLink(next)
		p := in.Profile
		n := p.Len()
		switch k % 50 {
		case 0:
			in.FreqMHz = -1 // invalid: both refuse it
		case 1:
			in.TxHeightM = math.NaN()
		}
		pred, perr := e.Predict(context.Background(), in)
		ends := in
		ends.Profile = &appliance.PathProfile{DistancesM: []float64{0, p.LengthM()}, HeightsM: []float64{p.HeightsM[0], p.HeightsM[n-1]}}
		var state [8]float64
		err := e.SampleLossBound(&ends, &state)
		nu := func(d1, h float64) float64 { return e.SampleNu(&state, d1, h) }
		lossDB := func(maxNu float64) float64 { return e.SampleLossDB(&state, maxNu) }
		if (perr == nil) != (err == nil) || perr != nil && perr.Error() != err.Error() {
			t.Fatalf("case %d: error %v, Predict's %v", k, err, perr)
		}
		if perr != nil {
			continue
		}
		maxNu, subNu := math.Inf(-1), math.Inf(-1)
		for i := n - 2; i >= 1; i-- { // backwards: the order does not matter
			v := nu(p.DistancesM[i], p.HeightsM[i])
			maxNu = max(maxNu, v)
			if i%3 == 0 {
				subNu = max(subNu, v)
			}
		}
		if got := lossDB(maxNu); math.Float64bits(got) != math.Float64bits(pred.PathLossDB) {
			t.Fatalf("case %d: %v dB, Predict's %v", k, got, pred.PathLossDB)
		}
		floor := e.SampleNuFloor(&state)
		for _, v := range []float64{floor, math.Nextafter(floor, -1), floor - 1, -1e300} {
			if got, none := lossDB(v), lossDB(math.Inf(-1)); math.Float64bits(got) != math.Float64bits(none) {
				t.Fatalf("case %d: ν %v at or below the floor %v gives %v dB, no interior sample %v", k, v, floor, got, none)
			}
		}
		if sub := lossDB(subNu); sub > pred.PathLossDB {
			t.Fatalf("case %d: every 3rd sample gives %v dB, more than all of them (%v)", k, sub, pred.PathLossDB)
		}
	}
}
