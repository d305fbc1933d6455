package training

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"linkplan/engines/ml"
)

// Model directory layout under the models root (<state dir>/models):
//
//	current/                the served models (ridge.json, ridge-<band>mhz.json, residual.json, JOB)
//	staging-<job id>/       a candidate being written or waiting for its swap
//	previous-<unix s>[-n]/  replaced directories, the newest KeepPrevious kept
const (
	DirCurrent     = "current"
	stagingPrefix  = "staging-"
	previousPrefix = "previous-"
	// FileJob names, inside a model directory, the retrain job that wrote
	// it (no .json extension: the serving side reads *.json as models).
	FileJob = "JOB"
	// KeepPrevious is how many replaced directories the swap keeps.
	KeepPrevious = 3
)

// ModelDir is the models root of the served models (the contract between
// the training and serving sides).
type ModelDir struct {
	Root string
	// Now names previous-<unix> directories; nil means time.Now.
	Now func() time.Time
}

func (d ModelDir) now() time.Time {
	if d.Now == nil {
		return time.Now()
	}
	return d.Now()
}

// Current is the served directory's path.
func (d ModelDir) Current() string { return filepath.Join(d.Root, DirCurrent) }

// Staging is the path of job's staging directory.
func (d ModelDir) Staging(job string) string { return filepath.Join(d.Root, stagingPrefix+job) }

// CurrentJob returns the job id that wrote the served directory, "" when
// there is none (or it was not written by a retrain).
func (d ModelDir) CurrentJob() string {
	b, err := os.ReadFile(filepath.Join(d.Current(), FileJob))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// WriteStaging writes a complete staging directory for job: every
// artifact and the JOB file, each fsynced, then the directory itself. A
// staging directory left by an earlier run of the same job is replaced.
func (d ModelDir) WriteStaging(job string, arts map[string]*ml.Artifact) (string, error) {
	if job == "" || strings.ContainsAny(job, `/\`) || job == "." || job == ".." {
		return "", fmt.Errorf("write staging: job id %q cannot name a directory", job)
	}
	dir := d.Staging(job)
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("write staging: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("write staging: %w", err)
	}
	names := make([]string, 0, len(arts))
	for n := range arts {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		var buf bytes.Buffer
		if err := ml.WriteArtifact(&buf, arts[n]); err != nil {
			return "", fmt.Errorf("write staging %s: %w", n, err)
		}
		if err := writeSynced(filepath.Join(dir, n), buf.Bytes()); err != nil {
			return "", fmt.Errorf("write staging: %w", err)
		}
	}
	if err := writeSynced(filepath.Join(dir, FileJob), []byte(job+"\n")); err != nil {
		return "", fmt.Errorf("write staging: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return "", fmt.Errorf("write staging: %w", err)
	}
	if err := syncDir(d.Root); err != nil {
		return "", fmt.Errorf("write staging: %w", err)
	}
	return dir, nil
}

// Swap makes job's staging directory the served one: current (when there
// is one) is renamed previous-<unix s>, staging renamed current, the root
// fsynced, and all but the newest KeepPrevious previous directories
// removed. A job whose directory is already current is done (a re-run
// swaps nothing); a missing staging directory is an error.
func (d ModelDir) Swap(job string) error {
	if d.CurrentJob() == job {
		return nil
	}
	staging := d.Staging(job)
	if _, err := os.Stat(filepath.Join(staging, FileJob)); err != nil {
		return fmt.Errorf("swap in %s: staging directory incomplete: %w", job, err)
	}
	if _, err := os.Stat(d.Current()); err == nil {
		prev := filepath.Join(d.Root, previousPrefix+strconv.FormatInt(d.now().Unix(), 10))
		for n := 1; ; n++ {
			if _, err := os.Stat(prev); errors.Is(err, fs.ErrNotExist) {
				break
			}
			prev = filepath.Join(d.Root, fmt.Sprintf("%s%d-%d", previousPrefix, d.now().Unix(), n))
		}
		if err := os.Rename(d.Current(), prev); err != nil {
			return fmt.Errorf("swap in %s: %w", job, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("swap in %s: %w", job, err)
	}
	if err := os.Rename(staging, d.Current()); err != nil {
		return fmt.Errorf("swap in %s: %w", job, err)
	}
	if err := syncDir(d.Root); err != nil {
		return fmt.Errorf("swap in %s: %w", job, err)
	}
	return d.prune()
}

// Previous lists the previous-* directories, oldest first.
func (d ModelDir) Previous() ([]string, error) {
	ents, err := os.ReadDir(d.Root)
	if err != nil {
		return nil, fmt.Errorf("list previous models: %w", err)
	}
	type prev struct {
		name   string
		unix   int64
		suffix int
	}
	var ps []prev
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), previousPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		unixS, suf, _ := strings.Cut(rest, "-")
		u, err := strconv.ParseInt(unixS, 10, 64)
		if err != nil {
			continue
		}
		n, _ := strconv.Atoi(suf)
		ps = append(ps, prev{e.Name(), u, n})
	}
	slices.SortFunc(ps, func(a, b prev) int {
		if a.unix != b.unix {
			return int(a.unix - b.unix)
		}
		return a.suffix - b.suffix
	})
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.name
	}
	return out, nil
}

func (d ModelDir) prune() error {
	ps, err := d.Previous()
	if err != nil {
		return err
	}
	for len(ps) > KeepPrevious {
		if err := os.RemoveAll(filepath.Join(d.Root, ps[0])); err != nil {
			return fmt.Errorf("prune previous models: %w", err)
		}
		ps = ps[1:]
	}
	return nil
}

// RemoveStaging removes job's staging directory (a kept candidate).
func (d ModelDir) RemoveStaging(job string) error {
	if err := os.RemoveAll(d.Staging(job)); err != nil {
		return fmt.Errorf("remove staging of %s: %w", job, err)
	}
	return nil
}

// Served reads the served artifacts (*.json) of fsys's root, file name ->
// artifact; an empty map when fsys is nil.
func Served(fsys fs.FS) (map[string]*ml.Artifact, error) {
	out := map[string]*ml.Artifact{}
	if fsys == nil {
		return out, nil
	}
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, fmt.Errorf("served models: %w", err)
	}
	for _, n := range names {
		f, err := fsys.Open(n)
		if err != nil {
			return nil, fmt.Errorf("served models: %w", err)
		}
		a, err := ml.ReadArtifact(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("served model %s: %w", n, err)
		}
		out[n] = a
	}
	return out, nil
}

func writeSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
