package api_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/web/api"
)

// Issue 20, scope 3 acceptance: a fuzz target per POST and PUT route body.
// fuzzTargets names the target of each route (fuzz_test.go,
// fuzz_tenant_test.go, fuzz_catalog_test.go, fuzz_ptp_test.go,
// errors_finding_test.go, links_finding_test.go and this file); TestEveryBodyRouteIsFuzzed checks the table against the
// routes the API serves. `go test` runs every target over its seeds and
// its committed corpus (testdata/fuzz/<target>); `make fuzz` fuzzes each
// for a bounded time (FUZZTIME, 10 s by default).
var fuzzTargets = map[string]string{
	"POST /admin/backup":                       "FuzzAdminBackupBody",
	"POST /admin/standby-key":                  "FuzzAdminStandbyKeyBody",
	"POST /admin/keys":                         "FuzzAdminKeysBody",
	"POST /admin/sso/bindings":                 "FuzzAdminSSOBindBody",
	"POST /admin/sso/bindings/delete":          "FuzzAdminSSOUnbindBody",
	"PUT /admin/tenants/{tenant_id}/branding":  "FuzzAdminBrandingBody",
	"POST /admin/dsar/{api_key_prefix}/export": "FuzzAdminDSARBody",
	"POST /admin/dsar/{api_key_prefix}/erase":  "FuzzAdminDSARBody",
	"POST /ai/batch-analyze":                   "FuzzAIBatchAnalyzeBody",
	"POST /ai/chat":                            "FuzzAIChatBody",
	"POST /ai/compare":                         "FuzzAICompareBody",
	"POST /ai/suggest-height":                  "FuzzAISuggestHeightBody",
	"POST /analyze":                            "FuzzAnalyzePairBody",
	"POST /analyze_link":                       "FuzzAnalyzeLinkBody",
	"POST /batch_reports":                      "FuzzBatchReportsBody",
	"POST /billing/claim":                      "FuzzBillingClaimBody",
	"POST /billing/webhook":                    "FuzzBillingWebhookBody",
	"POST /buildings/layers":                   "FuzzBuildingLayerBody",
	"POST /coverage/best_server":               "FuzzBestServerBody",
	"POST /coverage/engines/compare":           "FuzzEngineCompareBody",
	"POST /coverage/engines/predict":           "FuzzEngineCaseBody",
	"POST /coverage/heatmap":                   "FuzzHeatmapBody",
	"POST /coverage/interference":              "FuzzInterferenceMapBody",
	"POST /coverage/viewshed":                  "FuzzViewshedMapBody",
	"POST /coverage/observations":              "FuzzObservationBody",
	"POST /coverage/observations/batch":        "FuzzObservationBatchBody",
	"POST /coverage/observations/drivetest":    "FuzzDriveTestBody",
	"POST /coverage/observations/residuals":    "FuzzResidualsBody",
	"PUT /coverage/calibration":                "FuzzCalibrationBody",
	"POST /coverage/calibration/fit":           "FuzzCalibrationFitBody",
	"POST /coverage/predict":                   "FuzzPredictBody",
	"POST /coverage/raytrace":                  "FuzzRaytraceMapBody",
	"POST /equipment/antennas":                 "FuzzAntennaBody",
	"POST /equipment/antennas/import":          "FuzzAntennaImportBody",
	"PUT /equipment/antennas/{id}":             "FuzzAntennaReplaceBody",
	"POST /equipment/radios":                   "FuzzRadioBody",
	"PUT /equipment/radios/{id}":               "FuzzRadioReplaceBody",
	"POST /exports/link":                       "FuzzExportLinkBody",
	"POST /exports/ptp":                        "FuzzPTPExportBody",
	"POST /jobs/{id}/cancel":                   "FuzzEmptyBodies",
	"POST /links/interference":                 "FuzzLinkInterferenceBody",
	"POST /links/ptp":                          "FuzzPTPBody",
	"POST /plan_repeater":                      "FuzzPlanRepeaterBody",
	"POST /reports/link":                       "FuzzReportLinkBody",
	"POST /reports/ptp":                        "FuzzPTPReportBody",
	"PUT /tenant/branding":                     "FuzzBrandingBody",
	"POST /tenant/keys":                        "FuzzCreateKeyBody",
	"POST /tenant/keys/{key_id}/revoke":        "FuzzEmptyBodies",
	"POST /tenant/keys/{key_id}/rotate":        "FuzzEmptyBodies",
	"POST /tenant/me/data/forget":              "FuzzForgetBody",
	"POST /tenant/sso/bindings":                "FuzzSSOBindBody",
	"POST /tenant/sso/binding_intents":         "FuzzSSOBindingIntentBody",
	"POST /towers":                             "FuzzTowerBody",
}

