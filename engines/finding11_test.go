package engines_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/engines"
	"linkplan/engines/itm"
)

// NTIA ITM v1.4 (the C++ reference, compiled unmodified and run by a
// reviewer of issue 7) on the profile of
// testdata/cases/itm_rj_finding11_troposcatter_700.json, ITM_P2P_TLS_Ex with
// the case's inputs (time, location, situation 50 %).
const (
	f11Case       = "itm_rj_finding11_troposcatter_700.json"
	f11NTIALossDB = 258.3820175 // basic transmission loss, dB
	f11NTIAARefDB = 133.0493    // A_ref, dB
	f11NTIAMode   = 3           // troposcatter
	f11NTIABits   = 0x680       // Tx/Rx horizon near, Tx horizon angle
	f11NTIATxMrad = 268.5       // θ_hzn,tx, mrad (NTIA prints 1 decimal)
	f11NTIARxMrad = 112.8       // θ_hzn,rx, mrad
	f11NTIADxKm   = 51.5        // crossover d_x, km
	f11NTIADiffDB = 130.0       // diffraction line at d_x, dB
	f11Tol        = 0.001       // dB, for the 7- and 4-decimal figures
)

// TestFinding11_ITMTroposcatterPinnedToNTIA: issue 7, finding 11. The 87 km
// obstructed path at 700 MHz with a 5 m receiver, the 968-point profile the
// itm adapter builds from the sample terrain (committed as a case), answers
// NTIA's loss, A_ref, mode and warning flags; DiffractionDB is the
// diffraction value at d_x, not 0; and itm_troposcatter says the figure is
// outside ITM's validity (horizon angle above 200 mrad) without calling the
// excess forward-scatter loss.
func TestFinding11_ITMTroposcatterPinnedToNTIA(t *testing.T) {
	c := loadCase(t, f11Case)
	if n := len(c.Profile.DistancesM); n != 968 || *c.ITM.MdVar != engines.ITMDefaultMdVar || *c.ITM.Epsilon != engines.ITMDefaultEpsilon {
		t.Fatalf("profile of %d points (want 968), mdvar %d epsilon %g: the case must pin the adapter's defaults", n, *c.ITM.MdVar, *c.ITM.Epsilon)
	}
	t.Run("itm package", func(t *testing.T) {
		pfl := make([]float64, 0, 970)
		pfl = append(pfl, float64(len(c.Profile.HeightsM)-1), c.Profile.DistancesM[1])
		pfl = append(pfl, c.Profile.HeightsM...)
		res, err := itm.P2PTLS(itm.P2PInput{PFL: pfl, HTxM: c.Tx.HeightM, HRxM: c.Rx.HeightM, ClimateCode: c.ITM.Climate,
			N0: *c.ITM.N0, FreqMHz: c.FrequencyMHz, Pol: itm.PolVertical, Epsilon: *c.ITM.Epsilon, SigmaSm: *c.ITM.SigmaSPerM,
			MdVar: *c.ITM.MdVar}, 50, 50, *c.ITM.SituationPct)
		if err != nil {
			t.Fatal(err)
		}
		im := res.Intermediate
		t.Logf("loss %.7f dB (NTIA %.7f, deviation %.2g dB), A_ref %.4f dB, mode %d, flags %#x, return code %d, d_x %.3f km, A_diff(d_x) %.3f dB",
			res.LossDB, f11NTIALossDB, res.LossDB-f11NTIALossDB, im.ARefDB, im.Mode, uint32(res.Warnings), res.ReturnCode(),
			im.CrossoverDistM/1000, im.DiffractionAtCrossoverDB)
		if !near(res.LossDB, f11NTIALossDB, f11Tol) || !near(im.ARefDB, f11NTIAARefDB, f11Tol) {
			t.Errorf("loss %.7f A_ref %.7f dB, NTIA %.7f %.4f", res.LossDB, im.ARefDB, f11NTIALossDB, f11NTIAARefDB)
		}
		if im.Mode != f11NTIAMode || res.Warnings != f11NTIABits || res.ReturnCode() != 1 {
			t.Errorf("mode %d flags %#x return code %d, NTIA %d %#x 1", im.Mode, uint32(res.Warnings), res.ReturnCode(), f11NTIAMode, f11NTIABits)
		}
		if !near(1000*im.ThetaHznRad[0], f11NTIATxMrad, 0.05) || !near(1000*im.ThetaHznRad[1], f11NTIARxMrad, 0.05) {
			t.Errorf("horizon angles %g %g mrad, NTIA %g %g", 1000*im.ThetaHznRad[0], 1000*im.ThetaHznRad[1], f11NTIATxMrad, f11NTIARxMrad)
		}
		if !near(im.CrossoverDistM/1000, f11NTIADxKm, 0.05) || !near(im.DiffractionAtCrossoverDB, f11NTIADiffDB, 0.05) {
			t.Errorf("d_x %g km, A_diff(d_x) %g dB; reviewer %g km, %g dB", im.CrossoverDistM/1000, im.DiffractionAtCrossoverDB, f11NTIADxKm, f11NTIADiffDB)
		}
	})
	t.Run("adapter", func(t *testing.T) {
		res, err := newRegistry(t).PredictCase(t.Context(), c, nil)
		if err != nil {
			t.Fatal(err)
		}
		im := res.Intermediate
		if res.UsedEngine != appliance.EngineITM || res.FellBack || !near(res.PathLossDB, f11NTIALossDB, f11Tol) ||
			!near(im["a_ref_db"], f11NTIAARefDB, f11Tol) || im["mode"] != f11NTIAMode || im["warning_bits"] != f11NTIABits {
			t.Fatalf("used %s fellBack %v loss %.7f a_ref %.7f mode %g bits %#x", res.UsedEngine, res.FellBack, res.PathLossDB,
				im["a_ref_db"], im["mode"], int(im["warning_bits"]))
		}
		if res.DiffractionDB != im["a_diff_at_d_x_db"] || !near(res.DiffractionDB, f11NTIADiffDB, 0.05) || !near(im["d_x_km"], f11NTIADxKm, 0.05) {
			t.Errorf("diffraction %g dB, a_diff_at_d_x %g dB, d_x %g km", res.DiffractionDB, im["a_diff_at_d_x_db"], im["d_x_km"])
		}
		var tropo []string
		flags := 0
		for _, w := range res.Warnings {
			switch w.Code {
			case appliance.WarnITMTroposcatter:
				tropo = append(tropo, w.Message)
			case appliance.WarnITM:
				flags++
			}
		}
		if flags != 3 || len(tropo) != 1 {
			t.Fatalf("%d itm_warning (want 3, one per bit of 0x680) and itm_troposcatter %q", flags, tropo)
		}
		msg := tropo[0]
		for _, want := range []string{"d_x = 51.5 km", "A_ref = 133.0 dB", "(130.0 dB) plus 3.0 dB of scatter slope",
			"268.5 mrad at the transmitter", "200 mrad", "not a design value"} {
			if !strings.Contains(msg, want) {
				t.Errorf("itm_troposcatter %q lacks %q", msg, want)
			}
		}
		if strings.Contains(msg, "not diffraction") || strings.Contains(msg, "receiver") {
			t.Errorf("itm_troposcatter %q: the excess is mostly diffraction, and only the transmitter horizon is flagged", msg)
		}
	})
}

