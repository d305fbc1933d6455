package itm_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/itm"
)

// flatPFL is a gently sloping profile of np intervals of xi metres.
func flatPFL(np int, xi float64) []float64 {
	pfl := []float64{float64(np), xi}
	for i := 0; i <= np; i++ {
		pfl = append(pfl, 100+0.01*float64(i)+3*math.Sin(float64(i)))
	}
	return pfl
}

func goodP2P() itm.P2PInput {
	return itm.P2PInput{PFL: flatPFL(200, 100), HTxM: 30, HRxM: 10, ClimateCode: itm.ClimateEquatorial, N0: 330,
		FreqMHz: 700, Pol: itm.PolVertical, Epsilon: 15, SigmaSm: 0.005, MdVar: itm.MdVarAccidental}
}

func goodArea() itm.AreaInput {
	return itm.AreaInput{DistKm: 20, DeltaHM: 90, HTxM: 30, HRxM: 10, TxSiting: itm.SitingRandom,
		RxSiting: itm.SitingCareful, ClimateCode: itm.ClimateMaritimeSubtropical, N0: 330, FreqMHz: 700,
		Pol: itm.PolHorizontal, Epsilon: 15, SigmaSm: 0.005, MdVar: itm.MdVarBroadcast}
}

// fieldsOf returns the field names of a ValidationError in err.
func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	if !errors.Is(err, appliance.ErrInvalid) {
		t.Fatalf("error %v does not match appliance.ErrInvalid", err)
	}
	var ve *appliance.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v is not a *appliance.ValidationError", err)
	}
	var out []string
	for _, f := range ve.Fields {
		out = append(out, f.Field)
	}
	return out
}

