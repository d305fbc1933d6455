package ml_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/ml"
	"linkplan/engines/ml/learn"
)

// writeArtifacts creates the committed artifacts of testdata/artifacts
// when they are absent; it never overwrites one, because their point is
// to stay as an older build wrote them:
//
//	go test ./engines/ml -run TestCommittedArtifacts -write-artifacts
var writeArtifacts = flag.Bool("write-artifacts", false, "create missing testdata/artifacts files")

// schema17 and schema27 are test fixtures shaped like SPEC §2.5's vectors:
// 17 features, and 27 with the 10-class clutter one-hot.
func schema17() ml.FeatureSchema {
	return ml.FeatureSchema{Version: 1, Names: []string{
		"log_distance_km", "log_freq_mhz", "tx_height_m", "rx_height_m", "tx_power_dbm", "tx_gain_dbi", "rx_gain_dbi",
		"terrain_mean_m", "terrain_max_m", "terrain_std_m", "terrain_slope_deg", "obstruction_count",
		"max_obstruction_m", "min_fresnel_ratio", "log_d_sq", "log_d_log_f", "terrain_std_log_d",
	}}
}

func schema27() ml.FeatureSchema {
	s := schema17()
	s.Version = 2
	for _, c := range []string{"forest", "savanna", "grassland", "pasture", "mosaic", "urban", "bare", "water", "soybean", "other"} {
		s.Names = append(s.Names, "clutter_"+c)
	}
	return s
}

// committed lists the artifacts of testdata/artifacts and how they were
// made.
var committed = []struct {
	file  string
	build func(t *testing.T) *ml.Artifact
}{
	{"ridge-17-schema1.json", func(t *testing.T) *ml.Artifact {
		X, y := synth(3000, 17, 3, 101)
		m, err := learn.TrainRidge(X, y, 1)
		if err != nil {
			t.Fatal(err)
		}
		fold, _ := ml.KFold(len(y), 5, ml.CVSeed)
		cv, err := ml.CrossValidate(X, y, fold, func(X [][]float64, y []float64) (ml.Predictor, error) { return learn.TrainRidge(X, y, 1) }, 1)
		if err != nil {
			t.Fatal(err)
		}
		res := make([]float64, len(y))
		groups := make([]string, len(y))
		for i := range y {
			res[i] = y[i] - cv.OOF[i]
			groups[i] = []string{"N", "NE", "CO", "SE", "S"}[i%5]
		}
		c, err := ml.FitMondrian(res, groups, ml.DefaultAlpha)
		if err != nil {
			t.Fatal(err)
		}
		return &ml.Artifact{Kind: ml.KindRidge, ModelVersion: "ridge-v1", Schema: schema17(), DataProvenance: "synthetic",
			TrainedAtUnixS: 1795000000, NTrain: len(y), CVRMSEDB: cv.RMSEDB, CVRMSEStdDB: cv.StdDB, CVFolds: 5, Ridge: m, Conformal: &c}
	}},
	{"gbm-17-schema1.json", func(t *testing.T) *ml.Artifact {
		X, y := synth(3000, 17, 3, 102)
		m, err := learn.TrainGBM(X, y, ml.GBMParams{Iterations: 15, MaxLeafNodes: 8})
		if err != nil {
			t.Fatal(err)
		}
		return &ml.Artifact{Kind: ml.KindGBM, ModelVersion: "residual-gbm-v1", Schema: schema17(), DataProvenance: "synthetic", NTrain: len(y), GBM: m}
	}},
	{"gbm-27-schema2.json", func(t *testing.T) *ml.Artifact {
		X, y := synth(3000, 27, 3, 103)
		m, err := learn.TrainGBM(X, y, ml.GBMParams{Iterations: 15, MaxLeafNodes: 8})
		if err != nil {
			t.Fatal(err)
		}
		return &ml.Artifact{Kind: ml.KindGBM, ModelVersion: "residual-gbm-v1", Schema: schema27(), DataProvenance: "synthetic", NTrain: len(y), GBM: m}
	}},
}

// golden is the predictions file beside the artifacts: inputs and the
// prediction each artifact gave when it was written.
type golden struct {
	X    [][]float64 `json:"x"`
	Pred []float64   `json:"pred"`
}

