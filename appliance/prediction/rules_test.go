package prediction_test

import (
	"math"
	"strings"
	"testing"

	"linkplan/appliance/prediction"
	"linkplan/engines/ml"
)

func TestGrade(t *testing.T) {
	for _, tc := range []struct {
		name       string
		provenance string
		cv         float64
		grade      string
		claim      bool
	}{
		{"real 8.0 dB is planejamento", "real", 8.0, prediction.GradePlanejamento, true},
		{"real 8.0001 dB is triagem", "real", 8.0001, prediction.GradeTriagem, true},
		{"real 12.0 dB is triagem", "real", 12.0, prediction.GradeTriagem, true},
		{"real 12.0001 dB is screening", "real", 12.0001, prediction.GradeScreening, true},
		{"real 3 dB is planejamento", "real", 3, prediction.GradePlanejamento, true},
		{"real without cv_rmse", "real", 0, prediction.GradePipelineValidationOnly, false},
		{"real with NaN cv_rmse", "real", math.NaN(), prediction.GradePipelineValidationOnly, false},
		{"synthetic 5 dB", "synthetic", 5, prediction.GradePipelineValidationOnly, false},
		{"mixed 5 dB", "mixed", 5, prediction.GradePipelineValidationOnly, false},
		{"unknown 5 dB", "unknown", 5, prediction.GradePipelineValidationOnly, false},
		{"none", "none", 0, prediction.GradePipelineValidationOnly, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, c := prediction.Grade(tc.provenance, tc.cv)
			if g != tc.grade || c != tc.claim {
				t.Fatalf("Grade(%q, %v) = %s, %v; want %s, %v", tc.provenance, tc.cv, g, c, tc.grade, tc.claim)
			}
		})
	}
}

func TestRidgeConfidence(t *testing.T) {
	for _, tc := range []struct {
		name string
		cv   float64
		want float64
	}{
		{"8 dB gives 1, clipped to 0.9", 8, 0.9},
		{"10 dB gives 0.9", 10, 0.9},
		{"12 dB gives 0.8", 12, 0.8},
		{"18 dB gives 0.5", 18, 0.5},
		{"22 dB gives 0.3", 22, 0.3},
		{"30 dB clipped to 0.3", 30, 0.3},
		{"absent gives the floor 0.3", 0, 0.3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := prediction.RidgeConfidence(tc.cv); math.Abs(got-tc.want) > 1e-12 {
				t.Fatalf("RidgeConfidence(%v) = %v, want %v", tc.cv, got, tc.want)
			}
		})
	}
}

// stratified returns a real artifact passing every promotion check but
// those edit breaks.
func stratified(edit func(a *ml.Artifact)) *ml.Artifact {
	a := &ml.Artifact{ModelVersion: "residual-gbm-v1", DataProvenance: "real", CVRMSEDB: 7.9, NTrain: 5000,
		RMSEByBandDB: map[string]float64{}, RMSEByMorphologyDB: map[string]float64{}, Conformal: &ml.Calibration{
			Marginal: ml.Band{N: 5000, Alpha: 0.1, Coverage: 0.9, QAbsDB: 12, EmpiricalCoverage: 0.9}}}
	for _, r := range prediction.Regions {
		a.Conformal.ByGroup = append(a.Conformal.ByGroup, ml.GroupBand{Group: r, Band: ml.Band{N: 100, Alpha: 0.1, Coverage: 0.9, QAbsDB: 11, EmpiricalCoverage: 0.91}})
	}
	// BandFor binary-searches: sorted keys.
	byKey := map[string]ml.GroupBand{}
	for _, g := range a.Conformal.ByGroup {
		byKey[g.Group] = g
	}
	a.Conformal.ByGroup = nil
	for _, k := range []string{"CO", "N", "NE", "S", "SE"} {
		a.Conformal.ByGroup = append(a.Conformal.ByGroup, byKey[k])
	}
	for _, b := range prediction.BandKeys {
		a.RMSEByBandDB[b] = 7
	}
	for _, m := range prediction.Morphologies {
		a.RMSEByMorphologyDB[m] = 7
	}
	if edit != nil {
		edit(a)
	}
	return a
}

