package geotiff

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
)

// TIFF tag numbers used by the decoder.
const (
	tagImageWidth          = 256
	tagImageLength         = 257
	tagBitsPerSample       = 258
	tagCompression         = 259
	tagPhotometric         = 262
	tagStripOffsets        = 273
	tagSamplesPerPixel     = 277
	tagRowsPerStrip        = 278
	tagStripByteCounts     = 279
	tagPlanarConfig        = 284
	tagPredictor           = 317
	tagTileWidth           = 322
	tagTileLength          = 323
	tagTileOffsets         = 324
	tagTileByteCounts      = 325
	tagSampleFormat        = 339
	tagModelPixelScale     = 33550
	tagModelTiepoint       = 33922
	tagModelTransformation = 34264
	tagGeoKeyDirectory     = 34735
	tagGeoDoubleParams     = 34736
	tagGeoASCIIParams      = 34737
	tagGDALNoData          = 42113
)

// TIFF field types.
const (
	typeByte      = 1
	typeASCII     = 2
	typeShort     = 3
	typeLong      = 4
	typeRational  = 5
	typeSByte     = 6
	typeUndefined = 7
	typeSShort    = 8
	typeSLong     = 9
	typeSRational = 10
	typeFloat     = 11
	typeDouble    = 12
	typeIFD       = 13
	typeLong8     = 16
	typeSLong8    = 17
	typeIFD8      = 18
)

// maxIFDEntries bounds the number of entries read from one IFD; real files
// have a few dozen.
const maxIFDEntries = 4096

func typeSize(t uint16) int {
	switch t {
	case typeByte, typeASCII, typeSByte, typeUndefined:
		return 1
	case typeShort, typeSShort:
		return 2
	case typeLong, typeSLong, typeFloat, typeIFD:
		return 4
	case typeRational, typeSRational, typeDouble, typeLong8, typeSLong8, typeIFD8:
		return 8
	}
	return 0
}

// entry is one IFD entry with its raw value-or-offset field.
type entry struct {
	tag   uint16
	typ   uint16
	count uint64
	raw   [8]byte // value/offset field: 4 bytes (classic) or 8 (BigTIFF)
}

// parser reads TIFF structures from r.
type parser struct {
	r    io.ReaderAt
	size int64
	bo   binary.ByteOrder
	big  bool // BigTIFF
}

// readHeader parses the 8- or 16-byte header and returns the offset of the
// first IFD.
func (p *parser) readHeader() (uint64, error) {
	var h [16]byte
	if p.size < 8 {
		return 0, fmt.Errorf("read header: file of %d bytes: %w", p.size, ErrFormat)
	}
	n := 16
	if p.size < 16 {
		n = 8
	}
	if _, err := p.r.ReadAt(h[:n], 0); err != nil {
		return 0, fmt.Errorf("read header: %w", err)
	}
	switch string(h[:2]) {
	case "II":
		p.bo = binary.LittleEndian
	case "MM":
		p.bo = binary.BigEndian
	default:
		return 0, fmt.Errorf("read header: byte-order mark %q: %w", h[:2], ErrFormat)
	}
	switch magic := p.bo.Uint16(h[2:]); magic {
	case 42:
		return uint64(p.bo.Uint32(h[4:])), nil
	case 43:
		if n < 16 {
			return 0, fmt.Errorf("read header: short bigtiff header: %w", ErrFormat)
		}
		if p.bo.Uint16(h[4:]) != 8 || p.bo.Uint16(h[6:]) != 0 {
			return 0, fmt.Errorf("read header: bigtiff offset size %d: %w", p.bo.Uint16(h[4:]), ErrFormat)
		}
		p.big = true
		return p.bo.Uint64(h[8:]), nil
	default:
		return 0, fmt.Errorf("read header: magic %d is neither tiff (42) nor bigtiff (43): %w", magic, ErrFormat)
	}
}

// readIFD reads the entries of the IFD at off.
func (p *parser) readIFD(off uint64) (map[uint16]entry, error) {
	countSize, entrySize := 2, 12
	if p.big {
		countSize, entrySize = 8, 20
	}
	if off < 8 || off > uint64(p.size) || uint64(p.size)-off < uint64(countSize) {
		return nil, fmt.Errorf("read ifd at %d: offset outside file of %d bytes: %w", off, p.size, ErrFormat)
	}
	var cb [8]byte
	if _, err := p.r.ReadAt(cb[:countSize], int64(off)); err != nil {
		return nil, fmt.Errorf("read ifd at %d: %w", off, err)
	}
	var n uint64
	if p.big {
		n = p.bo.Uint64(cb[:])
	} else {
		n = uint64(p.bo.Uint16(cb[:]))
	}
	if n == 0 || n > maxIFDEntries {
		return nil, fmt.Errorf("read ifd at %d: %d entries: %w", off, n, ErrFormat)
	}
	start := off + uint64(countSize)
	if n*uint64(entrySize) > uint64(p.size)-start {
		return nil, fmt.Errorf("read ifd at %d: %d entries run past end of file: %w", off, n, ErrFormat)
	}
	buf := make([]byte, n*uint64(entrySize))
	if _, err := p.r.ReadAt(buf, int64(start)); err != nil {
		return nil, fmt.Errorf("read ifd at %d: %w", off, err)
	}
	m := make(map[uint16]entry, n)
	for i := uint64(0); i < n; i++ {
		b := buf[i*uint64(entrySize):]
		var e entry
		e.tag = p.bo.Uint16(b)
		e.typ = p.bo.Uint16(b[2:])
		if p.big {
			e.count = p.bo.Uint64(b[4:])
			copy(e.raw[:], b[12:20])
		} else {
			e.count = uint64(p.bo.Uint32(b[4:]))
			copy(e.raw[:4], b[8:12])
		}
		if _, dup := m[e.tag]; !dup {
			m[e.tag] = e
		}
	}
	return m, nil
}

