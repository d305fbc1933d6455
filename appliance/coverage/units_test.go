package coverage

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/units"
)

// workerService is a second service on its own copy of the terrain and
// engines: what `linkplan worker` holds.
func workerService(t testing.TB) *Service { return New(rioTerrain(t), registry(t).Get) }

// splitUnits computes through the in-process executor with units of at
// most maxPx pixels, on a service of its own.
func splitUnits(t testing.TB, maxPx int) *Units {
	w := workerService(t)
	return &Units{Executor: &units.Local{Runners: units.Runners{appliance.UnitCoverageRadials: w}, Workers: 3},
		Unit: appliance.WorkUnit{JobID: "map1", Run: "r", TenantID: "ta", Tier: appliance.TierPro}, MaxPixels: maxPx}
}

func sameBits(t *testing.T, a, b []float32) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d pixels, want %d", len(b), len(a))
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			t.Fatalf("pixel %d: %v, want %v (bits %08x, %08x)", i, b[i], a[i], math.Float32bits(b[i]), math.Float32bits(a[i]))
		}
	}
}

// TestUnitsByteIdentical: a map computed as units on another service (as
// on a worker), in any split, is the local map bit for bit, with the same
// summary (counts, caveats, versions) and the same tiles in the same
// order; a best-server map too.
func TestUnitsByteIdentical(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	type tileEv struct {
		id       string
		valid    int
		min, max float64
	}
	summaryOf := func(s Summary) Summary { s.ElapsedMS = 0; return s }
	for _, tc := range []struct {
		name  string
		req   Request
		maxPx int
	}{
		{"fspl sector", tijuca(), 500},
		{"itm one radial a unit", func() Request { r := tijuca(); r.Engine = appliance.EngineITM; return r }(), 1},
		{"p1812 default units", func() Request { r := tijuca(); r.Engine = appliance.EngineP1812; return r }(), 0},
		{"missing terrain 30 km", func() Request { r := sumare(30000); r.ResolutionM = 250; return r }(), 2000},
		{"outside the envelope", func() Request { r := tijuca(); r.Engine = appliance.EngineP1812; r.RadiusM = 1500; return r }(), 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var localTiles, unitTiles []tileEv
			on := func(dst *[]tileEv) func(TileDone) {
				return func(td TileDone) { *dst = append(*dst, tileEv{td.Tile.ID, td.ValidPixels, td.MinDBm, td.MaxDBm}) }
			}
			want, err := svc.Compute(ctx, tc.req, Options{Workers: 2, OnTile: on(&localTiles)})
			if err != nil {
				t.Fatal(err)
			}
			got, err := svc.Compute(ctx, tc.req, Options{Workers: 2, OnTile: on(&unitTiles), Units: splitUnits(t, tc.maxPx)})
			if err != nil {
				t.Fatal(err)
			}
			sameBits(t, want.Raster.DBm, got.Raster.DBm)
			if tc.name == "missing terrain 30 km" && (want.Summary.NoDataMissingTerrain == 0 || len(want.Summary.MissingTiles) == 0) ||
				tc.name == "outside the envelope" && want.Summary.NoDataOutsideEnvelope == 0 {
				t.Fatalf("the case does not test what it says: %+v", want.Summary)
			}
			if !reflect.DeepEqual(summaryOf(want.Summary), summaryOf(got.Summary)) {
				t.Fatalf("summary\n%+v\nwant\n%+v", summaryOf(got.Summary), summaryOf(want.Summary))
			}
			if len(unitTiles) != len(localTiles) {
				t.Fatalf("%d tiles, want %d", len(unitTiles), len(localTiles))
			}
			for i := range localTiles {
				a, b := localTiles[i], unitTiles[i]
				if a.id != b.id || a.valid != b.valid || math.Float64bits(a.min) != math.Float64bits(b.min) || math.Float64bits(a.max) != math.Float64bits(b.max) {
					t.Fatalf("tile %d: %+v, want %+v", i, b, a)
				}
			}
		})
	}
	t.Run("best server", func(t *testing.T) {
		a, b := tijuca(), tijuca()
		b.Tx = appliance.LatLon{Lat: -22.95, Lon: -43.25}
		b.Engine = appliance.EngineITM
		want, err := svc.ComputeBest(ctx, []Request{a, b}, Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		got, err := svc.ComputeBest(ctx, []Request{a, b}, Options{Workers: 2, Units: splitUnits(t, 700)})
		if err != nil {
			t.Fatal(err)
		}
		sameBits(t, want.Raster.DBm, got.Raster.DBm)
		if !reflect.DeepEqual(want.Server, got.Server) || !reflect.DeepEqual(summaryOf(want.Summary), summaryOf(got.Summary)) {
			t.Fatal("best-server map differs")
		}
	})
}

