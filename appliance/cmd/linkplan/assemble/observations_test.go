package assemble

import (
	"context"
	"fmt"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/features"
	"linkplan/store"
)

// TestObservingStore: on a real store, only rows that were stored and are
// consented reach the live band, at most maxObservedPerSubmission of a
// submission, with the row's link and metric.
func TestObservingStore(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var seen []features.Link
	var metrics []string
	s := observingStore{Store: db, observe: func(_ context.Context, l features.Link, cable, obs float64, metric string) bool {
		seen, metrics = append(seen, l), append(metrics, metric)
		return true
	}}
	row := func(i int, c appliance.Consent) appliance.Observation {
		return appliance.Observation{ID: fmt.Sprintf("obs_%016x", i), TenantID: "t-a", SubmittedBy: "k", TxLat: -22.95, TxLon: -43.21, TxHeightM: 30,
			TxPowerDBm: 43, RxLat: -22.9 + float64(i)*1e-4, RxLon: -43.2, RxHeightM: 1.5, FreqHz: 1.8e9, ObservedDBm: -80, Source: "api",
			TsUnix: 1772366340, Consent: c, Weight: 0.1, Metric: "received_power"}
	}
	// One refused row, then a consented row stored before (a duplicate now).
	first := []appliance.Observation{row(0, appliance.ConsentConsented)}
	if _, err := db.PutObservations("t-a", appliance.KindLinkObservation, first, []string{"k0"}, make([]*appliance.DividendEvent, 1)); err != nil {
		t.Fatal(err)
	}
	rows := []appliance.Observation{row(1, appliance.ConsentRefused), row(0, appliance.ConsentConsented)}
	keys := []string{"k1", "k0"}
	for i := 2; i < 2+maxObservedPerSubmission+10; i++ {
		rows = append(rows, row(i, appliance.ConsentConsented))
		keys = append(keys, fmt.Sprintf("k%d", i))
	}
	stored, err := s.PutObservations("t-a", appliance.KindLinkObservation, rows, keys, make([]*appliance.DividendEvent, len(rows)))
	if err != nil {
		t.Fatal(err)
	}
	if stored[0] != true || stored[1] != false {
		t.Fatalf("stored %v…", stored[:2])
	}
	if len(seen) != maxObservedPerSubmission {
		t.Fatalf("%d rows observed, want %d", len(seen), maxObservedPerSubmission)
	}
	if seen[0].Rx.Lat != rows[2].RxLat || seen[0].FreqMHz != 1800 || seen[0].TxPowerDBm != 43 || metrics[0] != "received_power" {
		t.Fatalf("first observed link %+v (%s), want row 2's", seen[0], metrics[0])
	}
}
