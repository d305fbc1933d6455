package report

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/planner"
)

// samplePTP is a point-to-point link as appliance/ptp answers it: a 9 km
// 18 GHz path over the sampleInput terrain, two modes, the availability
// computed (withAvail) or not.
func samplePTP(tb testing.TB, withAvail bool) PTPInput {
	tb.Helper()
	in := sampleInput(tb)
	pc, err := planner.CheckPath(&appliance.PathProfile{DistancesM: []float64{0, 4500, 9000}, HeightsM: []float64{780, 760, 790}}, 30, 20, 18700)
	if err != nil {
		tb.Fatal(err)
	}
	pc.Profile = in.Candidate.Path.Profile // the fixture's long profile, for the chart
	radio := &appliance.Radio{ID: "builtin:microwave-11-23ghz", Name: "Generic licensed microwave radio", Builtin: true}
	dish := &appliance.Antenna{ID: "ant_0123456789abcdef", Name: "Dish 38 dBi", GainDBi: 38}
	l := &appliance.PTPLink{
		Request: appliance.PTPRequest{
			A:       appliance.PTPEnd{Name: "Serra", Pos: appliance.LatLon{Lat: -22.912345, Lon: -47.061234}, HeightM: 30, RadioID: radio.ID, Radio: radio, AntennaID: dish.ID, Antenna: dish, AnatelStation: "694201357", CableLossDB: 1.5},
			B:       appliance.PTPEnd{Name: "Vale", Pos: appliance.LatLon{Lat: -22.860512, Lon: -47.152908}, HeightM: 20, Radio: radio, Antenna: dish},
			FreqMHz: 18700, ChannelMHz: 28, Polarization: appliance.PolarizationVertical, Engine: appliance.EngineFSPL, AvailabilityTargetPct: 99.99,
		},
		A:          appliance.PTPEndResult{GroundM: 780, TipM: 810, BearingDeg: 301.7, ElevationDeg: 0.12, AzimuthDeg: 301.7, TiltDeg: 0.12, AzimuthAligned: true, TiltAligned: true, AntennaGainDBi: 38},
		B:          appliance.PTPEndResult{GroundM: 790, TipM: 810, BearingDeg: 121.6, ElevationDeg: -0.1, AzimuthDeg: 121.6, TiltDeg: -0.1, AzimuthAligned: true, TiltAligned: true, AntennaGainDBi: 38},
		DistanceKm: 12.4, Prediction: appliance.LinkPrediction{Engine: appliance.EngineFSPL, EngineVersion: "fspl-1", PathLossDB: 139.7, LOSClear: true, FresnelOK: true},
		Path: pc, Recommended: 0, AvailabilityTargetPct: 99.99, Availability: withAvail,
		Clearance: []appliance.PTPClearanceRule{{KFactor: 4.0 / 3, F1Fraction: 1, ClearanceF1: 1.4, Met: true, MinHeightA: appliance.MinHeight{HeightM: 3, Achievable: true}, MinHeightB: appliance.MinHeight{HeightM: 500}}},
		Modes: []appliance.PTPMode{
			{Name: "QPSK", ThroughputMbps: 42, AB: appliance.PTPDirection{RxLevelDBm: -40.2, SensitivityDBm: -84.3, FadeMarginDB: 44.1}, BA: appliance.PTPDirection{RxLevelDBm: -40.2, SensitivityDBm: -84.3, FadeMarginDB: 44.1}, FadeMarginDB: 44.1},
			{Name: "1024-QAM", ThroughputMbps: 210, AB: appliance.PTPDirection{RxLevelDBm: -47.2, SensitivityDBm: -59.8, FadeMarginDB: 12.6}, BA: appliance.PTPDirection{RxLevelDBm: -47.2, SensitivityDBm: -59.8, FadeMarginDB: 12.6}, FadeMarginDB: 12.6},
		},
		Sources:  []string{"rain attenuation: ITU-R P.530-17 §2.4.1"},
		Warnings: []appliance.Warning{{Code: appliance.WarnR001Annex1, Message: "R0.01 from the Annex 1 method"}},
	}
	if withAvail {
		l.GasAttenuationDB = 0.6
		l.Modes[0].Availability = &appliance.PTPAvailability{AvailabilityPct: 99.999, Bound: "at_least", MeetsTarget: true, OutageMinutesPerYear: 5.26}
		l.Modes[1].Availability = &appliance.PTPAvailability{AvailabilityPct: 99.97123, Bound: "exact", OutageMinutesPerYear: 151.3}
		l.Required = []appliance.PTPRequiredMargin{{AvailabilityPct: 99.99, FadeMarginDB: 22.6, Bound: "exact", RainOnlyDB: 22.1, MultipathOnlyDB: 5.4},
			{AvailabilityPct: 99.999, FadeMarginDB: 43.7, Bound: "at_least", RainOnlyDB: math.NaN(), MultipathOnlyDB: 7.8}}
		l.Climate = &appliance.PTPClimate{R001MMH: 66.4, R001Source: "ITU-R P.837-7 Annex 1", P0RainPct: 2.8, GammaRDBPerKm: 5.45, A001DB: 22.7, DN1: -266.7, SaM: 188, GeoclimaticK: 1.8e-5, InclinationMrad: 2.2, GasDBPerKm: 0.06, TemperatureK: 296.5, WaterVapourGM3: 6.6}
	} else {
		l.Warnings = append(l.Warnings, appliance.Warning{Code: appliance.WarnAvailabilityNotComputed, Message: "outside the maps"})
	}
	return PTPInput{Link: l, ART: "28027230212345678", EngineerName: "Maria Souza", Terrain: "SRTM3 sample"}
}

