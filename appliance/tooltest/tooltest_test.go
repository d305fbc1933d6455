package tooltest_test

import (
	"testing"

	"linkplan/appliance/tooltest"
)

// TestNeedGo: the go command is always there; with the tag Need finds it,
// without it Need skips.
func TestNeedGo(t *testing.T) {
	t.Parallel()
	ran := false
	t.Run("go", func(t *testing.T) {
		if p := tooltest.Need(t, "go", "golang-go"); p == "" {
			t.Fatal("empty path")
		}
		ran = true
	})
	if ran != tooltest.Enabled() {
		t.Errorf("Need ran the test: %v, the systemtools tag is set: %v", ran, tooltest.Enabled())
	}
}
