package report

import (
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"codeberg.org/go-pdf/fpdf"
)

// dejaVuSans is DejaVu Sans 2.37 (fonts/PROVENANCE.md), the regular face of
// every text of a report in Unicode mode.
//
//go:embed fonts/DejaVuSans.ttf
var dejaVuSans []byte

// dejaVuSansBold is DejaVu Sans Bold 2.37, for headings and key figures.
//
//go:embed fonts/DejaVuSans-Bold.ttf
var dejaVuSansBold []byte

// simple8Map is the 8-bit encoding of the simple-font mode
// (fonts/simple8.map, one line a code: "!XX U+YYYY glyphname"; .notdef
// for an unused code): ASCII and Latin-1 at their own codes, and at
// 0x7F–0x9F the typographic marks of Windows-1252 (… – — • ‘ ’ “ ” € ™ ‰
// Œ œ Š š Ÿ Ž ž) and the arrows, signs and Greek letters of the reports
// and of the engines' warnings (→ ← ↔ − ≤ ≥ ≈ ≠ Δ λ ∞ √ Ω π μ).
//
//go:embed fonts/simple8.map
var simple8Map string

// unicodeCoverage lists the characters both Unicode-mode faces (DejaVu
// Sans and Sans Bold) have a glyph for, as ranges of code points, one
// "XXXX-YYYY" a line (fonts/unicode-coverage.txt; TestUnicodeCoverage
// regenerates and checks it). Only the Basic Multilingual Plane: fpdf's
// UTF-8 fonts index their glyph widths by a 16-bit code and panic on any
// character above U+FFFF (an emoji) when the font is written.
//
//go:embed fonts/unicode-coverage.txt
var unicodeCoverage string

// The simple-font definitions: fpdf TrueType font definitions (JSON) of
// the fonts/*-simple8.ttf subsets of DejaVu Sans (the glyphs of
// simple8.map only, without hinting) and those subsets zlib-compressed,
// as fpdf embeds them. TestSimpleFonts generates and checks them.
var (
	//go:embed fonts/DejaVuSans-simple8.json
	dejaVuSansSimple8JSON []byte
	//go:embed fonts/DejaVuSans-simple8.z
	dejaVuSansSimple8Z []byte
	//go:embed fonts/DejaVuSans-Bold-simple8.json
	dejaVuSansBoldSimple8JSON []byte
	//go:embed fonts/DejaVuSans-Bold-simple8.z
	dejaVuSansBoldSimple8Z []byte
)

// Font modes of a document.
//
// A report is first rendered in simple mode: the fonts are the
// simple8 subsets as 8-bit TrueType fonts, whose definitions and
// compressed files are ready-made, so a document costs no font parsing,
// subsetting or compression (most of the time of a Unicode-mode report).
// When a text holds a character outside simple8.map, the document is
// rendered again in Unicode mode: the full DejaVu fonts through fpdf's
// UTF-8 support, subset to the characters used. The glyph widths of both
// modes are the same numbers (TestSimpleFontWidths), so the layout and
// the extracted text are the same; only the font objects differ.
type fontMode int

const (
	simpleFonts fontMode = iota
	unicodeFonts
)

// substitute replaces, in Unicode mode, every character the fonts lack:
// U+FFFD REPLACEMENT CHARACTER, which both faces draw (a diamond with a
// question mark; TestUnicodeCoverage checks it is covered). It is visible
// where the character was, pdftotext reads it back as U+FFFD, and it
// cannot be mistaken for a '?' of the text. The document then carries a
// note naming the characters replaced (noteLacked).
const substitute = '\uFFFD'

// encoder maps text to what the document's fonts draw. In simple mode it
// encodes to simple8 (codes); a character without a code becomes '?',
// sets missed (the document is rendered again in Unicode mode) and is
// recorded in outside. In Unicode mode (cover) a character the fonts lack
// becomes substitute and is recorded in lacked; the others are unchanged.
type encoder struct {
	codes   map[rune]byte // simple mode: simple8 code of each non-ASCII character
	missed  bool          // simple mode: a character had no code (shown as '?')
	outside map[rune]bool // simple mode: the characters without a code
	cover   coverage      // Unicode mode: the characters the fonts draw
	lacked  map[rune]bool // Unicode mode: the characters replaced by substitute
}

// coverage is a set of characters as sorted, disjoint, inclusive ranges.
type coverage [][2]rune

// parseCoverage reads unicodeCoverage.
func parseCoverage(s string) (coverage, error) {
	var c coverage
	for n, line := range strings.Split(strings.TrimSpace(s), "\n") {
		lo, hi, ok := strings.Cut(strings.TrimSpace(line), "-")
		a, err1 := strconv.ParseUint(lo, 16, 32)
		b, err2 := strconv.ParseUint(hi, 16, 32)
		if !ok || err1 != nil || err2 != nil || a > b || b > 0xFFFF || len(c) > 0 && rune(a) <= c[len(c)-1][1] {
			return nil, fmt.Errorf("unicode-coverage.txt line %d: want ascending \"XXXX-YYYY\" within the BMP, got %q", n+1, line)
		}
		c = append(c, [2]rune{rune(a), rune(b)})
	}
	return c, nil
}

