package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"linkplan/appliance"
)

// MaxPTPFieldRunes bounds the report's own text fields (ART, engineer).
const MaxPTPFieldRunes = 100

// PTPInput is what a point-to-point report shows: one planned link
// (appliance/ptp) and the fields an engineer signs it with.
type PTPInput struct {
	// Link is the answer of appliance/ptp (required); its Path carries
	// the whole profile, drawn as the chart.
	Link *appliance.PTPLink
	// ART is the number of the responsible engineer's Anotação de
	// Responsabilidade Técnica (CREA/CONFEA), when given; the report has
	// a blank line for it otherwise.
	ART string
	// EngineerName and EngineerRegistration fill the signature block
	// (blank lines when empty).
	EngineerName, EngineerRegistration string
	// Terrain names the terrain data, for the sources.
	Terrain string
}

// WritePTP renders the point-to-point report of in as a PDF to w (the
// package doc, "Point-to-point report"). A missing link, a malformed
// profile, options as for Write or a field over MaxPTPFieldRunes is an
// error matching appliance.ErrInvalid; a write error of w is returned
// wrapped.
func WritePTP(w io.Writer, in PTPInput, opt Options) error {
	v := &appliance.ValidationError{}
	if in.Link == nil {
		v.Add("link", "is required")
	} else if in.Link.Path != nil {
		validatePath(v, in.Link.Path)
	}
	for _, f := range []struct{ name, s string }{{"art", in.ART}, {"engineer_name", in.EngineerName}, {"engineer_registration", in.EngineerRegistration}} {
		if len([]rune(f.s)) > MaxPTPFieldRunes {
			v.Add(f.name, "must be at most %d characters", MaxPTPFieldRunes)
		}
	}
	logo := validateOptions(v, &opt)
	if err := v.Err(); err != nil {
		return fmt.Errorf("point-to-point report: %w", err)
	}
	err := renderModes(w, func(m fontMode, lacked []rune) (*doc, error) {
		tx := opt.Language.ptpWords()
		d, err := newDoc(opt, logo, tx.title, tx.title+" "+endName(&in.Link.Request.A, "A")+" - "+endName(&in.Link.Request.B, "B"), m)
		if err != nil {
			return nil, err
		}
		d.lacked = lacked
		r := &ptpRenderer{doc: d, in: in, l: in.Link, pt: tx}
		r.document()
		return d, nil
	})
	if err != nil {
		return fmt.Errorf("point-to-point report: %w", err)
	}
	return nil
}

// endName is an end's name, else def.
func endName(e *appliance.PTPEnd, def string) string {
	if s := clean(e.Name); s != "" {
		return s
	}
	return def
}

type ptpRenderer struct {
	*doc
	in PTPInput
	l  *appliance.PTPLink
	pt *ptpTexts
}

func (r *ptpRenderer) document() {
	p, l := r.pdf, r.l
	req := &l.Request
	p.AddPage()
	a, b := endName(&req.A, "A"), endName(&req.B, "B")
	r.header(r.pt.title, a+" ↔ "+b+" · "+r.unit(l.DistanceKm, 3, "km")+" · "+r.unit(req.FreqMHz, 0, "MHz"))
	r.ends()
	r.equipment()
	r.pathFigures()
	r.profileChart(l.Path, "A", "B", r.pt.axisX)
	r.clearanceRules()
	r.modes()
	r.availability()
	r.ptpWarnings()
	r.sources()
	r.disclaimer()
	r.signatureART()
}

// two is a table of label, A and B.
func (r *ptpRenderer) two(rows [][]string) {
	w := []float64{56, 62, 62}
	for i, c := range rows {
		r.row(w, c, i%2 == 0, false)
	}
}

func (r *ptpRenderer) head(cells []string, w []float64, align ...string) {
	p := r.pdf
	p.SetFont(family, bold, 8)
	p.SetTextColor(80, 80, 80)
	for i, c := range cells {
		al := "L"
		if i < len(align) && align[i] != "" {
			al = align[i]
		}
		p.CellFormat(w[i], rowH, r.tr(r.fit(c, w[i])), "B", 0, al, false, 0, "")
	}
	p.Ln(rowH)
	p.SetTextColor(30, 30, 30)
}

