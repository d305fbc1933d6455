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
	"linkplan/appliance/cmd/linkplan/assemble"
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
	// u-a1 radiates a catalogue antenna of its tenant, tilted.
	mine[0].AntennaID, mine[0].AzimuthDeg, mine[0].TiltDeg = "ant_00000000000000a1", 200, 3
	var h, v appliance.PatternCut
	for a := 0.0; a < 360; a += 5 {
		off := math.Min(a, 360-a)
		h.AnglesDeg, h.AttDB = append(h.AnglesDeg, a), append(h.AttDB, math.Min(12*(off/60)*(off/60), 25))
		v.AnglesDeg, v.AttDB = append(v.AnglesDeg, a), append(v.AttDB, math.Min(12*(off/8)*(off/8), 20))
	}
	ant := &appliance.Antenna{ID: mine[0].AntennaID, TenantID: "ta", Name: "Test sector", GainDBi: 17, Pattern: appliance.AntennaPattern{H: h, V: v}}
	ant.SetStats()
	cat := testCatalogue{ant}
	theirs := []*appliance.Tower{own("u-b1", "tb", -22.952, -43.211)}
	reg, err := engines.New(engines.Config{})
	if err != nil {
		t.Fatal(err)
	}
	all := spatial.New(append(append(append([]*appliance.Tower{}, public...), mine...), theirs...))
	appliancePlanner := planner.New(w.ter, func() appliance.TowerIndex { return all }, reg.WithFallback)
	appliancePlanner.Antennas = cat
	analyzer := w.runners[appliance.UnitBatchRows].(batch.RowsRunner).Analyzer(mine, cat)
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
	// Without the unit's antennas the worker would answer otherwise (the
	// generic antenna, with a warning): the case tests the antenna.
	if bare := run(w.runners[appliance.UnitBatchRows].(batch.RowsRunner).Analyzer(mine, nil)); bytes.Equal(bare, got) || !bytes.Contains(bare, []byte(appliance.WarnAntennaUnavailable)) {
		t.Fatal("the catalogue antenna changes nothing in the rows")
	}
	// The digests a worker computes are the appliance's for the same
	// inputs: the terrain and engines as boot computes them.
	in, err := assemble.NewInputSet(w.ter, reg, "", version())
	if err != nil {
		t.Fatal(err)
	}
	in.SetTowers(public)
	if m := in.Inputs().Mismatch(w.inputs.Inputs()); m != "" {
		t.Fatal(m)
	}
}

type nopQueue struct{}

func (nopQueue) Enqueue(context.Context, *appliance.Job) error { return nil }

// testCatalogue is an equipment catalogue of the antennas given.
type testCatalogue []*appliance.Antenna

func (c testCatalogue) Antenna(tenantID, id string) (*appliance.Antenna, error) {
	for _, a := range c {
		if a.ID == id && a.TenantID == tenantID {
			return a, nil
		}
	}
	return nil, appliance.ErrNotFound
}
