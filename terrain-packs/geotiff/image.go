package geotiff

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
)

// MaxDimension is the largest accepted image width or height, in pixels
// (2^20: a 1-arc-second mosaic of all of Brazil is about 144 000 pixels wide).
const MaxDimension = 1 << 20

// Default limits used when Options leaves them zero.
const (
	// DefaultCacheBytes is the default budget of the decoded-block cache, bytes.
	DefaultCacheBytes = 32 << 20
	// DefaultMaxBlockBytes is the default largest decoded strip or tile, bytes.
	DefaultMaxBlockBytes = 64 << 20
)

// Options tunes Open. The zero value gives the defaults.
type Options struct {
	// CacheBytes is the memory budget, in bytes, of the decoded strip/tile
	// cache shared by At and ReadWindow. 0 means DefaultCacheBytes. The most
	// recently used block is always kept, so the real bound is
	// max(CacheBytes, MaxBlockBytes) plus blocks held by live Cursors.
	CacheBytes int64
	// MaxBlockBytes is the largest decoded strip or tile accepted, in bytes;
	// a file with larger blocks fails to open with ErrLimit. 0 means
	// DefaultMaxBlockBytes.
	MaxBlockBytes int64
	// DefaultEPSG is the EPSG code assumed when the file has no
	// GeoKeyDirectory (e.g. 4326 for a DEM known to be geographic). 0 leaves
	// the CRS unknown.
	DefaultEPSG int
}

// SampleFormat is the numeric type of a pixel value.
type SampleFormat uint8

// Sample formats.
const (
	Uint8 SampleFormat = iota + 1
	Int8
	Uint16
	Int16
	Uint32
	Int32
	Float32
	Float64
)

func (f SampleFormat) String() string {
	switch f {
	case Uint8:
		return "uint8"
	case Int8:
		return "int8"
	case Uint16:
		return "uint16"
	case Int16:
		return "int16"
	case Uint32:
		return "uint32"
	case Int32:
		return "int32"
	case Float32:
		return "float32"
	case Float64:
		return "float64"
	}
	return "SampleFormat(" + strconv.Itoa(int(f)) + ")"
}

// Bytes returns the size of one sample, in bytes.
func (f SampleFormat) Bytes() int {
	switch f {
	case Uint8, Int8:
		return 1
	case Uint16, Int16:
		return 2
	case Uint32, Int32, Float32:
		return 4
	case Float64:
		return 8
	}
	return 0
}

// Compression is the TIFF Compression tag value.
type Compression uint16

// Supported compressions.
const (
	CompressionNone         Compression = 1
	CompressionLZW          Compression = 5
	CompressionDeflate      Compression = 8 // "Adobe deflate", zlib stream
	CompressionPackBits     Compression = 32773
	CompressionDeflateOld   Compression = 32946 // obsolete deflate code, same zlib stream
	CompressionZSTD         Compression = 50000
	compressionCCITTRLE     Compression = 2
	compressionCCITTFax3    Compression = 3
	compressionCCITTFax4    Compression = 4
	compressionOJPEG        Compression = 6
	compressionJPEG         Compression = 7
	compressionLERC         Compression = 34887
	compressionLZMA         Compression = 34925
	compressionWebP         Compression = 50001
	compressionJXL          Compression = 50002
	compressionJPEGXLLegacy Compression = 52546
)

func (c Compression) String() string {
	switch c {
	case CompressionNone:
		return "none"
	case CompressionLZW:
		return "LZW"
	case CompressionDeflate:
		return "deflate"
	case CompressionDeflateOld:
		return "deflate (32946)"
	case CompressionPackBits:
		return "PackBits"
	case CompressionZSTD:
		return "ZSTD"
	case compressionCCITTRLE, compressionCCITTFax3, compressionCCITTFax4:
		return "CCITT"
	case compressionOJPEG, compressionJPEG:
		return "JPEG"
	case compressionLERC:
		return "LERC"
	case compressionLZMA:
		return "LZMA"
	case compressionWebP:
		return "WebP"
	case compressionJXL, compressionJPEGXLLegacy:
		return "JPEG-XL"
	}
	return "compression " + strconv.Itoa(int(c))
}

