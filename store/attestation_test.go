package store_test

import (
	"errors"
	"fmt"
	"testing"

	"linkplan/appliance"
	"linkplan/store"
)

// TestSourceAttestations: an attestation counts the source's rows stored
// until then (both kinds, every tenant), is audited with its row count,
// reads back, and is withdrawn once; a second withdrawal finds none.
func TestSourceAttestations(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	put := func(tenant string, kind appliance.ObservationKind, source string, n int, ingested float64) {
		t.Helper()
		rows := make([]appliance.Observation, n)
		keys := make([]string, n)
		for i := range rows {
			id := fmt.Sprintf("obs_%s_%s_%d_%v", tenant, source, i, ingested)
			rows[i] = appliance.Observation{ID: id, TenantID: tenant, Source: source, IngestedAt: ingested, Consent: appliance.ConsentConsented}
			keys[i] = id
		}
		if _, err := db.PutObservations(tenant, kind, rows, keys, nil); err != nil {
			t.Fatal(err)
		}
	}
	put("t_a", appliance.KindLinkObservation, "drivetest_tems", 3, 100)
	put("t_b", appliance.KindCellSignalSample, "drivetest_tems", 2, 150)
	put("t_b", appliance.KindCellSignalSample, "drivetest_tems", 4, 300) // stored after the attestation
	put("t_a", appliance.KindLinkObservation, "api", 5, 100)
	a, err := db.AttestSource(appliance.SourceAttestation{Source: "drivetest_tems", Basis: "our field team", AttestedBy: "operator:x", AttestedAtUnix: 200},
		appliance.AuditEntry{Action: appliance.ActionObservationSourceAttest, Params: map[string]string{"source": "drivetest_tems"}})
	if err != nil || a.Rows != 5 || !a.Live() {
		t.Fatalf("attest: %+v %v", a, err)
	}
	all, err := db.SourceAttestations()
	if err != nil || len(all) != 1 || all[0] != a {
		t.Fatalf("read back %+v %v", all, err)
	}
	covered := 0
	for _, ing := range []float64{100, 150, 300} {
		if a.Covers(&appliance.Observation{Source: "drivetest_tems", IngestedAt: ing}) {
			covered++
		}
	}
	if covered != 2 || a.Covers(&appliance.Observation{Source: "api", IngestedAt: 100}) {
		t.Fatalf("covers %d of the three ingest times", covered)
	}
	at := 400.0
	w, err := db.AttestSource(appliance.SourceAttestation{Source: "drivetest_tems", WithdrawnAtUnix: &at, WithdrawnBy: "operator:y", WithdrawBasis: "vendor recalled the tool"},
		appliance.AuditEntry{Action: appliance.ActionObservationSourceWithdraw, Params: map[string]string{"source": "drivetest_tems"}})
	if err != nil || w.Live() || w.Basis != "our field team" || w.WithdrawBasis != "vendor recalled the tool" || w.Covers(&appliance.Observation{Source: "drivetest_tems", IngestedAt: 100}) {
		t.Fatalf("withdraw: %+v %v", w, err)
	}
	if _, err := db.AttestSource(appliance.SourceAttestation{Source: "drivetest_tems", WithdrawnAtUnix: &at},
		appliance.AuditEntry{Action: appliance.ActionObservationSourceWithdraw}); !errors.Is(err, appliance.ErrNotFound) {
		t.Fatalf("second withdrawal: %v", err)
	}
	if _, err := db.AttestSource(appliance.SourceAttestation{Source: "api", WithdrawnAtUnix: &at},
		appliance.AuditEntry{Action: appliance.ActionObservationSourceWithdraw}); !errors.Is(err, appliance.ErrNotFound) {
		t.Fatalf("withdrawal of a source never attested: %v", err)
	}
	entries, err := db.Audit("", 10)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range entries {
		actions = append(actions, e.Action+":"+e.Params["rows"])
	}
	if fmt.Sprint(actions) != "[observation.source.attest.withdraw:5 observation.source.attest:5]" {
		t.Fatalf("audit %v", actions)
	}
}
