package itm_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"linkplan/appliance"
	"linkplan/engines/enginetest"
	"linkplan/engines/itm"
)

// FuzzParsePFL: any input either parses into a consistent profile that
// survives a round trip, or gives an ErrInvalid error; never a panic.
func FuzzParsePFL(f *testing.F) {
	for _, rel := range []string{"cmd_examples/pfl.txt", "pfls/rj_sumare_to_barra.pfl.csv", "qkpfl/crystal_palace_mursley.pfl.csv"} {
		if b, err := os.ReadFile(filepath.Join(enginetest.Fixtures("itm"), filepath.FromSlash(rel))); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("2,90,1,2,3"))
	f.Add([]byte("2 90\n1 2 3\n"))
	f.Add([]byte("1e3,0x10,NaN"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pfl, err := itm.ParsePFL(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, appliance.ErrInvalid) && !strings.Contains(err.Error(), "token too long") {
				t.Fatalf("error %v is neither ErrInvalid nor a scanner limit", err)
			}
			return
		}
		if float64(len(pfl)) != pfl[0]+3 {
			t.Fatalf("np %v with %d values", pfl[0], len(pfl))
		}
		var sb strings.Builder
		for i, v := range pfl {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, "%v", v)
		}
		again, err := itm.ParsePFL(strings.NewReader(sb.String()))
		if err != nil || len(again) != len(pfl) {
			t.Fatalf("round trip: %v (%d values, want %d)", err, len(again), len(pfl))
		}
		for i := range pfl {
			if again[i] != pfl[i] && !(math.IsNaN(again[i]) && math.IsNaN(pfl[i])) {
				t.Fatalf("round trip value %d: %v became %v", i, pfl[i], again[i])
			}
		}
	})
}

// FuzzP2P: any request either fails with an error or gives a finite loss
// and finite intermediate values; never a panic.
func FuzzP2P(f *testing.F) {
	f.Add(uint16(200), 90.0, uint64(1), 30.0, 10.0, 700.0, 1, 1, 1, 90.0, 50.0, 50.0, 300.0)
	f.Add(uint16(2), 25.6, uint64(2), 15.0, 3.0, 3500.0, 5, 1, 12, 50.0, 50.0, 50.0, 0.0)
	f.Add(uint16(3679), 99.97805, uint64(3), 10.0, 1.0, 230.0, 5, 1, 12, 50.0, 17.0, 23.0, 800.0)
	f.Add(uint16(156), 498.7, uint64(4), 143.9, 8.5, 41.5, 5, 0, 12, 1.0, 50.0, 90.0, 60.0)
	f.Fuzz(func(t *testing.T, np uint16, xi float64, seed uint64, hTx, hRx, freq float64, climate, pol, mdvar int,
		tm, loc, sit, relief float64) {
		r := rand.New(rand.NewPCG(seed, 5))
		pfl := make([]float64, int(np)+3)
		pfl[0], pfl[1] = float64(np), xi
		for i := 2; i < len(pfl); i++ {
			pfl[i] = relief * r.Float64()
		}
		in := itm.P2PInput{PFL: pfl, HTxM: hTx, HRxM: hRx, ClimateCode: climate, N0: 301, FreqMHz: freq,
			Pol: pol, Epsilon: 15, SigmaSm: 0.005, MdVar: mdvar}
		res, err := itm.P2PTLS(in, tm, loc, sit)
		if err != nil {
			if !errors.Is(err, appliance.ErrInvalid) && !errors.Is(err, appliance.ErrOutsideEnvelope) {
				t.Fatalf("error %v matches neither ErrInvalid nor ErrOutsideEnvelope", err)
			}
			return
		}
		im := res.Intermediate
		for name, v := range map[string]float64{"loss": res.LossDB, "A_ref": im.ARefDB, "A_fs": im.FreeSpaceLossDB,
			"delta_h": im.DeltaHM, "h_e tx": im.HEffM[0], "h_e rx": im.HEffM[1], "d_hzn tx": im.DHznM[0],
			"d_hzn rx": im.DHznM[1], "theta tx": im.ThetaHznRad[0], "theta rx": im.ThetaHznRad[1]} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s = %v for np %d xi %v h %v/%v f %v relief %v", name, v, np, xi, hTx, hRx, freq, relief)
			}
		}
	})
}

// FuzzArea: area mode either fails with an error or gives finite values.
func FuzzArea(f *testing.F) {
	f.Add(10.0, 20.0, 15.0, 3.0, 0, 0, 3500.0, 5, 1, 1, 50.0, 50.0, 50.0)
	f.Add(100.0, 5.0, 15.0, 3.0, 2, 1, 980.0, 4, 1, 2, 92.0, 53.0, 97.0)
	f.Add(1000.0, 0.0, 3.0, 3.0, 0, 0, 10000.0, 5, 1, 3, 90.0, 50.0, 90.0)
	f.Fuzz(func(t *testing.T, dKm, deltaH, hTx, hRx float64, txS, rxS int, freq float64, climate, pol, mdvar int,
		tm, loc, sit float64) {
		in := itm.AreaInput{DistKm: dKm, DeltaHM: deltaH, HTxM: hTx, HRxM: hRx, TxSiting: txS, RxSiting: rxS,
			ClimateCode: climate, N0: 301, FreqMHz: freq, Pol: pol, Epsilon: 15, SigmaSm: 0.005, MdVar: mdvar}
		res, err := itm.AreaTLS(in, tm, loc, sit)
		if err != nil {
			if !errors.Is(err, appliance.ErrInvalid) && !errors.Is(err, appliance.ErrOutsideEnvelope) {
				t.Fatalf("error %v matches neither ErrInvalid nor ErrOutsideEnvelope", err)
			}
			return
		}
		if math.IsNaN(res.LossDB) || math.IsInf(res.LossDB, 0) {
			t.Fatalf("loss %v for %+v", res.LossDB, in)
		}
	})
}