func TestP2PValidation(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := []struct {
		name   string
		mod    func(*itm.P2PInput)
		pcts   [3]float64
		fields []string
	}{
		{"frequency NaN", func(in *itm.P2PInput) { in.FreqMHz = nan }, [3]float64{50, 50, 50}, []string{"f_mhz"}},
		{"frequency below 20 MHz", func(in *itm.P2PInput) { in.FreqMHz = 19.9 }, [3]float64{50, 50, 50}, []string{"f_mhz"}},
		{"frequency above 20 GHz", func(in *itm.P2PInput) { in.FreqMHz = 20001 }, [3]float64{50, 50, 50}, []string{"f_mhz"}},
		{"frequency infinite", func(in *itm.P2PInput) { in.FreqMHz = math.Inf(1) }, [3]float64{50, 50, 50}, []string{"f_mhz"}},
		{"negative tx height", func(in *itm.P2PInput) { in.HTxM = -1 }, [3]float64{50, 50, 50}, []string{"h_tx_m"}},
		{"NaN rx height", func(in *itm.P2PInput) { in.HRxM = nan }, [3]float64{50, 50, 50}, []string{"h_rx_m"}},
		{"rx height above 3000 m", func(in *itm.P2PInput) { in.HRxM = 3001 }, [3]float64{50, 50, 50}, []string{"h_rx_m"}},
		{"time 0", nil, [3]float64{0, 50, 50}, []string{"time_pct"}},
		{"location 100", nil, [3]float64{50, 100, 50}, []string{"location_pct"}},
		{"situation NaN", nil, [3]float64{50, 50, nan}, []string{"situation_pct"}},
		{"climate 0", func(in *itm.P2PInput) { in.ClimateCode = 0 }, [3]float64{50, 50, 50}, []string{"climate"}},
		{"climate 8", func(in *itm.P2PInput) { in.ClimateCode = 8 }, [3]float64{50, 50, 50}, []string{"climate"}},
		{"pol 2", func(in *itm.P2PInput) { in.Pol = 2 }, [3]float64{50, 50, 50}, []string{"pol"}},
		{"mdvar 4", func(in *itm.P2PInput) { in.MdVar = 4 }, [3]float64{50, 50, 50}, []string{"mdvar"}},
		{"mdvar 14", func(in *itm.P2PInput) { in.MdVar = 14 }, [3]float64{50, 50, 50}, []string{"mdvar"}},
		{"mdvar 34", func(in *itm.P2PInput) { in.MdVar = 34 }, [3]float64{50, 50, 50}, []string{"mdvar"}},
		{"mdvar -1", func(in *itm.P2PInput) { in.MdVar = -1 }, [3]float64{50, 50, 50}, []string{"mdvar"}},
		{"N_0 below 250", func(in *itm.P2PInput) { in.N0 = 249 }, [3]float64{50, 50, 50}, []string{"n_0"}},
		{"epsilon below 1", func(in *itm.P2PInput) { in.Epsilon = 0.5 }, [3]float64{50, 50, 50}, []string{"epsilon"}},
		{"sigma zero", func(in *itm.P2PInput) { in.SigmaSm = 0 }, [3]float64{50, 50, 50}, []string{"sigma_s_m"}},
		{"profile of 2 points", func(in *itm.P2PInput) { in.PFL = []float64{1, 100, 10, 20} }, [3]float64{50, 50, 50}, []string{"pfl"}},
		{"profile np 1", func(in *itm.P2PInput) { in.PFL = []float64{1, 100, 10, 20, 30} }, [3]float64{50, 50, 50}, []string{"pfl"}},
		{"profile nil", func(in *itm.P2PInput) { in.PFL = nil }, [3]float64{50, 50, 50}, []string{"pfl"}},
		{"zero spacing", func(in *itm.P2PInput) { in.PFL[1] = 0 }, [3]float64{50, 50, 50}, []string{"pfl"}},
		{"negative spacing", func(in *itm.P2PInput) { in.PFL[1] = -90 }, [3]float64{50, 50, 50}, []string{"pfl"}},
		{"np does not match", func(in *itm.P2PInput) { in.PFL[0] = 150 }, [3]float64{50, 50, 50}, []string{"pfl"}},
		{"fractional np", func(in *itm.P2PInput) { in.PFL[0] = 199.5 }, [3]float64{50, 50, 50}, []string{"pfl"}},
		{"NaN elevation", func(in *itm.P2PInput) { in.PFL[50] = nan }, [3]float64{50, 50, 50}, []string{"pfl"}},
		{"several fields", func(in *itm.P2PInput) { in.FreqMHz, in.HTxM, in.Pol = 5, -3, 7 }, [3]float64{-1, 50, 50},
			[]string{"h_tx_m", "f_mhz", "pol", "time_pct"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := goodP2P()
			if tc.mod != nil {
				tc.mod(&in)
			}
			res, err := itm.P2PTLS(in, tc.pcts[0], tc.pcts[1], tc.pcts[2])
			if err == nil {
				t.Fatalf("no error; loss %v dB", res.LossDB)
			}
			if got := fieldsOf(t, err); !slices.Equal(got, tc.fields) {
				t.Errorf("fields %v, want %v (%v)", got, tc.fields, err)
			}
		})
	}
}

func TestCRValidationFieldNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		conf, rel  float64
		wantFields []string
	}{
		{"confidence 0", 0, 50, []string{"confidence_pct"}},
		{"reliability 100", 50, 100, []string{"reliability_pct"}},
		{"both NaN", math.NaN(), math.NaN(), []string{"confidence_pct", "reliability_pct"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := itm.P2PCR(goodP2P(), tc.conf, tc.rel)
			if got := fieldsOf(t, err); !slices.Equal(got, tc.wantFields) {
				t.Errorf("p2p fields %v, want %v", got, tc.wantFields)
			}
			_, err = itm.AreaCR(goodArea(), tc.conf, tc.rel)
			if got := fieldsOf(t, err); !slices.Equal(got, tc.wantFields) {
				t.Errorf("area fields %v, want %v", got, tc.wantFields)
			}
		})
	}
}

func TestAreaValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mod    func(*itm.AreaInput)
		fields []string
	}{
		{"zero distance", func(in *itm.AreaInput) { in.DistKm = 0 }, []string{"d_km"}},
		{"NaN distance", func(in *itm.AreaInput) { in.DistKm = math.NaN() }, []string{"d_km"}},
		{"negative delta h", func(in *itm.AreaInput) { in.DeltaHM = -1 }, []string{"delta_h_m"}},
		{"tx siting 3", func(in *itm.AreaInput) { in.TxSiting = 3 }, []string{"tx_siting"}},
		{"rx siting -1", func(in *itm.AreaInput) { in.RxSiting = -1 }, []string{"rx_siting"}},
		{"frequency 10 MHz", func(in *itm.AreaInput) { in.FreqMHz = 10 }, []string{"f_mhz"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := goodArea()
			tc.mod(&in)
			_, err := itm.AreaTLS(in, 50, 50, 50)
			if got := fieldsOf(t, err); !slices.Equal(got, tc.fields) {
				t.Errorf("fields %v, want %v (%v)", got, tc.fields, err)
			}
		})
	}
}

func TestModelErrors(t *testing.T) {
	t.Parallel()
	high := goodP2P()
	for i := 2; i < len(high.PFL); i++ {
		high.PFL[i] += 5000 // N_s = 250·exp(−5100/9460) ≈ 146 < 150
	}
	high.N0 = 250
	horizEps1 := goodP2P()
	horizEps1.Epsilon = 1 // Z_g = sqrt(j·x): real part equals imaginary part
	horizEps1.Pol = itm.PolHorizontal
	tests := []struct {
		name string
		in   itm.P2PInput
		code int
	}{
		{"surface refractivity too small", high, itm.CodeSurfaceRefractivitySmall},
		{"ground impedance", horizEps1, itm.CodeGroundImpedance},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := itm.P2PTLS(tc.in, 50, 50, 50)
			var me *itm.ModelError
			if !errors.As(err, &me) {
				t.Fatalf("error %v is not a *itm.ModelError", err)
			}
			if me.Code != tc.code {
				t.Errorf("code %d, want %d", me.Code, tc.code)
			}
			if !errors.Is(err, appliance.ErrOutsideEnvelope) || errors.Is(err, appliance.ErrInvalid) {
				t.Errorf("error %v should match ErrOutsideEnvelope only", err)
			}
		})
	}
}

func TestWarningsRaised(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		mod  func(*itm.P2PInput)
		pcts [3]float64
		want itm.Warning
	}{
		{"low tx antenna", func(in *itm.P2PInput) { in.HTxM = 0.7 }, [3]float64{50, 50, 50}, itm.WarnTxHeight},
		{"high rx antenna", func(in *itm.P2PInput) { in.HRxM = 1500 }, [3]float64{50, 50, 50}, itm.WarnRxHeight},
		{"30 MHz", func(in *itm.P2PInput) { in.FreqMHz = 30 }, [3]float64{50, 50, 50}, itm.WarnFrequency},
		{"extreme time", nil, [3]float64{99.95, 50, 50}, itm.WarnExtremeVariability},
		{"short path", func(in *itm.P2PInput) { in.PFL = flatPFL(9, 100) }, [3]float64{50, 50, 50}, itm.WarnPathShort},
		{"low surface refractivity", func(in *itm.P2PInput) {
			in.N0 = 260
			for i := 2; i < len(in.PFL); i++ {
				in.PFL[i] += 1000
			}
		}, [3]float64{50, 50, 50}, itm.WarnLowSurfaceRefractivity},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := goodP2P()
			if tc.mod != nil {
				tc.mod(&in)
			}
			res, err := itm.P2PTLS(in, tc.pcts[0], tc.pcts[1], tc.pcts[2])
			if err != nil {
				t.Fatal(err)
			}
			if res.Warnings&tc.want == 0 {
				t.Errorf("warnings %#x (%v) lack %#x", uint32(res.Warnings), res.Warnings, uint32(tc.want))
			}
			if res.ReturnCode() != 1 {
				t.Errorf("return code %d, want 1", res.ReturnCode())
			}
		})
	}
	res, err := itm.P2PTLS(goodP2P(), 50, 50, 50)
	if err != nil || res.Warnings != 0 || res.ReturnCode() != 0 {
		t.Errorf("plain path: warnings %v, return code %d, err %v", res.Warnings, res.ReturnCode(), err)
	}
}

