package planner_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
	"linkplan/appliance/planner"
	"linkplan/appliance/refresh"
	"linkplan/appliance/sampledata"
	"linkplan/engines"
	"linkplan/engines/fspl"
	"linkplan/store/spatial"
)

func TestTowerStanding(t *testing.T) {
	for _, tc := range []struct {
		name       string
		t          *appliance.Tower
		distanceKm float64
		want       planner.Standing
	}{
		{"nil tower", nil, 1, planner.StandingReal},
		{"surveyed regulator tower", &appliance.Tower{Source: appliance.SourceAnatel, UncertaintyM: 30}, 1, planner.StandingReal},
		{"uncertainty exactly 10 % of the link", &appliance.Tower{UncertaintyM: 100}, 1, planner.StandingReal},
		{"uncertainty just above 10 % of the link", &appliance.Tower{UncertaintyM: 100.001}, 1, planner.StandingUncertain},
		{"crowd tower 4.7 km uncertain on a 0.66 km link", &appliance.Tower{Source: appliance.SourceOpenCelliD, UncertaintyM: 4700}, 0.66, planner.StandingUncertain},
		{"the same tower on a 60 km link", &appliance.Tower{Source: appliance.SourceOpenCelliD, UncertaintyM: 4700}, 60, planner.StandingReal},
		{"co-located: no link length to compare", &appliance.Tower{UncertaintyM: 5000}, 0, planner.StandingReal},
		{"synthetic, well placed", &appliance.Tower{Synthetic: true}, 5, planner.StandingSynthetic},
		{"synthetic and uncertain", &appliance.Tower{Synthetic: true, UncertaintyM: 5000}, 1, planner.StandingSynthetic},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := planner.TowerStanding(tc.t, tc.distanceKm); got != tc.want {
				t.Fatalf("TowerStanding = %v, want %v", got, tc.want)
			}
			// The standing and the warnings of a result agree.
			if tc.t == nil {
				return
			}
			ws := codes(planner.CandidateWarnings(&appliance.LinkCandidate{Tower: tc.t, DistanceKm: tc.distanceKm}, nil))
			if syn := slices.Contains(ws, appliance.WarnSyntheticTower); syn != (tc.want == planner.StandingSynthetic) {
				t.Errorf("synthetic_tower raised %v for standing %v", syn, tc.want)
			}
			if unc := slices.Contains(ws, appliance.WarnPositionUncertainty); tc.want == planner.StandingUncertain && !unc || tc.want == planner.StandingReal && unc {
				t.Errorf("position_uncertainty raised %v for standing %v", unc, tc.want)
			}
		})
	}
}

// bayReceiver is on Guanabara Bay: the paths toward the north-east are
// over water (sample pack), so the margins follow the towers' ERP and
// distance.
var bayReceiver = appliance.LatLon{Lat: -22.82, Lon: -43.17}

// bayTower is a hand-built tower on the bay, distKm from bayReceiver on
// bearingDeg, with an ERP of erpDBm dBm: kind "real" (Anatel, 30 m),
// "crowd" (OpenCelliD, uncertainM metres) or "synthetic".
func bayTower(id, kind string, bearingDeg, distKm, erpDBm, uncertainM float64) *appliance.Tower {
	p := bayReceiver.Destination(bearingDeg, distKm*1000)
	t := &appliance.Tower{ID: id, Operator: "TIM", Lat: p.Lat, Lon: p.Lon, HeightM: 30, ERPDBm: erpDBm,
		AzimuthDeg: math.NaN(), TiltDeg: math.NaN()}
	switch kind {
	case "real":
		t.Source, t.Placement, t.UncertaintyM = appliance.SourceAnatel, appliance.PlacementSurveyed, 30
	case "crowd":
		t.Source, t.Placement, t.UncertaintyM = appliance.SourceOpenCelliD, appliance.PlacementCrowd, uncertainM
	case "synthetic":
		t.Source, t.Placement, t.UncertaintyM, t.Synthetic = appliance.SourceSynthetic, appliance.PlacementCentroid, 500, true
	}
	return t
}

