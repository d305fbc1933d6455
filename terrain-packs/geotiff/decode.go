package geotiff

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

// blockRows returns the number of decoded rows of block idx: tiles are
// always full (padded); the last strip holds only the remaining rows.
func (img *Image) blockRows(idx int) int {
	if img.Tiled {
		return img.BlockHeight
	}
	first := (idx / img.across) * img.BlockHeight
	return min(img.BlockHeight, img.Height-first)
}

// decodeBlock reads, decompresses and un-predicts block idx. The result
// holds the samples in little-endian byte order, rows of BlockWidth samples.
func (img *Image) decodeBlock(idx int) ([]byte, error) {
	rows := img.blockRows(idx)
	want := img.BlockWidth * rows * img.Format.Bytes()
	off, n := img.offsets[idx], img.counts[idx]
	if off == 0 && n == 0 {
		// GDAL SPARSE_OK: absent block, reads as NoData (or 0).
		return img.sparseBlock(want), nil
	}
	if off > uint64(img.size) || n > uint64(img.size)-off {
		return nil, fmt.Errorf("block %d: %d bytes at offset %d run past end of file (%d bytes): %w", idx, n, off, img.size, ErrFormat)
	}
	if img.Compression == CompressionNone {
		if n < uint64(want) {
			return nil, fmt.Errorf("block %d: %d bytes stored, %d needed: %w", idx, n, want, ErrFormat)
		}
		n = uint64(want)
	}
	src := make([]byte, n)
	if _, err := img.r.ReadAt(src, int64(off)); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, fmt.Errorf("block %d: read: %w", idx, err)
	}
	out, err := img.decompress(src, want)
	if err != nil {
		return nil, fmt.Errorf("block %d: %s: %w", idx, img.Compression, err)
	}
	img.unpredict(out, rows)
	return out, nil
}

func (img *Image) sparseBlock(want int) []byte {
	out := make([]byte, want)
	if !img.HasNoData || img.noData == 0 {
		return out
	}
	var one [8]byte
	v := img.noData
	switch img.Format {
	case Uint8:
		one[0] = uint8(v)
	case Int8:
		one[0] = uint8(int8(v))
	case Uint16:
		binary.LittleEndian.PutUint16(one[:], uint16(v))
	case Int16:
		binary.LittleEndian.PutUint16(one[:], uint16(int16(v)))
	case Uint32:
		binary.LittleEndian.PutUint32(one[:], uint32(v))
	case Int32:
		binary.LittleEndian.PutUint32(one[:], uint32(int32(v)))
	case Float32:
		binary.LittleEndian.PutUint32(one[:], math.Float32bits(float32(v)))
	case Float64:
		binary.LittleEndian.PutUint64(one[:], math.Float64bits(v))
	}
	bs := img.Format.Bytes()
	for i := 0; i < len(out); i += bs {
		copy(out[i:i+bs], one[:bs])
	}
	return out
}

// initialCap bounds the first allocation for a compressed block so that a
// tiny corrupt block cannot make the decoder reserve MaxBlockBytes: output
// then grows only as real data is decoded.
func initialCap(want, srcLen int) int {
	return min(want, max(1<<16, 16*srcLen))
}

var errShort = errors.New("compressed data ends before the block is complete")

// decompress expands src into exactly want bytes.
func (img *Image) decompress(src []byte, want int) ([]byte, error) {
	switch img.Compression {
	case CompressionNone:
		return src, nil
	case CompressionLZW:
		return lzwDecode(src, want, initialCap(want, len(src)))
	case CompressionPackBits:
		return packBitsDecode(src, want, initialCap(want, len(src)))
	case CompressionDeflate, CompressionDeflateOld:
		return img.inflate(src, want)
	case CompressionZSTD:
		return zstdDecode(src, want)
	}
	return nil, fmt.Errorf("compression %d: %w", img.Compression, ErrUnsupported)
}

