package worker

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"linkplan/engines/raytrace"
)

// ProcessConfig configures the worker process (linkplan raytrace-worker).
type ProcessConfig struct {
	Socket     string // unix socket path to listen on
	SecretFile string // the shared secret, hex; refused unless mode 0600 or stricter
	MaxScenes  int    // scenes cached by hash; 0: 8
	Log        *slog.Logger
	// ParentPID is the process whose death ends the worker (checked every
	// half second); 0: the parent at start. Serve's children also get
	// Linux's parent-death signal.
	ParentPID int
}

// ReadSecret reads a secret file: hex, mode 0600 or stricter.
func ReadSecret(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("secret file: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("secret file %s has mode %v: it must be readable by its owner only (0600)", path, fi.Mode().Perm())
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("secret file: %w", err)
	}
	secret, err := hex.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil || len(secret) < 16 {
		return nil, fmt.Errorf("secret file %s: want at least 16 bytes in hex", path)
	}
	return secret, nil
}

// RunProcess runs the worker until ctx ends or its parent dies: it reads
// the secret, raises its OOM score to the maximum on Linux (the kernel's
// OOM killer then picks the worker, not serve), listens on the socket (mode 0600; a stale socket file is
// replaced, any other file refused) and serves the CPU backend. At the end it removes the
// socket only if the path still names the socket it created.
func RunProcess(ctx context.Context, cfg ProcessConfig) error {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	secret, err := ReadSecret(cfg.SecretFile)
	if err != nil {
		return err
	}
	preferOOMKill(log)
	if fi, err := os.Lstat(cfg.Socket); err == nil {
		if fi.Mode().Type() != fs.ModeSocket {
			return fmt.Errorf("%s exists and is not a socket", cfg.Socket)
		}
		_ = os.Remove(cfg.Socket)
	}
	ln, err := net.Listen("unix", cfg.Socket)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	// The socket path is removed at the end only while it is still this
	// worker's socket: after a restart of serve, a new worker may listen
	// on the same path, and an old worker's exit must not unlink it
	// (UnixListener.Close unlinks the path by name unless told not to).
	if ul, ok := ln.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false)
	}
	if err := os.Chmod(cfg.Socket, 0o600); err != nil {
		_ = ln.Close()
		_ = os.Remove(cfg.Socket)
		return fmt.Errorf("socket mode: %w", err)
	}
	own, err := os.Lstat(cfg.Socket)
	if err != nil {
		_ = ln.Close()
		return fmt.Errorf("socket: %w", err)
	}
	parent := cfg.ParentPID
	if parent == 0 {
		parent = os.Getppid()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if os.Getppid() != parent {
					log.Warn("raytrace worker: the appliance that started it is gone; stopping")
					cancel()
					return
				}
			}
		}
	}()
	max := cfg.MaxScenes
	if max <= 0 {
		max = 8
	}
	srv := NewServer(raytrace.CPU{}, secret, max, log)
	log.Info("raytrace worker listening", "socket", cfg.Socket, "backend", "cpu", "pid", os.Getpid())
	err = Serve(ctx, ln, srv, 5*time.Second)
	_ = ln.Close()
	if fi, serr := os.Lstat(cfg.Socket); serr == nil && os.SameFile(own, fi) {
		_ = os.Remove(cfg.Socket)
	}
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

// maxSocketPath is the longest unix socket path every platform accepts
// (sun_path holds 104 bytes on the BSDs, 108 on Linux, with the NUL).
const maxSocketPath = 100

// SocketPath returns where the worker of dataDir listens:
// <dataDir>/raytrace-worker.sock, or, when that path is too long for a
// unix socket, a socket in a fresh private (0700) directory under the
// system's temporary directory; cleanup removes that directory.
func SocketPath(dataDir string) (path string, cleanup func(), err error) {
	p := dataDir + string(os.PathSeparator) + "raytrace-worker.sock"
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if len(p) <= maxSocketPath {
		return p, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "linkplan-rtw-")
	if err != nil {
		return "", nil, fmt.Errorf("raytrace worker socket directory: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", nil, fmt.Errorf("raytrace worker socket directory: %w", err)
	}
	return dir + string(os.PathSeparator) + "w.sock", func() { _ = os.RemoveAll(dir) }, nil
}
