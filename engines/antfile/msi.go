package antfile

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"linkplan/appliance"
)

// ParseMSI reads a Planet/MSI pattern file (.msi, .pln, .prn, or .txt):
// header lines "KEYWORD value" (NAME, MAKE, FREQUENCY, GAIN, H_WIDTH,
// V_WIDTH, FRONT_TO_BACK, TILT, ELECTRICAL_TILT, POLARIZATION, COMMENT;
// keywords in any case, other keywords ignored as vendor extensions), then
// the tables "HORIZONTAL n" and "VERTICAL n", each followed by n lines
// "angle attenuation" (degrees, dB below the peak). Fields are separated
// by spaces or tabs; lines may end in CRLF; blank lines are skipped. A
// first line that is no keyword is the name (some vendors leave NAME
// out). GAIN is in dBd unless its unit says dBi (dBi = dBd + 2.15; no
// unit: dBd, with a unit_assumed warning). FREQUENCY may carry MHz, GHz or
// kHz (default MHz).
//
// The vertical angles are below the horizon (module doc of
// appliance.AntennaPattern). A vertical cut whose least attenuation lies
// within 45° of 90° or 270° while 0° and 180° are both at least 10 dB
// deeper was measured from the zenith (θ = 0 up, as in the Tongyu files):
// it is converted to the elevation below the horizon, e = θ − 90 when the
// peak is near 90° and e = 270 − θ when it is near 270° (the peak's side
// becomes the front), with a vertical_zenith_referenced warning.
func ParseMSI(data []byte) (*File, error) {
	ls, err := lines(data)
	if err != nil {
		return nil, err
	}
	f := newFile(FormatMSI)
	var h, v []point
	var hLine, vLine int
	first := true
	for i := 0; i < len(ls); i++ {
		fields := strings.Fields(ls[i])
		if len(fields) == 0 {
			continue
		}
		ln := i + 1
		key := strings.ToUpper(fields[0])
		rest := strings.TrimSpace(strings.TrimSpace(ls[i])[len(fields[0]):])
		wasFirst := first
		first = false
		switch key {
		case "HORIZONTAL", "VERTICAL":
			if len(fields) != 2 {
				return nil, lineErr(ln, "%s must be followed by the number of samples only, e.g. %q", key, key+" 360")
			}
			n, err := strconv.Atoi(fields[1])
			if err != nil || n < 4 || n > appliance.MaxPatternPoints {
				return nil, lineErr(ln, "%s announces %q samples; want a whole number 4..%d", key, fields[1], appliance.MaxPatternPoints)
			}
			if key == "HORIZONTAL" && hLine != 0 || key == "VERTICAL" && vLine != 0 {
				return nil, lineErr(ln, "a second %s table (the first is at line %d)", key, map[bool]int{true: hLine, false: vLine}[key == "HORIZONTAL"])
			}
			pts, next, err := msiTable(ls, i+1, n, key)
			if err != nil {
				return nil, err
			}
			if key == "HORIZONTAL" {
				h, hLine = pts, ln
			} else {
				v, vLine = pts, ln
			}
			i = next - 1
		case "NAME":
			f.Name = rest
		case "MAKE", "MANUFACTURER":
			f.Make = rest
		case "COMMENT":
			f.Comment = strings.TrimSpace(f.Comment + " " + rest)
		case "POLARIZATION", "POLARISATION":
			f.Polarization = rest
		case "FREQUENCY":
			x, err := msiFrequency(fields[1:])
			if err != nil {
				return nil, lineErr(ln, "FREQUENCY %s", err.Error())
			}
			f.FreqMHz = x
		case "GAIN":
			if err := f.msiGain(fields[1:], ln); err != nil {
				return nil, err
			}
		case "H_WIDTH", "V_WIDTH", "FRONT_TO_BACK", "ELECTRICAL_TILT":
			if len(fields) < 2 {
				return nil, lineErr(ln, "%s needs a number", key)
			}
			x, ok := number(strings.TrimSuffix(strings.ToLower(fields[1]), "°"))
			if !ok {
				return nil, lineErr(ln, "%s: %q is not a number", key, fields[1])
			}
			switch key {
			case "H_WIDTH":
				f.StatedHBeamwidthDeg = x
			case "V_WIDTH":
				f.StatedVBeamwidthDeg = x
			case "FRONT_TO_BACK":
				if x != 0 { // 0: not given (the Galtronics files)
					f.StatedFrontToBackDB = math.Abs(x) // some files write it negative
				}
			default:
				f.StatedElectricalTiltDeg = x
			}
		default:
			if _, ok := number(fields[0]); ok {
				return nil, lineErr(ln, "a data line outside a HORIZONTAL or VERTICAL table")
			}
			if wasFirst && f.Name == "" {
				f.Name = strings.TrimSpace(ls[i]) // a name without the NAME keyword
			}
			// other keywords (TILT, vendor extensions) carry nothing the
			// pattern needs
		}
	}
	end := len(ls)
	switch {
	case hLine == 0:
		return nil, lineErr(end, "the file has no HORIZONTAL table")
	case vLine == 0:
		return nil, lineErr(end, "the file has no VERTICAL table")
	}
	if f.Pattern.H, err = cut("horizontal", h); err != nil {
		return nil, err
	}
	if f.Pattern.V, err = cut("vertical", v); err != nil {
		return nil, err
	}
	if math.IsNaN(f.GainDBi) {
		f.GainDBi = 2.15
		f.warn(WarnUnitAssumed, "the file states no GAIN: 0 dBd (2.15 dBi) assumed")
	}
	f.zenithToElevation()
	f.finish()
	return f, nil
}

