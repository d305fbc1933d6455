//go:build systemtools

package main_test

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestIssue24_WorkerHungKilled: a raytrace worker that stops answering
// (SIGSTOP: its socket still accepts connections) while a job's unit is
// on it is killed by serve's liveness probe (3 health checks 5 s apart),
// the job is retried on the restarted worker and succeeds, and the
// raytrace_worker check of /health/ready says why the worker restarted;
// serve stays ready throughout. The worker runs with oom_score_adj 1000.
// Before the probe the job waited forever on a worker reported ready.
func TestIssue24_WorkerHungKilled(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	s := startServe(t, bin, dir)
	key := issueKey(t, s, dir, "Enterprise")
	s.WaitRaytraceWorkerOK(t)
	layer := s.UploadBlock(t, key, 6)
	pid := workerPID(t, s, 0)
	if adj, err := os.ReadFile(fmt.Sprintf("/proc/%d/oom_score_adj", pid)); err != nil || strings.TrimSpace(string(adj)) != "1000" {
		t.Errorf("raytrace worker %d: oom_score_adj %q (%v), want 1000", pid, adj, err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	stopped := time.Now()
	id := s.SubmitJob(t, key, "/analyze", i24Pair(layer, 2))
	var why string
	for deadline := time.Now().Add(90 * time.Second); why == ""; time.Sleep(50 * time.Millisecond) {
		if c := s.RaytraceWorker(t); strings.Contains(c, "killed by the supervisor") {
			why = c
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stopped worker was not killed within 90 s\n%s", s.stderr.String())
		}
	}
	t.Logf("%v after SIGSTOP, raytrace_worker: %q", time.Since(stopped).Round(100*time.Millisecond), why)
	if !strings.Contains(why, "did not answer 3 checks") {
		t.Errorf("the check does not say why the worker restarts: %q", why)
	}
	if now := workerPID(t, s, pid); now == pid {
		t.Fatal("no new worker")
	}
	s.WaitRaytraceWorkerOK(t)
	j := waitJob(t, s, key, id, nil)
	if j.State != "succeeded" || j.Interruptions != 1 {
		t.Fatalf("the job held by the stopped worker: %+v\n%s", j, logLines(s, id))
	}
	if !logHas(s, id, "executor stopped while the job ran", "killed by the supervisor") {
		t.Errorf("no log line naming the liveness kill under job %s:\n%s", id, logLines(s, id))
	}
	alive(t, s)
	t.Logf("job %s succeeded %v after SIGSTOP, once interrupted", id, time.Since(stopped).Round(100*time.Millisecond))
}
