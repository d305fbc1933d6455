package packer_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/terrain-packs/clutter"
	"linkplan/terrain-packs/geotiff"
	"linkplan/terrain-packs/packer"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

// apRaster is the real MapBiomas Collection 6 land cover of 2020 around the
// Araguari river, Amapá: 6059×5727 pixels of 29.89 m in SIRGAS 2000 / UTM
// 22N (EPSG:31976), covering latitudes 0.256…1.805 and longitudes
// −52.47…−50.84 (owned by terrain-packs/clutter's testdata, see its
// PROVENANCE.md).
const apRaster = "../clutter/testdata/utm_cover_AP_rio_2020.tif"

// The six one-degree tiles the raster touches.
var apTiles = []terrain.TileID{
	{Lat: 0, Lon: -53}, {Lat: 0, Lon: -52}, {Lat: 0, Lon: -51},
	{Lat: 1, Lon: -53}, {Lat: 1, Lon: -52}, {Lat: 1, Lon: -51},
}

var (
	tUncovered = terrain.TileID{Lat: 1, Lon: -55} // land, west of the raster
	tNorthSea  = terrain.TileID{Lat: 2, Lon: -52} // declared sea, north of N01W052
)

// amapaHGT writes a synthetic 3″ .hgt for tile: there is no real SRTM tile
// of Amapá in the repository, so the heights are a deterministic smooth
// function of latitude and longitude (10…70 m, continuous across tiles,
// no voids). Only the land cover of these packs is real.
func amapaHGT(t testing.TB, dir string, tile terrain.TileID) string {
	t.Helper()
	const n = 1201
	raw := make([]byte, 2*n*n)
	for r := 0; r < n; r++ {
		lat := float64(tile.Lat+1) - float64(r)/1200
		for c := 0; c < n; c++ {
			lon := float64(tile.Lon) + float64(c)/1200
			h := 40 + 20*math.Sin(lat*11) + 8*math.Cos(lon*13) + 2*math.Sin((lat+lon)*57)
			binary.BigEndian.PutUint16(raw[2*(r*n+c):], uint16(int16(math.Round(h))))
		}
	}
	path := filepath.Join(dir, tile.Name()+".hgt")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func amapaInputs(t testing.TB, tiles ...terrain.TileID) []string {
	t.Helper()
	dir := t.TempDir()
	var out []string
	for _, tile := range tiles {
		out = append(out, amapaHGT(t, dir, tile))
	}
	return out
}

func openAP(t testing.TB) *geotiff.Image {
	t.Helper()
	f, err := os.Open(apRaster)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	img, err := geotiff.Open(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func openPack(t testing.TB, path string) *terrain.Pack {
	t.Helper()
	p, err := terrain.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// apPixelCounts is the number of pixels of each MapBiomas code in the
// raster (gdalinfo -hist, terrain-packs/clutter/testdata/PROVENANCE.md);
// 27 is the raster's NoData.
var apPixelCounts = map[int]int64{
	3: 28225986, 4: 58233, 6: 230100, 9: 955120, 11: 614464, 12: 4035014, 15: 265075,
	24: 12681, 30: 46609, 33: 148654, 39: 42213, 41: 51087, 27: 14657,
}

// TestLandCoverReal builds an SRTM3 pack of the six tiles the real Amapá
// raster touches (synthetic heights, real land cover), a land tile the
// raster does not reach and a declared sea tile, and checks the layer
// against the raster itself.
func TestLandCoverReal(t *testing.T) {
	inputs := amapaInputs(t, append(append([]terrain.TileID(nil), apTiles...), tUncovered)...)
	out, st := buildPack(t, inputs, packer.Options{LandCover: []string{apRaster}, SeaTiles: []string{tNorthSea.Name()}})
	t.Logf("build: %d tiles, land cover %d bytes, pack %d bytes, %v", st.Tiles, st.ClutterBytes, st.FileBytes, st.Duration)
	if !st.Clutter || st.UncoveredTiles != 1 || st.Tiles != 8 || st.ClutterBytes == 0 {
		t.Fatalf("stats %+v", st)
	}
	p := openPack(t, out)
	if !p.HasClutter() || p.Header().Version != terrain.VersionV4 {
		t.Fatalf("version %d, clutter %v", p.Header().Version, p.HasClutter())
	}
	img := openAP(t)
	n := p.Header().TileSamples()

	t.Run("ClutterAt equals the raster at homogeneous pixel centres", func(t *testing.T) {
		// A pack sample is the majority of the ~3×3 pixels of its 3″ cell and
		// the nearest sample is up to 1.5 pixels away: where the 11×11
		// pixels around a pixel share one class, the pack must answer it.
		seed := int64(20260401)
		t.Logf("seed %d", seed)
		rng := rand.New(rand.NewSource(seed))
		cur := img.NewCursor()
		const radius = 5 // pixels
		homogeneous, agree, tried, agreeAll := 0, 0, 0, 0
		for tried < 20000 && homogeneous < 400 {
			col := radius + rng.Intn(img.Width-2*radius)
			row := radius + rng.Intn(img.Height-2*radius)
			lat, lon, err := img.PixelToLatLon(float64(col)+0.5, float64(row)+0.5)
			if err != nil {
				t.Fatal(err)
			}
			want, err := clutter.ClassAtLatLon(img, lat, lon)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.ClutterAt(appliance.LatLon{Lat: lat, Lon: lon})
			if err != nil {
				t.Fatal(err)
			}
			tried++
			if got.Class == uint8(want) {
				agreeAll++
			}
			same := true
			for dr := -radius; dr <= radius && same; dr++ {
				for dc := -radius; dc <= radius; dc++ {
					v, err := cur.At(col+dc, row+dr)
					if err != nil {
						t.Fatal(err)
					}
					if img.IsNoData(v) || clutter.FromMapBiomasSample(v) != want {
						same = false
						break
					}
				}
			}
			if !same {
				continue
			}
			homogeneous++
			if got.Class == uint8(want) && got.Label == want.String() && got.HeightM == want.HeightM() {
				agree++
			} else {
				t.Errorf("pixel (%d, %d) at %.6f, %.6f: raster %s, pack %+v", col, row, lat, lon, want, got)
			}
		}
		t.Logf("%d of %d homogeneous pixel centres agree; %d of %d random pixel centres (edges included) agree (%.1f %%)",
			agree, homogeneous, agreeAll, tried, 100*float64(agreeAll)/float64(tried))
		if homogeneous < 200 {
			t.Fatalf("only %d homogeneous points", homogeneous)
		}
	})

	t.Run("tile layer is clutter.ResampleTile of the raster", func(t *testing.T) {
		tile := terrain.TileID{Lat: 1, Lon: -52}
		got, err := p.ReadClutter(tile)
		if err != nil {
			t.Fatal(err)
		}
		want, err := clutter.ResampleTile(img, 1, -52, 2, -51, n)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if got[i] != uint8(want[i]) {
				t.Fatalf("sample %d: pack %d, ResampleTile %d", i, got[i], want[i])
			}
		}
	})

	t.Run("histogram of N01W052", func(t *testing.T) {
		var ti *terrain.TileInfo
		info := p.Info()
		for i, x := range info.Tiles {
			if x.Name == "N01W052" {
				ti = &info.Tiles[i]
			}
		}
		if ti == nil || ti.Clutter == nil || ti.Clutter.Codec != "zstd-u8" {
			t.Fatalf("tile info %+v", ti)
		}
		classes, err := p.ReadClutter(terrain.TileID{Lat: 1, Lon: -52})
		if err != nil {
			t.Fatal(err)
		}
		var counts [terrain.ClutterClasses]int64
		for _, c := range classes {
			counts[c]++
		}
		var sum int64
		for _, cc := range ti.Clutter.Histogram {
			if counts[cc.Class] != cc.Samples || cc.Label != clutter.Class(cc.Class).String() {
				t.Fatalf("histogram %+v, decoded counts %v", ti.Clutter.Histogram, counts)
			}
			sum += cc.Samples
		}
		if sum != int64(n*n) {
			t.Fatalf("histogram sums to %d, want %d", sum, n*n)
		}
		// The raster's north edge is at 1.8043…1.8049° N: the rows north of
		// it (235 of 1201, ±1 row) are outside the raster, hence Unknown;
		// the raster itself has almost no NoData (0.04 %).
		rowsOut := (2 - 1.8046) * 1200
		if u := float64(counts[clutter.Unknown]) / float64(n); math.Abs(u-rowsOut) > 1.5 {
			t.Fatalf("Unknown covers %.1f rows, want %.1f ± 1.5", u, rowsOut)
		}
		if counts[clutter.Forest] < counts[clutter.Grassland] || counts[clutter.Forest] < int64(n*n)/2 {
			t.Fatalf("counts %v: Formação Florestal dominates this tile", counts)
		}
		t.Logf("N01W052: %v", ti.Clutter.Histogram)
		for _, x := range info.Tiles {
			t.Logf("%s %s: land cover %s, %d bytes (%.1f %% of %d)", x.Name, x.Kind, x.Clutter.Codec,
				x.Clutter.CompressedBytes, 100*float64(x.Clutter.CompressedBytes)/float64(n*n), n*n)
		}
	})

	t.Run("class shares of the pack match the raster", func(t *testing.T) {
		// Whole pack against the raster's exact pixel counts, among known
		// samples/pixels. The majority vote favours the dominant class a
		// little: tolerance 1 percentage point.
		var rasterKnown int64
		rasterShare := map[clutter.Class]float64{}
		for code, v := range apPixelCounts {
			if code == 27 {
				continue
			}
			rasterKnown += v
			rasterShare[clutter.FromMapBiomas(code)] += float64(v)
		}
		var packKnown int64
		packShare := map[clutter.Class]float64{}
		for _, ti := range p.Info().Tiles {
			if ti.Kind == "sea" {
				continue
			}
			for _, cc := range ti.Clutter.Histogram {
				if cc.Class != 0 {
					packKnown += cc.Samples
					packShare[clutter.Class(cc.Class)] += float64(cc.Samples)
				}
			}
		}
		for _, c := range clutter.Classes() {
			r, q := rasterShare[c]/float64(rasterKnown), packShare[c]/float64(packKnown)
			t.Logf("%-9s raster %6.2f %%, pack %6.2f %%", c, 100*r, 100*q)
			if math.Abs(r-q) > 0.01 {
				t.Errorf("%s: pack share %.4f, raster %.4f (tolerance 0.01)", c, q, r)
			}
		}
		// 3″ samples are ~92.6 m square at the equator, pixels 29.89 m.
		wantSamples := float64(rasterKnown) * 29.89 * 29.89 / (92.6 * 92.6)
		if r := float64(packKnown) / wantSamples; r < 0.97 || r > 1.03 {
			t.Errorf("%d known samples, about %.0f expected from the raster's area", packKnown, wantSamples)
		}
	})

	t.Run("uncovered tile and sea tile", func(t *testing.T) {
		cases := []struct {
			name string
			at   appliance.LatLon
			want clutter.Class
		}{
			{"land tile no input covers", appliance.LatLon{Lat: 1.5, Lon: -54.5}, clutter.Unknown},
			{"declared sea tile", appliance.LatLon{Lat: 2.5, Lon: -51.5}, clutter.Water},
			{"north of the raster in a covered tile", appliance.LatLon{Lat: 1.95, Lon: -51.5}, clutter.Unknown},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				got, err := p.ClutterAt(tc.at)
				if err != nil || got.Class != uint8(tc.want) || got.Label != tc.want.String() {
					t.Fatalf("ClutterAt = %+v, %v; want %s", got, err, tc.want)
				}
			})
		}
		e, _ := p.Entry(tUncovered)
		if e.Clutter.Codec != terrain.ClutterUniform || e.Clutter.Class != 0 || e.Clutter.Counts[0] != uint32(n*n) {
			t.Fatalf("uncovered tile entry %+v", e.Clutter)
		}
	})

	t.Run("profile clutter arrays", func(t *testing.T) {
		a, b := appliance.LatLon{Lat: 1.2, Lon: -51.9}, appliance.LatLon{Lat: 2.4, Lon: -51.3} // into the sea tile
		prof, err := p.Profile(a, b, 200)
		if err != nil {
			t.Fatal(err)
		}
		if len(prof.ClutterClass) != prof.Len() || len(prof.ClutterHeightsM) != prof.Len() {
			t.Fatalf("%d samples, %d classes, %d clutter heights", prof.Len(), len(prof.ClutterClass), len(prof.ClutterHeightsM))
		}
		seen := map[uint8]int{}
		for i := range prof.ClutterClass {
			q := b
			if i < prof.Len()-1 {
				q = a.Intermediate(b, prof.DistancesM[i]/prof.LengthM())
			}
			want, err := p.ClutterAt(q)
			if err != nil {
				t.Fatal(err)
			}
			if prof.ClutterClass[i] != want.Class || prof.ClutterHeightsM[i] != want.HeightM {
				t.Fatalf("sample %d: %d / %v m, ClutterAt %+v", i, prof.ClutterClass[i], prof.ClutterHeightsM[i], want)
			}
			if prof.Sea[i] != (q.Lat >= 2) || (prof.Sea[i] && want.Class != uint8(clutter.Water)) {
				t.Fatalf("sample %d at %v: sea %v, class %s", i, q, prof.Sea[i], want.Label)
			}
			seen[want.Class]++
		}
		if seen[uint8(clutter.Forest)] == 0 || seen[uint8(clutter.Water)] == 0 || seen[0] == 0 {
			t.Fatalf("classes along the path %v: want forest, unknown north of the raster, and sea", seen)
		}
		t.Logf("classes along %0.f m: %v", prof.LengthM(), seen)
	})

	t.Run("mixed layered set", func(t *testing.T) {
		rioPack, err := terrain.OpenBytes(sample.Pack())
		if err != nil {
			t.Fatal(err)
		}
		defer rioPack.Close()
		l := terrain.NewLayered(p, rioPack)
		forest := appliance.LatLon{Lat: 1.0416, Lon: -51.3}
		want, _ := p.ClutterAt(forest)
		if got, err := l.ClutterAt(forest); err != nil || got != want || got.Class == 0 {
			t.Fatalf("Amapá: %+v, %v; want %+v", got, err, want)
		}
		tijuca := appliance.LatLon{Lat: -22.9436, Lon: -43.2858}
		if _, err := l.ClutterAt(tijuca); !errors.Is(err, appliance.ErrUnavailable) || !strings.Contains(err.Error(), "land-cover") {
			t.Fatalf("Rio: err = %v, want ErrUnavailable naming the missing land-cover layer", err)
		}
		var miss *appliance.TileMissingError
		if _, err := l.ClutterAt(appliance.LatLon{Lat: -10, Lon: -50}); !errors.As(err, &miss) || miss.Tile != "S10W050" {
			t.Fatalf("elsewhere: err = %v, want S10W050 missing", err)
		}
		rioProf, err := l.Profile(tijuca, appliance.LatLon{Lat: -22.9, Lon: -43.1}, 90)
		if err != nil || rioProf.ClutterClass != nil || rioProf.ClutterHeightsM != nil {
			t.Fatalf("Rio profile: clutter %v, err %v; want nil arrays", rioProf.ClutterClass != nil, err)
		}
		apProf, err := l.Profile(forest, appliance.LatLon{Lat: 1.1, Lon: -51.2}, 90)
		if err != nil || len(apProf.ClutterClass) != apProf.Len() {
			t.Fatalf("Amapá profile: %v", err)
		}
	})

	t.Run("verify checks the land cover", func(t *testing.T) {
		rep, err := packer.Verify(t.Context(), out)
		if err != nil {
			t.Fatal(err)
		}
		if rep.ClutterChecked != 6 || !rep.ManifestOK || !rep.Info.Clutter {
			t.Fatalf("report: %d land-cover payloads checked, manifest ok %v", rep.ClutterChecked, rep.ManifestOK)
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		e, _ := p.Entry(terrain.TileID{Lat: 0, Lon: -52})
		raw[e.Clutter.Offset+e.Clutter.Length/3] ^= 0x10
		bad := filepath.Join(t.TempDir(), "bad.ltp")
		if err := os.WriteFile(bad, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := packer.Verify(t.Context(), bad); !errors.Is(err, terrain.ErrCorrupt) || !strings.Contains(err.Error(), "land cover of N00W052") {
			t.Fatalf("Verify = %v, want ErrCorrupt naming the land cover of N00W052", err)
		}
	})
}

// lowGrid builds packs on a 30″ grid (121×121 samples per tile) so that
// the determinism and resume tests stay fast; the land cover is still the
// real raster (8×8 votes per sample).
const lowGrid = 120

// TestLandCoverDeterministic builds the same land-cover pack with several
// worker counts and GOMAXPROCS values: the bytes must be identical.
func TestLandCoverDeterministic(t *testing.T) {
	inputs := amapaInputs(t, terrain.TileID{Lat: 0, Lon: -52}, terrain.TileID{Lat: 1, Lon: -52}, terrain.TileID{Lat: 1, Lon: -53}, tUncovered)
	opts := func(workers int) packer.Options {
		return packer.Options{SamplesPerDegree: lowGrid, Workers: workers, LandCover: []string{apRaster}, SeaTiles: []string{tNorthSea.Name()}}
	}
	var want []byte
	for _, tc := range []struct {
		name       string
		workers    int
		gomaxprocs int
	}{{"1 worker", 1, 2}, {"5 workers", 5, 2}, {"3 workers gomaxprocs 1", 3, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(tc.gomaxprocs))
			out, _ := buildPack(t, inputs, opts(tc.workers))
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = got
			} else if !bytes.Equal(got, want) {
				t.Fatal("pack bytes differ from the first build")
			}
		})
	}
	t.Run("overlapping inputs: the first known class wins", func(t *testing.T) {
		// The same raster twice changes nothing.
		o := opts(2)
		o.LandCover = []string{apRaster, apRaster}
		out, _ := buildPack(t, inputs, o)
		got, _ := os.ReadFile(out)
		if !bytes.Equal(got, want) {
			t.Fatal("a duplicated land-cover input changed the pack")
		}
	})
}

