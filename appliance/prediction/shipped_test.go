package prediction_test

import (
	"context"
	"io/fs"
	"os"
	"testing"
	"testing/fstest"

	"linkplan/appliance/prediction"
	"linkplan/engines/ml/shipped"
)

// TestShippedModelsLoad: the models built into the binary load as a set
// (a file the serving side cannot serve fails here, not at boot), the
// real Dortmund model claims its grade inside its envelope only, and the
// synthetic ridge (when present) never claims field accuracy.
func TestShippedModelsLoad(t *testing.T) {
	check := func(t *testing.T, fsys fs.FS) {
		s := newService(t, opts{shipped: fsys})
		info, err := s.ModelInfo(pro)
		if err != nil {
			t.Fatal(err)
		}
		r := info.ResidualEngine
		if !r.Loaded || *r.ModelVersion != "drivetest-gbm-v2" || r.DataProvenance != "real" || r.Envelope == nil || len(r.Envelope.Areas) == 0 {
			t.Fatalf("shipped residual engine %+v", r)
		}
		p, err := s.Predict(context.Background(), pro, rioQuery())
		if err != nil {
			t.Fatal(err)
		}
		if p.Envelope == nil || p.Envelope.Inside {
			t.Fatalf("Rio must be outside the Dortmund envelope: %+v", p.Envelope)
		}
		if _, err := fs.Stat(fsys, prediction.ShippedRidge); err == nil {
			if info.LocalModel == nil || info.LocalModel.DataProvenance != "synthetic" || info.LocalModel.FieldAccuracyClaim {
				t.Fatalf("shipped ridge %+v", info.LocalModel)
			}
			if p.ModelSource != prediction.SourceLocal || p.FieldAccuracyClaim || p.AccuracyGrade != prediction.GradePipelineValidationOnly {
				t.Fatalf("Rio answered by %+v", p)
			}
		} else if p.ModelSource != prediction.SourcePhysics {
			t.Fatalf("without a shipped ridge Rio is physics: %+v", p)
		}
	}
	t.Run("as built", func(t *testing.T) { check(t, shipped.FS()) })
	// With the training side's synthetic ridge (set SHIPPED_RIDGE to its
	// file before the branches merge).
	if f := os.Getenv("SHIPPED_RIDGE"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := fs.ReadFile(shipped.FS(), prediction.ShippedResidual)
		if err != nil {
			t.Fatal(err)
		}
		t.Run("with the synthetic ridge", func(t *testing.T) {
			check(t, fstest.MapFS{prediction.ShippedRidge: {Data: b}, prediction.ShippedResidual: {Data: d}})
		})
	}
}
