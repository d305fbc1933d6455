package repeater

import (
	"slices"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/planner"
)

func codes(ws []appliance.Warning) []string { return appliance.WarningCodes(ws) }

// TestIssue20_RepeaterHopsCarryCaveats: issue 20, "a repeater plan at
// 5,800 MHz with min_margin_db 0 routes through a synthetic tower over a
// 19.9 km fspl hop with los_clear false and warnings []". On the real Rio
// terrain, every hop now carries its own warnings (fspl_obstructed when
// fspl answers a path without 60 % Fresnel clearance, synthetic_tower and
// position_uncertainty for the towers at its ends) beside its LOS/Fresnel
// figures, the plan merges them, and the radio budget it assumed is echoed
// with eirp_assumed.
func TestIssue20_RepeaterHopsCarryCaveats(t *testing.T) {
	towers := rioTowers()
	for _, tw := range towers {
		tw.Placement, tw.UncertaintyM = appliance.PlacementCentroid, 5000 // a municipality centroid, as synthetic sets are
	}
	s := newTestService(t, rioTerrain(t), towers)
	req := Request{
		From:    Endpoint{Site: &Site{Pos: appliance.LatLon{Lat: -22.78, Lon: -43.68}, HeightM: 40}},
		To:      Endpoint{Site: &Site{Pos: appliance.LatLon{Lat: -22.77, Lon: -43.32}, HeightM: 40}},
		FreqMHz: 5800, MaxHops: 2, MaxHopM: 25_000, Engine: appliance.EngineFSPL, TenantID: "tenant-a", Alternatives: 3,
	}
	Defaults(&req, map[string]bool{"min_margin_db": true}) // min_margin_db 0, given; the rest assumed
	p, err := s.Plan(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if p.Route == nil {
		t.Fatalf("no route: %s", p.Reason)
	}
	b := p.RadioBudget
	if !b.EIRPAssumed || b.EIRPDBm != DefaultEIRPDBm || b.RxThresholdDBm != DefaultRxThresholdDBm || b.RxGainDBi != DefaultRxGainDBi ||
		b.MinMarginDB != 0 || b.FreqMHz != 5800 || b.FresnelPenaltyDB != DefaultFresnelPenalty ||
		b.MaxPathLossDB != DefaultEIRPDBm+DefaultRxGainDBi-DefaultRxThresholdDBm ||
		!slices.Equal(b.Assumed, []string{"eirp_dbm", "rx_gain_dbi", "rx_threshold_dbm"}) {
		t.Errorf("radio budget %+v", b)
	}
	if len(p.Warnings) == 0 || p.Warnings[0].Code != appliance.WarnEIRPAssumed {
		t.Errorf("plan warnings %v: want eirp_assumed first", codes(p.Warnings))
	}
	obstructed, relays := 0, 0
	for _, rt := range append([]Route{*p.Route}, p.Alternatives...) {
		for i, h := range rt.Hops {
			cs := codes(h.Warnings)
			if h.Warnings == nil {
				t.Errorf("hop %d: nil warnings", i)
			}
			if want := !h.FresnelOK; slices.Contains(cs, appliance.WarnFSPLObstructed) != want {
				t.Errorf("hop %d (los_clear %v, fresnel_ok %v, %.0f m): warnings %v", i, h.LOSClear, h.FresnelOK, h.DistanceM, cs)
			}
			if !h.LOSClear {
				obstructed++
			}
			for _, n := range []Node{h.From, h.To} {
				if n.TowerID == "" {
					continue
				}
				relays++
				if !n.Synthetic || !slices.Contains(cs, appliance.WarnSyntheticTower) {
					t.Errorf("hop %d via %s: synthetic %v, warnings %v", i, n.TowerID, n.Synthetic, cs)
				}
				if n.UncertaintyM > planner.PositionUncertaintyFraction*h.DistanceM && !slices.Contains(cs, appliance.WarnPositionUncertainty) {
					t.Errorf("hop %d via %s (%.0f m of %.0f m): warnings %v", i, n.TowerID, n.UncertaintyM, h.DistanceM, cs)
				}
			}
			t.Logf("hop %d %s → %s: %.0f m, los %v, fresnel %v, %v", i, label(h.From), label(h.To), h.DistanceM, h.LOSClear, h.FresnelOK, cs)
		}
	}
	if relays == 0 || obstructed == 0 {
		t.Fatalf("the case must route through a relay tower over an obstructed hop: %d relay ends, %d obstructed hops", relays, obstructed)
	}
	for _, c := range []string{appliance.WarnFSPLObstructed, appliance.WarnSyntheticTower, appliance.WarnPositionUncertainty} {
		if !slices.Contains(codes(p.Warnings), c) && slices.ContainsFunc(p.Route.Hops, func(h Hop) bool { return slices.Contains(codes(h.Warnings), c) }) {
			t.Errorf("plan warnings %v lack %s of the best route", codes(p.Warnings), c)
		}
	}
}
