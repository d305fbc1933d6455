package refcheck

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"linkplan/appliance"
	"linkplan/engines/itur"
)

// Limits of Read: a reference file is a few kilobytes; these bound what a
// hostile or broken file can make the reader hold.
const (
	MaxBytes     = 8 << 20
	MaxRows      = 100000
	MaxColumns   = 64
	MaxFieldSize = 256
)

// Kind is the kind of a reference table, recognised from its header row.
type Kind string

// The kinds of table Read recognises.
const (
	// KindRainRate: p837_rainfall_rate_brazil.csv (P.837-7 R_p and P0).
	KindRainRate Kind = "p837_rain_rate"
	// KindGridLookup: grid_lookup_brazil.csv (interpolated map values).
	KindGridLookup Kind = "grid_lookup"
	// KindP838: p838_specific_attenuation.csv (k, α, γ_R).
	KindP838 Kind = "p838_specific_attenuation"
	// KindP530Links: p530_links_brazil.csv (P.530-17 rain and multipath).
	KindP530Links Kind = "p530_links"
	// KindITURainRate: ITU-R SG3 ITURP837-7_rainfall_rate.csv
	// (lat,lon,p,Rp; Annex 1 values).
	KindITURainRate Kind = "itu_p837_rainfall_rate"
	// KindITUR001: ITU-R SG3 ITURP837-7_rainfall_rate_R001.csv. Its header
	// is the same as KindITURainRate's; Read picks it when the file name
	// given contains "R001" (or when asked by name). Its values come from
	// the P.837-7 R0.01 map, which is not embedded: the rows are checked
	// against Annex 1 with the tolerance of the map-versus-method gap.
	KindITUR001 Kind = "itu_p837_rainfall_rate_r001"
	// KindITURainProbability: ITURP837-7_rainfall_rate_probability.csv.
	KindITURainProbability Kind = "itu_p837_rainfall_probability"
	// KindITUP838: ITURP838-3_rain_specific_attenuation.csv.
	KindITUP838 Kind = "itu_p838_rain_specific_attenuation"
	// KindITUP1510: ITURP1510-1_temperature.csv (annual mean T).
	KindITUP1510 Kind = "itu_p1510_temperature"
)

// Kinds lists every kind, for help texts.
var Kinds = []Kind{KindRainRate, KindGridLookup, KindP838, KindP530Links, KindITURainRate, KindITUR001,
	KindITURainProbability, KindITUP838, KindITUP1510}

// Table is a parsed reference file.
type Table struct {
	Kind Kind
	// Columns are the header's names, in file order.
	Columns []string
	Rows    []Row
	col     map[string]int
}

// Row is one data row.
type Row struct {
	// Line is the row's line number in the file (1-based).
	Line   int
	Fields []string
}

var (
	reRainCol   = regexp.MustCompile(`^R_([0-9.]+)pct_mm_per_h$`)
	reARainCol  = regexp.MustCompile(`^A_rain_([0-9.]+)pct_dB$`)
	reFMForPw   = regexp.MustCompile(`^FM_for_pw_all_([0-9.]+)pct_dB$`)
	reMTCol     = regexp.MustCompile(`^MT_(0[1-9]|1[0-2])_mm$`)
	reTCol      = regexp.MustCompile(`^T_(0[1-9]|1[0-2])_K$`)
	gridScalars = map[string]bool{"dN1_dn65m_01pct_Nunits_per_km": true, "dn_50pct_1km_Nunits_per_km": true, "s_a_m": true}
)

// info columns carry names and labels, never checked.
var infoColumns = map[string]bool{"name": true, "uf": true, "ibge": true, "kind": true, "method": true, "place": true, "link_id": true}

