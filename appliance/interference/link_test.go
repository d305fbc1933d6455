package interference

import (
	"context"
	"math"
	"testing"

	"linkplan/appliance"
	"linkplan/store/spatial"
)

func linkTower(id string, lat, lon float64, bands []float64, erp, az float64) *appliance.Tower {
	return &appliance.Tower{ID: id, Source: appliance.SourceAnatel, Operator: "Op", Lat: lat, Lon: lon, HeightM: 40,
		ERPDBm: erp, AzimuthDeg: az, TiltDeg: math.NaN(), BandsMHz: bands}
}

// TestIssue26_LinkInterferenceCheck: a 5.8 GHz link in Rio's west zone
// with four towers around: one co-channel (5800), one adjacent (5820),
// one in another band (2600, not an interferer) and another tenant's own
// co-channel tower (invisible). The co-channel interferer's level is
// checked against a direct computation through both antenna patterns;
// the C/I below the requirement warns.
func TestIssue26_LinkInterferenceCheck(t *testing.T) {
	ter, reg := rioTerrain(t), registry(t)
	co := linkTower("anatel:co", -22.90, -43.50, []float64{5800}, 40, math.NaN())
	adj := linkTower("anatel:adj", -22.88, -43.42, []float64{5820}, 40, 200)
	other := linkTower("anatel:2600", -22.91, -43.47, []float64{2600}, 60, math.NaN())
	foreign := linkTower("user:foreign", -22.90, -43.46, []float64{5800}, 40, math.NaN())
	foreign.Source, foreign.OwnerTenantID = appliance.SourceUser, "tenant-b"
	ix := spatial.New([]*appliance.Tower{co, adj, other, foreign})
	svc := &LinkService{Terrain: ter, Towers: func() appliance.TowerIndex { return ix }, Engines: reg.Get}
	req := LinkRequest{TenantID: "tenant-a", A: LinkEnd{Pos: appliance.LatLon{Lat: -22.93, Lon: -43.48}, HeightM: 30},
		B: LinkEnd{Pos: appliance.LatLon{Lat: -22.89, Lon: -43.44}, HeightM: 30}, FreqMHz: 5800, BandwidthMHz: 20,
		RequiredCIDB: 25, Engine: appliance.EngineFSPL}
	res, err := svc.Check(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		name string
		r    EndResult
	}{{"a", res.A}, {"b", res.B}} {
		t.Logf("end %s: carrier %.1f dBm, I %.1f dBm, C/I %.1f dB, SINR %.1f dB, %d coupled", e.name, e.r.CarrierDBm, e.r.InterferenceDBm, e.r.CIDB, e.r.SINRDB, e.r.Coupled)
		if e.r.Coupled != 2 || len(e.r.Interferers) != 2 {
			t.Fatalf("end %s: %d coupled, want the co-channel and the adjacent tower: %+v", e.name, e.r.Coupled, e.r.Interferers)
		}
		for _, in := range e.r.Interferers {
			if in.TowerID == "anatel:2600" || in.TowerID == "user:foreign" {
				t.Fatalf("end %s lists %s", e.name, in.TowerID)
			}
		}
	}
	// direct computation of the co-channel tower at end A
	eng, _ := reg.Get(appliance.EngineFSPL)
	prof, err := ter.Profile(co.Pos(), req.A.Pos, 90)
	if err != nil {
		t.Fatal(err)
	}
	pred, err := eng.Predict(context.Background(), appliance.LinkInput{Tx: co.Pos(), Rx: req.A.Pos, TxHeightM: 40, RxHeightM: 30, FreqMHz: 5800, Profile: prof})
	if err != nil {
		t.Fatal(err)
	}
	azA := req.A.Pos.BearingDeg(req.B.Pos)
	off := math.Abs(math.Mod(req.A.Pos.BearingDeg(co.Pos())-azA+540, 360) - 180)
	rxLoss := math.Min(12*off/65*off/65, 25) // the planner's sector at 65°, capped at its front-to-back ratio
	want := 40 + 2.15 - pred.PathLossDB + DefaultLinkGainDBi - rxLoss
	var got *Interferer
	for i := range res.A.Interferers {
		if res.A.Interferers[i].TowerID == co.ID {
			got = &res.A.Interferers[i]
		}
	}
	if got == nil || math.Abs(got.LevelDBm-want) > 1e-9 {
		t.Fatalf("co-channel tower at a: %+v, direct %.6f dBm (rx pattern loss %.3f dB)", got, want, rxLoss)
	}
	carrier := DefaultLinkTxPowerDBm + 2*DefaultLinkGainDBi - res.A.PathLossDB
	if res.A.CarrierDBm != carrier {
		t.Fatalf("carrier %g, want %g", res.A.CarrierDBm, carrier)
	}
	below := 0
	for _, w := range res.Warnings {
		if w.Code == WarnCIBelowRequirement {
			below++
		}
	}
	wantBelow := 0
	for _, c := range []float64{res.A.CIDB, res.B.CIDB} {
		if c < 25 {
			wantBelow++
		}
	}
	if below != wantBelow || wantBelow == 0 {
		t.Fatalf("C/I %.1f / %.1f dB against 25 dB: %d warnings %v", res.A.CIDB, res.B.CIDB, below, res.Warnings)
	}
}