func TestWarningStrings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		w    itm.Warning
		want []string // substrings, in order
	}{
		{"none", 0, nil},
		{"one", itm.WarnFrequency, []string{"frequency"}},
		{"two in bit order", itm.WarnExtremeVariability | itm.WarnTxHeight, []string{"TX antenna height", "tail"}},
		{"unknown bit", itm.WarnPathShort | 0x10000, []string{"shorter than 1 km", "unknown warning bits 0x10000"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.w.Strings()
			if len(got) != len(tc.want) {
				t.Fatalf("Strings() = %q, want %d entries", got, len(tc.want))
			}
			for i, sub := range tc.want {
				if !strings.Contains(got[i], sub) {
					t.Errorf("entry %d = %q, want it to contain %q", i, got[i], sub)
				}
			}
			if tc.w == 0 && tc.w.String() != "no warnings" {
				t.Errorf("String() = %q", tc.w.String())
			}
		})
	}
	all := itm.Warning(0x7fff)
	if n := len(all.Strings()); n != 15 {
		t.Errorf("all 15 flags give %d strings", n)
	}
}

// TestCRIsTLS: CR is TLS with time = reliability, location = 50 %,
// situation = confidence (bit for bit).
func TestCRIsTLS(t *testing.T) {
	t.Parallel()
	for _, mdvar := range []int{0, 1, 2, 3, 12, 23, 31} {
		in := goodP2P()
		in.MdVar = mdvar
		cr, err1 := itm.P2PCR(in, 80, 95)
		tls, err2 := itm.P2PTLS(in, 95, 50, 80)
		if err1 != nil || err2 != nil || cr != tls {
			t.Errorf("mdvar %d p2p: CR %v TLS %v (%v, %v)", mdvar, cr.LossDB, tls.LossDB, err1, err2)
		}
		a := goodArea()
		a.MdVar = mdvar
		acr, err1 := itm.AreaCR(a, 80, 95)
		atls, err2 := itm.AreaTLS(a, 95, 50, 80)
		if err1 != nil || err2 != nil || acr != atls {
			t.Errorf("mdvar %d area: CR %v TLS %v (%v, %v)", mdvar, acr.LossDB, atls.LossDB, err1, err2)
		}
	}
}

