package p1812_test

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"linkplan/engines/enginetest"
	"linkplan/engines/p1812"
)

// profile is one P.1812 validation profile file.
type profile struct {
	d, h, r []float64
	zone    []int
}

func readProfile(path string) (profile, error) {
	rows, err := enginetest.ReadCSV(path)
	if err != nil {
		return profile{}, err
	}
	var p profile
	for i, row := range rows {
		d, err1 := row.Float("d_km")
		h, err2 := row.Float("h_masl")
		if err1 != nil || err2 != nil {
			return profile{}, fmt.Errorf("%s row %d: %v %v", path, i+1, err1, err2)
		}
		p.d = append(p.d, d)
		p.h = append(p.h, h)
		if _, ok := row["R_m"]; ok {
			r, err := row.Float("R_m")
			if err != nil {
				return profile{}, fmt.Errorf("%s row %d: %w", path, i+1, err)
			}
			p.r = append(p.r, r)
		}
		if _, ok := row["zone"]; ok {
			z, err := row.Float("zone")
			if err != nil {
				return profile{}, fmt.Errorf("%s row %d: %w", path, i+1, err)
			}
			p.zone = append(p.zone, int(z))
		}
	}
	return p, nil
}

// p1812Case is one row of p1812/cases.csv with its profile.
type p1812Case struct {
	id       string
	in       p1812.Input
	lbRef    float64
	epRef    float64
	logPath  string
	suiteDir string
}

