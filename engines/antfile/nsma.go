package antfile

import (
	"math"
	"strconv"
	"strings"
)

// ParseNSMA reads an NSMA / TIA-804-B antenna data file (.adf): lines
// "KEY:,value[,value…]" (REVNUM, ANTMAN, MODNUM, DESCR1…, LOWFRQ, HGHFRQ,
// GUNITS, LWGAIN/MDGAIN/HGGAIN, AZWIDT, ELWIDT, FRTOBA, ELTILT, PATFRE,
// NUMCUT, then per cut PATCUT, POLARI, NUPOIN, FSTLST and NUPOIN data
// lines "angle,value[,angle,value…]", ENDFIL), in any case, CRLF or LF.
//
// GUNITS is "<gain unit>/<pattern unit>": the gain unit DBI or DBD
// (MDGAIN, else the mean of LWGAIN and HGGAIN, in it), the pattern unit
// DBR (relative dB, the attenuation is −value), DBI or DBD (absolute gain:
// the attenuation is the peak gain less the value) or LIN (relative field:
// −20·log10(value)). A DBR pattern whose values peak within 1 dB of the
// stated gain (CloudRF's msi2adf writes absolute gains under DBR) is read
// as DBI with a unit_assumed warning. Angles: the horizontal (PATCUT H or
// AZ) azimuth clockwise, −180..180; the vertical (PATCUT V or EL)
// elevation above the horizon, converted to below (e = −angle). The first
// co-polar horizontal and vertical cuts of the first frequency are used;
// cross-polar cuts (POLARI V/H) and further frequencies are skipped with a
// cut_ignored warning.
func ParseNSMA(data []byte) (*File, error) {
	ls, err := lines(data)
	if err != nil {
		return nil, err
	}
	f := newFile(FormatNSMA)
	gainUnit, patUnit := "DBI", "DBR"
	var mdGain, lwGain, hgGain = math.NaN(), math.NaN(), math.NaN()
	var h, v []point
	var hLine, vLine int
	ignored := 0
	freqs := 0
	for i := 0; i < len(ls); i++ {
		ln := i + 1
		s := strings.TrimSpace(ls[i])
		if s == "" {
			continue
		}
		key, val, ok := strings.Cut(s, ":")
		if !ok {
			if _, isNum := number(strings.Split(s, ",")[0]); isNum {
				return nil, lineErr(ln, "a data line outside a cut (no PATCUT/NUPOIN/FSTLST before it)")
			}
			return nil, lineErr(ln, "want \"KEY:,value\", got %.40q", s)
		}
		key = strings.ToUpper(strings.TrimSpace(key))
		vals := splitCSV(val)
		first := ""
		if len(vals) > 0 {
			first = vals[0]
		}
		num := func() (float64, error) {
			x, ok := number(first)
			if !ok {
				return 0, lineErr(ln, "%s: %q is not a number", key, first)
			}
			return x, nil
		}
		switch key {
		case "ANTMAN":
			f.Make = first
		case "MODNUM":
			f.Name = first
		case "DESCR1", "DESCR2", "DESCR3", "DESCR4", "DESCR5", "COMNT1", "COMNT2", "COMNT3", "COMNT4", "COMNT5":
			if first != "" {
				f.Comment = strings.TrimSpace(f.Comment + " " + strings.Join(vals, " "))
			}
		case "GUNITS":
			g, p, ok := strings.Cut(strings.ToUpper(first), "/")
			if !ok || (g != "DBI" && g != "DBD") || !(p == "DBR" || p == "DBI" || p == "DBD" || p == "LIN") {
				return nil, lineErr(ln, "GUNITS %q: want <DBI|DBD>/<DBR|DBI|DBD|LIN>", first)
			}
			gainUnit, patUnit = g, p
		case "MDGAIN", "LWGAIN", "HGGAIN", "LOWFRQ", "HGHFRQ", "PATFRE", "AZWIDT", "ELWIDT", "FRTOBA", "ELTILT":
			if first == "" {
				continue // an empty optional field
			}
			x, err := num()
			if err != nil {
				return nil, err
			}
			switch key {
			case "MDGAIN":
				mdGain = x
			case "LWGAIN":
				lwGain = x
			case "HGGAIN":
				hgGain = x
			case "LOWFRQ":
				f.MinMHz = x
			case "HGHFRQ":
				f.MaxMHz = x
			case "PATFRE":
				freqs++
				if freqs == 1 {
					f.FreqMHz = x
				}
			case "AZWIDT":
				if x < 360 {
					f.StatedHBeamwidthDeg = x
				}
			case "ELWIDT":
				if x < 360 {
					f.StatedVBeamwidthDeg = x
				}
			case "FRTOBA":
				if x != 0 {
					f.StatedFrontToBackDB = math.Abs(x)
				}
			case "ELTILT":
				f.StatedElectricalTiltDeg = x
			}
		case "PATCUT":
			cutName := strings.ToUpper(first)
			if cutName != "H" && cutName != "AZ" && cutName != "V" && cutName != "EL" {
				return nil, lineErr(ln, "PATCUT %q: want H, AZ, V or EL", first)
			}
			pol, n, fst, lst, next, err := nsmaCutHeader(ls, i+1)
			if err != nil {
				return nil, err
			}
			pts, after, err := nsmaPoints(ls, next, n, fst, lst)
			if err != nil {
				return nil, err
			}
			i = after - 1
			horizontal := cutName == "H" || cutName == "AZ"
			coPol := pol == "" || polCo(pol)
			switch {
			case freqs > 1 || !coPol:
				ignored++
			case horizontal && hLine == 0:
				h, hLine = pts, ln
			case !horizontal && vLine == 0:
				for k := range pts {
					pts[k].angle = -pts[k].angle // elevation above → below the horizon
				}
				v, vLine = pts, ln
			default:
				ignored++
			}
		case "ENDFIL":
			i = len(ls)
		case "NUPOIN", "FSTLST", "POLARI":
			return nil, lineErr(ln, "%s outside a cut (it must follow PATCUT)", key)
		default:
			// REVNUM, REVDAT, DTDATA, ATVSWR, CONTYP, MAXPOW, ANT*, PATTYP,
			// NOFREQ, NUMCUT and others carry nothing the pattern needs
		}
	}
	end := len(ls)
	switch {
	case hLine == 0:
		return nil, lineErr(end, "the file has no co-polar horizontal cut (PATCUT:,H)")
	case vLine == 0:
		return nil, lineErr(end, "the file has no co-polar vertical cut (PATCUT:,V)")
	}
	gain := mdGain
	if math.IsNaN(gain) && !math.IsNaN(lwGain) && !math.IsNaN(hgGain) {
		gain = (lwGain + hgGain) / 2
	}
	if math.IsNaN(gain) {
		return nil, lineErr(end, "the file states no gain (MDGAIN, or LWGAIN and HGGAIN)")
	}
	if gainUnit == "DBD" {
		gain += 2.15
	}
	if gain < -20 || gain > 70 {
		return nil, lineErr(end, "the stated gain %g dBi is outside -20..70 dBi", gain)
	}
	f.GainDBi = gain
	peak := math.Inf(-1)
	for _, p := range append(append([]point{}, h...), v...) {
		peak = math.Max(peak, p.att)
	}
	if patUnit == "DBR" && peak > 0.5 && math.Abs(peak-gain) <= 1 {
		patUnit = "DBI"
		f.warn(WarnUnitAssumed, "GUNITS says the pattern is relative (DBR) but its values peak at %g, the stated gain: they are read as absolute gains in dBi", peak)
	}
	conv := func(pts []point) error {
		for k := range pts {
			x := pts[k].att
			switch patUnit {
			case "DBR":
				pts[k].att = -x
			case "DBI":
				pts[k].att = gain - x
			case "DBD":
				pts[k].att = gain - (x + 2.15)
			case "LIN":
				if !(x > 0) {
					return lineErr(pts[k].line, "a linear (LIN) pattern value must be positive, got %g", x)
				}
				pts[k].att = -20 * math.Log10(x)
			}
		}
		return nil
	}
	if err := conv(h); err != nil {
		return nil, err
	}
	if err := conv(v); err != nil {
		return nil, err
	}
	if f.Pattern.H, err = cut("horizontal", h); err != nil {
		return nil, err
	}
	if f.Pattern.V, err = cut("vertical", v); err != nil {
		return nil, err
	}
	if ignored > 0 {
		f.warn(WarnCutIgnored, "%d further cuts (cross-polar, repeated or of another frequency) were not used", ignored)
	}
	f.finish()
	return f, nil
}

