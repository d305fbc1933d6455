package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
)

// Help (issue 20): -h, -help or --help anywhere on a command line (before
// a "--") prints the help of the command, or of the subcommand it names,
// on standard output and exits 0, instead of being read as a file name or
// a bad flag. The help is the command's own: run passes the command words
// and -h to it, with its error output on standard output, so each
// subcommand prints its usage text and its flag defaults, and its refusal
// of -h (a usage error) is the expected end.

// wantsHelp reports whether args ask for help (-h, -help or --help)
// before any "--".
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// subcommands returns the subcommand paths of each command that has them.
func subcommands() map[string][][]string {
	return map[string][][]string{
		"terrain":      {{"build"}, {"info"}, {"elevation"}, {"clutter"}, {"verify"}},
		"towers":       {{"import"}},
		"admin":        {{"totp"}, {"totp-forget"}},
		"observations": {{"consent"}, {"attest"}, {"dividends", "settle"}, {"dividends"}},
		"model":        {{"train"}, {"eval"}, {"retrain"}, {"synth"}},
		"itu":          {{"check"}},
		"calibrate":    {{"cv"}, {"eval"}},
		"raytrace":     {{"eval"}},
		"db":           {{"check"}},
	}
}

// commandWords returns the leading words of args that name a command and
// subcommand (e.g. "terrain", "info"), without flags or operands.
func commandWords(args []string) []string {
	words := []string{args[0]}
	for _, sub := range subcommands()[args[0]] {
		if len(args) > len(sub) && slices.Equal(args[1:1+len(sub)], sub) {
			return append(words, sub...)
		}
	}
	return words
}

// help prints the help of the command that args name on stdout and
// returns the exit code: 0, or 1 when the command did not answer -h with
// its help (a bug: the table test of every command finds it).
func help(ctx context.Context, args []string, stdout io.Writer) int {
	words := commandWords(args)
	switch words[0] {
	case "version", "--version", "-version":
		fmt.Fprint(stdout, "usage: linkplan version\n    print the version\n")
		return 0
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	err := dispatch(ctx, append(slices.Clone(words), "-h"), stdout, stdout)
	switch {
	case errors.Is(err, errUnknownCommand):
		fmt.Fprintf(stdout, "linkplan: unknown command %q\n%s", args[0], usage)
		return 2
	case errors.Is(err, flag.ErrHelp), errors.Is(err, errUsage):
		return 0
	}
	fmt.Fprintf(stdout, "linkplan: %v: -h was not answered with help\n", words)
	return 1
}
