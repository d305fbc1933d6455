package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
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

// envPrefix starts the environment variables that set serve's flags (the
// packaged unit reads them from /etc/linkplan/linkplan.conf through
// systemd's EnvironmentFile=).
const envPrefix = "LINKPLAN_"

// envName is the environment variable of a flag: the prefix, then the
// flag's name in upper case with '-' as '_' (--data-dir: LINKPLAN_DATA_DIR).
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// envSettings is what parseWithEnv took from the environment.
type envSettings struct {
	Applied    []string // variables that set a flag, in flag order
	Overridden []string // variables of flags the command line set, in flag order
	Unknown    []string // LINKPLAN_ variables that name no flag of the command, sorted
}

// parseWithEnv parses args, then sets every flag the command line left
// alone from its environment variable (envName) when that is set and not
// empty: the command line wins over the environment, the environment over
// the flag's default. A repeatable flag (multi) takes a whitespace-separated
// list. A value the flag refuses is a usage error naming the variable.
// environ is os.Environ()'s form, "NAME=value".
func parseWithEnv(fs *flag.FlagSet, args, environ []string) (envSettings, error) {
	var got envSettings
	if err := fs.Parse(args); err != nil {
		return got, err
	}
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, envPrefix) {
			env[k] = v
		}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		name := envName(f.Name)
		v, ok := env[name]
		delete(env, name)
		v = strings.TrimSpace(v)
		if !ok || v == "" || err != nil {
			return
		}
		if given[f.Name] {
			got.Overridden = append(got.Overridden, name)
			return
		}
		vals := []string{v}
		if _, list := f.Value.(*multi); list {
			vals = strings.Fields(v)
		}
		for _, one := range vals {
			if serr := f.Value.Set(one); serr != nil {
				err = fmt.Errorf("%s=%q (--%s): %v: %w", name, v, f.Name, serr, errUsage)
				return
			}
		}
		got.Applied = append(got.Applied, name)
	})
	for k := range env {
		got.Unknown = append(got.Unknown, k)
	}
	sort.Strings(got.Unknown)
	return got, err
}