func (r *ptpRenderer) ends() {
	pt, tx, l := r.pt, r.tx, r.l
	req := &l.Request
	r.section(pt.ends, 12*rowH)
	r.head([]string{"", "A", "B"}, []float64{56, 62, 62})
	station := func(s string) string { return orUnknown(s, pt.notGiven) }
	pointing := func(v float64, aligned bool) string {
		s := r.deg(v, 2)
		if aligned {
			s += " (" + pt.aligned + ")"
		}
		return s
	}
	r.two([][]string{
		{pt.name, endName(&req.A, "A"), endName(&req.B, "B")},
		{pt.station, station(req.A.AnatelStation), station(req.B.AnatelStation)},
		{tx.latitude, r.deg(req.A.Pos.Lat, 6), r.deg(req.B.Pos.Lat, 6)},
		{tx.longitude, r.deg(req.A.Pos.Lon, 6), r.deg(req.B.Pos.Lon, 6)},
		{tx.ground, r.unit(l.A.GroundM, 1, tx.mAMSL), r.unit(l.B.GroundM, 1, tx.mAMSL)},
		{tx.antenna, r.unit(req.A.HeightM, 1, tx.mAGL), r.unit(req.B.HeightM, 1, tx.mAGL)},
		{pt.bearing, r.deg(l.A.BearingDeg, 2), r.deg(l.B.BearingDeg, 2)},
		{pt.azimuth, pointing(l.A.AzimuthDeg, l.A.AzimuthAligned), pointing(l.B.AzimuthDeg, l.B.AzimuthAligned)},
		{pt.elevation, r.deg(l.A.ElevationDeg, 3), r.deg(l.B.ElevationDeg, 3)},
		{pt.tilt, pointing(l.A.TiltDeg, l.A.TiltAligned), pointing(l.B.TiltDeg, l.B.TiltAligned)},
	})
}

func (r *ptpRenderer) equipment() {
	pt, l := r.pt, r.l
	req := &l.Request
	r.section(pt.equipment, 7*rowH)
	r.head([]string{"", "A", "B"}, []float64{56, 62, 62})
	radio := func(e *appliance.PTPEnd) string {
		if e.Radio == nil {
			return "—"
		}
		return e.Radio.Name
	}
	antenna := func(e *appliance.PTPEnd) string {
		if e.Antenna == nil {
			return "—"
		}
		return e.Antenna.Name
	}
	r.two([][]string{
		{pt.radio, radio(&req.A), radio(&req.B)},
		{pt.antennaModel, antenna(&req.A), antenna(&req.B)},
		{pt.gain, r.unit(l.A.AntennaGainDBi, 1, "dBi"), r.unit(l.B.AntennaGainDBi, 1, "dBi")},
		{pt.patternLoss, r.unit(l.A.AntennaLossDB, 2, "dB"), r.unit(l.B.AntennaLossDB, 2, "dB")},
		{pt.cable, r.unit(req.A.CableLossDB, 1, "dB"), r.unit(req.B.CableLossDB, 1, "dB")},
	})
	if req.A.Radio != nil && req.A.Radio.Builtin || req.B.Radio != nil && req.B.Radio.Builtin ||
		req.A.Antenna != nil && req.A.Antenna.Builtin || req.B.Antenna != nil && req.B.Antenna.Builtin {
		p := r.pdf
		p.SetFont(family, "", 7.5)
		p.SetTextColor(110, 110, 110)
		p.MultiCell(bodyW, 4, r.tr(pt.builtinNote), "", "L", false)
		p.SetTextColor(30, 30, 30)
	}
}

func (r *ptpRenderer) pathFigures() {
	pt, tx, l := r.pt, r.tx, r.l
	req := &l.Request
	r.section(tx.path, 5*rowH)
	yn := func(b bool) string {
		if b {
			return tx.yes
		}
		return tx.no
	}
	w := []float64{38, 44, 60, 38}
	rows := [][]string{
		{tx.distance, r.unit(l.DistanceKm, 3, "km"), tx.frequency, r.unit(req.FreqMHz, 1, "MHz")},
		{pt.channel, r.unit(req.ChannelMHz, 2, "MHz"), pt.polarization, pt.pol(req.Polarization)},
		{tx.engineID, string(l.Prediction.Engine) + " " + l.Prediction.EngineVersion, tx.pathLoss, r.unit(l.Prediction.PathLossDB, 2, "dB")},
		{tx.diffraction, r.unit(l.Prediction.DiffractionDB, 2, "dB"), pt.gas, r.unit(l.GasAttenuationDB, 3, "dB")},
		{tx.losClear, yn(l.Prediction.LOSClear), tx.fresnelOK, yn(l.Prediction.FresnelOK)},
	}
	for i, c := range rows {
		r.row(w, c, i%2 == 0, false)
	}
}