// TestEveryBodyRouteIsFuzzed: every POST, PUT and PATCH route of the fully
// composed API has a fuzz target, and every target named exists.
func TestEveryBodyRouteIsFuzzed(t *testing.T) {
	h := newHarness(t, harnessOptions{sso: true, billing: true})
	served := map[string]bool{}
	for _, r := range h.api.Routes() {
		if r.Method != http.MethodPost && r.Method != http.MethodPut && r.Method != http.MethodPatch {
			continue
		}
		route := r.Method + " " + r.Path
		served[route] = true
		if fuzzTargets[route] == "" {
			t.Errorf("%s has no fuzz target: add one and list it in fuzzTargets", route)
		}
	}
	for route := range fuzzTargets {
		if !served[route] {
			t.Errorf("fuzzTargets lists %s, which the API does not serve", route)
		}
	}
	defined := fuzzFuncs(t)
	for route, name := range fuzzTargets {
		if !defined[name] {
			t.Errorf("%s: fuzz target %s is not defined in web/api", route, name)
		}
	}
	t.Logf("%d body routes, each fuzzed", len(served))
}

// fuzzFuncs lists the Fuzz functions of this directory's test files.
func fuzzFuncs(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Fuzz") {
				out[fn.Name.Name] = true
			}
		}
	}
	return out
}

// routeFuzz is how a fuzzed body becomes a request of one route.
type routeFuzz struct {
	method, path string
	opts         harnessOptions
	// key names the credential (a harness key, "admin" for the admin key,
	// "" for none).
	key string
	// header returns the request's extra headers (a fresh TOTP code, a
	// Content-Type); nil: none.
	header func(t *testing.T, h *harness) map[string]string
}

// fuzzRoute runs the real API on arbitrary bodies of one route: whatever
// the body, the answer is a documented status (never a 500) whose body
// satisfies the document. setup, when given, runs once on the harness
// (creating what the route's path names) and may rewrite the spec.
func fuzzRoute(f *testing.F, rf routeFuzz, setup func(f *testing.F, h *harness, rf *routeFuzz), seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	if !rf.opts.sso && !rf.opts.billing {
		rf.opts.unmetered = true
	}
	h := newHarness(f, rf.opts)
	if setup != nil {
		setup(f, h, &rf)
	}
	d := loadOpenAPI(f)
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest(rf.method, rf.path, strings.NewReader(body))
		switch rf.key {
		case "":
		case "admin":
			req.Header.Set("X-API-Key", h.adminKey)
		default:
			req.Header.Set("X-API-Key", h.keys[rf.key])
		}
		if rf.header != nil {
			for k, v := range rf.header(t, h) {
				req.Header.Set(k, v)
			}
		}
		serveFuzz(t, h, d, req, "body "+strconvQuote(body))
	})
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// adminTOTP is the header of an admin step-up with a fresh code.
func adminTOTP(t *testing.T, h *harness) map[string]string {
	return map[string]string{"X-Admin-Totp": h.freshTOTP(t)}
}

