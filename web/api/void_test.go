package api_test

import (
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"linkplan/appliance"
	"linkplan/appliance/planner"
	"linkplan/engines"
	"linkplan/terrain-packs/packer"
	"linkplan/terrain-packs/terrain"
	"linkplan/web/api"
)

// Real SRTM3 v2.1 tile of Rio and the SYNTHETIC peak GeoTIFF (a 396 m
// cone at Pão de Açúcar standing in for a void-filled DEM; see
// terrain-packs/testdata/PROVENANCE.md).
const (
	srtmRio       = "../../terrain-packs/testdata/S23W044.hgt.zip"
	syntheticPeak = "../../terrain-packs/testdata/sugarloaf-synthetic-peak.tif"
)

// peakServer composes a second API over h's keys, towers and store whose
// terrain is a pack built from the SRTM tile S23W044 with the synthetic
// peak layered after it (earlier inputs win; the peak fills the SRTM
// voids under it).
func peakServer(tb testing.TB, h *harness) *httptest.Server {
	tb.Helper()
	return packServer(tb, h, []string{srtmRio, syntheticPeak}, packer.Options{},
		"S23W044 (SRTM3 v2.1) over a synthetic 396 m peak at Pão de Açúcar")
}

// oldPackServer is peakServer's API over a pack of S23W044 alone built
// without the void mask (format version 2, as packs before format 4).
func oldPackServer(tb testing.TB, h *harness) *httptest.Server {
	tb.Helper()
	return packServer(tb, h, []string{srtmRio}, packer.Options{NoVoidMask: true}, "S23W044 (SRTM3 v2.1), pack without void mask")
}

// packServer composes a second API over h's keys, towers and store whose
// terrain is the pack packer.Build makes of inputs with opts.
func packServer(tb testing.TB, h *harness, inputs []string, opts packer.Options, desc string) *httptest.Server {
	tb.Helper()
	out := filepath.Join(tb.TempDir(), "rio.ltp")
	if _, err := packer.Build(tb.Context(), out, inputs, opts); err != nil {
		tb.Fatal(err)
	}
	pack, err := terrain.Open(out)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { pack.Close() })
	terr := terrain.NewLayered(pack)
	reg, err := engines.New(engines.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	towers := func() appliance.TowerIndex { return h.index }
	plan := planner.New(terr, towers, reg.WithFallback)
	a := api.New(api.Deps{
		PlatformDeps:  api.PlatformDeps{Version: "test", Offline: true},
		AccessDeps:    api.AccessDeps{Auth: h.auth},
		CatalogueDeps: api.CatalogueDeps{Towers: towers, Search: h.search, Refreshes: h.db},
		LinkDeps:      api.LinkDeps{Links: plan, Pairs: plan, Engines: reg, Terrain: terr, Clutter: terr, TerrainDescription: desc},
	})
	a.SetState(api.StateReady)
	srv := httptest.NewServer(a)
	tb.Cleanup(srv.Close)
	return srv
}

