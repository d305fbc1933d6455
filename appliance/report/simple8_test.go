package report

import (
	"bytes"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"codeberg.org/go-pdf/fpdf"
)

// simpleFontDef is the part of fpdf's font definition (the JSON that
// fpdf.MakeFont writes and Fpdf.AddFontFromBytes reads) that a TrueType
// font with an 8-bit encoding uses.
type simpleFontDef struct {
	Tp           string
	Name         string
	Desc         fpdf.FontDescType
	Up, Ut       int
	Cw           []int
	Enc          string
	Diff         string
	File         string
	OriginalSize int
}

// subsetTag marks the font name of the subsets (PDF 32000-1 9.6.4: six
// capital letters and "+").
const subsetTag = "LKPLAN+"

// round is fpdf's rounding of font units (half up).
func round(f float64) int {
	if f < 0 {
		return -int(-f + 0.5)
	}
	return int(f + 0.5)
}

// makeSimpleFont builds the fpdf definition and compressed file of the
// subset ttfPath in the simple8 encoding, with fpdf.MakeFont's metrics
// (fpdf.TtfParse, widths in thousandths of an em rounded half up, which
// is also how fpdf's UTF-8 fonts compute them).
func makeSimpleFont(t *testing.T, ttfPath string) (def []byte, z []byte) {
	t.Helper()
	ttf, err := fpdf.TtfParse(ttfPath)
	if err != nil {
		t.Fatal(err)
	}
	if !ttf.Embeddable {
		t.Fatalf("%s: the licence flags forbid embedding", ttfPath)
	}
	data, err := os.ReadFile(ttfPath)
	if err != nil {
		t.Fatal(err)
	}
	k := 1000 / float64(ttf.UnitsPerEm)
	d := simpleFontDef{Tp: "TrueType", Name: subsetTag + ttf.PostScriptName, Enc: "simple8",
		File: strings.TrimSuffix(filepath.Base(ttfPath), ".ttf") + ".z", OriginalSize: len(data)}
	d.Desc = fpdf.FontDescType{
		Ascent: round(k * float64(ttf.TypoAscender)), Descent: round(k * float64(ttf.TypoDescender)),
		CapHeight: round(k * float64(ttf.CapHeight)), Flags: fpdf.FontFlagNonsymbolic,
		ItalicAngle: int(ttf.ItalicAngle), StemV: 70, MissingWidth: round(k * float64(ttf.Widths[0])),
	}
	d.Desc.FontBBox.Xmin, d.Desc.FontBBox.Ymin = round(k*float64(ttf.Xmin)), round(k*float64(ttf.Ymin))
	d.Desc.FontBBox.Xmax, d.Desc.FontBBox.Ymax = round(k*float64(ttf.Xmax)), round(k*float64(ttf.Ymax))
	if d.Desc.CapHeight == 0 {
		d.Desc.CapHeight = d.Desc.Ascent
	}
	if ttf.Bold {
		d.Desc.StemV = 120
	}
	if ttf.IsFixedPitch {
		d.Desc.Flags |= fpdf.FontFlagFixedPitch
	}
	d.Up, d.Ut = round(k*float64(ttf.UnderlinePosition)), round(k*float64(ttf.UnderlineThickness))
	d.Cw = make([]int, 256)
	var diff strings.Builder
	for n, line := range strings.Split(strings.TrimSpace(simple8Map), "\n") {
		code, r, name, err := parseMapLine(line)
		if err != nil || int(code) != n {
			t.Fatalf("simple8.map line %d: code %d, %v", n+1, code, err)
		}
		d.Cw[code] = d.Desc.MissingWidth
		if name == ".notdef" {
			continue
		}
		gid, ok := ttf.Chars[uint16(r)]
		if !ok || r > 0xFFFF {
			t.Fatalf("%s has no glyph for %U (%s, code %#02x)", ttfPath, r, name, code)
		}
		d.Cw[code] = round(k * float64(ttf.Widths[gid]))
		// Codes 0x7F–0x9F differ from WinAnsiEncoding, the base encoding;
		// ASCII and 0xA0–0xFF are WinAnsi's (Latin-1) characters.
		switch {
		case code >= 0x7F && code <= 0x9F:
			if diff.Len() == 0 {
				fmt.Fprintf(&diff, "%d", code)
			}
			diff.WriteString(" /" + name)
		case rune(code) != r:
			t.Fatalf("simple8.map: code %#02x must be %U (WinAnsi), got %U", code, rune(code), r)
		}
	}
	d.Diff = diff.String()
	def, err = json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var zb bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&zb, zlib.BestCompression)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return def, zb.Bytes()
}

