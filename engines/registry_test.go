package engines_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/engines"
)

func TestList(t *testing.T) {
	reg := newRegistry(t)
	list := reg.List()
	wantOrder := []appliance.EngineID{appliance.EngineFSPL, appliance.EngineP1812, appliance.EngineITM, appliance.EngineP1411,
		appliance.EngineHybrid, appliance.EngineAuto, appliance.EngineRaytrace, appliance.EngineRaytraceML}
	if len(list) != len(wantOrder) {
		t.Fatalf("List has %d engines, want %d", len(list), len(wantOrder))
	}
	want := map[appliance.EngineID]struct {
		status, tier string
		def          bool
	}{
		appliance.EngineFSPL:       {engines.StatusAvailable, "Free", true},
		appliance.EngineP1812:      {engines.StatusAvailable, "Pro", false},
		appliance.EngineITM:        {engines.StatusAvailable, "Pro", false},
		appliance.EngineP1411:      {engines.StatusAvailable, "Pro", false},
		appliance.EngineHybrid:     {engines.StatusAvailable, "Pro", false},
		appliance.EngineAuto:       {engines.StatusAvailable, "", false},
		appliance.EngineRaytrace:   {engines.StatusAvailable, "Enterprise", false},
		appliance.EngineRaytraceML: {engines.StatusHidden, "", false},
	}
	for i, info := range list {
		t.Run(string(info.ID), func(t *testing.T) {
			if info.ID != wantOrder[i] {
				t.Fatalf("position %d is %s, want %s", i, info.ID, wantOrder[i])
			}
			w := want[info.ID]
			if info.Status != w.status || info.MinTier != w.tier || info.Default != w.def {
				t.Errorf("status %q tier %q default %v, want %q %q %v", info.Status, info.MinTier, info.Default, w.status, w.tier, w.def)
			}
			if info.Name == "" || info.Method == "" || info.Version == "" || info.Notes == "" {
				t.Errorf("incomplete listing %+v", info)
			}
			if info.Status == engines.StatusAvailable && !(info.FreqMinMHz > 0 && info.FreqMaxMHz > info.FreqMinMHz) {
				t.Errorf("frequency range %g–%g MHz", info.FreqMinMHz, info.FreqMaxMHz)
			}
		})
	}
	for _, info := range reg.Public() {
		if info.Status == engines.StatusHidden {
			t.Errorf("Public lists hidden engine %s", info.ID)
		}
	}
	if len(reg.Public()) != len(list)-1 {
		t.Errorf("Public has %d engines, want %d", len(reg.Public()), len(list)-1)
	}
}

func TestGet(t *testing.T) {
	reg := newRegistry(t)
	for _, tc := range []struct {
		name    string
		id      appliance.EngineID
		wantID  appliance.EngineID
		wantErr string // substring of the message; "" = no error
	}{
		{name: "empty is fspl", id: "", wantID: appliance.EngineFSPL},
		{name: "fspl", id: appliance.EngineFSPL, wantID: appliance.EngineFSPL},
		{name: "p1812", id: appliance.EngineP1812, wantID: appliance.EngineP1812},
		{name: "itm", id: appliance.EngineITM, wantID: appliance.EngineITM},
		{name: "p1411", id: appliance.EngineP1411, wantID: appliance.EngineP1411},
		{name: "hybrid", id: appliance.EngineHybrid, wantID: appliance.EngineHybrid},
		{name: "auto", id: appliance.EngineAuto, wantID: appliance.EngineAuto},
		{name: "raytrace is asynchronous", id: appliance.EngineRaytrace, wantErr: "asynchronous"},
		{name: "raytrace_ml is hidden", id: appliance.EngineRaytraceML, wantErr: "hidden"},
		{name: "unknown", id: "okumura", wantErr: "unknown engine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng, err := reg.Get(tc.id)
			if tc.wantErr != "" {
				if !errors.Is(err, appliance.ErrInvalid) || fieldsOf(err) != "engine" || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v (fields %q), want ErrInvalid on field engine containing %q", err, fieldsOf(err), tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if eng.ID() != tc.wantID {
				t.Errorf("ID %s, want %s", eng.ID(), tc.wantID)
			}
		})
	}
}

// TestFreeSpaceBounded checks that only fspl declares the free-space bound
// the planner prunes with.
func TestFreeSpaceBounded(t *testing.T) {
	type bounded interface{ LossAtLeastFreeSpace() bool }
	reg := newRegistry(t)
	for _, info := range reg.List() {
		if info.Status != engines.StatusAvailable || info.Asynchronous {
			continue
		}
		t.Run(string(info.ID), func(t *testing.T) {
			for _, get := range []func(appliance.EngineID) (appliance.Engine, error){reg.Get, reg.WithFallback} {
				eng, err := get(info.ID)
				if err != nil {
					t.Fatal(err)
				}
				b, ok := eng.(bounded)
				got := ok && b.LossAtLeastFreeSpace()
				if got != (info.ID == appliance.EngineFSPL) {
					t.Errorf("%T LossAtLeastFreeSpace = %v", eng, got)
				}
			}
		})
	}
}

