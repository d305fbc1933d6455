package prediction_test

import (
	"context"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/prediction"
	"linkplan/engines"
)

// BenchmarkPredictWithBand is one residual-engine prediction with its
// conformal band (features, hybrid baseline, GBM, Mondrian band, live
// class band). Goal (issue 11): at most 50 µs more than the physics
// baseline alone, BenchmarkPhysicsBaseline.
func BenchmarkPredictWithBand(b *testing.B) {
	s := newService(b, opts{models: fullSetB(b)})
	q := rioQuery()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		p, err := s.Predict(ctx, pro, q)
		if err != nil || p.Extra.Conformal == nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPhysicsBaseline is what the residual engine cannot avoid: the
// path profile and the p1812-p1411-hybrid prediction of the same link.
func BenchmarkPhysicsBaseline(b *testing.B) {
	ter := rio(b)
	reg, err := engines.New(engines.Config{})
	if err != nil {
		b.Fatal(err)
	}
	eng, err := reg.Get(appliance.EngineHybrid)
	if err != nil {
		b.Fatal(err)
	}
	q := rioQuery()
	tx, rx := appliance.LatLon{Lat: *q.TxLat, Lon: *q.TxLon}, appliance.LatLon{Lat: *q.RxLat, Lon: *q.RxLon}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		prof, err := ter.Profile(tx, rx, prediction.ProfileStepM)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := eng.Predict(ctx, appliance.LinkInput{Tx: tx, Rx: rx, TxHeightM: 30, RxHeightM: 1.5, FreqMHz: 1800, Profile: prof}); err != nil {
			b.Fatal(err)
		}
	}
}
