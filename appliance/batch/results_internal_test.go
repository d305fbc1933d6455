package batch

import (
	"bytes"
	"encoding/csv"
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
			EngineVersion: "fspl-1", Status: StatusOK, Synthetic: true, PositionUncertaintyM: f(4700),
			Warnings: []appliance.Warning{{Code: appliance.WarnEIRPAssumed, Message: "an EIRP of 58.0 dBm was assumed"},
				{Code: appliance.WarnSyntheticTower, Message: "the tower is synthetic sample data | not real"}}},
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
	rows[0].Warnings[1].Message = "the tower is synthetic sample data / not real" // '|' is the separator
	if !reflect.DeepEqual(got, rows) {
		t.Fatalf("got %+v\nwant %+v", got, rows)
	}
	if _, err := ReadResults(bytes.NewReader([]byte("not a zip")), 9); !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("not a zip: %v", err)
	}
}

// TestReadResultsLegacyColumns: a bundle written before the caveat columns
// (synthetic, position_uncertainty_m, warning_messages) still reads, its
// warnings with codes only.
func TestReadResultsLegacyColumns(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(FileResultsCSV)
	if err != nil {
		t.Fatal(err)
	}
	rec := make([]string, len(legacyResultColumns()))
	rec[0], rec[21], rec[22] = "1", StatusOK, "eirp_assumed;synthetic_tower"
	cw := csv.NewWriter(w)
	_ = cw.Write(legacyResultColumns())
	_ = cw.Write(rec)
	cw.Flush()
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadResults(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	want := []appliance.Warning{{Code: "eirp_assumed"}, {Code: "synthetic_tower"}}
	if len(got) != 1 || !reflect.DeepEqual(got[0].Warnings, want) || got[0].Synthetic || got[0].PositionUncertaintyM != nil {
		t.Fatalf("got %+v", got)
	}
}