func TestNewConfig(t *testing.T) {
	bad := 200.0
	for _, tc := range []struct {
		name   string
		cfg    engines.Config
		fields string
	}{
		{name: "missing map dir", cfg: engines.Config{RefractivityDir: filepath.Join(t.TempDir(), "none")}, fields: "refractivity_dir"},
		{name: "bad diffraction", cfg: engines.Config{P1812: engines.P1812Params{Diffraction: "epstein-peterson"}}, fields: "p1812.diffraction"},
		{name: "bad delta N", cfg: engines.Config{P1812: engines.P1812Params{DeltaN: &bad}}, fields: "p1812.delta_n"},
		{name: "bad climate and env", cfg: engines.Config{ITM: engines.ITMParams{Climate: 9}, P1411: engines.P1411Params{Environment: "forest"}}, fields: "itm.climate,p1411.environment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := engines.New(tc.cfg)
			if !errors.Is(err, appliance.ErrInvalid) || fieldsOf(err) != tc.fields {
				t.Fatalf("err = %v (fields %q), want ErrInvalid on %q", err, fieldsOf(err), tc.fields)
			}
		})
	}
}

// TestRefractivityMaps builds a registry on a pair of constant-valued maps
// in the ITU-R layout (the real maps may not be redistributed) and checks
// that P.1812 and ITM take ΔN and N0 from them.
func TestRefractivityMaps(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, v string) {
		var b strings.Builder
		for r := 0; r < 121; r++ {
			b.WriteString(strings.TrimSpace(strings.Repeat(v+" ", 241)))
			b.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("DN50.TXT", "42")
	write("N050.TXT", "377")
	reg, err := engines.New(engines.Config{RefractivityDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	in := rjLink(t)
	p, _ := reg.Get(appliance.EngineP1812)
	got, err := p.Predict(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got.Intermediate["delta_n_n_units_per_km"] != 42 || got.Intermediate["n0_n_units"] != 377 {
		t.Errorf("p1812 ΔN %g N0 %g, want 42 and 377 from the maps", got.Intermediate["delta_n_n_units_per_km"], got.Intermediate["n0_n_units"])
	}
	i, _ := reg.Get(appliance.EngineITM)
	gi, err := i.Predict(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if gi.Intermediate["n0_n_units"] != 377 {
		t.Errorf("itm N0 %g, want 377 from the maps", gi.Intermediate["n0_n_units"])
	}
	def := newRegistry(t)
	i2, _ := def.Get(appliance.EngineITM)
	g2, err := i2.Predict(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if want := engines.ITMClimateN0(3); g2.Intermediate["n0_n_units"] != want || g2.Intermediate["climate"] != 3 {
		t.Errorf("itm without maps: climate %g N0 %g, want 3 and %g", g2.Intermediate["climate"], g2.Intermediate["n0_n_units"], want)
	}
}

// TestResolve: the engine tier rule of every route (issue 23 moved it
// here from web/api): the default, unknown and hidden engines, auto below
// Pro, an engine above the key's tier, an asynchronous engine, the admin.
func TestResolve(t *testing.T) {
	reg := newRegistry(t)
	free := &appliance.APIKey{Tier: appliance.TierFree, Role: appliance.RoleTenant}
	pro := &appliance.APIKey{Tier: appliance.TierPro, Role: appliance.RoleTenant}
	admin := &appliance.APIKey{Tier: appliance.TierFree, Role: appliance.RoleAdmin}
	for _, c := range []struct {
		name     string
		key      *appliance.APIKey
		id       appliance.EngineID
		want     appliance.EngineID
		note     bool
		wantErr  error
		errField string
	}{
		{"default is fspl", free, "", appliance.EngineFSPL, false, nil, ""},
		{"fspl for free", free, appliance.EngineFSPL, appliance.EngineFSPL, false, nil, ""},
		{"p1812 for pro", pro, appliance.EngineP1812, appliance.EngineP1812, false, nil, ""},
		{"p1812 refused to free", free, appliance.EngineP1812, "", false, appliance.ErrForbidden, ""},
		{"admin passes the tier", admin, appliance.EngineP1812, appliance.EngineP1812, false, nil, ""},
		{"auto below pro is fspl with a note", free, appliance.EngineAuto, appliance.EngineFSPL, true, nil, ""},
		{"auto for pro", pro, appliance.EngineAuto, appliance.EngineAuto, false, nil, ""},
		{"unknown engine", pro, "nope", "", false, appliance.ErrInvalid, "engine"},
		{"hidden engine", pro, appliance.EngineRaytraceML, "", false, appliance.ErrInvalid, "engine"},
		{"asynchronous engine", admin, appliance.EngineRaytrace, "", false, appliance.ErrInvalid, "engine"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, note, err := reg.Resolve(c.key, c.id)
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("err %v, want %v", err, c.wantErr)
				}
				var ve *appliance.ValidationError
				if c.errField != "" && (!errors.As(err, &ve) || len(ve.Fields) == 0 || ve.Fields[0].Field != c.errField) {
					t.Fatalf("err %v does not name %q", err, c.errField)
				}
				return
			}
			if err != nil || got != c.want || (note != "") != c.note {
				t.Fatalf("Resolve = %q, %q, %v; want %q (note %v)", got, note, err, c.want, c.note)
			}
		})
	}
}
