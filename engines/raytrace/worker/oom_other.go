//go:build !linux

package worker

import "log/slog"

// preferOOMKill: only Linux has an OOM score to raise.
func preferOOMKill(*slog.Logger) {}
