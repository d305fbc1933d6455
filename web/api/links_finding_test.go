package api_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// linkContract checks a response of the link and coverage routes against
// openapi.json.
func linkContract(t *testing.T, method, path string, res *response) {
	t.Helper()
	for _, e := range loadOpenAPI(t).checkResponse(method, path, res) {
		t.Errorf("contract: %s", e)
	}
}

type wireWarning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type wireMinHeight struct {
	HeightM    *float64 `json:"height_m"`
	Achievable bool     `json:"achievable"`
	Note       string   `json:"note"`
}

type wirePath struct {
	KFactor          float64 `json:"k_factor"`
	EffEarthRadiusM  float64 `json:"effective_earth_radius_m"`
	HeightsAbove     string  `json:"heights_above"`
	ProfileSamples   int     `json:"profile_samples"`
	ProfileDecimated bool    `json:"profile_decimated"`
	Profile          []struct {
		DistanceM float64 `json:"distance_m"`
		F1RadiusM float64 `json:"f1_radius_m"`
	} `json:"profile"`
	Obstacle *struct {
		DistanceFromRxM float64 `json:"distance_from_receiver_m"`
		ClearanceM      float64 `json:"clearance_m"`
		ClearanceF1     float64 `json:"clearance_f1_fraction"`
	} `json:"dominant_obstacle"`
	RxLOS wireMinHeight `json:"min_receiver_height_los"`
	RxF60 wireMinHeight `json:"min_receiver_height_fresnel60"`
	TxLOS wireMinHeight `json:"min_tower_height_los"`
	TxF60 wireMinHeight `json:"min_tower_height_fresnel60"`
}

type wireResult struct {
	TowerID  string        `json:"tower_id"`
	Warnings []wireWarning `json:"warnings"`
	Path     *wirePath     `json:"path"`
	MinRatio *float64      `json:"min_fresnel_clearance_ratio"`
	LOSClear bool          `json:"los_clear"`
}

type wireAnalysis struct {
	Best         *wireResult   `json:"best_tower"`
	Alternatives []wireResult  `json:"alternatives"`
	Warnings     []wireWarning `json:"warnings"`
	Notes        []string      `json:"notes"`
}

func wireCodes(ws []wireWarning) []string {
	out := []string{}
	for _, w := range ws {
		out = append(out, w.Code)
	}
	return out
}

// The obstructed 6.5 km path of finding 3 (appliance/planner tests), as an
// ad hoc tower without power (EIRP assumed).
const finding3Pair = `{"tower":{"lat":-22.97922,"lon":-43.14501,"height":30},"receiver":{"lat":-22.95,"lon":-43.2,"height":10},"frequency_mhz":3500,"engine":"%s"}`

// TestFinding2_AnalyzeCarriesPathCheck: issue 7, finding 2. POST /analyze
// answers the profile, the dominant obstacle and the minimum heights, in
// the documented shape and precision.
func TestFinding2_AnalyzeCarriesPathCheck(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	res := h.do(t, http.MethodPost, "/analyze", h.keys["pro"], nil, fmt.Sprintf(finding3Pair, "fspl"))
	if res.status != http.StatusOK {
		t.Fatalf("status %d: %s", res.status, res.body)
	}
	linkContract(t, http.MethodPost, "/analyze", res)
	var r wireResult
	if err := json.Unmarshal(res.body, &r); err != nil {
		t.Fatal(err)
	}
	p := r.Path
	if p == nil || p.Obstacle == nil || len(p.Profile) < 3 || len(p.Profile) > 512 || p.HeightsAbove != "ground" || p.KFactor != 1.333 || p.EffEarthRadiusM != 8494667 {
		t.Fatalf("path %+v", p)
	}
	if r.MinRatio == nil || math.Abs(p.Obstacle.ClearanceF1-*r.MinRatio) > 0.0011 || p.Obstacle.ClearanceM >= 0 || r.LOSClear {
		t.Errorf("obstacle %+v, min ratio %v", p.Obstacle, r.MinRatio)
	}
	for name, m := range map[string]wireMinHeight{"rx LOS": p.RxLOS, "rx F60": p.RxF60, "tower LOS": p.TxLOS, "tower F60": p.TxF60} {
		if !m.Achievable || m.HeightM == nil || *m.HeightM <= 0 || math.Abs(*m.HeightM*100-math.Round(*m.HeightM*100)) > 1e-6 {
			t.Errorf("%s: %+v", name, m)
		}
	}
	if *p.RxF60.HeightM <= *p.RxLOS.HeightM {
		t.Errorf("60 %% F1 height %g not above the LOS height %g", *p.RxF60.HeightM, *p.RxLOS.HeightM)
	}
	if !slices.Contains(wireCodes(r.Warnings), "fspl_obstructed") || !slices.Contains(wireCodes(r.Warnings), "eirp_assumed") {
		t.Errorf("warnings %v", r.Warnings)
	}
	checkPrecision(t, res.body)
}

