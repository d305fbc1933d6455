package itm_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"linkplan/engines/enginetest"
	"linkplan/engines/itm"
)

// Tolerances of engines/testdata/validation/itm/README.md, dB.
const (
	tolP2P       = 0.015 // NTIA p2p.csv prints 2 decimals
	tolArea      = 0.06  // NTIA area.csv and ITMDrvr print 1 decimal
	tolQKPFL     = 0.06  // the FORTRAN deck prints 1 decimal
	tolGenerated = 0.001 // the generated cases print 4 decimals
)

// suiteDir is the itm validation folder ($LINKPLAN_VALIDATION_DIR/itm or the
// committed copy).
func suiteDir() string { return enginetest.Dir("itm") }

// readSuite reads one CSV of the suite folder. A missing file is reported
// through the suite (no readable case) rather than skipped.
func readSuite(t *testing.T, s *enginetest.Suite, file string) []enginetest.Row {
	t.Helper()
	rows, err := enginetest.ReadCSV(filepath.Join(suiteDir(), file))
	if err != nil {
		t.Errorf("suite %s: %v", s.Name, err)
		return nil
	}
	return rows
}

// profiles loads PFL files relative to a folder (the suite's unless dir is
// set), once each.
type profiles struct {
	dir    string
	loaded map[string][]float64
}

func (p *profiles) load(rel string) ([]float64, error) {
	if pfl, ok := p.loaded[rel]; ok {
		return pfl, nil
	}
	dir := p.dir
	if dir == "" {
		dir = suiteDir()
	}
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil, fmt.Errorf("open profile: %w", err)
	}
	defer f.Close()
	pfl, err := itm.ParsePFL(f)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", rel, err)
	}
	if p.loaded == nil {
		p.loaded = map[string][]float64{}
	}
	p.loaded[rel] = pfl
	return pfl, nil
}

