package coverage

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"

	"linkplan/appliance"
)

// prefixEngine wraps an engine with a PrefixSweeper that calls its Predict
// on a fresh copy of every used prefix: the sweep path must give the same
// raster as the per-sample path.
type prefixEngine struct {
	appliance.Engine
	sweeps  atomic.Int64
	version atomic.Value // the EngineVersion of its Predicts
}

func (e *prefixEngine) SweepVersion() string {
	v, _ := e.version.Load().(string)
	return v
}

func (e *prefixEngine) SweepLoss(ctx context.Context, in appliance.LinkInput, use []bool, lossDB []float64) error {
	e.sweeps.Add(1)
	p := in.Profile
	n := p.Len()
	if len(use) != n || len(lossDB) != n || use[0] {
		return errors.New("bad sweep arguments")
	}
	gc := in.Tx.GreatCircleTo(in.Rx)
	end := in.Rx
	for i := 1; i < n; i++ {
		if !use[i] {
			continue
		}
		pre := &appliance.PathProfile{DistancesM: append([]float64(nil), p.DistancesM[:i+1]...),
			HeightsM: append([]float64(nil), p.HeightsM[:i+1]...)}
		if p.Sea != nil {
			pre.Sea = append([]bool(nil), p.Sea[:i+1]...)
		}
		if p.VoidFilled != nil {
			pre.VoidFilled = append([]bool(nil), p.VoidFilled[:i+1]...)
		}
		q := in
		q.Profile, q.Rx = pre, SampleRx(&gc, end, i, n)
		pred, err := e.Predict(ctx, q)
		switch {
		case errors.Is(err, appliance.ErrOutsideEnvelope):
			lossDB[i] = math.NaN()
		case err != nil:
			return err
		default:
			lossDB[i] = pred.PathLossDB
			e.version.Store(pred.EngineVersion)
		}
	}
	return nil
}

func TestPrefixSweeperPath(t *testing.T) {
	_, ter, reg := newService(t)
	for _, id := range []appliance.EngineID{appliance.EngineFSPL, appliance.EngineP1812} {
		t.Run(string(id), func(t *testing.T) {
			eng, err := reg.Get(id)
			if err != nil {
				t.Fatal(err)
			}
			pe := &prefixEngine{Engine: eng}
			plain := New(ter, reg.Get)
			swept := New(ter, func(appliance.EngineID) (appliance.Engine, error) { return pe, nil })
			req := tijuca()
			req.Engine = id
			req.Tx = appliance.LatLon{Lat: -22.90, Lon: -43.05} // crosses into the missing S23W043
			req.RadiusM = 8000
			a, err := plain.Compute(context.Background(), req, Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			b, err := swept.Compute(context.Background(), req, Options{Workers: 3})
			if err != nil {
				t.Fatal(err)
			}
			if pe.sweeps.Load() == 0 {
				t.Fatal("SweepLoss never called")
			}
			for i := range a.Raster.DBm {
				if math.Float32bits(a.Raster.DBm[i]) != math.Float32bits(b.Raster.DBm[i]) {
					t.Fatalf("pixel %d: Predict path %v, sweep path %v", i, a.Raster.DBm[i], b.Raster.DBm[i])
				}
			}
			sa, sb := a.Summary, b.Summary
			if !summaryEqual(sa, sb) || sa.NoDataOutsideEnvelope != sb.NoDataOutsideEnvelope {
				t.Fatalf("summaries differ:\n%+v\n%+v", sa, sb)
			}
			t.Logf("%d sweeps, summary %+v", pe.sweeps.Load(), sb)
		})
	}
}
