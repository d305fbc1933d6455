package jsq_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"linkplan/appliance"
)

// cpuTime is the process's user and system CPU time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkUnitCoordination measures what a unit costs besides its
// compute: published by the executor, stored by the embedded server,
// fetched by a worker over loopback TCP (the worker user), its result
// published, stored and merged, everything acknowledged; the runner
// computes nothing and returns a result of the size given. The appliance,
// the server and the worker share this process, so cpu-us/unit is the
// coordination CPU of all three sides for one unit (docs/SCALING.md); ns/op
// is the wall time per unit with the executor's window of 32 units out.
// The sizes: a coverage unit of 65,536 pixels (coverage.DefaultUnitPixels:
// about 10 bytes a pixel out, 4 back) and a small unit (1 KiB both ways).
func BenchmarkUnitCoordination(b *testing.B) {
	for _, tc := range []struct {
		name         string
		body, result int // bytes
	}{
		{"coverage_65536px", 65536 * 10, 65536 * 4},
		{"small_1KiB", 1024, 1024},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c := newCluster(b, 30*time.Second)
			res := make([]byte, tc.result)
			_, stop := c.worker(b, "w1", inputsA, func(context.Context, *appliance.WorkUnit) ([]byte, error) { return res, nil })
			defer stop()
			body := make([]byte, tc.body)
			us := make([]appliance.WorkUnit, b.N)
			for i := range us {
				us[i] = appliance.WorkUnit{JobID: "bench", Run: "1", Index: i, Kind: appliance.UnitBatchRows, TenantID: "ta", Inputs: inputsA, Body: body}
			}
			merged := 0
			b.ResetTimer()
			c0 := cpuTime(b)
			err := c.ex.Execute(context.Background(), us, func(i int, r []byte) error {
				if len(r) != tc.result {
					return fmt.Errorf("unit %d: %d bytes, want %d", i, len(r), tc.result)
				}
				merged++
				return nil
			})
			cpu := cpuTime(b) - c0
			b.StopTimer()
			if err != nil || merged != b.N {
				b.Fatalf("%d of %d units merged: %v", merged, b.N, err)
			}
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/unit")
		})
	}
}
