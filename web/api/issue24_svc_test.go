package api_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"
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

// TestIssue24_SceneCacheCycle: a tenant cycling GETs over 17 layers (the
// count-bounded cache held 16 scenes, so every GET rebuilt one and
// evicted another tenant's) finds every scene built from the second turn
// on: the appliance's cache is bounded by the scenes' bytes.
func TestIssue24_SceneCacheCycle(t *testing.T) {
	h := newHarness(t, harnessOptions{unmetered: true})
	ent := h.keys["enterprise"]
	var ids []string
	for i := range 17 {
		res := h.do(t, "POST", fmt.Sprintf("/buildings/layers?name=l%d", i), ent, nil, cityBlock(rtLat, rtLon+float64(i)*0.01, 2))
		if res.status != http.StatusCreated {
			t.Fatalf("upload %d: %d %s", i, res.status, res.body)
		}
		ids = append(ids, res.json(t)["layer"].(map[string]any)["id"].(string))
	}
	rebuilds := 0
	start := time.Now()
	for range 3 {
		for _, id := range ids {
			res := h.do(t, "GET", "/buildings/layers/"+id, ent, nil, "")
			if res.status != http.StatusOK {
				t.Fatalf("GET %s: %d %s", id, res.status, res.body)
			}
			if !res.json(t)["index"].(map[string]any)["cached"].(bool) {
				rebuilds++
			}
		}
	}
	t.Logf("17 layers, 3 turns of GETs: %d rebuilds (the 16-scene cache: 51), %v", rebuilds, time.Since(start))
	if rebuilds != 0 {
		t.Fatalf("%d scenes rebuilt while cycling over 17 layers", rebuilds)
	}
}