// checkPrecision walks a JSON body: every number has at most 3 decimals,
// latitudes and longitudes at most 6, and none is -0.
func checkPrecision(t *testing.T, body []byte) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(k, e)
			}
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		case json.Number:
			s := x.String()
			max := 3
			if strings.HasSuffix(key, "lat") || strings.HasSuffix(key, "lon") {
				max = 6
			}
			if i := strings.IndexByte(s, '.'); i >= 0 && !strings.ContainsAny(s, "eE") && len(s)-i-1 > max {
				t.Errorf("%s = %s: more than %d decimals", key, s, max)
			}
			if f, _ := strconv.ParseFloat(s, 64); f == 0 && math.Signbit(f) {
				t.Errorf("%s = -0", key)
			}
		}
	}
	walk("", v)
}

// TestFinding2_AnalyzeLinkIncludeProfile: the path check is on request,
// for the best tower and every alternative; an unknown include value is a
// 422 naming it.
func TestFinding2_AnalyzeLinkIncludeProfile(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	base := `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"max_distance_km":10,"max_alternatives":3%s}`
	for _, tc := range []struct {
		name    string
		extra   string
		status  int
		path    bool
		field   string
		message string
	}{
		{name: "without include", extra: "", status: 200},
		{name: "include null", extra: `,"include":null`, status: 200},
		{name: "include profile", extra: `,"include":["profile"]`, status: 200, path: true},
		{name: "unknown value named by index", extra: `,"include":["profile","obstacles"]`, status: 422, field: "include[1]", message: "obstacles"},
		{name: "not an array", extra: `,"include":"profile"`, status: 422, field: "include"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.do(t, http.MethodPost, "/analyze_link", h.keys["pro"], nil, fmt.Sprintf(base, tc.extra))
			if res.status != tc.status {
				t.Fatalf("status %d, want %d: %s", res.status, tc.status, res.body)
			}
			linkContract(t, http.MethodPost, "/analyze_link", res)
			if tc.status != 200 {
				var e struct {
					Error struct {
						Message string `json:"message"`
						Fields  []struct {
							Field string `json:"field"`
						} `json:"fields"`
					} `json:"error"`
				}
				_ = json.Unmarshal(res.body, &e)
				if len(e.Error.Fields) == 0 || e.Error.Fields[0].Field != tc.field || !strings.Contains(e.Error.Message, tc.message) {
					t.Errorf("error %+v, want field %s", e.Error, tc.field)
				}
				return
			}
			var a wireAnalysis
			if err := json.Unmarshal(res.body, &a); err != nil {
				t.Fatal(err)
			}
			if a.Best == nil || len(a.Alternatives) == 0 {
				t.Fatalf("want a best tower and alternatives: %s", res.body)
			}
			for i, r := range append([]wireResult{*a.Best}, a.Alternatives...) {
				if (r.Path != nil) != tc.path {
					t.Errorf("result %d (%s): path present %v, want %v", i, r.TowerID, r.Path != nil, tc.path)
				}
				if r.Path != nil && (len(r.Path.Profile) > 512 || r.Path.ProfileDecimated != (len(r.Path.Profile) < r.Path.ProfileSamples)) {
					t.Errorf("result %d: %d points of %d samples", i, len(r.Path.Profile), r.Path.ProfileSamples)
				}
			}
			checkPrecision(t, res.body)
		})
	}
}