func renderPTP(tb testing.TB, in PTPInput, opt Options) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := WritePTP(&b, in, opt); err != nil {
		tb.Fatalf("WritePTP: %v", err)
	}
	return b.Bytes()
}

// TestWritePTPText: the report read back by pdftotext, in both
// languages, with and without availability; the same input gives the
// same bytes.
func TestWritePTPText(t *testing.T) {
	for _, c := range []struct {
		lang  Language
		avail bool
		want  []string
	}{
		{English, true, []string{"Point-to-point link report", "Serra ↔ Vale", "694201357", "not given", "Dish 38 dBi", "≥ 99.99900",
			"99.97123", "Recommended modulation", "QPSK (42.0 Mbit/s)", "at least", "Height (m AMSL)", "Distance from A (km)",
			"28027230212345678", "Maria Souza", "ITU-R P.530-17 §2.4.1", "1.800e-5", "terrain: SRTM3 sample", "R0.01 (rain rate, 0.01 % of the year)", Disclaimer}},
		{Portuguese, true, []string{"Relatório de enlace ponto a ponto", "Nº da estação Anatel", "não informado", "99,97123",
			"Margem necessária", "no mínimo", "1,800e-5", "Atenuação específica em R0,01", "Altitude (m)", "ART (Anotação de Responsabilidade Técnica)", Disclaimer}},
		{English, false, []string{"The availability was not computed", "availability_not_computed"}},
	} {
		in := samplePTP(t, c.avail)
		opt := Options{Language: c.lang, Created: created, Branding: Branding{Name: "Acme Enlaces", Color: "#0A5C36", Footer: "Acme Ltda"}}
		pdf := renderPTP(t, in, opt)
		if again := renderPTP(t, samplePTP(t, c.avail), opt); !bytes.Equal(pdf, again) {
			t.Errorf("%s: two renders differ", c.lang)
		}
		text := pdfText(t, pdf)
		for _, w := range append(c.want, "Acme Enlaces", "Acme Ltda") {
			if !strings.Contains(text, w) {
				t.Errorf("%s (availability %v): no %q in\n%.2000s", c.lang, c.avail, w, text)
			}
		}
	}
}

// TestWritePTPRefusals: a missing link, an overlong ART or a bad option is
// ErrInvalid naming it; nothing is written.
func TestWritePTPRefusals(t *testing.T) {
	for _, c := range []struct {
		name  string
		edit  func(in *PTPInput, opt *Options)
		field string
	}{
		{"no link", func(in *PTPInput, _ *Options) { in.Link = nil }, "link"},
		{"long ART", func(in *PTPInput, _ *Options) { in.ART = strings.Repeat("9", MaxPTPFieldRunes+1) }, "art"},
		{"bad language", func(_ *PTPInput, opt *Options) { opt.Language = "fr" }, "language"},
		{"no creation time", func(_ *PTPInput, opt *Options) { *opt = Options{} }, "created"},
	} {
		in, opt := samplePTP(t, true), Options{Created: created}
		c.edit(&in, &opt)
		var b bytes.Buffer
		err := WritePTP(&b, in, opt)
		var ve *appliance.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), c.field) || b.Len() != 0 {
			t.Errorf("%s: %v (%d bytes)", c.name, err, b.Len())
		}
	}
}

// TestWritePTPUnicode: a site named with characters the fonts lack still
// renders, with the note that says so.
func TestWritePTPUnicode(t *testing.T) {
	in := samplePTP(t, true)
	in.Link.Request.A.Name = "Torre 中 😀"
	text := pdfText(t, renderPTP(t, in, Options{Created: created}))
	if !strings.Contains(text, "U+FFFD") || !strings.Contains(text, "U+4E2D") {
		t.Errorf("no note of the lacking characters:\n%.1500s", text)
	}
}