// TestIssue20_HonestRanking: issue 20, "the best tower is often a
// synthetic tower, or a crowd-sourced one whose position uncertainty (4.7
// km) is several times the link length (0.66 km)". On hand-built towers:
// a real tower with a well-known position whose link closes is the best
// tower, the stronger ones stay alternatives with their warnings, and
// best_tower_caveats says what qualifies the choice.
func TestIssue20_HonestRanking(t *testing.T) {
	const strong, weak, dead = 40.0, 25.0, -40.0 // ERP, dBm: the last never closes
	for _, tc := range []struct {
		name     string
		towers   []*appliance.Tower
		alts     int
		best     string
		others   []string // the alternatives, in order
		caveats  []string
		mentions []string // in the caveats' messages
	}{
		{"the strongest is a real tower: no caveat",
			[]*appliance.Tower{bayTower("anatel:1", "real", 60, 1, strong, 0), bayTower("synthetic:1", "synthetic", 50, 2, strong, 0)},
			5, "anatel:1", []string{"synthetic:1"}, []string{}, nil},
		{"a real tower that closes beats a stronger synthetic one",
			[]*appliance.Tower{bayTower("synthetic:1", "synthetic", 60, 0.66, strong, 0), bayTower("anatel:1", "real", 50, 4, weak, 0)},
			5, "anatel:1", []string{"synthetic:1"}, []string{appliance.WarnStrongerTowerDemoted}, []string{"synthetic:1", "synthetic sample data"}},
		{"a real tower that closes beats a crowd tower uncertain by 4.7 km at 0.66 km",
			[]*appliance.Tower{bayTower("ocid:1", "crowd", 60, 0.66, strong, 4700), bayTower("anatel:1", "real", 50, 4, weak, 0)},
			5, "anatel:1", []string{"ocid:1"}, []string{appliance.WarnStrongerTowerDemoted}, []string{"ocid:1", "uncertain by 4700 m"}},
		{"a crowd tower well placed for its link length ranks on margin",
			[]*appliance.Tower{bayTower("ocid:1", "crowd", 60, 6, strong, 400), bayTower("anatel:1", "real", 50, 4, weak, 0)},
			5, "ocid:1", []string{"anatel:1"}, []string{}, nil},
		{"an uncertain real tower beats a stronger synthetic one",
			[]*appliance.Tower{bayTower("synthetic:1", "synthetic", 60, 0.66, strong, 0), bayTower("ocid:1", "crowd", 50, 2, weak, 4700)},
			5, "ocid:1", []string{"synthetic:1"}, []string{appliance.WarnPositionUncertainty, appliance.WarnStrongerTowerDemoted},
			[]string{"no real tower with a well-known position within 30 km closes the link", "synthetic:1"}},
		{"a real tower that does not close does not beat a synthetic one that does",
			[]*appliance.Tower{bayTower("synthetic:1", "synthetic", 60, 2, weak, 0), bayTower("anatel:1", "real", 50, 1, dead, 0)},
			5, "synthetic:1", []string{"anatel:1"}, []string{appliance.WarnSyntheticTower}, []string{"no real tower within 30 km closes the link"}},
		{"when nothing closes the highest margin is the best",
			[]*appliance.Tower{bayTower("synthetic:1", "synthetic", 60, 1, dead, 0), bayTower("anatel:1", "real", 50, 4, dead, 0)},
			5, "synthetic:1", []string{"anatel:1"}, []string{appliance.WarnSyntheticTower}, []string{"no tower within 30 km closes the link"}},
		{"without alternatives (batch rows) the stronger tower is still named",
			[]*appliance.Tower{bayTower("synthetic:1", "synthetic", 60, 0.66, strong, 0), bayTower("synthetic:2", "synthetic", 70, 0.8, strong, 0),
				bayTower("anatel:1", "real", 50, 4, weak, 0)},
			0, "anatel:1", []string{}, []string{appliance.WarnStrongerTowerDemoted}, []string{"synthetic:1"}},
		{"the best real tower, then the others by margin",
			[]*appliance.Tower{bayTower("synthetic:1", "synthetic", 60, 0.66, strong, 0), bayTower("synthetic:2", "synthetic", 70, 0.8, strong, 0),
				bayTower("anatel:1", "real", 50, 5, weak, 0), bayTower("anatel:2", "real", 40, 4, weak, 0), bayTower("anatel:3", "real", 45, 3, dead, 0)},
			2, "anatel:2", []string{"synthetic:1", "synthetic:2"}, []string{appliance.WarnStrongerTowerDemoted}, []string{"synthetic:1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPlanner(rioTerrain(t), tc.towers, fspl.New())
			req := appliance.LinkRequest{Receiver: bayReceiver, FreqMHz: 1800}
			planner.Defaults(&req, nil)
			req.MaxAlternatives = tc.alts
			a, err := p.AnalyzeLink(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if a.Best == nil {
				t.Fatalf("no best tower: %s", a.Reason)
			}
			var others []string
			for _, c := range a.Alternatives {
				others = append(others, c.Tower.ID)
				if c.Tower.Synthetic && !slices.Contains(codes(c.Warnings), appliance.WarnSyntheticTower) {
					t.Errorf("alternative %s lost its synthetic_tower warning", c.Tower.ID)
				}
			}
			if a.Best.Tower.ID != tc.best || !slices.Equal(others, tc.others) && len(others)+len(tc.others) > 0 {
				t.Fatalf("best %s (%.1f dB), alternatives %v; want %s, %v", a.Best.Tower.ID, a.Best.LinkMarginDB, others, tc.best, tc.others)
			}
			if got := codes(a.BestTowerCaveats); !slices.Equal(got, tc.caveats) {
				t.Fatalf("best_tower_caveats %v, want %v: %+v", got, tc.caveats, a.BestTowerCaveats)
			}
			var msgs strings.Builder
			for _, w := range a.BestTowerCaveats {
				msgs.WriteString(w.Message + "\n")
			}
			for _, m := range tc.mentions {
				if !strings.Contains(msgs.String(), m) {
					t.Errorf("the caveats do not say %q:\n%s", m, msgs.String())
				}
			}
			// Every caveat travels with the analysis warnings.
			for _, c := range a.BestTowerCaveats {
				if !slices.Contains(codes(a.Warnings), c.Code) {
					t.Errorf("caveat %s is not among the analysis warnings %v", c.Code, codes(a.Warnings))
				}
			}
		})
	}
}

// withStandings returns towers where about a third are made real
// regulator towers and a third crowd towers of random position
// uncertainty (100 m to 8 km), the rest left synthetic.
func withStandings(towers []*appliance.Tower, r *rand.Rand) []*appliance.Tower {
	out := make([]*appliance.Tower, len(towers))
	for i, t0 := range towers {
		t := *t0
		switch r.IntN(3) {
		case 0:
			t.Synthetic, t.Source, t.Placement, t.UncertaintyM = false, appliance.SourceAnatel, appliance.PlacementSurveyed, 30
			t.ID = "anatel:" + t.ID
		case 1:
			t.Synthetic, t.Source, t.Placement, t.UncertaintyM = false, appliance.SourceOpenCelliD, appliance.PlacementCrowd, 100+7900*r.Float64()
			t.ID = "ocid:" + t.ID
		}
		out[i] = &t
	}
	return out
}

// TestIssue20_RankingPruningIsExact: with towers of every standing, the
// free-space and sparse bounds give the exhaustive search's best tower,
// alternatives, caveats and warnings (seed printed), and the cases do
// rank a real tower above a stronger one.
func TestIssue20_RankingPruningIsExact(t *testing.T) {
	s := seed(t)
	ter := rioTerrain(t)
	r := rand.New(rand.NewPCG(s, 23))
	towers := withStandings(ptrs(catalog.SyntheticInBox(appliance.BBox{MinLat: -23, MinLon: -44, MaxLat: -22, MaxLon: -43}, 4, s)), r)
	fast := newPlanner(ter, towers, fspl.New())
	dense := newPlanner(ter, towers, fspl.New())
	dense.SparseEvery = 0
	slow := newPlanner(ter, towers, unbounded{fspl.New()})
	slow.MaxEvaluated = math.MaxInt
	slow.SparseEvery = 0
	promoted, caveated := 0, 0
	for i := 0; i < 40; i++ {
		req := request(-22.95+0.5*r.Float64(), -43.95+0.8*r.Float64())
		req.FreqMHz = []float64{700, 1800, 3500, 5800}[i%4]
		req.RxHeightM = []float64{3, 10, 30}[i%3]
		req.MaxAlternatives = i % 6
		req.RxThresholdDBm = []float64{-95, -75, -60}[i%3] // fewer links close
		var res [3]*appliance.LinkAnalysis
		for k, p := range []*planner.Planner{fast, dense, slow} {
			a, err := p.AnalyzeLink(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			res[k] = a
		}
		for k, name := range []string{"sparse-bounded", "free-space-bounded"} {
			if !reflect.DeepEqual(res[k].Best, res[2].Best) || !reflect.DeepEqual(res[k].Alternatives, res[2].Alternatives) ||
				!reflect.DeepEqual(res[k].BestTowerCaveats, res[2].BestTowerCaveats) || !reflect.DeepEqual(res[k].Warnings, res[2].Warnings) {
				t.Fatalf("case %d %+v: %s search differs from exhaustive search", i, req.Receiver, name)
			}
		}
		if b := res[2].Best; b != nil {
			if slices.Contains(codes(res[2].BestTowerCaveats), appliance.WarnStrongerTowerDemoted) {
				promoted++
			}
			if len(res[2].BestTowerCaveats) > 0 {
				caveated++
			}
		}
	}
	t.Logf("40 requests: %d ranked a real tower above a stronger one, %d with caveats", promoted, caveated)
	if promoted == 0 {
		t.Fatal("no case ranked a real tower above a stronger one: the test does not exercise the rule")
	}
}

// embeddedCatalogue is the catalogue `linkplan serve` builds on first
// start (appliance/cmd/linkplan, app.go): the embedded Anatel and
// OpenCelliD samples and 3 synthetic towers a municipality, each kept
// when it stands on the sample terrain.
func embeddedCatalogue(t *testing.T, ter appliance.Terrain) []*appliance.Tower {
	t.Helper()
	gaz, err := catalog.EmbeddedGazetteer()
	if err != nil {
		t.Fatal(err)
	}
	onTerrain := func(tw *appliance.Tower) bool { _, err := ter.ElevationM(tw.Pos()); return err == nil }
	rs := refresh.New(gaz, slog.New(slog.NewTextHandler(io.Discard, nil)))
	rs.Sources = []refresh.Source{
		{Name: "embedded:anatel_erbs_sample.csv", Read: refresh.ReadAllFrom(sampledata.AnatelERBs()), Keep: onTerrain},
		{Name: "embedded:opencellid_724_sample.csv", Read: refresh.ReadAllFrom(sampledata.OpenCelliD()), Keep: onTerrain},
	}
	var all []*appliance.Tower
	rs.Apply = func(ts []*appliance.Tower) error { all = append([]*appliance.Tower(nil), ts...); return nil }
	if _, err := rs.RefreshOnce(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	// The sample pack's bounds (S23W044 and S22W043).
	syn := catalog.SyntheticInBox(appliance.BBox{MinLat: -23, MinLon: -44, MaxLat: -21, MaxLon: -42}, 3, 1)
	for i := range syn {
		if onTerrain(&syn[i]) {
			all = append(all, &syn[i])
		}
	}
	return all
}

// TestIssue20_EmbeddedDataCrowdTowerNotBest: the issue's case on the data
// the appliance ships. In Rio (Benfica, -22.86, -43.26) the strongest
// tower is the OpenCelliD cell ocid:724-2-53121-13970186, 0.52 km away
// but placed within 5,000 m only; it used to be the best tower. The
// Anatel tower anatel:1000029007 (surveyed, 30 m) closes the link and is
// now the best; the crowd tower stays an alternative with its
// position_uncertainty warning, and best_tower_caveats names it.
func TestIssue20_EmbeddedDataCrowdTowerNotBest(t *testing.T) {
	ter := rioTerrain(t)
	towers := embeddedCatalogue(t, ter)
	ix := spatial.New(towers)
	reg, err := engines.New(engines.Config{})
	if err != nil {
		t.Fatal(err)
	}
	p := planner.New(ter, func() appliance.TowerIndex { return ix }, reg.WithFallback)
	req := appliance.LinkRequest{Receiver: appliance.LatLon{Lat: -22.86, Lon: -43.26}, FreqMHz: 1800}
	planner.Defaults(&req, nil)
	const crowd, real = "ocid:724-2-53121-13970186", "anatel:1000029007"
	for _, eng := range []appliance.EngineID{"fspl", "itm", "p1812"} {
		t.Run(string(eng), func(t *testing.T) {
			req.Engine = eng
			a, err := p.AnalyzeLink(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if a.Best == nil || a.Best.Tower.ID != real || a.Best.LinkMarginDB < 0 {
				t.Fatalf("best %+v, want %s closing", a.Best, real)
			}
			var alt *appliance.LinkCandidate
			for i := range a.Alternatives {
				if a.Alternatives[i].Tower.ID == crowd {
					alt = &a.Alternatives[i]
				}
			}
			if alt == nil || alt.LinkMarginDB <= a.Best.LinkMarginDB || !slices.Contains(codes(alt.Warnings), appliance.WarnPositionUncertainty) {
				t.Fatalf("the crowd tower is not a stronger alternative with its warning: %+v", alt)
			}
			w, ok := warningOf(a.BestTowerCaveats, appliance.WarnStrongerTowerDemoted)
			if !ok || !strings.Contains(w.Message, crowd) || !strings.Contains(w.Message, "uncertain by 5000 m") {
				t.Fatalf("best_tower_caveats %+v", a.BestTowerCaveats)
			}
			t.Logf("%s: best %s %.1f dB; %s %.1f dB at %.2f km; %s", eng, real, a.Best.LinkMarginDB, crowd, alt.LinkMarginDB, alt.DistanceKm, w.Message)
		})
	}
}

// TestIssue20_MissingTileCountsAlikeForEveryEngine: issue 20, "on the
// national set the same receiver gives fspl '25 towers evaluated, 142
// skipped for a missing tile' but itm '200 evaluated, none missing'". On a
// pack with a hole (3 × 3 synthetic tiles around São Paulo, the centre
// one, S24W047, left out) fspl, itm and p1812 skip the same towers for
// missing terrain and name the same tiles, those of an exhaustive check
// of every path in range, paths that cross the hole with both ends on
// terrain included.
func TestIssue20_MissingTileCountsAlikeForEveryEngine(t *testing.T) {
	var tiles []string
	for _, lat := range []int{23, 24, 25} {
		for _, lon := range []int{46, 47, 48} {
			if lat != 24 || lon != 47 {
				tiles = append(tiles, fmt.Sprintf("S%02dW%03d", lat, lon))
			}
		}
	}
	ter := syntheticPack(t, tiles)
	towers := ptrs(catalog.SyntheticInBox(appliance.BBox{MinLat: -25, MinLon: -48, MaxLat: -22, MaxLon: -45}, 6, 1))
	ix := spatial.New(towers)
	reg, err := engines.New(engines.Config{})
	if err != nil {
		t.Fatal(err)
	}
	crossing := 0
	for _, rx := range []appliance.LatLon{
		{Lat: -22.95, Lon: -46.9}, // north of the hole, near its corner
		{Lat: -23.6, Lon: -47.1},  // west of it
		{Lat: -24.1, Lon: -46.5},  // south of it
		{Lat: -23.3, Lon: -45.9},  // east of it
	} {
		req := appliance.LinkRequest{Receiver: rx, FreqMHz: 1800}
		planner.Defaults(&req, nil)
		req.MaxDistanceKm = 40
		// The exhaustive reference: every tower in range, its full profile.
		wantSkipped, wantTiles := 0, map[string]bool{}
		for _, tw := range ix.Within(rx, req.MaxDistanceKm*1000) {
			_, err := ter.Profile(tw.Pos(), rx, planner.DefaultProfileStepM)
			var tm *appliance.TileMissingError
			if errors.As(err, &tm) {
				wantSkipped++
				wantTiles[tm.Tile] = true
				if _, err := ter.ElevationM(tw.Pos()); err == nil {
					crossing++
				}
			}
		}
		var want []string
		for k := range wantTiles {
			want = append(want, k)
		}
		slices.Sort(want)
		for _, id := range []appliance.EngineID{"fspl", "itm", "p1812"} {
			eng, err := reg.Get(id)
			if err != nil {
				t.Fatal(err)
			}
			for _, maxEval := range []int{planner.DefaultMaxEvaluated, 20} {
				p := planner.New(ter, func() appliance.TowerIndex { return ix }, func(appliance.EngineID) (appliance.Engine, error) { return eng, nil })
				p.MaxEvaluated = maxEval
				a, err := p.AnalyzeLink(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				if a.SkippedNoTerrain != wantSkipped || !slices.Equal(a.MissingTiles, want) {
					t.Errorf("%v %s (at most %d evaluated): skipped %d for %v, want %d for %v (evaluated %d, pruned %d)",
						rx, id, maxEval, a.SkippedNoTerrain, a.MissingTiles, wantSkipped, want, a.Evaluated, a.Pruned)
				}
				if maxEval == planner.DefaultMaxEvaluated {
					t.Logf("%v %s: %d in range, %d evaluated, %d pruned, %d skipped for %v", rx, id, a.InRange, a.Evaluated, a.Pruned, a.SkippedNoTerrain, a.MissingTiles)
				}
			}
		}
	}
	if crossing == 0 {
		t.Fatal("no path crosses the hole with both ends on terrain: the test does not exercise it")
	}
	t.Logf("%d skipped paths cross the hole with both ends on terrain", crossing)
}
