package equipment_test

import (
	"context"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/equipment"
	"linkplan/store"
)

func openStore(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(t.TempDir(), store.Options{LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func key(tenant string, tier appliance.Tier) *appliance.APIKey {
	return &appliance.APIKey{ID: "k_" + tenant, TenantID: tenant, Tier: tier, Role: appliance.RoleTenant}
}

func ptr(x float64) *float64 { return &x }

func radioIn() equipment.RadioInput {
	return equipment.RadioInput{Name: " My radio ", Bands: []appliance.FreqRange{{MinMHz: 5470, MaxMHz: 5850}},
		Channels: []appliance.RadioChannel{
			{WidthMHz: 40, Modes: []appliance.RadioMode{{Name: "QPSK", TxPowerDBm: 25, SensitivityDBm: -88, ThroughputMbps: 40}}},
			{WidthMHz: 20, Modes: []appliance.RadioMode{{Name: "QPSK", TxPowerDBm: 25, SensitivityDBm: -91, ThroughputMbps: 20},
				{Name: "64QAM", TxPowerDBm: 22, SensitivityDBm: -74, ThroughputMbps: 80}}}}}
}

func TestBuiltinsAreValidAndReadOnly(t *testing.T) {
	svc := equipment.New(openStore(t), nil)
	rs, err := svc.Radios("t_a")
	if err != nil || len(rs) != 3 {
		t.Fatalf("radios %d %v", len(rs), err)
	}
	as, err := svc.Antennas("t_a")
	if err != nil || len(as) != 8 {
		t.Fatalf("antennas %d %v", len(as), err)
	}
	for _, r := range rs {
		if err := r.Validate(); err != nil || !r.Builtin || !strings.Contains(r.Notes, "not a vendor") {
			t.Errorf("%s: %v %+v", r.ID, err, r)
		}
	}
	for _, a := range as {
		if err := a.Validate(); err != nil || !a.Builtin {
			t.Errorf("%s: %v", a.ID, err)
		}
	}
	// the 65° sector shows its figures; the 44 dBi dish is narrow
	s65, _ := svc.Antenna("t_a", "builtin:sector-65-17dbi")
	if math.Abs(s65.HBeamwidthDeg-65) > 0.01 || math.Abs(s65.VBeamwidthDeg-appliance.VBeamwidthFromGainDeg(17, 65)) > 0.05 || s65.FrontToBackDB != 25 {
		t.Errorf("65° sector figures %+v", s65)
	}
	if d, _ := svc.Antenna("t_a", "builtin:dish-44dbi"); d.HBeamwidthDeg > 1.2 || d.HBeamwidthDeg < 1.0 {
		t.Errorf("44 dBi dish beamwidth %g°", d.HBeamwidthDeg)
	}
	// the 802.11ac figures: 2 streams at 80 MHz MCS9 = 780 Mbit/s PHY
	wifi, _ := svc.Radio("t_a", "builtin:wifi5-2x2")
	if ch, ok := wifi.Channel(80); !ok || ch.Modes[9].ThroughputMbps != 507 || ch.Modes[0].SensitivityDBm != -76 {
		t.Errorf("wifi 80 MHz %+v", ch)
	}
	k := key("t_a", appliance.TierPro)
	if _, err := svc.UpdateRadio(context.Background(), k, "builtin:wifi5-2x2", radioIn()); !errors.Is(err, appliance.ErrForbidden) {
		t.Errorf("update of a built-in: %v", err)
	}
	if err := svc.DeleteAntenna(context.Background(), k, "builtin:omni-10dbi"); !errors.Is(err, appliance.ErrForbidden) {
		t.Errorf("delete of a built-in: %v", err)
	}
	// a caller cannot change the shared built-in through what it got
	wifi.Channels[0].Modes[0].TxPowerDBm = 99
	if again, _ := svc.Radio("t_a", "builtin:wifi5-2x2"); again.Channels[0].Modes[0].TxPowerDBm == 99 {
		t.Error("built-in changed through a returned copy")
	}
}

// TestRadioLifecycle: create (channels sorted, names trimmed), another
// tenant sees nothing of it, update keeps the creation time, delete.
func TestRadioLifecycle(t *testing.T) {
	db := openStore(t)
	now := time.Unix(1000, 0)
	svc := equipment.New(db, func() time.Time { return now })
	ctx := context.Background()
	a, b := key("t_a", appliance.TierPro), key("t_b", appliance.TierPro)
	r, err := svc.CreateRadio(ctx, a, radioIn())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.ID, "radio_") || r.Name != "My radio" || r.Channels[0].WidthMHz != 20 || r.CreatedUnix != 1000 {
		t.Errorf("created %+v", r)
	}
	if _, err := svc.Radio("t_b", r.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("t_b reads it: %v", err)
	}
	if list, _ := svc.Radios("t_b"); len(list) != 3 {
		t.Errorf("t_b lists %d", len(list))
	}
	if _, err := svc.UpdateRadio(ctx, b, r.ID, radioIn()); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("t_b updates it: %v", err)
	}
	if err := svc.DeleteRadio(ctx, b, r.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("t_b deletes it: %v", err)
	}
	now = time.Unix(2000, 0)
	in := radioIn()
	in.Name = "renamed"
	u, err := svc.UpdateRadio(ctx, a, r.ID, in)
	if err != nil || u.CreatedUnix != 1000 || u.UpdatedUnix != 2000 || u.Name != "renamed" {
		t.Fatalf("updated %+v %v", u, err)
	}
	bad := radioIn()
	bad.Channels[1].Modes[1].SensitivityDBm = -95
	var ve *appliance.ValidationError
	if _, err := svc.UpdateRadio(ctx, a, r.ID, bad); !errors.As(err, &ve) || ve.Fields[0].Field != "channels[0].modes[1].sensitivity_dbm" {
		t.Errorf("bad update: %v", err)
	}
	if err := svc.DeleteRadio(ctx, a, r.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Radio("t_a", r.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("after delete: %v", err)
	}
}

// TestTierCap: a Free tenant stores 10 antennas, the 11th is ErrQuota;
// an admin key has no cap.
func TestTierCap(t *testing.T) {
	svc := equipment.New(openStore(t), nil)
	ctx := context.Background()
	in := equipment.AntennaInput{Name: "s", GainDBi: ptr(15), Parametric: &equipment.Parametric{Model: equipment.ModelSector}}
	k := key("t_free", appliance.TierFree)
	for i := range 10 {
		if _, err := svc.CreateAntenna(ctx, k, in); err != nil {
			t.Fatalf("antenna %d: %v", i, err)
		}
	}
	if _, err := svc.CreateAntenna(ctx, k, in); !errors.Is(err, appliance.ErrQuota) {
		t.Errorf("11th: %v", err)
	}
	adm := &appliance.APIKey{ID: "adm", TenantID: "t_free", Tier: appliance.TierFree, Role: appliance.RoleAdmin}
	if _, err := svc.CreateAntenna(ctx, adm, in); err != nil {
		t.Errorf("admin: %v", err)
	}
}

func TestAntennaInputs(t *testing.T) {
	svc := equipment.New(openStore(t), nil)
	ctx := context.Background()
	k := key("t_a", appliance.TierPro)
	tilted := appliance.SectorPattern(65, 7, 28, 20, 6)
	for _, c := range []struct {
		name   string
		in     equipment.AntennaInput
		fields string
		check  func(a *appliance.Antenna) bool
	}{
		{"parametric sector", equipment.AntennaInput{Name: "s", GainDBi: ptr(18), Parametric: &equipment.Parametric{Model: "3gpp-sector", HBeamwidthDeg: 33, ElectricalTiltDeg: 3}}, "",
			func(a *appliance.Antenna) bool {
				return math.Abs(a.HBeamwidthDeg-33) < 0.05 && a.ElectricalTiltDeg == 3 && a.Source.Model == "3gpp-sector"
			}},
		{"parametric dish", equipment.AntennaInput{Name: "d", GainDBi: ptr(38), Parametric: &equipment.Parametric{Model: "itu-f699-dish"}}, "",
			func(a *appliance.Antenna) bool { return math.Abs(a.HBeamwidthDeg-69.3/math.Pow(10, 30.3/20)) < 0.01 }}, // F.699: D/λ = 10^((38−7.7)/20)
		{"table", equipment.AntennaInput{Name: "t", GainDBi: ptr(17), Pattern: &tilted}, "",
			func(a *appliance.Antenna) bool { return a.ElectricalTiltDeg == 6 && a.FrontToBackDB == 28 }},
		{"no gain, no pattern", equipment.AntennaInput{Name: "x"}, "gain_dbi,pattern", nil},
		{"both", equipment.AntennaInput{Name: "x", GainDBi: ptr(1), Pattern: &tilted, Parametric: &equipment.Parametric{Model: "omni"}}, "pattern", nil},
		{"bad model", equipment.AntennaInput{Name: "x", GainDBi: ptr(1), Parametric: &equipment.Parametric{Model: "yagi"}}, "parametric.model", nil},
		{"bad figures", equipment.AntennaInput{Name: "x", GainDBi: ptr(15), Parametric: &equipment.Parametric{Model: "3gpp-sector", HBeamwidthDeg: 400, ElectricalTiltDeg: 45}}, "parametric.h_beamwidth_deg,parametric.electrical_tilt_deg", nil},
		{"small dish", equipment.AntennaInput{Name: "x", GainDBi: ptr(5), Parametric: &equipment.Parametric{Model: "itu-f699-dish"}}, "gain_dbi", nil},
		{"bad cut", equipment.AntennaInput{Name: "x", GainDBi: ptr(5), Pattern: &appliance.AntennaPattern{H: appliance.PatternCut{AnglesDeg: []float64{0, 90, 180, 10}, AttDB: []float64{0, 1, 2, 3}}, V: tilted.V}}, "pattern.horizontal.angles_deg[3]", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := svc.CreateAntenna(ctx, k, c.in)
			if c.fields == "" {
				if err != nil || !c.check(a) {
					t.Fatalf("%v; figures H %g° V %g° F/B %g dB tilt %g°", err, a.HBeamwidthDeg, a.VBeamwidthDeg, a.FrontToBackDB, a.ElectricalTiltDeg)
				}
				return
			}
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v, want fields %s", err, c.fields)
			}
			var got []string
			for _, f := range ve.Fields {
				got = append(got, f.Field)
			}
			if strings.Join(got, ",") != c.fields {
				t.Errorf("fields %v, want %s", got, c.fields)
			}
		})
	}
}

