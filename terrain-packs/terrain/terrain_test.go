package terrain_test

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"testing"

	"linkplan/appliance"
	"linkplan/terrain-packs/sample"
	"linkplan/terrain-packs/terrain"
)

// synthTile is one tile of a synthetic pack.
type synthTile struct {
	id      terrain.TileID
	kind    terrain.Kind
	samples []int16 // land only
	classes []uint8 // land cover (packs with the layer): nil means uniform class
	class   uint8   // the uniform land-cover class when classes is nil
	voids   []bool  // void mask (packs with the mask): nil means no void-filled sample
}

// makePack lays out a pack without land cover by hand, with the exported
// format helpers.
func makePack(t testing.TB, spd int, codec terrain.Codec, version int, tiles []synthTile) []byte {
	t.Helper()
	return layOut(t, spd, codec, version, false, tiles)
}

// makeClutterPack lays out a version-3 pack with the land-cover layer.
func makeClutterPack(t testing.TB, spd int, codec terrain.Codec, tiles []synthTile) []byte {
	t.Helper()
	return layOut(t, spd, codec, terrain.VersionV3, true, tiles)
}

// layOut writes header, index(es) and, tile by tile, the height payload
// then the land-cover payload.
func layOut(t testing.TB, spd int, codec terrain.Codec, version int, withClutter bool, tiles []synthTile) []byte {
	t.Helper()
	return layOutVoids(t, spd, codec, version, withClutter, false, tiles)
}

// makeVoidPack lays out a version-4 pack with the void mask (and the
// land-cover layer when withClutter).
func makeVoidPack(t testing.TB, spd int, codec terrain.Codec, withClutter bool, tiles []synthTile) []byte {
	t.Helper()
	return layOutVoids(t, spd, codec, terrain.VersionV4, withClutter, true, tiles)
}

// layOutVoids is layOut with the void mask: each tile's void-mask payload
// follows its land-cover payload.
func layOutVoids(t testing.TB, spd int, codec terrain.Codec, version int, withClutter, withVoids bool, tiles []synthTile) []byte {
	t.Helper()
	enc, err := terrain.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	sort.Slice(tiles, func(i, j int) bool {
		if tiles[i].id.Lat != tiles[j].id.Lat {
			return tiles[i].id.Lat < tiles[j].id.Lat
		}
		return tiles[i].id.Lon < tiles[j].id.Lon
	})
	entries := make([]terrain.Entry, len(tiles))
	var payloads []byte
	off := int64(terrain.HeaderSize + terrain.EntrySize*len(tiles))
	if withClutter {
		off += int64(terrain.ClutterEntrySize * len(tiles))
	}
	if withVoids {
		off += int64(terrain.VoidEntrySize * len(tiles))
	}
	n := spd + 1
	for i, st := range tiles {
		e := terrain.Entry{Tile: st.id, Kind: st.kind}
		if st.kind == terrain.KindLand {
			p, err := enc.Encode(nil, st.samples, codec)
			if err != nil {
				t.Fatal(err)
			}
			e.Codec, e.Offset, e.Length, e.CRC = codec, off, int64(len(p)), terrain.Checksum(p)
			e.MinM, e.MaxM = math.MaxInt16, math.MinInt16
			for _, v := range st.samples {
				if v != terrain.NoData {
					e.MinM, e.MaxM = min(e.MinM, v), max(e.MaxM, v)
				} else {
					e.Flags |= terrain.FlagNoData
				}
			}
			off += int64(len(p))
			payloads = append(payloads, p...)
		}
		if withClutter {
			c := terrain.ClutterEntry{Class: st.class}
			if st.classes == nil {
				c.Counts[st.class] = uint32(n * n)
			} else {
				for _, v := range st.classes {
					c.Counts[v]++
				}
				p, err := enc.EncodeClutter(nil, st.classes)
				if err != nil {
					t.Fatal(err)
				}
				c.Codec, c.Offset, c.Length, c.CRC = terrain.ClutterZstd, off, int64(len(p)), terrain.Checksum(p)
				off += int64(len(p))
				payloads = append(payloads, p...)
			}
			e.Clutter = c
		}
		if withVoids && st.voids != nil {
			p, count := enc.EncodeVoidMask(nil, st.voids)
			if count > 0 {
				e.Filled = uint32(count)
				e.Void = terrain.VoidEntry{Codec: terrain.VoidZstdBitmap, Count: uint32(count), Offset: off,
					Length: int64(len(p)), CRC: terrain.Checksum(p)}
				off += int64(len(p))
				payloads = append(payloads, p...)
			}
		}
		entries[i] = e
	}
	hi, err := terrain.MarshalHeaderIndex(terrain.Header{Version: version, SamplesPerDegree: spd, FileSize: off,
		Clutter: withClutter, VoidMask: withVoids}, entries)
	if err != nil {
		t.Fatal(err)
	}
	return append(hi, payloads...)
}