func TestGates(t *testing.T) {
	prev := &ml.Artifact{ModelVersion: "residual-gbm-v0", CVRMSEDB: 7.95}
	for _, tc := range []struct {
		name       string
		a, prev    *ml.Artifact
		soleSource bool
		promotion  bool
		failing    string // the name of a check that must fail ("" none)
	}{
		{"5,000 real rows at 7.9 dB: both gates", stratified(nil), prev, true, true, ""},
		{"4,999 real rows: neither", stratified(func(a *ml.Artifact) { a.NTrain = 4999 }), prev, false, false, "real_observations_at_least_5000"},
		{"cv_rmse exactly 8 dB is not below 8", stratified(func(a *ml.Artifact) { a.CVRMSEDB = 8 }), nil, false, false, "cv_rmse_below_8_db"},
		{"synthetic rows do not count", stratified(func(a *ml.Artifact) { a.DataProvenance = "synthetic" }), nil, false, false, "real_observations_at_least_5000"},
		{"no cv_rmse", stratified(func(a *ml.Artifact) { a.CVRMSEDB = 0 }), nil, false, false, "cv_rmse_below_8_db"},
		{"a region with 99 rows", stratified(func(a *ml.Artifact) { a.Conformal.ByGroup[1].N = 99 }), nil, true, false, "stratified_by_region"},
		{"a region without a band", stratified(func(a *ml.Artifact) { a.Conformal.ByGroup = a.Conformal.ByGroup[1:] }), nil, true, false, "stratified_by_region"},
		{"a band missing", stratified(func(a *ml.Artifact) { delete(a.RMSEByBandDB, "3500MHz") }), nil, true, false, "stratified_by_band"},
		{"a morphology missing", stratified(func(a *ml.Artifact) { delete(a.RMSEByMorphologyDB, "rural_mountainous") }), nil, true, false, "stratified_by_morphology"},
		{"regression against the previous model", stratified(nil), &ml.Artifact{CVRMSEDB: 7.5}, true, false, "no_regression"},
		{"band under-covers", stratified(func(a *ml.Artifact) { a.Conformal.Marginal.EmpiricalCoverage = 0.89 }), nil, true, false, "no_regression"},
		{"no model", nil, nil, false, false, "model_loaded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := prediction.Gates(tc.a, tc.prev, "")
			if v.SoleSourceEligible != tc.soleSource || v.PromotionEligible != tc.promotion {
				t.Fatalf("sole source %v, promotion %v; want %v, %v: %+v", v.SoleSourceEligible, v.PromotionEligible, tc.soleSource, tc.promotion, v.Checks)
			}
			for _, c := range v.Checks {
				if c.Name == tc.failing && c.Passed {
					t.Fatalf("check %s passed: %+v", c.Name, c)
				}
				if c.Name != tc.failing && !c.Passed && tc.failing != "" && tc.failing != "real_observations_at_least_5000" && tc.failing != "cv_rmse_below_8_db" {
					t.Fatalf("check %s failed too: %+v", c.Name, c)
				}
				if c.Detail == "" {
					t.Fatalf("check %s has no detail", c.Name)
				}
			}
		})
	}
}

func TestClassOf(t *testing.T) {
	for _, tc := range []struct {
		dbm  float64
		want string
	}{{-80, "strong"}, {-79.9, "strong"}, {-80.0001, "medium"}, {-100, "medium"}, {-100.0001, "weak"}, {-130, "weak"}} {
		if got := prediction.ClassOf(tc.dbm); got != tc.want {
			t.Errorf("ClassOf(%v) = %s, want %s", tc.dbm, got, tc.want)
		}
	}
	if !strings.Contains(prediction.EffectiveBandRule, "500") {
		t.Fatal("the documented rule lost its window size")
	}
}
