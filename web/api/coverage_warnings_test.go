package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"linkplan/appliance"
)

// Engine cases of the Sugarloaf path of finding 1 (tower 15 m at
// -22.9555, -43.1640; receiver 10 m at -22.905, -43.112; 5.8 GHz) and of
// the obstructed finding-3 path, in terrain mode.
const (
	sugarloafCase = `{"engine":%q,"tx":{"lat":-22.9555,"lon":-43.1640,"height_m":15},"rx":{"lat":-22.905,"lon":-43.112,"height_m":10},"frequency_mhz":5800}`
	finding3Case  = `{"engine":%q,"tx":{"lat":-22.97922,"lon":-43.14501,"height_m":30},"rx":{"lat":-22.95,"lon":-43.2,"height_m":10},"frequency_mhz":3500}`
	explicitCase  = `{"engine":%q,"tx":{"lat":-22.95,"lon":-43.2,"height_m":10},"rx":{"lat":-22.96,"lon":-43.1,"height_m":10},"frequency_mhz":3500,"profile":{"distances_m":[0,5000,10000],"heights_m":[0,300,0]}}`
)

// pathWarningCodes keeps the codes of appliance.PathWarnings, in order.
func pathWarningCodes(ws []wireWarning) []string {
	return slices.DeleteFunc(wireCodes(ws), func(c string) bool {
		return c != appliance.WarnFSPLObstructed && c != appliance.WarnNoLandCover && c != appliance.WarnVoidFilledTerrain
	})
}

// TestFinding1And3_EngineRoutesWarnOfTheirPath: issue 7, findings 1 and 3.
// POST /coverage/engines/predict and /compare raise the same path warnings
// as the link routes (one function, appliance.PathWarnings): void-filled
// terrain on the Sugarloaf and finding-3 paths of the SRTM-only sample
// pack, no land cover
// (the sample pack has no land-cover layer), fspl on an obstructed path;
// an explicit profile raises only fspl_obstructed.
func TestFinding1And3_EngineRoutesWarnOfTheirPath(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	for _, tc := range []struct {
		name   string
		body   string
		engine string
		want   []string // predict's path warnings
	}{
		{name: "Sugarloaf, p1812", body: sugarloafCase, engine: "p1812",
			want: []string{appliance.WarnNoLandCover, appliance.WarnVoidFilledTerrain}},
		{name: "Sugarloaf, fspl (clear over the void-filled summit)", body: sugarloafCase, engine: "fspl",
			want: []string{appliance.WarnNoLandCover, appliance.WarnVoidFilledTerrain}},
		{name: "finding 3 path, fspl", body: finding3Case, engine: "fspl",
			want: []string{appliance.WarnFSPLObstructed, appliance.WarnNoLandCover, appliance.WarnVoidFilledTerrain}},
		{name: "finding 3 path, itm", body: finding3Case, engine: "itm",
			want: []string{appliance.WarnNoLandCover, appliance.WarnVoidFilledTerrain}},
		{name: "explicit profile, fspl", body: explicitCase, engine: "fspl",
			want: []string{appliance.WarnFSPLObstructed}},
		{name: "explicit profile, p1812", body: explicitCase, engine: "p1812",
			want: []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := fmt.Sprintf(tc.body, tc.engine)
			res := h.do(t, http.MethodPost, "/coverage/engines/predict", h.keys["pro"], nil, body)
			if res.status != http.StatusOK {
				t.Fatalf("predict status %d: %s", res.status, res.body)
			}
			linkContract(t, http.MethodPost, "/coverage/engines/predict", res)
			var p struct {
				UsedEngine string        `json:"used_engine"`
				Warnings   []wireWarning `json:"warnings"`
			}
			if err := json.Unmarshal(res.body, &p); err != nil {
				t.Fatal(err)
			}
			if got := pathWarningCodes(p.Warnings); p.UsedEngine != tc.engine || !slices.Equal(got, tc.want) {
				t.Fatalf("predict with %s: path warnings %v, want %v", p.UsedEngine, got, tc.want)
			}
			res = h.do(t, http.MethodPost, "/coverage/engines/compare", h.keys["pro"], nil, body)
			if res.status != http.StatusOK {
				t.Fatalf("compare status %d: %s", res.status, res.body)
			}
			linkContract(t, http.MethodPost, "/coverage/engines/compare", res)
			var c struct {
				Rows []struct {
					UsedEngine string        `json:"used_engine"`
					FresnelOK  bool          `json:"fresnel_ok"`
					Error      string        `json:"error"`
					Warnings   []wireWarning `json:"warnings"`
				} `json:"rows"`
			}
			if err := json.Unmarshal(res.body, &c); err != nil {
				t.Fatal(err)
			}
			for _, row := range c.Rows {
				want := slices.DeleteFunc(slices.Clone(tc.want), func(code string) bool { return code == appliance.WarnFSPLObstructed })
				if row.UsedEngine == string(appliance.EngineFSPL) && !row.FresnelOK {
					want = append([]string{appliance.WarnFSPLObstructed}, want...)
				}
				if got := pathWarningCodes(row.Warnings); row.Error == "" && !slices.Equal(got, want) {
					t.Errorf("compare row used %s: path warnings %v, want %v", row.UsedEngine, got, want)
				}
			}
		})
	}
}

// TestFinding3_EngineResolvedIsAWarningEverywhere: "auto" below Pro
// resolves to fspl, and every route says so the same way: an
// engine_resolved warning (on /analyze_link among the analysis warnings,
// notes repeating its message).
func TestFinding3_EngineResolvedIsAWarningEverywhere(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	for _, tc := range []struct{ name, url, body string }{
		{"analyze_link", "/analyze_link", `{"receiver":{"lat":-22.95,"lon":-43.2},"frequency_mhz":1800,"max_distance_km":10,"engine":"auto"}`},
		{"analyze", "/analyze", fmt.Sprintf(finding3Pair, "auto")},
		{"engines predict", "/coverage/engines/predict", fmt.Sprintf(finding3Case, "auto")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.do(t, http.MethodPost, tc.url, h.keys["free"], nil, tc.body)
			if res.status != http.StatusOK {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			linkContract(t, http.MethodPost, tc.url, res)
			var a struct {
				Warnings []wireWarning `json:"warnings"`
				Notes    []string      `json:"notes"`
			}
			if err := json.Unmarshal(res.body, &a); err != nil {
				t.Fatal(err)
			}
			var resolved []string
			for _, w := range a.Warnings {
				if w.Code == appliance.WarnEngineResolved {
					resolved = append(resolved, w.Message)
				}
			}
			if len(resolved) != 1 || !strings.Contains(resolved[0], "fspl") {
				t.Fatalf("engine_resolved warnings %q in %v", resolved, wireCodes(a.Warnings))
			}
			if tc.url == "/analyze_link" && !slices.Equal(a.Notes, resolved) {
				t.Errorf("notes %q do not repeat the warning %q", a.Notes, resolved)
			}
		})
	}
}
