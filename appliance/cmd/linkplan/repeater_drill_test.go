//go:build systemtools

package main_test

import (
	"encoding/json"
	"net/http"
	"testing"
)

// A 5-hop plan runs as a job on the durable queue: the server is killed
// (SIGKILL) right after accepting it, and after a restart the job
// finishes with the same route a fresh server plans.
func TestRepeaterPlanJobSurvivesRestart(t *testing.T) {
	bin := binary(t)
	const body = `{"from":{"lat":-22.95,"lon":-43.35,"height_m":60},"to":{"lat":-22.9516,"lon":-43.2372,"height_m":50},` +
		`"frequency_mhz":900,"max_hops":5,"max_hop_m":20000,"engine":"itm","eirp_dbm":65,"min_margin_db":-50,"alternatives":2}`
	plan := func(dir string, kill bool) json.RawMessage {
		s := startServe(t, bin, dir)
		key := issueKey(t, s, dir, "Pro")
		r := s.call(t, "POST", "/plan_repeater", map[string]string{"X-API-Key": key, "Content-Type": "application/json"}, body)
		if r.status != http.StatusAccepted {
			t.Fatalf("plan_repeater: %d %s", r.status, r.body)
		}
		var acc struct {
			Job drillJob // the 202 is the job object of GET /jobs/{id}
		}
		if err := json.Unmarshal(r.body, &acc.Job); err != nil || acc.Job.ID == "" {
			t.Fatalf("answer %s: %v", r.body, err)
		}
		if kill {
			s.Kill(t)
			s = startServe(t, bin, dir)
		}
		if j := waitJob(t, s, key, acc.Job.ID, nil); j.State != "succeeded" {
			t.Fatalf("job %+v\n%s", j, s.stderr.String())
		}
		dl := s.call(t, "GET", "/jobs/"+acc.Job.ID+"/download", map[string]string{"X-API-Key": key}, "")
		if dl.status != http.StatusOK || dl.header.Get("Content-Type") != "application/json" {
			t.Fatalf("download %d %s", dl.status, dl.body)
		}
		var p struct {
			Route  json.RawMessage `json:"route"`
			Reason string          `json:"reason"`
		}
		if err := json.Unmarshal(dl.body, &p); err != nil {
			t.Fatal(err)
		}
		if err := s.stop(t); err != nil {
			t.Errorf("stop: %v", err)
		}
		if string(p.Route) == "null" {
			t.Fatalf("no route: %s", p.Reason)
		}
		return p.Route
	}
	killed := plan(t.TempDir(), true)
	fresh := plan(t.TempDir(), false)
	if string(killed) != string(fresh) {
		t.Errorf("route after a kill -9 and restart differs from a fresh plan:\n%s\n%s", killed, fresh)
	}
}
