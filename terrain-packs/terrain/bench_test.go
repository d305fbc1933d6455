package terrain_test

import (
	"testing"

	"linkplan/appliance"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

var sink float64

// BenchmarkReadTile measures random access to one tile: checksum and
// decode of a 1201×1201 SRTM3 tile of the embedded pack (no cache).
func BenchmarkReadTile(b *testing.B) {
	p := openSample(b)
	b.ReportAllocs()
	b.SetBytes(2 * 1201 * 1201)
	for b.Loop() {
		s, err := p.ReadTile(tRio)
		if err != nil {
			b.Fatal(err)
		}
		sink += float64(s[0])
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

// BenchmarkEncode codes the real Rio tile; the metric pct-of-raw is the
// payload size as a percentage of the raw int16 samples.
func BenchmarkEncode(b *testing.B) {
	p, err := terrain.OpenBytes(sample.Pack())
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	s, err := p.ReadTile(tRio)
	if err != nil {
		b.Fatal(err)
	}
	enc, err := terrain.NewEncoder()
	if err != nil {
		b.Fatal(err)
	}
	defer enc.Close()
	b.ReportAllocs()
	b.SetBytes(int64(2 * len(s)))
	var out []byte
	for b.Loop() {
		out, err = enc.Encode(out[:0], s, terrain.CodecZstdRaw)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(100*float64(len(out))/float64(2*len(s)), "pct-of-raw")
}
