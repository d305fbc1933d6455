//go:build systemtools

package main_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/observations"
	"linkplan/store"
)

// TestObservationsConsentCLI stamps one source's rows with the real binary
// on a real database: the named source only, audited with its basis; --all,
// wildcards, a missing basis or both modes are refused with exit code 2.
func TestObservationsConsentCLI(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	svc := observations.New(db, func(*appliance.APIKey, string) (*appliance.Tower, bool) { return nil, false }, observations.Config{Now: func() time.Time { return now }})
	k := &appliance.APIKey{ID: "k1", TenantID: "t1", Tier: appliance.TierPro, Role: appliance.RoleTenant}
	f := func(x float64) *float64 { return &x }
	for i, src := range []string{"drivetest_tems", "drivetest_tems", "drivetest_qualipoc"} {
		s := src
		in := observations.Input{TxLat: f(-22.95), TxLon: f(-43.23), TxHeightM: f(40), TxPowerDBm: f(43), TxGainDBi: f(15), RxGainDBi: f(0),
			CableLossDB: f(1), RxHeightM: f(1.5), RxLat: f(-22.9 + float64(i)*0.01), RxLon: f(-43.2), FreqMHz: f(700), ObservedDBm: f(-80),
			TsUnix: f(float64(now.Unix() - 60)), Source: &s}
		if _, err := svc.Submit(context.Background(), k, observations.Submission{Rows: []observations.Input{in}}, observations.Client{}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	for _, tc := range []struct {
		name string
		args []string
	}{
		{"--all refused", []string{"--all", "--basis", "x", "--apply"}},
		{"wildcard refused", []string{"--source", "drivetest_*", "--basis", "x", "--apply"}},
		{"basis required", []string{"--source", "drivetest_tems", "--apply"}},
		{"both modes refused", []string{"--source", "drivetest_tems", "--basis", "x", "--apply", "--withdraw"}},
		{"no mode refused", []string{"--source", "drivetest_tems", "--basis", "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, bin, append([]string{"observations", "consent", "--data-dir", dir}, tc.args...)...)
			if code != 2 {
				t.Fatalf("exit %d, want 2: %s", code, stderr)
			}
		})
	}
	out, stderr, code := runCLI(t, bin, "observations", "consent", "--data-dir", dir, "--source", "drivetest_tems",
		"--basis", "contrato 2026-11 cláusula 4", "--apply")
	if code != 0 || !strings.Contains(out, "2 observations of source drivetest_tems are now consented") {
		t.Fatalf("exit %d: %s %s", code, out, stderr)
	}
	db, err = store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	states := map[string]appliance.Consent{}
	_ = db.Observations("", appliance.KindLinkObservation, func(o appliance.Observation) bool {
		if prev, ok := states[o.Source]; ok && prev != o.Consent {
			t.Errorf("source %s mixed", o.Source)
		}
		states[o.Source] = o.Consent
		return true
	})
	if states["drivetest_tems"] != appliance.ConsentConsented || states["drivetest_qualipoc"] != appliance.ConsentRefused {
		t.Fatalf("states %v", states)
	}
	audit, _ := db.Audit("", 0)
	if len(audit) == 0 || audit[0].Action != observations.ActionConsentApply || audit[0].Params["basis"] != "contrato 2026-11 cláusula 4" ||
		audit[0].Params["rows"] != "2" || audit[0].Params["source"] != "drivetest_tems" {
		t.Fatalf("audit %+v", audit[0])
	}
}
