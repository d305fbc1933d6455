package report

import (
	_ "embed"
	"fmt"
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

// encoder maps text to the simple8 encoding and records whether a
// character had no code.
type encoder struct {
	codes  map[rune]byte // simple8 code of each non-ASCII character
	missed bool          // a character had no code (shown as '?')
}

// newEncoder reads simple8Map.
func newEncoder() (*encoder, error) {
	e := &encoder{codes: make(map[rune]byte, 128)}
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

// encode returns s in the simple8 encoding. ASCII and control characters
// (line breaks of multi-line cells) keep their byte; a character without a
// code becomes '?' and sets missed.
func (e *encoder) encode(s string) string {
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
			b = append(b, '?')
		}
	}
	return string(b)
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
