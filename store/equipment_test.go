package store_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"

	"linkplan/appliance"
)

func testAntenna(tenant, id string) *appliance.Antenna {
	a := &appliance.Antenna{ID: id, TenantID: tenant, Name: "sector " + id, GainDBi: 17, Pattern: appliance.SectorPattern(65, 8, 25, 20, 2),
		Source: appliance.PatternSource{Format: "parametric", Model: "3gpp-sector"}, CreatedUnix: 100, UpdatedUnix: 100,
		Warnings: []appliance.Warning{{Code: "x", Message: "y"}}}
	a.SetStats()
	return a
}

// TestEquipmentRoundTripAndScope: records come back as stored, per
// tenant; a replacement keeps the creation time; deleting twice is a
// not-found.
func TestEquipmentRoundTripAndScope(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	r := &appliance.Radio{ID: "radio_1", TenantID: "t_a", Name: "r", Bands: []appliance.FreqRange{{MinMHz: 5000, MaxMHz: 6000}},
		Channels:    []appliance.RadioChannel{{WidthMHz: 20, Modes: []appliance.RadioMode{{Name: "m", TxPowerDBm: 20, SensitivityDBm: -90, ThroughputMbps: 10}}}},
		CreatedUnix: 5, UpdatedUnix: 5}
	if err := db.CreateRadio(r, 10); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateRadio(r, 10); !errors.Is(err, appliance.ErrConflict) {
		t.Errorf("second create: %v", err)
	}
	got, err := db.Radio("t_a", "radio_1")
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("got %+v %v", got, err)
	}
	if _, err := db.Radio("t_b", "radio_1"); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("another tenant reads it: %v", err)
	}
	upd := *r
	upd.Name, upd.CreatedUnix, upd.UpdatedUnix = "r2", 99, 9
	if err := db.ReplaceRadio(&upd); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Radio("t_a", "radio_1"); got.Name != "r2" || got.CreatedUnix != 5 || got.UpdatedUnix != 9 {
		t.Errorf("after replace: %+v", got)
	}
	ghost := upd
	ghost.TenantID = "t_b"
	if err := db.ReplaceRadio(&ghost); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("replace in another tenant: %v", err)
	}
	a := testAntenna("t_a", "ant_1")
	if err := db.CreateAntenna(a, 10); err != nil {
		t.Fatal(err)
	}
	ga, err := db.Antenna("t_a", "ant_1")
	if err != nil || !reflect.DeepEqual(ga, a) {
		t.Fatalf("antenna round trip: %v\n got %+v\nwant %+v", err, ga, a)
	}
	if l, _ := db.Antennas("t_b"); len(l) != 0 {
		t.Errorf("t_b lists %d antennas", len(l))
	}
	if l, _ := db.Radios("t_a"); len(l) != 1 {
		t.Errorf("t_a lists %d radios", len(l))
	}
	if err := db.DeleteRadio("t_b", "radio_1"); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("delete from another tenant: %v", err)
	}
	if err := db.DeleteRadio("t_a", "radio_1"); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteRadio("t_a", "radio_1"); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
}

// TestEquipmentCapUnderConcurrency: 20 concurrent creations against a
// cap of 7 store exactly 7; the rest get ErrQuota.
func TestEquipmentCapUnderConcurrency(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.CreateAntenna(testAntenna("t_a", fmt.Sprintf("ant_%02d", i)), 7)
		}()
	}
	wg.Wait()
	ok, quota := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, appliance.ErrQuota):
			quota++
		default:
			t.Errorf("unexpected %v", err)
		}
	}
	if ok != 7 || quota != 13 {
		t.Errorf("%d stored, %d refused; want 7 and 13", ok, quota)
	}
	// another tenant has its own count
	if err := db.CreateAntenna(testAntenna("t_b", "ant_x"), 1); err != nil {
		t.Errorf("t_b: %v", err)
	}
}

// TestDeleteMountedAntenna: an antenna a tower of its tenant mounts
// cannot be deleted (ErrConflict naming the tower); another tenant's
// tower naming the same id does not hold it.
func TestDeleteMountedAntenna(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	if err := db.CreateAntenna(testAntenna("t_a", "ant_1"), -1); err != nil {
		t.Fatal(err)
	}
	tw := &appliance.Tower{ID: "user:abc", Source: appliance.SourceUser, Operator: "x", Lat: -22.9, Lon: -43.2, HeightM: 30,
		ERPDBm: math.NaN(), AzimuthDeg: 90, TiltDeg: 4, BeamwidthDeg: math.NaN(), FrontBackDB: math.NaN(),
		AntennaID: "ant_1", OwnerKeyID: "k1", OwnerTenantID: "t_a"}
	if err := db.PutUserTower(tw, -1); err != nil {
		t.Fatal(err)
	}
	other := *tw
	other.ID, other.OwnerTenantID, other.OwnerKeyID = "user:def", "t_b", "k2"
	if err := db.PutUserTower(&other, -1); err != nil {
		t.Fatal(err)
	}
	err := db.DeleteAntenna("t_a", "ant_1")
	if !errors.Is(err, appliance.ErrConflict) || !strings.Contains(err.Error(), "user:abc") || strings.Contains(err.Error(), "user:def") {
		t.Fatalf("delete of a mounted antenna: %v", err)
	}
	towers, err := db.UserTowers()
	if err != nil || len(towers) != 2 || towers[0].AntennaID != "ant_1" || towers[0].TiltDeg != 4 || !math.IsNaN(towers[0].FrontBackDB) {
		t.Fatalf("towers %+v %v", towers, err)
	}
}
