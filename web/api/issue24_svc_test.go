package api_test

import (
	"testing"
)

// TestIssue24_MapRoutesRateGroup: every route that starts a radio map
// (heatmap, best server, raytrace, interference, viewshed) is metered in
// the maps group (Enterprise 120 a minute), not compute (600).
func TestIssue24_MapRoutesRateGroup(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ent := h.keys["enterprise"]
	for _, route := range []string{"/coverage/heatmap", "/coverage/best_server", "/coverage/raytrace", "/coverage/interference", "/coverage/viewshed"} {
		t.Run(route, func(t *testing.T) {
			res := h.do(t, "POST", route, ent, map[string]string{"Content-Type": "application/json"}, `{}`)
			if got := res.header.Get("RateLimit-Limit"); got != "120" {
				t.Fatalf("POST %s: %d, RateLimit-Limit %q, want 120 (maps, Enterprise)", route, res.status, got)
			}
		})
	}
}