// TestCommittedArtifacts loads the artifacts an earlier build wrote (the
// 17-feature schema among them) and requires the predictions it recorded,
// bit for bit.
func TestCommittedArtifacts(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "artifacts")
	for _, c := range committed {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			gpath := strings.TrimSuffix(path, ".json") + ".predictions.json"
			if _, err := os.Stat(path); os.IsNotExist(err) && *writeArtifacts {
				a := c.build(t)
				var b bytes.Buffer
				if err := ml.WriteArtifact(&b, a); err != nil {
					t.Fatal(err)
				}
				X, _ := synth(20, len(a.Schema.Names), 0, 999)
				g := golden{X: X}
				for _, x := range X {
					p, err := a.Predict(x)
					if err != nil {
						t.Fatal(err)
					}
					g.Pred = append(g.Pred, p)
				}
				gb, _ := json.MarshalIndent(g, "", " ")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(gpath, append(gb, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			a, err := ml.ReadArtifact(f)
			if err != nil {
				t.Fatal(err)
			}
			gb, err := os.ReadFile(gpath)
			if err != nil {
				t.Fatal(err)
			}
			var g golden
			if err := json.Unmarshal(gb, &g); err != nil {
				t.Fatal(err)
			}
			if len(g.X) == 0 {
				t.Fatal("no golden predictions")
			}
			for i, x := range g.X {
				p, err := a.Predict(x)
				if err != nil {
					t.Fatal(err)
				}
				if math.Float64bits(p) != math.Float64bits(g.Pred[i]) {
					t.Fatalf("row %d: %v, recorded %v", i, p, g.Pred[i])
				}
			}
			if _, err := a.Predict(make([]float64, len(a.Schema.Names)+1)); !errors.Is(err, appliance.ErrInvalid) {
				t.Errorf("a vector longer than the schema: error %v, want ErrInvalid", err)
			}
		})
	}
}

// TestArtifactRoundTrip writes and reads freshly trained models and
// requires identical predictions.
func TestArtifactRoundTrip(t *testing.T) {
	t.Parallel()
	X, y := synth(2000, 17, 3, 55)
	g, err := learn.TrainGBM(X, y, ml.GBMParams{Iterations: 20})
	if err != nil {
		t.Fatal(err)
	}
	r, err := learn.TrainRidge(X, y, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		a    *ml.Artifact
		p    ml.Predictor
	}{
		{"gbm", &ml.Artifact{Kind: ml.KindGBM, ModelVersion: "residual-gbm-v1", Schema: schema17(), GBM: g}, g},
		{"ridge", &ml.Artifact{Kind: ml.KindRidge, ModelVersion: "ridge-v1", Schema: schema17(), Ridge: r}, r},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := ml.WriteArtifact(&b, tc.a); err != nil {
				t.Fatal(err)
			}
			a, err := ml.ReadArtifact(&b)
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range X {
				p, err := a.Predict(x)
				if err != nil {
					t.Fatal(err)
				}
				if math.Float64bits(p) != math.Float64bits(tc.p.Predict(x)) {
					t.Fatalf("row %d: %v after the round trip, %v before", i, p, tc.p.Predict(x))
				}
			}
		})
	}
}

