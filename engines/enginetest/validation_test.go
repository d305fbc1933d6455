package enginetest_test

import (
	"os"
	"path/filepath"
	"testing"

	"linkplan/engines/enginetest"
)

// TestFinding10_FixturesIgnoreValidationDir: issue 7, finding 10. With
// LINKPLAN_VALIDATION_DIR pointing at another set, validation suites follow
// it (Dir) while unit-test fixtures stay the committed copy (Fixtures).
func TestFinding10_FixturesIgnoreValidationDir(t *testing.T) {
	other := t.TempDir()
	t.Setenv(enginetest.EnvValidationDir, other)
	if got, want := enginetest.Dir("itm"), filepath.Join(other, "itm"); got != want {
		t.Errorf("Dir = %s, want %s", got, want)
	}
	fx := enginetest.Fixtures("itm")
	if filepath.Dir(fx) == other {
		t.Fatalf("Fixtures followed the variable: %s", fx)
	}
	if _, err := os.Stat(filepath.Join(fx, "ntia_generated_rj_p2p_cases.csv")); err != nil {
		t.Errorf("committed fixture missing: %v", err)
	}
	t.Setenv(enginetest.EnvValidationDir, "")
	if enginetest.Dir("itm") != fx {
		t.Errorf("without the variable Dir = %s, want the committed copy %s", enginetest.Dir("itm"), fx)
	}
}
