package catalog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// maxLineBytes is the longest input line a parser accepts; a longer line is
// rejected (and skipped) rather than buffered without bound.
const maxLineBytes = 1 << 20

// lineReader yields the physical lines of a text stream with their 1-based
// numbers. It strips a leading UTF-8 byte-order mark, the line terminator
// (LF or CRLF) and converts lines that are not valid UTF-8 from Latin-1, the
// other encoding Anatel exports circulate in.
type lineReader struct {
	br   *bufio.Reader
	line int
	buf  []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// errLineTooLong marks a line over maxLineBytes; the reader has skipped it.
var errLineTooLong = errors.New("line too long")

// each calls row for every line of lr that is not blank, with its number;
// an over-long line counts in res.Rows and is rejected ("line longer than
// 1 MiB"); a read error stops it, as "read <what> line N: ...". It is the
// line loop of the line-oriented parsers (Anatel ERBs, MOSAICO
// licenciamento, OpenCelliD); row counts its own rows in res.Rows.
func (lr *lineReader) each(res *Result, what string, row func(line string, n int)) error {
	for {
		line, n, err := lr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if errors.Is(err, errLineTooLong) {
			res.Rows++
			res.Rejects = append(res.Rejects, Reject{n, "line longer than 1 MiB"})
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s line %d: %w", what, n+1, err)
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		row(line, n)
	}
}

// next returns the next line and its number. It returns io.EOF after the last
// line, errLineTooLong for an over-long line (already skipped) and any other
// read error as is.
func (lr *lineReader) next() (string, int, error) {
	lr.buf = lr.buf[:0]
	tooLong := false
	for {
		frag, err := lr.br.ReadSlice('\n')
		if !tooLong {
			if len(lr.buf)+len(frag) > maxLineBytes {
				tooLong = true
				lr.buf = lr.buf[:0]
			} else {
				lr.buf = append(lr.buf, frag...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return "", lr.line, err
		}
		if errors.Is(err, io.EOF) && len(frag) == 0 && len(lr.buf) == 0 && !tooLong {
			return "", lr.line, io.EOF
		}
		lr.line++
		if tooLong {
			return "", lr.line, errLineTooLong
		}
		b := lr.buf
		if lr.line == 1 {
			b = trimBOM(b)
		}
		if n := len(b); n > 0 && b[n-1] == '\n' {
			b = b[:n-1]
		}
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
		return decodeText(b), lr.line, nil
	}
}

func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return b[3:]
	}
	return b
}

// decodeText returns b as a string, reading it as Latin-1 when it is not
// valid UTF-8.
func decodeText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/4)
	for _, c := range b {
		sb.WriteRune(rune(c))
	}
	return sb.String()
}

// parseNumber parses a decimal number as the Anatel exports write it:
// surrounding spaces allowed, a decimal comma accepted when decimalComma is
// set, no thousands separators, no hexadecimal, no NaN or infinities.
// Empty input returns ok=false and err=nil (the field is absent).
func parseNumber(s string, decimalComma bool) (v float64, ok bool, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return math.NaN(), false, nil
	}
	if decimalComma {
		if strings.Count(s, ",") == 1 && !strings.Contains(s, ".") {
			s = strings.Replace(s, ",", ".", 1)
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && c != '.' && c != '-' && c != '+' && c != 'e' && c != 'E' {
			return math.NaN(), false, fmt.Errorf("%q is not a number", s)
		}
	}
	if strings.Count(s, ".") > 1 {
		return math.NaN(), false, fmt.Errorf("%q is not a number (thousands separators, Excel damage?)", s)
	}
	v, err = strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return math.NaN(), false, fmt.Errorf("%q is not a number", s)
	}
	return v, true, nil
}

// Brazil's bounding box used to range-check coordinates, in degrees. It
// contains every municipality seat with a margin (seats span lat
// -33.69…4.60, lon -72.90…-32.41; the oceanic islands lie inside too).
const (
	BrazilMinLat = -34.0 // degrees
	BrazilMaxLat = 6.0   // degrees
	BrazilMinLon = -74.0 // degrees
	BrazilMaxLon = -28.0 // degrees
)

// InBrazil reports whether the position lies in Brazil's bounding box.
func InBrazil(lat, lon float64) bool {
	return lat >= BrazilMinLat && lat <= BrazilMaxLat && lon >= BrazilMinLon && lon <= BrazilMaxLon
}

