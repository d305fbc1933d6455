//go:build !linux

package worker

import "os/exec"

// setProcAttr: without Linux's parent-death signal the worker watches its
// parent itself (RunProcess).
func setProcAttr(*exec.Cmd) {}
