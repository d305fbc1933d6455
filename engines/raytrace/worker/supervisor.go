package worker

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Supervisor defaults.
const (
	DefaultMinBackoff   = 500 * time.Millisecond
	DefaultMaxBackoff   = 30 * time.Second
	DefaultStableAfter  = time.Minute
	DefaultStartTimeout = 30 * time.Second
	// A ready worker's health route is asked every DefaultLivenessInterval,
	// each ask bounded by DefaultLivenessTimeout; DefaultLivenessFailures
	// unanswered asks in a row get it killed (package doc, "Supervision").
	DefaultLivenessInterval = 5 * time.Second
	DefaultLivenessTimeout  = 5 * time.Second
	DefaultLivenessFailures = 3
)

// Supervisor states (Status.State).
const (
	StateStarting   = "starting"   // the process is started; its socket does not answer yet
	StateReady      = "ready"      // the worker answers its health route
	StateRestarting = "restarting" // the process exited; the next start waits out the backoff
	StateStopped    = "stopped"    // Close was called
)

// SupervisorConfig configures a Supervisor.
type SupervisorConfig struct {
	// Command returns the worker's command (serve: its own executable with
	// "raytrace-worker --socket ... --secret-file ..."). It is called once
	// per start.
	Command func() *exec.Cmd
	// Socket and SecretFile are where the worker listens and the file
	// holding the shared secret (hex, mode 0600), written by Start.
	Socket, SecretFile string
	// Backoff between restarts: doubling from MinBackoff to MaxBackoff,
	// back to MinBackoff after a worker ran StableAfter.
	MinBackoff, MaxBackoff, StableAfter time.Duration
	// StartTimeout bounds the wait for a started worker's socket; past it
	// the process is killed and restarted.
	StartTimeout time.Duration
	// Liveness probe of a ready worker: every LivenessInterval its health
	// route is asked, within LivenessTimeout; after LivenessFailures
	// unanswered asks in a row (a stopped, deadlocked or swapping worker)
	// it gets SIGKILL, the unit it held ends as an ExecutorCrashError and
	// the worker is restarted with the backoff. Zero: the defaults (5 s,
	// 5 s, 3); a negative LivenessInterval turns the probe off.
	LivenessInterval, LivenessTimeout time.Duration
	LivenessFailures                  int
	Log                               *slog.Logger
	// OnUp and OnRestart, when set, are called as the worker becomes
	// ready or down, and at every restart (metrics).
	OnUp      func(up bool)
	OnRestart func()
}

// Status is the supervisor's view of the worker.
type Status struct {
	State    string
	PID      int       // of the running process; 0 when none
	Restarts int       // starts after the first
	LastExit string    // how the last process ended; "" before any exit
	Since    time.Time // when State was entered
	// LivenessKills counts the workers killed because their health route
	// stopped answering (LastExit then says so).
	LivenessKills int
}

// Supervisor starts the worker process, restarts it with backoff when it
// exits, and reports its health (package doc, "Supervision").
type Supervisor struct {
	cfg    SupervisorConfig
	log    *slog.Logger
	secret []byte
	client *Client

	mu     sync.Mutex
	st     Status
	up     chan struct{} // closed while ready
	cmd    *exec.Cmd
	cancel context.CancelFunc
	done   chan struct{}
}

// NewSupervisor writes a fresh shared secret to cfg.SecretFile (mode
// 0600) and returns the supervisor; Start starts the worker.
func NewSupervisor(cfg SupervisorConfig) (*Supervisor, error) {
	if cfg.Command == nil || cfg.Socket == "" || cfg.SecretFile == "" {
		return nil, errors.New("raytrace worker supervisor: Command, Socket and SecretFile are required")
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = DefaultMinBackoff
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = max(DefaultMaxBackoff, cfg.MinBackoff)
	}
	if cfg.StableAfter <= 0 {
		cfg.StableAfter = DefaultStableAfter
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.LivenessInterval == 0 {
		cfg.LivenessInterval = DefaultLivenessInterval
	}
	if cfg.LivenessTimeout <= 0 {
		cfg.LivenessTimeout = DefaultLivenessTimeout
	}
	if cfg.LivenessFailures <= 0 {
		cfg.LivenessFailures = DefaultLivenessFailures
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	secret, err := WriteSecret(cfg.SecretFile)
	if err != nil {
		return nil, err
	}
	s := &Supervisor{cfg: cfg, log: log, secret: secret, up: make(chan struct{}), done: make(chan struct{})}
	s.st = Status{State: StateStarting, Since: time.Now()}
	s.client = NewClient(cfg.Socket, secret)
	s.client.Ready = s.Ready
	s.client.PID = func() int { return s.Status().PID }
	s.client.Exited = s.exited
	return s, nil
}

// WriteSecret writes 32 random bytes, hex, to path with mode 0600 and
// returns them. The file is written beside path and renamed over it, so a
// failed write (a full disk) leaves path as it was, never truncated.
func WriteSecret(path string) ([]byte, error) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("raytrace worker secret: %w", err)
	}
	tmp := path + ".new"
	_ = os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("raytrace worker secret: %w", err)
	}
	_, werr := fmt.Fprintf(f, "%x\n", secret)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("raytrace worker secret: %w", werr)
	}
	return secret, nil
}

