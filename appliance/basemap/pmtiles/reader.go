package pmtiles

import (
	"bytes"
	"compress/gzip"
	"container/list"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// ErrCorrupt marks an archive (or one of its parts) that does not follow
// the spec or breaks a bound of this reader.
var ErrCorrupt = errors.New("corrupt PMTiles archive")

// Bounds of the reader.
const (
	HeaderBytes       = 127      // the fixed header
	MaxZoom           = 30       // the largest zoom of the spec's tile ids
	MaxDepth          = 4        // leaf directory levels below the root
	MaxDirectoryBytes = 4 << 20  // one stored directory, bytes
	MaxMetadataBytes  = 4 << 20  // the decoded metadata, bytes
	MaxTileBytes      = 16 << 20 // one tile, bytes
	LeafCacheEntries  = 64       // decoded leaf directories kept
)

// Compression of the directories, metadata or tiles (the spec's codes).
type Compression uint8

// Compressions.
const (
	CompressionUnknown Compression = 0
	CompressionNone    Compression = 1
	CompressionGzip    Compression = 2
	CompressionBrotli  Compression = 3
	CompressionZstd    Compression = 4
)

// String is the name of c; ContentEncoding its HTTP Content-Encoding.
func (c Compression) String() string {
	switch c {
	case CompressionNone:
		return "none"
	case CompressionGzip:
		return "gzip"
	case CompressionBrotli:
		return "br"
	case CompressionZstd:
		return "zstd"
	}
	return "unknown"
}

// ContentEncoding is the HTTP Content-Encoding of tiles compressed with c
// ("" for none or unknown).
func (c Compression) ContentEncoding() string {
	switch c {
	case CompressionGzip, CompressionBrotli, CompressionZstd:
		return c.String()
	}
	return ""
}

// TileType is the format of the tiles (the spec's codes).
type TileType uint8

// Tile types.
const (
	TileUnknown TileType = 0
	TileMVT     TileType = 1
	TilePNG     TileType = 2
	TileJPEG    TileType = 3
	TileWebP    TileType = 4
	TileAVIF    TileType = 5
)

// String is the short name of t: mvt, png, jpeg, webp, avif.
func (t TileType) String() string {
	switch t {
	case TileMVT:
		return "mvt"
	case TilePNG:
		return "png"
	case TileJPEG:
		return "jpeg"
	case TileWebP:
		return "webp"
	case TileAVIF:
		return "avif"
	}
	return "unknown"
}

// ContentType is the media type of tiles of type t.
func (t TileType) ContentType() string {
	switch t {
	case TileMVT:
		return "application/vnd.mapbox-vector-tile"
	case TilePNG:
		return "image/png"
	case TileJPEG:
		return "image/jpeg"
	case TileWebP:
		return "image/webp"
	case TileAVIF:
		return "image/avif"
	}
	return "application/octet-stream"
}

// Raster reports whether t is an image format.
func (t TileType) Raster() bool { return t >= TilePNG && t <= TileAVIF }

// Header is the archive's fixed header.
type Header struct {
	RootOffset, RootLength         uint64
	MetadataOffset, MetadataLength uint64
	LeafOffset, LeafLength         uint64
	DataOffset, DataLength         uint64
	AddressedTiles                 uint64
	TileEntries                    uint64
	TileContents                   uint64
	Clustered                      bool
	InternalCompression            Compression
	TileCompression                Compression
	TileType                       TileType
	MinZoom, MaxZoom               uint8
	MinLonE7, MinLatE7             int32 // bounds, 10⁻⁷ degrees (WGS84)
	MaxLonE7, MaxLatE7             int32
	CenterZoom                     uint8
	CenterLonE7, CenterLatE7       int32
}

// Info describes an archive for the console.
type Info struct {
	TileType        TileType
	TileCompression Compression
	MinZoom         int
	MaxZoom         int
	// Bounds: west, south, east, north, WGS84 degrees.
	Bounds [4]float64
	// Center: longitude and latitude, WGS84 degrees, and zoom.
	CenterLon, CenterLat float64
	CenterZoom           int
	// Attribution, Name and Description are the metadata's strings ("" when
	// absent).
	Attribution, Name, Description string
	// VectorLayers are the ids of the metadata's vector_layers (MVT).
	VectorLayers []string
	// FileBytes is the archive's size, bytes.
	FileBytes int64
}

// entry is one directory entry: tiles TileID..TileID+RunLength−1 share
// the bytes at Offset (within the tile data); RunLength 0 points at a
// leaf directory at Offset within the leaf section.
type entry struct {
	TileID    uint64
	Offset    uint64
	Length    uint32
	RunLength uint32
}

// Archive is an open PMTiles archive. It is safe for concurrent use.
type Archive struct {
	r    io.ReaderAt
	c    io.Closer // nil for New
	size int64
	hdr  Header
	root []entry
	info Info
	id   string // digest of the header, root directory and metadata

	mu     sync.Mutex
	leaves map[uint64]*list.Element // leaf offset → element holding *leaf
	lru    *list.List
	zdec   *zstd.Decoder
}

type leaf struct {
	off     uint64
	entries []entry
}

// Open opens the archive at path.
func Open(path string) (*Archive, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open PMTiles archive: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("open PMTiles archive: %w", err)
	}
	if !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, fmt.Errorf("open PMTiles archive %s: not a regular file", path)
	}
	a, err := New(f, st.Size())
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a.c = f
	return a, nil
}

