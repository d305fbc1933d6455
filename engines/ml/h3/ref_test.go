package h3

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The reference checks compare engines/ml/h3 with h3-js, the version
// pinned in build/h3-check, through build/h3-check/h3ref.mjs. Its answers
// to the questions the tests ask are committed in testdata/h3ref (one file
// per mode and question list, named by the SHA-256 of the questions), so
// plain go test needs no Node.js. H3REF=node asks h3-js itself (Node.js
// with build/h3-check's npm ci, run by make test-deps); H3REF=update asks
// it and rewrites the fixtures (build/h3-check/regen.sh). Another SEED
// asks other questions: their answers need H3REF=node.
// LINKPLAN_SKIP_H3JS=1 skips the checks explicitly.
const skipEnv = "LINKPLAN_SKIP_H3JS"

// refScript returns the path of h3ref.mjs, or stops the test.
func refScript(tb testing.TB) string {
	tb.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "build", "h3-check"))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		tb.Fatalf("node is not installed: H3REF=node and H3REF=update need Node.js with build/h3-check installed (run `make test-deps`)")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "h3-js", "package.json")); err != nil {
		tb.Fatalf("h3-js is not installed in %s: run `make test-deps` (npm ci there)", dir)
	}
	return filepath.Join(dir, "h3ref.mjs")
}

// fixture is the file of testdata/h3ref that holds h3-js's answers to
// mode's lines.
func fixture(mode string, lines []string) string {
	h := sha256.Sum256([]byte(mode + "\n" + strings.Join(lines, "\n")))
	return filepath.Join("testdata", "h3ref", fmt.Sprintf("%s-%x.txt", mode, h[:8]))
}

// runRef returns h3-js's answers to mode's lines: from the committed
// fixture, or from h3-js itself under H3REF=node or H3REF=update.
func runRef(tb testing.TB, mode string, lines []string) []string {
	tb.Helper()
	if os.Getenv(skipEnv) == "1" {
		tb.Skipf("%s=1: h3-js reference check skipped", skipEnv)
	}
	src := os.Getenv("H3REF")
	path := fixture(mode, lines)
	var s string
	switch src {
	case "node", "update":
		s = askNode(tb, mode, lines)
		if src == "update" {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				tb.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(s+"\n"), 0o644); err != nil {
				tb.Fatal(err)
			}
		}
	case "":
		b, err := os.ReadFile(path)
		if err != nil {
			tb.Fatalf("no h3-js answers for these %d %s questions (%v): another SEED, or changed questions; run with H3REF=node, or regenerate the fixtures with build/h3-check/regen.sh", len(lines), mode, err)
		}
		s = strings.TrimRight(string(b), "\n")
	default:
		tb.Fatalf("H3REF=%q: want node, update or nothing", src)
	}
	if s == "" {
		return nil
	}
	got := strings.Split(s, "\n")
	if mode != "res0" && len(got) != len(lines) {
		tb.Fatalf("h3ref %s: %d answers for %d questions", mode, len(got), len(lines))
	}
	return got
}

// askNode runs h3ref.mjs in mode with stdin lines and returns its output.
func askNode(tb testing.TB, mode string, lines []string) string {
	tb.Helper()
	script := refScript(tb)
	cmd := exec.Command("node", script, mode)
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		tb.Fatalf("node %s %s: %v\n%s", script, mode, err, errb.String())
	}
	return strings.TrimRight(out.String(), "\n")
}
