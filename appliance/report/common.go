package report

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"codeberg.org/go-pdf/fpdf"

	"linkplan/appliance"
)

// Branding is the white-label branding of a report (the key's branding
// record). The zero value is the neutral default.
type Branding struct {
	// Name is shown in the header and footer; "" shows "linkplan". It is
	// cut to MaxBrandRunes characters.
	Name string
	// LogoPNG is a PNG image of at most MaxLogoBytes bytes and MaxLogoPx
	// pixels a side, shown in the header at most 14 mm high and 50 mm
	// wide; nil shows none. It is decoded and re-encoded (8 bits a channel,
	// not interlaced) before it is embedded.
	LogoPNG []byte
	// Color is the accent colour as "#RRGGBB"; "" is a neutral slate
	// (#2F3E4E).
	Color string
	// Footer is a line printed under the footer rule of every page (the
	// tenant's report footer); "" prints none. Cut to the page width.
	Footer string
	// Support is the tenant's support contact, printed after Footer
	// ("Support: ..."); "" prints none.
	Support string
}

// Limits of the branding.
const (
	MaxLogoBytes  = 1 << 20 // bytes of Branding.LogoPNG
	MaxLogoPx     = 2000    // pixels a side of Branding.LogoPNG
	MaxBrandRunes = 60      // characters of Branding.Name shown
)

// Options are the settings of a report.
type Options struct {
	// Language is English or Portuguese; "" is English.
	Language Language
	// Branding is the white-label branding; the zero value is neutral.
	Branding Branding
	// Created is the creation time written in the PDF metadata and the
	// header (shown in UTC, to the minute). It is required: the same input
	// and Created give the same bytes.
	Created time.Time
}

// Page geometry, millimetres (A4 portrait).
const (
	pageW   = 210.0
	pageH   = 297.0
	marginX = 15.0
	marginT = 12.0
	marginB = 16.0
	bodyW   = pageW - 2*marginX
	rowH    = 5.2 // height of a table row, mm
)

// defaultColor is the neutral accent colour.
const defaultColor = "#2F3E4E"

// Font family and styles of the embedded fonts.
const (
	family = "dejavu"
	bold   = "B"
)

// rgb is a colour.
type rgb struct{ r, g, b int }

// doc is the state shared by both reports: the PDF, the language, the
// branding and the layout helpers.
type doc struct {
	pdf     *fpdf.Fpdf
	lang    Language
	tx      *texts
	accent  rgb
	brand   string
	footer  string   // the tenant's footer line, "" for none
	logo    []byte   // normalised PNG, nil for none
	created string   // creation time, UTC, to the minute
	enc     *encoder // the text encoder of the font mode (doc.tr)
	// lacked are the characters the Unicode fonts lack that the document
	// shows as substitute, ascending: the note of noteLacked (Unicode
	// mode). render finds them.
	lacked []rune
}

// validateOptions checks opt and returns the normalised logo (nil for
// none). Its errors are added to v.
func validateOptions(v *appliance.ValidationError, opt *Options) []byte {
	switch opt.Language {
	case "", English, Portuguese:
	default:
		v.Add("language", "must be %q or %q, got %q", English, Portuguese, opt.Language)
	}
	if opt.Branding.Color != "" {
		if _, ok := parseColor(opt.Branding.Color); !ok {
			v.Add("branding.color", "must be a colour #RRGGBB, got %q", opt.Branding.Color)
		}
	}
	var logo []byte
	if len(opt.Branding.LogoPNG) > 0 {
		var err error
		if logo, err = normaliseLogo(opt.Branding.LogoPNG); err != nil {
			v.Add("branding.logo", "%v", err)
		}
	}
	if opt.Created.IsZero() {
		v.Add("created", "is required: the creation time makes the report reproducible")
	}
	return logo
}

// normaliseLogo checks a logo's size and re-encodes it as an 8-bit,
// non-interlaced PNG, the form fpdf embeds (it refuses interlaced and
// 16-bit PNGs). The dimensions are checked before the pixels are decoded.
func normaliseLogo(b []byte) ([]byte, error) {
	if len(b) > MaxLogoBytes {
		return nil, fmt.Errorf("must be at most %d bytes, got %d", MaxLogoBytes, len(b))
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("must be a PNG image: %w", err)
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxLogoPx || cfg.Height > MaxLogoPx {
		return nil, fmt.Errorf("must be 1 to %d pixels a side, got %d×%d", MaxLogoPx, cfg.Width, cfg.Height)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("must be a PNG image: %w", err)
	}
	nrgba := image.NewNRGBA(img.Bounds())
	draw.Draw(nrgba, nrgba.Bounds(), img, img.Bounds().Min, draw.Src)
	var out bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&out, nrgba); err != nil {
		return nil, fmt.Errorf("re-encode: %w", err)
	}
	return out.Bytes(), nil
}

