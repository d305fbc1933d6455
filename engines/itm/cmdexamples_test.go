package itm_test

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"linkplan/engines/enginetest"
	"linkplan/engines/itm"
)

// driverInput is an ITMDrvr input file (i_*.txt): "key,value[,value...]".
type driverInput map[string][]float64

func readDriverInput(path string) (driverInput, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	in := driverInput{}
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		parts := strings.Split(line, ",")
		key := strings.TrimSpace(parts[0])
		for _, p := range parts[1:] {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil {
				return nil, fmt.Errorf("%s line %d: %w", filepath.Base(path), n+1, err)
			}
			in[key] = append(in[key], v)
		}
	}
	return in, nil
}

func (in driverInput) one(key string) (float64, error) {
	v := in[key]
	if len(v) != 1 {
		return 0, fmt.Errorf("input %s has %d values, want 1", key, len(v))
	}
	return v[0], nil
}

// driverOutput is an ITMDrvr output file (o_*.txt): "label   value  (unit)"
// lines and, for CR tables, a reliability × confidence grid.
type driverOutput struct {
	values map[string]string // label → first value token
	table  map[[2]float64]string
}

var driverLine = regexp.MustCompile(`^(\S.*?)\s{2,}(\S+)`)

func readDriverOutput(path string) (driverOutput, error) {
	f, err := os.Open(path)
	if err != nil {
		return driverOutput{}, err
	}
	defer f.Close()
	out := driverOutput{values: map[string]string{}, table: map[[2]float64]string{}}
	sc := bufio.NewScanner(f)
	var conf []float64
	inTable := false
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \r")
		switch {
		case strings.HasPrefix(line, "Basic Transmission Loss Results"):
			inTable = true
			continue
		case inTable && strings.HasPrefix(line, "Reliability"):
			continue
		case inTable && strings.TrimSpace(line) == "":
			if len(out.table) > 0 {
				inTable = false
			}
			continue
		case inTable && conf == nil:
			for _, tok := range strings.Fields(line) {
				c, err := strconv.ParseFloat(tok, 64)
				if err != nil {
					return out, fmt.Errorf("table header %q: %w", line, err)
				}
				conf = append(conf, c)
			}
			continue
		case inTable:
			toks := strings.Fields(line)
			if len(toks) != len(conf)+1 {
				return out, fmt.Errorf("table row %q: %d values for %d confidences", line, len(toks)-1, len(conf))
			}
			rel, err := strconv.ParseFloat(toks[0], 64)
			if err != nil {
				return out, fmt.Errorf("table row %q: %w", line, err)
			}
			for i, c := range conf {
				out.table[[2]float64{rel, c}] = toks[i+1]
			}
			continue
		}
		if m := driverLine.FindStringSubmatch(line); m != nil {
			if _, seen := out.values[m[1]]; !seen {
				out.values[m[1]] = m[2]
			}
		}
	}
	return out, sc.Err()
}

// TestValidationCmdExamples runs the ITMDrvr v1.4 examples (inputs i_X.txt,
// outputs o_X.txt with intermediate values) of the cmd_examples folder. The
// folder exists in the developer set only, so the committed copy is read
// whatever LINKPLAN_VALIDATION_DIR says.
func TestValidationCmdExamples(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(enginetest.Fixtures("itm"), "cmd_examples")
	outs, _ := filepath.Glob(filepath.Join(dir, "o_*.txt"))
	if len(outs) == 0 {
		t.Fatalf("no ITMDrvr outputs in %s (committed fixtures)", dir)
	}
	s := enginetest.NewSuite(t, "itm_cmd_examples")
	defer s.Done()
	for _, o := range outs {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(o), "o_"), ".txt")
		if err := runDriverExample(t, s, dir, name); err != nil {
			s.Fail(name, err)
		}
	}
}