// Read parses a reference CSV and recognises its kind from its header row
// (and, for the two ITU-R P.837 tables that share a header, from the file
// name; name may be empty). force, when not empty, names the kind to use.
// The ITU-R files' second header line (units, in Latin-1) is skipped. Every
// malformed input fails with an error that names the line and matches
// appliance.ErrInvalid.
func Read(r io.Reader, name string, force Kind) (*Table, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read cases: %w", err)
	}
	if len(b) > MaxBytes {
		return nil, fmt.Errorf("cases: the file is larger than %d bytes: %w", MaxBytes, appliance.ErrInvalid)
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	cr := csv.NewReader(bytes.NewReader(b))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("cases: the file is empty: %w", appliance.ErrInvalid)
	}
	if err != nil {
		return nil, fmt.Errorf("cases: line 1: %v: %w", csvErr(err), appliance.ErrInvalid)
	}
	if len(header) > MaxColumns {
		return nil, fmt.Errorf("cases: line 1: %d columns, at most %d: %w", len(header), MaxColumns, appliance.ErrInvalid)
	}
	t := &Table{col: map[string]int{}}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if h == "" || len(h) > MaxFieldSize || !utf8.ValidString(h) {
			return nil, fmt.Errorf("cases: line 1: column %d has an empty or invalid name: %w", i+1, appliance.ErrInvalid)
		}
		if _, dup := t.col[h]; dup {
			return nil, fmt.Errorf("cases: line 1: column %q appears twice: %w", h, appliance.ErrInvalid)
		}
		t.col[h] = i
		t.Columns = append(t.Columns, h)
	}
	if t.Kind, err = recognise(t, name, force); err != nil {
		return nil, err
	}
	itu := strings.HasPrefix(string(t.Kind), "itu_")
	for first := true; ; first = false {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			line := 0
			if errors.As(err, &pe) {
				line = pe.Line
			}
			return nil, fmt.Errorf("cases: line %d: %v: %w", line, csvErr(err), appliance.ErrInvalid)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // blank line
		}
		if len(rec) != len(header) {
			return nil, fmt.Errorf("cases: line %d: %d fields, the header has %d: %w", line, len(rec), len(header), appliance.ErrInvalid)
		}
		if first && itu && unitsRow(rec) {
			continue
		}
		for i, f := range rec {
			if len(f) > MaxFieldSize {
				return nil, fmt.Errorf("cases: line %d: field %q is longer than %d bytes: %w", line, t.Columns[i], MaxFieldSize, appliance.ErrInvalid)
			}
			rec[i] = strings.TrimSpace(f)
		}
		if len(t.Rows) == MaxRows {
			return nil, fmt.Errorf("cases: line %d: more than %d rows: %w", line, MaxRows, appliance.ErrInvalid)
		}
		t.Rows = append(t.Rows, Row{Line: line, Fields: rec})
	}
	if len(t.Rows) == 0 {
		return nil, fmt.Errorf("cases: no data rows: %w", appliance.ErrInvalid)
	}
	return t, nil
}

