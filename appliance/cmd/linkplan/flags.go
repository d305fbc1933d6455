package main

import (
	"errors"
	"flag"
	"io"
	"strings"
)

// errUsage marks command-line mistakes (exit code 2).
var errUsage = errors.New("usage")

func isUsage(err error) bool { return errors.Is(err, errUsage) || errors.Is(err, flag.ErrHelp) }

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("linkplan "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}
