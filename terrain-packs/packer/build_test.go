package packer_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"linkplan/appliance"
	"linkplan/terrain-packs/geotiff"
	"linkplan/terrain-packs/packer"
	"linkplan/terrain-packs/terrain"
)

const fortaleza = "../testdata/fortaleza-srtm.tif"

// synthHGT writes a synthetic 3″ .hgt.gz for tile t: smooth hills (sums of
// sines) plus seeded noise and a few voids, so fill and coding both work.
func synthHGT(t testing.TB, dir string, tile terrain.TileID, rng *rand.Rand) string {
	t.Helper()
	const n = 1201
	raw := make([]byte, 2*n*n)
	fa, fb, ph := 2+rng.Float64()*6, 2+rng.Float64()*6, rng.Float64()*6
	for r := 0; r < n; r++ {
		for c := 0; c < n; c++ {
			y, x := float64(r)/n, float64(c)/n
			h := 400 + 300*math.Sin(fa*y*math.Pi+ph)*math.Cos(fb*x*math.Pi) + 80*math.Sin(17*x+9*y) + float64(rng.Intn(7))
			v := int16(h)
			if rng.Intn(5000) == 0 {
				v = terrain.NoData
			}
			binary.BigEndian.PutUint16(raw[2*(r*n+c):], uint16(v))
		}
	}
	path := filepath.Join(dir, tile.Name()+".hgt.gz")
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	zw.Write(raw)
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func synthInputs(t testing.TB, count int, seed int64) []string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(seed))
	var paths []string
	for i := 0; i < count; i++ {
		paths = append(paths, synthHGT(t, dir, terrain.TileID{Lat: -30 + i/10, Lon: -55 + i%10}, rng))
	}
	return paths
}

