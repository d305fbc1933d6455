// Package tooltest is the one gate of the tests that need something
// outside Go: a Debian tool (GDAL's ogrinfo and gdalinfo, poppler's
// pdftotext, prometheus's promtool, gnumeric's ssconvert, osmium-tool's
// osmium), chromium, Debian's python3 with scikit-learn, or Node.js.
//
// Plain `go test ./...` needs none of them: such a test skips, saying
// which tag runs it. Built with the systemtools tag (`go test -tags
// systemtools`, as make test does after make test-deps installs the
// packages), it runs, and a missing tool fails it: make test is the honest
// run, go test ./... the quick one.
package tooltest

import (
	"os/exec"
	"testing"
)

// Tag is the build tag that runs the tool-dependent tests.
const Tag = "systemtools"

// Enabled reports whether this build runs the tool-dependent tests (built
// with the systemtools tag).
func Enabled() bool { return enabled }

// Gate skips tb unless the build runs the tool-dependent tests; what says
// what the test needs (for the skip message).
func Gate(tb testing.TB, what string) {
	tb.Helper()
	if !enabled {
		tb.Skipf("needs %s: run with -tags %s (make test, after make test-deps)", what, Tag)
	}
}

// Need returns the path of the command name, from the Debian package deb.
// Without the systemtools tag the test skips; with it, a missing command
// fails the test (make test-deps installs it).
func Need(tb testing.TB, name, deb string) string {
	tb.Helper()
	Gate(tb, name+" (Debian "+deb+")")
	p, err := exec.LookPath(name)
	if err != nil {
		tb.Fatalf("%s (Debian %s) is required with -tags %s: make test-deps installs it: %v", name, deb, Tag, err)
	}
	return p
}