// parseColor parses "#RRGGBB".
func parseColor(s string) (rgb, bool) {
	if len(s) != 7 || s[0] != '#' {
		return rgb{}, false
	}
	for _, c := range s[1:] {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return rgb{}, false
		}
	}
	n, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return rgb{}, false
	}
	return rgb{int(n >> 16 & 0xff), int(n >> 8 & 0xff), int(n & 0xff)}, true
}

// newDoc sets up a document in font mode m: fonts, metadata, footer. The
// options must have been validated; logo is the normalised logo.
func newDoc(opt Options, logo []byte, docTitle, metaTitle string, m fontMode) (*doc, error) {
	d := &doc{lang: opt.Language, logo: logo}
	var err error
	if m == simpleFonts {
		d.enc, err = newEncoder()
	} else {
		d.enc, err = newUnicodeEncoder()
	}
	if err != nil {
		return nil, err
	}
	if d.lang == "" {
		d.lang = English
	}
	d.tx = d.lang.words()
	col := opt.Branding.Color
	if col == "" {
		col = defaultColor
	}
	d.accent, _ = parseColor(col)
	d.brand = clean(opt.Branding.Name)
	if utf8.RuneCountInString(d.brand) > MaxBrandRunes {
		d.brand = string([]rune(d.brand)[:MaxBrandRunes-1]) + "…"
	}
	if d.brand == "" {
		d.brand = "linkplan"
	}
	d.footer = clean(opt.Branding.Footer)
	if sup := clean(opt.Branding.Support); sup != "" {
		if d.footer != "" {
			d.footer += " · "
		}
		d.footer += d.tx.support + ": " + sup
	}

	p := fpdf.NewCustom(&fpdf.InitType{OrientationStr: "P", UnitStr: "mm", SizeStr: "A4"})
	// Deterministic output: sorted catalogue, fixed dates, compression on
	// (zlib output is a function of its input).
	p.SetCatalogSort(true)
	p.SetCreationDate(opt.Created.UTC())
	p.SetModificationDate(opt.Created.UTC())
	p.SetCompression(true)
	addFonts(p, m)
	p.SetMargins(marginX, marginT, marginX)
	p.SetAutoPageBreak(true, marginB)
	p.SetTitle(bmpOnly(metaTitle), true)
	p.SetAuthor(bmpOnly(d.brand), true)
	p.SetCreator("linkplan", true)
	p.SetProducer("linkplan appliance/report (go-pdf/fpdf)", true)
	p.SetLang(string(d.lang))
	p.AliasNbPages("{nb}")
	d.created = opt.Created.UTC().Format("2006-01-02 15:04 UTC")
	p.SetFooterFunc(func() {
		p.SetY(-marginB + 4)
		p.SetDrawColor(200, 200, 200)
		p.SetLineWidth(0.2)
		p.Line(marginX, p.GetY(), pageW-marginX, p.GetY())
		p.SetFont(family, "", 7)
		p.SetTextColor(110, 110, 110)
		p.CellFormat(bodyW*0.75, 5, d.tr(d.fit(d.brand+" · "+docTitle+" · "+d.created, bodyW*0.75)), "", 0, "L", false, 0, "")
		p.CellFormat(bodyW*0.25, 5, d.tr(fmt.Sprintf(d.tx.page, p.PageNo(), "{nb}")), "", 0, "R", false, 0, "")
		if d.footer != "" {
			p.SetXY(marginX, p.GetY()+4.5)
			p.SetFont(family, "", 6.5)
			p.CellFormat(bodyW, 3.5, d.tr(d.fit(d.footer, bodyW)), "", 0, "L", false, 0, "")
		}
	})
	d.pdf = p
	return d, nil
}

// tr returns s as the current fonts take it: encoded in simple8 in
// simple-font mode; in Unicode mode unchanged but for the characters the
// fonts lack, replaced by substitute (encoder.encode). Every text drawn
// or measured goes through it.
func (d *doc) tr(s string) string { return d.enc.encode(s) }

// missed reports whether a text of a simple-font document had a
// character outside simple8 (the document must be rendered in Unicode
// mode).
func (d *doc) missed() bool { return d.enc.codes != nil && d.enc.missed }

