package report

import (
	"bytes"
	"fmt"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"codeberg.org/go-pdf/fpdf"

	"linkplan/appliance"
)

// Input is what a link report shows: one planner result and the request
// that produced it.
type Input struct {
	// Candidate is the planner's result for one tower (required, with its
	// Tower). Its Path, when not nil, gives the profile chart, the
	// clearance figures and the minimum heights.
	Candidate *appliance.LinkCandidate
	// Request gives the receiver position, its antenna height (metres
	// above ground), the frequency (MHz), the receiver gain (dBi), the cable
	// loss (dB) and the threshold (dBm) of the link budget.
	Request appliance.LinkRequest
	// ReceiverGroundM is the ground height at the receiver, metres AMSL
	// (LinkAnalysis.ReceiverGroundM); NaN when unknown. It is used only
	// when Candidate.Path is nil: otherwise the profile's last sample gives
	// it.
	ReceiverGroundM float64
}

// Branding is the white-label branding of a report (the key's branding
// record). The zero value is the neutral default.
type Branding struct {
	// Name is shown in the header and footer; "" shows "linkplan".
	Name string
	// LogoPNG is a PNG image shown in the header, at most 14 mm high and
	// 50 mm wide; nil shows none.
	LogoPNG []byte
	// Color is the accent colour as "#RRGGBB"; "" is a neutral slate
	// (#2F3E4E).
	Color string
}

// Options are the settings of a report.
type Options struct {
	// Language is English or Portuguese; "" is English.
	Language Language
	// Branding is the white-label branding; the zero value is neutral.
	Branding Branding
	// Created is the creation time written in the PDF metadata and the
	// header (shown in UTC). It is required: the same input and Created
	// give the same bytes.
	Created time.Time
}

// Page geometry, millimetres (A4 portrait).
const (
	pageW   = 210.0
	marginX = 15.0
	marginT = 12.0
	marginB = 16.0
	bodyW   = pageW - 2*marginX
	rowH    = 5.2 // height of a table row, mm
)

// defaultColor is the neutral accent colour.
const defaultColor = "#2F3E4E"

// Write renders the link report of in as a PDF to w. A missing candidate or
// tower, an unknown language, a malformed colour, an unreadable logo or a
// zero creation time is an error matching appliance.ErrInvalid; a write
// error of w is returned wrapped.
func Write(w io.Writer, in Input, opt Options) error {
	if err := validate(&in, &opt); err != nil {
		return fmt.Errorf("link report: %w", err)
	}
	r := newRenderer(in, opt)
	r.document()
	if err := r.pdf.Error(); err != nil {
		return fmt.Errorf("link report: render: %w", err)
	}
	if err := r.pdf.Output(w); err != nil {
		return fmt.Errorf("link report: write pdf: %w", err)
	}
	return nil
}

// validate checks the input and options of Write.
func validate(in *Input, opt *Options) error {
	v := &appliance.ValidationError{}
	if in.Candidate == nil {
		v.Add("candidate", "is required")
	} else if in.Candidate.Tower == nil {
		v.Add("candidate.tower", "is required")
	}
	switch opt.Language {
	case "", English, Portuguese:
	default:
		v.Add("language", "must be %q or %q, got %q", English, Portuguese, opt.Language)
	}
	if opt.Branding.Color != "" {
		if _, _, _, ok := parseColor(opt.Branding.Color); !ok {
			v.Add("branding.color", "must be a colour #RRGGBB, got %q", opt.Branding.Color)
		}
	}
	if len(opt.Branding.LogoPNG) > 0 {
		if _, err := png.DecodeConfig(bytes.NewReader(opt.Branding.LogoPNG)); err != nil {
			v.Add("branding.logo", "must be a PNG image: %v", err)
		}
	}
	if opt.Created.IsZero() {
		v.Add("created", "is required: the creation time makes the report reproducible")
	}
	return v.Err()
}

// parseColor parses "#RRGGBB".
func parseColor(s string) (r, g, b int, ok bool) {
	if len(s) != 7 || s[0] != '#' {
		return 0, 0, 0, false
	}
	n, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return 0, 0, 0, false
	}
	return int(n >> 16 & 0xff), int(n >> 8 & 0xff), int(n & 0xff), true
}

// rgb is a colour.
type rgb struct{ r, g, b int }