// TestITMDiffractionReportedInEveryMode: DiffractionDB is never 0 merely
// because of the mode: a_ref_db is reported in every mode, DiffractionDB is
// max(0, A_ref) in line-of-sight and diffraction modes and the diffraction
// value at d_x (≤ A_ref) in troposcatter mode, which also reports d_x.
func TestITMDiffractionReportedInEveryMode(t *testing.T) {
	reg := newRegistry(t)
	base := loadCase(t, f11Case)
	for _, tc := range []struct {
		name string
		km   float64 // keep the first km of the profile
		flat bool    // heights 10 m instead of the case's
		rxM  float64
		mode float64
	}{
		{name: "troposcatter 87 km", km: 100, rxM: 5, mode: 3},
		{name: "diffraction 60 km, flat", km: 60, flat: true, rxM: 5, mode: 2},
		{name: "line of sight 2 km", km: 2, rxM: 30, mode: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			p := *c.Profile
			n := 0
			for n < len(p.DistancesM) && p.DistancesM[n] <= tc.km*1000 {
				n++
			}
			p.DistancesM, p.HeightsM = p.DistancesM[:n], slices.Clone(p.HeightsM[:n])
			if tc.flat {
				for i := range p.HeightsM {
					p.HeightsM[i] = 10
				}
			}
			c.Profile, c.Rx.HeightM = &p, tc.rxM
			res, err := reg.PredictCase(t.Context(), c, nil)
			if err != nil {
				t.Fatal(err)
			}
			im := res.Intermediate
			aRef, ok := im["a_ref_db"]
			if !ok || im["mode"] != tc.mode || res.UsedEngine != appliance.EngineITM {
				t.Fatalf("mode %g (want %g), a_ref_db %v, used %s", im["mode"], tc.mode, ok, res.UsedEngine)
			}
			_, hasDx := im["d_x_km"]
			want := math.Max(0, aRef)
			if tc.mode == 3 {
				want = im["a_diff_at_d_x_db"]
			}
			if res.DiffractionDB != want || res.DiffractionDB > math.Max(0, aRef) || hasDx != (tc.mode != 1) {
				t.Errorf("diffraction %g dB, want %g (a_ref %g); d_x reported %v", res.DiffractionDB, want, aRef, hasDx)
			}
			_, tropo := warningCode(res.Warnings, appliance.WarnITMTroposcatter)
			if tropo != (tc.mode == 3) {
				t.Errorf("itm_troposcatter %v in mode %g", tropo, tc.mode)
			}
		})
	}
}

func warningCode(ws []appliance.Warning, code string) (appliance.Warning, bool) {
	for _, w := range ws {
		if w.Code == code {
			return w, true
		}
	}
	return appliance.Warning{}, false
}
