package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"linkplan/engines/raytrace/worker"
)

const raytraceWorkerUsage = `usage: linkplan raytrace-worker --socket PATH --secret-file FILE [flags]

The local raytrace worker: serves the raytrace engine (CPU) on a unix
socket for the appliance, authenticated by the shared secret in FILE (hex,
mode 0600). serve starts and supervises it (restart with backoff, health in
/health/ready and /platform/maturity); it is not meant to be started by
hand. It never opens the appliance's database: the appliance sends each
unit with its scene's hash (and the scene itself when the worker does not
hold it). It stops on SIGTERM or when the process that started it exits.
`

// raytraceWorkerCmd runs linkplan raytrace-worker.
func raytraceWorkerCmd(ctx context.Context, args []string, stderr io.Writer) error {
	fs := newFlags("raytrace-worker", stderr)
	socket := fs.String("socket", "", "unix socket path to listen on")
	secret := fs.String("secret-file", "", "file holding the shared secret, hex, mode 0600")
	scenes := fs.Int("max-scenes", 8, "scenes kept in memory, by hash")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	flagsUsage := fs.Usage
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), raytraceWorkerUsage)
		flagsUsage()
	}
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("raytrace-worker: %w", errUsage)
	}
	if fs.NArg() != 0 || *socket == "" || *secret == "" || *scenes < 1 {
		fs.Usage()
		return fmt.Errorf("raytrace-worker: --socket and --secret-file are required, --max-scenes at least 1: %w", errUsage)
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("raytrace-worker: --log-level: %w", errUsage)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl})).With("component", "raytrace-worker")
	if err := worker.RunProcess(ctx, worker.ProcessConfig{Socket: *socket, SecretFile: *secret, MaxScenes: *scenes, Log: log}); err != nil {
		return fmt.Errorf("raytrace-worker: %w", err)
	}
	return nil
}

// raytraceWorkerConfig is how serve runs its raytrace worker.
type raytraceWorkerConfig struct {
	Enabled  bool
	LogLevel string
	Stderr   io.Writer // the worker's log goes where serve's goes
}

// newRaytraceSupervisor prepares the worker of dataDir: its socket (in
// the data directory, or a private temporary directory when that path is
// too long for a socket), its secret file (mode 0600) and the command
// that runs this binary as the worker. cleanup removes what it made.
func newRaytraceSupervisor(dataDir string, cfg raytraceWorkerConfig, log *slog.Logger, onUp func(bool), onRestart func()) (*worker.Supervisor, func(), error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, fmt.Errorf("raytrace worker: %w", err)
	}
	sock, cleanup, err := worker.SocketPath(dataDir)
	if err != nil {
		return nil, nil, err
	}
	secretFile := filepath.Join(dataDir, "raytrace-worker.secret")
	level := cfg.LogLevel
	if level == "" {
		level = "info"
	}
	sup, err := worker.NewSupervisor(worker.SupervisorConfig{
		Command: func() *exec.Cmd {
			cmd := exec.Command(exe, "raytrace-worker", "--socket", sock, "--secret-file", secretFile, "--log-level", level)
			cmd.Stdout = io.Discard
			cmd.Stderr = cfg.Stderr
			return cmd
		},
		Socket: sock, SecretFile: secretFile, Log: log, OnUp: onUp, OnRestart: onRestart,
		StartTimeout: 30 * time.Second,
	})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return sup, cleanup, nil
}
