package antfile_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/antfile"
)

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parse(t testing.TB, name string) *antfile.File {
	t.Helper()
	f, err := antfile.Parse(name, read(t, name), "")
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f
}

func codes(ws []appliance.Warning) string { return strings.Join(appliance.WarningCodes(ws), ",") }

// TestIssue25_RealPatternFiles parses every real sample: its peak gain is the file's
// stated gain (dBd + 2.15), a normalised pattern peaks at 0 dB, and its
// 3 dB beamwidths and front-to-back ratio are the header's H_WIDTH,
// V_WIDTH and FRONT_TO_BACK where given, within max(1°, 6 %) and 1 dB.
// The tolerance is the tables' own: the Amphenol 0E table at 851 MHz
// crosses 3 dB at +32.5° (3.1 dB at 33°) and −36° (3.0 dB at 324°), 68.5°
// in all, where the data sheet's band-wide nominal figure is 65°; the
// Sinclair's 1° table gives 13.8° for the stated 14.5°. The Galtronics
// files are not normalised (their cuts never reach 0 dB) and state
// beamwidths their tables do not show: the parser says so in warnings.
func TestIssue25_RealPatternFiles(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		file           string
		format         antfile.Format
		gainDBi        float64
		freqMHz        float64
		hbw, vbw, fb   float64 // stated; NaN: none
		vPeakDeg       float64 // electrical downtilt read off the pattern
		normalised     bool
		wantWarnings   string
		hbwDeg, vbwDeg float64 // the pattern's own, for files without stated widths (NaN: not checked)
	}{
		{"B800A065-18-0E.pln", antfile.FormatMSI, 13.6 + 2.15, 851, 65, 11.2, 30.1, 0, true, "", nan, nan},
		{"B800A065-18-4E.pln", antfile.FormatMSI, 13.6 + 2.15, 851, 65, 11.2, 33.2, 4, true, "", nan, nan},
		{"SV460-SF2SNM_0920_00T.msi", antfile.FormatMSI, 15.0 + 2.15, 920, 14.5, 29, nan, 0, true, "", nan, nan},
		{"AMB4520R8v06_1845_M45_04T_y1.msi", antfile.FormatMSI, 16.87 + 2.15, 1845, nan, nan, nan, 4, true, "", 39.79, 7.21},
		{"AMB4520R8v06_05T.msi", antfile.FormatMSI, 16.95 + 2.15, 1845, nan, nan, nan, 5, false, "", 39.71, 7.24}, // its vertical peak is 0.02 dB: within the 0.1 dB of the warning
		{"TQJ-8010-9011DT0_0791_CO_P45_00T.msi", antfile.FormatMSI, 10, 791, nan, nan, nan, 0, true, "vertical_zenith_referenced", 360, 9.10},
		{"TQJ-8010-9011DT0_0862_CO_P45_00T.msi", antfile.FormatMSI, 10, 862, nan, nan, nan, 0, true, "vertical_zenith_referenced", 360, 8.42},
		{"TQJ-8010-9011DT0_0791_CO_P45_00T.msi.adf", antfile.FormatNSMA, 10, 791, nan, nan, nan, -1, true, "unit_assumed", 360, 9.10},
		{"LTE-L_1960MHz_P1.txt", antfile.FormatMSI, 3.43, 1960, nan, nan, nan, 20, false, "pattern_not_normalised,stated_value_mismatch,stated_value_mismatch", 151.2, 61.9},
		{"LTE-R_1960MHz_P1.txt", antfile.FormatMSI, 3.31, 1960, nan, nan, nan, 16, false, "pattern_not_normalised,stated_value_mismatch", 111.8, 96.5},
		{"crc-covlib_generic_antenna.ant", antfile.FormatRadioMobile, nan, 0, nan, nan, nan, 0, true, "gain_not_stated", 60, 20},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			f := parse(t, c.file)
			if f.Format != c.format {
				t.Errorf("format %s, want %s", f.Format, c.format)
			}
			if !(math.IsNaN(c.gainDBi) && math.IsNaN(f.GainDBi)) && math.Abs(f.GainDBi-c.gainDBi) > 1e-9 {
				t.Errorf("gain %.4f dBi, want %.4f", f.GainDBi, c.gainDBi)
			}
			if f.FreqMHz != c.freqMHz {
				t.Errorf("frequency %g MHz, want %g", f.FreqMHz, c.freqMHz)
			}
			if got := codes(f.Warnings); got != c.wantWarnings {
				t.Errorf("warnings %q, want %q: %+v", got, c.wantWarnings, f.Warnings)
			}
			s := f.Pattern.Stats()
			a := f.Antenna(c.file, "")
			if c.normalised {
				if s.HPeakAttDB != 0 || s.VPeakAttDB != 0 {
					t.Errorf("peak attenuation H %g V %g dB, want 0", s.HPeakAttDB, s.VPeakAttDB)
				}
				// the peak gain of the pattern is the stated gain
				if peak := a.GainDBi - math.Min(s.HPeakAttDB, s.VPeakAttDB); !math.IsNaN(c.gainDBi) && peak != c.gainDBi {
					t.Errorf("peak gain %g dBi, want %g", peak, c.gainDBi)
				}
			}
			if s.VPeakDeg != c.vPeakDeg {
				t.Errorf("vertical peak at %g°, want %g°", s.VPeakDeg, c.vPeakDeg)
			}
			tol := func(stated float64) float64 { return math.Max(1, 0.06*stated) }
			if !math.IsNaN(c.hbw) {
				if f.StatedHBeamwidthDeg != c.hbw || math.Abs(s.HBeamwidthDeg-c.hbw) > tol(c.hbw) {
					t.Errorf("H beamwidth %.3f° (stated %g), want %g° ± %.2g", s.HBeamwidthDeg, f.StatedHBeamwidthDeg, c.hbw, tol(c.hbw))
				}
			}
			if !math.IsNaN(c.vbw) {
				if f.StatedVBeamwidthDeg != c.vbw || math.Abs(s.VBeamwidthDeg-c.vbw) > tol(c.vbw) {
					t.Errorf("V beamwidth %.3f° (stated %g), want %g° ± %.2g", s.VBeamwidthDeg, f.StatedVBeamwidthDeg, c.vbw, tol(c.vbw))
				}
			}
			if !math.IsNaN(c.fb) && math.Abs(s.FrontToBackDB-c.fb) > 1 {
				t.Errorf("front-to-back %.3f dB, want %g ± 1", s.FrontToBackDB, c.fb)
			}
			if !math.IsNaN(c.hbwDeg) && math.Abs(s.HBeamwidthDeg-c.hbwDeg) > 0.05 {
				t.Errorf("H beamwidth %.3f°, want %g°", s.HBeamwidthDeg, c.hbwDeg)
			}
			if !math.IsNaN(c.vbwDeg) && math.Abs(s.VBeamwidthDeg-c.vbwDeg) > 0.05 {
				t.Errorf("V beamwidth %.3f°, want %g°", s.VBeamwidthDeg, c.vbwDeg)
			}
			if err := a.Validate(); err != nil {
				t.Errorf("the antenna does not validate: %v", err)
			}
			if a.HBeamwidthDeg != math.Round(s.HBeamwidthDeg*1000)/1000 || a.ElectricalTiltDeg != c.vPeakDeg {
				t.Errorf("antenna figures %+v", a)
			}
		})
	}
}