// TestImportAntenna: a real Planet file becomes an antenna with the
// file's figures and source; a Radio Mobile file needs gain_dbi; a
// malformed file names the line; the lookup cache follows updates and
// deletes.
func TestImportAntenna(t *testing.T) {
	svc := equipment.New(openStore(t), nil)
	ctx := context.Background()
	k := key("t_a", appliance.TierPro)
	pln, err := os.ReadFile("testdata/B800A065-18-4E.pln")
	if err != nil {
		t.Fatal(err)
	}
	a, err := svc.ImportAntenna(ctx, k, equipment.ImportInput{FileName: "B800A065-18-4E.pln", Data: pln})
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "B800A065-18-4E" || a.Make != "Amphenol" || a.GainDBi != 15.75 || a.FreqMHz != 851 || a.ElectricalTiltDeg != 4 ||
		a.Source.Format != "msi" || len(a.Source.SHA256) != 64 || a.Source.FileName != "B800A065-18-4E.pln" {
		t.Errorf("imported %+v", a)
	}
	got, err := svc.Antenna("t_a", a.ID)
	if err != nil || got.ElectricalTiltDeg != 4 {
		t.Fatalf("lookup: %v", err)
	}
	if _, err := svc.Antenna("t_b", a.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("t_b: %v", err)
	}
	ant, _ := os.ReadFile("testdata/crc-covlib_generic_antenna.ant")
	var ve *appliance.ValidationError
	if _, err := svc.ImportAntenna(ctx, k, equipment.ImportInput{FileName: "g.ant", Data: ant}); !errors.As(err, &ve) || ve.Fields[0].Field != "gain_dbi" {
		t.Errorf("Radio Mobile without gain: %v", err)
	}
	rm, err := svc.ImportAntenna(ctx, k, equipment.ImportInput{FileName: "g.ant", Data: ant, GainDBi: ptr(14), Name: "Generic RM"})
	if err != nil || rm.GainDBi != 14 || rm.Name != "Generic RM" || len(rm.Warnings) != 0 {
		t.Errorf("Radio Mobile with gain: %+v %v", rm, err)
	}
	broken := strings.Replace(string(pln), "5\t0.1", "5\tzero", 1)
	_, err = svc.ImportAntenna(ctx, k, equipment.ImportInput{FileName: "b.pln", Data: []byte(broken)})
	if !errors.As(err, &ve) || ve.Fields[0].Field != "file" || !strings.Contains(ve.Fields[0].Reason, "line 16") {
		t.Errorf("malformed: %v", err)
	}
	// update: the lookup sees the new pattern; delete: gone
	in := equipment.AntennaInput{Name: "now a dish", GainDBi: ptr(30), Parametric: &equipment.Parametric{Model: equipment.ModelDish}}
	if _, err := svc.UpdateAntenna(ctx, k, a.ID, in); err != nil {
		t.Fatal(err)
	}
	if got, _ := svc.Antenna("t_a", a.ID); got.Name != "now a dish" || got.GainDBi != 30 {
		t.Errorf("after update the lookup gives %+v", got)
	}
	if err := svc.DeleteAntenna(ctx, k, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Antenna("t_a", a.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("after delete: %v", err)
	}
}

// TestRadioACS: a radio's adjacent-channel selectivity is stored, read
// back and replaced with the radio (issue 26 scope 1 reads it for
// interference); out-of-range values are named acs_db; 0 means not
// stated.
func TestRadioACS(t *testing.T) {
	svc := equipment.New(openStore(t), nil)
	k := key("t_a", appliance.TierPro)
	in := radioIn()
	in.ACSDB = 45
	r, err := svc.CreateRadio(context.Background(), k, in)
	if err != nil || r.ACSDB != 45 {
		t.Fatalf("create: %v %+v", err, r)
	}
	got, err := svc.Radio("t_a", r.ID)
	if err != nil || got.ACSDB != 45 {
		t.Fatalf("read back: %v %+v", err, got)
	}
	in.ACSDB = 0
	if up, err := svc.UpdateRadio(context.Background(), k, r.ID, in); err != nil || up.ACSDB != 0 {
		t.Fatalf("update to not stated: %v %+v", err, up)
	}
	for _, tc := range []struct {
		name string
		acs  float64
	}{{"negative", -1}, {"above 120 dB", 121}, {"NaN", math.NaN()}, {"infinite", math.Inf(1)}} {
		t.Run(tc.name, func(t *testing.T) {
			in := radioIn()
			in.ACSDB = tc.acs
			_, err := svc.CreateRadio(context.Background(), k, in)
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) || len(ve.Fields) != 1 || ve.Fields[0].Field != "acs_db" {
				t.Fatalf("acs %g: %v", tc.acs, err)
			}
		})
	}
}
