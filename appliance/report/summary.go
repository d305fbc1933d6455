package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"linkplan/appliance"
)

// Row statuses of a batch summary (SummaryRow.Status).
const (
	StatusOK        = "ok"         // the row has a tower and a margin at or above the low-margin limit
	StatusLowMargin = "low_margin" // the row has a tower, but its margin is below the limit
	StatusNoTower   = "no_tower"   // no tower in range could serve the row
	StatusError     = "error"      // the row could not be analysed (invalid row, engine error)
)

// WorstRows is how many rows the summary's table of the worst margins
// shows.
const WorstRows = 20

// SummaryInput is what a batch summary shows: the job, its rows and what
// became of the per-row PDFs. The batch service fills it from the job and
// its results; every field is plain data.
type SummaryInput struct {
	// JobID is the batch job's id (required).
	JobID string
	// TenantID and TenantName identify the tenant the job ran for; both
	// are optional (TenantName is shown when not blank, else TenantID).
	TenantID, TenantName string
	// Title replaces the default title ("Batch summary") when not blank,
	// e.g. a client's own name of the batch.
	Title string
	// Engines names the engine(s) and versions that produced the margins,
	// one entry each, e.g. "p1812 p1812-8/1".
	Engines []string
	// Rows are all the rows of the batch, in any order. Counts by status,
	// the margin distribution (rows with a finite margin) and the
	// WorstRows lowest margins come from them.
	Rows []SummaryRow
	// PDFsIncluded is how many per-row link reports the bundle holds;
	// PDFsLeftOut how many rows have none, PDFsLeftOutReason why (e.g. "the
	// monthly PDF quota of the tier (500) was reached"). Both counts are
	// at least 0.
	PDFsIncluded, PDFsLeftOut int
	PDFsLeftOutReason         string
	// Provenance lines name the data the results rest on (tower catalogue
	// snapshot, terrain packs, land cover), one line each.
	Provenance []string
}

// SummaryRow is one row of a batch, as the summary shows it. NaN is "no
// value" for every float (a row without a tower has no distance nor
// margin).
type SummaryRow struct {
	Row        int64   // 1-based row number in the submitted batch
	ReceiverID string  // the client's receiver id; may be empty
	Lat, Lon   float64 // receiver position, degrees WGS84
	TowerID    string  // best tower's id; empty without one
	DistanceKm float64 // receiver to tower, km
	MarginDB   float64 // link margin, dB
	Status     string  // StatusOK, StatusLowMargin, StatusNoTower or StatusError
	Reason     string  // why a row is no_tower, error or low_margin; may be empty
}

// WriteSummary renders the summary of a batch bundle as a PDF to w. A
// missing job id, an unknown row status, negative PDF counts and the
// option errors of Write match appliance.ErrInvalid; a write error of w is
// returned wrapped.
func WriteSummary(w io.Writer, in SummaryInput, opt Options) error {
	v := &appliance.ValidationError{}
	if strings.TrimSpace(in.JobID) == "" {
		v.Add("job_id", "is required")
	}
	for i, row := range in.Rows {
		switch row.Status {
		case StatusOK, StatusLowMargin, StatusNoTower, StatusError:
		default:
			v.Add(fmt.Sprintf("rows[%d].status", i), "must be %q, %q, %q or %q, got %q",
				StatusOK, StatusLowMargin, StatusNoTower, StatusError, row.Status)
		}
		if v.Full() {
			break
		}
	}
	if in.PDFsIncluded < 0 {
		v.Add("pdfs_included", "must be at least 0, got %d", in.PDFsIncluded)
	}
	if in.PDFsLeftOut < 0 {
		v.Add("pdfs_left_out", "must be at least 0, got %d", in.PDFsLeftOut)
	}
	logo := validateOptions(v, &opt)
	if err := v.Err(); err != nil {
		return fmt.Errorf("batch summary: %w", err)
	}
	tx := opt.Language.words()
	title := tx.sumTitle
	if t := clean(in.Title); t != "" {
		title = t
	}
	// Simple fonts first; Unicode fonts when a text needs a character
	// outside simple8 (fonts.go, renderModes).
	err := renderModes(w, func(m fontMode, lacked []rune) (*doc, error) {
		d, err := newDoc(opt, logo, title, title+" "+clean(in.JobID), m)
		if err != nil {
			return nil, err
		}
		d.lacked = lacked
		s := &summary{doc: d, in: in, title: title}
		s.stats()
		s.document()
		return d, nil
	})
	if err != nil {
		return fmt.Errorf("batch summary: %w", err)
	}
	return nil
}

// summary holds the state of one batch summary.
type summary struct {
	*doc
	in      SummaryInput
	title   string
	counts  map[string]int
	margins []float64    // finite margins, ascending
	worst   []SummaryRow // lowest finite margins, ascending, ties by row
	reasons []reasonCount
}