// New reads the archive of size bytes from r.
func New(r io.ReaderAt, size int64) (*Archive, error) {
	if size < HeaderBytes {
		return nil, fmt.Errorf("%d bytes, shorter than the %d-byte header: %w", size, HeaderBytes, ErrCorrupt)
	}
	b := make([]byte, HeaderBytes)
	if _, err := r.ReadAt(b, 0); err != nil {
		return nil, fmt.Errorf("read the header: %w", err)
	}
	h, err := ParseHeader(b)
	if err != nil {
		return nil, err
	}
	zdec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxDirectoryBytes*8))
	if err != nil {
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	a := &Archive{r: r, size: size, hdr: h, leaves: map[uint64]*list.Element{}, lru: list.New(), zdec: zdec}
	for _, s := range []struct {
		name     string
		off, len uint64
	}{{"root directory", h.RootOffset, h.RootLength}, {"metadata", h.MetadataOffset, h.MetadataLength},
		{"leaf directories", h.LeafOffset, h.LeafLength}, {"tile data", h.DataOffset, h.DataLength}} {
		if s.off > uint64(size) || s.len > uint64(size)-s.off {
			return nil, fmt.Errorf("the %s (%d bytes at %d) runs past the end of the %d-byte file: %w", s.name, s.len, s.off, size, ErrCorrupt)
		}
	}
	if h.RootLength == 0 {
		return nil, fmt.Errorf("empty root directory: %w", ErrCorrupt)
	}
	rootRaw, err := a.section(h.RootOffset, h.RootLength, MaxDirectoryBytes, "root directory")
	if err != nil {
		return nil, err
	}
	if a.root, err = a.directory(rootRaw); err != nil {
		return nil, fmt.Errorf("root directory: %w", err)
	}
	var metaRaw []byte
	if h.MetadataLength > 0 {
		if metaRaw, err = a.section(h.MetadataOffset, h.MetadataLength, MaxMetadataBytes, "metadata"); err != nil {
			return nil, err
		}
	}
	if a.info, err = info(h, metaRaw, a.decode); err != nil {
		return nil, err
	}
	a.info.FileBytes = size
	sum := sha256.New()
	sum.Write(b)
	sum.Write(rootRaw)
	sum.Write(metaRaw)
	fmt.Fprintf(sum, "\n%d", size)
	a.id = hex.EncodeToString(sum.Sum(nil)[:12])
	return a, nil
}

// Close closes the file Open opened.
func (a *Archive) Close() error {
	a.zdec.Close()
	if a.c != nil {
		return a.c.Close()
	}
	return nil
}

// Header returns the archive's header.
func (a *Archive) Header() Header { return a.hdr }

// Info returns the archive's description.
func (a *Archive) Info() Info {
	in := a.info
	in.VectorLayers = append([]string(nil), in.VectorLayers...)
	return in
}

// ID is a digest of the archive's header, root directory, metadata and
// size (hex): another archive has another ID.
func (a *Archive) ID() string { return a.id }

