package registry_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/registry"
	"linkplan/store"
)

func ptr[T any](v T) *T { return &v }

func TestRegister(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var live []*appliance.Tower
	now := time.Unix(1_790_000_000, 0)
	reg := registry.New(db, func(t *appliance.Tower) { live = append(live, t) }, func() time.Time { return now })
	free := &appliance.APIKey{ID: "k_free", TenantID: "t_free", Tier: appliance.TierFree, Role: appliance.RoleTenant, Email: "f@x.y"}
	admin := &appliance.APIKey{ID: "k_adm", TenantID: "admin", Tier: appliance.TierFree, Role: appliance.RoleAdmin}
	good := registry.Input{Operator: ptr(" Vivo "), Lat: ptr(-22.9), Lon: ptr(-43.2), Azimuth: ptr(360.0), StationNumber: ptr("ERB-1A")}
	client := registry.Client{IP: "192.0.2.1", UserAgent: "ua", RequestID: "rid"}
	tests := []struct {
		name   string
		key    *appliance.APIKey
		in     registry.Input
		want   error
		fields []string
	}{
		{name: "valid", key: free, in: good},
		{name: "nothing", key: free, in: registry.Input{}, want: appliance.ErrInvalid, fields: []string{"operator", "lat", "lon"}},
		{name: "every range", key: free, in: registry.Input{Operator: ptr(strings.Repeat("x", 65)), Lat: ptr(91.0), Lon: ptr(-181.0),
			Height: ptr(0.1), Power: ptr(101.0), Azimuth: ptr(361.0), Tilt: ptr(-91.0), StationNumber: ptr(strings.Repeat("9", 33)),
			Technologies: []string{""}, BandsMHz: []float64{0.5}}, want: appliance.ErrInvalid,
			fields: []string{"operator", "lat", "lon", "height_m", "power", "azimuth", "tilt", "station_number", "technologies[0]", "bands_mhz[0]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tw, err := reg.Register(context.Background(), tc.key, tc.in, client)
			if tc.want != nil {
				var ve *appliance.ValidationError
				if !errors.Is(err, tc.want) || !errors.As(err, &ve) {
					t.Fatalf("err %v, want %v", err, tc.want)
				}
				var got []string
				for _, f := range ve.Fields {
					got = append(got, f.Field)
				}
				if strings.Join(got, ",") != strings.Join(tc.fields, ",") {
					t.Errorf("fields %v, want %v", got, tc.fields)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(tw.ID, "user:") || tw.Operator != "Vivo" || tw.AzimuthDeg != 0 || tw.OwnerTenantID != "t_free" || tw.UpdatedUnix != now.Unix() ||
				tw.Provenance != registry.ProvenanceRegistered {
				t.Errorf("tower %+v", tw)
			}
		})
	}
	if len(live) != 1 {
		t.Fatalf("live index got %d towers, want 1 (only committed ones)", len(live))
	}
	es, _ := db.Audit("t_free", 0)
	if len(es) != 1 || es[0].Action != "tower.register" || es[0].IP != "192.0.2.1" || es[0].RequestID != "rid" || es[0].Params["tower_id"] != live[0].ID {
		t.Errorf("audit %+v", es)
	}
	// The Free cap (20 per key) is enforced; admin keys have none.
	for i := 1; i < appliance.TierFree.TowersPerKey(); i++ {
		if _, err := reg.Register(context.Background(), free, good, client); err != nil {
			t.Fatalf("registration %d: %v", i, err)
		}
	}
	if _, err := reg.Register(context.Background(), free, good, client); !errors.Is(err, appliance.ErrQuota) || !strings.HasPrefix(err.Error(), "register tower: ") {
		t.Fatalf("over the cap: %v, want ErrQuota wrapped with the operation", err)
	}
	if len(live) != appliance.TierFree.TowersPerKey() {
		t.Errorf("refused registration reached the live index: %d", len(live))
	}
	for range appliance.TierFree.TowersPerKey() + 1 {
		if _, err := reg.Register(context.Background(), admin, good, client); err != nil {
			t.Fatalf("admin registration: %v", err)
		}
	}
}

// TestValidateStampsNoProvenance: Validate is shared with the ad hoc towers
// of /coverage/link, which were never registered; only Register stamps the
// registration provenance.
func TestValidateStampsNoProvenance(t *testing.T) {
	tw, err := registry.Validate(registry.Input{Operator: ptr("Vivo"), Lat: ptr(-22.9), Lon: ptr(-43.2)})
	if err != nil || tw.Provenance != "" {
		t.Fatalf("Validate: provenance %q, %v; want none", tw.Provenance, err)
	}
}
