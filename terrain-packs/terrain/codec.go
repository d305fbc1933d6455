package terrain

import (
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// Encoder codes tile samples for a pack. It is safe for concurrent use and
// deterministic: the same samples and codec always give the same bytes
// (for the pinned github.com/klauspost/compress version).
type Encoder struct {
	zw *zstd.Encoder
}

// NewEncoder returns an Encoder. Close releases it.
func NewEncoder() (*Encoder, error) {
	zw, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstd.SpeedBestCompression),
		zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false), // the pack index carries a CRC32C per tile
		zstd.WithSingleSegment(true),
		zstd.WithZeroFrames(true),
		zstd.WithLowerEncoderMem(false),
	)
	if err != nil {
		return nil, fmt.Errorf("new zstd encoder: %w", err)
	}
	return &Encoder{zw: zw}, nil
}

// Close releases the encoder's resources.
func (e *Encoder) Close() error { return e.zw.Close() }

// Encode codes samples (row-major, north row first, n×n with n² ==
// len(samples)) with codec c and appends the payload to dst.
func (e *Encoder) Encode(dst []byte, samples []int16, c Codec) ([]byte, error) {
	var raw []byte
	switch c {
	case CodecZstdRaw:
		raw = make([]byte, 2*len(samples))
		for i, v := range samples {
			le.PutUint16(raw[2*i:], uint16(v))
		}
	default:
		return nil, fmt.Errorf("encode tile: codec %s has no payload", c)
	}
	return e.zw.EncodeAll(raw, dst), nil
}

// decoder decodes tile payloads; safe for concurrent use.
type decoder struct {
	zr *zstd.Decoder
}

func newDecoder(maxTileBytes int) (*decoder, error) {
	zr, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(0),
		zstd.WithDecoderMaxMemory(uint64(maxTileBytes)+1<<20),
		zstd.WithDecoderMaxWindow(uint64(maxTileBytes)+1<<20),
		zstd.IgnoreChecksum(true),
	)
	if err != nil {
		return nil, fmt.Errorf("new zstd decoder: %w", err)
	}
	return &decoder{zr: zr}, nil
}

func (d *decoder) close() { d.zr.Close() }

// decode turns a checked payload into n×n samples.
func (d *decoder) decode(payload []byte, c Codec, n int) ([]int16, error) {
	want := 2 * n * n
	raw, err := d.zr.DecodeAll(payload, make([]byte, 0, want))
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
	default:
		return nil, corrupt("codec %s", c)
	}
	return out, nil
}
