package api_test

import (
	"os"
	"strings"
	"testing"

	"linkplan/appliance/coverage"
)

// TestIssue23_HarnessIsTheAssembly: the test harness has no wiring of its
// own. It calls assemble.New, the function serve calls, and every service
// that assembly builds is the very one the API's handlers receive; the
// harness's source composes no API itself.
func TestIssue23_HarnessIsTheAssembly(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	a, d := h.app, h.api.Deps
	if h.api != a.API {
		t.Fatal("the harness serves another API than the assembly's")
	}
	starter, ok := d.Heatmaps.(*coverage.Starter)
	if !ok {
		t.Fatalf("heatmaps: %T, want *coverage.Starter", d.Heatmaps)
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"auth", d.Auth, a.Auth},
		{"keys", d.Keys, a.Auth},
		{"tenants", d.Tenants, a.Auth},
		{"tower index", d.Towers(), a.Index},
		{"tower registration", d.Registry, a.Registry},
		{"search", d.Search, a.Search},
		{"data manifest", d.Data, a.Data},
		{"jobs", d.Jobs, a.Jobs},
		{"batches", d.Batches, a.Batch},
		{"repeaters", d.Repeaters, a.Repeaters},
		{"calibration", d.Calibration, a.Calibration},
		{"privacy", d.Privacy, a.Privacy},
		{"predictions", d.Predictions, a.Predictions},
		{"backups", d.Backups, a.Backups},
		{"quota", d.Quota, a.Quota},
		{"pdf reservations", d.PDFs, a.Quota},
		{"failover", d.Failover, a.Standby},
		{"replication", d.Replication, a.Standby},
		{"raytrace", d.Raytrace, a.Raytrace},
		{"maps", starter.Maps, a.Maps},
		{"map calibrations", starter.Calibrations, a.Calibration},
		// The harness's own handles are the assembly's too.
		{"harness db", h.db, a.DB},
		{"harness jobs", h.jobs, a.Jobs},
		{"harness index", h.index, a.Index},
		{"harness quota", h.quota, a.Quota},
	} {
		if c.got != c.want {
			t.Errorf("%s: the handlers hold %p (%T), the assembly built %p", c.name, c.got, c.got, c.want)
		}
	}
	src, err := os.ReadFile("harness_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, wiring := range []string{"api.New(", "api.Deps{", "jobs.New(", "planner.New(", "engines.New("} {
		if strings.Contains(string(src), wiring) {
			t.Errorf("harness_test.go calls %s: a second wiring beside assemble.New", wiring)
		}
	}
}
