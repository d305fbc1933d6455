package raytracing_test

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/appliance/coverage"
	"linkplan/appliance/equipment"
	"linkplan/appliance/planner"
	"linkplan/appliance/raytracing"
	"linkplan/store/spatial"
)

// runMap computes a raytrace map to its end and returns its raster and
// summary.
func runMap(t *testing.T, f *fixture, k *appliance.APIKey, req raytracing.MapRequest) (*coverage.Raster, *coverage.Summary, string) {
	t.Helper()
	ctx := context.Background()
	mp, err := f.svc.StartMap(ctx, k, req)
	if err != nil {
		t.Fatal(err)
	}
	detach := mp.Attach()
	defer detach()
	antenna := ""
	for after := 0; ; {
		evs, final, err := mp.Next(ctx, after, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			after = e.Seq
			if e.Type == coverage.EventStarted {
				b, _ := json.Marshal(e.Data)
				var st struct {
					Transmitters []struct {
						Antenna string `json:"antenna"`
					} `json:"transmitters"`
				}
				if json.Unmarshal(b, &st) == nil && len(st.Transmitters) == 1 {
					antenna = st.Transmitters[0].Antenna
				}
			}
		}
		if final && len(evs) == 0 {
			break
		}
	}
	r, _, sum, err := mp.Result()
	if err != nil {
		t.Fatal(err)
	}
	return r, sum, antenna
}

// TestTowerAntenna: a tower's own antenna (its catalogue antenna, tilt,
// beamwidth; appliance.TowerRadiator) radiates in its raytrace link and
// its raytrace map as in the planner's answers and heatmaps: the link's
// pattern loss is the Radiator's at the direct bearing and at the
// elevation its antenna sees the receiver's from on the terrain, and
// each map pixel is the isotropic map's level less the Radiator's loss
// toward the pixel's centre; the antenna is stated in both.
func TestTowerAntenna(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	txp := at(-35, 20)
	tower := func(id, antenna string, tilt, beamwidth float64) *appliance.Tower {
		return &appliance.Tower{ID: id, Operator: "op", Lat: txp.Lat, Lon: txp.Lon, HeightM: 30, ERPDBm: 40, AzimuthDeg: 45,
			TiltDeg: tilt, BeamwidthDeg: beamwidth, AntennaID: antenna, Source: appliance.SourceUser, OwnerTenantID: f.ent.TenantID}
	}
	towers := []*appliance.Tower{
		tower("omni_tilted", "builtin:omni-10dbi", 10, 0),
		tower("sector_tilted", "", 8, 0),
		tower("sector_narrow", "", math.NaN(), 33),
		tower("sector", "", math.NaN(), 0),
	}
	ix := spatial.New(towers)
	eq := equipment.New(f.db, nil)
	f.svc.Towers = func() appliance.TowerIndex { return ix }
	f.svc.Antennas, f.svc.Terrain = eq, f.ter
	f.svc.Maps = &coverage.Starter{Maps: f.maps, Towers: f.svc.Towers, Antennas: eq}
	ground := func(p appliance.LatLon) float64 {
		z, err := f.ter.ElevationM(p)
		if err != nil {
			t.Fatal(err)
		}
		return z
	}
	opt := raytracing.DefaultMapOptions()
	opt.DiffuseScattering, opt.MaxReflections = 0, 1
	// the isotropic reference: EIRP − path loss at every pixel
	iso, _, _ := runMap(t, f, f.ent, raytracing.MapRequest{LayerID: f.layer, RadiusM: 40, Options: opt, FreqMHz: 3500, ResolutionM: 5,
		Site: &coverage.Site{Pos: txp, HeightM: 30, EIRPDBm: 42.15, AzimuthDeg: math.NaN()}})
	rx := at(5, -5)
	linkOpt := raytracing.DefaultOptions()
	linkOpt.MaxReflections = 1
	for _, tw := range towers {
		t.Run(tw.ID, func(t *testing.T) {
			// the antenna as the planner takes it
			label, loss := planner.LegacySector, func(b, _ float64) float64 { return planner.PatternLossDB(45, b) }
			vertical := false
			if planner.HasRadiator(tw) {
				r, w := appliance.TowerRadiator(tw, eq)
				if w != nil {
					t.Fatalf("antenna: %v", w)
				}
				label, loss, vertical = r.Label(), r.LossDB, r.HasVertical()
			}
			id := tw.ID
			j, err := f.svc.SubmitPair(ctx, f.ent, appliance.PairRequest{TowerID: id, Receiver: rx, RxHeightM: 1.5, FreqMHz: 3500, RxThresholdDBm: -95, AssumedEIRPDBm: 58},
				f.layer, linkOpt, nil)
			if err != nil {
				t.Fatal(err)
			}
			if done := f.wait(t, j.ID); done.State != appliance.JobSucceeded {
				t.Fatalf("job %s: %s", done.State, done.Error)
			}
			var res raytracing.LinkJobResult
			readResult(t, f, j.ID, &res)
			l := res.Links[0]
			elev := appliance.ElevationDownDeg(ground(txp)+30, ground(rx)+1.5, txp.DistanceM(rx))
			if want := loss(txp.BearingDeg(rx), elev); l.Antenna != label || math.Abs(l.PatternLossDB-want) > 1e-9 || l.TowerElevationDeg == nil || *l.TowerElevationDeg != elev {
				t.Errorf("link: antenna %q, pattern loss %g dB, elevation %v; want %q, %g dB at %g°", l.Antenna, l.PatternLossDB, l.TowerElevationDeg, label, want, elev)
			}

			r, sum, antenna := runMap(t, f, f.ent, raytracing.MapRequest{LayerID: f.layer, RadiusM: 40, Options: opt, TowerID: &id, FreqMHz: 3500, ResolutionM: 5})
			if antenna != label {
				t.Errorf("map: antenna %q, want %q", antenna, label)
			}
			if r.Width != iso.Width || r.Height != iso.Height {
				t.Fatalf("map %d×%d, reference %d×%d", r.Width, r.Height, iso.Width, iso.Height)
			}
			worst := 0.0
			for row := 0; row < r.Height; row++ {
				for col := 0; col < r.Width; col++ {
					px := row*r.Width + col
					if (r.DBm[px] != r.DBm[px]) != (iso.DBm[px] != iso.DBm[px]) {
						t.Fatalf("pixel (%d,%d): %v, reference %v", row, col, r.DBm[px], iso.DBm[px])
					}
					if iso.DBm[px] != iso.DBm[px] {
						continue
					}
					p := r.PixelCenter(row, col)
					el := 0.0
					if vertical {
						el = appliance.ElevationDownDeg(ground(txp)+30, ground(p)+1.5, txp.DistanceM(p))
					}
					want := float64(iso.DBm[px]) - loss(txp.BearingDeg(p), el)
					worst = math.Max(worst, math.Abs(float64(r.DBm[px])-want))
				}
			}
			if worst > 1e-3 {
				t.Errorf("map: a pixel is %g dB from the isotropic map less the antenna's loss toward it", worst)
			}
			if !hasCode(sum.Warnings, raytracing.WarnPatternAlongBearing) {
				t.Errorf("map warnings %v lack %s", sum.Warnings, raytracing.WarnPatternAlongBearing)
			}
		})
	}
}

