package worker_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"linkplan/appliance"
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
		c.LivenessInterval, c.LivenessTimeout, c.LivenessFailures = 200*time.Millisecond, 300*time.Millisecond, 3
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
	if now.Restarts != 1 || now.LivenessKills != 1 || !strings.Contains(now.LastExit, "did not answer 3 checks") || !strings.Contains(now.LastExit, "killed") {
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