// bytes returns the raw value bytes of e (inline or at its offset).
func (p *parser) bytes(e entry) ([]byte, error) {
	ts := typeSize(e.typ)
	if ts == 0 {
		return nil, fmt.Errorf("tag %d: field type %d: %w", e.tag, e.typ, ErrFormat)
	}
	if e.count > uint64(p.size) || e.count*uint64(ts) > uint64(p.size) {
		return nil, fmt.Errorf("tag %d: count %d larger than file: %w", e.tag, e.count, ErrFormat)
	}
	n := e.count * uint64(ts)
	inline := uint64(4)
	if p.big {
		inline = 8
	}
	if n <= inline {
		out := make([]byte, n)
		copy(out, e.raw[:n])
		return out, nil
	}
	var off uint64
	if p.big {
		off = p.bo.Uint64(e.raw[:])
	} else {
		off = uint64(p.bo.Uint32(e.raw[:]))
	}
	if off > uint64(p.size) || n > uint64(p.size)-off {
		return nil, fmt.Errorf("tag %d: %d value bytes at offset %d run past end of file: %w", e.tag, n, off, ErrFormat)
	}
	out := make([]byte, n)
	if _, err := p.r.ReadAt(out, int64(off)); err != nil {
		return nil, fmt.Errorf("tag %d: read values: %w", e.tag, err)
	}
	return out, nil
}

// uints decodes an unsigned integer tag (BYTE, SHORT, LONG, LONG8, IFD).
func (p *parser) uints(e entry) ([]uint64, error) {
	switch e.typ {
	case typeByte, typeShort, typeLong, typeLong8, typeIFD, typeIFD8, typeUndefined:
	default:
		return nil, fmt.Errorf("tag %d: field type %d is not an unsigned integer: %w", e.tag, e.typ, ErrFormat)
	}
	b, err := p.bytes(e)
	if err != nil {
		return nil, err
	}
	out := make([]uint64, e.count)
	for i := range out {
		switch e.typ {
		case typeByte, typeUndefined:
			out[i] = uint64(b[i])
		case typeShort:
			out[i] = uint64(p.bo.Uint16(b[2*i:]))
		case typeLong, typeIFD:
			out[i] = uint64(p.bo.Uint32(b[4*i:]))
		default:
			out[i] = p.bo.Uint64(b[8*i:])
		}
	}
	return out, nil
}

// uint returns the single value of an integer tag, or def when absent.
func (p *parser) uint(m map[uint16]entry, tag uint16, def uint64) (uint64, error) {
	e, ok := m[tag]
	if !ok {
		return def, nil
	}
	if e.count < 1 {
		return 0, fmt.Errorf("tag %d: empty: %w", tag, ErrFormat)
	}
	e.count = 1 // only the first value matters
	v, err := p.uints(e)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// floats decodes a DOUBLE or FLOAT tag.
func (p *parser) floats(e entry) ([]float64, error) {
	if e.typ != typeDouble && e.typ != typeFloat {
		return nil, fmt.Errorf("tag %d: field type %d is not floating point: %w", e.tag, e.typ, ErrFormat)
	}
	b, err := p.bytes(e)
	if err != nil {
		return nil, err
	}
	out := make([]float64, e.count)
	for i := range out {
		if e.typ == typeDouble {
			out[i] = math.Float64frombits(p.bo.Uint64(b[8*i:]))
		} else {
			out[i] = float64(math.Float32frombits(p.bo.Uint32(b[4*i:])))
		}
	}
	return out, nil
}

// ascii decodes an ASCII tag, trimming NULs and spaces.
func (p *parser) ascii(e entry) (string, error) {
	if e.typ != typeASCII && e.typ != typeByte && e.typ != typeUndefined {
		return "", fmt.Errorf("tag %d: field type %d is not ascii: %w", e.tag, e.typ, ErrFormat)
	}
	b, err := p.bytes(e)
	if err != nil {
		return "", err
	}
	return strings.Trim(string(b), "\x00 \t\r\n"), nil
}
