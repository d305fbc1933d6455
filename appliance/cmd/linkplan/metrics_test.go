//go:build systemtools

package main_test

import (
	"bytes"
	"net/http"
	"os/exec"
	"testing"

	"linkplan/appliance/tooltest"
)

// TestIssue20_MetricsPromtoolAfterObservation is issue 20's metrics finding
// on the real binary: promtool check metrics (Debian package prometheus)
// accepts /metrics at start and after one POST /coverage/observations (it
// failed with "coverage_observations_total no help text").
func TestIssue20_MetricsPromtoolAfterObservation(t *testing.T) {
	t.Parallel()
	promtool := tooltest.Need(t, "promtool", "prometheus")
	bin := binary(t)
	dir := t.TempDir()
	s := startServe(t, bin, dir)
	check := func(when string) []byte {
		t.Helper()
		r := s.call(t, "GET", "/metrics", nil, "")
		if r.status != http.StatusOK {
			t.Fatalf("%s: /metrics %d", when, r.status)
		}
		cmd := exec.CommandContext(t.Context(), promtool, "check", "metrics")
		cmd.Stdin = bytes.NewReader(r.body)
		out, err := cmd.CombinedOutput()
		if err != nil || len(bytes.TrimSpace(out)) > 0 {
			t.Fatalf("%s: promtool check metrics: %v\n%s\n--- /metrics:\n%s", when, err, out, r.body)
		}
		return r.body
	}
	check("at start")
	key := issueKey(t, s, dir, "pro")
	r := s.call(t, "POST", "/coverage/observations", map[string]string{"X-API-Key": key, "Content-Type": "application/json"},
		`{"tx_lat":-22.95,"tx_lon":-43.23,"tx_height_m":40,"tx_power_dbm":43,"rx_lat":-22.91,"rx_lon":-43.2,"freq_hz":700000000,"observed_dbm":-80,"ts":1772366340}`)
	if r.status != http.StatusOK {
		t.Fatalf("POST /coverage/observations: %d %s", r.status, r.body)
	}
	if body := check("after one observation"); !bytes.Contains(body, []byte(`coverage_observations_total{source="api"} 1`)) {
		t.Errorf("the observation is not counted:\n%s", body)
	}
}
