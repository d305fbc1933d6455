package engines_test

import (
	"errors"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/engines"
)

// shortLink is a real 200 m stretch (the start of the Regensburg urban
// validation profile).
func shortLink(tb testing.TB) appliance.LinkInput {
	prof := readP1812Profile(tb, "profiles/rburg_urban_with_clutter.csv")
	return appliance.LinkInput{Tx: appliance.LatLon{Lat: 48.99, Lon: 12.08}, Rx: appliance.LatLon{Lat: 48.99, Lon: 12.0827},
		TxHeightM: 30, RxHeightM: 1.5, FreqMHz: 3500,
		Profile: &appliance.PathProfile{DistancesM: []float64{0, 100, 200}, HeightsM: prof.hM[:3]}}
}

func TestChoose(t *testing.T) {
	reg := newRegistry(t)
	long := rjLink(t)
	short := shortLink(t)
	with := func(in appliance.LinkInput, f func(*appliance.LinkInput)) appliance.LinkInput { f(&in); return in }
	for _, tc := range []struct {
		name   string
		in     appliance.LinkInput
		want   appliance.EngineID
		reason string // substring of the reason
	}{
		{name: "no profile", in: with(long, func(in *appliance.LinkInput) { in.Profile = nil }), want: appliance.EngineFSPL, reason: "no terrain profile"},
		{name: "200 m at 3.5 GHz", in: short, want: appliance.EngineHybrid, reason: "above-rooftop-los"},
		{name: "200 m at 1.8 GHz", in: with(short, func(in *appliance.LinkInput) { in.FreqMHz = 1800 }), want: appliance.EngineHybrid, reason: "below-rooftop-los"},
		{name: "200 m at 100 MHz", in: with(short, func(in *appliance.LinkInput) { in.FreqMHz = 100 }), want: appliance.EngineFSPL, reason: "no P.1411 model"},
		{name: "15.6 km at 700 MHz", in: long, want: appliance.EngineP1812, reason: "P.1812-8's scope"},
		{name: "15.6 km at 30 MHz", in: with(long, func(in *appliance.LinkInput) { in.FreqMHz = 30 }), want: appliance.EngineP1812},
		{name: "15.6 km at 6 GHz", in: with(long, func(in *appliance.LinkInput) { in.FreqMHz = 6000 }), want: appliance.EngineP1812},
		{name: "15.6 km at 10 GHz", in: with(long, func(in *appliance.LinkInput) { in.FreqMHz = 10000 }), want: appliance.EngineITM, reason: "inside ITM's"},
		{name: "15.6 km at 25 MHz", in: with(long, func(in *appliance.LinkInput) { in.FreqMHz = 25 }), want: appliance.EngineITM},
		{name: "90 % of time", in: with(long, func(in *appliance.LinkInput) { in.TimePct = 90 }), want: appliance.EngineITM},
		{name: "0.5 % of time", in: with(long, func(in *appliance.LinkInput) { in.TimePct = 0.5 }), want: appliance.EngineITM},
		{name: "ground-level receiver", in: with(long, func(in *appliance.LinkInput) { in.RxHeightM = 0 }), want: appliance.EngineFSPL},
		{name: "0.3 m receiver at 10 GHz", in: with(long, func(in *appliance.LinkInput) { in.RxHeightM = 0.3; in.FreqMHz = 10000 }), want: appliance.EngineFSPL},
		{name: "30 GHz", in: with(long, func(in *appliance.LinkInput) { in.FreqMHz = 30000 }), want: appliance.EngineFSPL, reason: "outside P.1812-8 and ITM"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, reason := reg.Choose(tc.in)
			if got != tc.want || !strings.Contains(reason, tc.reason) {
				t.Errorf("Choose = %s (%q), want %s (…%q…)", got, reason, tc.want, tc.reason)
			}
			if tc.in.Profile == nil {
				return
			}
			// The auto engine runs the chosen engine and reports it.
			auto, _ := reg.Get(appliance.EngineAuto)
			pred, err := auto.Predict(t.Context(), tc.in)
			if err != nil {
				t.Fatalf("auto predict: %v", err)
			}
			if pred.Engine != tc.want {
				t.Errorf("auto result engine %s, want %s", pred.Engine, tc.want)
			}
			eng, _ := reg.Get(tc.want)
			direct, err := eng.Predict(t.Context(), tc.in)
			if err != nil || direct.PathLossDB != pred.PathLossDB {
				t.Errorf("auto %.6f dB, %s directly %.6f dB (%v)", pred.PathLossDB, tc.want, direct.PathLossDB, err)
			}
		})
	}
}

