package store_test

import (
	"errors"
	"testing"

	"linkplan/appliance"
)

// TestFinding6TOTPStepSurvivesReopen: the last accepted TOTP step of an
// admin key is stored, so a step is accepted once even across a restart, and
// a refused replay leaves its audit entry (issue 7, finding 6).
func TestFinding6TOTPStepSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, dir)
	replay := appliance.AuditEntry{Action: "admin.totp.replayed", ActorKey: "adm1", IP: "203.0.113.7", UserAgent: "ua", RequestID: "rid"}
	steps := []struct {
		name   string
		key    string
		step   uint64
		reopen bool // reopen the store before this step
		want   bool
	}{
		{name: "first use", key: "adm1", step: 100, want: true},
		{name: "same step", key: "adm1", step: 100, want: false},
		{name: "same step after reopen", key: "adm1", step: 100, reopen: true, want: false},
		{name: "earlier step after reopen", key: "adm1", step: 99, want: false},
		{name: "other key same step", key: "adm2", step: 100, want: true},
		{name: "next step", key: "adm1", step: 101, want: true},
		{name: "next step again after reopen", key: "adm1", step: 101, reopen: true, want: false},
	}
	refused := 0
	for _, tc := range steps {
		t.Run(tc.name, func(t *testing.T) {
			if tc.reopen {
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
				db = mustOpen(t, dir)
			}
			got, err := db.UseTOTPStep(tc.key, tc.step, replay)
			if err != nil || got != tc.want {
				t.Fatalf("UseTOTPStep(%s, %d) = %v, %v; want %v", tc.key, tc.step, got, err, tc.want)
			}
			if !got {
				refused++
			}
			es, err := db.Audit("", 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(es) != refused {
				t.Fatalf("%d audit entries after %d refusals", len(es), refused)
			}
			if refused > 0 && (es[0].Action != replay.Action || es[0].IP != replay.IP || es[0].TimeUnix == 0) {
				t.Errorf("replay entry %+v", es[0])
			}
		})
	}
	defer db.Close()
}

func TestFinding6SealKeyTOTP(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	k := &appliance.APIKey{ID: "adm000000001", HashHex: "aa11", Prefix: "lp_adm_aa", Tier: appliance.TierUltra, Role: appliance.RoleAdmin,
		TenantID: "admin", TOTPSecret: "JBSWY3DPEHPK3PXP", TOTPSealed: "v1.sealed"}
	if err := db.PutKey(k); err != nil {
		t.Fatal(err)
	}
	got, err := db.KeyByHash("aa11")
	if err != nil || got.TOTPSecret != "" || got.TOTPSealed != "v1.sealed" {
		t.Fatalf("PutKey stored clear %q sealed %q (%v); want only the sealed form", got.TOTPSecret, got.TOTPSealed, err)
	}
	if err := db.SealKeyTOTP("adm000000001", "v1.other", appliance.AuditEntry{Action: "admin.totp.sealed", ActorKey: k.ID}); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.KeyByHash("aa11"); got.TOTPSealed != "v1.other" || got.Tier != appliance.TierUltra || got.TenantID != "admin" {
		t.Errorf("after SealKeyTOTP: %+v", got)
	}
	if es, _ := db.Audit("", 0); len(es) != 1 || es[0].Action != "admin.totp.sealed" {
		t.Errorf("audit %+v", es)
	}
	if err := db.SealKeyTOTP("nope", "v1.x"); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("unknown key: %v", err)
	}
}
