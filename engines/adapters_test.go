package engines_test

import (
	"math"
	"path/filepath"
	"testing"

	"linkplan/appliance"
	"linkplan/engines"
	"linkplan/engines/enginetest"
	"linkplan/engines/itm"
	"linkplan/engines/p1411"
	"linkplan/engines/p1812"
)

// TestP1812AdapterValidation runs every P.1812 validation case through
// PredictCase (explicit profile with clutter and zones) and checks it
// against p1812.Predict on the same input (bit-identical) and against the
// reference Lb (0.01 dB, the p1812 suite's tolerance).
func TestP1812AdapterValidation(t *testing.T) {
	reg := newRegistry(t)
	dir := enginetest.Dir("p1812")
	rows, err := enginetest.ReadCSV(filepath.Join(dir, "cases.csv"))
	if err != nil {
		t.Fatal(err)
	}
	s := enginetest.NewSuite(t, "engines/p1812-adapter")
	defer s.Done()
	for _, row := range rows {
		id := row["case_id"]
		num := func(col string) float64 {
			v, err := row.Float(col)
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			return v
		}
		prof := readP1812ProfileIn(t, dir, row["profile"])
		dM := make([]float64, len(prof.dKm))
		for i, d := range prof.dKm {
			dM[i] = d * 1000
		}
		pol := engines.PolVertical
		if num("pol") == 1 {
			pol = engines.PolHorizontal
		}
		dn, n0, dct, dcr := num("DN"), num("N0"), num("dct_km"), num("dcr_km")
		c := engines.Case{
			Engine:       appliance.EngineP1812,
			Tx:           engines.Terminal{Lat: num("phi_t_deg"), Lon: num("lam_t_deg"), HeightM: num("htg_m")},
			Rx:           engines.Terminal{Lat: num("phi_r_deg"), Lon: num("lam_r_deg"), HeightM: num("hrg_m")},
			FrequencyMHz: num("f_GHz") * 1000, TimePct: num("p_pct"), LocationPct: num("pL_pct"),
			Profile: &engines.CaseProfile{DistancesM: dM, HeightsM: prof.hM, ClutterHeightsM: prof.rM, Zones: prof.zone},
			P1812:   engines.P1812Params{DeltaN: &dn, N0: &n0, Polarization: pol, DctKm: &dct, DcrKm: &dcr},
		}
		got, err := reg.PredictCase(t.Context(), c, nil)
		if err != nil {
			s.Fail(id, err)
			continue
		}
		if got.FellBack || got.UsedEngine != appliance.EngineP1812 {
			t.Errorf("%s: used %s, fell back %v (%s)", id, got.UsedEngine, got.FellBack, got.FallbackReason)
		}
		dKm := make([]float64, len(dM))
		for i, d := range dM {
			dKm[i] = d / 1000
		}
		pp := p1812.Horizontal
		if pol == engines.PolVertical {
			pp = p1812.Vertical
		}
		direct, err := p1812.Predict(p1812.Input{
			FreqGHz: c.FrequencyMHz / 1000, TimePct: c.TimePct, LocPct: c.LocationPct,
			DKm: dKm, HMasl: prof.hM, RM: prof.rM, Zone: prof.zone,
			HtgM: c.Tx.HeightM, HrgM: c.Rx.HeightM, Pol: pp,
			PhiT: c.Tx.Lat, LamT: c.Tx.Lon, PhiR: c.Rx.Lat, LamR: c.Rx.Lon,
			DeltaN: dn, N0: n0, DctKm: dct, DcrKm: dcr,
		})
		if err != nil {
			t.Fatalf("%s: direct: %v", id, err)
		}
		if got.PathLossDB != direct.LbDB {
			t.Errorf("%s: adapter %.15g dB, p1812.Predict %.15g dB (must be bit-identical)", id, got.PathLossDB, direct.LbDB)
		}
		if got.Intermediate["lbfs_db"] != direct.LbfsDB || got.Intermediate["ae_km"] != direct.AeKm ||
			got.Intermediate["lbs_db"] != direct.LbsDB || got.DiffractionDB != direct.LdpDB {
			t.Errorf("%s: intermediates differ from p1812.Predict", id)
		}
		s.Check(id, got.PathLossDB, num("Lb_ref_dB"), 0.01)
	}
}

