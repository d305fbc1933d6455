//go:build systemtools

package main_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"linkplan/appliance/tooltest"
)

// Issue 20, scope 6: the caveats that /analyze_link carries travel with
// every other answer. Each test runs the finding's case on the real
// binary (embedded Rio terrain, sample and synthetic towers).

type wireWarning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func wireCodes(ws []wireWarning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Code
	}
	return out
}

// lookTool returns the path of a GDAL tool; without it the test fails
// under CI and skips otherwise.
func lookTool(t *testing.T, name string) string {
	t.Helper()
	return tooltest.Need(t, name, "gdal-bin")
}

// heatmapEvents posts body to /coverage/heatmap and reads the stream up
// to its last event: the map id and the data of each event type (the
// last of each).
func heatmapEvents(t *testing.T, s *server, key, body string) (string, map[string]json.RawMessage) {
	t.Helper()
	req, err := http.NewRequest("POST", s.base+"/coverage/heatmap", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	res, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("heatmap: %d", res.StatusCode)
	}
	evs := map[string]json.RawMessage{}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	typ := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			typ = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			evs[typ] = json.RawMessage(strings.TrimPrefix(line, "data: "))
			if typ == "summary" || typ == "error" {
				return res.Header.Get("X-Map-Id"), evs
			}
		}
	}
	t.Fatalf("the stream ended without a summary: %v", sc.Err())
	return "", nil
}

