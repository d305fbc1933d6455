package api_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fuzzBodies runs the real API on arbitrary request bodies for one route:
// whatever the body, the answer is a documented status (never a 500), its
// body satisfies the document and it carries X-Request-Id.
func fuzzBodies(f *testing.F, path string, seeds []string) {
	for _, s := range seeds {
		f.Add(s)
	}
	h := newHarness(f, harnessOptions{unmetered: true})
	d := loadOpenAPI(f)
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("X-API-Key", h.keys["pro"])
		rec := httptest.NewRecorder()
		h.api.ServeHTTP(rec, req)
		res := rec.Result()
		b, _ := io.ReadAll(res.Body)
		r := &response{status: res.StatusCode, header: res.Header, body: b}
		if r.status == http.StatusInternalServerError {
			t.Fatalf("500 for %q", body)
		}
		for _, e := range d.checkResponse(http.MethodPost, path, r) {
			t.Errorf("contract: %s (body %q)", e, body)
		}
	})
}

func FuzzAnalyzeLinkBody(f *testing.F) {
	fuzzBodies(f, "/analyze_link", []string{
		`{"receiver":{"lat":-22.95,"lon":-43.20,"height":10},"frequency_mhz":1800,"max_distance_km":20}`,
		`{"receiver":{"lat":-22.95,"lon":-43.2,"alt":3},"frequency_mhz":1800,"zz":[1]}`,
		`{"receiver":{"lat":-25.4,"lon":-49.2},"frequency_mhz":900,"engine":"auto","max_alternatives":0}`,
		`{"receiver":[1],"frequency_mhz":"x"}`, `null`, `[]`, `{`, ``,
	})
}

func FuzzEngineCaseBody(f *testing.F) {
	fuzzBodies(f, "/coverage/engines/predict", []string{
		caseBody("fspl", ""),
		caseBody("itm", `,"profile":{"distances_m":[0,500,1000],"heights_m":[10,30,8],"zones":[4,4,4]}`),
		caseBody("p1812", `,"p1812":{"delta_n":40,"diffraction":"deygout"},"time_pct":10`),
		`{"tx":{"lat":-95},"itm":{"climat":1}}`, `{}`, `nope`,
	})
}

func FuzzHeatmapBody(f *testing.F) {
	fuzzBodies(f, "/coverage/heatmap", []string{
		`{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800,"radius_km":1,"resolution_m":250}`,
		`{"tower_id":"x","site":{"lat":1},"frequency_mhz":-1,"radius_km":0}`,
		`{"site":{"lat":-22.93,"lon":-43.30,"height_m":1e308,"eirp_dbm":58},"frequency_mhz":1800,"radius_km":1e-9,"resolution_m":1e9}`,
		`{"tower_ids":[1],"bbox":{}}`, `null`, `{`, ``,
	})
}

func FuzzPlanRepeaterBody(f *testing.F) {
	fuzzBodies(f, "/plan_repeater", []string{
		`{"from":{"lat":-22.95,"lon":-43.35,"height_m":60},"to":{"lat":-22.9516,"lon":-43.2372,"height_m":50},"frequency_mhz":900,"max_hops":2}`,
		`{"from":{"tower_id":"a","lat":1},"to":{},"frequency_mhz":0,"max_hops":-1,"candidate_sites":[{}]}`,
		`{"from":{"lat":-22.95,"lon":-43.35,"height_m":60},"to":{"lat":-22.95,"lon":-43.35,"height_m":60},"frequency_mhz":900}`,
		`[]`, `{"alternatives":"x"}`,
	})
}

func FuzzLinkInterferenceBody(f *testing.F) {
	fuzzBodies(f, "/links/interference", []string{
		`{"a":{"lat":-22.93,"lon":-43.48,"height_m":30},"b":{"lat":-22.89,"lon":-43.44,"height_m":30},"frequency_mhz":5800,"bandwidth_mhz":20,"required_ci_db":25}`,
		`{"a":{"lat":-22.93,"lon":-43.48,"height_m":30,"antenna_id":"builtin:dish-30dbi"},"b":{"lat":-22.93,"lon":-43.48,"height_m":30},"frequency_mhz":5800}`,
		`{"a":{},"b":{"lat":1e999},"frequency_mhz":-1,"radius_km":0,"max_interferers":-3,"acs_db":"x"}`,
		`{"a":{"lat":-22.93,"lon":-43.48,"height_m":30},"b":{"lat":-22.89,"lon":-43.44,"height_m":30},"frequency_mhz":2600,"radius_km":500}`,
		`[]`, `null`, `{`,
	})
}

