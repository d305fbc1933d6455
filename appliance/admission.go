package appliance

import (
	"context"
	"errors"
)

// HeavyWork is one heavy computation (a coverage map, an asynchronous batch
// or repeater plan, later a raytrace job) asking the appliance's scheduler
// (package appliance/admission) for CPU workers and memory before it runs.
// The service that owns the work sizes it from its parameters.
type HeavyWork struct {
	ID       string // the map or job id: the key of Admitter.Position
	TenantID string
	Tier     Tier   // the tenant's tier: its weight in the fair share
	Kind     string // what it is, from a closed set ("heatmap", "best_server", "batch_report", "repeater_plan", ...)
	// Workers is how many goroutines the work can keep busy at once (at
	// least 1); the grant may be smaller.
	Workers int
	// MemBytes is the estimated peak memory of the work, bytes.
	MemBytes int64
	// Durable marks work that a durable queue already holds (a job): it is
	// never refused, it waits (and work larger than the whole budget runs
	// alone with the whole budget).
	Durable bool
}

// Grant is what the scheduler lends one admitted piece of heavy work until
// it is released.
type Grant struct {
	Workers  int   // goroutines the work may run at once, 1..HeavyWork.Workers
	MemBytes int64 // memory reserved for it, bytes
}

// Admitter schedules heavy work under the appliance's budget of CPU
// workers and memory (package appliance/admission). It is safe for
// concurrent use.
type Admitter interface {
	// Submit puts w in the wait queue. When the queue (or the tenant's
	// share of it) is full the refusal is a *RetryAfterError matching
	// ErrUnavailable; work larger than the whole budget matches ErrInvalid.
	// Durable work is never refused.
	Submit(w HeavyWork) (Admission, error)
	// Position returns the 1-based position of waiting work id in the
	// queue (1: admitted next), 0 when no work of that id waits.
	Position(id string) int
}

// Admission is one submitted piece of heavy work.
type Admission interface {
	// Wait blocks until the work is admitted, then returns its grant; when
	// ctx ends first the work leaves the queue and Wait returns ctx's
	// error. onPosition, when not nil, is called on the waiting goroutine
	// with the 1-based queue position, first when the work has to wait and
	// then whenever the position changes.
	Wait(ctx context.Context, onPosition func(position int)) (Grant, error)
	// Release gives the grant back (or withdraws work that still waits).
	// It is idempotent.
	Release()
}

type grantKey struct{}

// WithGrant returns ctx carrying g: the work run under ctx uses at most
// g.Workers goroutines.
func WithGrant(ctx context.Context, g Grant) context.Context {
	return context.WithValue(ctx, grantKey{}, g)
}

// WorkersFrom returns the worker count of the grant ctx carries, or
// fallback when it carries none.
func WorkersFrom(ctx context.Context, fallback int) int {
	if g, ok := ctx.Value(grantKey{}).(Grant); ok && g.Workers > 0 {
		return g.Workers
	}
	return fallback
}

// AdmitNow submits w to a and waits under ctx for its grant, for heavy
// work that runs on the request's goroutine (a building layer's scene
// built on a cache miss, an upload's parse): the caller calls release
// when the work is done. A full queue refuses it with the Submit's
// *RetryAfterError (HTTP 503 + Retry-After). Work whose estimate is over
// the whole budget is submitted again as Durable, so that it runs alone
// with the whole budget: it is work on data the appliance already
// accepted (a stored layer), which must not become unusable, or an
// upload within its tier's size cap. Such work waits outside the queue's
// limits; an upload waiting holds its body, charged to the appliance's
// decode budget (appliance/decodebudget), which bounds how many can wait.
// A nil a admits at once.
func AdmitNow(ctx context.Context, a Admitter, w HeavyWork) (release func(), err error) {
	if a == nil {
		return func() {}, nil
	}
	ad, err := a.Submit(w)
	if errors.Is(err, ErrInvalid) && !w.Durable {
		w.Durable = true
		ad, err = a.Submit(w)
	}
	if err != nil {
		return nil, err
	}
	if _, err := ad.Wait(ctx, nil); err != nil {
		ad.Release()
		return nil, err
	}
	return ad.Release, nil
}
