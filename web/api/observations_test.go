package api_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/observations"
)

// obsRow is one complete api row at receiver latitude lat (ts 2026-03-01
// 11:59:00 UTC, before the harness clock).
func obsRow(lat float64) string {
	return fmt.Sprintf(`{"tx_lat":-22.95,"tx_lon":-43.23,"tx_height_m":40,"tx_power_dbm":43,"rx_lat":%g,"rx_lon":-43.2,"freq_hz":700000000,"observed_dbm":-80,"ts":1772366340}`, lat)
}

func obsBatch(consent string, lats ...float64) string {
	rows := make([]string, len(lats))
	for i, l := range lats {
		rows[i] = obsRow(l)
	}
	c := ""
	if consent != "" {
		c = `,"consent_for_training":` + consent
	}
	return `{"observations":[` + strings.Join(rows, ",") + `]` + c + `}`
}

// driveTestBody is a multipart drive test with the given CSV and form
// fields; it returns the body and its Content-Type.
func driveTestBody(t testing.TB, csv string, fields map[string]string) (string, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range fields {
		if err := w.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	fw, err := w.CreateFormFile("csv_file", "drive.csv")
	if err != nil {
		t.Fatal(err)
	}
	fw.Write([]byte(csv))
	w.Close()
	return b.String(), w.FormDataContentType()
}

var dtForm = map[string]string{"tx_lat": "-22.95", "tx_lon": "-43.23", "tx_height_m": "30", "tx_power_dbm": "43",
	"tx_gain_dbi": "15", "rx_gain_dbi": "0", "cable_loss_db": "1", "rx_height_m": "1.5", "device": "tems"}

// observationScenarios are the scenarios of the observation routes.
func observationScenarios(t *testing.T, h *harness) []scenario {
	t.Helper()
	batch := obsBatch("true", -22.91, -22.92)
	sig := observations.Sign(h.keys["pro"], "", []byte(batch))
	dt, ct := driveTestBody(t, "lat,lon,rsrp,cellFreq\n-22.93,-43.2,-95,1800\n-22.94,-43.2,-97,1800\n", dtForm)
	dtNoGain, ct2 := driveTestBody(t, "lat,lon,rsrp,cellFreq\n-22.93,-43.2,-95,1800\n", map[string]string{"tx_lat": "-22.95", "tx_lon": "-43.23", "tx_height_m": "30", "tx_power_dbm": "43"})
	return []scenario{
		{name: "one observation", method: "POST", url: "/coverage/observations", key: "pro", body: obsRow(-22.90), status: 200, contains: []string{`"ingested":1`, `"ids":["obs_`, `"refused_for_training":1`}},
		{name: "the same observation again", method: "POST", url: "/coverage/observations", key: "pro", body: obsRow(-22.90), status: 200, contains: []string{`"deduped_existing":1`}},
		{name: "observation on Free", method: "POST", url: "/coverage/observations", key: "free", body: obsRow(-22.90), status: 403, code: "forbidden"},
		{name: "observation out of range", method: "POST", url: "/coverage/observations", key: "pro", status: 422, code: "invalid_input", fields: []string{"observed_dbm", "tx_height_m"}, doc: docRejects,
			body: strings.Replace(strings.Replace(obsRow(-22.9), `"observed_dbm":-80`, `"observed_dbm":-151`, 1), `"tx_height_m":40`, `"tx_height_m":0`, 1)},
		{name: "drivetest source without gains", method: "POST", url: "/coverage/observations", key: "pro", status: 422, code: "invalid_input",
			fields: []string{"tx_gain_dbi", "rx_height_m", "rx_gain_dbi", "cable_loss_db"},
			body:   strings.Replace(obsRow(-22.9), `"ts"`, `"source":"drivetest_tems","ts"`, 1)},
		{name: "signed batch", method: "POST", url: "/coverage/observations/batch", key: "pro", body: batch, headers: map[string]string{"X-Observation-Signature": sig},
			status: 200, contains: []string{`"signature_status":"verified"`, `"granted_for_training":2`, `"submitted":2`}},
		{name: "re-serialised signed batch", method: "POST", url: "/coverage/observations/batch", key: "pro", body: strings.ReplaceAll(batch, ",", ", "),
			headers: map[string]string{"X-Observation-Signature": sig}, status: 401, code: "unauthenticated"},
		{name: "batch with an intra-batch duplicate", method: "POST", url: "/coverage/observations/batch", key: "pro", body: obsBatch("", -22.801, -22.801),
			status: 200, contains: []string{`"ingested":1`, `"deduped_intra_batch":1`, `"signature_status":"unsigned"`}},
		{name: "batch row out of range", method: "POST", url: "/coverage/observations/batch", key: "pro", status: 422, code: "invalid_input", fields: []string{"observations[1].rx_lat"}, doc: docRejects,
			body: obsBatch("", -22.7, -91)},
		{name: "batch with an internal Business key", method: "POST", url: "/coverage/observations/batch", key: "internal", body: obsBatch("", -22.6), status: 200, contains: []string{`"ingested":1`}},
		{name: "drive test", method: "POST", url: "/coverage/observations/drivetest", key: "pro", headers: map[string]string{"Content-Type": ct}, body: dt,
			status: 200, contains: []string{`"ingested":2`}},
		{name: "drive test without gains", method: "POST", url: "/coverage/observations/drivetest", key: "pro", headers: map[string]string{"Content-Type": ct2}, body: dtNoGain,
			status: 422, code: "invalid_input", fields: []string{"tx_gain_dbi", "rx_gain_dbi", "cable_loss_db", "rx_height_m"}},
		{name: "drive test as JSON", method: "POST", url: "/coverage/observations/drivetest", key: "pro", body: `{}`, status: 415, code: "unsupported_media_type", fields: []string{"Content-Type"}},
		{name: "observation stats", method: "GET", url: "/coverage/observations/stats", key: "pro", status: 200, contains: []string{`"cell_signal_samples":2`}},
		{name: "observation stats on Free", method: "GET", url: "/coverage/observations/stats", key: "free", status: 403, code: "forbidden"},
	}
}

// TestObservationBatchOverLimit: 10,001 rows are a 400 with the count in a
// parseable message; nothing is stored.
func TestObservationBatchOverLimit(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	lats := make([]float64, observations.MaxBatchRows+1)
	for i := range lats {
		lats[i] = -22 - float64(i)*1e-4
	}
	res := h.do(t, "POST", "/coverage/observations/batch", h.keys["pro"], nil, obsBatch("", lats...))
	if res.status != http.StatusBadRequest || !strings.Contains(string(res.body), "batch has more than 10000 rows; at most 10000 rows per request") ||
		!strings.Contains(string(res.body), `"batch_over_limit"`) {
		t.Fatalf("%d %.300s", res.status, res.body)
	}
	st := h.do(t, "GET", "/coverage/observations/stats", h.keys["pro"], nil, "")
	if !strings.Contains(string(st.body), `"link_observations":0`) {
		t.Fatalf("stored something: %s", st.body)
	}
}

// TestTenantIsolationObservations: tenant B (another Pro key) and a Free
// key never see, count or deduplicate against tenant A's rows; the admin
// counts everyone's.
func TestTenantIsolationObservations(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	keyB := h.issue(t, "tenant-b", appliance.TierPro, appliance.RoleTenant)
	a := h.do(t, "POST", "/coverage/observations/batch", h.keys["pro"], nil, obsBatch("true", -22.91, -22.92, -22.93))
	if a.status != 200 {
		t.Fatalf("%d %s", a.status, a.body)
	}
	cases := []struct {
		name   string
		method string
		url    string
		key    string
		body   string
		status int
		want   string
	}{
		{"B's stats count none of A's rows", "GET", "/coverage/observations/stats", keyB, "", 200, `"link_observations":0`},
		{"Free sees no stats", "GET", "/coverage/observations/stats", h.keys["free"], "", 403, `"forbidden"`},
		{"Free cannot add to A's corpus", "POST", "/coverage/observations/batch", h.keys["free"], obsBatch("", -22.91), 403, `"forbidden"`},
		{"B's identical rows are not A's duplicates", "POST", "/coverage/observations/batch", keyB, obsBatch("", -22.91, -22.92), 200, `"ingested":2`},
		{"A still counts its own three", "GET", "/coverage/observations/stats", h.keys["pro"], "", 200, `"link_observations":3`},
		{"B counts its own two", "GET", "/coverage/observations/stats", keyB, "", 200, `"link_observations":2`},
		{"the admin counts every tenant's", "GET", "/coverage/observations/stats", h.adminKey, "", 200, `"link_observations":5`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := h.do(t, tc.method, tc.url, tc.key, nil, tc.body)
			if res.status != tc.status || !strings.Contains(string(res.body), tc.want) {
				t.Fatalf("%d %s, want %d with %s", res.status, res.body, tc.status, tc.want)
			}
		})
	}
}

