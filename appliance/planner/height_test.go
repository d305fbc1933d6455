package planner_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/planner"
	"linkplan/engines/fspl"
)

// bruteHeight evaluates every grid height from step to cap and returns the
// first that clears 60 % F1 with the target margin (0 when none does).
func bruteHeight(t *testing.T, p *planner.Planner, req appliance.HeightRequest) float64 {
	t.Helper()
	cur, err := p.AnalyzePair(context.Background(), req.Pair)
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; float64(k)*req.StepM <= req.MaxHeightM+1e-9; k++ {
		h := math.Round(float64(k)*req.StepM*1e6) / 1e6
		pr := req.Pair
		if req.Move == appliance.HeightMoveTower {
			moved := *cur.Tower
			moved.HeightM = h
			pr.TowerID, pr.Tower = "", &moved
		} else {
			pr.RxHeightM = h
		}
		lc, err := p.AnalyzePair(context.Background(), pr)
		if err != nil {
			t.Fatal(err)
		}
		if planner.ClearsFresnel60(lc) && lc.LinkMarginDB >= req.TargetMarginDB {
			return h
		}
	}
	return 0
}

// TestSuggestHeightMatchesBruteForce: on real Rio profiles (the embedded
// SRTM3 sample) the searched height equals the first grid height a brute
// force over every height finds, and a path no height under the cap can
// clear says so with the rule it misses.
func TestSuggestHeightMatchesBruteForce(t *testing.T) {
	ter := rioTerrain(t)
	near := appliance.Tower{ID: "user:near", Operator: "A", Lat: -22.975, Lon: -43.23, HeightM: 30, ERPDBm: 55, AzimuthDeg: math.NaN(), TiltDeg: math.NaN()}
	behind := appliance.Tower{ID: "user:behind", Operator: "B", Lat: -22.925, Lon: -43.31, HeightM: 30, ERPDBm: 55, AzimuthDeg: math.NaN(), TiltDeg: math.NaN()}
	niteroi := appliance.Tower{ID: "user:niteroi", Operator: "C", Lat: -22.90, Lon: -43.10, HeightM: 15, ERPDBm: 50, AzimuthDeg: math.NaN(), TiltDeg: math.NaN()}
	p := newPlanner(ter, []*appliance.Tower{&near, &behind, &niteroi}, fspl.New())
	base := func(tower string, lat, lon, rxH float64) appliance.PairRequest {
		r := request(lat, lon)
		return appliance.PairRequest{TowerID: tower, Receiver: r.Receiver, RxHeightM: rxH, FreqMHz: 5800,
			RxGainDBi: r.RxGainDBi, CableLossDB: r.CableLossDB, RxThresholdDBm: r.RxThresholdDBm, AssumedEIRPDBm: r.AssumedEIRPDBm}
	}
	cases := []struct {
		name      string
		req       appliance.HeightRequest
		wantFound bool
		wantRule  string
	}{
		{"receiver near tower, margin 10 dB", appliance.HeightRequest{Pair: base("user:near", -22.96, -43.21, 3), TargetMarginDB: 10, StepM: 0.5, MaxHeightM: 60}, true, ""},
		{"receiver across the bay, 1 m step", appliance.HeightRequest{Pair: base("user:niteroi", -22.93, -43.18, 2), TargetMarginDB: 0, StepM: 1, MaxHeightM: 80}, true, ""},
		{"tower across the bay", appliance.HeightRequest{Pair: base("user:niteroi", -22.93, -43.18, 20), Move: appliance.HeightMoveTower, TargetMarginDB: 5, StepM: 2, MaxHeightM: 300}, true, ""},
		{"receiver behind Tijuca, cap 40 m", appliance.HeightRequest{Pair: base("user:behind", -22.96, -43.21, 3), TargetMarginDB: 0, StepM: 1, MaxHeightM: 40}, false, "line_of_sight"},
		{"margin unreachable", appliance.HeightRequest{Pair: base("user:near", -22.96, -43.21, 3), TargetMarginDB: 99, StepM: 2, MaxHeightM: 40}, false, "margin"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := p.SuggestHeight(context.Background(), c.req)
			if err != nil {
				t.Fatal(err)
			}
			req := got.Request // defaults applied
			want := bruteHeight(t, p, req)
			if got.Found != c.wantFound || got.FailingRule != c.wantRule {
				t.Fatalf("found %v rule %q, want %v %q (min LOS %+v, F60 %+v)", got.Found, got.FailingRule, c.wantFound, c.wantRule, got.MinLOS, got.MinFresnel60)
			}
			if got.Found && got.HeightM != want || !got.Found && want != 0 {
				t.Fatalf("height %g m, brute force %g m", got.HeightM, want)
			}
			if got.Found && (got.At.LinkMarginDB < req.TargetMarginDB || !planner.ClearsFresnel60(got.At)) {
				t.Fatalf("stated height does not meet the rules: %+v", got.At)
			}
			t.Logf("height %g m (min LOS %+v, F60 %+v), %d evaluations", got.HeightM, got.MinLOS, got.MinFresnel60, got.Evaluated)
		})
	}
}

func TestValidateHeight(t *testing.T) {
	cases := []struct {
		name  string
		req   appliance.HeightRequest
		field string
	}{
		{"bad move", appliance.HeightRequest{Move: "mast"}, "move"},
		{"step too small", appliance.HeightRequest{StepM: 0.01}, "step_m"},
		{"cap above 500 m", appliance.HeightRequest{MaxHeightM: 501}, "max_height_m"},
		{"too many steps", appliance.HeightRequest{StepM: 0.1, MaxHeightM: 300}, "max_height_m"},
		{"margin NaN", appliance.HeightRequest{TargetMarginDB: math.NaN()}, "target_margin_db"},
		{"defaults are valid", appliance.HeightRequest{}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := planner.ValidateHeight(&c.req)
			if c.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ve *appliance.ValidationError
			if !asValidation(err, &ve) || !hasField(ve, c.field) {
				t.Fatalf("err = %v, want a field error on %s", err, c.field)
			}
		})
	}
}

func asValidation(err error, ve **appliance.ValidationError) bool { return errors.As(err, ve) }

func hasField(ve *appliance.ValidationError, field string) bool {
	for _, f := range ve.Fields {
		if f.Field == field {
			return true
		}
	}
	return false
}
