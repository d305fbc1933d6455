package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"linkplan/appliance"
	"linkplan/store"
)

const dbUsage = `usage:
  linkplan db check [--json] (--data-dir DIR | FILE)
      check a database file without changing it: both meta pages, the file's
      length, bbolt's own consistency check (the checks of "bbolt check"), the
      schema version and the key count of every bucket. Exit status 0: sound;
      3: corrupt (the problems are printed); 1: unreadable or locked. It cannot check the
      database of a running appliance (the file is locked): use linkplan backup.
`

// dbCmd runs the db subcommands.
func dbCmd(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprint(stderr, dbUsage)
		return fmt.Errorf("db: unknown or missing subcommand: %w", errUsage)
	}
	fs := newFlags("db check", stderr)
	fs.Usage = func() { fmt.Fprint(stderr, dbUsage); fs.PrintDefaults() }
	asJSON := fs.Bool("json", false, "print the report as one JSON object (the form the appliance reads from its child check)")
	dataDir := fs.String("data-dir", "", "check DIR/linkplan.db")
	if err := fs.Parse(args[1:]); err != nil {
		return parseErr("db check", err)
	}
	if (fs.NArg() == 1) == (*dataDir != "") {
		fmt.Fprint(stderr, dbUsage)
		return fmt.Errorf("db check: give one FILE or --data-dir: %w", errUsage)
	}
	path := fs.Arg(0)
	if *dataDir != "" {
		path = filepath.Join(*dataDir, store.FileName)
	}
	rep, err := store.CheckFile(path)
	res := checkResult{File: path, OK: err == nil && len(rep.Problems) == 0, Check: rep,
		Locked: errors.Is(err, store.ErrLocked), Missing: errors.Is(err, os.ErrNotExist),
		Corrupt: errors.Is(err, appliance.ErrCorrupt), Denied: errors.Is(err, os.ErrPermission)}
	if err != nil {
		res.Error = err.Error()
	}
	if *asJSON {
		b, _ := json.Marshal(res)
		fmt.Fprintln(stdout, string(b))
	} else if err == nil || errors.Is(err, appliance.ErrCorrupt) {
		fmt.Fprintf(stdout, "%s: %d bytes, %d pages of %d bytes, transaction %d, schema version %d, checked in %.3f s\n",
			path, rep.Bytes, rep.Pages, rep.PageSize, rep.TxID, rep.Schema, rep.DurationS)
		for _, p := range rep.Problems {
			fmt.Fprintln(stdout, "  problem:", p)
		}
	}
	switch {
	case err != nil:
		return fmt.Errorf("db check: %w", err)
	case len(rep.Problems) > 0:
		return fmt.Errorf("db check: %s is corrupt: %d problem(s): %w", path, len(rep.Problems), appliance.ErrCorrupt)
	}
	if !*asJSON {
		fmt.Fprintln(stdout, "sound")
	}
	return nil
}

// checkResult is what linkplan db check --json prints.
type checkResult struct {
	File   string `json:"file"`
	OK     bool   `json:"ok"`
	Locked bool   `json:"locked,omitempty"`
	// Missing: there is no file at File.
	Missing bool `json:"missing,omitempty"`
	// Corrupt: Error is a verdict on the file's contents (ErrCorrupt);
	// Denied: the check may not open the file (permission denied).
	// Neither: the file could not be read, no verdict.
	Corrupt bool              `json:"corrupt,omitempty"`
	Denied  bool              `json:"denied,omitempty"`
	Error   string            `json:"error,omitempty"`
	Check   appliance.DBCheck `json:"check"`
}

// selfExe is the running binary: /proc/self/exe names its file even after
// a package upgrade replaced it on disk.
func selfExe() (string, error) {
	if runtime.GOOS == "linux" {
		return "/proc/self/exe", nil
	}
	return os.Executable()
}

// checkIsolated checks the database file at path in a child process
// (linkplan db check --json): bbolt's checker can fault on a damaged page
// in a way no Go code recovers, and a fault there must end the child, not
// the appliance or the command that asked. A child that dies is reported
// as appliance.ErrCorrupt with what it printed last; a child that could
// not open or read the file is not (childError).
func checkIsolated(ctx context.Context, path string) (appliance.DBCheck, error) {
	exe, err := selfExe()
	if err != nil {
		return appliance.DBCheck{}, fmt.Errorf("check %s: find the linkplan binary: %w", path, err)
	}
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, exe, "db", "check", "--json", path)
	cmd.Stdout, cmd.Stderr = &out, &errb
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return appliance.DBCheck{}, fmt.Errorf("check %s: %w", path, ctx.Err())
	}
	var res checkResult
	if jerr := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &res); jerr != nil {
		// No report: the check died (a memory fault or a panic of bbolt on
		// a damaged page), or the binary could not run.
		var ee *exec.ExitError
		if errors.As(runErr, &ee) {
			return appliance.DBCheck{}, fmt.Errorf("check %s: the structural check crashed reading the file (%v: %s): %w",
				path, runErr, lastLine(errb.String()), appliance.ErrCorrupt)
		}
		return appliance.DBCheck{}, fmt.Errorf("check %s: run the check: %v %s", path, runErr, lastLine(errb.String()))
	}
	return res.Check, childCheckError(path, res)
}

// childCheckError is the error of a child check's report res on path.
func childCheckError(path string, res checkResult) error {
	switch {
	case res.Locked:
		return fmt.Errorf("check %s: %w", path, store.ErrLocked)
	case res.Missing:
		return fmt.Errorf("check %s: %w", path, os.ErrNotExist)
	case res.Corrupt:
		return childError{res.Error, appliance.ErrCorrupt}
	case res.Denied:
		return childError{res.Error, os.ErrPermission}
	case res.Error != "":
		return childError{msg: res.Error} // it could not read the file: no verdict on its contents
	}
	return nil
}

// childError is the error a child check reported, as its text, with the
// sentinel it matched there: appliance.ErrCorrupt only for a verdict on
// the file's contents (store.CheckFile's corruption errors),
// os.ErrPermission for a file the process may not open; nil for any other
// failure to read it (not a verdict: exit status 1, not 3).
type childError struct {
	msg string
	is  error
}

func (e childError) Error() string { return e.msg }

// Is makes errors.Is(err, e.is) hold.
func (e childError) Is(target error) bool { return e.is != nil && target == e.is }

// lastLine is the last non-empty line of s that says what went wrong (a
// Go fatal error prints its reason on the first line and a trace after).
func lastLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "unexpected fault") {
			return l
		}
	}
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
