package repeater

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"math/rand/v2"

	"linkplan/appliance"
	"linkplan/engines"
	"linkplan/store/spatial"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

// rioTerrain is the real embedded SRTM3 sample (S23W044, S22W043); the
// tile S23W043 (Niterói) is absent.
func rioTerrain(t testing.TB) appliance.Terrain {
	t.Helper()
	p, err := terrain.OpenBytes(sample.Pack())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func synthTower(id string, lat, lon, h float64) *appliance.Tower {
	return &appliance.Tower{ID: "synthetic:" + id, Source: appliance.SourceSynthetic, Operator: "Test", Lat: lat, Lon: lon,
		HeightM: h, ERPDBm: math.NaN(), AzimuthDeg: math.NaN(), TiltDeg: math.NaN(), Synthetic: true}
}

// rioTowers are synthetic relay towers in the north-west of Rio (Campo
// Grande to Pavuna, across the Gericinó ridge), one far off the corridor
// and one user tower of tenant-b on the line.
func rioTowers() []*appliance.Tower {
	var ts []*appliance.Tower
	for i, p := range [][2]float64{{-22.78, -43.62}, {-22.76, -43.55}, {-22.80, -43.52}, {-22.77, -43.45}, {-22.79, -43.40},
		{-22.75, -43.37}, {-22.82, -43.58}, {-22.74, -43.48}, {-22.72, -43.50}, {-22.70, -43.45}, {-22.73, -43.58}, {-22.71, -43.40}} {
		ts = append(ts, synthTower(fmt.Sprint("t", i), p[0], p[1], 40))
	}
	ts[7].HeightM = 0 // unknown: 30 m
	return append(ts,
		synthTower("far", -22.400, -43.450, 40), // 40 km off the line: not a candidate
		&appliance.Tower{ID: "user:other", Source: appliance.SourceUser, OwnerTenantID: "tenant-b", Lat: -22.775, Lon: -43.50, HeightM: 60,
			ERPDBm: math.NaN(), AzimuthDeg: math.NaN(), TiltDeg: math.NaN()})
}

func newTestService(t testing.TB, ter appliance.Terrain, towers []*appliance.Tower) *Service {
	t.Helper()
	reg, err := engines.New(engines.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ix := spatial.New(towers)
	return New(ter, func() appliance.TowerIndex { return ix }, reg.Get, 0)
}

func rioRequest(engine appliance.EngineID) Request {
	r := Request{
		From:     Endpoint{Site: &Site{Pos: appliance.LatLon{Lat: -22.78, Lon: -43.68}, HeightM: 40}},
		To:       Endpoint{Site: &Site{Pos: appliance.LatLon{Lat: -22.77, Lon: -43.32}, HeightM: 40}},
		FreqMHz:  1800,
		MaxHopM:  15_000,
		MaxHops:  5,
		Engine:   engine,
		TenantID: "tenant-a",
	}
	Defaults(&r, nil)
	return r
}

// checkPlanRoute checks the invariants of a route against the request.
func checkPlanRoute(t *testing.T, req Request, r *Route) {
	t.Helper()
	if len(r.Hops) == 0 || len(r.Hops) > req.MaxHops {
		t.Fatalf("%d hops, max %d", len(r.Hops), req.MaxHops)
	}
	if r.Hops[0].From.Kind != "from" || r.Hops[len(r.Hops)-1].To.Kind != "to" {
		t.Fatalf("route does not run from 'from' to 'to': %+v", r.Hops)
	}
	worst, sum, minMargin := math.Inf(-1), 0.0, math.Inf(1)
	for i, h := range r.Hops {
		if i > 0 && h.From != r.Hops[i-1].To {
			t.Fatalf("hop %d starts at %+v, hop %d ended at %+v", i, h.From, i-1, r.Hops[i-1].To)
		}
		if h.DistanceM > req.MaxHopM {
			t.Errorf("hop %d is %g m > max_hop_m %g", i, h.DistanceM, req.MaxHopM)
		}
		if h.MarginDB < req.MinMarginDB {
			t.Errorf("hop %d margin %g dB < %g", i, h.MarginDB, req.MinMarginDB)
		}
		if want := req.EIRPDBm - h.PathLossDB + req.RxGainDBi - req.RxThresholdDBm; h.MarginDB != want {
			t.Errorf("hop %d margin %g, budget gives %g", i, h.MarginDB, want)
		}
		if h.EffectiveLossDB != h.PathLossDB+h.FresnelPenaltyDB {
			t.Errorf("hop %d effective loss %g != %g + %g", i, h.EffectiveLossDB, h.PathLossDB, h.FresnelPenaltyDB)
		}
		if (h.FresnelPenaltyDB != 0) != (h.LOSClear && !h.FresnelOK) {
			t.Errorf("hop %d penalty %g with LOS %v Fresnel %v", i, h.FresnelPenaltyDB, h.LOSClear, h.FresnelOK)
		}
		if h.EngineVersion == "" {
			t.Errorf("hop %d has no engine version", i)
		}
		worst = math.Max(worst, h.EffectiveLossDB)
		sum += h.EffectiveLossDB
		minMargin = math.Min(minMargin, h.MarginDB)
	}
	if r.BottleneckLossDB != worst || r.Hops[r.BottleneckHop].EffectiveLossDB != worst || r.TotalLossDB != sum || r.MinMarginDB != minMargin {
		t.Fatalf("route summary (bottleneck %d %g, total %g, min margin %g), hops give (%g, %g, %g)",
			r.BottleneckHop, r.BottleneckLossDB, r.TotalLossDB, r.MinMarginDB, worst, sum, minMargin)
	}
}

// TestPlanRioEndToEnd: on the real Rio terrain with the real engines the
// plan meets every constraint, each hop's figures are the engine's on the
// terrain profile, the route equals a brute-force search over the same
// evaluated graph, a repeated plan is answered from the cache alone, and
// the worker count does not change the answer.
func TestPlanRioEndToEnd(t *testing.T) {
	ter := rioTerrain(t)
	reg, err := engines.New(engines.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []appliance.EngineID{appliance.EngineFSPL, appliance.EngineITM, appliance.EngineP1812} {
		t.Run(string(id), func(t *testing.T) {
			svc := newTestService(t, ter, rioTowers())
			req := rioRequest(id)
			req.Alternatives = 2
			ctx := context.Background()
			plan, err := svc.Plan(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if plan.Route == nil {
				t.Fatalf("no route: %s (counts %+v, fails %v)", plan.Reason, plan.Counts, plan.FailReasons)
			}
			var desc []string
			for _, h := range plan.Route.Hops {
				desc = append(desc, fmt.Sprintf("%s→%s %.0f m %.1f dB (margin %.1f, LOS %v, F1 %.2f)",
					label(h.From), label(h.To), h.DistanceM, h.EffectiveLossDB, h.MarginDB, h.LOSClear, h.MinClearanceRatio))
			}
			t.Logf("%s route: %s; bottleneck hop %d; counts %+v; %d alternatives", id, strings.Join(desc, ", "),
				plan.Route.BottleneckHop, plan.Counts, len(plan.Alternatives))
			if plan.Counts.Candidates != 12 {
				t.Errorf("candidates %d, want 12 (t0..t11: not 'far', not tenant-b's tower)", plan.Counts.Candidates)
			}
			checkPlanRoute(t, req, plan.Route)
			for i := range plan.Alternatives {
				checkPlanRoute(t, req, &plan.Alternatives[i])
			}
			if len(plan.Route.Hops) < 2 {
				t.Errorf("direct route over %g m with max_hop_m %g", plan.Route.Hops[0].DistanceM, req.MaxHopM)
			}

			// Each hop is the engine's answer on the terrain profile.
			eng, _ := reg.Get(id)
			for i, h := range plan.Route.Hops {
				prof, err := ter.Profile(h.From.Pos, h.To.Pos, DefaultProfileStepM)
				if err != nil {
					t.Fatal(err)
				}
				pred, err := eng.Predict(ctx, appliance.LinkInput{Tx: h.From.Pos, Rx: h.To.Pos, TxHeightM: h.From.HeightM,
					RxHeightM: h.To.HeightM, FreqMHz: req.FreqMHz, Profile: prof})
				if err != nil {
					t.Fatal(err)
				}
				if pred.PathLossDB != h.PathLossDB || pred.LOSClear != h.LOSClear || pred.FresnelOK != h.FresnelOK ||
					pred.MinClearanceRatio != h.MinClearanceRatio || pred.EngineVersion != h.EngineVersion {
					t.Errorf("hop %d: %+v, engine says %+v", i, h, pred)
				}
			}

			// Brute force over the fully evaluated graph of the same plan.
			g := exhaustiveGraph(t, svc, req)
			m := make([][]float64, len(g.nodes))
			for u := range m {
				if m[u], err = g.row(u, math.MaxInt32); err != nil {
					t.Fatal(err)
				}
			}
			want, ok := bruteForce(m, 0, 1, req.MaxHops, nil)
			if !ok || want.max != plan.Route.BottleneckLossDB || want.sum != plan.Route.TotalLossDB || want.hops() != len(plan.Route.Hops) {
				t.Fatalf("brute force (found %v) %v (%g, %g, %d), plan (%g, %g, %d)", ok, want.nodes, want.max, want.sum, want.hops(),
					plan.Route.BottleneckLossDB, plan.Route.TotalLossDB, len(plan.Route.Hops))
			}
			// Lazy: the plan evaluated no more edges than the whole graph has.
			fresh := exhaustiveGraph(t, newTestService(t, ter, rioTowers()), req)
			for u := range fresh.nodes {
				if _, err := fresh.row(u, math.MaxInt32); err != nil {
					t.Fatal(err)
				}
			}
			if plan.Counts.EdgesEvaluated > fresh.counts.EdgesEvaluated {
				t.Errorf("plan evaluated %d edges, the whole graph has %d", plan.Counts.EdgesEvaluated, fresh.counts.EdgesEvaluated)
			}

			// Warm: the same plan again evaluates nothing and answers the same.
			again, err := svc.Plan(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if again.Counts.EdgesEvaluated != 0 || again.Counts.EdgesCacheHits == 0 {
				t.Errorf("warm plan counts %+v: want 0 evaluated and some cache hits", again.Counts)
			}
			if !reflect.DeepEqual(again.Route, plan.Route) || !reflect.DeepEqual(again.Alternatives, plan.Alternatives) {
				t.Errorf("warm plan differs from the cold one")
			}

			// Another worker count, cold: the same answer.
			one := newTestService(t, ter, rioTowers())
			one.Workers = 1
			serial, err := one.Plan(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(serial.Route, plan.Route) || !reflect.DeepEqual(serial.Alternatives, plan.Alternatives) ||
				serial.Counts != plan.Counts {
				t.Errorf("1 worker: %+v, %d workers: %+v", serial.Counts, svc.Workers, plan.Counts)
			}
		})
	}
}

// exhaustiveGraph builds the plan graph of req (as Plan does) for
// evaluating every edge.
func exhaustiveGraph(t *testing.T, s *Service, req Request) *planGraph {
	t.Helper()
	ix := s.Towers()
	from, err := s.resolve(ix, "from", "from", req.From, req.TenantID)
	if err != nil {
		t.Fatal(err)
	}
	to, err := s.resolve(ix, "to", "to", req.To, req.TenantID)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := s.Engine(req.Engine)
	if err != nil {
		t.Fatal(err)
	}
	var c Counts
	nodes := append([]Node{from, to}, s.candidates(ix, &req, from, to, &c)...)
	return newPlanGraph(s, context.Background(), &req, eng, nodes)
}

// TestPlanLazy: the search evaluates only the edges out of the nodes it
// expands: a 3-hop plan without alternatives touches fewer edges than the
// graph has.
func TestPlanLazy(t *testing.T) {
	ter := rioTerrain(t)
	req := rioRequest(appliance.EngineITM)
	req.To, req.MaxHops = Endpoint{TowerID: "synthetic:t3"}, 3
	svc := newTestService(t, ter, rioTowers())
	plan, err := svc.Plan(context.Background(), req)
	if err != nil || plan.Route == nil || len(plan.Route.Hops) != 3 {
		t.Fatalf("plan %+v, err %v", plan, err)
	}
	g := exhaustiveGraph(t, newTestService(t, ter, rioTowers()), req)
	for u := range g.nodes {
		if _, err := g.row(u, math.MaxInt32); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("plan evaluated %d edges, pruned %d; the graph has %d to evaluate", plan.Counts.EdgesEvaluated, plan.Counts.EdgesPruned, g.counts.EdgesEvaluated)
	if plan.Counts.EdgesEvaluated >= g.counts.EdgesEvaluated {
		t.Fatalf("plan evaluated %d edges, the whole graph %d: not lazy", plan.Counts.EdgesEvaluated, g.counts.EdgesEvaluated)
	}
}

// TestPlanMissingTerrain: edges whose profile needs the absent tile
// S23W043 are absent and counted, the route avoids them; an endpoint on
// the absent tile is an ErrTerrainMissing error naming it.
func TestPlanMissingTerrain(t *testing.T) {
	ter := rioTerrain(t)
	svc := newTestService(t, ter, nil)
	req := Request{
		From:    Endpoint{Site: &Site{Pos: appliance.LatLon{Lat: -22.88, Lon: -43.25}, HeightM: 40}},
		To:      Endpoint{Site: &Site{Pos: appliance.LatLon{Lat: -22.88, Lon: -43.10}, HeightM: 40}},
		FreqMHz: 1800,
		Engine:  appliance.EngineFSPL,
		CandidateSites: []Site{
			{Pos: appliance.LatLon{Lat: -22.87, Lon: -42.98}, HeightM: 40}, // Niterói: tile S23W043 absent
			{Pos: appliance.LatLon{Lat: -22.86, Lon: -43.17}, HeightM: 40},
		},
		MinMarginDB: -50,
		MaxHopM:     20_000,
	}
	Defaults(&req, map[string]bool{"min_margin_db": true})
	plan, err := svc.Plan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("counts %+v missing %v", plan.Counts, plan.MissingTiles)
	if plan.Counts.EdgesMissingTerrain == 0 || !reflect.DeepEqual(plan.MissingTiles, []string{"S23W043"}) {
		t.Fatalf("missing terrain not counted: %+v, tiles %v", plan.Counts, plan.MissingTiles)
	}
	if plan.Route == nil {
		t.Fatalf("no route: %s", plan.Reason)
	}
	for _, h := range plan.Route.Hops {
		if h.To.Kind == "site" && h.To.Site == 0 {
			t.Fatalf("route uses the site without terrain: %+v", plan.Route.Hops)
		}
	}

	req.To.Site.Pos = appliance.LatLon{Lat: -22.88, Lon: -42.95}
	_, err = svc.Plan(context.Background(), req)
	var tm *appliance.TileMissingError
	if !errors.Is(err, appliance.ErrTerrainMissing) || !errors.As(err, &tm) || tm.Tile != "S23W043" || !strings.Contains(err.Error(), "to terrain") {
		t.Fatalf("endpoint without terrain: %v", err)
	}
}

// TestPlanEndpointTowers: tower endpoints resolve with their heights;
// another tenant's user tower is unknown (as an endpoint) and never a relay.
func TestPlanEndpointTowers(t *testing.T) {
	ter := rioTerrain(t)
	// C stands where A stands: a relay co-located with an end is pruned,
	// not an engine failure.
	towers := append(rioTowers(), synthTower("A", -22.78, -43.68, 50), synthTower("B", -22.77, -43.32, 0),
		synthTower("C", -22.78, -43.68, 30))
	svc := newTestService(t, ter, towers)
	req := rioRequest(appliance.EngineFSPL)
	req.From, req.To = Endpoint{TowerID: "synthetic:A"}, Endpoint{TowerID: "synthetic:B"}
	plan, err := svc.Plan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Route == nil {
		t.Fatalf("no route: %s", plan.Reason)
	}
	if plan.Counts.EdgesFailed != 0 {
		t.Errorf("%d edges failed: %v", plan.Counts.EdgesFailed, plan.FailReasons)
	}
	first, last := plan.Route.Hops[0].From, plan.Route.Hops[len(plan.Route.Hops)-1].To
	if first.TowerID != "synthetic:A" || first.HeightM != 50 || last.TowerID != "synthetic:B" || last.HeightM != appliance.DefaultTowerHeightM {
		t.Fatalf("endpoints %+v, %+v", first, last)
	}
	for _, tc := range []struct {
		name   string
		tenant string
		id     string
		want   error
	}{
		{"unknown tower", "tenant-a", "synthetic:nope", appliance.ErrNotFound},
		{"other tenant's tower", "tenant-a", "user:other", appliance.ErrNotFound},
		{"own tenant's tower", "tenant-b", "user:other", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := req
			r.TenantID = tc.tenant
			r.To = Endpoint{TowerID: tc.id}
			_, err := svc.Plan(context.Background(), r)
			if !errors.Is(err, tc.want) || tc.want != nil && !strings.Contains(err.Error(), "to.tower_id") {
				t.Fatalf("err %v, want %v naming to.tower_id", err, tc.want)
			}
		})
	}
}

// TestValidate: each bad field is reported under its JSON name.
func TestValidate(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(r *Request)
		field string
	}{
		{"no from", func(r *Request) { r.From = Endpoint{} }, "from"},
		{"both tower and site", func(r *Request) { r.To.TowerID = "anatel:1" }, "to"},
		{"from lat", func(r *Request) { r.From.Site.Pos.Lat = 91 }, "from.lat"},
		{"from lon NaN", func(r *Request) { r.From.Site.Pos.Lon = math.NaN() }, "from.lon"},
		{"to height zero", func(r *Request) { r.To.Site.HeightM = 0 }, "to.height_m"},
		{"same site", func(r *Request) { r.To.Site.Pos = r.From.Site.Pos }, "to"},
		{"same tower", func(r *Request) {
			r.From, r.To = Endpoint{TowerID: "anatel:1"}, Endpoint{TowerID: "anatel:1"}
		}, "to.tower_id"},
		{"frequency low", func(r *Request) { r.FreqMHz = 10 }, "frequency_mhz"},
		{"frequency Inf", func(r *Request) { r.FreqMHz = math.Inf(1) }, "frequency_mhz"},
		{"max hops 0", func(r *Request) { r.MaxHops = 0 }, "max_hops"},
		{"max hops 9", func(r *Request) { r.MaxHops = 9 }, "max_hops"},
		{"max hop distance", func(r *Request) { r.MaxHopM = 250_000 }, "max_hop_m"},
		{"min margin", func(r *Request) { r.MinMarginDB = 200 }, "min_margin_db"},
		{"eirp", func(r *Request) { r.EIRPDBm = -1 }, "eirp_dbm"},
		{"rx gain", func(r *Request) { r.RxGainDBi = 61 }, "rx_gain_dbi"},
		{"threshold", func(r *Request) { r.RxThresholdDBm = 5 }, "rx_threshold_dbm"},
		{"relay height", func(r *Request) { r.RelayHeightM = -3 }, "relay_height_m"},
		{"corridor", func(r *Request) { r.CorridorM = 60_000 }, "corridor_m"},
		{"alternatives", func(r *Request) { r.Alternatives = 4 }, "alternatives"},
		{"candidate site lat", func(r *Request) {
			r.CandidateSites = []Site{{Pos: appliance.LatLon{Lat: -22.9, Lon: -43.3}, HeightM: 10}, {Pos: appliance.LatLon{Lat: -95, Lon: -43.3}, HeightM: 10}}
		}, "candidate_sites[1].lat"},
		{"too many candidate sites", func(r *Request) { r.CandidateSites = make([]Site, MaxCandidateSites+1) }, "candidate_sites"},
	}
	svc := newTestService(t, rioTerrain(t), nil)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := rioRequest(appliance.EngineFSPL)
			tc.edit(&r)
			err := Validate(&r)
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("err %v, want a ValidationError", err)
			}
			if len(ve.Fields) != 1 || ve.Fields[0].Field != tc.field {
				t.Fatalf("fields %+v, want exactly %q", ve.Fields, tc.field)
			}
			if _, err := svc.Plan(context.Background(), r); !errors.Is(err, appliance.ErrInvalid) || !strings.Contains(err.Error(), "plan repeater") {
				t.Fatalf("Plan: %v", err)
			}
		})
	}
	r := rioRequest(appliance.EngineFSPL)
	if err := Validate(&r); err != nil {
		t.Fatalf("the base request is invalid: %v", err)
	}
}

// TestDefaults: zero fields get the documented defaults unless set says
// the client gave them.
func TestDefaults(t *testing.T) {
	r := Request{}
	Defaults(&r, nil)
	want := Request{MaxHops: DefaultMaxHops, MaxHopM: DefaultMaxHopM, MinMarginDB: DefaultMinMarginDB, EIRPDBm: DefaultEIRPDBm,
		RxGainDBi: DefaultRxGainDBi, RxThresholdDBm: DefaultRxThresholdDBm, CorridorM: DefaultCorridorM,
		Assumed: []string{"min_margin_db", "eirp_dbm", "rx_gain_dbi", "rx_threshold_dbm"}}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("defaults %+v, want %+v", r, want)
	}
	r = Request{MaxHops: 5}
	Defaults(&r, map[string]bool{"min_margin_db": true, "corridor_m": true, "eirp_dbm": true})
	if r.MaxHops != 5 || r.MinMarginDB != 0 || r.CorridorM != 0 || !reflect.DeepEqual(r.Assumed, []string{"rx_gain_dbi", "rx_threshold_dbm"}) {
		t.Fatalf("explicit values overwritten or listed as assumed: %+v", r)
	}
}

