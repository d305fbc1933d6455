package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository root, seen from this package's directory.
const repoRoot = "../../.."

// TestIssue20_MakeTestWaitsForDpkgLock: every apt-get that make test
// (test-deps) and make bench-splat run waits up to 600 s for the dpkg lock
// instead of failing while another apt holds it. make -n prints the
// recipe as the shell would run it, with the variables expanded.
func TestIssue20_MakeTestWaitsForDpkgLock(t *testing.T) {
	t.Parallel()
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed")
	}
	cmd := exec.CommandContext(t.Context(), mk, "-n", "-C", repoRoot, "test-deps")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n test-deps: %v\n%s", err, out)
	}
	splat, err := os.ReadFile(filepath.Join(repoRoot, "build/bench-splat/run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	aptCall := regexp.MustCompile(`apt-get(\s+-o\s+\S+)*\s+(update|install)`)
	for name, text := range map[string]string{"make test-deps": string(out), "build/bench-splat/run.sh": string(splat)} {
		calls := aptCall.FindAllString(text, -1)
		if len(calls) < 2 {
			t.Errorf("%s: %d apt-get calls found, want update and install:\n%s", name, len(calls), text)
		}
		for _, c := range calls {
			if !strings.Contains(c, "-o DPkg::Lock::Timeout=600") {
				t.Errorf("%s: %q does not wait for the dpkg lock", name, c)
			}
		}
	}
}

// TestIssue20_ReadmeNamesGoVersionAndPort: the README names the exact Go
// version of go.mod's go line and how to serve on another port.
func TestIssue20_ReadmeNamesGoVersionAndPort(t *testing.T) {
	t.Parallel()
	mod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Go " + string(m[1]) + " or later", "make run ADDR="} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
}
