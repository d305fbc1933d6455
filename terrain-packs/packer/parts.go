package packer

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"linkplan/terrain-packs/terrain"
)

// A part file holds one finished tile of an unfinished build:
//
//	0    8  magic "LPTPART\x02"
//	8   32  recipe: sha256 of what the tile was made from (recipe)
//	40  32  the tile's index entry (FORMAT.md layout, offset 0)
//	72  64  its land-cover entry (FORMAT.md layout, offset 0; zero without the layer)
//	136  4  CRC32C of bytes [0, 136)
//	140  …  height payload (entry length bytes), then land-cover payload
//	        (land-cover entry length bytes); their CRC32C are in the entries
//
// Parts are written to a temporary name, synced and renamed, so a part
// that exists is complete unless the disk lies; assembly checks the payload
// CRCs again anyway. Parts of the older layout ("LPTPART\x01") are rebuilt.
const (
	partMagic      = "LPTPART\x02"
	partHeaderSize = 140
)

// fillMethod names the void fill; change it when FillVoids changes so that
// Resume does not reuse parts filled the old way.
const fillMethod = "idw2-8dir-v1"

// recipe is the sha256 of everything a tile's bytes depend on: the tile,
// grid, codec, sea option, fill method, the input file's absolute path,
// size and modification time, and, with the land-cover layer, the
// land-cover method and the same facts about each land-cover input that
// touches the tile, in order.
func recipe(j job, spd int, opts Options) ([32]byte, error) {
	h := sha256.New()
	fmt.Fprintf(h, "ltp-part|tile=%s|spd=%d|codec=%d|allzerosea=%v|fill=%s|kind=%d|epsg=%d",
		j.tile.Name(), spd, opts.Codec, opts.AllZeroAsSea, fillMethod, j.kind, opts.GeoTIFFEPSG)
	src := func(key, path string) error {
		abs, err := filepath.Abs(path)
		if err != nil {
			return fmt.Errorf("recipe: %w", err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("recipe: %w", err)
		}
		fmt.Fprintf(h, "|%s=%s|size=%d|mtime=%d", key, abs, fi.Size(), fi.ModTime().UnixNano())
		return nil
	}
	if j.kind != srcSea {
		if err := src("src", j.input); err != nil {
			return [32]byte{}, err
		}
	}
	if j.layer {
		fmt.Fprintf(h, "|landcover=%s|covers=%d", clutterMethod, len(j.cover))
		for _, g := range j.cover {
			if err := src("cover", g.path); err != nil {
				return [32]byte{}, err
			}
		}
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out, nil
}

func putEntry(b []byte, e terrain.Entry) {
	le := binary.LittleEndian
	le.PutUint16(b[0:], uint16(int16(e.Tile.Lat)))
	le.PutUint16(b[2:], uint16(int16(e.Tile.Lon)))
	b[4], b[5] = byte(e.Kind), byte(e.Codec)
	le.PutUint16(b[6:], e.Flags)
	le.PutUint64(b[8:], 0)
	le.PutUint32(b[16:], uint32(e.Length))
	le.PutUint32(b[20:], e.CRC)
	le.PutUint16(b[24:], uint16(e.MinM))
	le.PutUint16(b[26:], uint16(e.MaxM))
	le.PutUint32(b[28:], e.Filled)
}

func getEntry(b []byte) terrain.Entry {
	le := binary.LittleEndian
	return terrain.Entry{
		Tile:   terrain.TileID{Lat: int(int16(le.Uint16(b[0:]))), Lon: int(int16(le.Uint16(b[2:])))},
		Kind:   terrain.Kind(b[4]),
		Codec:  terrain.Codec(b[5]),
		Flags:  le.Uint16(b[6:]),
		Length: int64(le.Uint32(b[16:])),
		CRC:    le.Uint32(b[20:]),
		MinM:   int16(le.Uint16(b[24:])),
		MaxM:   int16(le.Uint16(b[26:])),
		Filled: le.Uint32(b[28:]),
	}
}

// writePart writes a part atomically (temporary name, sync, rename).
func writePart(path string, rec [32]byte, e terrain.Entry, payload, clutterPayload []byte) error {
	var hdr [partHeaderSize]byte
	copy(hdr[:], partMagic)
	copy(hdr[8:], rec[:])
	putEntry(hdr[40:72], e)
	c := e.Clutter
	c.Offset = 0
	terrain.PutClutterEntry(hdr[72:136], c)
	binary.LittleEndian.PutUint32(hdr[136:], terrain.Checksum(hdr[:136]))
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("write part: %w", err)
	}
	_, err = f.Write(hdr[:])
	if err == nil {
		_, err = f.Write(payload)
	}
	if err == nil {
		_, err = f.Write(clutterPayload)
	}
	if err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write part: %w", err)
	}
	if err := finish(f, tmp, path); err != nil {
		return fmt.Errorf("write part: %w", err)
	}
	return nil
}

// readPartHeader returns the entry of a complete part made by rec for
// tile t; ok is false for a missing, stale or damaged part (which is then
// rebuilt).
func readPartHeader(path string, rec [32]byte, t terrain.TileID) (terrain.Entry, bool) {
	f, err := os.Open(path)
	if err != nil {
		return terrain.Entry{}, false
	}
	defer f.Close()
	var hdr [partHeaderSize]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return terrain.Entry{}, false
	}
	if string(hdr[:8]) != partMagic || [32]byte(hdr[8:40]) != rec ||
		binary.LittleEndian.Uint32(hdr[136:]) != terrain.Checksum(hdr[:136]) {
		return terrain.Entry{}, false
	}
	e := getEntry(hdr[40:72])
	e.Clutter = terrain.GetClutterEntry(hdr[72:136])
	if e.Tile != t {
		return terrain.Entry{}, false
	}
	for _, sec := range [2]struct {
		length int64
		crc    uint32
	}{{e.Length, e.CRC}, {e.Clutter.Length, e.Clutter.CRC}} {
		if sec.length == 0 {
			continue
		}
		if sec.length > 1<<30 {
			return terrain.Entry{}, false
		}
		payload := make([]byte, sec.length)
		if _, err := io.ReadFull(f, payload); err != nil || terrain.Checksum(payload) != sec.crc {
			return terrain.Entry{}, false
		}
	}
	return e, true
}