// Client returns the executor that talks to the supervised worker.
func (s *Supervisor) Client() *Client { return s.client }

// Start starts the worker and the loop that restarts it; it returns at
// once. The worker is ready when Ready returns.
func (s *Supervisor) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	go s.loop(ctx)
}

func (s *Supervisor) loop(ctx context.Context) {
	defer close(s.done)
	backoff := s.cfg.MinBackoff
	for first := true; ctx.Err() == nil; first = false {
		if !first {
			s.set(StateRestarting, 0, nil)
			s.log.Warn("raytrace worker: restarting after backoff", "backoff", backoff, "restarts", s.Status().Restarts+1)
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			s.mu.Lock()
			s.st.Restarts++
			s.mu.Unlock()
			if s.cfg.OnRestart != nil {
				s.cfg.OnRestart()
			}
		}
		started := time.Now()
		s.runOnce(ctx)
		if time.Since(started) >= s.cfg.StableAfter {
			backoff = s.cfg.MinBackoff
		} else if !first {
			backoff = min(2*backoff, s.cfg.MaxBackoff)
		}
	}
}

// runOnce starts one worker process and returns when it has exited.
func (s *Supervisor) runOnce(ctx context.Context) {
	removeStaleSocket(s.cfg.Socket)
	cmd := s.cfg.Command()
	setProcAttr(cmd)
	if err := cmd.Start(); err != nil {
		s.log.Error("raytrace worker: start failed", "err", err)
		s.mu.Lock()
		s.st.LastExit = "could not start: " + err.Error()
		s.mu.Unlock()
		return
	}
	pid := cmd.Process.Pid
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	s.set(StateStarting, pid, nil)
	s.log.Info("raytrace worker started", "pid", pid, "socket", s.cfg.Socket)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	readyCtx, cancelReady := context.WithTimeout(ctx, s.cfg.StartTimeout)
	readyc := make(chan error, 1)
	go func() { readyc <- s.waitHealthy(readyCtx) }()
	var err error
	select {
	case err = <-exited:
		cancelReady()
	case rerr := <-readyc:
		cancelReady()
		if rerr != nil {
			if ctx.Err() == nil {
				s.log.Error("raytrace worker: no answer on its socket; killing it", "pid", pid, "err", rerr)
			}
			_ = cmd.Process.Kill()
			err = <-exited
			break
		}
		s.set(StateReady, pid, nil)
		s.log.Info("raytrace worker ready", "pid", pid)
		var killed string
		killed, err = s.watch(ctx, cmd, exited)
		if killed != "" {
			detail := killed
			if !strings.Contains(exitText(err), "killed") {
				detail += "; " + exitText(err) // it ended otherwise before the kill
			}
			s.mu.Lock()
			s.cmd = nil
			s.st.LastExit = detail
			s.st.LivenessKills++
			s.mu.Unlock()
			s.set(StateRestarting, 0, nil)
			s.log.Error("raytrace worker killed", "pid", pid, "exit", detail)
			return
		}
	}
	detail := exitText(err)
	s.mu.Lock()
	s.cmd = nil
	s.st.LastExit = detail
	s.mu.Unlock()
	s.set(StateRestarting, 0, nil)
	if ctx.Err() == nil {
		s.log.Error("raytrace worker exited", "pid", pid, "exit", detail)
	}
}

