package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"linkplan/appliance/cmd/linkplan/assemble"
	"strconv"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
	"linkplan/appliance/features"
	"linkplan/appliance/training"
	"linkplan/engines"
	"linkplan/engines/ml"
	"linkplan/store"
)

const modelTrainingUsage = `usage:
  linkplan model retrain [--data-dir DIR | --state DIR] [--terrain PACK]... [--refractivity-dir DIR]
      run one retrain of the learned models offline (appliance/training):
      every tenant's consented observations, the local ridge with its band
      models and the residual engine, a holdout replay against the served
      models (DIR/models/current, else the shipped ones), promotion only when
      the candidate is better; prints the decision, which is recorded and
      audited. It opens the database: stop the appliance first (the running
      appliance retrains on its job queue).
  linkplan model synth --n N --seed S --out FILE.csv [--artifact MODEL.json]
      write N synthetic pipeline-validation observations (source synthetic)
      over the embedded Rio de Janeiro terrain sample: the
      p1812-p1411-hybrid received power plus log-normal shadowing of 8 dB,
      from seed S (same seed, same file). --artifact also trains the local
      ridge on them and writes it (data_provenance synthetic: it never
      claims field accuracy).
`

// modelTrainingCmd runs linkplan model retrain|synth.
func modelTrainingCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	switch {
	case len(args) > 0 && args[0] == "retrain":
		return retrainCmd(ctx, args[1:], stdout, stderr)
	case len(args) > 0 && args[0] == "synth":
		return synthCmd(ctx, args[1:], stdout, stderr)
	}
	fmt.Fprint(stderr, modelTrainingUsage)
	return fmt.Errorf("model: the subcommands are train, eval, retrain and synth: %w", errUsage)
}

func retrainCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("model retrain", stderr)
	dataDir := fs.String("data-dir", defaultDataDir(), "state directory (database, models/)")
	fs.StringVar(dataDir, "state", defaultDataDir(), "the same as --data-dir")
	var packs multi
	fs.Var(&packs, "terrain", "terrain pack (repeatable); default: the embedded Rio de Janeiro sample")
	refr := fs.String("refractivity-dir", "", "ITU-R P.1812 DN50/N050 maps; default: the documented Brazil values")
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 {
		fmt.Fprint(stderr, modelTrainingUsage)
		return fmt.Errorf("model retrain: %w", errUsage)
	}
	ter, desc, err := assemble.OpenTerrain(packs)
	if err != nil {
		return fmt.Errorf("model retrain: %w", err)
	}
	defer ter.Close()
	reg, err := engines.New(engines.Config{RefractivityDir: *refr})
	if err != nil {
		return fmt.Errorf("model retrain: %w", err)
	}
	gaz, err := catalog.EmbeddedGazetteer()
	if err != nil {
		return fmt.Errorf("model retrain: %w", err)
	}
	db, err := openOffline(ctx, *dataDir, offlineOptions{}, stderr)
	if err != nil {
		if errors.Is(err, store.ErrLocked) {
			return fmt.Errorf("model retrain: the database is in use (stop the appliance first): %w", err)
		}
		return fmt.Errorf("model retrain: %w", err)
	}
	defer db.Close()
	svc, err := assemble.NewTraining(db, nil, ter, reg, gaz, *dataDir, nil, nil, nil, nil)
	if err != nil {
		return fmt.Errorf("model retrain: %w", err)
	}
	fmt.Fprintln(stderr, "linkplan model retrain:", desc)
	// A decision is recorded once per job id (a re-run job returns it), so
	// two offline retrains must never share one: the time to the second
	// and a random suffix (two runs in one second happen).
	var suffix [4]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return fmt.Errorf("model retrain: job id: %w", err)
	}
	id := "model_retrain_cli_" + time.Now().UTC().Format("20060102T150405Z") + "_" + hex.EncodeToString(suffix[:])
	out, err := svc.Retrain(appliance.WithActor(ctx, appliance.Actor{Email: operatorName()}), id, "cli")
	if err != nil {
		return fmt.Errorf("model retrain: %w", err)
	}
	c := out.Corpus
	fmt.Fprintf(stderr, "corpus: %d stored, %d consented, %d kept (schema %d); skipped: %d terrain missing, %d not received power, %d refused by the features or the baseline\n",
		c.Stored, c.Consented, c.Kept, c.SchemaVersion, c.SkippedTerrain, c.SkippedMetric, c.SkippedInvalid)
	fmt.Fprintln(stdout, decisionLine(out.Decision))
	return nil
}