// TestObservationMetrics: stored rows count in coverage_observations_total
// by source (SPEC §4.9); duplicates do not.
func TestObservationMetrics(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	for range 2 { // the second batch is all duplicates
		if res := h.do(t, "POST", "/coverage/observations/batch", h.keys["pro"], nil, obsBatch("", -22.91, -22.92)); res.status != 200 {
			t.Fatalf("%d %s", res.status, res.body)
		}
	}
	m := h.do(t, "GET", "/metrics", "", nil, "")
	if !strings.Contains(string(m.body), `coverage_observations_total{source="api"} 2`) {
		t.Fatalf("metrics lack the count:\n%s", m.body)
	}
}

// TestIssue20_ObservationTsISO8601: ts takes an RFC 3339 (ISO 8601) time
// as well as epoch seconds, on the single and the batch route; a time
// without UTC offset and a JSON type other than number or string are 422s
// naming the field.
func TestIssue20_ObservationTsISO8601(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	iso := func(lat float64, ts string) string {
		return strings.Replace(obsRow(lat), `"ts":1772366340`, `"ts":`+ts, 1)
	}
	for _, tc := range []struct {
		name, url, body string
		status          int
		field           string
	}{
		{"RFC 3339 with offset", "/coverage/observations", iso(-22.81, `"2026-03-01T08:59:00-03:00"`), 200, ""},
		{"RFC 3339 UTC, space for T", "/coverage/observations", iso(-22.82, `"2026-03-01 11:59:00Z"`), 200, ""},
		{"epoch seconds as text", "/coverage/observations", iso(-22.83, `"1772366340"`), 200, ""},
		{"batch mixing both", "/coverage/observations/batch", `{"observations":[` + iso(-22.84, `"2026-03-01T11:59:00Z"`) + `,` + obsRow(-22.85) + `]}`, 200, ""},
		{"no UTC offset", "/coverage/observations", iso(-22.86, `"2026-03-01T11:59:00"`), 422, "ts"},
		{"not a time", "/coverage/observations/batch", `{"observations":[` + iso(-22.87, `"ontem"`) + `]}`, 422, "observations[0].ts"},
		// The field of a type error is named by encoding/json; another
		// slice of issue 20 strips its Go prefix (observationJSON.).
		{"a boolean", "/coverage/observations", iso(-22.88, `true`), 422, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := h.do(t, "POST", tc.url, h.keys["pro"], nil, tc.body)
			if res.status != tc.status {
				t.Fatalf("%d %s", res.status, res.body)
			}
			if tc.field != "" && !strings.Contains(string(res.body), `"field":"`+tc.field+`"`) {
				t.Errorf("the 422 does not name %s: %s", tc.field, res.body)
			}
		})
	}
	k, err := h.auth.Authenticate(h.keys["pro"])
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	_ = h.db.Observations(k.TenantID, appliance.KindLinkObservation, func(o appliance.Observation) bool {
		n++
		if o.TsUnix != 1772366340 {
			t.Errorf("row at %v stored ts %v, want 1772366340", o.RxLat, o.TsUnix)
		}
		return true
	})
	if n != 5 {
		t.Errorf("%d rows stored, want 5", n)
	}
}