// TestIssue25_TiltConventions establishes the vertical angle convention from the
// pairs that differ only in electrical tilt: the 4E file peaks 4° further
// down than the 0E one, the 05T file 1° further than the 04T one, so
// positive vertical angles lie below the horizon. And a 0E antenna
// mechanically tilted 4° down puts its boresight-plane peak where the 4E
// antenna has it: Radiator.LossDB of both along the boresight agree
// within 1.5 dB over the main lobe (−2..10°) and both are 0 dB at 4°.
func TestIssue25_TiltConventions(t *testing.T) {
	peak := func(name string) float64 { return parse(t, name).Pattern.Stats().VPeakDeg }
	if a, b := peak("B800A065-18-0E.pln"), peak("B800A065-18-4E.pln"); a != 0 || b != 4 {
		t.Errorf("Amphenol 0E/4E vertical peaks at %g°/%g°, want 0/4", a, b)
	}
	if a, b := peak("AMB4520R8v06_1845_M45_04T_y1.msi"), peak("AMB4520R8v06_05T.msi"); a != 4 || b != 5 {
		t.Errorf("Huawei 04T/05T vertical peaks at %g°/%g°, want 4/5", a, b)
	}
	e0 := parse(t, "B800A065-18-0E.pln").Antenna("0E", "")
	e4 := parse(t, "B800A065-18-4E.pln").Antenna("4E", "")
	mech := e0.Radiator(90, 4) // pointing east, 4° mechanical downtilt
	elec := e4.Radiator(90, math.NaN())
	if got := mech.LossDB(90, 4); math.Abs(got) > 1e-9 {
		t.Errorf("0E tilted 4° down: loss at 4° below the horizon %g dB, want 0", got)
	}
	if got := elec.LossDB(91, 4); got != 0 { // the 4E horizontal cut peaks at +1°
		t.Errorf("4E: loss at 4° below the horizon %g dB, want 0", got)
	}
	for th := -2.0; th <= 10; th += 0.5 {
		if m, e := mech.LossDB(90, th), elec.LossDB(90, th); math.Abs(m-e) > 1.5 {
			t.Errorf("at %g° below the horizon: 0E+4° mechanical %.2f dB, 4E %.2f dB", th, m, e)
		}
	}
	// Toward the back the mechanical tilt lifts the pattern: 4° below
	// the horizon behind the antenna is 8° off the tilted beam's plane.
	if m, e := mech.LossDB(270, 0), elec.LossDB(270, 0); m < 25 || e < 25 {
		t.Errorf("back lobe at the horizon: %g / %g dB, want at least the front-to-back ratio", m, e)
	}
}

