package terrain

import (
	"bytes"
	"fmt"
	"math"
	"math/bits"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Encoder codes tile samples for a pack. It is safe for concurrent use and
// deterministic: the same samples and codec always give the same bytes
// (for the pinned github.com/klauspost/compress version).
type Encoder struct {
	raw  *zstd.Encoder // CodecZstdRaw: the best zstd level (slow, but v1 is the baseline)
	pred *zstd.Encoder // CodecPredictive: SpeedBetterCompression is as small as the best level on residual planes and ~15× faster
}

// NewEncoder returns an Encoder. Close releases it.
func NewEncoder() (*Encoder, error) {
	mk := func(level zstd.EncoderLevel) (*zstd.Encoder, error) {
		zw, err := zstd.NewWriter(nil,
			zstd.WithEncoderLevel(level),
			zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderCRC(false), // the pack index carries a CRC32C per tile
			zstd.WithSingleSegment(true),
			zstd.WithZeroFrames(true),
			zstd.WithLowerEncoderMem(false),
		)
		if err != nil {
			return nil, fmt.Errorf("new zstd encoder: %w", err)
		}
		return zw, nil
	}
	raw, err := mk(zstd.SpeedBestCompression)
	if err != nil {
		return nil, err
	}
	pred, err := mk(zstd.SpeedBetterCompression)
	if err != nil {
		raw.Close()
		return nil, err
	}
	return &Encoder{raw: raw, pred: pred}, nil
}

// Close releases the encoder's resources.
func (e *Encoder) Close() error {
	e.raw.Close()
	return e.pred.Close()
}

// Encode codes samples (row-major, north row first, n×n with n² ==
// len(samples)) with codec c and appends the payload to dst.
func (e *Encoder) Encode(dst []byte, samples []int16, c Codec) ([]byte, error) {
	var raw []byte
	zw := e.raw
	switch c {
	case CodecZstdRaw:
		raw = make([]byte, 2*len(samples))
		for i, v := range samples {
			le.PutUint16(raw[2*i:], uint16(v))
		}
	case CodecPredictive:
		n := isqrt(len(samples))
		if n*n != len(samples) {
			return nil, fmt.Errorf("encode tile: %d samples is not a square", len(samples))
		}
		raw = predictEncode(samples, n)
		zw = e.pred
	default:
		return nil, fmt.Errorf("encode tile: codec %s has no payload", c)
	}
	return zw.EncodeAll(raw, dst), nil
}

// EncodeClutter codes the land-cover classes of one tile (n×n class
// values 0…10, row-major, north row first) as a ClutterZstd payload
// appended to dst: one zstd frame of the class bytes, at zstd's best level
// (a forest-and-river 3″ tile of the real Amapá raster: 1.44 MB to 70 KB).
func (e *Encoder) EncodeClutter(dst []byte, classes []uint8) ([]byte, error) {
	for i, c := range classes {
		if int(c) >= ClutterClasses {
			return nil, fmt.Errorf("encode land cover: sample %d has class %d (want 0..%d)", i, c, ClutterClasses-1)
		}
	}
	return e.raw.EncodeAll(classes, dst), nil
}

// EncodeVoidMask codes the void mask of one tile (n×n flags, row-major,
// north row first; true marks a sample interpolated across a void) as a
// VoidZstdBitmap payload appended to dst: one zstd frame of the bitmap,
// one bit per sample, least significant bit first, at zstd's best level.
// It also returns the number of set flags.
func (e *Encoder) EncodeVoidMask(dst []byte, mask []bool) ([]byte, int) {
	bits, count := PackVoidMask(mask)
	return e.raw.EncodeAll(bits, dst), count
}

// PackVoidMask returns the bitmap of mask (bit k is bit k%8 of byte k/8)
// and the number of set flags.
func PackVoidMask(mask []bool) ([]byte, int) {
	bits := make([]byte, (len(mask)+7)/8)
	count := 0
	for k, v := range mask {
		if v {
			bits[k>>3] |= 1 << (k & 7)
			count++
		}
	}
	return bits, count
}

func isqrt(v int) int {
	n := int(math.Sqrt(float64(v)))
	for n*n > v {
		n--
	}
	for (n+1)*(n+1) <= v {
		n++
	}
	return n
}

// predictEncode returns the CodecPredictive content of an n×n tile: the
// residuals d = x - p of the planar predictor p = left + up - upleft (left
// only on the first row, up only on the first column, 0 for the first
// sample), all in wrapping int16 arithmetic, zig-zagged to uint16
// ((d << 1) ^ (d >> 15)) and stored as n² low bytes then n² high bytes.
func predictEncode(s []int16, n int) []byte {
	nn := n * n
	out := make([]byte, 2*nn)
	lo, hi := out[:nn], out[nn:]
	put := func(i int, pred int16) {
		d := s[i] - pred
		z := uint16(d<<1) ^ uint16(d>>15)
		lo[i], hi[i] = byte(z), byte(z>>8)
	}
	put(0, 0)
	for c := 1; c < n; c++ {
		put(c, s[c-1])
	}
	for r := 1; r < n; r++ {
		i := r * n
		put(i, s[i-n])
		for c := 1; c < n; c++ {
			i++
			put(i, s[i-1]+s[i-n]-s[i-n-1])
		}
	}
	return out
}

// predictDecode inverts predictEncode into out (n² samples). With the
// planar predictor x[r][c] - x[r-1][c] = x[r][c-1] - x[r-1][c-1] + d, so
// each row is the row above plus the running sum of its residuals (the
// first row: the running sum alone), one addition chain per row.
func predictDecode(raw []byte, out []int16, n int) {
	nn := n * n
	lo, hi := raw[:nn:nn], raw[nn:2*nn:2*nn]
	var zero []int16
	for r := 0; r < n; r++ {
		i := r * n
		row := out[i : i+n : i+n]
		l, h := lo[i:i+n:i+n], hi[i:i+n:i+n]
		up := zero
		if r > 0 {
			up = out[i-n : i : i]
		}
		var acc int16
		if r == 0 {
			for c := range row {
				z := uint16(l[c]) | uint16(h[c])<<8
				acc += int16(z>>1) ^ -int16(z&1)
				row[c] = acc
			}
			continue
		}
		up = up[:len(row)]
		if len(h) <= len(zeroRow) && bytes.Equal(h, zeroRow[:len(h)]) {
			// Common case: every residual of the row is in -128..127.
			l = l[:len(row)]
			for c := range row {
				z := int16(l[c])
				acc += (z >> 1) ^ -(z & 1)
				row[c] = up[c] + acc
			}
			continue
		}
		for c := range row {
			z := uint16(l[c]) | uint16(h[c])<<8
			acc += int16(z>>1) ^ -int16(z&1)
			row[c] = up[c] + acc
		}
	}
}

// decodeClutter turns a checked ClutterZstd payload into n×n classes,
// checking that every value is a class (0…10) and that the classes have
// the counts of the index entry.
func (d *decoder) decodeClutter(payload []byte, n int, counts *[ClutterClasses]uint32) ([]uint8, error) {
	want := n * n
	out, err := d.zr.DecodeAll(payload, make([]byte, 0, want))
	if err != nil {
		return nil, fmt.Errorf("zstd: %w: %w", err, ErrCorrupt)
	}
	if len(out) != want {
		return nil, corrupt("decoded %d land-cover bytes, want %d", len(out), want)
	}
	var got [256]uint32
	for _, c := range out {
		got[c]++
	}
	for c, v := range got {
		switch {
		case c >= ClutterClasses && v > 0:
			return nil, corrupt("%d land-cover samples have class %d", v, c)
		case c < ClutterClasses && v != counts[c]:
			return nil, corrupt("%d land-cover samples of class %d, index says %d", v, c, counts[c])
		}
	}
	return out, nil
}

// decodeVoidMask turns a checked VoidZstdBitmap payload into the bitmap of
// an n×n tile, checking its length, that the padding bits after the last
// sample are 0 and that it has exactly count set bits.
func (d *decoder) decodeVoidMask(payload []byte, n int, count uint32) ([]byte, error) {
	want := VoidMaskBytes(n)
	// d.zm stops at want bytes (its memory limit and dst's capacity), so a
	// payload claiming more never allocates more than about one zstd block
	// beyond the mask.
	out, err := d.zm.DecodeAll(payload, make([]byte, 0, want))
	if err != nil {
		return nil, fmt.Errorf("zstd: %w: %w", err, ErrCorrupt)
	}
	if len(out) != want {
		return nil, corrupt("decoded %d void-mask bytes, want %d", len(out), want)
	}
	if pad := n * n % 8; pad != 0 && out[want-1]>>pad != 0 {
		return nil, corrupt("void mask has padding bits set")
	}
	var set uint32
	for _, b := range out {
		set += uint32(bits.OnesCount8(b))
	}
	if set != count {
		return nil, corrupt("void mask has %d set bits, index says %d", set, count)
	}
	return out, nil
}

// zeroRow is compared with a row of the high-byte plane (read only).
var zeroRow = make([]byte, MaxSamplesPerDegree+1)

// decoder decodes tile payloads; safe for concurrent use.
type decoder struct {
	zr   *zstd.Decoder // heights and land cover: output up to a tile's int16 samples
	zm   *zstd.Decoder // void masks: output capped at VoidMaskBytes(n) (min 1 KiB memory)
	bufs sync.Pool     // *[]byte of decompressed payloads, reused
}

// newDecoder returns the decoder of a pack whose tiles have n×n samples.
func newDecoder(n int) (*decoder, error) {
	maxTileBytes := 2 * n * n
	zm, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(0),
		// zstd counts a window of at least 1 KiB against the limit even
		// for a smaller single-segment frame; the output itself is capped
		// at the destination's capacity, VoidMaskBytes(n).
		zstd.WithDecoderMaxMemory(uint64(max(VoidMaskBytes(n), zstd.MinWindowSize))),
		zstd.WithDecodeAllCapLimit(true),
		zstd.IgnoreChecksum(true),
	)
	if err != nil {
		return nil, fmt.Errorf("new zstd void-mask decoder: %w", err)
	}
	zr, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(0),
		zstd.WithDecoderMaxMemory(uint64(maxTileBytes)+1<<20),
		zstd.WithDecoderMaxWindow(uint64(maxTileBytes)+1<<20),
		zstd.IgnoreChecksum(true),
	)
	if err != nil {
		zm.Close()
		return nil, fmt.Errorf("new zstd decoder: %w", err)
	}
	return &decoder{zr: zr, zm: zm}, nil
}

func (d *decoder) close() {
	d.zr.Close()
	d.zm.Close()
}

// decode turns a checked payload into n×n samples.
func (d *decoder) decode(payload []byte, c Codec, n int) ([]int16, error) {
	want := 2 * n * n
	bp, _ := d.bufs.Get().(*[]byte)
	if bp == nil || cap(*bp) < want {
		b := make([]byte, 0, want)
		bp = &b
	}
	defer d.bufs.Put(bp)
	raw, err := d.zr.DecodeAll(payload, (*bp)[:0])
	if err != nil {
		return nil, fmt.Errorf("zstd: %w: %w", err, ErrCorrupt)
	}
	if len(raw) != want {
		return nil, corrupt("decoded %d bytes, want %d", len(raw), want)
	}
	out := make([]int16, n*n)
	switch c {
	case CodecZstdRaw:
		for i := range out {
			out[i] = int16(le.Uint16(raw[2*i:]))
		}
	case CodecPredictive:
		predictDecode(raw, out, n)
	default:
		return nil, corrupt("codec %s", c)
	}
	return out, nil
}
