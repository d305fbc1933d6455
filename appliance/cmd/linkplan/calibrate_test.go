//go:build systemtools

package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// dortmundFiles returns the committed every-20th-row samples of one
// operator's four Dortmund drive tests (testdata/dortmund/PROVENANCE.md),
// each as --observations [prefix]FILE.
func dortmundFiles(t *testing.T, operator, prefix string) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/dortmund/" + operator + "_*.every20.csv.gz")
	if err != nil || len(files) != 4 {
		t.Fatalf("samples of %s: %v %v", operator, files, err)
	}
	var args []string
	for _, f := range files {
		args = append(args, "--observations", prefix+f)
	}
	return args
}

// fields parses the key=value fields of one output line.
func fields(t *testing.T, line string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok {
			m[k] = v
		}
	}
	return m
}

func num(t *testing.T, m map[string]string, k string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(m[k], 64)
	if err != nil {
		t.Fatalf("field %s in %v: %v", k, m, err)
	}
	return v
}

// TestIssue26_CalibrationDortmund runs `linkplan calibrate cv` on the real
// binary with every 20th row of the Dortmund O2 and T-Mobile drive tests
// (flat ground: no terrain pack covers Dortmund; the transmitter
// parameters of the command's defaults) and prints per operator
// cv_rmse_before_db= cv_rmse_after_db= n= for the best physics engine,
// with spatially blocked folds (H3 resolution 8), and every held-out
// fold's RMSE before, with one offset fitted on the other folds (the fair
// baseline: the transmitters' EIRP is unknown, so the uncalibrated engine
// is off by tens of dB) and after. The calibration must improve the
// cross-validated RMSE and never worsen a held-out fold by more than
// 0.2 dB (the issue's rule); on the full files (TestIssue26_CalibrationDortmundFull)
// it must also beat one offset, pooled and on every fold within 0.2 dB.
func TestIssue26_CalibrationDortmund(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	args := append([]string{"calibrate", "cv"}, dortmundFiles(t, "o2", "o2=")...)
	args = append(args, dortmundFiles(t, "tmobile", "tmobile=")...)
	checkCalibrationCV(t, bin, args, 1000, false)
	// Usage errors: no file, an unknown subcommand.
	if _, stderr, code := runCLI(t, bin, "calibrate", "cv"); code != 2 || !strings.Contains(stderr, "--observations") {
		t.Errorf("no file: exit %d %s", code, stderr)
	}
	if _, _, code := runCLI(t, bin, "calibrate", "fit"); code != 2 {
		t.Errorf("unknown subcommand: exit %d", code)
	}
	if _, stderr, code := runCLI(t, bin, "calibrate", "cv", "--observations", "no-such-file.csv"); code == 0 || !strings.Contains(stderr, "no-such-file") {
		t.Errorf("missing file: exit %d %s", code, stderr)
	}
}

var evalLine = regexp.MustCompile(`^n=(\d+) rmse_before_db=([\d.]+) rmse_after_db=([\d.]+)$`)