// TestSimpleFonts checks the committed simple-font definitions and
// compressed files against the subsets and simple8.map, or rewrites them
// under -update (after fonts/make-simple8.sh):
//
//	go test ./appliance/report/ -run TestSimpleFonts -update
func TestSimpleFonts(t *testing.T) {
	faces := []struct {
		name    string
		def, zf []byte
	}{
		{"DejaVuSans-simple8", dejaVuSansSimple8JSON, dejaVuSansSimple8Z},
		{"DejaVuSans-Bold-simple8", dejaVuSansBoldSimple8JSON, dejaVuSansBoldSimple8Z},
	}
	for _, f := range faces {
		t.Run(f.name, func(t *testing.T) {
			ttfPath := filepath.Join("fonts", f.name+".ttf")
			def, z := makeSimpleFont(t, ttfPath)
			if *update {
				if err := os.WriteFile(filepath.Join("fonts", f.name+".json"), def, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join("fonts", f.name+".z"), z, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !bytes.Equal(def, f.def) {
				t.Errorf("fonts/%s.json is not the definition of %s (rerun with -update)", f.name, ttfPath)
			}
			// The compressed bytes depend on the zlib writer; what counts
			// is that they inflate to the subset.
			zr, err := zlib.NewReader(bytes.NewReader(f.zf))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(ttfPath)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("fonts/%s.z does not inflate to %s (rerun with -update)", f.name, ttfPath)
			}
		})
	}
}

// TestSimpleFontWidths: every character of simple8 has the same width, in
// both faces, in simple mode (the subset, 8-bit) and in Unicode mode (the
// full DejaVu file, fpdf's UTF-8 metrics), so the two modes lay a report
// out alike; a character outside simple8 sets missed.
func TestSimpleFontWidths(t *testing.T) {
	simple, err := newDoc(Options{Created: created}, nil, "t", "t", simpleFonts)
	if err != nil {
		t.Fatal(err)
	}
	uni, err := newDoc(Options{Created: created}, nil, "t", "t", unicodeFonts)
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(simple8Map), "\n") {
		_, r, name, err := parseMapLine(line)
		if err != nil {
			t.Fatal(err)
		}
		if name != ".notdef" {
			all.WriteRune(r)
		}
	}
	if n := len([]rune(all.String())); n != 95+33+96 {
		t.Fatalf("simple8 has %d characters, want 224", n)
	}
	for _, style := range []string{"", bold} {
		simple.pdf.SetFont(family, style, 10)
		uni.pdf.SetFont(family, style, 10)
		for _, r := range all.String() {
			s := string(r)
			if got, want := simple.pdf.GetStringSymbolWidth(simple.tr(s)), uni.pdf.GetStringSymbolWidth(s); got != want {
				t.Errorf("style %q: %U is %d units wide in simple mode, %d in Unicode mode", style, r, got, want)
			}
		}
		if got, want := simple.width(all.String()), uni.width(all.String()); got != want {
			t.Errorf("style %q: the whole set is %g mm wide in simple mode, %g in Unicode mode", style, got, want)
		}
	}
	if simple.missed() {
		t.Fatal("a simple8 character was counted as missing")
	}
	if got := simple.tr("Ж"); got != "?" || !simple.missed() {
		t.Errorf("a Cyrillic letter gave %q and missed %v, want \"?\" and true", got, simple.missed())
	}
}

// realDataFiles are the tower, operator and place files the appliance
// ships or imports in its tests (the embedded samples of the Anatel and
// OpenCelliD exports, the IBGE municipality and state names, the operator
// table): the names a report prints come from such files.
var realDataFiles = []string{
	"../sampledata/anatel_erbs_sample.csv",
	"../sampledata/opencellid_724_sample.csv",
	"../catalog/data/municipios.csv",
	"../catalog/data/estados.csv",
	"../catalog/data/operators_mcc724.csv",
	"../catalog/testdata/anatel_estacoes_licenciadas_smp_sample.csv",
	"../catalog/testdata/anatel_mosaico_smp_sample.csv",
}

