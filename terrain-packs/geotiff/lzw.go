package geotiff

import (
	"fmt"
	"slices"
)

// TIFF LZW (TIFF 6.0 §13): MSB-first codes of 9 to 12 bits, Clear = 256,
// EndOfInformation = 257, and the "early change" rule: the code width grows
// one code before the table would overflow it. Go's compress/lzw does not
// implement early change, hence this decoder.
//
// Why not golang.org/x/image/tiff/lzw (which does; issue 23 measured it,
// 2026-11-29, v0.48.0, on the 69 LZW strips of testdata/fortaleza-srtm.tif
// with a throwaway benchmark): both give the same bytes for every strip;
// time per full decode was within the noise of a loaded 2-core machine
// (this decoder 28.8-38.5 ms, x/image 30.0-40.5 ms, 3 runs each at load
// ~30), but x/image allocated 3.7 times the memory (2.07 MB against
// 0.56 MB per decode, 207 allocations against 69): it is an io.Reader
// with its own buffers and string table, while this decoder writes each
// code's string straight into the block as one copy. This decoder also
// starts its output at capHint (a tiny corrupt block cannot reserve the
// whole block size), refuses old-style LZW by name (x/image would report
// a corrupt stream) and reports a short block as errShort; the fuzz target
// (FuzzOpen) covers it.
const (
	lzwClear    = 256
	lzwEOI      = 257
	lzwFirst    = 258
	lzwMaxCodes = 4096
)

// lzwDecode expands src into exactly want bytes; the output buffer starts at
// capacity capHint and grows only as data is decoded. Every table string is
// a substring of the output already produced, so the table stores its
// position and length and decoding a code is one copy.
func lzwDecode(src []byte, want, capHint int) ([]byte, error) {
	if len(src) >= 2 && src[0] == 0 && src[1]&1 != 0 {
		return nil, fmt.Errorf("old-style (pre-TIFF 6.0, LSB-first) lzw: %w", ErrUnsupported)
	}
	var (
		start  [lzwMaxCodes]int32  // output position of the string of code
		length [lzwMaxCodes]uint16 // its length; 1 for literals
	)
	out := make([]byte, 0, capHint)
	var (
		acc       uint64 // bit accumulator
		nacc      uint   // bits in acc
		pos       int    // next byte of src
		width     uint   = 9
		next             = lzwFirst
		prev             = -1 // previous code, -1 right after Clear
		prevStart int         // output position of prev's string
	)
	for len(out) < want {
		if nacc < width {
			for nacc <= 56 && pos < len(src) {
				acc = acc<<8 | uint64(src[pos])
				pos++
				nacc += 8
			}
			if nacc < width {
				return nil, fmt.Errorf("lzw: %d of %d bytes: %v: %w", len(out), want, errShort, ErrFormat)
			}
		}
		code := int(acc>>(nacc-width)) & (1<<width - 1)
		nacc -= width
		curStart := len(out)
		switch {
		case code == lzwClear:
			width, next, prev = 9, lzwFirst, -1
			continue
		case code == lzwEOI:
			return nil, fmt.Errorf("lzw: end of information after %d of %d bytes: %w", len(out), want, ErrFormat)
		case code < 256:
			out = append(out, byte(code))
		case prev == -1:
			return nil, fmt.Errorf("lzw: code %d after clear: %w", code, ErrFormat)
		case code < next:
			s, n := int(start[code]), int(length[code])
			out = slices.Grow(out, n)
			out = append(out, out[s:s+n]...)
		case code == next && next < lzwMaxCodes:
			// KwKwK: the string of prev followed by its own first byte.
			n := lengthOf(prev, &length)
			out = slices.Grow(out, n+1)
			out = append(out, out[prevStart:prevStart+n]...)
			out = append(out, out[prevStart])
		default:
			return nil, fmt.Errorf("lzw: code %d beyond table of %d: %w", code, next, ErrFormat)
		}
		if prev != -1 && next < lzwMaxCodes {
			// New entry: prev's string plus the first byte of this one,
			// which sits right after prev's string in the output.
			start[next] = int32(prevStart)
			length[next] = uint16(lengthOf(prev, &length) + 1)
			next++
			if next >= 1<<width-1 && width < 12 {
				width++
			}
		}
		prev, prevStart = code, curStart
	}
	return out[:want], nil
}

func lengthOf(code int, length *[lzwMaxCodes]uint16) int {
	if code < 256 {
		return 1
	}
	return int(length[code])
}

// packBitsDecode expands Apple PackBits data into exactly want bytes.
func packBitsDecode(src []byte, want, capHint int) ([]byte, error) {
	out := make([]byte, 0, capHint)
	for i := 0; len(out) < want; {
		if i >= len(src) {
			return nil, fmt.Errorf("packbits: %d of %d bytes: %v: %w", len(out), want, errShort, ErrFormat)
		}
		n := int(int8(src[i]))
		i++
		switch {
		case n >= 0:
			if i+n+1 > len(src) {
				return nil, fmt.Errorf("packbits: literal run of %d past end of data: %w", n+1, ErrFormat)
			}
			out = append(out, src[i:i+n+1]...)
			i += n + 1
		case n > -128:
			if i >= len(src) {
				return nil, fmt.Errorf("packbits: repeat run past end of data: %w", ErrFormat)
			}
			b := src[i]
			i++
			for k := 0; k < 1-n; k++ {
				out = append(out, b)
			}
		}
	}
	return out[:want], nil
}
