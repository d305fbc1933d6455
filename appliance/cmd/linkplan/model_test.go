//go:build systemtools

package main_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// dortmundHead is the committed sample of a real drive test (200 rows of
// the Dortmund LTE set, appliance/observations/testdata/README.md).
const dortmundHead = "../../observations/testdata/dortmund_o2_campus_head.csv.gz"

// TestModelTrainEval trains on the real drive-test sample and evaluates
// the artifact with the real binary: the evaluation line has the
// documented fields; bad inputs are usage errors (exit 2).
func TestModelTrainEval(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	model := filepath.Join(t.TempDir(), "m.json")
	out, stderr, code := runCLI(t, bin, "model", "train", "--observations", dortmundHead, "--out", model)
	if code != 0 || !regexp.MustCompile(`^n=200 cv_rmse_db=[0-9.]+ cv_rmse_std_db=[0-9.]+ cv_folds=[2-5] cv_groups=(serving_cell|h3_r8) band_q_abs_db=[0-9.]+ unseen_band_q_abs_db=[0-9.]+ unseen_groups=1 data_provenance=unknown out=`).MatchString(out) {
		t.Fatalf("train: exit %d: %s %s", code, out, stderr)
	}
	out, stderr, code = runCLI(t, bin, "model", "eval", "--model", model, "--observations", dortmundHead)
	line := regexp.MustCompile(`^n=200 rmse_db=([0-9.]+) mae_db=[0-9.]+ bias_db=-?[0-9.]+ coverage=(0|1)\.[0-9]{4} mean_width_db=[0-9.]+ ` +
		`unseen_rows=0 unseen_coverage=(0|1)\.[0-9]{4} unseen_mean_width_db=[0-9.]+ served_coverage=(0|1)\.[0-9]{4} served_mean_width_db=[0-9.]+\n$`)
	if code != 0 || !line.MatchString(out) || !strings.Contains(stderr, "fair physics baseline (free space, EIRP offset") ||
		!strings.Contains(stderr, "oracle physics baseline (free space") {
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

// TestModelLayouts: train and eval take several files, plain or gzip, in
// the Dortmund layout or with the other aliases (latitude/longitude,
// tx_lat/tx_lon, freq_hz, signal_dbm); the same rows give the same
// evaluation line whatever their layout.
func TestModelLayouts(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	raw, err := os.ReadFile(dortmundHead)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(plain)), "\n")
	// index,lon,lat,alt,speed,sinr,rsrp,rsrq,cellLon,cellLat,cellFreq
	var alias strings.Builder
	alias.WriteString("latitude,longitude,signal_dbm,tx_lat,tx_lon,freq_hz\n")
	for _, l := range lines[1:] {
		c := strings.Split(l, ",")
		f, err := strconv.ParseFloat(c[10], 64)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&alias, "%s,%s,%s,%s,%s,%.0f\n", c[2], c[1], c[6], c[9], c[8], f*1e6)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	first, second := strings.Join(lines[:101], "\n")+"\n", lines[0]+"\n"+strings.Join(lines[101:], "\n")+"\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(second))
	zw.Close()
	cases := []struct {
		name  string
		files []string
	}{
		{"one gzip file", []string{dortmundHead}},
		{"plain and gzip halves", []string{write("a.csv", []byte(first)), write("b.csv.gz", gz.Bytes())}},
		{"alias layout", []string{write("alias.csv", []byte(alias.String()))}},
	}
	model := filepath.Join(dir, "m.json")
	if _, stderr, code := runCLI(t, bin, "model", "train", "--observations", dortmundHead, "--out", model, "--area-name", "Dortmund, Germany", "--environments", "campus"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	want := ""
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"model", "eval", "--model", model}
			for _, f := range tc.files {
				args = append(args, "--observations", f)
			}
			out, stderr, code := runCLI(t, bin, args...)
			if code != 0 || !strings.HasPrefix(out, "n=200 ") {
				t.Fatalf("exit %d: %q %s", code, out, stderr)
			}
			if want == "" {
				want = out
			} else if out != want {
				t.Fatalf("eval %q, want %q as from the gzip file", out, want)
			}
			tr := filepath.Join(t.TempDir(), "t.json")
			if out, stderr, code := runCLI(t, bin, append([]string{"model", "train", "--out", tr}, args[4:]...)...); code != 0 || !strings.HasPrefix(out, "n=200 ") {
				t.Fatalf("train: exit %d: %q %s", code, out, stderr)
			}
		})
	}
}
