package terrain_test

import (
	"os"
	"path/filepath"
	"testing"

	"linkplan/appliance"
	"linkplan/terrain-packs/terrain"
)

var sink float64

// rioPack returns the real S23W044 tile re-coded with codec in a pack.
func rioPack(b *testing.B, codec terrain.Codec) *terrain.Pack {
	src := openSample(b)
	s, err := src.ReadTile(tRio)
	if err != nil {
		b.Fatal(err)
	}
	p, err := terrain.OpenBytes(makePack(b, 1200, codec, terrain.VersionV2, []synthTile{{id: tRio, kind: terrain.KindLand, samples: s}}))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	return p
}

// BenchmarkReadTile measures random access to one tile: checksum and
// decode of the real 1201×1201 S23W044 tile (no cache). zstd-int16le (v1)
// is the naive baseline.
func BenchmarkReadTile(b *testing.B) {
	for _, codec := range []terrain.Codec{terrain.CodecZstdRaw, terrain.CodecPredictive} {
		b.Run(codec.String(), func(b *testing.B) {
			p := rioPack(b, codec)
			b.ReportAllocs()
			b.SetBytes(2 * 1201 * 1201)
			cpu0, n := processCPU(), 0
			for b.Loop() {
				s, err := p.ReadTile(tRio)
				if err != nil {
					b.Fatal(err)
				}
				sink += float64(s[0])
				n++
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(n)/1e6, "cpu-ms/op")
		})
	}
}

// BenchmarkElevationM measures a cache hit.
func BenchmarkElevationM(b *testing.B) {
	p := openSample(b)
	q := appliance.LatLon{Lat: -22.9436, Lon: -43.2858}
	if _, err := p.ElevationM(q); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		h, _ := p.ElevationM(q)
		sink += h
	}
}

// BenchmarkElevationMNaive is the baseline without a useful cache: the two
// tiles alternate in a one-tile cache, so every query decodes a tile.
func BenchmarkElevationMNaive(b *testing.B) {
	p := openSample(b, terrain.WithCacheBytes(1))
	qs := []appliance.LatLon{{Lat: -22.9436, Lon: -43.2858}, {Lat: -21.98, Lon: -42.37}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		h, _ := p.ElevationM(qs[i%2])
		sink += h
		i++
	}
}

// BenchmarkProfile50km samples a 50 km path every 90 m (557 samples)
// across Rio, warm cache.
func BenchmarkProfile50km(b *testing.B) {
	p := openSample(b)
	a := appliance.LatLon{Lat: -22.95, Lon: -43.75}
	c := a.Destination(80, 50000)
	if _, err := p.Profile(a, c, 90); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		prof, err := p.Profile(a, c, 90)
		if err != nil {
			b.Fatal(err)
		}
		sink += prof.HeightsM[1]
	}
}

// BenchmarkProfile50kmPointwise is the naive baseline: one ElevationM per
// sample (a cache lookup each) instead of Profile's tile reuse.
func BenchmarkProfile50kmPointwise(b *testing.B) {
	p := openSample(b)
	a := appliance.LatLon{Lat: -22.95, Lon: -43.75}
	c := a.Destination(80, 50000)
	d := a.DistanceM(c)
	b.ReportAllocs()
	for b.Loop() {
		for i := 0; i <= 556; i++ {
			f := min(float64(i)*90/d, 1)
			h, err := p.ElevationM(a.Intermediate(c, f))
			if err != nil {
				b.Fatal(err)
			}
			sink += h
		}
	}
}

// BenchmarkEncode codes the real Rio tiles; the metric pct-of-raw is the
// payload size as a percentage of the raw int16 samples. zstd-int16le (v1,
// plain zstd of the raw samples) is the naive baseline.
func BenchmarkEncode(b *testing.B) {
	p := openSample(b)
	enc, err := terrain.NewEncoder()
	if err != nil {
		b.Fatal(err)
	}
	defer enc.Close()
	for _, tile := range []terrain.TileID{tRio, {Lat: -22, Lon: -43}} {
		s, err := p.ReadTile(tile)
		if err != nil {
			b.Fatal(err)
		}
		for _, codec := range []terrain.Codec{terrain.CodecZstdRaw, terrain.CodecPredictive} {
			b.Run(tile.Name()+"/"+codec.String(), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(2 * len(s)))
				var out []byte
				for b.Loop() {
					out, err = enc.Encode(out[:0], s, codec)
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(100*float64(len(out))/float64(2*len(s)), "pct-of-raw")
			})
		}
	}
}

// BenchmarkReadTileFile is random access through a pack file (positioned
// read of one payload, checksum, decode), as in production.
func BenchmarkReadTileFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "rio.ltp")
	if err := os.WriteFile(path, sampleBytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	p, err := terrain.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	tiles := []terrain.TileID{tRio, {Lat: -22, Lon: -43}}
	b.ReportAllocs()
	cpu0, n := processCPU(), 0
	for b.Loop() {
		s, err := p.ReadTile(tiles[n%2])
		if err != nil {
			b.Fatal(err)
		}
		sink += float64(s[0])
		n++
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(n)/1e6, "cpu-ms/op")
}
