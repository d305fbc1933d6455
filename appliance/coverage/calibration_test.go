package coverage

import (
	"context"
	"math"
	"testing"

	"linkplan/appliance"
)

// TestCalibratedMap: a map with the tenant's calibration of its
// transmitter differs from the plain map, pixel by pixel, by exactly the
// calibration's correction at the pixel's centre (offset, distance slope
// and, inside the calibrated area, the local correction), its
// transmitter warns calibration_outside_area, and the map computed as work
// units (workers) is the same bit for bit.
func TestCalibratedMap(t *testing.T) {
	svc, _, _ := newService(t)
	req := tijuca()
	req.RadiusM = 2000
	plain, err := svc.Compute(context.Background(), req, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	// A cell of the site with an area of two 500 m squares north-east of it.
	x, y := appliance.CalibrationFrame(req.Tx, appliance.LatLon{Lat: req.Tx.Lat + 0.005, Lon: req.Tx.Lon + 0.005}, 500)
	cell := appliance.CellCalibration{Key: "tx:test@1800MHz", Tx: appliance.CalibrationPosition(req.Tx), BandMHz: 1800, OffsetDB: 6.5, SlopeDB: -2,
		N: 100, Applied: true, GridM: 500, Area: []appliance.CalibrationSquare{{X: x, Y: y, LocalDB: 3}, {X: x + 1, Y: y, LocalDB: -1}}}
	tc := &appliance.TenantCalibration{FittedAtUnix: 1.7e9, Engines: []appliance.EngineCalibration{{Engine: appliance.EngineFSPL, Applied: true, Cells: []appliance.CellCalibration{cell}}}}
	tc.Prepare()
	target := tc.For(appliance.EngineFSPL, "", req.Tx, req.FreqMHz)
	if target == nil {
		t.Fatal("no calibration for the site")
	}
	creq := req
	creq.Calibration = target
	creq.Transmitter.Calibration = MapCalibrationOf(target)
	cal, err := svc.Compute(context.Background(), creq, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	a, b := plain.Raster, cal.Raster
	inside, n := 0, 0
	for i := range a.DBm {
		if math.IsNaN(float64(a.DBm[i])) {
			if !math.IsNaN(float64(b.DBm[i])) {
				t.Fatalf("pixel %d: no data plain, %v calibrated", i, b.DBm[i])
			}
			continue
		}
		info := target.At(req.Tx, a.PixelCenter(i/a.Width, i%a.Width))
		if info.InsideArea {
			inside++
		}
		if d := float64(b.DBm[i]) - float64(a.DBm[i]); math.Abs(d-info.OffsetDB) > 1e-3 {
			t.Fatalf("pixel %d: calibrated − plain %.4f dB, correction %.4f dB", i, d, info.OffsetDB)
		}
		n++
	}
	if n == 0 || inside == 0 {
		t.Fatalf("%d pixels, %d inside the area", n, inside)
	}
	// Computed by workers (units), the calibrated map is the same, bit for
	// bit: the calibration is added where the map is owned.
	byUnits, err := svc.Compute(context.Background(), creq, Options{Workers: 2, Units: splitUnits(t, 4096)})
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, b.DBm, byUnits.Raster.DBm)
	ws := TransmitterWarnings([]Request{creq})
	found := false
	for _, w := range ws {
		found = found || w.Code == appliance.WarnCalibrationOutsideArea
	}
	if !found {
		t.Errorf("warnings %+v", ws)
	}
	if td := TransmittersData([]Request{creq}); td[0].Calibration == nil || td[0].Calibration.OffsetDB != 6.5 || td[0].Calibration.AreaSquares != 2 {
		t.Errorf("transmitter data %+v", td[0].Calibration)
	}
}