// TestMdVarSemantics checks what each mode of variability ignores.
func TestMdVarSemantics(t *testing.T) {
	t.Parallel()
	loss := func(t *testing.T, mdvar int, tm, loc, sit float64) float64 {
		t.Helper()
		in := goodP2P()
		in.PFL = terrainPFLFixed()
		in.MdVar = mdvar
		res, err := itm.P2PTLS(in, tm, loc, sit)
		if err != nil {
			t.Fatal(err)
		}
		return res.LossDB
	}
	tests := []struct {
		name    string
		mdvar   int
		a, b    [3]float64 // two percentage triples
		same    bool       // whether the losses must be equal
		comment string
	}{
		{"single message ignores time and location", 0, [3]float64{10, 10, 70}, [3]float64{90, 95, 70}, true, ""},
		{"accidental ignores location", 1, [3]float64{30, 10, 70}, [3]float64{30, 95, 70}, true, ""},
		{"mobile ignores location", 2, [3]float64{30, 10, 70}, [3]float64{30, 95, 70}, true, ""},
		{"broadcast uses location", 3, [3]float64{30, 10, 70}, [3]float64{30, 95, 70}, false, ""},
		{"broadcast +10 ignores location", 13, [3]float64{30, 10, 70}, [3]float64{30, 95, 70}, true, ""},
		{"broadcast uses time", 3, [3]float64{10, 50, 50}, [3]float64{90, 50, 50}, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			la := loss(t, tc.mdvar, tc.a[0], tc.a[1], tc.a[2])
			lb := loss(t, tc.mdvar, tc.b[0], tc.b[1], tc.b[2])
			if (la == lb) != tc.same {
				t.Errorf("losses %v and %v dB; equal expected: %v", la, lb, tc.same)
			}
		})
	}
	// +20 removes direct situation variability: at 50 % time and location
	// the spread over situations shrinks.
	spread := func(mdvar int) float64 { return loss(t, mdvar, 50, 50, 90) - loss(t, mdvar, 50, 50, 10) }
	if s3, s23 := spread(3), spread(23); !(s23 < s3 && s23 >= 0) {
		t.Errorf("situation spread %v dB with mdvar 3, %v dB with mdvar 23", s3, s23)
	}
}

// terrainPFLFixed is a 30 km hilly profile.
func terrainPFLFixed() []float64 {
	pfl := []float64{300, 100}
	for i := 0; i <= 300; i++ {
		x := float64(i)
		pfl = append(pfl, 200+150*math.Sin(x/40)+40*math.Sin(x/7)+10*math.Cos(x/2.3))
	}
	return pfl
}

func TestSystemElevationAndNs(t *testing.T) {
	t.Parallel()
	pfl := []float64{10, 50, 1000, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1000} // p10 = 1: points 1..9
	if got := itm.SystemElevationM(pfl); got != 5 {
		t.Errorf("SystemElevationM = %v, want 5", got)
	}
	if got := itm.SystemElevationM([]float64{10, 50, 1}); !math.IsNaN(got) {
		t.Errorf("SystemElevationM of a short slice = %v, want NaN", got)
	}
	if got := itm.SurfaceRefractivity(301, 0); got != 301 {
		t.Errorf("SurfaceRefractivity(301, 0) = %v", got)
	}
	if got, want := itm.SurfaceRefractivity(301, 946), 301*math.Exp(-0.1); math.Abs(got-want) > 1e-12 {
		t.Errorf("SurfaceRefractivity(301, 946) = %v, want %v", got, want)
	}
	in := goodP2P()
	in.PFL = terrainPFLFixed()
	res, err := itm.P2PTLS(in, 50, 50, 50)
	if err != nil {
		t.Fatal(err)
	}
	if want := itm.SurfaceRefractivity(in.N0, itm.SystemElevationM(in.PFL)); res.Intermediate.Ns != want {
		t.Errorf("N_s = %v, want %v", res.Intermediate.Ns, want)
	}
}

func TestParsePFL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		text    string
		want    []float64
		wantErr bool
	}{
		{"one line", "2,90,1,2,3", []float64{2, 90, 1, 2, 3}, false},
		{"spaces and newlines", "2 90\n1.5\t2\r\n3\n", []float64{2, 90, 1.5, 2, 3}, false},
		{"comma and space", "2, 90, 1, 2, 3", []float64{2, 90, 1, 2, 3}, false},
		{"too few elevations", "3,90,1,2,3", nil, true},
		{"too many elevations", "1,90,1,2,3", nil, true},
		{"not a number", "2,90,1,x,3", nil, true},
		{"fractional np", "1.5,90,1,2", nil, true},
		{"negative np", "-1,90", nil, true},
		{"empty", "", nil, true},
		{"only np", "0", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := itm.ParsePFL(strings.NewReader(tc.text))
			if tc.wantErr {
				if !errors.Is(err, appliance.ErrInvalid) {
					t.Errorf("got %v, %v; want an ErrInvalid error", got, err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
