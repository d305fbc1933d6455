package prediction_test

import (
	"context"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/prediction"
	"linkplan/engines/ml"
	"linkplan/engines/ml/shipped"
)

// TestIssue20_SyntheticModelConfidenceCapped: issue 20, finding "every
// Brazilian /coverage/predict answer comes from a model trained on
// synthetic data, reporting confidence 0.9, above p1812's 0.70". On the
// shipped set a Rio query is answered by the synthetic ridge: graded
// pipeline_validation_only, confidence at most the fspl fallback's 0.55,
// and a model_not_field_validated warning that names the provenance.
func TestIssue20_SyntheticModelConfidenceCapped(t *testing.T) {
	s := newService(t, opts{shipped: shipped.FS()})
	for _, model := range []string{"auto", "ridge"} {
		q := rioQuery()
		q.Model = &model
		p, err := s.Predict(context.Background(), pro, q)
		if err != nil {
			t.Fatal(err)
		}
		if p.ModelSource != prediction.SourceLocal || p.DataProvenance != "synthetic" || p.AccuracyGrade != prediction.GradePipelineValidationOnly ||
			p.FieldAccuracyClaim || p.Confidence > prediction.ConfidenceFSPL {
			t.Fatalf("model %s: %+v", model, p)
		}
		if len(p.Warnings) != 1 || p.Warnings[0].Code != appliance.WarnModelNotFieldValidated ||
			!strings.Contains(p.Warnings[0].Message, "trained on synthetic data") || !strings.Contains(p.Warnings[0].Message, "0.55") {
			t.Fatalf("model %s: warnings %+v", model, p.Warnings)
		}
	}
	// The physics answer has no such warning, and its confidence is 0.55.
	q := rioQuery()
	q.Model = ptr("physics")
	p, err := s.Predict(context.Background(), pro, q)
	if err != nil || len(p.Warnings) != 0 || p.Confidence != prediction.ConfidenceFSPL {
		t.Fatalf("physics: %+v %v", p, err)
	}
}

// TestIssue20_AttestationDecidesTheClaim: a residual engine trained on
// rows of an appliance-attested source claims field accuracy while the
// attestation stands; withdrawn (or unreadable), the same artifact is
// data_provenance unknown, pipeline_validation_only, capped and warned,
// and the audit gate says so.
func TestIssue20_AttestationDecidesTheClaim(t *testing.T) {
	a := residualArtifact(t, rioEnvelope())
	a.Attestation = &ml.Attestation{AttestedRows: a.NTrain, Sources: []ml.AttestedSource{{Source: "drivetest_tems", Basis: "field team",
		AttestedBy: "operator:test", AttestedAtUnix: 1795000000, Scope: ml.ScopeAppliance, Rows: a.NTrain}}}
	models := t.TempDir()
	writeSet(t, models, map[string]*ml.Artifact{prediction.FileResidual: a})
	withdrawnAt := 1795000500.0
	for _, tc := range []struct {
		name   string
		atts   func() ([]appliance.SourceAttestation, error)
		claim  bool
		status string
	}{
		{"standing", func() ([]appliance.SourceAttestation, error) {
			return []appliance.SourceAttestation{{Source: "drivetest_tems", Basis: "field team", AttestedAtUnix: 1795000000}}, nil
		}, true, prediction.AttestationAttested},
		{"withdrawn", func() ([]appliance.SourceAttestation, error) {
			return []appliance.SourceAttestation{{Source: "drivetest_tems", Basis: "field team", AttestedAtUnix: 1795000000, WithdrawnAtUnix: &withdrawnAt}}, nil
		}, false, prediction.AttestationWithdrawn},
		{"unreadable", nil, false, prediction.AttestationWithdrawn},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newService(t, opts{models: models, attestations: tc.atts})
			p, err := s.Predict(context.Background(), pro, rioQuery())
			if err != nil {
				t.Fatal(err)
			}
			if p.ModelSource != prediction.SourceResidual || p.FieldAccuracyClaim != tc.claim || (len(p.Warnings) == 0) != tc.claim ||
				(tc.claim && (p.Confidence != prediction.ConfidenceEmpirical || p.DataProvenance != "real")) ||
				(!tc.claim && (p.Confidence != prediction.ConfidenceFSPL || p.DataProvenance != "unknown" || !strings.Contains(p.Warnings[0].Message, "withdrawn"))) {
				t.Fatalf("answer %+v", p)
			}
			g := s.AuditGate()
			if g.FieldAccuracyClaim != tc.claim || g.Attestation.Status != tc.status || (g.Status == "field_accuracy_claimed") != tc.claim {
				t.Fatalf("audit gate %+v", g)
			}
		})
	}
}

