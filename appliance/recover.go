package appliance

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
)

// MetricRecoveredPanics is the counter family of the panics recovered from
// tenant work, one series per component (the place that recovered it):
//
//	linkplan_recovered_panics_total{component="batch.pdf"}
//
// appliance/telemetry declares the family with its help text and every
// component of telemetry.RecoveredPanicComponents at 0 from the start;
// cmd/linkplan counts on the appliance's metrics set (Recoverer.Count).
const MetricRecoveredPanics = "linkplan_recovered_panics_total"

// PanicError is a panic recovered from tenant work (a batch row, a PDF, a
// job, a plan edge), turned into the error of that unit of work. Its
// message is user-facing and names only the reference (the request or job
// id) under which the panic and its stack were logged.
type PanicError struct {
	Component string // where it was recovered, e.g. "batch.pdf"
	ID        string // the request or job id of the work; "" when unknown
	Value     any    // the value passed to panic
}

func (e *PanicError) Error() string {
	if e.ID == "" {
		return "internal error"
	}
	return "internal error (reference " + e.ID + ")"
}

// Recoverer turns the panics of tenant work into errors, so that no input
// stops the process: every goroutine that runs tenant work defers
// Recover. Each panic is logged once, at ERROR with its stack, and counted
// in MetricRecoveredPanics. A nil *Recoverer still recovers: it logs to
// slog.Default and counts nothing (a service built without one, in a
// test).
//
// Go cannot recover some failures (a fatal error such as concurrent map
// writes, running out of memory, a stack overflow): those still end the
// process, and the job queue's quarantine rule (appliance/jobs) keeps a
// job that does it twice from running again.
type Recoverer struct {
	Log *slog.Logger
	// Count adds one to MetricRecoveredPanics{component=component}; nil
	// counts nothing.
	Count func(component string)
}

// Recover recovers a panic of the calling goroutine. Defer it directly
// (recover works only there), first in the goroutine's function:
//
//	defer rec.Recover(ctx, "batch.row", &err)
//
// After a panic it logs and counts it (Recovered) and, when errp is not
// nil, sets *errp to the *PanicError; without a panic it does nothing.
// ctx names the work (WorkID).
func (r *Recoverer) Recover(ctx context.Context, component string, errp *error) {
	p := recover()
	if p == nil {
		return
	}
	err := r.Recovered(ctx, component, p)
	if errp != nil {
		*errp = err
	}
}

// Recovered logs and counts the recovered panic value p of component and
// returns it as a *PanicError. Call it from a deferred function that
// called recover itself; Recover is the usual form.
func (r *Recoverer) Recovered(ctx context.Context, component string, p any) *PanicError {
	e := &PanicError{Component: component, ID: WorkID(ctx), Value: p}
	log := slog.Default()
	if r != nil && r.Log != nil {
		log = r.Log
	}
	idKey := "request_id"
	if jobID(ctx) != "" {
		idKey = "job_id"
	}
	log.ErrorContext(ctx, "panic recovered", "component", component, idKey, e.ID,
		"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	if r != nil && r.Count != nil {
		r.Count(component)
	}
	return e
}

type (
	jobIDKey     struct{}
	requestIDKey struct{}
)

// WithJobID returns ctx naming the job whose handler it runs (package
// appliance/jobs sets it).
func WithJobID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, jobIDKey{}, id)
}

// WithRequestID returns ctx naming the HTTP request it serves (web/api
// sets it first thing, before the caller is known).
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

func jobID(ctx context.Context) string {
	id, _ := ctx.Value(jobIDKey{}).(string)
	return id
}

// WorkID names the work of ctx in logs and user-facing errors: the job id
// when ctx runs a job (WithJobID), else the request id (WithRequestID, or
// that of its actor, ActorFrom), else "".
func WorkID(ctx context.Context) string {
	if id := jobID(ctx); id != "" {
		return id
	}
	if id, _ := ctx.Value(requestIDKey{}).(string); id != "" {
		return id
	}
	return ActorFrom(ctx).RequestID
}