// GeoTransform maps pixel coordinates to CRS coordinates (no rotation):
//
//	x = OriginX + col*PixelWidth
//	y = OriginY + row*PixelHeight
//
// where (col, row) = (0, 0) is the outer top-left corner of the top-left
// pixel and the centre of pixel (c, r) is (c+0.5, r+0.5). Units are those of
// the CRS: degrees for geographic CRSs, metres for UTM. This is GDAL's
// geotransform (GT[0], GT[1], GT[3], GT[5]); for PixelIsPoint rasters the
// origin is shifted by half a pixel, as GDAL does, so the formula always
// refers to pixel corners.
type GeoTransform struct {
	OriginX, OriginY        float64 // CRS units of the top-left corner
	PixelWidth, PixelHeight float64 // CRS units per pixel; PixelHeight < 0 for north-up
}

// ModelType is the GeoTIFF GTModelType key.
type ModelType uint16

// Model types.
const (
	ModelUnknown     ModelType = 0
	ModelProjected   ModelType = 1
	ModelGeographic  ModelType = 2
	ModelGeocentric  ModelType = 3
	modelUserDefined ModelType = 32767
)

// Image is an open single-band (Geo)TIFF. Pixel data is decoded lazily, one
// strip or tile at a time, through a bounded LRU cache. All methods are safe
// for concurrent use; fields must not be modified after Open.
type Image struct {
	Width, Height int          // pixels
	Format        SampleFormat // numeric type of the samples
	Compression   Compression
	Predictor     int  // 1 none, 2 horizontal, 3 floating point
	Tiled         bool // tiles (true) or strips (false)
	BlockWidth    int  // pixels per strip row / tile width
	BlockHeight   int  // rows per strip / tile height
	BigTIFF       bool
	BigEndian     bool

	// EPSG is the CRS code from ProjectedCSType or GeographicType (or
	// Options.DefaultEPSG); 0 when unknown or user-defined.
	EPSG         int
	ModelType    ModelType
	PixelIsPoint bool // GTRasterType = RasterPixelIsPoint
	// Transform is valid when HasTransform is true.
	Transform    GeoTransform
	HasTransform bool
	// NoData is the GDAL_NODATA value, valid when HasNoData is true. Use
	// IsNoData to compare, which handles NaN and float32 rounding.
	NoData    float64
	HasNoData bool

	r          io.ReaderAt
	size       int64
	bo         binary.ByteOrder
	offsets    []uint64
	counts     []uint64
	across     int // blocks per block row
	down       int // block rows
	blockBytes int // decoded bytes of a full block
	noData     float64
	opts       Options
	cache      blockCache
	zpool      sync.Pool // *zlibState
	proj       Projection
	projErr    error
}

// Open parses the first IFD of the TIFF in r (size bytes) with default
// Options. Pixel data is not read until asked for.
func Open(r io.ReaderAt, size int64) (*Image, error) {
	return OpenOptions(r, size, Options{})
}

// OpenOptions is Open with explicit Options.
func OpenOptions(r io.ReaderAt, size int64, opts Options) (*Image, error) {
	if opts.CacheBytes <= 0 {
		opts.CacheBytes = DefaultCacheBytes
	}
	if opts.MaxBlockBytes <= 0 {
		opts.MaxBlockBytes = DefaultMaxBlockBytes
	}
	p := &parser{r: r, size: size}
	off, err := p.readHeader()
	if err != nil {
		return nil, fmt.Errorf("open tiff: %w", err)
	}
	m, err := p.readIFD(off)
	if err != nil {
		return nil, fmt.Errorf("open tiff: %w", err)
	}
	img := &Image{r: r, size: size, bo: p.bo, BigTIFF: p.big, BigEndian: p.bo == binary.BigEndian, opts: opts}
	if err := img.parseLayout(p, m); err != nil {
		return nil, fmt.Errorf("open tiff: %w", err)
	}
	if err := img.parseGeo(p, m); err != nil {
		return nil, fmt.Errorf("open tiff: %w", err)
	}
	if img.EPSG == 0 && opts.DefaultEPSG != 0 {
		img.EPSG = opts.DefaultEPSG
	}
	img.proj, img.projErr = NewProjection(img.EPSG)
	img.cache.init(opts.CacheBytes)
	return img, nil
}

