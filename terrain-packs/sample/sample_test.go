package sample_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/terrain-packs/packer"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

var update = flag.Bool("update", false, "rebuild rio.ltp and its manifest from ../testdata")

var (
	sources      = []string{"../testdata/S23W044.hgt.zip", "../testdata/S22W043.hgt.zip"}
	manifestPath = "../manifests/" + sample.Name + ".manifest.json"
)

// TestPackUpToDate rebuilds the sample from the committed SRTM tiles and
// checks that the embedded pack is byte-for-byte that build.
func TestPackUpToDate(t *testing.T) {
	out := filepath.Join(t.TempDir(), sample.Name)
	if _, err := packer.Build(t.Context(), out, sources, packer.Options{}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	man, err := os.ReadFile(packer.ManifestPath(out))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(sample.Name, got, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(manifestPath, man, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes) and %s", sample.Name, len(got), manifestPath)
		return
	}
	if !bytes.Equal(got, sample.Pack()) {
		t.Fatalf("embedded pack (%d bytes) differs from a fresh build (%d bytes); run go test -run TestPackUpToDate -update",
			len(sample.Pack()), len(got))
	}
}

func openSample(t *testing.T) *terrain.Pack {
	t.Helper()
	p, err := terrain.OpenBytes(sample.Pack())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestManifest(t *testing.T) {
	p := openSample(t)
	raw, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	var want terrain.Manifest
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if err := p.CheckManifest(want); err != nil {
		t.Fatal(err)
	}
	got, err := p.Manifest(sample.Name)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("manifest %+v, want %+v", got, want)
	}
	if want.TileCount != 2 || want.Bounds != (terrain.Bounds{MinLat: -23, MinLon: -44, MaxLat: -21, MaxLon: -42}) {
		t.Fatalf("manifest covers %+v with %d tiles", want.Bounds, want.TileCount)
	}
}

// TestLandmarks checks heights at known places against their surveyed
// heights. SRTM3 smooths summits (a 90 m cell averages the peak with its
// slopes), so summits are accepted down to the stated lower bounds, and a
// summit is the highest height within radiusDeg of the quoted position
// (quoted summit positions are rounded; -22.9467,-43.2861 lies about 350 m
// south of the Pico da Tijuca summit, on a slope at about 730 m).
func TestLandmarks(t *testing.T) {
	p := openSample(t)
	cases := []struct {
		name      string
		at        appliance.LatLon
		radiusDeg float64 // 0: the point itself
		lo, hi    float64 // metres
	}{
		{"Pico da Tijuca summit (1021 m)", appliance.LatLon{Lat: -22.9467, Lon: -43.2861}, 0.004, 950, 1021},
		{"Pico da Tijuca quoted point (slope)", appliance.LatLon{Lat: -22.9467, Lon: -43.2861}, 0, 650, 850},
		{"Pedra do Sino summit (2263 m)", appliance.LatLon{Lat: -22.4583, Lon: -43.0278}, 0.004, 2100, 2263},
		{"Pedra do Sino quoted point", appliance.LatLon{Lat: -22.4583, Lon: -43.0278}, 0, 2100, 2263},
		{"Guanabara Bay", appliance.LatLon{Lat: -22.8100, Lon: -43.1500}, 0, -2, 2},
		{"Atlantic off Copacabana", appliance.LatLon{Lat: -23.0000, Lon: -43.1500}, 0, -2, 4},
		{"Cantagalo (interior tile)", appliance.LatLon{Lat: -21.9811, Lon: -42.3678}, 0, 300, 600},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, err := highest(p, tc.at, tc.radiusDeg)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %.1f m", tc.name, h)
			if h < tc.lo || h > tc.hi {
				t.Errorf("height %.1f m outside %.0f..%.0f m", h, tc.lo, tc.hi)
			}
		})
	}
}

// highest returns the highest ElevationM on a 41×41 lattice of points
// within radiusDeg of c (the point itself when radiusDeg is 0).
func highest(p *terrain.Pack, c appliance.LatLon, radiusDeg float64) (float64, error) {
	if radiusDeg == 0 {
		return p.ElevationM(c)
	}
	best := -1e9
	for i := -20; i <= 20; i++ {
		for j := -20; j <= 20; j++ {
			q := appliance.LatLon{Lat: c.Lat + radiusDeg*float64(i)/20, Lon: c.Lon + radiusDeg*float64(j)/20}
			h, err := p.ElevationM(q)
			if err != nil {
				return 0, err
			}
			best = max(best, h)
		}
	}
	return best, nil
}

func TestMissingTiles(t *testing.T) {
	p := openSample(t)
	cases := []struct {
		name string
		at   appliance.LatLon
		tile string
	}{
		{"north-west of the corner", appliance.LatLon{Lat: -21.5, Lon: -43.5}, "S22W044"},
		{"south-east of the corner", appliance.LatLon{Lat: -22.5, Lon: -42.5}, "S23W043"},
		{"Sao Paulo", appliance.LatLon{Lat: -23.55, Lon: -46.63}, "S24W047"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := p.ElevationM(tc.at)
			var miss *appliance.TileMissingError
			if !errors.As(err, &miss) || miss.Tile != tc.tile || !errors.Is(err, appliance.ErrTerrainMissing) {
				t.Fatalf("err = %v, want tile %s missing", err, tc.tile)
			}
		})
	}
}

