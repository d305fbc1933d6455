package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"linkplan/appliance"
)

// deprecations returns the deprecated_field warnings of a JSON answer's
// warnings array at path (keys from the root).
func deprecations(t *testing.T, body []byte, path ...string) []appliance.Warning {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	raw, _ := json.Marshal(v)
	var ws []appliance.Warning
	_ = json.Unmarshal(raw, &ws)
	var out []appliance.Warning
	for _, w := range ws {
		if w.Code == appliance.WarnDeprecatedField {
			out = append(out, w)
		}
	}
	return out
}

// TestIssue20_DeprecatedNamesWarn: one name per concept across the API
// (height_m, frequency_mhz). Every route that took an old name
// (receiver.height, tower.height, freq_hz) still takes it, reads it as
// the new one, and answers with one deprecated_field warning per old name
// naming the new one; the new names give no such warning; an old and a
// new name that disagree are a 422 naming the old one.
func TestIssue20_DeprecatedNamesWarn(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	pro := h.keys["pro"]
	link := func(recv string) string {
		return `{"receiver":{"lat":-22.95,"lon":-43.20,` + recv + `},"frequency_mhz":1800,"max_distance_km":20}`
	}
	pair := `{"tower":{"lat":-22.97922,"lon":-43.14501,"height":30},"receiver":{"lat":-22.95,"lon":-43.2,"height":10},"frequency_mhz":3500}`
	obs := obsRow(-22.801) // freq_hz, the deprecated name
	rows := func(n int, recv string) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"receiver":{"lat":-22.95,"lon":-43.2,` + recv + `},"frequency_mhz":1800,"max_distance_km":5}`)
		}
		return `{"rows":[` + b.String() + `],"options":{"pdfs":false}}`
	}
	for _, tc := range []struct {
		name, method, url, body string
		status                  int
		at                      []string // where the warnings array is
		want                    []string // substrings, one deprecated_field warning each
	}{
		{"analyze_link, old name", "POST", "/analyze_link", link(`"height":10`), 200, []string{"warnings"}, []string{"receiver.height is a deprecated name, read as receiver.height_m"}},
		{"analyze_link, new name", "POST", "/analyze_link", link(`"height_m":10`), 200, []string{"warnings"}, nil},
		{"analyze_link, both agreeing", "POST", "/analyze_link", link(`"height":10,"height_m":10`), 200, []string{"warnings"}, []string{"receiver.height"}},
		{"analyze, tower and receiver", "POST", "/analyze", pair, 200, []string{"warnings"}, []string{"tower.height is", "receiver.height is"}},
		{"register a tower", "POST", "/towers", `{"operator":"WISP","lat":-22.9,"lon":-43.2,"height":20}`, 201, []string{"warnings"}, []string{"height is a deprecated name, read as height_m"}},
		{"observation with freq_hz", "POST", "/coverage/observations", obs, 200, []string{"warnings"}, []string{"freq_hz is a deprecated name, read as frequency_mhz (its value / 1e+06)"}},
		{"sync batch", "POST", "/batch_reports", rows(2, `"height":10`), 200, []string{"warnings"}, []string{"rows[].receiver.height is a deprecated name (given 2 times), read as rows[].receiver.height_m"}},
		{"async batch", "POST", "/batch_reports", rows(101, `"height":10`), 202, []string{"warnings"}, []string{"(given 101 times)"}},
		{"ai chat", "POST", "/ai/chat", `{"analysis":` + link(`"height":10`) + `}`, 200, []string{"warnings"}, []string{"receiver.height"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.clock.advance(2 * 1e9)
			res := h.do(t, tc.method, tc.url, pro, nil, tc.body)
			if res.status != tc.status {
				t.Fatalf("%d %s", res.status, res.body)
			}
			got := deprecations(t, res.body, tc.at...)
			if len(got) != len(tc.want) {
				t.Fatalf("deprecated_field warnings %+v, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i].Message, w) {
					t.Errorf("warning %q lacks %q", got[i].Message, w)
				}
			}
		})
	}
	// The old name is read as the new one: the same answer either way.
	margin := func(body string) any {
		res := h.do(t, "POST", "/analyze_link", pro, nil, body)
		return res.json(t)["best_tower"].(map[string]any)["link_margin_db"]
	}
	if a, b := margin(link(`"height":3`)), margin(link(`"height_m":3`)); a != b {
		t.Errorf("margin %v with height, %v with height_m", a, b)
	}
	// Disagreeing names: a 422 naming the old one.
	res := h.do(t, "POST", "/analyze_link", pro, nil, link(`"height":10,"height_m":12`))
	if res.status != http.StatusUnprocessableEntity || !strings.Contains(string(res.body), `"field":"receiver.height"`) {
		t.Errorf("%d %s", res.status, res.body)
	}
	// The drive-test form part freq_hz.
	body, ct := driveTestBody(t, "lat,lon,rsrp\n-22.93,-43.2,-95\n", map[string]string{"tx_lat": "-22.95", "tx_lon": "-43.23", "tx_height_m": "30",
		"tx_power_dbm": "43", "tx_gain_dbi": "15", "rx_gain_dbi": "0", "cable_loss_db": "1", "rx_height_m": "1.5", "freq_hz": "1800000000"})
	res = h.do(t, "POST", "/coverage/observations/drivetest", pro, map[string]string{"Content-Type": ct}, body)
	if res.status != 200 || len(deprecations(t, res.body, "warnings")) != 1 {
		t.Errorf("drive test with freq_hz: %d %s", res.status, res.body)
	}
	// The PDF report of a request with an old name lists the warning.
	if text := reportOK(t, h, "pro", link(`"height":10`)); !strings.Contains(text, "deprecated_field receiver.height is a deprecated name") {
		t.Errorf("the report does not list deprecated_field: %.2000s", text)
	}
	if text := reportOK(t, h, "pro", link(`"height_m":10`)); strings.Contains(text, "deprecated_field") {
		t.Errorf("the report lists deprecated_field for the new name")
	}
	// A tower answer carries both names of its height.
	res = h.do(t, "GET", "/towers?limit=1", pro, nil, "")
	if !strings.Contains(string(res.body), `"height_m":`) || !strings.Contains(string(res.body), `"height":`) {
		t.Errorf("tower without height_m and height: %.300s", res.body)
	}
}