// parseLayout reads the raster structure tags.
func (img *Image) parseLayout(p *parser, m map[uint16]entry) error {
	w, err := p.uint(m, tagImageWidth, 0)
	if err != nil {
		return fmt.Errorf("image width: %w", err)
	}
	h, err := p.uint(m, tagImageLength, 0)
	if err != nil {
		return fmt.Errorf("image length: %w", err)
	}
	if w == 0 || h == 0 {
		return fmt.Errorf("image size %d×%d: %w", w, h, ErrFormat)
	}
	if w > MaxDimension || h > MaxDimension {
		return fmt.Errorf("image size %d×%d above %d: %w", w, h, MaxDimension, ErrLimit)
	}
	img.Width, img.Height = int(w), int(h)

	spp, err := p.uint(m, tagSamplesPerPixel, 1)
	if err != nil {
		return fmt.Errorf("samples per pixel: %w", err)
	}
	if spp != 1 {
		return fmt.Errorf("%d samples per pixel (bands); only single-band rasters are supported: %w", spp, ErrUnsupported)
	}
	bits, err := p.uint(m, tagBitsPerSample, 1)
	if err != nil {
		return fmt.Errorf("bits per sample: %w", err)
	}
	sf, err := p.uint(m, tagSampleFormat, 1)
	if err != nil {
		return fmt.Errorf("sample format: %w", err)
	}
	img.Format, err = sampleFormat(sf, bits)
	if err != nil {
		return err
	}

	c, err := p.uint(m, tagCompression, 1)
	if err != nil {
		return fmt.Errorf("compression: %w", err)
	}
	img.Compression = Compression(c)
	switch img.Compression {
	case CompressionNone, CompressionLZW, CompressionDeflate, CompressionDeflateOld, CompressionPackBits, CompressionZSTD:
	default:
		return fmt.Errorf("compression %s (%d): %w", img.Compression, c, ErrUnsupported)
	}
	pred, err := p.uint(m, tagPredictor, 1)
	if err != nil {
		return fmt.Errorf("predictor: %w", err)
	}
	switch pred {
	case 1, 2:
	case 3:
		if img.Format != Float32 && img.Format != Float64 {
			return fmt.Errorf("floating-point predictor on %s samples: %w", img.Format, ErrFormat)
		}
	default:
		return fmt.Errorf("predictor %d: %w", pred, ErrUnsupported)
	}
	img.Predictor = int(pred)

	var offTag, cntTag uint16
	if _, ok := m[tagTileWidth]; ok {
		img.Tiled = true
		tw, err := p.uint(m, tagTileWidth, 0)
		if err != nil {
			return fmt.Errorf("tile width: %w", err)
		}
		th, err := p.uint(m, tagTileLength, 0)
		if err != nil {
			return fmt.Errorf("tile length: %w", err)
		}
		if tw == 0 || th == 0 || tw > MaxDimension || th > MaxDimension {
			return fmt.Errorf("tile size %d×%d: %w", tw, th, ErrFormat)
		}
		img.BlockWidth, img.BlockHeight = int(tw), int(th)
		offTag, cntTag = tagTileOffsets, tagTileByteCounts
	} else {
		rps, err := p.uint(m, tagRowsPerStrip, math.MaxUint32)
		if err != nil {
			return fmt.Errorf("rows per strip: %w", err)
		}
		if rps == 0 {
			return fmt.Errorf("rows per strip 0: %w", ErrFormat)
		}
		img.BlockWidth, img.BlockHeight = img.Width, int(min(rps, uint64(img.Height)))
		offTag, cntTag = tagStripOffsets, tagStripByteCounts
	}
	img.across = (img.Width + img.BlockWidth - 1) / img.BlockWidth
	img.down = (img.Height + img.BlockHeight - 1) / img.BlockHeight
	bb := int64(img.BlockWidth) * int64(img.BlockHeight) * int64(img.Format.Bytes())
	if bb > img.opts.MaxBlockBytes {
		return fmt.Errorf("decoded block of %d bytes above limit %d: %w", bb, img.opts.MaxBlockBytes, ErrLimit)
	}
	img.blockBytes = int(bb)
	nBlocks := uint64(img.across) * uint64(img.down)

	oe, ok := m[offTag]
	if !ok {
		return fmt.Errorf("missing strip/tile offsets (tag %d): %w", offTag, ErrFormat)
	}
	ce, ok := m[cntTag]
	if !ok {
		return fmt.Errorf("missing strip/tile byte counts (tag %d): %w", cntTag, ErrFormat)
	}
	if oe.count != nBlocks || ce.count != nBlocks {
		return fmt.Errorf("%d offsets and %d byte counts for %d blocks: %w", oe.count, ce.count, nBlocks, ErrFormat)
	}
	if img.offsets, err = p.uints(oe); err != nil {
		return fmt.Errorf("block offsets: %w", err)
	}
	if img.counts, err = p.uints(ce); err != nil {
		return fmt.Errorf("block byte counts: %w", err)
	}
	return nil
}

