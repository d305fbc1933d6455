package store_test

import (
	"errors"
	"fmt"
	"testing"

	"linkplan/appliance"
)

func obsRows(tenant string, n int, consent appliance.Consent, source string) ([]appliance.Observation, []string) {
	rows := make([]appliance.Observation, n)
	keys := make([]string, n)
	for i := range rows {
		rows[i] = appliance.Observation{ID: fmt.Sprintf("obs_%s_%s_%04d", tenant, source, i), TenantID: tenant, Source: source,
			Consent: consent, ObservedDBm: -80, FreqHz: 1.8e9}
		keys[i] = rows[i].ID
	}
	return rows, keys
}

// TestConsentGrantsAndCorpus checks the consent-grant counter (stored
// consented rows and --apply stamps count; refused rows, duplicates and
// withdrawals do not) and that ConsentedObservations yields exactly the
// consented rows of every tenant.
func TestConsentGrantsAndCorpus(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	put := func(tenant string, n int, c appliance.Consent, source string) {
		t.Helper()
		rows, keys := obsRows(tenant, n, c, source)
		if _, err := db.PutObservations(tenant, appliance.KindLinkObservation, rows, keys, nil); err != nil {
			t.Fatal(err)
		}
	}
	grants := func(want uint64) {
		t.Helper()
		if g, err := db.ConsentGrants(); err != nil || g != want {
			t.Fatalf("consent grants = %d, %v; want %d", g, err, want)
		}
	}
	consented := func(want int, wantStored int) {
		t.Helper()
		n := 0
		stored, err := db.ConsentedObservations(func(_ appliance.ObservationKind, o appliance.Observation) bool {
			if o.Consent != appliance.ConsentConsented {
				t.Errorf("row %s has consent %s", o.ID, o.Consent)
			}
			n++
			return true
		})
		if err != nil || n != want || stored != wantStored {
			t.Fatalf("consented rows = %d of %d stored, %v; want %d of %d", n, stored, err, want, wantStored)
		}
	}
	grants(0)
	put("t_a", 3, appliance.ConsentConsented, "api")
	put("t_b", 2, appliance.ConsentRefused, "drivetest_tems")
	put("t_a", 3, appliance.ConsentConsented, "api") // duplicates: not stored, not counted
	grants(3)
	consented(3, 5)
	entry := appliance.AuditEntry{Action: appliance.ActionObservationConsentApply, Params: map[string]string{}}
	if n, err := db.StampConsent("drivetest_tems", appliance.ConsentConsented, entry); err != nil || n != 2 {
		t.Fatalf("stamp = %d, %v", n, err)
	}
	grants(5)
	consented(5, 5)
	entry.Action = appliance.ActionObservationConsentWithdraw
	if _, err := db.StampConsent("api", appliance.ConsentRefused, entry); err != nil {
		t.Fatal(err)
	}
	grants(5) // a withdrawal does not undo a grant
	consented(2, 5)
	stops := 0
	if _, err := db.ConsentedObservations(func(appliance.ObservationKind, appliance.Observation) bool { stops++; return false }); err != nil || stops != 1 {
		t.Fatalf("early stop: %d calls, %v", stops, err)
	}
}

// TestModelDecisionRecordedOnce checks that a job's decision and its audit
// entry are written once, with the bookkeeping, whatever the re-runs.
func TestModelDecisionRecordedOnce(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	if _, err := db.ModelDecision("job_x"); !errors.Is(err, appliance.ErrNotFound) {
		t.Fatalf("missing decision: %v", err)
	}
	d := appliance.ModelDecision{JobID: "job_x", DecidedAtUnix: 1000, Promoted: true, Reason: "first", CandidateRMSEDB: 7}
	audit := appliance.AuditEntry{Action: appliance.ActionModelPromoted, TenantID: appliance.SystemTenantID}
	ok, got, err := db.PutModelDecision(&d, 1234, 4, audit)
	if err != nil || !ok || got.Reason != "first" {
		t.Fatalf("first put: %v %v %v", ok, got, err)
	}
	d2 := d
	d2.Reason, d2.Promoted = "second", false
	ok, got, err = db.PutModelDecision(&d2, 9999, 9, audit)
	if err != nil || ok || got.Reason != "first" || !got.Promoted {
		t.Fatalf("second put: %v %+v %v; want the first decision kept", ok, got, err)
	}
	st, err := db.RetrainState()
	if err != nil || st.GrantsAtLastTraining != 1234 || st.Seq != 4 || st.LastJobID != "job_x" || st.LastTrainedUnix != 1000 {
		t.Fatalf("state %+v, %v", st, err)
	}
	es, err := db.Audit(appliance.SystemTenantID, 0)
	if err != nil || len(es) != 1 || es[0].Action != appliance.ActionModelPromoted {
		t.Fatalf("audit %+v, %v; want one model.promoted", es, err)
	}
	all, err := db.ModelDecisions()
	if err != nil || len(all) != 1 {
		t.Fatalf("decisions %+v, %v", all, err)
	}
	st, err = db.UpdateRetrainState(func(s *appliance.RetrainState) bool { s.TriggeredAtGrants = 77; return true })
	if err != nil || st.TriggeredAtGrants != 77 || st.Seq != 4 {
		t.Fatalf("update: %+v %v", st, err)
	}
	if _, _, err := db.PutModelDecision(&appliance.ModelDecision{}, 0, 0); !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("empty job id: %v", err)
	}

}
