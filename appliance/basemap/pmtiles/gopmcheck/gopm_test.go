package gopmcheck

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	gopm "github.com/protomaps/go-pmtiles/pmtiles"

	"linkplan/appliance/basemap/pmtiles"
	"linkplan/appliance/basemap/pmtiles/pmtilestest"
)

// TestTileIDMatchesGoPMTiles: our Hilbert tile ids are go-pmtiles' (every
// tile to zoom 6, random tiles to zoom 30).
func TestTileIDMatchesGoPMTiles(t *testing.T) {
	for z := 0; z <= 6; z++ {
		for x := 0; x < 1<<z; x++ {
			for y := 0; y < 1<<z; y++ {
				if got, want := pmtiles.TileID(z, x, y), gopm.ZxyToID(uint8(z), uint32(x), uint32(y)); got != want {
					t.Fatalf("TileID(%d,%d,%d) = %d, go-pmtiles %d", z, x, y, got, want)
				}
			}
		}
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for range 20000 {
		z := rng.IntN(pmtiles.MaxZoom + 1)
		x, y := rng.IntN(1<<z), rng.IntN(1<<z)
		if got, want := pmtiles.TileID(z, x, y), gopm.ZxyToID(uint8(z), uint32(x), uint32(y)); got != want {
			t.Fatalf("TileID(%d,%d,%d) = %d, go-pmtiles %d", z, x, y, got, want)
		}
	}
}

// goArchive builds an archive with go-pmtiles' own serialisers: every
// tile of zooms 0..maxZ, the content of (z, x, y) "z/x/y" except that the
// tiles of one row share one content (run lengths and shared offsets),
// and a small target root so that leaf directories are used.
func goArchive(t *testing.T, maxZ int, compression gopm.Compression) (archive []byte, want map[[3]int][]byte) {
	t.Helper()
	want = map[[3]int][]byte{}
	type tile struct {
		id   uint64
		data []byte
	}
	var tiles []tile
	for z := 0; z <= maxZ; z++ {
		for x := 0; x < 1<<z; x++ {
			for y := 0; y < 1<<z; y++ {
				if z == maxZ && x%3 == 1 { // some absent tiles
					continue
				}
				d := []byte(fmt.Sprintf("tile %d/%d/%d", z, x, y))
				if z == maxZ && y == 0 {
					d = []byte("the shared top row")
				}
				want[[3]int{z, x, y}] = d
				tiles = append(tiles, tile{gopm.ZxyToID(uint8(z), uint32(x), uint32(y)), d})
			}
		}
	}
	// Sort by id, store each distinct content once.
	for i := 1; i < len(tiles); i++ {
		for j := i; j > 0 && tiles[j].id < tiles[j-1].id; j-- {
			tiles[j], tiles[j-1] = tiles[j-1], tiles[j]
		}
	}
	var data bytes.Buffer
	offs := map[string]uint64{}
	var entries []gopm.EntryV3
	var last []byte
	for _, tl := range tiles {
		if n := len(entries); n > 0 && entries[n-1].TileID+uint64(entries[n-1].RunLength) == tl.id && bytes.Equal(last, tl.data) {
			entries[n-1].RunLength++
			continue
		}
		last = tl.data
		off, ok := offs[string(tl.data)]
		if !ok {
			off = uint64(data.Len())
			offs[string(tl.data)] = off
			data.Write(tl.data)
		}
		entries = append(entries, gopm.EntryV3{TileID: tl.id, Offset: off, Length: uint32(len(tl.data)), RunLength: 1})
	}
	root, leaves, numLeaves := gopm.BuildDirectories(entries, 200, compression)
	if numLeaves == 0 {
		t.Fatal("the test archive has no leaf directory")
	}
	meta, err := gopm.SerializeMetadata(map[string]any{"attribution": "© test contributors", "name": "t", "vector_layers": []map[string]any{{"id": "water"}}}, compression)
	if err != nil {
		t.Fatal(err)
	}
	h := gopm.HeaderV3{SpecVersion: 3, RootOffset: gopm.HeaderV3LenBytes, RootLength: uint64(len(root))}
	h.MetadataOffset, h.MetadataLength = h.RootOffset+h.RootLength, uint64(len(meta))
	h.LeafDirectoryOffset, h.LeafDirectoryLength = h.MetadataOffset+h.MetadataLength, uint64(len(leaves))
	h.TileDataOffset, h.TileDataLength = h.LeafDirectoryOffset+h.LeafDirectoryLength, uint64(data.Len())
	h.AddressedTilesCount, h.TileEntriesCount, h.TileContentsCount = uint64(len(tiles)), uint64(len(entries)), uint64(len(offs))
	h.Clustered, h.InternalCompression, h.TileCompression, h.TileType = true, compression, gopm.Gzip, gopm.Mvt
	h.MinZoom, h.MaxZoom = 0, uint8(maxZ)
	h.MinLonE7, h.MinLatE7, h.MaxLonE7, h.MaxLatE7 = -440000000, -230000000, -430000000, -220000000
	var out bytes.Buffer
	out.Write(gopm.SerializeHeader(h))
	out.Write(root)
	out.Write(meta)
	out.Write(leaves)
	out.Write(data.Bytes())
	return out.Bytes(), want
}

// TestReadsGoPMTilesArchive: an archive written by go-pmtiles (leaf
// directories, run lengths, gzip and uncompressed directories) reads back
// every tile, absent tiles are absent, and the metadata is decoded.
func TestReadsGoPMTilesArchive(t *testing.T) {
	for _, c := range []struct {
		name string
		comp gopm.Compression
	}{{"gzip", gopm.Gzip}, {"none", gopm.NoCompression}} {
		t.Run(c.name, func(t *testing.T) {
			b, want := goArchive(t, 6, c.comp)
			a, err := pmtiles.New(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			for z := 0; z <= 6; z++ {
				for x := 0; x < 1<<z; x++ {
					for y := 0; y < 1<<z; y++ {
						got, ok, err := a.Tile(z, x, y)
						if err != nil {
							t.Fatalf("%d/%d/%d: %v", z, x, y, err)
						}
						w, has := want[[3]int{z, x, y}]
						if ok != has || !bytes.Equal(got, w) {
							t.Fatalf("%d/%d/%d: got %q %v, want %q %v", z, x, y, got, ok, w, has)
						}
					}
				}
			}
			if _, ok, err := a.Tile(7, 0, 0); ok || err != nil {
				t.Errorf("zoom beyond the archive: %v %v", ok, err)
			}
			in := a.Info()
			if in.Attribution != "© test contributors" || in.TileType != pmtiles.TileMVT || in.TileCompression != pmtiles.CompressionGzip ||
				in.MaxZoom != 6 || in.Bounds != [4]float64{-44, -23, -43, -22} || len(in.VectorLayers) != 1 || in.VectorLayers[0] != "water" {
				t.Errorf("info %+v", in)
			}
		})
	}
}

// TestGoPMTilesReadsTestArchives: go-pmtiles reads what pmtilestest
// writes (header, root directory, metadata and tiles), so the archives
// the other tests serve follow the spec.
func TestGoPMTilesReadsTestArchives(t *testing.T) {
	tiles := []pmtilestest.Tile{{Z: 0, X: 0, Y: 0, Data: []byte("a")}, {Z: 1, X: 0, Y: 0, Data: []byte("b")},
		{Z: 1, X: 1, Y: 0, Data: []byte("b")}, {Z: 1, X: 1, Y: 1, Data: []byte("c")}, {Z: 2, X: 3, Y: 1, Data: []byte("a")}}
	b, err := pmtilestest.Write(tiles, pmtilestest.Options{Type: pmtiles.TilePNG, Bounds: [4]float64{-44, -23, -43, -22},
		Metadata: map[string]any{"attribution": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := gopm.DeserializeHeader(b[:gopm.HeaderV3LenBytes])
	if err != nil {
		t.Fatal(err)
	}
	if h.TileType != gopm.Png || h.MinZoom != 0 || h.MaxZoom != 2 || h.MinLonE7 != -440000000 || h.AddressedTilesCount != 5 {
		t.Errorf("header %+v", h)
	}
	root := gopm.DeserializeEntries(bytes.NewBuffer(b[h.RootOffset:h.RootOffset+h.RootLength]), h.InternalCompression)
	meta, err := gopm.DeserializeMetadata(bytes.NewReader(b[h.MetadataOffset:h.MetadataOffset+h.MetadataLength]), h.InternalCompression)
	if err != nil || meta["attribution"] != "x" {
		t.Errorf("metadata %v %v", meta, err)
	}
	ours, err := pmtiles.New(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tiles {
		e, ok := gopm.FindTile(root, gopm.ZxyToID(uint8(tl.Z), uint32(tl.X), uint32(tl.Y)))
		if !ok || e.RunLength == 0 {
			t.Fatalf("go-pmtiles finds no tile %d/%d/%d", tl.Z, tl.X, tl.Y)
		}
		got := b[h.TileDataOffset+e.Offset : h.TileDataOffset+e.Offset+uint64(e.Length)]
		if !bytes.Equal(got, tl.Data) {
			t.Errorf("go-pmtiles reads %d/%d/%d as %q, want %q", tl.Z, tl.X, tl.Y, got, tl.Data)
		}
		mine, ok, err := ours.Tile(tl.Z, tl.X, tl.Y)
		if err != nil || !ok || !bytes.Equal(mine, tl.Data) {
			t.Errorf("we read %d/%d/%d as %q %v %v", tl.Z, tl.X, tl.Y, mine, ok, err)
		}
	}
	if _, ok, _ := ours.Tile(2, 0, 0); ok {
		t.Error("an absent tile is present")
	}
}
