package worker

import (
	"log/slog"
	"os"
)

// oomScoreAdj is the worker's /proc/self/oom_score_adj: the most the
// kernel allows, so that under memory pressure its OOM killer picks the
// worker (which the supervisor restarts, failing one unit) before serve.
const oomScoreAdj = "1000"

// preferOOMKill asks the kernel's OOM killer to pick this process first.
// An unprivileged process may raise its own score; a failure (no /proc, a
// sandbox) is logged, never fatal.
func preferOOMKill(log *slog.Logger) {
	if err := os.WriteFile("/proc/self/oom_score_adj", []byte(oomScoreAdj), 0); err != nil {
		log.Warn("raytrace worker: could not raise its OOM score; under memory pressure the kernel may kill serve instead", "err", err)
	}
}
