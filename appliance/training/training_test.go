package training_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/observations"
	"linkplan/appliance/training"
	"linkplan/engines/ml"
)

// TestConsentStates: the global retrain refuses an empty consented corpus
// with the consent message (SPEC §3), tells it apart from no
// observations at all, and leaves out the rows of a withdrawn source.
func TestConsentStates(t *testing.T) {
	ctx := context.Background()
	t.Run("no observations at all", func(t *testing.T) {
		e := newEnv(t)
		_, err := e.service(training.Options{}).Retrain(ctx, "job_a", "cli")
		if !errors.Is(err, training.ErrNoObservations) || errors.Is(err, training.ErrNoConsentedCorpus) || !errors.Is(err, appliance.ErrInvalid) {
			t.Fatalf("err %v; want ErrNoObservations", err)
		}
	})
	t.Run("all refused", func(t *testing.T) {
		e := newEnv(t)
		e.put(t, "t_a", synth(t, 300)[:30], appliance.ConsentRefused, "api")
		_, err := e.service(training.Options{}).Retrain(ctx, "job_a", "cli")
		if !errors.Is(err, training.ErrNoConsentedCorpus) || !errors.Is(err, appliance.ErrInvalid) ||
			!strings.Contains(err.Error(), "no observation is consented for training (30 stored, all refused): this is a consent state, not an empty dataset") {
			t.Fatalf("err %v; want the consent-state refusal", err)
		}
		if _, err := os.Stat(e.models); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a refused retrain wrote %s: %v", e.models, err)
		}
	})
	t.Run("withdrawn source excluded", func(t *testing.T) {
		e := newEnv(t)
		rows := synth(t, 300)
		e.put(t, "t_a", rows[:150], appliance.ConsentConsented, "drivetest_tems")
		e.put(t, "t_b", rows[150:], appliance.ConsentConsented, "api")
		entry := appliance.AuditEntry{Action: appliance.ActionObservationConsentWithdraw, Params: map[string]string{}}
		if _, err := e.db.StampConsent("drivetest_tems", appliance.ConsentRefused, entry); err != nil {
			t.Fatal(err)
		}
		// The api rows are attested as field measurements (only then are
		// they real data); the withdrawn source's attestation would not
		// matter: its rows are not in the corpus.
		if _, err := observations.AttestSource(e.db, "api", "measured by the test's field team", false, "operator:test", time.Now()); err != nil {
			t.Fatal(err)
		}
		out, err := e.service(training.Options{}).Retrain(ctx, "job_a", "cli")
		if err != nil {
			t.Fatal(err)
		}
		if out.Corpus.Stored != 300 || out.Corpus.Consented != 150 || out.Decision.NTrain+out.Decision.NHoldout != out.Corpus.Kept {
			t.Fatalf("corpus %+v, decision %+v; want 150 of 300 consented rows", out.Corpus, out.Decision)
		}
		if out.Decision.DataProvenance != "real" {
			t.Errorf("provenance %q of attested api rows, want real", out.Decision.DataProvenance)
		}
	})
}

// TestDataProvenance: only attested rows are real; a drivetest_ label
// alone is unknown (issue 20: 3,000 synthetic rows relabelled
// drivetest_synthgen were taken for real data).
func TestDataProvenance(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sources  []string
		attested []bool
		want     string
	}{
		{"none", nil, nil, "none"},
		{"synthetic", []string{"synthetic", "synthetic"}, nil, "synthetic"},
		{"attested drive test and api", []string{"drivetest_tems", "api", "drive_test"}, []bool{true, true, true}, "real"},
		{"unattested drive test labels", []string{"drivetest_synthgen", "drivetest_tems"}, []bool{false, false}, "unknown"},
		{"no attestation at all", []string{"drivetest_tems"}, nil, "unknown"},
		{"attested and unattested", []string{"drivetest_tems", "drivetest_synthgen"}, []bool{true, false}, "mixed"},
		{"attested and synthetic", []string{"api", "synthetic"}, []bool{true, false}, "mixed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := training.DataProvenance(tc.sources, tc.attested); got != tc.want {
				t.Fatalf("%q, want %q", got, tc.want)
			}
		})
	}
}