func TestPredictWithFallback(t *testing.T) {
	reg := newRegistry(t)
	long := rjLink(t)
	short := shortLink(t)
	with := func(in appliance.LinkInput, f func(*appliance.LinkInput)) appliance.LinkInput { f(&in); return in }
	for _, tc := range []struct {
		name     string
		id       appliance.EngineID
		in       appliance.LinkInput
		fellBack bool
		reason   string             // substring of the fallback reason
		errIs    error              // expected error class
		fields   string             // fields of the expected ValidationError
		used     appliance.EngineID // engine of the result
	}{
		{name: "p1812 in range", id: appliance.EngineP1812, in: long, used: appliance.EngineP1812},
		{name: "p1812 at 10 GHz", id: appliance.EngineP1812, in: with(long, func(in *appliance.LinkInput) { in.FreqMHz = 10000 }), fellBack: true, reason: "frequency_mhz"},
		{name: "p1812 at 90 % time", id: appliance.EngineP1812, in: with(long, func(in *appliance.LinkInput) { in.TimePct = 90 }), fellBack: true, reason: "time_pct"},
		{name: "p1812 on 200 m", id: appliance.EngineP1812, in: short, fellBack: true, reason: "distance_km"},
		{name: "p1812 with ground-level antenna", id: appliance.EngineP1812, in: with(long, func(in *appliance.LinkInput) { in.RxHeightM = 0 }), fellBack: true, reason: "rx_height_m"},
		{name: "itm at 40 GHz", id: appliance.EngineITM, in: with(long, func(in *appliance.LinkInput) { in.FreqMHz = 40000 }), fellBack: true, reason: "frequency_mhz"},
		{name: "itm 0.2 m antenna", id: appliance.EngineITM, in: with(long, func(in *appliance.LinkInput) { in.TxHeightM = 0.2 }), fellBack: true, reason: "tx_height_m"},
		{name: "p1411 on 15 km", id: appliance.EngineP1411, in: long, fellBack: true, reason: "shorter than 250"},
		{name: "hybrid short at 100 MHz", id: appliance.EngineHybrid, in: with(short, func(in *appliance.LinkInput) { in.FreqMHz = 100 }), fellBack: true, reason: "no P.1411"},
		{name: "raytrace is asynchronous", id: appliance.EngineRaytrace, in: long, fellBack: true, reason: "asynchronous"},
		{name: "auto at 30 GHz answers with fspl itself", id: appliance.EngineAuto, in: with(long, func(in *appliance.LinkInput) { in.FreqMHz = 30000 }), used: appliance.EngineFSPL},
		{name: "unknown engine", id: "cost231", in: long, errIs: appliance.ErrInvalid, fields: "engine"},
		{name: "NaN frequency", id: appliance.EngineP1812, in: with(long, func(in *appliance.LinkInput) { in.FreqMHz = nan() }), errIs: appliance.ErrInvalid, fields: "frequency_mhz"},
		{name: "negative height", id: appliance.EngineITM, in: with(long, func(in *appliance.LinkInput) { in.TxHeightM = -1 }), errIs: appliance.ErrInvalid, fields: "tx_height_m"},
		{name: "bad profile", id: appliance.EngineP1812, in: with(long, func(in *appliance.LinkInput) {
			in.Profile = &appliance.PathProfile{DistancesM: []float64{0, 100, 100}, HeightsM: []float64{1, 2, 3}}
		}), errIs: appliance.ErrInvalid, fields: "profile.distances_m"},
		{name: "nil profile", id: appliance.EngineITM, in: with(long, func(in *appliance.LinkInput) { in.Profile = nil }), errIs: appliance.ErrInvalid, fields: "profile"},
		{name: "time 100 %", id: appliance.EngineP1812, in: with(long, func(in *appliance.LinkInput) { in.TimePct = 100 }), errIs: appliance.ErrInvalid, fields: "time_pct"},
		{name: "fspl refuses too at 25 MHz", id: appliance.EngineP1411, in: with(long, func(in *appliance.LinkInput) { in.FreqMHz = 25 }), errIs: appliance.ErrInvalid, fields: "frequency_mhz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pred, fell, reason, err := reg.PredictWithFallback(t.Context(), tc.id, tc.in)
			if tc.errIs != nil {
				if !errors.Is(err, tc.errIs) || fieldsOf(err) != tc.fields {
					t.Fatalf("err = %v (fields %q), want %v on %q", err, fieldsOf(err), tc.errIs, tc.fields)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fell != tc.fellBack || !strings.Contains(reason, tc.reason) {
				t.Errorf("fellBack %v reason %q, want %v …%q…", fell, reason, tc.fellBack, tc.reason)
			}
			used := tc.used
			if tc.fellBack {
				used = appliance.EngineFSPL
				if w := pred.Warnings; len(w) == 0 || w[len(w)-1].Code != appliance.WarnEngineFallback || !strings.Contains(w[len(w)-1].Message, reason) {
					t.Errorf("warnings %v do not carry the reason", pred.Warnings)
				}
				want := reg.FSPL().Compute(tc.in.Profile, tc.in.TxHeightM, tc.in.RxHeightM, tc.in.FreqMHz)
				if pred.PathLossDB != want.PathLossDB {
					t.Errorf("fallback %.6f dB, fspl %.6f dB", pred.PathLossDB, want.PathLossDB)
				}
			}
			if pred.Engine != used {
				t.Errorf("engine %s, want %s", pred.Engine, used)
			}
		})
	}
	t.Run("outside-envelope error without fallback", func(t *testing.T) {
		eng, _ := reg.Get(appliance.EngineP1812)
		_, err := eng.Predict(t.Context(), with(long, func(in *appliance.LinkInput) { in.FreqMHz = 10000 }))
		var ee *engines.EnvelopeError
		if !errors.Is(err, appliance.ErrOutsideEnvelope) || !errors.As(err, &ee) || ee.Field != "frequency_mhz" || ee.Engine != appliance.EngineP1812 {
			t.Fatalf("err = %v, want an EnvelopeError of p1812 on frequency_mhz", err)
		}
		if errors.Is(err, appliance.ErrInvalid) {
			t.Errorf("an envelope error must not read as malformed input")
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		ctx, cancel := contextWithCancel(t)
		cancel()
		if _, _, _, err := reg.PredictWithFallback(ctx, appliance.EngineP1812, long); err == nil {
			t.Fatal("no error on a cancelled context")
		}
	})
	t.Run("WithFallback engine", func(t *testing.T) {
		eng, err := reg.WithFallback(appliance.EngineP1812)
		if err != nil {
			t.Fatal(err)
		}
		pred, err := eng.Predict(t.Context(), with(long, func(in *appliance.LinkInput) { in.FreqMHz = 10000 }))
		if err != nil || pred.Engine != appliance.EngineFSPL {
			t.Fatalf("pred %s err %v, want the fspl fallback", describe(pred), err)
		}
		if _, err := reg.WithFallback("cost231"); !errors.Is(err, appliance.ErrInvalid) {
			t.Errorf("unknown id: err = %v", err)
		}
	})
}
