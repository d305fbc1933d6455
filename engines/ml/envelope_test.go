package ml_test

import (
	"bytes"
	"strings"
	"testing"

	"linkplan/engines/ml"
)

func TestEnvelopeContains(t *testing.T) {
	t.Parallel()
	env := &ml.Envelope{Description: "LTE drive tests in Dortmund, Germany",
		Areas: []ml.LatLonBox{{Name: "Dortmund, Germany", MinLat: 51.40, MinLon: 7.30, MaxLat: 51.60, MaxLon: 7.60}},
		Bands: []ml.BandRange{{Name: "B3", MinMHz: 1710, MaxMHz: 1880}, {Name: "B7", MinMHz: 2500, MaxMHz: 2690}}}
	for _, tc := range []struct {
		name      string
		env       *ml.Envelope
		lat, lon  float64
		mhz       float64
		ok        bool
		reasonHas string
	}{
		{"inside", env, 51.5, 7.45, 1842.5, true, ""},
		{"band edge inclusive", env, 51.5, 7.45, 2690, true, ""},
		{"area edge inclusive", env, 51.40, 7.60, 1800, true, ""},
		{"Rio is outside the area", env, -22.9, -43.2, 1842.5, false, "outside the calibrated area (Dortmund, Germany)"},
		{"n78 is outside the bands", env, 51.5, 7.45, 3650, false, "frequency 3650 MHz is outside the calibrated bands (B3, B7)"},
		{"area and band both named", env, -22.9, -43.2, 3650, false, "outside the calibrated area (Dortmund, Germany); frequency 3650 MHz is outside the calibrated bands"},
		{"nil envelope contains everything", nil, -22.9, -43.2, 3650, true, ""},
		{"no bands: any frequency", &ml.Envelope{Description: "x", Areas: env.Areas}, 51.5, 7.45, 28000, true, ""},
		{"no areas: anywhere", &ml.Envelope{Description: "x", Bands: env.Bands}, -22.9, -43.2, 1800, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, reason := tc.env.Contains(tc.lat, tc.lon, tc.mhz)
			if ok != tc.ok || !strings.Contains(reason, tc.reasonHas) || (ok && reason != "") {
				t.Fatalf("Contains = %v, %q; want %v, containing %q", ok, reason, tc.ok, tc.reasonHas)
			}
		})
	}
	// It survives a write and read.
	a := &ml.Artifact{Kind: ml.KindRidge, ModelVersion: "ridge-v1", Schema: ml.FeatureSchema{Version: 1, Names: []string{"a"}},
		Ridge: &ml.Ridge{Mean: []float64{0}, Scale: []float64{1}, Coef: []float64{1}}, Envelope: env}
	var buf bytes.Buffer
	if err := ml.WriteArtifact(&buf, a); err != nil {
		t.Fatal(err)
	}
	b, err := ml.ReadArtifact(&buf)
	if err != nil || b.Version != ml.ArtifactVersion || b.Envelope == nil || b.Envelope.Bands[1].Name != "B7" || b.Envelope.Areas[0].MaxLon != 7.60 {
		t.Fatalf("read back: %+v, %v", b, err)
	}
}