// TestIssue26_CalibrateEval runs `linkplan calibrate eval` on the real
// binary with each operator's sample: the calibration is fitted on one
// half of the H3 blocks and evaluated on the other, printing n=
// rmse_before_db= rmse_after_db= (the acceptance runs it on the operator
// held back; here the line's contract and the 1.0 dB improvement over the
// uncalibrated engine, on every 20th row only).
func TestIssue26_CalibrateEval(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	for _, op := range []string{"o2", "tmobile"} {
		stdout, stderr, code := runCLI(t, bin, append([]string{"calibrate", "eval"}, dortmundFiles(t, op, "")...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", op, code, stderr)
		}
		g := evalLine.FindStringSubmatch(strings.TrimSpace(stdout))
		if g == nil {
			t.Fatalf("%s: output %q", op, stdout)
		}
		n, _ := strconv.Atoi(g[1])
		before, _ := strconv.ParseFloat(g[2], 64)
		after, _ := strconv.ParseFloat(g[3], 64)
		t.Logf("%s: n=%d rmse_before_db=%.2f rmse_after_db=%.2f\n%s", op, n, before, after, stderr)
		if n < 400 || after > before-1 {
			t.Errorf("%s: n=%d before %.2f after %.2f", op, n, before, after)
		}
	}
}

// TestIssue26_CalibrationDortmundFull is TestIssue26_CalibrationDortmund
// on the full files of LINKPLAN_DORTMUND_DIR (../shared/data/measurements/
// dortmund_lte; minutes), where the calibration must also beat one offset
// fitted on the training folds: pooled, and on every held-out fold within
// 0.2 dB.
func TestIssue26_CalibrationDortmundFull(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("LINKPLAN_DORTMUND_DIR")
	if dir == "" {
		t.Skip("LINKPLAN_DORTMUND_DIR is not set")
	}
	args := []string{"calibrate", "cv"}
	for _, op := range []string{"o2", "tmobile"} {
		files, _ := filepath.Glob(filepath.Join(dir, op+"_*.csv*"))
		if len(files) == 0 {
			t.Fatalf("no %s_* file in %s", op, dir)
		}
		for _, f := range files {
			args = append(args, "--observations", op+"="+f)
		}
	}
	checkCalibrationCV(t, binary(t), args, 20000, true)
}

// checkCalibrationCV runs calibrate cv with args and checks each
// operator's line; oneOffset also holds the calibration to one offset.
func checkCalibrationCV(t *testing.T, bin string, args []string, minN float64, oneOffset bool) {
	t.Helper()
	stdout, stderr, code := runCLI(t, bin, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Logf("every engine:\n%s", stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one line per operator:\n%s", stdout)
	}
	for i, op := range []string{"o2", "tmobile"} {
		m := fields(t, lines[i])
		if m["operator"] != op {
			t.Fatalf("line %d: %s", i, lines[i])
		}
		before, after, n := num(t, m, "cv_rmse_before_db"), num(t, m, "cv_rmse_after_db"), num(t, m, "n")
		global, worst, worstG := num(t, m, "cv_rmse_global_offset_db"), num(t, m, "worst_fold_change_db"), num(t, m, "worst_fold_change_vs_global_offset_db")
		t.Logf("operator=%s engine=%s cv_rmse_before_db=%.2f cv_rmse_after_db=%.2f n=%.0f (one offset: %.2f dB; worst fold change %.2f dB, %.2f dB against one offset)",
			op, m["engine"], before, after, n, global, worst, worstG)
		if m["engine"] == "auto" || m["engine"] == "" {
			t.Errorf("%s: best engine %q is not a physics engine", op, m["engine"])
		}
		if n < minN || m["applied"] != "true" {
			t.Errorf("%s: n %.0f applied %s", op, n, m["applied"])
		}
		// The fold check, explicit: every held-out fold before (the
		// engine), with one offset fitted on the other folds, and after.
		fb, fg, fa := strings.Split(m["folds_before_db"], ","), strings.Split(m["folds_global_offset_db"], ","), strings.Split(m["folds_after_db"], ",")
		if len(fb) != 5 || len(fg) != 5 || len(fa) != 5 {
			t.Fatalf("%s: folds %v %v %v", op, fb, fg, fa)
		}
		for f := range fb {
			b, _ := strconv.ParseFloat(fb[f], 64)
			g, _ := strconv.ParseFloat(fg[f], 64)
			a, _ := strconv.ParseFloat(fa[f], 64)
			t.Logf("operator=%s fold=%d rmse_before_db=%.2f rmse_one_offset_db=%.2f rmse_after_db=%.2f change_db=%+.2f change_vs_one_offset_db=%+.2f", op, f+1, b, g, a, a-b, a-g)
			if a > b+0.2 || oneOffset && a > g+0.2 {
				t.Errorf("%s: held-out fold %d got worse: %.2f dB after, %.2f before, %.2f with one offset", op, f+1, a, b, g)
			}
		}
		if !(after < before) || oneOffset && !(after < global) {
			t.Errorf("%s: cross-validated RMSE %.2f dB, before %.2f dB, one offset %.2f dB", op, after, before, global)
		}
		if worst > 0.2 {
			t.Errorf("%s: a held-out fold got worse by %.2f dB", op, worst)
		}
	}
}
