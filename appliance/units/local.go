// Package units runs work units (appliance.WorkUnit) in the process:
// Local is the in-process appliance.UnitExecutor, and Runners maps unit
// kinds to their runners for it and for the JetStream worker
// (store/jsq). It imports appliance only.
//
// # States of a unit under Local
//
//	State    | Entered when                               | Next
//	---------+--------------------------------------------+--------------------------------
//	waiting  | Execute was called                         | running (a goroutine is free)
//	running  | a goroutine took it                        | merged, failed
//	merged   | its runner returned and merge accepted it  | - (once per unit)
//	failed   | its runner returned an error or panicked,  | - (Execute returns the first
//	         | or merge refused its result                |   error; the others stop)
//
// A panic of a runner is recovered into a failed unit (never a dead
// process): *appliance.PanicError through the Recoverer, logged with its
// stack and counted under component "units.<kind>".
package units

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"linkplan/appliance"
)

// Runners are the unit runners by kind.
type Runners map[appliance.UnitKind]appliance.UnitRunner

// Run runs u with its kind's runner, under rec (a panic is an error).
func (rs Runners) Run(ctx context.Context, rec *appliance.Recoverer, u *appliance.WorkUnit) (out []byte, err error) {
	r, ok := rs[u.Kind]
	if !ok {
		return nil, fmt.Errorf("no runner for unit kind %q: %w", u.Kind, appliance.ErrInvalid)
	}
	ctx = appliance.WithJobID(ctx, u.JobID)
	defer rec.Recover(ctx, "units."+string(u.Kind), &err)
	return r.RunUnit(ctx, u)
}

// Local runs units on Workers goroutines of this process.
type Local struct {
	Runners Runners
	// Workers is the number of units run at once; <= 0 is GOMAXPROCS.
	Workers int
	Recover *appliance.Recoverer
}

// Execute runs units and merges their results one at a time
// (appliance.UnitExecutor).
func (l *Local) Execute(ctx context.Context, units []appliance.WorkUnit, merge func(i int, result []byte) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := l.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(units)))
	type result struct {
		i   int
		out []byte
		err error
	}
	next := make(chan int)
	results := make(chan result)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out, err := l.Runners.Run(ctx, l.Recover, &units[i])
				select {
				case results <- result{i, out, err}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range units {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	var firstErr error
	merged := 0
	for r := range results {
		if firstErr != nil {
			continue
		}
		err := r.err
		if err == nil {
			err = merge(r.i, r.out)
		}
		if err != nil {
			firstErr = fmt.Errorf("unit %d of %s: %w", r.i, units[r.i].JobID, err)
			cancel()
			continue
		}
		merged++
	}
	if firstErr != nil {
		return firstErr
	}
	if merged < len(units) {
		return fmt.Errorf("units of %s: %d of %d merged: %w", jobOf(units), merged, len(units), ctx.Err())
	}
	return nil
}

func jobOf(units []appliance.WorkUnit) string {
	if len(units) == 0 {
		return ""
	}
	return units[0].JobID
}
