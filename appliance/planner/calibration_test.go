package planner_test

import (
	"context"
	"math"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/fspl"
)

// calibrations serves one tenant's calibration (the calibration service's
// lookup, without the jobs).
type calibrations map[string]*appliance.TenantCalibration

func (c calibrations) Calibration(tenantID string) *appliance.TenantCalibration { return c[tenantID] }

// TestCalibrationRanksAndStaysWithItsTenant: the tenant's calibration of
// the tower behind the Tijuca massif (+60 dB: fspl puts a 40 dB obstruction loss on its path) moves its received level by
// exactly the offset and makes it the best tower for that tenant only,
// with the calibration on the result and the outside-area warning (the
// cell has no area); another tenant gets the plain ranking.
func TestCalibrationRanksAndStaysWithItsTenant(t *testing.T) {
	ter := rioTerrain(t)
	near := appliance.Tower{ID: "user:near", Operator: "A", Lat: -22.975, Lon: -43.23, HeightM: 30, ERPDBm: 55, AzimuthDeg: math.NaN(), TiltDeg: math.NaN()}
	behind := appliance.Tower{ID: "user:behind", Operator: "B", Lat: -22.925, Lon: -43.31, HeightM: 30, ERPDBm: 55, AzimuthDeg: math.NaN(), TiltDeg: math.NaN()}
	p := newPlanner(ter, []*appliance.Tower{&near, &behind}, fspl.New())
	tc := &appliance.TenantCalibration{TenantID: "t_a", FittedAtUnix: 1.7e9, Engines: []appliance.EngineCalibration{{Engine: appliance.EngineFSPL, Applied: true,
		Cells: []appliance.CellCalibration{{Key: "tower:user:behind@1800MHz", TowerID: "user:behind", Tx: appliance.CalibrationPosition{Lat: behind.Lat, Lon: behind.Lon},
			BandMHz: 1800, OffsetDB: 60, N: 500, CVRMSEBeforeDB: 12, CVRMSEAfterDB: 6, Applied: true}}}}}
	tc.Prepare()
	p.Calibrations = calibrations{"t_a": tc}
	req := request(-22.96, -43.21)
	req.TenantID = "t_b"
	plain, err := p.AnalyzeLink(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Best == nil || plain.Best.Tower.ID != "user:near" || plain.Best.Calibration != nil || len(plain.Alternatives) != 1 || plain.Alternatives[0].Calibration != nil {
		t.Fatalf("another tenant's answer: %+v", plain.Best)
	}
	req.TenantID = "t_a"
	cal, err := p.AnalyzeLink(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	b := cal.Best
	if b == nil || b.Tower.ID != "user:behind" || b.Calibration == nil || b.Calibration.OffsetDB != 60 || b.Calibration.InsideArea {
		t.Fatalf("calibrated best %+v; alternatives %+v; evaluated %d", b, cal.Alternatives, cal.Evaluated)
	}
	if d := b.RxPowerDBm - plain.Alternatives[0].RxPowerDBm; math.Abs(d-60) > 1e-9 {
		t.Errorf("rx power moved by %.6f dB, offset 60", d)
	}
	warned := false
	for _, w := range b.Warnings {
		warned = warned || w.Code == appliance.WarnCalibrationOutsideArea
	}
	if !warned {
		t.Errorf("warnings %+v", b.Warnings)
	}
	if len(cal.Alternatives) != 1 || cal.Alternatives[0].Calibration != nil {
		t.Errorf("the uncalibrated tower: %+v", cal.Alternatives)
	}
}
