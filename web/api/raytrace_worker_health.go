package api

import (
	"context"
	"time"
)

// RaytraceWorkerReadiness is details.raytrace_worker of GET /health/ready:
// the local raytrace worker serve supervises (engines/raytrace/worker,
// "Supervision"). The check is advisory: a worker that is down or
// restarting fails it with its reason while the appliance stays ready.
type RaytraceWorkerReadiness struct {
	Status string `json:"status"` // ok, failed
	Reason string `json:"reason"` // "" when ok
	// State is the supervisor's: starting, ready, restarting, stopped.
	State string `json:"state"`
	PID   int    `json:"pid"` // of the running worker; 0 when none
	// Restarts counts the worker's starts after the first since serve
	// started; LivenessKills those of them that followed a kill because
	// its health route stopped answering.
	Restarts      int    `json:"restarts"`
	LivenessKills int    `json:"liveness_kills"`
	LastExit      string `json:"last_exit"` // how the last process ended; "" before any exit
	// StateAgeS is how long the worker has been in State, seconds.
	StateAgeS float64 `json:"state_age_s"`
}

// RaytraceWorkerStatus is the supervisor's view of the worker, as
// RaytraceWorkerCheck reads it (appliance/cmd/linkplan/assemble maps the
// worker package's Status onto it).
type RaytraceWorkerStatus struct {
	State         string
	PID           int
	Restarts      int
	LivenessKills int
	LastExit      string
	Since         time.Time
}

// RaytraceWorkerCheck is the advisory readiness check of the local
// raytrace worker: check says whether it is ready and answers, status
// gives the facts (restarts, the last exit) read beside the verdict.
// now nil: time.Now.
func RaytraceWorkerCheck(check func(context.Context) error, status func() RaytraceWorkerStatus, now func() time.Time) Check {
	if now == nil {
		now = time.Now
	}
	return Check{Name: "raytrace_worker", Advisory: true, Kind: "local_process", Fn: check,
		Probe: func(ctx context.Context) (any, error) {
			err := check(ctx)
			st := status()
			d := RaytraceWorkerReadiness{Status: "ok", State: st.State, PID: st.PID, Restarts: st.Restarts,
				LivenessKills: st.LivenessKills, LastExit: st.LastExit}
			if !st.Since.IsZero() {
				d.StateAgeS = max(0, now().Sub(st.Since).Seconds())
			}
			if err != nil {
				d.Status, d.Reason = "failed", err.Error()
			}
			return d, err
		}}
}
