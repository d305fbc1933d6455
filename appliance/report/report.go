package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"time"

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
	// Caveats are the warnings that qualify the choice of Candidate as the
	// best tower (LinkAnalysis.BestTowerCaveats, when Candidate is the
	// analysis' Best); the warnings section lists those that are not
	// already among the candidate's own (same code and message) after
	// them.
	Caveats []appliance.Warning
}

// Write renders the link report of in as a PDF to w. A missing candidate or
// tower, a malformed path profile, an unknown language, a malformed colour,
// an unreadable or oversized logo or a zero creation time is an error
// matching appliance.ErrInvalid; a write error of w is returned wrapped.
func Write(w io.Writer, in Input, opt Options) error {
	v := &appliance.ValidationError{}
	validateInput(v, &in)
	logo := validateOptions(v, &opt)
	if err := v.Err(); err != nil {
		return fmt.Errorf("link report: %w", err)
	}
	// Simple fonts first; Unicode fonts when a text needs a character
	// outside simple8 (fonts.go, renderModes).
	err := renderModes(w, func(m fontMode, lacked []rune) (*doc, error) {
		r, err := newRenderer(in, opt, logo, m)
		if err != nil {
			return nil, err
		}
		r.lacked = lacked
		r.document()
		return r.doc, nil
	})
	if err != nil {
		return fmt.Errorf("link report: %w", err)
	}
	return nil
}

// validateInput checks the input of Write.
func validateInput(v *appliance.ValidationError, in *Input) {
	if in.Candidate == nil {
		v.Add("candidate", "is required")
		return
	}
	if in.Candidate.Tower == nil {
		v.Add("candidate.tower", "is required")
	}
	if pc := in.Candidate.Path; pc != nil {
		validatePath(v, pc)
	}
}

// Plausible ranges of a path profile, metres: wider than any real path,
// narrow enough that the chart's scales stay tame.
const (
	maxPathM      = 2_000_000 // profile length
	minHeightM    = -12_000   // lowest height (LOS − F1 included)
	maxHeightM    = 100_000   // highest height (LOS + F1 included)
	maxF1RadiusM  = 100_000
	profileField  = "candidate.path.profile[%d]"
	obstacleField = "candidate.path.obstacle"
)

// validatePath checks the profile and obstacle the chart draws.
func validatePath(v *appliance.ValidationError, pc *appliance.PathCheck) {
	inH := func(h float64) bool { return finite(h) && h >= minHeightM && h <= maxHeightM }
	prev := math.Inf(-1)
	for i, pt := range pc.Profile {
		if !inH(pt.GroundM) || !inH(pt.EffectiveGroundM) || !inH(pt.LOSM) ||
			!finite(pt.F1RadiusM) || pt.F1RadiusM < 0 || pt.F1RadiusM > maxF1RadiusM ||
			!inH(pt.LOSM+pt.F1RadiusM) || !inH(pt.LOSM-pt.F1RadiusM) {
			v.Add(fmt.Sprintf(profileField, i), "must hold finite heights within %d..%d m and an F1 radius within 0..%d m",
				minHeightM, maxHeightM, maxF1RadiusM)
			return
		}
		if !finite(pt.DistanceM) || pt.DistanceM <= prev || pt.DistanceM > maxPathM {
			v.Add(fmt.Sprintf(profileField, i), "distances must increase strictly, up to %d m", maxPathM)
			return
		}
		prev = pt.DistanceM
	}
	if len(pc.Profile) >= 2 && pc.Profile[0].DistanceM != 0 {
		v.Add(fmt.Sprintf(profileField, 0), "must be at distance 0 (the tower)")
	}
	if o := pc.Obstacle; o != nil {
		if !inH(o.GroundM) || !inH(o.EffectiveGroundM) || !inH(o.LOSM) || !finite(o.DistanceFromTxM) ||
			!finite(o.DistanceFromRxM) || !finite(o.ClearanceM) || !finite(o.ClearanceF1) || !finite(o.F1RadiusM) {
			v.Add(obstacleField, "must hold finite values, heights within %d..%d m", minHeightM, maxHeightM)
		} else if n := len(pc.Profile); n >= 2 && (o.DistanceFromTxM < 0 || o.DistanceFromTxM > pc.Profile[n-1].DistanceM) {
			v.Add(obstacleField, "must lie on the profile, got %g m from the tower", o.DistanceFromTxM)
		}
	}
}

// renderer holds the state of one link report.
type renderer struct {
	*doc
	in Input
	c  *appliance.LinkCandidate
	t  *appliance.Tower
}

// newRenderer sets up the document of a link report in font mode m.
func newRenderer(in Input, opt Options, logo []byte, m fontMode) (*renderer, error) {
	tx := opt.Language.words()
	d, err := newDoc(opt, logo, tx.title, tx.title+" "+clean(in.Candidate.Tower.ID), m)
	if err != nil {
		return nil, err
	}
	return &renderer{doc: d, in: in, c: in.Candidate, t: in.Candidate.Tower}, nil
}