// TestNoLandCover: the sample has no land-cover layer and says so for
// every point, inside or outside its tiles, instead of guessing.
func TestNoLandCover(t *testing.T) {
	p := openSample(t)
	if p.HasClutter() || p.Header().Version != terrain.VersionV4 || !p.HasVoidMask() {
		t.Fatalf("version %d, land cover %v, void mask %v; want a version-4 pack with the void mask, without the land-cover layer",
			p.Header().Version, p.HasClutter(), p.HasVoidMask())
	}
	cases := []struct {
		name string
		at   appliance.LatLon
	}{
		{"Pico da Tijuca", appliance.LatLon{Lat: -22.9467, Lon: -43.2861}},
		{"Guanabara Bay", appliance.LatLon{Lat: -22.8100, Lon: -43.1500}},
		{"Sao Paulo, outside the pack", appliance.LatLon{Lat: -23.55, Lon: -46.63}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := p.ClutterAt(tc.at)
			if !errors.Is(err, appliance.ErrUnavailable) || !errors.Is(err, terrain.ErrNoClutterLayer) ||
				!strings.Contains(err.Error(), "land-cover") || c != (appliance.ClutterInfo{}) {
				t.Fatalf("ClutterAt = %+v, %v; want ErrUnavailable naming the missing land-cover layer", c, err)
			}
		})
	}
}

// TestVoidFilledSummits_Finding1 (issue 7, finding 1): SRTM3 v2.1 has voids
// on Rio's steep peaks, so their heights in the pack are interpolated and
// far below the real summits; the pack's void mask says so. The summit
// points are where the SRTM tile S23W044 has its voids:
//
//   - Pão de Açúcar (396 m): the whole Sugarloaf/Urca massif is one void of
//     172 samples (rows 1128-1145, columns 998-1018 of the tile) ringed by
//     83 sea samples and 9 land samples of at most 14 m, so no
//     interpolation can come near 396 m; the point -22.9486,
//     -43.1567 is inside it.
//   - Dois Irmãos (533 m, at -22.9908, -43.2397 per the Brazilian Army's
//     geographic database): a 30-sample void (rows 1188-1191, columns
//     906-917) bordered by measured samples of at most 370 m. The point
//     -22.987, -43.245 quoted in the brief is 4 samples north of it, on
//     measured ground (about 173 m): it is not a void.
//   - Corcovado (710 m): a 6-sample void (rows 1142-1143, columns 945-949)
//     bordered by measured samples of at most 640 m.
func TestVoidFilledSummits_Finding1(t *testing.T) {
	p := openSample(t)
	cases := []struct {
		name     string
		at       appliance.LatLon
		void     bool
		realM    float64 // surveyed summit height, metres (0: not a summit)
		maxReadM float64 // the pack's interpolated height stays below this, metres
	}{
		{"Pão de Açúcar (issue point)", appliance.LatLon{Lat: -22.9486, Lon: -43.1567}, true, 396, 60},
		{"Dois Irmãos summit", appliance.LatLon{Lat: -22.9908, Lon: -43.2397}, true, 533, 400},
		{"Corcovado summit", appliance.LatLon{Lat: -22.9519, Lon: -43.2105}, true, 710, 660},
		{"Dois Irmãos point of the brief (measured)", appliance.LatLon{Lat: -22.987, Lon: -43.245}, false, 0, 250},
		{"Cantagalo (measured)", appliance.LatLon{Lat: -21.9811, Lon: -42.3678}, false, 0, 600},
		{"Guanabara Bay (measured)", appliance.LatLon{Lat: -22.8100, Lon: -43.1500}, false, 0, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := p.VoidFilledAt(tc.at)
			if err != nil {
				t.Fatal(err)
			}
			h, err := p.ElevationM(tc.at)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %.1f m, void-filled %v (real %.0f m)", tc.name, h, v, tc.realM)
			if v != tc.void {
				t.Fatalf("void-filled %v, want %v", v, tc.void)
			}
			if h > tc.maxReadM {
				t.Fatalf("height %.1f m above %.0f m", h, tc.maxReadM)
			}
		})
	}
}

// TestVoidMaskMatchesSource: the sample's void mask marks exactly the
// samples that were voids in the SRTM tiles it was built from.
func TestVoidMaskMatchesSource(t *testing.T) {
	p := openSample(t)
	in := p.Info()
	if !in.VoidMask || in.FilledSamples != 3789+160 || in.VoidFilledTiles != 2 {
		t.Fatalf("info: void mask %v, %d filled samples in %d tiles", in.VoidMask, in.FilledSamples, in.VoidFilledTiles)
	}
	t.Logf("void masks: %d bytes for %d void-filled samples", in.VoidMaskBytes, in.FilledSamples)
	for _, src := range sources {
		tile, err := packer.TileFromFileName(src)
		if err != nil {
			t.Fatal(err)
		}
		raw, _, err := packer.ReadHGT(src)
		if err != nil {
			t.Fatal(err)
		}
		mask, err := p.ReadVoidMask(tile)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range raw {
			if mask[i] != (v == terrain.NoData) {
				t.Fatalf("%s sample %d: mask %v, source %d", tile, i, mask[i], v)
			}
		}
	}
}