// renderModes writes the document that lay lays out in mode m, with its
// lacked note, to w. It is the font-mode loop of every document: simple
// fonts first; when a text needs a character outside simple8, Unicode
// fonts, whose missing characters are shown as substitute and named in
// the note. The note's characters are those the simple pass met and the
// Unicode fonts lack; if the Unicode pass replaced others (a text cut to
// its cell by the other mode's widths keeps other characters), it is
// rendered again with those: the texts drawn do not depend on the note,
// so the second Unicode pass agrees with itself.
func renderModes(w io.Writer, lay func(m fontMode, lacked []rune) (*doc, error)) error {
	d, err := lay(simpleFonts, nil)
	if err != nil {
		return err
	}
	if !d.missed() {
		return d.output(w)
	}
	u, err := newUnicodeEncoder()
	if err != nil {
		return err
	}
	lacked := u.lackedIn(d.enc.outside)
	for pass := 0; ; pass++ {
		if d, err = lay(unicodeFonts, lacked); err != nil {
			return err
		}
		got := d.enc.lackedIn(d.enc.lacked)
		if slices.Equal(got, lacked) || pass == 1 {
			return d.output(w)
		}
		lacked = got
	}
}

// width is the width of s in the current font, millimetres.
func (d *doc) width(s string) float64 { return d.pdf.GetStringWidth(d.tr(s)) }

// output checks the document's error and writes it to w.
func (d *doc) output(w io.Writer) error {
	if err := d.pdf.Error(); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	if err := d.pdf.Output(w); err != nil {
		return fmt.Errorf("write pdf: %w", err)
	}
	return nil
}

// clean replaces control characters (line breaks included) by spaces and
// trims s: input strings are shown on one line. Invalid UTF-8 becomes
// U+FFFD (as a JSON decoder makes an unpaired surrogate), which the
// Unicode fonts draw: the reader sees that a character was there.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// noteLacked draws, when the document replaced characters its fonts lack
// by substitute, the line that says how many and which (up to 8 code
// points, then "…"), in the colour of the warnings.
func (d *doc) noteLacked() {
	if len(d.lacked) == 0 {
		return
	}
	p := d.pdf
	names := make([]string, 0, 9)
	for _, r := range d.lacked[:min(len(d.lacked), 8)] {
		names = append(names, fmt.Sprintf("%U", r))
	}
	if len(d.lacked) > 8 {
		names = append(names, "…")
	}
	f := d.tx.lackedMany
	if len(d.lacked) == 1 {
		f = d.tx.lackedOne
	}
	p.Ln(1)
	p.SetFont(family, "", 8)
	p.SetTextColor(150, 75, 0)
	p.MultiCell(bodyW, 4.2, d.tr(fmt.Sprintf(f, len(d.lacked), strings.Join(names, ", "))), "", "L", false)
	p.SetTextColor(30, 30, 30)
}