// polCo reports whether an NSMA polarisation pair ("V/V", "H/H", "V/H",
// "CR/CR" …) is co-polar.
func polCo(pol string) bool {
	a, b, ok := strings.Cut(strings.ToUpper(pol), "/")
	return !ok || strings.TrimSpace(a) == strings.TrimSpace(b)
}

// splitCSV splits the value part of an NSMA line (after "KEY:") on commas,
// trimming each field and dropping empty leading and trailing ones.
func splitCSV(s string) []string {
	parts := strings.Split(s, ",")
	out := parts[:0]
	for _, p := range parts {
		out = append(out, strings.TrimSpace(p))
	}
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// nsmaCutHeader reads the POLARI, NUPOIN and FSTLST lines after a PATCUT
// (POLARI optional), from ls[i:].
func nsmaCutHeader(ls []string, i int) (pol string, n int, fst, lst float64, next int, err error) {
	seen := map[string]bool{}
	for ; i < len(ls); i++ {
		s := strings.TrimSpace(ls[i])
		if s == "" {
			continue
		}
		key, val, ok := strings.Cut(s, ":")
		key = strings.ToUpper(strings.TrimSpace(key))
		if !ok || key != "POLARI" && key != "NUPOIN" && key != "FSTLST" {
			break
		}
		vals := splitCSV(val)
		ln := i + 1
		if seen[key] {
			return "", 0, 0, 0, 0, lineErr(ln, "%s repeated in one cut", key)
		}
		seen[key] = true
		switch key {
		case "POLARI":
			if len(vals) > 0 {
				pol = vals[0]
			}
		case "NUPOIN":
			if len(vals) != 1 {
				return "", 0, 0, 0, 0, lineErr(ln, "NUPOIN needs one whole number")
			}
			n, err = strconv.Atoi(vals[0])
			if err != nil || n < 4 || n > 4*3600 {
				return "", 0, 0, 0, 0, lineErr(ln, "NUPOIN %q: want a whole number 4..%d", vals[0], 4*3600)
			}
		case "FSTLST":
			if len(vals) != 2 {
				return "", 0, 0, 0, 0, lineErr(ln, "FSTLST needs the first and the last angle")
			}
			var ok1, ok2 bool
			fst, ok1 = number(vals[0])
			lst, ok2 = number(vals[1])
			if !ok1 || !ok2 || fst < -360 || lst > 360 || fst >= lst {
				return "", 0, 0, 0, 0, lineErr(ln, "FSTLST %q,%q: want two angles -360 ≤ first < last ≤ 360", vals[0], vals[1])
			}
		}
	}
	if !seen["NUPOIN"] {
		return "", 0, 0, 0, 0, lineErr(min(i+1, len(ls)), "the cut has no NUPOIN (number of points) line")
	}
	if !seen["FSTLST"] {
		fst, lst = -180, 180
	}
	return pol, n, fst, lst, i, nil
}

// nsmaPoints reads n "angle,value" pairs (several per line allowed) from
// ls[i:], each angle within fst..lst.
func nsmaPoints(ls []string, i, n int, fst, lst float64) ([]point, int, error) {
	pts := make([]point, 0, n)
	for ; i < len(ls) && len(pts) < n; i++ {
		s := strings.TrimSpace(ls[i])
		if s == "" {
			continue
		}
		vals := splitCSV(s)
		ln := i + 1
		if len(vals)%2 != 0 {
			if _, ok := number(vals[0]); !ok {
				return nil, 0, lineErr(ln, "the cut announced %d points (NUPOIN) but has only %d before this line", n, len(pts))
			}
			return nil, 0, lineErr(ln, "a data line must hold \"angle,value\" pairs, got %d fields", len(vals))
		}
		for k := 0; k < len(vals); k += 2 {
			a, ok1 := number(vals[k])
			x, ok2 := number(vals[k+1])
			switch {
			case !ok1 && k == 0 && len(pts) < n:
				return nil, 0, lineErr(ln, "the cut announced %d points (NUPOIN) but has only %d before this line", n, len(pts))
			case !ok1 || !ok2:
				return nil, 0, lineErr(ln, "%q,%q is not an angle and a value", vals[k], vals[k+1])
			case a < fst-1e-9 || a > lst+1e-9:
				return nil, 0, lineErr(ln, "angle %g lies outside FSTLST %g..%g", a, fst, lst)
			}
			pts = append(pts, point{angle: a, att: x, line: ln})
		}
	}
	if len(pts) != n {
		return nil, 0, lineErr(min(i, len(ls)), "the cut announced %d points (NUPOIN) but has %d", n, len(pts))
	}
	return pts, i, nil
}
