package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"linkplan/appliance"
)

// ptpBody is a clear 6.1 km Rio link (Sumaré to Pedra Bonita) at 18.7 GHz
// with the built-in radio and dishes; extra is spliced into the top level.
func ptpBody(extra string) string {
	return `{"a":{"name":"Sumaré","lat":-22.9517,"lon":-43.2371,"height_m":30,"radio_id":"builtin:microwave-11-23ghz","antenna_id":"builtin:dish-38dbi","anatel_station":"694201357"},` +
		`"b":{"name":"Pedra Bonita","lat":-22.9877,"lon":-43.2826,"height_m":20,"radio_id":"builtin:microwave-11-23ghz","antenna_id":"builtin:dish-38dbi","cable_loss_db":0.5},` +
		`"frequency_mhz":18700,"channel_mhz":28` + extra + `}`
}

// ptpAnswer is what the tests read of a /links/ptp answer.
type ptpAnswer struct {
	A, B struct {
		Name          string  `json:"name"`
		AnatelStation *string `json:"anatel_station"`
		Radio         struct {
			ID   *string `json:"id"`
			Name string  `json:"name"`
		} `json:"radio"`
	}
	EngineUsed string `json:"engine_used"`
	Path       struct {
		Profile []json.RawMessage `json:"profile"`
		Samples int               `json:"profile_samples"`
	} `json:"path"`
	Clearance []struct {
		Met bool `json:"met"`
	} `json:"clearance"`
	Modes []struct {
		Name         string  `json:"name"`
		FadeMarginDB float64 `json:"fade_margin_db"`
		AtoB         struct {
			RxLevelDBm float64 `json:"rx_level_dbm"`
		} `json:"a_to_b"`
		Availability *struct {
			AvailabilityPct float64 `json:"availability_pct"`
			MeetsTarget     bool    `json:"meets_target"`
		} `json:"availability"`
	} `json:"modes"`
	RecommendedMode      *string             `json:"recommended_mode"`
	RecommendedIndex     int                 `json:"recommended_index"`
	AvailabilityComputed bool                `json:"availability_computed"`
	Required             []json.RawMessage   `json:"required_fade_margins"`
	Sources              []string            `json:"sources"`
	Warnings             []appliance.Warning `json:"warnings"`
}

// TestPTPRoute: the answer of POST /links/ptp follows its OpenAPI schema,
// carries the budget per mode, the availability, the recommendation, the
// sources, the warnings and the profile.
func TestPTPRoute(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	doc := loadOpenAPI(t)
	res := h.do(t, "POST", "/links/ptp", h.keys["pro"], nil, ptpBody(""))
	if res.status != http.StatusOK {
		t.Fatalf("%d %s", res.status, res.body)
	}
	contract(t, doc, "POST", "/links/ptp", res)
	a := decodeJSON[ptpAnswer](t, res)
	if len(a.Modes) != 8 || a.Modes[0].Name != "QPSK" || a.Modes[0].Availability == nil || !a.AvailabilityComputed ||
		a.RecommendedMode == nil || *a.RecommendedMode != a.Modes[a.RecommendedIndex].Name || !a.Modes[a.RecommendedIndex].Availability.MeetsTarget {
		t.Errorf("answer %+v", a)
	}
	if a.A.AnatelStation == nil || *a.A.AnatelStation != "694201357" || a.B.AnatelStation != nil || a.A.Radio.ID == nil || a.EngineUsed != "fspl" {
		t.Errorf("ends %+v %+v", a.A, a.B)
	}
	if len(a.Path.Profile) != a.Path.Samples || a.Path.Samples < 60 || len(a.Required) != 3 || len(a.Clearance) != 5 {
		t.Errorf("path %+v, required %d", a.Path, len(a.Required))
	}
	if !slices.Contains(appliance.WarningCodes(a.Warnings), appliance.WarnR001Annex1) ||
		!strings.Contains(strings.Join(a.Sources, "\n"), "ITU-R P.530-17") {
		t.Errorf("warnings %v, sources %v", appliance.WarningCodes(a.Warnings), a.Sources)
	}
	res = h.do(t, "POST", "/links/ptp", h.keys["pro"], nil, ptpBody(`,"engine":"p1812","polarization":"horizontal"`))
	contract(t, doc, "POST", "/links/ptp", res)
	b := decodeJSON[ptpAnswer](t, res)
	if res.status != 200 || b.EngineUsed != "fspl" && b.EngineUsed != "p1812" {
		t.Errorf("p1812: %d, engine %s", res.status, b.EngineUsed)
	}
	// Horizontal polarisation: more rain attenuation, less availability.
	if b.Modes[7].Availability.AvailabilityPct >= a.Modes[7].Availability.AvailabilityPct {
		t.Errorf("horizontal %.6f %% not below vertical %.6f %%", b.Modes[7].Availability.AvailabilityPct, a.Modes[7].Availability.AvailabilityPct)
	}
}

