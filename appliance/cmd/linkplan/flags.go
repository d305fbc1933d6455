package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// errUsage marks command-line mistakes (exit code 2).
var errUsage = errors.New("usage")

func isUsage(err error) bool { return errors.Is(err, errUsage) || errors.Is(err, flag.ErrHelp) }

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// newFlags returns the flag set of command name ("terrain build"). Its
// usage lists the flags, if any; the command prints its usage text after
// it.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("linkplan "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintf(fs.Output(), "flags of linkplan %s:\n", name)
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseWithNumbers parses flags while letting negative numbers (Brazilian
// latitudes and longitudes, "-22.9") stand as positional arguments: the
// standard flag package would read them as unknown flags.
func parseWithNumbers(fs *flag.FlagSet, args []string) ([]string, error) {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if _, err := strconv.ParseFloat(a, 64); err == nil {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		// A flag given as "-name value" takes the next argument with it.
		if strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && i+1 < len(args) {
			name := strings.TrimLeft(a, "-")
			if f := fs.Lookup(name); f != nil {
				if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !bf.IsBoolFlag() {
					i++
					flags = append(flags, args[i])
				}
			}
		}
	}
	if err := fs.Parse(flags); err != nil {
		return nil, err
	}
	return append(fs.Args(), pos...), nil
}