// fields reads named float columns; the first name present of each
// alternative list (a|b) is used.
func fields(r enginetest.Row, names ...string) ([]float64, error) {
	out := make([]float64, len(names))
	for i, n := range names {
		alts := strings.Split(n, "|")
		col := alts[0]
		for _, a := range alts {
			if _, ok := r[a]; ok {
				col = a
				break
			}
		}
		v, err := r.Float(col)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func caseID(r enginetest.Row, i int) string {
	if id := r["case_id"]; id != "" {
		return id
	}
	return fmt.Sprintf("row%d", i+1)
}

func TestValidationP2PTLS(t *testing.T) {
	t.Parallel()
	s := enginetest.NewSuite(t, "itm_p2p_tls")
	defer s.Done()
	pfls := &profiles{}
	for i, r := range readSuite(t, s, "p2p_tls_cases.csv") {
		id := caseID(r, i)
		v, err := fields(r, "h_tx__meter", "h_rx__meter", "climate", "N_0", "f__mhz", "pol", "epsilon", "sigma",
			"mdvar", "time", "location", "situation", "A__db")
		if err != nil {
			s.Fail(id, err)
			continue
		}
		pfl, err := pfls.load(r["pfl"])
		if err != nil {
			s.Fail(id, err)
			continue
		}
		if err := checkProfileColumns(r, pfl); err != nil {
			s.Fail(id, err)
			continue
		}
		in := itm.P2PInput{PFL: pfl, HTxM: v[0], HRxM: v[1], ClimateCode: int(v[2]), N0: v[3], FreqMHz: v[4],
			Pol: int(v[5]), Epsilon: v[6], SigmaSm: v[7], MdVar: int(v[8])}
		res, err := itm.P2PTLS(in, v[9], v[10], v[11])
		if err != nil {
			s.Fail(id, err)
			continue
		}
		s.Check(id, res.LossDB, v[12], tolP2P)
	}
}

// checkProfileColumns compares the optional np, xi_m and d_km columns with
// the profile file.
func checkProfileColumns(r enginetest.Row, pfl []float64) error {
	for col, got := range map[string]float64{"np": pfl[0], "xi_m": pfl[1], "d_km": pfl[0] * pfl[1] / 1000} {
		if _, ok := r[col]; !ok {
			continue
		}
		want, err := r.Float(col)
		if err != nil {
			return err
		}
		if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
			return fmt.Errorf("column %s = %v but the profile gives %v", col, want, got)
		}
	}
	return nil
}

func areaInput(v []float64) itm.AreaInput {
	return itm.AreaInput{DistKm: v[0], HTxM: v[1], HRxM: v[2], TxSiting: int(v[3]), RxSiting: int(v[4]),
		DeltaHM: v[5], ClimateCode: int(v[6]), N0: v[7], FreqMHz: v[8], Pol: int(v[9]), Epsilon: v[10],
		SigmaSm: v[11], MdVar: int(v[12])}
}

var areaCols = []string{"d__km", "h_tx__meter", "h_rx__meter", "tx_siting_criteria|tx_site_criteria",
	"rx_siting_criteria|rx_site_criteria", "delta_h__meter", "climate", "N_0", "f__mhz", "pol", "epsilon",
	"sigma", "mdvar"}

func TestValidationAreaTLS(t *testing.T) {
	t.Parallel()
	s := enginetest.NewSuite(t, "itm_area_tls")
	defer s.Done()
	for i, r := range readSuite(t, s, "area_tls_cases.csv") {
		id := caseID(r, i)
		v, err := fields(r, append(areaCols, "time", "location", "situation", "A__db")...)
		if err != nil {
			s.Fail(id, err)
			continue
		}
		res, err := itm.AreaTLS(areaInput(v), v[13], v[14], v[15])
		if err != nil {
			s.Fail(id, err)
			continue
		}
		s.Check(id, res.LossDB, v[16], tolArea)
	}
}

func TestValidationAreaCRTable(t *testing.T) {
	t.Parallel()
	s := enginetest.NewSuite(t, "itm_area_cr_table")
	defer s.Done()
	for i, r := range readSuite(t, s, "area_cr_table_cases.csv") {
		id := caseID(r, i)
		v, err := fields(r, append(areaCols, "confidence", "reliability", "A__db")...)
		if err != nil {
			s.Fail(id, err)
			continue
		}
		res, err := itm.AreaCR(areaInput(v), v[13], v[14])
		if err != nil {
			s.Fail(id, err)
			continue
		}
		s.Check(id, res.LossDB, v[15], tolArea)
		checkOptional(t, id, r, "A_fs__db", res.Intermediate.FreeSpaceLossDB, tolArea)
	}
}

// checkOptional compares an optional column (not counted in the suite).
func checkOptional(t *testing.T, id string, r enginetest.Row, col string, got, tol float64) {
	t.Helper()
	if _, ok := r[col]; !ok {
		return
	}
	want, err := r.Float(col)
	if err != nil {
		t.Errorf("case %s: %v", id, err)
		return
	}
	if d := math.Abs(got - want); !(d <= tol) {
		t.Errorf("case %s: %s = %.6f, want %.6f (|delta| %.3g > %g)", id, col, got, want, d, tol)
	}
}

func TestValidationQKPFL(t *testing.T) {
	t.Parallel()
	s := enginetest.NewSuite(t, "itm_qkpfl_cr")
	defer s.Done()
	pfls := &profiles{}
	for i, r := range readSuite(t, s, "qkpfl_cr_cases.csv") {
		id := caseID(r, i)
		v, err := fields(r, "h_tx__meter", "h_rx__meter", "climate", "N_s_surface", "f__mhz", "pol", "epsilon",
			"sigma", "mdvar", "confidence", "reliability", "A__db")
		if err != nil {
			s.Fail(id, err)
			continue
		}
		pfl, err := pfls.load(r["pfl"])
		if err != nil {
			s.Fail(id, err)
			continue
		}
		// The deck gives the surface refractivity N_s; v1.4 takes N_0 and
		// scales it by exp(−h_sys/9460), so undo that scaling.
		n0 := v[3] * math.Exp(itm.SystemElevationM(pfl)/9460)
		in := itm.P2PInput{PFL: pfl, HTxM: v[0], HRxM: v[1], ClimateCode: int(v[2]), N0: n0, FreqMHz: v[4],
			Pol: int(v[5]), Epsilon: v[6], SigmaSm: v[7], MdVar: int(v[8])}
		res, err := itm.P2PCR(in, v[9], v[10])
		if err != nil {
			s.Fail(id, err)
			continue
		}
		if math.Abs(res.Intermediate.Ns-v[3]) > 1e-9 {
			t.Errorf("case %s: N_s = %v, want %v", id, res.Intermediate.Ns, v[3])
		}
		s.Check(id, res.LossDB, v[11], tolQKPFL)
		checkOptional(t, id, r, "A_fs__db", res.Intermediate.FreeSpaceLossDB, tolQKPFL)
	}
}

// decimalTol is half a unit in the last printed place of s, plus a hair
// for the binary representation.
func decimalTol(s string) float64 {
	dec := 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		dec = len(s) - i - 1
	}
	return 0.5*math.Pow(10, -float64(dec)) + 1e-9
}