// document lays out the whole report.
func (r *renderer) document() {
	p := r.pdf
	p.AddPage()
	r.header(r.tx.title, r.t.ID+" → "+r.tx.receiver+" "+r.latLon(r.in.Request.Receiver.Lat, r.in.Request.Receiver.Lon))
	r.sites()
	r.pathFigures()
	r.profile()
	r.clearance()
	r.minHeights()
	r.budget()
	r.engine()
	r.warnings()
	r.provenance()
	r.disclaimer()
	r.signature()
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
	p.CellFormat(w[1], rowH, r.tr(tx.receiver), "", 0, "L", false, 0, "")
	p.CellFormat(w[2], rowH, r.tr(tx.tower), "", 1, "L", false, 0, "")
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
	r.section(tx.clearance, 8*rowH)
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
	}
	for i, c := range rows {
		r.row(w, c, i%2 == 0, false)
	}
}

// minHeights is the minimum antenna heights for line of sight and for 60 %
// of the first Fresnel zone, each end with the other as given.
func (r *renderer) minHeights() {
	pc, tx := r.c.Path, r.tx
	if pc == nil {
		return
	}
	r.section(tx.minHeights, 4*rowH)
	mh := func(h appliance.MinHeight) string {
		if !h.Achievable {
			return fmt.Sprintf(tx.notAchievable, r.num(h.HeightM, 0))
		}
		return r.unit(h.HeightM, 2, tx.mAGL)
	}
	w := []float64{90, 90}
	for i, c := range [][]string{
		{tx.rxLOS, mh(pc.RxMinLOS)},
		{tx.rxF60, mh(pc.RxMinFresnel60)},
		{tx.txLOS, mh(pc.TxMinLOS)},
		{tx.txF60, mh(pc.TxMinFresnel60)},
	} {
		r.row(w, c, i%2 == 0, false)
	}
}

// signature is the block the responsible engineer fills in by hand: name,
// professional registration, signature and date.
func (r *renderer) signature() {
	tx, p := r.tx, r.pdf
	r.section(tx.approval, 30)
	p.SetFont(family, "", 8)
	p.SetTextColor(80, 80, 80)
	p.SetDrawColor(120, 120, 120)
	p.SetLineWidth(0.2)
	labels := []string{tx.engineerName, tx.registration, tx.signature, tx.date}
	colW := bodyW / 2
	y := p.GetY() + 9
	for i, l := range labels {
		x := marginX + float64(i%2)*colW
		yy := y + float64(i/2)*13
		p.Line(x, yy, x+colW-8, yy)
		p.SetXY(x, yy+0.5)
		p.CellFormat(colW-8, 4, r.tr(l), "", 0, "L", false, 0, "")
	}
	p.SetY(y + 2*13)
	p.SetTextColor(30, 30, 30)
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
	p.CellFormat(w[0], rowH+1.5, r.tr(tx.margin), "", 0, "L", true, 0, "")
	p.CellFormat(w[1], rowH+1.5, r.tr(r.unit(c.LinkMarginDB, 1, "dB")), "", 1, "L", true, 0, "")
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

// warnings lists the candidate's warnings, then the caveats of its choice
// that it does not carry, code and message.
func (r *renderer) warnings() {
	tx, p := r.tx, r.pdf
	r.section(tx.warnings, 2*rowH)
	ws := r.c.Warnings
	for _, c := range r.in.Caveats {
		if !slices.Contains(ws, c) {
			ws = append(slices.Clip(ws), c)
		}
	}
	if len(ws) == 0 {
		p.SetFont(family, "", 8.5)
		p.CellFormat(bodyW, rowH, r.tr(tx.noWarnings), "", 1, "L", false, 0, "")
		r.noteLacked()
		return
	}
	if tx.warningsLang != "" {
		p.SetFont(family, "", 7.5)
		p.SetTextColor(110, 110, 110)
		p.CellFormat(bodyW, rowH-1, r.tr(tx.warningsLang), "", 1, "L", false, 0, "")
	}
	for _, w := range ws {
		if p.GetY()+2*rowH > pageH-marginB {
			p.AddPage()
		}
		y := p.GetY()
		p.SetFillColor(255, 243, 224)
		p.SetFont(family, bold, 8)
		p.SetTextColor(150, 75, 0)
		p.CellFormat(45, rowH, r.tr(r.fit(w.Code, 45)), "", 0, "L", true, 0, "")
		p.SetFont(family, "", 8)
		p.SetTextColor(30, 30, 30)
		p.SetXY(marginX+46, y)
		p.MultiCell(bodyW-46, 4.2, r.tr(orUnknown(clean(w.Message), "—")), "", "L", false)
		p.Ln(1)
	}
	r.noteLacked()
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
		p.MultiCell(bodyW, 5.5, r.tr(tx.syntheticYes), "1", "L", true)
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

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
