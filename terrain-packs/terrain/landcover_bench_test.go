package terrain_test

import (
	"testing"

	"linkplan/appliance"
	"linkplan/terrain-packs/terrain"
)

// amapaBenchPack returns a benchmark fixture on the SRTM3 grid: tiles
// N00W052 and N01W052 with the real MapBiomas land cover of Amapá
// (clutter.ResampleTile, as the packer stores it) and, for want of real
// Amapá heights in the repository, the real heights of the two Rio tiles
// (S23W044, S22W043) moved there. Without withClutter, the same pack
// without the layer (version 2).
func amapaBenchPack(b *testing.B, withClutter bool, opts ...terrain.Option) *terrain.Pack {
	b.Helper()
	src := openSample(b)
	var tiles []synthTile
	for _, pair := range [][2]terrain.TileID{{tRio, {Lat: 0, Lon: -52}}, {{Lat: -22, Lon: -43}, {Lat: 1, Lon: -52}}} {
		s, err := src.ReadTile(pair[0])
		if err != nil {
			b.Fatal(err)
		}
		st := synthTile{id: pair[1], kind: terrain.KindLand, samples: s}
		if withClutter {
			st.classes = apClasses(b, pair[1], 1201)
		}
		tiles = append(tiles, st)
	}
	var raw []byte
	if withClutter {
		raw = makeClutterPack(b, 1200, terrain.CodecPredictive, tiles)
	} else {
		raw = makePack(b, 1200, terrain.CodecPredictive, terrain.VersionV2, tiles)
	}
	p, err := terrain.OpenBytes(raw, opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	return p
}

// BenchmarkClutterAt measures a cache hit: one land-cover query on a
// decoded tile.
func BenchmarkClutterAt(b *testing.B) {
	p := amapaBenchPack(b, true)
	q := appliance.LatLon{Lat: 1.2345, Lon: -51.6789}
	if _, err := p.ClutterAt(q); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		c, err := p.ClutterAt(q)
		if err != nil {
			b.Fatal(err)
		}
		sink += c.HeightM
	}
}

// BenchmarkClutterAtNaive is the baseline without a useful cache: two
// land-cover tiles alternate in a one-tile cache, so every query reads,
// checks and decodes a 1.44 MB tile.
func BenchmarkClutterAtNaive(b *testing.B) {
	p := amapaBenchPack(b, true, terrain.WithCacheBytes(1))
	qs := []appliance.LatLon{{Lat: 1.2345, Lon: -51.6789}, {Lat: 0.5432, Lon: -51.9876}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c, err := p.ClutterAt(qs[i%2])
		if err != nil {
			b.Fatal(err)
		}
		sink += c.HeightM
		i++
	}
}

// BenchmarkProfileClutter samples a 50 km path every 90 m (557 samples)
// across the two tiles, warm cache, with the land-cover layer (heights,
// classes and clutter heights) and without it (the baseline: heights
// only, same heights).
func BenchmarkProfileClutter(b *testing.B) {
	a := appliance.LatLon{Lat: 0.8, Lon: -51.7}
	c := a.Destination(20, 50000)
	for _, tc := range []struct {
		name    string
		clutter bool
	}{{"heights only", false}, {"heights and land cover", true}} {
		b.Run(tc.name, func(b *testing.B) {
			p := amapaBenchPack(b, tc.clutter)
			prof, err := p.Profile(a, c, 90)
			if err != nil {
				b.Fatal(err)
			}
			if (prof.ClutterClass != nil) != tc.clutter || prof.Len() != 557 {
				b.Fatalf("%d samples, clutter %v", prof.Len(), prof.ClutterClass != nil)
			}
			b.ReportAllocs()
			for b.Loop() {
				prof, err := p.Profile(a, c, 90)
				if err != nil {
					b.Fatal(err)
				}
				sink += prof.HeightsM[1]
			}
		})
	}
}