func csvErr(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// unitsRow reports whether a row is the ITU-R files' units line: no field
// is a number.
func unitsRow(rec []string) bool {
	for _, f := range rec {
		if _, err := strconv.ParseFloat(strings.TrimSpace(f), 64); err == nil {
			return false
		}
	}
	return true
}

func (t *Table) has(cols ...string) bool {
	for _, c := range cols {
		if _, ok := t.col[c]; !ok {
			return false
		}
	}
	return true
}

func (t *Table) exactly(cols ...string) bool {
	return len(t.Columns) == len(cols) && t.has(cols...)
}

func recognise(t *Table, name string, force Kind) (Kind, error) {
	var k Kind
	switch {
	case t.has("link_id", "lat_deg", "lon_deg", "d_km", "f_GHz", "h_e_m_amsl", "h_r_m_amsl", "fade_margin_dB"):
		k = KindP530Links
	case t.has("f_GHz", "R_mm_per_h", "tau_deg", "el_deg", "k", "alpha", "gamma_R_dB_per_km"):
		k = KindP838
	case t.has("lat_deg", "lon_deg", "P0_annual_rain_probability_pct"):
		k = KindRainRate
	case t.has("lat_deg", "lon_deg") && t.hasAny(func(c string) bool { return reMTCol.MatchString(c) || reTCol.MatchString(c) || gridScalars[c] }):
		k = KindGridLookup
	case t.exactly("lat", "lon", "p", "Rp"):
		k = KindITURainRate
		if strings.Contains(strings.ToUpper(name), "R001") {
			k = KindITUR001
		}
	case t.exactly("lat", "lon", "p"):
		k = KindITURainProbability
	case t.exactly("el", "f", "R", "tau", "k", "alpha", "gamma_r"):
		k = KindITUP838
	case t.exactly("lat", "lon", "T"):
		k = KindITUP1510
	}
	if force != "" {
		if k == "" || (force != k && !(k == KindITURainRate && force == KindITUR001) && !(k == KindITUR001 && force == KindITURainRate)) {
			return "", fmt.Errorf("cases: line 1: the header is not that of a %s table: %w", force, appliance.ErrInvalid)
		}
		k = force
	}
	if k == "" {
		return "", fmt.Errorf("cases: line 1: unrecognised header %q (see linkplan itu check --help for the kinds): %w", strings.Join(t.Columns, ","), appliance.ErrInvalid)
	}
	// Every column must be one the kind's checker knows: nothing is
	// silently left unchecked.
	for _, c := range t.Columns {
		if !knownColumn(k, c) {
			return "", fmt.Errorf("cases: line 1: column %q is not part of a %s table: %w", c, k, appliance.ErrInvalid)
		}
	}
	return k, nil
}

func (t *Table) hasAny(f func(string) bool) bool {
	for _, c := range t.Columns {
		if f(c) {
			return true
		}
	}
	return false
}

func knownColumn(k Kind, c string) bool {
	if infoColumns[c] {
		return true
	}
	switch k {
	case KindRainRate:
		return c == "lat_deg" || c == "lon_deg" || c == "P0_annual_rain_probability_pct" || reRainCol.MatchString(c)
	case KindGridLookup:
		return c == "lat_deg" || c == "lon_deg" || reMTCol.MatchString(c) || reTCol.MatchString(c) || gridScalars[c]
	case KindP838:
		switch c {
		case "f_GHz", "R_mm_per_h", "pol", "tau_deg", "el_deg", "k", "alpha", "gamma_R_dB_per_km":
			return true
		}
	case KindP530Links:
		switch c {
		case "lat_deg", "lon_deg", "d_km", "f_GHz", "pol", "tau_deg", "h_e_m_amsl", "h_r_m_amsl", "el_deg", "fade_margin_dB",
			"R001_mm_per_h", "gamma_R001_dB_per_km", "p_rain_status", "p_rain_exceed_FM_pct", "N10s_events_exceed_FM",
			"p0_multipath_occurrence_pct", "pw_deep_fade_FM_worst_month_pct", "pw_all_fade_FM_worst_month_pct",
			"pw_all_fade_10dB_worst_month_pct", "P_XP_clear_air_pct":
			return true
		}
		return reARainCol.MatchString(c) || reFMForPw.MatchString(c)
	default:
		return true // the ITU-R kinds are recognised by their exact header
	}
	return false
}

// Failure is one value of a row that missed its reference.
type Failure struct {
	Line   int
	Label  string
	Column string
	// Want and Got are the reference and the product's value (NaN when the
	// row failed before a number, see Reason).
	Want, Got float64
	AbsErr    float64
	// Tol is the tolerance the value was held to, in the column's units.
	Tol    float64
	Reason string
}

func (f Failure) String() string {
	if f.Reason != "" {
		return fmt.Sprintf("FAIL line %d (%s) %s: %s", f.Line, f.Label, f.Column, f.Reason)
	}
	return fmt.Sprintf("FAIL line %d (%s) %s: want %.10g got %.10g abs_err %.3g > tol %.3g", f.Line, f.Label, f.Column, f.Want, f.Got, f.AbsErr, f.Tol)
}

// ColumnStat is the largest error seen in one column.
type ColumnStat struct {
	Column    string
	Values    int
	MaxAbsErr float64
	// MaxRelErr is the largest |got − want|/|want| over non-zero wants.
	MaxRelErr float64
}

// Skip is a row that was not evaluated: its point lies outside the
// embedded ITU-R maps (Brazil), so the product has no answer to compare.
// A skipped row neither passes nor fails.
type Skip struct {
	Line   int
	Label  string
	Reason string
}

func (s Skip) String() string {
	return fmt.Sprintf("SKIP line %d (%s): %s", s.Line, s.Label, s.Reason)
}

// Result is the outcome of checking a table.
type Result struct {
	Kind Kind
	// Cases is the number of rows; Failed the rows with at least one
	// failing value; Skipped the rows not evaluated because their point is
	// outside the embedded maps (Skips says which and why). The rows
	// checked are Cases − Skipped.
	Cases, Failed, Skipped int
	// MaxAbsErr is the largest |got − want| over every compared value, in
	// each column's own unit (skipped rows compare nothing).
	MaxAbsErr float64
	Failures  []Failure
	Skips     []Skip
	// Columns are per-column statistics, in the table's column order.
	Columns []ColumnStat
}

// Summary is the one line `cases=N failed=N skipped=N max_abs_err=X`.
func (r *Result) Summary() string {
	return fmt.Sprintf("cases=%d failed=%d skipped=%d max_abs_err=%.3g", r.Cases, r.Failed, r.Skipped, r.MaxAbsErr)
}

// tol is a tolerance: a value passes when |got − want| ≤ abs or
// ≤ rel·|want|.
type tol struct{ abs, rel float64 }

func (t tol) limit(want float64) float64 { return math.Max(t.abs, t.rel*math.Abs(want)) }

// Tolerances, from shared/validation/itu_p530/README.md where it gives
// them, else from the precision the reference is printed with.
var (
	tolRainBisection = tol{abs: 1e-4, rel: 1e-5} // ITU-Rpy bisects R with xtol 1e-5 mm/h
	tolGrid          = tol{rel: 1e-6}            // staged grids are float32
	tolP838          = tol{rel: 1e-9}            // closed form
	tolRainChain     = tol{rel: 1e-4}            // R0.01 carries the bisection tolerance
	tolMultipath     = tol{rel: 1e-6}            // closed form
	tolITURainRate   = tol{abs: 1e-3}            // the ITU sheet stops its iteration early (see doc)
	tolITUR001       = tol{rel: 1e-3}            // map versus Annex 1 (map not embedded)
	tolITUProb       = tol{abs: 1e-6, rel: 1e-6} // printed with 8 decimals; the Brazil maps are float32 (as tolGrid)
	tolITUP838       = tol{abs: 1e-7, rel: 1e-7} // printed with 8 significant digits
	tolITUT          = tol{abs: 1e-6, rel: 1e-6} // printed with 7 decimals; the Brazil maps are float32 (as tolGrid)
	tolMapGapBrazil  = tol{rel: 1e-3}            // a Brazil row whose method is the R0.01 map
	xpdGuaranteedDB  = 30.0                      // p530_links_brazil.csv P_XP_clear_air_pct inputs
	xpdC0IDB         = 20.0                      // (README: XPD_g = 30 dB, C0/I = 20 dB, XPIF = 0)
	xpdXPIFDB        = 0.0
	rainStatusByName = map[itur.Range]string{itur.InRange: "in_range", itur.BelowRange: "below_0.001pct", itur.AboveRange: "above_1pct"}
)

// rainStatus reads a p_rain_status field: "in_range", or a name starting
// with "below" (rain exceeds the margin less than 0.001 % of the time) or
// "above" (more than 1 %).
func rainStatus(s string) itur.Range {
	switch {
	case s == "in_range":
		return itur.InRange
	case strings.HasPrefix(s, "below"):
		return itur.BelowRange
	case strings.HasPrefix(s, "above"):
		return itur.AboveRange
	}
	return itur.Range("unknown status " + strconv.Quote(s))
}

// checker accumulates one table's comparisons.
type checker struct {
	res     Result
	stats   map[string]*ColumnStat
	rowFail bool
	rowSkip bool
	row     Row
	label   string
	t       *Table
}

func (c *checker) cmp(column string, want, got float64, t tol) {
	st := c.stats[column]
	if st == nil {
		st = &ColumnStat{Column: column}
		c.stats[column] = st
	}
	st.Values++
	if math.IsNaN(got) || math.IsInf(got, 0) {
		c.fail(Failure{Column: column, Want: want, Got: got, AbsErr: math.Inf(1), Tol: t.limit(want), Reason: fmt.Sprintf("want %.10g, the product gave no finite value", want)})
		return
	}
	e := math.Abs(got - want)
	lim := math.Max(t.limit(want), c.printedHalfUnit(column))
	st.MaxAbsErr = math.Max(st.MaxAbsErr, e)
	if want != 0 {
		st.MaxRelErr = math.Max(st.MaxRelErr, e/math.Abs(want))
	}
	c.res.MaxAbsErr = math.Max(c.res.MaxAbsErr, e)
	if e > lim {
		c.fail(Failure{Column: column, Want: want, Got: got, AbsErr: e, Tol: lim})
	}
}

// printedHalfUnit is half a unit of the last digit the reference value of
// column is printed with (5e-8 for "5.09E-05", 5e-9 for
// "0.03975488"): no check can be finer than the rounding of its reference.
func (c *checker) printedHalfUnit(column string) float64 {
	i, ok := c.t.col[column]
	if !ok {
		return 0
	}
	s := c.row.Fields[i]
	exp := 0
	if k := strings.IndexAny(s, "eE"); k >= 0 {
		e, err := strconv.Atoi(s[k+1:])
		if err != nil {
			return 0
		}
		exp, s = e, s[:k]
	}
	decimals := 0
	if k := strings.IndexByte(s, '.'); k >= 0 {
		decimals = len(s) - k - 1
	}
	return 0.5 * math.Pow(10, float64(exp-decimals)) * (1 + 1e-9)
}

func (c *checker) fail(f Failure) {
	f.Line, f.Label = c.row.Line, c.label
	if math.IsNaN(f.Want) && f.Reason == "" {
		f.Reason = "no reference value"
	}
	c.res.Failures = append(c.res.Failures, f)
	c.rowFail = true
}

// num parses a numeric field; a bad field fails the row and returns NaN.
func (c *checker) num(t *Table, column string) float64 {
	i, ok := t.col[column]
	if !ok {
		c.fail(Failure{Column: column, Want: math.NaN(), Got: math.NaN(), Reason: "column missing"})
		return math.NaN()
	}
	s := c.row.Fields[i]
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		c.fail(Failure{Column: column, Want: math.NaN(), Got: math.NaN(), Reason: fmt.Sprintf("%q is not a finite number", s)})
		return math.NaN()
	}
	return v
}