var (
	tRio = terrain.TileID{Lat: -23, Lon: -44}
	tSea = terrain.TileID{Lat: -23, Lon: -43}
	tVoi = terrain.TileID{Lat: -24, Lon: -44}
)

// 3×3 samples (spd 2): north row first.
var grid3 = []int16{
	0, 10, 20,
	30, 40, 50,
	60, 70, 80,
}

func smallPack(t testing.TB, version int, codec terrain.Codec) *terrain.Pack {
	t.Helper()
	b := makePack(t, 2, codec, version, []synthTile{
		{id: tRio, kind: terrain.KindLand, samples: grid3},
		{id: tSea, kind: terrain.KindSea},
		{id: tVoi, kind: terrain.KindVoid},
	})
	p, err := terrain.OpenBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestElevationBilinear(t *testing.T) {
	const tol = 1e-9 // metres
	p := smallPack(t, terrain.VersionV1, terrain.CodecZstdRaw)
	// Tile S23W044: row 0 at lat -22, row 2 at lat -23; col 0 at lon -44.
	// Sample (r, c) = 30r + 10c, a plane, so bilinear is exact anywhere:
	// h = 30 * (-22 - lat) * 2 + 10 * (lon + 44) * 2.
	plane := func(q appliance.LatLon) float64 { return 60*(-22-q.Lat) + 20*(q.Lon+44) }
	cases := []struct {
		name string
		at   appliance.LatLon
		want float64
	}{
		{"north-west corner sample", appliance.LatLon{Lat: -22, Lon: -44}, 0},
		{"north edge row (tile north is missing)", appliance.LatLon{Lat: -22, Lon: -43.5}, 10},
		{"east edge belongs to the sea tile east", appliance.LatLon{Lat: -22.5, Lon: -43}, 0},
		{"south-west corner", appliance.LatLon{Lat: -23, Lon: -44}, 60},
		{"centre sample", appliance.LatLon{Lat: -22.5, Lon: -43.5}, 40},
		{"between four samples", appliance.LatLon{Lat: -22.25, Lon: -43.75}, 20},
		{"quarter way", appliance.LatLon{Lat: -22.125, Lon: -43.9}, plane(appliance.LatLon{Lat: -22.125, Lon: -43.9})},
		{"on the south edge row", appliance.LatLon{Lat: -23, Lon: -43.3}, plane(appliance.LatLon{Lat: -23, Lon: -43.3})},
		{"sea tile", appliance.LatLon{Lat: -22.5, Lon: -42.5}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := p.ElevationM(tc.at)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-tc.want) > tol {
				t.Fatalf("ElevationM(%v) = %.12f, want %.12f ± %g", tc.at, got, tc.want, tol)
			}
		})
	}
}