// TestTerrainPointVoidFilled_Finding1 (issue 7, finding 1): GET
// /terrain/point says void_filled, with the void_filled_terrain warning,
// on the SRTM voids of Rio's summits (the elevation is still the
// interpolated value, far below the real summit) and not on measured
// ground, nor where a second DEM measured the void; on a pack without void
// mask whose tile had voids it says it cannot tell (void_filled null,
// void_mask_unavailable).
func TestTerrainPointVoidFilled_Finding1(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	servers := map[string]*httptest.Server{"sample": h.srv, "peak": peakServer(t, h), "old": oldPackServer(t, h)}
	doc := loadOpenAPI(t)
	cases := []struct {
		name     string
		server   string // sample: the embedded pack; peak: SRTM over the synthetic peak; old: SRTM without void mask
		lat, lon float64
		void     any     // void_filled: true, false or nil (null)
		warning  string  // the one warning code expected, "" for none
		minM     float64 // elevation_m at least, metres
		maxM     float64 // and at most
	}{
		{"Pão de Açúcar (396 m) on the sample pack", "sample", -22.9486, -43.1567, true, appliance.WarnVoidFilledTerrain, 0, 60},
		{"Dois Irmãos summit (533 m) on the sample pack", "sample", -22.9908, -43.2397, true, appliance.WarnVoidFilledTerrain, 150, 400},
		{"Corcovado (710 m) on the sample pack", "sample", -22.9519, -43.2105, true, appliance.WarnVoidFilledTerrain, 350, 660},
		{"Cantagalo, measured ground", "sample", -21.9811, -42.3678, false, "", 300, 600},
		{"Pão de Açúcar over the synthetic peak", "peak", -22.9486, -43.1567, false, "", 380, 396},
		{"Corcovado outside the synthetic peak stays void-filled", "peak", -22.9519, -43.2105, true, appliance.WarnVoidFilledTerrain, 350, 660},
		{"Pão de Açúcar on a pack without void mask is unknown", "old", -22.9486, -43.1567, nil, "void_mask_unavailable", 0, 60},
		{"measured ground on a pack without void mask is unknown too", "old", -22.8, -43.5, nil, "void_mask_unavailable", -100, 3000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hh := *h
			hh.srv = servers[tc.server]
			res := hh.do(t, "GET", fmt.Sprintf("/terrain/point?lat=%v&lon=%v", tc.lat, tc.lon), h.keys["free"], nil, "")
			if res.status != 200 {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			for _, e := range doc.checkResponse("GET", "/terrain/point", res) {
				t.Errorf("schema: %s", e)
			}
			m := res.json(t)
			h, _ := m["elevation_m"].(float64)
			t.Logf("%s: elevation_m %.1f, void_filled %v, warnings %v", tc.name, h, m["void_filled"], m["warnings"])
			if v, present := m["void_filled"]; !present || v != tc.void || h < tc.minM || h > tc.maxM {
				t.Fatalf("answer %v; want void_filled %v, elevation %.0f..%.0f m", m, tc.void, tc.minM, tc.maxM)
			}
			ws, isArray := m["warnings"].([]any)
			if !isArray {
				t.Fatalf("warnings %v: want an array, never null", m["warnings"])
			}
			var codes []string
			for _, w := range ws {
				wm, _ := w.(map[string]any)
				code, _ := wm["code"].(string)
				if msg, _ := wm["message"].(string); msg == "" {
					t.Errorf("warning %v has no message", w)
				}
				codes = append(codes, code)
			}
			if (tc.warning == "" && len(codes) != 0) || (tc.warning != "" && (len(codes) != 1 || codes[0] != tc.warning)) {
				t.Fatalf("warning codes %v, want [%s]", codes, tc.warning)
			}
		})
	}
}

// sugarloafBody is POST /analyze on the path of issue 7 through the
// Sugarloaf summit: a tower of 15 m at (-22.9555, -43.1640), a receiver of
// 10 m at (-22.905, -43.112), 5.8 GHz.
const sugarloafBody = `{"tower":{"lat":-22.9555,"lon":-43.1640,"height":15},"receiver":{"lat":-22.905,"lon":-43.112,"height":10},"frequency_mhz":5800}`

// TestAnalyzeVoidWarning_Finding1 (issue 7, finding 1): on the SRTM-only
// sample pack the Sugarloaf path crosses void-filled ground, which reads
// at most 14 m (its land border), so the link looks clear, and the answer must carry the
// void_filled_terrain warning; with the synthetic 396 m peak layered over
// the void the path is obstructed and no void warning remains.
func TestAnalyzeVoidWarning_Finding1(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	peak := peakServer(t, h)
	doc := loadOpenAPI(t)
	cases := []struct {
		name     string
		onPeak   bool
		losClear bool
		void     bool
	}{
		{"SRTM only: void-filled summit", false, true, true},
		{"SRTM over the synthetic peak", true, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hh := *h
			if tc.onPeak {
				hh.srv = peak
			}
			res := hh.do(t, "POST", "/analyze", h.keys["pro"], nil, sugarloafBody)
			if res.status != 200 {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			for _, e := range doc.checkResponse("POST", "/analyze", res) {
				t.Errorf("schema: %s", e)
			}
			m := res.json(t)
			var voidWarn map[string]any
			ws, _ := m["warnings"].([]any)
			for _, w := range ws {
				if wm, _ := w.(map[string]any); wm["code"] == appliance.WarnVoidFilledTerrain {
					voidWarn = wm
				}
			}
			t.Logf("%s: los_clear %v, void warning %v", tc.name, m["los_clear"], voidWarn["message"])
			if m["los_clear"] != tc.losClear || (voidWarn != nil) != tc.void {
				t.Fatalf("los_clear %v, void warning %v; want %v, %v", m["los_clear"], voidWarn, tc.losClear, tc.void)
			}
		})
	}
}