func floats(row enginetest.Row, cols ...string) ([]float64, error) {
	out := make([]float64, len(cols))
	for i, c := range cols {
		v, err := row.Float(c)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func loadP1812Cases(tb testing.TB) ([]p1812Case, []error) {
	tb.Helper()
	dir := enginetest.Dir("p1812")
	rows, err := enginetest.ReadCSV(filepath.Join(dir, "cases.csv"))
	if err != nil {
		return nil, []error{err}
	}
	profiles := map[string]profile{}
	var cases []p1812Case
	var errs []error
	for i, row := range rows {
		id := row["case_id"]
		if id == "" {
			id = fmt.Sprintf("row%d", i+1)
		}
		v, err := floats(row, "f_GHz", "p_pct", "pL_pct", "sigmaL_dB", "htg_m", "hrg_m", "pol",
			"phi_t_deg", "lam_t_deg", "phi_r_deg", "lam_r_deg", "DN", "N0", "dct_km", "dcr_km", "Lb_ref_dB", "Ep_1kW_ref_dBuVm")
		if err != nil {
			errs = append(errs, fmt.Errorf("case %s: %w", id, err))
			continue
		}
		rel := row["profile"]
		pr, ok := profiles[rel]
		if !ok {
			pr, err = readProfile(filepath.Join(dir, filepath.FromSlash(rel)))
			if err != nil {
				errs = append(errs, fmt.Errorf("case %s: %w", id, err))
				continue
			}
			profiles[rel] = pr
		}
		c := p1812Case{
			id: id,
			in: p1812.Input{
				FreqGHz: v[0], TimePct: v[1], LocPct: v[2], SigmaLdB: v[3],
				DKm: pr.d, HMasl: pr.h, RM: pr.r, Zone: pr.zone,
				HtgM: v[4], HrgM: v[5], Pol: p1812.Polarization(v[6]),
				PhiT: v[7], LamT: v[8], PhiR: v[9], LamR: v[10],
				DeltaN: v[11], N0: v[12], DctKm: v[13], DcrKm: v[14],
			},
			lbRef:    v[15],
			epRef:    v[16],
			suiteDir: dir,
		}
		if l := row["intermediate"]; l != "" {
			c.logPath = filepath.Join(dir, filepath.FromSlash(l))
		}
		cases = append(cases, c)
	}
	return cases, errs
}

// TestValidationP1812 runs every case of the p1812 suite: |ΔLb| ≤ 0.01 dB
// (and the same for Ep, which differs from Lb only by a constant).
func TestValidationP1812(t *testing.T) {
	t.Parallel()
	s := enginetest.NewSuite(t, "p1812")
	defer s.Done()
	cases, errs := loadP1812Cases(t)
	for _, err := range errs {
		s.Fail("load", err)
	}
	var maxEp float64
	for _, c := range cases {
		res, err := p1812.Predict(c.in)
		if err != nil {
			s.Fail(c.id, err)
			continue
		}
		s.Check(c.id, res.LbDB, c.lbRef, 0.01)
		maxEp = math.Max(maxEp, math.Abs(res.EpDBuVm-c.epRef))
		if d := math.Abs(res.EpDBuVm - c.epRef); d > 0.01 {
			t.Errorf("case %s: Ep %.6f want %.6f", c.id, res.EpDBuVm, c.epRef)
		}
	}
	t.Logf("p1812: max |ΔEp| = %.3g dB", maxEp)
}

// logValue maps the names of the reference log lines ("name|equation") to
// the Result field they report. The reference logs the Bullington and
// spherical parts for the β0 radius ab (it overwrites the median ones).
var logValue = map[string]func(r *p1812.Result) float64{
	"dlt (km)|Eq (78)":        func(r *p1812.Result) float64 { return r.DltKm },
	"dlr (km)|Eq (81a)":       func(r *p1812.Result) float64 { return r.DlrKm },
	"th_t (mrad)|Eqs (76-78)": func(r *p1812.Result) float64 { return r.ThetaTMrad },
	"th_r (mrad)|Eqs (79-81)": func(r *p1812.Result) float64 { return r.ThetaRMrad },
	"th (mrad)|Eq (82)":       func(r *p1812.Result) float64 { return r.ThetaMrad },
	"hts (m)|":                func(r *p1812.Result) float64 { return r.HtsM },
	"hrs (m)|":                func(r *p1812.Result) float64 { return r.HrsM },
	"w|Table 5":               func(r *p1812.Result) float64 { return r.Omega },
	"dtm (km)|Sec 3.6":        func(r *p1812.Result) float64 { return r.DtmKm },
	"dlm (km)|Sec 3.6":        func(r *p1812.Result) float64 { return r.DlmKm },
	"phi (deg)|Eq (4)":        func(r *p1812.Result) float64 { return r.PhiMDeg },
	"b0 (%)|Eq (5)":           func(r *p1812.Result) float64 { return r.Beta0Pct },
	"ae (km)|Eq (7a)":         func(r *p1812.Result) float64 { return r.AeKm },
	"hst (m)|Eq (85)":         func(r *p1812.Result) float64 { return r.HstRawM },
	"hsr (m)|Eq (86)":         func(r *p1812.Result) float64 { return r.HsrRawM },
	"hst (m)|Eq (90a)":        func(r *p1812.Result) float64 { return r.HstM },
	"hsr (m)|Eq (90b)":        func(r *p1812.Result) float64 { return r.HsrM },
	"hstd (m)|Eq (89)":        func(r *p1812.Result) float64 { return r.HstdM },
	"hsrd (m)|Eq (89)":        func(r *p1812.Result) float64 { return r.HsrdM },
	"htc (m)|Eq (37a)":        func(r *p1812.Result) float64 { return r.HtsM - r.HstdM },
	"hrc (m)|Eq (37b)":        func(r *p1812.Result) float64 { return r.HrsM - r.HsrdM },
	"hte (m)|Eq (92a)":        func(r *p1812.Result) float64 { return r.HteM },
	"hre (m)|Eq (92b)":        func(r *p1812.Result) float64 { return r.HreM },
	"hm (m)|Eq (93)":          func(r *p1812.Result) float64 { return r.HmM },
	"Fi|Eq (40)":              func(r *p1812.Result) float64 { return r.Fi },
	"Fj|Eq (57)":              func(r *p1812.Result) float64 { return r.Fj },
	"Fk|Eq (58)":              func(r *p1812.Result) float64 { return r.Fk },
	"Lbfs|Eq (8)":             func(r *p1812.Result) float64 { return r.LbfsDB },
	"Lb0p|Eq (10)":            func(r *p1812.Result) float64 { return r.Lb0pDB },
	"Lb0b|Eq (11)":            func(r *p1812.Result) float64 { return r.Lb0bDB },
	"Lbulla (dB)|Eq (21)":     func(r *p1812.Result) float64 { return r.LbullaBetaDB },
	"Lbulls (dB)|Eq (21)":     func(r *p1812.Result) float64 { return r.LbullsBetaDB },
	"Ldsph (dB)|Eq (27)":      func(r *p1812.Result) float64 { return r.LdsphBetaDB },
	"Ld50 (dB)|Eq (39)":       func(r *p1812.Result) float64 { return r.Ld50DB },
	"Ldb (dB)|Eq (39)":        func(r *p1812.Result) float64 { return r.LdbDB },
	"Ldp (dB)|Eq (41)":        func(r *p1812.Result) float64 { return r.LdpDB },
	"Lbd50 (dB)|Eq (42)":      func(r *p1812.Result) float64 { return r.Lbd50DB },
	// The reference's Lbda aliases its Lbd array, so the logged "Lbd" is
	// the value after Eq. 61.
	"Lbd (dB)|Eq (43)":     func(r *p1812.Result) float64 { return r.LbdaDB },
	"Lminb0p (dB)|Eq (59)": func(r *p1812.Result) float64 { return r.Lminb0pDB },
	"Lba (dB)|Eq (46)":     func(r *p1812.Result) float64 { return r.LbaDB },
	"Lminbap (dB)|Eq (60)": func(r *p1812.Result) float64 { return r.LminbapDB },
	"Lbda (dB)|Eq (61)":    func(r *p1812.Result) float64 { return r.LbdaDB },
	"Lbam (dB)|Eq (62)":    func(r *p1812.Result) float64 { return r.LbamDB },
	"Lbs (dB)|Eq (44)":     func(r *p1812.Result) float64 { return r.LbsDB },
	"Lbc (dB)|Eq (63)":     func(r *p1812.Result) float64 { return r.LbcDB },
	"Lb (dB)|Eq (69)":      func(r *p1812.Result) float64 { return r.LbDB },
	"Ep (dBuV/m)|Eq (70)":  func(r *p1812.Result) float64 { return r.EpDBuVm },
	"d (km)|":              func(r *p1812.Result) float64 { return r.DistanceKm },
	"dct (km)|":            func(r *p1812.Result) float64 { return r.DctKm },
	"dcr (km)|":            func(r *p1812.Result) float64 { return r.DcrKm },
	"htc (m)|Table 5":      func(r *p1812.Result) float64 { return r.HtsM },
	"hrc (m)|Table 5":      func(r *p1812.Result) float64 { return r.HrsM },
}

// TestP1812Intermediates compares every logged intermediate value of every
// case with the reference log, to 1e-6 relative (or 1e-6 absolute near 0).
// Logs print 10 significant digits.
func TestP1812Intermediates(t *testing.T) {
	t.Parallel()
	cases, errs := loadP1812Cases(t)
	for _, err := range errs {
		t.Error(err)
	}
	checked := 0
	for _, c := range cases {
		if c.logPath == "" {
			continue
		}
		t.Run(c.id, func(t *testing.T) {
			res, err := p1812.Predict(c.in)
			if err != nil {
				t.Fatal(err)
			}
			vals, err := readLog(c.logPath)
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range vals {
				get := logValue[kv.key]
				if get == nil {
					continue
				}
				got := get(&res)
				tol := 1e-6 * math.Max(1, math.Abs(kv.val))
				if math.Abs(got-kv.val) > tol {
					t.Errorf("%s: got %.10g want %.10g", kv.key, got, kv.val)
				}
				checked++
			}
		})
	}
	t.Logf("checked %d intermediate values", checked)
}

type logKV struct {
	key string
	val float64
}

// readLog reads a reference log: "name, equation, , value," lines after the
// input block.
func readLog(path string) ([]logKV, error) {
	rows, err := enginetest.ReadCSV(path)
	if err != nil {
		return nil, err
	}
	var out []logKV
	for _, row := range rows {
		name := strings.TrimSpace(row["# Parameter"])
		ref := strings.TrimSpace(row["Ref"])
		val := strings.TrimSpace(row["Value"])
		if name == "" || val == "" {
			continue
		}
		v, err := enginetest.Row{"v": val}.Float("v")
		if err != nil {
			continue
		}
		out = append(out, logKV{key: name + "|" + ref, val: v})
	}
	return out, nil
}
