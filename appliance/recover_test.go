package appliance_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"linkplan/appliance"
)

// TestRecoverer: a panic on a goroutine becomes that goroutine's error,
// is logged once at ERROR with its stack under the work's id, and is
// counted by component; without a panic nothing happens.
func TestRecoverer(t *testing.T) {
	cases := []struct {
		name    string
		ctx     context.Context
		fn      func()
		wantErr string
		wantKey string // the log attribute that carries the id
	}{
		{"request", appliance.WithActor(context.Background(), appliance.Actor{RequestID: "req-1"}),
			func() { panic("boom") }, "internal error (reference req-1)", "request_id=req-1"},
		{"job wins over request", appliance.WithJobID(appliance.WithActor(context.Background(), appliance.Actor{RequestID: "req-1"}), "job_x"),
			func() { var a []int; _ = a[3] }, "internal error (reference job_x)", "job_id=job_x"},
		{"no id", context.Background(), func() { panic(errors.New("bad")) }, "internal error", "request_id="},
		{"nil panic value", context.Background(), func() { panic(nil) }, "internal error", "request_id="},
		{"no panic", context.Background(), func() {}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			counts := map[string]int{}
			rec := &appliance.Recoverer{Log: slog.New(slog.NewTextHandler(&logs, nil)), Count: func(c string) { counts[c]++ }}
			errc := make(chan error)
			go func() {
				var err error
				defer func() { errc <- err }()
				defer rec.Recover(tc.ctx, "test.unit", &err)
				tc.fn()
			}()
			err := <-errc
			if tc.wantErr == "" {
				if err != nil || logs.Len() != 0 || len(counts) != 0 {
					t.Fatalf("no panic: err %v, log %q, counts %v", err, logs.String(), counts)
				}
				return
			}
			var pe *appliance.PanicError
			if !errors.As(err, &pe) || err.Error() != tc.wantErr || pe.Component != "test.unit" {
				t.Fatalf("err %v (%T), want a *PanicError %q", err, err, tc.wantErr)
			}
			line := logs.String()
			if strings.Count(line, "\n") != 1 || !strings.Contains(line, "level=ERROR") || !strings.Contains(line, tc.wantKey) ||
				!strings.Contains(line, "recover_test.go") || !strings.Contains(line, "component=test.unit") {
				t.Fatalf("log %q: want one ERROR line with %s, the component and a stack through the panicking function", line, tc.wantKey)
			}
			if counts["test.unit"] != 1 || len(counts) != 1 {
				t.Fatalf("counts %v", counts)
			}
		})
	}
}

// TestRecovererNil: a nil *Recoverer still recovers (and logs to
// slog.Default).
func TestRecovererNil(t *testing.T) {
	var rec *appliance.Recoverer
	errc := make(chan error)
	go func() {
		var err error
		defer func() { errc <- err }()
		defer rec.Recover(context.Background(), "test.nil", &err)
		panic("boom")
	}()
	if err := <-errc; err == nil || err.Error() != "internal error" {
		t.Fatalf("err %v", err)
	}
}
