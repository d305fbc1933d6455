//go:build unix

package interference

import (
	"syscall"
	"time"
)

// processCPU returns the user+system CPU time of the process: benchmarks
// report it per op beside wall time, because the shared 2-core build
// machine is often overloaded and wall time then measures the queue.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