// reportStrings returns every fixed text of the reports in both languages
// (the texts fields, the disclaimer) and every field (between ',' and ';')
// of realDataFiles that holds a non-ASCII character, once each, cleaned
// as the report cleans input.
func reportStrings(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, lang := range []Language{English, Portuguese} {
		v := reflect.ValueOf(lang.words()).Elem()
		for i := range v.NumField() {
			if f := v.Field(i); f.Kind() == reflect.String && f.String() != "" {
				out = append(out, f.String())
			}
		}
	}
	out = append(out, Disclaimer)
	seen := map[string]bool{}
	for _, path := range realDataFiles {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(b) {
			t.Fatalf("%s is not UTF-8", path)
		}
		fields := strings.FieldsFunc(strings.TrimPrefix(string(b), "\uFEFF"), func(r rune) bool { return r == '\n' || r == ';' || r == ',' })
		for _, f := range fields {
			f = clean(f)
			if !seen[f] && strings.ContainsFunc(f, func(r rune) bool { return r >= utf8.RuneSelf }) {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// TestSimpleFontCoverage: every string a report prints from its own texts
// (English and pt-BR) and every name of the real data files is in
// simple8, and survives a round trip through a simple-font PDF: pdftotext
// gives back every one of them, character for character.
func TestSimpleFontCoverage(t *testing.T) {
	strs := reportStrings(t)
	enc, err := newEncoder()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range strs {
		if enc.encode(s); enc.missed {
			for _, r := range s {
				if enc.encode(string(r)); enc.missed && r != '?' {
					t.Fatalf("%q: %U %q is not in simple8", s, r, r)
				}
			}
		}
	}
	d, err := newDoc(Options{Language: Portuguese, Created: created}, nil, "coverage", "coverage", simpleFonts)
	if err != nil {
		t.Fatal(err)
	}
	p := d.pdf
	p.AddPage()
	for i, style := range []string{"", bold} {
		p.SetFont(family, style, 8)
		for _, s := range strs[i*len(strs)/2 : (i+1)*len(strs)/2] {
			p.MultiCell(bodyW, 4, d.tr(s), "", "L", false)
		}
	}
	if d.missed() {
		t.Fatal("the document missed a character")
	}
	var b bytes.Buffer
	if err := d.output(&b); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte("/Identity-H")) {
		t.Fatal("the simple-font document has a Unicode (Type0) font")
	}
	// Lines wrap where the page wants: compare without white space.
	noSpace := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) {
				return -1
			}
			return r
		}, s)
	}
	// The page footers fall between the lines of a page break.
	footer := regexp.MustCompile(fmt.Sprintf(`linkplan·coverage·[0-9:-]+UTCPágina[0-9]+de%d`, p.PageNo()))
	txt := footer.ReplaceAllString(noSpace(pdfText(t, b.Bytes())), "")
	at := 0
	for _, s := range strs {
		want := noSpace(s)
		i := strings.Index(txt[at:], want)
		if i < 0 {
			t.Fatalf("pdftotext lost %q (after byte %d of the extracted text)", s, at)
		}
		at += i + len(want)
	}
}

// TestUnicodeFallback: a report with a character outside simple8 (here a
// Cyrillic brand and a Polish operator) is rendered in Unicode mode and
// loses nothing; one with real Brazilian names stays in simple mode.
func TestUnicodeFallback(t *testing.T) {
	cases := []struct {
		name, brand, operator string
		unicode               bool
	}{
		{"pt-BR names", "Telecomunicações São João", "Capão da Canoa — VALENÇA Nº 4360", false},
		{"Cyrillic brand", "Радиосвязь Ltda", "Vivo", true},
		{"Polish operator", "Acme", "Łódź Światłowód", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := sampleInput(t)
			tw := *in.Candidate.Tower
			tw.Operator = c.operator
			in.Candidate.Tower = &tw
			for _, lang := range []Language{English, Portuguese} {
				opt := Options{Language: lang, Created: created, Branding: Branding{Name: c.brand}}
				pdf := render(t, in, opt)
				if got := bytes.Contains(pdf, []byte("/Identity-H")); got != c.unicode {
					t.Errorf("%s: Unicode fonts %v, want %v", lang, got, c.unicode)
				}
				txt := pdfText(t, pdf)
				for _, want := range []string{c.brand, c.operator, Disclaimer} {
					if !strings.Contains(txt, want) {
						t.Errorf("%s: extracted text lacks %q", lang, want)
					}
				}
			}
		})
	}
}
