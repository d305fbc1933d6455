package terrain_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"

	"linkplan/appliance"
	"linkplan/terrain-packs/clutter"
	"linkplan/terrain-packs/geotiff"
	"linkplan/terrain-packs/terrain"
)

// apRaster is the real MapBiomas 2020 land-cover raster of the Araguari
// river, Amapá (EPSG:31976), owned by terrain-packs/clutter's testdata.
const apRaster = "../clutter/testdata/utm_cover_AP_rio_2020.tif"

var tNorth = terrain.TileID{Lat: -22, Lon: -44} // north of tRio

// classGrid: sample (r, c) of tRio has class 3r+c+1 (Forest … Soybean).
var classGrid = []uint8{
	1, 2, 3,
	4, 5, 6,
	7, 8, 9,
}

// clutterPack holds tRio (land, classGrid), tSea (sea, Water), tVoi (void,
// no land-cover source: Unknown) and tNorth (land, uniform Forest), on a
// 0.5° grid.
func clutterPack(t testing.TB, opts ...terrain.Option) *terrain.Pack {
	t.Helper()
	p, err := terrain.OpenBytes(clutterPackBytes(t), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func clutterPackBytes(t testing.TB) []byte {
	t.Helper()
	return makeClutterPack(t, 2, terrain.CodecPredictive, []synthTile{
		{id: tRio, kind: terrain.KindLand, samples: grid3, classes: classGrid},
		{id: tSea, kind: terrain.KindSea, class: uint8(clutter.Water)},
		{id: tVoi, kind: terrain.KindVoid, class: uint8(clutter.Unknown)},
		{id: tNorth, kind: terrain.KindLand, samples: grid3, class: uint8(clutter.Forest)},
	})
}

func TestClutterAt(t *testing.T) {
	p := clutterPack(t)
	if !p.HasClutter() || p.Header().Version != terrain.VersionV3 {
		t.Fatalf("HasClutter %v, version %d", p.HasClutter(), p.Header().Version)
	}
	cases := []struct {
		name    string
		at      appliance.LatLon
		want    clutter.Class
		missing string // tile of the expected TileMissingError
		invalid bool
	}{
		{name: "north-west sample", at: appliance.LatLon{Lat: -22.2, Lon: -43.8}, want: 1},
		{name: "nearest is the centre sample", at: appliance.LatLon{Lat: -22.3, Lon: -43.7}, want: 5},
		{name: "rounds to the south-east corner sample", at: appliance.LatLon{Lat: -22.95, Lon: -43.05}, want: 9},
		{name: "west edge, middle row", at: appliance.LatLon{Lat: -22.6, Lon: -43.9}, want: 4},
		{name: "south edge row", at: appliance.LatLon{Lat: -23, Lon: -43.5}, want: 8},
		{name: "north edge belongs to the tile north", at: appliance.LatLon{Lat: -22, Lon: -43.5}, want: clutter.Forest},
		{name: "east edge belongs to the sea tile", at: appliance.LatLon{Lat: -22.5, Lon: -43}, want: clutter.Water},
		{name: "sea tile", at: appliance.LatLon{Lat: -22.5, Lon: -42.5}, want: clutter.Water},
		{name: "tile without a land-cover source", at: appliance.LatLon{Lat: -23.5, Lon: -43.5}, want: clutter.Unknown},
		{name: "tile not in the pack", at: appliance.LatLon{Lat: -10, Lon: -50}, missing: "S10W050"},
		{name: "invalid position", at: appliance.LatLon{Lat: 91, Lon: 0}, invalid: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := p.ClutterAt(tc.at)
			switch {
			case tc.missing != "":
				var miss *appliance.TileMissingError
				if !errors.As(err, &miss) || miss.Tile != tc.missing {
					t.Fatalf("err = %v, want %s missing", err, tc.missing)
				}
				return
			case tc.invalid:
				if !errors.Is(err, appliance.ErrInvalid) {
					t.Fatalf("err = %v, want ErrInvalid", err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			want := appliance.ClutterInfo{Class: uint8(tc.want), Label: tc.want.String(), HeightM: tc.want.HeightM()}
			if got != want {
				t.Fatalf("ClutterAt(%v) = %+v, want %+v", tc.at, got, want)
			}
		})
	}
	t.Run("unknown says so", func(t *testing.T) {
		got, err := p.ClutterAt(appliance.LatLon{Lat: -23.5, Lon: -43.5})
		if err != nil || got.Class != 0 || got.Label != "Unknown" || got.HeightM != 0 {
			t.Fatalf("ClutterAt = %+v, %v; want class 0 Unknown, 0 m", got, err)
		}
	})
}

// TestClutterUnavailable: the embedded Rio sample was built without land
// cover; it must say so, never guess.
func TestClutterUnavailable(t *testing.T) {
	p := openSample(t)
	if p.HasClutter() {
		t.Fatal("the sample pack claims a land-cover layer")
	}
	q := appliance.LatLon{Lat: -22.9436, Lon: -43.2858}
	_, err := p.ClutterAt(q)
	if !errors.Is(err, appliance.ErrUnavailable) || !errors.Is(err, terrain.ErrNoClutterLayer) ||
		!strings.Contains(err.Error(), "no land-cover (clutter) layer") {
		t.Fatalf("ClutterAt err = %v, want ErrUnavailable naming the missing land-cover layer", err)
	}
	if _, err := p.ReadClutter(tRio); !errors.Is(err, appliance.ErrUnavailable) {
		t.Fatalf("ReadClutter err = %v, want ErrUnavailable", err)
	}
	prof, err := p.Profile(q, appliance.LatLon{Lat: -22.9, Lon: -43.2}, 90)
	if err != nil {
		t.Fatal(err)
	}
	if prof.ClutterClass != nil || prof.ClutterHeightsM != nil {
		t.Fatal("profile of a pack without land cover has clutter arrays")
	}
	if in := p.Info(); in.Clutter || in.ClutterHistogram != nil || in.Tiles[0].Clutter != nil {
		t.Fatalf("info claims land cover: %+v", in)
	}
}

func TestClutterProfile(t *testing.T) {
	p := clutterPack(t)
	cases := []struct {
		name string
		a, b appliance.LatLon
		step float64 // metres
	}{
		{"land into sea", appliance.LatLon{Lat: -22.3, Lon: -43.9}, appliance.LatLon{Lat: -22.7, Lon: -42.6}, 2000},
		{"land into the tile north", appliance.LatLon{Lat: -22.9, Lon: -43.6}, appliance.LatLon{Lat: -21.4, Lon: -43.4}, 5000},
		{"one sample", appliance.LatLon{Lat: -22.3, Lon: -43.7}, appliance.LatLon{Lat: -22.3, Lon: -43.7}, 100},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prof, err := p.Profile(tc.a, tc.b, tc.step)
			if err != nil {
				t.Fatal(err)
			}
			if len(prof.ClutterClass) != prof.Len() || len(prof.ClutterHeightsM) != prof.Len() {
				t.Fatalf("%d samples, %d classes, %d clutter heights", prof.Len(), len(prof.ClutterClass), len(prof.ClutterHeightsM))
			}
			seen := map[uint8]bool{}
			d := tc.a.DistanceM(tc.b)
			for i := range prof.ClutterClass {
				q := tc.b
				if i < prof.Len()-1 {
					q = tc.a.Intermediate(tc.b, prof.DistancesM[i]/max(d, 1))
				}
				want, err := p.ClutterAt(q)
				if err != nil {
					t.Fatal(err)
				}
				if prof.ClutterClass[i] != want.Class || prof.ClutterHeightsM[i] != want.HeightM {
					t.Fatalf("sample %d at %v: class %d %v m, ClutterAt %+v", i, q, prof.ClutterClass[i], prof.ClutterHeightsM[i], want)
				}
				if prof.Sea[i] && want.Class != uint8(clutter.Water) {
					t.Fatalf("sea sample %d is %s", i, want.Label)
				}
				seen[want.Class] = true
			}
			if tc.name != "one sample" && len(seen) < 2 {
				t.Fatalf("the path saw only classes %v", seen)
			}
		})
	}
	t.Run("into the void tile", func(t *testing.T) {
		_, err := p.Profile(appliance.LatLon{Lat: -22.5, Lon: -43.5}, appliance.LatLon{Lat: -23.5, Lon: -43.5}, 1000)
		var miss *appliance.TileMissingError
		if !errors.As(err, &miss) || miss.Tile != "S24W044" {
			t.Fatalf("err = %v, want S24W044 missing (the land cover does not make heights)", err)
		}
	})
}

func TestLayeredClutter(t *testing.T) {
	// a: tRio with Unknown samples in its middle row; tVoi Unknown.
	holes := append([]uint8(nil), classGrid...)
	holes[3], holes[4], holes[5] = 0, 0, 0
	a, err := terrain.OpenBytes(makeClutterPack(t, 2, terrain.CodecZstdRaw, []synthTile{
		{id: tRio, kind: terrain.KindLand, samples: grid3, classes: holes},
		{id: tVoi, kind: terrain.KindVoid},
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	// b: tRio all Pasture.
	b, err := terrain.OpenBytes(makeClutterPack(t, 2, terrain.CodecZstdRaw, []synthTile{
		{id: tRio, kind: terrain.KindLand, samples: grid3, class: uint8(clutter.Pasture)},
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	rio := openSample(t) // no layer: S23W044 and S22W043
	l := terrain.NewLayered(a, b, rio)
	if !l.HasClutter() || terrain.NewLayered(rio).HasClutter() {
		t.Fatal("HasClutter")
	}
	cases := []struct {
		name        string
		at          appliance.LatLon
		want        clutter.Class
		unavailable bool
		missing     string
	}{
		{name: "first pack knows", at: appliance.LatLon{Lat: -22.2, Lon: -43.8}, want: 1},
		{name: "unknown in the first falls through", at: appliance.LatLon{Lat: -22.5, Lon: -43.5}, want: clutter.Pasture},
		{name: "only the pack without a layer holds it", at: appliance.LatLon{Lat: -21.98, Lon: -42.37}, unavailable: true},
		{name: "unknown everywhere", at: appliance.LatLon{Lat: -23.5, Lon: -43.5}, want: clutter.Unknown},
		{name: "in no pack", at: appliance.LatLon{Lat: -10, Lon: -50}, missing: "S10W050"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := l.ClutterAt(tc.at)
			switch {
			case tc.unavailable:
				if !errors.Is(err, appliance.ErrUnavailable) || !strings.Contains(err.Error(), "S22W043") {
					t.Fatalf("err = %v, want ErrUnavailable naming S22W043", err)
				}
				return
			case tc.missing != "":
				var miss *appliance.TileMissingError
				if !errors.As(err, &miss) || miss.Tile != tc.missing {
					t.Fatalf("err = %v, want %s missing", err, tc.missing)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if got.Class != uint8(tc.want) || got.Label != tc.want.String() {
				t.Fatalf("ClutterAt = %+v, want %s", got, tc.want)
			}
		})
	}
	profCases := []struct {
		name        string
		l           *terrain.Layered
		a, b        appliance.LatLon
		wantClutter bool
	}{
		{"heights from packs with the layer", l, appliance.LatLon{Lat: -22.2, Lon: -43.8}, appliance.LatLon{Lat: -22.8, Lon: -43.2}, true},
		{"heights from the pack without", l, appliance.LatLon{Lat: -21.9, Lon: -42.9}, appliance.LatLon{Lat: -21.1, Lon: -42.1}, false},
		{"pack without the layer first", terrain.NewLayered(rio, a), appliance.LatLon{Lat: -22.2, Lon: -43.8}, appliance.LatLon{Lat: -22.8, Lon: -43.2}, false},
	}
	for _, tc := range profCases {
		t.Run("profile "+tc.name, func(t *testing.T) {
			prof, err := tc.l.Profile(tc.a, tc.b, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if got := prof.ClutterClass != nil && prof.ClutterHeightsM != nil; got != tc.wantClutter {
				t.Fatalf("clutter arrays present = %v, want %v", got, tc.wantClutter)
			}
			for i, c := range prof.ClutterClass {
				if c == 0 {
					t.Fatalf("sample %d: Unknown, but pack b knows Pasture there", i)
				}
			}
		})
	}
}

func TestClutterCache(t *testing.T) {
	q := appliance.LatLon{Lat: -22.3, Lon: -43.7}
	cases := []struct {
		name      string
		maxBytes  int64
		wantTiles int
		wantBytes int64
	}{
		{"heights and land cover share the cache", 1 << 20, 2, 9*2 + 9},
		{"one tile at most", 1, 1, 9},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := clutterPack(t, terrain.WithCacheBytes(tc.maxBytes))
			for round := 0; round < 2; round++ {
				if _, err := p.ElevationM(q); err != nil {
					t.Fatal(err)
				}
				if c, err := p.ClutterAt(q); err != nil || c.Class != 5 {
					t.Fatalf("ClutterAt = %+v, %v", c, err)
				}
			}
			st := p.CacheStats()
			if st.Tiles != tc.wantTiles || st.Bytes != tc.wantBytes {
				t.Fatalf("cache %+v, want %d tiles, %d bytes", st, tc.wantTiles, tc.wantBytes)
			}
		})
	}
}

// TestClutterConcurrent mixes height and land-cover queries of two tiles
// from many goroutines on a one-tile cache (constant eviction across both
// layers); run with -race. Every answer must equal the single-threaded one.
func TestClutterConcurrent(t *testing.T) {
	p := clutterPack(t, terrain.WithCacheBytes(1))
	ref := clutterPack(t)
	pts := []appliance.LatLon{{Lat: -22.3, Lon: -43.7}, {Lat: -21.5, Lon: -43.5}, {Lat: -22.95, Lon: -43.05}, {Lat: -22.1, Lon: -43.9}}
	type answer struct {
		h float64
		c appliance.ClutterInfo
	}
	want := make([]answer, len(pts))
	for i, q := range pts {
		h, err := ref.ElevationM(q)
		if err != nil {
			t.Fatal(err)
		}
		c, err := ref.ClutterAt(q)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = answer{h, c}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 50; k++ {
				i := (g + k) % len(pts)
				h, err := p.ElevationM(pts[i])
				if err == nil {
					var c appliance.ClutterInfo
					c, err = p.ClutterAt(pts[i])
					if err == nil && (answer{h, c}) != want[i] {
						err = fmt.Errorf("point %d: %v %+v, want %+v", i, h, c, want[i])
					}
				}
				if err != nil {
					errs <- fmt.Errorf("goroutine %d: %w", g, err)
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

// refreshCRCs recomputes the index and header checksums of a pack after
// an index field was changed.
func refreshCRCs(b []byte) {
	le := binary.LittleEndian
	dataOff := le.Uint64(b[36:])
	le.PutUint32(b[52:], terrain.Checksum(b[terrain.HeaderSize:dataOff]))
	le.PutUint32(b[60:], terrain.Checksum(b[:60]))
}

func TestClutterCorrupt(t *testing.T) {
	good := clutterPackBytes(t)
	p := clutterPack(t)
	es := p.Entries()
	land := es[1] // tRio; index order is south to north: tVoi, tRio, tSea, tNorth
	if land.Tile != tRio || land.Clutter.Codec != terrain.ClutterZstd {
		t.Fatalf("entry 1 is %+v", land)
	}
	lcIndex := terrain.HeaderSize + terrain.EntrySize*len(es)
	ent := func(i int) int { return lcIndex + i*terrain.ClutterEntrySize }
	le := binary.LittleEndian
	openCases := []struct {
		name string
		mut  func(b []byte)
	}{
		{"unknown codec", func(b []byte) { b[ent(1)] = 7 }},
		{"uniform class 11", func(b []byte) { b[ent(0)+1] = 11; le.PutUint32(b[ent(0)+20+4*11-4:], 9) }},
		{"reserved byte", func(b []byte) { b[ent(0)+3] = 1 }},
		{"counts do not sum", func(b []byte) { le.PutUint32(b[ent(1)+20:], 1) }},
		{"uniform class without its count", func(b []byte) { b[ent(0)+1] = 2 }},
		{"payload before the data section", func(b []byte) { le.PutUint64(b[ent(1)+8:], 10) }},
		{"payload past the end", func(b []byte) { le.PutUint32(b[ent(1)+4:], uint32(len(b))) }},
		{"uniform with a payload", func(b []byte) { le.PutUint32(b[ent(0)+4:], 5) }},
		{"payload with a class", func(b []byte) { b[ent(1)+1] = 1 }},
	}
	for _, tc := range openCases {
		t.Run(tc.name, func(t *testing.T) {
			b := append([]byte(nil), good...)
			tc.mut(b)
			refreshCRCs(b)
			if _, err := terrain.OpenBytes(b); !errors.Is(err, terrain.ErrCorrupt) {
				t.Fatalf("OpenBytes err = %v, want ErrCorrupt", err)
			}
		})
	}
	t.Run("index bit without refreshing the checksum", func(t *testing.T) {
		b := append([]byte(nil), good...)
		b[ent(2)+20] ^= 1
		if _, err := terrain.OpenBytes(b); !errors.Is(err, terrain.ErrCorrupt) {
			t.Fatalf("OpenBytes err = %v, want ErrCorrupt", err)
		}
	})
	t.Run("payload bit", func(t *testing.T) {
		b := append([]byte(nil), good...)
		b[land.Clutter.Offset+land.Clutter.Length/2] ^= 1
		q, err := terrain.OpenBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		for i := 0; i < 2; i++ { // a failed decode is not cached
			if _, err := q.ClutterAt(appliance.LatLon{Lat: -22.3, Lon: -43.7}); !errors.Is(err, terrain.ErrCorrupt) {
				t.Fatalf("ClutterAt err = %v, want ErrCorrupt", err)
			}
		}
		if h, err := q.ElevationM(appliance.LatLon{Lat: -22.5, Lon: -43.5}); err != nil || h != 40 {
			t.Fatalf("heights must still work: %v, %v", h, err)
		}
	})
	// Payloads that pass their checksum but break the layer's rules.
	zw, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer zw.Close()
	payloadCases := []struct {
		name    string
		classes []byte
		counts  [terrain.ClutterClasses]uint32
	}{
		{"class 11", []byte{1, 1, 1, 1, 11, 1, 1, 1, 1}, [11]uint32{1: 9}},
		{"counts differ from the samples", []byte{1, 1, 1, 1, 2, 1, 1, 1, 1}, [11]uint32{1: 9}},
		{"short", []byte{1, 1, 1, 1, 1, 1, 1, 1}, [11]uint32{1: 9}},
	}
	for _, tc := range payloadCases {
		t.Run(tc.name, func(t *testing.T) {
			payload := zw.EncodeAll(tc.classes, nil)
			off := int64(terrain.HeaderSize + terrain.EntrySize + terrain.ClutterEntrySize)
			e := terrain.Entry{Tile: tVoi, Kind: terrain.KindVoid, Clutter: terrain.ClutterEntry{
				Codec: terrain.ClutterZstd, Offset: off, Length: int64(len(payload)), CRC: terrain.Checksum(payload), Counts: tc.counts}}
			hi, err := terrain.MarshalHeaderIndex(terrain.Header{Version: terrain.VersionV3, SamplesPerDegree: 2,
				FileSize: off + int64(len(payload)), Clutter: true}, []terrain.Entry{e})
			if err != nil {
				t.Fatal(err)
			}
			q, err := terrain.OpenBytes(append(hi, payload...))
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			if _, err := q.ReadClutter(tVoi); !errors.Is(err, terrain.ErrCorrupt) {
				t.Fatalf("ReadClutter err = %v, want ErrCorrupt", err)
			}
		})
	}
}

func TestClutterInfoManifest(t *testing.T) {
	p := clutterPack(t)
	in := p.Info()
	if !in.Clutter || in.Version != terrain.VersionV3 {
		t.Fatalf("info %+v", in)
	}
	var payloads int64
	for _, e := range p.Entries() {
		payloads += e.Clutter.Length
	}
	if in.ClutterBytes != payloads || payloads == 0 {
		t.Fatalf("clutter bytes %d, payloads %d", in.ClutterBytes, payloads)
	}
	want := map[string][]terrain.ClassCount{
		"S24W044": {{Class: 0, Label: "Unknown", Samples: 9}},
		"S23W044": {{1, "Forest", 1}, {2, "Savanna", 1}, {3, "Grassland", 1}, {4, "Pasture", 1}, {5, "Mosaic", 1},
			{6, "Urban", 1}, {7, "Bare", 1}, {8, "Water", 1}, {9, "Soybean", 1}},
		"S23W043": {{Class: 8, Label: "Water", Samples: 9}},
		"S22W044": {{Class: 1, Label: "Forest", Samples: 9}},
	}
	for _, ti := range in.Tiles {
		w := want[ti.Name]
		if ti.Clutter == nil || len(ti.Clutter.Histogram) != len(w) {
			t.Fatalf("tile %s: clutter %+v, want histogram %v", ti.Name, ti.Clutter, w)
		}
		for i := range w {
			if ti.Clutter.Histogram[i] != w[i] {
				t.Fatalf("tile %s: histogram %v, want %v", ti.Name, ti.Clutter.Histogram, w)
			}
		}
		if (ti.Clutter.Codec == "zstd-u8") != (ti.Name == "S23W044") || (ti.Clutter.CRC32C == "") != (ti.Name != "S23W044") {
			t.Fatalf("tile %s: %+v", ti.Name, ti.Clutter)
		}
	}
	total := map[uint8]int64{}
	for _, c := range in.ClutterHistogram {
		total[c.Class] = c.Samples
	}
	if total[0] != 9 || total[1] != 10 || total[8] != 10 || total[2] != 1 || len(total) != 10 {
		t.Fatalf("pack histogram %v", in.ClutterHistogram)
	}
	m, err := p.Manifest("x.ltp")
	if err != nil {
		t.Fatal(err)
	}
	if !m.Clutter || m.Tiles[1].ClutterCRC32C == "" || m.Tiles[0].ClutterCRC32C != "" {
		t.Fatalf("manifest %+v", m)
	}
	if err := p.CheckManifest(m); err != nil {
		t.Fatal(err)
	}
	m.Tiles[1].ClutterCRC32C = "00000000"
	if err := p.CheckManifest(m); !errors.Is(err, terrain.ErrCorrupt) {
		t.Fatalf("CheckManifest with a wrong land-cover CRC: %v", err)
	}
}

// apClasses resamples the real Amapá raster onto tile id with n samples per
// side (clutter.ResampleTile, as the packer does).
func apClasses(t testing.TB, id terrain.TileID, n int) []uint8 {
	t.Helper()
	f, err := os.Open(apRaster)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	img, err := geotiff.Open(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	cs, err := clutter.ResampleTile(img, float64(id.Lat), float64(id.Lon), float64(id.Lat+1), float64(id.Lon+1), n)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]uint8, len(cs))
	for i, c := range cs {
		out[i] = uint8(c)
	}
	return out
}

var tAmapa = terrain.TileID{Lat: 0, Lon: -52} // N00W052

// TestReadsV3Golden reads a committed version-3 pack so that later readers
// keep reading it: the real 31×31 crop of S23W044 (land cover uniform
// Unknown: no land-cover source for Rio) and N00W052 as a void tile (no
// heights for Amapá in the repo) whose land cover is the real MapBiomas
// raster resampled onto a 2′ grid.
func TestReadsV3Golden(t *testing.T) {
	const path = "testdata/v3-clutter-crop.ltp"
	crop := realCrop(t)
	p := openGolden(t, path, func() []byte {
		return makeClutterPack(t, 30, terrain.CodecPredictive, []synthTile{
			{id: tRio, kind: terrain.KindLand, samples: crop},
			{id: tAmapa, kind: terrain.KindVoid, classes: apClasses(t, tAmapa, 31)},
		})
	})
	if p.Header().Version != terrain.VersionV3 || !p.HasClutter() {
		t.Fatalf("golden is version %d, clutter %v", p.Header().Version, p.HasClutter())
	}
	got, err := p.ReadTile(tRio)
	if err != nil {
		t.Fatal(err)
	}
	checkCrop(t, got, crop)
	cs, err := p.ReadClutter(tAmapa)
	if err != nil {
		t.Fatal(err)
	}
	var counts [terrain.ClutterClasses]int
	for _, c := range cs {
		counts[c]++
	}
	// The raster is 81 % Formação Florestal and covers latitudes 0.256 to
	// 1.80: the southern quarter of the tile is outside it (Unknown).
	if counts[clutter.Forest] < len(cs)/2 || counts[clutter.Unknown] < 6*31 || counts[clutter.Unknown] > 10*31 {
		t.Fatalf("N00W052 land cover counts %v", counts)
	}
	if c, err := p.ClutterAt(appliance.LatLon{Lat: -22.5, Lon: -43.5}); err != nil || c.Label != "Unknown" {
		t.Fatalf("Rio land cover %+v, %v; want Unknown", c, err)
	}
}