func (r *ptpRenderer) clearanceRules() {
	pt := r.pt
	r.section(pt.clearance, 7*rowH)
	w := []float64{74, 12, 28, 14, 26, 26}
	r.head([]string{pt.rule, "k", pt.clearanceF1, pt.met, pt.minA, pt.minB}, w, "", "R", "R", "C", "R", "R")
	mh := func(h appliance.MinHeight) string {
		if !h.Achievable {
			return "> " + r.num(h.HeightM, 0) + " m"
		}
		return r.unit(h.HeightM, 2, "m")
	}
	for i, c := range r.l.Clearance {
		yes := r.tx.no
		if c.Met {
			yes = r.tx.yes
		}
		k := "4/3"
		if c.KFactor < 1 {
			k = "2/3"
		}
		r.row(w, []string{pt.ruleName(c.F1Fraction, c.KFactor), k, r.num(c.ClearanceF1, 2) + " F1", yes, mh(c.MinHeightA), mh(c.MinHeightB)},
			i%2 == 0, false, "", "R", "R", "C", "R", "R")
	}
}

func (r *ptpRenderer) modes() {
	pt, l, p := r.pt, r.l, r.pdf
	r.section(pt.budget, float64(len(l.Modes)+3)*rowH)
	p.SetFont(family, "", 7.5)
	p.SetTextColor(80, 80, 80)
	p.MultiCell(bodyW, 4, r.tr(pt.budgetRule), "", "L", false)
	p.SetTextColor(30, 30, 30)
	w := []float64{32, 15, 19, 19, 18, 17, 24, 21, 15}
	al := []string{"", "R", "R", "R", "R", "R", "R", "R", "C"}
	r.head([]string{pt.mode, "Mbit/s", pt.rxAB, pt.rxBA, pt.sens, pt.margin, pt.avail, pt.outage, pt.met}, w, al...)
	for i, m := range l.Modes {
		av, out, ok := "—", "—", ""
		if a := m.Availability; a != nil {
			av = r.num(a.AvailabilityPct, 5)
			switch a.Bound {
			case "at_least":
				av = "≥ " + av
			case "at_most":
				av = "≤ " + av
			}
			out = r.num(a.OutageMinutesPerYear, 1)
			ok = r.tx.no
			if a.MeetsTarget {
				ok = r.tx.yes
			}
		}
		sens := r.num(m.AB.SensitivityDBm, 1)
		if m.BA.SensitivityDBm != m.AB.SensitivityDBm {
			sens += "/" + r.num(m.BA.SensitivityDBm, 1)
		}
		r.row(w, []string{m.Name, r.num(m.ThroughputMbps, 1), r.num(m.AB.RxLevelDBm, 2), r.num(m.BA.RxLevelDBm, 2), sens,
			r.num(m.FadeMarginDB, 2), av, out, ok}, i%2 == 0, i == l.Recommended, al...)
	}
}