// ParseHeader decodes and checks the 127-byte header.
func ParseHeader(b []byte) (Header, error) {
	var h Header
	if len(b) < HeaderBytes || string(b[:7]) != "PMTiles" {
		return h, fmt.Errorf("not a PMTiles archive (no \"PMTiles\" magic at the start): %w", ErrCorrupt)
	}
	if b[7] != 3 {
		return h, fmt.Errorf("PMTiles version %d, only version 3 is read: %w", b[7], ErrCorrupt)
	}
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }
	s := func(i int) int32 { return int32(binary.LittleEndian.Uint32(b[i:])) }
	h = Header{RootOffset: u(8), RootLength: u(16), MetadataOffset: u(24), MetadataLength: u(32),
		LeafOffset: u(40), LeafLength: u(48), DataOffset: u(56), DataLength: u(64),
		AddressedTiles: u(72), TileEntries: u(80), TileContents: u(88), Clustered: b[96] == 1,
		InternalCompression: Compression(b[97]), TileCompression: Compression(b[98]), TileType: TileType(b[99]),
		MinZoom: b[100], MaxZoom: b[101], MinLonE7: s(102), MinLatE7: s(106), MaxLonE7: s(110), MaxLatE7: s(114),
		CenterZoom: b[118], CenterLonE7: s(119), CenterLatE7: s(123)}
	switch h.InternalCompression {
	case CompressionNone, CompressionGzip, CompressionZstd:
	default:
		return h, fmt.Errorf("directories compressed with %s (code %d): only none, gzip and zstd are read: %w", h.InternalCompression, b[97], ErrCorrupt)
	}
	if h.TileType == TileUnknown || h.TileType > TileAVIF {
		return h, fmt.Errorf("unknown tile type %d (mvt, png, jpeg, webp or avif expected): %w", b[99], ErrCorrupt)
	}
	if h.TileCompression > CompressionZstd {
		return h, fmt.Errorf("unknown tile compression %d: %w", b[98], ErrCorrupt)
	}
	if h.TileType.Raster() && h.TileCompression != CompressionNone && h.TileCompression != CompressionUnknown {
		return h, fmt.Errorf("%s tiles compressed with %s: raster tiles must be stored as they are: %w", h.TileType, h.TileCompression, ErrCorrupt)
	}
	if h.MinZoom > h.MaxZoom || h.MaxZoom > MaxZoom {
		return h, fmt.Errorf("zooms %d..%d: expected 0 <= min <= max <= %d: %w", h.MinZoom, h.MaxZoom, MaxZoom, ErrCorrupt)
	}
	const e7 = 10_000_000
	if h.MinLonE7 < -180*e7 || h.MaxLonE7 > 180*e7 || h.MinLatE7 < -90*e7 || h.MaxLatE7 > 90*e7 || h.MinLonE7 > h.MaxLonE7 || h.MinLatE7 > h.MaxLatE7 {
		return h, fmt.Errorf("bounds %.7f,%.7f,%.7f,%.7f (west, south, east, north) are not a box within ±180°, ±90°: %w",
			float64(h.MinLonE7)/e7, float64(h.MinLatE7)/e7, float64(h.MaxLonE7)/e7, float64(h.MaxLatE7)/e7, ErrCorrupt)
	}
	return h, nil
}

// info builds the archive's description from its header and metadata.
func info(h Header, metaRaw []byte, decode func([]byte, int) ([]byte, error)) (Info, error) {
	const e7 = 10_000_000.0
	in := Info{TileType: h.TileType, TileCompression: h.TileCompression, MinZoom: int(h.MinZoom), MaxZoom: int(h.MaxZoom),
		Bounds:    [4]float64{float64(h.MinLonE7) / e7, float64(h.MinLatE7) / e7, float64(h.MaxLonE7) / e7, float64(h.MaxLatE7) / e7},
		CenterLon: float64(h.CenterLonE7) / e7, CenterLat: float64(h.CenterLatE7) / e7, CenterZoom: int(h.CenterZoom)}
	if len(metaRaw) == 0 {
		return in, nil
	}
	js, err := decode(metaRaw, MaxMetadataBytes)
	if err != nil {
		return in, fmt.Errorf("metadata: %w", err)
	}
	if len(bytes.TrimSpace(js)) == 0 {
		return in, nil
	}
	var m struct {
		Attribution  json.RawMessage `json:"attribution"`
		Name         json.RawMessage `json:"name"`
		Description  json.RawMessage `json:"description"`
		VectorLayers []struct {
			ID string `json:"id"`
		} `json:"vector_layers"`
	}
	if err := json.Unmarshal(js, &m); err != nil {
		return in, fmt.Errorf("metadata is not a JSON object with the spec's fields: %v: %w", err, ErrCorrupt)
	}
	str := func(raw json.RawMessage) string {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
		return s
	}
	in.Attribution, in.Name, in.Description = str(m.Attribution), str(m.Name), str(m.Description)
	for _, l := range m.VectorLayers {
		in.VectorLayers = append(in.VectorLayers, l.ID)
	}
	return in, nil
}

// section reads length bytes at off (already checked against the file),
// refusing more than limit.
func (a *Archive) section(off, length uint64, limit int, what string) ([]byte, error) {
	if length > uint64(limit) {
		return nil, fmt.Errorf("the %s is %d bytes, more than the %d this reader accepts: %w", what, length, limit, ErrCorrupt)
	}
	b := make([]byte, length)
	if _, err := a.r.ReadAt(b, int64(off)); err != nil {
		return nil, fmt.Errorf("read the %s: %w", what, err)
	}
	return b, nil
}

