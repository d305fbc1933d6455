package report

import (
	"math"

	"codeberg.org/go-pdf/fpdf"

	"linkplan/appliance"
)

// Chart geometry, millimetres.
const (
	chartH      = 70.0 // plot area height
	chartLeft   = 16.0 // room for the height labels and axis title
	chartRight  = 3.0
	chartLegend = 11.0 // legend and x-axis title under the plot
)

// profile draws the path profile chart, or says that the result has none.
func (r *renderer) profile() {
	r.profileChart(r.c.Path, r.tx.legTower, r.tx.legReceiver, r.tx.axisX)
}

// profileChart draws the chart of path check pc under the profile
// heading, its ends labelled txLabel (distance 0) and rxLabel, the
// distance axis titled axisX; or says that there is no profile.
func (d *doc) profileChart(pc *appliance.PathCheck, txLabel, rxLabel, axisX string) {
	tx, p := d.tx, d.pdf
	r := d
	if pc == nil || len(pc.Profile) < 2 {
		r.section(tx.profile, rowH)
		p.SetFont(family, "", 8.5)
		p.SetTextColor(110, 110, 110)
		p.CellFormat(bodyW, rowH, r.tr(tx.noProfile), "", 1, "L", false, 0, "")
		p.SetTextColor(30, 30, 30)
		return
	}
	r.section(tx.profile, chartH+chartLegend+8)
	x0, y0 := marginX+chartLeft, p.GetY()+3
	w := bodyW - chartLeft - chartRight
	pts := pc.Profile
	dTot := pts[len(pts)-1].DistanceM

	// Height range: terrain, line of sight and the whole first Fresnel zone.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pt := range pts {
		lo = math.Min(lo, math.Min(pt.GroundM, pt.LOSM-pt.F1RadiusM))
		hi = math.Max(hi, math.Max(pt.EffectiveGroundM, pt.LOSM+pt.F1RadiusM))
	}
	yStep := niceStep((hi - lo) / 5)
	yLo := math.Floor(lo/yStep) * yStep
	yHi := math.Ceil(hi/yStep) * yStep
	if yHi-yLo < yStep {
		yHi = yLo + yStep
	}
	X := func(dM float64) float64 { return x0 + dM/dTot*w }
	Y := func(hM float64) float64 { return y0 + chartH - (hM-yLo)/(yHi-yLo)*chartH }

	// Grid and tick labels.
	p.SetLineWidth(0.1)
	p.SetDrawColor(225, 225, 225)
	p.SetFont(family, "", 6.5)
	p.SetTextColor(90, 90, 90)
	dec := decimals(yStep)
	// Tick loops count their steps (at most a few dozen: the scales come
	// from niceStep over validated ranges).
	for i := 0; i <= int(math.Round((yHi-yLo)/yStep)) && i <= 50; i++ {
		h := yLo + float64(i)*yStep
		p.Line(x0, Y(h), x0+w, Y(h))
		p.SetXY(x0-13, Y(h)-1.5)
		p.CellFormat(12, 3, r.tr(r.num(h, dec)), "", 0, "R", false, 0, "")
	}
	xStep := niceStep(dTot / 1000 / 8)
	xdec := decimals(xStep)
	for i := 0; float64(i)*xStep <= dTot/1000+xStep/1e6 && i <= 50; i++ {
		d := float64(i) * xStep
		p.Line(X(d*1000), y0, X(d*1000), y0+chartH)
		p.SetXY(X(d*1000)-8, y0+chartH+0.8)
		p.CellFormat(16, 3, r.tr(r.num(d, xdec)), "", 0, "C", false, 0, "")
	}

	p.ClipRect(x0, y0, w, chartH, false)
	// First Fresnel zone, filled, under the terrain: an intrusion shows
	// as terrain cutting into it.
	zone := make([]fpdf.PointType, 0, 2*len(pts))
	for _, pt := range pts {
		zone = append(zone, fpdf.PointType{X: X(pt.DistanceM), Y: Y(pt.LOSM + pt.F1RadiusM)})
	}
	for i := len(pts) - 1; i >= 0; i-- {
		zone = append(zone, fpdf.PointType{X: X(pts[i].DistanceM), Y: Y(pts[i].LOSM - pts[i].F1RadiusM)})
	}
	p.SetFillColor(221, 235, 250)
	p.Polygon(zone, "F")

	// Terrain with the k = 4/3 earth bulge, filled down to the axis.
	ground := make([]fpdf.PointType, 0, len(pts)+2)
	for _, pt := range pts {
		ground = append(ground, fpdf.PointType{X: X(pt.DistanceM), Y: Y(pt.EffectiveGroundM)})
	}
	ground = append(ground, fpdf.PointType{X: X(dTot), Y: Y(yLo)}, fpdf.PointType{X: X(0), Y: Y(yLo)})
	p.SetFillColor(196, 178, 140)
	p.SetDrawColor(120, 98, 60)
	p.SetLineWidth(0.25)
	p.Polygon(ground, "DF")

	// Fresnel zone edges, its 60 % line and the line of sight.
	polyline := func(f func(pt appliance.ProfilePoint) float64) {
		for i := 1; i < len(pts); i++ {
			p.Line(X(pts[i-1].DistanceM), Y(f(pts[i-1])), X(pts[i].DistanceM), Y(f(pts[i])))
		}
	}
	p.SetDrawColor(66, 133, 244)
	p.SetLineWidth(0.2)
	polyline(func(pt appliance.ProfilePoint) float64 { return pt.LOSM + pt.F1RadiusM })
	polyline(func(pt appliance.ProfilePoint) float64 { return pt.LOSM - pt.F1RadiusM })
	p.SetDrawColor(230, 124, 0)
	p.SetLineWidth(0.3)
	p.SetDashPattern([]float64{1.2, 0.8}, 0)
	polyline(func(pt appliance.ProfilePoint) float64 { return pt.LOSM - 0.6*pt.F1RadiusM })
	p.SetDashPattern(nil, 0)
	p.SetDrawColor(200, 30, 30)
	p.SetLineWidth(0.4)
	first, last := pts[0], pts[len(pts)-1]
	p.Line(X(0), Y(first.LOSM), X(dTot), Y(last.LOSM))

	// Antenna masts.
	p.SetDrawColor(40, 40, 40)
	p.SetLineWidth(0.6)
	p.Line(X(0)+0.3, Y(first.EffectiveGroundM), X(0)+0.3, Y(first.LOSM))
	p.Line(X(dTot)-0.3, Y(last.EffectiveGroundM), X(dTot)-0.3, Y(last.LOSM))

	// Dominant obstacle: a marker on the ground and its clearance.
	if o := pc.Obstacle; o != nil {
		ox, oy := X(o.DistanceFromTxM), Y(o.EffectiveGroundM)
		p.SetDrawColor(183, 28, 28)
		p.SetLineWidth(0.25)
		p.SetDashPattern([]float64{0.6, 0.6}, 0)
		p.Line(ox, oy, ox, Y(o.LOSM))
		p.SetDashPattern(nil, 0)
		p.SetFillColor(183, 28, 28)
		p.Polygon([]fpdf.PointType{{X: ox, Y: oy - 0.4}, {X: ox - 1.6, Y: oy - 3.2}, {X: ox + 1.6, Y: oy - 3.2}}, "F")
	}
	p.ClipEnd()

	// Frame, axis titles, end labels.
	p.SetLineWidth(0.25)
	p.SetDrawColor(90, 90, 90)
	p.Rect(x0, y0, w, chartH, "D")
	p.SetFont(family, "", 7)
	p.SetTextColor(60, 60, 60)
	// The height axis title, rotated a quarter turn counter-clockwise
	// about the chart's bottom left: the cell runs up the chart's left
	// side, centred on it. (It was rotated about the chart's middle from a
	// negative x, which fpdf reads from the right edge, so it landed
	// 140 mm above the chart, off the page or over the header.)
	p.TransformBegin()
	p.TransformRotate(90, marginX+1.5, y0+chartH)
	p.SetXY(marginX+1.5, y0+chartH-1.5)
	p.CellFormat(chartH, 3, r.tr(r.tx.axisY), "", 0, "C", false, 0, "")
	p.TransformEnd()
	p.SetXY(x0, y0+chartH+4)
	p.CellFormat(w, 3.5, r.tr(axisX), "", 0, "C", false, 0, "")
	p.SetFont(family, bold, 7)
	p.SetXY(x0+1.5, y0+1)
	p.CellFormat(w/2, 3.5, r.tr(txLabel+" "+r.unit(pc.TxHeightM, 1, "m")), "", 0, "L", false, 0, "")
	p.SetXY(x0+w/2-1.5, y0+1)
	p.CellFormat(w/2, 3.5, r.tr(rxLabel+" "+r.unit(pc.RxHeightM, 1, "m")), "", 0, "R", false, 0, "")
	if o := pc.Obstacle; o != nil {
		label := r.unit(o.ClearanceM, 1, "m") + " = " + r.num(o.ClearanceF1, 2) + " × F1"
		lw := r.width(label) + 2
		lx := math.Min(math.Max(X(o.DistanceFromTxM)-lw/2, x0+1), x0+w-lw-1)
		ly := math.Max(Y(math.Max(o.LOSM, o.EffectiveGroundM))-5.5, y0+5)
		p.SetFillColor(255, 255, 255)
		p.SetTextColor(183, 28, 28)
		p.SetXY(lx, ly)
		p.CellFormat(lw, 3.5, r.tr(label), "", 0, "C", true, 0, "")
	}
	r.legend(x0, y0+chartH+8.5, w, pc)
	p.SetY(y0 + chartH + chartLegend + 2)
	p.SetTextColor(30, 30, 30)
}