func TestElevationNonPlanar(t *testing.T) {
	// A saddle: bilinear of corners 0, 100 / 100, 0 at the cell centre is 50,
	// at (1/4, 1/4) from the NW corner it is 0*9/16 + 100*3/16*2 + 0 = 37.5.
	b := makePack(t, 1, terrain.CodecZstdRaw, terrain.VersionV1, []synthTile{
		{id: tRio, kind: terrain.KindLand, samples: []int16{0, 100, 100, 0}},
	})
	p, err := terrain.OpenBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	cases := []struct {
		name string
		at   appliance.LatLon
		want float64
	}{
		{"centre", appliance.LatLon{Lat: -22.5, Lon: -43.5}, 50},
		{"quarter", appliance.LatLon{Lat: -22.25, Lon: -43.75}, 37.5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := p.ElevationM(tc.at)
			if err != nil || math.Abs(got-tc.want) > 1e-9 {
				t.Fatalf("ElevationM = %v, %v; want %v ± 1e-9", got, err, tc.want)
			}
		})
	}
}

func TestElevationErrors(t *testing.T) {
	b := makePack(t, 2, terrain.CodecZstdRaw, terrain.VersionV1, []synthTile{
		{id: tRio, kind: terrain.KindLand, samples: []int16{
			0, 10, terrain.NoData,
			30, 40, 50,
			60, 70, 80,
		}},
		{id: tVoi, kind: terrain.KindVoid},
	})
	p, err := terrain.OpenBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	cases := []struct {
		name    string
		at      appliance.LatLon
		missing string // tile name of the expected TileMissingError
		invalid bool
		want    float64
	}{
		{name: "tile not in pack", at: appliance.LatLon{Lat: -23.55, Lon: -46.63}, missing: "S24W047"},
		{name: "void tile", at: appliance.LatLon{Lat: -23.5, Lon: -43.5}, missing: "S24W044"},
		{name: "near a NoData sample", at: appliance.LatLon{Lat: -22.1, Lon: -43.1}, missing: "S23W044"},
		{name: "on a valid sample beside NoData", at: appliance.LatLon{Lat: -22, Lon: -43.5}, want: 10},
		{name: "northern hemisphere", at: appliance.LatLon{Lat: 0.5, Lon: 6.5}, missing: "N00E006"},
		{name: "NaN", at: appliance.LatLon{Lat: math.NaN(), Lon: 0}, invalid: true},
		{name: "latitude 91", at: appliance.LatLon{Lat: 91, Lon: 0}, invalid: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, err := p.ElevationM(tc.at)
			switch {
			case tc.missing != "":
				var miss *appliance.TileMissingError
				if !errors.As(err, &miss) || miss.Tile != tc.missing || !errors.Is(err, appliance.ErrTerrainMissing) {
					t.Fatalf("err = %v (h %v), want tile %s missing", err, h, tc.missing)
				}
			case tc.invalid:
				if !errors.Is(err, appliance.ErrInvalid) {
					t.Fatalf("err = %v, want ErrInvalid", err)
				}
			default:
				if err != nil || h != tc.want {
					t.Fatalf("ElevationM = %v, %v; want %v", h, err, tc.want)
				}
			}
		})
	}
}

func TestTileNames(t *testing.T) {
	cases := []struct {
		name string
		at   appliance.LatLon
		tile string
	}{
		{"rio", appliance.LatLon{Lat: -22.9, Lon: -43.2}, "S23W044"},
		{"integer corner belongs north-east", appliance.LatLon{Lat: -22, Lon: -43}, "S22W043"},
		{"equator and greenwich", appliance.LatLon{Lat: 0, Lon: 0}, "N00E000"},
		{"just south of the equator", appliance.LatLon{Lat: -0.0001, Lon: -0.0001}, "S01W001"},
		{"north pole", appliance.LatLon{Lat: 90, Lon: 180}, "N89E179"},
		{"south-west limit", appliance.LatLon{Lat: -90, Lon: -180}, "S90W180"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := terrain.TileOf(tc.at)
			if id.Name() != tc.tile {
				t.Fatalf("TileOf(%v) = %s, want %s", tc.at, id.Name(), tc.tile)
			}
			back, err := terrain.ParseTileName(tc.tile)
			if err != nil || back != id {
				t.Fatalf("ParseTileName(%s) = %v, %v", tc.tile, back, err)
			}
		})
	}
	for _, bad := range []string{"", "S23W44", "X23W044", "S23X044", "S9AW044", "N90E000", "S23W181", "S00E010", "N10W000"} {
		t.Run("bad "+bad, func(t *testing.T) {
			if _, err := terrain.ParseTileName(bad); !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("ParseTileName(%q) err = %v, want ErrInvalid", bad, err)
			}
		})
	}
}

