package main_test

import (
	"path/filepath"
	"regexp"
	"testing"
)

// dortmundHead is the committed sample of a real drive test (200 rows of
// the Dortmund LTE set, appliance/observations/testdata/README.md).
const dortmundHead = "../../observations/testdata/dortmund_o2_campus_head.csv.gz"

// TestModelTrainEval trains on the real drive-test sample and evaluates
// the artifact with the real binary: the evaluation line has the
// documented fields; bad inputs are usage errors (exit 2).
func TestModelTrainEval(t *testing.T) {
	bin := binary(t)
	model := filepath.Join(t.TempDir(), "m.json")
	out, stderr, code := runCLI(t, bin, "model", "train", "--observations", dortmundHead, "--out", model)
	if code != 0 || !regexp.MustCompile(`^n=200 cv_rmse_db=[0-9.]+ cv_rmse_std_db=[0-9.]+ cv_folds=[2-5] band_q_abs_db=[0-9.]+ out=`).MatchString(out) {
		t.Fatalf("train: exit %d: %s %s", code, out, stderr)
	}
	out, stderr, code = runCLI(t, bin, "model", "eval", "--model", model, "--observations", dortmundHead)
	line := regexp.MustCompile(`^n=200 rmse_db=([0-9.]+) mae_db=[0-9.]+ bias_db=-?[0-9.]+ coverage=(0|1)\.[0-9]{4} mean_width_db=[0-9.]+\n$`)
	if code != 0 || !line.MatchString(out) || !regexp.MustCompile(`physics baseline \(free space`).MatchString(stderr) {
		t.Fatalf("eval: exit %d: %q %s", code, out, stderr)
	}
	for _, args := range [][]string{
		{"model", "train", "--out", model},
		{"model", "eval", "--observations", dortmundHead},
		{"model", "eval", "--model", model, "--observations", "model_test.go"},
		{"model", "fit"},
	} {
		if _, stderr, code := runCLI(t, bin, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, stderr)
		}
	}
}