// legend draws the chart legend in one row under the plot.
func (r *doc) legend(x, y, w float64, pc *appliance.PathCheck) {
	p, tx := r.pdf, r.tx
	p.SetFont(family, "", 6.5)
	p.SetTextColor(60, 60, 60)
	type item struct {
		label string
		draw  func(x, y float64)
	}
	line := func(cr, cg, cb int, width float64, dash []float64) func(x, y float64) {
		return func(x, y float64) {
			p.SetDrawColor(cr, cg, cb)
			p.SetLineWidth(width)
			p.SetDashPattern(dash, 0)
			p.Line(x, y+1.75, x+6, y+1.75)
			p.SetDashPattern(nil, 0)
		}
	}
	items := []item{
		{tx.legTerrain, func(x, y float64) {
			p.SetFillColor(196, 178, 140)
			p.Rect(x, y+0.5, 6, 2.5, "F")
		}},
		{tx.legLOS, line(200, 30, 30, 0.4, nil)},
		{tx.legF1, func(x, y float64) {
			p.SetFillColor(221, 235, 250)
			p.SetDrawColor(66, 133, 244)
			p.SetLineWidth(0.2)
			p.Rect(x, y+0.5, 6, 2.5, "DF")
		}},
		{tx.legF60, line(230, 124, 0, 0.3, []float64{1.2, 0.8})},
	}
	if pc.Obstacle != nil {
		items = append(items, item{tx.legObstacle, func(x, y float64) {
			p.SetFillColor(183, 28, 28)
			p.Polygon([]fpdf.PointType{{X: x + 3, Y: y + 3.2}, {X: x + 1.4, Y: y + 0.4}, {X: x + 4.6, Y: y + 0.4}}, "F")
		}})
	}
	// One row: a font small enough that the labels fit the plot width
	// (pt-BR labels are longer).
	size := 6.5
	text := 0.0
	for _, it := range items {
		text += r.width(it.label) + 1
	}
	if fixed := float64(len(items))*10 - 3; text+fixed > w {
		size = math.Max(4.5, size*(w-fixed)/text)
		p.SetFontSize(size)
	}
	cx := x
	for _, it := range items {
		it.draw(cx, y)
		p.SetXY(cx+7, y)
		lw := r.width(it.label) + 1
		p.CellFormat(lw, 3.5, r.tr(it.label), "", 0, "L", false, 0, "")
		cx += 7 + lw + 3
	}
	// Samples and the effective earth: how the chart was computed.
	p.SetXY(x, y+4)
	p.SetFont(family, "", 6)
	p.SetTextColor(110, 110, 110)
	p.CellFormat(w, 3, r.tr(r.num(float64(len(pc.Profile)), 0)+" / "+r.num(float64(pc.SamplesTotal), 0)+" "+tx.samples+
		" · k = "+r.num(pc.KFactor, 3)+" · k·a = "+r.unit(pc.EffEarthRadiusM/1000, 0, "km")+
		" · "+r.unit(pc.FreqMHz, 1, "MHz")), "", 0, "R", false, 0, "")
}

// niceStep returns 1, 2 or 5 times a power of ten, at least raw.
func niceStep(raw float64) float64 {
	if !(raw > 0) || !finite(raw) {
		return 1
	}
	e := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*e >= raw {
			return m * e
		}
	}
	return 10 * e
}

// decimals is the number of decimals a tick step needs.
func decimals(step float64) int {
	if step >= 1 {
		return 0
	}
	return int(math.Ceil(-math.Log10(step) - 1e-9))
}