func runDriverExample(t *testing.T, s *enginetest.Suite, dir, name string) error {
	t.Helper()
	in, err := readDriverInput(filepath.Join(dir, "i_"+name+".txt"))
	if err != nil {
		return err
	}
	out, err := readDriverOutput(filepath.Join(dir, "o_"+name+".txt"))
	if err != nil {
		return err
	}
	common := map[string]float64{}
	for _, k := range []string{"h_tx__meter", "h_rx__meter", "climate", "N_0", "f__mhz", "pol", "epsilon", "sigma", "mdvar"} {
		if common[k], err = in.one(k); err != nil {
			return err
		}
	}
	p2p := strings.HasPrefix(out.values["Mode"], "Point")
	var pfl []float64
	var area itm.AreaInput
	if p2p {
		if pfl, err = (&profiles{dir: enginetest.Fixtures("itm")}).load("cmd_examples/" + out.values["Terrain File"]); err != nil {
			return err
		}
	} else {
		vals := map[string]float64{}
		for _, k := range []string{"d__km", "delta_h__meter", "tx_site_criteria", "rx_site_criteria"} {
			if vals[k], err = in.one(k); err != nil {
				return err
			}
		}
		area = itm.AreaInput{DistKm: vals["d__km"], DeltaHM: vals["delta_h__meter"],
			TxSiting: int(vals["tx_site_criteria"]), RxSiting: int(vals["rx_site_criteria"])}
	}
	run := func(tls bool, a, b, c float64) (itm.Result, error) {
		if p2p {
			pin := itm.P2PInput{PFL: pfl, HTxM: common["h_tx__meter"], HRxM: common["h_rx__meter"],
				ClimateCode: int(common["climate"]), N0: common["N_0"], FreqMHz: common["f__mhz"],
				Pol: int(common["pol"]), Epsilon: common["epsilon"], SigmaSm: common["sigma"], MdVar: int(common["mdvar"])}
			if tls {
				return itm.P2PTLS(pin, a, b, c)
			}
			return itm.P2PCR(pin, a, b)
		}
		ain := area
		ain.HTxM, ain.HRxM = common["h_tx__meter"], common["h_rx__meter"]
		ain.ClimateCode, ain.N0, ain.FreqMHz = int(common["climate"]), common["N_0"], common["f__mhz"]
		ain.Pol, ain.Epsilon, ain.SigmaSm, ain.MdVar = int(common["pol"]), common["epsilon"], common["sigma"], int(common["mdvar"])
		if tls {
			return itm.AreaTLS(ain, a, b, c)
		}
		return itm.AreaCR(ain, a, b)
	}

	var res itm.Result
	switch {
	case len(in["time"]) > 0:
		tm, _ := in.one("time")
		loc, _ := in.one("location")
		sit, _ := in.one("situation")
		if res, err = run(true, tm, loc, sit); err != nil {
			return err
		}
		checkDriverValue(t, s, name, out, "Basic Transmission Loss", res.LossDB, true)
	case len(out.table) > 0:
		for _, rel := range in["reliability"] {
			for _, conf := range in["confidence"] {
				if res, err = run(false, conf, rel, 0); err != nil {
					return err
				}
				want, ok := out.table[[2]float64{rel, conf}]
				if !ok {
					return fmt.Errorf("no table entry for reliability %v confidence %v", rel, conf)
				}
				w, err := strconv.ParseFloat(want, 64)
				if err != nil {
					return err
				}
				s.Check(fmt.Sprintf("%s_r%v_c%v", name, rel, conf), res.LossDB, w, 0.01+decimalTol(want))
			}
		}
	default:
		conf, err := in.one("confidence")
		if err != nil {
			return err
		}
		rel, err := in.one("reliability")
		if err != nil {
			return err
		}
		if res, err = run(false, conf, rel, 0); err != nil {
			return err
		}
		checkDriverValue(t, s, name, out, "Basic Transmission Loss", res.LossDB, true)
	}

	// intermediate values of the last run (they do not depend on the quantiles)
	im := res.Intermediate
	for label, got := range map[string]float64{
		"Free Space":          im.FreeSpaceLossDB,
		"d__km":               im.DistKm,
		"theta_hzn_tx":        im.ThetaHznRad[0] * 1000,
		"theta_hzn_rx":        im.ThetaHznRad[1] * 1000,
		"d_hzn_tx__meter":     im.DHznM[0],
		"d_hzn_rx__meter":     im.DHznM[1],
		"h_e_tx__meter":       im.HEffM[0],
		"h_e_rx__meter":       im.HEffM[1],
		"N_s":                 im.Ns,
		"delta_h__meter":      im.DeltaHM,
		"A_ref__db":           im.ARefDB,
		"Mode of Propagation": float64(im.Mode),
		"ITM Return Code":     float64(res.ReturnCode()),
	} {
		checkDriverValue(t, s, name, out, label, got, false)
	}
	if hx, ok := out.values["ITM Warning Flags"]; ok {
		want, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(hx), "0x"), 16, 32)
		if err != nil {
			return fmt.Errorf("warning flags %q: %w", hx, err)
		}
		if itm.Warning(want) != res.Warnings {
			t.Errorf("example %s: warnings %#x, want %#x", name, uint32(res.Warnings), want)
		}
	}
	return nil
}

// checkDriverValue compares one printed value at its printed precision;
// losses (counted) get the README's extra 0.01 dB.
func checkDriverValue(t *testing.T, s *enginetest.Suite, name string, out driverOutput, label string, got float64, counted bool) {
	t.Helper()
	str, ok := out.values[label]
	if !ok {
		t.Errorf("example %s: output has no %q", name, label)
		return
	}
	want, err := strconv.ParseFloat(str, 64)
	if err != nil {
		t.Errorf("example %s: %s %q: %v", name, label, str, err)
		return
	}
	if counted {
		s.Check(name, got, want, 0.01+decimalTol(str))
		return
	}
	if d := math.Abs(got - want); !(d <= decimalTol(str)) {
		t.Errorf("example %s: %s = %.6f, printed %s (|delta| %.3g)", name, label, got, str, d)
	}
}