// has reports whether r is in c.
func (c coverage) has(r rune) bool {
	i, _ := slices.BinarySearchFunc(c, r, func(rg [2]rune, r rune) int {
		switch {
		case rg[1] < r:
			return -1
		case rg[0] > r:
			return 1
		}
		return 0
	})
	return i < len(c) && c[i][0] <= r && r <= c[i][1]
}

// newUnicodeEncoder reads unicodeCoverage.
func newUnicodeEncoder() (*encoder, error) {
	c, err := parseCoverage(unicodeCoverage)
	if err != nil {
		return nil, err
	}
	return &encoder{cover: c, lacked: map[rune]bool{}}, nil
}

// newEncoder reads simple8Map: the simple-mode encoder.
func newEncoder() (*encoder, error) {
	e := &encoder{codes: make(map[rune]byte, 128), outside: map[rune]bool{}}
	for n, line := range strings.Split(strings.TrimSpace(simple8Map), "\n") {
		code, r, name, err := parseMapLine(line)
		if err != nil {
			return nil, fmt.Errorf("simple8.map line %d: %w", n+1, err)
		}
		if name != ".notdef" && r >= 0x80 {
			e.codes[r] = code
		}
	}
	return e, nil
}

// parseMapLine parses "!XX U+YYYY glyphname".
func parseMapLine(line string) (code byte, r rune, name string, err error) {
	f := strings.Fields(line)
	if len(f) != 3 || !strings.HasPrefix(f[0], "!") || !strings.HasPrefix(f[1], "U+") {
		return 0, 0, "", fmt.Errorf("want \"!XX U+YYYY name\", got %q", line)
	}
	c, err := strconv.ParseUint(f[0][1:], 16, 8)
	if err != nil {
		return 0, 0, "", fmt.Errorf("code %q: %w", f[0], err)
	}
	u, err := strconv.ParseUint(f[1][2:], 16, 32)
	if err != nil || !utf8.ValidRune(rune(u)) {
		return 0, 0, "", fmt.Errorf("character %q is not a Unicode scalar value", f[1])
	}
	return byte(c), rune(u), f[2], nil
}

// encode returns s as the document's fonts take it: in simple mode, in
// the simple8 encoding (ASCII and control characters, such as the line
// breaks of multi-line cells, keep their byte; a character without a code
// becomes '?' and sets missed); in Unicode mode, as UTF-8 with each
// character the fonts lack replaced by substitute (lacked). Every text
// drawn or measured goes through it (doc.tr): it is the one place that
// keeps a character fpdf cannot draw, or panics on, out of the PDF.
func (e *encoder) encode(s string) string {
	if e.codes == nil {
		return e.unicode(s)
	}
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x7F {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch c, ok := e.codes[r]; {
		case r < 0x7F:
			b = append(b, byte(r))
		case ok:
			b = append(b, c)
		default:
			e.missed = true
			e.outside[r] = true
			b = append(b, '?')
		}
	}
	return string(b)
}

// unicode is encode in Unicode mode. Control characters (line breaks)
// pass; invalid UTF-8 becomes substitute, as the fonts draw it; a line
// with right-to-left letters is put in visual order (bidi.go).
func (e *encoder) unicode(s string) string {
	ok := true
	for _, r := range s {
		if r >= utf8.RuneSelf && (r == utf8.RuneError || !e.cover.has(r)) {
			ok = false
			break
		}
	}
	if ok {
		return visual(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r >= utf8.RuneSelf && !e.cover.has(r) {
			e.lacked[r] = true
			r = substitute
		}
		b.WriteRune(r)
	}
	return visual(b.String())
}

// lackedIn returns the characters of set that the fonts of e (Unicode
// mode) lack, ascending.
func (e *encoder) lackedIn(set map[rune]bool) []rune {
	var out []rune
	for r := range set {
		if !e.cover.has(r) {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

// bmpOnly returns s with every character above U+FFFF replaced by
// substitute: fpdf's UTF-16 encoder of the document information (title,
// author) mangles them. No font draws these strings, so nothing else is
// replaced.
func bmpOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r > 0xFFFF {
			return substitute
		}
		return r
	}, s)
}

// addFonts adds the regular and bold faces of family to p in mode m.
func addFonts(p *fpdf.Fpdf, m fontMode) {
	if m == unicodeFonts {
		p.AddUTF8FontFromBytes(family, "", dejaVuSans)
		p.AddUTF8FontFromBytes(family, bold, dejaVuSansBold)
		return
	}
	p.AddFontFromBytes(family, "", dejaVuSansSimple8JSON, dejaVuSansSimple8Z)
	p.AddFontFromBytes(family, bold, dejaVuSansBoldSimple8JSON, dejaVuSansBoldSimple8Z)
}
