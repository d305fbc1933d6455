//go:build unix

package fileowner

import (
	"fmt"
	"os"
	"syscall"
)

// LikeDir gives the file path the owner (uid and gid) of the directory
// dir when this process runs as root: a file that root writes into a data
// directory (linkplan restore, linkplan promote run with sudo) must stay
// readable by the user the appliance serves as, who owns that directory.
// Run as any other user it does nothing (the file is that user's, and an
// unprivileged chown to another owner would fail).
func LikeDir(path, dir string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("give %s the owner of %s: %w", path, dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if err := os.Chown(path, int(st.Uid), int(st.Gid)); err != nil {
		return fmt.Errorf("give %s the owner of %s: %w", path, dir, err)
	}
	return nil
}
