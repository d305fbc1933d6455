//go:build !unix

package interference

import "time"

// processCPU is unknown off unix: 0.
func processCPU() time.Duration { return 0 }