func sampleFormat(sf, bits uint64) (SampleFormat, error) {
	switch sf {
	case 1, 4: // unsigned integer, void (treated as unsigned)
		switch bits {
		case 8:
			return Uint8, nil
		case 16:
			return Uint16, nil
		case 32:
			return Uint32, nil
		}
	case 2: // signed integer
		switch bits {
		case 8:
			return Int8, nil
		case 16:
			return Int16, nil
		case 32:
			return Int32, nil
		}
	case 3: // IEEE floating point
		switch bits {
		case 32:
			return Float32, nil
		case 64:
			return Float64, nil
		}
	default:
		return 0, fmt.Errorf("sample format %d: %w", sf, ErrUnsupported)
	}
	return 0, fmt.Errorf("%d-bit samples of format %d: %w", bits, sf, ErrUnsupported)
}

// GeoKey IDs.
const (
	keyGTModelType       = 1024
	keyGTRasterType      = 1025
	keyGeographicType    = 2048
	keyProjectedCSType   = 3072
	rasterPixelIsArea    = 1
	rasterPixelIsPoint   = 2
	userDefinedGeoKeyVal = 32767
)

// parseGeo reads the GeoTIFF tags and GDAL_NODATA.
func (img *Image) parseGeo(p *parser, m map[uint16]entry) error {
	if e, ok := m[tagGeoKeyDirectory]; ok {
		if err := img.parseGeoKeys(p, e); err != nil {
			return fmt.Errorf("geokey directory: %w", err)
		}
	}
	if e, ok := m[tagModelTransformation]; ok {
		t, err := p.floats(e)
		if err != nil {
			return fmt.Errorf("model transformation: %w", err)
		}
		if len(t) != 16 {
			return fmt.Errorf("model transformation has %d values, want 16: %w", len(t), ErrFormat)
		}
		if t[1] != 0 || t[4] != 0 {
			return fmt.Errorf("rotated or sheared model transformation (%g, %g): %w", t[1], t[4], ErrUnsupported)
		}
		img.Transform = GeoTransform{OriginX: t[3], OriginY: t[7], PixelWidth: t[0], PixelHeight: t[5]}
		img.HasTransform = true
	} else if e, ok := m[tagModelTiepoint]; ok {
		tp, err := p.floats(e)
		if err != nil {
			return fmt.Errorf("model tiepoint: %w", err)
		}
		se, ok := m[tagModelPixelScale]
		if !ok {
			if len(tp) > 6 {
				return fmt.Errorf("%d tiepoints without pixel scale (ground control points): %w", len(tp)/6, ErrUnsupported)
			}
			return fmt.Errorf("model tiepoint without pixel scale: %w", ErrFormat)
		}
		if len(tp) < 6 {
			return fmt.Errorf("model tiepoint has %d values, want 6: %w", len(tp), ErrFormat)
		}
		sc, err := p.floats(se)
		if err != nil {
			return fmt.Errorf("model pixel scale: %w", err)
		}
		if len(sc) < 2 {
			return fmt.Errorf("model pixel scale has %d values, want 3: %w", len(sc), ErrFormat)
		}
		img.Transform = GeoTransform{
			OriginX:     tp[3] - tp[0]*sc[0],
			OriginY:     tp[4] + tp[1]*sc[1],
			PixelWidth:  sc[0],
			PixelHeight: -sc[1],
		}
		img.HasTransform = true
	}
	if img.HasTransform {
		t := img.Transform
		for _, v := range []float64{t.OriginX, t.OriginY, t.PixelWidth, t.PixelHeight} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("geotransform %+v not finite: %w", t, ErrFormat)
			}
		}
		if t.PixelWidth == 0 || t.PixelHeight == 0 {
			return fmt.Errorf("geotransform %+v has zero pixel size: %w", t, ErrFormat)
		}
		if img.PixelIsPoint {
			// The tiepoint refers to the centre of pixel (0,0); move the
			// origin to its corner like GDAL does.
			img.Transform.OriginX -= 0.5 * t.PixelWidth
			img.Transform.OriginY -= 0.5 * t.PixelHeight
		}
	}
	if e, ok := m[tagGDALNoData]; ok {
		s, err := p.ascii(e)
		if err != nil {
			return fmt.Errorf("gdal nodata: %w", err)
		}
		v, err := parseNoData(s)
		if err != nil {
			return fmt.Errorf("gdal nodata %q: %w", s, ErrFormat)
		}
		img.NoData, img.HasNoData = v, true
		img.noData = roundToFormat(v, img.Format)
	}
	return nil
}