// TestLandCoverResume interrupts a land-cover build, resumes it and
// expects the bytes of a build in one go; parts made without the layer,
// or from a land-cover input that changed since, are not reused.
func TestLandCoverResume(t *testing.T) {
	inputs := amapaInputs(t, terrain.TileID{Lat: 0, Lon: -52}, terrain.TileID{Lat: 1, Lon: -52}, tUncovered)
	dir := t.TempDir()
	cover := filepath.Join(dir, "cover.tif")
	src, err := os.ReadFile(apRaster)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cover, src, 0o644); err != nil {
		t.Fatal(err)
	}
	withLayer := packer.Options{SamplesPerDegree: lowGrid, Workers: 1, LandCover: []string{cover}, SeaTiles: []string{tNorthSea.Name()}}
	noLayer := withLayer
	noLayer.LandCover = nil
	refWith, _ := buildPack(t, inputs, withLayer)
	refNo, _ := buildPack(t, inputs, noLayer)
	wantWith, _ := os.ReadFile(refWith)
	wantNo, _ := os.ReadFile(refNo)

	interrupt := func(t *testing.T, out string, opts packer.Options, after int32) {
		t.Helper()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var done atomic.Int32
		opts.Progress = func(packer.Progress) {
			if done.Add(1) == after {
				cancel()
			}
		}
		if _, err := packer.Build(ctx, out, inputs, opts); !errors.Is(err, context.Canceled) {
			t.Fatalf("interrupted build: err = %v, want context.Canceled", err)
		}
	}
	resume := func(t *testing.T, out string, opts packer.Options) (packer.Stats, []string) {
		t.Helper()
		var mu sync.Mutex
		var resumed []string
		opts.Resume = true
		opts.Progress = func(p packer.Progress) {
			if p.Resumed {
				mu.Lock()
				resumed = append(resumed, p.Tile)
				mu.Unlock()
			}
		}
		st, err := packer.Build(t.Context(), out, inputs, opts)
		if err != nil {
			t.Fatal(err)
		}
		return st, resumed
	}
	cases := []struct {
		name        string
		first, then packer.Options
		touch       bool // rewrite the land-cover input's time between the builds
		want        []byte
		minResumed  int
		maxResumed  int
	}{
		{"same options", withLayer, withLayer, false, wantWith, 2, 4},
		{"parts without the layer are rebuilt", noLayer, withLayer, false, wantWith, 0, 0},
		{"parts with the layer are rebuilt without it", withLayer, noLayer, false, wantNo, 0, 0},
		{"changed land cover rebuilds the tiles it touches", withLayer, withLayer, true, wantWith, 0, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.ltp")
			interrupt(t, out, tc.first, 3)
			if tc.touch {
				later := time.Now().Add(time.Hour)
				if err := os.Chtimes(cover, later, later); err != nil {
					t.Fatal(err)
				}
			}
			st, resumed := resume(t, out, tc.then)
			if len(resumed) < tc.minResumed || len(resumed) > tc.maxResumed {
				t.Fatalf("resumed %v, want %d..%d tiles", resumed, tc.minResumed, tc.maxResumed)
			}
			for _, name := range resumed {
				if tc.touch && (name == "N00W052" || name == "N01W052") {
					t.Fatalf("tile %s reused though its land cover changed", name)
				}
			}
			got, _ := os.ReadFile(out)
			if !bytes.Equal(got, tc.want) {
				t.Fatalf("resumed pack (%d bytes, stats %+v) differs from a build in one go", len(got), st)
			}
		})
	}
}

