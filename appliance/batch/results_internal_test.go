package batch

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/klauspost/compress/zip"

	"linkplan/appliance"
)

// TestReadResultsRoundTrip: what writeCSV writes, ReadResults reads back.
func TestReadResultsRoundTrip(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	rows := []RowResult{
		{Index: 0, Row: 1, ReceiverID: "s1, \"quoted\"", Lat: f(-22.95), Lon: f(-43.2), HeightM: f(10), FreqMHz: f(1800), MaxDistanceKm: f(15),
			RxGainDBi: f(15), CableLossDB: f(2), RxThresholdDBm: f(-95), AssumedEIRPDBm: f(58), TowerID: "anatel:1", Operator: "Claro",
			DistanceKm: f(2.5), AzimuthDeg: f(123.4), RxPowerDBm: f(-70.25), MarginDB: f(24.75), EIRPAssumed: true, Engine: "fspl",
			EngineVersion: "fspl-1", Status: StatusOK, Warnings: []string{"eirp_assumed", "synthetic_tower"}},
		{Index: 1, Row: 2, ReceiverID: "s2", Lat: f(-25.4), Lon: f(-49.2), Status: StatusNoTower, Reason: "no tower within 15 km"},
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(FileResultsCSV)
	if err != nil {
		t.Fatal(err)
	}
	if err := (&bundle{results: rows}).writeCSV(w); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadResults(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rows) {
		t.Fatalf("got %+v\nwant %+v", got, rows)
	}
	if _, err := ReadResults(bytes.NewReader([]byte("not a zip")), 9); !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("not a zip: %v", err)
	}
}
