package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"codeberg.org/go-pdf/fpdf"
)

// coverageOf returns the ranges of the BMP characters from U+0020 that
// both faces map to a glyph (fpdf.TtfParse reads the cmap as fpdf's
// UTF-8 fonts do), as fonts/unicode-coverage.txt writes them.
func coverageOf(t *testing.T, paths ...string) string {
	t.Helper()
	count := map[uint16]int{}
	for _, path := range paths {
		ttf, err := fpdf.TtfParse(path)
		if err != nil {
			t.Fatal(err)
		}
		for c, gid := range ttf.Chars {
			if gid != 0 && c >= 0x20 {
				count[c]++
			}
		}
	}
	var rs []int
	for c, n := range count {
		if n == len(paths) {
			rs = append(rs, int(c))
		}
	}
	slices.Sort(rs)
	var b strings.Builder
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 {
			j++
		}
		fmt.Fprintf(&b, "%04X-%04X\n", rs[i], rs[j])
		i = j + 1
	}
	return b.String()
}

// TestUnicodeCoverage checks fonts/unicode-coverage.txt against the
// Unicode-mode faces, or rewrites it under -update:
//
//	go test ./appliance/report/ -run TestUnicodeCoverage -update
func TestUnicodeCoverage(t *testing.T) {
	want := coverageOf(t, "fonts/DejaVuSans.ttf", "fonts/DejaVuSans-Bold.ttf")
	if *update {
		if err := os.WriteFile("fonts/unicode-coverage.txt", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if unicodeCoverage != want && !*update {
		t.Fatal("fonts/unicode-coverage.txt does not match the fonts; run with -update")
	}
	c, err := parseCoverage(want)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []rune{' ', 'A', 'é', 'Ж', 'א', 'ب', '\u0301', substitute} {
		if !c.has(r) {
			t.Errorf("%U %q is not covered", r, r)
		}
	}
	for _, r := range []rune{0x1F600, 0x4E2D, 0xFFFF, 0x10000, 0x1F, -1} {
		if c.has(r) {
			t.Errorf("%U is covered", r)
		}
	}
}

// TestEveryCoveredCharacterRenders: a Unicode-mode document with every
// covered character, in both faces, renders and is written (fpdf neither
// errs nor panics), and the encoder replaces none of them.
func TestEveryCoveredCharacterRenders(t *testing.T) {
	d, err := newDoc(Options{Created: created}, nil, "coverage", "coverage", unicodeFonts)
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, rg := range d.enc.cover {
		for r := rg[0]; r <= rg[1]; r++ {
			all.WriteRune(r)
		}
	}
	p := d.pdf
	p.AddPage()
	for _, style := range []string{"", bold} {
		p.SetFont(family, style, 8)
		p.MultiCell(bodyW, 4, d.tr(all.String()), "", "L", false)
	}
	if len(d.enc.lacked) != 0 {
		t.Fatalf("covered characters replaced: %v", d.enc.lackedIn(d.enc.lacked))
	}
	var b bytes.Buffer
	if err := d.output(&b); err != nil {
		t.Fatal(err)
	}
}

// TestVisual: right-to-left runs of a left-to-right line are put in the
// order of the page; numbers inside them keep their digits' order; marks
// stay on their base; left-to-right text is untouched.
func TestVisual(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"latin", "São José 123", "São José 123"},
		{"hebrew word", "שלום", "םולש"},
		{"hebrew in latin", "Torre שלום עולם Norte", "Torre םלוע םולש Norte"},
		{"number in hebrew", "שלום 123", "123 םולש"},
		{"number after latin", "abc 123 שלום", "abc 123 םולש"},
		{"arabic with brackets", "برج (شمال)", "(لامش) جرب"},
		{"arabic mark stays on its base", "بَب", "ببَ"},
		{"two runs", "مرحبا x שלום", "ابحرم x םולש"},
		{"hebrew in brackets after latin", "Torre (שלום)", "Torre (םולש)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := visual(c.in); got != c.want {
				t.Fatalf("visual(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestIssue20_EveryUnicodeStringRenders: texts with characters the fonts
// lack (emoji, CJK), right-to-left scripts, combining marks and an
// unpaired surrogate sent as JSON render in a link report and a batch
// summary without a panic; pdftotext reads the drawable text back in
// reading order, each missing character as U+FFFD, and the document says
// how many characters it could not draw. Before issue 20, fpdf panicked
// in generateCIDFontMap on any character above U+FFFF, and CJK was drawn
// as invisible glyphs without a word.
func TestIssue20_EveryUnicodeStringRenders(t *testing.T) {
	var surrogate string
	if err := json.Unmarshal([]byte(`"Op \ud800 Sul"`), &surrogate); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, text string
		want       []string // in the extracted text
		note       string   // the note's count and code points; "" for none
	}{
		{"emoji", "Torre 😀 Norte", []string{"Torre \uFFFD Norte"}, "1 character of this document could not be drawn with its fonts and is shown as the replacement character (U+FFFD): U+1F600."},
		{"CJK", "中国移动", []string{"\uFFFD\uFFFD\uFFFD\uFFFD"}, "4 characters of this document could not be drawn with its fonts and are shown as the replacement character (U+FFFD): U+4E2D, U+52A8, U+56FD, U+79FB."},
		{"Hebrew", "שלום עולם", []string{"שלום עולם"}, ""},
		{"Arabic", "مرحبا", []string{"مرحبا"}, ""},
		{"combining marks", "Sa\u0303o Jose\u0301", []string{"Sa\u0303o Jose\u0301|São José"}, ""},
		{"unpaired surrogate from JSON", surrogate, []string{"Op \uFFFD Sul"}, ""},
		{"all at once", "😀 中 שלום " + surrogate + " 🚀", []string{"שלום"}, "3 characters of this document could not be drawn with its fonts and are shown as the replacement character (U+FFFD): U+4E2D, U+1F600, U+1F680."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, lang := range []Language{English, Portuguese} {
				opt := Options{Language: lang, Created: created, Branding: Branding{Name: c.text, Footer: c.text}}
				in := sampleInput(t)
				tw := *in.Candidate.Tower
				tw.Operator, tw.Provenance = c.text, c.text
				in.Candidate.Tower = &tw
				sum := sampleSummary()
				sum.TenantName, sum.Provenance = c.text, []string{c.text}
				sum.Rows[0].ReceiverID, sum.Rows[0].Reason = c.text, c.text
				for doc, pdf := range map[string][]byte{"link report": render(t, in, opt), "summary": renderSummary(t, sum, opt)} {
					txt := pdfText(t, pdf)
					for _, w := range c.want {
						found := false
						for _, alt := range strings.Split(w, "|") {
							found = found || strings.Contains(txt, alt)
						}
						if !found {
							t.Errorf("%s %s: extracted text lacks %q", lang, doc, w)
						}
					}
					note := c.note
					if note != "" && lang == Portuguese {
						note = "" // checked in English; pt-BR says the same in its words:
						if !strings.Contains(txt, "não puderam ser desenhados") && !strings.Contains(txt, "não pôde ser desenhado") {
							t.Errorf("%s %s: no note of the characters replaced", lang, doc)
						}
					}
					if note != "" && !strings.Contains(txt, note) {
						t.Errorf("%s %s: extracted text lacks the note %q", lang, doc, note)
					}
					if c.note == "" && (strings.Contains(txt, "could not be drawn") || strings.Contains(txt, "desenhad")) {
						t.Errorf("%s %s: a note although every character was drawn", lang, doc)
					}
					if !strings.Contains(txt, Disclaimer) {
						t.Errorf("%s %s: the disclaimer is lost", lang, doc)
					}
				}
			}
		})
	}
}
