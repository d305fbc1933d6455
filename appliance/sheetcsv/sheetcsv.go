// Package sheetcsv reads the CSV that spreadsheets write, as Brazilian
// users send it: a UTF-8 byte-order mark, Windows-1252 text (what Excel
// pt-BR saves), ';' or tab separators, decimal commas ("-22,9519",
// "1.234,5") and headers in any case, with accents and punctuation
// ("LATITUDE", "Frequência (MHz)"). The batch upload (appliance/batch) and
// the drive-test upload (appliance/observations) read their files through
// it, so that both accept the same files.
//
// # Basics
//
// Open wraps a reader (OpenBytes a file in memory): it drops the byte-order mark, decides the encoding
// from the first sniff bytes (UTF-8 unless they are not valid UTF-8, then
// Windows-1252 for the whole file, converted to UTF-8 as it is read) and
// the separator from the header line, and returns an encoding/csv reader
// with variable fields per record and lazy quotes. ParseNumber reads a
// number with either decimal mark; NormHeader folds a header for matching.
//
// # Caveats
//
// A file that is valid UTF-8 in its first sniff bytes and Windows-1252
// after them keeps the later bytes as they are (OpenBytes decides on the
// whole file). The separator is the most
// frequent of ',', ';' and tab outside quotes on the header line (ties:
// tab, then ';'), so a one-column file is read as comma-separated.
package sheetcsv

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Format is what Open found in a file.
type Format struct {
	Separator rune   // ',', ';' or '\t'
	Encoding  string // "UTF-8" or "Windows-1252" (converted to UTF-8)
}

// Encodings.
const (
	UTF8        = "UTF-8"
	Windows1252 = "Windows-1252"
)

// Open returns a CSV reader of r and the format it detected from the first
// sniff bytes (at least the header line should fit; a larger sniff only
// decides the encoding on more text). The reader has FieldsPerRecord -1
// and LazyQuotes set. Read errors of r come back from the csv reader.
func Open(r io.Reader, sniff int) (*csv.Reader, Format, error) {
	if sniff < 4096 {
		sniff = 4096
	}
	br := bufio.NewReaderSize(r, sniff)
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
	}
	head, err := br.Peek(sniff)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, Format{}, err
	}
	f := Format{Encoding: UTF8, Separator: DetectSeparator(head)}
	var src io.Reader = br
	if !validPrefix(head, len(head) < sniff) {
		f.Encoding = Windows1252
		src = &cp1252Reader{r: br}
	}
	return newReader(src, f.Separator), f, nil
}

// OpenBytes is Open of a whole file held in memory: the encoding is
// decided on all of it, without copying it when it is UTF-8.
func OpenBytes(raw []byte) (*csv.Reader, Format) {
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	f := Format{Encoding: UTF8, Separator: DetectSeparator(raw)}
	if !utf8.Valid(raw) {
		raw, f.Encoding = Windows1252ToUTF8(raw), Windows1252
	}
	return newReader(bytes.NewReader(raw), f.Separator), f
}

func newReader(r io.Reader, sep rune) *csv.Reader {
	cr := csv.NewReader(r)
	cr.Comma = sep
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	return cr
}

// validPrefix reports whether b is valid UTF-8; when b is not the whole
// file (complete false), an incomplete sequence cut at its end is allowed.
func validPrefix(b []byte, complete bool) bool {
	if utf8.Valid(b) {
		return true
	}
	if complete {
		return false
	}
	for cut := 1; cut <= utf8.UTFMax-1 && cut < len(b); cut++ {
		if utf8.Valid(b[:len(b)-cut]) && !utf8.FullRune(b[len(b)-cut:]) {
			return true
		}
	}
	return false
}

// DetectSeparator returns the separator of the header line of raw: the
// most frequent of ',', ';' and tab outside quotes (ties: tab, then ';').
func DetectSeparator(raw []byte) rune {
	n := map[byte]int{}
	inQuote := false
	for _, c := range raw {
		if c == '"' {
			inQuote = !inQuote
			continue
		}
		if inQuote {
			continue
		}
		if c == '\n' || c == '\r' {
			break
		}
		n[c]++
	}
	best := byte(',')
	for _, c := range []byte{';', '\t'} {
		if n[c] > 0 && n[c] >= n[best] {
			best = c
		}
	}
	return rune(best)
}

// ParseNumber parses a decimal number: "." decimals, or a "," decimal
// (pt-BR "-22,9519": a bare field of a ';' or tab file, a quoted field of
// a ',' file). With both marks, the last one is the decimal mark and the
// other a thousands separator ("1.234,5", "1,234.5"). Surrounding white
// space is ignored. NaN and infinities are refused.
func ParseNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	c, d := strings.LastIndexByte(s, ','), strings.LastIndexByte(s, '.')
	switch {
	case c >= 0 && d >= 0 && c > d:
		s = strings.ReplaceAll(strings.ReplaceAll(s, ".", ""), ",", ".")
	case c >= 0 && d >= 0:
		s = strings.ReplaceAll(s, ",", "")
	case c >= 0:
		if strings.Count(s, ",") > 1 {
			return 0, false
		}
		s = strings.Replace(s, ",", ".", 1)
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false
	}
	return x, true
}

// NormHeader folds a header for matching: lower case, accents removed,
// everything but ASCII letters and digits dropped, so "Frequência (MHz)",
// "frequencia_mhz" and "FREQUENCIA MHZ" are the same header.
func NormHeader(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch r {
		case 'á', 'à', 'â', 'ã', 'ä':
			r = 'a'
		case 'é', 'è', 'ê', 'ë':
			r = 'e'
		case 'í', 'ì', 'î', 'ï':
			r = 'i'
		case 'ó', 'ò', 'ô', 'õ', 'ö':
			r = 'o'
		case 'ú', 'ù', 'û', 'ü':
			r = 'u'
		case 'ç':
			r = 'c'
		case 'ñ':
			r = 'n'
		}
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// cp1252 returns the map of the bytes 0x80..0x9F of Windows-1252 to
// Unicode (0 where undefined: kept as the C1 control of Latin-1).
func cp1252() [32]rune {
	return [32]rune{
		0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
		0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
	}
}

// Windows1252ToUTF8 converts Windows-1252 (a superset of Latin-1 for
// printable characters, what Excel pt-BR writes) to UTF-8.
func Windows1252ToUTF8(b []byte) []byte {
	return appendCP1252(make([]byte, 0, len(b)+len(b)/8), b)
}

func appendCP1252(out, b []byte) []byte {
	table := cp1252()
	for _, c := range b {
		switch {
		case c < 0x80:
			out = append(out, c)
		case c < 0xA0 && table[c-0x80] != 0:
			out = utf8.AppendRune(out, table[c-0x80])
		default:
			out = utf8.AppendRune(out, rune(c))
		}
	}
	return out
}

// cp1252Reader converts a Windows-1252 stream to UTF-8.
type cp1252Reader struct {
	r   io.Reader
	in  []byte
	out []byte // converted, not yet returned
}

func (c *cp1252Reader) Read(p []byte) (int, error) {
	for len(c.out) == 0 {
		if cap(c.in) == 0 {
			c.in = make([]byte, 16<<10)
		}
		n, err := c.r.Read(c.in[:cap(c.in)])
		c.out = appendCP1252(c.out[:0], c.in[:n])
		if n == 0 && err != nil {
			return 0, err
		}
	}
	n := copy(p, c.out)
	c.out = c.out[n:]
	return n, nil
}