// renderer holds the state of one report.
type renderer struct {
	pdf     *fpdf.Fpdf
	in      Input
	c       *appliance.LinkCandidate
	t       *appliance.Tower
	lang    Language
	tx      *texts
	accent  rgb
	brand   string
	logo    []byte
	created string // creation time, UTC, to the minute
}

// Font family and styles of the embedded fonts.
const (
	family = "dejavu"
	bold   = "B"
)

// newRenderer sets up the document: fonts, metadata, footer.
func newRenderer(in Input, opt Options) *renderer {
	r := &renderer{in: in, c: in.Candidate, t: in.Candidate.Tower, lang: opt.Language, logo: opt.Branding.LogoPNG}
	if r.lang == "" {
		r.lang = English
	}
	r.tx = r.lang.words()
	col := opt.Branding.Color
	if col == "" {
		col = defaultColor
	}
	cr, cg, cb, _ := parseColor(col)
	r.accent = rgb{cr, cg, cb}
	r.brand = strings.TrimSpace(opt.Branding.Name)
	if r.brand == "" {
		r.brand = "linkplan"
	}

	p := fpdf.NewCustom(&fpdf.InitType{OrientationStr: "P", UnitStr: "mm", SizeStr: "A4"})
	p.SetCatalogSort(true)
	p.SetCreationDate(opt.Created)
	p.SetModificationDate(opt.Created)
	p.SetCompression(true)
	p.AddUTF8FontFromBytes(family, "", dejaVuSans)
	p.AddUTF8FontFromBytes(family, bold, dejaVuSansBold)
	p.SetMargins(marginX, marginT, marginX)
	p.SetAutoPageBreak(true, marginB)
	p.SetTitle(r.tx.title+" "+r.t.ID, true)
	p.SetAuthor(r.brand, true)
	p.SetCreator("linkplan", true)
	p.SetProducer("linkplan appliance/report (go-pdf/fpdf)", true)
	p.SetLang(string(r.lang))
	p.AliasNbPages("{nb}")
	r.created = opt.Created.UTC().Format("2006-01-02 15:04 UTC")
	p.SetFooterFunc(func() {
		p.SetY(-marginB + 4)
		p.SetDrawColor(200, 200, 200)
		p.Line(marginX, p.GetY(), pageW-marginX, p.GetY())
		p.SetFont(family, "", 7)
		p.SetTextColor(110, 110, 110)
		p.CellFormat(bodyW/2, 5, r.brand+" · "+r.tx.title+" · "+r.created, "", 0, "L", false, 0, "")
		p.CellFormat(bodyW/2, 5, fmt.Sprintf(r.tx.page, p.PageNo(), "{nb}"), "", 0, "R", false, 0, "")
	})
	r.pdf = p
	return r
}

// document lays out the whole report.
func (r *renderer) document() {
	p := r.pdf
	p.AddPage()
	r.header()
	r.sites()
	r.pathFigures()
	r.profile()
	r.clearance()
	r.budget()
	r.engine()
	r.warnings()
	r.provenance()
	r.disclaimer()
}

// num formats v with dec decimals in the report language.
func (r *renderer) num(v float64, dec int) string { return r.lang.Number(v, dec) }

// unit formats v with dec decimals and a unit.
func (r *renderer) unit(v float64, dec int, unit string) string {
	return r.num(v, dec) + " " + unit
}

// deg formats a bearing or coordinate in degrees.
func (r *renderer) deg(v float64, dec int) string { return r.num(v, dec) + "°" }