// parseCoords parses a latitude/longitude pair. Both empty means absent
// (ok=false, err=nil); one empty, a malformed number or a position outside
// Brazil is an error with a reason fit for a Reject.
func parseCoords(latS, lonS string, decimalComma bool) (lat, lon float64, ok bool, err error) {
	lat, okLat, err := parseNumber(latS, decimalComma)
	if err != nil {
		return 0, 0, false, fmt.Errorf("latitude %w", err)
	}
	lon, okLon, err := parseNumber(lonS, decimalComma)
	if err != nil {
		return 0, 0, false, fmt.Errorf("longitude %w", err)
	}
	switch {
	case !okLat && !okLon:
		return math.NaN(), math.NaN(), false, nil
	case !okLat:
		return 0, 0, false, errors.New("latitude missing while longitude is given")
	case !okLon:
		return 0, 0, false, errors.New("longitude missing while latitude is given")
	}
	if lat < BrazilMinLat || lat > BrazilMaxLat {
		return 0, 0, false, fmt.Errorf("latitude %v outside Brazil (%v…%v)", lat, BrazilMinLat, BrazilMaxLat)
	}
	if lon < BrazilMinLon || lon > BrazilMaxLon {
		return 0, 0, false, fmt.Errorf("longitude %v outside Brazil (%v…%v)", lon, BrazilMinLon, BrazilMaxLon)
	}
	return lat, lon, true, nil
}

// stationKey validates a regulator station number and returns it without
// surrounding spaces and leading zeros.
func stationKey(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errors.New("station number missing")
	}
	if len(s) > 20 {
		return "", fmt.Errorf("station number %q is too long", s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", fmt.Errorf("station number %q is not numeric", s)
		}
	}
	s = strings.TrimLeft(s, "0")
	if s == "" {
		s = "0"
	}
	return s, nil
}

// parseDate reads the two date layouts seen in MOSAICO exports:
// "dd/mm/yyyy" and "yyyy-mm-dd" (optionally followed by a time). It returns
// epoch seconds at 00:00 UTC.
func parseDate(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if len(s) > 10 {
		s = s[:10]
	}
	for _, layout := range []string{"2006-01-02", "02/01/2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Unix(), nil
		}
	}
	return 0, fmt.Errorf("date %q is neither dd/mm/yyyy nor yyyy-mm-dd", s)
}

// foldKey folds s for accent- and case-insensitive comparison: Portuguese
// diacritics removed, lower case, every run of non-alphanumerics collapsed to
// one space, trimmed. "Olho-d'Água" and "OLHO D AGUA" give the same key.
func foldKey(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	space := false
	for _, r := range s {
		r = foldRune(unicode.ToLower(r))
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && sb.Len() > 0 {
				sb.WriteByte(' ')
			}
			space = false
			sb.WriteRune(r)
			continue
		}
		space = true
	}
	return sb.String()
}

func foldRune(r rune) rune {
	switch r {
	case 'á', 'à', 'â', 'ã', 'ä', 'å':
		return 'a'
	case 'é', 'è', 'ê', 'ë':
		return 'e'
	case 'í', 'ì', 'î', 'ï':
		return 'i'
	case 'ó', 'ò', 'ô', 'õ', 'ö':
		return 'o'
	case 'ú', 'ù', 'û', 'ü':
		return 'u'
	case 'ç':
		return 'c'
	case 'ñ':
		return 'n'
	case 'ý', 'ÿ':
		return 'y'
	}
	return r
}

// tidySpaces trims s and collapses inner runs of white space to one space.
func tidySpaces(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// joinAddress joins the non-empty address parts with ", ", trimming the
// spaces (runs collapse to one) and trailing separators the registry
// exports carry ("RUA DR ALVES VALENÇA, S/N, " -> "RUA DR ALVES VALENÇA, S/N").
func joinAddress(parts ...string) string {
	var out []string
	for _, p := range parts {
		p = strings.Trim(strings.Join(strings.Fields(p), " "), ",;- ")
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, ", ")
}

// capacityHint estimates how many rows r holds from its length when it
// reports one (bytes.Reader, strings.Reader, a file via Stat), so parsers can
// size their result once: growing a slice of pointer-holding stations
// copies it through the GC's write barriers at every doubling, which cost
// more than the parsing itself on a national file. bytesPerRow is the
// smallest plausible row of the format; the hint is capped.
func capacityHint(r io.Reader, bytesPerRow int) int {
	var n int64
	switch v := r.(type) {
	case interface{ Len() int }:
		n = int64(v.Len())
	case interface{ Stat() (os.FileInfo, error) }:
		if st, err := v.Stat(); err == nil {
			n = st.Size()
		}
	}
	const maxHint = 2_000_000
	if n <= 0 || bytesPerRow <= 0 {
		return 0
	}
	return int(min(n/int64(bytesPerRow)+1, maxHint))
}