func (c *checker) str(t *Table, column string) (string, bool) {
	i, ok := t.col[column]
	if !ok {
		return "", false
	}
	return c.row.Fields[i], true
}

// Check evaluates every row of the table with the product's implementation
// and compares each reference value with it. Rows are independent: the
// result does not depend on their order or on which rows are present.
func Check(m *itur.Maps, t *Table) *Result {
	c := &checker{res: Result{Kind: t.Kind}, stats: map[string]*ColumnStat{}, t: t}
	for _, row := range t.Rows {
		c.row, c.rowFail, c.rowSkip = row, false, false
		c.label = rowLabel(t, row)
		func() {
			defer func() {
				if p := recover(); p != nil {
					c.fail(Failure{Column: "-", Want: math.NaN(), Got: math.NaN(), Reason: fmt.Sprintf("evaluation failed: %v", p)})
				}
			}()
			switch t.Kind {
			case KindRainRate:
				c.rainRate(m, t)
			case KindGridLookup:
				c.gridLookup(m, t)
			case KindP838:
				c.p838(t)
			case KindP530Links:
				c.p530(m, t)
			case KindITURainRate, KindITUR001:
				c.ituRainRate(m, t)
			case KindITURainProbability:
				c.ituRainProbability(m, t)
			case KindITUP838:
				c.ituP838(t)
			case KindITUP1510:
				c.ituP1510(m, t)
			}
		}()
		c.res.Cases++
		switch {
		case c.rowFail:
			c.res.Failed++
		case c.rowSkip:
			c.res.Skipped++
		}
	}
	// In column order (no map iteration: results and coverage are
	// deterministic).
	for _, col := range append(append([]string(nil), t.Columns...), "-") {
		if st := c.stats[col]; st != nil {
			c.res.Columns = append(c.res.Columns, *st)
		}
	}
	return &c.res
}