// decode decompresses b with the internal compression, at most limit
// bytes.
func (a *Archive) decode(b []byte, limit int) ([]byte, error) {
	var rd io.Reader
	switch a.hdr.InternalCompression {
	case CompressionNone:
		if len(b) > limit {
			return nil, fmt.Errorf("%d bytes, more than %d: %w", len(b), limit, ErrCorrupt)
		}
		return b, nil
	case CompressionGzip:
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("gzip: %v: %w", err, ErrCorrupt)
		}
		rd = zr
	case CompressionZstd:
		a.mu.Lock()
		out, err := a.zdec.DecodeAll(b, nil)
		a.mu.Unlock()
		if err != nil {
			return nil, fmt.Errorf("zstd: %v: %w", err, ErrCorrupt)
		}
		if len(out) > limit {
			return nil, fmt.Errorf("decodes to %d bytes, more than %d: %w", len(out), limit, ErrCorrupt)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("compression %s: %w", a.hdr.InternalCompression, ErrCorrupt)
	}
	out, err := io.ReadAll(io.LimitReader(rd, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %w", a.hdr.InternalCompression, err, ErrCorrupt)
	}
	if len(out) > limit {
		return nil, fmt.Errorf("decodes to more than %d bytes: %w", limit, ErrCorrupt)
	}
	return out, nil
}

// directory decodes a stored directory.
func (a *Archive) directory(raw []byte) ([]entry, error) {
	b, err := a.decode(raw, MaxDirectoryBytes*8)
	if err != nil {
		return nil, err
	}
	return parseDirectory(b)
}

// parseDirectory decodes a directory's varints: the entry count, then the
// tile id deltas, run lengths, lengths and offsets (0: right after the
// previous entry, else offset+1).
func parseDirectory(b []byte) ([]entry, error) {
	rd := bytes.NewReader(b)
	next := func() (uint64, error) {
		v, err := binary.ReadUvarint(rd)
		if err != nil {
			return 0, fmt.Errorf("truncated directory: %w", ErrCorrupt)
		}
		return v, nil
	}
	n, err := next()
	if err != nil {
		return nil, err
	}
	// Each entry takes at least four varint bytes.
	if n == 0 || n > uint64(rd.Len())/4 {
		return nil, fmt.Errorf("a directory of %d bytes cannot hold %d entries: %w", len(b), n, ErrCorrupt)
	}
	es := make([]entry, n)
	id := uint64(0)
	for i := range es {
		d, err := next()
		if err != nil {
			return nil, err
		}
		if i > 0 && d == 0 || id+d < id {
			return nil, fmt.Errorf("directory entries not sorted by tile id: %w", ErrCorrupt)
		}
		id += d
		es[i].TileID = id
	}
	for i := range es {
		v, err := next()
		if err != nil {
			return nil, err
		}
		if v > math.MaxUint32 {
			return nil, fmt.Errorf("run length %d: %w", v, ErrCorrupt)
		}
		es[i].RunLength = uint32(v)
	}
	for i := range es {
		v, err := next()
		if err != nil {
			return nil, err
		}
		if v == 0 || v > math.MaxUint32 {
			return nil, fmt.Errorf("entry length %d: %w", v, ErrCorrupt)
		}
		es[i].Length = uint32(v)
	}
	for i := range es {
		v, err := next()
		if err != nil {
			return nil, err
		}
		switch {
		case v == 0 && i > 0:
			es[i].Offset = es[i-1].Offset + uint64(es[i-1].Length)
		case v == 0:
			return nil, fmt.Errorf("the first entry has no offset: %w", ErrCorrupt)
		default:
			es[i].Offset = v - 1
		}
	}
	if rd.Len() != 0 {
		return nil, fmt.Errorf("%d bytes after the directory's entries: %w", rd.Len(), ErrCorrupt)
	}
	return es, nil
}

// find returns the entry of es that holds id: a tile entry whose run
// covers it, or the leaf directory entry at or before it.
func find(es []entry, id uint64) (entry, bool) {
	i := sort.Search(len(es), func(i int) bool { return es[i].TileID > id }) - 1
	if i < 0 {
		return entry{}, false
	}
	e := es[i]
	if e.RunLength == 0 || id-e.TileID < uint64(e.RunLength) {
		return e, true
	}
	return entry{}, false
}

// Tile returns the stored bytes of tile (z, x, y) (compressed as
// Info().TileCompression says) and whether the archive holds it. A tile
// outside the archive's zooms is absent; an error is a defect of the
// archive or of the file (ErrCorrupt, or the read error).
func (a *Archive) Tile(z, x, y int) ([]byte, bool, error) {
	if z < int(a.hdr.MinZoom) || z > int(a.hdr.MaxZoom) || x < 0 || y < 0 || x >= 1<<z || y >= 1<<z {
		return nil, false, nil
	}
	id := TileID(z, x, y)
	es := a.root
	for depth := 0; ; depth++ {
		e, ok := find(es, id)
		if !ok {
			return nil, false, nil
		}
		if e.RunLength > 0 {
			return a.tileData(z, x, y, e)
		}
		if depth >= MaxDepth {
			return nil, false, fmt.Errorf("tile %d/%d/%d: leaf directories nested deeper than %d: %w", z, x, y, MaxDepth, ErrCorrupt)
		}
		var err error
		if es, err = a.leaf(e); err != nil {
			return nil, false, fmt.Errorf("tile %d/%d/%d: %w", z, x, y, err)
		}
	}
}

// tileData reads the bytes of a tile entry.
func (a *Archive) tileData(z, x, y int, e entry) ([]byte, bool, error) {
	if e.Length > MaxTileBytes {
		return nil, false, fmt.Errorf("tile %d/%d/%d is %d bytes, more than %d: %w", z, x, y, e.Length, MaxTileBytes, ErrCorrupt)
	}
	if e.Offset > a.hdr.DataLength || uint64(e.Length) > a.hdr.DataLength-e.Offset {
		return nil, false, fmt.Errorf("tile %d/%d/%d (%d bytes at %d) lies outside the %d bytes of tile data: %w", z, x, y, e.Length, e.Offset, a.hdr.DataLength, ErrCorrupt)
	}
	b := make([]byte, e.Length)
	if _, err := a.r.ReadAt(b, int64(a.hdr.DataOffset+e.Offset)); err != nil {
		return nil, false, fmt.Errorf("read tile %d/%d/%d: %w", z, x, y, err)
	}
	return b, true, nil
}

// leaf returns the decoded leaf directory of entry e, from the cache or
// read.
func (a *Archive) leaf(e entry) ([]entry, error) {
	a.mu.Lock()
	if el, ok := a.leaves[e.Offset]; ok {
		a.lru.MoveToFront(el)
		es := el.Value.(*leaf).entries
		a.mu.Unlock()
		return es, nil
	}
	a.mu.Unlock()
	if e.Offset > a.hdr.LeafLength || uint64(e.Length) > a.hdr.LeafLength-e.Offset {
		return nil, fmt.Errorf("leaf directory (%d bytes at %d) lies outside the %d bytes of leaf directories: %w", e.Length, e.Offset, a.hdr.LeafLength, ErrCorrupt)
	}
	raw, err := a.section(a.hdr.LeafOffset+e.Offset, uint64(e.Length), MaxDirectoryBytes, "leaf directory")
	if err != nil {
		return nil, err
	}
	es, err := a.directory(raw)
	if err != nil {
		return nil, fmt.Errorf("leaf directory at %d: %w", e.Offset, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.leaves[e.Offset]; !ok {
		a.leaves[e.Offset] = a.lru.PushFront(&leaf{off: e.Offset, entries: es})
		for a.lru.Len() > LeafCacheEntries {
			old := a.lru.Back()
			a.lru.Remove(old)
			delete(a.leaves, old.Value.(*leaf).off)
		}
	}
	return es, nil
}

// TileID returns the spec's id of tile (z, x, y): the tiles of lower
// zooms, (4^z − 1)/3, plus the distance along the Hilbert curve of order
// z. z must be within 0..MaxZoom and x, y within 0..2^z−1.
func TileID(z, x, y int) uint64 {
	base := (uint64(1)<<(2*uint(z)) - 1) / 3
	n := uint64(1) << uint(z)
	ux, uy := uint64(x), uint64(y)
	var d uint64
	for s := n / 2; s > 0; s /= 2 {
		var rx, ry uint64
		if ux&s != 0 {
			rx = 1
		}
		if uy&s != 0 {
			ry = 1
		}
		d += s * s * ((3 * rx) ^ ry)
		// Rotate the quadrant so that the curve's sub-order starts where
		// it should.
		if ry == 0 {
			if rx == 1 {
				ux = s - 1 - (ux & (s - 1))
				uy = s - 1 - (uy & (s - 1))
			}
			ux, uy = uy, ux
		}
	}
	return base + d
}