func (r *ptpRenderer) availability() {
	pt, l, p := r.pt, r.l, r.pdf
	req := &l.Request
	r.section(pt.availability, 8*rowH)
	rec := pt.noMode
	if l.Recommended >= 0 {
		m := l.Modes[l.Recommended]
		rec = m.Name + " (" + r.unit(m.ThroughputMbps, 1, "Mbit/s") + ")"
	}
	w := []float64{70, 110}
	r.row(w, []string{pt.target, r.num(req.AvailabilityTargetPct, 3) + " %"}, true, false)
	r.row(w, []string{pt.recommended, rec}, false, true)
	if !l.Availability {
		p.SetFont(family, "", 8.5)
		p.MultiCell(bodyW, 4.5, r.tr(pt.notComputed), "", "L", false)
		return
	}
	p.Ln(1)
	wr := []float64{44, 34, 30, 36, 36}
	al := []string{"R", "R", "", "R", "R"}
	r.head([]string{pt.target, pt.needed, pt.bound, pt.rainOnly, pt.multipathOnly}, wr, al...)
	for i, q := range l.Required {
		r.row(wr, []string{r.num(q.AvailabilityPct, 3) + " %", r.unit(q.FadeMarginDB, 2, "dB"), pt.boundName(q.Bound),
			r.unit(q.RainOnlyDB, 2, "dB"), r.unit(q.MultipathOnlyDB, 2, "dB")}, i%2 == 0, false, al...)
	}
	if c := l.Climate; c != nil {
		p.Ln(1)
		wc := []float64{58, 32, 58, 32}
		rows := [][]string{
			{pt.r001, r.unit(c.R001MMH, 2, "mm/h"), pt.p0, r.num(c.P0RainPct, 3) + " %"},
			{pt.gammaR, r.unit(c.GammaRDBPerKm, 3, "dB/km"), pt.a001, r.unit(c.A001DB, 2, "dB")},
			{"dN1", r.num(c.DN1, 1), pt.roughness, r.unit(c.SaM, 1, "m")},
			{pt.geoclimatic, r.sci(c.GeoclimaticK, 3), pt.inclination, r.unit(c.InclinationMrad, 2, "mrad")},
			{pt.gasRate, r.unit(c.GasDBPerKm, 4, "dB/km"), pt.air, r.unit(c.TemperatureK-273.15, 1, "°C") + ", " + r.unit(c.WaterVapourGM3, 2, "g/m³")},
		}
		for i, cells := range rows {
			r.row(wc, cells, i%2 == 0, false)
		}
		p.SetFont(family, "", 7.5)
		p.SetTextColor(80, 80, 80)
		p.MultiCell(bodyW, 4, r.tr(pt.r001Source+": "+c.R001Source), "", "L", false)
		p.SetTextColor(30, 30, 30)
	}
}

// ptpWarnings lists every warning of the link, then the modes' own that
// the link's do not already carry.
func (r *ptpRenderer) ptpWarnings() {
	tx, p := r.tx, r.pdf
	r.section(tx.warnings, 2*rowH)
	ws := slices.Clone(r.l.Warnings)
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
		p.SetFont(family, bold, 7.5)
		p.SetTextColor(150, 75, 0)
		p.CellFormat(58, rowH, r.tr(r.fit(w.Code, 58)), "", 0, "L", true, 0, "")
		p.SetFont(family, "", 8)
		p.SetTextColor(30, 30, 30)
		p.SetXY(marginX+59, y)
		p.MultiCell(bodyW-59, 4.2, r.tr(orUnknown(clean(w.Message), "—")), "", "L", false)
		p.Ln(1)
	}
	r.noteLacked()
}

func (r *ptpRenderer) sources() {
	pt, p := r.pt, r.pdf
	r.section(pt.sources, 4*rowH)
	p.SetFont(family, "", 7.5)
	p.SetTextColor(50, 50, 50)
	src := r.l.Sources
	if r.in.Terrain != "" && !slices.ContainsFunc(src, func(s string) bool { return strings.Contains(s, r.in.Terrain) }) {
		src = append(slices.Clip(src), "terrain: "+r.in.Terrain)
	}
	for _, s := range src {
		p.MultiCell(bodyW, 3.8, r.tr("• "+clean(s)), "", "L", false)
	}
	p.SetTextColor(30, 30, 30)
}

// signatureART is the signature block with the ART: filled fields are
// printed over their line, empty ones left blank for the pen.
func (r *ptpRenderer) signatureART() {
	pt, tx, p := r.pt, r.tx, r.pdf
	r.section(tx.approval, 44)
	p.SetDrawColor(120, 120, 120)
	p.SetLineWidth(0.2)
	type field struct{ label, value string }
	fields := []field{{tx.engineerName, r.in.EngineerName}, {tx.registration, r.in.EngineerRegistration},
		{pt.art, r.in.ART}, {tx.date, ""}, {tx.signature, ""}}
	colW := bodyW / 2
	y := p.GetY() + 9
	for i, f := range fields {
		x := marginX + float64(i%2)*colW
		yy := y + float64(i/2)*13
		if f.value != "" {
			p.SetFont(family, bold, 9)
			p.SetTextColor(20, 20, 20)
			p.SetXY(x, yy-5)
			p.CellFormat(colW-8, 4.5, r.tr(r.fit(f.value, colW-8)), "", 0, "L", false, 0, "")
		}
		p.Line(x, yy, x+colW-8, yy)
		p.SetXY(x, yy+0.5)
		p.SetFont(family, "", 8)
		p.SetTextColor(80, 80, 80)
		p.CellFormat(colW-8, 4, r.tr(f.label), "", 0, "L", false, 0, "")
	}
	p.SetY(y + 3*13)
	p.SetTextColor(30, 30, 30)
}