func rowLabel(t *Table, row Row) string {
	for _, k := range []string{"link_id", "name", "place"} {
		if i, ok := t.col[k]; ok {
			s := row.Fields[i]
			if j, ok := t.col["place"]; ok && k == "link_id" {
				s += " " + row.Fields[j]
			}
			return s
		}
	}
	parts := make([]string, 0, 4)
	for i, col := range t.Columns {
		if i == 4 {
			break
		}
		parts = append(parts, col+"="+row.Fields[i])
	}
	return strings.Join(parts, " ")
}

func (c *checker) errFail(column string, err error) {
	c.fail(Failure{Column: column, Want: math.NaN(), Got: math.NaN(), Reason: "the product refused: " + err.Error()})
}

// outside reports whether (lat, lon) lies outside one of the maps the
// row needs, and if so records the row as skipped: it is neither checked
// nor counted as passed or failed.
func (c *checker) outside(lat, lon float64, grids ...*itur.Grid) bool {
	for _, g := range grids {
		if g.Covers(lat, lon) {
			continue
		}
		c.rowSkip = true
		c.res.Skips = append(c.res.Skips, Skip{Line: c.row.Line, Label: c.label,
			Reason: fmt.Sprintf("point (%g, %g) is outside the embedded ITU-R maps (%s): they cover Brazil only, latitude %g…%g, longitude %g…%g",
				lat, lon, g.Name, itur.BrazilMinLatDeg, itur.BrazilMaxLatDeg, itur.BrazilMinLonDeg, itur.BrazilMaxLonDeg)})
		return true
	}
	return false
}