func sampleBytes() []byte { return sample.Pack() }

func openSample(t testing.TB, opts ...terrain.Option) *terrain.Pack {
	t.Helper()
	p, err := terrain.OpenBytes(sample.Pack(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestProfile(t *testing.T) {
	p := openSample(t)
	tijuca := appliance.LatLon{Lat: -22.9436, Lon: -43.2858}
	sino := appliance.LatLon{Lat: -22.4583, Lon: -43.0278}
	cases := []struct {
		name  string
		a, b  appliance.LatLon
		stepM float64
	}{
		{"tijuca to sino every 90 m", tijuca, sino, 90},
		{"sino to tijuca every 1 km", sino, tijuca, 1000},
		{"shorter than one step", tijuca, appliance.LatLon{Lat: -22.944, Lon: -43.286}, 90},
		{"into a missing tile", appliance.LatLon{Lat: -22.5, Lon: -43.5}, appliance.LatLon{Lat: -21.5, Lon: -43.5}, 90},
		{"same point", tijuca, tijuca, 90},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prof, err := p.Profile(tc.a, tc.b, tc.stepM)
			if tc.name == "into a missing tile" {
				// The path leaves S23W044 into S22W044, which the sample
				// does not hold: an error, never sea level.
				var miss *appliance.TileMissingError
				if !errors.As(err, &miss) || miss.Tile != "S22W044" || prof != nil {
					t.Fatalf("err = %v, want S22W044 missing", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d := tc.a.DistanceM(tc.b)
			wantN := int(math.Ceil(d/tc.stepM-1e-9)) + 1
			if prof.Len() != wantN || len(prof.HeightsM) != wantN || len(prof.Sea) != wantN {
				t.Fatalf("len = %d/%d/%d, want %d", prof.Len(), len(prof.HeightsM), len(prof.Sea), wantN)
			}
			if prof.DistancesM[0] != 0 || math.Abs(prof.LengthM()-d) > 1e-9 {
				t.Fatalf("distances from %v to %v, want 0 to %v", prof.DistancesM[0], prof.LengthM(), d)
			}
			spacing := d / float64(wantN-1)
			for i := 1; i < prof.Len(); i++ {
				step := prof.DistancesM[i] - prof.DistancesM[i-1]
				if step <= 0 || step > tc.stepM+1e-9 || math.Abs(step-spacing) > 1e-6 {
					t.Fatalf("step %d = %v m, want equal spacing %v m (at most %v)", i, step, spacing, tc.stepM)
				}
			}
			for _, end := range []struct {
				i int
				q appliance.LatLon
			}{{0, tc.a}, {prof.Len() - 1, tc.b}} {
				h, err := p.ElevationM(end.q)
				if err != nil || h != prof.HeightsM[end.i] {
					t.Fatalf("sample %d height %v, ElevationM %v (%v)", end.i, prof.HeightsM[end.i], h, err)
				}
			}
			// Every interior sample is the height at its great-circle point.
			for _, i := range []int{prof.Len() / 3, prof.Len() / 2} {
				q := tc.a.Intermediate(tc.b, prof.DistancesM[i]/d)
				h, _ := p.ElevationM(q)
				if d > 0 && math.Abs(h-prof.HeightsM[i]) > 1e-6 { // metres; Intermediate(a, b, 0) is a only to rounding
					t.Fatalf("sample %d height %v, ElevationM there %v", i, prof.HeightsM[i], h)
				}
			}
		})
	}
	for _, step := range []float64{0, -1, math.NaN(), math.Inf(1), 1e-6} {
		t.Run(fmt.Sprintf("bad step %v", step), func(t *testing.T) {
			if _, err := p.Profile(tijuca, sino, step); !errors.Is(err, appliance.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestCacheBounded(t *testing.T) {
	var tiles []synthTile
	for i := 0; i < 6; i++ {
		s := make([]int16, 9)
		for j := range s {
			s[j] = int16(100*i + j)
		}
		tiles = append(tiles, synthTile{id: terrain.TileID{Lat: -10, Lon: -50 + i}, kind: terrain.KindLand, samples: s})
	}
	b := makePack(t, 2, terrain.CodecZstdRaw, terrain.VersionV1, tiles)
	const tileBytes = 9 * 2
	cases := []struct {
		name     string
		maxBytes int64
		maxTiles int
	}{
		{"two tiles", 2 * tileBytes, 2},
		{"less than a tile keeps one", 1, 1},
		{"all fit", 100 * tileBytes, 6},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := terrain.OpenBytes(b, terrain.WithCacheBytes(tc.maxBytes))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			for round := 0; round < 3; round++ {
				for i := 0; i < 6; i++ {
					h, err := p.ElevationM(appliance.LatLon{Lat: -9, Lon: float64(-50 + i)}) // NW corner sample
					if err != nil || h != float64(100*i) {
						t.Fatalf("tile %d: %v, %v", i, h, err)
					}
					if st := p.CacheStats(); st.Tiles > tc.maxTiles {
						t.Fatalf("cache holds %d tiles, bound %d", st.Tiles, tc.maxTiles)
					}
				}
			}
			st := p.CacheStats()
			if st.Hits+st.Misses != 18 || (tc.maxTiles == 6 && st.Misses != 6) || (tc.maxTiles < 6 && st.Misses != 18) {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

// TestCacheConcurrent hammers one small cache from many goroutines; run
// with -race. Every answer must equal the single-threaded answer.
func TestCacheConcurrent(t *testing.T) {
	p := openSample(t, terrain.WithCacheBytes(1)) // one tile: constant eviction
	ref := openSample(t)
	pts := []appliance.LatLon{
		{Lat: -22.9436, Lon: -43.2858}, {Lat: -21.98, Lon: -42.37}, {Lat: -22.4583, Lon: -43.0278}, {Lat: -21.5, Lon: -42.5},
	}
	want := make([]float64, len(pts))
	for i, q := range pts {
		h, err := ref.ElevationM(q)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = h
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 40; k++ {
				i := (g + k) % len(pts)
				h, err := p.ElevationM(pts[i])
				if err != nil || h != want[i] {
					errs <- fmt.Errorf("goroutine %d point %d: %v, %v; want %v", g, i, h, err, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if st := p.CacheStats(); st.Tiles != 1 {
		t.Fatalf("cache holds %d tiles, want 1", st.Tiles)
	}
}

func TestCorruptTile(t *testing.T) {
	good := append([]byte(nil), sample.Pack()...)
	p := openSample(t)
	e, _ := p.Entry(tRio)
	bad := append([]byte(nil), good...)
	bad[e.Offset+e.Length/2] ^= 1
	q, err := terrain.OpenBytes(bad)
	if err != nil {
		t.Fatalf("the index is intact, Open must work: %v", err)
	}
	defer q.Close()
	for i := 0; i < 2; i++ { // a failed decode is not cached
		_, err = q.ElevationM(appliance.LatLon{Lat: -22.9, Lon: -43.2})
		if !errors.Is(err, terrain.ErrCorrupt) {
			t.Fatalf("ElevationM on a corrupt tile: err = %v, want ErrCorrupt", err)
		}
	}
	if h, err := q.ElevationM(appliance.LatLon{Lat: -21.98, Lon: -42.37}); err != nil || h < 300 {
		t.Fatalf("the other tile must still work: %v, %v", h, err)
	}
}

func TestOpenCorrupt(t *testing.T) {
	good := sample.Pack()
	cases := []struct {
		name string
		mut  func([]byte) []byte
	}{
		{"empty", func(b []byte) []byte { return nil }},
		{"truncated", func(b []byte) []byte { return b[:len(b)-1] }},
		{"bad magic", func(b []byte) []byte { b[0] = 'X'; return b }},
		{"header bit", func(b []byte) []byte { b[17] ^= 1; return b }},
		{"index bit", func(b []byte) []byte { b[terrain.HeaderSize+9] ^= 1; return b }},
		{"longer", func(b []byte) []byte { return append(b, 0) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.mut(append([]byte(nil), good...))
			if _, err := terrain.OpenBytes(b); !errors.Is(err, terrain.ErrCorrupt) {
				t.Fatalf("OpenBytes err = %v, want ErrCorrupt", err)
			}
		})
	}
}

func TestLayered(t *testing.T) {
	rio := openSample(t)
	// An overlay that holds S23W044 as flat 7 m (it wins) and S24W044 as sea.
	flat := make([]int16, 9)
	for i := range flat {
		flat[i] = 7
	}
	over, err := terrain.OpenBytes(makePack(t, 2, terrain.CodecZstdRaw, terrain.VersionV1, []synthTile{
		{id: tRio, kind: terrain.KindLand, samples: flat},
		{id: tVoi, kind: terrain.KindSea},
		{id: terrain.TileID{Lat: -22, Lon: -43}, kind: terrain.KindVoid},
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close()
	l := terrain.NewLayered(over, rio)
	cantagalo := appliance.LatLon{Lat: -21.98, Lon: -42.37}
	wantCantagalo, _ := rio.ElevationM(cantagalo)
	cases := []struct {
		name    string
		at      appliance.LatLon
		want    float64
		missing string
	}{
		{name: "overlay wins", at: appliance.LatLon{Lat: -22.9, Lon: -43.2}, want: 7},
		{name: "void in overlay falls through", at: cantagalo, want: wantCantagalo},
		{name: "sea only in overlay", at: appliance.LatLon{Lat: -23.5, Lon: -43.5}, want: 0},
		{name: "in neither", at: appliance.LatLon{Lat: -10, Lon: -50}, missing: "S10W050"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, err := l.ElevationM(tc.at)
			if tc.missing != "" {
				var miss *appliance.TileMissingError
				if !errors.As(err, &miss) || miss.Tile != tc.missing {
					t.Fatalf("err = %v, want %s missing", err, tc.missing)
				}
				return
			}
			if err != nil || h != tc.want {
				t.Fatalf("ElevationM = %v, %v; want %v", h, err, tc.want)
			}
		})
	}
	t.Run("profile crosses packs", func(t *testing.T) {
		prof, err := l.Profile(appliance.LatLon{Lat: -22.9, Lon: -43.5}, appliance.LatLon{Lat: -23.2, Lon: -43.5}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		first, last := prof.HeightsM[0], prof.HeightsM[prof.Len()-1]
		if first != 7 || last != 0 || !prof.Sea[prof.Len()-1] || prof.Sea[0] {
			t.Fatalf("profile ends %v/%v sea %v/%v", first, last, prof.Sea[0], prof.Sea[prof.Len()-1])
		}
	})
}

func TestInfo(t *testing.T) {
	p := openSample(t)
	in := p.Info()
	if in.TileCount != 2 || in.LandTiles != 2 || in.SamplesPerDegree != 1200 || in.TileSamples != 1201 ||
		in.RawBytes != 2*2*1201*1201 || in.FileBytes != int64(len(sample.Pack())) ||
		in.Bounds != (terrain.Bounds{MinLat: -23, MinLon: -44, MaxLat: -21, MaxLon: -42}) {
		t.Fatalf("info %+v", in)
	}
	if in.CompressedBytes >= in.RawBytes || in.CompressionRatio <= 0 || in.CompressionRatio >= 1 {
		t.Fatalf("compressed %d of raw %d", in.CompressedBytes, in.RawBytes)
	}
	names := p.Tiles()
	if len(names) != 2 || names[0] != "S22W043" || names[1] != "S23W044" {
		t.Fatalf("tiles %v", names)
	}
	t.Logf("sample pack: %d bytes, land payloads %.1f %% of raw int16", in.FileBytes, 100*in.CompressionRatio)
}