// watch waits for the ready worker's exit, asking its health route every
// LivenessInterval; after LivenessFailures unanswered asks in a row it
// kills the worker and says why (killed), with how the process ended.
func (s *Supervisor) watch(ctx context.Context, cmd *exec.Cmd, exited <-chan error) (killed string, err error) {
	if s.cfg.LivenessInterval < 0 {
		return "", <-exited
	}
	t := time.NewTicker(s.cfg.LivenessInterval)
	defer t.Stop()
	fails := 0
	for {
		select {
		case err := <-exited:
			return "", err
		case <-t.C:
		}
		hctx, cancel := context.WithTimeout(ctx, s.cfg.LivenessTimeout)
		_, herr := s.client.Health(hctx)
		cancel()
		if herr == nil || ctx.Err() != nil {
			// Answered, or Close is stopping the worker.
			fails = 0
			continue
		}
		fails++
		s.log.Warn("raytrace worker: no answer to its health check", "pid", cmd.Process.Pid, "failures", fails, "of", s.cfg.LivenessFailures, "err", errText(herr))
		if fails < s.cfg.LivenessFailures {
			continue
		}
		_ = cmd.Process.Kill()
		last := errText(herr)
		if errors.Is(herr, context.DeadlineExceeded) {
			last = fmt.Sprintf("no answer within %v", s.cfg.LivenessTimeout)
		}
		why := fmt.Sprintf("was killed by the supervisor: its health route did not answer %d checks in a row, %v apart (the last: %s)",
			fails, s.cfg.LivenessInterval, last)
		return why, <-exited
	}
}

// waitHealthy polls the worker's health route until it answers.
func (s *Supervisor) waitHealthy(ctx context.Context) error {
	for {
		hctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := s.client.Health(hctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// set records a state change (pid 0 keeps the current pid unless the
// process is gone) and keeps the ready channel in step.
func (s *Supervisor) set(state string, pid int, _ error) {
	s.mu.Lock()
	was := s.st.State
	if state != was {
		s.st.State, s.st.Since = state, time.Now()
	}
	if pid != 0 || state != StateStarting {
		s.st.PID = pid
	}
	switch {
	case state == StateReady && was != StateReady:
		close(s.up)
	case state != StateReady && was == StateReady:
		s.up = make(chan struct{})
	}
	s.mu.Unlock()
	if s.cfg.OnUp != nil && (state == StateReady) != (was == StateReady) {
		s.cfg.OnUp(state == StateReady)
	}
}

// exited waits until process pid is gone (ctx bounds the wait) and says
// how it ended; "" when it did not end within ctx.
func (s *Supervisor) exited(ctx context.Context, pid int) string {
	for {
		s.mu.Lock()
		// LastExit is written with the end of the process, before its pid
		// leaves the status.
		gone, last := s.st.PID != pid, s.st.LastExit
		s.mu.Unlock()
		if gone {
			return last
		}
		select {
		case <-ctx.Done():
			return ""
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Status returns the supervisor's view now.
func (s *Supervisor) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st
}

// Ready waits until the worker is ready or ctx ends.
func (s *Supervisor) Ready(ctx context.Context) error {
	for {
		s.mu.Lock()
		up, st := s.up, s.st
		s.mu.Unlock()
		if st.State == StateStopped {
			return errors.New("the raytrace worker is stopped")
		}
		select {
		case <-up:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("the raytrace worker is %s: %w", describe(st), ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Check reports the worker's health now: nil when it is ready and answers
// its health route, else why not (a readiness check that does not stop
// the appliance being ready: the worker is optional to every route but
// the raytrace ones).
func (s *Supervisor) Check(ctx context.Context) error {
	st := s.Status()
	if st.State != StateReady {
		return errors.New("the raytrace worker is " + describe(st))
	}
	if _, err := s.client.Health(ctx); err != nil {
		return fmt.Errorf("the raytrace worker does not answer (pid %d): %v", st.PID, errText(err))
	}
	return nil
}

func describe(st Status) string {
	msg := st.State
	if st.PID != 0 {
		msg += fmt.Sprintf(" (pid %d)", st.PID)
	}
	if st.LastExit != "" {
		msg += "; its last process " + st.LastExit
	}
	if st.Restarts > 0 {
		msg += fmt.Sprintf("; %d restarts", st.Restarts)
	}
	return msg
}

// Close stops the loop and the worker: SIGTERM, then SIGKILL after grace.
// The secret file and the socket are removed.
func (s *Supervisor) Close(grace time.Duration) {
	s.mu.Lock()
	cancel, cmd := s.cancel, s.cmd
	s.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(grace):
			_ = cmd.Process.Kill()
			<-s.done
		}
	} else {
		<-s.done
	}
	s.set(StateStopped, 0, nil)
	_ = os.Remove(s.cfg.SecretFile)
	removeStaleSocket(s.cfg.Socket)
}

// removeStaleSocket removes path when it is a socket (a worker's left
// over); anything else there is left alone (the worker's listen fails and
// says why).
func removeStaleSocket(path string) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == fs.ModeSocket {
		_ = os.Remove(path)
	}
}

// exitText says how a process ended, for users and logs.
func exitText(err error) string {
	if err == nil {
		return "exited with status 0"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "was killed by signal " + ws.Signal().String()
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode())
	}
	return "ended: " + err.Error()
}