// TestITMAdapterValidation runs the NTIA-generated Rio de Janeiro cases
// (real SRTM profiles) through the itm adapter and checks them against the
// reference loss (0.001 dB, the printed precision) and itm.P2PTLS
// (1e-9 dB: the adapter recomputes the spacing as length/np).
func TestITMAdapterValidation(t *testing.T) {
	reg := newRegistry(t)
	dir := enginetest.Dir("itm")
	rows, err := enginetest.ReadCSV(filepath.Join(dir, "ntia_generated_rj_p2p_cases.csv"))
	if err != nil {
		t.Fatal(err)
	}
	s := enginetest.NewSuite(t, "engines/itm-adapter")
	defer s.Done()
	for _, row := range rows {
		id := row["case_id"]
		num := func(col string) float64 {
			v, err := row.Float(col)
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			return v
		}
		pfl := readPFLIn(t, dir, row["pfl"])
		in := appliance.LinkInput{
			Tx: appliance.LatLon{Lat: -22.9519, Lon: -43.2367}, Rx: appliance.LatLon{Lat: -22.9, Lon: -43.0},
			TxHeightM: num("h_tx__meter"), RxHeightM: num("h_rx__meter"), FreqMHz: num("f__mhz"),
			Profile: pflProfile(pfl),
		}
		sit := 50.0
		if row["variability"] == "TLS" {
			in.TimePct, in.LocationPct, sit = num("time_or_reliability"), num("location_or_confidence"), num("situation")
		} else {
			in.TimePct, in.LocationPct, sit = num("time_or_reliability"), 50, num("location_or_confidence")
		}
		n0, eps, sig := num("N_0"), num("epsilon"), num("sigma")
		md := int(num("mdvar"))
		pol := engines.PolVertical
		if num("pol") == 0 {
			pol = engines.PolHorizontal
		}
		dM := in.Profile.DistancesM
		c := engines.Case{Engine: appliance.EngineITM,
			Tx:           engines.Terminal{Lat: in.Tx.Lat, Lon: in.Tx.Lon, HeightM: in.TxHeightM},
			Rx:           engines.Terminal{Lat: in.Rx.Lat, Lon: in.Rx.Lon, HeightM: in.RxHeightM},
			FrequencyMHz: in.FreqMHz, TimePct: in.TimePct, LocationPct: in.LocationPct,
			Profile: &engines.CaseProfile{DistancesM: dM, HeightsM: in.Profile.HeightsM},
			ITM: engines.ITMParams{Climate: int(num("climate")), N0: &n0, Epsilon: &eps, SigmaSPerM: &sig,
				MdVar: &md, SituationPct: &sit, Polarization: pol},
		}
		got, err := reg.PredictCase(t.Context(), c, nil)
		if err != nil {
			s.Fail(id, err)
			continue
		}
		ipol := itm.PolVertical
		if pol == engines.PolHorizontal {
			ipol = itm.PolHorizontal
		}
		direct, err := itm.P2PTLS(itm.P2PInput{PFL: pfl, HTxM: in.TxHeightM, HRxM: in.RxHeightM, ClimateCode: int(num("climate")),
			N0: n0, FreqMHz: in.FreqMHz, Pol: ipol, Epsilon: eps, SigmaSm: sig, MdVar: md}, in.TimePct, in.LocationPct, sit)
		if err != nil {
			t.Fatalf("%s: direct: %v", id, err)
		}
		if !near(got.PathLossDB, direct.LossDB, 1e-9) {
			t.Errorf("%s: adapter %.12f dB, itm.P2PTLS %.12f dB", id, got.PathLossDB, direct.LossDB)
		}
		if len(got.Warnings) != len(direct.Warnings.Strings()) {
			t.Errorf("%s: warnings %v, want the ITM warnings %v", id, got.Warnings, direct.Warnings.Strings())
		}
		s.Check(id, got.PathLossDB, num("A__db"), 0.001)
	}
}

