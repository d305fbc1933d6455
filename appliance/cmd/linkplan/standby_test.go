package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/standby"
	"linkplan/store"
)

// TestLockStandbyDir: linkplan restore was accepted into the data
// directory of a running warm standby (its serving check saw no admin
// socket and no database lock: a standby has neither); lockStandbyDir,
// taken by restore, refuses while the standby holds DATA/standby/lock.
func TestLockStandbyDir(t *testing.T) {
	cases := []struct {
		name    string
		setup   func(t *testing.T, dir string) // a real flock held stands for the running standby
		refused bool
	}{
		{"no standby ever ran", func(*testing.T, string) {}, false},
		{"a stopped standby", func(t *testing.T, dir string) {
			noErrT(t, os.MkdirAll(filepath.Join(dir, standby.Dir), 0o700))
			noErrT(t, os.WriteFile(filepath.Join(dir, standby.Dir, "lock"), nil, 0o600))
		}, false},
		{"a running standby", func(t *testing.T, dir string) {
			noErrT(t, os.MkdirAll(filepath.Join(dir, standby.Dir), 0o700))
			release, err := store.LockPath(filepath.Join(dir, standby.Dir, "lock")) // what serveStandby takes
			noErrT(t, err)
			t.Cleanup(func() { _ = release() })
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.setup(t, dir)
			release, err := lockStandbyDir("restore", dir)
			if !c.refused {
				noErrT(t, err)
				noErrT(t, release())
				return
			}
			if !errors.Is(err, appliance.ErrConflict) || !strings.Contains(err.Error(), "a warm standby is serving "+dir) ||
				!strings.Contains(err.Error(), "stop it first") {
				t.Errorf("restore beside a running standby: %v", err)
			}
		})
	}
}

func noErrT(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
