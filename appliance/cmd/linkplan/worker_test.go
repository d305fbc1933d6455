package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/batch"
	"linkplan/appliance/planner"
	"linkplan/engines"
	"linkplan/store/spatial"
)

// TestWorkerTenantTowers: a worker holds the public towers only and gets
// a tenant's own towers with the tenant's units; its planner over the
// public index with the tenant's towers laid over it answers that
// tenant's rows as the appliance's planner over every tower (every
// tenant's own included) does, byte for byte, and another tenant's
// towers never reach it. Also: the worker's inputs have the appliance's
// digests (same sources, same engines).
func TestWorkerTenantTowers(t *testing.T) {
	ctx := context.Background()
	w, err := newWorkerInputs(ctx, t.TempDir(), nil, nil, "", time.Hour, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	public := w.index.InBox(appliance.BBox{MinLat: -90, MinLon: -180, MaxLat: 90, MaxLon: 180})
	if len(public) == 0 {
		t.Fatal("no public tower")
	}
	own := func(id, tenant string, lat, lon float64) *appliance.Tower {
		return &appliance.Tower{ID: id, Operator: "Própria", Lat: lat, Lon: lon, HeightM: 45, ERPDBm: math.NaN(), AzimuthDeg: math.NaN(),
			TiltDeg: math.NaN(), Source: appliance.SourceUser, OwnerTenantID: tenant, Placement: appliance.PlacementSurveyed}
	}
	mine := []*appliance.Tower{own("u-a1", "ta", -22.951, -43.21), own("u-a2", "ta", -22.90, -43.25)}
	theirs := []*appliance.Tower{own("u-b1", "tb", -22.952, -43.211)}
	reg, err := engines.New(engines.Config{})
	if err != nil {
		t.Fatal(err)
	}
	all := spatial.New(append(append(append([]*appliance.Tower{}, public...), mine...), theirs...))
	appliancePlanner := planner.New(w.ter, func() appliance.TowerIndex { return all }, reg.WithFallback)
	analyzer := w.runners[appliance.UnitBatchRows].(batch.RowsRunner).Analyzer(mine)
	f := func(v float64) *float64 { return &v }
	var rows []batch.Row
	for i := range 40 {
		rows = append(rows, batch.Row{Lat: f(-22.96 + 0.003*float64(i%8)), Lon: f(-43.26 + 0.01*float64(i/8)), FreqMHz: f(1800), MaxDistanceKm: f(10)})
	}
	run := func(a batch.LinkAnalyzer) []byte {
		s := batch.New(batch.Deps{Analyzer: a, Queue: nopQueue{}, Workers: 1})
		res, _, err := s.Submit(ctx, &appliance.APIKey{ID: "k", TenantID: "ta", Tier: appliance.TierPro}, rows, batch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		return b
	}
	want, got := run(appliancePlanner), run(analyzer)
	if !bytes.Equal(want, got) {
		t.Fatalf("worker rows differ from the appliance's:\n%s\nwant\n%s", got, want)
	}
	if !bytes.Contains(got, []byte(`"u-a1"`)) || bytes.Contains(got, []byte(`"u-b1"`)) {
		t.Fatalf("the tenant's own tower is not used, or another tenant's is: %s", got)
	}
	// The digests a worker computes are the appliance's for the same
	// inputs: the terrain and engines as boot computes them.
	in, err := newInputSet(w.ter, reg, "")
	if err != nil {
		t.Fatal(err)
	}
	in.setTowers(public)
	if m := in.Inputs().Mismatch(w.inputs.Inputs()); m != "" {
		t.Fatal(m)
	}
}

type nopQueue struct{}

func (nopQueue) Enqueue(context.Context, *appliance.Job) error { return nil }
