package assemble

import (
	"context"
	"strings"
	"testing"
)

// TestLowSpace: the advisory check "disk" fails below the larger of 256 MiB
// and 2 % of the data directory's file system, naming the free space.
func TestLowSpace(t *testing.T) {
	const mib, gib = 1 << 20, 1 << 30
	for _, c := range []struct {
		name        string
		free, total uint64
		low         bool
	}{
		{"plenty", 50 * gib, 100 * gib, false},
		{"under 256 MiB of a small disk", 200 * mib, 4 * gib, true},
		{"at 256 MiB of a small disk", 256 * mib, 4 * gib, false},
		{"under 2 % of a large disk", 15 * gib, 1000 * gib, true},
		{"full", 0, 40 * mib, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := lowSpace(c.free, c.total)
			if (err != nil) != c.low {
				t.Fatalf("lowSpace(%d, %d) = %v, want low %v", c.free, c.total, err, c.low)
			}
			if err != nil && !strings.Contains(err.Error(), "storage_full") {
				t.Errorf("the reason %q does not say what follows", err)
			}
		})
	}
	// this machine's data directory: the check runs and answers
	if err := diskCheck(t.TempDir()).Fn(context.Background()); err != nil {
		t.Logf("disk check of the test's directory: %v", err)
	}
}
