package engines_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/engines"
)

const minimalProfileCase = `{"engine":"p1812","tx":{"lat":-22.95,"lon":-43.24,"height_m":50},"rx":{"lat":-22.88,"lon":-43.10,"height_m":10},
"frequency_mhz":700,"profile":{"distances_m":[0,5000,10000],"heights_m":[700,100,20]}}`

func TestParseCaseErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		doc    string
		fields string // the ValidationError fields, in order
	}{
		{name: "empty body", doc: ``, fields: "body"},
		{name: "not an object", doc: `[1,2]`, fields: "body"},
		{name: "unknown field", doc: `{"tx":{"lat":0,"lon":0,"height_m":1},"rx":{"lat":0,"lon":0.1,"height_m":1},"frequency_mhz":700,"freq":1}`, fields: "freq"},
		{name: "trailing data", doc: minimalProfileCase + `{}`, fields: "body"},
		{name: "wrong type", doc: `{"tx":{"lat":"north","lon":0,"height_m":1}}`, fields: "tx.lat"},
		{name: "engine not a string", doc: `{"engine":true}`, fields: "engine"},
		{name: "number out of range", doc: `{"frequency_mhz":1e400}`, fields: "frequency_mhz"},
		{name: "zone not whole", doc: `{"profile":{"zones":[1.5]}}`, fields: "profile.zones"},
		{name: "profile not an object", doc: `{"profile":[1]}`, fields: "profile"},
		{name: "missing everything", doc: `{}`, fields: "tx,rx,frequency_mhz"},
		{name: "missing terminal fields", doc: `{"tx":{"lat":1},"rx":{"lon":2,"height_m":3},"frequency_mhz":700}`, fields: "tx.lon,tx.height_m,rx.lat"},
		{name: "fewer than 3 points", doc: strings.Replace(minimalProfileCase, `"distances_m":[0,5000,10000],"heights_m":[700,100,20]`, `"distances_m":[0,10000],"heights_m":[700,20]`, 1), fields: "profile.distances_m"},
		{name: "non-increasing distances", doc: strings.Replace(minimalProfileCase, `[0,5000,10000]`, `[0,5000,5000]`, 1), fields: "profile.distances_m"},
		{name: "not starting at 0", doc: strings.Replace(minimalProfileCase, `[0,5000,10000]`, `[10,5000,10000]`, 1), fields: "profile.distances_m"},
		{name: "height count", doc: strings.Replace(minimalProfileCase, `[700,100,20]`, `[700,100]`, 1), fields: "profile.heights_m"},
		{name: "absurd terrain", doc: strings.Replace(minimalProfileCase, `[700,100,20]`, `[700,100,20000]`, 1), fields: "profile.heights_m"},
		{name: "negative antenna height", doc: strings.Replace(minimalProfileCase, `"height_m":10`, `"height_m":-1`, 1), fields: "rx.height_m"},
		{name: "frequency too low", doc: strings.Replace(minimalProfileCase, `"frequency_mhz":700`, `"frequency_mhz":10`, 1), fields: "frequency_mhz"},
		{name: "frequency too high", doc: strings.Replace(minimalProfileCase, `"frequency_mhz":700`, `"frequency_mhz":1e6`, 1), fields: "frequency_mhz"},
		{name: "latitude", doc: strings.Replace(minimalProfileCase, `"lat":-22.95`, `"lat":-95`, 1), fields: "tx.lat"},
		{name: "time 100", doc: strings.Replace(minimalProfileCase, `"frequency_mhz":700`, `"frequency_mhz":700,"time_pct":100`, 1), fields: "time_pct"},
		{name: "unknown engine", doc: strings.Replace(minimalProfileCase, `"p1812"`, `"hata"`, 1), fields: "engine"},
		{name: "clutter length and zone code", doc: strings.Replace(minimalProfileCase, `"heights_m":[700,100,20]`, `"heights_m":[700,100,20],"clutter_heights_m":[1,2],"zones":[4,2,4]`, 1), fields: "profile.clutter_heights_m,profile.zones"},
		{name: "negative clutter", doc: strings.Replace(minimalProfileCase, `"heights_m":[700,100,20]`, `"heights_m":[700,100,20],"clutter_heights_m":[0,-2,0]`, 1), fields: "profile.clutter_heights_m"},
		{name: "engine parameters", doc: strings.Replace(minimalProfileCase, `"frequency_mhz":700`, `"frequency_mhz":700,"p1812":{"delta_n":160,"polarization":"circular"},"itm":{"n0":500,"mdvar":4,"sigma_s_per_m":0},"p1411":{"environment":"x"}`, 1),
			fields: "p1812.delta_n,p1812.polarization,itm.n0,itm.sigma_s_per_m,itm.mdvar,p1411.environment"},
		{name: "step", doc: strings.Replace(minimalProfileCase, `"frequency_mhz":700`, `"frequency_mhz":700,"step_m":0.1`, 1), fields: "step_m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := engines.ParseCase(strings.NewReader(tc.doc))
			if !errors.Is(err, appliance.ErrInvalid) || fieldsOf(err) != tc.fields {
				t.Fatalf("err = %v\nfields %q, want ErrInvalid on %q", err, fieldsOf(err), tc.fields)
			}
			for _, internal := range []string{"json:", "Go struct", "Go value", "float64", "EngineID", "unmarshal"} {
				if strings.Contains(err.Error(), internal) {
					t.Errorf("the refusal %q tells Go's %q", err, internal)
				}
			}
		})
	}
}