// header draws the brand strip, logo, brand name, title and subtitle.
func (r *renderer) header() {
	p := r.pdf
	p.SetFillColor(r.accent.r, r.accent.g, r.accent.b)
	p.Rect(0, 0, pageW, 4, "F")
	top := marginT
	x := marginX
	if len(r.logo) > 0 {
		opts := fpdf.ImageOptions{ImageType: "PNG"}
		info := p.RegisterImageOptionsReader("logo", opts, bytes.NewReader(r.logo))
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
	p.SetXY(x, top+1)
	p.SetFont(family, bold, 12)
	p.SetTextColor(r.accent.r, r.accent.g, r.accent.b)
	p.CellFormat(pageW-marginX-x, 6, r.brand, "", 2, "L", false, 0, "")
	p.SetX(x)
	p.SetFont(family, "", 8)
	p.SetTextColor(110, 110, 110)
	p.CellFormat(pageW-marginX-x, 5, r.tx.generated+" "+r.created, "", 0, "L", false, 0, "")

	p.SetXY(marginX, top)
	p.SetFont(family, bold, 17)
	p.SetTextColor(30, 30, 30)
	p.CellFormat(bodyW, 8, r.tx.title, "", 2, "R", false, 0, "")
	p.SetFont(family, "", 9)
	p.SetTextColor(70, 70, 70)
	p.CellFormat(bodyW, 5, r.t.ID+" → "+r.tx.receiver+" "+r.latLon(r.in.Request.Receiver.Lat, r.in.Request.Receiver.Lon), "", 2, "R", false, 0, "")
	p.SetY(top + 17)
	p.SetDrawColor(r.accent.r, r.accent.g, r.accent.b)
	p.SetLineWidth(0.5)
	p.Line(marginX, p.GetY(), pageW-marginX, p.GetY())
	p.SetLineWidth(0.2)
	p.Ln(3)
}

// latLon formats a position.
func (r *renderer) latLon(lat, lon float64) string {
	return "(" + r.deg(lat, 6) + ", " + r.deg(lon, 6) + ")"
}

// section starts a section with a heading, on a new page when fewer than
// need millimetres are left.
func (r *renderer) section(title string, need float64) {
	p := r.pdf
	_, pageH := p.GetPageSize()
	if p.GetY()+need+9 > pageH-marginB {
		p.AddPage()
	}
	p.Ln(2)
	p.SetFont(family, bold, 10.5)
	p.SetTextColor(r.accent.r, r.accent.g, r.accent.b)
	p.CellFormat(bodyW, 6, title, "", 1, "L", false, 0, "")
	p.SetDrawColor(210, 210, 210)
	p.Line(marginX, p.GetY(), pageW-marginX, p.GetY())
	p.Ln(1)
	p.SetTextColor(30, 30, 30)
}

// row draws one table row: cells of the given widths, the first a label;
// shaded rows get a light fill.
func (r *renderer) row(widths []float64, cells []string, shaded, strong bool) {
	p := r.pdf
	if shaded {
		p.SetFillColor(244, 245, 247)
	}
	for i, c := range cells {
		style, align := "", "L"
		if i == 0 {
			p.SetTextColor(80, 80, 80)
		} else {
			p.SetTextColor(20, 20, 20)
			if strong {
				style = bold
			}
		}
		if len(cells) == 2 && i == 1 && strong {
			align = "L"
		}
		p.SetFont(family, style, 8.5)
		p.CellFormat(widths[i], rowH, c, "", 0, align, shaded, 0, "")
	}
	p.Ln(rowH)
}

// sites is the table of both ends of the link.
func (r *renderer) sites() {
	tx, t, req := r.tx, r.t, r.in.Request
	r.section(tx.sites, 8*rowH)
	rxGround := r.in.ReceiverGroundM
	if pc := r.c.Path; pc != nil && len(pc.Profile) > 0 {
		rxGround = pc.Profile[len(pc.Profile)-1].GroundM
	}
	w := []float64{50, 65, 65}
	p := r.pdf
	p.SetFont(family, bold, 8.5)
	p.SetTextColor(80, 80, 80)
	p.CellFormat(w[0], rowH, "", "", 0, "L", false, 0, "")
	p.CellFormat(w[1], rowH, tx.receiver, "", 0, "L", false, 0, "")
	p.CellFormat(w[2], rowH, tx.tower, "", 1, "L", false, 0, "")
	rows := [][]string{
		{tx.towerID, "—", t.ID},
		{tx.operator, "—", orUnknown(t.Operator, tx.unknown)},
		{tx.latitude, r.deg(req.Receiver.Lat, 6), r.deg(t.Lat, 6)},
		{tx.longitude, r.deg(req.Receiver.Lon, 6), r.deg(t.Lon, 6)},
		{tx.ground, r.unit(rxGround, 1, tx.mAMSL), r.unit(r.c.TowerGroundM, 1, tx.mAMSL)},
		{tx.antenna, r.unit(req.RxHeightM, 1, tx.mAGL), r.unit(t.HeightM, 1, tx.mAGL)},
	}
	for i, c := range rows {
		r.row(w, c, i%2 == 0, i == 0)
	}
}

// orUnknown returns s, or unknown when s is empty.
func orUnknown(s, unknown string) string {
	if strings.TrimSpace(s) == "" {
		return unknown
	}
	return s
}

// pathFigures is distance, azimuths and frequency, two pairs a row.
func (r *renderer) pathFigures() {
	tx := r.tx
	r.section(tx.path, 2*rowH)
	w := []float64{45, 45, 45, 45}
	r.row(w, []string{tx.distance, r.unit(r.c.DistanceKm, 3, "km"), tx.azRxTower, r.deg(r.c.AzimuthDeg, 1)}, true, false)
	r.row(w, []string{tx.frequency, r.unit(r.in.Request.FreqMHz, 1, "MHz"), tx.azTowerRx, r.deg(r.c.TowerToRxDeg, 1)}, false, false)
}

// clearance is the clearance figures, the dominant obstacle and the minimum
// antenna heights.
func (r *renderer) clearance() {
	tx, pred := r.tx, r.c.Prediction
	r.section(tx.clearance, 12*rowH)
	yn := func(b bool) string {
		if b {
			return tx.yes
		}
		return tx.no
	}
	w := []float64{90, 90}
	rows := [][]string{
		{tx.losClear, yn(pred.LOSClear)},
		{tx.fresnelOK, yn(pred.FresnelOK)},
		{tx.minClearance, r.num(pred.MinClearanceRatio, 2) + " × F1"},
	}
	if pc := r.c.Path; pc != nil {
		if o := pc.Obstacle; o != nil {
			obst := r.unit(o.GroundM, 1, tx.mAMSL)
			if o.VoidFilled {
				obst += " (" + tx.voidFilled + ")"
			}
			rows = append(rows,
				[]string{tx.obstacle, obst},
				[]string{tx.fromTower, r.unit(o.DistanceFromTxM/1000, 3, "km")},
				[]string{tx.fromReceiver, r.unit(o.DistanceFromRxM/1000, 3, "km")},
				[]string{tx.obstClearance, r.unit(o.ClearanceM, 1, "m") + " = " + r.num(o.ClearanceF1, 2) + " × F1"},
				[]string{tx.f1, r.unit(o.F1RadiusM, 1, "m")},
			)
		}
		mh := func(h appliance.MinHeight) string {
			if !h.Achievable {
				return fmt.Sprintf(tx.notAchievable, r.num(h.HeightM, 0))
			}
			return r.unit(h.HeightM, 2, tx.mAGL)
		}
		rows = append(rows,
			[]string{tx.rxLOS, mh(pc.RxMinLOS)},
			[]string{tx.rxF60, mh(pc.RxMinFresnel60)},
			[]string{tx.txLOS, mh(pc.TxMinLOS)},
			[]string{tx.txF60, mh(pc.TxMinFresnel60)},
		)
	}
	for i, c := range rows {
		r.row(w, c, i%2 == 0, false)
	}
}

// budget is the link budget table.
func (r *renderer) budget() {
	tx, c, req := r.tx, r.c, r.in.Request
	r.section(tx.budget, 9*rowH)
	eirp := r.unit(c.EIRPDBm, 1, "dBm")
	if c.EIRPAssumed {
		eirp += " (" + tx.eirpAssumed + ")"
	}
	w := []float64{90, 90}
	rows := [][]string{
		{tx.eirp, eirp},
		{tx.pathLoss, "- " + r.unit(c.Prediction.PathLossDB, 1, "dB")},
		{tx.pattern, "- " + r.unit(c.PatternLossDB, 1, "dB")},
		{tx.rxGain, "+ " + r.unit(req.RxGainDBi, 1, "dBi")},
		{tx.cable, "- " + r.unit(req.CableLossDB, 1, "dB")},
		{tx.rxPower, "= " + r.unit(c.RxPowerDBm, 1, "dBm")},
		{tx.threshold, r.unit(req.RxThresholdDBm, 1, "dBm")},
	}
	for i, cells := range rows {
		r.row(w, cells, i%2 == 0, i == 5)
	}
	// The margin, coloured by its sign.
	p := r.pdf
	p.SetFillColor(232, 245, 233)
	p.SetTextColor(27, 94, 32)
	if c.LinkMarginDB < 0 {
		p.SetFillColor(253, 236, 234)
		p.SetTextColor(183, 28, 28)
	}
	p.SetFont(family, bold, 9.5)
	p.CellFormat(w[0], rowH+1.5, tx.margin, "", 0, "L", true, 0, "")
	p.CellFormat(w[1], rowH+1.5, r.unit(c.LinkMarginDB, 1, "dB"), "", 1, "L", true, 0, "")
	p.SetTextColor(30, 30, 30)
}

// engine names the engine that produced the number.
func (r *renderer) engine() {
	tx, pred := r.tx, r.c.Prediction
	r.section(tx.engine, 3*rowH)
	w := []float64{90, 90}
	r.row(w, []string{tx.engineID, orUnknown(string(pred.Engine), tx.unknown)}, true, false)
	r.row(w, []string{tx.engineVersion, orUnknown(pred.EngineVersion, tx.unknown)}, false, false)
	r.row(w, []string{tx.diffraction, r.unit(pred.DiffractionDB, 1, "dB")}, true, false)
}

// warnings lists the candidate's warnings, code and message.
func (r *renderer) warnings() {
	tx, p := r.tx, r.pdf
	r.section(tx.warnings, 2*rowH)
	if len(r.c.Warnings) == 0 {
		p.SetFont(family, "", 8.5)
		p.CellFormat(bodyW, rowH, tx.noWarnings, "", 1, "L", false, 0, "")
		return
	}
	if tx.warningsLang != "" {
		p.SetFont(family, "", 7.5)
		p.SetTextColor(110, 110, 110)
		p.CellFormat(bodyW, rowH-1, tx.warningsLang, "", 1, "L", false, 0, "")
	}
	for _, w := range r.c.Warnings {
		y := p.GetY()
		p.SetFillColor(255, 243, 224)
		p.SetFont(family, bold, 8)
		p.SetTextColor(150, 75, 0)
		p.CellFormat(45, rowH, w.Code, "", 0, "L", true, 0, "")
		p.SetFont(family, "", 8)
		p.SetTextColor(30, 30, 30)
		p.SetXY(marginX+46, y)
		p.MultiCell(bodyW-46, 4.2, w.Message, "", "L", false)
		p.Ln(1)
	}
}

// provenance is the tower's data provenance and position uncertainty, with
// a prominent notice for synthetic towers.
func (r *renderer) provenance() {
	tx, t, p := r.tx, r.t, r.pdf
	r.section(tx.provenance, 7*rowH)
	if t.Synthetic {
		p.SetFillColor(253, 236, 234)
		p.SetDrawColor(183, 28, 28)
		p.SetTextColor(183, 28, 28)
		p.SetFont(family, bold, 9)
		p.MultiCell(bodyW, 5.5, tx.syntheticYes, "1", "L", true)
		p.Ln(1)
		p.SetTextColor(30, 30, 30)
	}
	syn := tx.syntheticNo
	if t.Synthetic {
		syn = tx.yes
	}
	updated := tx.unknown
	if t.UpdatedUnix > 0 {
		updated = time.Unix(t.UpdatedUnix, 0).UTC().Format("2006-01-02")
	}
	w := []float64{60, 120}
	rows := [][]string{
		{tx.source, orUnknown(string(t.Source), tx.unknown)},
		{tx.placement, orUnknown(string(t.Placement), tx.unknown)},
		{tx.uncertainty, "± " + r.unit(t.UncertaintyM, 0, "m")},
		{tx.dataset, orUnknown(t.Provenance, tx.unknown)},
		{tx.updated, updated},
		{tx.synthetic, syn},
	}
	for i, c := range rows {
		r.row(w, c, i%2 == 0, false)
	}
}

// disclaimer is the SPEC §1 item 6 disclaimer (verbatim in English, after
// its translation in pt-BR) and the screening statement.
func (r *renderer) disclaimer() {
	tx, p := r.tx, r.pdf
	r.section(tx.disclaimer, 22)
	p.SetFillColor(244, 245, 247)
	p.SetDrawColor(r.accent.r, r.accent.g, r.accent.b)
	text := Disclaimer
	if tx.disclaimerText != "" {
		text = tx.disclaimerText + "\n" + Disclaimer
	}
	p.SetFont(family, bold, 9)
	p.SetTextColor(30, 30, 30)
	p.MultiCell(bodyW, 5, text, "LTR", "L", true)
	p.SetFont(family, "", 8)
	p.SetTextColor(80, 80, 80)
	p.MultiCell(bodyW, 4.5, tx.screening, "LBR", "L", true)
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
