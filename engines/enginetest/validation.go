package enginetest

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// EnvValidationDir names the environment variable that points the harness at
// another directory of validation suites (for example the held-out set).
const EnvValidationDir = "LINKPLAN_VALIDATION_DIR"

// Dir returns the folder of one validation suite: $LINKPLAN_VALIDATION_DIR/suite
// when the variable is set, else the committed copy in engines/testdata/validation.
// Only validation suites use it: tests that run every case of a suite file,
// whatever the cases are, so that another set of the same format (the
// held-out set) runs through them unchanged. A test that needs a particular
// case, profile or file uses Fixtures.
func Dir(suite string) string {
	if d := os.Getenv(EnvValidationDir); d != "" {
		return filepath.Join(d, suite)
	}
	return Fixtures(suite)
}

// Fixtures returns the committed copy of one validation suite,
// engines/testdata/validation/suite, whatever LINKPLAN_VALIDATION_DIR says:
// the folder of unit-test fixtures (a named case, a named profile, fuzz
// seeds, the developer-only ITMDrvr examples).
//
// The folder is found from the module's root: the nearest directory above
// the working directory (a test's package directory) that holds go.mod,
// so that a test binary built with -trimpath, whose compiled file paths
// are not on disk, finds it too; else next to this file as compiled.
func Fixtures(suite string) string {
	if dir, err := os.Getwd(); err == nil {
		for d := dir; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				return filepath.Join(d, "engines", "testdata", "validation", suite)
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "validation", suite)
}

// Row is one CSV record keyed by header name.
type Row map[string]string

// Float returns the named column as a float64. A missing or malformed value
// is reported through err.
func (r Row) Float(col string) (float64, error) {
	s, ok := r[col]
	if !ok {
		return math.NaN(), fmt.Errorf("column %q missing", col)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return math.NaN(), fmt.Errorf("column %q: %w", col, err)
	}
	return v, nil
}

// ReadCSV reads a CSV file with a header line into rows. A UTF-8 byte order
// mark and surrounding spaces in header names are removed.
func ReadCSV(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("read %s: empty file", path)
	}
	hdr := recs[0]
	for i := range hdr {
		hdr[i] = strings.TrimSpace(strings.TrimPrefix(hdr[i], "\ufeff"))
	}
	rows := make([]Row, 0, len(recs)-1)
	for _, rec := range recs[1:] {
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		row := make(Row, len(hdr))
		for i, h := range hdr {
			if i < len(rec) {
				row[h] = strings.TrimSpace(rec[i])
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// Suite accumulates the outcome of one validation suite.
type Suite struct {
	Name     string
	Cases    int
	Failed   int
	MaxDelta float64 // largest |delta| seen, dB
	tb       testing.TB
}

// NewSuite starts a suite report.
func NewSuite(tb testing.TB, name string) *Suite { return &Suite{Name: name, tb: tb} }

// Check records one case: got against want with tolerance tol (dB). A failed
// case is reported with its id.
func (s *Suite) Check(caseID string, got, want, tol float64) bool {
	s.tb.Helper()
	s.Cases++
	d := math.Abs(got - want)
	if math.IsNaN(d) {
		d = math.Inf(1)
	}
	if d > s.MaxDelta {
		s.MaxDelta = d
	}
	if d > tol {
		s.Failed++
		s.tb.Errorf("suite %s case %s: got %.6f want %.6f (|delta| %.6g > tol %g)", s.Name, caseID, got, want, d, tol)
		return false
	}
	return true
}

// Fail records a case that could not be read or computed; it counts as failed.
func (s *Suite) Fail(caseID string, err error) {
	s.tb.Helper()
	s.Cases++
	s.Failed++
	s.MaxDelta = math.Inf(1)
	s.tb.Errorf("suite %s case %s: %v", s.Name, caseID, err)
}

// Done prints the suite line and fails the test when the suite held no case.
func (s *Suite) Done() {
	s.tb.Helper()
	fmt.Printf("suite=%s cases=%d failed=%d max_abs_delta_db=%.6g\n", s.Name, s.Cases, s.Failed, s.MaxDelta)
	if s.Cases == 0 {
		s.tb.Errorf("suite %s: no readable case in %s", s.Name, Dir(s.Name))
	}
}
