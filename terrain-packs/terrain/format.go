package terrain

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"

	"linkplan/terrain-packs/clutter"
)

// Format constants; FORMAT.md is the normative description.
const (
	// Magic is the first 8 bytes of every pack.
	Magic = "LPTERRA\x1a"
	// HeaderSize is the fixed header length, bytes.
	HeaderSize = 64
	// EntrySize is the length of one tile index entry, bytes.
	EntrySize = 32
	// VersionV1 packs hold CodecZstdRaw tiles only.
	VersionV1 = 1
	// VersionV2 packs may also hold CodecPredictive tiles.
	VersionV2 = 2
	// VersionV3 packs may also carry the land-cover (clutter) layer: header
	// flag FlagClutterLayer and a second index of ClutterEntrySize-byte
	// entries after the tile index.
	VersionV3 = 3
	// VersionV4 packs may also carry the void mask: header flag
	// FlagVoidMask and a third index of VoidEntrySize-byte entries saying,
	// per tile, which samples the packer interpolated across a source void.
	VersionV4 = 4
	// VoidEntrySize is the length of one void-mask index entry, bytes.
	VoidEntrySize = 24
	// ClutterEntrySize is the length of one land-cover index entry, bytes.
	ClutterEntrySize = 64
	// ClutterClasses is the number of land-cover class values: 0 (unknown)
	// and the ten classes of terrain-packs/clutter (1 Forest … 10 Other).
	ClutterClasses = clutter.NumClasses + 1
	// MaxSamplesPerDegree is the finest grid a reader accepts (1″ = 3600).
	MaxSamplesPerDegree = 3600
	// NoData is the sample value that means "no source data here" (SRTM
	// void). Packs built from .hgt never hold it (voids are filled); a pack
	// built from a GeoTIFF that covers part of a tile holds it outside the
	// raster footprint.
	NoData = math.MinInt16
	// maxTiles is the number of one-degree tiles on the globe.
	maxTiles = 180 * 360
)

// Kind says what a tile holds.
type Kind uint8

// Tile kinds.
const (
	// KindLand tiles carry samples.
	KindLand Kind = 1
	// KindSea tiles are known to be open sea: every height is 0 m and no
	// samples are stored.
	KindSea Kind = 2
	// KindVoid tiles are known to the pack but have no data at all (an
	// all-void source tile); queries there return a *TileMissingError.
	KindVoid Kind = 3
)

