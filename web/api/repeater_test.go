package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// planBody is a plan between two sites 20 km apart across Rio.
func planBody(maxHops int) string {
	return `{"from":{"lat":-22.95,"lon":-43.35,"height_m":30},"to":{"lat":-22.90,"lon":-43.17,"height_m":30},"frequency_mhz":5800,"max_hops":` +
		itoaTest(maxHops) + `,"engine":"itm","max_hop_m":15000,"alternatives":1}`
}

func itoaTest(i int) string { b, _ := json.Marshal(i); return string(b) }

type planAnswer struct {
	Engine string `json:"engine"`
	Route  *struct {
		Hops []struct {
			From struct {
				Kind string  `json:"kind"`
				Lat  float64 `json:"lat"`
			} `json:"from"`
			MarginDB float64 `json:"margin_db"`
		} `json:"hops"`
		BottleneckHop int     `json:"bottleneck_hop"`
		MinMarginDB   float64 `json:"min_margin_db"`
	} `json:"route"`
	Reason string `json:"reason"`
	Counts struct {
		Candidates     int `json:"candidates"`
		EdgesEvaluated int `json:"edges_evaluated"`
	} `json:"counts"`
}

func TestPlanRepeaterSync(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	res := h.do(t, "POST", "/plan_repeater", h.keys["pro"], nil, planBody(3))
	if res.status != http.StatusOK {
		t.Fatalf("%d %s", res.status, res.body)
	}
	p := decodeInto[planAnswer](t, res)
	if p.Counts.Candidates == 0 || p.Counts.EdgesEvaluated == 0 {
		t.Fatalf("no work done: %s", res.body)
	}
	if p.Route == nil && p.Reason == "" {
		t.Fatalf("neither route nor reason: %s", res.body)
	}
	if p.Route != nil {
		if len(p.Route.Hops) == 0 || len(p.Route.Hops) > 3 || p.Route.Hops[0].From.Kind != "from" || p.Route.Hops[0].From.Lat != -22.95 {
			t.Fatalf("route %s", res.body)
		}
		for _, hp := range p.Route.Hops {
			if hp.MarginDB < 10 {
				t.Errorf("hop margin %.1f dB below the 10 dB default", hp.MarginDB)
			}
		}
	}
	// The same plan again is warm: no edge evaluated on terrain.
	again := decodeInto[planAnswer](t, h.do(t, "POST", "/plan_repeater", h.keys["pro"], nil, planBody(3)))
	if again.Counts.EdgesEvaluated != 0 {
		t.Errorf("repeated plan evaluated %d edges", again.Counts.EdgesEvaluated)
	}
}

func TestPlanRepeaterJob(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	res := h.do(t, "POST", "/plan_repeater", h.keys["pro"], nil, planBody(5))
	if res.status != http.StatusAccepted {
		t.Fatalf("%d %s", res.status, res.body)
	}
	j := decodeInto[struct {
		Job jobAnswer `json:"job"`
	}](t, res).Job
	if res.header.Get("Location") != "/jobs/"+j.ID {
		t.Fatalf("Location %q job %+v", res.header.Get("Location"), j)
	}
	if done := waitFor(t, h, h.keys["pro"], j.ID); done.State != "succeeded" {
		t.Fatalf("job %+v", done)
	}
	dl := h.do(t, "GET", "/jobs/"+j.ID+"/download", h.keys["pro"], nil, "")
	if dl.status != http.StatusOK || dl.header.Get("Content-Type") != "application/json" || !bytes.Contains(dl.body, []byte(`"counts"`)) {
		t.Fatalf("download %d %s %.300s", dl.status, dl.header.Get("Content-Type"), dl.body)
	}
	// Isolation: another tenant sees neither the job nor its plan.
	for _, key := range []string{"internal", "free"} {
		for _, u := range []string{"/jobs/" + j.ID, "/jobs/" + j.ID + "/download"} {
			if r := h.do(t, "GET", u, h.keys[key], nil, ""); r.status != http.StatusNotFound {
				t.Errorf("%s as %s: %d", u, key, r.status)
			}
		}
	}
}

func TestPlanRepeaterBadInputs(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	for _, tc := range []struct {
		name, body string
		status     int
		field      string
	}{
		{"no frequency", `{"from":{"lat":-22.95,"lon":-43.35,"height_m":30},"to":{"lat":-22.90,"lon":-43.17,"height_m":30}}`, 422, "frequency_mhz"},
		{"no from", `{"to":{"lat":-22.90,"lon":-43.17,"height_m":30},"frequency_mhz":5800}`, 422, "from"},
		{"site without height", `{"from":{"lat":-22.95,"lon":-43.35},"to":{"lat":-22.90,"lon":-43.17,"height_m":30},"frequency_mhz":5800}`, 422, "from.height_m"},
		{"too many hops", `{"from":{"lat":-22.95,"lon":-43.35,"height_m":30},"to":{"lat":-22.90,"lon":-43.17,"height_m":30},"frequency_mhz":5800,"max_hops":50}`, 422, "max_hops"},
		{"unknown engine", `{"from":{"lat":-22.95,"lon":-43.35,"height_m":30},"to":{"lat":-22.90,"lon":-43.17,"height_m":30},"frequency_mhz":5800,"engine":"warp"}`, 422, "engine"},
		{"bad candidate site", `{"from":{"lat":-22.95,"lon":-43.35,"height_m":30},"to":{"lat":-22.90,"lon":-43.17,"height_m":30},"frequency_mhz":5800,"candidate_sites":[{"lat":-22.9}]}`, 422, "candidate_sites[0]"},
		{"unknown tower", `{"from":{"tower_id":"anatel:nope"},"to":{"lat":-22.90,"lon":-43.17,"height_m":30},"frequency_mhz":5800}`, 404, ""},
		{"unknown tower in a job", `{"from":{"tower_id":"anatel:nope"},"to":{"lat":-22.90,"lon":-43.17,"height_m":30},"frequency_mhz":5800,"max_hops":5}`, 404, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.do(t, "POST", "/plan_repeater", h.keys["pro"], nil, tc.body)
			if res.status != tc.status {
				t.Fatalf("%d %s", res.status, res.body)
			}
			if tc.field != "" && !bytes.Contains(res.body, []byte(`"field":"`+tc.field+`"`)) {
				t.Errorf("field %s not named: %s", tc.field, res.body)
			}
			if tc.status == 404 && !bytes.Contains(res.body, []byte("from.tower_id")) {
				t.Errorf("404 does not name from.tower_id: %s", res.body)
			}
		})
	}
}
