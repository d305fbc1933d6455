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
//	0    8  magic "LPTPART\x03"
//	8   32  recipe: sha256 of what the tile was made from (recipe)
//	40  32  the tile's index entry (FORMAT.md layout, offset 0)
//	72  64  its land-cover entry (FORMAT.md layout, offset 0; zero without the layer)
//	136 24  its void-mask entry (FORMAT.md layout, offset 0; zero without a mask)
//	160  8  u64: samples taken from a lower-priority input (Stats.MeasuredFromLower)
//	168  4  CRC32C of bytes [0, 168)
//	172  …  height payload (entry length bytes), then land-cover payload
//	        (land-cover entry length bytes), then void-mask payload;
//	        their CRC32C are in the entries
//
// Parts are written to a temporary name, synced and renamed, so a part
// that exists is complete unless the disk lies; assembly checks the payload
// CRCs again anyway. Parts of older layouts ("LPTPART\x01", "\x02") are
// rebuilt.
const (
	partMagic      = "LPTPART\x03"
	partHeaderSize = 172
)

// fillMethod names the void fill; change it when FillVoids changes so that
// Resume does not reuse parts filled the old way.
const fillMethod = "membrane-v1"

// recipe is the sha256 of everything a tile's bytes depend on: the tile,
// grid, codec, sea option, fill method, the input file's absolute path,
// size and modification time, and, with the land-cover layer, the
// land-cover method and the same facts about each land-cover input that
// touches the tile, in order.
func recipe(j job, spd int, opts Options) ([32]byte, error) {
	h := sha256.New()
	fmt.Fprintf(h, "ltp-part|tile=%s|spd=%d|codec=%d|allzerosea=%v|fill=%s|kind=%d|epsg=%d|voidmask=%v",
		j.tile.Name(), spd, opts.Codec, opts.AllZeroAsSea, fillMethod, j.kind, opts.GeoTIFFEPSG, !opts.NoVoidMask)
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
	fmt.Fprintf(h, "|sources=%d", len(j.srcs))
	for _, s := range j.srcs {
		if err := src("src", s.input); err != nil {
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
func writePart(path string, rec [32]byte, e terrain.Entry, fromLower int64, payload, clutterPayload, voidPayload []byte) error {
	var hdr [partHeaderSize]byte
	copy(hdr[:], partMagic)
	copy(hdr[8:], rec[:])
	putEntry(hdr[40:72], e)
	c := e.Clutter
	c.Offset = 0
	terrain.PutClutterEntry(hdr[72:136], c)
	v := e.Void
	v.Offset = 0
	terrain.PutVoidEntry(hdr[136:160], v)
	binary.LittleEndian.PutUint64(hdr[160:], uint64(fromLower))
	binary.LittleEndian.PutUint32(hdr[168:], terrain.Checksum(hdr[:168]))
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
	if err == nil {
		_, err = f.Write(voidPayload)
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
// tile t and its count of samples taken from lower-priority inputs; ok is
// false for a missing, stale or damaged part (which is then rebuilt).
func readPartHeader(path string, rec [32]byte, t terrain.TileID) (e terrain.Entry, fromLower int64, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return terrain.Entry{}, 0, false
	}
	defer f.Close()
	var hdr [partHeaderSize]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return terrain.Entry{}, 0, false
	}
	if string(hdr[:8]) != partMagic || [32]byte(hdr[8:40]) != rec ||
		binary.LittleEndian.Uint32(hdr[168:]) != terrain.Checksum(hdr[:168]) {
		return terrain.Entry{}, 0, false
	}
	e = getEntry(hdr[40:72])
	e.Clutter = terrain.GetClutterEntry(hdr[72:136])
	e.Void = terrain.GetVoidEntry(hdr[136:160])
	fromLower = int64(binary.LittleEndian.Uint64(hdr[160:]))
	if e.Tile != t {
		return terrain.Entry{}, 0, false
	}
	for _, sec := range [3]struct {
		length int64
		crc    uint32
	}{{e.Length, e.CRC}, {e.Clutter.Length, e.Clutter.CRC}, {e.Void.Length, e.Void.CRC}} {
		if sec.length == 0 {
			continue
		}
		if sec.length > 1<<30 {
			return terrain.Entry{}, 0, false
		}
		payload := make([]byte, sec.length)
		if _, err := io.ReadFull(f, payload); err != nil || terrain.Checksum(payload) != sec.crc {
			return terrain.Entry{}, 0, false
		}
	}
	return e, fromLower, true
}
