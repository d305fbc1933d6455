//go:build systemtools

package main_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeBusyPortCreatesNothing: serve on an address another process
// holds fails at once naming it, before it creates a database or admin
// credentials in a fresh data directory (it built both, loaded the
// towers, and only then found the port taken).
func TestServeBusyPortCreatesNothing(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := filepath.Join(t.TempDir(), "fresh")
	_, stderr, code := runFor(t, 60*time.Second, bin, "serve", "--addr", ln.Addr().String(), "--data-dir", dir)
	if code == 0 || !strings.Contains(stderr, "address already in use") {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	for _, name := range []string{"linkplan.db", "admin-credentials.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s was created (%v) before the busy port was found", name, err)
		}
	}
}
