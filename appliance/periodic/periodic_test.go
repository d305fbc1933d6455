package periodic_test

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/periodic"
)

func TestLoop(t *testing.T) {
	var l periodic.Loop
	if err := l.Close(context.Background()); err != nil {
		t.Fatalf("closing an idle loop: %v", err)
	}
	var runs atomic.Int32
	ran := make(chan struct{}, 1)
	if err := l.Start("test", time.Millisecond, func(ctx context.Context) {
		runs.Add(1)
		select {
		case ran <- struct{}{}:
		default:
		}
	}); err != nil {
		t.Fatal(err)
	}
	<-ran
	if err := l.Start("test", time.Millisecond, func(context.Context) {}); !errors.Is(err, appliance.ErrConflict) {
		t.Fatalf("second Start: %v, want ErrConflict", err)
	}
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	n := runs.Load()
	time.Sleep(5 * time.Millisecond)
	if runs.Load() != n {
		t.Fatal("fn ran after Close returned")
	}
	if err := l.Start("test", time.Millisecond, func(context.Context) {}); !errors.Is(err, appliance.ErrConflict) {
		t.Fatalf("Start after Close: %v, want ErrConflict", err)
	}
}

func TestLoopRefusesBadInterval(t *testing.T) {
	var l periodic.Loop
	if err := l.Start("test", 0, func(context.Context) {}); !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("Start(0) = %v, want ErrInvalid", err)
	}
}

// TestCloseWaitsForRun: Close returns only after a running fn, whose
// context it ends, has returned; a ctx that ends first gives its error.
func TestCloseWaitsForRun(t *testing.T) {
	var l periodic.Loop
	started, finished := make(chan struct{}), make(chan struct{})
	var once atomic.Bool
	if err := l.Start("test", time.Millisecond, func(ctx context.Context) {
		if once.Swap(true) {
			return
		}
		close(started)
		<-ctx.Done()
		time.Sleep(10 * time.Millisecond)
		close(finished)
	}); err != nil {
		t.Fatal(err)
	}
	<-started
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-finished:
	default:
		t.Fatal("Close returned while fn was running")
	}

	var slow periodic.Loop
	hold := make(chan struct{})
	defer close(hold)
	began := make(chan struct{})
	var first atomic.Bool
	if err := slow.Start("slow", time.Millisecond, func(context.Context) {
		if !first.Swap(true) {
			close(began)
			<-hold
		}
	}); err != nil {
		t.Fatal(err)
	}
	<-began
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	if err := slow.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close with a run that ignores its context: %v, want DeadlineExceeded", err)
	}
}

// TestLoopRecoversPanic: a panicking run is recovered and counted, and the
// loop runs fn again.
func TestLoopRecoversPanic(t *testing.T) {
	var counted atomic.Int32
	l := periodic.Loop{Recover: &appliance.Recoverer{Log: slogDiscard(), Count: func(c string) {
		if c == "periodic.test" {
			counted.Add(1)
		}
	}}}
	var runs atomic.Int32
	again := make(chan struct{})
	if err := l.Start("test", time.Millisecond, func(context.Context) {
		switch runs.Add(1) {
		case 1:
			panic("boom")
		case 2:
			close(again)
		}
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-again:
	case <-time.After(5 * time.Second):
		t.Fatal("the loop did not run again after a panic")
	}
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if counted.Load() != 1 {
		t.Fatalf("%d panics counted, want 1", counted.Load())
	}
}

func slogDiscard() *slog.Logger { return slog.New(slog.DiscardHandler) }