// TestIssue20_HeatmapSummaryAndExportsCarryEIRPAndWarnings: "heatmap
// summaries and exports carry no warnings and no EIRP, even for a tower
// whose position is uncertain by 5,000 m with an assumed EIRP". A map of
// the crowd-sourced tower ocid:724-11-45221-7956118 (no ERP, 5,000 m)
// now carries the EIRP, eirp_assumed and the whole-map warnings in its
// started and summary events, its GeoTIFF (gdalinfo: metadata and band
// unit dBm), its KMZ legend and its contours (ogrinfo: GeoJSON and
// Shapefile properties). On main the events had none of these fields,
// the GeoTIFF no metadata and the contours three attributes.
func TestIssue20_HeatmapSummaryAndExportsCarryEIRPAndWarnings(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	s := startServe(t, bin, dir)
	key := issueKey(t, s, dir, "Pro")
	const tower = "ocid:724-11-45221-7956118"
	id, evs := heatmapEvents(t, s, key, `{"tower_id":"`+tower+`","frequency_mhz":1800,"radius_km":10,"resolution_m":90}`)
	type caveats struct {
		Engine       string        `json:"engine"`
		EIRPDBm      *float64      `json:"eirp_dbm"`
		EIRPAssumed  bool          `json:"eirp_assumed"`
		Warnings     []wireWarning `json:"warnings"`
		Transmitters []struct {
			TowerID              string   `json:"tower_id"`
			EIRPAssumed          bool     `json:"eirp_assumed"`
			PositionUncertaintyM *float64 `json:"position_uncertainty_m"`
		} `json:"transmitters"`
	}
	var started, summary caveats
	if err := json.Unmarshal(evs["started"], &started); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(evs["summary"], &summary); err != nil {
		t.Fatalf("%v: %s", err, evs["error"])
	}
	for name, c := range map[string]caveats{"started": started, "summary": summary} {
		if c.Engine != "fspl" || c.EIRPDBm == nil || *c.EIRPDBm != 58 || !c.EIRPAssumed || len(c.Transmitters) != 1 ||
			c.Transmitters[0].TowerID != tower || c.Transmitters[0].PositionUncertaintyM == nil || *c.Transmitters[0].PositionUncertaintyM != 5000 {
			t.Errorf("%s event: %+v", name, c)
		}
	}
	if got := wireCodes(started.Warnings); !slices.Equal(got, []string{"eirp_assumed", "position_uncertainty"}) {
		t.Errorf("started warnings %v", got)
	}
	want := []string{"eirp_assumed", "position_uncertainty", "void_filled_terrain", "missing_terrain", "no_land_cover"}
	if got := wireCodes(summary.Warnings); !slices.Equal(got, want) {
		t.Fatalf("summary warnings %v, want %v", got, want)
	}

	export := func(format string) []byte {
		r := s.call(t, "GET", "/coverage/heatmap/"+id+"/export?format="+format, map[string]string{"X-API-Key": key}, "")
		if r.status != http.StatusOK {
			t.Fatalf("export %s: %d %s", format, r.status, r.body)
		}
		return r.body
	}
	tmp := t.TempDir()
	tif := filepath.Join(tmp, "map.tif")
	if err := os.WriteFile(tif, export("geotiff"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(lookTool(t, "gdalinfo"), "-json", tif).CombinedOutput()
	if err != nil {
		t.Fatalf("gdalinfo: %v\n%s", err, out)
	}
	var gi struct {
		Metadata map[string]map[string]string `json:"metadata"`
		Bands    []struct {
			Unit string `json:"unit"`
		} `json:"bands"`
	}
	if err := json.Unmarshal(out, &gi); err != nil {
		t.Fatal(err)
	}
	md := gi.Metadata[""]
	if md["EIRP_DBM"] != "58" || md["EIRP_ASSUMED"] != "true" || md["ENGINE"] != "fspl" || md["UNITS"] != "dBm" ||
		md["WARNINGS"] != strings.Join(want, ";") || !strings.HasPrefix(md["WARNING_2"], "position_uncertainty: ") ||
		len(gi.Bands) != 1 || gi.Bands[0].Unit != "dBm" {
		t.Errorf("GeoTIFF metadata %v, bands %+v", gi.Metadata, gi.Bands)
	}

	kmz := export("kmz")
	zr, err := zip.NewReader(bytes.NewReader(kmz), int64(len(kmz)))
	if err != nil {
		t.Fatal(err)
	}
	f, err := zr.Open("doc.kml")
	if err != nil {
		t.Fatal(err)
	}
	var doc bytes.Buffer
	_, _ = doc.ReadFrom(f)
	f.Close()
	for _, w := range append([]string{"Engine: fspl", "EIRP: 58 dBm (assumed"}, want...) {
		if !strings.Contains(doc.String(), w) {
			t.Errorf("the KMZ legend does not say %q", w)
		}
	}

	ogr := lookTool(t, "ogrinfo")
	gj := filepath.Join(tmp, "contours.geojson")
	shz := filepath.Join(tmp, "contours.zip")
	if err := os.WriteFile(gj, export("geojson"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shz, export("shapefile"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, eirp, assumed, warnings string }{
		{gj, "eirp_dbm (Real) = 58", "eirp_assumed (Integer(Boolean)) = 1", "warnings (String) = "},
		{"/vsizip/" + shz + "/contours_" + id + ".shp", "eirp_dbm (Real) = 58.000", "eirp_assum (String) = T", "warnings (String) = "},
	} {
		out, err := exec.Command(ogr, "-ro", "-al", "-q", c.path).CombinedOutput()
		if err != nil {
			t.Fatalf("ogrinfo %s: %v\n%s", c.path, err, out)
		}
		s := string(out)
		if n := strings.Count(s, c.warnings+strings.Join(want, ";")+"\n"); n != 3 || strings.Count(s, c.eirp+"\n") != 3 ||
			strings.Count(s, c.assumed+"\n") != 3 || strings.Count(s, "engine (String) = fspl\n") != 3 {
			t.Errorf("%s: the 3 contours do not all carry the caveats:\n%.3000s", c.path, s)
		}
	}
}

// TestIssue20_RepeaterPlanFlagsSyntheticObstructedFSPLHop: "a repeater
// plan at 5,800 MHz with min_margin_db 0 routes through a synthetic tower
// over a 19.9 km fspl hop with los_clear false and warnings []; the
// assumed EIRP and receiver threshold are not echoed". The same kind of
// plan (through synthetic:93303302000002, an 18.6 km hop with los_clear
// false) now flags that hop fspl_obstructed and both hops synthetic_tower
// and position_uncertainty, merges them into the plan's warnings after
// eirp_assumed, and echoes the radio budget it assumed.
func TestIssue20_RepeaterPlanFlagsSyntheticObstructedFSPLHop(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	s := startServe(t, bin, dir)
	key := issueKey(t, s, dir, "Pro")
	r := s.call(t, "POST", "/plan_repeater", map[string]string{"X-API-Key": key, "Content-Type": "application/json"},
		`{"from":{"lat":-22.8134,"lon":-43.1462,"height_m":30},"to":{"lat":-22.985,"lon":-43.254,"height_m":30},`+
			`"frequency_mhz":5800,"min_margin_db":0,"max_hops":2,"max_hop_m":25000,"engine":"fspl"}`)
	if r.status != http.StatusOK {
		t.Fatalf("plan_repeater: %d %s", r.status, r.body)
	}
	type node struct {
		TowerID              string   `json:"tower_id"`
		Synthetic            bool     `json:"synthetic"`
		PositionUncertaintyM *float64 `json:"position_uncertainty_m"`
	}
	var p struct {
		Route *struct {
			Hops []struct {
				From, To          node
				DistanceM         float64       `json:"distance_m"`
				LOSClear          bool          `json:"los_clear"`
				FresnelOK         bool          `json:"fresnel_ok"`
				MinClearanceRatio *float64      `json:"min_clearance_ratio"`
				Warnings          []wireWarning `json:"warnings"`
			} `json:"hops"`
		} `json:"route"`
		RadioBudget struct {
			EIRPDBm        float64  `json:"eirp_dbm"`
			EIRPAssumed    bool     `json:"eirp_assumed"`
			RxThresholdDBm float64  `json:"rx_threshold_dbm"`
			RxGainDBi      *float64 `json:"rx_gain_dbi"`
			MinMarginDB    *float64 `json:"min_margin_db"`
			MaxPathLossDB  float64  `json:"max_path_loss_db"`
			Assumed        []string `json:"assumed"`
		} `json:"radio_budget"`
		Warnings []wireWarning `json:"warnings"`
	}
	if err := json.Unmarshal(r.body, &p); err != nil || p.Route == nil || len(p.Route.Hops) != 2 {
		t.Fatalf("plan %s: %v", r.body, err)
	}
	b := p.RadioBudget
	if b.EIRPDBm != 58 || !b.EIRPAssumed || b.RxThresholdDBm != -95 || b.RxGainDBi == nil || *b.RxGainDBi != 0 ||
		b.MinMarginDB == nil || *b.MinMarginDB != 0 || b.MaxPathLossDB != 153 || !slices.Equal(b.Assumed, []string{"eirp_dbm", "rx_gain_dbi", "rx_threshold_dbm"}) {
		t.Errorf("radio budget %+v", b)
	}
	obstructed := false
	for i, h := range p.Route.Hops {
		codes := wireCodes(h.Warnings)
		if h.MinClearanceRatio == nil || slices.Contains(codes, "fspl_obstructed") != !h.FresnelOK {
			t.Errorf("hop %d (los_clear %v, fresnel_ok %v): %v", i, h.LOSClear, h.FresnelOK, codes)
		}
		if !h.LOSClear {
			obstructed = true
		}
		relay := h.To
		if i == 1 {
			relay = h.From
		}
		if relay.TowerID != "synthetic:93303302000002" || !relay.Synthetic || relay.PositionUncertaintyM == nil ||
			!slices.Contains(codes, "synthetic_tower") || !slices.Contains(codes, "position_uncertainty") {
			t.Errorf("hop %d relay %+v: warnings %v", i, relay, codes)
		}
	}
	if !obstructed {
		t.Fatal("no hop with los_clear false: the case no longer reproduces the finding")
	}
	got := wireCodes(p.Warnings)
	if len(got) == 0 || got[0] != "eirp_assumed" {
		t.Fatalf("plan warnings %v", got)
	}
	for _, c := range []string{"fspl_obstructed", "synthetic_tower", "position_uncertainty"} {
		if !slices.Contains(got, c) {
			t.Errorf("plan warnings %v lack %s", got, c)
		}
	}
}

// TestIssue20_BatchGISExportsCarryWarningCodesSyntheticAndUncertainty:
// "batch GeoJSON, Shapefile and KML keep only warnings: 4; 71 of 101 rows
// had a synthetic tower and only the synthetic: id prefix shows it". A
// 101-row job's bundle now carries, per row, the warning codes, synthetic
// and position_uncertainty_m in results.csv (with the messages), the
// GeoJSON, the KML and the Shapefile (ogrinfo), and the synthetic flag
// agrees with the id prefix row by row.
func TestIssue20_BatchGISExportsCarryWarningCodesSyntheticAndUncertainty(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	s := startServe(t, bin, dir)
	key := issueKey(t, s, dir, "Pro")
	const n = 101
	id := submitBatch(t, s, key, drillRows(n))
	if j := waitJob(t, s, key, id, nil); j.State != "succeeded" {
		t.Fatalf("job %+v", j)
	}
	files := download(t, s, key, id)
	var gj struct {
		Features []struct {
			Properties struct {
				TowerID              *string  `json:"tower_id"`
				Warnings             *string  `json:"warnings"`
				Synthetic            *bool    `json:"synthetic"`
				PositionUncertaintyM *float64 `json:"position_uncertainty_m"`
			} `json:"properties"`
		} `json:"features"`
	}
	if err := json.Unmarshal(files["results.geojson"], &gj); err != nil {
		t.Fatal(err)
	}
	synthetic, withCodes := 0, 0
	for i, f := range gj.Features {
		p := f.Properties
		if p.Synthetic == nil {
			t.Fatalf("feature %d has no synthetic property", i)
		}
		prefixed := p.TowerID != nil && strings.HasPrefix(*p.TowerID, "synthetic:")
		if *p.Synthetic != prefixed {
			t.Errorf("feature %d: synthetic %v, tower %v", i, *p.Synthetic, p.TowerID)
		}
		if *p.Synthetic {
			synthetic++
			if p.Warnings == nil || !strings.Contains(*p.Warnings, "synthetic_tower") || p.PositionUncertaintyM == nil {
				t.Errorf("feature %d: synthetic tower without its caveats: warnings %v, uncertainty %v", i, p.Warnings, p.PositionUncertaintyM)
			}
		}
		if p.Warnings != nil {
			withCodes++
		}
	}
	t.Logf("%d features, %d with a synthetic best tower, %d with warning codes", len(gj.Features), synthetic, withCodes)
	if synthetic == 0 || withCodes == 0 {
		t.Fatalf("%d synthetic rows, %d rows with warning codes: the case does not exercise the finding", synthetic, withCodes)
	}

	recs, err := csv.NewReader(bytes.NewReader(files["results.csv"])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int {
		i := slices.Index(recs[0], name)
		if i < 0 {
			t.Fatalf("results.csv has no %s column: %v", name, recs[0])
		}
		return i
	}
	cw, cm, cs := col("warnings"), col("warning_messages"), col("synthetic")
	csvSynthetic := 0
	for _, rec := range recs[1:] {
		if rec[cs] == "true" {
			csvSynthetic++
		}
		if codes := strings.Split(rec[cw], ";"); rec[cw] != "" && len(strings.Split(rec[cm], " | ")) != len(codes) {
			t.Errorf("row %s: %d codes, messages %q", rec[0], len(codes), rec[cm])
		}
	}
	if csvSynthetic != synthetic {
		t.Errorf("results.csv has %d synthetic rows, the GeoJSON %d", csvSynthetic, synthetic)
	}

	tmp := t.TempDir()
	for name, b := range files {
		if strings.HasPrefix(name, "results.") {
			if err := os.WriteFile(filepath.Join(tmp, name), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	ogr := lookTool(t, "ogrinfo")
	for _, c := range []struct{ file, synthetic, uncertainty, warnings string }{
		{"results.shp", "synthetic (String) = T", "position_u (Real) = ", "warnings (String) = "},
		{"results.kml", "synthetic (Integer) = 1", "position_uncertainty_m (Real) = ", "warnings (String) = "},
	} {
		out, err := exec.Command(ogr, "-ro", "-al", "-q", filepath.Join(tmp, c.file)).CombinedOutput()
		if err != nil {
			t.Fatalf("ogrinfo %s: %v\n%s", c.file, err, out)
		}
		s := string(out)
		if got := strings.Count(s, c.synthetic+"\n"); got != synthetic {
			t.Errorf("%s: %d features with %q, want %d", c.file, got, c.synthetic, synthetic)
		}
		if !strings.Contains(s, c.uncertainty) || !strings.Contains(s, c.warnings+"fspl_obstructed") && !strings.Contains(s, c.warnings+"no_land_cover") {
			t.Errorf("%s lacks position uncertainty or warning codes:\n%.2000s", c.file, s)
		}
	}
}

// TestIssue20_AIChatNamesEveryWarningAndSaysTheQuestionWasNotAnswered:
// "/ai/chat answers the link closes with none of the 4 warnings, and
// silently ignores the user's question when no language model is
// configured". Without a language model the answer now starts by saying
// the question was not answered, and names every warning of the analysis
// (grounding.missing_warnings empty).
func TestIssue20_AIChatNamesEveryWarningAndSaysTheQuestionWasNotAnswered(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	s := startServe(t, bin, dir)
	key := issueKey(t, s, dir, "Pro")
	r := s.call(t, "POST", "/ai/chat", map[string]string{"X-API-Key": key, "Content-Type": "application/json"},
		`{"analysis":{"receiver":{"lat":-22.95,"lon":-43.20,"height":10},"frequency_mhz":5800,"max_distance_km":20},"question":"Would a 20 m mast help?","language":"en"}`)
	if r.status != http.StatusOK {
		t.Fatalf("ai/chat: %d %s", r.status, r.body)
	}
	var a struct {
		Answer           string `json:"answer"`
		QuestionAnswered *bool  `json:"question_answered"`
		Grounding        struct {
			MissingWarnings []string `json:"missing_warnings"`
			Outcome         string   `json:"outcome"`
		} `json:"grounding"`
		Analysis struct {
			Warnings []wireWarning `json:"warnings"`
		} `json:"analysis"`
	}
	if err := json.Unmarshal(r.body, &a); err != nil {
		t.Fatal(err)
	}
	codes := wireCodes(a.Analysis.Warnings)
	if len(codes) < 4 {
		t.Fatalf("the case has warnings %v, want the 4 of the finding", codes)
	}
	if !strings.HasPrefix(a.Answer, "No language model is configured on this appliance, so your question was not answered") ||
		a.QuestionAnswered == nil || *a.QuestionAnswered || a.Grounding.Outcome != "template" || a.Grounding.MissingWarnings == nil || len(a.Grounding.MissingWarnings) != 0 {
		t.Errorf("answer (question answered %v, grounding %+v):\n%s", a.QuestionAnswered, a.Grounding, a.Answer)
	}
	for _, w := range a.Analysis.Warnings {
		if !strings.Contains(a.Answer, w.Code+": ") {
			t.Errorf("the answer does not name %s:\n%s", w.Code, a.Answer)
		}
	}
}
