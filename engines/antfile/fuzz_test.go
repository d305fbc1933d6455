package antfile_test

import (
	"math"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/antfile"
)

// fuzzParse checks that a parser never panics and that what it accepts is
// a valid pattern whose every evaluation is finite.
func fuzzParse(f *testing.F, parse func([]byte) (*antfile.File, error), seeds ...string) {
	for _, s := range seeds {
		f.Add(read(f, s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := parse(data)
		if err != nil {
			return
		}
		v := &appliance.ValidationError{}
		got.Pattern.Validate("pattern.", v)
		if err := v.Err(); err != nil {
			t.Fatalf("accepted an invalid pattern: %v", err)
		}
		s := got.Pattern.Stats()
		for _, x := range []float64{s.HBeamwidthDeg, s.VBeamwidthDeg, s.FrontToBackDB} {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("stats %+v", s)
			}
		}
		r := appliance.NewPatternRadiator(&got.Pattern, 30, 5, "fuzz")
		for _, d := range [][2]float64{{30, 0}, {210, -10}, {0, 89}, {123.4, 45}} {
			if x := r.LossDB(d[0], d[1]); math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("loss %g at %v", x, d)
			}
		}
	})
}

func FuzzParseMSI(f *testing.F) {
	fuzzParse(f, antfile.ParseMSI, "SV460-SF2SNM_0920_00T.msi", "B800A065-18-4E.pln", "TQJ-8010-9011DT0_0791_CO_P45_00T.msi", "LTE-L_1960MHz_P1.txt")
}

func FuzzParseNSMA(f *testing.F) {
	fuzzParse(f, antfile.ParseNSMA, "TQJ-8010-9011DT0_0791_CO_P45_00T.msi.adf")
}

func FuzzParseRadioMobile(f *testing.F) {
	fuzzParse(f, antfile.ParseRadioMobile, "crc-covlib_generic_antenna.ant")
}