// reasonCount is how many rows without a margin share a status and reason.
type reasonCount struct {
	status, reason string
	n              int
	first          int64 // lowest row number
}

// stats computes the counts, margins, worst rows and reasons in one pass
// (plus a sort of the margins).
func (s *summary) stats() {
	s.counts = map[string]int{}
	type key struct{ status, reason string }
	byReason := map[key]*reasonCount{}
	less := func(a, b SummaryRow) int {
		return cmp.Or(cmp.Compare(a.MarginDB, b.MarginDB), cmp.Compare(a.Row, b.Row))
	}
	for _, row := range s.in.Rows {
		s.counts[row.Status]++
		if finite(row.MarginDB) {
			s.margins = append(s.margins, row.MarginDB)
			if len(s.worst) < WorstRows || less(row, s.worst[len(s.worst)-1]) < 0 {
				i, _ := slices.BinarySearchFunc(s.worst, row, less)
				s.worst = slices.Insert(s.worst, i, row)
				if len(s.worst) > WorstRows {
					s.worst = s.worst[:WorstRows]
				}
			}
			continue
		}
		k := key{row.Status, clean(row.Reason)}
		rc := byReason[k]
		if rc == nil {
			rc = &reasonCount{status: k.status, reason: k.reason, first: row.Row}
			byReason[k] = rc
		}
		rc.n++
		rc.first = min(rc.first, row.Row)
	}
	slices.Sort(s.margins)
	for _, rc := range byReason {
		s.reasons = append(s.reasons, *rc)
	}
	slices.SortFunc(s.reasons, func(a, b reasonCount) int {
		return cmp.Or(-cmp.Compare(a.n, b.n), cmp.Compare(a.first, b.first))
	})
}

// document lays out the whole summary.
func (s *summary) document() {
	s.pdf.AddPage()
	s.header(s.title, s.tx.job+" "+s.in.JobID)
	s.jobTable()
	s.statusTable()
	s.distribution()
	s.worstTable()
	s.reasonTable()
	s.pdfs()
	s.provenance()
	s.disclaimer()
}

// jobTable is the job, tenant, brand, creation time and engines.
func (s *summary) jobTable() {
	tx := s.tx
	s.section(tx.job, 5*rowH)
	tenant := clean(s.in.TenantName)
	if tenant == "" {
		tenant = clean(s.in.TenantID)
	} else if id := clean(s.in.TenantID); id != "" {
		tenant += " (" + id + ")"
	}
	engines := make([]string, 0, len(s.in.Engines))
	for _, e := range s.in.Engines {
		if e = clean(e); e != "" {
			engines = append(engines, e)
		}
	}
	w := []float64{50, 130}
	for i, c := range [][]string{
		{tx.jobID, s.in.JobID},
		{tx.tenant, orUnknown(tenant, tx.unknown)},
		{tx.brand, s.brand},
		{tx.created, s.created},
		{tx.engines, orUnknown(strings.Join(engines, "; "), tx.unknown)},
		{tx.rows, s.num(float64(len(s.in.Rows)), 0)},
	} {
		s.row(w, c, i%2 == 0, i == 0)
	}
}

// statusTable is the counts by status with their share, and a stacked bar.
func (s *summary) statusTable() {
	tx, p := s.tx, s.pdf
	s.section(tx.byStatus, 6*rowH+8)
	total := len(s.in.Rows)
	type st struct {
		status, label string
		col           rgb
	}
	sts := []st{
		{StatusOK, tx.stOK, rgb{67, 160, 71}},
		{StatusLowMargin, tx.stLow, rgb{251, 140, 0}},
		{StatusNoTower, tx.stNoTower, rgb{120, 144, 156}},
		{StatusError, tx.stError, rgb{211, 47, 47}},
	}
	pct := func(n int) string {
		if total == 0 {
			return "—"
		}
		return s.num(100*float64(n)/float64(total), 1) + " %"
	}
	w := []float64{70, 40, 30, 40}
	al := []string{"L", "L", "R", "R"}
	p.SetFont(family, bold, 8.5)
	s.row(w, []string{tx.status, "", tx.count, tx.share}, false, true, al...)
	for i, x := range sts {
		y := p.GetY()
		s.row(w, []string{x.label, x.status, s.num(float64(s.counts[x.status]), 0), pct(s.counts[x.status])}, i%2 == 0, false, al...)
		p.SetFillColor(x.col.r, x.col.g, x.col.b)
		p.Rect(marginX+w[0]-5, y+1.3, 2.6, 2.6, "F")
	}
	s.row(w, []string{tx.total, "", s.num(float64(total), 0), pct(total)}, false, true, al...)
	// The stacked bar.
	y := p.GetY() + 1.5
	x := marginX
	if total > 0 {
		for _, st := range sts {
			bw := bodyW * float64(s.counts[st.status]) / float64(total)
			if bw <= 0 {
				continue
			}
			p.SetFillColor(st.col.r, st.col.g, st.col.b)
			p.Rect(x, y, bw, 4, "F")
			x += bw
		}
	} else {
		p.SetFillColor(230, 230, 230)
		p.Rect(x, y, bodyW, 4, "F")
	}
	p.SetY(y + 5.5)
}

