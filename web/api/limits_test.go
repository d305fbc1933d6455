package api_test

import (
	"testing"
)

// TestIssue27_Limits: GET /v1/me/limits answers the calling key's tier
// limits (coverage caps, batch rows) as the services enforce them: Pro's
// 30 km radius and 2,000 rows, Free's 5 km and no batch; no key: 401.
func TestIssue27_Limits(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	type limits struct {
		Tier     string `json:"tier"`
		Coverage struct {
			MaxRadiusKm    float64 `json:"max_radius_km"`
			MinResolutionM float64 `json:"min_resolution_m"`
			MaxServers     int     `json:"max_servers"`
		} `json:"coverage"`
		BatchMaxRows int `json:"batch_max_rows"`
	}
	for _, c := range []struct {
		name, key, tier string
		radius, res     float64
		servers, rows   int
	}{
		{"pro", "pro", "Pro", 30, 90, 50, 2000},
		{"free", "free", "Free", 5, 250, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := h.do(t, "GET", "/v1/me/limits", h.keys[c.key], nil, "")
			if res.status != 200 {
				t.Fatalf("%d %s", res.status, res.body)
			}
			l := decodeJSON[limits](t, res)
			if l.Tier != c.tier || l.Coverage.MaxRadiusKm != c.radius || l.Coverage.MinResolutionM != c.res || l.Coverage.MaxServers != c.servers || l.BatchMaxRows != c.rows {
				t.Errorf("limits %+v, want %s %g km %g m %d servers %d rows", l, c.tier, c.radius, c.res, c.servers, c.rows)
			}
		})
	}
	if res := h.do(t, "GET", "/v1/me/limits", "", nil, ""); res.status != 401 {
		t.Errorf("without a key: %d %s", res.status, res.body)
	}
}