// TestIssue20_ModelWithoutEnvelopeRefused: a model of an earlier build
// has no envelope and answers nowhere (a learned model never
// extrapolates); the next link answers and says why.
func TestIssue20_ModelWithoutEnvelopeRefused(t *testing.T) {
	a := residualArtifact(t, nil)
	r := ridgeArtifact(t, "ridge-v1", "synthetic", 9)
	r.Envelope = nil
	models := t.TempDir()
	writeSet(t, models, map[string]*ml.Artifact{prediction.FileResidual: a, prediction.FileRidge: r})
	s := newService(t, opts{models: models})
	p, err := s.Predict(context.Background(), pro, rioQuery())
	if err != nil {
		t.Fatal(err)
	}
	if p.ModelSource != prediction.SourcePhysics || p.Envelope == nil || p.Envelope.Inside || p.Envelope.Reason != prediction.NoEnvelopeReason ||
		p.FallbackReason == nil || strings.Count(*p.FallbackReason, "no calibrated envelope") != 2 {
		t.Fatalf("answer %+v (%v)", p, *p.FallbackReason)
	}
}

// TestIssue20_UnseenTransmitterBand: a query whose transmitter the
// residual engine never saw gets the band for unseen transmitters (when
// wider) and says so; a seen one gets the ordinary band.
func TestIssue20_UnseenTransmitterBand(t *testing.T) {
	a := residualArtifact(t, rioEnvelope())
	res := make([]float64, 400)
	units := make([]string, 400)
	for i := range res {
		res[i] = float64(i%40) - 20 // |r| up to 20 dB: wider than the ordinary band
		units[i] = string(rune('a' + i%10))
	}
	u, err := ml.FitUnseenBand([]ml.HeldOut{{Name: "cells", Basis: ml.BasisLeaveCellOut, Residuals: res, Units: units}},
		[]string{ml.TransmitterKey(-22.95, -43.21, 1800)}, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	a.Conformal.Unseen = &u
	models := t.TempDir()
	writeSet(t, models, map[string]*ml.Artifact{prediction.FileResidual: a})
	s := newService(t, opts{models: models})
	seen, err := s.Predict(context.Background(), pro, rioQuery())
	if err != nil {
		t.Fatal(err)
	}
	q := rioQuery()
	q.TxLat = ptr(-22.96)
	unseen, err := s.Predict(context.Background(), pro, q)
	if err != nil {
		t.Fatal(err)
	}
	cs, cu := seen.Extra.Conformal, unseen.Extra.Conformal
	if cs == nil || cu == nil || cs.Unseen || !cu.Unseen || cu.HalfWidthDB != u.Band.QAbsDB || cs.HalfWidthDB >= cu.HalfWidthDB {
		t.Fatalf("seen %+v, unseen %+v, unseen band %v", cs, cu, u.Band.QAbsDB)
	}
	info, err := s.ModelInfo(pro)
	if err != nil || info.ResidualEngine.Conformal.Unseen == nil || info.ResidualEngine.Conformal.Unseen.QAbsDB != u.Band.QAbsDB ||
		info.ResidualEngine.Conformal.Unseen.SeenTransmitters != 1 || s.ClaimReadiness().ServedBand.Unseen == nil {
		t.Fatalf("model info %+v %v", info.ResidualEngine.Conformal, err)
	}
}
