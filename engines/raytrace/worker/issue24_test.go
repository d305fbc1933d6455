package worker_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/engines/raytrace"
	"linkplan/engines/raytrace/worker"
)

// stopWorker stops the supervised worker process (SIGSTOP: a hung worker
// whose socket still accepts connections) and lets it go on at cleanup.
func stopWorker(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
}

// TestIssue24_LivenessKill: a worker that stops answering (SIGSTOP) while
// it is ready is killed after LivenessFailures unanswered health checks:
// the unit it held ends as an ExecutorCrashError naming the liveness kill,
// the status counts the kill and the restart, and the new worker answers.
// Before the probe the unit waited forever and the status said ready.
func TestIssue24_LivenessKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	sup, logs := supervised(t, func(c *worker.SupervisorConfig) {
		// a timeout generous enough that the restarted, healthy worker is
		// not killed again on a loaded 2-core machine
		c.LivenessInterval, c.LivenessTimeout, c.LivenessFailures = 200*time.Millisecond, 2*time.Second, 3
	})
	first := sup.Status()
	s, _ := sceneOf(t, grid(3), nil)
	stopWorker(t, first.PID)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	_, err := sup.Client().Point(ctx, s, pointReq())
	took := time.Since(start)
	var ce *appliance.ExecutorCrashError
	if !errors.As(err, &ce) || !strings.Contains(ce.Detail, "health") {
		t.Fatalf("unit on a stopped worker: %v after %v, want an ExecutorCrashError naming the health checks\n%s", err, took, logs.String())
	}
	t.Logf("unit on a stopped worker ended after %v: %v", took.Round(time.Millisecond), err)
	for st := sup.Status(); st.PID == first.PID || st.State != worker.StateReady; st = sup.Status() {
		if ctx.Err() != nil {
			t.Fatalf("no new worker: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
	now := sup.Status()
	if now.Restarts < 1 || now.LivenessKills < 1 || !strings.Contains(now.LastExit, "did not answer 3 checks") || !strings.Contains(now.LastExit, "killed") {
		t.Fatalf("status after the liveness kill: %+v", now)
	}
	t.Logf("status: %+v", now)
	if err := sup.Check(ctx); err != nil {
		t.Fatalf("check after the restart: %v", err)
	}
	if _, err := sup.Client().Point(ctx, s, pointReq()); err != nil {
		t.Fatalf("point on the restarted worker: %v", err)
	}
}

// TestIssue24_UnitDeadline: with the liveness probe off, a unit on a
// stopped worker ends at the client's deadline with an ExecutorCrashError
// that names the deadline; a map unit's deadline grows with its pixels.
func TestIssue24_UnitDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	sup, _ := supervised(t, func(c *worker.SupervisorConfig) { c.LivenessInterval = -1 })
	c := sup.Client()
	c.PointTimeout, c.MapTimeout, c.MapPixelTimeout = 500*time.Millisecond, 300*time.Millisecond, time.Millisecond
	s, _ := sceneOf(t, grid(3), nil)
	stopWorker(t, sup.Status().PID)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cases := []struct {
		name string
		run  func() error
		want string
		min  time.Duration
	}{
		{"point", func() error { _, err := c.Point(ctx, s, pointReq()); return err }, "point unit within 500ms", 500 * time.Millisecond},
		{"map 20×20", func() error { _, err := c.Map(ctx, s, mapReq(20, 5)); return err }, "map unit of 20×20 receivers within 700ms", 700 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			err := tc.run()
			took := time.Since(start)
			var ce *appliance.ExecutorCrashError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want an ExecutorCrashError containing %q", err, tc.want)
			}
			if took < tc.min || ctx.Err() != nil {
				t.Fatalf("ended after %v, before its deadline %v", took, tc.min)
			}
			t.Logf("%v: %v", took.Round(time.Millisecond), err)
		})
	}
	if st := sup.Status(); st.State != worker.StateReady || st.Restarts != 0 {
		t.Errorf("with the probe off the supervisor must leave the worker alone: %+v", st)
	}
}