func (k Kind) String() string {
	switch k {
	case KindLand:
		return "land"
	case KindSea:
		return "sea"
	case KindVoid:
		return "void"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Codec says how the samples of a land tile are coded.
type Codec uint8

// Tile codecs.
const (
	// CodecNone is used by sea and void tiles (no payload).
	CodecNone Codec = 0
	// CodecZstdRaw (v1) is one zstd frame of the int16 little-endian
	// samples, row-major, north row first.
	CodecZstdRaw Codec = 1
	// CodecPredictive (v2) is one zstd frame of the zig-zagged residuals of
	// the planar predictor left + up - up-left, split into a low-byte plane
	// and a high-byte plane.
	CodecPredictive Codec = 2
)

func (c Codec) String() string {
	switch c {
	case CodecNone:
		return "none"
	case CodecZstdRaw:
		return "zstd-int16le"
	case CodecPredictive:
		return "planar-zigzag-planes-zstd"
	}
	return fmt.Sprintf("codec(%d)", uint8(c))
}

// minVersion returns the lowest pack version that may hold codec c.
func (c Codec) minVersion() int {
	if c == CodecPredictive {
		return VersionV2
	}
	return VersionV1
}

// Entry flags.
const (
	// FlagNoData marks a land tile that holds NoData samples (partial
	// source coverage).
	FlagNoData uint16 = 1 << 0
)

// Header flags.
const (
	// FlagClutterLayer (header bit 0, version 3+) says that the pack has
	// the land-cover layer: the land-cover index follows the tile index.
	FlagClutterLayer uint16 = 1 << 0
	// FlagVoidMask (header bit 1, version 4+) says that the pack has the
	// void mask: the void-mask index follows the tile index (and the
	// land-cover index when FlagClutterLayer is set too).
	FlagVoidMask uint16 = 1 << 1
)

// VoidCodec says how the void mask of a tile is stored.
type VoidCodec uint8

// Void-mask codecs.
const (
	// VoidNone tiles have no payload: no sample of the tile was
	// interpolated across a void (sea and void tiles always).
	VoidNone VoidCodec = 0
	// VoidZstdBitmap is one zstd frame of a bitmap of the
	// (SamplesPerDegree+1)² samples, one bit per sample in sample order,
	// least significant bit first; a set bit marks a void-filled sample.
	VoidZstdBitmap VoidCodec = 1
)

func (c VoidCodec) String() string {
	switch c {
	case VoidNone:
		return "none"
	case VoidZstdBitmap:
		return "zstd-bitmap"
	}
	return fmt.Sprintf("void-codec(%d)", uint8(c))
}

// VoidEntry is one void-mask index entry: which samples of the tile at
// the same index position were interpolated across a void of the source
// DEM.
type VoidEntry struct {
	Codec  VoidCodec
	Count  uint32 // number of void-filled samples (set bits); 0 with VoidNone
	Offset int64  // absolute offset of the payload, bytes (0 without payload)
	Length int64  // payload length, bytes (0 without payload)
	CRC    uint32 // CRC32C (Castagnoli) of the payload
}

// VoidMaskBytes returns the length of the uncompressed void bitmap of a
// tile of n×n samples, bytes.
func VoidMaskBytes(n int) int { return (n*n + 7) / 8 }

// maxVoidPayload is the largest void-mask payload accepted for tiles of
// n×n samples, bytes.
func maxVoidPayload(n int) int64 { return int64(VoidMaskBytes(n)) + 1<<16 }

// PutVoidEntry writes e into the first VoidEntrySize bytes of b in the
// FORMAT.md layout (the packer's part files use it too).
func PutVoidEntry(b []byte, e VoidEntry) {
	b = b[:VoidEntrySize]
	b[0], b[1], b[2], b[3] = byte(e.Codec), 0, 0, 0
	le.PutUint32(b[4:], e.Count)
	le.PutUint64(b[8:], uint64(e.Offset))
	le.PutUint32(b[16:], uint32(e.Length))
	le.PutUint32(b[20:], e.CRC)
}

// GetVoidEntry decodes the first VoidEntrySize bytes of b. It does not
// check the fields (opening a pack does).
func GetVoidEntry(b []byte) VoidEntry {
	b = b[:VoidEntrySize]
	return VoidEntry{
		Codec:  VoidCodec(b[0]),
		Count:  le.Uint32(b[4:]),
		Offset: int64(le.Uint64(b[8:])),
		Length: int64(le.Uint32(b[16:])),
		CRC:    le.Uint32(b[20:]),
	}
}

// checkVoidEntry checks the void-mask entry of tile e (n×n samples) whose
// payload must lie in [dataOff, fileSize).
func checkVoidEntry(v VoidEntry, e Entry, n int, dataOff, fileSize int64) error {
	switch v.Codec {
	case VoidNone:
		if v.Count != 0 || v.Offset != 0 || v.Length != 0 || v.CRC != 0 {
			return fmt.Errorf("void mask without payload has count %d, payload %d+%d", v.Count, v.Offset, v.Length)
		}
	case VoidZstdBitmap:
		if e.Kind != KindLand {
			return fmt.Errorf("void mask on a %s tile", e.Kind)
		}
		if v.Count < 1 || int64(v.Count) > int64(n)*int64(n) {
			return fmt.Errorf("void mask counts %d of %d samples", v.Count, n*n)
		}
		if v.Offset < dataOff || v.Length < 1 || v.Length > maxVoidPayload(n) || v.Offset > fileSize-v.Length {
			return fmt.Errorf("void-mask payload %d+%d outside the data section", v.Offset, v.Length)
		}
	default:
		return fmt.Errorf("unknown void-mask codec %d", v.Codec)
	}
	if v.Count != e.Filled {
		return fmt.Errorf("void mask counts %d samples, the tile entry %d filled", v.Count, e.Filled)
	}
	return nil
}

// ClutterCodec says how the land-cover classes of a tile are stored.
type ClutterCodec uint8

// Land-cover codecs.
const (
	// ClutterUniform tiles have no payload: every sample is the entry's
	// Class (0 for a tile no land-cover source covered).
	ClutterUniform ClutterCodec = 0
	// ClutterZstd is one zstd frame of the (SamplesPerDegree+1)² class
	// bytes, row-major, north row first, on the grid of the heights.
	ClutterZstd ClutterCodec = 1
)

func (c ClutterCodec) String() string {
	switch c {
	case ClutterUniform:
		return "uniform"
	case ClutterZstd:
		return "zstd-u8"
	}
	return fmt.Sprintf("clutter-codec(%d)", uint8(c))
}

// ClutterEntry is one land-cover index entry: the land cover of the tile
// of the tile-index entry at the same position.
type ClutterEntry struct {
	Codec  ClutterCodec
	Class  uint8  // ClutterUniform: the class of every sample (0 unknown); else 0
	Offset int64  // absolute offset of the payload, bytes (0 without payload)
	Length int64  // payload length, bytes (0 without payload)
	CRC    uint32 // CRC32C (Castagnoli) of the payload
	// Counts holds the number of samples of each class value (index 0:
	// unknown, 1…10: clutter.Forest … clutter.Other); they sum to
	// (SamplesPerDegree+1)².
	Counts [ClutterClasses]uint32
}

// Header is the decoded fixed-size pack header.
type Header struct {
	Version          int // format version, 1 to 4
	SamplesPerDegree int // grid: samples per degree; a tile is (SamplesPerDegree+1)² samples
	TileSpanDeg      int // tile size, degrees (always 1)
	TileCount        int // number of index entries
	MinLat, MinLon   int // bounds, degrees: south and west edge of the southernmost/westernmost tile
	MaxLat, MaxLon   int // bounds, degrees: north and east edge
	DataOffset       int64
	FileSize         int64 // total pack length, bytes
	// Clutter says that the pack has the land-cover layer (version 3,
	// header flag FlagClutterLayer).
	Clutter bool
	// VoidMask says that the pack has the void mask (version 4, header
	// flag FlagVoidMask).
	VoidMask bool
}

// dataOffset returns where the data section of a pack of count tiles
// starts, bytes: after the header, the tile index and, with the
// land-cover layer, the land-cover index.
func dataOffset(count int, withClutter, withVoids bool) int64 {
	per := EntrySize
	if withClutter {
		per += ClutterEntrySize
	}
	if withVoids {
		per += VoidEntrySize
	}
	return int64(HeaderSize + per*count)
}

// voidIndexOffset returns where the void-mask index starts, bytes.
func (h Header) voidIndexOffset() int {
	off := HeaderSize + EntrySize*h.TileCount
	if h.Clutter {
		off += ClutterEntrySize * h.TileCount
	}
	return off
}

// maxClutterPayload is the largest land-cover payload accepted for tiles
// of n×n samples, bytes.
func maxClutterPayload(n int) int64 { return int64(n*n) + 1<<16 }

// TileSamples returns the number of samples along one side of a tile.
func (h Header) TileSamples() int { return h.SamplesPerDegree + 1 }

// Entry is one tile index entry.
type Entry struct {
	Tile   TileID
	Kind   Kind
	Codec  Codec
	Flags  uint16
	Offset int64  // absolute offset of the payload, bytes (0 without payload)
	Length int64  // payload length, bytes (0 without payload)
	CRC    uint32 // CRC32C (Castagnoli) of the payload
	MinM   int16  // lowest sample, metres (NoData excluded)
	MaxM   int16  // highest sample, metres (NoData excluded)
	// Filled is the number of samples the packer interpolated across a
	// void of the source DEM (samples taken from a lower-priority measured
	// input are not counted).
	Filled uint32
	// Clutter is the tile's land-cover entry (packs with the layer only).
	Clutter ClutterEntry
	// Void is the tile's void-mask entry (packs with the mask only).
	Void VoidEntry
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checksum returns the CRC32C (Castagnoli) of b, the checksum every pack
// field uses.
func Checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

var le = binary.LittleEndian

// MarshalHeaderIndex returns the header and index bytes of a pack holding
// entries (which must be sorted south to north, west to east, with offsets
// already laid out): the header, the tile index and, when h.Clutter is set
// (version 3 or later), the land-cover index, and when h.VoidMask is set
// (version 4 or later), the void-mask index. The header fields TileCount,
// bounds, DataOffset are derived from entries; Version, SamplesPerDegree,
// Clutter, VoidMask and FileSize are taken from h.
func MarshalHeaderIndex(h Header, entries []Entry) ([]byte, error) {
	if h.SamplesPerDegree < 1 || h.SamplesPerDegree > MaxSamplesPerDegree {
		return nil, fmt.Errorf("marshal header: samples per degree %d outside 1..%d", h.SamplesPerDegree, MaxSamplesPerDegree)
	}
	if len(entries) > maxTiles {
		return nil, fmt.Errorf("marshal header: %d tiles", len(entries))
	}
	if h.Clutter && h.Version < VersionV3 {
		return nil, fmt.Errorf("marshal header: the land-cover layer needs version %d, not %d", VersionV3, h.Version)
	}
	if h.VoidMask && h.Version < VersionV4 {
		return nil, fmt.Errorf("marshal header: the void mask needs version %d, not %d", VersionV4, h.Version)
	}
	if h.Version < VersionV1 || h.Version > VersionV4 {
		return nil, fmt.Errorf("marshal header: version %d", h.Version)
	}
	n := h.SamplesPerDegree + 1
	dataOff := dataOffset(len(entries), h.Clutter, h.VoidMask)
	h.TileCount = len(entries)
	voidOff := h.voidIndexOffset()
	b := make([]byte, dataOff)
	copy(b, Magic)
	le.PutUint16(b[8:], uint16(h.Version))
	le.PutUint16(b[10:], HeaderSize)
	le.PutUint16(b[12:], EntrySize)
	var flags uint16
	if h.Clutter {
		flags |= FlagClutterLayer
	}
	if h.VoidMask {
		flags |= FlagVoidMask
	}
	le.PutUint16(b[14:], flags)
	le.PutUint32(b[16:], uint32(h.SamplesPerDegree))
	le.PutUint32(b[20:], 1)
	le.PutUint32(b[24:], uint32(len(entries)))
	minLat, minLon, maxLat, maxLon := 0, 0, 0, 0
	for i, e := range entries {
		if !e.Tile.Valid() {
			return nil, fmt.Errorf("marshal index: tile %v outside the globe", e.Tile)
		}
		if i > 0 && !entries[i-1].Tile.less(e.Tile) {
			return nil, fmt.Errorf("marshal index: tiles not sorted or duplicated at %s", e.Tile)
		}
		if e.Codec.minVersion() > h.Version {
			return nil, fmt.Errorf("marshal index: tile %s codec %s needs version %d", e.Tile, e.Codec, e.Codec.minVersion())
		}
		if i == 0 {
			minLat, minLon, maxLat, maxLon = e.Tile.Lat, e.Tile.Lon, e.Tile.Lat+1, e.Tile.Lon+1
		}
		minLat, maxLat = min(minLat, e.Tile.Lat), max(maxLat, e.Tile.Lat+1)
		minLon, maxLon = min(minLon, e.Tile.Lon), max(maxLon, e.Tile.Lon+1)
		o := b[HeaderSize+i*EntrySize:]
		le.PutUint16(o[0:], uint16(int16(e.Tile.Lat)))
		le.PutUint16(o[2:], uint16(int16(e.Tile.Lon)))
		o[4] = byte(e.Kind)
		o[5] = byte(e.Codec)
		le.PutUint16(o[6:], e.Flags)
		le.PutUint64(o[8:], uint64(e.Offset))
		le.PutUint32(o[16:], uint32(e.Length))
		le.PutUint32(o[20:], e.CRC)
		le.PutUint16(o[24:], uint16(e.MinM))
		le.PutUint16(o[26:], uint16(e.MaxM))
		le.PutUint32(o[28:], e.Filled)
		if h.Clutter {
			if err := checkClutterEntry(e.Clutter, n, dataOff, h.FileSize); err != nil {
				return nil, fmt.Errorf("marshal land-cover index: tile %s: %w", e.Tile, err)
			}
			PutClutterEntry(b[HeaderSize+len(entries)*EntrySize+i*ClutterEntrySize:], e.Clutter)
		}
		if h.VoidMask {
			if err := checkVoidEntry(e.Void, e, n, dataOff, h.FileSize); err != nil {
				return nil, fmt.Errorf("marshal void-mask index: tile %s: %w", e.Tile, err)
			}
			PutVoidEntry(b[voidOff+i*VoidEntrySize:], e.Void)
		}
	}
	le.PutUint16(b[28:], uint16(int16(minLat)))
	le.PutUint16(b[30:], uint16(int16(minLon)))
	le.PutUint16(b[32:], uint16(int16(maxLat)))
	le.PutUint16(b[34:], uint16(int16(maxLon)))
	le.PutUint64(b[36:], uint64(len(b)))
	le.PutUint64(b[44:], uint64(h.FileSize))
	le.PutUint32(b[52:], Checksum(b[HeaderSize:]))
	le.PutUint32(b[60:], Checksum(b[:60]))
	return b, nil
}

// PutClutterEntry writes e into the first ClutterEntrySize bytes of b in
// the FORMAT.md layout (the packer's part files use it too).
func PutClutterEntry(b []byte, e ClutterEntry) {
	b = b[:ClutterEntrySize]
	b[0], b[1], b[2], b[3] = byte(e.Codec), e.Class, 0, 0
	le.PutUint32(b[4:], uint32(e.Length))
	le.PutUint64(b[8:], uint64(e.Offset))
	le.PutUint32(b[16:], e.CRC)
	for k, c := range e.Counts {
		le.PutUint32(b[20+4*k:], c)
	}
}

// GetClutterEntry decodes the first ClutterEntrySize bytes of b. It does
// not check the fields (opening a pack does).
func GetClutterEntry(b []byte) ClutterEntry {
	b = b[:ClutterEntrySize]
	e := ClutterEntry{
		Codec:  ClutterCodec(b[0]),
		Class:  b[1],
		Length: int64(le.Uint32(b[4:])),
		Offset: int64(le.Uint64(b[8:])),
		CRC:    le.Uint32(b[16:]),
	}
	for k := range e.Counts {
		e.Counts[k] = le.Uint32(b[20+4*k:])
	}
	return e
}

// checkClutterEntry checks a land-cover entry of an n×n-sample tile whose
// payload must lie in [dataOff, fileSize).
func checkClutterEntry(e ClutterEntry, n int, dataOff, fileSize int64) error {
	var sum uint64
	for _, c := range e.Counts {
		sum += uint64(c)
	}
	if sum != uint64(n)*uint64(n) {
		return fmt.Errorf("class counts sum to %d, want %d samples", sum, n*n)
	}
	switch e.Codec {
	case ClutterUniform:
		if e.Offset != 0 || e.Length != 0 || e.CRC != 0 {
			return fmt.Errorf("uniform land cover with a payload")
		}
		if int(e.Class) >= ClutterClasses || e.Counts[e.Class] != uint32(n*n) {
			return fmt.Errorf("uniform land cover of class %d with counts %v", e.Class, e.Counts)
		}
	case ClutterZstd:
		if e.Class != 0 {
			return fmt.Errorf("land-cover payload with a uniform class %d", e.Class)
		}
		if e.Offset < dataOff || e.Length < 1 || e.Length > maxClutterPayload(n) || e.Offset > fileSize-e.Length {
			return fmt.Errorf("land-cover payload %d+%d outside the data section", e.Offset, e.Length)
		}
	default:
		return fmt.Errorf("unknown land-cover codec %d", e.Codec)
	}
	return nil
}

// ErrCorrupt is matched (errors.Is) by every error about damaged or
// malformed pack bytes: bad magic, checksum mismatch, impossible fields.
var ErrCorrupt = errors.New("corrupt terrain pack")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrCorrupt)
}

// parseHeader decodes and checks the 64-byte header; size is the length of
// the whole pack.
func parseHeader(b []byte, size int64) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, corrupt("header: %d bytes, want %d", len(b), HeaderSize)
	}
	if string(b[:8]) != Magic {
		return Header{}, corrupt("header: bad magic %q", b[:8])
	}
	if got, want := le.Uint32(b[60:]), Checksum(b[:60]); got != want {
		return Header{}, corrupt("header: checksum %08x, computed %08x", got, want)
	}
	h := Header{
		Version:          int(le.Uint16(b[8:])),
		SamplesPerDegree: int(le.Uint32(b[16:])),
		TileSpanDeg:      int(le.Uint32(b[20:])),
		TileCount:        int(le.Uint32(b[24:])),
		MinLat:           int(int16(le.Uint16(b[28:]))),
		MinLon:           int(int16(le.Uint16(b[30:]))),
		MaxLat:           int(int16(le.Uint16(b[32:]))),
		MaxLon:           int(int16(le.Uint16(b[34:]))),
	}
	dataOff, fileSize := le.Uint64(b[36:]), le.Uint64(b[44:])
	flags := le.Uint16(b[14:])
	if h.Version >= VersionV3 {
		// Versions 1 and 2 reserved the flags and told readers to ignore
		// them; from version 3 on they mean something: bit 0 in version
		// 3, bits 0 and 1 from version 4.
		known := FlagClutterLayer
		if h.Version >= VersionV4 {
			known |= FlagVoidMask
		}
		if flags&^known != 0 {
			return Header{}, corrupt("header: unknown flags %#04x for version %d", flags, h.Version)
		}
		h.Clutter = flags&FlagClutterLayer != 0
		h.VoidMask = flags&FlagVoidMask != 0
	}
	switch {
	case h.Version < VersionV1 || h.Version > VersionV4:
		return Header{}, fmt.Errorf("header: version %d (this reader knows 1 to 4): %w", h.Version, ErrCorrupt)
	case le.Uint16(b[10:]) != HeaderSize || le.Uint16(b[12:]) != EntrySize:
		return Header{}, corrupt("header: header/entry size %d/%d", le.Uint16(b[10:]), le.Uint16(b[12:]))
	case h.SamplesPerDegree < 1 || h.SamplesPerDegree > MaxSamplesPerDegree:
		return Header{}, corrupt("header: samples per degree %d", h.SamplesPerDegree)
	case h.TileSpanDeg != 1:
		return Header{}, corrupt("header: tile span %d degrees", h.TileSpanDeg)
	case h.TileCount > maxTiles:
		return Header{}, corrupt("header: %d tiles", h.TileCount)
	case h.Version >= VersionV3 && le.Uint32(b[56:]) != 0:
		return Header{}, corrupt("header: reserved field %08x", le.Uint32(b[56:]))
	case dataOff != uint64(dataOffset(h.TileCount, h.Clutter, h.VoidMask)):
		return Header{}, corrupt("header: data offset %d for %d tiles", dataOff, h.TileCount)
	case fileSize != uint64(size):
		return Header{}, corrupt("header: pack is %d bytes, header says %d (truncated?)", size, fileSize)
	}
	h.DataOffset, h.FileSize = int64(dataOff), int64(fileSize)
	return h, nil
}