// TestFinding3_WarningsAreCodedArrays: issue 7, finding 3, at the API:
// every result and the analysis carry warnings as arrays of {code,
// message}, never null, and the analysis merges the results' codes.
func TestFinding3_WarningsAreCodedArrays(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	for _, tc := range []struct {
		name, body string
		best       bool
	}{
		{"towers in range", `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":3500,"max_distance_km":10}`, true},
		{"no tower in range", `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":3500,"max_distance_km":0.001}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.do(t, http.MethodPost, "/analyze_link", h.keys["pro"], nil, tc.body)
			if res.status != http.StatusOK {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			linkContract(t, http.MethodPost, "/analyze_link", res)
			raw := res.json(t)
			if w, ok := raw["warnings"].([]any); !ok || w == nil {
				t.Fatalf("warnings %v is not an array", raw["warnings"])
			}
			var a wireAnalysis
			if err := json.Unmarshal(res.body, &a); err != nil {
				t.Fatal(err)
			}
			if (a.Best != nil) != tc.best {
				t.Fatalf("best %+v", a.Best)
			}
			if !tc.best {
				if len(a.Warnings) != 0 {
					t.Errorf("warnings %v without a result", a.Warnings)
				}
				return
			}
			merged := wireCodes(a.Warnings)
			for _, r := range append([]wireResult{*a.Best}, a.Alternatives...) {
				if r.Warnings == nil {
					t.Errorf("%s: warnings null", r.TowerID)
				}
				for _, w := range r.Warnings {
					if w.Code == "" || w.Message == "" || !slices.Contains(merged, w.Code) {
						t.Errorf("%s: warning %+v not merged into %v", r.TowerID, w, merged)
					}
				}
			}
		})
	}
}

// TestFinding9_LinkRoutesSmallDefects: issue 7, finding 9, for the link and
// engine routes: tx = rx is a 422 naming the field on compare as on
// predict and /analyze; the raytrace refusal does not claim a fallback; the
// user messages carry no internal operation prefix.
func TestFinding9_LinkRoutesSmallDefects(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	same := `{"tx":{"lat":-22.95,"lon":-43.2,"height_m":30},"rx":{"lat":-22.95,"lon":-43.2,"height_m":10},"frequency_mhz":1800}`
	for _, tc := range []struct {
		name, url, body string
		status          int
		field           string
		absent          []string
	}{
		{name: "compare with tx = rx", url: "/coverage/engines/compare", body: same, status: 422, field: "rx", absent: []string{"compare case:", "predict case:"}},
		{name: "predict with tx = rx", url: "/coverage/engines/predict", body: same, status: 422, field: "rx", absent: []string{"predict case:"}},
		{name: "analyze with receiver on the tower", url: "/analyze", status: 422, field: "receiver",
			body: `{"tower":{"lat":-22.95,"lon":-43.2},"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800}`, absent: []string{"analyze pair:"}},
		{name: "raytrace refusal is truthful", url: "/analyze_link", status: 403,
			body: `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"engine":"raytrace"}`, absent: []string{"fall back", "falls back"}},
		{name: "case parse error without prefix", url: "/coverage/engines/predict", status: 422, field: "frequency_mhz",
			body: `{"tx":{"lat":-22.95,"lon":-43.2,"height_m":30},"rx":{"lat":-22.96,"lon":-43.2,"height_m":10},"frequency_mhz":"x"}`, absent: []string{"parse case:"}},
		{name: "planner range error without prefix", url: "/analyze", status: 422, field: "frequency_mhz",
			body: `{"tower":{"lat":-22.97,"lon":-43.2},"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":5}`, absent: []string{"analyze pair:"}},
		{name: "missing tile without prefix", url: "/analyze_link", status: 422,
			body: `{"receiver":{"lat":-25.4,"lon":-49.2},"frequency_mhz":1800}`, absent: []string{"analyze link:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.do(t, http.MethodPost, tc.url, h.keys["pro"], nil, tc.body)
			if res.status != tc.status {
				t.Fatalf("status %d, want %d: %s", res.status, tc.status, res.body)
			}
			linkContract(t, http.MethodPost, tc.url, res)
			var e struct {
				Error struct {
					Message string `json:"message"`
					Fields  []struct {
						Field string `json:"field"`
					} `json:"fields"`
				} `json:"error"`
			}
			if err := json.Unmarshal(res.body, &e); err != nil {
				t.Fatal(err)
			}
			if tc.field != "" && !slices.ContainsFunc(e.Error.Fields, func(f struct {
				Field string `json:"field"`
			}) bool {
				return f.Field == tc.field
			}) {
				t.Errorf("fields %+v do not name %s", e.Error.Fields, tc.field)
			}
			for _, s := range tc.absent {
				if strings.Contains(e.Error.Message, s) {
					t.Errorf("message %q contains %q", e.Error.Message, s)
				}
			}
		})
	}
	t.Run("engine list does not promise a raytrace fallback", func(t *testing.T) {
		res := h.do(t, http.MethodGet, "/coverage/engines", h.keys["pro"], nil, "")
		if res.status != 200 || strings.Contains(string(res.body), "fall back to fspl") {
			t.Errorf("status %d: %s", res.status, res.body)
		}
	})
}

// FuzzAnalyzeLinkIncludeBody fuzzes /analyze_link bodies around the include
// field and the path check (profile on request): a documented status, never
// a 500, and a body that satisfies the document.
func FuzzAnalyzeLinkIncludeBody(f *testing.F) {
	fuzzBodies(f, "/analyze_link", []string{
		`{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":3500,"max_distance_km":8,"include":["profile"]}`,
		`{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":700,"max_distance_km":3,"include":["profile","profile"],"max_alternatives":0}`,
		`{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"include":["\u202e"]}`,
		`{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"include":[1,null]}`,
		`{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"include":{}}`,
	})
}

// FuzzEngineCompareBody fuzzes /coverage/engines/compare bodies, among them
// coincident terminals (422 naming rx, never per-row errors).
func FuzzEngineCompareBody(f *testing.F) {
	fuzzBodies(f, "/coverage/engines/compare", []string{
		`{"tx":{"lat":-22.95,"lon":-43.2,"height_m":30},"rx":{"lat":-22.95,"lon":-43.2,"height_m":10},"frequency_mhz":1800}`,
		`{"tx":{"lat":-22.95,"lon":-43.2,"height_m":30},"rx":{"lat":-22.9500001,"lon":-43.2,"height_m":10},"frequency_mhz":1800}`,
		caseBody("fspl", ""),
		caseBody("itm", `,"profile":{"distances_m":[0,500,1000],"heights_m":[10,30,8]}`),
	})
}

// TestFinding9_CoverageAnswersArePrecise: the engine routes' numbers keep
// the documented precision (3 decimals, 6 for latitudes and longitudes),
// with no -0.
func TestFinding9_CoverageAnswersArePrecise(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	for _, tc := range []struct{ method, url, body string }{
		{http.MethodGet, "/coverage/engines", ""},
		{http.MethodPost, "/coverage/engines/predict", caseBody("itm", "")},
		{http.MethodPost, "/coverage/engines/predict", caseBody("p1812", `,"time_pct":10`)},
		{http.MethodPost, "/coverage/engines/compare", caseBody("", "")},
		{http.MethodPost, "/analyze", fmt.Sprintf(finding3Pair, "itm")},
	} {
		t.Run(tc.method+" "+tc.url, func(t *testing.T) {
			res := h.do(t, tc.method, tc.url, h.keys["pro"], nil, tc.body)
			if res.status != http.StatusOK {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			linkContract(t, tc.method, tc.url, res)
			checkPrecision(t, res.body)
		})
	}
}