// rainGrids are the maps of the P.837-7 Annex 1 method (Maps.RainClimate).
func rainGrids(m *itur.Maps) []*itur.Grid {
	g := append(append([]*itur.Grid{}, m.MT[:]...), m.T[:]...)
	return append(g, m.TAnnual)
}

// allGrids are every map (Maps.Climate, Maps.PrepareLink).
func allGrids(m *itur.Maps) []*itur.Grid {
	return append(rainGrids(m), m.DN1, m.DN50, m.Sa)
}

func (c *checker) rainRate(m *itur.Maps, t *Table) {
	lat, lon := c.num(t, "lat_deg"), c.num(t, "lon_deg")
	if c.rowFail || c.outside(lat, lon, rainGrids(m)...) {
		return
	}
	cl, err := m.RainClimate(lat, lon)
	if err != nil {
		c.errFail("lat_deg", err)
		return
	}
	d := itur.NewRainDistribution(cl.MTmm, cl.TK)
	tl := tolRainBisection
	if meth, ok := c.str(t, "method"); ok && meth != "" && meth != "annex1_monthly" {
		tl = tolMapGapBrazil
	}
	c.cmp("P0_annual_rain_probability_pct", c.num(t, "P0_annual_rain_probability_pct"), d.P0AnnualPct, tolGrid)
	for _, col := range t.Columns {
		sm := reRainCol.FindStringSubmatch(col)
		if sm == nil {
			continue
		}
		p, err := strconv.ParseFloat(sm[1], 64)
		if err != nil {
			c.fail(Failure{Column: col, Want: math.NaN(), Got: math.NaN(), Reason: "bad percentage in the column name"})
			continue
		}
		want := c.num(t, col)
		got, err := d.RateMMH(p)
		if err != nil {
			c.errFail(col, err)
			continue
		}
		c.cmp(col, want, got, tl)
	}
}

func (c *checker) gridLookup(m *itur.Maps, t *Table) {
	lat, lon := c.num(t, "lat_deg"), c.num(t, "lon_deg")
	if c.rowFail {
		return
	}
	cols := make([]string, 0, len(t.Columns))
	grids := make([]*itur.Grid, 0, len(t.Columns))
	for _, col := range t.Columns {
		if g := gridOfColumn(m, col); g != nil {
			cols, grids = append(cols, col), append(grids, g)
		}
	}
	if c.outside(lat, lon, grids...) {
		return
	}
	for i, col := range cols {
		want := c.num(t, col)
		got, err := grids[i].At(lat, lon)
		if err != nil {
			c.errFail(col, err)
			continue
		}
		c.cmp(col, want, got, tolGrid)
	}
}

