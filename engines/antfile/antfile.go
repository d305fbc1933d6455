package antfile

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"linkplan/appliance"
)

// Format is an antenna pattern file format.
type Format string

// Formats.
const (
	FormatMSI         Format = "msi"         // Planet/MSI (.msi, .pln, .prn, .txt)
	FormatNSMA        Format = "nsma"        // NSMA / TIA-804-B (.adf)
	FormatRadioMobile Format = "radiomobile" // Radio Mobile V3 (.ant)
)

// Limits of an input file.
const (
	MaxFileBytes = 2 << 20 // bytes of one file
	MaxLineBytes = 4096    // bytes of one line
)

// Warning codes of an import (appliance.Warning.Code).
const (
	WarnNotNormalised    = "pattern_not_normalised"     // a cut's least attenuation is not 0 dB
	WarnStatedMismatch   = "stated_value_mismatch"      // a stated beamwidth or ratio the pattern does not show
	WarnUnitAssumed      = "unit_assumed"               // a gain without a unit, or units the values contradict
	WarnZenithReferenced = "vertical_zenith_referenced" // the vertical cut was measured from the zenith and converted
	WarnCutIgnored       = "cut_ignored"                // a further frequency or a cross-polar cut was not used
	WarnNoGain           = "gain_not_stated"            // the file states no gain (Radio Mobile)
)

// File is a parsed pattern file, in the conventions of
// appliance.AntennaPattern whatever the format.
type File struct {
	Format       Format
	Name, Make   string
	Comment      string
	Polarization string
	FreqMHz      float64 // MHz; 0 when not stated
	MinMHz       float64 // MHz; 0 when not stated (NSMA LOWFRQ)
	MaxMHz       float64 // MHz; 0 when not stated (NSMA HGHFRQ)
	// GainDBi is the stated peak gain, dBi (dBd + 2.15); NaN when the file
	// states none.
	GainDBi float64
	// Stated figures of the header, NaN when absent: 3 dB beamwidths
	// (degrees), front-to-back ratio (dB, positive) and electrical
	// downtilt (degrees).
	StatedHBeamwidthDeg, StatedVBeamwidthDeg, StatedFrontToBackDB, StatedElectricalTiltDeg float64
	Pattern                                                                                appliance.AntennaPattern
	Warnings                                                                               []appliance.Warning
}

// LineError is a malformed file: the line (1-based) and what is wrong with
// it. It matches appliance.ErrInvalid.
type LineError struct {
	Line   int
	Reason string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Reason) }

// Is makes a LineError match appliance.ErrInvalid.
func (e *LineError) Is(target error) bool { return target == appliance.ErrInvalid }

func lineErr(line int, format string, args ...any) error {
	return &LineError{Line: line, Reason: fmt.Sprintf(format, args...)}
}

// lines splits data into lines without their CR/LF, refusing a file over
// MaxFileBytes or a line over MaxLineBytes.
func lines(data []byte) ([]string, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("the file has %d bytes; at most %d: %w", len(data), MaxFileBytes, appliance.ErrInvalid)
	}
	if len(data) == 0 {
		return nil, lineErr(1, "the file is empty")
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte-order mark
	raw := bytes.Split(data, []byte("\n"))
	out := make([]string, len(raw))
	for i, l := range raw {
		l = bytes.TrimSuffix(l, []byte("\r"))
		if len(l) > MaxLineBytes {
			return nil, lineErr(i+1, "longer than %d bytes", MaxLineBytes)
		}
		if bytes.IndexByte(l, 0) >= 0 {
			return nil, lineErr(i+1, "holds a NUL byte: not a text pattern file")
		}
		out[i] = text(l)
	}
	return out, nil
}

// text returns l as UTF-8: as is when valid, else read as Latin-1 (older
// vendor files write "°" and accented names in it).
func text(l []byte) string {
	if utf8.Valid(l) {
		return string(l)
	}
	r := make([]rune, len(l))
	for i, b := range l {
		r[i] = rune(b)
	}
	return string(r)
}

