package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// registerOwn registers a tower with the harness key name and returns its id.
func registerOwn(t *testing.T, h *harness, key, operator, station string, lat, lon float64) string {
	t.Helper()
	body := fmt.Sprintf(`{"operator":%q,"lat":%g,"lon":%g,"station_number":%q}`, operator, lat, lon, station)
	res := h.do(t, http.MethodPost, "/towers", h.keys[key], nil, body)
	if res.status != http.StatusCreated {
		t.Fatalf("register for %s: %d %s", key, res.status, res.body)
	}
	return decodeJSON[towerJSON](t, res).ID
}

// TestFinding4TowerSearchIsTenantScoped is the regression test of issue 7,
// finding 4 at the API: GET /towers?q= answered {"towers":[],"total":2} to
// a tenant owning none of the matching towers. Two tenants (the pro and free
// keys) register towers of one operator; each sees its own total and offsets,
// a third tenant sees none, the admin key sees all.
func TestFinding4TowerSearchIsTenantScoped(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	run := newRun(t)
	const op = "Zeta Finding Quatro"
	var pro, free []string
	for i := range 3 {
		pro = append(pro, registerOwn(t, h, "pro", op, fmt.Sprintf("ZP-%dA", i), -22.90+float64(i)*0.001, -43.20))
	}
	for i := range 2 {
		free = append(free, registerOwn(t, h, "free", op, fmt.Sprintf("ZF-%dB", i), -22.91+float64(i)*0.001, -43.21))
	}
	q := "/towers?q=" + url.QueryEscape(op)
	page := func(t *testing.T, res *response) towerPage { return decodeJSON[towerPage](t, res) }
	ids := func(p towerPage) []string {
		out := make([]string, 0, len(p.Towers))
		for _, tw := range p.Towers {
			out = append(out, tw.ID)
		}
		slices.Sort(out)
		return out
	}
	want := func(lists ...[]string) []string { return slices.Sorted(slices.Values(slices.Concat(lists...))) }
	expect := func(wantIDs []string) func(t *testing.T, h *harness, res *response) {
		return func(t *testing.T, h *harness, res *response) {
			p := page(t, res)
			if p.Total != len(wantIDs) || !slices.Equal(ids(p), wantIDs) || p.NextOffset != nil {
				t.Errorf("total %d, towers %v, next_offset %v; want total %d, towers %v, next_offset null", p.Total, ids(p), p.NextOffset, len(wantIDs), wantIDs)
			}
		}
	}
	run.run(t, h, []scenario{
		{name: "tenant without towers gets total 0", method: "GET", url: q, key: "internal", status: 200, check: expect(nil)},
		{name: "pro tenant gets its own", method: "GET", url: q, key: "pro", status: 200, check: expect(want(pro))},
		{name: "free tenant gets its own", method: "GET", url: q, key: "free", status: 200, check: expect(want(free))},
		{name: "admin sees every tenant's", method: "GET", url: q, key: "admin", status: 200, check: expect(want(pro, free))},
		{name: "own station number with letters", method: "GET", url: "/towers?q=zp-1a", key: "pro", status: 200, check: expect([]string{pro[1]})},
		{name: "another tenant's station number", method: "GET", url: "/towers?q=ZP-1A", key: "free", status: 200, check: expect(nil)},
	})

	// Pages of one: offsets and next_offset are the tenant's own.
	for _, tc := range []struct {
		key  string
		want []string
	}{{"pro", pro}, {"free", free}, {"internal", nil}, {"admin", want(pro, free)}} {
		t.Run("pages of one for "+tc.key, func(t *testing.T) {
			var got []string
			off := 0
			for n := 0; ; n++ {
				res := h.do(t, "GET", fmt.Sprintf("%s&limit=1&offset=%d", q, off), h.keys[tc.key], nil, "")
				if res.status != 200 {
					t.Fatalf("status %d: %s", res.status, res.body)
				}
				p := page(t, res)
				if p.Total != len(tc.want) {
					t.Fatalf("offset %d: total %d, want %d", off, p.Total, len(tc.want))
				}
				got = append(got, ids(p)...)
				if p.NextOffset == nil {
					break
				}
				if *p.NextOffset != off+1 || n > len(tc.want) {
					t.Fatalf("next_offset %d after offset %d (total %d)", *p.NextOffset, off, p.Total)
				}
				off = *p.NextOffset
			}
			slices.Sort(got)
			if !slices.Equal(got, want(tc.want)) {
				t.Errorf("pages hold %v, want %v", got, want(tc.want))
			}
		})
	}
}

