package training_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/features"
	"linkplan/appliance/training"
)

// TestCorpusSkips: rows whose terrain is missing (never sea level), whose
// metric is RSRP, or whose link the features refuse are skipped and
// counted; the others are kept in store order.
func TestCorpusSkips(t *testing.T) {
	e := newEnv(t)
	rows := append([]appliance.Observation(nil), synth(t, 300)[:60]...)
	for i := 0; i < 4; i++ { // São Paulo: no tile in the Rio sample
		o := rows[i]
		o.ID, o.TxLat, o.TxLon, o.RxLat, o.RxLon = fmt.Sprintf("sp_%d", i), -23.55, -46.63, -23.56, -46.64
		rows = append(rows, o)
	}
	for i := 0; i < 3; i++ {
		o := rows[i]
		o.ID, o.Metric = fmt.Sprintf("rsrp_%d", i), "rsrp"
		rows = append(rows, o)
	}
	for i := 0; i < 2; i++ {
		o := rows[i]
		o.ID, o.TxPowerDBm = fmt.Sprintf("bad_%d", i), 95
		rows = append(rows, o)
	}
	c, err := training.BuildCorpus(context.Background(), e.feat, e.baseline, regionOf, rows, 100, false, 3)
	if err != nil {
		t.Fatal(err)
	}
	if c.N() != 60 || c.SkippedTerrain != 4 || c.SkippedMetric != 3 || c.SkippedInvalid != 2 || c.Consented != len(rows) || c.Stored != 100 {
		t.Fatalf("kept %d, skipped terrain %d, metric %d, invalid %d; want 60, 4, 3, 2", c.N(), c.SkippedTerrain, c.SkippedMetric, c.SkippedInvalid)
	}
	for i, o := range c.Obs {
		if o.ID != rows[i].ID || c.Y[i] != o.ObservedDBm || len(c.X[i]) != 17 || c.Bands[i] != features.SnapBandMHz(o.FreqHz/1e6) {
			t.Fatalf("row %d: %s, y %v, %d features", i, o.ID, c.Y[i], len(c.X[i]))
		}
	}
}

// TestCorpusRowPanic: a row whose featurisation panics (on a worker
// goroutine) fails the build with the row's id and an internal error; the
// process goes on (issue 20).
func TestCorpusRowPanic(t *testing.T) {
	e := newEnv(t)
	rows := append([]appliance.Observation(nil), synth(t, 300)[:20]...)
	poison := rows[7].ID
	base := func(ctx context.Context, o *appliance.Observation) (float64, error) {
		if o.ID == poison {
			var m map[string]float64
			//lint:ignore SA5000 the panic is the point
			m[o.ID] = 1 // a nil map write panics
		}
		return e.baseline(ctx, o)
	}
	_, err := training.BuildCorpus(context.Background(), e.feat, base, regionOf, rows, len(rows), false, 3)
	var pe *appliance.PanicError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "row "+poison+": internal error") {
		t.Fatalf("err %v, want the row's internal error", err)
	}
}

// landCover is a land-cover map for the schema-2 path: Urban south of
// 22° S (the city tile), no layer elsewhere.
type landCover struct{}

func (landCover) ClutterAt(p appliance.LatLon) (appliance.ClutterInfo, error) {
	if p.Lat < -22 {
		return appliance.ClutterInfo{Class: 6, Label: "Urban"}, nil
	}
	return appliance.ClutterInfo{}, fmt.Errorf("no land-cover layer here: %w", appliance.ErrUnavailable)
}

// TestCorpusSchemaVersion: with a land-cover layer the corpus uses the 27
// features when every receiver has a class, and falls back to the 17 as a
// whole when one has none.
func TestCorpusSchemaVersion(t *testing.T) {
	feat := training.Features{Builder: &features.Builder{Terrain: rio(t), Clutter: landCover{}}}
	var city []appliance.Observation
	all := synth(t, 300)
	for _, o := range all {
		if o.RxLat < -22 {
			city = append(city, o)
		}
	}
	for _, tc := range []struct {
		name    string
		rows    []appliance.Observation
		clutter bool
		want    int
	}{
		{"every receiver classified", city, true, 27},
		{"one receiver without a class", all, true, 17},
		{"no land-cover layer", city, false, 17},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := training.BuildCorpus(context.Background(), feat, hybrid(t), regionOf, tc.rows, len(tc.rows), tc.clutter, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Schema.Names) != tc.want || len(c.X[0]) != tc.want || c.N() != len(tc.rows) {
				t.Fatalf("schema %d with %d names, rows %d of %d", c.Schema.Version, len(c.Schema.Names), c.N(), len(tc.rows))
			}
		})
	}
}

// TestReplayAgainstShipped: with no current directory the served models
// are the shipped ones (the synthetic pipeline-validation ridge of
// engines/ml/shipped), and the candidate is compared with them.
func TestReplayAgainstShipped(t *testing.T) {
	e := newEnv(t)
	e.put(t, "t_a", synth(t, 600), appliance.ConsentConsented, "synthetic")
	out, err := e.service(training.Options{Shipped: os.DirFS("../../engines/ml/shipped")}).Retrain(context.Background(), "job_a", "cli")
	if err != nil {
		t.Fatal(err)
	}
	d := out.Decision
	if d.ServedRMSEDB == nil || *d.ServedRMSEDB <= 0 || d.ServedResidualRMSEDB != nil {
		t.Fatalf("decision %+v; want the shipped ridge replayed (and no residual engine of this schema)", d)
	}
	t.Logf("candidate %.3f dB, shipped synthetic ridge %.3f dB on %d holdout rows: promoted %v", d.CandidateRMSEDB, *d.ServedRMSEDB, d.NHoldout, d.Promoted)
}