// msiTable reads n "angle value" lines from ls[from:], skipping blank
// lines, and returns them and the index after the last.
func msiTable(ls []string, from, n int, key string) ([]point, int, error) {
	pts := make([]point, 0, n)
	i := from
	for ; i < len(ls) && len(pts) < n; i++ {
		fields := strings.Fields(ls[i])
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			if _, ok := number(fields[0]); !ok {
				return nil, 0, lineErr(i+1, "the %s table announced %d samples but has only %d before this line", key, n, len(pts))
			}
			return nil, 0, lineErr(i+1, "a %s sample must be two numbers \"angle attenuation\", got %d fields", key, len(fields))
		}
		a, ok1 := number(fields[0])
		x, ok2 := number(fields[1])
		switch {
		case !ok1 && len(pts) < n:
			return nil, 0, lineErr(i+1, "the %s table announced %d samples but has only %d before this line", key, n, len(pts))
		case !ok2:
			return nil, 0, lineErr(i+1, "%q is not an attenuation in dB", fields[1])
		case a < -360 || a > 360:
			return nil, 0, lineErr(i+1, "angle %g is outside -360..360 degrees", a)
		}
		pts = append(pts, point{angle: a, att: x, line: i + 1})
	}
	if len(pts) < n {
		return nil, 0, lineErr(len(ls), "the %s table announced %d samples but the file ends after %d", key, n, len(pts))
	}
	return pts, i, nil
}

func msiFrequency(fields []string) (float64, error) {
	if len(fields) == 0 {
		return 0, fmt.Errorf("needs a number")
	}
	s := strings.ToLower(strings.Join(fields, ""))
	mult := 1.0
	for _, u := range []struct {
		suffix string
		m      float64
	}{{"mhz", 1}, {"ghz", 1000}, {"khz", 0.001}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.m
			break
		}
	}
	x, ok := number(s)
	if !ok || x*mult < 0 || x*mult > appliance.MaxEquipmentFreqMH {
		return 0, fmt.Errorf("%q is not a frequency of 0..%g MHz", strings.Join(fields, " "), appliance.MaxEquipmentFreqMH)
	}
	return x * mult, nil
}

// msiGain reads "GAIN 16.95 dBd", "GAIN 10.00 dBi" or "GAIN 16.95".
func (f *File) msiGain(fields []string, ln int) error {
	if len(fields) == 0 {
		return lineErr(ln, "GAIN needs a number")
	}
	s := strings.ToLower(strings.Join(fields, ""))
	unit := ""
	for _, u := range []string{"dbd", "dbi"} {
		if strings.HasSuffix(s, u) {
			s, unit = strings.TrimSuffix(s, u), u
			break
		}
	}
	x, ok := number(s)
	if !ok || x < -20 || x > 70 {
		return lineErr(ln, "GAIN %q is not a gain of -20..70 dB(d|i)", strings.Join(fields, " "))
	}
	switch unit {
	case "dbi":
		f.GainDBi = x
	case "dbd":
		f.GainDBi = x + 2.15
	default:
		f.GainDBi = x + 2.15
		f.warn(WarnUnitAssumed, "GAIN %g has no unit: dBd assumed (the Planet convention), %g dBi", x, x+2.15)
	}
	return nil
}

// zenithToElevation converts a vertical cut measured from the zenith
// (ParseMSI doc).
func (f *File) zenithToElevation() {
	c := &f.Pattern.V
	peak, at := c.Min(nil)
	near := func(a, b float64) bool { return math.Abs(math.Mod(a-b+540, 360)-180) <= 45 }
	if !(near(at, 90) || near(at, 270)) || c.At(0) < peak+10 || c.At(180) < peak+10 {
		return
	}
	conv := func(theta float64) float64 { return 270 - theta }
	rule := "e = 270° − θ"
	if near(at, 90) {
		conv = func(theta float64) float64 { return theta - 90 }
		rule = "e = θ − 90°"
	}
	pts := make([]point, len(c.AnglesDeg))
	for i, a := range c.AnglesDeg {
		pts[i] = point{angle: conv(a), att: c.AttDB[i]}
	}
	conv2, err := cut("vertical", pts)
	if err != nil {
		return // cannot happen: the same samples, moved
	}
	*c = conv2
	f.warn(WarnZenithReferenced, "the vertical cut peaks at %g° with deep nulls at 0° and 180°: it is measured from the zenith (θ = 0° up) and was converted to the elevation below the horizon by %s; the peak's side is taken as the front", at, rule)
}
