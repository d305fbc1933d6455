package engines_test

import (
	"slices"
	"testing"

	"linkplan/appliance"
	"linkplan/engines"
)

// markedTerrain is profileTerrain with land cover and void marks: every
// sample gets class (nil layer when noLayer) and the samples of voidAt
// (indices) are void-filled.
type markedTerrain struct {
	profileTerrain
	noLayer bool
	class   uint8
	voidAt  []int
}

func (t markedTerrain) Profile(a, b appliance.LatLon, stepM float64) (*appliance.PathProfile, error) {
	p, err := t.profileTerrain.Profile(a, b, stepM)
	if err != nil {
		return nil, err
	}
	if !t.noLayer {
		p.ClutterClass = slices.Repeat([]uint8{t.class}, p.Len())
	}
	if len(t.voidAt) > 0 {
		p.VoidFilled = make([]bool, p.Len())
		for _, i := range t.voidAt {
			p.VoidFilled[i] = true
		}
	}
	return p, nil
}

func warningCodes(ws []appliance.Warning) []string {
	out := []string{}
	for _, w := range ws {
		out = append(out, w.Code)
	}
	return out
}

// pathCodes keeps the codes appliance.PathWarnings raises.
func pathCodes(ws []appliance.Warning) []string {
	return slices.DeleteFunc(warningCodes(ws), func(c string) bool {
		return c != appliance.WarnFSPLObstructed && c != appliance.WarnNoLandCover && c != appliance.WarnVoidFilledTerrain
	})
}

// TestFinding3_CaseRoutesRaisePathWarnings: issue 7, findings 1 and 3 on
// POST /coverage/engines/predict and /compare (PredictCase, CompareCase):
// fspl_obstructed whenever fspl answers an obstructed path (asked for or
// as the fallback), and, for terrain-derived profiles only, no_land_cover
// and void_filled_terrain, from the same function as the planner
// (appliance.PathWarnings), before the engine's own warnings.
func TestFinding3_CaseRoutesRaisePathWarnings(t *testing.T) {
	reg := newRegistry(t)
	// The finding-11 path, blocked by the hills near both ends.
	explicit := loadCase(t, f11Case)
	explicit.ITM = engines.ITMParams{}
	base := &appliance.PathProfile{DistancesM: explicit.Profile.DistancesM, HeightsM: explicit.Profile.HeightsM}
	terrainCase := loadCase(t, "terrain_rio_auto.json")
	for _, tc := range []struct {
		name    string
		c       engines.Case
		engine  appliance.EngineID
		freq    float64 // MHz; 0 = the case's
		ter     appliance.Terrain
		want    []string
		fell    bool
		engineW string // an engine warning that must follow the path ones
	}{
		{name: "explicit profile, fspl obstructed", c: explicit, engine: appliance.EngineFSPL,
			want: []string{appliance.WarnFSPLObstructed}},
		{name: "explicit profile, raytrace falls back to fspl", c: explicit, engine: appliance.EngineRaytrace,
			want: []string{appliance.WarnFSPLObstructed}, fell: true, engineW: appliance.WarnEngineFallback},
		{name: "explicit profile, p1812 above 6 GHz falls back to fspl", c: explicit, engine: appliance.EngineP1812, freq: 8000,
			want: []string{appliance.WarnFSPLObstructed}, fell: true, engineW: appliance.WarnEngineFallback},
		{name: "explicit profile, p1812 says nothing of the path", c: explicit, engine: appliance.EngineP1812,
			want: []string{}},
		{name: "terrain without land cover, with voids", c: terrainCase, engine: appliance.EngineP1812,
			ter:  markedTerrain{profileTerrain: profileTerrain{base: base}, noLayer: true, voidAt: []int{5, 6, 9}},
			want: []string{appliance.WarnNoLandCover, appliance.WarnVoidFilledTerrain}},
		{name: "terrain whose land cover is all unknown", c: terrainCase, engine: appliance.EngineITM,
			ter:  markedTerrain{profileTerrain: profileTerrain{base: base}},
			want: []string{appliance.WarnNoLandCover}},
		{name: "terrain with land cover and no voids", c: terrainCase, engine: appliance.EngineP1812,
			ter:  markedTerrain{profileTerrain: profileTerrain{base: base}, class: 1},
			want: []string{}},
		{name: "terrain, fspl obstructed, voids", c: terrainCase, engine: appliance.EngineFSPL,
			ter:  markedTerrain{profileTerrain: profileTerrain{base: base}, class: 1, voidAt: []int{3}},
			want: []string{appliance.WarnFSPLObstructed, appliance.WarnVoidFilledTerrain}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			c.Engine = tc.engine
			if tc.freq != 0 {
				c.FrequencyMHz = tc.freq
			}
			res, err := reg.PredictCase(t.Context(), c, tc.ter)
			if err != nil {
				t.Fatal(err)
			}
			got := warningCodes(res.Warnings)
			if res.FellBack != tc.fell || !slices.Equal(got[:min(len(tc.want), len(got))], tc.want) || !slices.Equal(pathCodes(res.Warnings), tc.want) {
				t.Fatalf("used %s fellBack %v, warnings %v: want %v first (fell back %v)", res.UsedEngine, res.FellBack, got, tc.want, tc.fell)
			}
			if tc.engineW != "" && !slices.Contains(got[len(tc.want):], tc.engineW) {
				t.Errorf("warnings %v lack the engine's %s after the path's", got, tc.engineW)
			}
			for _, w := range res.Warnings {
				if w.Code == appliance.WarnVoidFilledTerrain && w.Message == "" {
					t.Errorf("empty message %+v", w)
				}
			}
			rows, err := reg.CompareCase(t.Context(), c, tc.ter)
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range rows {
				want := slices.DeleteFunc(slices.Clone(tc.want), func(code string) bool {
					return code == appliance.WarnFSPLObstructed
				})
				if row.UsedEngine == appliance.EngineFSPL && !row.FresnelOK {
					want = append([]string{appliance.WarnFSPLObstructed}, want...)
				}
				if got := pathCodes(row.Warnings); row.Error == "" && !slices.Equal(got, want) {
					t.Errorf("compare row %s (used %s): path warnings %v, want %v", row.Engine, row.UsedEngine, got, want)
				}
			}
		})
	}
}