// quantile returns the q-quantile (0..1) of sorted values by linear
// interpolation between order statistics; NaN for none.
func quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	pos := q * float64(n-1)
	i := int(math.Floor(pos))
	if i >= n-1 {
		return sorted[n-1]
	}
	f := pos - float64(i)
	return sorted[i] + f*(sorted[i+1]-sorted[i])
}

// distribution is the margin quantiles and a histogram.
func (s *summary) distribution() {
	tx, p := s.tx, s.pdf
	const histH = 38.0
	s.section(tx.distribution, 2*rowH+histH+14)
	m := s.margins
	if len(m) == 0 {
		p.SetFont(family, "", 8.5)
		p.SetTextColor(110, 110, 110)
		p.CellFormat(bodyW, rowH, s.tr(tx.noMargins), "", 1, "L", false, 0, "")
		p.SetTextColor(30, 30, 30)
		return
	}
	qs := []struct {
		label string
		q     float64
	}{{tx.qMin, 0}, {"P10", 0.1}, {"P25", 0.25}, {tx.qMedian, 0.5}, {"P75", 0.75}, {"P90", 0.9}, {tx.qMax, 1}}
	w := make([]float64, len(qs)+1)
	w[0] = 33
	heads, vals := []string{tx.marginDB}, []string{fmt.Sprintf(tx.rowsWithMargin, s.num(float64(len(m)), 0))}
	al := []string{"L"}
	for i, q := range qs {
		w[i+1] = (bodyW - w[0]) / float64(len(qs))
		heads = append(heads, q.label)
		vals = append(vals, s.num(quantile(m, q.q), 1))
		al = append(al, "R")
	}
	s.row(w, heads, true, true, al...)
	s.row(w, vals, false, false, al...)

	// Histogram: bins of a nice width, about ten of them, over the margins
	// clamped to ±histClampDB (beyond it a margin is an outlier of the
	// edge bin).
	const histClampDB = 300
	lo, hi := math.Max(m[0], -histClampDB), math.Min(m[len(m)-1], histClampDB)
	if lo > hi {
		lo, hi = hi, lo
	}
	step := niceStep((hi - lo) / 10)
	b0 := math.Floor(lo/step) * step
	nb := int(math.Floor((hi-b0)/step)) + 1
	nb = min(max(nb, 1), 40)
	bins := make([]int, nb)
	for _, v := range m {
		v = math.Min(math.Max(v, lo), hi)
		bins[min(max(int(math.Floor((v-b0)/step)), 0), nb-1)]++
	}
	peak := slices.Max(bins)
	x0, y0 := marginX+10, p.GetY()+6
	cw := bodyW - 12
	bw := cw / float64(nb)
	p.SetLineWidth(0.1)
	p.SetDrawColor(225, 225, 225)
	p.SetFont(family, "", 6.5)
	p.SetTextColor(90, 90, 90)
	yStep := niceStep(float64(peak) / 4)
	yStep = math.Max(yStep, 1)
	yTop := math.Ceil(float64(peak)/yStep) * yStep
	for c := 0.0; c <= yTop+yStep/1e6; c += yStep {
		y := y0 + histH - c/yTop*histH
		p.Line(x0, y, x0+cw, y)
		p.SetXY(x0-10, y-1.5)
		p.CellFormat(9, 3, s.tr(s.num(c, 0)), "", 0, "R", false, 0, "")
	}
	dec := decimals(step)
	every := 1 + nb/12 // label every bin edge, or every other when crowded
	for i, n := range bins {
		edge := b0 + float64(i)*step
		col := rgb{s.accent.r, s.accent.g, s.accent.b}
		if edge+step <= 0 {
			col = rgb{211, 47, 47}
		}
		if n > 0 {
			h := float64(n) / yTop * histH
			p.SetFillColor(col.r, col.g, col.b)
			p.Rect(x0+float64(i)*bw+0.4, y0+histH-h, bw-0.8, h, "F")
		}
		if i%every == 0 {
			p.SetXY(x0+float64(i)*bw-8, y0+histH+0.8)
			p.CellFormat(16, 3, s.tr(s.num(edge, dec)), "", 0, "C", false, 0, "")
		}
	}
	if nb%every == 0 {
		p.SetXY(x0+cw-8, y0+histH+0.8)
		p.CellFormat(16, 3, s.tr(s.num(b0+float64(nb)*step, dec)), "", 0, "C", false, 0, "")
	}
	p.SetDrawColor(90, 90, 90)
	p.SetLineWidth(0.25)
	p.Line(x0, y0+histH, x0+cw, y0+histH)
	p.SetFont(family, "", 7)
	p.SetTextColor(60, 60, 60)
	p.SetXY(x0, y0+histH+4)
	p.CellFormat(cw, 3.5, s.tr(fmt.Sprintf(tx.histAxis, s.num(step, dec))), "", 0, "C", false, 0, "")
	p.SetXY(x0, y0-5)
	p.CellFormat(cw, 3.5, s.tr(tx.histRows), "", 0, "L", false, 0, "")
	p.SetY(y0 + histH + 9)
	p.SetTextColor(30, 30, 30)
}

