package observations_test

import (
	"testing"

	"linkplan/appliance/observations"
)

// TestMetricSource: the source label of coverage_observations_total, on
// the public /metrics, is a class of the row's source, never a tenant's
// own text (a probe read another tenant's "acme-secret-bid.42" there).
func TestMetricSource(t *testing.T) {
	for _, c := range []struct{ source, label string }{
		{"api", "api"},
		{"drive_test", "drive_test"},
		{"synthetic", "synthetic"},
		{"drivetest_qualipoc", "drivetest"},
		{"drivetest_acme-secret", "drivetest"},
		{"acme-secret-bid.42", "other"},
		{"", "other"},
		{"API", "other"},
	} {
		t.Run(c.source, func(t *testing.T) {
			if got := observations.MetricSource(c.source); got != c.label {
				t.Errorf("MetricSource(%q) = %q, want %q", c.source, got, c.label)
			}
		})
	}
}