// TestNeedsJob: plans of 4 or more hops run as jobs (SPEC §4.2).
func TestNeedsJob(t *testing.T) {
	svc := &Service{}
	for _, tc := range []struct {
		name    string
		maxHops int
		want    bool
	}{
		{"default 3", 0, false}, {"1 hop", 1, false}, {"3 hops", 3, false}, {"4 hops", 4, true}, {"8 hops", 8, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := svc.NeedsJob(Request{MaxHops: tc.maxHops}); got != tc.want {
				t.Fatalf("NeedsJob(%d) = %v", tc.maxHops, got)
			}
		})
	}
}

// TestEdgeCacheLRU: the cache keeps the most recently used entries and is
// safe for concurrent use.
func TestEdgeCacheLRU(t *testing.T) {
	c := NewEdgeCache(2)
	k := func(i int) edgeCacheKey { return edgeCacheKey{txLat: int64(i)} }
	c.put(k(1), edgeFigures{PathLossDB: 1})
	c.put(k(2), edgeFigures{PathLossDB: 2})
	c.get(k(1)) // 1 is now the most recent
	c.put(k(3), edgeFigures{PathLossDB: 3})
	if _, ok := c.get(k(2)); ok {
		t.Fatal("entry 2 should have been evicted")
	}
	if f, ok := c.get(k(1)); !ok || f.PathLossDB != 1 {
		t.Fatal("entry 1 lost")
	}
	if c.Len() != 2 {
		t.Fatalf("len %d", c.Len())
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				c.put(k(g*1000+i), edgeFigures{})
				c.get(k(i))
			}
		}(g)
	}
	wg.Wait()
	if c.Len() != 2 {
		t.Fatalf("len %d after concurrent use", c.Len())
	}
	// Keys round positions to 1e-6 degrees and heights to centimetres.
	a := newEdgeCacheKey(appliance.LatLon{Lat: -22.9000001, Lon: -43.1}, appliance.LatLon{Lat: -22.8, Lon: -43.2}, 30.001, 10, 1800, "fspl")
	b := newEdgeCacheKey(appliance.LatLon{Lat: -22.9, Lon: -43.1}, appliance.LatLon{Lat: -22.8, Lon: -43.2}, 30, 10, 1800, "fspl")
	if a != b {
		t.Fatalf("keys differ: %+v %+v", a, b)
	}
}