func hasCode(ws []appliance.Warning, code string) bool {
	for _, w := range ws {
		if w.Code == code {
			return true
		}
	}
	return false
}

// TestLinkJobCost: a link job's cost includes the build of its layer's
// scene (Scenes.EstimateBytes) exactly when the appliance does not hold
// the scene built, since the job then builds it under its own grant.
func TestLinkJobCost(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rx, tx := at(5, -5), at(-150, 140)
	j, err := f.svc.SubmitLinks(ctx, f.ent, raytracing.LinkRequest{Route: raytracing.RouteEnginesPredict, LayerID: f.layer, FreqMHz: 3500,
		Options: raytracing.DefaultOptions(), Links: []raytracing.Link{{Tx: raytracing.Site{Lat: tx.Lat, Lon: tx.Lon, HeightM: 30}, Rx: raytracing.Site{Lat: rx.Lat, Lon: rx.Lon, HeightM: 1.5}}}})
	if err != nil {
		t.Fatal(err)
	}
	f.wait(t, j.ID)
	l, _, err := f.db.BuildingLayer(f.ent.TenantID, f.layer, false)
	if err != nil {
		t.Fatal(err)
	}
	est := f.index.EstimateBytes(l)
	built, ok := f.svc.Cost(j)
	if !ok || built.Workers != 1 || built.Tier != appliance.TierEnterprise || est <= 0 {
		t.Fatalf("cost %+v %v, estimate %d", built, ok, est)
	}
	for _, tc := range []struct {
		name  string
		setup func()
		extra int64
	}{
		{"scene lost", func() { f.index.Forget(l) }, est},
		{"scene built again", func() {
			if _, err := f.index.Cached(l, func() ([]appliance.Building, error) {
				_, bs, err := f.db.BuildingLayer(f.ent.TenantID, f.layer, true)
				return bs, err
			}); err != nil {
				t.Fatal(err)
			}
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup()
			c, _ := f.svc.Cost(j)
			if c.MemBytes-built.MemBytes != tc.extra {
				t.Errorf("cost %d bytes, %d with the scene built: want %d more", c.MemBytes, built.MemBytes, tc.extra)
			}
		})
	}
}

// readResult decodes job id's result file into out.
func readResult(t *testing.T, f *fixture, id string, out any) {
	t.Helper()
	_, file, err := f.jobs.Open(context.Background(), f.ent.TenantID, id)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if err := json.NewDecoder(file).Decode(out); err != nil {
		t.Fatal(err)
	}
}
