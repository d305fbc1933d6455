package itm_test

import (
	"math/rand/v2"
	"testing"

	"linkplan/engines/itm"
)

// bench100km is a 100 km path: 1111 intervals of 90 m (1112 points) of
// seeded rough terrain, 30 m and 10 m antennas at 700 MHz.
func bench100km() itm.P2PInput {
	r := rand.New(rand.NewPCG(1, 1))
	return itm.P2PInput{PFL: terrainPFL(r, 1111, 90), HTxM: 30, HRxM: 10,
		ClimateCode: itm.ClimateContinentalSubtropical, N0: 330, FreqMHz: 700, Pol: itm.PolVertical,
		Epsilon: 15, SigmaSm: 0.005, MdVar: itm.MdVarAccidental}
}

// BenchmarkP2P100km is one point-to-point prediction (validation included)
// on a 100 km profile. The naive baseline is BenchmarkP2P100kmNaive in
// kernels_test.go.
func BenchmarkP2P100km(b *testing.B) {
	in := bench100km()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := itm.P2PTLS(in, 90, 50, 50); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkArea is one area-mode prediction.
func BenchmarkArea(b *testing.B) {
	in := itm.AreaInput{DistKm: 50, DeltaHM: 90, HTxM: 30, HRxM: 10, ClimateCode: itm.ClimateEquatorial, N0: 330,
		FreqMHz: 700, Pol: itm.PolVertical, Epsilon: 15, SigmaSm: 0.005, MdVar: itm.MdVarBroadcast}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := itm.AreaCR(in, 50, 90); err != nil {
			b.Fatal(err)
		}
	}
}