// zlibState is a reusable zlib reader.
type zlibState struct {
	br bytes.Reader
	zr io.ReadCloser
}

func (img *Image) inflate(src []byte, want int) ([]byte, error) {
	st, _ := img.zpool.Get().(*zlibState)
	if st == nil {
		st = &zlibState{}
	}
	defer img.zpool.Put(st)
	st.br.Reset(src)
	if st.zr == nil {
		zr, err := zlib.NewReader(&st.br)
		if err != nil {
			return nil, fmt.Errorf("zlib header: %v: %w", err, ErrFormat)
		}
		st.zr = zr
	} else if err := st.zr.(zlib.Resetter).Reset(&st.br, nil); err != nil {
		return nil, fmt.Errorf("zlib header: %v: %w", err, ErrFormat)
	}
	out := make([]byte, initialCap(want, len(src)))
	n, stalls := 0, 0
	for n < want {
		if n == len(out) {
			grown := make([]byte, min(want, 2*len(out)))
			copy(grown, out)
			out = grown
		}
		k, err := st.zr.Read(out[n:])
		n += k
		if k == 0 && err == nil {
			if stalls++; stalls > 100 {
				return nil, fmt.Errorf("inflate: no progress: %w", ErrFormat)
			}
		}
		if err != nil {
			// io.EOF ends the stream; other errors are fatal unless every
			// sample is already there (the zlib checksum is only checked
			// at the very end of the stream).
			if err == io.EOF || n == want {
				break
			}
			return nil, fmt.Errorf("inflate: %v: %w", err, ErrFormat)
		}
	}
	out = out[:n]
	if len(out) < want {
		return nil, fmt.Errorf("inflate: %d of %d bytes: %v: %w", len(out), want, errShort, ErrFormat)
	}
	return out, nil
}

// zstdMaxWindow is the largest ZSTD window accepted, bytes: enough for
// libzstd levels up to 20 (windowLog 25); "ultra" levels 21-22 may declare
// larger windows and are rejected.
const zstdMaxWindow = 32 << 20

func zstdDecode(src []byte, want int) ([]byte, error) {
	// The frame may declare a window larger than the block, which is
	// harmless: DecodeAll writes into out and keeps no separate window.
	// What is bounded is the declared content size (checked here, before
	// DecodeAll would allocate it) and the decoded size.
	var h zstd.Header
	if err := h.Decode(src); err != nil {
		return nil, fmt.Errorf("zstd header: %v: %w", err, ErrFormat)
	}
	if h.HasFCS && h.FrameContentSize > uint64(want)+(1<<20) {
		return nil, fmt.Errorf("zstd: frame of %d bytes for a block of %d: %w", h.FrameContentSize, want, ErrFormat)
	}
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(uint64(max(2*want, zstdMaxWindow))), zstd.WithDecoderMaxWindow(zstdMaxWindow))
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	defer d.Close()
	out, err := d.DecodeAll(src, make([]byte, 0, initialCap(want, len(src))))
	if err != nil && len(out) < want {
		return nil, fmt.Errorf("zstd: %v: %w", err, ErrFormat)
	}
	if len(out) < want {
		return nil, fmt.Errorf("zstd: %d of %d bytes: %v: %w", len(out), want, errShort, ErrFormat)
	}
	return out[:want], nil
}

