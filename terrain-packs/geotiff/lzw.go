package geotiff

import (
	"fmt"
	"slices"
)

// TIFF LZW (TIFF 6.0 §13): MSB-first codes of 9 to 12 bits, Clear = 256,
// EndOfInformation = 257, and the "early change" rule: the code width grows
// one code before the table would overflow it. Go's compress/lzw does not
// implement early change, hence this decoder.
const (
	lzwClear    = 256
	lzwEOI      = 257
	lzwFirst    = 258
	lzwMaxCodes = 4096
)

// lzwDecode expands src into exactly want bytes; the output buffer starts at
// capacity capHint and grows only as data is decoded.
func lzwDecode(src []byte, want, capHint int) ([]byte, error) {
	if len(src) >= 2 && src[0] == 0 && src[1]&1 != 0 {
		return nil, fmt.Errorf("old-style (pre-TIFF 6.0, LSB-first) lzw: %w", ErrUnsupported)
	}
	var (
		prefix [lzwMaxCodes]uint16
		suffix [lzwMaxCodes]byte
		first  [lzwMaxCodes]byte
		length [lzwMaxCodes]uint16
	)
	for i := 0; i < 256; i++ {
		suffix[i], first[i], length[i] = byte(i), byte(i), 1
	}
	out := make([]byte, 0, capHint)
	var (
		acc   uint32 // bit accumulator
		nacc  uint   // bits in acc
		pos   int    // next byte of src
		width uint   = 9
		next         = lzwFirst
		prev         = -1 // previous code, -1 right after Clear
	)
	for len(out) < want {
		for nacc < width {
			if pos >= len(src) {
				return nil, fmt.Errorf("lzw: %d of %d bytes: %v: %w", len(out), want, errShort, ErrFormat)
			}
			acc = acc<<8 | uint32(src[pos])
			pos++
			nacc += 8
		}
		code := int(acc>>(nacc-width)) & (1<<width - 1)
		nacc -= width
		switch {
		case code == lzwClear:
			width, next, prev = 9, lzwFirst, -1
			continue
		case code == lzwEOI:
			return nil, fmt.Errorf("lzw: end of information after %d of %d bytes: %w", len(out), want, ErrFormat)
		case prev == -1:
			if code > 255 {
				return nil, fmt.Errorf("lzw: code %d after clear: %w", code, ErrFormat)
			}
			out = append(out, byte(code))
			prev = code
			continue
		}
		var firstByte byte
		switch {
		case code < next:
			firstByte = first[code]
			out = appendCode(out, code, &prefix, &suffix, &length)
		case code == next && next < lzwMaxCodes:
			// KwKwK: the string of prev followed by its own first byte.
			firstByte = first[prev]
			out = appendCode(out, prev, &prefix, &suffix, &length)
			out = append(out, firstByte)
		default:
			return nil, fmt.Errorf("lzw: code %d beyond table of %d: %w", code, next, ErrFormat)
		}
		if next < lzwMaxCodes {
			prefix[next] = uint16(prev)
			suffix[next] = firstByte
			first[next] = first[prev]
			length[next] = length[prev] + 1
			next++
			if next >= 1<<width-1 && width < 12 {
				width++
			}
		}
		prev = code
	}
	return out[:want], nil
}

// appendCode appends the string of code to out.
func appendCode(out []byte, code int, prefix *[lzwMaxCodes]uint16, suffix *[lzwMaxCodes]byte, length *[lzwMaxCodes]uint16) []byte {
	n := int(length[code])
	start := len(out)
	out = slices.Grow(out, n)[:start+n]
	for i := start + n - 1; i >= start; i-- {
		out[i] = suffix[code]
		code = int(prefix[code])
	}
	return out
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