// ptpTexts are the words of the point-to-point report in one language
// (the link report's texts serve the rest).
type ptpTexts struct {
	title, axisX, ends, name, station, notGiven, bearing, azimuth, elevation, tilt, aligned string
	equipment, radio, antennaModel, gain, patternLoss, cable, builtinNote                   string
	channel, polarization, gas, horizontal, vertical, dual                                  string
	clearance, rule, clearanceF1, met, minA, minB                                           string
	ruleLOS, rule60, rule100, ruleGrazing, rule30                                           string
	budget, budgetRule, mode, rxAB, rxBA, sens, margin, avail, outage                       string
	availability, target, recommended, noMode, notComputed, needed, bound                   string
	rainOnly, multipathOnly, exact, atLeast, atMost                                         string
	p0, gammaR, a001, roughness, geoclimatic, inclination, gasRate, air, r001Source         string
	sources, art, r001                                                                      string
}

func (t *ptpTexts) pol(p appliance.Polarization) string {
	switch p {
	case appliance.PolarizationHorizontal:
		return t.horizontal
	case appliance.PolarizationDual:
		return t.dual
	}
	return t.vertical
}

func (t *ptpTexts) boundName(b string) string {
	switch b {
	case "at_least":
		return t.atLeast
	case "at_most":
		return t.atMost
	}
	return t.exact
}

func (t *ptpTexts) ruleName(fraction, k float64) string {
	switch {
	case fraction == 0 && k > 1:
		return t.ruleLOS
	case fraction == 0.6:
		return t.rule60
	case fraction == 1:
		return t.rule100
	case fraction == 0:
		return t.ruleGrazing
	}
	return t.rule30
}