// tinyPNG is a valid 4×2 PNG, base64.
func tinyPNG(tb testing.TB) string {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewNRGBA(image.Rect(0, 0, 4, 2))); err != nil {
		tb.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func FuzzAnalyzePairBody(f *testing.F) {
	fuzzRoute(f, routeFuzz{method: "POST", path: "/analyze", key: "pro"}, nil,
		`{"tower":{"lat":-22.97922,"lon":-43.14501,"height_m":30},"receiver":{"lat":-22.95,"lon":-43.2,"height_m":10},"frequency_mhz":3500,"engine":"fspl"}`,
		`{"tower":{"lat":-22.97922,"lon":-43.14501,"height_m":30,"power":1e308},"receiver":{"lat":-22.95,"lon":-43.2,"height_m":-1e308},"frequency_mhz":3500}`,
		`{"tower_id":"x","receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1e-300,"engine":"itm"}`,
		`{"tower":{},"receiver":[],"frequency_mhz":"1800"}`, `null`, `[]`, `{`, ``,
	)
}

func FuzzExportLinkBody(f *testing.F) {
	for _, format := range []string{"geojson", "kml", "kmz", "shapefile"} {
		f.Add(format + "\x00" + `{"receiver":{"lat":-22.95,"lon":-43.20,"height_m":10},"frequency_mhz":1800,"max_distance_km":20}`)
	}
	f.Add("geojson\x00" + `{"receiver":{"lat":-22.95,"lon":-43.20,"height_m":10},"frequency_mhz":1800,"operator":"=1+1"}`)
	f.Add("gpx\x00{}")
	f.Add("\x00")
	fuzzQueryAndBody(f, "/exports/link", "format")
}

// FuzzReportLinkBody fuzzes POST /reports/link for a tenant whose branding
// and nearby tower hold text no PDF font has (emoji, CJK, RTL, combining
// marks): the finding of issue 20 that answered 500 when it was filed.
func FuzzReportLinkBody(f *testing.F) {
	fuzzRoute(f, routeFuzz{method: "POST", path: "/reports/link", key: "pro"}, func(f *testing.F, h *harness, _ *routeFuzz) {
		for _, c := range []struct{ method, path, body string }{
			{"PUT", "/tenant/branding", `{"display_name":"Pro 😀 漢字 אב e\u0301","report_footer":"\ud83d\ude00 footer","support_contact":"noc@example.com"}`},
			{"POST", "/towers", `{"operator":"Op 😀 漢字","lat":-22.951,"lon":-43.201,"height_m":60,"power":70}`},
		} {
			if res := h.do(f, c.method, c.path, h.keys["pro"], nil, c.body); res.status >= 300 {
				f.Fatalf("%s %s: %d %s", c.method, c.path, res.status, res.body)
			}
		}
	},
		`{"receiver":{"lat":-22.95,"lon":-43.20,"height_m":10},"frequency_mhz":1800,"max_distance_km":20}`,
		`{"receiver":{"lat":-22.95,"lon":-43.20,"height_m":10},"frequency_mhz":1800,"max_distance_km":20,"operator":"Vivo 😀 漢字 \u202e"}`,
		`{"receiver":{"lat":-22.95,"lon":-43.20,"height_m":1e308},"frequency_mhz":1e308,"max_distance_km":1e-308}`,
		`{"receiver":{},"language":"xx"}`, `null`, `{`, ``,
	)
}

func FuzzBestServerBody(f *testing.F) {
	fuzzRoute(f, routeFuzz{method: "POST", path: "/coverage/best_server", key: "pro"}, nil,
		`{"bbox":{"min_lat":-22.95,"min_lon":-43.25,"max_lat":-22.93,"max_lon":-43.22},"frequency_mhz":1800,"resolution_m":250}`,
		`{"bbox":{"min_lat":-22.95,"min_lon":-43.25,"max_lat":-22.95,"max_lon":-43.25},"frequency_mhz":1800,"resolution_m":1e-9}`,
		`{"bbox":{"min_lat":1e308,"min_lon":-1e308,"max_lat":-1e308,"max_lon":1e308},"frequency_mhz":-1}`,
		`{"tower_ids":["a","b"],"site":{}}`, `null`, `{`, ``,
	)
}

func FuzzInterferenceMapBody(f *testing.F) {
	fuzzRoute(f, routeFuzz{method: "POST", path: "/coverage/interference", key: "pro"}, nil,
		`{"sites":[{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},{"lat":-22.94,"lon":-43.29,"height_m":30,"eirp_dbm":58,"frequency_mhz":1820,"bandwidth_mhz":10,"acs_db":40}],"frequency_mhz":1800,"radius_km":1,"resolution_m":250,"engine":"fspl"}`,
		`{"tower_ids":["a","b"],"bbox":{"min_lat":1e308},"frequency_mhz":1800,"sinr_thresholds_db":[1e308,-1e308]}`,
		`{"sites":[{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58,"bandwidth_mhz":-1,"antenna_id":""}],"frequency_mhz":1800,"noise_figure_db":1e308,"resolution_m":1e-9}`,
		`{"sites":[{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58}],"frequency_mhz":1800,"radius_km":1,"resolution_m":250,"exact":true}`,
		`{"sites":[{}],"frequency_mhz":-1,"exact":1}`, `{"sites":null}`, `null`, `{`, ``,
	)
}

func FuzzViewshedMapBody(f *testing.F) {
	fuzzRoute(f, routeFuzz{method: "POST", path: "/coverage/viewshed", key: "pro"}, nil,
		`{"site":{"lat":-22.93,"lon":-43.30,"height_m":30},"frequency_mhz":5800,"radius_km":1,"resolution_m":250}`,
		`{"tower_id":"anatel:x","site":{"lat":1e308},"frequency_mhz":1800,"k_factor":-1}`,
		`{"site":{"lat":-22.93,"lon":-43.30,"height_m":1e308},"frequency_mhz":1e-308,"rx_height_m":0,"k_factor":1e308}`,
		`{"site":{"lat":-22.93,"lon":-43.30,"height_m":30},"frequency_mhz":5800,"radius_km":1,"resolution_m":250,"exact":true}`,
		`{"tower_id":"","exact":"yes"}`, `null`, `{`, ``,
	)
}

func FuzzObservationBody(f *testing.F) {
	fuzzRoute(f, routeFuzz{method: "POST", path: "/coverage/observations", key: "pro"}, nil,
		obsRow(-22.9),
		strings.Replace(obsRow(-22.9), `"ts"`, `"consent_for_training":true,"ts"`, 1),
		strings.Replace(obsRow(-22.9), `-80`, `1e308`, 1),
		`{"tx_lat":"x","ts":"2024-01-01T00:00:00Z"}`, `{"ts":-1e308}`, `null`, `[]`, `{`, ``,
	)
}

// FuzzDriveTestBody fuzzes the raw multipart body of a drive-test upload
// (boundary "B"): the multipart parser, the form fields and, through them,
// the CSV parser.
func FuzzDriveTestBody(f *testing.F) {
	csv := "lat,lon,rsrp,cellFreq\n-22.93,-43.2,-95,1800\n-22.94,-43.2,-97,1800\n"
	fuzzRoute(f, routeFuzz{method: "POST", path: "/coverage/observations/drivetest", key: "pro",
		header: func(*testing.T, *harness) map[string]string {
			return map[string]string{"Content-Type": "multipart/form-data; boundary=B"}
		}}, nil,
		multipartSeed(map[string]string{"tx_lat": "-22.95", "tx_lon": "-43.23", "tx_height_m": "30", "tx_power_dbm": "43",
			"tx_gain_dbi": "15", "rx_gain_dbi": "0", "cable_loss_db": "1", "rx_height_m": "1.5"}, "csv_file", csv),
		multipartSeed(map[string]string{"tx_gain_dbi": "1e308", "rx_gain_dbi": "NaN", "cable_loss_db": "-Inf", "rx_height_m": "1.5",
			"tx_power_dbm": "43", "tx_height_m": "30", "tower_id": "x"}, "csv_file", "lat;lon;rsrp\n-22,9;-43,2;-95\n"),
		multipartSeed(nil, "csv_file", "\x1f\x8b\x08\x00"),
		multipartSeed(map[string]string{"csv_file": "x"}, "other", ""),
		"--B--\r\n", "--B\r\n\r\n", ``,
	)
}

// multipartSeed is a multipart body with boundary "B": the fields, then
// the file part.
func multipartSeed(fields map[string]string, file, content string) string {
	var b strings.Builder
	for k, v := range fields {
		b.WriteString("--B\r\nContent-Disposition: form-data; name=\"" + k + "\"\r\n\r\n" + v + "\r\n")
	}
	b.WriteString("--B\r\nContent-Disposition: form-data; name=\"" + file + "\"; filename=\"f.csv\"\r\nContent-Type: text/csv\r\n\r\n" + content + "\r\n--B--\r\n")
	return b.String()
}

// FuzzBatchReportsBody fuzzes POST /batch_reports in its three forms: the
// first byte of the input picks the Content-Type (JSON, text/csv,
// multipart with boundary "B"), the rest is the body.
func FuzzBatchReportsBody(f *testing.F) {
	row := `{"id":"a","receiver":{"lat":-22.95,"lon":-43.20,"height_m":10},"frequency_mhz":1800,"max_distance_km":5}`
	csv := "nome;latitude;longitude;frequencia_mhz\n=1+1;-22,95;-43,20;1800\n"
	for _, s := range []string{
		"j" + `{"options":{"pdfs":false},"rows":[` + row + `]}`,
		"j" + `{"rows":[` + strings.Replace(row, "-22.95", "1e308", 1) + `,` + strings.Replace(row, "1800", "-1e308", 1) + `]}`,
		"j" + `{"rows":[{"id":"😀\ud800","receiver":null}],"options":{"engine":"x","language":"zz"}}`,
		"j" + `{"rows":"x"}`, "j" + `{"rows":[[]]}`, "jnull", "j{",
		"c" + csv, "c" + "lat,lon,frequency_mhz\n1e308,-1e308,NaN\n", "c\xff\xfe;\n", "c",
		"m" + multipartSeed(map[string]string{"pdfs": "false", "engine": "fspl"}, "file", csv),
		"m" + multipartSeed(map[string]string{"language": "pt-BR"}, "file", "lat,lon,freq\n\"-22.9\",\"-43.2\",\"700\"\n"),
		"m--B--\r\n", "m",
	} {
		f.Add(s)
	}
	h := newHarness(f, harnessOptions{unmetered: true})
	d := loadOpenAPI(f)
	f.Fuzz(func(t *testing.T, in string) {
		ct, body := "application/json", in
		if in != "" {
			switch in[0] {
			case 'c':
				ct = "text/csv"
			case 'm':
				ct = "multipart/form-data; boundary=B"
			}
			body = in[1:]
		}
		req := httptest.NewRequest(http.MethodPost, "/batch_reports", strings.NewReader(body))
		req.Header.Set("X-API-Key", h.keys["pro"])
		req.Header.Set("Content-Type", ct)
		serveFuzz(t, h, d, req, ct+" body "+strconvQuote(body))
	})
}

// fuzzQueryAndBody fuzzes a route whose query parameter param and body
// both come from the client: the input is "VALUE\x00BODY".
func fuzzQueryAndBody(f *testing.F, path, param string) {
	h := newHarness(f, harnessOptions{unmetered: true})
	d := loadOpenAPI(f)
	f.Fuzz(func(t *testing.T, in string) {
		value, body, _ := strings.Cut(in, "\x00")
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		q := req.URL.Query()
		q.Set(param, value)
		req.URL.RawQuery = q.Encode()
		req.Header.Set("X-API-Key", h.keys["pro"])
		serveFuzz(t, h, d, req, param+"="+strconvQuote(value)+" body "+strconvQuote(body))
	})
}

func FuzzBrandingBody(f *testing.F) {
	logo := tinyPNG(f)
	fuzzRoute(f, routeFuzz{method: "PUT", path: "/tenant/branding", key: "pro"}, nil,
		`{"display_name":"Pro Telecom","primary_color":"#0A7F3C","support_contact":"noc@pro.example","report_footer":"Pro Telecom Ltda","logo":{"media_type":"image/png","data_base64":"`+logo+`"}}`,
		`{"display_name":"Pro 😀 Telecom","report_footer":"=HYPERLINK(\"x\")","logo":{"media_type":"image/svg+xml","data_base64":"PHN2Zz48L3N2Zz4="}}`,
		`{"logo":{"media_type":"image/png","data_base64":"iVBORw0KGgo="}}`,
		`{"primary_color":"#zzz","logo":null}`, `{"totp":"1"}`, `null`, `{`, ``,
	)
}

func FuzzAdminBrandingBody(f *testing.F) {
	fuzzRoute(f, routeFuzz{method: "PUT", path: "/admin/tenants/{tenant}/branding", key: "admin", header: adminTOTP},
		func(f *testing.F, h *harness, rf *routeFuzz) {
			rf.path = "/admin/tenants/" + tenantIDOf(f, h, "pro") + "/branding"
		},
		`{"display_name":"Pro Telecom","justification":"support ticket 1234"}`,
		`{"display_name":"","logo":{"media_type":"image/png","data_base64":"`+tinyPNG(f)+`"},"justification":"support ticket 1234"}`,
		`{"justification":""}`, `null`, `{`, ``,
	)
}

func FuzzAdminSSOBindBody(f *testing.F) {
	fuzzRoute(f, routeFuzz{method: "POST", path: "/admin/sso/bindings", key: "admin", opts: harnessOptions{sso: true}, header: adminTOTP},
		func(f *testing.F, h *harness, rf *routeFuzz) {
			f.Add(`{"subject":"okta|x","key_id":"` + h.keyIDs["free"] + `","justification":"support ticket 991"}`)
		},
		`{"subject":"s","key_id":"k","justification":"support ticket 991"}`, `{"subject":"s"}`, `null`, `{`, ``,
	)
}

func FuzzAdminSSOUnbindBody(f *testing.F) {
	fuzzRoute(f, routeFuzz{method: "POST", path: "/admin/sso/bindings/delete", key: "admin", opts: harnessOptions{sso: true}, header: adminTOTP}, nil,
		`{"subject":"okta|automation","justification":"a justification here"}`, `{"subject":1}`, `null`, `{`, ``,
	)
}

func FuzzBillingClaimBody(f *testing.F) {
	fuzzRoute(f, routeFuzz{method: "POST", path: "/billing/claim", opts: harnessOptions{billing: true}}, nil,
		`{"session_id":"cs_h_secret"}`, `{"session_id":""}`, `{"session_id":"`+strings.Repeat("c", 500)+`"}`, `{}`, `null`, `{`, ``,
	)
}

func FuzzAdminKeysBody(f *testing.F) {
	fuzzRoute(f, routeFuzz{method: "POST", path: "/admin/keys", key: "admin", header: adminTOTP}, nil,
		`{"tier":"pro","email":"a@example.com","owner":"Fuzz","justification":"issue a key for a test"}`,
		`{"tier":"ultra","role":"internal","email":"not an email","owner":"","justification":"x"}`,
		`{"tier":"admin"}`, `{"tier":1}`, `null`, `{`, ``,
	)
}

// FuzzAdminBackupBody fuzzes the body of POST /admin/backup (issue 21): a
// sound body streams a verified backup file, any other gets its 4xx.
func FuzzAdminBackupBody(f *testing.F) {
	fuzzRoute(f, routeFuzz{method: "POST", path: "/admin/backup", key: "admin", header: adminTOTP}, nil,
		`{"justification":"monthly off-site backup"}`, `{"justification":"monthly off-site backup","totp":"000000"}`,
		`{"justification":"x"}`, `{"justification":1}`, `{"totp":null}`, `{"compress":true}`, `null`, `[]`, `{`, ``,
	)
}

// FuzzAdminStandbyKeyBody fuzzes the body of POST /admin/standby-key
// (issue 21): a sound body issues a key, any other gets its 4xx.
func FuzzAdminStandbyKeyBody(f *testing.F) {
	fuzzRoute(f, routeFuzz{method: "POST", path: "/admin/standby-key", key: "admin", header: adminTOTP}, nil,
		`{"justification":"warm standby in the second rack"}`, `{"justification":"warm standby in the second rack","totp":"000000"}`,
		`{"justification":"x"}`, `{"justification":1}`, `{"totp":null}`, `{"every":60}`, `null`, `[]`, `{`, ``,
	)
}

// FuzzAdminDSARBody fuzzes the body of both DSAR admin routes (the first
// byte of the input picks export or erase) against a subject key of its
// own.
func FuzzAdminDSARBody(f *testing.F) {
	for _, s := range []string{
		`x{"justification":"data subject request 42","confirm_subject_email":"subject@example.com"}`,
		`e{"justification":"data subject request 42","confirm_subject_email":"subject@example.com"}`,
		`x{"justification":""}`, `e{"confirm_subject_email":1}`, `xnull`, `e{`, `x`,
	} {
		f.Add(s)
	}
	h := newHarness(f, harnessOptions{unmetered: true})
	prefix := h.issue(f, "subject", appliance.TierPro, appliance.RoleTenant)[:14]
	d := loadOpenAPI(f)
	f.Fuzz(func(t *testing.T, in string) {
		op, body := "export", in
		if in != "" {
			if in[0] == 'e' {
				op = "erase"
			}
			body = in[1:]
		}
		req := httptest.NewRequest(http.MethodPost, "/admin/dsar/"+prefix+"/"+op, strings.NewReader(body))
		req.Header.Set("X-API-Key", h.adminKey)
		req.Header.Set("X-Admin-Totp", h.freshTOTP(t))
		serveFuzz(t, h, d, req, op+" body "+strconvQuote(body))
	})
}

// FuzzEmptyBodies fuzzes the routes that take no body (or an empty JSON
// object): cancelling a job, rotating and revoking a key. The first byte
// picks the route.
func FuzzEmptyBodies(f *testing.F) {
	for _, s := range []string{"c", "c{}", "r", "r{}", "v", "v{}", "c{\"x\":1}", "rnull", "v[]", "c{", "r \n"} {
		f.Add(s)
	}
	h := newHarness(f, harnessOptions{unmetered: true})
	// a member key of the pro tenant, whose rotation and revocation do
	// not lock the fuzzer out
	res := h.do(f, "POST", "/tenant/keys", h.keys["pro"], nil, `{"tenant_role":"member"}`)
	var k api.NewKey
	if res.status != http.StatusCreated || json.Unmarshal(res.body, &k) != nil || k.Key.KeyID == "" {
		f.Fatalf("create a member key: %d %s", res.status, res.body)
	}
	id := k.Key.KeyID
	d := loadOpenAPI(f)
	f.Fuzz(func(t *testing.T, in string) {
		path, body := "/jobs/job_nonexistent/cancel", in
		if in != "" {
			switch in[0] {
			case 'r':
				path = "/tenant/keys/" + id + "/rotate"
			case 'v':
				path = "/tenant/keys/" + id + "/revoke"
			}
			body = in[1:]
		}
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("X-API-Key", h.keys["pro"])
		serveFuzz(t, h, d, req, path+" body "+strconvQuote(body))
	})
}