func TestLandCoverErrors(t *testing.T) {
	inputs := amapaInputs(t, terrain.TileID{Lat: 1, Lon: -52})
	text := filepath.Join(t.TempDir(), "text.tif")
	if err := os.WriteFile(text, []byte("not a TIFF"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		cover []string
	}{
		{"not a GeoTIFF", []string{"../testdata/S23W044.hgt.zip"}},
		{"missing file", []string{"../testdata/none.tif"}},
		{"not a raster", []string{text}},
		{"an unreadable second input", []string{apRaster, text}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "x.ltp")
			if _, err := packer.Build(t.Context(), out, inputs, packer.Options{LandCover: tc.cover}); err == nil {
				t.Fatal("Build accepted the land-cover input")
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatal("a failed build left a pack")
			}
		})
	}
}

// TestAcceptanceSeaAndAbsentTiles is the acceptance test: a path
// that crosses a sea tile works; one that crosses an absent land tile
// fails with the tile's name.
func TestAcceptanceSeaAndAbsentTiles(t *testing.T) {
	out, _ := buildPack(t, []string{rio, interio}, packer.Options{SeaTiles: []string{"S24W044"}})
	p := openPack(t, out)
	cases := []struct {
		name    string
		a, b    appliance.LatLon
		missing string // "" when the path must work
	}{
		{"Rio city out to the declared sea tile", appliance.LatLon{Lat: -22.95, Lon: -43.2}, appliance.LatLon{Lat: -23.6, Lon: -43.3}, ""},
		{"across an absent land tile between two present ones", appliance.LatLon{Lat: -22.8, Lon: -43.8}, appliance.LatLon{Lat: -21.2, Lon: -42.8}, "S22W044"},
		{"into an absent tile west of Rio", appliance.LatLon{Lat: -22.9, Lon: -43.5}, appliance.LatLon{Lat: -22.9, Lon: -44.5}, "S23W045"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prof, err := p.Profile(tc.a, tc.b, 90)
			if tc.missing != "" {
				var miss *appliance.TileMissingError
				if !errors.As(err, &miss) || miss.Tile != tc.missing || !errors.Is(err, appliance.ErrTerrainMissing) || prof != nil {
					t.Fatalf("err = %v, want tile %s missing", err, tc.missing)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sea := 0
			for i := range prof.Sea {
				q := tc.b
				if i < prof.Len()-1 {
					q = tc.a.Intermediate(tc.b, prof.DistancesM[i]/prof.LengthM())
				}
				inSea := terrain.TileOf(q) == terrain.TileID{Lat: -24, Lon: -44}
				if prof.Sea[i] != inSea || (inSea && prof.HeightsM[i] != 0) {
					t.Fatalf("sample %d at %v: sea %v height %v, want sea %v", i, q, prof.Sea[i], prof.HeightsM[i], inSea)
				}
				if inSea {
					sea++
				}
			}
			if sea == 0 || sea == prof.Len() {
				t.Fatalf("%d of %d samples on sea: the path must cross from land to sea", sea, prof.Len())
			}
		})
	}
}

// BenchmarkBuildTileLandCover builds one SRTM3 tile (N01W052, synthetic
// heights) with and without its land-cover layer from the real Amapá
// raster: the difference is the cost of one tile's layer (open the
// GeoTIFF, clutter.ResampleTile with 3×3 votes per sample, class counts,
// zstd). "heights only" is the baseline.
func BenchmarkBuildTileLandCover(b *testing.B) {
	inputs := amapaInputs(b, terrain.TileID{Lat: 1, Lon: -52})
	dir := b.TempDir()
	for _, tc := range []struct {
		name  string
		cover []string
	}{{"heights only", nil}, {"heights and land cover", []string{apRaster}}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				st, err := packer.Build(b.Context(), filepath.Join(dir, "b.ltp"), inputs, packer.Options{Workers: 1, LandCover: tc.cover})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(st.ClutterBytes), "clutter-bytes")
			}
		})
	}
}