// parseIndex decodes and checks the index (or indexes) that follow the
// header (b holds header and indexes).
func parseIndex(h Header, b []byte) ([]Entry, error) {
	idx := b[HeaderSize:h.DataOffset]
	if got, want := le.Uint32(b[52:]), Checksum(idx); got != want {
		return nil, corrupt("index: checksum %08x, computed %08x", got, want)
	}
	n := h.TileSamples()
	maxPayload := int64(n*n*2) + 1<<16 // worst-case zstd expansion is tiny
	entries := make([]Entry, h.TileCount)
	for i := range entries {
		o := idx[i*EntrySize:]
		e := Entry{
			Tile:   TileID{Lat: int(int16(le.Uint16(o[0:]))), Lon: int(int16(le.Uint16(o[2:])))},
			Kind:   Kind(o[4]),
			Codec:  Codec(o[5]),
			Flags:  le.Uint16(o[6:]),
			Offset: int64(le.Uint64(o[8:])),
			Length: int64(le.Uint32(o[16:])),
			CRC:    le.Uint32(o[20:]),
			MinM:   int16(le.Uint16(o[24:])),
			MaxM:   int16(le.Uint16(o[26:])),
			Filled: le.Uint32(o[28:]),
		}
		if !e.Tile.Valid() {
			return nil, corrupt("index entry %d: tile %d,%d outside the globe", i, e.Tile.Lat, e.Tile.Lon)
		}
		if i > 0 && !entries[i-1].Tile.less(e.Tile) {
			return nil, corrupt("index entry %d: %s out of order", i, e.Tile)
		}
		if e.Tile.Lat < h.MinLat || e.Tile.Lat+1 > h.MaxLat || e.Tile.Lon < h.MinLon || e.Tile.Lon+1 > h.MaxLon {
			return nil, corrupt("index entry %d: %s outside the header bounds", i, e.Tile)
		}
		switch e.Kind {
		case KindLand:
			if e.Codec != CodecZstdRaw && e.Codec != CodecPredictive {
				return nil, corrupt("tile %s: unknown codec %d", e.Tile, e.Codec)
			}
			if e.Codec.minVersion() > h.Version {
				return nil, corrupt("tile %s: codec %s in a version %d pack", e.Tile, e.Codec, h.Version)
			}
			if e.Offset < h.DataOffset || e.Length < 1 || e.Length > maxPayload || e.Offset > h.FileSize-e.Length {
				return nil, corrupt("tile %s: payload %d+%d outside the data section", e.Tile, e.Offset, e.Length)
			}
		case KindSea, KindVoid:
			if e.Codec != CodecNone || e.Offset != 0 || e.Length != 0 {
				return nil, corrupt("tile %s: %s tile with a payload", e.Tile, e.Kind)
			}
		default:
			return nil, corrupt("tile %s: unknown kind %d", e.Tile, e.Kind)
		}
		if h.Clutter {
			o := idx[h.TileCount*EntrySize+i*ClutterEntrySize:]
			if o[2] != 0 || o[3] != 0 {
				return nil, corrupt("tile %s: land-cover entry reserved bytes %02x%02x", e.Tile, o[2], o[3])
			}
			e.Clutter = GetClutterEntry(o)
			if err := checkClutterEntry(e.Clutter, n, h.DataOffset, h.FileSize); err != nil {
				return nil, corrupt("tile %s: %v", e.Tile, err)
			}
		}
		if h.VoidMask {
			o := b[h.voidIndexOffset()+i*VoidEntrySize:]
			if o[1] != 0 || o[2] != 0 || o[3] != 0 {
				return nil, corrupt("tile %s: void-mask entry reserved bytes %02x%02x%02x", e.Tile, o[1], o[2], o[3])
			}
			e.Void = GetVoidEntry(o)
			if err := checkVoidEntry(e.Void, e, n, h.DataOffset, h.FileSize); err != nil {
				return nil, corrupt("tile %s: %v", e.Tile, err)
			}
		}
		entries[i] = e
	}
	return entries, nil
}
