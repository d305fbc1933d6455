//go:build systemtools

package browsertest_test

import (
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"

	"linkplan/appliance/cmd/linkplan/internal/realbin"
)

func TestMain(m *testing.M) {
	code := m.Run()
	stopBrowser() // the shared Chromium (console_browser_test.go)
	os.Exit(code)
}

// binary returns the linkplan binary of the current sources, built once
// for every test package of the run (realbin.Binary).
func binary(t testing.TB) string {
	t.Helper()
	return realbin.Binary(t)
}

// server is a running `linkplan serve` (realbin.Server) with the short
// names the tests of appliance/cmd/linkplan use, so that a test moves
// between the two packages unchanged.
type server struct {
	*realbin.Server
	base   string // http://127.0.0.1:port
	stderr *realbin.SyncBuffer
	cmd    *exec.Cmd
}

// startServe starts `linkplan serve` on dataDir and waits until
// /health/ready answers 200 (realbin.StartServe).
func startServe(t testing.TB, bin, dataDir string, extra ...string) *server {
	t.Helper()
	s := realbin.StartServe(t, bin, dataDir, extra...)
	return &server{Server: s, base: s.Base, stderr: s.Stderr, cmd: s.Cmd}
}

// runFor runs the binary with a time limit and returns its output and
// exit status (-1 when it had to be killed).
func runFor(t *testing.T, limit time.Duration, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return realbin.RunFor(t, limit, bin, args...)
}

// stop sends SIGTERM and returns the exit error (nil for status 0).
func (s *server) stop(t testing.TB) error {
	t.Helper()
	return s.Stop(t)
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

// call sends one request and checks that the response carries X-Request-Id.
func (s *server) call(t testing.TB, method, path string, header map[string]string, body string) reply {
	t.Helper()
	r := s.Call(t, method, path, header, body)
	return reply{status: r.Status, header: r.Header, body: r.Body}
}
