package terrain

import (
	"bytes"
	"errors"
	"math/bits"
	"os"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// voidMaskSeeds returns the real void-mask payloads of the embedded sample
// pack (S23W044 and S22W043, 1201×1201) and of the committed v4 golden
// (31×31), each with its grid and the count its index entry gives.
func voidMaskSeeds(tb testing.TB) []voidMaskSeed {
	tb.Helper()
	var out []voidMaskSeed
	for _, path := range []string{"../sample/rio.ltp", "testdata/v4-voids-crop.ltp"} {
		b, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		p, err := OpenBytes(b)
		if err != nil {
			tb.Fatal(err)
		}
		for _, e := range p.entries {
			if v := e.Void; v.Codec == VoidZstdBitmap {
				out = append(out, voidMaskSeed{payload: bytes.Clone(b[v.Offset : v.Offset+v.Length]), n: p.hdr.TileSamples(), count: v.Count})
			}
		}
		p.Close()
	}
	if len(out) < 3 {
		tb.Fatalf("%d real void masks, want the sample pack's 2 and the golden's 1", len(out))
	}
	return out
}

type voidMaskSeed struct {
	payload []byte
	n       int // tile samples per side
	count   uint32
}

// fuzzGrids are the tile sizes FuzzDecodeVoidMask decodes for (a byte of
// the input picks one): a tiny grid, the golden's crop, SRTM3.
var fuzzGrids = []int{5, 31, 1201}

// FuzzDecodeVoidMask feeds payloads straight to decodeVoidMask (FuzzOpen
// reaches it only behind the payload's CRC32C). Nothing may panic; an
// error matches ErrCorrupt; a mask that decodes is VoidMaskBytes(n) long,
// has exactly count set bits and zero padding, and encodes and decodes
// back to itself.
func FuzzDecodeVoidMask(f *testing.F) {
	for _, s := range voidMaskSeeds(f) {
		for g, n := range fuzzGrids {
			if n == s.n {
				f.Add(s.payload, uint8(g), s.count)
				f.Add(s.payload, uint8(g), s.count+1) // wrong count
			}
		}
	}
	zeros, err := zstd.NewWriter(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(zeros.EncodeAll(make([]byte, 1<<20), nil), uint8(2), uint32(0)) // 1 MiB of zeros for a 180 kB mask
	f.Add([]byte{}, uint8(0), uint32(0))
	enc, err := NewEncoder()
	if err != nil {
		f.Fatal(err)
	}
	decs := map[int]*decoder{}
	for _, n := range fuzzGrids {
		d, err := newDecoder(n)
		if err != nil {
			f.Fatal(err)
		}
		decs[n] = d
	}
	f.Cleanup(func() {
		for _, d := range decs {
			d.close()
		}
	})
	f.Fuzz(func(t *testing.T, payload []byte, grid uint8, count uint32) {
		n := fuzzGrids[int(grid)%len(fuzzGrids)]
		out, err := decs[n].decodeVoidMask(payload, n, count)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not match ErrCorrupt", err)
			}
			return
		}
		want := VoidMaskBytes(n)
		if len(out) != want {
			t.Fatalf("decoded %d bytes, want %d", len(out), want)
		}
		set := 0
		mask := make([]bool, n*n)
		for k := range mask {
			mask[k] = out[k>>3]&(1<<(k&7)) != 0
		}
		for _, b := range out {
			set += bits.OnesCount8(b)
		}
		if uint32(set) != count {
			t.Fatalf("%d set bits, count %d", set, count)
		}
		again, c := enc.EncodeVoidMask(nil, mask)
		back, err := decs[n].decodeVoidMask(again, n, uint32(c))
		if err != nil || !bytes.Equal(back, out) || uint32(c) != count {
			t.Fatalf("re-encoded mask decodes to a different mask (%v, count %d)", err, c)
		}
	})
}

// TestDecodeVoidMaskBounded: payloads that decompress to more than the
// mask, with the size declared in the frame, without it, or as a second
// frame after a mask-sized one, are corrupt, and decoding them allocates
// about the mask's size, not what they expand to (the height decoder
// would accept up to 2n² + 1 MiB).
func TestDecodeVoidMaskBounded(t *testing.T) {
	const n = 1201
	want := VoidMaskBytes(n)
	d, err := newDecoder(n)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	withSize, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 2*n*n) // 2.9 MB of zeros
	var stream bytes.Buffer    // the streaming writer declares no content size
	sw, err := zstd.NewWriter(&stream, zstd.WithSingleSegment(false))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sw.Write(big); err != nil {
		t.Fatal(err)
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	var h zstd.Header
	if err := h.Decode(stream.Bytes()); err != nil || h.HasFCS {
		t.Fatalf("stream header: %v, content size declared %v", err, h.HasFCS)
	}
	mask := withSize.EncodeAll(make([]byte, want), nil)
	cases := []struct {
		name    string
		payload []byte
	}{
		{"declared content size 2.9 MB", withSize.EncodeAll(big, nil)},
		{"no declared content size", stream.Bytes()},
		{"a second frame after the mask", append(bytes.Clone(mask), withSize.EncodeAll(big, nil)...)},
		{"one byte too many", withSize.EncodeAll(make([]byte, want+1), nil)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := d.decodeVoidMask(tc.payload, n, 0)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
			// The mask buffer, one zstd block beyond it and the decoder's
			// working state; the height decoder grew to the 2.9 MB.
			if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
				t.Fatalf("allocated %d bytes decoding a bomb for a %d-byte mask", got, want)
			}
		})
	}
	if out, err := d.decodeVoidMask(mask, n, 0); err != nil || len(out) != want {
		t.Fatalf("a mask-sized payload: %d bytes, %v", len(out), err)
	}
}
