//go:build linux

package assemble

import "syscall"

// diskSpace returns the bytes free to an unprivileged process (f_bavail)
// and the size of the file system holding dir.
func diskSpace(dir string) (free, total uint64, ok bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, 0, false
	}
	return st.Bavail * uint64(st.Bsize), st.Blocks * uint64(st.Bsize), true
}
