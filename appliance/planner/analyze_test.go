package planner_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/catalog"
	"linkplan/appliance/planner"
	"linkplan/engines/fspl"
	"linkplan/store/spatial"
	"linkplan/terrain-packs/packer"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

func seed(t testing.TB) uint64 {
	s := uint64(20261122)
	if v, err := strconv.ParseUint(os.Getenv("SEED"), 10, 64); err == nil {
		s = v
	}
	t.Logf("SEED=%d", s)
	return s
}

// rioTerrain is the real embedded SRTM3 sample (S23W044, S22W043).
func rioTerrain(t testing.TB) appliance.Terrain {
	t.Helper()
	p, err := terrain.OpenBytes(sample.Pack())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ptrs(ts []appliance.Tower) []*appliance.Tower {
	out := make([]*appliance.Tower, len(ts))
	for i := range ts {
		out[i] = &ts[i]
	}
	return out
}

// unbounded hides the free-space bound of fspl, forcing the planner to
// evaluate every candidate: the exhaustive reference.
type unbounded struct{ *fspl.Engine }

func (unbounded) LossAtLeastFreeSpace() bool { return false }

func newPlanner(ter appliance.Terrain, towers []*appliance.Tower, eng appliance.Engine) *planner.Planner {
	ix := spatial.New(towers)
	return planner.New(ter, func() appliance.TowerIndex { return ix }, func(id appliance.EngineID) (appliance.Engine, error) {
		if id != "" && id != eng.ID() {
			return nil, appliance.Invalid("engine", "unknown engine %q", id)
		}
		return eng, nil
	})
}

func request(lat, lon float64) appliance.LinkRequest {
	r := appliance.LinkRequest{Receiver: appliance.LatLon{Lat: lat, Lon: lon}, FreqMHz: 1800}
	planner.Defaults(&r, nil)
	r.MaxDistanceKm = 25
	return r
}

// TestPruningMatchesExhaustiveSearch: the free-space bound and the sparse
// profile bound change the work, never the answer.
func TestPruningMatchesExhaustiveSearch(t *testing.T) {
	s := seed(t)
	ter := rioTerrain(t)
	towers := ptrs(catalog.SyntheticInBox(appliance.BBox{MinLat: -23, MinLon: -44, MaxLat: -22, MaxLon: -43}, 4, s))
	fast := newPlanner(ter, towers, fspl.New())
	dense := newPlanner(ter, towers, fspl.New())
	dense.SparseEvery = 0
	slow := newPlanner(ter, towers, unbounded{fspl.New()})
	slow.MaxEvaluated = math.MaxInt
	slow.SparseEvery = 0
	r := rand.New(rand.NewPCG(s, 7))
	var evalFast, evalDense, evalSlow, pruned int
	for i := 0; i < 40; i++ {
		req := request(-22.95+0.5*r.Float64(), -43.95+0.8*r.Float64())
		req.FreqMHz = []float64{700, 1800, 3500, 5800}[i%4]
		req.RxHeightM = []float64{3, 10, 30}[i%3]
		req.MaxAlternatives = i % 6
		var res [3]*appliance.LinkAnalysis
		for k, p := range []*planner.Planner{fast, dense, slow} {
			a, err := p.AnalyzeLink(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			res[k] = a
		}
		for k, name := range []string{"sparse-bounded", "free-space-bounded"} {
			if !reflect.DeepEqual(res[k].Best, res[2].Best) || !reflect.DeepEqual(res[k].Alternatives, res[2].Alternatives) {
				t.Fatalf("case %d %+v: %s search differs from exhaustive search", i, req.Receiver, name)
			}
		}
		if res[1].Pruned != 0 || res[2].Pruned != 0 {
			t.Fatalf("case %d: pruned %d/%d with the sparse bound off", i, res[1].Pruned, res[2].Pruned)
		}
		if res[0].Evaluated+res[0].Pruned > res[1].Evaluated {
			t.Fatalf("case %d: sparse bound evaluated %d + pruned %d, more than the %d of the free-space bound alone", i, res[0].Evaluated, res[0].Pruned, res[1].Evaluated)
		}
		evalFast, evalDense, evalSlow, pruned = evalFast+res[0].Evaluated, evalDense+res[1].Evaluated, evalSlow+res[2].Evaluated, pruned+res[0].Pruned
	}
	t.Logf("full paths over 40 requests: exhaustive %d, free-space bound %d, free-space and sparse bounds %d (+%d sparse paths)", evalSlow, evalDense, evalFast, pruned)
	if pruned == 0 {
		t.Fatal("the sparse bound pruned nothing: the test does not exercise it")
	}
}

func TestAnalyzeLinkRealTerrain(t *testing.T) {
	ter := rioTerrain(t)
	// Two towers near Tijuca forest: one on the receiver's side of the
	// massif, one behind it (Pico da Tijuca, 1021 m, in between).
	near := appliance.Tower{ID: "user:near", Operator: "A", Lat: -22.975, Lon: -43.23, HeightM: 30, ERPDBm: 55, AzimuthDeg: math.NaN(), TiltDeg: math.NaN()}
	behind := appliance.Tower{ID: "user:behind", Operator: "B", Lat: -22.925, Lon: -43.31, HeightM: 30, ERPDBm: 55, AzimuthDeg: math.NaN(), TiltDeg: math.NaN()}
	p := newPlanner(ter, []*appliance.Tower{&near, &behind}, fspl.New())
	req := request(-22.96, -43.21)
	res, err := p.AnalyzeLink(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Best == nil || res.Best.Tower.ID != "user:near" || len(res.Alternatives) != 1 {
		t.Fatalf("best = %+v alternatives %d", res.Best, len(res.Alternatives))
	}
	alt := res.Alternatives[0]
	if alt.Prediction.LOSClear || alt.Prediction.DiffractionDB < 10 {
		t.Fatalf("path across the Tijuca massif should be obstructed: %+v", alt.Prediction)
	}
	b := res.Best
	want := b.EIRPDBm - b.PatternLossDB - b.Prediction.PathLossDB + req.RxGainDBi - req.CableLossDB
	if math.Abs(b.RxPowerDBm-want) > 1e-9 || math.Abs(b.LinkMarginDB-(want-req.RxThresholdDBm)) > 1e-9 {
		t.Fatalf("link budget does not add up: %+v", b)
	}
	if math.Abs(b.EIRPDBm-57.15) > 1e-9 || b.EIRPAssumed {
		t.Fatalf("EIRP from ERP 55 dBm: got %g", b.EIRPDBm)
	}
	if res.ReceiverGroundM < 0 || res.ReceiverGroundM > 200 {
		t.Fatalf("receiver ground %g m", res.ReceiverGroundM)
	}
}

func TestAnalyzeLinkOutcomes(t *testing.T) {
	ter := rioTerrain(t)
	tw := appliance.Tower{ID: "user:t", Operator: "Vivo", Lat: -22.97, Lon: -43.19, HeightM: 30, ERPDBm: math.NaN(), AzimuthDeg: math.NaN(), TiltDeg: math.NaN()}
	// A tower in tile S23W043 (not in the pack).
	east := appliance.Tower{ID: "user:east", Operator: "Vivo", Lat: -22.9, Lon: -42.95, HeightM: 30, ERPDBm: math.NaN(), AzimuthDeg: math.NaN(), TiltDeg: math.NaN()}
	p := newPlanner(ter, []*appliance.Tower{&tw, &east}, fspl.New())
	ctx := context.Background()

	t.Run("operator filter leaves nothing", func(t *testing.T) {
		req := request(-22.96, -43.2)
		req.Operator = "TIM"
		res, err := p.AnalyzeLink(ctx, req)
		if err != nil || res.Best != nil || res.Reason == "" {
			t.Fatalf("got %+v, %v", res, err)
		}
	})
	t.Run("operator filter is case-insensitive", func(t *testing.T) {
		req := request(-22.96, -43.2)
		req.Operator = "vivo"
		res, err := p.AnalyzeLink(ctx, req)
		if err != nil || res.Best == nil || !res.Best.EIRPAssumed {
			t.Fatalf("got %+v, %v", res, err)
		}
	})
	t.Run("tower on a missing tile is skipped and named", func(t *testing.T) {
		req := request(-22.96, -43.2)
		req.MaxDistanceKm = 40
		res, err := p.AnalyzeLink(ctx, req)
		if err != nil || res.SkippedNoTerrain != 1 || len(res.MissingTiles) != 1 || res.MissingTiles[0] != "S23W043" {
			t.Fatalf("got %+v, %v", res, err)
		}
	})
	t.Run("receiver outside every pack", func(t *testing.T) {
		_, err := p.AnalyzeLink(ctx, request(-25.4, -49.2))
		var tm *appliance.TileMissingError
		if !errors.As(err, &tm) || tm.Tile != "S26W050" {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("invalid fields are all named", func(t *testing.T) {
		req := request(-95, 200)
		req.FreqMHz, req.RxHeightM, req.MaxAlternatives = math.NaN(), 0, 9
		_, err := p.AnalyzeLink(ctx, req)
		var ve *appliance.ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("got %v", err)
		}
		got := map[string]bool{}
		for _, f := range ve.Fields {
			got[f.Field] = true
		}
		for _, f := range []string{"receiver.lat", "receiver.lon", "frequency_mhz", "receiver.height_m", "max_alternatives"} {
			if !got[f] {
				t.Errorf("field %s not named in %v", f, ve)
			}
		}
	})
}

func TestPatternLoss(t *testing.T) {
	for _, tc := range []struct {
		name          string
		azimuth, bear float64
		want          float64
	}{
		{"omni", math.NaN(), 123, 0},
		{"boresight", 90, 90, 0},
		{"half beamwidth is 3 dB", 90, 90 + 32.5, 3},
		{"wraps around north", 350, 10, 12 * (20.0 / 65) * (20.0 / 65)},
		{"back lobe capped", 0, 180, 25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := planner.PatternLossDB(tc.azimuth, tc.bear); math.Abs(got-tc.want) > 1e-9 {
				t.Fatalf("got %g want %g", got, tc.want)
			}
		})
	}
}

func TestDeterministicWhateverTheTowerOrder(t *testing.T) {
	s := seed(t)
	ter := rioTerrain(t)
	towers := ptrs(catalog.SyntheticInBox(appliance.BBox{MinLat: -23, MinLon: -44, MaxLat: -22, MaxLon: -43}, 2, s))
	rev := make([]*appliance.Tower, len(towers))
	for i := range towers {
		rev[len(towers)-1-i] = towers[i]
	}
	req := request(-22.9, -43.3)
	a, _ := newPlanner(ter, towers, fspl.New()).AnalyzeLink(context.Background(), req)
	b, _ := newPlanner(ter, rev, fspl.New()).AnalyzeLink(context.Background(), req)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("results depend on the order towers were indexed")
	}
}

// syntheticPack writes deterministic synthetic 3" .hgt tiles (rolling hills
// 0–1100 m) for the given tiles and packs them. Real national packs are not
// committed; this gives the benchmark terrain wherever its towers are.
func syntheticPack(b testing.TB, tiles []string) appliance.Terrain {
	dir := b.TempDir()
	var inputs []string
	for _, name := range tiles {
		var latS, lonW int
		fmt.Sscanf(name, "S%02dW%03d", &latS, &lonW)
		raw := make([]byte, 1201*1201*2)
		for r := 0; r < 1201; r++ {
			lat := float64(-latS+1) - float64(r)/1200
			for c := 0; c < 1201; c++ {
				lon := float64(-lonW) + float64(c)/1200
				h := 550 + 300*math.Sin(lat*37)*math.Cos(lon*29) + 200*math.Sin(lat*131+lon*97) + 50*math.Sin(lat*701)*math.Sin(lon*653)
				binary.BigEndian.PutUint16(raw[2*(r*1201+c):], uint16(int16(math.Round(h))))
			}
		}
		p := filepath.Join(dir, name+".hgt")
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			b.Fatal(err)
		}
		inputs = append(inputs, p)
	}
	out := filepath.Join(dir, "bench.ltp")
	if _, err := packer.Build(context.Background(), out, inputs, packer.Options{}); err != nil {
		b.Fatal(err)
	}
	p, err := terrain.Open(out)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	return p
}

func benchNational(b *testing.B, eng appliance.Engine, maxEval int) {
	towers := ptrs(catalog.SyntheticNational(140000, 1))
	ter := syntheticPack(b, []string{"S24W047", "S24W048", "S25W047", "S25W048", "S23W047", "S23W048"})
	p := newPlanner(ter, towers, eng)
	if maxEval < 0 {
		p.SparseEvery = 0
	} else {
		p.MaxEvaluated = maxEval
	}
	req := request(-23.5505, -46.6333) // São Paulo, the densest area of the synthetic set
	req.MaxDistanceKm = 50
	res, err := p.AnalyzeLink(context.Background(), req)
	if err != nil || res.Best == nil {
		b.Fatalf("%+v %v", res, err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.AnalyzeLink(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.InRange), "towers_in_range")
	b.ReportMetric(float64(res.Evaluated), "paths_evaluated")
	b.ReportMetric(float64(res.Pruned), "sparse_paths")
}

// BenchmarkAnalyzeLinkNational: 140,000 towers, receiver in São Paulo,
// 50 km radius, fspl with exact pruning.
func BenchmarkAnalyzeLinkNational(b *testing.B) {
	benchNational(b, fspl.New(), planner.DefaultMaxEvaluated)
}

// BenchmarkAnalyzeLinkNationalDense is the same search with the free-space
// bound only (no sparse profile bound).
func BenchmarkAnalyzeLinkNationalDense(b *testing.B) {
	benchNational(b, fspl.New(), -1)
}

// BenchmarkAnalyzeLinkNationalNaive evaluates the terrain path of every tower
// in range: the baseline the pruning is measured against.
func BenchmarkAnalyzeLinkNationalNaive(b *testing.B) {
	benchNational(b, unbounded{fspl.New()}, math.MaxInt)
}

func TestColocatedTowerIsSkippedNotFatal(t *testing.T) {
	ter := rioTerrain(t)
	at := appliance.Tower{ID: "user:here", Operator: "A", Lat: -22.96, Lon: -43.21, HeightM: 30, ERPDBm: 55, AzimuthDeg: math.NaN(), TiltDeg: math.NaN()}
	near := appliance.Tower{ID: "user:near", Operator: "A", Lat: -22.975, Lon: -43.23, HeightM: 30, ERPDBm: 55, AzimuthDeg: math.NaN(), TiltDeg: math.NaN()}
	p := newPlanner(ter, []*appliance.Tower{&at, &near}, fspl.New())
	res, err := p.AnalyzeLink(context.Background(), request(-22.96, -43.21))
	if err != nil || res.Best == nil || res.Best.Tower.ID != "user:near" || res.SkippedOther != 1 || len(res.SkipReasons) != 1 {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestUserTowersAreScopedToTheirTenant(t *testing.T) {
	ter := rioTerrain(t)
	mine := appliance.Tower{ID: "user:mine", Source: appliance.SourceUser, OwnerTenantID: "t1", Operator: "A", Lat: -22.975, Lon: -43.23, HeightM: 30, ERPDBm: 55, AzimuthDeg: math.NaN(), TiltDeg: math.NaN()}
	p := newPlanner(ter, []*appliance.Tower{&mine}, fspl.New())
	for _, tc := range []struct {
		tenant string
		found  bool
	}{{"t1", true}, {"t2", false}, {"", true}} {
		req := request(-22.96, -43.21)
		req.TenantID = tc.tenant
		res, err := p.AnalyzeLink(context.Background(), req)
		if err != nil || (res.Best != nil) != tc.found {
			t.Fatalf("tenant %q: best %v, %v", tc.tenant, res.Best, err)
		}
	}
}

// BenchmarkAnalyzeLinkRioBatch is a row of BenchmarkBatch5kAsync without
// the server: 140,000 towers, 200 receivers spread over the embedded Rio
// terrain as that benchmark spreads them, 30 km, its four frequencies;
// one op is the 200 analyses. For paired before/after runs of the
// per-row analysis (ns/op ÷ 200 is a row).
func BenchmarkAnalyzeLinkRioBatch(b *testing.B) {
	towers := ptrs(catalog.SyntheticNational(140000, 1))
	p := newPlanner(rioTerrain(b), towers, fspl.New())
	rng := rand.New(rand.NewPCG(1, 2))
	reqs := make([]appliance.LinkRequest, 200)
	for i := range reqs {
		reqs[i] = request(-22.99+0.25*rng.Float64(), -43.70+0.70*rng.Float64())
		reqs[i].MaxDistanceKm = 30
		reqs[i].FreqMHz = []float64{700, 1800, 2600, 3500}[rng.IntN(4)]
	}
	var inRange, evaluated, pruned int
	for _, r := range reqs {
		res, err := p.AnalyzeLink(context.Background(), r)
		if err != nil {
			b.Fatal(err)
		}
		inRange, evaluated, pruned = inRange+res.InRange, evaluated+res.Evaluated, pruned+res.Pruned
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range reqs {
			if _, err := p.AnalyzeLink(context.Background(), r); err != nil {
				b.Fatal(err)
			}
		}
	}
	n := float64(len(reqs))
	b.ReportMetric(float64(inRange)/n, "towers_in_range/row")
	b.ReportMetric(float64(evaluated)/n, "paths_evaluated/row")
	b.ReportMetric(float64(pruned)/n, "sparse_paths/row")
}