// TestPTPRouteRefusals: bad bodies are 4xx naming every bad field, the
// engine's tier rule applies, an inline radio and antenna work.
func TestPTPRouteRefusals(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	doc := loadOpenAPI(t)
	for _, c := range []struct {
		name, key, body string
		status          int
		fields          []string
	}{
		{"empty", "pro", `{}`, 422, []string{"a", "b", "frequency_mhz", "channel_mhz"}},
		{"bad ends", "pro", `{"a":{"lat":91,"height_m":0,"radio_id":"","antenna":{"name":"x"}},"b":{"lat":-22.9,"lon":-43.2,"height_m":10,"radio_id":"builtin:wifi5-2x2","antenna_id":"builtin:dish-30dbi","azimuth_deg":400},"frequency_mhz":5500,"channel_mhz":40}`,
			422, []string{"a.lat", "a.lon", "a.height_m", "a.radio_id", "a.antenna.gain_dbi", "b.azimuth_deg"}},
		{"unknown field", "pro", ptpBody(`,"frequency":1`), 422, nil},
		{"p1812 on Free", "free", ptpBody(`,"engine":"p1812"`), 403, nil},
		{"p1411", "pro", ptpBody(`,"engine":"p1411"`), 422, []string{"engine"}},
		{"unknown engine", "pro", ptpBody(`,"engine":"nope"`), 422, []string{"engine"}},
		{"no such width", "pro", strings.Replace(ptpBody(""), `"channel_mhz":28`, `"channel_mhz":30`, 1), 422, []string{"channel_mhz"}},
		{"empty polarisation, zero target", "pro", ptpBody(`,"polarization":"","availability_target_pct":0`), 422, []string{"polarization", "availability_target_pct"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := h.do(t, "POST", "/links/ptp", h.keys[c.key], nil, c.body)
			if res.status != c.status {
				t.Fatalf("%d, want %d: %s", res.status, c.status, res.body)
			}
			contract(t, doc, "POST", "/links/ptp", res)
			if c.fields != nil {
				got := fieldsOf(t, res)
				for _, f := range c.fields {
					if !slices.Contains(got, f) {
						t.Errorf("fields %v lack %s", got, f)
					}
				}
				if c.name == "bad ends" && slices.Contains(got, "a.antenna_id") {
					t.Errorf("a.antenna_id named beside the inline antenna's fields: %v", got)
				}
			}
		})
	}
	// auto on Free resolves to fspl with a warning.
	res := h.do(t, "POST", "/links/ptp", h.keys["free"], nil, ptpBody(`,"engine":"auto"`))
	a := decodeJSON[ptpAnswer](t, res)
	if res.status != 200 || a.EngineUsed != "fspl" || !slices.Contains(appliance.WarningCodes(a.Warnings), appliance.WarnEngineResolved) {
		t.Errorf("auto on Free: %d %+v", res.status, a.Warnings)
	}
	// Inline radio and antenna on b.
	inline := `{"a":{"lat":-22.9517,"lon":-43.2371,"height_m":30,"radio_id":"builtin:wifi5-2x2","antenna_id":"builtin:dish-30dbi"},` +
		`"b":{"lat":-22.9877,"lon":-43.2826,"height_m":20,"radio":` + isoRadioBody + `,"antenna":{"name":"CPE panel","gain_dbi":23,"parametric":{"model":"itu-f699-dish"}}},` +
		`"frequency_mhz":5500,"channel_mhz":20}`
	res = h.do(t, "POST", "/links/ptp", h.keys["pro"], nil, inline)
	// isoRadioBody has one mode, "QPSK": a's wifi radio has none of that name.
	if res.status != 422 || !slices.Contains(fieldsOf(t, res), "b.radio_id") {
		t.Errorf("mismatched modes: %d %s", res.status, res.body)
	}
	inline = strings.Replace(inline, `"radio_id":"builtin:wifi5-2x2"`, `"radio":`+isoRadioBody, 1)
	res = h.do(t, "POST", "/links/ptp", h.keys["pro"], nil, inline)
	a = decodeJSON[ptpAnswer](t, res)
	if res.status != 200 || len(a.Modes) != 1 || a.B.Radio.ID != nil || a.B.Radio.Name != "B's radio" {
		t.Errorf("inline: %d %s", res.status, res.body)
	}
	contract(t, doc, "POST", "/links/ptp", res)
}