// TestDeterministicAcrossWorkers builds the same pack with 1, 3 and 8
// workers and GOMAXPROCS 1 and 2: the bytes must be identical.
func TestDeterministicAcrossWorkers(t *testing.T) {
	inputs := append(synthInputs(t, 4, 11), rio, interio)
	var want []byte
	for _, tc := range []struct {
		name       string
		workers    int
		gomaxprocs int
	}{{"1 worker", 1, 2}, {"3 workers", 3, 2}, {"8 workers gomaxprocs 1", 8, 1}, {"default", 0, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(tc.gomaxprocs))
			out, _ := buildPack(t, inputs, packer.Options{Workers: tc.workers, SeaTiles: []string{"S40W030"}})
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
}

// TestResume interrupts a build after some tiles (cancelling from the
// progress callback), resumes it and expects the same bytes as a build in
// one go, with the finished tiles reused.
func TestResume(t *testing.T) {
	inputs := append(synthInputs(t, 6, 12), rio)
	ref, _ := buildPack(t, inputs, packer.Options{Workers: 2})
	want, _ := os.ReadFile(ref)

	out := filepath.Join(t.TempDir(), "resume.ltp")
	ctx, cancel := context.WithCancel(t.Context())
	var done atomic.Int32
	_, err := packer.Build(ctx, out, inputs, packer.Options{Workers: 2, Progress: func(p packer.Progress) {
		if done.Add(1) == 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted build: err = %v, want context.Canceled", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("an interrupted build left a pack")
	}
	var resumed []string
	var mu sync.Mutex
	st, err := packer.Build(t.Context(), out, inputs, packer.Options{Workers: 2, Resume: true, Progress: func(p packer.Progress) {
		if p.Resumed {
			mu.Lock()
			resumed = append(resumed, p.Tile)
			mu.Unlock()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if st.ResumedTiles < 3 || len(resumed) != st.ResumedTiles {
		t.Fatalf("resumed %d tiles (%v), want at least 3", st.ResumedTiles, resumed)
	}
	got, _ := os.ReadFile(out)
	if !bytes.Equal(got, want) {
		t.Fatal("resumed pack differs from a build in one go")
	}
	if _, err := os.Stat(out + ".parts"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("parts directory left behind: %v", err)
	}
	t.Run("stale part is rebuilt", func(t *testing.T) {
		// Interrupt again, then touch an input: its part no longer matches.
		out2 := filepath.Join(t.TempDir(), "stale.ltp")
		ctx, cancel := context.WithCancel(t.Context())
		var n atomic.Int32
		packer.Build(ctx, out2, inputs[:2], packer.Options{Workers: 1, Progress: func(packer.Progress) {
			if n.Add(1) == 1 {
				cancel()
			}
		}})
		later := time.Now().Add(time.Hour)
		for _, in := range inputs[:2] {
			if err := os.Chtimes(in, later, later); err != nil {
				t.Fatal(err)
			}
		}
		st, err := packer.Build(t.Context(), out2, inputs[:2], packer.Options{Resume: true})
		if err != nil || st.ResumedTiles != 0 {
			t.Fatalf("resumed %d stale tiles (%v)", st.ResumedTiles, err)
		}
	})
}

func TestAllZeroAsSea(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "S24W043.hgt")
	if err := os.WriteFile(zero, make([]byte, 1201*1201*2), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		flag     bool
		wantKind terrain.Kind
	}{
		{"flag set: sea", true, terrain.KindSea},
		{"flag unset: land at 0 m", false, terrain.KindLand},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, st := buildPack(t, []string{zero, rio}, packer.Options{AllZeroAsSea: tc.flag})
			p, err := terrain.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			e, _ := p.Entry(terrain.TileID{Lat: -24, Lon: -43})
			if e.Kind != tc.wantKind {
				t.Fatalf("kind %s, want %s (stats %+v)", e.Kind, tc.wantKind, st)
			}
			prof, err := p.Profile(appliance.LatLon{Lat: -23.5, Lon: -42.5}, appliance.LatLon{Lat: -23.4, Lon: -42.5}, 100)
			if err != nil {
				t.Fatal(err)
			}
			if prof.Sea[0] != tc.flag || prof.HeightsM[0] != 0 {
				t.Fatalf("sea %v height %v", prof.Sea[0], prof.HeightsM[0])
			}
		})
	}
	t.Run("chubut is 98.6 % sea, not all: stays land", func(t *testing.T) {
		_, st := buildPack(t, []string{chubut}, packer.Options{AllZeroAsSea: true})
		if st.LandTiles != 1 {
			t.Fatalf("stats %+v", st)
		}
	})
}

func TestCodecOption(t *testing.T) {
	cases := []struct {
		name    string
		codec   terrain.Codec
		noMask  bool
		version int
	}{
		{"default predictive with the void mask is v4", 0, false, terrain.VersionV4},
		{"raw zstd with the void mask is v4", terrain.CodecZstdRaw, false, terrain.VersionV4},
		{"predictive without the void mask is v2", 0, true, terrain.VersionV2},
		{"raw zstd without the void mask is v1", terrain.CodecZstdRaw, true, terrain.VersionV1},
	}
	var sizes []int64
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, st := buildPack(t, []string{rio, interio}, packer.Options{Codec: tc.codec, NoVoidMask: tc.noMask})
			p, err := terrain.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if p.Header().Version != tc.version || p.HasVoidMask() == tc.noMask || st.VoidMask == tc.noMask {
				t.Fatalf("version %d, void mask %v (stats %v), want %d, %v", p.Header().Version, p.HasVoidMask(), st.VoidMask, tc.version, !tc.noMask)
			}
			if st.FilledSamples != 3789+160 {
				t.Fatalf("%d samples filled, want the 3 789 + 160 voids of the two tiles", st.FilledSamples)
			}
			// Pão de Açúcar is void-filled; without the mask the pack
			// cannot say so, and says it cannot (known false).
			filled, known, err := p.VoidStatusAt(sugarloafPeak)
			if err != nil || filled == tc.noMask || known == tc.noMask {
				t.Fatalf("VoidStatusAt(Pão de Açúcar) = %v, %v, %v; want %v, %v", filled, known, err, !tc.noMask, !tc.noMask)
			}
			sizes = append(sizes, st.CompressedBytes)
			t.Logf("%s: %d of %d raw bytes = %.1f %%", tc.name, st.CompressedBytes, st.RawBytes, 100*st.Ratio())
		})
	}
	if len(sizes) == 4 && (sizes[0] >= sizes[1] || sizes[2] >= sizes[3]) {
		t.Fatalf("predictive %d bytes not smaller than raw zstd %d", sizes[0], sizes[1])
	}
}

// TestCompressionGoal: the real Rio tiles must code to ≤ 45 % of raw int16.
func TestCompressionGoal(t *testing.T) {
	for _, in := range []string{rio, interio} {
		t.Run(filepath.Base(in), func(t *testing.T) {
			_, st := buildPack(t, []string{in}, packer.Options{})
			if r := st.Ratio(); r > 0.45 {
				t.Fatalf("ratio %.3f > 0.45", r)
			} else {
				t.Logf("%.1f %% of raw int16", 100*r)
			}
		})
	}
}

// TestGeoTIFF builds a 1″ pack from the real Fortaleza GeoTIFF and
// compares pack heights at pixel centres with the raster.
func TestGeoTIFF(t *testing.T) {
	out, st := buildPack(t, []string{fortaleza}, packer.Options{})
	p, err := terrain.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	h := p.Header()
	if h.SamplesPerDegree != 3600 || st.LandTiles != 1 || !p.HasTile(terrain.TileID{Lat: -4, Lon: -39}) {
		t.Fatalf("grid %d, stats %+v, tiles %v", h.SamplesPerDegree, st, p.Tiles())
	}
	e, _ := p.Entry(terrain.TileID{Lat: -4, Lon: -39})
	if e.Flags&terrain.FlagNoData == 0 {
		t.Fatal("a tile only partly covered must be flagged NoData")
	}
	f, err := os.Open(fortaleza)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	img, err := geotiff.OpenOptions(f, fi.Size(), geotiff.Options{DefaultEPSG: 4326})
	if err != nil {
		t.Fatal(err)
	}
	// Pack samples sit on pixel corners (the raster is half a pixel off
	// the 1″ grid), so a pixel centre is the mean of 4×4 raster pixels
	// after two bilinear steps: compare with a tolerance.
	const tolM = 3.0 // metres, per point
	var sumAbs, maxAbs float64
	count := 0
	for r := 2; r < img.Height-2; r += 7 {
		for c := 2; c < img.Width-2; c += 7 {
			v, err := img.At(c, r)
			if err != nil || img.IsNoData(v) {
				continue
			}
			lat, lon, _ := img.PixelToLatLon(float64(c)+0.5, float64(r)+0.5)
			got, err := p.ElevationM(appliance.LatLon{Lat: lat, Lon: lon})
			if err != nil {
				t.Fatalf("pixel (%d,%d): %v", c, r, err)
			}
			d := math.Abs(got - v)
			sumAbs += d
			maxAbs = max(maxAbs, d)
			count++
			if d > tolM {
				t.Errorf("pixel (%d,%d) at (%.5f,%.5f): pack %.2f m, raster %.2f m", c, r, lat, lon, got, v)
			}
		}
	}
	t.Logf("%d pixels: mean |diff| %.2f m, max %.2f m (heights rounded to 1 m)", count, sumAbs/float64(count), maxAbs)
	if count < 2000 {
		t.Fatalf("only %d pixels compared", count)
	}
	// Outside the raster but inside the tile: missing, never sea level.
	_, err = p.ElevationM(appliance.LatLon{Lat: -3.5, Lon: -38.9})
	var miss *appliance.TileMissingError
	if !errors.As(err, &miss) || miss.Tile != "S04W039" {
		t.Fatalf("outside the raster: err = %v, want S04W039 missing", err)
	}
}

func TestGeoTIFFGridConflict(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.ltp")
	_, err := packer.Build(t.Context(), out, []string{fortaleza, rio}, packer.Options{})
	if !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("1″ GeoTIFF with 3″ hgt without a grid: err = %v, want ErrInvalid", err)
	}
	_, st := buildPack(t, []string{fortaleza, rio}, packer.Options{SamplesPerDegree: 1200})
	if st.LandTiles != 2 {
		t.Fatalf("stats %+v", st)
	}
}

// BenchmarkBuild100 builds a 100-tile synthetic 3″ pack (inputs made
// before the timer) and reports the peak Go heap seen during the build,
// sampled every millisecond from runtime.MemStats.
func BenchmarkBuild100(b *testing.B) {
	inputs := synthInputs(b, 100, 13)
	dir := b.TempDir()
	b.ReportAllocs()
	var peak uint64
	i := 0
	for b.Loop() {
		runtime.GC()
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ms runtime.MemStats
			tk := time.NewTicker(time.Millisecond)
			defer tk.Stop()
			for {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
				select {
				case <-stop:
					return
				case <-tk.C:
				}
			}
		}()
		st, err := packer.Build(b.Context(), filepath.Join(dir, fmt.Sprintf("b%d.ltp", i)), inputs, packer.Options{})
		close(stop)
		wg.Wait()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(100*st.Ratio(), "pct-of-raw")
		i++
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "workers")
}