// decisionLine prints a decision on one line.
func decisionLine(d appliance.ModelDecision) string {
	verdict := "kept"
	if d.Promoted {
		verdict = "promoted"
	}
	f := func(p *float64) string {
		if p == nil {
			return "none"
		}
		return strconv.FormatFloat(*p, 'f', 3, 64)
	}
	return fmt.Sprintf("decision=%s job=%s n_train=%d n_holdout=%d candidate_rmse_db=%s served_rmse_db=%s candidate_residual_rmse_db=%s served_residual_rmse_db=%s data_provenance=%s reason=%q",
		verdict, d.JobID, d.NTrain, d.NHoldout, f(&d.CandidateRMSEDB), f(d.ServedRMSEDB), f(d.CandidateResidualRMSEDB), f(d.ServedResidualRMSEDB),
		d.DataProvenance, d.Reason)
}

func synthCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("model synth", stderr)
	n := fs.Int("n", 0, "number of observations (1 to 1000000)")
	seed := fs.Uint64("seed", 0, "generator seed")
	out := fs.String("out", "", "CSV file to write")
	artifact := fs.String("artifact", "", "also train the local ridge on the rows and write its artifact here")
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 || *out == "" || *n < 1 {
		fmt.Fprint(stderr, modelTrainingUsage)
		return fmt.Errorf("model synth: --n (at least 1) and --out are required: %w", errUsage)
	}
	ter, _, err := assemble.OpenTerrain(nil)
	if err != nil {
		return fmt.Errorf("model synth: %w", err)
	}
	defer ter.Close()
	reg, err := engines.New(engines.Config{})
	if err != nil {
		return fmt.Errorf("model synth: %w", err)
	}
	eng, err := reg.WithFallback(appliance.EngineHybrid)
	if err != nil {
		return fmt.Errorf("model synth: %w", err)
	}
	base := training.HybridBaseline(eng, ter)
	rows, err := training.Synthesize(ctx, base, training.RioSampleAreas, *n, *seed)
	if errors.Is(err, appliance.ErrInvalid) {
		return fmt.Errorf("model synth: %v: %w", err, errUsage)
	}
	if err != nil {
		return fmt.Errorf("model synth: %w", err)
	}
	var buf bytes.Buffer
	if err := training.WriteSynthCSV(&buf, rows); err != nil {
		return fmt.Errorf("model synth: %w", err)
	}
	if err := installFile(*out, buf.Bytes()); err != nil {
		return fmt.Errorf("model synth: %w", err)
	}
	fmt.Fprintf(stdout, "%d synthetic observations (seed %d, source synthetic, shadowing %g dB) written to %s\n", len(rows), *seed, training.SynthShadowingDB, *out)
	if *artifact == "" {
		return nil
	}
	gaz, err := catalog.EmbeddedGazetteer()
	if err != nil {
		return fmt.Errorf("model synth: %w", err)
	}
	feat := training.Features{Builder: &features.Builder{Terrain: ter}}
	c, err := training.BuildCorpus(ctx, feat, base, assemble.RegionAtOf(gaz), rows, len(rows), false, 0)
	if err != nil {
		return fmt.Errorf("model synth: %w", err)
	}
	a, err := assemble.Learners().TrainRidgeArtifact(c, time.Now(), 0)
	if err != nil {
		return fmt.Errorf("model synth: %w", err)
	}
	// The envelope is the rows' (training writes it: the hull of the
	// receivers over the Rio sample, the seven bands): the model answers
	// nowhere else, and its data_provenance denies any field accuracy.
	a.Envelope.Description = fmt.Sprintf("synthetic pipeline-validation data (%d rows, seed %d, hybrid baseline + 8 dB log-normal shadowing) "+
		"over the embedded Rio de Janeiro terrain sample; no field accuracy is claimed anywhere. ", len(rows), *seed) + a.Envelope.Description
	buf.Reset()
	if err := ml.WriteArtifact(&buf, a); err != nil {
		return fmt.Errorf("model synth: %w", err)
	}
	if err := installFile(*artifact, buf.Bytes()); err != nil {
		return fmt.Errorf("model synth: %w", err)
	}
	fmt.Fprintf(stdout, "ridge %s (schema %d, %d rows, data_provenance %s) cv_rmse_db=%.3f written to %s\n",
		a.ModelVersion, a.Schema.Version, a.NTrain, a.DataProvenance, a.CVRMSEDB, *artifact)
	return nil
}