// TestIssue25_MSIAgreesWithADF reads the Tongyu 791 MHz MSI file and CloudRF's
// ADF conversion of it. The ADF's values are the MSI's moved by one label:
// msi2ADF.py rotates the 360 samples by 180 and labels them from −179
// instead of −180, so the ADF's horizontal value at a is the MSI's at
// a − 1, and (the ADF's vertical angles being elevations above the
// horizon) its vertical value at e below the horizon is the MSI's at
// e + 1. With that shift the two readers agree to 0.005 dB at every
// sample of both cuts, the gains are equal, and the vertical beamwidths
// agree; this also checks the MSI reader's conversion of the Tongyu
// zenith-referenced vertical cut against CloudRF's (an extra 90°).
func TestIssue25_MSIAgreesWithADF(t *testing.T) {
	msi := parse(t, "TQJ-8010-9011DT0_0791_CO_P45_00T.msi")
	adf := parse(t, "TQJ-8010-9011DT0_0791_CO_P45_00T.msi.adf")
	if msi.GainDBi != adf.GainDBi {
		t.Errorf("gain %g vs %g dBi", msi.GainDBi, adf.GainDBi)
	}
	worst := 0.0
	for a := -179.0; a <= 180; a++ {
		dh := adf.Pattern.H.At(a) - msi.Pattern.H.At(a-1)
		dv := adf.Pattern.V.At(a) - msi.Pattern.V.At(a+1)
		worst = math.Max(worst, math.Max(math.Abs(dh), math.Abs(dv)))
		if math.Abs(dh) > 0.005 || math.Abs(dv) > 0.005 {
			t.Fatalf("at %g°: H differs by %.3f dB, V by %.3f dB", a, dh, dv)
		}
	}
	if sm, sa := msi.Pattern.Stats(), adf.Pattern.Stats(); math.Abs(sm.VBeamwidthDeg-sa.VBeamwidthDeg) > 1e-9 || sm.HBeamwidthDeg != sa.HBeamwidthDeg {
		t.Errorf("beamwidths MSI %+v, ADF %+v", sm, sa)
	}
	t.Logf("largest difference after the 1° label shift: %.4f dB", worst)
}

