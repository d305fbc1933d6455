package main

import (
	"net"
	"syscall"
)

// peerCredentials reads the uid and pid of the process at the other end of
// c (SO_PEERCRED).
func peerCredentials(c *net.UnixConn) (peer, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return peer{}, err
	}
	var (
		cred *syscall.Ucred
		gerr error
	)
	if err := raw.Control(func(fd uintptr) {
		cred, gerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return peer{}, err
	}
	if gerr != nil {
		return peer{}, gerr
	}
	return peer{uid: int(cred.Uid), pid: int(cred.Pid)}, nil
}