// unpredict converts the decoded block to little-endian samples and undoes
// the predictor, in place.
func (img *Image) unpredict(b []byte, rows int) {
	bs := img.Format.Bytes()
	w := img.BlockWidth
	if img.Predictor == 3 {
		tmp := make([]byte, w*bs)
		for r := 0; r < rows; r++ {
			row := b[r*w*bs : (r+1)*w*bs]
			for i := 1; i < len(row); i++ {
				row[i] += row[i-1]
			}
			copy(tmp, row)
			// Byte plane k holds byte k (most significant first) of
			// every sample; rebuild little-endian samples.
			for c := 0; c < w; c++ {
				for k := 0; k < bs; k++ {
					row[c*bs+k] = tmp[(bs-1-k)*w+c]
				}
			}
		}
		return
	}
	if img.BigEndian && bs > 1 {
		swapBytes(b, bs)
	}
	if img.Predictor != 2 {
		return
	}
	le := binary.LittleEndian
	for r := 0; r < rows; r++ {
		row := b[r*w*bs : (r+1)*w*bs]
		switch bs {
		case 1:
			for i := 1; i < len(row); i++ {
				row[i] += row[i-1]
			}
		case 2:
			for i := 2; i < len(row); i += 2 {
				le.PutUint16(row[i:], le.Uint16(row[i:])+le.Uint16(row[i-2:]))
			}
		case 4:
			for i := 4; i < len(row); i += 4 {
				le.PutUint32(row[i:], le.Uint32(row[i:])+le.Uint32(row[i-4:]))
			}
		case 8:
			for i := 8; i < len(row); i += 8 {
				le.PutUint64(row[i:], le.Uint64(row[i:])+le.Uint64(row[i-8:]))
			}
		}
	}
}

func swapBytes(b []byte, bs int) {
	switch bs {
	case 2:
		for i := 0; i+1 < len(b); i += 2 {
			b[i], b[i+1] = b[i+1], b[i]
		}
	case 4:
		for i := 0; i+3 < len(b); i += 4 {
			b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
		}
	case 8:
		for i := 0; i+7 < len(b); i += 8 {
			binary.LittleEndian.PutUint64(b[i:], binary.BigEndian.Uint64(b[i:]))
		}
	}
}

// sample returns sample i of a decoded block as float64.
func (img *Image) sample(b []byte, i int) float64 {
	le := binary.LittleEndian
	switch img.Format {
	case Uint8:
		return float64(b[i])
	case Int8:
		return float64(int8(b[i]))
	case Uint16:
		return float64(le.Uint16(b[2*i:]))
	case Int16:
		return float64(int16(le.Uint16(b[2*i:])))
	case Uint32:
		return float64(le.Uint32(b[4*i:]))
	case Int32:
		return float64(int32(le.Uint32(b[4*i:])))
	case Float32:
		return float64(math.Float32frombits(le.Uint32(b[4*i:])))
	default:
		return math.Float64frombits(le.Uint64(b[8*i:]))
	}
}

// convertRow writes n samples of b starting at sample i into dst.
func (img *Image) convertRow(dst []float64, b []byte, i, n int) {
	le := binary.LittleEndian
	switch img.Format {
	case Uint8:
		for k, v := range b[i : i+n] {
			dst[k] = float64(v)
		}
	case Int8:
		for k, v := range b[i : i+n] {
			dst[k] = float64(int8(v))
		}
	case Uint16:
		s := b[2*i : 2*(i+n)]
		for k := range n {
			dst[k] = float64(le.Uint16(s[2*k:]))
		}
	case Int16:
		s := b[2*i : 2*(i+n)]
		for k := range n {
			dst[k] = float64(int16(le.Uint16(s[2*k:])))
		}
	case Uint32:
		s := b[4*i : 4*(i+n)]
		for k := range n {
			dst[k] = float64(le.Uint32(s[4*k:]))
		}
	case Int32:
		s := b[4*i : 4*(i+n)]
		for k := range n {
			dst[k] = float64(int32(le.Uint32(s[4*k:])))
		}
	case Float32:
		s := b[4*i : 4*(i+n)]
		for k := range n {
			dst[k] = float64(math.Float32frombits(le.Uint32(s[4*k:])))
		}
	default:
		s := b[8*i : 8*(i+n)]
		for k := range n {
			dst[k] = math.Float64frombits(le.Uint64(s[8*k:]))
		}
	}
}