// TestIssue20_DriveTestBrazilianCSV: POST /coverage/observations/drivetest
// takes the file Excel pt-BR saves (Windows-1252, ';', decimal commas,
// upper-case and accented headers) and form fields with decimal commas,
// as POST /batch_reports takes its CSV.
func TestIssue20_DriveTestBrazilianCSV(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	var csv []byte
	for _, r := range "LATITUDE;LONGITUDE;RSRP;Frequência (MHz);TIMESTAMP\r\n-22,9301;-43,2012;-95,5;1800;2026-03-01T08:59:00-03:00\r\n;;;;\r\n-22,9402;-43,2013;-97;1800;1772366340\r\n" {
		csv = append(csv, byte(r)) // Windows-1252: "ê" is one byte
	}
	form := map[string]string{}
	for k, v := range dtForm {
		form[k] = v
	}
	form["tx_power_dbm"], form["cable_loss_db"] = "43,5", "1,5"
	body, ct := driveTestBody(t, string(csv), form)
	res := h.do(t, "POST", "/coverage/observations/drivetest", h.keys["pro"], map[string]string{"Content-Type": ct}, body)
	if res.status != 200 || !strings.Contains(string(res.body), `"ingested":2`) {
		t.Fatalf("%d %s", res.status, res.body)
	}
	k, err := h.auth.Authenticate(h.keys["pro"])
	if err != nil {
		t.Fatal(err)
	}
	var got []appliance.Observation
	_ = h.db.Observations(k.TenantID, appliance.KindCellSignalSample, func(o appliance.Observation) bool { got = append(got, o); return true })
	if len(got) != 2 {
		t.Fatalf("%d rows", len(got))
	}
	for _, o := range got {
		if o.FreqHz != 1800e6 || o.TsUnix != 1772366340 || o.TxPowerDBm != 43.5 || o.CableLossDB != 1.5 || o.Metric != "rsrp" ||
			!(o.RxLat == -22.9301 && o.ObservedDBm == -95.5 || o.RxLat == -22.9402 && o.ObservedDBm == -97) {
			t.Errorf("stored %+v", o)
		}
	}
}
