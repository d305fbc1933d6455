package calibration_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/calibration"
	"linkplan/appliance/tooltest"
	"linkplan/engines"
	"linkplan/engines/radio"
)

func flatPredictor(t *testing.T) *calibration.Predictor {
	t.Helper()
	reg, err := engines.New(engines.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return &calibration.Predictor{Engine: reg.WithFallback, Choose: reg.Choose}
}

// observations returns n observations of one transmitter at 1800 MHz on
// a line north of it, 200 m apart, measured at the free-space level plus
// (i mod 3 − 1)·3 dB, and one co-located row.
func observations(n int) []appliance.Observation {
	var obs []appliance.Observation
	for i := 0; i < n; i++ {
		rx := appliance.LatLon{Lat: -22.95 + float64(i+1)*0.0018, Lon: -43.2}
		d := rx.DistanceM(appliance.LatLon{Lat: -22.95, Lon: -43.2})
		fs := radio.FreeSpaceLossExactDB(1800, d/1000)
		obs = append(obs, appliance.Observation{ID: "o" + string(rune('a'+i)), TowerID: "=T1", TxLat: -22.95, TxLon: -43.2, TxHeightM: 30,
			TxPowerDBm: 43, RxLat: rx.Lat, RxLon: rx.Lon, RxHeightM: 1.5, FreqHz: 1800e6, ObservedDBm: 43 - fs + float64(i%3-1)*3})
	}
	obs = append(obs, appliance.Observation{ID: "same", TxLat: -22.95, TxLon: -43.2, RxLat: -22.95, RxLon: -43.2, FreqHz: 1800e6, ObservedDBm: -50})
	return obs
}

// TestReportStats: the report's statistics against a direct computation,
// and the predictions independent of the number of workers.
func TestReportStats(t *testing.T) {
	obs := observations(9)
	pr := flatPredictor(t)
	ids := []appliance.EngineID{appliance.EngineFSPL, appliance.EngineP1812}
	preds, errs, err := pr.Predict(context.Background(), obs, ids, 1)
	if err != nil {
		t.Fatal(err)
	}
	preds4, _, err := pr.Predict(context.Background(), obs, ids, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fmtPreds(preds), fmtPreds(preds4)) {
		t.Error("predictions depend on the number of workers")
	}
	rep, err := calibration.BuildReport(obs, preds, ids, errs)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Skipped[calibration.SkipCoLocated] != 1 || len(rep.Engines) != 2 {
		t.Fatalf("report %+v", rep)
	}
	fs := rep.Engines[0]
	// The residuals of fspl are −3, 0, +3 dB, three times each: RMSE √6,
	// bias 0, MAE 2, to the tenth of a dB (fspl's path is the slant line
	// between the antennas, 30 m and 1.5 m high: at 200 m, 0.09 dB more
	// loss than over the ground distance).
	if fs.N != 9 || math.Abs(fs.RMSEDB-math.Sqrt(6)) > 0.1 || math.Abs(fs.BiasDB) > 0.1 || math.Abs(fs.MAEDB-2) > 0.1 {
		t.Errorf("fspl stats %+v", fs.Stats)
	}
	if len(fs.ByBand) != 1 || fs.ByBand[0].Key != "1800MHz" || fs.ByBand[0].N != 9 {
		t.Errorf("by band %+v", fs.ByBand)
	}
	// 200 m steps: 0.2…1.8 km: bins 0-0.5 (2), 0.5-1 (2 or 3), 1-2.
	total := 0
	for _, g := range fs.ByDistance {
		total += g.N
	}
	if total != 9 || fs.ByDistance[0].Key != "0-0.5km" || fs.ByDistance[0].N != 2 {
		t.Errorf("by distance %+v", fs.ByDistance)
	}
	cells := 0
	for _, c := range fs.ByH3 {
		cells += c.N
	}
	if cells != 9 || len(fs.ByH3) < 2 {
		t.Errorf("by H3 %+v", fs.ByH3)
	}
}

func fmtPreds(ps []calibration.Prediction) string {
	b, _ := json.Marshal(ps)
	return string(b)
}

// TestReportBundle: the zip's report, CSV (spreadsheet-safe, warnings as
// closing comment rows) and maps, the maps read by GDAL's ogrinfo.
func TestReportBundle(t *testing.T) {
	obs := observations(6)
	pr := flatPredictor(t)
	ids := calibration.ReportEngines()
	preds, errs, err := pr.Predict(context.Background(), obs, ids, 2)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := calibration.BuildReport(obs, preds, ids, errs)
	if err != nil {
		t.Fatal(err)
	}
	rep.Warnings = append(rep.Warnings, appliance.Warning{Code: appliance.WarnMissingTerrain, Message: "test warning"})
	var buf bytes.Buffer
	if err := calibration.WriteBundle(&buf, rep, obs, preds, ids, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name] = b
		if err := os.WriteFile(filepath.Join(dir, f.Name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{calibration.BundleReport, calibration.BundleCSV, calibration.BundleGeoJSON, calibration.BundleKMZ} {
		if files[name] == nil {
			t.Fatalf("bundle lacks %s", name)
		}
	}
	var back calibration.Report
	if err := json.Unmarshal(files[calibration.BundleReport], &back); err != nil || len(back.Engines) != len(ids) {
		t.Fatalf("report.json: %v %+v", err, back)
	}
	if _, err := csv.NewReader(bytes.NewReader(files[calibration.BundleCSV])).ReadAll(); err == nil {
		t.Fatal("the warning row should have fewer fields than the header")
	}
	r := csv.NewReader(bytes.NewReader(files[calibration.BundleCSV]))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := len(rows); got != 1+len(obs)+1 {
		t.Fatalf("csv rows %d", got)
	}
	if rows[1][1] != "'=T1" {
		t.Errorf("tower id not spreadsheet-safe: %q", rows[1][1])
	}
	if last := rows[len(rows)-1][0]; !strings.HasPrefix(last, "# warning missing_terrain") {
		t.Errorf("last row %q", last)
	}
	tooltest.Need(t, "ogrinfo", "gdal-bin")
	for _, name := range []string{calibration.BundleGeoJSON, calibration.BundleKMZ} {
		out, err := exec.Command("ogrinfo", "-ro", "-al", "-so", filepath.Join(dir, name)).CombinedOutput()
		if err != nil {
			t.Fatalf("ogrinfo %s: %v\n%s", name, err, out)
		}
		if !strings.Contains(string(out), "Feature Count: 6") {
			t.Errorf("ogrinfo %s:\n%s", name, out)
		}
	}
	out, err := exec.Command("ogrinfo", "-ro", "-al", filepath.Join(dir, calibration.BundleGeoJSON)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "fspl_residual_db") || !strings.Contains(string(out), "missing_terrain") {
		t.Errorf("ogrinfo geojson: %v\n%.2000s", err, out)
	}
}
