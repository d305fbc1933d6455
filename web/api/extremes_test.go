package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
)

// extremeNumbers are the values put in place of each number of a valid
// body in turn (issue 20: ±1e308 in a batch row answered 500).
var extremeNumbers = []string{"1e308", "-1e308", "0", "-0", "5e-324", "-5e-324", "9007199254740993", "-1"}

// otherValues are put in place of every value (numbers, strings, objects,
// arrays) in turn: other types, empty and odd texts.
var otherValues = []string{`null`, `""`, `"x"`, `"😀 漢字 \u202e"`, `"` + strings.Repeat("w", 300) + `"`, `true`, `[]`, `{}`, `-1e308`}

// extremeBodies are valid bodies of the JSON routes (the seeds of their
// fuzz targets).
func extremeBodies() map[string]string {
	link := `{"receiver":{"lat":-22.95,"lon":-43.20,"height_m":10},"frequency_mhz":1800,"max_distance_km":20,"rx_gain_dbi":3,"cable_loss_db":1,"rx_threshold_dbm":-100,"assumed_eirp_dbm":50,"max_alternatives":2}`
	return map[string]string{
		"/analyze_link":                link,
		"/exports/link":                link,
		"/reports/link":                link,
		"/analyze":                     `{"tower":{"lat":-22.97922,"lon":-43.14501,"height_m":30,"power":55,"azimuth":90,"tilt":2},"receiver":{"lat":-22.95,"lon":-43.2,"height_m":10},"frequency_mhz":3500,"rx_gain_dbi":3,"cable_loss_db":1,"rx_threshold_dbm":-100}`,
		"/coverage/engines/predict":    caseBody("fspl", ""),
		"/coverage/heatmap":            `{"site":{"lat":-22.93,"lon":-43.30,"height_m":30,"eirp_dbm":58},"frequency_mhz":1800,"radius_km":1,"resolution_m":250,"rx_height_m":1.5}`,
		"/coverage/best_server":        `{"bbox":{"min_lat":-22.95,"min_lon":-43.25,"max_lat":-22.94,"max_lon":-43.24},"frequency_mhz":1800,"resolution_m":250,"rx_height_m":1.5}`,
		"/plan_repeater":               `{"from":{"lat":-22.95,"lon":-43.35,"height_m":60},"to":{"lat":-22.9516,"lon":-43.2372,"height_m":50},"frequency_mhz":900,"max_hops":2,"min_margin_db":0}`,
		"/coverage/observations":       obsRow(-22.9),
		"/coverage/observations/batch": obsBatch("", -22.91, -22.92),
		"/coverage/predict":            predictRio,
		"/towers":                      `{"operator":"Vivo","lat":-22.9,"lon":-43.2,"height_m":30,"power":55,"azimuth":120,"tilt":3,"bands_mhz":[1800,2600]}`,
		"/batch_reports":               `{"options":{"pdfs":false},"rows":[{"id":"a","receiver":{"lat":-22.95,"lon":-43.20,"height_m":10},"frequency_mhz":1800,"max_distance_km":5,"rx_gain_dbi":3,"cable_loss_db":1,"rx_threshold_dbm":-100,"assumed_eirp_dbm":50}]}`,
		"/ai/chat":                     `{"analysis":` + link + `,"question":"why?","language":"en"}`,
		"/ai/suggest-height":           `{"link":{"tower":{"lat":-22.90,"lon":-43.10,"height_m":15,"power":50},"receiver":{"lat":-22.93,"lon":-43.18,"height_m":2},"frequency_mhz":5800},"target_margin_db":0,"step_m":0.5,"max_height_m":60}`,
		"/ai/compare":                  `{"tx":{"lat":-22.925,"lon":-43.31,"height_m":30},"rx":{"lat":-22.96,"lon":-43.21,"height_m":10},"frequency_mhz":900}`,
	}
}

// numberPaths returns the paths of the numbers of a decoded JSON value.
func numberPaths(v any, path []any, out *[][]any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			numberPaths(x[k], append(append([]any{}, path...), k), out)
		}
	case []any:
		for i, e := range x {
			numberPaths(e, append(append([]any{}, path...), i), out)
		}
	case json.Number:
		*out = append(*out, path)
	}
}

// valuePaths returns the paths of every value of a decoded JSON value but
// the root.
func valuePaths(v any, path []any, out *[][]any) {
	if len(path) > 0 {
		*out = append(*out, path)
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			valuePaths(x[k], append(append([]any{}, path...), k), out)
		}
	case []any:
		for i, e := range x {
			valuePaths(e, append(append([]any{}, path...), i), out)
		}
	}
}

// setNumber replaces the number at path in v with raw.
func setNumber(v any, path []any, raw string) {
	for i, p := range path {
		last := i == len(path)-1
		switch k := p.(type) {
		case string:
			m := v.(map[string]any)
			if last {
				m[k] = json.RawMessage(raw)
				return
			}
			v = m[k]
		case int:
			a := v.([]any)
			if last {
				a[k] = json.RawMessage(raw)
				return
			}
			v = a[k]
		}
	}
}

// TestIssue20_ExtremeNumbersNo500 puts each extreme number in place of
// every number of a valid body of every JSON route in turn, then each of
// otherValues in place of every value: no answer is a 500, and every
// answer satisfies the document.
func TestIssue20_ExtremeNumbersNo500(t *testing.T) {
	if testing.Short() {
		t.Skip("sends about 4,000 requests")
	}
	h := newHarness(t, harnessOptions{unmetered: true})
	d := loadOpenAPI(t)
	routes := extremeBodies()
	names := make([]string, 0, len(routes))
	for r := range routes {
		names = append(names, r)
	}
	sort.Strings(names)
	sent := 0
	send := func(route string, v any, what string) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodPost, route, bytes.NewReader(b))
		req.Header.Set("X-API-Key", h.keys["pro"])
		serveFuzz(t, h, d, req, what)
		sent++
	}
	decode := func(body string) any {
		dec := json.NewDecoder(strings.NewReader(body))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("seed body %s: %v", body, err)
		}
		return v
	}
	for _, route := range names {
		body := routes[route]
		var nums, all [][]any
		numberPaths(decode(body), nil, &nums)
		valuePaths(decode(body), nil, &all)
		for _, p := range nums {
			for _, x := range extremeNumbers {
				v := decode(body)
				setNumber(v, p, x)
				send(route, v, fmt.Sprintf("%s %v=%s", route, p, x))
			}
		}
		for _, p := range all {
			for _, x := range otherValues {
				v := decode(body)
				setNumber(v, p, x)
				send(route, v, fmt.Sprintf("%s %v=%s", route, p, x))
			}
		}
	}
	t.Logf("%d requests over %d routes", sent, len(routes))
}
