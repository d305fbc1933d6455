package api_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// goNames matches what a message must not carry (issue 20, scope 11): a Go
// identifier with a member ("observationJSON.ts", "multipart.NextPart"), a
// Go package's error prefix ("json: ", "multipart: ", "strconv."), Go's
// own wording ("Go struct field", "Go value of type", "%!v", "<nil>"), or
// a wrapped sentinel's text at the end of a sentence (": forbidden").
var goNames = regexp.MustCompile(`\b[a-z]+[A-Z][A-Za-z0-9]*\.[A-Za-z_]|\b[A-Z][a-z]+[A-Z][A-Za-z]*\b|` +
	`\b(json|multipart|strconv|gzip|flate|csv|bbolt|http|bufio|reflect|runtime|mime): |strconv\.|Go (struct field|value)|%!|<nil>|` +
	`: (forbidden|invalid input)(;|$)`)

// TestIssue20_MessagesWithoutGoNames sends a table of bad bodies to the
// routes that decode them and scans every message, field and reason of
// the answers: none names an internal Go type, package or wrapped
// sentinel.
func TestIssue20_MessagesWithoutGoNames(t *testing.T) {
	h := newHarness(t, harnessOptions{unmetered: true})
	dtCT := "multipart/form-data; boundary=B"
	cases := []struct {
		name, path, key, ct, body string
		status                    int
	}{
		{"embedded struct field of the wrong type", "/coverage/observations", "pro", "", `{"ts":"2024-01-01T00:00:00Z"}`, 422},
		{"embedded struct field, number too large", "/coverage/observations", "pro", "", `{"tx_lat":1e400}`, 422},
		{"tier refusal", "/coverage/observations", "free", "", obsRow(-22.9), 403},
		{"batch row field of the wrong type", "/coverage/observations/batch", "pro", "", `{"observations":[{},{"ts":"x"}]}`, 422},
		{"nested field of the wrong type", "/analyze_link", "pro", "", `{"receiver":{"lat":"x","lon":-43.2},"frequency_mhz":700}`, 422},
		{"an object where a number goes", "/analyze_link", "pro", "", `{"receiver":{"lat":{"a":1},"lon":-43.2},"frequency_mhz":700}`, 422},
		{"the body is an array", "/analyze_link", "pro", "", `[1,2]`, 422},
		{"batch on Free", "/batch_reports", "free", "", `{"rows":[{}]}`, 403},
		{"batch row of the wrong type", "/batch_reports", "pro", "", `{"rows":[{},{"receiver":{"lat":"x"}}]}`, 422},
		{"prediction on Free", "/coverage/predict", "free", "", `{}`, 403},
		{"repeater field of the wrong type", "/plan_repeater", "pro", "", `{"from":{"lat":"x"}}`, 422},
		{"heatmap field of the wrong type", "/coverage/heatmap", "pro", "", `{"site":{"eirp_dbm":"x"}}`, 422},
		{"tower field of the wrong type", "/towers", "pro", "", `{"bands_mhz":["x"]}`, 422},
		{"truncated JSON", "/analyze_link", "pro", "", `{"receiver":`, 400},
		{"multipart without its closing boundary", "/coverage/observations/drivetest", "pro", dtCT, "--B\r\nContent-Disposition: form-data; name=\"tx_lat\"\r\n\r\n1", 400},
		{"multipart with a broken part header", "/coverage/observations/drivetest", "pro", dtCT, "--B\r\nno colon here\r\n\r\nx\r\n--B--\r\n", 400},
		{"damaged gzip in a drive test", "/coverage/observations/drivetest", "pro", dtCT,
			multipartSeed(map[string]string{"tx_lat": "-22.95", "tx_lon": "-43.23", "tx_height_m": "30", "tx_power_dbm": "43",
				"tx_gain_dbi": "15", "rx_gain_dbi": "0", "cable_loss_db": "1", "rx_height_m": "1.5"}, "csv_file", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff"), 422},
		{"batch CSV of the wrong type", "/batch_reports", "pro", "text/csv", "lat,lon\n1,2\n", 422},
		{"key role of the wrong type", "/tenant/keys", "pro", "", `{"tenant_role":1}`, 422},
		{"branding logo of the wrong type", "/tenant/branding", "pro", "", `{"logo":{"data_base64":5}}`, 422},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			method := "POST"
			if c.path == "/tenant/branding" {
				method = "PUT"
			}
			hdr := map[string]string{}
			if c.ct != "" {
				hdr["Content-Type"] = c.ct
			}
			res := h.do(t, method, c.path, h.keys[c.key], hdr, c.body)
			if res.status != c.status {
				t.Fatalf("status %d, want %d: %s", res.status, c.status, res.body)
			}
			var e struct {
				Error struct {
					Message string
					Fields  []struct{ Field, Reason string }
				}
			}
			if err := json.Unmarshal(res.body, &e); err != nil || e.Error.Message == "" {
				t.Fatalf("no error body: %s", res.body)
			}
			texts := []string{e.Error.Message}
			for _, f := range e.Error.Fields {
				texts = append(texts, f.Field, f.Reason)
			}
			for _, s := range texts {
				if m := goNames.FindString(s); m != "" {
					t.Errorf("%q carries an internal Go name (%q)", s, m)
				}
			}
			if testing.Verbose() {
				t.Logf("%d %s", res.status, strings.Join(texts, " | "))
			}
		})
	}
}

// TestIssue20_UnnamedMultipartPart: a multipart part without a name (found
// by FuzzDriveTestBody and FuzzBatchReportsBody) is a 422 naming
// "(unnamed part)"; it was reported with an empty field, against the
// document.
func TestIssue20_UnnamedMultipartPart(t *testing.T) {
	h := newHarness(t, harnessOptions{unmetered: true})
	d := loadOpenAPI(t)
	body := "--B\r\nContent-Type: text/plain\r\n\r\nx\r\n--B--\r\n"
	for _, path := range []string{"/coverage/observations/drivetest", "/batch_reports"} {
		res := h.do(t, "POST", path, h.keys["pro"], map[string]string{"Content-Type": "multipart/form-data; boundary=B"}, body)
		contract(t, d, "POST", path, res)
		if res.status != http.StatusUnprocessableEntity || !strings.Contains(string(res.body), `"field":"(unnamed part)"`) {
			t.Errorf("%s: %d %s", path, res.status, res.body)
		}
	}
}
