//go:build systemtools

package main_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/features"
	"linkplan/appliance/training"
	"linkplan/engines/ml"
	"linkplan/store"
)

// TestModelSynthRetrain runs the real binary: synthetic rows (the same
// seed twice gives the same file), an offline retrain that promotes the
// first candidate, a second that keeps the served one, the consent-state
// refusal, and usage errors.
func TestModelSynthRetrain(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	csv1, csv2, art := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv"), filepath.Join(dir, "ridge.json")
	if out, stderr, code := runCLI(t, bin, "model", "synth", "--n", "400", "--seed", "3", "--out", csv1, "--artifact", art); code != 0 ||
		!strings.Contains(out, "400 synthetic observations") || !strings.Contains(out, "data_provenance synthetic") {
		t.Fatalf("synth: exit %d: %s %s", code, out, stderr)
	}
	if _, stderr, code := runCLI(t, bin, "model", "synth", "--n", "400", "--seed", "3", "--out", csv2); code != 0 {
		t.Fatalf("synth again: exit %d: %s", code, stderr)
	}
	a, _ := os.ReadFile(csv1)
	b, _ := os.ReadFile(csv2)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatal("the same seed gave two different files")
	}
	rows, err := training.ReadSynthCSV(bytes.NewReader(a))
	if err != nil || len(rows) != 400 {
		t.Fatalf("read back: %d rows, %v", len(rows), err)
	}

	fill := func(dataDir string, consent appliance.Consent) {
		t.Helper()
		db, err := store.Open(dataDir, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		keys := make([]string, len(rows))
		cp := make([]appliance.Observation, len(rows))
		for i, o := range rows {
			o.TenantID, o.Consent = "t_a", consent
			cp[i], keys[i] = o, o.ID
		}
		if _, err := db.PutObservations("t_a", appliance.KindLinkObservation, cp, keys, nil); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(dir, "data")
	fill(data, appliance.ConsentConsented)
	out, stderr, code := runCLI(t, bin, "model", "retrain", "--state", data)
	if code != 0 || !strings.HasPrefix(out, "decision=promoted job=model_retrain_cli_") || !strings.Contains(out, "served_rmse_db=none") ||
		!strings.Contains(out, "data_provenance=synthetic") || !strings.Contains(stderr, "400 consented") {
		t.Fatalf("first retrain: exit %d: %s %s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(data, "models", "current", training.FileRidge)); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = runCLI(t, bin, "model", "retrain", "--data-dir", data)
	if code != 0 || !strings.HasPrefix(out, "decision=kept") || !strings.Contains(out, "not better") {
		t.Fatalf("second retrain: exit %d: %s %s", code, out, stderr)
	}

	refused := filepath.Join(dir, "refused")
	fill(refused, appliance.ConsentRefused)
	out, stderr, code = runCLI(t, bin, "model", "retrain", "--data-dir", refused)
	if code != 1 || !strings.Contains(stderr, "no observation is consented for training (400 stored, all refused): this is a consent state, not an empty dataset") {
		t.Fatalf("refused corpus: exit %d: %s %s", code, out, stderr)
	}
	for _, args := range [][]string{
		{"model", "synth", "--n", "10"},
		{"model", "synth", "--out", csv2},
		{"model", "synth", "--n", "2000000", "--out", csv2},
		{"model", "retrain", "extra"},
	} {
		if _, stderr, code := runCLI(t, bin, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, stderr)
		}
	}
}

// TestShippedSyntheticRidge: the committed pipeline-validation artifact is
// synthetic, ridge-v1 of feature schema 1, and is what its documented
// command makes (everything but trained_at).
func TestShippedSyntheticRidge(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	read := func(p string) *ml.Artifact {
		t.Helper()
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		a, err := ml.ReadArtifact(f)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	shipped := read("../../../engines/ml/shipped/ridge-synthetic-rio.json")
	schema, err := features.Schema(1)
	if err != nil {
		t.Fatal(err)
	}
	if shipped.DataProvenance != "synthetic" || shipped.ModelVersion != "ridge-v1" || shipped.Kind != ml.KindRidge ||
		!reflect.DeepEqual(shipped.Schema, schema) || shipped.NTrain != 5000 {
		t.Fatalf("shipped artifact: provenance %q, version %q, kind %q, schema %+v, n %d", shipped.DataProvenance, shipped.ModelVersion,
			shipped.Kind, shipped.Schema, shipped.NTrain)
	}
	dir := t.TempDir()
	art := filepath.Join(dir, "ridge.json")
	if _, stderr, code := runCLI(t, bin, "model", "synth", "--n", "5000", "--seed", "42", "--out", filepath.Join(dir, "s.csv"), "--artifact", art); code != 0 {
		t.Fatalf("synth: exit %d: %s", code, stderr)
	}
	again := read(art)
	again.TrainedAtUnixS = shipped.TrainedAtUnixS
	if !reflect.DeepEqual(again, shipped) {
		t.Fatal("engines/ml/shipped/ridge-synthetic-rio.json is not what `linkplan model synth --n 5000 --seed 42 --artifact` makes: regenerate it (SYNTHETIC.md)")
	}
}
