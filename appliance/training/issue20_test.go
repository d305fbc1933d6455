package training_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/observations"
	"linkplan/appliance/training"
	"linkplan/engines/ml"
)

// TestIssue20_RetrainedResidualEnvelope: issue 20, finding "a retrained
// residual model has no envelope: a 28 GHz query in Rio is answered as
// inside although its P.1812 baseline covers 30–6000 MHz". Every
// candidate artifact carries the envelope of its rows (the hull of its
// receivers, the bands of their frequencies), the residual engine also
// its baseline's validity: 28 GHz in Rio is refused with both reasons, a
// training receiver's place and band are inside, a point far outside the
// hull is refused. The residual engine also gets its band for unseen
// transmitters.
func TestIssue20_RetrainedResidualEnvelope(t *testing.T) {
	e := newEnv(t)
	c := corpus(t, e, 1500)
	c.BaselineValidity = &ml.EngineValidity{Engine: "p1812-p1411-hybrid", MinMHz: 30, MaxMHz: 6000}
	cand, err := learners().TrainCandidate(c, e.now, 0)
	if err != nil {
		t.Fatal(err)
	}
	for name, a := range cand.Artifacts {
		if a.Envelope == nil || len(a.Envelope.Hulls) != 1 || len(a.Envelope.Bands) == 0 || a.Attestation == nil || a.Attestation.SyntheticRows != a.NTrain {
			t.Fatalf("%s: envelope %+v attestation %+v", name, a.Envelope, a.Attestation)
		}
	}
	r := cand.Artifacts[training.FileResidual]
	o := c.Obs[cand.Train[0]]
	if ok, why := r.Envelope.Contains(o.RxLat, o.RxLon, o.FreqHz/1e6); !ok {
		t.Fatalf("a training row is outside: %s", why)
	}
	ok, why := r.Envelope.Contains(-22.92, -43.19, 28000)
	if ok || !strings.Contains(why, "frequency 28000 MHz is outside the validity of its baseline engine p1812-p1411-hybrid (30–6000 MHz)") ||
		!strings.Contains(why, "outside the calibrated bands") {
		t.Fatalf("28 GHz in Rio: inside %v, %q", ok, why)
	}
	if ok, why := r.Envelope.Contains(-15.79, -47.88, 1800); ok || !strings.Contains(why, "outside the area its training receivers cover") {
		t.Fatalf("Brasília: inside %v, %q", ok, why)
	}
	if r.Envelope.Validity == nil || cand.Artifacts[training.FileRidge].Envelope.Validity != nil {
		t.Fatal("the baseline validity belongs to the residual engine only")
	}
	u := r.Conformal.Unseen
	if u == nil || u.Band.QAbsDB < r.Conformal.Marginal.QAbsDB*0.9 || len(u.SeenTransmitters) == 0 || u.Groups[0].Basis != ml.BasisLeaveCellOut ||
		!u.Saw(o.TxLat, o.TxLon, o.FreqHz/1e6) || u.Saw(o.TxLat, o.TxLon, 28000) {
		t.Fatalf("unseen band %+v (ordinary %v)", u, r.Conformal.Marginal.QAbsDB)
	}
}

// TestIssue20_UnattestedLabelIsNotReal: issue 20, finding "any tenant
// label drivetest_* counts as real data: 3,000 rows from linkplan model
// synth labelled drivetest_synthgen were promoted by the automatic
// retrain, and the public /health/audit-gate then said
// field_accuracy_claimed". Without an attestation the retrain's data
// provenance is unknown (no claim); attested, the source's rows stored
// until then are real; rows stored after the attestation are not
// covered; a candidate that is not real data never replaces a served set
// that is.
func TestIssue20_UnattestedLabelIsNotReal(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	rows := synth(t, 3000)
	e.put(t, "t_a", rows[:2000], appliance.ConsentConsented, "drivetest_synthgen")
	svc := e.service(training.Options{})
	out, err := svc.Retrain(ctx, "job_a", "cli")
	if err != nil {
		t.Fatal(err)
	}
	if out.Decision.DataProvenance != "unknown" || !out.Decision.Promoted {
		t.Fatalf("unattested label: %+v; want promoted (nothing served) as unknown", out.Decision)
	}
	// The operator attests the source (the admin's word, audited), then a
	// later upload under the same label arrives.
	if _, err := observations.AttestSource(e.db, "drivetest_synthgen", "our own drive, tool serial 42", false, "operator:test", time.Now()); err != nil {
		t.Fatal(err)
	}
	out, err = svc.Retrain(ctx, "job_b", "cli")
	if err != nil {
		t.Fatal(err)
	}
	if out.Decision.DataProvenance != "real" || !out.Decision.Promoted || !strings.Contains(out.Decision.Reason, "attested real data") {
		t.Fatalf("attested rows: %+v; want the same model promoted as real", out.Decision)
	}
	later := make([]appliance.Observation, 1000)
	copy(later, rows[2000:])
	for i := range later {
		later[i].IngestedAt = float64(time.Now().Add(time.Hour).Unix())
	}
	e.put(t, "t_b", later, appliance.ConsentConsented, "drivetest_synthgen")
	out, err = svc.Retrain(ctx, "job_c", "cli")
	if err != nil {
		t.Fatal(err)
	}
	if out.Decision.DataProvenance != "mixed" || out.Decision.Promoted || !strings.Contains(out.Decision.Reason, "trained on attested real data") {
		t.Fatalf("rows stored after the attestation: %+v; want a mixed candidate kept out", out.Decision)
	}
}

// TestDecideAttestedServedSet: the promotion rule keeps a served set of
// real data against a better candidate that is not.
func TestDecideAttestedServedSet(t *testing.T) {
	v := func(f float64) *float64 { return &f }
	for _, tc := range []struct {
		name       string
		cand, serv string
		promoted   bool
	}{
		{"unknown over real", "unknown", "real", false},
		{"mixed over real", "mixed", "real", false},
		{"real over real", "real", "real", true},
		{"unknown over synthetic", "unknown", "synthetic", true},
		{"real, equal, over unknown", "real", "unknown", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			served := 9.0
			if tc.serv == "unknown" {
				served = 7
			}
			ok, why := training.Decide(training.Replay{Provenance: tc.cand, N: 10, RMSEDB: v(7)}, training.Replay{Provenance: tc.serv, N: 10, RMSEDB: v(served)})
			if ok != tc.promoted || why == "" {
				t.Fatalf("promoted %v (%s)", ok, why)
			}
		})
	}
}