// worstTable is the WorstRows rows with the lowest margins.
func (s *summary) worstTable() {
	tx, p := s.tx, s.pdf
	s.section(fmt.Sprintf(tx.worst, len(s.worst)), 3*rowH)
	if len(s.worst) == 0 {
		p.SetFont(family, "", 8.5)
		p.CellFormat(bodyW, rowH, s.tr(tx.noMargins), "", 1, "L", false, 0, "")
		return
	}
	w := []float64{11, 24, 17, 18, 34, 13, 13, 50}
	al := []string{"R", "L", "R", "R", "L", "R", "R", "L"}
	head := []string{tx.colRow, tx.colReceiver, tx.colLat, tx.colLon, tx.colTower, "km", "dB", tx.colStatus}
	s.row(w, head, true, true, al...)
	for i, r := range s.worst {
		if p.GetY()+rowH > pageH-marginB {
			// A table split across pages repeats its header.
			p.AddPage()
			s.row(w, head, true, true, al...)
		}
		st := r.Status
		if rs := clean(r.Reason); rs != "" {
			st += ": " + rs
		}
		s.row(w, []string{
			s.num(float64(r.Row), 0), orUnknown(r.ReceiverID, "—"), s.num(r.Lat, 5), s.num(r.Lon, 5),
			orUnknown(r.TowerID, "—"), s.num(r.DistanceKm, 2), s.num(r.MarginDB, 1), st,
		}, i%2 == 1, false, al...)
	}
}

// reasonTable groups the rows without a margin by status and reason.
func (s *summary) reasonTable() {
	tx := s.tx
	if len(s.reasons) == 0 {
		return
	}
	const most = 10
	s.section(tx.noMargin, 3*rowH)
	w := []float64{25, 115, 20, 20}
	al := []string{"L", "L", "R", "R"}
	s.row(w, []string{tx.colStatus, tx.reason, tx.count, tx.firstRow}, true, true, al...)
	for i, rc := range s.reasons[:min(len(s.reasons), most)] {
		s.row(w, []string{rc.status, orUnknown(rc.reason, "—"), s.num(float64(rc.n), 0), s.num(float64(rc.first), 0)}, i%2 == 1, false, al...)
	}
	if more := len(s.reasons) - most; more > 0 {
		rest := 0
		for _, rc := range s.reasons[most:] {
			rest += rc.n
		}
		s.row(w, []string{"", fmt.Sprintf(tx.moreReasons, more), s.num(float64(rest), 0), ""}, false, false, al...)
	}
}

// pdfs says how many per-row reports the bundle holds and why some are
// left out.
func (s *summary) pdfs() {
	tx := s.tx
	s.section(tx.pdfs, 3*rowH)
	w := []float64{60, 120}
	rows := [][]string{
		{tx.pdfsIn, s.num(float64(s.in.PDFsIncluded), 0)},
		{tx.pdfsOut, s.num(float64(s.in.PDFsLeftOut), 0)},
	}
	if s.in.PDFsLeftOut > 0 {
		rows = append(rows, []string{tx.pdfsWhy, orUnknown(s.in.PDFsLeftOutReason, tx.unknown)})
	}
	for i, c := range rows {
		s.row(w, c, i%2 == 0, false)
	}
}

// provenance lists the data provenance lines.
func (s *summary) provenance() {
	tx, p := s.tx, s.pdf
	s.section(tx.dataProvenance, 2*rowH)
	p.SetFont(family, "", 8.5)
	p.SetTextColor(30, 30, 30)
	n := 0
	for _, l := range s.in.Provenance {
		if l = clean(l); l == "" {
			continue
		}
		p.SetX(marginX + 2)
		p.MultiCell(bodyW-2, 4.5, s.tr("• "+l), "", "L", false)
		n++
	}
	if n == 0 {
		p.CellFormat(bodyW, rowH, s.tr(tx.unknown), "", 1, "L", false, 0, "")
	}
	s.noteLacked()
}
