package store_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/store"
)

func mustOpen(t testing.TB, dir string) *store.DB {
	t.Helper()
	db, err := store.Open(dir, store.Options{LockTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return db
}

func TestOpenMigratesAndLocks(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, dir)
	v, err := db.Version()
	if err != nil || v != store.SchemaVersion() {
		t.Fatalf("version = %d, %v; want %d", v, err, store.SchemaVersion())
	}
	if _, err := store.Open(dir, store.Options{LockTimeout: 100 * time.Millisecond}); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("second open: got %v, want ErrLocked", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = mustOpen(t, dir) // reopen after close keeps the version
	defer db.Close()
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
}

func TestKeys(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	k := &appliance.APIKey{ID: "abc123", HashHex: "ff00", Prefix: "lp_live_abcd", Tier: appliance.TierPro, Role: appliance.RoleTenant, TenantID: "t1", Email: "a@b.c"}
	if err := db.PutKey(k); err != nil {
		t.Fatal(err)
	}
	if err := db.PutKey(k); !errors.Is(err, appliance.ErrConflict) {
		t.Fatalf("duplicate: got %v", err)
	}
	got, err := db.KeyByHash("ff00")
	if err != nil || got.Tier != appliance.TierPro || got.Email != "a@b.c" || got.TenantID != "t1" {
		t.Fatalf("got %+v, %v", got, err)
	}
	if _, err := db.KeyByHash("nope"); !errors.Is(err, appliance.ErrNotFound) {
		t.Fatalf("missing: got %v", err)
	}
}

func TestUserTowersQuotaAndRoundTrip(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, dir)
	mk := func(id, owner string) *appliance.Tower {
		return &appliance.Tower{ID: id, Source: appliance.SourceUser, Operator: "WISP", Lat: -22.9, Lon: -43.2, HeightM: 25,
			ERPDBm: math.NaN(), AzimuthDeg: 120, TiltDeg: math.NaN(), OwnerKeyID: owner, Placement: appliance.PlacementSurveyed}
	}
	for _, tc := range []struct {
		name string
		t    *appliance.Tower
		max  int
		want error
	}{
		{"first", mk("user:1", "k1"), 2, nil},
		{"second", mk("user:2", "k1"), 2, nil},
		{"over cap", mk("user:3", "k1"), 2, appliance.ErrQuota},
		{"other owner", mk("user:4", "k2"), 2, nil},
		{"duplicate id", mk("user:1", "k2"), 2, appliance.ErrConflict},
		{"no cap", mk("user:5", "k1"), -1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := db.PutUserTower(tc.t, tc.max)
			if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	db.Close()
	db = mustOpen(t, dir)
	defer db.Close()
	towers, err := db.UserTowers()
	if err != nil || len(towers) != 4 {
		t.Fatalf("got %d towers, %v", len(towers), err)
	}
	if !math.IsNaN(towers[0].ERPDBm) || towers[0].AzimuthDeg != 120 || !math.IsNaN(towers[0].TiltDeg) {
		t.Fatalf("NaN/number fields did not round trip: %+v", towers[0])
	}
}

func TestAuditNewestFirst(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	for i, tenant := range []string{"a", "b", "a"} {
		if _, err := db.AppendAudit(appliance.AuditEntry{Action: "x", TenantID: tenant, Params: map[string]string{"i": string(rune('0' + i))}}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Audit("a", 10)
	if err != nil || len(got) != 2 || got[0].Seq != 3 || got[1].Seq != 1 || got[0].TimeUnix == 0 {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestAuditCommitsWithTheChange(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	tw := func(id string) *appliance.Tower {
		return &appliance.Tower{ID: id, Operator: "X", OwnerKeyID: "k", ERPDBm: math.NaN(), AzimuthDeg: math.NaN(), TiltDeg: math.NaN()}
	}
	e := appliance.AuditEntry{Action: "tower.register", TenantID: "t"}
	if err := db.PutUserTower(tw("user:1"), 1, e); err != nil {
		t.Fatal(err)
	}
	// Over the cap: neither the tower nor its audit entry is written.
	if err := db.PutUserTower(tw("user:2"), 1, e); !errors.Is(err, appliance.ErrQuota) {
		t.Fatalf("got %v", err)
	}
	k := &appliance.APIKey{ID: "id1", HashHex: "h1", TenantID: "t"}
	if err := db.PutKey(k, appliance.AuditEntry{Action: "admin.key.issue", TenantID: "t"}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutKey(k, appliance.AuditEntry{Action: "admin.key.issue", TenantID: "t"}); !errors.Is(err, appliance.ErrConflict) {
		t.Fatalf("got %v", err)
	}
	got, err := db.Audit("t", 0)
	if err != nil || len(got) != 2 || got[0].Action != "admin.key.issue" || got[1].Action != "tower.register" || got[1].TimeUnix == 0 {
		t.Fatalf("audit rows: %+v, %v", got, err)
	}
}

// TestTowerTxRoundTrip: a tower's transmitter power and gain (HasTx) are
// stored and read back; a tower without them reads back without them.
func TestTowerTxRoundTrip(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, dir)
	with := &appliance.Tower{ID: "user:tx", Source: appliance.SourceUser, Operator: "WISP", Lat: -22.9, Lon: -43.2, HeightM: 25,
		ERPDBm: 59.85, AzimuthDeg: math.NaN(), TiltDeg: math.NaN(), OwnerKeyID: "k", TxPowerDBm: 46, TxGainDBi: 16, HasTx: true}
	without := &appliance.Tower{ID: "user:none", Source: appliance.SourceUser, Operator: "WISP", Lat: -22.9, Lon: -43.2, HeightM: 25,
		ERPDBm: math.NaN(), AzimuthDeg: math.NaN(), TiltDeg: math.NaN(), OwnerKeyID: "k"}
	for _, tw := range []*appliance.Tower{with, without} {
		if err := db.PutUserTower(tw, -1); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	db = mustOpen(t, dir)
	defer db.Close()
	towers, err := db.UserTowers()
	if err != nil || len(towers) != 2 {
		t.Fatalf("got %d towers, %v", len(towers), err)
	}
	for _, tw := range towers {
		switch tw.ID {
		case "user:tx":
			if !tw.HasTx || tw.TxPowerDBm != 46 || tw.TxGainDBi != 16 {
				t.Errorf("%+v", tw)
			}
		case "user:none":
			if tw.HasTx || tw.TxPowerDBm != 0 || tw.TxGainDBi != 0 {
				t.Errorf("%+v", tw)
			}
		}
	}
}
