package assemble

import (
	"context"
	"fmt"

	"linkplan/web/api"
)

// Free-space floor of the data directory's file system below which the
// advisory readiness check "disk" fails: the larger of MinFreeBytes and
// MinFreeFraction of the file system. A write the file system refuses
// for space answers 507 storage_full (web/api); this check says so before.
const (
	MinFreeBytes    = 256 << 20 // 256 MiB
	MinFreeFraction = 0.02
)

// diskCheck is the advisory readiness check "disk" of the data directory
// (dir): reported in GET /health/ready and its metrics, never making the
// appliance not ready (reads still work on a full disk).
func diskCheck(dir string) api.Check {
	return api.Check{Name: "disk", Advisory: true, Fn: func(context.Context) error {
		free, total, ok := diskSpace(dir)
		if !ok {
			return nil
		}
		return lowSpace(free, total)
	}}
}

// lowSpace says why free bytes of a total-byte file system are too few for
// the data directory, or nil.
func lowSpace(free, total uint64) error {
	floor := max(uint64(MinFreeBytes), uint64(MinFreeFraction*float64(total)))
	if free >= floor {
		return nil
	}
	return fmt.Errorf("the data directory's file system has %.0f MiB free of %.0f MiB (less than %.0f MiB): writes will soon be refused with 507 storage_full; free space or move the data directory",
		float64(free)/(1<<20), float64(total)/(1<<20), float64(floor)/(1<<20))
}
