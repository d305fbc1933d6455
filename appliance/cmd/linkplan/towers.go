package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"linkplan/appliance/cmd/linkplan/assemble"
	"os"
	"path/filepath"
	"strings"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
)

const towersUsage = `usage:
  linkplan towers import [--format F] [--data-dir DIR] FILE...
      parse tower files and print a report (rows, towers, rejects with line numbers);
      with --data-dir, install them as tower sources of that appliance: a running appliance
      picks them up at its next scheduled refresh (one started on the embedded sample data
      switches to them at its next start). Formats: %s (default: detected)
`

func towersCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "import" {
		fmt.Fprintf(stderr, towersUsage, formatNames())
		return fmt.Errorf("towers: unknown or missing subcommand: %w", errUsage)
	}
	fs := newFlags("towers import", stderr)
	format := fs.String("format", "", "input format (default: detected from the file)")
	dataDir := fs.String("data-dir", "", "install the files as tower sources of this data directory")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() == 0 {
		fmt.Fprintf(stderr, towersUsage, formatNames())
		return fmt.Errorf("towers import: at least one FILE is required: %w", errUsage)
	}
	type report struct {
		File     string               `json:"file"`
		Format   string               `json:"format"`
		Rows     int                  `json:"rows"`
		Towers   int                  `json:"towers"`
		Rejected int                  `json:"rejected"`
		Rejects  []appliance.RowIssue `json:"rejects"`
		Install  string               `json:"installed_as,omitempty"`
	}
	var reps []report
	failed := false
	bases := map[string]string{}
	for _, name := range fs.Args() {
		base := filepath.Base(name)
		if strings.HasPrefix(base, ".") {
			return fmt.Errorf("towers import %s: file names starting with '.' are not installed: %w", name, errUsage)
		}
		if prev, dup := bases[base]; dup && *dataDir != "" {
			return fmt.Errorf("towers import: %s and %s share the name %s; rename one: %w", prev, name, base, errUsage)
		}
		bases[base] = name
	}
	for _, name := range fs.Args() {
		if err := ctx.Err(); err != nil {
			return err
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("towers import: %w", err)
		}
		det, derr := catalog.DetectFormat(data)
		f := det
		if *format != "" {
			if f, err = catalog.ParseFormat(*format); err != nil {
				return fmt.Errorf("towers import: --format: %v: %w", err, errUsage)
			}
			// The appliance detects formats from the bytes on every refresh,
			// so a file it would read differently is refused now.
			if derr != nil || det != f {
				return fmt.Errorf("towers import %s: declared format %s but the content reads as %v (%v)", name, f, det, derr)
			}
		} else if derr != nil {
			return fmt.Errorf("towers import %s: %w", name, derr)
		}
		res, err := catalog.Parse(f, bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("towers import %s: %w", name, err)
		}
		rep := report{File: name, Format: f.String(), Rows: res.Rows, Towers: len(res.Stations), Rejected: len(res.Rejects), Rejects: []appliance.RowIssue{}}
		for _, r := range res.Rejects {
			rep.Rejects = append(rep.Rejects, appliance.RowIssue{Line: r.Line, Reason: r.Reason})
		}
		if len(res.Stations) == 0 {
			failed = true
		}
		if *dataDir != "" && len(res.Stations) > 0 {
			dst := filepath.Join(*dataDir, assemble.SourcesDir, filepath.Base(name))
			if err := installFile(dst, data); err != nil {
				return fmt.Errorf("towers import: %w", err)
			}
			rep.Install = dst
		}
		reps = append(reps, rep)
	}
	if err := printJSON(stdout, reps); err != nil {
		return err
	}
	if failed {
		return fmt.Errorf("towers import: a file held no usable tower")
	}
	return nil
}

// installFile writes data to dst atomically (temp file, fsync, rename), so a
// refresh never reads a half-written source and a failed write leaves no
// partial file (tower sources, model artifacts).
func installFile(dst string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".import-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

func formatNames() string {
	var s string
	for i, f := range catalog.Formats() {
		if i > 0 {
			s += ", "
		}
		s += f.String()
	}
	return s
}