// TestCaseExamples parses and runs every example of testdata/cases (the
// terrain-mode ones on a real profile served as terrain).
func TestCaseExamples(t *testing.T) {
	reg := newRegistry(t)
	ter := profileTerrain{base: rjLink(t).Profile}
	files, err := filepath.Glob(filepath.Join("testdata", "cases", "*.json"))
	if err != nil || len(files) < 4 {
		t.Fatalf("examples: %v %v", files, err)
	}
	want := map[string]struct {
		used   appliance.EngineID
		ref    float64 // reference loss from the validation suites, dB; 0 = none
		tol    float64
		source string
	}{
		"p1812_b2iseac_rural_land_10km_1.json":  {used: appliance.EngineP1812, ref: refLoss(t, "p1812", "cases.csv", "b2iseac_rural_land_10km#1", "Lb_ref_dB"), tol: 0.01, source: "case"},
		"p1812_rburg_urban_with_clutter_4.json": {used: appliance.EngineP1812, ref: refLoss(t, "p1812", "cases.csv", "rburg_urban_with_clutter#4", "Lb_ref_dB"), tol: 0.01, source: "case"},
		"itm_rj_sumare_niteroi_700.json":        {used: appliance.EngineITM, ref: refLoss(t, "itm", "ntia_generated_rj_p2p_cases.csv", "rj_niteroi_f700_cr", "A__db"), tol: 0.001, source: "case"},
		"hybrid_short_3500.json":                {used: appliance.EngineHybrid, source: "case"},
		f11Case:                                 {used: appliance.EngineITM, ref: f11NTIALossDB, tol: f11Tol, source: "case"},
		"terrain_rio_auto.json":                 {used: appliance.EngineP1812, source: "terrain"},
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			w, ok := want[name]
			if !ok {
				t.Fatalf("no expectation for example %s", name)
			}
			c := loadCase(t, name)
			res, err := reg.PredictCase(t.Context(), c, ter)
			if err != nil {
				t.Fatal(err)
			}
			if res.UsedEngine != w.used || res.FellBack || res.ProfileSource != w.source {
				t.Errorf("used %s fellBack %v (%s) source %s, want %s from %s", res.UsedEngine, res.FellBack, res.FallbackReason, res.ProfileSource, w.used, w.source)
			}
			if w.ref != 0 && !near(res.PathLossDB, w.ref, w.tol) {
				t.Errorf("loss %.6f dB, reference %.6f dB ± %g", res.PathLossDB, w.ref, w.tol)
			}
			if len(res.Intermediate) == 0 || res.Warnings == nil {
				t.Errorf("intermediate %v warnings %v", res.Intermediate, res.Warnings)
			}
			if _, err := json.Marshal(res); err != nil {
				t.Errorf("result does not encode: %v", err)
			}
			if c.Engine == "" && res.AutoReason == "" {
				t.Errorf("auto without a reason")
			}
		})
	}
}