// TestEnvelopeHullValidity: the hull holds its points and what lies within
// the margin, refuses beyond it; the baseline engine's validity refuses
// 28 GHz whatever the bands (issue 20, finding 3).
func TestEnvelopeHullValidity(t *testing.T) {
	t.Parallel()
	pts := [][2]float64{{-22.90, -43.20}, {-22.90, -43.10}, {-22.80, -43.10}, {-22.80, -43.20}, {-22.85, -43.15}, {-22.90, -43.20}}
	hull := ml.HullOf("receivers", pts, 1000)
	if len(hull.Ring) != 4 {
		t.Fatalf("hull of a square with an inner point and a duplicate: %v", hull.Ring)
	}
	env := &ml.Envelope{Description: "x", Hulls: []ml.LatLonPolygon{hull},
		Bands:    ml.BandsOf([]float64{1800, 1805, 700}, func(f float64) string { return map[bool]string{true: "1800MHz", false: "700MHz"}[f > 1000] }),
		Validity: &ml.EngineValidity{Engine: "p1812-p1411-hybrid", MinMHz: 30, MaxMHz: 6000}}
	if b := env.Bands; len(b) != 2 || b[0].Name != "700MHz" || b[0].MinMHz != 665 || b[0].MaxMHz != 735 || b[1].MinMHz != 1710 || b[1].MaxMHz != 1895.25 {
		t.Fatalf("bands %+v", b)
	}
	for _, tc := range []struct {
		name      string
		lat, lon  float64
		mhz       float64
		ok        bool
		reasonHas string
	}{
		{"vertex", -22.90, -43.20, 1800, true, ""},
		{"inside", -22.86, -43.14, 1850, true, ""},
		{"800 m north of the edge", -22.80 + 0.0072, -43.15, 1800, true, ""},
		{"1.5 km north of the edge", -22.80 + 0.0135, -43.15, 1800, false, "outside the area its training receivers cover (receivers, 1000 m margin)"},
		{"28 GHz in the hull", -22.85, -43.15, 28000, false, "frequency 28000 MHz is outside the validity of its baseline engine p1812-p1411-hybrid (30–6000 MHz); frequency 28000 MHz is outside the calibrated bands (700MHz, 1800MHz)"},
		{"3500 MHz: valid engine, no band", -22.85, -43.15, 3500, false, "outside the calibrated bands"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, why := env.Contains(tc.lat, tc.lon, tc.mhz)
			if ok != tc.ok || !strings.Contains(why, tc.reasonHas) || (ok && why != "") {
				t.Fatalf("Contains = %v, %q; want %v with %q", ok, why, tc.ok, tc.reasonHas)
			}
		})
	}
	for _, tc := range []struct {
		name string
		pts  [][2]float64
		in   [2]float64
		out  [2]float64
	}{
		{"one point", [][2]float64{{-22.9, -43.2}, {-22.9, -43.2}}, [2]float64{-22.905, -43.2}, [2]float64{-22.92, -43.2}},
		{"a line", [][2]float64{{-22.9, -43.2}, {-22.9, -43.1}, {-22.9, -43.15}}, [2]float64{-22.905, -43.15}, [2]float64{-22.92, -43.15}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &ml.Envelope{Description: "x", Hulls: []ml.LatLonPolygon{ml.HullOf("r", tc.pts, 1000)}}
			if ok, why := e.Contains(tc.in[0], tc.in[1], 1800); !ok {
				t.Errorf("%v refused: %s", tc.in, why)
			}
			if ok, _ := e.Contains(tc.out[0], tc.out[1], 1800); ok {
				t.Errorf("%v accepted", tc.out)
			}
		})
	}
	// Malformed parts are refused on write.
	for _, bad := range []*ml.Envelope{
		{Description: "x", Hulls: []ml.LatLonPolygon{{Name: "h", MarginM: 10}}},
		{Description: "x", Hulls: []ml.LatLonPolygon{{Name: "h", Ring: [][2]float64{{91, 0}}}}},
		{Description: "x", Validity: &ml.EngineValidity{Engine: "e", MinMHz: 6000, MaxMHz: 30}},
	} {
		a := &ml.Artifact{Kind: ml.KindRidge, ModelVersion: "ridge-v1", Schema: ml.FeatureSchema{Version: 1, Names: []string{"a"}},
			Ridge: &ml.Ridge{Mean: []float64{0}, Scale: []float64{1}, Coef: []float64{1}}, Envelope: bad}
		if err := ml.WriteArtifact(&bytes.Buffer{}, a); err == nil {
			t.Errorf("envelope %+v written", bad)
		}
	}
}