// TestIssue25_PTPForeignCatalogueIDIsUnknown: issue 25 acceptance. Tenant
// A's radio and antenna, named by tenant B on the point-to-point routes,
// read exactly as ids that do not exist: 422 naming the fields, nothing
// of A's records in the answer; A plans the same link.
func TestIssue25_PTPForeignCatalogueIDIsUnknown(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	radioA, antennaA := storeEquipment(t, h, h.keys["pro"])
	body := func(radio, antenna string) string {
		return fmt.Sprintf(`{"a":{"lat":-22.9517,"lon":-43.2371,"height_m":30,"radio_id":%q,"antenna_id":%q},`+
			`"b":{"lat":-22.9877,"lon":-43.2826,"height_m":20,"radio_id":%q,"antenna_id":"builtin:dish-23dbi"},"frequency_mhz":5500,"channel_mhz":20}`, radio, antenna, radio)
	}
	const ghostRadio, ghostAntenna = "radio_00000000deadbeef", "ant_00000000deadbeef"
	for _, route := range []string{"/links/ptp", "/reports/ptp", "/exports/ptp"} {
		foreign := h.do(t, "POST", route, h.keys["internal"], nil, body(radioA, antennaA))
		ghost := h.do(t, "POST", route, h.keys["internal"], nil, body(ghostRadio, ghostAntenna))
		for _, res := range []*response{foreign, ghost} {
			got := fieldsOf(t, res)
			if res.status != 422 || !slices.Contains(got, "a.radio_id") || !slices.Contains(got, "b.radio_id") || !slices.Contains(got, "a.antenna_id") {
				t.Errorf("%s as B: %d %s", route, res.status, res.body)
			}
		}
		if strings.Contains(string(foreign.body), "B's radio") || strings.Contains(string(foreign.body), "B800A065") {
			t.Errorf("%s: A's record leaks: %s", route, foreign.body)
		}
		// The same answer but for the ids.
		norm := strings.NewReplacer(radioA, ghostRadio, antennaA, ghostAntenna)
		if a, b := stripRequestID(norm.Replace(string(foreign.body))), stripRequestID(string(ghost.body)); a != b {
			t.Errorf("%s: a foreign id answers\n%s\nan unknown one\n%s", route, a, b)
		}
	}
	// The owner plans it (the imported antenna is a 800 MHz sector: the
	// band warning says so).
	res := h.do(t, "POST", "/links/ptp", h.keys["pro"], nil, body(radioA, antennaA))
	if res.status != 200 || !strings.Contains(string(res.body), appliance.WarnAntennaBand) {
		t.Errorf("as A: %d %.600s", res.status, res.body)
	}
}

// stripRequestID removes the request id of an error body.
func stripRequestID(s string) string {
	var v map[string]any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	if e, ok := v["error"].(map[string]any); ok {
		delete(e, "request_id")
	}
	delete(v, "request_id")
	b, _ := json.Marshal(v)
	return string(b)
}