func TestValidationGeneratedRJ(t *testing.T) {
	t.Parallel()
	s := enginetest.NewSuite(t, "itm_ntia_generated_rj")
	defer s.Done()
	pfls := &profiles{}
	for i, r := range readSuite(t, s, "ntia_generated_rj_p2p_cases.csv") {
		id := caseID(r, i)
		v, err := fields(r, "h_tx__meter", "h_rx__meter", "climate", "N_0", "f__mhz", "pol", "epsilon", "sigma",
			"mdvar", "time_or_reliability", "location_or_confidence", "A__db")
		if err != nil {
			s.Fail(id, err)
			continue
		}
		pfl, err := pfls.load(r["pfl"])
		if err != nil {
			s.Fail(id, err)
			continue
		}
		in := itm.P2PInput{PFL: pfl, HTxM: v[0], HRxM: v[1], ClimateCode: int(v[2]), N0: v[3], FreqMHz: v[4],
			Pol: int(v[5]), Epsilon: v[6], SigmaSm: v[7], MdVar: int(v[8])}
		var res itm.Result
		switch strings.ToUpper(r["variability"]) {
		case "CR":
			// columns: reliability, confidence
			res, err = itm.P2PCR(in, v[10], v[9])
		case "TLS":
			var sit float64
			sit, err = r.Float("situation")
			if err == nil {
				res, err = itm.P2PTLS(in, v[9], v[10], sit)
			}
		default:
			err = fmt.Errorf("variability %q is not CR or TLS", r["variability"])
		}
		if err != nil {
			s.Fail(id, err)
			continue
		}
		s.Check(id, res.LossDB, v[11], tolGenerated)
		checkGeneratedIntermediates(t, id, r, res)
	}
}

// checkGeneratedIntermediates compares the intermediate columns of a
// generated case at the precision they are printed with.
func checkGeneratedIntermediates(t *testing.T, id string, r enginetest.Row, res itm.Result) {
	t.Helper()
	im := res.Intermediate
	checkOptional(t, id, r, "A_fs__db", im.FreeSpaceLossDB, tolGenerated)
	for col, got := range map[string]float64{
		"d__km":              im.DistKm,
		"theta_hzn_tx__mrad": im.ThetaHznRad[0] * 1000,
		"theta_hzn_rx__mrad": im.ThetaHznRad[1] * 1000,
		"d_hzn_tx__meter":    im.DHznM[0],
		"d_hzn_rx__meter":    im.DHznM[1],
		"h_e_tx__meter":      im.HEffM[0],
		"h_e_rx__meter":      im.HEffM[1],
		"N_s":                im.Ns,
		"delta_h__meter":     im.DeltaHM,
		"mode":               float64(im.Mode),
		"return_code":        float64(res.ReturnCode()),
	} {
		if s, ok := r[col]; ok && s != "" {
			checkOptional(t, id, r, col, got, decimalTol(s))
		}
	}
	if hx, ok := r["warnings_hex"]; ok && hx != "" {
		want, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(hx), "0x"), 16, 32)
		if err != nil {
			t.Errorf("case %s: warnings_hex %q: %v", id, hx, err)
		} else if itm.Warning(want) != res.Warnings {
			t.Errorf("case %s: warnings %#x (%v), want %#x (%v)", id, uint32(res.Warnings), res.Warnings,
				want, itm.Warning(want))
		}
	}
}