// TestP1411Adapter runs the p1411 engine on the first points (under 250 m)
// of a real P.1812 validation profile and checks the environment choice
// and the loss against engines/p1411 directly.
func TestP1411Adapter(t *testing.T) {
	prof := readP1812Profile(t, "profiles/rburg_urban_with_clutter.csv")
	short := &appliance.PathProfile{DistancesM: []float64{0, 100, 200}, HeightsM: prof.hM[:3]} // 0, 0.1, 0.2 km in the file
	if prof.dKm[2] != 0.2 {
		t.Fatalf("profile changed: third point at %g km", prof.dKm[2])
	}
	base := appliance.LinkInput{Tx: appliance.LatLon{Lat: 48.99, Lon: 12.08}, Rx: appliance.LatLon{Lat: 48.99, Lon: 12.0827},
		TxHeightM: 30, RxHeightM: 1.5, Profile: short}
	d3 := func(in appliance.LinkInput) float64 {
		return math.Hypot(200, (short.HeightsM[0]+in.TxHeightM)-(short.HeightsM[2]+in.RxHeightM))
	}
	tests := []struct {
		name    string
		env     string
		freq    float64
		txH     float64
		rxH     float64
		locPct  float64
		wantEnv string
		direct  func(d float64) (float64, error)
	}{
		{name: "auto LoS above 2.2 GHz is above-rooftop LoS", freq: 3500, txH: 30, rxH: 1.5, wantEnv: engines.P1411AboveLoS,
			direct: func(d float64) (float64, error) {
				l, _, err := p1411.AboveRooftop(p1411.AboveLoS, 3500, d)
				return l, err
			}},
		{name: "auto LoS below 2.2 GHz is below-rooftop LoS", freq: 1800, txH: 30, rxH: 1.5, wantEnv: engines.P1411BelowLoS,
			direct: func(d float64) (float64, error) {
				l, _, err := p1411.BelowRooftop(p1411.BelowLoS, 1800, d)
				return l, err
			}},
		{name: "auto street-level terminals is low-height urban", freq: 900, txH: 2, rxH: 1.5, locPct: 90, wantEnv: engines.P1411LowHeightUrban,
			direct: func(d float64) (float64, error) {
				l, _, err := p1411.LowHeight(p1411.LowUrban, 900, d, 90, p1411.DefaultTransitionWidthM)
				return l, err
			}},
		{name: "explicit NLoS residential", env: engines.P1411BelowNLoSResidential, freq: 2600, txH: 30, rxH: 1.5, wantEnv: engines.P1411BelowNLoSResidential,
			direct: func(d float64) (float64, error) {
				l, _, err := p1411.BelowRooftop(p1411.BelowNLoSResidential, 2600, d)
				return l, err
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg, err := engines.New(engines.Config{P1411: engines.P1411Params{Environment: tc.env}})
			if err != nil {
				t.Fatal(err)
			}
			in := base
			in.FreqMHz, in.TxHeightM, in.RxHeightM, in.LocationPct = tc.freq, tc.txH, tc.rxH, tc.locPct
			eng, err := reg.Get(appliance.EngineP1411)
			if err != nil {
				t.Fatal(err)
			}
			got, err := eng.Predict(t.Context(), in)
			if err != nil {
				t.Fatal(err)
			}
			if env := engines.P1411EnvironmentName(got.Intermediate["p1411_env_code"]); env != tc.wantEnv {
				t.Errorf("environment %q, want %q", env, tc.wantEnv)
			}
			want, err := tc.direct(d3(in))
			if err != nil {
				t.Fatal(err)
			}
			if got.PathLossDB != want {
				t.Errorf("loss %.12f dB, p1411 directly %.12f dB (want bit-identical)", got.PathLossDB, want)
			}
			if !got.LOSClear {
				t.Errorf("the 200 m urban profile start should be LOS clear")
			}
		})
	}
}