// corpus featurises n synthetic rows.
func corpus(t testing.TB, e *env, n int) *training.Corpus {
	t.Helper()
	c, err := training.BuildCorpus(context.Background(), e.feat, e.baseline, regionOf, synth(t, n), n, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// regionOf puts the city tile in SE and the interior tile in "" (no
// region), so that the Mondrian path sees both.
func regionOf(p appliance.LatLon) string {
	if p.Lat < -22 {
		return "SE"
	}
	return ""
}

// TestTrainingDeterministic: the candidate's artifacts are the same bytes
// whatever GOMAXPROCS and the worker count.
func TestTrainingDeterministic(t *testing.T) {
	e := newEnv(t)
	c := corpus(t, e, 600)
	if c.Schema.Version != 1 || len(c.Schema.Names) != 17 {
		t.Fatalf("schema %+v; want version 1 (the Rio sample has no land-cover layer)", c.Schema)
	}
	render := func(procs, workers int) map[string][]byte {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		cand, err := learners().TrainCandidate(c, e.now, workers)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]byte{}
		for name, a := range cand.Artifacts {
			var b bytes.Buffer
			if err := ml.WriteArtifact(&b, a); err != nil {
				t.Fatal(err)
			}
			out[name] = b.Bytes()
		}
		return out
	}
	a, b := render(1, 1), render(4, 4)
	if len(a) < 2 || a[training.FileRidge] == nil || a[training.FileResidual] == nil {
		t.Fatalf("artifacts %v; want ridge.json and residual.json", slices.Sorted(mapKeys(a)))
	}
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s differs between GOMAXPROCS 1 and 4", name)
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestCandidateContents checks the candidate against the contract: the
// ridge's SPEC §2.6 figures, a band model per band with enough rows, the
// residual GBM with its conformal band, synthetic provenance.
func TestCandidateContents(t *testing.T) {
	e := newEnv(t)
	c := corpus(t, e, 1500)
	cand, err := learners().TrainCandidate(c, e.now, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := cand.Artifacts[training.FileRidge]
	if r.ModelVersion != "ridge-v1" || r.DataProvenance != "synthetic" || r.CVFolds != 5 || r.NTrain != len(cand.Train) ||
		r.RMSEDB <= 0 || len(r.RMSEByMorphologyDB) == 0 || len(r.RMSEByBandDB) == 0 || r.Conformal == nil {
		t.Fatalf("ridge artifact %+v", r)
	}
	for k := range r.RMSEByBandDB {
		if !strings.HasSuffix(k, "MHz") {
			t.Errorf("rmse_by_band key %q", k)
		}
	}
	counts := map[int]int{}
	for _, i := range cand.Train {
		counts[c.Bands[i]]++
	}
	for band, n := range counts {
		a := cand.Artifacts[training.BandFile(band)]
		if (n >= training.MinBandRows) != (a != nil) {
			t.Errorf("band %d MHz with %d rows: band model %v (threshold %d)", band, n, a != nil, training.MinBandRows)
		}
		if a != nil && a.ModelVersion != training.BandVersion(band) {
			t.Errorf("band model version %q", a.ModelVersion)
		}
	}
	g := cand.Artifacts[training.FileResidual]
	if g.Kind != ml.KindGBM || g.ModelVersion != "residual-gbm-v1" || g.Conformal == nil || g.Conformal.Marginal.QAbsDB <= 0 {
		t.Fatalf("residual artifact %+v", g)
	}
	// The holdout is a fifth of the cells, disjoint from the training rows.
	cells := map[any]bool{}
	for _, i := range cand.Train {
		cells[c.Cells[i]] = true
	}
	for _, i := range cand.Holdout {
		if cells[c.Cells[i]] {
			t.Fatalf("holdout cell %v also trains", c.Cells[i])
		}
	}
	if f := float64(len(cand.Holdout)) / float64(c.N()); f < 0.1 || f > 0.3 {
		t.Errorf("holdout share %.2f", f)
	}
}

// TestPromotion: nothing served → promoted; the same corpus again (an
// equal candidate) → kept; a served model that is worse → promoted. Each
// decision is recorded once and audited.
func TestPromotion(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	e.put(t, "t_a", synth(t, 600), appliance.ConsentConsented, "synthetic")
	s := e.service(training.Options{})
	first, err := s.Retrain(ctx, training.RetrainJobID(0), "observations")
	if err != nil {
		t.Fatal(err)
	}
	if !first.Decision.Promoted || first.Decision.ServedRMSEDB != nil || !strings.Contains(first.Decision.Reason, "nothing comparable is served") {
		t.Fatalf("first decision %+v; want promoted, nothing served", first.Decision)
	}
	dir := training.ModelDir{Root: e.models}
	if dir.CurrentJob() != training.RetrainJobID(0) || e.reloads != 1 {
		t.Fatalf("current job %q, reloads %d", dir.CurrentJob(), e.reloads)
	}
	second, err := s.Retrain(ctx, training.RetrainJobID(1), "monitor")
	if err != nil {
		t.Fatal(err)
	}
	d := second.Decision
	if d.Promoted || d.ServedRMSEDB == nil || *d.ServedRMSEDB != d.CandidateRMSEDB || !strings.Contains(d.Reason, "not better") {
		t.Fatalf("second decision %+v; want kept (equal RMSE)", d)
	}
	if dir.CurrentJob() != training.RetrainJobID(0) || e.reloads != 1 {
		t.Fatalf("a kept candidate changed the served models: current %q, reloads %d", dir.CurrentJob(), e.reloads)
	}
	if _, err := os.Stat(dir.Staging(training.RetrainJobID(1))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("kept staging directory left: %v", err)
	}
	// Make the served ridge worse: every coefficient zero (it predicts the
	// mean); the next candidate beats it.
	p := filepath.Join(dir.Current(), training.FileRidge)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ml.ReadArtifact(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	clear(a.Ridge.Coef)
	for _, name := range []string{"ridge-700mhz.json", "ridge-850mhz.json", "ridge-900mhz.json", "ridge-1800mhz.json", "ridge-2100mhz.json", "ridge-2600mhz.json", "ridge-3500mhz.json"} {
		os.Remove(filepath.Join(dir.Current(), name))
	}
	var b bytes.Buffer
	if err := ml.WriteArtifact(&b, a); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	third, err := s.Retrain(ctx, training.RetrainJobID(2), "cli")
	if err != nil {
		t.Fatal(err)
	}
	d = third.Decision
	if !d.Promoted || d.ServedRMSEDB == nil || !(d.CandidateRMSEDB < *d.ServedRMSEDB) || dir.CurrentJob() != training.RetrainJobID(2) || e.reloads != 2 {
		t.Fatalf("third decision %+v, current %q; want promoted over the worse served model", d, dir.CurrentJob())
	}
	all, err := e.db.ModelDecisions()
	if err != nil || len(all) != 3 {
		t.Fatalf("decisions %d, %v", len(all), err)
	}
	es, err := e.db.Audit(appliance.SystemTenantID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, x := range es {
		actions = append(actions, x.Action)
	}
	slices.Reverse(actions)
	if want := []string{"model.promoted", "model.kept", "model.promoted"}; !slices.Equal(actions, want) {
		t.Fatalf("audit actions %v, want %v", actions, want)
	}
	st, _ := e.db.RetrainState()
	if st.Seq != 3 || st.LastJobID != training.RetrainJobID(2) {
		t.Fatalf("retrain state %+v", st)
	}
}

// TestDecide covers the promotion rule's boundaries.
func TestDecide(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	for _, tc := range []struct {
		name        string
		cand, serve training.Replay
		want        bool
	}{
		{"nothing served", training.Replay{N: 5, RMSEDB: v(9)}, training.Replay{N: 5}, true},
		{"better", training.Replay{N: 5, RMSEDB: v(7.99)}, training.Replay{N: 5, RMSEDB: v(8)}, true},
		{"equal", training.Replay{N: 5, RMSEDB: v(8)}, training.Replay{N: 5, RMSEDB: v(8)}, false},
		{"worse", training.Replay{N: 5, RMSEDB: v(8.01)}, training.Replay{N: 5, RMSEDB: v(8)}, false},
		{"better but the residual regresses", training.Replay{N: 5, RMSEDB: v(7), ResidualDB: v(6.1)}, training.Replay{N: 5, RMSEDB: v(8), ResidualDB: v(6)}, false},
		{"better, residual equal", training.Replay{N: 5, RMSEDB: v(7), ResidualDB: v(6)}, training.Replay{N: 5, RMSEDB: v(8), ResidualDB: v(6)}, true},
		{"better, no served residual", training.Replay{N: 5, RMSEDB: v(7), ResidualDB: v(6)}, training.Replay{N: 5, RMSEDB: v(8)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, reason := training.Decide(tc.cand, tc.serve)
			if got != tc.want || reason == "" {
				t.Fatalf("Decide = %v (%s), want %v", got, reason, tc.want)
			}
		})
	}
}
