//go:build systemtools

package main_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// commandPaths lists every command and subcommand of the binary, read from
// the help texts themselves: the commands from `linkplan --help`, then the
// "linkplan CMD SUB" lines of each command's help (so that a new command
// or subcommand joins the table without editing it).
func commandPaths(t *testing.T, bin string) [][]string {
	t.Helper()
	top, _, code := runCLI(t, bin, "--help")
	if code != 0 {
		t.Fatalf("linkplan --help: exit %d", code)
	}
	cmdLine := regexp.MustCompile(`(?m)^  ([a-z]+) `)
	var paths [][]string
	for _, m := range cmdLine.FindAllStringSubmatch(top, -1) {
		paths = append(paths, []string{m[1]})
	}
	if len(paths) < 9 {
		t.Fatalf("linkplan --help lists %d commands:\n%s", len(paths), top)
	}
	for _, p := range slices.Clone(paths) {
		out, _, _ := runCLI(t, bin, p[0], "--help")
		sub := regexp.MustCompile(`linkplan ` + p[0] + `((?: [a-z][a-z-]*)+)`)
		for _, m := range sub.FindAllStringSubmatch(out, -1) {
			path := append([]string{p[0]}, strings.Fields(m[1])...)
			if !slices.ContainsFunc(paths, func(q []string) bool { return slices.Equal(q, path) }) {
				paths = append(paths, path)
			}
		}
	}
	return paths
}

// TestIssue20_HelpOnEveryCommand: --help, -help and -h on every command
// and subcommand print its help on standard output and exit 0 (before,
// `terrain info|verify --help` read --help as a file name and the other
// commands exited 2), also after operands and other flags.
func TestIssue20_HelpOnEveryCommand(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	paths := commandPaths(t, bin)
	for _, want := range [][]string{{"terrain", "info"}, {"terrain", "verify"}, {"terrain", "build"}, {"model", "retrain"},
		{"observations", "dividends", "settle"}, {"observations", "attest"}, {"admin", "totp-forget"}, {"serve"}, {"version"}} {
		if !slices.ContainsFunc(paths, func(q []string) bool { return slices.Equal(q, want) }) {
			t.Errorf("the help texts do not list %q: %q", want, paths)
		}
	}
	for _, p := range paths {
		for _, flag := range []string{"--help", "-help", "-h"} {
			t.Run(strings.Join(append(slices.Clone(p), flag), " "), func(t *testing.T) {
				out, errOut, code := runCLI(t, bin, append(slices.Clone(p), flag)...)
				if code != 0 || errOut != "" {
					t.Fatalf("exit %d, stderr %q", code, errOut)
				}
				if !strings.Contains(out, "usage") && !strings.Contains(out, "flags of linkplan") {
					t.Errorf("stdout holds no help:\n%s", out)
				}
				if len(p) > 1 && !strings.Contains(out, "linkplan "+strings.Join(p, " ")) {
					t.Errorf("the help does not name linkplan %s:\n%s", strings.Join(p, " "), out)
				}
			})
		}
	}
	for _, args := range [][]string{
		{"terrain", "info", "some.pack", "--help"},
		{"terrain", "build", "--out", "x.pack", "--help", "a.hgt"},
		{"coverage", "--site", "-22.9,-43.2,30", "-h"},
	} {
		out, errOut, code := runCLI(t, bin, args...)
		if code != 0 || errOut != "" || !strings.Contains(out, "usage") {
			t.Errorf("%q: exit %d, stderr %q, stdout:\n%s", args, code, errOut, out)
		}
	}
	// After "--", --help is an operand: terrain info opens it as a file.
	if _, errOut, code := runCLI(t, bin, "terrain", "info", "--", "--help"); code != 1 || !strings.Contains(errOut, "--help") {
		t.Errorf(`terrain info -- --help: exit %d, stderr %q`, code, errOut)
	}
}