// TestSeparatorsAndLineEndings: the same MSI content with LF, CRLF, tabs
// or runs of spaces gives the same pattern.
func TestSeparatorsAndLineEndings(t *testing.T) {
	base := read(t, "SV460-SF2SNM_0920_00T.msi")
	want := parse(t, "SV460-SF2SNM_0920_00T.msi")
	for name, data := range map[string][]byte{
		"crlf":   bytes.ReplaceAll(base, []byte("\n"), []byte("\r\n")),
		"tabs":   bytes.ReplaceAll(base, []byte(" "), []byte("\t")),
		"spaces": bytes.ReplaceAll(base, []byte(" "), []byte("   ")),
		"lower":  bytes.Replace(bytes.Replace(base, []byte("HORIZONTAL"), []byte("horizontal"), 1), []byte("GAIN 15.0 dBd"), []byte("gain 15.0 DBD"), 1),
	} {
		got, err := antfile.ParseMSI(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if fmt.Sprint(got.Pattern) != fmt.Sprint(want.Pattern) || got.GainDBi != want.GainDBi {
			t.Errorf("%s: a different pattern or gain", name)
		}
	}
}

// TestIssue25_MalformedFileNamesLine: every malformed file is refused with the line
// at fault, matching appliance.ErrInvalid.
func TestIssue25_MalformedFileNamesLine(t *testing.T) {
	msi := string(read(t, "SV460-SF2SNM_0920_00T.msi")) // LF, 10 header lines, H table at 10, V at 371
	msiLines := strings.Split(msi, "\n")
	replace := func(ls []string, i int, s string) string {
		c := append([]string{}, ls...)
		c[i-1] = s
		return strings.Join(c, "\n")
	}
	adf := strings.ReplaceAll(string(read(t, "TQJ-8010-9011DT0_0791_CO_P45_00T.msi.adf")), "\r\n", "\n")
	adfLines := strings.Split(adf, "\n")
	ant := string(read(t, "crc-covlib_generic_antenna.ant"))
	antLines := strings.Split(ant, "\n")
	cases := []struct {
		name   string
		format antfile.Format
		data   string
		line   int
		reason string
	}{
		{"msi non-numeric attenuation", antfile.FormatMSI, replace(msiLines, 15, "4 abc"), 15, "not an attenuation"},
		{"msi three fields", antfile.FormatMSI, replace(msiLines, 20, "9 5.2 1"), 20, "two numbers"},
		{"msi short horizontal table", antfile.FormatMSI, replace(msiLines, 10, "HORIZONTAL 361"), 371, "announced 361"},
		{"msi bad count", antfile.FormatMSI, replace(msiLines, 10, "HORIZONTAL many"), 10, "want a whole number"},
		{"msi gain unit", antfile.FormatMSI, replace(msiLines, 6, "GAIN 15 dBx"), 6, "GAIN"},
		{"msi no vertical", antfile.FormatMSI, strings.Join(msiLines[:370], "\n"), 370, "no VERTICAL"},
		{"msi angle twice", antfile.FormatMSI, replace(msiLines, 12, "0 7.5"), 12, "twice"},
		{"msi data outside a table", antfile.FormatMSI, "NAME x\n5 1.0\n", 2, "outside"},
		{"msi frequency", antfile.FormatMSI, replace(msiLines, 2, "FREQUENCY nine"), 2, "FREQUENCY"},
		{"msi second horizontal", antfile.FormatMSI, msi + "HORIZONTAL 360\n", 732, "second HORIZONTAL"},
		{"msi empty", antfile.FormatMSI, "", 1, "empty"},
		{"msi long line", antfile.FormatMSI, "NAME " + strings.Repeat("x", 5000), 1, "longer"},
		{"adf bad value", antfile.FormatNSMA, replace(adfLines, 30, "-175,eight"), 30, "not an angle and a value"},
		{"adf angle outside FSTLST", antfile.FormatNSMA, replace(adfLines, 30, "-190,8.4"), 30, "outside FSTLST"},
		{"adf gunits", antfile.FormatNSMA, replace(adfLines, 11, "GUNITS:,DBX/DBR"), 11, "GUNITS"},
		{"adf nupoin", antfile.FormatNSMA, replace(adfLines, 24, "NUPOIN:,lots"), 24, "NUPOIN"},
		{"adf short cut", antfile.FormatNSMA, replace(adfLines, 24, "NUPOIN:,361"), 386, "announced 361"},
		{"adf stray data", antfile.FormatNSMA, "REVNUM:,TIA/EIA-804-B\n-179,8.31\n", 2, "outside a cut"},
		{"adf not key value", antfile.FormatNSMA, replace(adfLines, 3, "hello world"), 3, "KEY:,value"},
		{"adf no gain", antfile.FormatNSMA, replace(adfLines, 12, "MDGAIN:,"), 751, "no gain"},
		{"ant text", antfile.FormatRadioMobile, replace(antLines, 400, "minus three"), 400, "relative gain"},
		{"ant short", antfile.FormatRadioMobile, strings.Join(antLines[:700], "\n"), 700, "exactly 720"},
		{"ant long", antfile.FormatRadioMobile, ant + "0\n", 721, "further one"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := antfile.Parse("x", []byte(c.data), c.format)
			var le *antfile.LineError
			if !errors.As(err, &le) {
				t.Fatalf("error %v, want a LineError", err)
			}
			if !errors.Is(err, appliance.ErrInvalid) {
				t.Errorf("error %v does not match ErrInvalid", err)
			}
			if le.Line != c.line || !strings.Contains(le.Reason, c.reason) {
				t.Errorf("line %d %q, want line %d with %q", le.Line, le.Reason, c.line, c.reason)
			}
		})
	}
}

// TestDetect: formats from the extension, else from the content.
func TestDetect(t *testing.T) {
	for _, c := range []struct {
		name, file string
		want       antfile.Format
	}{
		{"x.pln", "B800A065-18-0E.pln", antfile.FormatMSI},
		{"x.txt", "LTE-L_1960MHz_P1.txt", antfile.FormatMSI},
		{"x.dat", "TQJ-8010-9011DT0_0791_CO_P45_00T.msi.adf", antfile.FormatNSMA},
		{"x", "crc-covlib_generic_antenna.ant", antfile.FormatRadioMobile},
		{"x.ADF", "TQJ-8010-9011DT0_0791_CO_P45_00T.msi.adf", antfile.FormatNSMA},
	} {
		got, err := antfile.Detect(c.name, read(t, c.file))
		if err != nil || got != c.want {
			t.Errorf("%s (%s): %s %v, want %s", c.name, c.file, got, err, c.want)
		}
	}
	if _, err := antfile.Detect("notes.txt", []byte("hello\nworld\n")); !errors.Is(err, appliance.ErrInvalid) {
		t.Errorf("plain text: %v", err)
	}
}
