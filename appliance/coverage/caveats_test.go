package coverage

import (
	"context"
	"math"
	"slices"
	"testing"

	"linkplan/appliance"
	"linkplan/store/spatial"
)

// crowdTower is a crowd-sourced tower without ERP whose position is
// uncertain by 5 km, as the issue's finding had it, and synthetic.
func crowdTower() *appliance.Tower {
	return &appliance.Tower{ID: "synthetic:crowd-1", Source: appliance.SourceSynthetic, Operator: "Test", Lat: -22.93, Lon: -43.30,
		HeightM: 30, ERPDBm: math.NaN(), AzimuthDeg: math.NaN(), TiltDeg: math.NaN(), Placement: appliance.PlacementCrowd,
		UncertaintyM: 5000, Synthetic: true}
}

// TestIssue20_HeatmapSummaryCarriesEIRPAndWarnings: issue 20, "heatmap
// summaries and exports carry no warnings and no EIRP, even for a tower
// whose position is uncertain by 5,000 m with an assumed EIRP". The
// started event carries the EIRP, whether it was assumed, the
// transmitters and the warnings the request decides (engine_resolved,
// eirp_assumed, synthetic_tower, position_uncertainty); the summary adds
// the terrain's (void_filled_terrain, missing_terrain, no_land_cover),
// and GET's summary data is the same.
func TestIssue20_HeatmapSummaryCarriesEIRPAndWarnings(t *testing.T) {
	tw := crowdTower()
	ix := spatial.New([]*appliance.Tower{tw})
	for _, tc := range []struct {
		name    string
		pos     appliance.LatLon
		radiusM float64
		started []string
		summary []string
	}{
		{"tijuca", appliance.LatLon{Lat: -22.93, Lon: -43.30}, 5000,
			[]string{"engine_resolved", "eirp_assumed", "synthetic_tower", "position_uncertainty"},
			[]string{"engine_resolved", "eirp_assumed", "synthetic_tower", "position_uncertainty", "void_filled_terrain", "no_land_cover"}},
		{"niteroi, tile missing", appliance.LatLon{Lat: -22.90, Lon: -43.05}, 10000,
			[]string{"engine_resolved", "eirp_assumed", "synthetic_tower", "position_uncertainty"},
			[]string{"engine_resolved", "eirp_assumed", "synthetic_tower", "position_uncertainty", "void_filled_terrain", "missing_terrain", "no_land_cover"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tw.Lat, tw.Lon = tc.pos.Lat, tc.pos.Lon
			st := &Starter{Maps: newMaps(t, MapsOptions{}), Towers: func() appliance.TowerIndex { return ix }}
			k := &appliance.APIKey{ID: "k1", TenantID: "t1", Tier: appliance.TierPro}
			mp, err := st.Start(context.Background(), k, Spec{TowerIDs: []string{tw.ID}, FreqMHz: 1800, RadiusM: tc.radiusM,
				Engine: appliance.EngineFSPL, EngineNote: "auto resolves to fspl for tier Starter (other engines need Pro)"}, false)
			if err != nil {
				t.Fatal(err)
			}
			detach := mp.Attach()
			evs := drain(t, mp, 0)
			detach()
			started := evs[0].Data.(EventStartedData)
			if started.EIRPDBm != DefaultEIRPDBm || !started.EIRPAssumed || started.Engine != "fspl" ||
				len(started.Transmitters) != 1 || started.Transmitters[0].TowerID != tw.ID || !started.Transmitters[0].Synthetic ||
				started.Transmitters[0].PositionUncertaintyM == nil || *started.Transmitters[0].PositionUncertaintyM != 5000 {
				t.Errorf("started %+v", started)
			}
			if got := appliance.WarningCodes(started.Warnings); !slices.Equal(got, tc.started) {
				t.Errorf("started warnings %v, want %v", got, tc.started)
			}
			last := evs[len(evs)-1]
			if last.Type != EventSummary {
				t.Fatalf("last event %s %+v", last.Type, last.Data)
			}
			sum := last.Data.(EventSummaryData)
			if sum.EIRPDBm != DefaultEIRPDBm || !sum.EIRPAssumed || sum.Engine != "fspl" || len(sum.Transmitters) != 1 {
				t.Errorf("summary %+v", sum)
			}
			if got := appliance.WarningCodes(sum.Warnings); !slices.Equal(got, tc.summary) {
				t.Errorf("summary warnings %v, want %v", got, tc.summary)
			}
			for _, w := range sum.Warnings {
				t.Logf("%s: %s", w.Code, w.Message)
				if w.Message == "" {
					t.Errorf("%s has no message", w.Code)
				}
			}
			_, _, s, err := mp.Result()
			if err != nil {
				t.Fatal(err)
			}
			if got := appliance.WarningCodes(SummaryData(*s).Warnings); !slices.Equal(got, tc.summary) {
				t.Errorf("the done map's summary warnings %v", got)
			}
		})
	}
}

// TestMapWarningRules: the position uncertainty of a map is a warning
// when it exceeds the pixel; a measured tower (30 m at 90 m pixels), an
// explicit site and a tower with ERP raise none of the transmitter
// warnings; a best-server map counts its transmitters.
func TestMapWarningRules(t *testing.T) {
	req := tijuca()
	surveyed := req
	surveyed.Transmitter = Transmitter{TowerID: "anatel:1", Placement: appliance.PlacementSurveyed, UncertaintyM: 30}
	crowd := req
	crowd.Transmitter = TowerTransmitter(crowdTower())
	for _, tc := range []struct {
		name string
		reqs []Request
		want []string
	}{
		{"site", []Request{req}, []string{}},
		{"surveyed tower", []Request{surveyed}, []string{}},
		{"crowd tower", []Request{crowd}, []string{"eirp_assumed", "synthetic_tower", "position_uncertainty"}},
		{"best server", []Request{surveyed, crowd, req}, []string{"eirp_assumed", "synthetic_tower", "position_uncertainty"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := TransmitterWarnings(tc.reqs)
			if got := appliance.WarningCodes(ws); !slices.Equal(got, tc.want) {
				t.Fatalf("warnings %v, want %v", got, tc.want)
			}
			for _, w := range ws {
				t.Logf("%s: %s", w.Code, w.Message)
			}
		})
	}
}