// TestHybridSwitch checks that the hybrid uses P.1411 below 250 m and
// P.1812 from 250 m on, with the branch engines' numbers.
func TestHybridSwitch(t *testing.T) {
	reg := newRegistry(t)
	prof := readP1812Profile(t, "profiles/rburg_urban_with_clutter.csv")
	mk := func(n int) appliance.LinkInput {
		p := &appliance.PathProfile{}
		for i := 0; i < n; i++ {
			p.DistancesM = append(p.DistancesM, prof.dKm[i]*1000)
			p.HeightsM = append(p.HeightsM, prof.hM[i])
		}
		return appliance.LinkInput{Tx: appliance.LatLon{Lat: 48.99, Lon: 12.08}, Rx: appliance.LatLon{Lat: 48.99, Lon: 12.09},
			TxHeightM: 30, RxHeightM: 10, FreqMHz: 3500, Profile: p}
	}
	hyb, _ := reg.Get(appliance.EngineHybrid)
	for _, tc := range []struct {
		name   string
		points int
		branch appliance.EngineID
	}{
		{name: "200 m uses P.1411", points: 3, branch: appliance.EngineP1411},
		{name: "300 m uses P.1812", points: 4, branch: appliance.EngineP1812},
		{name: "2 km uses P.1812", points: 21, branch: appliance.EngineP1812},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := mk(tc.points)
			got, err := hyb.Predict(t.Context(), in)
			if err != nil {
				t.Fatal(err)
			}
			sub, _ := reg.Get(tc.branch)
			want, err := sub.Predict(t.Context(), in)
			if err != nil {
				t.Fatal(err)
			}
			if got.Engine != appliance.EngineHybrid || got.PathLossDB != want.PathLossDB {
				t.Errorf("hybrid %s, branch %s", describe(got), describe(want))
			}
			if br := got.Intermediate["hybrid_p1411_branch"]; (br == 1) != (tc.branch == appliance.EngineP1411) {
				t.Errorf("hybrid_p1411_branch = %g", br)
			}
		})
	}
}

