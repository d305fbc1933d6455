package batch_test

import (
	"bytes"
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/batch"
	"linkplan/appliance/units"
)

// TestUnitsGiveIdenticalBundle: a batch job whose rows run as units on
// another planner (the worker's: its own terrain, towers and engines)
// commits the same items, byte for byte, and writes the same bundle as
// the job analysed in the process; each item is written once.
func TestUnitsGiveIdenticalBundle(t *testing.T) {
	rows, err := batch.ParseCSV(strings.NewReader(rioCSV(600)), batch.Limit(appliance.TierUltra))
	if err != nil {
		t.Fatal(err)
	}
	opt := batch.DefaultOptions()
	opt.PDFs = false
	local := batch.New(batch.Deps{Analyzer: realPlanner(t), Queue: &fakeQueue{}, Workers: 2, Terrain: "rio"})
	_, job, err := local.Submit(context.Background(), proKey(), rows, opt)
	if err != nil || job == nil {
		t.Fatalf("submit: %v", err)
	}
	ref := newFakeRun(job)
	if _, err := local.Handler().Run(context.Background(), ref); err != nil {
		t.Fatal(err)
	}
	worker := realPlanner(t)
	calls := 0
	ex := &units.Local{Workers: 1, Runners: units.Runners{appliance.UnitBatchRows: batch.RowsRunner{
		Analyzer: func([]*appliance.Tower, appliance.AntennaCatalogue) batch.LinkAnalyzer { calls++; return worker }, Workers: 2}}}
	split := batch.New(batch.Deps{Analyzer: realPlanner(t), Workers: 2, Terrain: "rio", Units: ex,
		Inputs: func() appliance.Inputs { return appliance.Inputs{"towers": "x"} }})
	run := newFakeRun(job)
	if _, err := split.Handler().Run(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	if want := (len(rows) + batch.UnitRows - 1) / batch.UnitRows; calls != want {
		t.Fatalf("%d units ran, want %d", calls, want)
	}
	if len(run.items) != len(ref.items) || len(run.items) != len(rows) {
		t.Fatalf("%d items, want %d", len(run.items), len(ref.items))
	}
	for i, want := range ref.items {
		if !bytes.Equal(run.items[i], want) {
			t.Fatalf("item %d:\n%s\nwant\n%s", i, run.items[i], want)
		}
		if run.writes[i] != 1 {
			t.Fatalf("item %d written %d times", i, run.writes[i])
		}
	}
	if !bytes.Equal(run.result.Bytes(), ref.result.Bytes()) {
		t.Fatal("the bundle differs")
	}
}

// catalogue is an equipment catalogue of the antennas given.
type catalogue []*appliance.Antenna

func (c catalogue) Antenna(tenantID, id string) (*appliance.Antenna, error) {
	for _, a := range c {
		if a.ID == id && a.TenantID == tenantID {
			return a, nil
		}
	}
	return nil, appliance.ErrNotFound
}

// TestUnitsCatalogueAntennas: the catalogue antennas a tenant's towers
// name travel with its units (encoded and decoded as a worker does) and
// the worker's analyzer reads them from the unit, the same antenna;
// without a catalogue to read them from, the job sends no unit and
// analyses every row itself.
func TestUnitsCatalogueAntennas(t *testing.T) {
	rows, err := batch.ParseCSV(strings.NewReader(rioCSV(300)), batch.Limit(appliance.TierUltra))
	if err != nil {
		t.Fatal(err)
	}
	opt := batch.DefaultOptions()
	opt.PDFs = false
	var h appliance.PatternCut
	for a := 0.0; a < 360; a += 10 {
		h.AnglesDeg, h.AttDB = append(h.AnglesDeg, a), append(h.AttDB, math.Min(a, 360-a)/10)
	}
	ant := &appliance.Antenna{ID: "ant_0123456789abcdef", TenantID: proKey().TenantID, Name: "Test", GainDBi: 15, Pattern: appliance.AntennaPattern{H: h, V: h}}
	calls, seen := 0, 0
	worker := realPlanner(t)
	ex := &units.Local{Workers: 1, Runners: units.Runners{appliance.UnitBatchRows: batch.RowsRunner{
		Analyzer: func(_ []*appliance.Tower, cat appliance.AntennaCatalogue) batch.LinkAnalyzer {
			calls++
			if a, err := cat.Antenna(ant.TenantID, ant.ID); err == nil && a.Name == ant.Name && reflect.DeepEqual(a.Pattern, ant.Pattern) {
				seen++
			}
			return worker
		}, Workers: 1}}}
	for _, tc := range []struct {
		name      string
		antennaID string
		cat       appliance.AntennaCatalogue
		wantUnits bool
		wantSeen  bool
	}{
		{"generic antenna: units", "", nil, true, false},
		{"catalogue antenna: units carry it", ant.ID, catalogue{ant}, true, true},
		{"catalogue antenna, no catalogue: here", ant.ID, nil, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls, seen = 0, 0
			towers := func(context.Context, string) ([]*appliance.Tower, error) {
				return []*appliance.Tower{{ID: "u1", Lat: -22.95, Lon: -43.2, AntennaID: tc.antennaID, OwnerTenantID: ant.TenantID}}, nil
			}
			split := batch.New(batch.Deps{Analyzer: realPlanner(t), Queue: &fakeQueue{}, Workers: 1, Terrain: "rio"})
			split.UseUnits(ex, func() appliance.Inputs { return appliance.Inputs{} }, towers, tc.cat)
			_, job, err := split.Submit(context.Background(), proKey(), rows, opt)
			if err != nil || job == nil {
				t.Fatalf("submit: %v", err)
			}
			run := newFakeRun(job)
			if _, err := split.Handler().Run(context.Background(), run); err != nil {
				t.Fatal(err)
			}
			if (calls > 0) != tc.wantUnits || (seen == calls && calls > 0) != tc.wantSeen || len(run.items) != len(rows) {
				t.Fatalf("%d units ran, %d with the antenna, %d items of %d rows", calls, seen, len(run.items), len(rows))
			}
		})
	}
}