// fit cleans s and cuts it with an ellipsis to fit w millimetres in the
// current font.
func (d *doc) fit(s string, w float64) string {
	s = clean(s)
	if d.width(s) <= w-1 {
		return s
	}
	rs := []rune(s)
	lo, hi := 0, len(rs) // the longest prefix that fits, by bisection
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if d.width(string(rs[:mid])+"…") <= w-1 {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return string(rs[:lo]) + "…"
}

// num formats v with dec decimals in the report language.
func (d *doc) num(v float64, dec int) string { return d.lang.Number(v, dec) }

// unit formats v with dec decimals and a unit.
func (d *doc) unit(v float64, dec int, unit string) string {
	return d.num(v, dec) + " " + unit
}

// deg formats a bearing or coordinate in degrees.
func (d *doc) deg(v float64, dec int) string { return d.num(v, dec) + "°" }

// latLon formats a position.
func (d *doc) latLon(lat, lon float64) string {
	return "(" + d.deg(lat, 6) + ", " + d.deg(lon, 6) + ")"
}

// header draws the brand strip, logo, brand name, title and subtitle.
func (d *doc) header(title, subtitle string) {
	p := d.pdf
	p.SetFillColor(d.accent.r, d.accent.g, d.accent.b)
	p.Rect(0, 0, pageW, 4, "F")
	top := marginT
	x := marginX
	if len(d.logo) > 0 {
		opts := fpdf.ImageOptions{ImageType: "PNG"}
		info := p.RegisterImageOptionsReader("logo", opts, bytes.NewReader(d.logo))
		if info != nil && info.Height() > 0 {
			h := 14.0
			w := h * info.Width() / info.Height()
			if w > 50 {
				w, h = 50, 50*info.Height()/info.Width()
			}
			p.ImageOptions("logo", x, top, w, h, false, opts, 0, "")
			x += w + 4
		}
	}
	// The brand takes the width it needs, at most 45 % of what is left
	// beside the logo; the title and subtitle take the rest.
	brandW := (pageW - marginX - x) * 0.45
	p.SetFont(family, "", 8)
	need := d.width(d.tx.generated + " " + d.created)
	p.SetFont(family, bold, 12)
	need = math.Max(need, d.width(d.brand)) + 2
	brandW = math.Min(brandW, need)
	p.SetXY(x, top+1)
	p.SetTextColor(d.accent.r, d.accent.g, d.accent.b)
	p.CellFormat(brandW, 6, d.tr(d.fit(d.brand, brandW)), "", 2, "L", false, 0, "")
	p.SetX(x)
	p.SetFont(family, "", 8)
	p.SetTextColor(110, 110, 110)
	p.CellFormat(brandW, 5, d.tr(d.tx.generated+" "+d.created), "", 0, "L", false, 0, "")

	titleW := bodyW - (x - marginX) - brandW - 3
	p.SetXY(pageW-marginX-titleW, top)
	p.SetFont(family, bold, 17)
	p.SetTextColor(30, 30, 30)
	p.CellFormat(titleW, 8, d.tr(d.fit(title, titleW)), "", 2, "R", false, 0, "")
	// The subtitle has its own line under the brand's, as wide as the
	// space right of the logo.
	subW := pageW - marginX - x
	p.SetFont(family, "", 9)
	p.SetTextColor(70, 70, 70)
	p.SetXY(x, top+11.5)
	p.CellFormat(subW, 5, d.tr(d.fit(subtitle, subW)), "", 2, "R", false, 0, "")
	p.SetY(top + 17)
	p.SetDrawColor(d.accent.r, d.accent.g, d.accent.b)
	p.SetLineWidth(0.5)
	p.Line(marginX, p.GetY(), pageW-marginX, p.GetY())
	p.SetLineWidth(0.2)
	p.Ln(3)
}

// section starts a section with a heading, on a new page when fewer than
// need millimetres are left under it.
func (d *doc) section(title string, need float64) {
	p := d.pdf
	if p.GetY()+need+9 > pageH-marginB {
		p.AddPage()
	}
	p.Ln(2)
	p.SetFont(family, bold, 10.5)
	p.SetTextColor(d.accent.r, d.accent.g, d.accent.b)
	p.CellFormat(bodyW, 6, d.tr(title), "", 1, "L", false, 0, "")
	p.SetDrawColor(210, 210, 210)
	p.SetLineWidth(0.2)
	p.Line(marginX, p.GetY(), pageW-marginX, p.GetY())
	p.Ln(1)
	p.SetTextColor(30, 30, 30)
}

// row draws one table row: cells of the given widths, the first a label,
// each cut to its width; shaded rows get a light fill, strong rows bold
// values. align gives each cell's alignment ("" is left).
func (d *doc) row(widths []float64, cells []string, shaded, strong bool, align ...string) {
	p := d.pdf
	if shaded {
		p.SetFillColor(244, 245, 247)
	}
	for i, c := range cells {
		style, al := "", "L"
		if i < len(align) && align[i] != "" {
			al = align[i]
		}
		if i == 0 {
			p.SetTextColor(80, 80, 80)
		} else {
			p.SetTextColor(20, 20, 20)
			if strong {
				style = bold
			}
		}
		p.SetFont(family, style, 8.5)
		p.CellFormat(widths[i], rowH, d.tr(d.fit(c, widths[i])), "", 0, al, shaded, 0, "")
	}
	p.Ln(rowH)
}

// disclaimer is the SPEC §1 item 6 disclaimer (verbatim in English, after
// its translation in pt-BR) and the screening statement of SPEC §1 item 8.
func (d *doc) disclaimer() {
	tx, p := d.tx, d.pdf
	d.section(tx.disclaimer, 22)
	p.SetFillColor(244, 245, 247)
	p.SetDrawColor(d.accent.r, d.accent.g, d.accent.b)
	text := Disclaimer
	if tx.disclaimerText != "" {
		text = tx.disclaimerText + "\n" + Disclaimer
	}
	p.SetFont(family, bold, 9)
	p.SetTextColor(30, 30, 30)
	p.MultiCell(bodyW, 5, d.tr(text), "LTR", "L", true)
	p.SetFont(family, "", 8)
	p.SetTextColor(80, 80, 80)
	p.MultiCell(bodyW, 4.5, d.tr(tx.screening), "LBR", "L", true)
	p.SetTextColor(30, 30, 30)
}

// orUnknown returns s, or unknown when s is blank.
func orUnknown(s, unknown string) string {
	if strings.TrimSpace(s) == "" {
		return unknown
	}
	return s
}