func TestPredictCaseTerrain(t *testing.T) {
	reg := newRegistry(t)
	c := loadCase(t, "terrain_rio_auto.json")
	t.Run("nil terrain", func(t *testing.T) {
		if _, err := reg.PredictCase(t.Context(), c, nil); !errors.Is(err, appliance.ErrUnavailable) {
			t.Fatalf("err = %v, want ErrUnavailable", err)
		}
	})
	t.Run("missing tile", func(t *testing.T) {
		_, err := reg.PredictCase(t.Context(), c, missingTerrain{})
		var tm *appliance.TileMissingError
		if !errors.Is(err, appliance.ErrTerrainMissing) || !errors.As(err, &tm) || tm.Tile != "S23W044" {
			t.Fatalf("err = %v, want the missing tile S23W044", err)
		}
	})
	t.Run("step", func(t *testing.T) {
		ter := profileTerrain{base: rjLink(t).Profile}
		c2 := c
		c2.StepM = 30
		a, err := reg.PredictCase(t.Context(), c, ter)
		if err != nil {
			t.Fatal(err)
		}
		b, err := reg.PredictCase(t.Context(), c2, ter)
		if err != nil {
			t.Fatal(err)
		}
		if a.ProfilePoints >= b.ProfilePoints || !near(a.DistanceKm, b.DistanceKm, 1e-9) {
			t.Errorf("points %d (90 m) vs %d (30 m), distances %g %g km", a.ProfilePoints, b.ProfilePoints, a.DistanceKm, b.DistanceKm)
		}
	})
}

// TestCaseFieldOrder checks that two documents with the same content in a
// different key order (and whitespace) give bit-identical results.
func TestCaseFieldOrder(t *testing.T) {
	reg := newRegistry(t)
	raw, err := os.ReadFile(filepath.Join("testdata", "cases", "p1812_b2iseac_rural_land_10km_1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	// encoding/json writes map keys sorted: a different order than the file's.
	sorted, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(sorted, raw) {
		t.Fatal("reordering did not change the document")
	}
	a, err := engines.ParseCase(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	b, err := engines.ParseCase(bytes.NewReader(sorted))
	if err != nil {
		t.Fatal(err)
	}
	ra, err1 := reg.PredictCase(t.Context(), a, nil)
	rb, err2 := reg.PredictCase(t.Context(), b, nil)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	ja, _ := json.Marshal(ra)
	jb, _ := json.Marshal(rb)
	if !bytes.Equal(ja, jb) {
		t.Errorf("results differ:\n%s\n%s", ja, jb)
	}
}

func FuzzParseCase(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "cases", "*.json"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(minimalProfileCase))
	f.Add([]byte(`{"tx":{"lat":0,"lon":0,"height_m":0},"rx":{"lat":0,"lon":0,"height_m":0},"frequency_mhz":20}`))
	reg := newRegistry(f)
	ter := profileTerrain{base: &appliance.PathProfile{DistancesM: []float64{0, 500, 1000}, HeightsM: []float64{10, 30, 5}}}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := engines.ParseCase(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("parse error %v does not match ErrInvalid", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("parsed case fails Validate: %v", err)
		}
		if c.Profile != nil && len(c.Profile.DistancesM) > 5000 {
			return
		}
		res, err := reg.PredictCase(t.Context(), c, ter)
		if err != nil {
			if !errors.Is(err, appliance.ErrInvalid) && !errors.Is(err, appliance.ErrOutsideEnvelope) {
				t.Fatalf("valid case: unexpected error class: %v", err)
			}
			return
		}
		if !finite(res.PathLossDB) {
			t.Fatalf("non-finite loss %g for %s", res.PathLossDB, b)
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("result does not encode: %v", err)
		}
	})
}

func finite(x float64) bool { return x == x && x-x == 0 }
