package interference

import (
	"context"
	"errors"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
	"linkplan/appliance/equipment"
	"linkplan/store"
)

// TestIssue26_ACSFromCatalogue: a transmitter that names a catalogue radio
// takes the radio's adjacent-channel selectivity (a real bbolt store and
// the equipment service, as the appliance wires them); the map then owes
// no acs_assumed warning and its interference equals the direct sum with
// that selectivity. A request's own acs_db wins over the radio's, a radio
// that states none keeps the default with the warning, and an unknown
// radio is named sites[i].radio_id.
func TestIssue26_ACSFromCatalogue(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	eq := equipment.New(db, nil)
	k := &appliance.APIKey{ID: "k_a", TenantID: "t_a", Tier: appliance.TierPro, Role: appliance.RoleTenant}
	radio, err := eq.CreateRadio(context.Background(), k, equipment.RadioInput{Name: "LTE UE", ACSDB: 45,
		Bands:    []appliance.FreqRange{{MinMHz: 700, MaxMHz: 3800}},
		Channels: []appliance.RadioChannel{{WidthMHz: 20, Modes: []appliance.RadioMode{{Name: "QPSK", TxPowerDBm: 23, SensitivityDBm: -94, ThroughputMbps: 10}}}}})
	if err != nil {
		t.Fatal(err)
	}

	ter, reg := rioTerrain(t), registry(t)
	req := threeTransmitters(appliance.EngineFSPL)
	for i := range req.Transmitters {
		req.Transmitters[i].RadioID = radio.ID
	}
	if err := req.UseRadios(eq, "t_a"); err != nil {
		t.Fatal(err)
	}
	for i, tr := range req.Transmitters {
		if tr.ACSDB != 45 {
			t.Fatalf("site %d: ACS %g dB, want the radio's 45 dB", i, tr.ACSDB)
		}
	}
	res, err := New(ter, reg.Get).Compute(context.Background(), req, coverage.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Summary.Warnings {
		if w.Code == WarnACSAssumed {
			t.Fatalf("warning %v although the radio states its selectivity", w)
		}
	}
	d := computeDirect(t, ter, reg, req)
	for px := range res.InterferenceDBm {
		if !same(res.InterferenceDBm[px], d.i[px], 1e-4) {
			t.Fatalf("pixel %d: interference %v dBm, direct with 45 dB ACS %v", px, res.InterferenceDBm[px], d.i[px])
		}
	}

	for _, tc := range []struct {
		name    string
		radio   string
		own     float64
		tenant  string
		wantACS float64
		field   string // a validation error naming it
	}{
		{"own acs_db wins", radio.ID, 30, "t_a", 30, ""},
		{"built-in radio states none", "builtin:wifi5-2x2", 0, "t_a", 0, ""},
		{"unknown radio", "radio_0000000000000000", 0, "t_a", 0, "sites[1].radio_id"},
		{"another tenant's radio", radio.ID, 0, "t_b", 0, "sites[1].radio_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := threeTransmitters(appliance.EngineFSPL)
			r.Transmitters[1].RadioID, r.Transmitters[1].ACSDB = tc.radio, tc.own
			err := r.UseRadios(eq, tc.tenant)
			if tc.field != "" {
				var ve *appliance.ValidationError
				if !errors.As(err, &ve) || len(ve.Fields) != 1 || ve.Fields[0].Field != tc.field {
					t.Fatalf("error %v, want one naming %s", err, tc.field)
				}
				return
			}
			if err != nil || r.Transmitters[1].ACSDB != tc.wantACS {
				t.Fatalf("ACS %g dB (%v), want %g", r.Transmitters[1].ACSDB, err, tc.wantACS)
			}
		})
	}
	r := threeTransmitters(appliance.EngineFSPL)
	r.Transmitters[0].RadioID = radio.ID
	var ve *appliance.ValidationError
	if err := r.UseRadios(nil, "t_a"); !errors.As(err, &ve) || ve.Fields[0].Field != "sites[0].radio_id" {
		t.Fatalf("no catalogue: %v", err)
	}
}
