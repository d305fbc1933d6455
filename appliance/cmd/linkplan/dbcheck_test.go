package main

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/store"
)

// TestCheckStartError: a database serve cannot open (the service user
// may not read it: a restore run as root left it root's) was reported as
// "corrupt ... restore a backup" with exit status 3, and the operator
// restored again. Only the child check's corruption verdict is corrupt; a
// refused open says so and names the data directory's ownership. (As
// root, which the tests run as, permissions do not apply: the child's
// report is built here as it prints it.)
func TestCheckStartError(t *testing.T) {
	const dir, path = "/var/lib/linkplan", "/var/lib/linkplan/linkplan.db"
	cases := []struct {
		name    string
		res     checkResult // what linkplan db check --json printed
		corrupt bool        // errors.Is ErrCorrupt: exit status 3
		is      error
		want    []string // in serve's error
		notWant []string
	}{
		{name: "corruption verdict", res: checkResult{File: path, Corrupt: true, Error: "check " + path + ": truncated: the file is 10 bytes: corrupt data"},
			corrupt: true, is: appliance.ErrCorrupt, want: []string{"is corrupt", "truncated", "linkplan restore --from FILE --data-dir " + dir}},
		{name: "permission denied", res: checkResult{File: path, Denied: true, Error: "check " + path + ": open " + path + ": permission denied"},
			is: fs.ErrPermission, want: []string{"cannot open " + path, "permission denied", "chown -R linkplan:linkplan " + dir},
			notWant: []string{"corrupt", "restore"}},
		{name: "other open error", res: checkResult{File: path, Error: "check " + path + ": read " + path + ": input/output error"},
			want: []string{"cannot check " + path, "input/output error"}, notWant: []string{"corrupt", "restore"}},
		{name: "locked", res: checkResult{File: path, Locked: true, Error: "locked"}, is: store.ErrLocked},
		{name: "sound", res: checkResult{File: path, OK: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cerr := childCheckError(path, c.res)
			if (cerr == nil) != (c.res.Error == "") {
				t.Fatalf("childCheckError: %v", cerr)
			}
			err := checkStartError(dir, path, cerr)
			if cerr == nil {
				if err != nil {
					t.Errorf("a sound file refused: %v", err)
				}
				return
			}
			if got := errors.Is(err, appliance.ErrCorrupt); got != c.corrupt {
				t.Errorf("errors.Is(ErrCorrupt) = %v, want %v (exit status 3 only for corruption): %v", got, c.corrupt, err)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("%v does not wrap %v", err, c.is)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(err.Error(), w) {
					t.Errorf("%q says %q", err, w)
				}
			}
		})
	}
}