// TestP1812Defaults checks what the adapter fills in from a bare
// LinkInput: the Brazil refractivity defaults, 50 % time and locations,
// vertical polarisation, inland zones and the coastal zone from Sea flags.
func TestP1812Defaults(t *testing.T) {
	reg := newRegistry(t)
	in := rjLink(t)
	eng, _ := reg.Get(appliance.EngineP1812)
	got, err := eng.Predict(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	im := got.Intermediate
	for k, want := range map[string]float64{"delta_n_n_units_per_km": p1812.DefaultDeltaN, "n0_n_units": p1812.DefaultN0,
		"time_pct": 50, "location_pct": 50, "polarization_p1812": float64(p1812.Vertical), "dct_km": 500, "dcr_km": 500,
		"diffraction_deygout": 0} {
		if im[k] != want {
			t.Errorf("%s = %g, want %g", k, im[k], want)
		}
	}
	if !near(im["ae_km"], 6371*157/(157-50.0), 1e-9) {
		t.Errorf("ae_km = %g", im["ae_km"])
	}
	// The last 3 km of the Niterói path marked as sea: zones and coast distances follow.
	sea := make([]bool, in.Profile.Len())
	for i, d := range in.Profile.DistancesM {
		sea[i] = d > in.Profile.LengthM()-3000
	}
	in.Profile = &appliance.PathProfile{DistancesM: in.Profile.DistancesM, HeightsM: in.Profile.HeightsM, Sea: sea}
	z := engines.ZonesFromSea(in.Profile)
	first := -1
	for i, s := range sea {
		if s && first < 0 {
			first = i
		}
	}
	if z[first] != p1812.ZoneSea || z[0] == p1812.ZoneSea {
		t.Fatalf("zones %v", z)
	}
	seaPred, err := eng.Predict(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if want := in.Profile.DistancesM[first] / 1000; seaPred.Intermediate["dct_km"] != want || seaPred.Intermediate["dcr_km"] != 0 {
		t.Errorf("dct %g (want %g), dcr %g (want 0)", seaPred.Intermediate["dct_km"], want, seaPred.Intermediate["dcr_km"])
	}
	if seaPred.Intermediate["omega_sea_fraction"] <= 0 {
		t.Errorf("omega = %g, want > 0", seaPred.Intermediate["omega_sea_fraction"])
	}
}

// TestITMClimate checks the Brazil climate rule on real places.
func TestITMClimate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tx, rx appliance.LatLon
		sea    bool
		want   int
	}{
		{name: "Manaus equatorial", tx: appliance.LatLon{Lat: -3.10, Lon: -60.02}, rx: appliance.LatLon{Lat: -3.05, Lon: -59.9}, want: itm.ClimateEquatorial},
		{name: "Fortaleza equatorial", tx: appliance.LatLon{Lat: -3.73, Lon: -38.52}, rx: appliance.LatLon{Lat: -3.8, Lon: -38.6}, want: itm.ClimateEquatorial},
		{name: "Rio maritime subtropical", tx: appliance.LatLon{Lat: -22.9519, Lon: -43.2367}, rx: appliance.LatLon{Lat: -22.8833, Lon: -43.1036}, want: itm.ClimateMaritimeSubtropical},
		{name: "Curitiba maritime (about 90 km from the coast)", tx: appliance.LatLon{Lat: -25.43, Lon: -49.27}, rx: appliance.LatLon{Lat: -25.40, Lon: -49.20}, want: itm.ClimateMaritimeSubtropical},
		{name: "Brasília continental", tx: appliance.LatLon{Lat: -15.79, Lon: -47.88}, rx: appliance.LatLon{Lat: -15.9, Lon: -47.9}, want: itm.ClimateContinentalSubtropical},
		{name: "Campinas continental", tx: appliance.LatLon{Lat: -22.91, Lon: -47.06}, rx: appliance.LatLon{Lat: -22.95, Lon: -47.1}, want: itm.ClimateContinentalSubtropical},
		{name: "path over sea is maritime", tx: appliance.LatLon{Lat: -15.79, Lon: -47.88}, rx: appliance.LatLon{Lat: -15.9, Lon: -47.9}, sea: true, want: itm.ClimateMaritimeSubtropical},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := engines.ITMClimate(tc.tx, tc.rx, tc.sea); got != tc.want {
				t.Errorf("ITMClimate = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestPFLResample checks that a profile with a shorter last step (as the
// terrain packs return) is re-interpolated to equal spacing and that an
// equally spaced one is used as is.
func TestPFLResample(t *testing.T) {
	p := rjLink(t).Profile
	pfl, res := engines.PFL(p)
	if res || pfl[0] != float64(p.Len()-1) {
		t.Fatalf("equally spaced profile resampled=%v np=%g", res, pfl[0])
	}
	for i, h := range p.HeightsM {
		if pfl[2+i] != h {
			t.Fatalf("height %d changed", i)
		}
	}
	r := resample(p, 90) // 90 m steps, last one shorter
	pfl, res = engines.PFL(r)
	if !res {
		t.Fatal("unequal profile not resampled")
	}
	if want := r.LengthM() / float64(r.Len()-1); pfl[1] != want {
		t.Errorf("spacing %g, want %g", pfl[1], want)
	}
	if pfl[2] != r.HeightsM[0] || pfl[len(pfl)-1] != r.HeightsM[r.Len()-1] {
		t.Errorf("end heights changed")
	}
}