// ptpWords returns the point-to-point texts of l; anything but
// Portuguese is English.
func (l Language) ptpWords() *ptpTexts {
	if l == Portuguese {
		return &ptpTexts{
			title: "Relatório de enlace ponto a ponto", axisX: "Distância a partir de A (km)", ends: "Pontas do enlace",
			name: "Nome", station: "Nº da estação Anatel", notGiven: "não informado", bearing: "Rumo para a outra ponta",
			azimuth: "Azimute da antena", elevation: "Ângulo abaixo do horizonte", tilt: "Inclinação mecânica",
			aligned: "alinhada", equipment: "Equipamentos", radio: "Rádio", antennaModel: "Antena", gain: "Ganho da antena",
			patternLoss: "Perda do diagrama para a outra ponta", cable: "Perdas em cabos e conectores",
			builtinNote: "Equipamentos \"builtin:\" são exemplos genéricos calculados de fórmulas documentadas, não dados de fabricante.",
			channel:     "Largura do canal", polarization: "Polarização", gas: "Absorção gasosa (P.676)",
			horizontal: "horizontal", vertical: "vertical", dual: "dupla (dimensionada na horizontal)",
			clearance: "Desobstrução (ITU-R P.530-17 §2.2.2)", rule: "Critério", clearanceF1: "Folga mínima", met: "Atende",
			minA: "Altura mín. A", minB: "Altura mín. B",
			ruleLOS: "Visada direta, atmosfera mediana", rule60: "60 % de F1 (regra prática)", rule100: "100 % de F1, k mediano",
			ruleGrazing: "Rasante, k mínimo (obstáculo isolado)", rule30: "30 % de F1, k mínimo (obstáculo extenso)",
			budget:     "Orçamento do enlace por modulação",
			budgetRule: "Nível recebido = potência − cabo + ganho − perda do diagrama − perda no trajeto − absorção gasosa + ganho − cabo; margem de desvanecimento = nível recebido − sensibilidade, na direção mais fraca (níveis em dBm, margens em dB). A disponibilidade é a da ITU-R P.530-17 (chuva + multipercurso) nessa margem.",
			mode:       "Modulação", rxAB: "Rx A→B", rxBA: "Rx B→A", sens: "Sensib.", margin: "Margem",
			avail: "Disponib. %", outage: "min/ano",
			availability: "Disponibilidade (ITU-R P.530-17, P.837-7, P.838-3)", target: "Disponibilidade exigida",
			recommended: "Modulação recomendada", noMode: "nenhuma modulação atende à meta",
			notComputed: "A disponibilidade não foi calculada para este enlace (ver avisos); a modulação recomendada é a mais rápida com margem positiva em céu claro.",
			needed:      "Margem necessária", bound: "Limite", rainOnly: "Só chuva", multipathOnly: "Só multipercurso",
			exact: "exata", atLeast: "no mínimo", atMost: "no máximo",
			p0: "Probabilidade anual de chuva", gammaR: "Atenuação específica em R0,01", a001: "Atenuação por chuva em 0,01 %",
			roughness: "Rugosidade do terreno s_a", geoclimatic: "Fator geoclimático K", inclination: "Inclinação do trajeto",
			gasRate: "Atenuação gasosa específica", air: "Ar (temperatura, vapor d'água)", r001Source: "Origem de R0,01",
			sources: "Fontes dos dados e métodos", r001: "R0,01 (chuva, 0,01 % do ano)", art: "ART (Anotação de Responsabilidade Técnica)",
		}
	}
	return &ptpTexts{
		title: "Point-to-point link report", axisX: "Distance from A (km)", ends: "Link ends",
		name: "Name", station: "Anatel station number", notGiven: "not given", bearing: "Bearing to the other end",
		azimuth: "Antenna azimuth", elevation: "Angle below the horizontal", tilt: "Mechanical downtilt",
		aligned: "aligned", equipment: "Equipment", radio: "Radio", antennaModel: "Antenna", gain: "Antenna gain",
		patternLoss: "Pattern loss toward the other end", cable: "Cable and connector losses",
		builtinNote: "\"builtin:\" equipment are generic examples computed from documented formulas, not a vendor's data sheet.",
		channel:     "Channel width", polarization: "Polarisation", gas: "Gaseous absorption (P.676)",
		horizontal: "horizontal", vertical: "vertical", dual: "dual (dimensioned on horizontal)",
		clearance: "Clearance (ITU-R P.530-17 §2.2.2)", rule: "Criterion", clearanceF1: "Least clearance", met: "Met",
		minA: "Min. height A", minB: "Min. height B",
		ruleLOS: "Line of sight, median atmosphere", rule60: "60 % of F1 (rule of thumb)", rule100: "100 % of F1, median k",
		ruleGrazing: "Grazing, minimum k (isolated obstacle)", rule30: "30 % of F1, minimum k (extended obstacle)",
		budget:     "Link budget per modulation",
		budgetRule: "Received level = Tx power − cable + gain − pattern loss − path loss − gaseous absorption + gain − cable; fade margin = received level − sensitivity, in the weaker direction (levels in dBm, margins in dB). The availability is ITU-R P.530-17's (rain + multipath) at that margin.",
		mode:       "Modulation", rxAB: "Rx A→B", rxBA: "Rx B→A", sens: "Sens.", margin: "Margin",
		avail: "Availability %", outage: "min/year",
		availability: "Availability (ITU-R P.530-17, P.837-7, P.838-3)", target: "Required availability",
		recommended: "Recommended modulation", noMode: "no modulation meets the target",
		notComputed: "The availability was not computed for this link (see the warnings); the recommended modulation is the fastest with a positive clear-air margin.",
		needed:      "Margin needed", bound: "Bound", rainOnly: "Rain only", multipathOnly: "Multipath only",
		exact: "exact", atLeast: "at least", atMost: "at most",
		p0: "Annual probability of rain", gammaR: "Rain specific attenuation at R0.01", a001: "Rain attenuation at 0.01 %",
		roughness: "Terrain roughness s_a", geoclimatic: "Geoclimatic factor K", inclination: "Path inclination",
		gasRate: "Gaseous specific attenuation", air: "Air (temperature, water vapour)", r001Source: "Source of R0.01",
		sources: "Data and method sources", r001: "R0.01 (rain rate, 0.01 % of the year)", art: "ART (technical responsibility record)",
	}
}

// sci formats v in scientific notation with dec decimals in the
// mantissa, in the document's language (1.835e-5, 1,835e-5).
func (r *ptpRenderer) sci(v float64, dec int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return r.num(v, dec)
	}
	exp := int(math.Floor(math.Log10(math.Abs(v))))
	m := v / math.Pow(10, float64(exp))
	if math.Abs(m) >= 10-0.5*math.Pow(10, -float64(dec)) { // rounds up to 10
		m /= 10
		exp++
	}
	return r.num(m, dec) + "e" + strconv.Itoa(exp)
}
