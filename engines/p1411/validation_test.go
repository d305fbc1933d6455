package p1411_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"linkplan/engines/enginetest"
	"linkplan/engines/p1411"
)

// validationTolDB is the pass tolerance of the reference's own test (OFCOM
// javaP1411 P1411Test.java), dB.
const validationTolDB = 0.01

// runCase evaluates one row of cases.csv. Frequencies in the table are GHz for
// every model; the API takes MHz.
func runCase(row enginetest.Row) (lossDB float64, warn p1411.Warning, err error) {
	fGHz, err := row.Float("f_GHz")
	if err != nil {
		return 0, 0, err
	}
	d, err := row.Float("d_m")
	if err != nil {
		return 0, 0, err
	}
	f := fGHz * 1000
	env := row["environment"]
	switch model := row["model"]; model {
	case "belowroof":
		e, ok := map[string]p1411.BelowRooftopEnv{
			"URBAN":           p1411.BelowLoS,
			"HIGH_RISE_URBAN": p1411.BelowNLoSUrbanHighRise,
			"SUBURBAN":        p1411.BelowNLoSUrbanLowRiseSuburban,
			"RESIDENTIAL":     p1411.BelowNLoSResidential,
		}[env]
		if !ok {
			return 0, 0, fmt.Errorf("belowroof environment %q unknown", env)
		}
		return p1411.BelowRooftop(e, f, d)
	case "aboveroof":
		e, ok := map[string]p1411.AboveRooftopEnv{
			"URBAN":           p1411.AboveLoS,
			"HIGH_RISE_URBAN": p1411.AboveNLoSUrbanHighRise,
		}[env]
		if !ok {
			return 0, 0, fmt.Errorf("aboveroof environment %q unknown", env)
		}
		return p1411.AboveRooftop(e, f, d)
	case "lowheight":
		e, ok := map[string]p1411.LowHeightEnv{
			"SUBURBAN":    p1411.LowSuburban,
			"URBAN":       p1411.LowUrban,
			"DENSE_URBAN": p1411.LowDenseUrban,
		}[env]
		if !ok {
			return 0, 0, fmt.Errorf("lowheight environment %q unknown", env)
		}
		p, err := row.Float("p_location_pct")
		if err != nil {
			return 0, 0, err
		}
		w, err := row.Float("w_m")
		if err != nil {
			return 0, 0, err
		}
		return p1411.LowHeight(e, f, d, p, w)
	default:
		return 0, 0, fmt.Errorf("model %q unknown", model)
	}
}

func TestValidationP1411(t *testing.T) {
	t.Parallel()
	s := enginetest.NewSuite(t, "p1411")
	defer s.Done()
	rows, err := enginetest.ReadCSV(filepath.Join(enginetest.Dir("p1411"), "cases.csv"))
	if err != nil {
		s.Fail("cases.csv", err)
		return
	}
	flagged := 0
	for i, row := range rows {
		id := row["case_id"]
		if id == "" {
			id = fmt.Sprintf("row%d", i+1)
		}
		want, err := row.Float("L_ref_dB")
		if err != nil {
			s.Fail(id, err)
			continue
		}
		got, warn, err := runCase(row)
		if err != nil {
			s.Fail(id, err)
			continue
		}
		if warn != 0 {
			flagged++
		}
		s.Check(id, got, want, validationTolDB)
	}
	t.Logf("%d of %d cases carry a validity warning", flagged, len(rows))
}
