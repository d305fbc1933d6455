package planner_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/planner"
	"linkplan/engines"
	"linkplan/store/spatial"
)

// registryPlanner is a planner over the real sample terrain whose engines
// are the registry's, with the fspl fallback (as in the appliance).
func registryPlanner(t *testing.T, towers ...*appliance.Tower) (*planner.Planner, appliance.Terrain) {
	t.Helper()
	ter := rioTerrain(t)
	reg, err := engines.New(engines.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ix := spatial.New(towers)
	return planner.New(ter, func() appliance.TowerIndex { return ix }, reg.WithFallback), ter
}

func codes(ws []appliance.Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Code
	}
	return out
}

func warningOf(ws []appliance.Warning, code string) (appliance.Warning, bool) {
	for _, w := range ws {
		if w.Code == code {
			return w, true
		}
	}
	return appliance.Warning{}, false
}

// The obstructed 6.5 km path of issue 7, finding 3, on the real Rio tiles:
// receiver on the hills above Laranjeiras (143 m ground), tower 6.5 km to
// the south-east at sea level, a 177 m ridge 2.2 km from the receiver in
// between. The tower has no ERP (crowd-sourced) and an 800 m position
// uncertainty.
var (
	f3Receiver = appliance.LatLon{Lat: -22.95, Lon: -43.2}
	f3Tower    = appliance.Tower{ID: "ocid:f3", Operator: "Vivo", Lat: -22.97922, Lon: -43.14501, HeightM: 30,
		ERPDBm: math.NaN(), AzimuthDeg: math.NaN(), TiltDeg: math.NaN(), Source: appliance.SourceOpenCelliD,
		Placement: appliance.PlacementCrowd, UncertaintyM: 800}
)