func FuzzCreateKeyBody(f *testing.F) {
	fuzzBodies(f, "/tenant/keys", []string{
		`{"tenant_role":"read-only"}`, `{"tenant_role":"member"}`, `{"tenant_role":""}`, `{"tenant_role":1}`,
		`{"tenant_role":"tenant-admin","x":1}`, ` `, `null`, `[]`, `{`, ``,
	})
}

func FuzzForgetBody(f *testing.F) {
	fuzzBodies(f, "/tenant/me/data/forget", []string{
		`{"confirmation":"delete my data"}`, `{"confirmation":null}`, `{"confirmation":["DELETE MY DATA"]}`,
		`{"confirmation":"DELETE MY DATA\u0000"}`, `{}`, `null`, `{`, ``, `{"confirmation":"DELETE MY DATA"}`,
	})
}

// FuzzObservationBatchBody fuzzes POST /coverage/observations/batch.
func FuzzObservationBatchBody(f *testing.F) {
	fuzzBodies(f, "/coverage/observations/batch", []string{
		obsBatch("true", -22.91, -22.92),
		obsBatch("", -22.91, -91),
		`{"observations":[{"source":"drivetest_x","rx_lat":1e309}],"consent_for_training":"yes"}`,
		`{"observations":null}`, `[]`, `{"observations":[{}]}`,
	})
}

func FuzzAIChatBody(f *testing.F) {
	fuzzBodies(f, "/ai/chat", []string{
		`{"analysis":{"receiver":{"lat":-22.95,"lon":-43.20,"height":10},"frequency_mhz":1800,"max_distance_km":20},"question":"Por quê?","language":"en"}`,
		`{"analysis":{"receiver":{"lat":-22.95},"frequency_mhz":"x"},"language":"fr"}`,
		`{"analysis":null,"question":1}`, `{"question":"\u0000\ud800"}`, `null`, `[]`, `{`, ``,
	})
}

func FuzzAISuggestHeightBody(f *testing.F) {
	fuzzBodies(f, "/ai/suggest-height", []string{
		`{"link":{"tower":{"lat":-22.90,"lon":-43.10,"height":15,"power":50},"receiver":{"lat":-22.93,"lon":-43.18,"height":2},"frequency_mhz":5800},"target_margin_db":0,"step_m":0.5,"max_height_m":60}`,
		`{"link":{"tower_id":"x","receiver":{"lat":-22.93,"lon":-43.18},"frequency_mhz":5800},"move":"tower","step_m":1e-300,"max_height_m":1e308}`,
		`{"link":{},"target_margin_db":"NaN"}`, `{"link":[]}`, `null`, `{`, ``,
	})
}

func FuzzAICompareBody(f *testing.F) {
	fuzzBodies(f, "/ai/compare", []string{
		`{"tx":{"lat":-22.925,"lon":-43.31,"height_m":30},"rx":{"lat":-22.96,"lon":-43.21,"height_m":10},"frequency_mhz":900}`,
		`{"tx":{"lat":-22.925},"rx":{},"frequency_mhz":-1,"profile":{"distances_m":[0],"heights_m":[]}}`,
		`{"tx":1}`, `null`, `{`, ``,
	})
}

func FuzzAIBatchAnalyzeBody(f *testing.F) {
	fuzzBodies(f, "/ai/batch-analyze", []string{
		`{"job_id":"job_x","language":"en"}`, `{"job_id":""}`, `{"job_id":1}`, `{"job_id":"` + strings.Repeat("j", 200) + `"}`, `null`, `{`, ``,
	})
}

func FuzzPredictBody(f *testing.F) {
	fuzzBodies(f, "/coverage/predict", []string{
		predictRio, predictDortmund,
		predictBody(-22.95, -43.21, -22.92, -43.19, 1800, `,"model":"ridge","rx_height_m":1e308`),
		`{"tower_id":"x","tx_lat":1,"rx_lat":-91,"frequency_mhz":-1}`,
		`{"tx_lat":-22.95,"tx_lon":-43.21,"tx_height_m":30,"rx_lat":-22.95,"rx_lon":-43.21,"frequency_mhz":1800,"tx_power_dbm":43}`,
		`{"model":null}`, `null`, `[]`, `{`, ``,
	})
}
