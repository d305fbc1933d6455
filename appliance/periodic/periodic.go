// Package periodic runs a function at a fixed interval on its own
// goroutine until it is closed: the schedules of the service packages
// (privacy's daily hard-delete scheduling, training's retrain trigger, the
// tower catalogue refresh). Each had its own copy of the same ticker loop
// with its start and stop bookkeeping; one small type keeps that logic in
// one place, and the services keep what differs (what runs, how a failure
// is logged, whether a first run happens at start).
//
// States:
//
//	| state   | trigger | next    | effects                                          |
//	|---------|---------|---------|--------------------------------------------------|
//	| idle    | Start   | running | fn runs every interval on one goroutine          |
//	| running | Start   | running | refused with appliance.ErrConflict               |
//	| running | Close   | closed  | fn's context ends; Close waits for a running fn  |
//	| idle    | Close   | idle    | nothing                                          |
//	| closed  | Start   | closed  | refused with appliance.ErrConflict               |
//
// A panic of fn is recovered (Loop.Recover: logged at ERROR with its
// stack, counted as component "periodic.<name>"); the loop goes on and
// runs fn again at the next tick.
package periodic

import (
	"context"
	"fmt"
	"time"

	"linkplan/appliance"
)

// Loop runs one function periodically. The zero value is idle. A Loop is
// not safe for concurrent Start and Close calls (a service starts and
// closes it from one goroutine).
type Loop struct {
	// Recover recovers a panic of fn (nil: logged to slog.Default, not
	// counted). Set it before Start.
	Recover *appliance.Recoverer

	cancel context.CancelFunc
	done   chan struct{}
}

// Start runs fn every interval (the first run one interval from now)
// until Close. fn's context ends at Close; runs never overlap. name
// names the loop in the error of a second Start.
func (l *Loop) Start(name string, interval time.Duration, fn func(ctx context.Context)) error {
	if l.done != nil {
		return fmt.Errorf("%s: start: already started: %w", name, appliance.ErrConflict)
	}
	if interval <= 0 {
		return fmt.Errorf("%s: start: interval %v: %w", name, interval, appliance.ErrInvalid)
	}
	run, cancel := context.WithCancel(context.Background())
	l.cancel, l.done = cancel, make(chan struct{})
	go func() {
		defer close(l.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-run.Done():
				return
			case <-t.C:
				l.runOnce(run, name, fn)
			}
		}
	}()
	return nil
}

// runOnce runs fn, recovering its panic.
func (l *Loop) runOnce(ctx context.Context, name string, fn func(ctx context.Context)) {
	defer l.Recover.Recover(ctx, "periodic."+name, nil)
	fn(ctx)
}

// Started reports whether Start has succeeded (the Loop is running or
// closed).
func (l *Loop) Started() bool { return l.done != nil }

// Close ends fn's context and waits for a running fn to return, or for
// ctx to end first (its error then). Closing an idle Loop does nothing.
func (l *Loop) Close(ctx context.Context) error {
	if l.cancel == nil {
		return nil
	}
	l.cancel()
	select {
	case <-l.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("close: %w", ctx.Err())
	}
}