// gridOfColumn is the map a grid_lookup column reads, nil for the others.
func gridOfColumn(m *itur.Maps, col string) *itur.Grid {
	if sm := reMTCol.FindStringSubmatch(col); sm != nil {
		i, _ := strconv.Atoi(sm[1])
		return m.MT[i-1]
	}
	if sm := reTCol.FindStringSubmatch(col); sm != nil {
		i, _ := strconv.Atoi(sm[1])
		return m.T[i-1]
	}
	switch col {
	case "dN1_dn65m_01pct_Nunits_per_km":
		return m.DN1
	case "dn_50pct_1km_Nunits_per_km":
		return m.DN50
	case "s_a_m":
		return m.Sa
	}
	return nil
}

func (c *checker) p838(t *Table) {
	f, r, tau, el := c.num(t, "f_GHz"), c.num(t, "R_mm_per_h"), c.num(t, "tau_deg"), c.num(t, "el_deg")
	if c.rowFail {
		return
	}
	k, a, err := itur.RainCoefficients(f, el, tau)
	if err != nil {
		c.errFail("f_GHz", err)
		return
	}
	c.cmp("k", c.num(t, "k"), k, tolP838)
	c.cmp("alpha", c.num(t, "alpha"), a, tolP838)
	c.cmp("gamma_R_dB_per_km", c.num(t, "gamma_R_dB_per_km"), k*math.Pow(r, a), tolP838)
}

// optNum parses a field that may be empty (empty: ok=false).
func (c *checker) optNum(t *Table, column string) (float64, bool) {
	s, ok := c.str(t, column)
	if !ok || s == "" {
		return 0, false
	}
	return c.num(t, column), true
}

func (c *checker) p530(m *itur.Maps, t *Table) {
	in := itur.LinkInput{
		LatDeg: c.num(t, "lat_deg"), LonDeg: c.num(t, "lon_deg"), DistKm: c.num(t, "d_km"), FreqGHz: c.num(t, "f_GHz"),
		HTxAmslM: c.num(t, "h_e_m_amsl"), HRxAmslM: c.num(t, "h_r_m_amsl"),
	}
	if _, ok := t.col["tau_deg"]; ok {
		in.PolTiltDeg = c.num(t, "tau_deg")
	} else if pol, _ := c.str(t, "pol"); pol == "V" {
		in.PolTiltDeg = 90
	} else if pol != "H" {
		c.fail(Failure{Column: "pol", Want: math.NaN(), Got: math.NaN(), Reason: fmt.Sprintf("polarisation %q: want H or V (or a tau_deg column)", pol)})
	}
	fm := c.num(t, "fade_margin_dB")
	if c.rowFail || c.outside(in.LatDeg, in.LonDeg, allGrids(m)...) {
		return
	}
	l, err := m.PrepareLink(in)
	if err != nil {
		c.errFail("lat_deg", err)
		return
	}
	if _, ok := t.col["el_deg"]; ok {
		c.cmp("el_deg", c.num(t, "el_deg"), l.ElevationDeg, tolMultipath)
	}
	if _, ok := t.col["R001_mm_per_h"]; ok {
		c.cmp("R001_mm_per_h", c.num(t, "R001_mm_per_h"), l.Rain.R001MMH, tolRainChain)
	}
	if _, ok := t.col["gamma_R001_dB_per_km"]; ok {
		c.cmp("gamma_R001_dB_per_km", c.num(t, "gamma_R001_dB_per_km"), l.Rain.GammaRDBPerKm, tolRainChain)
	}
	for _, col := range t.Columns {
		if sm := reARainCol.FindStringSubmatch(col); sm != nil {
			p, _ := strconv.ParseFloat(sm[1], 64)
			got, err := l.Rain.AttenuationDB(p)
			if err != nil {
				c.errFail(col, err)
				continue
			}
			c.cmp(col, c.num(t, col), got, tolRainChain)
		}
		if sm := reFMForPw.FindStringSubmatch(col); sm != nil {
			p, _ := strconv.ParseFloat(sm[1], 64)
			got, rg := l.Multipath.FadeMarginForWorstMonthDB(p)
			if rg != itur.InRange {
				c.fail(Failure{Column: col, Want: c.num(t, col), Got: got, Reason: "the product found it out of range: " + string(rg)})
				continue
			}
			c.cmp(col, c.num(t, col), got, tolMultipath)
		}
	}
	p, rg := l.Rain.ExceedancePct(fm)
	if st, ok := c.str(t, "p_rain_status"); ok {
		if rainStatus(st) != rg {
			c.fail(Failure{Column: "p_rain_status", Want: math.NaN(), Got: math.NaN(), Reason: fmt.Sprintf("want %q got %q", st, rainStatusByName[rg])})
		}
	}
	for _, col := range []string{"p_rain_exceed_FM_pct", "N10s_events_exceed_FM"} {
		if _, ok := t.col[col]; !ok {
			continue
		}
		want, has := c.optNum(t, col)
		switch {
		case has && rg != itur.InRange:
			c.fail(Failure{Column: col, Want: want, Got: math.NaN(), Reason: fmt.Sprintf("want %.10g, the product found rain %s", want, rg)})
		case !has && rg == itur.InRange:
			c.fail(Failure{Column: col, Want: math.NaN(), Got: p, Reason: fmt.Sprintf("the reference is empty, the product found %.10g in range", p)})
		case has && col == "p_rain_exceed_FM_pct":
			c.cmp(col, want, p, tolRainChain)
		case has:
			c.cmp(col, want, itur.RainEventCount(p), tolRainChain)
		}
	}
	mp := &l.Multipath
	checks := []struct {
		col string
		got float64
	}{
		{"p0_multipath_occurrence_pct", mp.P0Pct},
		{"pw_deep_fade_FM_worst_month_pct", mp.DeepFadePct(fm)},
		{"pw_all_fade_FM_worst_month_pct", mp.WorstMonthPct(fm)},
		{"pw_all_fade_10dB_worst_month_pct", mp.WorstMonthPct(10)},
		{"P_XP_clear_air_pct", mp.XPDClearAirPct(xpdGuaranteedDB, xpdC0IDB, xpdXPIFDB)},
	}
	for _, ch := range checks {
		if _, ok := t.col[ch.col]; ok {
			c.cmp(ch.col, c.num(t, ch.col), ch.got, tolMultipath)
		}
	}
}

