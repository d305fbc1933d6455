package terrain_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

// realCrop returns a small real tile: every 40th sample of the sample
// pack's S23W044 (31×31 samples, a 2′ grid).
func realCrop(t testing.TB) []int16 {
	t.Helper()
	return realCropOf(t, tRio)
}

// FuzzOpen feeds arbitrary bytes to the header and index parser (the
// land-cover index included) and, when they open, to the tile decoders,
// ElevationM, ClutterAt, ReadVoidMask and VoidFilledAt. Nothing may panic,
// a tile that decodes must have the grid's size and heights within the
// index's min/max, land cover that decodes must hold classes 0…10 with the
// index's counts, and a void mask that decodes must have the index's count.
func FuzzOpen(f *testing.F) {
	crop := realCrop(f)
	f.Add(makePack(f, 30, terrain.CodecZstdRaw, terrain.VersionV1, []synthTile{
		{id: tRio, kind: terrain.KindLand, samples: crop},
		{id: tSea, kind: terrain.KindSea},
	}))
	f.Add(makePack(f, 30, terrain.CodecPredictive, terrain.VersionV2, []synthTile{
		{id: tRio, kind: terrain.KindLand, samples: crop},
		{id: tVoi, kind: terrain.KindVoid},
	}))
	f.Add(makePack(f, 2, terrain.CodecZstdRaw, terrain.VersionV1, []synthTile{
		{id: tRio, kind: terrain.KindLand, samples: grid3},
		{id: tVoi, kind: terrain.KindVoid},
	}))
	f.Add(makeClutterPack(f, 30, terrain.CodecPredictive, []synthTile{
		{id: tRio, kind: terrain.KindLand, samples: crop, classes: realClasses(f)},
		{id: tSea, kind: terrain.KindSea, class: 8},
		{id: tVoi, kind: terrain.KindVoid},
	}))
	f.Add(clutterPackBytes(f))
	vs, vm := voidGrid()
	f.Add(makeVoidPack(f, 4, terrain.CodecPredictive, false, []synthTile{
		{id: tRio, kind: terrain.KindLand, samples: vs, voids: vm},
		{id: tSea, kind: terrain.KindSea},
		{id: tVoi, kind: terrain.KindVoid},
	}))
	for _, golden := range []string{"testdata/v3-clutter-crop.ltp", "testdata/v4-voids-crop.ltp", "testdata/v2-rio-crop.ltp"} {
		b, err := os.ReadFile(golden)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	hdr := sample.Pack()
	f.Add(append([]byte(nil), hdr[:terrain.HeaderSize+2*terrain.EntrySize]...)) // real header+index, no data
	f.Add([]byte(terrain.Magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := terrain.OpenBytes(b)
		if err != nil {
			return
		}
		defer p.Close()
		h := p.Header()
		_ = p.Info()
		n := h.TileSamples()
		for _, e := range p.Entries() {
			centre := appliance.LatLon{Lat: float64(e.Tile.Lat) + 0.5, Lon: float64(e.Tile.Lon) + 0.5}
			checkClutter(t, p, e, centre)
			checkVoids(t, p, e, centre)
			hm, herr := p.ElevationM(centre)
			if e.Kind != terrain.KindLand {
				continue
			}
			s, err := p.ReadTile(e.Tile)
			if err != nil {
				if herr == nil {
					t.Fatalf("tile %s: ReadTile fails (%v) but ElevationM answers %v", e.Tile, err, hm)
				}
				continue
			}
			if len(s) != n*n {
				t.Fatalf("tile %s: %d samples, want %d", e.Tile, len(s), n*n)
			}
			if herr == nil && (hm < float64(e.MinM)-1e-9 || hm > float64(e.MaxM)+1e-9) && e.Flags&terrain.FlagNoData == 0 {
				// Heights interpolate samples, so they stay in the samples'
				// range; the index range is only a claim of the file, check it
				// against the samples instead of trusting it.
				lo, hi := s[0], s[0]
				for _, v := range s {
					lo, hi = min(lo, v), max(hi, v)
				}
				if hm < float64(lo)-1e-9 || hm > float64(hi)+1e-9 {
					t.Fatalf("tile %s: height %v outside its samples %d..%d", e.Tile, hm, lo, hi)
				}
			}
		}
	})
}

// checkVoids checks the void mask of entry e of a fuzzed pack: a mask
// that decodes has the grid's size and the index's count, and VoidFilledAt
// fails exactly where ElevationM does.
func checkVoids(t *testing.T, p *terrain.Pack, e terrain.Entry, centre appliance.LatLon) {
	_, herr := p.ElevationM(centre)
	v, verr := p.VoidFilledAt(centre)
	if herr != nil && verr == nil {
		t.Fatalf("tile %s: ElevationM fails (%v) but VoidFilledAt answers %v", e.Tile, herr, v)
	}
	if v && !p.HasVoidMask() {
		t.Fatalf("tile %s: void-filled in a pack without the mask", e.Tile)
	}
	mask, err := p.ReadVoidMask(e.Tile)
	if err != nil {
		return
	}
	n := p.Header().TileSamples()
	if len(mask) != n*n {
		t.Fatalf("tile %s: %d mask flags, want %d", e.Tile, len(mask), n*n)
	}
	count := uint32(0)
	for _, m := range mask {
		if m {
			count++
		}
	}
	if count != e.Void.Count {
		t.Fatalf("tile %s: %d void-filled samples, index says %d", e.Tile, count, e.Void.Count)
	}
}

// realClasses returns 31×31 real land-cover classes: the Amapá raster
// resampled onto N00W052 on a 2′ grid.
func realClasses(t testing.TB) []uint8 { return apClasses(t, tAmapa, 31) }

// checkClutter checks the land cover of entry e of a fuzzed pack.
func checkClutter(t *testing.T, p *terrain.Pack, e terrain.Entry, centre appliance.LatLon) {
	info, cerr := p.ClutterAt(centre)
	if !p.HasClutter() {
		if !errors.Is(cerr, terrain.ErrNoClutterLayer) {
			t.Fatalf("tile %s: pack without land cover: ClutterAt err = %v", e.Tile, cerr)
		}
		return
	}
	cs, err := p.ReadClutter(e.Tile)
	if err != nil {
		if cerr == nil && e.Clutter.Codec == terrain.ClutterZstd && terrain.TileOf(centre) == e.Tile {
			t.Fatalf("tile %s: ReadClutter fails (%v) but ClutterAt answers %+v", e.Tile, err, info)
		}
		return
	}
	n := p.Header().TileSamples()
	if len(cs) != n*n {
		t.Fatalf("tile %s: %d land-cover samples, want %d", e.Tile, len(cs), n*n)
	}
	var counts [terrain.ClutterClasses]uint32
	for _, c := range cs {
		if int(c) >= terrain.ClutterClasses {
			t.Fatalf("tile %s: class %d", e.Tile, c)
		}
		counts[c]++
	}
	if counts != e.Clutter.Counts {
		t.Fatalf("tile %s: class counts %v, index says %v", e.Tile, counts, e.Clutter.Counts)
	}
	if cerr == nil && int(info.Class) >= terrain.ClutterClasses {
		t.Fatalf("tile %s: ClutterAt class %d", e.Tile, info.Class)
	}
}

// FuzzParseTileName: a name that parses prints back as itself (upper
// case), and every valid tile's name parses back to the tile.
func FuzzParseTileName(f *testing.F) {
	for _, s := range []string{"S23W044", "S22W043", "S46W066", "N00E000", "s04w039", "N89E179", "S90W180", "X1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := terrain.ParseTileName(s)
		if err != nil {
			return
		}
		if got := id.Name(); !strings.EqualFold(got, s) {
			t.Fatalf("ParseTileName(%q).Name() = %q", s, got)
		}
		back, err := terrain.ParseTileName(id.Name())
		if err != nil || back != id {
			t.Fatalf("round trip of %v: %v, %v", id, back, err)
		}
	})
}