// TestCrossTrack: distances to the segment, inside and beyond its ends.
func TestCrossTrack(t *testing.T) {
	a, b := appliance.LatLon{Lat: -22.9, Lon: -43.6}, appliance.LatLon{Lat: -22.9, Lon: -43.2}
	for _, tc := range []struct {
		name string
		p    appliance.LatLon
		want float64
	}{
		{"on the line", appliance.LatLon{Lat: -22.9, Lon: -43.4}, 0},
		{"beside the middle", appliance.LatLon{Lat: -22.8, Lon: -43.4}, 11_120},
		{"beyond b", appliance.LatLon{Lat: -22.9, Lon: -43.1}, b.DistanceM(appliance.LatLon{Lat: -22.9, Lon: -43.1})},
		{"before a", appliance.LatLon{Lat: -22.9, Lon: -43.7}, a.DistanceM(appliance.LatLon{Lat: -22.9, Lon: -43.7})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := crossTrackM(a, b, tc.p); math.Abs(got-tc.want) > 60 {
				t.Fatalf("crossTrackM = %g m, want %g m", got, tc.want)
			}
		})
	}
}

func benchPlan(b *testing.B, warm bool) {
	ter := rioTerrain(b)
	// from → t0 or t1 → t8 → t3: three hops across the Gericinó ridge.
	req := rioRequest(appliance.EngineITM)
	req.To, req.MaxHops = Endpoint{TowerID: "synthetic:t3"}, 3
	svc := newTestService(b, ter, rioTowers())
	ctx := context.Background()
	plan, err := svc.Plan(ctx, req)
	if err != nil || plan.Route == nil {
		b.Fatalf("plan: %v %+v", err, plan)
	}
	if len(plan.Route.Hops) != 3 {
		b.Fatalf("route has %d hops, want 3", len(plan.Route.Hops))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !warm {
			b.StopTimer()
			svc = newTestService(b, ter, rioTowers())
			b.StartTimer()
		}
		if _, err := svc.Plan(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanWarm3Hops: a repeated 3-hop plan (itm) answered from the
// edge cache; goal ≤ 10 ms (SPEC < 100 ms).
func BenchmarkPlanWarm3Hops(b *testing.B) { benchPlan(b, true) }

// BenchmarkPlanCold3Hops: the same plan with an empty edge cache (the
// terrain tiles stay decoded), the baseline of the warm one.
func BenchmarkPlanCold3Hops(b *testing.B) { benchPlan(b, false) }

// denseTowers adds n seeded random towers across the corridor of
// rioRequest to rioTowers (the seed is logged).
func denseTowers(b testing.TB, n int) []*appliance.Tower {
	rng := rand.New(rand.NewPCG(seed(b), 4))
	ts := rioTowers()
	for i := 0; i < n; i++ {
		ts = append(ts, synthTower(fmt.Sprint("d", i), -22.82+0.12*rng.Float64(), -43.66+0.32*rng.Float64(), 20+40*rng.Float64()))
	}
	return ts
}

func benchDense(b *testing.B, warm bool) {
	ter := rioTerrain(b)
	req := rioRequest(appliance.EngineITM)
	req.MaxHops = 3
	req.MaxHopM = 20_000
	towers := denseTowers(b, 300)
	svc := newTestService(b, ter, towers)
	ctx := context.Background()
	plan, err := svc.Plan(ctx, req)
	if err != nil || plan.Route == nil {
		b.Fatalf("plan: %v %+v", err, plan)
	}
	b.Logf("route %d hops, counts %+v", len(plan.Route.Hops), plan.Counts)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !warm {
			b.StopTimer()
			svc = newTestService(b, ter, towers)
			b.StartTimer()
		}
		if _, err := svc.Plan(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanWarm3HopsDense: a repeated 3-hop plan (itm) among 300
// more random towers in the corridor (312 candidates).
func BenchmarkPlanWarm3HopsDense(b *testing.B) { benchDense(b, true) }

// BenchmarkPlanCold3HopsDense: its cold baseline.
func BenchmarkPlanCold3HopsDense(b *testing.B) { benchDense(b, false) }

// TestPlanCancelled: a cancelled context stops a plan, cold or warm.
func TestPlanCancelled(t *testing.T) {
	svc := newTestService(t, rioTerrain(t), rioTowers())
	req := rioRequest(appliance.EngineFSPL)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, name := range []string{"cold", "warm"} {
		t.Run(name, func(t *testing.T) {
			if name == "warm" {
				if _, err := svc.Plan(context.Background(), req); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := svc.Plan(ctx, req); !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v, want context.Canceled", err)
			}
		})
	}
}

// TestLongerThanMaxHopMatchesDistance: the chord shortcut answers as
// LatLon.DistanceM does, near the threshold included.
func TestLongerThanMaxHopMatchesDistance(t *testing.T) {
	rng := rand.New(rand.NewPCG(seed(t), 7))
	for i := 0; i < 2000; i++ {
		maxHop := 100 + 199_900*rng.Float64()
		a := appliance.LatLon{Lat: -33 + 38*rng.Float64(), Lon: -74 + 40*rng.Float64()}
		d := maxHop * (0.5 + rng.Float64())
		if i%2 == 0 {
			d = maxHop * (1 + 1e-7*(rng.Float64()-0.5)) // at the threshold
		}
		b := a.Destination(360*rng.Float64(), d)
		req := Request{MaxHopM: maxHop}
		g := newPlanGraph(&Service{}, context.Background(), &req, nil, []Node{{Pos: a}, {Pos: b}})
		if got, want := g.longerThanMaxHop(0, 1), a.DistanceM(b) > maxHop; got != want {
			t.Fatalf("%v–%v, max %g m: chord says %v, DistanceM %g m", a, b, maxHop, got, a.DistanceM(b))
		}
	}
}

// TestPlanTooFar: ends farther apart than max_hops × max_hop_m get no
// route, a reason saying so, and no terrain work.
func TestPlanTooFar(t *testing.T) {
	svc := newTestService(t, rioTerrain(t), rioTowers())
	req := rioRequest(appliance.EngineITM)
	req.MaxHops, req.MaxHopM = 2, 10_000 // the ends are 37 km apart
	plan, err := svc.Plan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Route != nil || !strings.Contains(plan.Reason, "more than max_hops") || plan.Counts.EdgesEvaluated != 0 {
		t.Fatalf("route %v, reason %q, counts %+v", plan.Route, plan.Reason, plan.Counts)
	}
}

// TestPlanTinyCache: with a one-edge cache the route's figures are
// evaluated again after eviction, and the plan equals the one with a
// roomy cache.
func TestPlanTinyCache(t *testing.T) {
	ter := rioTerrain(t)
	req := rioRequest(appliance.EngineITM)
	req.Alternatives = 2
	big := newTestService(t, ter, rioTowers())
	tiny := newTestService(t, ter, rioTowers())
	tiny.cache = NewEdgeCache(1)
	want, err := big.Plan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tiny.Plan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if want.Route == nil || !reflect.DeepEqual(got.Route, want.Route) || !reflect.DeepEqual(got.Alternatives, want.Alternatives) {
		t.Fatalf("tiny cache: %+v\nroomy cache: %+v", got.Route, want.Route)
	}
}

// panicTerrain panics on the profiles that end at or start from one
// position (a stand-in for an engine bug on some hop).
type panicTerrain struct {
	appliance.Terrain
	at appliance.LatLon
}

func (p panicTerrain) Profile(a, b appliance.LatLon, stepM float64) (*appliance.PathProfile, error) {
	if a == p.at || b == p.at {
		panic("profile bug")
	}
	return p.Terrain.Profile(a, b, stepM)
}

// TestIssue20_EdgePanicIsAFailedEdge: an edge whose evaluation panics on
// a worker goroutine is a failed edge with the request's reference among
// the fail reasons; the plan answers with the other edges.
func TestIssue20_EdgePanicIsAFailedEdge(t *testing.T) {
	bad := appliance.LatLon{Lat: -22.87, Lon: -43.20}
	svc := newTestService(t, panicTerrain{Terrain: rioTerrain(t), at: bad}, nil)
	var counted sync.Map
	svc.Recover = &appliance.Recoverer{Log: slog.New(slog.DiscardHandler), Count: func(c string) {
		n, _ := counted.LoadOrStore(c, new(atomic.Int32))
		n.(*atomic.Int32).Add(1)
	}}
	req := Request{
		From:           Endpoint{Site: &Site{Pos: appliance.LatLon{Lat: -22.88, Lon: -43.25}, HeightM: 40}},
		To:             Endpoint{Site: &Site{Pos: appliance.LatLon{Lat: -22.88, Lon: -43.10}, HeightM: 40}},
		FreqMHz:        1800,
		Engine:         appliance.EngineFSPL,
		CandidateSites: []Site{{Pos: bad, HeightM: 40}, {Pos: appliance.LatLon{Lat: -22.86, Lon: -43.17}, HeightM: 40}},
		MinMarginDB:    -50,
		MaxHopM:        20_000,
	}
	Defaults(&req, map[string]bool{"min_margin_db": true})
	ctx := appliance.WithActor(context.Background(), appliance.Actor{RequestID: "req-edge"})
	plan, err := svc.Plan(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := counted.Load("repeater.edge")
	if plan.Route == nil || plan.Counts.EdgesFailed == 0 || n == nil || n.(*atomic.Int32).Load() != int32(plan.Counts.EdgesFailed) ||
		len(plan.FailReasons) == 0 || !strings.Contains(plan.FailReasons[0], "internal error (reference req-edge)") {
		t.Fatalf("route %v, counts %+v, reasons %v", plan.Route != nil, plan.Counts, plan.FailReasons)
	}
}