// TestUnitsErrorsKeepTheirMeaning: a map every pixel of which the engine
// refuses fails through units with the local error, matching
// appliance.ErrOutsideEnvelope; a malformed unit is refused as invalid.
func TestUnitsErrorsKeepTheirMeaning(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	req := tijuca()
	req.Engine, req.FreqMHz = appliance.EngineP1812, 60000
	_, want := svc.Compute(ctx, req, Options{Workers: 2})
	_, got := svc.Compute(ctx, req, Options{Workers: 2, Units: splitUnits(t, 2000)})
	if want == nil || got == nil || want.Error() != got.Error() || !errors.Is(got, appliance.ErrOutsideEnvelope) {
		t.Fatalf("error %v, want %v", got, want)
	}
	w := workerService(t)
	for _, body := range [][]byte{nil, {9}, {radialsUnitVersion, 1, 2, 3}} {
		_, err := w.RunUnit(ctx, &appliance.WorkUnit{Kind: appliance.UnitCoverageRadials, Body: body})
		if !errors.Is(err, appliance.ErrInvalid) {
			t.Fatalf("body %v: %v, want invalid", body, err)
		}
	}
}

// FuzzRadialsUnit: no unit body stops a worker: each decodes or is
// refused as invalid.
func FuzzRadialsUnit(f *testing.F) {
	svc, _, _ := newService(f)
	req := tijuca()
	eng, _ := svc.engines(req.Engine)
	p := svc.newPlan(req, Options{Workers: 1}, eng, gridFor(req))
	f.Add(encodeRadialsUnit(p, []int{0, 1, 2}, nil))
	rad := appliance.NewGenericRadiator(appliance.GenericSector{VBeamwidthDeg: 5}, 90, 3)
	rb, _ := rad.MarshalBinary()
	f.Add(encodeRadialsUnit(p, []int{0}, rb))
	f.Add([]byte{radialsUnitVersion})
	w := New(rioTerrain(f), registry(f).Get)
	f.Fuzz(func(t *testing.T, body []byte) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // decoding only: a valid body stops at the first radial
		_, err := w.RunUnit(ctx, &appliance.WorkUnit{Kind: appliance.UnitCoverageRadials, Body: body})
		if err != nil && !errors.Is(err, appliance.ErrInvalid) && !errors.Is(err, context.Canceled) {
			t.Fatalf("%v", err)
		}
	})
}

// countingExecutor counts the units handed to its executor.
type countingExecutor struct {
	appliance.UnitExecutor
	n int
}

func (c *countingExecutor) Execute(ctx context.Context, us []appliance.WorkUnit, merge func(int, []byte) error) error {
	c.n += len(us)
	return c.UnitExecutor.Execute(ctx, us, merge)
}

// TestUnitsRadiatorByteIdentical: a request with a Radiator (a tilted
// generic sector, a catalogue pattern with tilt) goes out as units that
// carry the antenna, and the map is the local map bit for bit.
func TestUnitsRadiatorByteIdentical(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	var h, v appliance.PatternCut
	for a := 0.0; a < 360; a += 5 {
		off := math.Min(a, 360-a)
		h.AnglesDeg, h.AttDB = append(h.AnglesDeg, a), append(h.AttDB, math.Min(12*(off/60)*(off/60), 25))
		v.AnglesDeg, v.AttDB = append(v.AnglesDeg, a), append(v.AttDB, math.Min(12*(off/8)*(off/8), 20))
	}
	pat := &appliance.AntennaPattern{H: h, V: v}
	for _, tc := range []struct {
		name string
		rad  appliance.Radiator
	}{
		{"tilted generic sector", appliance.NewGenericRadiator(appliance.GenericSector{VBeamwidthDeg: 5}, 0, 3)},
		{"catalogue pattern, tilted", appliance.NewPatternRadiator(pat, 200, 4, "test pattern")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := tijuca()
			req.Radiator = &tc.rad
			want, err := svc.Compute(ctx, req, Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			plain := tijuca()
			flat, err := svc.Compute(ctx, plain, Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if slices.Equal(flat.Raster.DBm, want.Raster.DBm) {
				t.Fatal("the radiator changes nothing: the case tests nothing")
			}
			u := splitUnits(t, 500)
			ce := &countingExecutor{UnitExecutor: u.Executor}
			u.Executor = ce
			got, err := svc.Compute(ctx, req, Options{Workers: 2, Units: u})
			if err != nil {
				t.Fatal(err)
			}
			if ce.n == 0 {
				t.Fatal("no unit went out")
			}
			sameBits(t, want.Raster.DBm, got.Raster.DBm)
		})
	}
}