// TestFinding3_ObstructedPathWarnsPerEngine: issue 7, finding 3. On a 6.5 km
// obstructed path at 3.5 GHz fspl is optimistic by about 10 dB against
// P.1812 and by tens of dB against ITM; now fspl's answer says so
// (fspl_obstructed), and every engine's answer carries the EIRP, position
// and data warnings, as arrays, never nil.
func TestFinding3_ObstructedPathWarnsPerEngine(t *testing.T) {
	tw := f3Tower
	p, ter := registryPlanner(t, &tw)
	prof, err := ter.Profile(tw.Pos(), f3Receiver, planner.DefaultProfileStepM)
	if err != nil {
		t.Fatal(err)
	}
	voids, _ := prof.VoidStats()
	margins := map[appliance.EngineID]float64{}
	for _, id := range []appliance.EngineID{appliance.EngineFSPL, appliance.EngineP1812, appliance.EngineITM} {
		t.Run(string(id), func(t *testing.T) {
			req := request(f3Receiver.Lat, f3Receiver.Lon)
			req.FreqMHz, req.MaxDistanceKm, req.Engine = 3500, 10, id
			res, err := p.AnalyzeLink(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			b := res.Best
			if b == nil || b.Prediction.Engine != id {
				t.Fatalf("best %+v", b)
			}
			if b.Prediction.LOSClear || math.Abs(b.DistanceKm-6.5) > 0.05 {
				t.Fatalf("want the obstructed 6.5 km path: %.3f km, LOS %v", b.DistanceKm, b.Prediction.LOSClear)
			}
			margins[id] = b.LinkMarginDB
			got := codes(b.Warnings)
			t.Logf("%s margin %+.1f dB, warnings %v", id, b.LinkMarginDB, got)
			want := map[string]bool{
				appliance.WarnFSPLObstructed:      id == appliance.EngineFSPL,
				appliance.WarnEIRPAssumed:         true,
				appliance.WarnPositionUncertainty: true, // 800 m > 10 % of 6.5 km
				appliance.WarnSyntheticTower:      false,
				appliance.WarnNoLandCover:         prof.ClutterClass == nil,
				appliance.WarnVoidFilledTerrain:   voids > 0,
			}
			for code, w := range want {
				if slices.Contains(got, code) != w {
					t.Errorf("warning %s present %v, want %v (got %v)", code, !w, w, got)
				}
			}
			if w, ok := warningOf(b.Warnings, appliance.WarnFSPLObstructed); ok && !strings.Contains(w.Message, "P.1812 and ITM") {
				t.Errorf("fspl_obstructed does not name the design engines: %q", w.Message)
			}
			if res.Warnings == nil || len(res.Warnings) < len(b.Warnings)-countEngine(b.Warnings) {
				t.Errorf("analysis warnings %v do not merge the best's %v", codes(res.Warnings), got)
			}
			for _, w := range append(slices.Clone(b.Warnings), res.Warnings...) {
				if w.Code == "" || w.Message == "" || strings.Contains(w.Message, "analyze link:") {
					t.Errorf("warning %+v", w)
				}
			}
		})
	}
	if !(margins[appliance.EngineFSPL] > margins[appliance.EngineP1812]+5 && margins[appliance.EngineP1812] > margins[appliance.EngineITM]) {
		t.Errorf("margins fspl %+.1f, p1812 %+.1f, itm %+.1f dB: fspl should be the optimistic one", margins[appliance.EngineFSPL], margins[appliance.EngineP1812], margins[appliance.EngineITM])
	}
}

func countEngine(ws []appliance.Warning) int {
	n := 0
	for _, w := range ws {
		switch w.Code {
		case appliance.WarnITM, appliance.WarnITMTroposcatter, appliance.WarnOutsideValidity, appliance.WarnEngineFallback,
			appliance.WarnProfileResampled, appliance.WarnParameterIgnored:
			n++
		}
	}
	return n
}

// TestFinding3_CandidateWarnings: each link-result warning on synthetic
// inputs, with the figures its message must carry.
func TestFinding3_CandidateWarnings(t *testing.T) {
	flat := flatProfile(11, 1000, 0, nil)
	voided := flatProfile(11, 1000, 0, nil)
	voided.VoidFilled = []bool{false, true, true, true, false, false, true, false, false, false, false}
	voided.ClutterClass = slices.Repeat([]uint8{1}, 11) // forest
	covered := flatProfile(11, 1000, 0, nil)
	covered.ClutterClass = slices.Repeat([]uint8{1}, 11)
	unknown := flatProfile(11, 1000, 0, nil)
	unknown.ClutterClass = make([]uint8, 11) // a layer, every sample class 0
	endsUnknown := flatProfile(11, 1000, 0, nil)
	endsUnknown.ClutterClass = []uint8{0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0}
	oneEndKnown := flatProfile(11, 1000, 0, nil)
	oneEndKnown.ClutterClass = []uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}
	real := &appliance.Tower{ID: "anatel:1", Placement: appliance.PlacementSurveyed, UncertaintyM: 10}
	for _, tc := range []struct {
		name     string
		c        appliance.LinkCandidate
		prof     *appliance.PathProfile
		want     []string
		contains []string // in the messages
	}{
		{name: "clean p1812 path with land cover", prof: covered, want: []string{},
			c: appliance.LinkCandidate{Tower: real, DistanceKm: 1, Prediction: appliance.LinkPrediction{Engine: appliance.EngineP1812, FresnelOK: false}}},
		{name: "fspl on a blocked path", prof: covered, want: []string{appliance.WarnFSPLObstructed},
			contains: []string{"blocks the line of sight", "-0.50 F1", "P.1812 and ITM"},
			c:        appliance.LinkCandidate{Tower: real, DistanceKm: 1, Prediction: appliance.LinkPrediction{Engine: appliance.EngineFSPL, MinClearanceRatio: -0.5}}},
		{name: "fspl with LOS but a shadowed Fresnel zone", prof: covered, want: []string{appliance.WarnFSPLObstructed},
			contains: []string{"less than 60 % clear"},
			c:        appliance.LinkCandidate{Tower: real, DistanceKm: 1, Prediction: appliance.LinkPrediction{Engine: appliance.EngineFSPL, LOSClear: true, MinClearanceRatio: 0.3}}},
		{name: "fspl on a clear path says nothing", prof: covered, want: []string{},
			c: appliance.LinkCandidate{Tower: real, DistanceKm: 1, Prediction: appliance.LinkPrediction{Engine: appliance.EngineFSPL, LOSClear: true, FresnelOK: true, MinClearanceRatio: 1}}},
		{name: "assumed EIRP and synthetic tower", prof: covered, want: []string{appliance.WarnEIRPAssumed, appliance.WarnSyntheticTower},
			contains: []string{"58.0 dBm"},
			c: appliance.LinkCandidate{Tower: &appliance.Tower{ID: "syn:1", Synthetic: true}, DistanceKm: 1, EIRPDBm: 58, EIRPAssumed: true,
				Prediction: appliance.LinkPrediction{Engine: appliance.EngineITM, FresnelOK: true}}},
		{name: "uncertainty just above 10 %", prof: covered, want: []string{appliance.WarnPositionUncertainty},
			contains: []string{"801 m", "centroid", "2.00 km"},
			c: appliance.LinkCandidate{Tower: &appliance.Tower{UncertaintyM: 801, Placement: appliance.PlacementCentroid}, DistanceKm: 2,
				Prediction: appliance.LinkPrediction{Engine: appliance.EngineP1812, FresnelOK: true}}},
		{name: "uncertainty of exactly 10 % is accepted", prof: covered, want: []string{},
			c: appliance.LinkCandidate{Tower: &appliance.Tower{UncertaintyM: 200}, DistanceKm: 2,
				Prediction: appliance.LinkPrediction{Engine: appliance.EngineP1812, FresnelOK: true}}},
		{name: "no land cover", prof: flat, want: []string{appliance.WarnNoLandCover},
			c: appliance.LinkCandidate{Tower: real, DistanceKm: 1, Prediction: appliance.LinkPrediction{Engine: appliance.EngineP1812, FresnelOK: true}}},
		{name: "land-cover layer but every sample unknown", prof: unknown, want: []string{appliance.WarnNoLandCover},
			contains: []string{"all unknown"},
			c:        appliance.LinkCandidate{Tower: real, DistanceKm: 1, Prediction: appliance.LinkPrediction{Engine: appliance.EngineP1812, FresnelOK: true}}},
		{name: "land-cover layer unknown at both antennas", prof: endsUnknown, want: []string{appliance.WarnNoLandCover},
			contains: []string{"either antenna"},
			c:        appliance.LinkCandidate{Tower: real, DistanceKm: 1, Prediction: appliance.LinkPrediction{Engine: appliance.EngineP1812, FresnelOK: true}}},
		{name: "land-cover class at one antenna is enough", prof: oneEndKnown, want: []string{},
			c: appliance.LinkCandidate{Tower: real, DistanceKm: 1, Prediction: appliance.LinkPrediction{Engine: appliance.EngineP1812, FresnelOK: true}}},
		{name: "path warnings come first, tower warnings next", prof: unknown,
			want: []string{appliance.WarnFSPLObstructed, appliance.WarnNoLandCover, appliance.WarnEIRPAssumed, appliance.WarnEngineFallback},
			c: appliance.LinkCandidate{Tower: real, DistanceKm: 1, EIRPAssumed: true, Prediction: appliance.LinkPrediction{Engine: appliance.EngineFSPL, MinClearanceRatio: -1,
				Warnings: []appliance.Warning{{Code: appliance.WarnEngineFallback, Message: "x"}}}}},
		{name: "void-filled samples with count and span", prof: voided, want: []string{appliance.WarnVoidFilledTerrain},
			contains: []string{"4 void-filled", "300 m"},
			c:        appliance.LinkCandidate{Tower: real, DistanceKm: 1, Prediction: appliance.LinkPrediction{Engine: appliance.EngineP1812, FresnelOK: true}}},
		{name: "engine warnings follow", prof: covered, want: []string{appliance.WarnEngineFallback},
			c: appliance.LinkCandidate{Tower: real, DistanceKm: 1, Prediction: appliance.LinkPrediction{Engine: appliance.EngineP1812, FresnelOK: true,
				Warnings: []appliance.Warning{{Code: appliance.WarnEngineFallback, Message: "x"}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := planner.CandidateWarnings(&tc.c, tc.prof)
			if got == nil || !slices.Equal(codes(got), tc.want) {
				t.Fatalf("codes %v, want %v", codes(got), tc.want)
			}
			all := ""
			for _, w := range got {
				all += w.Message + "\n"
			}
			for _, s := range tc.contains {
				if !strings.Contains(all, s) {
					t.Errorf("messages %q lack %q", all, s)
				}
			}
		})
	}
}

// TestFinding2_ProfileAndMinimumHeights: issue 7, finding 2, on the real
// finding-3 path. The candidates carry the path check only when asked;
// the check's geometry agrees with the engine's (los_clear, clearance
// ratio), the dominant obstacle lies on the profile, and mounting the
// receiver at the stated minimum heights gives line of sight and 60 % F1
// for the engine too.
func TestFinding2_ProfileAndMinimumHeights(t *testing.T) {
	tw := f3Tower
	p, _ := registryPlanner(t, &tw)
	req := request(f3Receiver.Lat, f3Receiver.Lon)
	req.FreqMHz, req.MaxDistanceKm, req.Engine = 3500, 10, appliance.EngineFSPL
	res, err := p.AnalyzeLink(context.Background(), req)
	if err != nil || res.Best == nil {
		t.Fatal(res, err)
	}
	if res.Best.Path != nil {
		t.Fatal("path check computed without include profile")
	}
	req.IncludeProfile = true
	res, err = p.AnalyzeLink(context.Background(), req)
	if err != nil || res.Best == nil || res.Best.Path == nil {
		t.Fatal(res, err)
	}
	pc, pred := res.Best.Path, res.Best.Prediction
	o := pc.Obstacle
	t.Logf("%d samples → %d points; obstacle %.0f m from the receiver, ground %.1f m, clearance %.1f m = %.3f F1; min rx LOS %.2f m, F60 %.2f m; min tower LOS %.2f m, F60 %.2f m",
		pc.SamplesTotal, len(pc.Profile), o.DistanceFromRxM, o.GroundM, o.ClearanceM, o.ClearanceF1,
		pc.RxMinLOS.HeightM, pc.RxMinFresnel60.HeightM, pc.TxMinLOS.HeightM, pc.TxMinFresnel60.HeightM)
	if math.Abs(o.ClearanceF1-pred.MinClearanceRatio) > 1e-9 || o.ClearanceM >= 0 || pred.LOSClear {
		t.Errorf("obstacle %+v disagrees with the engine (ratio %g, LOS %v)", o, pred.MinClearanceRatio, pred.LOSClear)
	}
	if pc.SamplesTotal != len(pc.Profile) || pc.SamplesTotal < 70 || pc.KFactor != 4.0/3.0 {
		t.Errorf("profile %d of %d samples, k %g", len(pc.Profile), pc.SamplesTotal, pc.KFactor)
	}
	if math.Abs(o.DistanceFromRxM+o.DistanceFromTxM-res.Best.Path.Profile[len(pc.Profile)-1].DistanceM) > 1e-6 {
		t.Errorf("obstacle distances %g + %g do not add up to the path", o.DistanceFromRxM, o.DistanceFromTxM)
	}
	if !pc.RxMinLOS.Achievable || !(pc.RxMinLOS.HeightM > req.RxHeightM) || !(pc.RxMinFresnel60.HeightM > pc.RxMinLOS.HeightM) {
		t.Fatalf("minimum receiver heights %+v %+v for a blocked 10 m receiver", pc.RxMinLOS, pc.RxMinFresnel60)
	}
	for _, h := range []struct {
		name   string
		height float64
		los    bool
	}{{"LOS", pc.RxMinLOS.HeightM, true}, {"60 % F1", pc.RxMinFresnel60.HeightM, false}} {
		raised := req
		raised.RxHeightM = h.height
		r2, err := p.AnalyzeLink(context.Background(), raised)
		if err != nil || r2.Best == nil || r2.Best.Tower.ID != tw.ID {
			t.Fatal(r2, err)
		}
		got := r2.Best.Prediction
		if h.los && !got.LOSClear || !h.los && !got.FresnelOK {
			t.Errorf("receiver at the %s minimum %.2f m: engine LOS %v fresnel %v (ratio %g)", h.name, h.height, got.LOSClear, got.FresnelOK, got.MinClearanceRatio)
		}
		if _, ok := warningOf(r2.Best.Warnings, appliance.WarnFSPLObstructed); ok == !h.los {
			t.Errorf("receiver at the %s minimum: fspl_obstructed %v", h.name, ok)
		}
	}
}

// TestFinding11_ITMLongObstructedPathSaysTroposcatter: issue 7, finding 11.
// An 87 km obstructed path at 700 MHz with a 5 m receiver on the real Rio
// tiles: ITM (NTIA v1.4, reproduced bit for bit; the profile and NTIA's
// figures are pinned in engines/testdata/cases and engines'
// TestFinding11_ITMTroposcatterPinnedToNTIA) answers in troposcatter mode
// with a loss near 258 dB and NTIA warning flags 0x680. The figure is
// NTIA's, so it stays; the answer says why it is so large: a diffraction
// part that is not 0 (NTIA ties the scatter line to the diffraction line at
// d_x), itm_troposcatter splitting A_ref and saying the steep horizon puts
// the figure outside ITM's validity, and one itm_warning per NTIA flag.
func TestFinding11_ITMLongObstructedPathSaysTroposcatter(t *testing.T) {
	tw := appliance.Tower{ID: "user:f11", Operator: "A", Lat: -22.8204, Lon: -43.8399, HeightM: 30, ERPDBm: 60,
		AzimuthDeg: math.NaN(), TiltDeg: math.NaN(), Placement: appliance.PlacementSurveyed}
	p, _ := registryPlanner(t, &tw)
	req := request(-22.62, -43.02)
	req.FreqMHz, req.RxHeightM, req.MaxDistanceKm, req.Engine = 700, 5, 100, appliance.EngineITM
	res, err := p.AnalyzeLink(context.Background(), req)
	if err != nil || res.Best == nil {
		t.Fatal(res, err)
	}
	b := res.Best
	pred := b.Prediction
	t.Logf("%.1f km: loss %.1f dB, diffraction %.1f dB, mode %g, a_ref %.1f dB, NTIA warning bits %#x; warnings %v",
		b.DistanceKm, pred.PathLossDB, pred.DiffractionDB, pred.Intermediate["mode"], pred.Intermediate["a_ref_db"], int(pred.Intermediate["warning_bits"]), codes(b.Warnings))
	if pred.Engine != appliance.EngineITM || math.Abs(b.DistanceKm-87) > 0.5 || pred.LOSClear {
		t.Fatalf("want ITM on the obstructed 87 km path: %+v", pred)
	}
	if pred.Intermediate["mode"] != 3 || math.Abs(pred.PathLossDB-258.382) > 0.001 || pred.DiffractionDB < 100 || pred.DiffractionDB > pred.Intermediate["a_ref_db"] {
		t.Fatalf("the reproduction moved: loss %g dB, mode %g, diffraction %g", pred.PathLossDB, pred.Intermediate["mode"], pred.DiffractionDB)
	}
	w, ok := warningOf(b.Warnings, appliance.WarnITMTroposcatter)
	if !ok || !strings.Contains(w.Message, "troposcatter") || !strings.Contains(w.Message, "not a design value") || strings.Contains(w.Message, "not diffraction") {
		t.Errorf("no itm_troposcatter warning: %v", b.Warnings)
	}
	bits := uint32(pred.Intermediate["warning_bits"])
	var flags int
	for _, w := range b.Warnings {
		if w.Code == appliance.WarnITM {
			flags++
			if !strings.Contains(w.Message, "ITM warning flag 0x") {
				t.Errorf("itm_warning %q does not name the NTIA bit", w.Message)
			}
		}
	}
	if bits == 0 || flags != popcount(bits) {
		t.Errorf("NTIA bits %#x but %d itm_warning", bits, flags)
	}
	if _, ok := warningOf(res.Warnings, appliance.WarnITMTroposcatter); !ok {
		t.Errorf("analysis warnings %v lack itm_troposcatter", codes(res.Warnings))
	}
}

func popcount(x uint32) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// TestFinding3_FSPLObstructedAfterFallback: when the requested engine
// cannot answer (P.1812 above 6 GHz) and fspl answers instead, the
// obstructed finding-3 path still says that fspl is optimistic there:
// fspl_obstructed before the engine's engine_fallback.
func TestFinding3_FSPLObstructedAfterFallback(t *testing.T) {
	tw := f3Tower
	p, _ := registryPlanner(t, &tw)
	for _, tc := range []struct {
		name   string
		engine appliance.EngineID
		freq   float64
		fell   bool
	}{
		{name: "p1812 above 6 GHz falls back to fspl", engine: appliance.EngineP1812, freq: 8000, fell: true},
		{name: "itm above 20 GHz falls back to fspl", engine: appliance.EngineITM, freq: 24000, fell: true},
		{name: "p1812 in range answers itself", engine: appliance.EngineP1812, freq: 3500, fell: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := request(f3Receiver.Lat, f3Receiver.Lon)
			req.FreqMHz, req.MaxDistanceKm, req.Engine = tc.freq, 10, tc.engine
			res, err := p.AnalyzeLink(context.Background(), req)
			if err != nil || res.Best == nil {
				t.Fatal(res, err)
			}
			b := res.Best
			got := codes(b.Warnings)
			fellBack := b.Prediction.Engine == appliance.EngineFSPL
			iObs, iFall := slices.Index(got, appliance.WarnFSPLObstructed), slices.Index(got, appliance.WarnEngineFallback)
			if fellBack != tc.fell || b.Prediction.FresnelOK || (iObs >= 0) != tc.fell || (iFall >= 0) != tc.fell || iObs > iFall {
				t.Fatalf("engine %s, fresnel ok %v, warnings %v", b.Prediction.Engine, b.Prediction.FresnelOK, got)
			}
			if _, ok := warningOf(res.Warnings, appliance.WarnFSPLObstructed); ok != tc.fell {
				t.Errorf("analysis warnings %v", codes(res.Warnings))
			}
		})
	}
}
