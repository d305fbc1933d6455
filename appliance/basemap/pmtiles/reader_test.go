package pmtiles_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"linkplan/appliance/basemap/pmtiles"
	"linkplan/appliance/basemap/pmtiles/pmtilestest"
)

// TestBadArchives: every defect of a header or root directory is an error
// matching ErrCorrupt that says what is wrong, never a panic.
func TestBadArchives(t *testing.T) {
	good, err := pmtilestest.Write([]pmtilestest.Tile{{Z: 0, X: 0, Y: 0, Data: []byte("png")}}, pmtilestest.Options{Type: pmtiles.TilePNG, Bounds: [4]float64{-44, -23, -43, -22}})
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	le := binary.LittleEndian
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"short", good[:100]},
		{"magic", edit(func(b []byte) []byte { b[0] = 'X'; return b })},
		{"version 2", edit(func(b []byte) []byte { b[7] = 2; return b })},
		{"root past the end", edit(func(b []byte) []byte { le.PutUint64(b[16:], 1<<40); return b })},
		{"root offset overflows", edit(func(b []byte) []byte { le.PutUint64(b[8:], ^uint64(0)); return b })},
		{"brotli directories", edit(func(b []byte) []byte { b[97] = 3; return b })},
		{"unknown tile type", edit(func(b []byte) []byte { b[99] = 9; return b })},
		{"gzipped png tiles", edit(func(b []byte) []byte { b[98] = 2; return b })},
		{"min zoom above max", edit(func(b []byte) []byte { b[100] = 5; b[101] = 4; return b })},
		{"zoom 31", edit(func(b []byte) []byte { b[101] = 31; return b })},
		{"bounds", edit(func(b []byte) []byte { le.PutUint32(b[110:], uint32(1900000000)); return b })},
		{"root not gzip", edit(func(b []byte) []byte { b[pmtiles.HeaderBytes] ^= 0xff; return b })},
		{"root directory read as plain", edit(func(b []byte) []byte { b[97] = 1; return b })},
		{"truncated file", good[:len(good)-1]},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := pmtiles.New(bytes.NewReader(c.b), int64(len(c.b)))
			if !errors.Is(err, pmtiles.ErrCorrupt) {
				t.Fatalf("err %v, want ErrCorrupt", err)
			}
			t.Log(err)
		})
	}
	// A directory claiming 2^60 entries is refused before any allocation.
	var dir []byte
	dir = binary.AppendUvarint(dir, 1<<60)
	dir = append(dir, 1, 1, 1, 1)
	if _, err := pmtiles.ParseDirectoryForTest(dir); !errors.Is(err, pmtiles.ErrCorrupt) {
		t.Errorf("huge entry count: %v", err)
	}
}

// TestOpenFile: Open reads a file; a directory or a missing path is an
// error.
func TestOpenFile(t *testing.T) {
	b, err := pmtilestest.Write([]pmtilestest.Tile{{Z: 3, X: 2, Y: 4, Data: []byte("png")}}, pmtilestest.Options{Type: pmtiles.TilePNG})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "a.pmtiles")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := pmtiles.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok, err := a.Tile(3, 2, 4); !ok || err != nil || string(got) != "png" {
		t.Errorf("tile %q %v %v", got, ok, err)
	}
	if a.Info().FileBytes != int64(len(b)) || len(a.ID()) != 24 {
		t.Errorf("info %+v id %q", a.Info(), a.ID())
	}
	if err := a.Close(); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{t.TempDir(), filepath.Join(t.TempDir(), "absent.pmtiles")} {
		if _, err := pmtiles.Open(bad); err == nil {
			t.Errorf("Open(%s) succeeded", bad)
		}
	}
}

// FuzzNew: no byte string makes New or Tile panic; an archive New accepts
// answers tiles or errors.
func FuzzNew(f *testing.F) {
	good, _ := pmtilestest.Write([]pmtilestest.Tile{{Z: 0, X: 0, Y: 0, Data: []byte("a")}, {Z: 1, X: 1, Y: 1, Data: []byte("b")}}, pmtilestest.Options{Type: pmtiles.TileMVT})
	f.Add(good)
	f.Add([]byte("PMTiles\x03"))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := pmtiles.New(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		for z := 0; z <= 2; z++ {
			for x := 0; x < 1<<z; x++ {
				for y := 0; y < 1<<z; y++ {
					_, _, _ = a.Tile(z, x, y)
				}
			}
		}
	})
}