// validArtifact returns a small valid GBM artifact as a JSON object to
// mutate.
func validArtifact(t testing.TB) map[string]any {
	t.Helper()
	X, y := synth(300, 6, 1, 8)
	m, err := learn.TrainGBM(X, y, ml.GBMParams{Iterations: 3, MaxLeafNodes: 4})
	if err != nil {
		t.Fatal(err)
	}
	c, err := ml.FitMondrian(y, nil, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	a := &ml.Artifact{Kind: ml.KindGBM, ModelVersion: "residual-gbm-v1", Conformal: &c,
		Schema: ml.FeatureSchema{Version: 1, Names: []string{"a", "b", "c", "d", "e", "f"}}, GBM: m}
	var b bytes.Buffer
	if err := ml.WriteArtifact(&b, a); err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestReadArtifactRejects lists malformed artifacts, each refused with
// ErrArtifact.
func TestReadArtifactRejects(t *testing.T) {
	t.Parallel()
	node := func(v map[string]any) map[string]any {
		return v["gbm"].(map[string]any)["trees"].([]any)[0].(map[string]any)["nodes"].([]any)[0].(map[string]any)
	}
	cases := []struct {
		name   string
		mutate func(v map[string]any)
		raw    string
	}{
		{name: "not JSON", raw: "MODEL\x00"},
		{name: "empty", raw: ""},
		{name: "data after the object", raw: "{}{}"},
		{name: "another format", mutate: func(v map[string]any) { v["format"] = "onnx" }},
		{name: "a newer version", mutate: func(v map[string]any) { v["version"] = ml.ArtifactVersion + 1 }},
		{name: "version 0", mutate: func(v map[string]any) { v["version"] = 0 }},
		{name: "an unknown field", mutate: func(v map[string]any) { v["weights_url"] = "x" }},
		{name: "an unknown kind", mutate: func(v map[string]any) { v["kind"] = "svm" }},
		{name: "kind ridge holding a gbm", mutate: func(v map[string]any) { v["kind"] = "ridge" }},
		{name: "no model_version", mutate: func(v map[string]any) { v["model_version"] = "" }},
		{name: "schema version 0", mutate: func(v map[string]any) { v["feature_schema"].(map[string]any)["version"] = 0 }},
		{name: "repeated feature name", mutate: func(v map[string]any) {
			v["feature_schema"].(map[string]any)["names"] = []any{"a", "b", "c", "d", "e", "a"}
		}},
		{name: "schema shorter than the model", mutate: func(v map[string]any) {
			v["feature_schema"].(map[string]any)["names"] = []any{"a", "b", "c"}
		}},
		{name: "a child before its parent (a cycle)", mutate: func(v map[string]any) { node(v)["l"] = 0 }},
		{name: "a child past the last node", mutate: func(v map[string]any) { node(v)["r"] = 999 }},
		{name: "a feature outside the schema", mutate: func(v map[string]any) { node(v)["f"] = 6 }},
		{name: "a negative feature other than the leaf mark", mutate: func(v map[string]any) { node(v)["f"] = -2 }},
		{name: "a tree without nodes", mutate: func(v map[string]any) {
			v["gbm"].(map[string]any)["trees"].([]any)[0].(map[string]any)["nodes"] = []any{}
		}},
		{name: "best_iteration disagreeing with the trees", mutate: func(v map[string]any) { v["gbm"].(map[string]any)["best_iteration"] = 7 }},
		{name: "a negative cv_rmse_db", mutate: func(v map[string]any) { v["cv_rmse_db"] = -1 }},
		{name: "a negative rmse_db", mutate: func(v map[string]any) { v["rmse_db"] = -0.5 }},
		{name: "a negative rmse_by_band_db value", mutate: func(v map[string]any) { v["rmse_by_band_db"] = map[string]any{"700MHz": -1} }},
		{name: "an empty rmse_by_morphology_db key", mutate: func(v map[string]any) { v["rmse_by_morphology_db"] = map[string]any{"": 3} }},
		{name: "conformal_out_of_group coverage above 1", mutate: func(v map[string]any) {
			v["conformal_out_of_group"] = []any{map[string]any{"region_code": "SE",
				"band":   map[string]any{"n_calibration": 50, "alpha": 0.1, "coverage": 0.9, "q_abs_db": 1, "q_lo_db": -1, "q_hi_db": 1, "empirical_coverage": 0.9, "mean_width_db": 2},
				"report": map[string]any{"n": 10, "covered": 12, "empirical_coverage": 1.2, "mean_width_db": 2, "mondrian": 0}}}
		}},
		{name: "a conformal band with q_lo above q_hi", mutate: func(v map[string]any) {
			m := v["conformal"].(map[string]any)["marginal"].(map[string]any)
			m["q_lo_db"], m["q_hi_db"] = 5.0, -5.0
		}},
		{name: "an envelope without description", mutate: func(v map[string]any) {
			v["envelope"] = map[string]any{"description": " ", "bands": []any{map[string]any{"name": "B3", "min_mhz": 1710, "max_mhz": 1880}}}
		}},
		{name: "an envelope band upside down", mutate: func(v map[string]any) {
			v["envelope"] = map[string]any{"description": "x", "bands": []any{map[string]any{"name": "B3", "min_mhz": 1880, "max_mhz": 1710}}}
		}},
		{name: "an envelope area past the pole", mutate: func(v map[string]any) {
			v["envelope"] = map[string]any{"description": "x", "areas": []any{map[string]any{"name": "a", "min_lat": 10, "min_lon": 0, "max_lat": 95, "max_lon": 1}}}
		}},
		{name: "an envelope with an unknown field", mutate: func(v map[string]any) {
			v["envelope"] = map[string]any{"description": "x", "polygon": []any{}}
		}},
		{name: "conformal groups out of order", mutate: func(v map[string]any) {
			v["conformal"].(map[string]any)["by_group"] = []any{
				map[string]any{"region_code": "S", "n_calibration": 50, "alpha": 0.1, "coverage": 0.9, "q_abs_db": 1, "q_lo_db": -1, "q_hi_db": 1, "empirical_coverage": 0.9, "mean_width_db": 2},
				map[string]any{"region_code": "N", "n_calibration": 50, "alpha": 0.1, "coverage": 0.9, "q_abs_db": 1, "q_lo_db": -1, "q_hi_db": 1, "empirical_coverage": 0.9, "mean_width_db": 2},
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw := []byte(tc.raw)
			if tc.mutate != nil {
				v := validArtifact(t)
				tc.mutate(v)
				var err error
				if raw, err = json.Marshal(v); err != nil {
					t.Fatal(err)
				}
			}
			a, err := ml.ReadArtifact(bytes.NewReader(raw))
			if !errors.Is(err, ml.ErrArtifact) || !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("ReadArtifact = %v, %v; want ErrArtifact", a, err)
			}
			t.Log(err)
		})
	}
	t.Run("the unmutated artifact loads", func(t *testing.T) {
		raw, _ := json.Marshal(validArtifact(t))
		if _, err := ml.ReadArtifact(bytes.NewReader(raw)); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzReadArtifact feeds arbitrary bytes to ReadArtifact: it must never
// panic, and an artifact it accepts must predict without panicking and
// survive a write/read round trip with the same predictions. Minimising
// an interesting JSON input takes the fuzzer minutes, so bound it:
//
//	go test ./engines/ml -run '^$' -fuzz FuzzReadArtifact -fuzztime 60s -fuzzminimizetime 2s
func FuzzReadArtifact(f *testing.F) {
	// The committed GBM artifacts (18 kB) are left out of the seeds (slow
	// to mutate and minimise); the small GBM below has the same fields.
	if b, err := os.ReadFile(filepath.Join("testdata", "artifacts", "ridge-17-schema1.json")); err == nil {
		f.Add(b)
	}
	v := validArtifact(f)
	b, _ := json.Marshal(v)
	f.Add(b)
	f.Add([]byte(`{"format":"linkplan-ml-model","version":1}`))
	// Layout 3: hull, validity, attestation, physics baseline, unseen band.
	f.Add([]byte(`{"format":"linkplan-ml-model","version":3,"kind":"ridge","model_version":"r","feature_schema":{"version":1,"names":["a"]},` +
		`"ridge":{"lambda":0,"y_mean":1,"mean":[0],"scale":[0],"coef":[0]},` +
		`"envelope":{"description":"d","hulls":[{"name":"h","ring":[[-22.9,-43.2],[-22.8,-43.1],[-22.9,-43.1]],"margin_m":1000}],` +
		`"bands":[{"name":"1800MHz","min_mhz":1710,"max_mhz":1890}],"validity":{"engine":"p1812-p1411-hybrid","min_mhz":30,"max_mhz":6000}},` +
		`"attestation":{"sources":[{"source":"drivetest_tems","basis":"b","attested_by":"o","attested_at":1.5e9,"scope":"appliance","rows":3}],` +
		`"attested_rows":3,"unattested_rows":0,"synthetic_rows":0},"physics_baseline":{"engine":"fspl","eirp_offset_dbm":1.5,"rmse_db":8},` +
		`"conformal":{"marginal":{"n_calibration":20,"alpha":0.1,"coverage":0.9,"q_abs_db":5,"q_lo_db":-5,"q_hi_db":5,"empirical_coverage":0.9,"mean_width_db":10},` +
		`"unseen":{"band":{"n_calibration":20,"alpha":0.1,"coverage":0.9,"q_abs_db":6,"q_lo_db":-6,"q_hi_db":6,"empirical_coverage":0.95,"mean_width_db":12},` +
		`"method":"cluster_bootstrap_upper_conformal","level":0.95,"resamples":500,"groups":[{"name":"g","basis":"leave_cell_out","n":20,"units":4,` +
		`"q_abs_db":5,"q_abs_upper_db":6,"empirical_coverage":0.95}],"seen_transmitters":["-22.9000,-43.2000,1800.0"]}}}`))
	f.Add([]byte(`{"format":"linkplan-ml-model","version":1,"kind":"ridge","model_version":"r","feature_schema":{"version":1,"names":["a"]},"ridge":{"lambda":0,"y_mean":1,"mean":[0],"scale":[0],"coef":[0]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ml.ReadArtifact(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ml.ErrArtifact) {
				t.Fatalf("error %v does not match ErrArtifact", err)
			}
			return
		}
		x := make([]float64, len(a.Schema.Names))
		for i := range x {
			x[i] = float64(i) - 2.5
		}
		p1, err := a.Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := ml.WriteArtifact(&buf, a); err != nil {
			t.Fatalf("an accepted artifact does not write: %v", err)
		}
		b, err := ml.ReadArtifact(&buf)
		if err != nil {
			t.Fatalf("a written artifact does not read: %v", err)
		}
		p2, _ := b.Predict(x)
		if math.Float64bits(p1) != math.Float64bits(p2) && !(math.IsNaN(p1) && math.IsNaN(p2)) {
			t.Fatalf("prediction %v before the round trip, %v after", p1, p2)
		}
	})
}

// TestArtifactAccuracyFields round-trips the optional accuracy summary
// (rmse_db, per morphology and band, out-of-region coverage).
func TestArtifactAccuracyFields(t *testing.T) {
	t.Parallel()
	X, y := synth(400, 6, 1, 9)
	m, err := learn.TrainRidge(X, y, 1)
	if err != nil {
		t.Fatal(err)
	}
	pred := make([]float64, len(y))
	for i, x := range X {
		pred[i] = m.Predict(x)
	}
	res := make([]float64, len(y))
	groups := make([]string, len(y))
	for i := range y {
		res[i] = y[i] - pred[i]
		groups[i] = []string{"N", "SE", "S"}[i%3]
	}
	oog, err := ml.OutOfGroupCoverage(res, groups, 0.1)
	if err != nil || len(oog) != 3 {
		t.Fatalf("out-of-group coverage: %v, %d groups", err, len(oog))
	}
	in := &ml.Artifact{Kind: ml.KindRidge, ModelVersion: "ridge-v1", Ridge: m, RMSEDB: 1.25,
		Schema:              ml.FeatureSchema{Version: 1, Names: []string{"a", "b", "c", "d", "e", "f"}},
		RMSEByMorphologyDB:  map[string]float64{"open_or_flat": 1.5, "rural_rolling": 2.25},
		RMSEByBandDB:        map[string]float64{"700MHz": 3, "1800MHz": 4.5},
		ConformalOutOfGroup: oog}
	var b bytes.Buffer
	if err := ml.WriteArtifact(&b, in); err != nil {
		t.Fatal(err)
	}
	out, err := ml.ReadArtifact(&b)
	if err != nil {
		t.Fatal(err)
	}
	if out.RMSEDB != 1.25 || out.RMSEByMorphologyDB["rural_rolling"] != 2.25 || out.RMSEByBandDB["1800MHz"] != 4.5 ||
		len(out.ConformalOutOfGroup) != 3 || out.ConformalOutOfGroup[1].Group != "S" ||
		out.ConformalOutOfGroup[2].Report.EmpiricalCoverage != oog[2].Report.EmpiricalCoverage {
		t.Fatalf("accuracy fields after the round trip: %+v", out)
	}
}
