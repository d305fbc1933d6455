package api_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"linkplan/web/api"
)

// TestReadinessRaytraceWorkerDetails: the raytrace worker's advisory check
// carries the supervisor's facts (state, pid, restarts, liveness kills,
// the last exit) in details.raytrace_worker of GET /health/ready, as the
// OpenAPI document says; a worker restarting fails the check with its reason while the
// appliance stays ready. The supervisor is a fake here: the real one is
// exercised on the real binary (appliance/cmd/linkplan
// TestIssue24_WorkerKillMidJob, TestIssue24_RaytraceEndToEnd).
func TestReadinessRaytraceWorkerDetails(t *testing.T) {
	d := loadOpenAPI(t)
	now := time.Date(2030, 1, 2, 3, 0, 0, 0, time.UTC)
	st := api.RaytraceWorkerStatus{State: "ready", PID: 4242, Since: now.Add(-90 * time.Second)}
	var down error
	check := func(context.Context) error { return down }
	a := api.New(api.Deps{PlatformDeps: api.PlatformDeps{Version: "test", Checks: []api.Check{
		{Name: "database", Fn: func(context.Context) error { return nil }},
		api.RaytraceWorkerCheck(check, func() api.RaytraceWorkerStatus { return st }, func() time.Time { return now }),
	}}})
	a.SetState(api.StateReady)
	srv := httptest.NewServer(a)
	defer srv.Close()
	h := &harness{srv: srv}
	for _, c := range []struct {
		name   string
		st     api.RaytraceWorkerStatus
		down   error
		status string
	}{
		{"ready", st, nil, "ok"},
		{"restarting after a kill", api.RaytraceWorkerStatus{State: "restarting", Restarts: 3, LivenessKills: 1,
			LastExit: "killed: its health route did not answer 3 times", Since: now.Add(-2 * time.Second)},
			errors.New("the raytrace worker is restarting; 3 restarts"), "failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, down = c.st, c.down
			res := h.do(t, "GET", "/health/ready", "", nil, "")
			contract(t, d, "GET", "/health/ready", res)
			if res.status != http.StatusOK {
				t.Fatalf("status %d: %s (the raytrace worker is advisory)", res.status, res.body)
			}
			w := res.json(t)["details"].(map[string]any)["raytrace_worker"].(map[string]any)
			if w["status"] != c.status || w["state"] != c.st.State || w["restarts"] != float64(c.st.Restarts) ||
				w["liveness_kills"] != float64(c.st.LivenessKills) || w["last_exit"] != c.st.LastExit || w["pid"] != float64(c.st.PID) ||
				w["state_age_s"] != now.Sub(c.st.Since).Seconds() {
				t.Errorf("details.raytrace_worker %v; status %+v", w, c.st)
			}
			if (c.down == nil) != (w["reason"] == "") {
				t.Errorf("reason %q with check error %v", w["reason"], c.down)
			}
		})
	}
}
