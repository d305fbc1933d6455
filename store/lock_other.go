//go:build !unix

package store

import "errors"

// LockFile is unsupported off Unix: linkplan restore needs flock.
func LockFile(string) (func() error, error) {
	return nil, errors.New("lock the database file: flock is not available on this platform")
}

// LockPath is unsupported off Unix: the warm standby needs flock.
func LockPath(string) (func() error, error) {
	return nil, errors.New("lock: flock is not available on this platform")
}