// TestIssue25_PTPReportPDF: issue 25 acceptance. The point-to-point
// report, read back by pdftotext in English and in Brazilian Portuguese,
// shows both sites with their Anatel station, the equipment, the budget
// per mode, the availability table, the sources, the ART and the
// engineer, the warnings and the disclaimer; each counts one PDF.
func TestIssue25_PTPReportPDF(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	doc := loadOpenAPI(t)
	for _, c := range []struct {
		lang string
		want []string
	}{
		{"en", []string{"Point-to-point link report", "Sumaré", "Pedra Bonita", "Anatel station number", "694201357", "not given",
			"Generic licensed microwave radio", "Generic 38 dBi dish", "Link budget per modulation", "1024-QAM", "Availability",
			"Required availability", "Recommended modulation", "99.990 %", "ITU-R P.530-17", "P.837-7", "P.838-3", "P.676",
			"rain_r001_annex1_method", "Data and method sources", "ART (technical responsibility record)", "28027230212345678",
			"Maria Souza", "CREA-RJ 2012345678", "100 % of F1, median k", "Disclaimer", report0Disclaimer}},
		{"pt-BR", []string{"Relatório de enlace ponto a ponto", "Sumaré", "Nº da estação Anatel", "694201357", "não informado",
			"Orçamento do enlace por modulação", "Disponibilidade exigida", "99,990 %", "Modulação recomendada", "ITU-R P.530-17",
			"Fontes dos dados e métodos", "ART (Anotação de Responsabilidade Técnica)", "28027230212345678",
			"A explicação automática não substitui o parecer técnico do engenheiro responsável.", report0Disclaimer}},
	} {
		t.Run(c.lang, func(t *testing.T) {
			res := h.do(t, "POST", "/reports/ptp", h.keys["pro"], nil,
				ptpBody(`,"language":"`+c.lang+`","art":"28027230212345678","engineer_name":"Maria Souza","engineer_registration":"CREA-RJ 2012345678"`))
			if res.status != 200 || res.header.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(res.body, []byte("%PDF-")) {
				t.Fatalf("%d %.300s", res.status, res.body)
			}
			contract(t, doc, "POST", "/reports/ptp", res)
			text := pdfToText(t, res.body)
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("the %s report lacks %q", c.lang, w)
				}
			}
		})
	}
	q := decodeJSON[quotaAnswer](t, h.do(t, "GET", "/v1/me/quota", h.keys["pro"], nil, ""))
	if q.used("pdfs") != 2 {
		t.Errorf("pdfs used %d, want 2", q.used("pdfs"))
	}
	for _, c := range []struct{ extra, field string }{
		{`,"language":"fr","engineer_name":"` + strings.Repeat("x", 101) + `"`, "language"},
		{`,"engineer_name":"` + strings.Repeat("x", 101) + `"`, "engineer_name"},
		{`,"art":"a\nb"`, "art"},
	} {
		res := h.do(t, "POST", "/reports/ptp", h.keys["pro"], nil, ptpBody(c.extra))
		if got := fieldsOf(t, res); res.status != 422 || !slices.Contains(got, c.field) {
			t.Errorf("bad report field %s: %d %s", c.field, res.status, res.body)
		}
	}
}

// report0Disclaimer is the SPEC §1.6 disclaimer every report carries.
const report0Disclaimer = "The automatic explanation does not replace the technical opinion of the responsible engineer."

// TestPTPExport: the GeoJSON export holds both sites and the line, read
// back by GDAL's ogrinfo; KMZ is a zip; a Shapefile is refused.
func TestPTPExport(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	res := h.do(t, "POST", "/exports/ptp", h.keys["pro"], nil, ptpBody(""))
	if res.status != 200 || res.header.Get("Content-Type") != "application/geo+json" {
		t.Fatalf("%d %s", res.status, res.body)
	}
	var fc struct {
		Features []struct {
			Geometry struct {
				Type string `json:"type"`
			} `json:"geometry"`
			Properties map[string]any `json:"properties"`
		} `json:"features"`
	}
	if err := json.Unmarshal(res.body, &fc); err != nil || len(fc.Features) != 3 || fc.Features[2].Geometry.Type != "LineString" ||
		fc.Features[0].Properties["name"] != "Sumaré" || fc.Features[0].Properties["anatel_station"] != "694201357" ||
		fc.Features[2].Properties["mode"] == nil || fc.Features[2].Properties["availability_pct"] == nil {
		t.Fatalf("features %v %s", err, res.body)
	}
	path := filepath.Join(t.TempDir(), "ptp.geojson")
	if err := os.WriteFile(path, res.body, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := ogrFeatureCounts(t, path); !slices.Equal(got, []int{3}) {
		t.Errorf("ogrinfo feature counts %v, want [3]", got)
	}
	res = h.do(t, "POST", "/exports/ptp?format=kmz", h.keys["pro"], nil, ptpBody(""))
	if res.status != 200 || !bytes.HasPrefix(res.body, []byte("PK")) {
		t.Errorf("kmz: %d", res.status)
	}
	res = h.do(t, "POST", "/exports/ptp?format=shapefile", h.keys["pro"], nil, ptpBody(""))
	if res.status != 422 || !slices.Contains(fieldsOf(t, res), "format") {
		t.Errorf("shapefile: %d %s", res.status, res.body)
	}
}