func (c *checker) ituRainRate(m *itur.Maps, t *Table) {
	lat, lon, p, want := c.num(t, "lat"), c.num(t, "lon"), c.num(t, "p"), c.num(t, "Rp")
	if c.rowFail || c.outside(lat, lon, rainGrids(m)...) {
		return
	}
	got, err := m.RainRateMMH(lat, lon, p)
	if err != nil {
		c.errFail("Rp", err)
		return
	}
	tl := tolITURainRate
	if t.Kind == KindITUR001 {
		tl = tolITUR001
	}
	c.cmp("Rp", want, got, tl)
}

func (c *checker) ituRainProbability(m *itur.Maps, t *Table) {
	lat, lon, want := c.num(t, "lat"), c.num(t, "lon"), c.num(t, "p")
	if c.rowFail || c.outside(lat, lon, rainGrids(m)...) {
		return
	}
	got, err := m.RainProbabilityPct(lat, lon)
	if err != nil {
		c.errFail("p", err)
		return
	}
	c.cmp("p", want, got, tolITUProb)
}

func (c *checker) ituP838(t *Table) {
	el, f, r, tau := c.num(t, "el"), c.num(t, "f"), c.num(t, "R"), c.num(t, "tau")
	if c.rowFail {
		return
	}
	k, a, err := itur.RainCoefficients(f, el, tau)
	if err != nil {
		c.errFail("f", err)
		return
	}
	c.cmp("k", c.num(t, "k"), k, tolITUP838)
	c.cmp("alpha", c.num(t, "alpha"), a, tolITUP838)
	c.cmp("gamma_r", c.num(t, "gamma_r"), k*math.Pow(r, a), tolITUP838)
}

func (c *checker) ituP1510(m *itur.Maps, t *Table) {
	lat, lon, want := c.num(t, "lat"), c.num(t, "lon"), c.num(t, "T")
	if c.rowFail || c.outside(lat, lon, m.TAnnual) {
		return
	}
	got, err := m.TAnnual.At(lat, lon)
	if err != nil {
		c.errFail("T", err)
		return
	}
	c.cmp("T", want, got, tolITUT)
}