// number parses a decimal number (a comma is not a decimal separator
// here: NSMA uses it between fields).
func number(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 40 {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// point is one sample of a cut as the file gives it.
type point struct {
	angle, att float64
	line       int
}

// cut turns samples (angles in any real range, attenuation in dB) into a
// PatternCut: angles wrapped to [0, 360), sorted; a sample repeating an
// angle (0 and 360, −180 and 180) is dropped when its value agrees within
// 0.5 dB and refused otherwise.
func cut(name string, pts []point) (appliance.PatternCut, error) {
	if len(pts) < 4 {
		line := 0
		if len(pts) > 0 {
			line = pts[len(pts)-1].line
		}
		return appliance.PatternCut{}, lineErr(max(line, 1), "the %s cut has %d samples; at least 4 are needed", name, len(pts))
	}
	if len(pts) > appliance.MaxPatternPoints {
		return appliance.PatternCut{}, lineErr(pts[appliance.MaxPatternPoints].line, "the %s cut has more than %d samples", name, appliance.MaxPatternPoints)
	}
	w := make([]point, len(pts))
	for i, p := range pts {
		a := math.Mod(p.angle, 360)
		if a < 0 {
			a += 360
		}
		a = math.Round(a*1e9) / 1e9
		if a >= 360 {
			a = 0
		}
		w[i] = point{angle: a, att: p.att, line: p.line}
	}
	sort.SliceStable(w, func(i, j int) bool { return w[i].angle < w[j].angle })
	var c appliance.PatternCut
	for i, p := range w {
		if i > 0 && p.angle == w[i-1].angle {
			if math.Abs(p.att-w[i-1].att) > 0.5 {
				return appliance.PatternCut{}, lineErr(p.line, "the %s cut gives angle %g twice with different values (%g and %g dB, line %d)", name, p.angle, w[i-1].att, p.att, w[i-1].line)
			}
			continue
		}
		c.AnglesDeg = append(c.AnglesDeg, p.angle)
		c.AttDB = append(c.AttDB, p.att)
	}
	v := &appliance.ValidationError{}
	c.Validate(name, v)
	if err := v.Err(); err != nil {
		line := pts[len(pts)-1].line
		var ve *appliance.ValidationError
		if errors.As(err, &ve) && len(ve.Fields) > 0 {
			return appliance.PatternCut{}, lineErr(line, "the %s cut (ending here) is unusable: %s", name, ve.Fields[0].Reason)
		}
		return appliance.PatternCut{}, lineErr(line, "the %s cut is unusable", name)
	}
	return c, nil
}

// finish checks the figures against what the header states and adds the
// warnings every format shares.
func (f *File) finish() {
	s := f.Pattern.Stats()
	if math.Abs(s.HPeakAttDB) > 0.1 || math.Abs(s.VPeakAttDB) > 0.1 {
		f.warn(WarnNotNormalised, "the pattern's least attenuation is %.3g dB in the horizontal cut and %.3g dB in the vertical one, not 0: the cuts miss the direction of the stated peak gain or are not normalised; the stated gain is used as the peak and the cuts as given", s.HPeakAttDB, s.VPeakAttDB)
	}
	check := func(what string, stated, got, tol float64, unit string) {
		if math.IsNaN(stated) || math.Abs(stated-got) <= tol {
			return
		}
		f.warn(WarnStatedMismatch, "the file states a %s of %g%s; its pattern shows %.3g%s", what, stated, unit, got, unit)
	}
	check("horizontal 3 dB beamwidth", f.StatedHBeamwidthDeg, s.HBeamwidthDeg, math.Max(2, 0.1*f.StatedHBeamwidthDeg), "°")
	check("vertical 3 dB beamwidth", f.StatedVBeamwidthDeg, s.VBeamwidthDeg, math.Max(2, 0.1*f.StatedVBeamwidthDeg), "°")
	check("front-to-back ratio", f.StatedFrontToBackDB, s.FrontToBackDB, 3, " dB")
	check("electrical downtilt", f.StatedElectricalTiltDeg, s.VPeakDeg, 1, "°")
}

func (f *File) warn(code, format string, args ...any) {
	f.Warnings = append(f.Warnings, appliance.Warning{Code: code, Message: fmt.Sprintf(format, args...)})
}

// Antenna returns the file as a catalogue antenna (no id, owner or times):
// name (the file's, else fileName), make, gain (NaN gain: 0 dBi with the
// gain_not_stated warning), frequency, polarization, the pattern and the
// figures read off it, the source and the warnings.
func (f *File) Antenna(fileName string, sha256Hex string) appliance.Antenna {
	a := appliance.Antenna{Name: strings.TrimSpace(f.Name), Make: strings.TrimSpace(f.Make), GainDBi: f.GainDBi,
		FreqMHz: f.FreqMHz, MinMHz: f.MinMHz, MaxMHz: f.MaxMHz, Polarization: strings.TrimSpace(f.Polarization),
		Notes: strings.TrimSpace(f.Comment), Pattern: f.Pattern,
		Source:   appliance.PatternSource{Format: string(f.Format), FileName: path.Base(fileName), SHA256: sha256Hex},
		Warnings: append([]appliance.Warning{}, f.Warnings...)}
	if a.Name == "" {
		a.Name = strings.TrimSuffix(path.Base(fileName), path.Ext(fileName))
	}
	if math.IsNaN(a.GainDBi) {
		a.GainDBi = 0
	}
	a.Name = clip(a.Name, appliance.MaxEquipmentText)
	a.Make = clip(a.Make, appliance.MaxEquipmentText)
	a.Polarization = clip(a.Polarization, appliance.MaxEquipmentText)
	a.Notes = clip(a.Notes, appliance.MaxEquipmentNotes)
	a.SetStats()
	return a
}

// clip shortens s to at most n runes, without control characters.
func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// Detect returns the format of a file from its name's extension, else from
// its content: "REVNUM:" or "PATCUT:" lines are NSMA, a HORIZONTAL line is
// MSI, 720 lines of single numbers are Radio Mobile.
func Detect(fileName string, data []byte) (Format, error) {
	switch strings.ToLower(path.Ext(fileName)) {
	case ".adf", ".nsma":
		return FormatNSMA, nil
	case ".ant":
		return FormatRadioMobile, nil
	case ".msi", ".pln", ".prn":
		return FormatMSI, nil
	}
	head := data[:min(len(data), 64<<10)]
	up := bytes.ToUpper(head)
	switch {
	case bytes.Contains(up, []byte("REVNUM:")) || bytes.Contains(up, []byte("PATCUT:")):
		return FormatNSMA, nil
	case bytes.Contains(up, []byte("HORIZONTAL")):
		return FormatMSI, nil
	}
	n := 0
	for _, l := range bytes.Split(data, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		if _, ok := number(string(l)); !ok {
			return "", fmt.Errorf("cannot tell the pattern format of %q (want a Planet/MSI, NSMA .adf or Radio Mobile .ant file): %w", path.Base(fileName), appliance.ErrInvalid)
		}
		n++
	}
	if n == 720 {
		return FormatRadioMobile, nil
	}
	return "", fmt.Errorf("cannot tell the pattern format of %q (want a Planet/MSI, NSMA .adf or Radio Mobile .ant file): %w", path.Base(fileName), appliance.ErrInvalid)
}

// Parse parses data in format (or the detected one when format is "").
func Parse(fileName string, data []byte, format Format) (*File, error) {
	if format == "" {
		var err error
		if format, err = Detect(fileName, data); err != nil {
			return nil, err
		}
	}
	switch format {
	case FormatMSI:
		return ParseMSI(data)
	case FormatNSMA:
		return ParseNSMA(data)
	case FormatRadioMobile:
		return ParseRadioMobile(data)
	}
	return nil, fmt.Errorf("unknown pattern format %q (want msi, nsma or radiomobile): %w", format, appliance.ErrInvalid)
}

func newFile(f Format) *File {
	nan := math.NaN()
	return &File{Format: f, GainDBi: nan, StatedHBeamwidthDeg: nan, StatedVBeamwidthDeg: nan, StatedFrontToBackDB: nan, StatedElectricalTiltDeg: nan}
}