// blockOf returns the block index holding pixel (col, row) and the sample
// index inside the block.
func (img *Image) blockOf(col, row int) (idx, i int) {
	bx, by := col/img.BlockWidth, row/img.BlockHeight
	return by*img.across + bx, (row-by*img.BlockHeight)*img.BlockWidth + (col - bx*img.BlockWidth)
}

// At returns the sample at pixel (col, row), col from the left (0 ..
// Width-1) and row from the top (0 .. Height-1), as float64 in the raster's
// own units (metres for DEMs, class codes for land cover). NoData samples are
// returned as stored; test them with IsNoData.
func (img *Image) At(col, row int) (float64, error) {
	if col < 0 || row < 0 || col >= img.Width || row >= img.Height {
		return 0, fmt.Errorf("read pixel (%d, %d) of %d×%d: %w", col, row, img.Width, img.Height, ErrOutOfBounds)
	}
	idx, i := img.blockOf(col, row)
	b, err := img.cache.get(img, idx)
	if err != nil {
		return 0, fmt.Errorf("read pixel (%d, %d): %w", col, row, err)
	}
	return img.sample(b, i), nil
}

// ReadWindow decodes the w×h window whose top-left pixel is (col, row) into
// dst (row-major, len(dst) >= w*h) and returns dst[:w*h]. When dst is too
// small a new slice is allocated.
func (img *Image) ReadWindow(col, row, w, h int, dst []float64) ([]float64, error) {
	if w <= 0 || h <= 0 || col < 0 || row < 0 || col > img.Width-w || row > img.Height-h {
		return nil, fmt.Errorf("read window (%d, %d) %d×%d of %d×%d: %w", col, row, w, h, img.Width, img.Height, ErrOutOfBounds)
	}
	if len(dst) < w*h {
		dst = make([]float64, w*h)
	}
	dst = dst[:w*h]
	bw, bh := img.BlockWidth, img.BlockHeight
	for by := row / bh; by <= (row+h-1)/bh; by++ {
		r0, r1 := max(row, by*bh), min(row+h, (by+1)*bh)
		for bx := col / bw; bx <= (col+w-1)/bw; bx++ {
			c0, c1 := max(col, bx*bw), min(col+w, (bx+1)*bw)
			b, err := img.cache.get(img, by*img.across+bx)
			if err != nil {
				return nil, fmt.Errorf("read window (%d, %d) %d×%d: %w", col, row, w, h, err)
			}
			for r := r0; r < r1; r++ {
				i := (r-by*bh)*bw + (c0 - bx*bw)
				img.convertRow(dst[(r-row)*w+(c0-col):], b, i, c1-c0)
			}
		}
	}
	return dst, nil
}

// Cursor is a single-goroutine reader over an Image that remembers the last
// few decoded blocks, so neighbouring At calls skip the shared cache lock.
// Create one per goroutine with NewCursor; it is not safe for concurrent use.
type Cursor struct {
	img  *Image
	idx  [cursorSlots]int
	data [cursorSlots][]byte
}

const cursorSlots = 16

// NewCursor returns a Cursor over img.
func (img *Image) NewCursor() *Cursor {
	c := &Cursor{img: img}
	for i := range c.idx {
		c.idx[i] = -1
	}
	return c
}

// At is Image.At through the cursor's block memo.
func (c *Cursor) At(col, row int) (float64, error) {
	img := c.img
	if col < 0 || row < 0 || col >= img.Width || row >= img.Height {
		return 0, fmt.Errorf("read pixel (%d, %d) of %d×%d: %w", col, row, img.Width, img.Height, ErrOutOfBounds)
	}
	idx, i := img.blockOf(col, row)
	s := idx % cursorSlots
	if c.idx[s] != idx {
		b, err := img.cache.get(img, idx)
		if err != nil {
			return 0, fmt.Errorf("read pixel (%d, %d): %w", col, row, err)
		}
		c.idx[s], c.data[s] = idx, b
	}
	return img.sample(c.data[s], i), nil
}
