package ml_test

import (
	"bytes"
	"strings"
	"testing"

	"linkplan/engines/ml"
)

func TestEnvelopeContains(t *testing.T) {
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
		{"area checked first", env, -22.9, -43.2, 3650, false, "calibrated area"},
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
	if err != nil || b.Version != 2 || b.Envelope == nil || b.Envelope.Bands[1].Name != "B7" || b.Envelope.Areas[0].MaxLon != 7.60 {
		t.Fatalf("read back: %+v, %v", b, err)
	}
}