// TestTenantIsolationTowerRoutes is the tenant-isolation table of the tower,
// place and admin routes: for each route a tenant's answer never holds
// another tenant's tower (its id or its station number), while the owner's
// answer does where the route lists towers.
func TestTenantIsolationTowerRoutes(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	const lat, lon = -22.9519, -43.2105
	proID := registerOwn(t, h, "pro", "Isolada Pro", "ISO-PRO-7", lat, lon)
	freeID := registerOwn(t, h, "free", "Isolada Free", "ISO-FREE-8", lat+0.0005, lon)
	bbox := url.QueryEscape(fmt.Sprintf("%g,%g,%g,%g", lon-0.01, lat-0.01, lon+0.01, lat+0.01))
	near := fmt.Sprintf("/towers/nearest?lat=%g&lon=%g&k=100&max_km=2", lat, lon)
	tests := []struct {
		name   string
		method string
		url    string
		body   string
		lists  bool // the route lists towers: the owner must see its own
	}{
		{name: "list", method: "GET", url: "/towers?limit=1000", lists: true},
		{name: "list by bbox", method: "GET", url: "/towers?bbox=" + bbox, lists: true},
		{name: "list by operator", method: "GET", url: "/towers?operator=Isolada%20Pro", lists: false},
		{name: "full-text search", method: "GET", url: "/towers?q=isolada", lists: true},
		{name: "full-text search by station", method: "GET", url: "/towers?q=ISO-PRO-7", lists: false},
		{name: "nearest", method: "GET", url: near, lists: true},
		{name: "one tower of the other tenant", method: "GET", url: "/towers/{other}"},
		{name: "register does not reveal others", method: "POST", url: "/towers", body: `{"operator":"Isolada Nova","lat":-22.95,"lon":-43.21}`},
		{name: "places", method: "GET", url: "/places?q=rio"},
		{name: "admin keys", method: "POST", url: "/admin/keys", body: issueBody("Free", "")},
		{name: "admin refresh history", method: "GET", url: "/admin/towers/refreshes"},
		{name: "export link as GeoJSON", method: "POST", url: "/exports/link?format=geojson", lists: true,
			body: `{"receiver":{"lat":-22.9419,"lon":-43.2105,"height":10},"frequency_mhz":1800,"max_distance_km":1.5}`},
		{name: "export link as KML", method: "POST", url: "/exports/link?format=kml", lists: true,
			body: `{"receiver":{"lat":-22.9419,"lon":-43.2105,"height":10},"frequency_mhz":1800,"max_distance_km":1.5}`},
		{name: "batch report", method: "POST", url: "/batch_reports",
			body: `{"rows":[{"receiver":{"lat":-22.9419,"lon":-43.2105,"height":10},"frequency_mhz":1800,"max_distance_km":1.5}]}`},
		{name: "report link of the best tower", method: "POST", url: "/reports/link",
			body: `{"receiver":{"lat":-22.9419,"lon":-43.2105,"height":10},"frequency_mhz":1800,"max_distance_km":1.5}`},
	}
	tenants := []struct{ key, own, other, ownStation, otherStation string }{
		{"pro", proID, freeID, "ISO-PRO-7", "ISO-FREE-8"},
		{"free", freeID, proID, "ISO-FREE-8", "ISO-PRO-7"},
	}
	for _, tc := range tests {
		for _, tn := range tenants {
			t.Run(tc.name+" as "+tn.key, func(t *testing.T) {
				u := strings.ReplaceAll(tc.url, "{other}", tn.other)
				res := h.do(t, tc.method, u, h.keys[tn.key], nil, tc.body)
				if res.status >= 500 {
					t.Fatalf("status %d: %s", res.status, res.body)
				}
				body := string(res.body)
				leaks := []string{tn.otherStation}
				if !strings.Contains(u, tn.other) { // a 404 may echo the id the caller sent
					leaks = append(leaks, tn.other)
				}
				for _, leak := range leaks {
					if strings.Contains(body, leak) {
						t.Errorf("answer holds the other tenant's %q: %.400s", leak, body)
					}
				}
				if strings.Contains(u, tn.other) && res.status != http.StatusNotFound {
					t.Errorf("status %d for the other tenant's tower, want 404", res.status)
				}
				if tc.lists && !strings.Contains(body, tn.own) {
					t.Errorf("the owner's tower %s is missing: %.400s", tn.own, body)
				}
			})
		}
	}
}