func parseNoData(s string) (float64, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	if strings.Contains(l, "nan") {
		return math.NaN(), nil
	}
	return strconv.ParseFloat(l, 64)
}

// roundToFormat converts v to the value it takes once stored as a sample of
// format f and read back as float64 (clamped for integers).
func roundToFormat(v float64, f SampleFormat) float64 {
	if math.IsNaN(v) {
		return v
	}
	switch f {
	case Float32:
		return float64(float32(v))
	case Float64:
		return v
	}
	return math.Round(v)
}

func (img *Image) parseGeoKeys(p *parser, e entry) error {
	if e.typ != typeShort {
		return fmt.Errorf("field type %d, want SHORT: %w", e.typ, ErrFormat)
	}
	k, err := p.uints(e)
	if err != nil {
		return err
	}
	if len(k) < 4 {
		return fmt.Errorf("%d values: %w", len(k), ErrFormat)
	}
	n := int(k[3])
	if len(k) < 4+4*n {
		return fmt.Errorf("%d keys declared in %d values: %w", n, len(k), ErrFormat)
	}
	img.PixelIsPoint = false
	var geographic, projected uint64
	for i := 0; i < n; i++ {
		id, loc, cnt, val := k[4+4*i], k[5+4*i], k[6+4*i], k[7+4*i]
		if loc != 0 || cnt != 1 {
			continue // value stored in a params tag: not one we need
		}
		switch id {
		case keyGTModelType:
			img.ModelType = ModelType(val)
		case keyGTRasterType:
			switch val {
			case rasterPixelIsArea:
			case rasterPixelIsPoint:
				img.PixelIsPoint = true
			default:
				return fmt.Errorf("raster type %d: %w", val, ErrFormat)
			}
		case keyGeographicType:
			geographic = val
		case keyProjectedCSType:
			projected = val
		}
	}
	switch {
	case img.ModelType == ModelProjected && projected != 0 && projected != userDefinedGeoKeyVal:
		img.EPSG = int(projected)
	case img.ModelType == ModelGeographic && geographic != 0 && geographic != userDefinedGeoKeyVal:
		img.EPSG = int(geographic)
	case img.ModelType == ModelUnknown && projected != 0 && projected != userDefinedGeoKeyVal:
		img.EPSG = int(projected)
	case img.ModelType == ModelUnknown && geographic != 0 && geographic != userDefinedGeoKeyVal:
		img.EPSG = int(geographic)
	}
	return nil
}

// IsNoData reports whether v (as returned by At or ReadWindow) equals the
// NoData value. NaN samples are no-data when NoData is NaN. It is false for
// every value when the file has no GDAL_NODATA tag.
func (img *Image) IsNoData(v float64) bool {
	if !img.HasNoData {
		return false
	}
	if math.IsNaN(img.noData) {
		return math.IsNaN(v)
	}
	return v == img.noData
}
