//go:build unix

package standby_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"linkplan/appliance/standby"
)

// TestPromoteKeepsDataDirOwner: linkplan promote run as root (sudo) wrote
// DATA/standby/state.json root's, mode 0600, and the promoted primary,
// serving as the data directory's owner, could not read it. Run as root,
// what promote writes takes the owner of the data directory.
func TestPromoteKeepsDataDirOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the owner is only given when promote runs as root")
	}
	const uid, gid = 65534, 65534 // nobody, nogroup: the service user here
	p := &primary{key: key, status: func(int) int { return 200 }, body: func(int) []byte { return fmt.Appendf(nil, "%d db", time.Now().UnixMilli()) }}
	srv := httptest.NewServer(p)
	defer srv.Close()
	dir := t.TempDir()
	r, err := standby.OpenReplica(standby.ReplicaDeps{DataDir: dir, PrimaryURL: srv.URL, Key: key, Every: time.Second, Extract: extract})
	noErr(t, err)
	noErr(t, r.Pull(context.Background()))
	// The standby ran as the service user: everything in DATA is its.
	noErr(t, filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chown(path, uid, gid)
	}))
	_, err = standby.Promote(dir, time.Now())
	noErr(t, err)
	for _, name := range []string{filepath.Join(standby.Dir, standby.StateFile), standby.DBFile} {
		fi, err := os.Stat(filepath.Join(dir, name))
		noErr(t, err)
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != uid || st.Gid != gid {
			t.Errorf("%s owned by %d:%d after promote, want the data directory's %d:%d", name, st.Uid, st.Gid, uid, gid)
		}
	}
}

// TestStateReadErrorNamesOwnership: a data directory left root's made
// serve's first error "standby state: open .../standby/state.json:
// permission denied", even on a primary, with no remedy. (As root the
// open cannot be refused: the error is built as os.ReadFile returns it.)
func TestStateReadErrorNamesOwnership(t *testing.T) {
	dir := "/var/lib/linkplan"
	path := filepath.Join(dir, standby.Dir, standby.StateFile)
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"permission denied", &fs.PathError{Op: "open", Path: path, Err: syscall.EACCES}, "chown -R linkplan:linkplan " + dir},
		{"other error", &fs.PathError{Op: "open", Path: path, Err: syscall.EIO}, "input/output error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := standby.StateReadErrorForTest(dir, c.err)
			if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("%v: want %q, wrapping %v", err, c.want, c.err)
			}
		})
	}
}