// TestIssue24_WorkerOOMScore: on Linux a started worker's oom_score_adj
// is 1000, so the kernel's OOM killer picks it before serve (this test
// process keeps its own).
func TestIssue24_WorkerOOMScore(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("oom_score_adj is Linux's")
	}
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	sup, _ := supervised(t)
	pid := sup.Status().PID
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/oom_score_adj", pid))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(raw)); got != "1000" {
		t.Fatalf("worker %d: oom_score_adj %s, want 1000", pid, got)
	}
	own, _ := os.ReadFile("/proc/self/oom_score_adj")
	t.Logf("worker %d oom_score_adj %s; this process %s", pid, strings.TrimSpace(string(raw)), strings.TrimSpace(string(own)))
}

// TestIssue24_OldWorkerKeepsNewSocket: a worker that stops after another
// took over its socket path (serve restarted and its new worker replaced
// the stale socket) leaves the new socket in place; a worker that stops
// while the path is its own removes it.
func TestIssue24_OldWorkerKeepsNewSocket(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	dir := shortDir(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sock, secretFile := filepath.Join(dir, "w.sock"), filepath.Join(dir, "secret")
	if _, err := worker.WriteSecret(secretFile); err != nil {
		t.Fatal(err)
	}
	start := func() (*exec.Cmd, *syncBuf) {
		logs := &syncBuf{}
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "RTW_TEST_WORKER=1", "RTW_SOCKET="+sock, "RTW_SECRET="+secretFile)
		cmd.Stderr = logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		for deadline := time.Now().Add(20 * time.Second); !strings.Contains(logs.String(), "raytrace worker listening"); {
			if time.Now().After(deadline) {
				t.Fatalf("worker not listening:\n%s", logs.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		return cmd, logs
	}
	stop := func(cmd *exec.Cmd) {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("worker exit: %v", err)
		}
	}
	old, _ := start()
	// The new worker: it replaces the old one's socket file with its own.
	if err := os.Remove(sock); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	stop(old)
	fi, err := os.Lstat(sock)
	if err != nil {
		t.Fatalf("the old worker's exit removed the new worker's socket: %v", err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		t.Fatalf("%s is %v", sock, fi.Mode())
	}
	go func() {
		if c, err := ln.Accept(); err == nil {
			_ = c.Close()
		}
	}()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatalf("the new worker's socket does not answer: %v", err)
	}
	_ = c.Close()
	_ = ln.Close()
	// Its own socket a worker removes.
	_ = os.Remove(sock)
	w, _ := start()
	stop(w)
	if _, err := os.Lstat(sock); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a worker left its own socket behind: %v", err)
	}
}

// TestIssue24_HashOnlyUnitKeepsScenes: a unit naming a scene the worker
// does not hold, without its input, is answered scene_unknown without
// touching the cache: on a full cache (one scene) the built scene stays,
// and the next unit on it is answered without its input again. Before,
// the hash-only unit's placeholder evicted the built scene.
func TestIssue24_HashOnlyUnitKeepsScenes(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	sock := filepath.Join(shortDir(t), "w.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := worker.NewServer(raytrace.CPU{}, secret, 1, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = worker.Serve(ctx, ln, srv, time.Second); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	c := worker.NewClient(sock, secret)
	var loads atomic.Int64
	held, _ := sceneOf(t, grid(3), &loads)
	other, _ := sceneOf(t, grid(4), nil)
	if _, err := c.Point(ctx, held, pointReq()); err != nil {
		t.Fatal(err)
	}
	_, err = c.Point(ctx, worker.Scene{Hash: other.Hash}, pointReq())
	if err == nil || !strings.Contains(err.Error(), "holds no scene") {
		t.Fatalf("hash-only unit of an unknown scene: %v, want scene_unknown", err)
	}
	if _, err := c.Point(ctx, held, pointReq()); err != nil {
		t.Fatal(err)
	}
	if n, h := loads.Load(), srv.Scenes.Len(); n != 1 || h != 1 {
		t.Fatalf("the held scene's input was loaded %d times (want once); the cache holds %d scenes", n, h)
	}
}
