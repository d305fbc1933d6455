package h3

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The reference checks run build/h3-check/h3ref.mjs with the h3-js version
// pinned there (installed by `make test-deps`, i.e. npm ci). A missing node
// or package fails the test; LINKPLAN_SKIP_H3JS=1 skips it explicitly.
const skipEnv = "LINKPLAN_SKIP_H3JS"

// refScript returns the path of h3ref.mjs, or stops the test.
func refScript(tb testing.TB) string {
	tb.Helper()
	if os.Getenv(skipEnv) == "1" {
		tb.Skipf("%s=1: h3-js reference check skipped", skipEnv)
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "build", "h3-check"))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		tb.Fatalf("node is not installed: the H3 check needs Node.js with build/h3-check installed (run `make test-deps`), or set %s=1 to skip it", skipEnv)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "h3-js", "package.json")); err != nil {
		tb.Fatalf("h3-js is not installed in %s: run `make test-deps` (npm ci there), or set %s=1 to skip the H3 check", dir, skipEnv)
	}
	return filepath.Join(dir, "h3ref.mjs")
}

// runRef runs h3ref.mjs in mode with stdin lines and returns its output
// lines.
func runRef(tb testing.TB, mode string, lines []string) []string {
	tb.Helper()
	script := refScript(tb)
	cmd := exec.Command("node", script, mode)
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		tb.Fatalf("node %s %s: %v\n%s", script, mode, err, errb.String())
	}
	s := strings.TrimRight(out.String(), "\n")
	if s == "" {
		return nil
	}
	got := strings.Split(s, "\n")
	if mode != "res0" && len(got) != len(lines) {
		tb.Fatalf("node %s %s: %d answers for %d questions", script, mode, len(got), len(lines))
	}
	return got
}
