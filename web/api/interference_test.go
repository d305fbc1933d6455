package api_test

import (
	"net/http"
	"strings"
	"testing"
)

const linkCheckBody = `{"a":{"lat":-22.93,"lon":-43.48,"height_m":30},"b":{"lat":-22.89,"lon":-43.44,"height_m":30},` +
	`"frequency_mhz":5800,"bandwidth_mhz":20,"required_ci_db":25,"radius_km":%s,"engine":"fspl"}`

// TestIssue26_LinkInterferenceRoute: POST /links/interference lists the
// caller's own co-channel tower, never another tenant's; the tier caps
// the search radius; another tenant's antenna is unknown (422 naming
// a.antenna_id); a bad body names its fields.
func TestIssue26_LinkInterferenceRoute(t *testing.T) {
	h := newHarness(t, harnessOptions{unmetered: true})
	res := h.do(t, http.MethodPost, "/towers", h.keys["pro"], nil,
		`{"operator":"Isolada A","lat":-22.90,"lon":-43.50,"height_m":40,"bands_mhz":[5800]}`)
	if res.status != http.StatusCreated {
		t.Fatalf("register: %d %s", res.status, res.body)
	}
	own := decodeJSON[towerJSON](t, res).ID
	body := strings.Replace(linkCheckBody, "%s", "10", 1)
	mine := h.do(t, http.MethodPost, "/links/interference", h.keys["pro"], nil, body)
	if mine.status != http.StatusOK || !strings.Contains(string(mine.body), own) || !strings.Contains(string(mine.body), `"coupling":"co_channel"`) {
		t.Fatalf("own check: %d %s", mine.status, mine.body)
	}
	t.Logf("own check: %.600s", mine.body)
	theirs := h.do(t, http.MethodPost, "/links/interference", h.keys["enterprise"], nil, body)
	if theirs.status != http.StatusOK || strings.Contains(string(theirs.body), own) {
		t.Fatalf("another tenant's check: %d %s", theirs.status, theirs.body)
	}
	for _, c := range []struct {
		name, key, body, field string
		status                 int
	}{
		{"free tier radius", "free", strings.Replace(linkCheckBody, "%s", "10", 1), "radius_km", http.StatusUnprocessableEntity},
		{"missing end", "pro", `{"a":{"lat":1,"lon":2,"height_m":3},"frequency_mhz":5800}`, "b", http.StatusUnprocessableEntity},
		{"bad bandwidth", "pro", `{"a":{"lat":-22.93,"lon":-43.48,"height_m":30},"b":{"lat":-22.89,"lon":-43.44,"height_m":30},"frequency_mhz":5800,"bandwidth_mhz":-2}`, "bandwidth_mhz", http.StatusUnprocessableEntity},
		{"unknown antenna", "pro", `{"a":{"lat":-22.93,"lon":-43.48,"height_m":30,"antenna_id":"ant_0000000000000000"},"b":{"lat":-22.89,"lon":-43.44,"height_m":30},"frequency_mhz":5800}`, "a.antenna_id", http.StatusUnprocessableEntity},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := h.do(t, http.MethodPost, "/links/interference", h.keys[c.key], nil, c.body)
			if res.status != c.status || !strings.Contains(string(res.body), `"`+c.field+`"`) {
				t.Fatalf("%d %s", res.status, res.body)
			}
		})
	}
}
